import triton
import triton.language as tl


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr):
    # A dot with M below 16: Triton pads it onto a tensor-core tile; tilec
    # computes its few products with multiply-adds in the accumulator's type.
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)

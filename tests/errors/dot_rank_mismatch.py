# flags: -k k -s "*fp16:16, *fp16:16, *fp32:16, 16, 64, 32"
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + tl.arange(0, 2)[:, None, None] * BM * BK + rm[None, :, None] * BK + rk[None, None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)

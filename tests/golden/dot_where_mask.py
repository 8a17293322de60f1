# Golden input: a dot's accumulator masked by a broadcast row of column indices (a causal-style
# mask).  The mask's column index is computed in the mma accumulator's layout, whose register
# bits reach the column through a slice: the emitted index must be a short sum of bit terms.
import triton
import triton.language as tl


@triton.jit
def dot_where_mask_kernel(a_ptr, b_ptr, c_ptr, t, start, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    c = tl.where((t >= (start + tl.arange(0, BN)))[None, :], c, 0.0)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)

import triton
import triton.language as tl


# tl.softmax, Triton's library function: x - max, exp, / sum along one axis.  A 16-bit
# input gives an fp32 result (tl.max promotes it).  Rows of BLOCK elements end to end,
# the last one cut at N.
@triton.jit
def softmax_rows(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N, other=float("-inf"))
    tl.store(Y + offs, tl.softmax(x), mask=offs < N)


# The method spelling on a 2-D tile of BM rows of BN: along DIM, kept as a unit axis or
# broadcast back.
@triton.jit
def softmax_tile(X, Y, N, BM: tl.constexpr, BN: tl.constexpr, DIM: tl.constexpr, KEEP: tl.constexpr,
                 IEEE: tl.constexpr):
    offs = tl.program_id(0) * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    x = tl.load(X + offs, mask=offs < N, other=-1.0e4)
    y = x.softmax(DIM, keep_dims=KEEP, ieee_rounding=IEEE)
    tl.store(Y + offs, y, mask=offs < N)

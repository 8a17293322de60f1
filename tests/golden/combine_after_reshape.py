import triton
import triton.language as tl


@triton.jit
def argmax_combine(v1, i1, v2, i2):
    # the larger value, the lower index on ties
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def columns_after_reshape_kernel(x_ptr, best_ptr, where_ptr, suffix_max_ptr, n, BLOCK: tl.constexpr):
    # The block's 1024 values seen as 32x32 after a reshape and a permute (a linear
    # layout holding the row bits in warps, then in registers out of order): each
    # column's argmax, and each column's running maximum from its end.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=float('-inf'))
    x = tl.reshape(tl.permute(tl.reshape(x, (8, 64, 2)), (2, 0, 1)), (32, 32))
    offs = tl.reshape(tl.permute(tl.reshape(offs, (8, 64, 2)), (2, 0, 1)), (32, 32))
    mask = tl.reshape(tl.permute(tl.reshape(mask, (8, 64, 2)), (2, 0, 1)), (32, 32))
    best, where = tl.reduce((x, offs), 0, argmax_combine)
    cols = pid * 32 + tl.arange(0, 32)
    tl.store(best_ptr + cols, best, mask=cols < n)
    tl.store(where_ptr + cols, where, mask=cols < n)
    suffix_max = tl.associative_scan(x, 0, max_combine, reverse=True)
    tl.store(suffix_max_ptr + offs, suffix_max, mask=mask)

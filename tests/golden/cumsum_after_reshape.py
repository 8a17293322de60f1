import triton
import triton.language as tl


@triton.jit
def reversed_cumsum_after_reshape_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # tl.cumsum from the end of each column of a 32x32 made by reshape, permute and
    # reshape, whose row bits sit in warps, then in registers out of order
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    x = tl.reshape(tl.permute(tl.reshape(x, (8, 64, 2)), (2, 0, 1)), (32, 32))
    offs = tl.reshape(tl.permute(tl.reshape(offs, (8, 64, 2)), (2, 0, 1)), (32, 32))
    mask = tl.reshape(tl.permute(tl.reshape(mask, (8, 64, 2)), (2, 0, 1)), (32, 32))
    tl.store(out_ptr + offs, tl.cumsum(x, 0, reverse=True), mask=mask)

import triton
import triton.language as tl


@triton.jit
def flipped_3d(t):
    # the block's 1024 values as 128x8, transposed, each row reversed, seen as 8x2x64
    # and then as 32x16x2: a
    # linear layout whose registers hold dim 0 out of order
    return tl.reshape(tl.reshape(tl.flip(tl.trans(tl.reshape(t, (128, 8))), 1), (8, 2, 64)), (32, 16, 2))


@triton.jit
def cumsum_3d_after_flip_kernel(b_ptr, suffix_ptr, n, BLOCK: tl.constexpr):
    # the sum of b from the end of dim 0 of a 3-D view of the block: the scan walks dim 0 in
    # order whatever the order of the operand's registers
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    b3 = flipped_3d(b).to(tl.float32)
    offs3 = flipped_3d(offs)
    mask3 = flipped_3d(mask)
    tl.store(suffix_ptr + offs3, tl.cumsum(b3, 0, reverse=True), mask=mask3)

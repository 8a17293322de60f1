import triton
import triton.language as tl


@triton.jit
def affine_combine(a_first, b_first, a_second, b_second):
    # x -> a*x + b, composed: the second map applied after the first (not commutative)
    return a_first * a_second, b_first * a_second + b_second


@triton.jit
def flipped_3d(t):
    # the block's 1024 values as 128x8, transposed, each row reversed, seen as 8x2x64
    # and then as 32x16x2: a
    # linear layout whose registers hold dim 0 out of order
    return tl.reshape(tl.reshape(tl.flip(tl.trans(tl.reshape(t, (128, 8))), 1), (8, 2, 64)), (32, 16, 2))


@triton.jit
def scan_3d_after_flip_kernel(a_ptr, b_ptr, h_ptr, n, BLOCK: tl.constexpr):
    # h = a * h_before + b down dim 0 of a 3-D view of the block (a tuple scan): the scan
    # walks dim 0 in order whatever the order of the operands' registers
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    a3 = 0.5 + 0.25 * flipped_3d(a).to(tl.float32)
    b3 = flipped_3d(b).to(tl.float32)
    offs3 = flipped_3d(offs)
    mask3 = flipped_3d(mask)
    scale, h = tl.associative_scan((a3, b3), 0, affine_combine)
    tl.store(h_ptr + offs3, h, mask=mask3)

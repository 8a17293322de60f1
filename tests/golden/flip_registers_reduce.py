import triton
import triton.language as tl


@triton.jit
def max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def flip_registers_reduce_kernel(x_ptr, sums_ptr, maxes_ptr, n, BLOCK: tl.constexpr):
    # With one warp, dim 0 of the 4x128x2 view lies in each thread's registers: the flip
    # renames registers (x[e ^ 24]), and the reductions after the reshape read the
    # flipped registers at computed indices.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    x = tl.reshape(tl.flip(tl.reshape(x, (4, 128, 2)), 0), (8, 32, 4))
    rows = pid * 256 + tl.arange(0, 256)
    sums = tl.reshape(tl.sum(x, 2), (256,))
    tl.store(sums_ptr + rows, sums, mask=rows < n)
    maxes = tl.reshape(tl.reduce(x, 2, max_combine), (256,))
    tl.store(maxes_ptr + rows, maxes, mask=rows < n)

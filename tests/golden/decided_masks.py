"""Comparisons that every thread answers alike in some registers: columns past a constant
N in a block wider than N, a test true everywhere, and a band of a 2-D tile.  tilec writes
those registers' answers as constants (the kernel's own test remains where it depends on
the thread), and a comparison true everywhere becomes `true`."""
import triton
import triton.language as tl


@triton.jit
def decided_masks_kernel(x_ptr, y_ptr, z_ptr, n, N: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < N                      # the last registers of every thread lie past N
    everywhere = cols != BLOCK + 7         # true in every register
    offs = row * N + cols
    ok = inside & everywhere & (offs < n)
    x = tl.load(x_ptr + offs, mask=ok, other=0.0)
    tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=ok)
    # a band of a 16 x 32 tile: decided in some registers, tested in others
    r = tl.arange(0, 16)[:, None]
    c = tl.arange(0, 32)[None, :]
    band = (c * 2 - r >= 24) & (3 * c < 100 - r)
    zoffs = row * 512 + r * 32 + c
    tl.store(z_ptr + zoffs, tl.where(band, 1.0, -1.0), mask=zoffs < n)

"""tl.histogram: each program counts its block's values into BINS bins."""
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(X, OUT, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0) & (BINS - 1)
    counts = tl.histogram(x, BINS, mask=mask)
    out = pid * BINS + tl.arange(0, BINS)
    tl.store(OUT + out, counts, mask=out < n)

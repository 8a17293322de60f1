import triton
import triton.language as tl


@triton.jit
def rope_pairs_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # rotary embedding on interleaved pairs (x0, x1), (x2, x3), ...
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    x_even, x_odd = tl.split(tl.reshape(x, (BLOCK // 2, 2)))
    half = pid * (BLOCK // 2) + tl.arange(0, BLOCK // 2)
    hmask = half < n // 2
    c = tl.load(cos_ptr + half, mask=hmask, other=1.0)
    s = tl.load(sin_ptr + half, mask=hmask, other=0.0)
    y_even = x_even * c - x_odd * s
    y_odd = x_even * s + x_odd * c
    y = tl.interleave(y_even, y_odd)
    tl.store(out_ptr + offs, y, mask=mask)

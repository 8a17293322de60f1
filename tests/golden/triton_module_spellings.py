"""Triton's modules under their own dotted names, as helper files import them:
triton.language.standard (zeros_like) and triton.language.random (rand)."""
import triton
import triton.language as tl
import triton.language.random as tlr
from triton.language.standard import zeros_like


@triton.jit
def keep_half_kernel(x_ptr, y_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    r = tlr.rand(seed, offs)
    y = tl.where(r > 0.5, x, zeros_like(x))
    tl.store(y_ptr + offs, y, mask=mask)

"""A module-level constexpr written with an annotation, as kernels written for other Triton
versions do (Triton 3.6 refuses it unless TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1 is set)."""
import triton
import triton.language as tl

EPSILON: tl.constexpr = 1e-12
SCALE = tl.constexpr(448.0)


@triton.jit
def quant_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    amax = tl.maximum(tl.max(tl.abs(x), axis=0), EPSILON)
    tl.store(y_ptr + offs, x * (SCALE / amax), mask=mask)

# Helpers from a folder given with -I, and module-level aliases of Triton's functions
# and modules.
import triton
import triton.language as tl

from mathlib import gelu_tanh, norm

tle = tl
maximum = tl.maximum

try:
    from triton.language.extra.libdevice import tanh
except ImportError:
    from triton.language.math import tanh


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tle.program_id(0) * BLOCK + tle.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = maximum(gelu_tanh(x), tanh(x)) + norm(x)
    tl.store(y_ptr + offs, y, mask=mask)

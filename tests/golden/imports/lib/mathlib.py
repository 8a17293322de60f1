# A plain folder of helpers (no __init__.py), found with -I.
import triton
import triton.language as tl
import triton.language.core as tlc
from triton.language.math import rsqrt as math_rsqrt

HALF = tl.constexpr(0.5)


@triton.jit
def gelu_tanh(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return HALF * x * (1.0 + tl.extra.cuda.libdevice.tanh(inner))


@triton.jit
def norm(x):
    return x * math_rsqrt(tl.sum(tlc.maximum(x * x, 0.0), axis=0) + tl.math.exp(-20.0))

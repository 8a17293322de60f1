# Math helpers chosen at import time, as real projects write them: by an environment
# variable (tilec takes it as unset: the else branch) and by Triton's version (the try
# body names libdevice where Triton >= 3.0 has it).
import os

import triton
import triton.language as tl

if os.environ.get("NORMPKG_FAST_EXP", "0") == "1":
    exp = tl.math.exp2
else:
    exp = tl.exp

try:
    from triton.language.extra.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt

from . import EPS


@triton.jit
def safe_rsqrt(x):
    return rsqrt(x + EPS)


def host_only(x):
    return {k: v for k, v in x.items()}  # host code: never read

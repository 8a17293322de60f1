# Wrappers around tl, like FlagGems' triton_lang_extension: kernels call
# tle.program_id(0) and get an int64 program id.
import triton
from triton import language as tl


@triton.jit
def program_id(axis):
    return tl.program_id(axis).to(tl.int64)

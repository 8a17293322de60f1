# flags: -k r
import triton
import triton.language as tl


@triton.jit
def r():
    m = 0
    tl.maximum(m, tl)

import triton
import triton.language as tl

SCALE = 2.0


@triton.jit
def first_ten(x_ptr):
    offs = tl.arange(0, 10)
    return tl.load(x_ptr + offs)

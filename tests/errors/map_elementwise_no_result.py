# flags: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl


@triton.jit
def nothing(x):
    x = x + 1


@triton.jit
def k(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y = tl.map_elementwise(nothing, x)
    tl.store(y_ptr + offs, x)

# flags: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl


@triton.jit
def twice(a, b):
    return a + a, b + b


@triton.jit
def k(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y, z = tl.map_elementwise(twice, x, x, pack=2)
    tl.store(y_ptr + offs, y + z)

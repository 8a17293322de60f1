# flags: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl


@triton.jit
def pick(x):
    return x, pick


@triton.jit
def k(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    y, f = tl.map_elementwise(pick, x)
    tl.store(y_ptr + offs, y)

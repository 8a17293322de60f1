# flags: -k k -s "*fp32:16, *fp32:16"
import triton
import triton.language as tl


@triton.jit
def loud(x):
    tl.device_print("x", x)
    return x


@triton.jit
def k(x_ptr, y_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.map_elementwise(loud, x))

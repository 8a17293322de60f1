# flags: -k k -s "*fp32:16, fp32"
import triton
import triton.language as tl


@triton.jit
def halve(x):
    return x * 0.5


@triton.jit
def k(y_ptr, a):
    tl.store(y_ptr, tl.map_elementwise(halve, a))

# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.autotune(key=["n"])
@triton.jit
def k(x_ptr, n):
    pass

# flags: -k k -s "*fp32:16, i32, 64"
  x = 1
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    pass

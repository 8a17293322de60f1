# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, lane):
    tl.store(x_ptr, lane)

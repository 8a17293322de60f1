# flags: -k k -s "x_ptr=*fp32:16, n=i32, x_ptr=*fp16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.store(x_ptr, n)

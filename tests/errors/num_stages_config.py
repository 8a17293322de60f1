# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=4, num_stages=12)], key=[])
@triton.jit
def k(x_ptr, n):
    pass

# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.heuristics(1)
@triton.jit
def k(x_ptr, n):
    pass

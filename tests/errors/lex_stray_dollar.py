# flags: -k k -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    a = $n

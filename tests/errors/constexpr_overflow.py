# flags: -k k -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    big: tl.constexpr = 1 << 70
    tl.store(x_ptr, n + big)

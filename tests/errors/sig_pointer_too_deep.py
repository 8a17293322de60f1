# flags: -k k -s "***fp16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    p = tl.load(x_ptr)

# flags: -k k -s "*fp32:16, i32, 16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr)
    s = tl.max(x, axis=0)
    tl.store(x_ptr, s)

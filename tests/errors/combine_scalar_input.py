# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def add(a, b):
    return a + b


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, tl.reduce(n, 0, add))

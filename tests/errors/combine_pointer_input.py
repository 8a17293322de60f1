# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def first(a, b):
    return a


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    p = x_ptr + tl.arange(0, BLOCK)
    tl.store(tl.reduce(p, 0, first), 1.0)

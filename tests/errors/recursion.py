# flags: -k k -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def f(v):
    return g(v)


@triton.jit
def g(v):
    return f(v)


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, f(n))

# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def first_only(a0, a1, b0, b1):
    return a0 + b0


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    s, t = tl.reduce((x, x), 0, first_only)
    tl.store(x_ptr, s)

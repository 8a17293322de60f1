# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def spread(a, b):
    t = tl.full((4,), 1.0, tl.float32) * a
    return tl.sum(t) + b


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr, tl.reduce(x, 0, spread))

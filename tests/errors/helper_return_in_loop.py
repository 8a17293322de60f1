# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def first_positive(x_ptr, n):
    for i in range(n):
        v = tl.load(x_ptr + i)
        if v > 0:
            return v
    return 0.0


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, first_positive(x_ptr, n))

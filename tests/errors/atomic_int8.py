# flags: -k k -s "*i8:16, i32, 128"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(x_ptr + offs, 1, mask=offs < n)

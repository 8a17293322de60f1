# flags: -k k -s "*fp99:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = x * 2.0
    tl.store(x_ptr + offs, y, mask=offs < n)

# flags: -k k -s "*i32:16, *fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, f_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    f = tl.load(f_ptr + tl.arange(0, BLOCK))
    h = tl.histogram(x, 16, mask=x)

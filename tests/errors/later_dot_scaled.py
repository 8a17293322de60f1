# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    x2 = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    y = tl.dot_scaled(x2, None, 'e4m3', x2, None, 'e4m3')

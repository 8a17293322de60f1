# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.gather(tl.reshape(x, (8, 8)), offs, 0)

# flags: -k k -s "x_ptr=*fp32:16, m=i32, BLOCK=64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    pass

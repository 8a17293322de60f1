# flags: -k k -s "*fp8e4nv:16, i32, 64" --arch sm_90
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x.to(tl.float8e5)

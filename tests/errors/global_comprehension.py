# flags: -s "*fp32:16"
import triton
import triton.language as tl

WIDTH = tl.constexpr(len([w for w in (1, 2)]) * 64)


@triton.jit
def k(x_ptr):
    offs = tl.arange(0, WIDTH)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)

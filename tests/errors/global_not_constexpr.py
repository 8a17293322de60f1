# flags: -k k -s "*fp32:16, 128"
import triton
import triton.language as tl

SCALE = 2.0


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * SCALE)

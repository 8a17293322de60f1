# flags: -s "*fp32:16, 128"
import triton
import triton.language as tl
from importpkg.cycle_a import scale


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, scale(tl.load(x_ptr + offs)))

# flags: -s "*fp32:16, 128"
import triton
import triton.language as tl
from importpkg.helpers import first_ten


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, first_ten(x_ptr))

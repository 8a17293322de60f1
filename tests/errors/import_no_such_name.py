# flags: -s "*fp32:16, 128"
import triton
import triton.language as tl
from importpkg.helpers import last_ten


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, last_ten(x_ptr))

# flags: -k scale_kernel -s "*fp32:16, i32"
import triton
import triton.language as tl
from tuning import get_configs


@triton.autotune(configs=get_configs(), key=["n"])
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

# flags: -s "*fp32:16, 128"
import torch
import triton
import triton.language as tl
from missing_pkg.utils import scale


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, scale(tl.load(x_ptr + offs)))

# flags: -k k -s "*fp32:16, 64"
"""A constexpr global computed with torch: torch.iinfo(torch.uint64).max"""
import torch
import triton
import triton.language as tl

LIMIT = tl.constexpr(torch.iinfo(torch.uint64).max)


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.full([BLOCK], LIMIT, tl.float32))

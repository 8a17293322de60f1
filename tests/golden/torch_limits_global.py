"""Constexpr globals computed with torch at import time, as FlagGems writes them:
tl.constexpr(torch.finfo(torch.float32).min) and tl.constexpr(torch.iinfo(torch.int32).max)."""
import torch
import triton
import triton.language as tl

_MIN_FLOAT32_VAL = tl.constexpr(torch.finfo(torch.float32).min)
_MAX_INT32_VAL = tl.constexpr(torch.iinfo(torch.int32).max)


@triton.jit
def block_argmax_kernel(x_ptr, y_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=_MIN_FLOAT32_VAL)
    m = tl.max(x, axis=0)
    first = tl.min(tl.where(x == m, offs, _MAX_INT32_VAL), axis=0)
    tl.store(y_ptr + tl.program_id(0), m)
    tl.store(idx_ptr + tl.program_id(0), first)

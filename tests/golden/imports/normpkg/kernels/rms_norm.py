# RMS norm whose helpers come from the package around it, in each spelling of import:
# absolute through the package root (normpkg has __init__.py files up to here), relative
# with one and two dots, a module under an alias, and Triton's own names imported.
import torch
import triton
import triton.language as tl
from triton.language import sum as reduce_sum

import normpkg.utils.op as op
from normpkg.utils import lang as tle
from normpkg.utils.op import exp

from ..utils import EPS
from .common import SCALE, inv_rms

exp_fn = exp


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tle.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean_sq = reduce_sum(x * x, axis=0) / n_cols
    y = x * inv_rms(mean_sq) * SCALE + exp_fn(op.EPS - EPS)
    tl.store(y_ptr + row * n_cols + offs, y, mask=mask)


def rms_norm(x):
    y = torch.empty_like(x)
    rms_norm_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
    return y

import triton
import triton.language as tl


@triton.jit
def affine_combine(a_first, b_first, a_second, b_second):
    # x -> a*x + b, composed: the second map applied after the first (not commutative)
    return a_first * a_second, b_first * a_second + b_second


@triton.jit
def add_combine(a, b):
    return a + b


@triton.jit
def recurrence_after_split_kernel(a_ptr, b_ptr, out_ptr, total_ptr, n, BLOCK: tl.constexpr):
    # The block seen as 32 rows of 32 after tl.split, tl.interleave, tl.trans and a reshape
    # (a linear layout whose column bits sit in registers out of order): h = a * h + b along
    # each row as a scan of affine maps, and the block's sum of b over every axis.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    lo, hi = tl.split(tl.reshape(a, (8, 64, 2)))
    a = tl.reshape(tl.trans(tl.interleave(lo, hi)), (32, 32))
    lo, hi = tl.split(tl.reshape(b, (8, 64, 2)))
    b = tl.reshape(tl.trans(tl.interleave(lo, hi)), (32, 32))
    lo, hi = tl.split(tl.reshape(offs, (8, 64, 2)))
    offs = tl.reshape(tl.trans(tl.interleave(lo, hi)), (32, 32))
    lo, hi = tl.split(tl.reshape(mask, (8, 64, 2)))
    mask = tl.reshape(tl.trans(tl.interleave(lo, hi)), (32, 32))
    scale, h = tl.associative_scan((a, b), 1, affine_combine)
    tl.store(out_ptr + offs, h, mask=mask)
    total = tl.reduce(b, None, add_combine)
    tl.store(total_ptr + pid, total)

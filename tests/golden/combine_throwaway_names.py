import triton
import triton.language as tl


@triton.jit
def affine_combine(a_first, b_first, a_second, b_second):
    return a_first * a_second, b_first * a_second + b_second


@triton.jit
def argmax_combine(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def throwaway_names_kernel(x_ptr, best_ptr, n, BLOCK: tl.constexpr):
    # Two results thrown away as `_`: C reserves "__2", so they are named by their role
    # (a loop that looked for a free "__N" never ended).
    pid = tl.program_id(0)
    rows = pid * 16 + tl.arange(0, 16)
    cols = tl.arange(0, BLOCK // 16)
    mask = rows[:, None] * (BLOCK // 16) + cols[None, :] < n
    x = tl.load(x_ptr + rows[:, None] * (BLOCK // 16) + cols[None, :], mask=mask, other=0.0)
    _, h = tl.associative_scan((tl.sigmoid(x), x), 0, affine_combine)
    _, best = tl.reduce((h, tl.broadcast_to(cols[None, :], (16, BLOCK // 16))), 1, argmax_combine)
    tl.store(best_ptr + rows, best, mask=rows * (BLOCK // 16) < n)

import triton
import triton.language as tl


@triton.jit
def welford_combine(mean_a, m2_a, weight_a, mean_b, m2_b, weight_b):
    # Chan et al.: two groups' (mean, sum of squared deviations, count) merged
    weight = weight_a + weight_b
    b_share = tl.where(weight == 0.0, 0.0, weight_b / weight)
    delta = mean_b - mean_a
    mean = mean_a + delta * b_share
    m2 = m2_a + m2_b + delta * delta * weight_a * b_share
    return mean, m2, weight


@triton.jit
def welford_norm_kernel(x_ptr, y_ptr, n, eps, ROWS: tl.constexpr, COLS: tl.constexpr):
    # each program normalises ROWS rows of COLS elements (the tile x_ptr[pid*ROWS*COLS ...]):
    # mean and variance of each row by a Welford reduction over (mean, m2, weight)
    pid = tl.program_id(0)
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    offs = pid * ROWS * COLS + rows[:, None] * COLS + cols[None, :]
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    weight = mask.to(tl.float32)
    m2 = tl.zeros((ROWS, COLS), dtype=tl.float32)
    mean, m2, count = tl.reduce((x, m2, weight), 1, welford_combine, keep_dims=True)
    var = m2 / tl.maximum(count, 1.0)
    y = (x - mean) / tl.sqrt(var + eps)
    tl.store(y_ptr + offs, y, mask=mask)

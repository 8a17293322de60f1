import triton
import triton.language as tl


@triton.jit
def absmax_combine(a, b):
    # the value of larger magnitude, the sign kept
    return tl.where(tl.abs(a) >= tl.abs(b), a, b)


@triton.jit
def col_absmax_kernel(x_ptr, out_ptr, tile_ptr, n, ROWS: tl.constexpr, COLS: tl.constexpr):
    # each program: a ROWS x COLS tile of x_ptr (row-major from pid*ROWS*COLS), reduced down its
    # columns, and over the whole tile
    pid = tl.program_id(0)
    rows = tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    offs = pid * ROWS * COLS + rows[:, None] * COLS + cols[None, :]
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    col = x.reduce(0, absmax_combine)
    total = tl.reduce(x, None, absmax_combine)
    out = pid * COLS + cols
    tl.store(out_ptr + out, col, mask=out < n)
    tl.store(tile_ptr + pid, total)

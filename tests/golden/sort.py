import triton
import triton.language as tl


# Each program sorts its block of BLOCK elements (masked-off lanes read +inf, so
# they sort last and the stores put back only the block's own elements).
@triton.jit
def sort_block_kernel(X, Y, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=float("inf"))
    y = tl.sort(x)
    tl.store(Y + offs, y, mask=mask)


# Each program sorts ROWS rows of BLOCK // ROWS elements, descending, and checks
# tl.bitonic_merge on the second half of each sorted row reversed into a bitonic one.
@triton.jit
def sort_rows_kernel(X, Y, Z, n, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    COLS: tl.constexpr = BLOCK // ROWS
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    offs = rows[:, None] * COLS + cols[None, :]
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    y = tl.sort(x, dim=1, descending=True)
    tl.store(Y + offs, y, mask=mask)
    z = tl.bitonic_merge(tl.where(cols[None, :] < COLS // 2, y, ~y))
    tl.store(Z + offs, z, mask=mask)


# The K largest of each row of BLOCK // ROWS elements, in descending order.
@triton.jit
def topk_rows_kernel(X, Y, n, BLOCK: tl.constexpr, ROWS: tl.constexpr, K: tl.constexpr):
    COLS: tl.constexpr = BLOCK // ROWS
    pid = tl.program_id(0)
    rows = pid * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(X + offs, mask=offs < n, other=float("-inf"))
    top = tl.topk(x, K)
    out = rows[:, None] * K + tl.arange(0, K)[None, :]
    tl.store(Y + out, top, mask=out < n)

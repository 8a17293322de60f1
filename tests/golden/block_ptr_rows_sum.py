import triton
import triton.language as tl


# y[c] = the sum of squares of column c of x viewed as (n // COLS) rows of COLS, BLOCK_R rows a
# step (squares: thousands of random terms of one sign, whose sum keeps its digits in any order,
# so that the GPU test can hold it to Triton's).  The block pointer moves along the rows only and
# checks only them, so its column offset is never read: the loop must not keep a variable for it
# (NVRTC warns of an unused one).
@triton.jit
def block_ptr_rows_sum_kernel(x_ptr, y_ptr, n, BLOCK_R: tl.constexpr, COLS: tl.constexpr):
    rows = n // COLS
    p = tl.make_block_ptr(x_ptr, (rows, COLS), (COLS, 1), (0, 0), (BLOCK_R, COLS), (1, 0))
    acc = tl.zeros((COLS,), dtype=tl.float32)
    for r in range(0, tl.cdiv(rows, BLOCK_R)):
        x = tl.load(p, boundary_check=(0,), padding_option="zero")
        acc += tl.sum(x * x, 0)
        p = tl.advance(p, (BLOCK_R, 0))
    cols = tl.arange(0, COLS)
    tl.store(y_ptr + cols, acc, mask=cols < n)

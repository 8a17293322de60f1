# The index of the largest value of every row of a row-major [M, N] matrix (row stride
# `stride`), as torch.argmax(x, 1): among equal maxima the lowest column wins.
#
# ROWS rows per program, the row walked BLOCK_N columns at a time with a running maximum and
# its column per row; the offsets are 64-bit, so rows of a matrix past 2^31 elements are fine.
#
#   bin/tilec examples/argmax.py -k argmax_rows_kernel -s "*bf16:16, *i32:16, i32, i32, i32:16, 8, 1024" --grid "cdiv(M, ROWS)" -w 4 -o argmax.cu

import torch

import triton
import triton.language as tl


@triton.jit
def argmax_rows_kernel(X, Out, M, N, stride, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    base = X + rows[:, None].to(tl.int64) * stride
    best = tl.full([ROWS], float("-inf"), dtype=tl.float32)
    best_col = tl.zeros([ROWS], dtype=tl.int32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(base + cols[None, :], mask=row_ok[:, None] & (cols[None, :] < N),
                    other=float("-inf")).to(tl.float32)
        # the chunk's maximum and its first column; strictly greater keeps earlier chunks on ties
        chunk_max, chunk_col = tl.max(x, axis=1, return_indices=True)
        better = chunk_max > best
        best_col = tl.where(better, start + chunk_col, best_col)
        best = tl.where(better, chunk_max, best)
    tl.store(Out + rows, best_col, mask=row_ok)


def argmax_rows(x: torch.Tensor, rows: int = 8, block_n: int = 1024):
    """Host wrapper: torch.argmax(x, 1) as int32."""
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.int32)
    argmax_rows_kernel[(triton.cdiv(M, rows),)](x, out, M, N, x.stride(0), ROWS=rows, BLOCK_N=block_n)
    return out

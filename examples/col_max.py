# Max and argmax of every column of a row-major [M, N] matrix (row stride `stride`), and the
# min and argmin of every row.
#
# col_max_kernel: each program owns BLOCK_N columns and walks down the rows BLOCK_M at a
# time, keeping a running max and its row per column. On ties the lowest row wins.
# Grid cdiv(N, BLOCK_N):
#   bin/tilec examples/col_max.py -k col_max_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, i32, 32, 64" --grid "cdiv(N, BLOCK_N)" -w 4 -o col_max.cu
#
# row_min_kernel: BLOCK_M whole rows per program (BLOCK_N >= N), reduced along axis 1 with
# keep_dims=True so that the results stay [BLOCK_M, 1] columns. Grid cdiv(M, BLOCK_M):
#   bin/tilec examples/col_max.py -k row_min_kernel -s "*fp32:16, *fp32:16, *i32:16, i32, i32, i32, 4, 1024" --grid "cdiv(M, BLOCK_M)" -w 4 -o row_min.cu

import torch

import triton
import triton.language as tl


@triton.jit
def col_max_kernel(X, OutMax, OutIdx, M, N, stride,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    best = tl.full((BLOCK_N, ), -float('inf'), dtype=tl.float32)
    best_row = tl.zeros((BLOCK_N, ), dtype=tl.int32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & col_mask[None, :]
        x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=mask,
                    other=-float('inf')).to(tl.float32)
        # Max of each column of this chunk, and where it is (0..BLOCK_M-1). Among equal
        # values return_indices gives the smallest index.
        chunk_max, chunk_row = tl.max(x, axis=0, return_indices=True)
        # Strictly greater: on a tie the earlier chunk, i.e. the lower row, is kept.
        better = chunk_max > best
        best_row = tl.where(better, start + chunk_row, best_row)
        best = tl.where(better, chunk_max, best)
    tl.store(OutMax + cols, best, mask=col_mask)
    tl.store(OutIdx + cols, best_row, mask=col_mask)


@triton.jit
def row_min_kernel(X, OutMin, OutIdx, M, N, stride,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    row_mask = rows[:, None] < M                        # [BLOCK_M, 1]
    mask = row_mask & (cols[None, :] < N)               # [BLOCK_M, BLOCK_N]
    x = tl.load(X + rows[:, None] * stride + cols[None, :], mask=mask, other=float('inf'))
    lo = tl.min(x, axis=1, keep_dims=True)              # [BLOCK_M, 1]
    lo_col = tl.argmin(x, axis=1, keep_dims=True)       # [BLOCK_M, 1], lowest column on ties
    tl.store(OutMin + rows[:, None], lo, mask=row_mask)
    tl.store(OutIdx + rows[:, None], lo_col, mask=row_mask)


def col_max(x: torch.Tensor, block_m: int = 32, block_n: int = 64):
    M, N = x.shape
    out_max = torch.empty(N, device=x.device, dtype=torch.float32)
    out_idx = torch.empty(N, device=x.device, dtype=torch.int32)
    col_max_kernel[(triton.cdiv(N, block_n), )](x, out_max, out_idx, M, N, x.stride(0),
                                                BLOCK_M=block_m, BLOCK_N=block_n)
    return out_max, out_idx


def row_min(x: torch.Tensor, block_m: int = 4):
    M, N = x.shape
    out_min = torch.empty(M, device=x.device, dtype=torch.float32)
    out_idx = torch.empty(M, device=x.device, dtype=torch.int32)
    row_min_kernel[(triton.cdiv(M, block_m), )](x, out_min, out_idx, M, N, x.stride(0),
                                                BLOCK_M=block_m, BLOCK_N=triton.next_power_of_2(N))
    return out_min, out_idx


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randint(-3, 4, (1000, 300), device="cuda").float()     # many ties
    m, i = col_max(x)
    first = torch.where(x == m, torch.arange(1000, device="cuda")[:, None], 1 << 30).min(0).values
    print("col_max ok:", torch.equal(m, x.max(0).values), torch.equal(i.long(), first))
    lo, j = row_min(x)
    first = torch.where(x == lo[:, None], torch.arange(300, device="cuda"), 1 << 30).min(1).values
    print("row_min ok:", torch.equal(lo, x.min(1).values), torch.equal(j.long(), first))

# Inclusive prefix sums with tl.cumsum.
#
# cumsum_kernel: each program scans its own block of BLOCK_SIZE elements, independently of
# the others (y restarts at every block boundary: a per-block scan, the first step of a full
# scan). Grid cdiv(N, BLOCK_SIZE):
#   bin/tilec examples/cumsum.py -k cumsum_kernel -s "*fp32:16, *fp32:16, i32, 1024" --grid "cdiv(N, BLOCK_SIZE)" -w 4 -o cumsum.cu
#   bin/tilec examples/cumsum.py -k cumsum_kernel -s "*i32:16, *i32:16, i32, 256" --grid "cdiv(N, BLOCK_SIZE)" -w 2 -o cumsum_i32.cu
#
# cumprod_rev_kernel: y[i] = x[i] * x[i + 1] * ... * x[last] within each block (a reverse
# tl.cumprod: products of the suffix):
#   bin/tilec examples/cumsum.py -k cumprod_rev_kernel -s "*fp32:16, *fp32:16, i32, 1024" --grid "cdiv(N, BLOCK_SIZE)" -w 4 -o cumprod_rev.cu
#
# cumsum_rows_kernel: prefix sums along each row of a row-major [M, N] matrix (row stride
# `stride`). A program owns BLOCK_M rows and walks along them BLOCK_N columns at a time,
# carrying each row's running total from one chunk to the next. Grid cdiv(M, BLOCK_M):
#   bin/tilec examples/cumsum.py -k cumsum_rows_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, 4, 256" --grid "cdiv(M, BLOCK_M)" -w 4 -o cumsum_rows.cu

import torch

import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(X, Y, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(X + offsets, mask=mask, other=0)
    y = tl.cumsum(x, axis=0)            # y[i] = x[0] + ... + x[i] within this block
    tl.store(Y + offsets, y, mask=mask)


@triton.jit
def cumprod_rev_kernel(X, Y, N, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(X + offsets, mask=mask, other=1)    # 1 past the end leaves the products alone
    y = tl.cumprod(x, axis=0, reverse=True)
    tl.store(Y + offsets, y, mask=mask)


@triton.jit
def cumsum_rows_kernel(X, Y, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    carry = tl.zeros((BLOCK_M, ), dtype=Y.dtype.element_ty)    # sum of the chunks before
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_mask[:, None] & (cols[None, :] < N)
        offs = rows[:, None] * stride + cols[None, :]
        x = tl.load(X + offs, mask=mask, other=0)
        y = carry[:, None] + tl.cumsum(x, axis=1)    # scan along each row of the tile
        tl.store(Y + offs, y, mask=mask)
        # The next carry is the last column of y (columns past N loaded 0, so it is the row's
        # total so far); where + sum picks that column out. The shorter
        # `carry += tl.sum(x, axis=1)` is the same sum, but Triton 3.6 fails to compile it
        # for fp32 (an assertion in its OptimizeThreadLocality pass).
        carry = tl.sum(tl.where(cols[None, :] == start + BLOCK_N - 1, y, 0), axis=1)


def cumsum_rows(x: torch.Tensor, block_m: int = 4, block_n: int = 256):
    M, N = x.shape
    y = torch.empty_like(x)
    cumsum_rows_kernel[(triton.cdiv(M, block_m), )](x, y, M, N, x.stride(0),
                                                    BLOCK_M=block_m, BLOCK_N=block_n)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randint(-100, 100, (77, 3001), device="cuda", dtype=torch.int32)
    print("cumsum_rows exact:", torch.equal(cumsum_rows(x), x.cumsum(1, dtype=torch.int32)))
    y = torch.empty_like(x)
    flat = x.reshape(-1)
    cumsum_kernel[(triton.cdiv(flat.numel(), 1024), )](flat, y, flat.numel(), BLOCK_SIZE=1024)
    pad = torch.nn.functional.pad(flat, (0, -flat.numel() % 1024)).view(-1, 1024)
    ref = pad.cumsum(1, dtype=torch.int32).reshape(-1)[:flat.numel()]
    print("cumsum per block exact:", torch.equal(y.reshape(-1), ref))

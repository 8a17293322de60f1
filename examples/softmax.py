# Row-wise softmax: out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
#
# softmax_kernel: one program per row; the whole row fits in one block of BLOCK_SIZE columns
# (BLOCK_SIZE >= n_cols, a power of two). The grid is (n_rows,), given by the caller:
#   bin/tilec examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, 1024" -w 4 -o softmax_fp32.cu
#   bin/tilec examples/softmax.py -k softmax_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, 16384" -w 16 -o softmax_16k.cu
#
# softmax_rows_kernel: ROWS rows per program as one 2-D tile [ROWS, BLOCK_SIZE], for short rows
# where one row alone would leave most threads idle:
#   bin/tilec examples/softmax.py -k softmax_rows_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, i32, 4, 1024" --grid "cdiv(n_rows, ROWS)" -w 4 -o softmax_rows.cu
#
# Strides are in elements. Inputs of any float type; the math is done in fp32 and the result is
# stored in the output's element type.

import torch

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    # Padding lanes read -inf: they never win the max and exp(-inf) adds 0 to the sum.
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float('inf'))
    x = x.to(tl.float32)
    # Subtracting the row max keeps exp() from overflowing; the result is unchanged.
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    den = tl.sum(num, axis=0)
    y = num / den
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def softmax_rows_kernel(out_ptr, in_ptr, n_rows, n_cols, in_row_stride, out_row_stride,
                        ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * ROWS + tl.arange(0, ROWS)          # [ROWS]
    cols = tl.arange(0, BLOCK_SIZE)                 # [BLOCK_SIZE]
    # rows[:, None] is a column vector, cols[None, :] a row vector: combined they
    # broadcast to the [ROWS, BLOCK_SIZE] tile.
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(in_ptr + rows[:, None] * in_row_stride + cols[None, :], mask=mask,
                other=-float('inf'))
    x = x.to(tl.float32)
    # axis=1 reduces along each row and leaves one value per row: m has shape [ROWS].
    # Rows past n_rows are all -inf and give NaN here; their stores are masked off.
    m = tl.max(x, axis=1)
    num = tl.exp(x - m[:, None])
    den = tl.sum(num, axis=1)
    y = num / den[:, None]
    tl.store(out_ptr + rows[:, None] * out_row_stride + cols[None, :],
             y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor):
    """Host wrapper: softmax over the last dimension of a 2-D tensor."""
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(n_cols)
    num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    softmax_kernel[(n_rows, )](out, x, x.stride(0), out.stride(0), n_cols,
                               BLOCK_SIZE=block, num_warps=num_warps)
    return out


def softmax_rows(x: torch.Tensor, rows: int = 4):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(n_cols)
    softmax_rows_kernel[(triton.cdiv(n_rows, rows), )](out, x, n_rows, n_cols, x.stride(0),
                                                        out.stride(0), ROWS=rows, BLOCK_SIZE=block)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(1823, 781, device="cuda")
    ref = torch.softmax(x, dim=1)
    print("softmax      max err:", (softmax(x) - ref).abs().max().item())
    print("softmax_rows max err:", (softmax_rows(x) - ref).abs().max().item())

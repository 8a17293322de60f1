# Out-of-place matrix transpose: Y[j, i] = X[i, j] for a row-major [M, N] input X (row stride
# stride_x) and a row-major [N, M] output Y (row stride stride_y).
#
# The load reads rows of X (consecutive j are adjacent in memory) and the store writes rows of
# Y (consecutive i are adjacent), so the two want the tile spread over the threads in opposite
# orders. tilec, like Triton, gives each its own coalesced layout and trades the tile between
# them through shared memory, swizzled (and a little padded) so that neither side has bank
# conflicts. With 128x128 fp32 tiles the buffer is 66 KB, more than the 48 KB a kernel gets
# without asking; the launcher raises the limit (cudaFuncAttributeMaxDynamicSharedMemorySize).
# Grid (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)):
#   bin/tilec examples/transpose.py -k transpose_kernel -s "*fp32:16, *fp32:16, i32, i32, i32:16, i32:16, 64, 64" --grid "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)" -w 4 -o transpose.cu
#   bin/tilec examples/transpose.py -k transpose_kernel -s "*fp32:16, *fp32:16, i32, i32, i32:16, i32:16, 128, 128" --grid "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)" -w 8 -o transpose_128.cu

import torch

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(X, Y, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask)
    tl.store(Y + cols[None, :] * stride_y + rows[:, None], x, mask=mask)


def transpose(x: torch.Tensor, block_m: int = 64, block_n: int = 64):
    M, N = x.shape
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    grid = (triton.cdiv(M, block_m), triton.cdiv(N, block_n))
    transpose_kernel[grid](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=block_m, BLOCK_N=block_n)
    return y


if __name__ == "__main__":
    x = torch.randn(1000, 3001, device="cuda")
    assert torch.equal(transpose(x), x.t())
    print("transpose ok")

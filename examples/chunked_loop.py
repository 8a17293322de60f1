# Kernels with a runtime loop over 1-D chunks.
#
# scaled_add_kernel: persistent grid-stride loop, out = x + scale * y. The grid is chosen by
# the caller (e.g. a few programs per SM), so the launcher takes grid_x, grid_y, grid_z:
#   bin/tilec examples/chunked_loop.py -k scaled_add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, fp32, 1024" -w 4 -o scaled_add_fp32.cu
#   bin/tilec examples/chunked_loop.py -k scaled_add_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32, fp32, 1024" -w 4 -o scaled_add_fp16.cu
#
# row_chunks_kernel: one program per row of a row-major [n_rows, n_cols] matrix with row
# stride `stride` (elements), walking the row in chunks of BLOCK: y = x * scale + row.
#   bin/tilec examples/chunked_loop.py -k row_chunks_kernel -s "*fp32:16, *fp32:16, i32, i32, i32, fp32, 256" --grid "n_rows" -w 2 -o row_chunks_fp32.cu
#   bin/tilec examples/chunked_loop.py -k row_chunks_kernel -s "*fp16:16, *fp16:16, i32, i32, i32, fp32, 256" --grid "n_rows" -w 2 -o row_chunks_fp16.cu

import torch

import triton
import triton.language as tl


@triton.jit
def scaled_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, scale, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    # Each program handles blocks pid, pid + num_programs, pid + 2 * num_programs, ...
    for start in range(pid * BLOCK_SIZE, n_elements, tl.num_programs(0) * BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
        y = tl.load(y_ptr + offsets, mask=mask).to(tl.float32)
        out = x + scale * y
        tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def row_chunks_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask).to(tl.float32)
        y = x * scale + row
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def scaled_add(x: torch.Tensor, y: torch.Tensor, scale: float, block_size: int = 1024):
    out = torch.empty_like(x)
    n = x.numel()
    n_sm = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(triton.cdiv(n, block_size), 4 * n_sm), )
    scaled_add_kernel[grid](x, y, out, n, scale, BLOCK_SIZE=block_size)
    return out


def row_chunks(x: torch.Tensor, scale: float, block: int = 256):
    assert x.dim() == 2 and x.stride(1) == 1
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    row_chunks_kernel[(n_rows, )](x, y, n_rows, n_cols, x.stride(0), scale, BLOCK=block, num_warps=2)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    a = torch.randn(1_000_003, device="cuda")
    b = torch.randn(1_000_003, device="cuda")
    print("scaled_add max err:", (scaled_add(a, b, 0.5) - (a + 0.5 * b)).abs().max().item())
    m = torch.randn(37, 3001, device="cuda")
    rows = torch.arange(37, device="cuda", dtype=torch.float32)[:, None]
    print("row_chunks max err:", (row_chunks(m, 2.0) - (m * 2.0 + rows)).abs().max().item())

# Vector addition: out[i] = x[i] + y[i], the first kernel of the Triton tutorials.
#
# Translate with tilec (one .cu per element type; the launcher computes the grid):
#   bin/tilec examples/vector_add.py -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -w 4 -o add_fp32.cu
#   bin/tilec examples/vector_add.py -k add_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32, 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -w 4 -o add_fp16.cu
#   bin/tilec examples/vector_add.py -k add_kernel -s "*bf16:16, *bf16:16, *bf16:16, i32, 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -w 4 -o add_bf16.cu
# With "i32:16" instead of "i32" the kernel may assume n_elements % 16 == 0.

import torch

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr,  # first input, n_elements values
               y_ptr,  # second input, same length
               output_ptr,  # result, same length
               n_elements,  # how many values; need not be a multiple of BLOCK_SIZE
               BLOCK_SIZE: tl.constexpr,  # values per program (a power of two)
               ):
    # Program pid handles values [pid * BLOCK_SIZE, (pid + 1) * BLOCK_SIZE).
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # The last program may run past the end: mask off those lanes.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    """Host wrapper: allocates the output and launches one program per block."""
    output = torch.empty_like(x)
    assert x.is_cuda and y.is_cuda and output.is_cuda
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    torch.manual_seed(0)
    size = 98432
    x = torch.rand(size, device='cuda')
    y = torch.rand(size, device='cuda')
    output_torch = x + y
    output_triton = add(x, y)
    print(f'The maximum difference between torch and triton is '
          f'{torch.max(torch.abs(output_torch - output_triton))}')

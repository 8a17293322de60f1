import triton
import triton.language as tl


# Row sums of an M x N matrix given as a host TensorDescriptor (tensordesc<fp32[BLOCK_M, BLOCK_N]>
# in the signature): each program walks its rows' blocks along N; the padding zeros do not
# change the sums.
@triton.jit
def desc_row_sum_kernel(x_desc, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for off_n in range(0, N, BLOCK_N):
        acc += tl.sum(x_desc.load([off_m, off_n]), axis=1)
    rows = off_m + tl.arange(0, BLOCK_M)
    tl.store(out_ptr + rows, acc, mask=rows < M)

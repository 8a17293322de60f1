import triton
import triton.language as tl


# y = 2x + 1 for an M x N matrix, both host TensorDescriptors (tensordesc<...> in the
# signature).  Under --arch sm_90 each program's block goes out by TMA: the threads write
# it into a staging buffer in shared memory, one thread hands the buffer to the TMA engine,
# which drops what lies past the matrix's edge.  The load takes the pointer path (TMA loads
# are for the rings of pipelined dot loops).
@triton.jit
def desc_axpb_kernel(x_desc, y_desc, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    x = x_desc.load([off_m, off_n])
    y_desc.store([off_m, off_n], x * 2 + 1)

import triton
import triton.language as tl


# y = 2 * x + 1 on an M x N matrix stored by columns (stride 1 down a column, order=(0, 1)):
# the block pointers' contiguous dimension is 0, so the loads run down the columns.
@triton.jit
def colmajor_copy_kernel(x_ptr, y_ptr, M, N, ld_x, ld_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_block = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(1, ld_x), offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                                block_shape=(BLOCK_M, BLOCK_N), order=(0, 1))
    y_block = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(1, ld_y), offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                                block_shape=(BLOCK_M, BLOCK_N), order=(0, 1))
    x = tl.load(x_block, boundary_check=(0, 1), padding_option="zero")
    tl.store(y_block, x * 2.0 + 1.0, boundary_check=(0, 1))

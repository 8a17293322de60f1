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


# A matmul whose clamped result goes out by TMA: the clamp is computed once, the TMA path
# stages it from the accumulator's layout, and only the pointer store (the fallback)
# exchanges it to a store layout first.
@triton.jit
def desc_matmul_clamp_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M
    offs_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(a_desc.load([offs_m, k]), b_desc.load([k, offs_n]))
    acc = tl.minimum(tl.maximum(acc, -4.0), 4.0)
    c_desc.store([offs_m, offs_n], acc.to(tl.float16))

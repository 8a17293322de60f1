import triton
import triton.language as tl


@triton.jit
def tma_matmul_kn_kernel(a_desc, b_desc, c_ptr, M, N, K, stride_cm,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # C = A @ B on host descriptors, B stored [K, N]: a block of B is BLOCK_N wide, so under
    # --arch sm_90 TMA copies it in boxes of 64 columns (the 128-byte swizzle's width); the
    # K loop's offset is the induction variable itself, which the copies issued ahead must
    # read S-1 steps ahead too.
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = (pid // tiles_n) * BLOCK_M
    offs_n = (pid % tiles_n) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([offs_m, k])
        b = b_desc.load([k, offs_n])
        acc = tl.dot(a, b, acc)
    rows = offs_m + tl.arange(0, BLOCK_M)
    cols = offs_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))

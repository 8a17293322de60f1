import triton
import triton.language as tl


# A persistent matmul whose K loop's last step is peeled after the loop, inside the loop over
# tiles: on sm_90 the tail's tl.dot runs on wgmma from A and B written just before it, and the
# two buffers must not share bytes (each tile reuses them after the barrier that follows the
# dot).
@triton.jit
def peeled_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             PROGS: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(0), tl.cdiv(M, BLOCK_M) * tiles_n, PROGS):
        rows = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        whole = tl.cdiv(K, BLOCK_K) * BLOCK_K - BLOCK_K
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, whole, BLOCK_K):
            ks = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(a_ptr + (rows % M)[:, None] * stride_am + ks[None, :])
            b = tl.load(b_ptr + ks[:, None] * stride_bk + (cols % N)[None, :])
            acc += tl.dot(a, b)
        ks = whole + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + (rows % M)[:, None] * stride_am + ks[None, :], mask=ks[None, :] < K, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + (cols % N)[None, :], mask=ks[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
                 mask=(rows[:, None] < M) & (cols[None, :] < N))

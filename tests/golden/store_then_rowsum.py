import triton
import triton.language as tl


@triton.jit
def store_then_rowsum_kernel(a_ptr, b_ptr, c_ptr, sums_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The product is stored, then summed by rows: the accumulator stays live across the
    # store, so the store reads its tile back from the exchange run by run instead of
    # holding the whole converted tile beside the accumulator.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :],
                    mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :],
                    mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))
    tl.store(sums_ptr + rows * tl.num_programs(1) + tl.program_id(1), tl.sum(acc, 1), mask=rows < M)

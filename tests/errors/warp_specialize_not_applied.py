# flags: -k k -s "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, *fp16:16, *i32:16, i32, i32, i32, 128, 128, 64" -w 4 --num-stages 3 --arch sm_90 --grid "ceil(n)"
import triton
import triton.language as tl


@triton.jit
def k(a_desc, b_desc, c_ptr, idx_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # the row offset comes from memory: the producer warpgroup, which computes only
    # scalars, could not issue the copies, so tilec warns and runs the loop unspecialised
    off_m = tl.load(idx_ptr + tl.program_id(0))
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([off_m, k * BK])
        b = b_desc.load([off_n, k * BK])
        acc = tl.dot(a, b.T, acc)
    rows = off_m + tl.arange(0, BM)
    cols = off_n + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))

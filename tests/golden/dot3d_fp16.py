import triton
import triton.language as tl


@triton.jit
def bmm_fp16_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BATCH: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                    BK: tl.constexpr):
    """c[b] = a[b] @ b[b] for b < BATCH: a is [BATCH, M, K], b [BATCH, K, N], c [BATCH, M, N], all
    contiguous; one program computes a BM x BN tile of every batch, masked at the M, N, K edges."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rb = tl.arange(0, BATCH)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BATCH, BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a_ptrs = a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + kk[None, None, :]
        b_ptrs = b_ptr + rb[:, None, None] * K * N + kk[None, :, None] * N + rn[None, None, :]
        a = tl.load(a_ptrs, mask=(rm[None, :, None] < M) & (kk[None, None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(kk[None, :, None] < K) & (rn[None, None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c_ptrs = c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :]
    tl.store(c_ptrs, acc, mask=(rm[None, :, None] < M) & (rn[None, None, :] < N))

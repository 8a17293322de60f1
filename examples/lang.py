"""Kernels written with the newer parts of Triton's language: sorting, combine functions,
gathers, batched (3-D) dots and block pointers.  bench/bench_lang.py times each against
Triton running this same file.
"""
import triton
import triton.language as tl


@triton.jit
def sort_rows(X, Y, stride, N, BLOCK: tl.constexpr, DESCENDING: tl.constexpr):
    """Each program sorts one row of N values (padded to BLOCK with +inf or -inf)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    pad = float("-inf") if DESCENDING else float("inf")
    x = tl.load(X + row * stride + cols, mask=cols < N, other=pad)
    y = tl.sort(x, descending=DESCENDING)
    tl.store(Y + row * stride + cols, y, mask=cols < N)


@triton.jit
def _welford_merge(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    n = n_a + n_b
    w_b = tl.where(n == 0.0, 0.0, n_b / tl.where(n == 0.0, 1.0, n))
    delta = mean_b - mean_a
    return mean_a + delta * w_b, m2_a + m2_b + delta * delta * n_a * w_b, n


@triton.jit
def welford_layer_norm(X, Y, W, B, stride, N, eps, BLOCK: tl.constexpr):
    """Layer norm of one row per program, its mean and variance in one pass of Welford's
    merge over the row."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < N
    x = tl.load(X + row * stride + cols, mask=ok, other=0.0).to(tl.float32)
    count = tl.where(ok, 1.0, 0.0)
    mean, m2, n = tl.reduce((x, tl.zeros_like(x), count), 0, _welford_merge)
    rstd = 1.0 / tl.sqrt(m2 / n + eps)
    w = tl.load(W + cols, mask=ok, other=0.0).to(tl.float32)
    b = tl.load(B + cols, mask=ok, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=ok)


@triton.jit
def gather_rows(X, Idx, Y, stride, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    """Y[r, j] = X[r, Idx[r, j]] for ROWS rows of N columns per program (indices < N)."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    ok = cols[None, :] < N
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(X + offs, mask=ok, other=0.0)
    idx = tl.load(Idx + offs, mask=ok, other=0)
    tl.store(Y + offs, tl.gather(x, idx, 1), mask=ok)


@triton.jit
def bmm(A, B, C, BATCH, M, N, K, BT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
        BLOCK_K: tl.constexpr):
    """C[b] = A[b] @ B[b] for BT small matrices per program (A: BATCH x M x K, B: BATCH x K x N,
    all contiguous), K in steps of BLOCK_K."""
    bs = tl.program_id(0) * BT + tl.arange(0, BT)
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(2) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    b_ok = bs[:, None, None] < BATCH
    acc = tl.zeros([BT, BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(A + bs[:, None, None] * (M * K) + rm[None, :, None] * K + (k + rk)[None, None, :],
                    mask=b_ok & (rm[None, :, None] < M) & ((k + rk)[None, None, :] < K), other=0.0)
        b = tl.load(B + bs[:, None, None] * (K * N) + (k + rk)[None, :, None] * N + rn[None, None, :],
                    mask=b_ok & ((k + rk)[None, :, None] < K) & (rn[None, None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    c_ptrs = C + bs[:, None, None] * (M * N) + rm[None, :, None] * N + rn[None, None, :]
    tl.store(c_ptrs, acc.to(C.dtype.element_ty), mask=b_ok & (rm[None, :, None] < M) & (rn[None, None, :] < N))


@triton.jit
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                     stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ B through block pointers: the tiles advance along K, the edges are
    boundary-checked (zero padding)."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tile_m, tile_n = tl.swizzle2d(pid // tiles_n, pid % tiles_n, tiles_m, tiles_n, GROUP_M)
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (tile_m * BLOCK_M, 0),
                              (BLOCK_M, BLOCK_K), (1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, tile_n * BLOCK_N),
                              (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (tile_m * BLOCK_M, tile_n * BLOCK_N),
                              (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))

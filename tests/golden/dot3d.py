"""Batched (3-D) tl.dot: one program computes a BLOCK_M x BLOCK_N tile of every one of the
BATCH matrices C[i] = A[i] @ B[i], from [BATCH, BLOCK_M, BLOCK_K] and [BATCH, BLOCK_K, BLOCK_N]
tiles, masked at the M, N and K edges (grid: cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))."""
import triton
import triton.language as tl


@triton.jit
def bmm3d_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                 stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                 stride_cb, stride_cm, stride_cn,
                 BATCH: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, INPUT_PRECISION: tl.constexpr = "tf32"):
    tiles_n = tl.cdiv(N, BLOCK_N)
    rb = tl.arange(0, BATCH)
    rm = (tl.program_id(0) // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tl.program_id(0) % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rb[:, None, None] * stride_ab + rm[None, :, None] * stride_am + rk[None, None, :] * stride_ak
    b_ptrs = b_ptr + rb[:, None, None] * stride_bb + rk[None, :, None] * stride_bk + rn[None, None, :] * stride_bn
    acc = tl.zeros((BATCH, BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[None, :, None] < M) & (rk[None, None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[None, :, None] < K - k) & (rn[None, None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rb[:, None, None] * stride_cb + rm[None, :, None] * stride_cm + rn[None, None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[None, :, None] < M) & (rn[None, None, :] < N))


@triton.jit
def bmm3d_acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                     stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                     stride_cb, stride_cm, stride_cn,
                     BATCH: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    """The same with the accumulator passed as acc=: int32 for int8 operands, fp16 (the mma's own
    fp16 accumulation, out_dtype=float16) for fp16 operands into fp16, else fp32."""
    tiles_n = tl.cdiv(N, BLOCK_N)
    rb = tl.arange(0, BATCH)
    rm = (tl.program_id(0) // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tl.program_id(0) % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rb[:, None, None] * stride_ab + rm[None, :, None] * stride_am + rk[None, None, :] * stride_ak
    b_ptrs = b_ptr + rb[:, None, None] * stride_bb + rk[None, :, None] * stride_bk + rn[None, None, :] * stride_bn
    acc_dtype = tl.float32
    if a_ptr.dtype.element_ty == tl.int8:
        acc_dtype = tl.int32
    if a_ptr.dtype.element_ty == tl.float16 and c_ptr.dtype.element_ty == tl.float16:
        acc_dtype = tl.float16
    acc = tl.zeros((BATCH, BLOCK_M, BLOCK_N), dtype=acc_dtype)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[None, :, None] < M) & (rk[None, None, :] < K - k), other=0)
        b = tl.load(b_ptrs, mask=(rk[None, :, None] < K - k) & (rn[None, None, :] < N), other=0)
        acc = tl.dot(a, b, acc=acc, out_dtype=acc_dtype)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rb[:, None, None] * stride_cb + rm[None, :, None] * stride_cm + rn[None, None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[None, :, None] < M) & (rn[None, None, :] < N))


@triton.jit
def bmm3d_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, L, scale, BATCH: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, D: tl.constexpr):
    """o[i] = softmax(q[i] @ k[i]^T * scale) @ v[i] for every i < BATCH: q, k, v and o are
    [BATCH, L, D] and contiguous, L <= BLOCK_N (all keys in one tile); one program per BLOCK_M
    rows (grid cdiv(L, BLOCK_M)).  Two chained 3-D dots with a row softmax between them: the
    scores' accumulator becomes the second dot's A operand in registers."""
    rb = tl.arange(0, BATCH)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, D)
    base = rb[:, None, None] * L * D
    q = tl.load(q_ptr + base + rm[None, :, None] * D + rd[None, None, :], mask=rm[None, :, None] < L, other=0.0)
    kt = tl.load(k_ptr + base + rd[None, :, None] + rn[None, None, :] * D, mask=rn[None, None, :] < L, other=0.0)
    v = tl.load(v_ptr + base + rn[None, :, None] * D + rd[None, None, :], mask=rn[None, :, None] < L, other=0.0)
    s = tl.dot(q, kt) * scale
    s = tl.where(rn[None, None, :] < L, s, float("-inf"))
    p = tl.exp(s - tl.max(s, axis=2)[:, :, None])
    o = tl.dot(p.to(q.dtype), v) / tl.sum(p, axis=2)[:, :, None]
    tl.store(o_ptr + base + rm[None, :, None] * D + rd[None, None, :], o.to(o_ptr.dtype.element_ty),
             mask=rm[None, :, None] < L)

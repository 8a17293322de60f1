# Matrix multiplication with tl.dot: C = A @ B, one BLOCK_M x BLOCK_N tile of C per program,
# looping over K in steps of BLOCK_K with the partial sums in a loop-carried accumulator.
#
# Programs are numbered in groups of GROUP_M tile rows: consecutive programs walk down one
# column of GROUP_M tiles before moving right, so the rows of A and the columns of B they read
# are still in L2 when the neighbours need them (the ordering of the Triton tutorial).
#
# Strides are arguments, so one kernel serves row-major, column-major and padded operands
# alike; the element types come from the pointers: fp16 and bf16 (fp32 accumulator), fp32
# (tf32 tensor cores by default, or INPUT_PRECISION = "ieee" / "tf32x3"), int8 (int32
# accumulator).  The result is converted to C's element type when it is stored.
#
# Kernels:
#   matmul_kernel            the plain product (grid: one program per tile of C)
#   matmul_peeled_kernel     the same with the K loop's last, masked step peeled after the loop
#   matmul_persistent_kernel one program per SM looping over the tiles (grid: min(NUM_SMS, tiles))
#   matmul_persistent_flat_kernel  the same as one loop over (tile, K step) with branches
#   matmul_tma_persistent_kernel   the persistent kernel on host tensor descriptors (A [M, K],
#                            B given as [N, K], C [M, N]): on Hopper the K loop's blocks come by TMA
#   matmul_block_scaled_kernel  each K step's product scaled by rows (one fp32 scale per row and
#                            K block) before it is added: the loop reads its tl.dot result at once
#   matmul_bias_act_kernel   + a bias vector over N, then an activation chosen by a constexpr
#   bmm_kernel               a batch of products; program_id(axis=1) is the batch index
#   matmul_at_kernel         A stored transposed ([K, M] in memory), turned round with tl.trans
#   matmul_autotuned_kernel  matmul_kernel's body under @triton.autotune (tilec: --config N)
#
# Translate with tilec (fp16, row-major A [M, K] and B [K, N], sizes and strides multiples of 16, as
# Triton specialises them; drop a size's ":16" for any size, at the cost of narrower loads):
#   bin/tilec examples/matmul.py -k matmul_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 4 --num-stages 4 -o matmul_fp16.cu
# fp32 inputs computed in IEEE fp32 (no tensor cores):
#   bin/tilec examples/matmul.py -k matmul_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32, 8, 'ieee'" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 4 -o matmul_ieee.cu
# int8 inputs, int32 result:
#   bin/tilec examples/matmul.py -k matmul_kernel -s "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 64, 8" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 4 -o matmul_int8.cu
# fp8 inputs (A e4m3, B e5m2), fp16 result, on sm_89 and later:
#   bin/tilec examples/matmul.py -k matmul_kernel -s "*fp8e4nv:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 64, 8" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 8 --arch sm_90 -o matmul_fp8.cu
# Linear layer with GELU, y = gelu(x @ w.T + bias) (w is [N, K]: B's strides are w's, swapped):
#   bin/tilec examples/matmul.py -k matmul_bias_act_kernel -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, 128, 64, 32, 8, 'gelu'" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 4 -o linear_gelu.cu
# Block-scaled (bf16 A [M, K], B stored [N, K], scale [M, K / 64] fp32), for Hopper (wgmma):
#   bin/tilec examples/matmul.py -k matmul_block_scaled_kernel -s "*bf16:16, *bf16:16, *bf16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, i32, 64, 128, 64, 8" --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -w 4 --num-stages 3 --arch sm_90 -o matmul_block_scaled.cu
# Batched (the launcher takes the grid: (cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), batch)):
#   bin/tilec examples/matmul.py -k bmm_kernel -s "*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, i32:16, i32:16, 1, 64, 64, 32, 8" -w 4 -o bmm_bf16.cu
# Autotuned: the second config's BLOCK_*, GROUP_M, num_warps and num_stages:
#   bin/tilec examples/matmul.py -k matmul_autotuned_kernel -s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1" --config 1 --grid "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)" -o matmul_tuned.cu

import torch

import triton
import triton.language as tl


@triton.jit
def grouped_tile(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    """The (row, column) of the C tile that program pid computes, in grouped order."""
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n              # programs in one group of GROUP_M tile rows
    first_m = (pid // per_group) * GROUP_M
    rows_here = min(tiles_m - first_m, GROUP_M)  # the last group may be shorter
    tile_m = first_m + (pid % per_group) % rows_here
    tile_n = (pid % per_group) // rows_here
    return tile_m, tile_n


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, INPUT_PRECISION: tl.constexpr = "tf32"):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows_here = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % rows_here
    tile_n = (pid % per_group) // rows_here

    # Rows of A and columns of B past the edge wrap round (% M, % N) instead of being masked:
    # they read real data that only lands in rows and columns of C that are never stored.
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    # int8 products add up in int32, every float type in fp32.  tl.dot checks that an
    # accumulator it is given has the type out_dtype names (fp32 unless told).
    acc_dtype = tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        # The last step may run past K: those columns of A and rows of B read as 0.
        a = tl.load(a_ptrs, mask=ks[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=INPUT_PRECISION, out_dtype=acc_dtype)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)

    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


@triton.jit
def matmul_peeled_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    """matmul_kernel's product with the K loop's last step peeled off: the loop reads whole
    blocks with no mask, and one more masked step after it adds the rest of K (FlagGems'
    mm does this).  The two tl.dot share one accumulator layout, so on Hopper the second
    runs on wgmma too, its operands written to shared memory just before it."""
    pid = tl.program_id(axis=0)
    tile_m, tile_n = grouped_tile(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    whole = tl.cdiv(K, BLOCK_K) * BLOCK_K - BLOCK_K  # K the loop covers: all but the last step
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, whole, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn)
        acc += tl.dot(a, b)
    ks = whole + tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak, mask=ks[None, :] < K, other=0.0)
    b = tl.load(b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn, mask=ks[:, None] < K, other=0.0)
    acc += tl.dot(a, b)
    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


@triton.jit
def matmul_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    """matmul_kernel as a persistent kernel: NUM_SMS programs (one per SM; the grid is
    min(NUM_SMS, tiles)), each walking the tiles start, start + NUM_SMS, ... in grouped
    order.  The tile loop asks to be flattened with the K loop (Triton pipelines across tile
    boundaries); tilec pipelines the K loop of each tile."""
    start = tl.program_id(axis=0)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    ks = tl.arange(0, BLOCK_K)
    acc_dtype = tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32
    for tile in tl.range(start, tiles, NUM_SMS, flatten=True):
        tile_m, tile_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)
        for k in range(0, k_steps):
            offs_k = k * BLOCK_K + ks
            a = tl.load(a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak,
                        mask=offs_k[None, :] < K, other=0.0)
            b = tl.load(b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn,
                        mask=offs_k[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc, out_dtype=acc_dtype)
        out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


@triton.jit
def matmul_persistent_flat_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                  GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    """The persistent matmul written as one loop over all (tile, K step) pairs of a program, as
    older persistent kernels are: a branch moves to the next tile when a tile's K loop starts
    again, another stores the finished tile and clears the accumulator.  The copies of later
    steps run ahead across tile boundaries (their branch with them); the tile numbers the
    store needs come through queues of the steps in flight."""
    start = tl.program_id(axis=0)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    mine = tiles // NUM_SMS + (start < tiles % NUM_SMS)   # tiles of this program
    ks = tl.arange(0, BLOCK_K)
    tile = start - NUM_SMS
    k = -1
    tile_m = 0
    tile_n = 0
    rows = tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    acc_dtype = tl.int32 if a_ptr.dtype.element_ty == tl.int8 else tl.float32
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)
    for _ in range(0, k_steps * mine):
        k = tl.where(k == k_steps - 1, 0, k + 1)
        if k == 0:
            tile += NUM_SMS
            tile_m, tile_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
            cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = k * BLOCK_K + ks
        a = tl.load(a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=offs_k[None, :] < K, other=0.0)
        b = tl.load(b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=offs_k[:, None] < K, other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=acc_dtype)
        if k == k_steps - 1:
            out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
            out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
            c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
            tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty),
                     mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=acc_dtype)


@triton.jit
def matmul_tma_persistent_kernel(a_desc, b_desc, c_desc, M, N, K,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                 GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    """The persistent matmul on tensor descriptors, in the style of Triton's persistent-matmul
    tutorial: a_desc is A [M, K], b_desc is B stored as [N, K] (each row one column of B), c_desc
    is C [M, N]; blocks past the edges read zeros and stores there are dropped, so no masks. With
    --arch sm_90 each K step's blocks come by TMA; WARP_SPECIALIZE gives those copies a warpgroup."""
    start = tl.program_id(axis=0)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(start, tiles, NUM_SMS, flatten=True, warp_specialize=WARP_SPECIALIZE):
        tile_m, tile_n = grouped_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        offs_m = tile_m * BLOCK_M
        offs_n = tile_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(k_steps):
            a = a_desc.load([offs_m, k * BLOCK_K])
            b = b_desc.load([offs_n, k * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([offs_m, offs_n], acc.to(c_desc.dtype))


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def gelu(x):
    # The exact GELU, x * Phi(x) (torch.nn.functional.gelu's default).
    return 0.5 * x * (1 + tl.erf(x * 0.7071067811865476))


@triton.jit
def matmul_block_scaled_kernel(a_ptr, b_ptr, c_ptr, scale_ptr, M, N, K,
                               stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn, stride_sm,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                               GROUP_M: tl.constexpr):
    """C = sum over K blocks kb of (A[:, kb] @ B[kb, :]) * scale[:, kb]: each row of A carries one
    fp32 scale per BLOCK_K columns (scale is [M, cdiv(K, BLOCK_K)], rows stride_sm apart), as
    block-quantized fp8 weights do.  Each step's product is scaled before it is added, so the
    step reads its tl.dot result at once."""
    pid = tl.program_id(axis=0)
    tile_m, tile_n = grouped_tile(pid, M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    s_ptrs = scale_ptr + rows * stride_sm
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=ks[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < K - k * BLOCK_K, other=0.0)
        s = tl.load(s_ptrs + k)
        acc += tl.dot(a, b) * s[:, None]
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


@triton.jit
def matmul_bias_act_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                           stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                           GROUP_M: tl.constexpr, ACTIVATION: tl.constexpr):
    """C = act(A @ B + bias), bias of length N added to every row.  Float inputs only.
    With B's strides swapped this is a linear layer, act(x @ w.T + bias) for w of [N, K]."""
    tile_m, tile_n = grouped_tile(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        # Here the edges are masked in both directions.
        a = tl.load(a_ptrs, mask=row_ok[:, None] & (ks[None, :] < K - k), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K - k) & col_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    bias = tl.load(bias_ptr + cols, mask=col_ok, other=0.0).to(tl.float32)
    acc = acc + bias[None, :]
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc)
    elif ACTIVATION == "gelu":
        acc = gelu(acc)
    else:
        tl.static_assert(ACTIVATION == "none", "ACTIVATION: 'leaky_relu', 'gelu' or 'none'")

    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr):
    """C[i] = A[i] @ B[i] for every i of the batch: grid (tiles of one C, batch size)."""
    tile_m, tile_n = grouped_tile(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    batch = tl.program_id(axis=1).to(tl.int64)     # batch * stride can pass 2**31
    a_ptr += batch * stride_ab
    b_ptr += batch * stride_bb
    c_ptr += batch * stride_cb

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < k_left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def matmul_at_kernel(at_ptr, b_ptr, c_ptr, M, N, K,
                     stride_atk, stride_atm, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                     GROUP_M: tl.constexpr):
    """C = At.T @ B for At of [K, M] (A stored transposed, as a backward pass meets it).
    Each step loads a [BLOCK_K, BLOCK_M] tile of At, along At's rows, and turns it round."""
    tile_m, tile_n = grouped_tile(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    at_ptrs = at_ptr + ks[:, None] * stride_atk + rows[None, :] * stride_atm
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_ok = ks[:, None] < K - k * BLOCK_K
        at = tl.load(at_ptrs, mask=k_ok, other=0.0)     # [BLOCK_K, BLOCK_M]
        b = tl.load(b_ptrs, mask=k_ok, other=0.0)       # [BLOCK_K, BLOCK_N]
        acc = tl.dot(tl.trans(at), b, acc)
        at_ptrs += BLOCK_K * stride_atk
        b_ptrs += BLOCK_K * stride_bk

    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


# Configs as the Triton tutorial lists them for fp16 on CUDA (the first three).
@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def matmul_autotuned_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr):
    tile_m, tile_n = grouped_tile(tl.program_id(axis=0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    rows = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    cols = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    ks = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_ptrs = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=ks[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    out_rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + out_rows[:, None] * stride_cm + out_cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(out_rows[:, None] < M) & (out_cols[None, :] < N))


def grid_1d(M, N, block_m, block_n):
    return (triton.cdiv(M, block_m) * triton.cdiv(N, block_n), )


def matmul(a: torch.Tensor, b: torch.Tensor, out_dtype=None, input_precision="tf32",
           block=(128, 128, 32), group_m=8, num_warps=4, num_stages=4):
    """Host wrapper: a [M, K] @ b [K, N], any strides.  int8 gives int32; the rest a's dtype
    unless out_dtype says otherwise."""
    M, K = a.shape
    N = b.shape[1]
    if out_dtype is None:
        out_dtype = torch.int32 if a.dtype == torch.int8 else a.dtype
    c = torch.empty((M, N), device=a.device, dtype=out_dtype)
    bm, bn, bk = block
    matmul_kernel[grid_1d(M, N, bm, bn)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                         GROUP_M=group_m, INPUT_PRECISION=input_precision,
                                         num_warps=num_warps, num_stages=num_stages)
    return c


def linear(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor, activation="none", block=(128, 64, 32)):
    """act(x @ w.T + bias) for x [M, K], w [N, K] (torch.nn.Linear's layout), bias [N]."""
    M, K = x.shape
    N = w.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    bm, bn, bk = block
    matmul_bias_act_kernel[grid_1d(M, N, bm, bn)](x, w, bias, y, M, N, K, x.stride(0), x.stride(1),
                                                  w.stride(1), w.stride(0), y.stride(0), y.stride(1),
                                                  BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                                                  ACTIVATION=activation)
    return y


def bmm(a: torch.Tensor, b: torch.Tensor, block=(64, 64, 32)):
    """a [B, M, K] @ b [B, K, N] -> [B, M, N]."""
    batch, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((batch, M, N), device=a.device, dtype=a.dtype)
    bm, bn, bk = block
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn), batch)
    bmm_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(),
                     BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
    return c


if __name__ == "__main__":
    torch.manual_seed(0)
    a = torch.randn(1000, 1003, device="cuda", dtype=torch.float16)
    b = torch.randn(1003, 517, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    assert (matmul(a, b).float() - ref).abs().max() <= 1e-2 * ref.abs().max()
    ai = torch.randint(-128, 128, (300, 200), device="cuda", dtype=torch.int8)
    bi = torch.randint(-128, 128, (200, 100), device="cuda", dtype=torch.int8)
    assert torch.equal(matmul(ai, bi, block=(64, 64, 64)), (ai.long() @ bi.long()).int())
    w, bias = torch.randn(517, 1003, device="cuda", dtype=torch.float16), torch.randn(517, device="cuda", dtype=torch.float16)
    ref = torch.nn.functional.gelu(a.float() @ w.float().T + bias.float())
    assert (linear(a, w, bias, "gelu").float() - ref).abs().max() <= 1e-2 * ref.abs().max()
    x = torch.randn(3, 100, 70, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(3, 70, 40, device="cuda", dtype=torch.bfloat16)
    ref = x.float() @ y.float()
    assert (bmm(x, y).float() - ref).abs().max() <= 1e-2 * ref.abs().max()
    print("matmul ok")

import triton
import triton.language as tl


@triton.jit
def ws_carried_offset_kernel(a_desc, b_desc, c_ptr, rmax_ptr, scale_ptr, M, N, K, stride_cm,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Warp specialisation with the K offset carried from step to step: the producer
    # warpgroup keeps kc as a loop variable of its own, advanced by the pipeline's
    # prologue as the consumers' is, beside a queue of per-step row scales that only
    # the consumers read.  The epilogue stores through a mask and reduces the
    # accumulator by rows.
    tile = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    offs_m = (tile // tiles_n) * BLOCK_M
    offs_n = (tile % tiles_n) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    kc = 0
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=True):
        a = a_desc.load([offs_m, kc])
        b = b_desc.load([kc, offs_n])
        srows = offs_m + tl.arange(0, BLOCK_M)
        ss = tl.load(scale_ptr + srows * tl.cdiv(K, BLOCK_K) + kc // BLOCK_K, mask=srows < M, other=0.0)
        acc += tl.dot(a, b) * ss[:, None]
        kc += BLOCK_K
    rows = offs_m + tl.arange(0, BLOCK_M)
    cols = offs_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(tl.float16),
             mask=(rows < M)[:, None] & (cols < N)[None, :])
    tl.atomic_max(rmax_ptr + rows, tl.max(acc, axis=1), mask=rows < M)

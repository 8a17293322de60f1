"""Attention kernels: the chain tl.dot -> row softmax -> tl.dot that transformer layers run.

attn_fwd            FlashAttention-2 forward (online softmax over blocks of keys), plain
                    pointers, causal or not, any sequence length (masked loads and stores),
                    K read by rows and transposed with tl.trans, or read as [HEAD_DIM, BLOCK_N].
decode_split        decode attention, first stage: one new token per sequence, the heads that
                    share a KV head (GQA) as the rows of one dot, the cached keys cut into
                    NUM_SPLITS ranges, each range's partial softmax and output.
decode_merge        decode attention, second stage: the partial results merged by their
                    log-sum-exp.
paged_attention     prefill and decode over a paged KV cache: query blocks of several
                    sequences in one launch (a binary search over cumulative query lengths
                    finds each program's sequence), BLOCK_Q tokens x QUERIES_PER_KV heads as
                    the rows, keys and values found through a block table, causal within
                    each sequence, 64-bit offsets into the cache.
attn_fwd_desc       attn_fwd on host tensor descriptors (Triton's fused-attention tutorial on
                    Hopper): Q, K and V as [Z*H*N_CTX, HEAD_DIM] matrices; with --arch sm_90
                    the K loop's key and value blocks come by TMA.
decode_pv_gather    the weights-times-values half of a paged decode step: value rows
                    gathered through a token-to-slot table, GQA heads as the dot's rows.
attn_fwd_banded     attn_fwd with the keys in two passes when causal, as Triton's fused-attention
                    tutorial does: the blocks left of the diagonal with no mask at all, then
                    the diagonal block with the causal one; both passes read the same q.

tilec examples/attention.py -k attn_fwd -s "Q=*fp16:16, K=*fp16:16, V=*fp16:16, \
    Out=*fp16:16, Lse=*fp32:16, sm_scale=fp32, stride_qz=i32:16, stride_qh=i32:16, \
    stride_qm=i32:16, stride_kz=i32:16, stride_kh=i32:16, stride_kn=i32:16, stride_vz=i32:16, \
    stride_vh=i32:16, stride_vn=i32:16, stride_oz=i32:16, stride_oh=i32:16, stride_om=i32:16, \
    H=i32, N_CTX=i32, HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=False, K_BY_COLUMNS=False" \
    -w 4 --grid "cdiv(N_CTX, BLOCK_M), Z_H" -o attn_fwd.cu

Add --arch sm_90 for Hopper: both dots then run on wgmma when the file is built for sm_90a
(nvcc -gencode arch=compute_90a,code=sm_90a, or NVRTC --gpu-architecture=sm_90a); the same
file still builds for sm_80 and plain sm_90, where they run on mma.sync.
"""

import triton
import triton.language as tl


@triton.jit
def attn_fwd(Q, K, V, Out, Lse, sm_scale,
             stride_qz, stride_qh, stride_qm, stride_kz, stride_kh, stride_kn,
             stride_vz, stride_vh, stride_vn, stride_oz, stride_oh, stride_om,
             H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr, K_BY_COLUMNS: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < N_CTX
    q = tl.load(Q + off_z * stride_qz + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=row_ok[:, None], other=0.0)
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    qk_scale = sm_scale * 1.44269504
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        col_ok = cols < N_CTX
        if K_BY_COLUMNS:
            kt = tl.load(k_base + offs_d[:, None] + cols[None, :] * stride_kn, mask=col_ok[None, :], other=0.0)
            qk = tl.dot(q, kt) * qk_scale
        else:
            k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :], mask=col_ok[:, None], other=0.0)
            qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(col_ok[None, :], qk, float("-inf"))
        if CAUSAL:
            qk = tl.where(offs_m[:, None] >= cols[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :], mask=col_ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(Lse + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=row_ok)
    tl.store(Out + off_z * stride_oz + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=row_ok[:, None])


@triton.jit
def decode_split(Q, K, V, Seq_lens, Mid_o, Mid_lse, sm_scale,
                 stride_qb, stride_qh, stride_kb, stride_kt, stride_kh, stride_vb, stride_vt, stride_vh,
                 stride_mb, stride_mh, stride_ms, stride_lb, stride_lh,
                 GROUP: tl.constexpr, HEAD_DIM: tl.constexpr,
                 BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr):
    """Q [batch, heads, HEAD_DIM]; K, V [batch, tokens, kv_heads, HEAD_DIM]; GROUP query heads
    per KV head.  Mid_o [batch, heads, NUM_SPLITS, HEAD_DIM]
    and Mid_lse [batch, heads, NUM_SPLITS] (natural log; -inf for a split without keys)."""
    b = tl.program_id(0)
    kv_head = tl.program_id(1)
    split = tl.program_id(2)
    seq_len = tl.load(Seq_lens + b)
    g = tl.arange(0, BLOCK_H)
    head = kv_head * GROUP + g
    head_ok = g < GROUP
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(Q + b * stride_qb + head[:, None] * stride_qh + offs_d[None, :], mask=head_ok[:, None], other=0.0)
    per_split = tl.cdiv(seq_len, NUM_SPLITS)
    start = split * per_split
    end = tl.minimum(start + per_split, seq_len)
    m_i = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, HEAD_DIM], dtype=tl.float32)
    k_base = K + b.to(tl.int64) * stride_kb + kv_head * stride_kh
    v_base = V + b.to(tl.int64) * stride_vb + kv_head * stride_vh
    for start_n in range(start, end, BLOCK_N):
        t = start_n + offs_n
        t_ok = t < end
        k = tl.load(k_base + t[:, None] * stride_kt + offs_d[None, :], mask=t_ok[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(t_ok[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + t[:, None] * stride_vt + offs_d[None, :], mask=t_ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    has_keys = end > start
    out = acc / tl.where(l_i > 0, l_i, 1.0)[:, None]
    lse = tl.where(l_i > 0, m_i + tl.log(l_i), float("-inf"))
    mid = Mid_o + b * stride_mb + head[:, None] * stride_mh + split * stride_ms + offs_d[None, :]
    tl.store(mid, out, mask=head_ok[:, None] & has_keys)
    tl.store(Mid_lse + b * stride_lb + head * stride_lh + split, lse, mask=head_ok)


@triton.jit
def decode_merge(Mid_o, Mid_lse, Out, stride_mb, stride_mh, stride_ms, stride_lb, stride_lh,
                 stride_ob, stride_oh, HEAD_DIM: tl.constexpr, NUM_SPLITS: tl.constexpr):
    """One program per (sequence, head): the splits' outputs weighted by exp(lse - max)."""
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    lse_row = Mid_lse + b * stride_lb + h * stride_lh
    m = tl.load(lse_row)
    for s in range(1, NUM_SPLITS):
        m = tl.maximum(m, tl.load(lse_row + s))
    total = 0.0
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for s in range(NUM_SPLITS):
        lse = tl.load(lse_row + s)
        if lse > float("-inf"):
            w = tl.exp(lse - m)
            acc += w * tl.load(Mid_o + b * stride_mb + h * stride_mh + s * stride_ms + offs_d)
            total += w
    tl.store(Out + b * stride_ob + h * stride_oh + offs_d, (acc / total).to(Out.dtype.element_ty))


@triton.jit
def find_seq_idx(query_start_len, target, num_seqs, BLOCK_Q: tl.constexpr):
    """The sequence whose query blocks contain block `target` (blocks of each sequence are
    numbered after those of the sequences before it: start // BLOCK_Q + index)."""
    left = 0
    right = num_seqs
    while left < right:
        mid = (left + right) // 2
        mid_val = tl.load(query_start_len + mid) // BLOCK_Q + mid
        if mid_val <= target:
            left = mid + 1
        else:
            right = mid
    return left - 1


@triton.jit
def paged_attention(Q, Key_cache, Value_cache, Out, Block_tables, Seq_lens, Query_start_len,
                    sm_scale, num_seqs, stride_qt, stride_qh, stride_kblk, stride_kslot,
                    stride_khead, stride_vblk, stride_vslot, stride_vhead, stride_bt,
                    stride_ot, stride_oh,
                    QUERIES_PER_KV: tl.constexpr, HEAD_DIM: tl.constexpr, PAGE: tl.constexpr,
                    BLOCK_Q: tl.constexpr, BLOCK_M: tl.constexpr):
    """Q, Out [tokens, heads, HEAD_DIM] (the queries of all sequences, back to back);
    caches [blocks, PAGE, kv_heads, HEAD_DIM]; Block_tables [seqs, max_blocks];
    Query_start_len [seqs + 1] (cumulative); Seq_lens [seqs]: context + new tokens.
    Grid: (number of query blocks over all sequences, at most, kv heads)."""
    q_block = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq = find_seq_idx(Query_start_len, q_block, num_seqs, BLOCK_Q)
    q_start = tl.load(Query_start_len + seq)
    q_len = tl.load(Query_start_len + seq + 1) - q_start
    local_block = q_block - (q_start // BLOCK_Q + seq)
    if local_block * BLOCK_Q >= q_len:
        return
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, PAGE)
    q_pos = local_block * BLOCK_Q + offs_m // QUERIES_PER_KV
    head = kv_head * QUERIES_PER_KV + offs_m % QUERIES_PER_KV
    row_ok = q_pos < q_len
    q_rows = (q_start + q_pos).to(tl.int64) * stride_qt + head * stride_qh
    q = tl.load(Q + q_rows[:, None] + offs_d[None, :], mask=row_ok[:, None], other=0.0)
    seq_len = tl.load(Seq_lens + seq)
    context = seq_len - q_len
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    last_key = tl.minimum(context + (local_block + 1) * BLOCK_Q, seq_len)
    scale = sm_scale * 1.44269504
    for j in range(0, tl.cdiv(last_key, PAGE)):
        blk = tl.load(Block_tables + seq * stride_bt + j).to(tl.int64)
        key_pos = j * PAGE + offs_n
        k = tl.load(Key_cache + blk * stride_kblk + kv_head * stride_khead + offs_n[:, None] * stride_kslot
                    + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k)) * scale
        visible = key_pos[None, :] <= context + q_pos[:, None]
        qk = tl.where(visible & (key_pos[None, :] < seq_len), qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        m_safe = tl.where(m_new > float("-inf"), m_new, 0.0)
        p = tl.math.exp2(qk - m_safe[:, None])
        alpha = tl.math.exp2(m_i - m_safe)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(Value_cache + blk * stride_vblk + kv_head * stride_vhead + offs_n[:, None] * stride_vslot
                    + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / tl.where(l_i > 0, l_i, 1.0)[:, None]
    o_rows = (q_start + q_pos).to(tl.int64) * stride_ot + head * stride_oh
    tl.store(Out + o_rows[:, None] + offs_d[None, :], acc.to(Out.dtype.element_ty), mask=row_ok[:, None])


@triton.jit
def attn_fwd_desc(q_desc, k_desc, v_desc, Out, sm_scale, N_CTX, stride_om,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """attn_fwd with Q, K and V given as host tensor descriptors over [Z*H*N_CTX, HEAD_DIM]
    matrices (head zh's rows start at zh * N_CTX) and the output through pointers.  A key
    block that runs past N_CTX reads the next head's rows (or zeros past the last head): their
    scores are masked to -inf, so they add nothing."""
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * N_CTX  # this head's first row
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    q = q_desc.load([row0 + start_m * BLOCK_M, 0])
    qk_scale = sm_scale * 1.44269504
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        k = k_desc.load([row0 + start_n, 0])
        v = v_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        cols = start_n + tl.arange(0, BLOCK_N)
        keep = cols[None, :] < N_CTX
        if CAUSAL:
            keep = keep & (cols[None, :] <= offs_m[:, None])
        qk = tl.where(keep, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    offs_d = tl.arange(0, HEAD_DIM)
    o_rows = (row0 + offs_m).to(tl.int64) * stride_om
    tl.store(Out + o_rows[:, None] + offs_d[None, :], acc.to(Out.dtype.element_ty), mask=(offs_m < N_CTX)[:, None])


@triton.jit
def decode_pv_gather(P, V_cache, Req_to_token, Seq_lens, Out,
                     stride_pb, stride_ph, stride_rb, stride_vt, stride_vh, stride_ob, stride_oh,
                     GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    """The second half of a paged decode step: P [batch, heads, max_len] holds each head's
    attention weights (the softmax of the first half), V_cache [slots, kv_heads, HEAD_DIM] the
    values of every cached token, Req_to_token [batch, max_len] the slot of each of a
    sequence's tokens.  One program per (sequence, KV head): its GROUP query heads are the rows
    of one dot, BLOCK_N gathered value rows per step.  Out [batch, heads, HEAD_DIM]."""
    b = tl.program_id(0)
    kv_head = tl.program_id(1)
    seq_len = tl.load(Seq_lens + b)
    heads = kv_head * GROUP + tl.arange(0, GROUP)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)
    acc = tl.zeros([GROUP, HEAD_DIM], dtype=tl.float32)
    for start in range(0, seq_len, BLOCK_N):
        t = start + offs_n
        t_ok = t < seq_len
        slot = tl.load(Req_to_token + b * stride_rb + t, mask=t_ok, other=0)
        p = tl.load(P + b * stride_pb + heads[:, None] * stride_ph + t[None, :], mask=t_ok[None, :], other=0.0)
        v = tl.load(V_cache + slot[:, None].to(tl.int64) * stride_vt + kv_head * stride_vh + offs_d[None, :],
                    mask=t_ok[:, None], other=0.0)
        acc += tl.dot(p.to(v.dtype), v)
    tl.store(Out + b * stride_ob + heads[:, None] * stride_oh + offs_d[None, :], acc.to(Out.dtype.element_ty))


@triton.jit
def _attn_keys(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, lo, hi, N_CTX, qk_scale,
               stride_kn, stride_vn, MASK: tl.constexpr, BLOCK_N: tl.constexpr):
    """The online softmax over the keys lo..hi-1 for the queries offs_m.  MASK 0: every key
    exists and precedes every query (no mask at all); 1: keys past N_CTX masked; 2: those and
    the keys after their query (the block on the diagonal)."""
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        if MASK == 0:
            k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :])
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :])
            qk = tl.dot(q, tl.trans(k)) * qk_scale
        else:
            col_ok = cols < N_CTX
            k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :], mask=col_ok[:, None], other=0.0)
            v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :], mask=col_ok[:, None], other=0.0)
            keep = col_ok[None, :]
            if MASK == 2:
                keep = keep & (offs_m[:, None] >= cols[None, :])
            qk = tl.where(keep, tl.dot(q, tl.trans(k)) * qk_scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd_banded(Q, K, V, Out, Lse, sm_scale,
                    stride_qz, stride_qh, stride_qm, stride_kz, stride_kh, stride_kn,
                    stride_vz, stride_vh, stride_vn, stride_oz, stride_oh, stride_om,
                    H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr):
    """attn_fwd (K read by rows) with a causal program's keys in two passes: the key blocks
    wholly before its first query need no mask, and only the BLOCK_M keys of its own block
    (BLOCK_M a multiple of BLOCK_N) are masked."""
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m < N_CTX
    q = tl.load(Q + off_z * stride_qz + off_h * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :],
                mask=row_ok[:, None], other=0.0)
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    qk_scale = sm_scale * 1.44269504
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    if CAUSAL:
        lo = start_m * BLOCK_M
        acc, l_i, m_i = _attn_keys(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, 0, lo, N_CTX,
                                   qk_scale, stride_kn, stride_vn, 0, BLOCK_N)
        acc, l_i, m_i = _attn_keys(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, lo,
                                   tl.minimum(lo + BLOCK_M, N_CTX), N_CTX, qk_scale, stride_kn, stride_vn, 2,
                                   BLOCK_N)
    else:
        acc, l_i, m_i = _attn_keys(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, 0, N_CTX, N_CTX,
                                   qk_scale, stride_kn, stride_vn, 1, BLOCK_N)
    acc = acc / l_i[:, None]
    tl.store(Lse + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i), mask=row_ok)
    tl.store(Out + off_z * stride_oz + off_h * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :],
             acc.to(Out.dtype.element_ty), mask=row_ok[:, None])

import triton
import triton.language as tl


# Causal attention over int64 offsets (the program id widened before it is
# multiplied, so that the loops over keys count in int64): the loops still
# pipeline, and both read q from one buffer written once.
@triton.jit
def _keys(acc, l_i, m_i, q, k_base, v_base, offs_m, offs_n, offs_d, lo, hi, n_ctx, scale, stride,
          DIAGONAL: tl.constexpr, BLOCK_N: tl.constexpr):
    for start in range(lo, hi, BLOCK_N):
        cols = start + offs_n
        k = tl.load(k_base + cols[:, None] * stride + offs_d[None, :], mask=(cols < n_ctx)[:, None], other=0.0)
        v = tl.load(v_base + cols[:, None] * stride + offs_d[None, :], mask=(cols < n_ctx)[:, None], other=0.0)
        keep = (cols < n_ctx)[None, :]
        if DIAGONAL:
            keep = keep & (offs_m[:, None] >= cols[None, :])
        s = tl.where(keep, tl.dot(q, tl.trans(k)) * scale, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_int64(Q, K, V, Out, n_ctx, stride, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1).to(tl.int64)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = head * n_ctx * stride
    q = tl.load(Q + base + offs_m[:, None] * stride + offs_d[None, :], mask=(offs_m < n_ctx)[:, None], other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    lo = start_m * BLOCK_M
    acc, l_i, m_i = _keys(acc, l_i, m_i, q, K + base, V + base, offs_m, offs_n, offs_d, 0, lo, n_ctx, scale, stride,
                          False, BLOCK_N)
    acc, l_i, m_i = _keys(acc, l_i, m_i, q, K + base, V + base, offs_m, offs_n, offs_d, lo,
                          tl.minimum(lo + BLOCK_M, n_ctx), n_ctx, scale, stride, True, BLOCK_N)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride + offs_d[None, :], acc.to(Out.dtype.element_ty),
             mask=(offs_m < n_ctx)[:, None])

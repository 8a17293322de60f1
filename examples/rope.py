# Rotary position embedding applied in place to the queries (or keys) of a [tokens, heads,
# HEAD_DIM] tensor, "rotate half" convention: the first half of each head is x1, the second
# x2, and with c = cos(t * f_i), s = sin(t * f_i) from per-token tables [tokens, HEAD_DIM / 2]
#     x1' = x1 c - x2 s        x2' = x2 c + x1 s
# One program per (token, block of BLOCK_H heads); the tables are read once per program.
#
#   bin/tilec examples/rope.py -k rope_inplace_kernel -s "*bf16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32, 128, 32" -w 4 -o rope.cu
#
# No --grid: the number of tokens is not an argument of the kernel, so the generated launcher
# takes the grid (tokens, cdiv(heads, BLOCK_H), 1) from its caller.

import torch

import triton
import triton.language as tl


@triton.jit
def rope_inplace_kernel(X, Cos, Sin, stride_t, stride_h, n_heads,
                        HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr):
    t = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    half = tl.arange(0, HEAD_DIM // 2)
    head_ok = heads[:, None] < n_heads
    cos = tl.load(Cos + t * (HEAD_DIM // 2) + half)[None, :]
    sin = tl.load(Sin + t * (HEAD_DIM // 2) + half)[None, :]
    first = X + t.to(tl.int64) * stride_t + heads[:, None] * stride_h + half[None, :]
    second = first + HEAD_DIM // 2
    x1 = tl.load(first, mask=head_ok, other=0.0).to(tl.float32)
    x2 = tl.load(second, mask=head_ok, other=0.0).to(tl.float32)
    tl.store(first, (x1 * cos - x2 * sin).to(X.dtype.element_ty), mask=head_ok)
    tl.store(second, (x2 * cos + x1 * sin).to(X.dtype.element_ty), mask=head_ok)


def rope_tables(tokens: int, head_dim: int, base: float = 10000.0, device="cuda"):
    """cos and sin of t * base^(-2i / head_dim), [tokens, head_dim / 2] fp32."""
    inv = base ** (-torch.arange(0, head_dim, 2, device=device, dtype=torch.float64) / head_dim)
    ang = torch.arange(tokens, device=device, dtype=torch.float64)[:, None] * inv[None, :]
    return ang.cos().float(), ang.sin().float()


def rope_(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, block_h: int = 32):
    """Host wrapper: rotates x [tokens, heads, head_dim] in place."""
    T, H, D = x.shape
    grid = (T, triton.cdiv(H, block_h))
    rope_inplace_kernel[grid](x, cos, sin, x.stride(0), x.stride(1), H, HEAD_DIM=D, BLOCK_H=block_h)
    return x

# Layer normalisation over the last dimension: y = (x - mean) / sqrt(var + eps) * w + b,
# forward and backward. Tensors are row-major [M, N] with row stride `stride` (elements);
# x, y, w, b are usually fp16 or bf16, Mean/Rstd and the dw/db results fp32, and all the
# arithmetic is done in fp32.
#
# Forward, one program per row, the whole row in one block (BLOCK_SIZE >= N); grid (M,):
#   bin/tilec examples/layer_norm.py -k layer_norm_fwd -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024" -w 4 -o ln_fwd.cu
# Backward, dx: one program per row; grid (M,):
#   bin/tilec examples/layer_norm.py -k layer_norm_bwd_dx -s "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, 1024" -w 4 -o ln_dx.cu
# Backward, dw and db: one program per BLOCK_N columns, looping over all rows:
#   bin/tilec examples/layer_norm.py -k layer_norm_bwd_dwdb -s "*fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, i32, 32, 64" --grid "cdiv(N, BLOCK_N)" -w 4 -o ln_dwdb.cu
# Backward, dw and db with atomics: one program per BLOCK_M rows; DW and DB must be zeroed first:
#   bin/tilec examples/layer_norm.py -k layer_norm_bwd_dwdb_atomic -s "*fp32:16, *fp32:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, i32, 32, 128" --grid "cdiv(M, BLOCK_M)" -w 4 -o ln_dwdb_atomic.cu

import torch

import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    # Padding lanes load 0, so they add nothing to the sum...
    mean = tl.sum(x, axis=0) / N
    # ...but x - mean is not 0 there: zero it before squaring.
    xc = tl.where(mask, x - mean, 0.)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    # The backward pass needs both statistics of every row.
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    b = tl.load(B + cols, mask=mask).to(tl.float32)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_bwd_dx(DX, DY, X, W, Mean, Rstd, stride, N, BLOCK_SIZE: tl.constexpr):
    # With xhat = (x - mean) * rstd and g = w * dy:
    #   dx = (g - xhat * mean(xhat * g) - mean(g)) * rstd
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    g = w * dy                      # 0 in the padding lanes, since dy is
    c1 = tl.sum(xhat * g, axis=0) / N
    c2 = tl.sum(g, axis=0) / N
    dx = (g - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx.to(DX.dtype.element_ty), mask=mask)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, X, DY, Mean, Rstd, M, N, stride,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # dw[j] = sum over rows of dy[i, j] * xhat[i, j];  db[j] = sum over rows of dy[i, j].
    # Each program owns BLOCK_N columns and walks down all M rows, BLOCK_M at a time,
    # adding into a [BLOCK_M, BLOCK_N] tile; one reduction over axis 0 at the end.
    pid = tl.program_id(axis=0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < N
    dw = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_mask = rows < M
        mask = row_mask[:, None] & col_mask[None, :]
        offs = rows[:, None] * stride + cols[None, :]
        x = tl.load(X + offs, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + offs, mask=mask, other=0.).to(tl.float32)
        mean = tl.load(Mean + rows, mask=row_mask, other=0.)
        rstd = tl.load(Rstd + rows, mask=row_mask, other=0.)
        xhat = (x - mean[:, None]) * rstd[:, None]      # 0 outside the matrix: rstd is 0 there
        dw += dy * xhat
        db += dy
    tl.store(DW + cols, tl.sum(dw, axis=0).to(DW.dtype.element_ty), mask=col_mask)
    tl.store(DB + cols, tl.sum(db, axis=0).to(DB.dtype.element_ty), mask=col_mask)


@triton.jit
def layer_norm_bwd_dwdb_atomic(DW, DB, X, DY, Mean, Rstd, M, N, stride,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Same sums as layer_norm_bwd_dwdb, split the other way: each program owns BLOCK_M rows,
    # reduces them for every column chunk and adds its partial sums into DW and DB with
    # atomics. DW and DB are fp32 and must hold zeros before the launch. The order in which
    # programs add is not fixed, so the last bits of the result may change from run to run.
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    mean = tl.load(Mean + rows, mask=row_mask, other=0.)
    rstd = tl.load(Rstd + rows, mask=row_mask, other=0.)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_mask = cols < N
        mask = row_mask[:, None] & col_mask[None, :]
        offs = rows[:, None] * stride + cols[None, :]
        x = tl.load(X + offs, mask=mask, other=0.).to(tl.float32)
        dy = tl.load(DY + offs, mask=mask, other=0.).to(tl.float32)
        xhat = (x - mean[:, None]) * rstd[:, None]
        tl.atomic_add(DW + cols, tl.sum(dy * xhat, axis=0), mask=col_mask)
        tl.atomic_add(DB + cols, tl.sum(dy, axis=0), mask=col_mask)


def layer_norm(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float = 1e-5):
    """Host wrapper for the forward pass; returns y, mean, rstd."""
    M, N = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(M, device=x.device, dtype=torch.float32)
    rstd = torch.empty(M, device=x.device, dtype=torch.float32)
    block = triton.next_power_of_2(N)
    num_warps = min(max(block // 256, 1), 8)
    layer_norm_fwd[(M, )](x, y, w, b, mean, rstd, x.stride(0), N, eps,
                          BLOCK_SIZE=block, num_warps=num_warps)
    return y, mean, rstd


def layer_norm_backward(dy, x, w, mean, rstd, atomic=False):
    """Returns dx, dw, db for the forward pass above."""
    M, N = x.shape
    dx = torch.empty_like(x)
    block = triton.next_power_of_2(N)
    layer_norm_bwd_dx[(M, )](dx, dy, x, w, mean, rstd, x.stride(0), N, BLOCK_SIZE=block,
                             num_warps=min(max(block // 256, 1), 8))
    dw = torch.zeros(N, device=x.device, dtype=torch.float32)
    db = torch.zeros(N, device=x.device, dtype=torch.float32)
    if atomic:
        layer_norm_bwd_dwdb_atomic[(triton.cdiv(M, 32), )](dw, db, x, dy, mean, rstd, M, N,
                                                           x.stride(0), BLOCK_M=32, BLOCK_N=128)
    else:
        layer_norm_bwd_dwdb[(triton.cdiv(N, 64), )](dw, db, x, dy, mean, rstd, M, N, x.stride(0),
                                                    BLOCK_M=32, BLOCK_N=64)
    return dx, dw, db


if __name__ == "__main__":
    torch.manual_seed(0)
    M, N = 1151, 781
    x = torch.randn(M, N, device="cuda", dtype=torch.float16, requires_grad=True)
    w = torch.randn(N, device="cuda", dtype=torch.float16, requires_grad=True)
    b = torch.randn(N, device="cuda", dtype=torch.float16, requires_grad=True)
    dy = torch.randn(M, N, device="cuda", dtype=torch.float16)
    y_ref = torch.nn.functional.layer_norm(x, (N, ), w, b, 1e-5)
    y_ref.backward(dy)
    y, mean, rstd = layer_norm(x.detach(), w.detach(), b.detach())
    print("y  max err:", (y - y_ref).abs().max().item())
    for atomic in (False, True):
        dx, dw, db = layer_norm_backward(dy, x.detach(), w.detach(), mean, rstd, atomic)
        print(f"atomic={atomic}: dx {(dx - x.grad).abs().max().item():.3g}"
              f"  dw {(dw - w.grad.float()).abs().max().item():.3g}"
              f"  db {(db - b.grad.float()).abs().max().item():.3g}")

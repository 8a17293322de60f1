# RMS normalisation over the last dimension: y = x / sqrt(mean(x^2) + eps) * w.
# Like layer norm without the mean subtraction and the bias. One program per row, the whole
# row in one block (BLOCK_SIZE >= N); fp32 arithmetic whatever the element type. Grid (M,):
#   bin/tilec examples/rms_norm.py -k rms_norm_fwd -s "*fp16:16, *fp16:16, *fp16:16, i32, i32, fp32, 1024" -w 4 -o rms_fp16.cu
#   bin/tilec examples/rms_norm.py -k rms_norm_fwd -s "*bf16:16, *bf16:16, *bf16:16, i32, i32, fp32, 8192" -w 8 -o rms_bf16_8k.cu

import torch

import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd(X, Y, W, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / N        # padding lanes are 0 and add nothing
    rstd = tl.rsqrt(mean_sq + eps)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    y = x * rstd * w
    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float = 1e-6):
    M, N = x.shape
    y = torch.empty_like(x)
    block = triton.next_power_of_2(N)
    rms_norm_fwd[(M, )](x, y, w, x.stride(0), N, eps, BLOCK_SIZE=block,
                        num_warps=min(max(block // 256, 1), 8))
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(999, 4000, device="cuda", dtype=torch.float16)
    w = torch.randn(4000, device="cuda", dtype=torch.float16)
    xf = x.float()
    ref = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).half()
    print("rms_norm max err:", (rms_norm(x, w) - ref).abs().max().item())

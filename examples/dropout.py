# Random numbers inside a kernel, with Triton's counter-based Philox generator: the value for
# element i depends only on (seed, i), so no generator state is stored or passed between
# programs, and the same seed gives the same stream every time.
#
# dropout_kernel: out = x / (1 - p) where rand > p, else 0.
#   bin/tilec examples/dropout.py -k dropout_kernel -s "*fp32:16, *fp32:16, i32, fp32, i32, 1024" --grid "cdiv(n, BLOCK_SIZE)" -w 4 -o dropout.cu
# rand_kernel / randint_kernel: store the raw streams (uniform fp32 in [0, 1), and 32-bit
# integers stored through an int32 or uint32 pointer), to compare generators bit for bit.
#   bin/tilec examples/dropout.py -k rand_kernel -s "*fp32:16, i32, i32, 1024" --grid "cdiv(n, BLOCK_SIZE)" -o rand.cu
#   bin/tilec examples/dropout.py -k randint_kernel -s "*i32:16, i32, i64, 1024" --grid "cdiv(n, BLOCK_SIZE)" -o randint.cu
# randn_kernel: standard normal fp32 (Box-Muller on two uniforms from one Philox call):
#   bin/tilec examples/dropout.py -k randn_kernel -s "*fp32:16, i32, i32, 1024" --grid "cdiv(n, BLOCK_SIZE)" -o randn.cu

import torch

import triton
import triton.language as tl


@triton.jit
def dropout_kernel(X, Out, n, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(X + offsets, mask=mask)
    # One uniform number per element, keyed by the element's position.
    r = tl.rand(seed, offsets)
    keep = r > p
    # Scale the kept values so that the expected output equals the input.
    y = tl.where(keep, x / (1 - p), 0.0)
    tl.store(Out + offsets, y.to(Out.dtype.element_ty), mask=mask)


@triton.jit
def rand_kernel(Out, n, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(Out + offsets, tl.rand(seed, offsets), mask=offsets < n)


@triton.jit
def randint_kernel(Out, n, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    # tl.randint gives uint32; storing through an int32 pointer keeps the bits.
    tl.store(Out + offsets, tl.randint(seed, offsets), mask=offsets < n)


@triton.jit
def randn_kernel(Out, n, seed, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(Out + offsets, tl.randn(seed, offsets), mask=offsets < n)


def dropout(x: torch.Tensor, p: float, seed: int, block_size: int = 1024):
    out = torch.empty_like(x)
    n = x.numel()
    dropout_kernel[(triton.cdiv(n, block_size), )](x, out, n, p, seed, BLOCK_SIZE=block_size)
    return out


if __name__ == "__main__":
    x = torch.randn(100_003, device="cuda")
    a, b = dropout(x, 0.25, seed=1234), dropout(x, 0.25, seed=1234)
    print("same seed, same mask:", torch.equal(a, b))
    print("fraction dropped:", (a == 0).float().mean().item())
    c = dropout(x, 0.25, seed=4321)
    print("other seed, other mask:", not torch.equal(a == 0, c == 0))

# Elementwise activation chosen at compile time by a string constexpr, computed in fp32
# and stored in the output's element type.
#
# Translate with tilec (ACTIVATION is one of "gelu_tanh", "silu", "leaky_relu"):
#   bin/tilec examples/fused_activation.py -k activation_kernel -s "*fp16:16, *fp16:16, i32, fp32, 'gelu_tanh', 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -w 4 -o gelu_fp16.cu
#   bin/tilec examples/fused_activation.py -k activation_kernel -s "*fp32:16, *fp32:16, i32, fp32" -D ACTIVATION=silu -D BLOCK_SIZE=1024 --grid "cdiv(n_elements, BLOCK_SIZE)" -o silu_fp32.cu
#   bin/tilec examples/fused_activation.py -k activation_kernel -s "*bf16:16, *bf16:16, i32, fp32, \"leaky_relu\", 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -o leaky_bf16.cu
# alpha is only used by leaky_relu; the other activations ignore it.

import torch

import triton
import triton.language as tl


@triton.jit
def tanh(x):
    # tanh(x) = 2 * sigmoid(2x) - 1
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def gelu_tanh(x):
    # GELU, tanh approximation (as torch.nn.functional.gelu(x, approximate="tanh")).
    k0 = 0.7978845608028654  # sqrt(2 / pi)
    k1 = 0.044715
    inner = k0 * (x + k1 * x * x * x)
    return 0.5 * x * (1 + tanh(inner))


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def leaky_relu(x, alpha):
    return tl.where(x >= 0, x, alpha * x)


@triton.jit
def activation_kernel(x_ptr, y_ptr, n_elements, alpha,
                      ACTIVATION: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if ACTIVATION == "gelu_tanh":
        y = gelu_tanh(x)
    elif ACTIVATION == "silu":
        y = silu(x)
    elif ACTIVATION == "leaky_relu":
        y = leaky_relu(x, alpha)
    else:
        tl.static_assert(False, "unknown ACTIVATION")
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def activation(x: torch.Tensor, kind: str, alpha: float = 0.01, block_size: int = 1024):
    """Host wrapper: y = kind(x), same shape and dtype as x."""
    y = torch.empty_like(x)
    n_elements = x.numel()
    grid = (triton.cdiv(n_elements, block_size), )
    activation_kernel[grid](x, y, n_elements, alpha, ACTIVATION=kind, BLOCK_SIZE=block_size)
    return y


def _torch_reference(x: torch.Tensor, kind: str, alpha: float = 0.01):
    if kind == "gelu_tanh":
        return torch.nn.functional.gelu(x, approximate="tanh")
    if kind == "silu":
        return torch.nn.functional.silu(x)
    return torch.nn.functional.leaky_relu(x, negative_slope=alpha)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(1 << 20, device="cuda", dtype=torch.float16)
    for kind in ("gelu_tanh", "silu", "leaky_relu"):
        err = (activation(x, kind).float() - _torch_reference(x, kind).float()).abs().max().item()
        print(f"{kind:<10} max |triton - torch| = {err:.3g}")

# Kernels for tests/gpu/check_debug_ops.py: tl.device_print's output format and
# tl.device_assert firing, compared between tilec and Triton.
import triton
import triton.language as tl


@triton.jit
def print_kernel(X, I, n, BLOCK: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.)
    i = tl.load(I + offs, mask=mask, other=0)
    tl.device_print("x=", x)
    tl.device_print("i ", i, hex=True)
    tl.device_print("n", n)


@triton.jit
def assert_kernel(X, n, BLOCK: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0)
    tl.device_assert(x < 100, "x must stay below 100")

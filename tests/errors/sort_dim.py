# flags: -k k -s "*fp32:16, i32, 16, 32"
import triton
import triton.language as tl


# Triton sorts along the last dimension only (its static_assert refuses dim=-1 too)
@triton.jit
def k(x_ptr, n, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.sort(x, dim=0)

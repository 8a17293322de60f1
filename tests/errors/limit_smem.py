# flags: -k k -s "*fp32:16, *fp32:16, 256, 256" -w 32
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + r[:, None] * N + c[None, :], y)

# Pointer arguments moved in the body, a reversed scan, a float atomic max, and the
# debugging ops (device_print; device_assert compiled in by --debug).
import triton
import triton.language as tl

@triton.jit
def k(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    c = tl.cumsum(x, axis=0, reverse=True)
    tl.atomic_max(Y + cols, c, mask=cols < N)
    tl.device_print("c", c)
    tl.device_assert(c == c, "c is NaN")

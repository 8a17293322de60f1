import triton
import triton.language as tl


# y[i] = x[i], through tl.gather along an axis of extent 1: the only index in range is 0, so
# the result is the source itself, with no exchange and no index computed.
@triton.jit
def gather_unit_axis_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)[:, None]
    index = ((offs * 7 + 3) % 1)[:, None]
    y = tl.gather(x, index, 1)
    tl.store(y_ptr + offs[:, None], y, mask=mask[:, None])

# Golden input: integer max/min reductions (i8, i32, i64) across lanes and warps.
# Integer max/min combine with a conditional; the value shuffled in from another lane must
# be read once, by every lane, before the conditional (found by tests/gpu/difftest.py).
import triton
import triton.language as tl


@triton.jit
def int_minmax_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    z = tl.load(z_ptr + offs, mask=mask, other=0)
    x_hi = tl.max(tl.where(mask, x, -1000), axis=0)
    y_lo = tl.min(tl.where(mask, y, 1000), axis=0)
    z_hi = tl.max(tl.where(mask, z, -128), axis=0)
    tl.store(out_ptr + offs, (x - x_hi) + (y - y_lo) + z_hi, mask=mask)

import triton
import triton.language as tl


@triton.jit
def ptr_vectors(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # read by vector loads only: one pointer per vector is kept
    xp = x_ptr + offs
    x = tl.load(xp, mask=mask, other=0.0)
    # read by a vector load and by a load of single elements (its mask changes
    # from one element to the next): every element's pointer is kept
    yp = y_ptr + offs
    y = tl.load(yp, mask=mask, other=0.0)
    y_odd = tl.load(yp, mask=mask & (offs % 2 == 1), other=1.0)
    # advanced in a loop and read by vector stores
    zp = z_ptr + offs
    for i in range(2):
        tl.store(zp, x * y + y_odd + i, mask=mask)
        zp += n

import triton
import triton.language as tl


@triton.jit
def cat_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(y_ptr + offs, mask=mask, other=0.0)
    both = tl.cat(a, b, can_reorder=True)
    tl.store(out_ptr + pid, tl.sum(both * both, axis=0))

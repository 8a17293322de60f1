import triton
import triton.language as tl


@triton.jit
def int_abs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # tl.abs of an integer expression: `(x | 255) < 0 ? ...` must keep the
    # parentheses, since `<` binds tighter than `|` in C
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, tl.abs(x | 255) + tl.abs(x - 7), mask=mask)

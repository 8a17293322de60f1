# Golden input: the result types of tl.maximum, tl.minimum, tl.clamp and Python's max/min.
# Triton 3.6 makes tensors of their Python scalars first (0.1 is an fp32 tensor, 3 an i32 one),
# so unlike in arithmetic the scalar takes part in the promotion; and it widens bf16 operands to
# fp32. Typed as the operands alone, the fp16 products below would be rounded to fp16, the bf16
# sum to bf16, and the i8 products would wrap (found by tests/gpu/difftest.py, seeds 30275 and
# 30353).
import triton
import triton.language as tl


@triton.jit
def minmax_promotion_kernel(h_ptr, b_ptr, i_ptr, out_ptr, iout_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    r = tl.maximum(h, 0.1) * 3.0 + tl.minimum(h, -0.3) * 7.0
    r += (b + tl.maximum(b, b)) * 3
    r += tl.clamp(h, -0.5, 0.5) * 3.0 + max(h, 0.2) * 5.0
    tl.store(out_ptr + offs, r, mask=mask)
    tl.store(iout_ptr + offs, tl.maximum(i, 3) * 100 + min(i, -7) * 50, mask=mask)

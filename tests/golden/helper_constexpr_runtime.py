import triton
import triton.language as tl


# A helper whose parameters are annotated tl.constexpr, called with a runtime scalar and a
# tile: Triton 3.6 passes both on as runtime values (Triton's fused-attention tutorial calls
# its inner loop this way), and tilec does the same.
@triton.jit
def shift(x, c: tl.constexpr, offs: tl.constexpr):
    return x + c + offs


@triton.jit
def helper_constexpr_runtime(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, shift(x, n, offs), mask=mask)

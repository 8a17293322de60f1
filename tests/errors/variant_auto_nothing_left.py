# flags: -s "*fp32:16, *fp32:16, i32:16, fp32, 256" --variant auto
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * alpha, mask=offs < n)

# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    x2 = tl.reshape(x, (8, 8))
    y = tl.cat(x2, x2, can_reorder=True)

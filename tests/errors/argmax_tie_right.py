# flags: -k k -s "*fp32:16, *i32:16, 128"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(i_ptr, tl.argmax(x, axis=0, tie_break_left=False))

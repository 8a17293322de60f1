# flags: -k k -s "*fp32:16, 128"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = offs[:, :]
    tl.store(x_ptr + offs, y)

# flags: -k k -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = offs[:, None] * 16 + offs[None, :]
    x = tl.load(x_ptr + idx)
    tl.store(x_ptr + idx, x)

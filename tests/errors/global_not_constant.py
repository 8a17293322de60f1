# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl

OFFS = tl.constexpr(tl.arange(0, 16))


@triton.jit
def k(x_ptr):
    tl.store(x_ptr + OFFS, 1.0)

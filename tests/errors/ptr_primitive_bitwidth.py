# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    bits: tl.constexpr = x_ptr.dtype.primitive_bitwidth
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, bits)

# flags: -k k -s "*fp32:16, fp32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    r = tl.randn(seed, offs)
    tl.store(out_ptr + offs, r)

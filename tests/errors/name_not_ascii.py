# flags: -k k -s "*fp32:16, 128"
import triton
import triton.language as tl


@triton.jit
def k(entrée, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(entrée + offs, tl.load(entrée + offs) + 1)

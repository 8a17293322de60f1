# flags: -s "*fp32:16, 128"
import triton
import triton.language as tl


@triton.jit
def _twice(x):
    return x * 2


@triton.jit
def first(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, _twice(tl.load(x_ptr + offs)))


@triton.jit
def second(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)

import triton
import triton.language as tl


@triton.jit
def cummax_combine(value_a, index_a, value_b, index_b):
    # the running maximum and where it was first reached
    keep = value_a >= value_b
    return tl.maximum(value_a, value_b), tl.where(keep, index_a, index_b)


@triton.jit
def cummax_kernel(x_ptr, max_ptr, arg_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
    idx = tl.arange(0, BLOCK)
    running, at = tl.associative_scan((x, idx), 0, cummax_combine)
    tl.store(max_ptr + offs, running, mask=mask)
    tl.store(arg_ptr + offs, at, mask=mask)

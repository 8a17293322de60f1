import triton
import triton.language as tl


@triton.jit
def argmax_combine(value_a, index_a, value_b, index_b):
    # the larger value wins; on a tie, the lower index
    better = (value_a > value_b) | ((value_a == value_b) & (index_a < index_b))
    return tl.where(better, value_a, value_b), tl.where(better, index_a, index_b)


@triton.jit
def argmax_tuple_kernel(x_ptr, out_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    # each program: the largest of its BLOCK elements and where it is, as a (value, index) reduction
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
    best, where = tl.reduce((x, offs), 0, argmax_combine)
    tl.store(out_ptr + pid, best)
    tl.store(idx_ptr + pid, where)

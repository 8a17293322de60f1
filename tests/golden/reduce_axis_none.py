# Golden input: reductions with axis=None written out (Triton reduces over all axes, as when
# the axis is left out), with and without keep_dims.
import triton
import triton.language as tl


@triton.jit
def reduce_axis_none_kernel(x_ptr, out_ptr, n):
    r = tl.arange(0, 8)
    x = tl.load(x_ptr + r[:, None] * 8 + r[None, :])
    tl.store(out_ptr, tl.sum(x, axis=None) + tl.max(x, axis=None, keep_dims=False))
    tl.store(out_ptr + 1 + r, tl.sum(x, None, keep_dims=True).broadcast_to(8, 8).sum(0))
    tl.store(out_ptr + 9, tl.min(x.to(tl.int32), None) + tl.xor_sum(x.to(tl.int32), axis=None))

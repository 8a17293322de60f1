import triton
import triton.language as tl


# y[i] += 2 * x[i] through one-dimensional tensor descriptors: a load that reads zeros past
# n, and an atomic add that drops the elements past n.  n is promised a multiple of 16: with
# 4 * n bytes not a multiple of 16, Triton 3.6's TMA reduction on an H100 wrote past n, so the
# GPU comparison of whole buffers with Triton would fail on Triton's side (tilec's ragged
# descriptor tails are checked by the tensor_desc/abs cases instead).
@triton.jit
def desc_axpy_atomic_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    off = tl.program_id(0) * BLOCK
    x = x_desc.load([off])
    y_desc.atomic_add([off], x * 2.0)

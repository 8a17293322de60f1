# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr):
    r = tl.arange(0, 4)
    x = tl.load(x_ptr + r[:, None] * 4 + r[None, :])
    m, i = tl.max(x, return_indices=True)
    tl.store(x_ptr, m)

# flags: -k k -s "*fp32:16, *i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(x_ptr + offsets, 1.0, mask=mask)

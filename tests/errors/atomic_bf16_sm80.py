# flags: -k k -s "*bf16:16, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.atomic_add(x_ptr, 1.0)

# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    for i in tl.range(0, n, loop_unroll_factor=0):
        tl.store(x_ptr + i, 1.0)

# flags: -k k -s "*i64, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    c: tl.constexpr = 0 ** -1

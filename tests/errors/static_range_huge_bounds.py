# flags: -k k -s "*i64, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    for i in tl.static_range(-4611686018427387904 * 2, 9223372036854775807, 1):
        n = n + i

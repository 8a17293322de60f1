# flags: -k k -s "*i64, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.static_assert(1 ** 9223372036854775807 == 2, 'one to any power is one')

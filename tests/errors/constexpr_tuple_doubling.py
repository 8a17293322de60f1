# flags: -k k -s "*i64, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    t = (1, 2)
    for i in tl.static_range(64):
        t = t + t

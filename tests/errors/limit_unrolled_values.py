# flags: -k k -s "*i32, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    acc = n
    for i in tl.static_range(4096):
        for j in tl.static_range(4096):
            acc = acc * 3 + (acc >> 2) - 1
    tl.store(x_ptr, acc)

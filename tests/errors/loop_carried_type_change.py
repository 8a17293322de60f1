# flags: -k k -s "*fp32:16, i32, fp32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, s, BLOCK: tl.constexpr):
    acc = 0
    for i in range(0, n):
        acc += s
    tl.store(x_ptr, acc)

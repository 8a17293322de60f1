# flags: -k k -s "*i32:16, *u32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n)
    b = tl.load(b_ptr + offs, mask=offs < n)
    y = a // b
    tl.store(a_ptr + offs, y, mask=offs < n)

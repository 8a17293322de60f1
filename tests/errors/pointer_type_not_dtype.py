# flags: -k k -s "*i64:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    p = tl.load(x_ptr).to(tl.pointer_type(3))

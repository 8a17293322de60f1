# flags: -k k -s "i32"
import triton
import triton.language as tl


@triton.jit
def k(n, *args):
    pass

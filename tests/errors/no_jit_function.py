# flags: -s "i32"
import triton
import triton.language as tl


def k(n):
    pass

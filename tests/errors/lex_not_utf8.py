# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr):
    # café in Latin-1
    tl.store(x_ptr, 1.0)

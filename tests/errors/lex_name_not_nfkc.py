# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr):
    ﬁle = 1.0
    tl.store(x_ptr, file)

# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def k(out_ptr):
    x = tl.random.uint_to_uniform_float(5)
    tl.store(out_ptr, x)

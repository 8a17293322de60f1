# flags: -k k -s "*u32:16"
import triton
import triton.language as tl


@triton.jit
def k(out_ptr):
    offs = tl.arange(0, 16)
    a, b, c, d = tl.philox(7, offs, offs.to(tl.int64), offs, offs)
    tl.store(out_ptr + offs, a)

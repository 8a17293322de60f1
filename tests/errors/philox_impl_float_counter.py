# flags: -k k -s "*u32:16"
import triton
import triton.language as tl


@triton.jit
def k(out_ptr):
    offs = tl.arange(0, 16)
    a, b, c, d = tl.philox_impl(offs.to(tl.uint32), offs, offs.to(tl.float32), offs, 1, 2)
    tl.store(out_ptr + offs, a)

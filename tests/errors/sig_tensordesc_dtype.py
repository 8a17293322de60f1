# flags: -k k -s "tensordesc<fq16[64, 64]>, *fp16:16"
import triton
import triton.language as tl


@triton.jit
def k(d, y_ptr):
    v = d.load([0, 0])
    tl.store(y_ptr + tl.arange(0, 16), tl.sum(v, axis=0))

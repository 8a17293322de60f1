# flags: -k k -s "*fp32:16, i32, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(out_ptr, seed, rounds, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    r = tl.rand(seed, offs, n_rounds=rounds)
    tl.store(out_ptr + offs, r)

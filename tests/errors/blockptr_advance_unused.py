# flags: -k k -s "*fp32:16, i32, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, M, N):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (16, 16), (1, 0))
    tl.advance(p, (16, 0))
    tl.store(p, 1.0)

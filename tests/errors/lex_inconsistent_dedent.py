# flags: -k k -s "*fp32:16, i32, 1024"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid > 0:
        a = 1
      b = 2

# flags: -k k -s "*fp32:16, i32, 1024" --grid "n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n + n"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * 2.0, mask=offs < n)

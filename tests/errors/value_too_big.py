# flags: -k k -s "*fp32:16, i32" -D BLOCK=99999999999999999999999
import triton
import triton.language as tl


# An integer value that no 64-bit integer holds is refused, not clamped to 2**63 - 1 (nor read
# as the float 1e23).
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, 64)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

# flags: -k scale_kernel -s "*fp32:16, i32" -D BLOCK=256
import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: all(args[k] % 16 == 0 for k in ["n"])})
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)
    else:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

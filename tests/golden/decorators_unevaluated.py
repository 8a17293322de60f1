# Golden input: decorators tilec cannot evaluate (configs from an imported
# helper, a heuristic over a generator expression); -D gives their values.
# The decorator of the other kernel in the file is never looked at.
import triton
import triton.language as tl
from tuning import get_configs


@triton.autotune(configs=get_configs("scale"), key=["n"])
@triton.heuristics({"EVEN": lambda args: all(args[k] % args["BLOCK"] == 0 for k in ["n"])})
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2.0)
    else:
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


@triton.autotune(configs=sorted(get_configs("copy"), key=lambda c: c.num_warps), key=[])
@triton.heuristics(values=undefined_name)
@triton.jit
def copy_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))

# Golden input: constexprs from an autotune config (--config N) and from a heuristic.
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 512}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK": 2048}, num_warps=8),
    ],
    key=["n"],
)
@triton.heuristics({"WIDE": lambda args: args["BLOCK"] >= 1024})
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if WIDE:
        y = x * factor
    else:
        y = x * factor + 1.0
    tl.store(y_ptr + offs, y, mask=mask)

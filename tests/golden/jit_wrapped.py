# Golden input: kernels made by calling the decorators, not by '@':
# f = triton.jit(f) and then f = triton.heuristics({...})(f), and
# g = triton.autotune(...)(triton.jit(g_impl)).
import triton
import triton.language as tl


def _scale_rows(x_ptr, n_cols, row_stride, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ptrs = x_ptr + row * row_stride + cols
    if EVEN:
        tl.store(ptrs, tl.load(ptrs) * 2.0)
    else:
        tl.store(ptrs, tl.load(ptrs, mask=cols < n_cols) * 2.0, mask=cols < n_cols)


_scale_rows = triton.jit(_scale_rows)
_scale_rows = triton.heuristics({"EVEN": lambda args: args["n_cols"] == args["BLOCK"]})(_scale_rows)


def _add_one(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


add_one = triton.autotune(configs=[triton.Config({"BLOCK": 512}, num_warps=2)], key=["n"])(triton.jit(_add_one))

# Golden input: decorator arguments built by host Python that tilec
# evaluates: a helper def with a comprehension over itertools.product and
# an append loop, a module-level dict of heuristics, a generator
# expression inside a heuristic.  --config 5 picks the appended config.
import itertools

import triton
import triton.language as tl

BLOCKS = [128, 256, 512]


def warps_configs(extra=()):
    configs = [
        triton.Config({"BLOCK": b}, num_warps=w)
        for b, w in itertools.product(BLOCKS, (2, 4))
        if b * w <= 1024
    ]
    for b in extra:
        configs.append(triton.Config({"BLOCK": b}, num_warps=8, num_stages=2))
    return configs


HEURISTICS = {
    "EVEN": lambda args: all(args[k] % args["BLOCK"] == 0 for k in ("n_cols",)),
    "CHUNKS": lambda args: max(1, args["n_cols"] // args["BLOCK"]),
}


@triton.autotune(configs=warps_configs(extra=[1024]), key=["n_cols"])
@triton.heuristics(HEURISTICS)
@triton.jit
def row_scale(x_ptr, row_stride, n_cols: tl.constexpr, BLOCK: tl.constexpr, EVEN: tl.constexpr,
              CHUNKS: tl.constexpr):
    row = x_ptr + tl.program_id(0) * row_stride
    for c in tl.static_range(CHUNKS):
        cols = c * BLOCK + tl.arange(0, BLOCK)
        if EVEN:
            tl.store(row + cols, tl.load(row + cols) * 2.0)
        else:
            tl.store(row + cols, tl.load(row + cols, mask=cols < n_cols) * 2.0, mask=cols < n_cols)

# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl

BASE = {"BLOCK": lambda args: 128}


@triton.heuristics({**BASE, "EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pass

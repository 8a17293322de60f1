# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl
from helpers import even_heuristics


@triton.heuristics(even_heuristics("n"))
@triton.jit
def k(x_ptr, n, EVEN: tl.constexpr):
    pass

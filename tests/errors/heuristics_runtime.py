# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.heuristics({'B': lambda args: args['n'] * 2})
@triton.jit
def k(x_ptr, n, B: tl.constexpr):
    pass

# args: tests/errors/cli_option_needs_value.py -k
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.store(x_ptr, n)

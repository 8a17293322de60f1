# args: tests/errors/cli_output_is_input.py -k not_this_kernel -o ./tests/errors/cli_output_is_input.py
# (a kernel name that does not exist: a tilec that missed the mistake stops before writing)
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.store(x_ptr, n)

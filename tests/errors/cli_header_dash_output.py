# args: tests/errors/cli_header_dash_output.py -k k -s "*fp32:16, i32, 64" --header -o -
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

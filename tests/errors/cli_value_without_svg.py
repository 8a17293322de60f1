# args: tests/errors/cli_value_without_svg.py -k k -s "*fp32:16, i32, 64" --emit html --value x
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

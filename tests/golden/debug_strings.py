# Messages of tl.device_print and tl.device_assert (with --debug) holding what C string
# literals must escape: a newline, quotes, a backslash, printf's % and a control character;
# the .cu prints the same bytes.
import triton
import triton.language as tl


@triton.jit
def debug_strings_kernel(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.device_print("x\n\"is\" \\ 100% \x1b", x)
    tl.device_assert(x == x, "NaN in\n\"x\" \\ 100%s \x1b")

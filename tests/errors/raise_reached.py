# flags: -k k -s "*i32, i32, 'mul'"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, KIND: tl.constexpr):
    if KIND == "add":
        tl.store(x_ptr, n + 1)
    else:
        raise ValueError("unsupported KIND")

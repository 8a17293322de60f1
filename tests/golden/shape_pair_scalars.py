import triton
import triton.language as tl


@triton.jit
def pair_scalars_kernel(x_ptr, out_ptr, n):
    # a [2] tile split into two scalars, a [1] tile reshaped to one (Triton's unsplat)
    a, b = tl.split(tl.load(x_ptr + tl.arange(0, 2)))
    one = tl.reshape(tl.load(x_ptr + 2 + tl.arange(0, 1)), ())
    c, d = tl.load(x_ptr + 3 + tl.arange(0, 2)).to(tl.float16).split()
    tl.store(out_ptr, a * 2.0 + b + one + (c * d).to(tl.float32))

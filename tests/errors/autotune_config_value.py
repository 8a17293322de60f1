# flags: -k k -s "*fp32:16, i32"
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": [128, 256]})], key=[])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass

# flags: -k k -s "*fp32:16, i32" --config 1
import triton
import triton.language as tl
from tuning import wide_config


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), wide_config()], key=["n"])
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass

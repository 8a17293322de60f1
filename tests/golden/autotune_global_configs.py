# Golden input: autotune configs from a module-level list plus a literal
# list; --config 2 picks the first config of the second list.
import triton
import triton.language as tl

BASE_CONFIGS = [
    triton.Config({"BLOCK": 128}, num_warps=4),
    triton.Config({"BLOCK": 256}, num_warps=4),
]
CONFIGS = BASE_CONFIGS + [triton.Config({"BLOCK": 1024}, num_warps=8, num_stages=2)]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)

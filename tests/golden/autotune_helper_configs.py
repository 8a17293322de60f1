# Golden input: configs made by a project helper whose num_stages comes
# from an imported function: the config's constexprs and num_warps are
# used, num_stages falls back on the flag's default.
import triton
import triton.language as tl
from .utils import get_n_stages


def scale_config(BLOCK: int, n_warps: int = 4, n_stages: int = 2) -> triton.Config:
    """Creates a triton.Config for scale_kernel."""
    return triton.Config({"BLOCK": BLOCK}, num_warps=n_warps, num_stages=get_n_stages(n_stages))


@triton.autotune(
    configs=[scale_config(256, n_warps=2), scale_config(1024, n_warps=8, n_stages=4)],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)

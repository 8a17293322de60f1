"""Module-level names bound by a host helper that looks a libdevice function up by name
(normpkg/utils/lookup.py): tilec reads them as the functions they name."""
import triton
import triton.language as tl

from normpkg.utils.lookup import libdevice_lookup

rsqrt = libdevice_lookup("rsqrt")
pow = libdevice_lookup("pow")


@triton.jit
def inv_norm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = rsqrt(pow(x, 2.0) + 1.0)
    tl.store(y_ptr + offs, y, mask=mask)

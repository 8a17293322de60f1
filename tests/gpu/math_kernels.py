# GPU test kernel: one fp32 math function per specialisation (FN), applied to inputs that
# include zeros, denormals, the smallest normals, infinities, NaNs and arguments whose results
# underflow.  tilec must give Triton's bits for every input: Triton compiles with libdevice's
# flush-to-zero paths and uses the .ftz forms of sqrt/rsqrt/ex2 (reference/triton-internals.md
# §7.6), so a non-ftz instruction shows up here as a denormal where Triton has a zero.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def unary_kernel(X, Y, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=1.0)
    if FN == "sqrt":
        y = tl.sqrt(x)
    elif FN == "sqrt_rn":
        y = tl.sqrt_rn(x)
    elif FN == "rsqrt":
        y = tl.rsqrt(x)
    elif FN == "exp":
        y = tl.exp(x)
    elif FN == "exp2":
        y = tl.exp2(x)
    elif FN == "log":
        y = tl.log(x)
    elif FN == "log2":
        y = tl.log2(x)
    elif FN == "sin":
        y = tl.sin(x)
    elif FN == "cos":
        y = tl.cos(x)
    elif FN == "erf":
        y = tl.erf(x)
    elif FN == "floor":
        y = tl.floor(x)
    elif FN == "ceil":
        y = tl.ceil(x)
    elif FN == "abs":
        y = tl.abs(x)
    elif FN == "sigmoid":
        y = tl.sigmoid(x)
    elif FN == "div":
        y = x / 0.7
    elif FN == "ld_tanh":
        y = libdevice.tanh(x)
    elif FN == "ld_log1p":
        y = libdevice.log1p(x)
    elif FN == "ld_expm1":
        y = libdevice.expm1(x)
    elif FN == "ld_exp":
        y = libdevice.exp(x)
    elif FN == "ld_rsqrt":
        y = libdevice.rsqrt(x)
    elif FN == "ld_sqrt":
        y = libdevice.sqrt(x)
    elif FN == "ld_log":
        y = libdevice.log(x)
    elif FN == "ld_sin":
        y = libdevice.sin(x)
    elif FN == "ld_tan":
        y = libdevice.tan(x)
    elif FN == "ld_asin":
        y = libdevice.asin(x)
    elif FN == "ld_acos":
        y = libdevice.acos(x)
    elif FN == "ld_atan":
        y = libdevice.atan(x)
    elif FN == "ld_sinh":
        y = libdevice.sinh(x)
    elif FN == "ld_cosh":
        y = libdevice.cosh(x)
    elif FN == "ld_trunc":
        y = libdevice.trunc(x)
    elif FN == "ld_round":
        y = libdevice.round(x)
    elif FN == "ld_rint":
        y = libdevice.rint(x)
    elif FN == "ld_cbrt":
        y = libdevice.cbrt(x)
    else:
        y = libdevice.exp2(x)
    tl.store(Y + offs, y, mask=mask)

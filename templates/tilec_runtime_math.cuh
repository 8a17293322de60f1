
// ---- fp32 math with Triton's flush-to-zero (only where the kernel uses it) -----
// Triton links libdevice with flush-to-zero on (nvvm-reflect-ftz): its fp32 math functions
// take a denormal argument as a zero of the same sign and give zero for a denormal result.
// CUDA's functions, compiled without -ftz, keep denormals; flushed<f> puts the flush on both
// sides of one.  Functions whose results are the same bits either way (logf, log2f, cosf, ...)
// are called directly.  asin, acos and atan still differ from Triton's by a few ulps on some
// ordinary arguments: Triton ships an older libdevice, whose coefficients differ (erf and cbrt
// are written out below as that libdevice computes them).
namespace tilec {

// x with a denormal replaced by a zero of its sign: x * 1 in the .ftz form
__device__ __forceinline__ float ftz(float x)
{
    float r;
    asm("mul.ftz.f32 %0, %1, 0f3F800000;" : "=f"(r) : "f"(x));
    return r;
}

template <float (*F)(float)>
__device__ __forceinline__ float flushed(float x)
{
    return ftz(F(ftz(x)));
}

// log1p and expm1 of a denormal are +0 in Triton's build, whatever its sign
__device__ __forceinline__ float log1p_flushed(float x) { return ftz(x) == 0.0f && x != 0.0f ? 0.0f : log1pf(x); }
__device__ __forceinline__ float expm1_flushed(float x) { return ftz(x) == 0.0f && x != 0.0f ? 0.0f : expm1f(x); }

// libdevice.cbrt as the libdevice Triton ships computes it (CUDA's own cbrtf, from a newer
// libdevice, takes another route and rounds differently on ~16% of arguments).  From
// r = 2^(log2|x| / 3), approximate, one Newton step for r^3 = |x|:
//     r - (r - |x| / r^2) / 3
// with 1/r^2 approximate, then x's sign.  0, infinities and NaN come back as x + x.  A
// denormal x is a zero to the approximations, and 0 * inf makes the step NaN, as in Triton.
__device__ __forceinline__ float cbrt_flushed(float x)
{
    float t = fabsf(ftz(x)), l, q;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(t));
    float r = exp2_approx(l * 0.333333343f);
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(q) : "f"(r * r));
    float y = fmaf(fmaf(q, -t, r), -0.333333343f, r);
    if (x < 0.0f)
        y = -y;
    return x + x == x ? x + x : y;
}

// a * b + c rounded once, denormal inputs and result flushed
__device__ __forceinline__ float fma_ftz(float a, float b, float c)
{
    float r;
    asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    return r;
}

// tl.erf as the libdevice Triton ships computes it, step for step, so that the bits are
// Triton's (CUDA's erff takes other coefficients).  Two degree-6 polynomials p, by Horner's
// rule in flushed fmas:
//     |x| <  1.00296: erf x = x + x p(x^2)
//     |x| >= 1.00296: erf x = sign(x) (1 - 2^q), q = -|x| - |x| p(|x|)
// NaN takes the first form and stays NaN; a denormal x is a zero to the fmas.
__device__ __forceinline__ float erf_flushed(float x)
{
    float t;
    asm("abs.ftz.f32 %0, %1;" : "=f"(t) : "f"(x));
    const bool big = t >= __uint_as_float(0x3f8060feu);
    const float u = big ? t : __fmul_rn(x, x);
    // the coefficients, highest power first, each chosen by a select (an array would be
    // read from memory)
#define TILEC_ERF_C(small, large) __uint_as_float(big ? large : small)
    float p = TILEC_ERF_C(0x38b1e96au, 0x3789ca3cu);
    p = fma_ftz(p, u, TILEC_ERF_C(0xba574d20u, 0xb9f560b9u));
    p = fma_ftz(p, u, TILEC_ERF_C(0x3baad5eau, 0x3bac840bu));
    p = fma_ftz(p, u, TILEC_ERF_C(0xbcdc1be7u, 0xbd0c8162u));
    p = fma_ftz(p, u, TILEC_ERF_C(0x3de718afu, 0x3e1cf906u));
    p = fma_ftz(p, u, TILEC_ERF_C(0xbec093acu, 0x3f6a937eu));
    p = fma_ftz(p, u, TILEC_ERF_C(0x3e0375d3u, 0x3f20d842u));
#undef TILEC_ERF_C
    const float v = big ? -u : x;
    float r = fma_ftz(p, v, v);
    if (big)
        r = __uint_as_float((__float_as_uint(x) & 0x80000000u) | __float_as_uint(__fsub_rn(1.0f, exp2_approx(r))));
    return r;
}

} // namespace tilec
// ---- end of the flush-to-zero math helpers ------------------------------------


// ---- fp32 math with Triton's flush-to-zero (only where the kernel uses it) -----
// Triton links libdevice with flush-to-zero on (nvvm-reflect-ftz): its fp32 math functions
// take a denormal argument as a zero of the same sign and give zero for a denormal result.
// CUDA's functions, compiled without -ftz, keep denormals; flushed<f> puts the flush on both
// sides of one.  Functions whose results are the same bits either way (logf, log2f, cosf, ...)
// are called directly.  erf, asin, acos and atan still differ from Triton's by a few ulps on
// some ordinary arguments (libdevice's flush-to-zero build computes them differently).
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

} // namespace tilec
// ---- end of the flush-to-zero math helpers ------------------------------------

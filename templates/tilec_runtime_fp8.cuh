// ---- tilec fp8 helpers (templates/tilec_runtime_fp8.cuh) -------------------
// Included only by kernels with fp8 values (cuda_fp8.h is included above).
// Triton's float8e4nv is __nv_fp8_e4m3 (no infinities, NaN 0x7f/0xff, largest
// finite 448) and float8e5 is __nv_fp8_e5m2 (IEEE-like, largest finite 57344).
// Each conversion is the one Triton 3.6 emits on sm_90 (tt.fp_to_fp lowered
// by the NVIDIA backend), written with cuda_fp8.h, whose intrinsics are those
// same cvt instructions on sm_89 and newer:
//   to fp8:   round to nearest even; a magnitude beyond the largest finite
//             value, infinities included, becomes that value with its sign
//             (cvt.rn.satfinite); NaN stays NaN;
//   from fp8: exact (every fp8 value is an fp16, bf16 and fp32 value), except
//             e5m2 -> bf16 (below).
// tilec translates fp8 conversions for sm_89 and newer only (--arch sm_90).
namespace tilec {

// The fp8 value with encoding `bits` (fp8 constants are written by their bits).
__device__ __forceinline__ __nv_fp8_e4m3 e4m3_bits(__nv_fp8_storage_t bits)
{
    __nv_fp8_e4m3 r;
    r.__x = bits;
    return r;
}

__device__ __forceinline__ __nv_fp8_e5m2 e5m2_bits(__nv_fp8_storage_t bits)
{
    __nv_fp8_e5m2 r;
    r.__x = bits;
    return r;
}

// Triton on sm_89 (Ada) converts an fp32 value to fp8 in two steps: to fp16
// rounding toward zero, then to fp8 as above; sm_90 converts directly.  The
// two differ only where the first step lands on an fp8 tie.
__device__ __forceinline__ float fp8_source(float x)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890 && __CUDA_ARCH__ < 900
    return __half2float(__float2half_rz(x));
#else
    return x;
#endif
}

// fp32 -> fp8: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32.
__device__ __forceinline__ __nv_fp8_e4m3 f32_to_e4m3(float x)
{
    return e4m3_bits(__nv_cvt_float_to_fp8(fp8_source(x), __NV_SATFINITE, __NV_E4M3));
}

__device__ __forceinline__ __nv_fp8_e5m2 f32_to_e5m2(float x)
{
    return e5m2_bits(__nv_cvt_float_to_fp8(fp8_source(x), __NV_SATFINITE, __NV_E5M2));
}

// fp32 -> e5m2 with fp_downcast_rounding="rtz": to fp16 toward zero
// (cvt.rz.f16.f32, which never overflows to infinity), then the fp16's high
// byte, which is its e5m2 truncation (e5m2 is fp16 without the low 8 bits).
__device__ __forceinline__ __nv_fp8_e5m2 f32_to_e5m2_rz(float x)
{
    return e5m2_bits((__nv_fp8_storage_t)(__half_as_ushort(__float2half_rz(x)) >> 8));
}

// fp16 -> fp8: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2.
__device__ __forceinline__ __nv_fp8_e4m3 f16_to_e4m3(__half x)
{
    return e4m3_bits(__nv_cvt_halfraw_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

__device__ __forceinline__ __nv_fp8_e5m2 f16_to_e5m2(__half x)
{
    return e5m2_bits(__nv_cvt_halfraw_to_fp8(x, __NV_SATFINITE, __NV_E5M2));
}

// bf16 -> fp8: to fp32 (exact), then cvt.rn.satfinite from fp32, directly on
// sm_89 too.
__device__ __forceinline__ __nv_fp8_e4m3 bf16_to_e4m3(__nv_bfloat16 x)
{
    return e4m3_bits(__nv_cvt_float_to_fp8(__bfloat162float(x), __NV_SATFINITE, __NV_E4M3));
}

__device__ __forceinline__ __nv_fp8_e5m2 bf16_to_e5m2(__nv_bfloat16 x)
{
    return e5m2_bits(__nv_cvt_float_to_fp8(__bfloat162float(x), __NV_SATFINITE, __NV_E5M2));
}

// fp8 -> fp16: cvt.rn.f16x2.{e4m3x2,e5m2x2}.
__device__ __forceinline__ __half e4m3_to_f16(__nv_fp8_e4m3 x) { return __half(__nv_cvt_fp8_to_halfraw(x.__x, __NV_E4M3)); }
__device__ __forceinline__ __half e5m2_to_f16(__nv_fp8_e5m2 x) { return __half(__nv_cvt_fp8_to_halfraw(x.__x, __NV_E5M2)); }

// fp8 -> fp32: to fp16, then to fp32.
__device__ __forceinline__ float e4m3_to_f32(__nv_fp8_e4m3 x) { return __half2float(e4m3_to_f16(x)); }
__device__ __forceinline__ float e5m2_to_f32(__nv_fp8_e5m2 x) { return __half2float(e5m2_to_f16(x)); }

// e4m3 -> bf16: to fp16, then cvt.bf16.f16 on sm_90 (through fp32 before).
__device__ __forceinline__ __nv_bfloat16 e4m3_to_bf16(__nv_fp8_e4m3 x)
{
    const __half h = e4m3_to_f16(x);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned short r;
    asm("cvt.bf16.f16 %0, %1;" : "=h"(r) : "h"(__half_as_ushort(h)));
    return __ushort_as_bfloat16(r);
#else
    return __float2bfloat16_rn(__half2float(h));
#endif
}

// e5m2 -> bf16, Triton's way: the seven bits below the sign move to bit 5
// of a bf16 (where they read as the value times 2^-112), the sign stays on
// top, and one multiply by 2^112 (bf16 0x7780) puts the exponent right.  Exact
// for every finite value, subnormals included, but the infinity and NaN codes
// (exponent 31) become the finite ±2^16 * (1 + m/4): 65536, 81920, 98304, 114688.
__device__ __forceinline__ __nv_bfloat16 e5m2_to_bf16(__nv_fp8_e5m2 x)
{
    const unsigned short bits = (unsigned short)(((x.__x & 0x7f) << 5) | ((x.__x & 0x80) << 8));
    return __hmul(__ushort_as_bfloat16(bits), __ushort_as_bfloat16(0x7780));
}

// tl.abs on fp8: the sign bit cleared, as Triton does (NaN stays NaN).
__device__ __forceinline__ __nv_fp8_e4m3 fp8_abs(__nv_fp8_e4m3 x) { return e4m3_bits(x.__x & 0x7f); }
__device__ __forceinline__ __nv_fp8_e5m2 fp8_abs(__nv_fp8_e5m2 x) { return e5m2_bits(x.__x & 0x7f); }

} // namespace tilec
// ---- end of tilec fp8 helpers ---------------------------------------------------

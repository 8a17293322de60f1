// ---- tilec runtime helpers (templates/tilec_runtime.cuh) -------------------
// Small device helpers shared by every kernel tilec emits.  They exist so the
// kernel body can say what it means ("load 4 elements if the mask is set")
// while the exact PTX Triton would use stays in one readable place.
#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#else
#include <stdint.h>
#include <cuda_runtime.h>
#endif

namespace tilec {

// V consecutive elements of type T, aligned so that one load or store of the
// whole struct is a single V*sizeof(T)-byte memory instruction.
template <typename T, int V>
struct __align__(sizeof(T) * V) Vec {
    T e[V];
};

// The unsigned integer of B bytes: the unit in which a masked vector load
// moves its data, so that the fallback value and the loaded one merge as
// whole registers (never as 8- or 16-bit pieces that must be repacked).
template <int B> struct Word { typedef uint32_t T; };
template <> struct Word<2> { typedef uint16_t T; };
template <> struct Word<1> { typedef uint8_t T; };
template <> struct Word<8> { typedef uint64_t T; };

// V elements of T seen as N words of B bytes (whole registers where they fill
// them): the form in which a masked load or a 16-bit store moves its data.
template <typename T, int V> struct Words {
    static constexpr int B = sizeof(T) * V < 4 ? sizeof(T) * V : 4;
    static constexpr int N = sizeof(T) * V / B;
    typedef typename Word<B>::T W;
    union Both { Vec<T, V> v; Vec<W, N> w; };
};

// One predicated global load of N words of B bytes into w[0..N): where pred is
// false the instruction does not run and w keeps what it held.  Written as PTX
// with the predicate on the instruction, as Triton's loads are: an `if` around
// a plain load becomes a branch per load, and ptxas then keeps the loads of a
// masked tile in separate blocks instead of issuing them back to back (a
// 128x128 fp16 tile loaded so ran at 0.72x the predicated form on an H100).
// Global memory only; volatile with a memory clobber, so it stays in program
// order with the kernel's other loads and stores.
template <int B, int N> struct LoadPred;
template <> struct LoadPred<4, 4> {
    static __device__ __forceinline__ void run(uint32_t *w, const void *src, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %5, 0;\n @p ld.global.v4.b32 {%0, %1, %2, %3}, [%4];\n}"
                     : "+r"(w[0]), "+r"(w[1]), "+r"(w[2]), "+r"(w[3]) : "l"(src), "r"((int)pred) : "memory");
    }
};
template <> struct LoadPred<4, 2> {
    static __device__ __forceinline__ void run(uint32_t *w, const void *src, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n @p ld.global.v2.b32 {%0, %1}, [%2];\n}"
                     : "+r"(w[0]), "+r"(w[1]) : "l"(src), "r"((int)pred) : "memory");
    }
};
template <> struct LoadPred<4, 1> {
    static __device__ __forceinline__ void run(uint32_t *w, const void *src, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p ld.global.b32 %0, [%1];\n}"
                     : "+r"(w[0]) : "l"(src), "r"((int)pred) : "memory");
    }
};
// Loads narrower than a register keep the plain form: predicated, ptxas hoists
// every one of a loop's 2-byte loads and the layer-norm tutorial with an
// unaligned row length needed 128 registers instead of 45.
template <int B> struct LoadPred<B, 1> {
    template <typename W>
    static __device__ __forceinline__ void run(W *w, const void *src, bool pred)
    {
        if (pred)
            w[0] = *reinterpret_cast<const W *>(src);
    }
};

// dst[0..V) = src[0..V) if pred, else `other`: one vector load, predicated,
// into registers that hold `other` beforehand (what Triton's PTX does).
template <int V, typename T>
__device__ __forceinline__ void load(T *dst, const T *src, bool pred, T other)
{
    typedef Words<T, V> P;
    typename P::Both u;
#pragma unroll
    for (int j = 0; j < V; ++j)
        u.v.e[j] = other;
    LoadPred<P::B, P::N>::run(u.w.e, src, pred);
#pragma unroll
    for (int j = 0; j < V; ++j)
        dst[j] = u.v.e[j];
}

// The same without a mask.
template <int V, typename T>
__device__ __forceinline__ void load(T *dst, const T *src)
{
    Vec<T, V> v = *reinterpret_cast<const Vec<T, V> *>(src);
#pragma unroll
    for (int j = 0; j < V; ++j)
        dst[j] = v.e[j];
}

// dst[0..V) = src[0..V) if pred: one vector store, predicated, to global or
// shared memory (the kernels' own staging buffers use it).
template <int V, typename T>
__device__ __forceinline__ void store(T *dst, const T *src, bool pred = true)
{
    if (pred) {
        Vec<T, V> v;
#pragma unroll
        for (int j = 0; j < V; ++j)
            v.e[j] = src[j];
        *reinterpret_cast<Vec<T, V> *>(dst) = v;
    }
}

// One global store of N words of B bytes from w[0..N) if pred, as the vector
// st.global in PTX so that its width is kept.  Straight: the predicate on the
// instruction, as Triton writes it, so the kernel stays one straight block for
// ptxas.  Otherwise a C branch around it.  Each way loses somewhere (H200):
// lightllm's silu_and_mul (128x128 fp16, 32 loads a thread) straight took 128
// registers, ptxas spreading the loads through the block, and ran at 0.65x
// Triton against 0.98x with branches; Liger's SwiGLU, held to 64 registers by
// __launch_bounds__, spilled with a branch.  The emitter takes the straight form
// where it promises ptxas blocks per SM (a register bound), the branch elsewhere.
template <int B, int N, bool Straight> struct StorePred {     // one word, or narrower than a register
    template <typename W>
    static __device__ __forceinline__ void run(void *dst, const W *w, bool pred)
    {
        if (pred) {
#pragma unroll
            for (int j = 0; j < N; ++j)
                reinterpret_cast<W *>(dst)[j] = w[j];
        }
    }
};
template <bool Straight> struct StorePred<4, 4, Straight> {
    static __device__ __forceinline__ void run(void *dst, const uint32_t *w, bool pred)
    {
        if (Straight)
            asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %5, 0;\n @p st.global.v4.b32 [%0], {%1, %2, %3, %4};\n}"
                         :: "l"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"((int)pred) : "memory");
        else if (pred)
            asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};"
                         :: "l"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");
    }
};
template <bool Straight> struct StorePred<4, 2, Straight> {
    static __device__ __forceinline__ void run(void *dst, const uint32_t *w, bool pred)
    {
        if (Straight)
            asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n @p st.global.v2.b32 [%0], {%1, %2};\n}"
                         :: "l"(dst), "r"(w[0]), "r"(w[1]), "r"((int)pred) : "memory");
        else if (pred)
            asm volatile("st.global.v2.b32 [%0], {%1, %2};" :: "l"(dst), "r"(w[0]), "r"(w[1]) : "memory");
    }
};

// dst[0..V) = src[0..V) if pred, dst in global memory (a tl.store).  Elements
// narrower than a register are packed into whole words and stored with one
// st.global written in PTX (above): a vector of 16-bit elements stored through
// a C++ struct was split by nvcc into 2- and 4-byte stores in places (an
// in-place bf16 kernel: 16 st.global.u16 where two st.global.v4 were meant, at
// 0.55x Triton's speed).  Wider elements keep the plain store, which nvcc
// vectorizes (the PTX form cost a tf32 matmul a spill).  Chosen by
// specialization, so that no instantiation holds code it never runs (NVRTC
// warns of it).
template <int V, typename T, bool Straight, bool Narrow = (sizeof(T) < 4)> struct StoreGlobal {
    static __device__ __forceinline__ void run(T *dst, const T *src, bool pred) { store<V>(dst, src, pred); }
};
template <int V, typename T, bool Straight> struct StoreGlobal<V, T, Straight, true> {
    static __device__ __forceinline__ void run(T *dst, const T *src, bool pred)
    {
        typedef Words<T, V> P;
        typename P::Both u;
#pragma unroll
        for (int j = 0; j < V; ++j)
            u.v.e[j] = src[j];
        StorePred<P::B, P::N, Straight>::run(dst, u.w.e, pred);
    }
};
template <int V, typename T>
__device__ __forceinline__ void store_global(T *dst, const T *src, bool pred = true)
{
    StoreGlobal<V, T, false>::run(dst, src, pred);
}
template <int V, typename T>
__device__ __forceinline__ void store_global_straight(T *dst, const T *src, bool pred = true)
{
    StoreGlobal<V, T, true>::run(dst, src, pred);
}

// *dst = v if pred, as one predicated st.global written in PTX, so that the
// kernel stays one straight block for ptxas (the emitter's choice: see
// limits.c in tilec's source, choose_straight_stores).  A scalar result that
// one thread stores (a row's mean) was `if (tid == 0) *p = v;`, and ptxas
// then computed everything the code after the branch needs before it: Liger's
// layer norm held 62 registers where Triton's straight PTX holds 47.
template <int B> struct StoreOne;
template <> struct StoreOne<1> {
    static __device__ __forceinline__ void run(void *dst, uint8_t w, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b8 [%0], %1;\n}"
                     :: "l"(dst), "r"((uint32_t)w), "r"((int)pred) : "memory");
    }
};
template <> struct StoreOne<2> {
    static __device__ __forceinline__ void run(void *dst, uint16_t w, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b16 [%0], %1;\n}"
                     :: "l"(dst), "h"(w), "r"((int)pred) : "memory");
    }
};
template <> struct StoreOne<4> {
    static __device__ __forceinline__ void run(void *dst, uint32_t w, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b32 [%0], %1;\n}"
                     :: "l"(dst), "r"(w), "r"((int)pred) : "memory");
    }
};
template <> struct StoreOne<8> {
    static __device__ __forceinline__ void run(void *dst, uint64_t w, bool pred)
    {
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b64 [%0], %1;\n}"
                     :: "l"(dst), "l"(w), "r"((int)pred) : "memory");
    }
};
template <typename T> struct Same { typedef T type; };
template <typename T>
__device__ __forceinline__ void store_straight(T *dst, typename Same<T>::type v, bool pred)
{
    union { T v; typename Word<sizeof(T)>::T w; } u;
    u.v = v;
    StoreOne<sizeof(T)>::run(dst, u.w, pred);
}

// Reinterpret the bits of a value as another type of the same size.
template <typename To, typename From>
__device__ __forceinline__ To bitcast(From x)
{
    static_assert(sizeof(To) == sizeof(From), "bitcast needs equal sizes");
    union { From from; To to; } u;
    u.from = x;
    return u.to;
}

// Triton's fp32 `/`: div.full.f32 (approximate, 2 ulp), not IEEE division.
__device__ __forceinline__ float div_full(float x, float y)
{
    float r;
    asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    return r;
}

// Triton's tl.exp on fp32: ex2.approx.f32(x * log2(e)).
__device__ __forceinline__ float exp_approx(float x)
{
    float r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x * 1.4426950408889634f));
    return r;
}

// Triton's tl.exp2 on fp32: ex2.approx.ftz.f32 (libdevice's exp2f with flush-to-zero); a
// result below 2^-126 is 0.
__device__ __forceinline__ float exp2_approx(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// Triton's tl.sqrt on fp32: sqrt.approx.ftz.f32 (tl.sqrt_rn is the IEEE one, which keeps
// denormals).
__device__ __forceinline__ float sqrt_approx(float x)
{
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// Triton's tl.rsqrt on fp32: rsqrt.approx.ftz.f32 (a denormal argument gives inf).
__device__ __forceinline__ float rsqrt_approx(float x)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

// tl.sigmoid: 1 / (1 + exp(-x)), with Triton's approximate exp and divide.
__device__ __forceinline__ float sigmoid(float x) { return div_full(1.0f, 1.0f + exp_approx(-x)); }
__device__ __forceinline__ double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

// Triton's swizzled shared-memory layout (SwizzledSharedEncodingAttr): in
// row `row` of a buffer, column `col`'s group of Vec elements moves to group
// (col / Vec) ^ phase, the phase being (row / PerPhase) % MaxPhase.  Rows then
// put a column in different banks, so threads reading down a column (or
// writing along a row) do not queue on one bank.  Powers of two throughout.
template <int Vec, int PerPhase, int MaxPhase>
__device__ __forceinline__ int swizzle(int row, int col)
{
    const unsigned r = row, c = col;
    return ((c / Vec) ^ ((r / PerPhase) % MaxPhase)) * Vec + c % Vec;
}

// Warp shuffles of any element type.  Types of 16, 32 and 64 bits use the
// native __shfl_*_sync overloads (cuda_fp16.h and cuda_bf16.h add the half
// types); 8- and 16-bit integers travel as an int.
template <typename T> __device__ __forceinline__ T shfl_xor(T v, int m) { return __shfl_xor_sync(0xffffffffu, v, m); }
template <typename T> __device__ __forceinline__ T shfl_up(T v, int d) { return __shfl_up_sync(0xffffffffu, v, d); }
template <typename T> __device__ __forceinline__ T shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
template <typename T> __device__ __forceinline__ T shfl_idx(T v, int l) { return __shfl_sync(0xffffffffu, v, l); }
#define TILEC_NARROW_SHUFFLES(T)                                                                            \
    __device__ __forceinline__ T shfl_xor(T v, int m) { return (T)__shfl_xor_sync(0xffffffffu, (int)v, m); } \
    __device__ __forceinline__ T shfl_up(T v, int d) { return (T)__shfl_up_sync(0xffffffffu, (int)v, d); }   \
    __device__ __forceinline__ T shfl_down(T v, int d) { return (T)__shfl_down_sync(0xffffffffu, (int)v, d); } \
    __device__ __forceinline__ T shfl_idx(T v, int l) { return (T)__shfl_sync(0xffffffffu, (int)v, l); }
TILEC_NARROW_SHUFFLES(int8_t)
TILEC_NARROW_SHUFFLES(uint8_t)
TILEC_NARROW_SHUFFLES(int16_t)
TILEC_NARROW_SHUFFLES(uint16_t)
TILEC_NARROW_SHUFFLES(bool)
#undef TILEC_NARROW_SHUFFLES

} // namespace tilec

#ifndef __CUDACC_RTC__
// Host side: ceil(a / b) for the launch grid.
inline long long tilec_cdiv(long long a, long long b) { return (a + b - 1) / b; }
inline long long tilec_min(long long a, long long b) { return a < b ? a : b; }
inline long long tilec_max(long long a, long long b) { return a > b ? a : b; }
#endif
// ---- end of tilec runtime helpers --------------------------------------------

// ---- tilec tensor-core helpers (templates/tilec_tensorcore.cuh) ------------
// Included only by kernels that use tl.dot.  One helper per PTX instruction
// of the sm_80 path: shared-memory swizzle, cp.async into shared memory,
// ldmatrix from it, and mma.sync on the fragments (PTX ISA, "Warp-level
// matrix multiply-accumulate instructions").
namespace tilec {

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

// cp.async: copy BYTES (4, 8 or 16) from global to shared memory without
// passing through registers; when pred is false nothing is read and the
// destination is zero-filled (src-size 0), as Triton does for masked tails.
template <int BYTES>
__device__ __forceinline__ void cp_async(void *dst, const void *src, bool pred = true)
{
    const int src_size = pred ? BYTES : 0;
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(src_size)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_addr(dst)), "l"(src), "n"(BYTES),
                     "r"(src_size)
                     : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most N committed groups of this thread are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ldmatrix: N (1, 2 or 4) 8x8 matrices of 16-bit elements; lane l gives
// the address of row l % 8 of matrix l / 8, and register j of lane l
// receives row l / 4, elements 2 * (l % 4) and 2 * (l % 4) + 1 of matrix j
// (with .trans: column l / 4, rows 2 * (l % 4) and 2 * (l % 4) + 1).
template <int N, bool TRANS>
__device__ __forceinline__ void ldmatrix(uint32_t *r, const void *row)
{
    const uint32_t a = smem_addr(row);
    if (N == 4 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    else if (N == 4)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    else if (N == 2 && !TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    else if (N == 2)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
    else if (!TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(a));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(a));
}

// mma.sync: d (4 accumulators of one 16x8 tile) += a (16xK) * b (Kx8).
// a and b are the per-thread fragments in the PTX order; tf32 operands are
// fp32 bits whose low 13 mantissa bits the tensor core ignores.
__device__ __forceinline__ void mma_m16n8k16_f16(float *d, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k16_bf16(float *d, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k8_tf32(float *d, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_m16n8k32_s8(int32_t *d, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// fp16 accumulators: the same four elements, held as two pairs of halves.
__device__ __forceinline__ void mma_m16n8k16_f16_f16acc(uint32_t *c, const uint32_t *a, const uint32_t *b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
                 : "+r"(c[0]), "+r"(c[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// tf32x3: x = big + small, big the tf32 rounding of x (cvt.rna), small
// the rest, itself read as tf32; a*b ~ big*big + big*small + small*big.
__device__ __forceinline__ uint32_t tf32_big(uint32_t x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
    return r;
}

__device__ __forceinline__ uint32_t tf32_small(uint32_t x)
{
    return tf32_big(__float_as_uint(__uint_as_float(x) - __uint_as_float(tf32_big(x))));
}

// One 32-bit fragment register from elements a thread already holds (an
// accumulator feeding the next tl.dot): the first element in the low bits,
// as mma.sync reads a register of 16-bit (pack2) or 8-bit (pack4) elements.
template <typename T>
__device__ __forceinline__ uint32_t pack2(T lo, T hi)
{
    return (uint32_t)bitcast<uint16_t>(lo) | (uint32_t)bitcast<uint16_t>(hi) << 16;
}

// Two fp32 values rounded to fp16 (bf16) to the nearest even and packed by one
// cvt.rn.f16x2.f32 (cvt.rn.bf16x2.f32): p.to(tl.float16) feeding a tl.dot.
// Defined where the kernel includes cuda_fp16.h (cuda_bf16.h).
#ifdef __CUDA_FP16_H__
__device__ __forceinline__ uint32_t pack2_f16(float lo, float hi)
{
    return bitcast<uint32_t>(__floats2half2_rn(lo, hi));
}
#endif

#ifdef __CUDA_BF16_H__
__device__ __forceinline__ uint32_t pack2_bf16(float lo, float hi)
{
    return bitcast<uint32_t>(__floats2bfloat162_rn(lo, hi));
}
#endif

template <typename T>
__device__ __forceinline__ uint32_t pack4(T e0, T e1, T e2, T e3)
{
    return (uint32_t)bitcast<uint8_t>(e0) | (uint32_t)bitcast<uint8_t>(e1) << 8 | (uint32_t)bitcast<uint8_t>(e2) << 16 |
           (uint32_t)bitcast<uint8_t>(e3) << 24;
}

} // namespace tilec

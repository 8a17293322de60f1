// ---- tilec Hopper tensor-core helpers (templates/tilec_wgmma.cuh) -----------
// Included only by kernels with a tl.dot on wgmma (sm_90a; PTX ISA,
// "Asynchronous warpgroup level matrix multiply-accumulate").  A warpgroup is
// 4 consecutive warps, the first a multiple of 4; its 128 threads issue each
// wgmma together.  Operands are read from shared memory through 64-bit matrix
// descriptors, the accumulators stay in registers, and the instruction runs
// asynchronously: wgmma_fence before touching the accumulators with wgmma,
// wgmma_commit to close a group, wgmma_wait<N> until at most N groups remain.
// Shared memory a thread stores to (st.shared) is made visible to wgmma's
// async proxy by fence_proxy_async in each writer; cp.async copies are not
// fenced, as Triton fences only stores from registers (its FenceInsertion
// pass): the wait for the copies and the barrier after it come first.
// Everything here needs the architecture-specific target sm_90a
// (-gencode arch=compute_90a,code=sm_90a), which defines __CUDA_ARCH_FEAT_SM90_ALL.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
namespace tilec {

// A shared-memory matrix descriptor: start address >> 4 in bits 0-13, leading
// byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, base offset 0
// (every slot starts at a multiple of its swizzle pattern) in 49-51, swizzle
// mode in 62-63 (1: 128-byte, 2: 64-byte, 3: 32-byte).
template <int LBO, int SBO, int MODE>
__device__ __forceinline__ uint64_t wgmma_desc(const void *start)
{
    const uint64_t addr = smem_addr(start);
    return ((addr & 0x3FFFF) >> 4) | ((uint64_t)((LBO >> 4) & 0x3FFF) << 16) |
           ((uint64_t)((SBO >> 4) & 0x3FFF) << 32) | ((uint64_t)MODE << 62);
}

// The descriptor of the matrix `bytes` (a multiple of 16) further into shared
// memory: its start address field moves by bytes >> 4.
__device__ __forceinline__ uint64_t wgmma_desc_at(uint64_t desc, int bytes) { return desc + (uint64_t)(bytes >> 4); }

// Before the first wgmma of a step: orders this thread's earlier register
// accesses (the accumulators) before the warpgroup's wgmma reads them.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Pins N accumulator registers in place (an empty asm that reads and writes
// them): the compiler keeps them where the asynchronous wgmma writes them and
// moves no other instruction that touches them across this point.
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(float *d)
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}
template <int N>
__device__ __forceinline__ void wgmma_fence_operands(int32_t *d)  // s32 accumulators (int8 inputs)
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        asm volatile("" : "+r"(d[i])::"memory");
}

__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// Wait until at most N committed wgmma groups of the warpgroup are in flight.
template <int N>
__device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared memory this thread stored to becomes visible to the async proxy
// that wgmma reads through.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

} // namespace tilec
#endif

// ---- tilec TMA helpers (templates/tilec_tma.cuh) -----------------------------
// Included only by kernels that copy tensor-descriptor blocks with the Tensor
// Memory Accelerator (sm_90a; PTX ISA, "cp.async.bulk.tensor" and "mbarrier").
// The host encodes a tensor map per descriptor (the launcher below, or
// libtilec) and passes it by value as a __grid_constant__ parameter.  One
// thread starts each copy; the copy writes a box of the tensor into shared
// memory in the swizzle the map names (the one wgmma reads), zeros where the
// box leaves the tensor, and counts its bytes on an mbarrier.  Every thread
// that reads the slot waits for the barrier's phase to complete.
namespace tilec {

// A CUtensorMap: 128 opaque bytes, 64-byte aligned, encoded on the host.
struct alignas(64) TensorMap {
    unsigned long long opaque[16];
};

// Reads its arguments and does nothing: the TMA path leaves the cp.async
// path's pointers unread, and nvcc would warn that they are set but not used.
template <class... T>
__device__ __forceinline__ void unused(const T &...) {}

// A barrier of the consumer warps alone (warp specialisation): the first
// `threads` threads of the block meet at named barrier 1, while the producer
// warpgroup after them goes its own way.  Any target.
template <int threads>
__device__ __forceinline__ void consumer_sync()
{
    asm volatile("bar.sync 1, %0;\n" ::"n"(threads) : "memory");
}

} // namespace tilec

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
namespace tilec {

// A barrier in shared memory that completes a phase when `count` threads have
// arrived and every byte they announced has landed.
__device__ __forceinline__ void mbar_init(uint64_t *bar, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// Warp specialisation: the producer warpgroup hands registers back to the
// block's pool (setmaxnreg.dec) and the consumer warpgroups take them
// (setmaxnreg.inc); every warp of a warpgroup executes it together.
template <int regs>
__device__ __forceinline__ void setmaxnreg_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(regs));
}
template <int regs>
__device__ __forceinline__ void setmaxnreg_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(regs));
}

// Makes the initialised barriers visible to the copies (the async proxy).
__device__ __forceinline__ void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// Arrives on the barrier and announces `bytes` more to land in this phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}

// Arrives on the barrier (one of the arrivals its phase counts).
__device__ __forceinline__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}

// Waits until the barrier's phase of parity `parity` (0 or 1) has completed.
__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}

// Copies the box at element coordinates (col, row) of the map's 2-D tensor
// (col along the contiguous dimension) to dst, completing its bytes on bar.
__device__ __forceinline__ void tma_load_2d(void *dst, const TensorMap *map, int col, int row, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(smem_addr(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(smem_addr(bar))
                 : "memory");
}

// Makes this thread's writes to shared memory (st.shared) visible to the TMA
// engine, which reads through the async proxy.
__device__ __forceinline__ void tma_store_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Copies the box at src to element coordinates (col, row) of the map's 2-D
// tensor; the engine drops what lies past the tensor's edge.  One bulk group.
__device__ __forceinline__ void tma_store_2d(const TensorMap *map, const void *src, int col, int row)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];\n"
                 ::"l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(src)), "r"(col), "r"(row)
                 : "memory");
}

// Closes this thread's bulk group and waits until the engine has read every
// box of its groups out of shared memory (their writes to global memory go on;
// they are done by the kernel's end).
__device__ __forceinline__ void tma_store_wait_read()
{
    asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

} // namespace tilec
#endif

#ifndef __CUDACC_RTC__
namespace tilec {

// Encodes the map of a row-major 2-D tensor (rows x cols elements, both positive, of
// elem_bytes, rows `row_stride` elements apart) for copies of box_cols x
// box_rows boxes in the `swizzle`-byte shared-memory swizzle (128, 64 or 32),
// reading zeros out of bounds.  cuTensorMapEncodeTiled is a driver function:
// the runtime finds it, so that nothing links libcuda.
static inline cudaError_t encode_tensor_map(TensorMap *map, const void *base, int elem_bytes, long long rows,
                                            long long cols, long long row_stride, int box_cols, int box_rows,
                                            int swizzle)
{
    typedef int (*EncodeTiled)(void *, int, unsigned, void *, const unsigned long long *, const unsigned long long *,
                               const unsigned *, const unsigned *, int, int, int, int);
    if (rows <= 0 || cols <= 0)
        return cudaErrorInvalidValue;  // a TensorDescriptor's shape is positive
    static EncodeTiled encode = nullptr;
    if (!encode) {
        void *fn = nullptr;
#if CUDART_VERSION >= 12000
        cudaDriverEntryPointQueryResult found;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &found);
#endif
        if (e != cudaSuccess)
            return e;
        if (found != cudaDriverEntryPointSuccess || !fn)
            return cudaErrorNotSupported;  // a driver older than CUDA 12
#else
        return cudaErrorNotSupported;  // built with a CUDA 11 toolkit: no tensor maps
#endif
        encode = reinterpret_cast<EncodeTiled>(fn);
    }
    const int data_type = elem_bytes == 1 ? 0 : elem_bytes == 2 ? 1 : 2;  // CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32
    const unsigned long long dims[2] = {(unsigned long long)cols, (unsigned long long)rows};
    const unsigned long long strides[1] = {(unsigned long long)row_stride * (unsigned long long)elem_bytes};
    const unsigned box[2] = {(unsigned)box_cols, (unsigned)box_rows};
    const unsigned elem_strides[2] = {1, 1};
    const int swizzle_mode = swizzle == 128 ? 3 : swizzle == 64 ? 2 : 1;  // CU_TENSOR_MAP_SWIZZLE_128B/64B/32B
    // no interleave, L2 promotion of 256 bytes, zeros out of bounds
    const int rc = encode(map, data_type, 2, const_cast<void *>(base), dims, strides, box, elem_strides, 0,
                          swizzle_mode, 3, 0);
    return rc == 0 ? cudaSuccess : cudaErrorInvalidValue;
}

} // namespace tilec
#endif

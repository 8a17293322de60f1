// ---- tilec masked cp.async (templates/tilec_tensorcore_masked.cuh) ---------
// Included only by kernels that stage a dot operand with cp.async under a mask
// known only at run time (a K tail when K need not be a multiple of 16).
namespace tilec {

// One BYTES-byte cp.async of V elements when pred holds and all V mask bits
// are set (or none is: then it only zero-fills); otherwise element by
// element, each read from src where in bounds and 0 elsewhere, stored to
// shared memory directly (cp.async has no copies smaller than 4 bytes).
template <int BYTES, int V>
__device__ __forceinline__ void cp_async_masked_vec(void *dst, const void *src, const bool *in_bounds, bool pred)
{
    typedef typename Word<BYTES / V>::T E;  // one element's bits
    static_assert(BYTES / V == sizeof(E), "elements of 1, 2 or 4 bytes");
    bool all = true, any = false;
#pragma unroll
    for (int j = 0; j < V; ++j) {
        all &= in_bounds[j];
        any |= in_bounds[j];
    }
    if (!pred || all || !any) {
        cp_async<BYTES>(dst, src, pred && all);
        return;
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
        static_cast<E *>(dst)[j] = in_bounds[j] ? static_cast<const E *>(src)[j] : E(0);
}

} // namespace tilec
// ---- end of tilec masked cp.async ----------------------------------------------

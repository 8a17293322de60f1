// ---- tilec masked vector helpers (templates/tilec_runtime_masked.cuh) ------
// Included only by kernels with a load or store whose pointers allow one
// vector per V elements but whose mask is known only at run time (it compares
// offsets with a size that need not be a multiple of 16).  The V mask bits are
// tested together: a vector whose elements are all in bounds (every vector
// but those at the edge) is one wide access; the others go element by
// element, so that no masked-off address is ever read or written.
namespace tilec {

// Are all V mask bits set?
template <int V>
__device__ __forceinline__ bool all_of(const bool *in_bounds)
{
    bool all = true;
#pragma unroll
    for (int j = 0; j < V; ++j)
        all &= in_bounds[j];
    return all;
}

// dst[j] = in_bounds[j] ? src[j] : other, for j in [0, V): one V-element
// vector load when every bit is set, else one load per element in bounds.
// No branch: the vector load is predicated on all bits, the element loads on
// their own bit and not all (so only one of the two ever runs), and each
// leaves its registers as they were when it does not run, so that the loads
// of a tile still issue back to back (see load above).
template <int V, typename T>
__device__ __forceinline__ void load_masked_vec(T *dst, const T *src, const bool *in_bounds, T other)
{
    const bool all = all_of<V>(in_bounds);
    load<V>(dst, src, all, other);
#pragma unroll
    for (int j = 0; j < V; ++j)
        load<1>(&dst[j], src + j, in_bounds[j] && !all, dst[j]);
}

// dst[j] = src[j] where pred && in_bounds[j], for j in [0, V): one V-element
// vector store when every bit is set, else one store per element in bounds.
template <int V, typename T>
__device__ __forceinline__ void store_masked_vec(T *dst, const T *src, const bool *in_bounds, bool pred = true)
{
    if (!pred)
        return;
    if (all_of<V>(in_bounds)) {
        store_global<V>(dst, src);
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
            if (in_bounds[j])
                dst[j] = src[j];
    }
}

} // namespace tilec
// ---- end of tilec masked vector helpers --------------------------------------

// ---- tilec sorting helpers (templates/tilec_runtime_sort.cuh) ---------------
// tl.sort is a bitonic sorting network along the tile's last dimension, as in
// Triton.  Stage s (1, 2, .. log2 n) merges runs of 2^s positions; its steps
// pair each position p with p ^ 2^j for j = s-1 down to 0.  In a step an
// element takes its partner's value when
//     (mine > partner) != (flip ^ right)
// where `right` is bit j of its position and `flip` says its run is ordered
// descending: bit s of the position in the stages that merge alternately,
// the sort's direction in the last one.  That is Triton's comparator exactly,
// so ties and NaNs come out as Triton's do (a NaN compares false).
//
// Each step exchanges data where the two positions live: both in one
// thread's registers (bitonic_in_thread), in two lanes of one warp
// (bitonic_across_lanes: __shfl_xor_sync), or in two warps
// (bitonic_across_warps: through shared memory).  pos[e] is register e's
// position along the sorted dimension, slot[e] its row-major index in the
// whole tile; every argument but the arrays is a constant, so the compiler
// unrolls each step to straight-line code.
namespace tilec {

// The value the element keeps: its own or its partner's.
template <typename T>
__device__ __forceinline__ T bitonic_pick(T mine, T partner, bool flip_right)
{
    return (mine > partner) != flip_right ? partner : mine;
}

// Is the run of position `pos` ordered descending?  flip_bit < 0: every run
// goes `desc`.
__device__ __forceinline__ bool bitonic_flip(int pos, int flip_bit, bool desc)
{
    return flip_bit < 0 ? desc : ((pos >> flip_bit) & 1) != 0;
}

// Partners in one thread: registers e and e | 2^rbit.
template <int N, typename T>
__device__ __forceinline__ void bitonic_in_thread(T (&v)[N], const int (&pos)[N], int rbit, int flip_bit, bool desc)
{
#pragma unroll
    for (int e = 0; e < N; ++e) {
        if (e & (1 << rbit))
            continue;
        const int f = e | (1 << rbit);
        const bool flip = bitonic_flip(pos[e], flip_bit, desc);
        const T left = v[e], right = v[f];
        v[e] = bitonic_pick(left, right, flip);
        v[f] = bitonic_pick(right, left, !flip);
    }
}

// Partners in lanes `lane ^ lane_mask` of one warp: one shuffle per register.
template <int N, typename T>
__device__ __forceinline__ void bitonic_across_lanes(T (&v)[N], const int (&pos)[N], int j, int lane_mask, int flip_bit,
                                                     bool desc)
{
#pragma unroll
    for (int e = 0; e < N; ++e) {
        const T partner = shfl_xor(v[e], lane_mask);
        const bool right = ((pos[e] >> j) & 1) != 0;
        v[e] = bitonic_pick(v[e], partner, bitonic_flip(pos[e], flip_bit, desc) != right);
    }
}

// Partners in other warps: every thread writes its elements to the tile in
// shared memory and reads its partners' (threads that hold copies of an
// element write the same value).  Barriers before the reads and after them.
template <int N, typename T>
__device__ __forceinline__ void bitonic_across_warps(T (&v)[N], const int (&pos)[N], const int (&slot)[N], T *tile, int j,
                                                     int flip_bit, bool desc)
{
#pragma unroll
    for (int e = 0; e < N; ++e)
        tile[slot[e]] = v[e];
    __syncthreads();
#pragma unroll
    for (int e = 0; e < N; ++e) {
        const T partner = tile[slot[e] ^ (1 << j)];
        const bool right = ((pos[e] >> j) & 1) != 0;
        v[e] = bitonic_pick(v[e], partner, bitonic_flip(pos[e], flip_bit, desc) != right);
    }
    __syncthreads();
}

// tl.topk halves the tile between merges: positions p and p ^ 2^j both keep
// max(the one whose bit j is 0, the one whose bit j is 1), with Triton's
// maximum (`max`: NaN-ignoring for floats), after which the tile holds every
// value twice.  The same three ways of reaching the partner.
template <int N, typename T, typename Max>
__device__ __forceinline__ void topk_max_in_thread(T (&v)[N], int rbit, Max max)
{
#pragma unroll
    for (int e = 0; e < N; ++e) {
        if (e & (1 << rbit))
            continue;
        const int f = e | (1 << rbit);
        v[e] = v[f] = max(v[e], v[f]);
    }
}

template <int N, typename T, typename Max>
__device__ __forceinline__ void topk_max_across_lanes(T (&v)[N], const int (&pos)[N], int j, int lane_mask, Max max)
{
#pragma unroll
    for (int e = 0; e < N; ++e) {
        const T partner = shfl_xor(v[e], lane_mask);
        v[e] = ((pos[e] >> j) & 1) ? max(partner, v[e]) : max(v[e], partner);
    }
}

template <int N, typename T, typename Max>
__device__ __forceinline__ void topk_max_across_warps(T (&v)[N], const int (&pos)[N], const int (&slot)[N], T *tile, int j,
                                                      Max max)
{
#pragma unroll
    for (int e = 0; e < N; ++e)
        tile[slot[e]] = v[e];
    __syncthreads();
#pragma unroll
    for (int e = 0; e < N; ++e) {
        const T partner = tile[slot[e] ^ (1 << j)];
        v[e] = ((pos[e] >> j) & 1) ? max(partner, v[e]) : max(v[e], partner);
    }
    __syncthreads();
}

} // namespace tilec
// ---- end of tilec sorting helpers ----------------------------------------------

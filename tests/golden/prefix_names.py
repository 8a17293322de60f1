# Names that start as C, CUDA or the generated file's own names do (__x, tilec..., atom_...,
# mma_..., L0...): adding '_' can never free them, so the .cu calls each v_ and the rest of
# the name without its leading underscores (__x_ptr -> v_x_ptr, tilec_n -> v_tilec_n, L1 ->
# v_L1), parameters and locals alike; a clash then takes a suffix as any other name does.
# Such names once made tilec loop for ever.
import triton
import triton.language as tl


@triton.jit
def prefix_names_kernel(__x_ptr, tilec_out, atom_n, mma_scale, L0_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < atom_n
    __t = tl.load(__x_ptr + offs, mask=mask)
    tilec_t = __t * mma_scale
    atom_t = tilec_t + tl.load(L0_ptr + offs, mask=mask)
    L1 = atom_t * 2.0
    v_L1 = L1 + 1.0
    tl.store(tilec_out + offs, v_L1, mask=mask)

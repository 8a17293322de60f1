/*
 * wgmma.c — the Hopper tensor-core path of tl.dot (wgmma.mma_async, sm_90a):
 * where its accumulator layout applies, the NVMMA shared-memory layout of its
 * operands and the matrix descriptors that describe that layout to wgmma.
 *
 * Accumulator.  A warpgroup (4 consecutive warps, the first a multiple of 4)
 * issues m64nNk16: warp w of the group owns 16 of the 64 rows, lane l rows
 * l/4 and l/4 + 8 of them, columns 8*i + 2*(l%4) + {0,1} for i < N/8, in the
 * registers 4*i + {0,1} (first row) and 4*i + {2,3} (second).  With every warp
 * along M (Triton's warpsPerTileV3 when M >= 16 * num_warps) and one
 * instruction spanning all of N, that is exactly mma.sync's accumulator map
 * (layout_map.c, map_mma) with warpsPerCTA [num_warps, 1]: warp w holds rows
 * 16*w + 16*num_warps*r, repetition r being the r-th m64 instruction of its
 * warpgroup.  So the layout is the mma kind with mma_version 3, and the epilogue
 * reads it through the same map.
 *
 * Operands.  A [M,K] with K contiguous and B [K,N] with N contiguous are
 * staged in Triton's NVMMA layout: rows of `cols` elements are cut into
 * column blocks `swizzle` bytes wide (128, 64 or 32: the largest dividing the
 * row's bytes); a block holds every row, `swizzle` bytes each, one block
 * after another; inside a block the 16-byte chunk c of row r is stored at
 * chunk c ^ ((r / perPhase) % maxPhase), perPhase = 128 / swizzle, maxPhase =
 * swizzle / 16, a pattern that repeats every 8 rows (8 * swizzle bytes).  The
 * hardware applies that XOR to address bits 4.. from bits 7.., so a slot must
 * start at a multiple of 8 * swizzle bytes.
 */
#include "tir.h"

/* The wgmma input types, as PTX names them (NULL: none): fp16 and bf16
 * (k16), fp32 read as tf32 (k8), fp8 e4m3 and e5m2, which may be mixed
 * (k32), int8 (k32). */
const char *wgmma_type_name(DType d)
{
    switch (d) {
    case DT_FP16: return "f16";
    case DT_BF16: return "bf16";
    case DT_FP32: return "tf32";
    case DT_FP8E4NV: return "e4m3";
    case DT_FP8E5: return "e5m2";
    case DT_I8: return "s8";
    default: return NULL;
    }
}

/* K of one wgmma: 32 bytes of each row of A and column of B. */
int wgmma_instr_k(DType in) { return 256 / dtype_bits(in); }

/* The accumulator a wgmma of inputs `in` writes: s32 for int8, else fp32
 * (fp16 accumulators keep mma.sync). */
static bool wgmma_acc_fits(DType in, DType out)
{
    return out == (in == DT_I8 ? DT_I32 : DT_FP32);
}

/* Triton's warpsPerTileV3 gives [num_warps, 1] and its instrShape N the
 * whole of N: M >= 16 * num_warps (and at least one m64), N a multiple of 8
 * up to 256 (of 16 above 32 for int8: PTX has no m64n40k32.s8). */
bool layout_wgmma_fits(const TirFunc *f, DType in, DType out, const int *shape)
{
    int nw = f->num_warps, n = shape[1];
    if (f->arch < 90 || !wgmma_type_name(in) || !wgmma_acc_fits(in, out) || nw % 4)
        return false;
    if (in == DT_I8 && n > 32 && n % 16)
        return false;
    return shape[0] >= 16 * nw && shape[0] >= 64 && n % 8 == 0 && n <= 256;
}

/* NVMMASharedEncoding's swizzle width for rows of `cols` elements: the largest
 * of 128, 64, 32 bytes dividing the row (0: none; a tile of fewer than 8 rows
 * has none either). */
int dot_nvmma_swizzle(const DotStage *s)
{
    int bytes = s->cols * dtype_bits(s->dtype) / 8;
    if (s->rows < 8)
        return 0;
    for (int w = 128; w >= 32; w /= 2)
        if (bytes >= w && bytes % w == 0)
            return w;
    return 0;
}

int dot_nvmma_offset(const DotStage *s, int row, int col)
{
    int eb = dtype_bits(s->dtype) / 8, w = s->nvmma;
    int per_row = w / eb; /* elements of one row in a column block */
    int block = col / per_row, in_block = (col % per_row) * eb;
    int chunk = (in_block / 16) ^ ((row / (128 / w)) % (w / 16));
    return block * s->rows * w + row * w + chunk * 16 + in_block % 16;
}

int dot_stage_align(const DotStage *s) { return s->nvmma ? 8 * s->nvmma : 16; }

SmemSwizzle dot_nvmma_swizzle_pattern(const DotStage *s)
{
    return (SmemSwizzle){128 / dtype_bits(s->dtype), 128 / s->nvmma, s->nvmma / 16};
}

/* K-major (A with K contiguous): 8-row core-matrix groups `sbo` apart, each
 * row `swizzle` bytes; the leading offset is unused (1 by convention).
 * MN-major (B with N contiguous): K rows `swizzle` bytes apart, 8-row groups
 * of K `sbo` apart, column blocks of N `lbo` apart. */
WgmmaDesc dot_wgmma_desc(const DotStage *s)
{
    int kdim = s->op_idx == 0 ? 1 : 0;
    WgmmaDesc d = {.sbo = 8 * s->nvmma, .mode = s->nvmma == 128 ? 1 : s->nvmma == 64 ? 2 : 3};
    d.lbo = s->contig_dim == kdim ? 16 : s->rows * s->nvmma;
    return d;
}

/* Will tir_pipeline put operand x (perhaps through a transpose) in a cp.async ring of 16-byte copies along
 * its dim `dim`?  The layouts come first, so this asks the axis info what
 * the ring asks the layouts: a 2-D load in a loop, read only by the dot,
 * aligned per 16 bytes along `dim`, zeros where masked (a mask not constant
 * over 16 bytes along dim 1 is tested at run time, cp_async_masked_vec).  A dot
 * whose operands will not be in rings keeps mma.sync's layout (Triton's v2
 * warps): [num_warps, 1] on the register path holds too much per warp. */
static bool ring_operand(const Value *x, int dim)
{
    const Op *ld = x->def;
    if (ld && ld->kind == OP_TRANS && x->type.rank == 2 && x->nuses == 1) {
        /* a load turned round on its way (B stored [N, K]): the ring holds the
         * tile as loaded, so its dims swap */
        x = ld->args[0];
        ld = x->def;
        dim = 1 - dim;
    }
    if (!ld || ld->kind != OP_LOAD || x->nuses != 1 || x->type.rank != 2 || ld->load.is_volatile ||
        !ld->parent || !ld->parent->parent || ld->parent->parent->kind != OP_FOR)
        return false;
    if (ld->load.has_other && !tir_is_zero_splat(ld->args[2]))
        return false;
    const Value *ptr = ld->args[0], *mask = ld->load.has_mask ? ld->args[1] : NULL;
    int eb = dtype_bits(x->type.dtype) / 8, chunk = 16 / eb;
    /* a mask not constant over 16 bytes along a row (dim 1: A's K, a row-major
     * B's N) is tested at run time, cp_async_masked_vec; a K-major B (dim 0)
     * still needs it proven */
    return ptr->ax.contiguity[dim] >= chunk && ptr->ax.divisibility[dim] >= 16 &&
           (!mask || dim == 1 || mask->ax.constancy[dim] >= chunk);
}

/* wgmma reads A K-major (K contiguous) and B either way for 16-bit types
 * (tnspB), K-major only for tf32, fp8 and int8 (PTX: no transpose for
 * them; a row-major B of those keeps mma.sync: Triton transposes it on the
 * way into shared memory, with 4-byte copies or through registers). */
/* The input and accumulator types, the precision and the shape of a 2-D
 * dot that wgmma takes (its operands' place and its layout aside). */
static bool wgmma_types_fit(const TirFunc *f, const Op *dot)
{
    const Value *r = dot->results[0];
    DType in = dot->args[0]->type.dtype, inb = dot->args[1]->type.dtype;
    bool fp8_pair = dtype_bits(in) == 8 && in != DT_I8 && dtype_bits(inb) == 8 && inb != DT_I8;
    if (r->type.rank != 2 || !layout_wgmma_fits(f, in, r->type.dtype, r->type.shape) || (inb != in && !fp8_pair))
        return false;
    return !(in == DT_FP32 && dot->dot.precision != DOT_TF32) && dot->args[0]->type.shape[1] % wgmma_instr_k(in) == 0;
}

static bool ring_candidate(const TirFunc *f, const Op *dot)
{
    DType in = dot->args[0]->type.dtype;
    if (!wgmma_types_fit(f, dot) || !ring_operand(dot->args[0], 1))
        return false;
    return ring_operand(dot->args[1], 0) || (dtype_bits(in) == 16 && ring_operand(dot->args[1], 1));
}

/* The dot whose result dot accumulates onto, directly or through the results
 * of the loops that carry it, or NULL. */
static const Op *accumulated_dot(const Op *dot)
{
    const Value *acc = dot->args[2];
    while (acc && acc->def) { /* each step goes into the loop that made acc: it ends */
        const Op *d = acc->def;
        if (d->kind == OP_DOT)
            return d;
        if (d->kind != OP_FOR)
            return NULL;
        int k = 0;
        while (k < d->nres && d->results[k] != acc)
            k++;
        const Op *y = tir_block_last(d->regions[0]);
        if (k == d->nres || !y || y->kind != OP_YIELD || k >= y->nargs)
            return NULL;
        acc = y->args[k];
    }
    return NULL;
}

/* A dot takes the wgmma layout where its operands will be in rings, and
 * where it adds onto the result of such a dot: a K loop's tail peeled after
 * the loop (FlagGems' mm: acc += tl.dot(a, b) on masked loads).  Triton
 * gives that tail the loop's wgmma encoding, as it gives every 2-D dot on
 * Hopper that wgmma's shapes allow; with mma.sync's own warps instead it
 * would first move the accumulator through shared memory.  Its operands,
 * loaded into registers, go to NVMMA buffers that the dot reads in place
 * (dot_reload.c), so it runs on wgmma as well. */
bool dot_wgmma_candidate(const TirFunc *f, const Op *dot)
{
    if (ring_candidate(f, dot))
        return true;
    const Op *src = accumulated_dot(dot);
    return src && src != dot && wgmma_types_fit(f, dot) && ring_candidate(f, src);
}

/* Does the accumulator layout acc hold a dot's result in the wgmma map?  A
 * layout chosen for wgmma (mma_version 3), or an mma.sync one with every
 * warp along M whose shape wgmma's instructions tile: the two maps are the
 * same (the head of this file), so such a dot (attention's two, placed for
 * the chain between them) may run on wgmma too. */
bool wgmma_acc_layout(const TirFunc *f, const Layout *acc)
{
    if (!f || !acc || acc->kind != LAYOUT_MMA || acc->rank != 2 || f->arch < 90 || f->num_warps % 4)
        return false;
    if (acc->mma_version == 3)
        return true;
    int nw = f->num_warps, m = acc->shape[0], n = acc->shape[1];
    return acc->wpc[0] == nw && acc->wpc[1] == 1 && m >= 64 && m % (16 * nw) == 0 && n % 8 == 0 && n <= 256;
}

/* Operand k of dot d as wgmma can read it: a buffer in the NVMMA layout that
 * the dot reads in place (a pipeline ring or a loop-invariant operand's
 * buffer), K-major or a 16-bit B with N contiguous; or, for A, 16-bit
 * fragments this thread already holds (dot_operand_in_registers: the
 * accumulator of the dot before it), which wgmma takes from registers. */
static bool wgmma_reads(const Op *d, int k)
{
    const Value *v = d->args[k];
    const Op *def = v->def;
    if (!def || v->nuses != 1)
        return false;
    if (def->kind == OP_LOCAL_LOAD && def->stage && def->stage->nvmma && def->parent == d->parent) {
        const DotStage *s = def->stage;
        return s->contig_dim == (k == 0 ? 1 : 0) || (k == 1 && dtype_bits(s->dtype) == 16);
    }
    return k == 0 && dot_operand_in_registers(def) && dtype_bits(v->type.dtype) == 16;
}

/* Do dot d's types, shape and accumulator layout allow wgmma (its operands
 * aside)? */
bool wgmma_dot_fits(const TirFunc *f, const Op *d)
{
    return d->kind == OP_DOT && dot_uses_mma(d) && wgmma_types_fit(f, d) && wgmma_acc_layout(f, d->results[0]->layout);
}

/* May dot d (not marked by tir_pipeline) run on wgmma? */
static bool wgmma_dot(const TirFunc *f, const Op *d)
{
    return !d->dot.wgmma && wgmma_dot_fits(f, d) && wgmma_reads(d, 0) && wgmma_reads(d, 1);
}

/* The index of v among the uses of op, or -1 (or -2: used twice). */
static int use_index(const Op *op, const Value *v)
{
    int k = -1;
    for (int i = 0; i < op->nargs; i++)
        if (op->args[i] == v)
            k = k < 0 ? i : -2;
    return k;
}

/* Dot d (op i of loop body b, just marked) may leave its group in flight
 * past the end of the iteration, as Triton leaves attention's p @ v: its
 * result goes only to the yield, and in the next iteration the accumulator
 * is first read after an earlier wgmma dot of the body has waited for every
 * group (wgmma_pending 0), which waits for this one as well.  Its rings
 * need the spare slot tir_pipeline gave them (pipeline_loop: the copies of
 * the next iteration go to the slot of the one before, not to this one's);
 * the loop waits for the last group after its end (for_.wgmma_drain). */
static bool defer_wait(const TirFunc *f, const Block *b, int i, const Op *d)
{
    const Op *y = tir_block_last(b), *loop = b->parent;
    const Value *r = d->results[0];
    if (!loop || loop->kind != OP_FOR || !y || y->kind != OP_YIELD || r->nuses != 1 || use_index(y, r) < 0)
        return false;
    for (int k = 0; k < 2; k++) {
        const Op *ll = d->args[k]->def;
        if (ll->kind == OP_LOCAL_LOAD && ll->nargs && ll->stage->nslots <= f->num_stages)
            return false;
    }
    const Value *carried = b->args.data[use_index(y, r) + 1];
    for (int j = 0; j < i; j++) {
        const Op *op = b->ops.data[j];
        if (tir_op_reads(op, carried))
            return false;
        if (op->kind == OP_DOT && op->dot.wgmma && !op->dot.wgmma_pending)
            return true;
    }
    return false;
}

static void mark_block(TirFunc *f, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            mark_block(f, op->regions[r]);
        if (op->kind != OP_DOT || !wgmma_dot(f, op))
            continue;
        op->dot.wgmma = true;
        op->dot.wgmma_pending = 0; /* the dot waits for its own group: its result is read next */
        f->uses_wgmma = true;
        if (defer_wait(f, b, i, op)) {
            op->dot.wgmma_next = true;
            b->parent->for_.wgmma_drain = true;
        }
    }
}

void tir_wgmma(Ctx *ctx, TirFunc *f)
{
    (void)ctx;
    if (f->uses_dot && f->arch >= 90)
        mark_block(f, f->body);
}

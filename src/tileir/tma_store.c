/*
 * tma_store.c — a tensor descriptor's block store through TMA (tir_tma_store).
 *
 * Under --arch sm_90, desc.store(offsets, tile) of a 2-D tensordesc parameter
 * goes out as Triton's Hopper path sends it: the threads write the tile into
 * a staging buffer in shared memory, in the swizzle the descriptor's tensor
 * map names, and one thread hands the buffer to the Tensor Memory Accelerator
 * (cp.async.bulk.tensor), which writes the block to global memory and drops
 * what lies past the tensor's edge.  The threads compute no addresses and no
 * masks, and a tile in a wgmma accumulator needs no exchange to a store
 * layout first.  The emitter (tma.c) keeps the pointer store for the file's
 * other targets; where a row of the tensor does not end on a 16-byte chunk
 * (the engine would write past its edge) the threads store the staged block
 * element by element instead.
 *
 * The staging buffer is a DotStage of one slot in Triton's NVMMA layout
 * (column blocks of the swizzle's width), the box of the map one such block:
 * the widest of 128, 64 or 32 bytes that divides the block's row, by all its
 * rows (at most 256).  A descriptor has one map in a kernel, so a store whose
 * box differs from the one its descriptor's loads copy keeps the pointer
 * store.  tir_smem places the buffer like an exchange's: its life ends with
 * the store, whose thread waits until the engine has read the buffer.
 */
#include "tir.h"

/* The box, and the staging buffer, of store op's block; false where TMA cannot take it. */
static bool tma_store_box(Arena *a, const Op *op, TmaMap *m, DotStage **stage)
{
    const Value *v = op->args[1];
    Type t = v->type;
    int bits = dtype_bits(t.dtype);
    if (t.rank != 2 || t.dtype == DT_I1 || dtype_is_fp8(t.dtype) || (bits != 8 && bits != 16 && bits != 32) ||
        t.shape[0] > 256)
        return false;
    DotStage *s = NEW(a, DotStage);
    *s = (DotStage){.op_idx = 0, .rows = t.shape[0], .cols = t.shape[1], .batch = 1, .contig_dim = 1, .dtype = t.dtype,
                    .nslots = 1};
    s->nvmma = dot_nvmma_swizzle(s);
    if (!s->nvmma)
        return false;
    s->swz = dot_nvmma_swizzle_pattern(s);
    *m = (TmaMap){.param = op->store.desc_param - 1, .box_cols = s->nvmma * 8 / bits, .box_rows = s->rows,
                  .swizzle = s->nvmma};
    *stage = s;
    return true;
}

static void visit(Ctx *ctx, TirFunc *f, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            visit(ctx, f, op->regions[r]);
        if (op->kind != OP_STORE || !op->store.desc_param)
            continue;
        TmaMap m;
        DotStage *s;
        if (!tma_store_box(&ctx->arena, op, &m, &s))
            continue;
        int k = tir_tma_map_index(f, m.param);
        if (k >= 0) {
            if (!tir_tma_same_box(&f->tma_maps.data[k], &m))
                continue; 
/* the descriptor's loads copy boxes of another shape */
        } else {
            m.name = arena_printf(&ctx->arena, "%s_tma", f->params.data[m.param].desc_name);
            vec_push(&ctx->arena, &f->tma_maps, m);
            k = f->tma_maps.len - 1;
        }
        op->stage = s;
        op->store.tma_map = k + 1;
    }
}

void tir_tma_store(Ctx *ctx, TirFunc *f)
{
    if (f->arch >= 90)
        visit(ctx, f, f->body);
}

/* Does TMA store st read v only as its pointers or its mask (the operands
 * only its pointer path, the fallback, reads)? */
static bool read_as_address(const Op *st, const Value *v)
{
    for (int k = 0; k < st->nargs; k++)
        if (st->args[k] == v && (k == 1 || k >= st->nargs - 2))
            return false;
    return true;
}

/* Is op, before TMA store st in their block, read by nothing but ops in
 * `owned` and st's address operands (or, a layout change, by st as its
 * value)?  Then only st's pointer path needs it. */
static bool only_for_pointer_path(const Op *op, const Op *st, const OpVec *owned)
{
    if (!op_is_pure(op->kind) || op->nregions || !op->nres)
        return false;
    const Block *b = op->parent;
    int at = 0;
    while (b->ops.data[at] != op)
        at++;
    for (int r = 0; r < op->nres; r++) {
        const Value *v = op->results[r];
        for (int i = at + 1; i < b->ops.len; i++) {
            const Op *u = b->ops.data[i];
            if (!tir_op_reads(u, v))
                continue;
            if (u->kind == OP_CONVERT && u->nres == 1 && u->results[0] == st->args[1])
                return false; /* the tile before its layout change: the TMA path stages it */
            if (opvec_has(owned, u))
                continue;
            if (u != st)
                return false;
            bool value_conv = op->kind == OP_CONVERT && st->args[1] == v && !is_dot_stage(op) &&
                              !dot_operand_in_registers(op);
            if (!value_conv && !read_as_address(st, v))
                return false;
        }
    }
    return true;
}

/* The ops before TMA store st, in its block, that only its pointer path
 * reads (the pointer arithmetic, the mask, the exchange to the store's
 * layout), in program order: the emitter prints them inside that path's
 * block (the #else of sm_90a) instead of before the store, so that under
 * sm_90a they do not run; tir_smem places their exchanges knowing it. */
OpVec tir_tma_pointer_path(Arena *a, const Op *st)
{
    OpVec owned = {0};
    const Block *b = st->parent;
    int at = 0;
    while (b->ops.data[at] != st)
        at++;
    for (int i = at - 1; i >= 0; i--)
        if (only_for_pointer_path(b->ops.data[i], st, &owned))
            vec_push(a, &owned, b->ops.data[i]);
    for (int i = 0, j = owned.len - 1; i < j; i++, j--) { /* program order */
        Op *t = owned.data[i];
        owned.data[i] = owned.data[j];
        owned.data[j] = t;
    }
    return owned;
}

/*
 * tma.c — the TMA path of a pipelined loop's rings (sm_90a): the tensor-map
 * parameters, the slots' barriers, the copies one thread starts, the waits,
 * and the launcher's encoding of the maps.  The cp.async path stays beside it
 * under #else, for the file's other targets.  Also a descriptor's block
 * store by TMA (tma_store.c), with the pointer store as its fallback.
 */
#include "emit_internal.h"

#define FEAT_SM90A "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)"


/* Names for the maps, the barriers and the phase words, taken before the body's. */
void tma_names(Emitter *E)
{
    const TirFunc *f = E->f;
    E->tma_map_names = NEW_ARRAY(E->a, const char *, f->tma_maps.len + 1);
    for (int i = 0; i < f->tma_maps.len; i++)
        E->tma_map_names[i] = unique_name(E, f->tma_maps.data[i].name);
    E->ring_bar_names = NEW_ARRAY(E->a, const char *, f->tma_rings.len + 1);
    E->ring_phase_names = NEW_ARRAY(E->a, const char *, f->tma_rings.len + 1);
    E->ring_free_names = NEW_ARRAY(E->a, const char *, f->tma_rings.len + 1);
    E->ring_free_phase_names = NEW_ARRAY(E->a, const char *, f->tma_rings.len + 1);
    E->ring_held_names = NEW_ARRAY(E->a, const char *, f->tma_rings.len + 1);
    E->ring_held_used = NEW_ARRAY(E->a, bool, f->tma_rings.len + 1);
    for (int i = 0; i < f->tma_rings.len; i++) {
        if (f->tma_rings.data[i].producer)
            E->ring_held_names[i] = unique_name(E, "held_slot");
        E->ring_bar_names[i] = unique_name(E, "ring_full");
        E->ring_phase_names[i] = unique_name(E, "full_phase");
        E->ring_free_names[i] = unique_name(E, "ring_free");
        E->ring_free_phase_names[i] = unique_name(E, "free_phase");
    }
}

/* The maps in the kernel's signature, after its other parameters. */
void tma_params(Emitter *E, StrBuf *out, int *n)
{
    for (int i = 0; i < E->f->tma_maps.len; i++)
        sb_printf(out, "%sconst __grid_constant__ tilec::TensorMap %s", (*n)++ ? ", " : "", E->tma_map_names[i]);
}

/* The header's words on each map. */
void tma_describe(Emitter *E)
{
    const TirFunc *f = E->f;
    if (!f->tma_maps.len)
        return;
    sb_puts(E->out, "//\n// TMA (sm_90a): the launcher encodes a tensor map per descriptor below and passes it\n"
                    "// as a __grid_constant__ parameter after the others; one thread copies each block\n"
                    "// a loop loads into its ring slot, and every thread waits on the slot's barrier; a\n"
                    "// block a descriptor stores goes out the same way from a staging buffer:\n");
    for (int i = 0; i < f->tma_maps.len; i++) {
        const TmaMap *m = &f->tma_maps.data[i];
        sb_printf(E->out, "//   %-16s %s's blocks, in boxes of %d rows x %d elements (%d bytes: the %d-byte\n"
                  "//   %-16s swizzle, 16-byte chunk c of row r at c ^ (r %% %d)%s)\n",
                  E->tma_map_names[i], f->params.data[m->param].desc_name, m->box_rows, m->box_cols, m->swizzle,
                  m->swizzle, "", m->swizzle / 16, m->swizzle == 128 ? "" : m->swizzle == 64 ? " after r / 2" : " after r / 4");
    }
}

/* At the kernel's top: the barriers, two per slot of each TMA ring, and the
 * phase words (bit s: the parity of the phase of slot s waited for next). */
void tma_setup(Emitter *E, StrBuf *out)
{
    const TirFunc *f = E->f;
    if (!f->tma_rings.len)
        return;
    bool free_bars = tir_tma_free_barriers(f);
    sb_printf(out, FEAT_SM90A "  // sm_90a: the TMA rings' barriers\n");
    for (int i = 0; i < f->tma_rings.len; i++) {
        const TmaRing *r = &f->tma_rings.data[i];
        sb_printf(out, "    uint64_t *const %s = reinterpret_cast<uint64_t *>(smem + %d);  // slot s's copies landed\n",
                  E->ring_bar_names[i], r->smem_offset);
        if (r->producer) {
            sb_printf(out, "    uint64_t *const %s = %s + %d;  // every consumer warp is done reading slot s\n",
                      E->ring_free_names[i], E->ring_bar_names[i], r->nslots);
            sb_printf(out, "    uint32_t %s = 0;  // bit s: the parity of slot s's next full phase (the consumers')\n",
                      E->ring_phase_names[i]);
            sb_printf(out, "    uint32_t %s = 0xffffffffu;  // bit s: the parity of slot s's next free phase (the producer's; "
                           "a slot's first fill waits for nothing)\n",
                      E->ring_free_phase_names[i]);
            if (E->ring_held_used[i])
                sb_printf(out, "    int32_t %s = -1;  // the slot a consumer's wgmma group in flight still reads (-1: none)\n",
                          E->ring_held_names[i]);
        } else if (free_bars) {
            sb_printf(out, "    uint64_t *const %s = %s + %d;  // every warp is done reading slot s\n", E->ring_free_names[i],
                      E->ring_bar_names[i], r->nslots);
            sb_printf(out, "    uint32_t %s = 0, %s = 0;  // bit s: the parity of slot s's next phase of each\n",
                      E->ring_phase_names[i], E->ring_free_phase_names[i]);
        } else {
            sb_printf(out, "    uint32_t %s = 0;  // bit s: the parity of slot s's next phase\n", E->ring_phase_names[i]);
        }
    }
    sb_puts(out, "    if (threadIdx.x == 0) {\n");
    for (int i = 0; i < f->tma_rings.len; i++) {
        const TmaRing *r = &f->tma_rings.data[i];
        sb_printf(out, "        for (int s = 0; s < %d; ++s) {\n"
                       "            tilec::mbar_init(&%s[s], %d);  // %d cop%s per slot\n",
                  r->nslots, E->ring_bar_names[i], r->copies, r->copies, r->copies == 1 ? "y" : "ies");
        if (free_bars)
            sb_printf(out, "            tilec::mbar_init(&%s[s], %d);  // one arrival per %swarp\n", E->ring_free_names[i],
                      E->f->num_warps, E->f->producer_warps ? "consumer " : "");
        sb_puts(out, "        }\n");
    }
    sb_puts(out, "        tilec::fence_mbar_init();\n    }\n    __syncthreads();\n#endif\n");
}

/* One thread copies the block at the load's offsets into the slot, a box per
 * column block of the NVMMA layout, announcing their bytes on the slot's barrier. */
/* Copy `op`'s block into its slot: the bytes announced on the slot's full
 * barrier, then one copy per box (a column block of the map's swizzle width). */
static void tma_issue(Emitter *E, const Op *op)
{
    const TmaMap *m = &E->f->tma_maps.data[op->async_copy.tma_map];
    const DotStage *s = op->buf->stage;
    const char *sl = value_at(E, op->args[2], NULL, "0");
    const char *bar = fmt(E, "&%s[%s]", E->ring_bar_names[op->async_copy.tma - 1], sl);
    const char *row = value_at(E, op->args[op->nargs - 2], NULL, "0"), *col = value_at(E, op->args[op->nargs - 1], NULL, "0");
    line(E, "tilec::mbar_arrive_expect_tx(%s, %d);", bar, s->rows * s->cols * dtype_bits(s->dtype) / 8);
    for (int b = 0; b < s->cols / m->box_cols; b++)
        line(E, "tilec::tma_load_2d(%s(smem, %s, 0, %d), &%s, %s, %s, %s);", stage_helper(E, op->buf), sl,
             b * m->box_cols, E->tma_map_names[op->async_copy.tma_map], b ? fmt(E, "%s + %d", col, b * m->box_cols) : col,
             row, bar);
}

/* The sm_90a side of a ring's copy, before the cp.async path under #else: one
 * thread copies the block (tma_issue), or, in a producer ring, the producer
 * warpgroup does (tma_produce) and the consumers print only what the cp.async
 * path computes. */
void tma_copy(Emitter *E, const Op *op)
{
    const TirFunc *f = E->f;
    const TmaMap *m = &f->tma_maps.data[op->async_copy.tma_map];
    const DotStage *s = op->buf->stage;
    const char *pred = value_at(E, op->args[1], NULL, "0");
    const Value *mask = tir_copy_mask(op);
    const char *unread = fmt(E, "%s%s", vname(E, op->args[0]), mask ? fmt(E, ", %s", vname(E, mask)) : "");
    const char *what = mask ? "pointers and mask" : "pointers";
    if (f->tma_rings.data[op->async_copy.tma - 1].producer) {
        line(E, FEAT_SM90A "  // sm_90a: the producer warpgroup copies %s's %dx%d block into slot %s",
             f->params.data[m->param].desc_name, s->rows, s->cols, value_at(E, op->args[2], NULL, "0"));
        line(E, "tilec::unused(%s, %s);  // the predicate, %s of the cp.async path below", pred, unread, what);
        line(E, "#else");
        return;
    }
    int boxes = s->cols / m->box_cols;
    line(E, FEAT_SM90A "  // sm_90a: TMA");
    line(E, "if (threadIdx.x == 0 && %s) {  // one thread copies %s's %dx%d block at (%s, %s): %d box%s, zeros out of bounds",
         paren(E, pred), f->params.data[m->param].desc_name, s->rows, s->cols,
         value_at(E, op->args[op->nargs - 2], NULL, "0"), value_at(E, op->args[op->nargs - 1], NULL, "0"), boxes,
         boxes == 1 ? "" : "es");
    E->indent++;
    tma_issue(E, op);
    E->indent--;
    line(E, "}");
    line(E, "tilec::unused(%s);  // the %s of the cp.async path below", unread, what);
    line(E, "#else");
}

/* The producer warpgroup's copy of a slot's block (warp specialisation): the
 * slot's first copy of the step waits until every consumer warp has released
 * the slot, then each copy announces its bytes on the slot's full barrier. */
void tma_produce(Emitter *E, const Op *op, bool first)
{
    const TirFunc *f = E->f;
    const DotStage *s = op->buf->stage;
    int ring = op->async_copy.tma - 1;
    const char *sl = value_at(E, op->args[2], NULL, "0"), *fph = E->ring_free_phase_names[ring];
    line(E, "if (%s) {  // %s's %dx%d block at (%s, %s) into slot %s%s", value_at(E, op->args[1], NULL, "0"),
         f->params.data[f->tma_maps.data[op->async_copy.tma_map].param].desc_name, s->rows, s->cols,
         value_at(E, op->args[op->nargs - 2], NULL, "0"), value_at(E, op->args[op->nargs - 1], NULL, "0"), sl,
         first ? ", once every consumer warp has released it" : "");
    E->indent++;
    if (first) {
        line(E, "tilec::mbar_wait(&%s[%s], (%s >> %s) & 1u);", E->ring_free_names[ring], sl, fph, sl);
        line(E, "%s ^= 1u << %s;", fph, sl);
    }
    tma_issue(E, op);
    E->indent--;
    line(E, "}");
}

/* The top of a pipelined iteration: wait for slot args[0]'s copies; then free
 * slot args[1], which this step's copies overwrite: every warp has finished
 * reading it (its last dot's wgmma group was waited for in an earlier step).
 * With more than one warpgroup each warp says so on the slot's free barrier
 * and the copying thread waits until all have; with one, a barrier of the
 * block (tir_tma_free_barriers says why).  The cp.async path always takes
 * the block barrier. */
void tma_wait(Emitter *E, const Op *op)
{
    int ring = op->async_wait.tma - 1;
    const char *rs = value_at(E, op->args[0], NULL, "0"), *ws = value_at(E, op->args[1], NULL, "0");
    const char *ph = E->ring_phase_names[ring], *fph = E->ring_free_phase_names[ring];
    bool producer = E->f->tma_rings.data[ring].producer;
    line(E, FEAT_SM90A "  // sm_90a: the slot's TMA copies landed%s",
         producer ? " (the producer warpgroup's; the slots are released after the wgmma waits below)"
                  : "; the slot to fill next is free");
    line(E, "tilec::mbar_wait(&%s[%s], (%s >> %s) & 1u);", E->ring_bar_names[ring], rs, ph, rs);
    line(E, "%s ^= 1u << %s;", ph, rs);
    if (producer) {
        E->ws_ring = ring + 1;
        E->ws_read_slot = rs;
    } else if (tir_tma_free_barriers(E->f)) {
        line(E, "if ((threadIdx.x & 31) == 0)");
        line(E, "    tilec::mbar_arrive(&%s[%s]);  // this warp is done with slot %s", E->ring_free_names[ring], ws, ws);
        line(E, "if (threadIdx.x == 0)");
        line(E, "    tilec::mbar_wait(&%s[%s], (%s >> %s) & 1u);  // and so is every other", E->ring_free_names[ring], ws,
             fph, ws);
        line(E, "%s ^= 1u << %s;", fph, ws);
    } else {
        line(E, "%s;  // every warp is done with slot %s", block_sync(E), ws);
    }
    line(E, "#else");
    line(E, "tilec::cp_async_wait<%d>();  // at most %d group%s of copies still in flight", op->async_wait.pending,
         op->async_wait.pending, op->async_wait.pending == 1 ? "" : "s");
    line(E, "%s;", block_sync(E));
    line(E, "#endif");
}

/* In the launcher, before the launch: each map, from its descriptor's arguments. */
void tma_encode(Emitter *E)
{
    const TirFunc *f = E->f;
    for (int i = 0; i < f->tma_maps.len; i++) {
        const TmaMap *m = &f->tma_maps.data[i];
        const KernelParam *base = &f->params.data[m->param];
        const KernelParam *rows = base + 1, *cols = base + 2, *stride = base + 3;
        const char *name = E->tma_map_names[i];
        sb_printf(E->out, "    // %s: %s's tensor map for TMA (used by sm_90a builds)\n", name, base->desc_name);
        sb_printf(E->out, "    tilec::TensorMap %s;\n", name);
        sb_printf(E->out, "    {\n        const cudaError_t tma_status = tilec::encode_tensor_map(&%s, %s, %d, %s, %s, %s, %d, %d, %d);\n",
                  name, base->c_name, dtype_bits(base->type.pointee) / 8, rows->c_name, cols->c_name, stride->c_name,
                  m->box_cols, m->box_rows, m->swizzle);
        sb_puts(E->out, "        if (tma_status != cudaSuccess)\n            return tma_status;\n    }\n");
    }
}

static void find_paths(Emitter *E, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            find_paths(E, op->regions[r]);
        if (op->kind == OP_STORE && op->store.tma_map) {
            OpVec mine = tir_tma_pointer_path(E->a, op);
            vec_push(E->a, &E->tma_paths, ((TmaPath){op, mine.data, mine.len}));
        }
    }
}

/* Every TMA store's pointer-path ops (pointer_path_ops), found once for the kernel */
static void find_all_paths(Emitter *E)
{
    if (!E->tma_paths_found) {
        find_paths(E, E->f->body);
        E->tma_paths_found = true;
    }
}

static const TmaPath *pointer_path(Emitter *E, const Op *st)
{
    find_all_paths(E);
    for (int i = 0; i < E->tma_paths.len; i++)
        if (E->tma_paths.data[i].store == st)
            return &E->tma_paths.data[i];
    return NULL;
}

/* Is op printed inside a TMA store's pointer path instead of where it stands? */
bool tma_store_owns(Emitter *E, const Op *op)
{
    if (!E->f->tma_maps.len || !op_is_pure(op->kind))
        return false;
    find_all_paths(E);
    for (int i = 0; i < E->tma_paths.len; i++)
        for (int k = 0; k < E->tma_paths.data[i].nops; k++)
            if (E->tma_paths.data[i].ops[k] == op)
                return true;
    return false;
}

/* desc.store of a 2-D block under sm_90a (tma_store.c): every thread writes
 * its elements into the staging buffer in the map's swizzle, and one thread
 * hands the buffer to the TMA engine, a box per column block, then waits
 * until the engine has read it (its writes to global memory go on alone).
 * The engine writes whole 16-byte chunks of a row, past the tensor's last
 * column where a row's bytes do not end on one (so does Triton 3.6's TMA
 * store): there the threads store the staged block element by element,
 * each within the tensor's bounds.  Builds for other targets take the
 * pointer store, with the ops only it reads (pointer_path_ops). */
void emit_tma_store(Emitter *E, const Op *op)
{
    const TirFunc *f = E->f;
    const TmaMap *m = &f->tma_maps.data[op->store.tma_map - 1];
    const DotStage *s = op->stage;
    const Value *v = op->args[1];
    const TmaPath *mine = pointer_path(E, op);
    const Op *conv = NULL;
    for (int k = 0; k < mine->nops; k++)
        if (mine->ops[k] == v->def && v->def->kind == OP_CONVERT)
            conv = v->def;
    const Value *x = conv ? conv->args[0] : v; /* staged from before its layout change */
    const Value *off0 = op->args[op->nargs - 2], *off1 = op->args[op->nargs - 1];
    const KernelParam *cols = &f->params.data[m->param + 2];
    int eb = dtype_bits(s->dtype) / 8;
    const char *fn = stage_helper(E, op);
    int boxes = s->cols / m->box_cols;
    const KernelParam *base = &f->params.data[m->param], *rows = base + 1, *stride = base + 3;
    const char *row = paren(E, value_at(E, off0, NULL, "0")), *col = paren(E, value_at(E, off1, NULL, "0"));
    /* the pointer store, for other targets, printed first aside: the per-thread names
     * and exchange helpers it adds are then known, and the sm_90a block, which leaves
     * them unread, names them (nvcc warns of what is declared and never read) */
    int binds0 = E->binds.len, fns0 = E->exchange_fns.len;
    StrBuf aside = {0}, *out = E->out;
    E->out = &aside;
    line(E, "{  // the pointer store: its addresses, its mask%s", conv ? ", the tile in the store's layout" : "");
    E->indent++;
    line(E, "tilec::unused(smem);  // (the staging buffer above is for the TMA path)");
    for (int k = 0; k < mine->nops; k++)
        emit_op_here(E, mine->ops[k]);
    emit_pointer_store(E, op);
    E->indent--;
    line(E, "}");
    StrBuf tma = {0};
    E->out = &tma;
    line(E, FEAT_SM90A "  // sm_90a: the block goes out by TMA from shared memory");
    line(E, "{");
    E->indent++;
    line(E, "// %s (L%d) to %s in the tensor map's %d-byte swizzle", vname(E, x), x->layout->id, fn, m->swizzle);
    stage_store_tile(E, s, fn, x);
    line(E, "tilec::tma_store_fence();  // this thread's writes, visible to the TMA engine");
    line(E, "%s;", block_sync(E));
    line(E, "if (%s %% %d == 0) {  // rows of whole 16-byte chunks: the engine writes no byte past the last column",
         cols->c_name, 16 / eb);
    E->indent++;
    line(E, "if (threadIdx.x == 0) {  // one thread stores %s's %dx%d block at (%s, %s): %d box%s; what lies past the "
            "tensor's edge is dropped",
         base->desc_name, s->rows, s->cols, row, col, boxes, boxes == 1 ? "" : "es");
    E->indent++;
    for (int b = 0; b < boxes; b++)
        line(E, "tilec::tma_store_2d(&%s, %s(smem, 0, %d), %s, %s);", E->tma_map_names[op->store.tma_map - 1], fn,
             b * m->box_cols, b ? fmt(E, "%s + %d", col, b * m->box_cols) : col, row);
    line(E, "tilec::tma_store_wait_read();  // the engine has read the buffer; its writes go on");
    E->indent--;
    line(E, "}");
    E->indent--;
    /* the fallback reads the staged block back rather than computing the pointer
     * path's exchange, addresses and masks beside the TMA path's: with both, a
     * 128x128 block on 4 warps spilled */
    line(E, "} else {  // a row ends inside a 16-byte chunk, past which the engine would write: element by element");
    E->indent++;
    int numel = s->rows * s->cols, threads = f->num_warps * 32;
    const char *r = fmt(E, "e / %d", s->cols), *c = fmt(E, "e %% %d", s->cols);
    line(E, "for (int e = threadIdx.x; e < %d; e += %d)", numel, threads);
    line(E, "    if ((uint32_t)(%s + %s) < (uint32_t)%s && (uint32_t)(%s + %s) < (uint32_t)%s)", row, r, rows->c_name, col,
         c, cols->c_name);
    line(E, "        %s[(int64_t)(%s + %s) * %s + (%s + %s)] = *%s(smem, %s, %s);", base->c_name, row, r, stride->c_name, col,
         c, fn, r, c);
    E->indent--;
    line(E, "}");
    line(E, "%s;  // the buffer is free again", block_sync(E));
    E->out = out;
    sb_puts(E->out, tma.data);
    StrBuf names = {0}; /* what the pointer store added that this block does not read */
    for (int i = binds0; i < E->binds.len; i++)
        if (!uses_ident(tma.data, E->binds.data[i].name))
            sb_printf(&names, "(void)%s; ", E->binds.data[i].name);
    for (int i = fns0; i < E->exchange_fns.len; i++)
        if (!uses_ident(tma.data, E->exchange_fns.data[i]))
            sb_printf(&names, "(void)%s; ", E->exchange_fns.data[i]);
    if (names.len)
        line(E, "%s // read only by the pointer store below", names.data);
    sb_free(&names);
    sb_free(&tma);
    E->indent--;
    line(E, "}");
    line(E, "#else");
    sb_puts(E->out, aside.data ? aside.data : "");
    sb_free(&aside);
    line(E, "#endif");
}

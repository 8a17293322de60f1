/*
 * pipeline.c — software pipelining of K loops (tir_pipeline).
 *
 * A loop whose body loads an operand tile of a dot (a load used only by the
 * conversion to the dot operand layout, perhaps through a transpose) gets a
 * ring of staging buffers filled by cp.async, Triton's Ampere pipeline:
 *
 *   prologue:  for s < S-1: copies of iteration s into slot s; commit
 *   loop i:    wait until iteration i's copies landed (S-2 groups may stay
 *              in flight); barrier (slot i-1 is now free: every warp read
 *              it in iteration i-1); the rest of the body, reading the
 *              operands from slot i % n; copies of iteration i+S-1 into
 *              slot (i+S-1) % n, predicated off past the end; commit
 *   after:     wait for all; barrier
 *
 * with n = S slots.  The copies come after the rest, as Triton places them,
 * so that the step's dots already run while the threads work out the copies'
 * addresses (copies_late); they come first where the rest reads what stage 0
 * computes or where stage 0 loads.  Where shared memory bounds the blocks per
 * SM and the dots are done with their slot by the end of the step, the ring
 * keeps n = S-1 slots and a second barrier before the copies, which then
 * reuse the slot the step read (tight_ring_pays).
 *
 * The ops that compute the copies' addresses and masks ("stage 0": the
 * load's operands back to the loop-carried pointers and the induction
 * variable, and a branch of pure ops they depend on, such as a persistent
 * loop's move to its next tile) run S-1 iterations ahead, so the carried
 * values they advance start S-1 steps ahead (the prologue advances them)
 * and the induction variable is read as iv + (S-1)*step there.  A scalar
 * that stage 0 computes ahead and the rest of the body reads comes to the
 * rest through a queue of S-1 loop-carried copies (note_ahead, queue_args).
 * Stage 0 may also load: a block table's entry, or a tile of indices through
 * which an operand's rows are gathered (with the exchange that brings them to
 * the copy's layout); such loads are guarded past the loop's end unless they
 * are the same in every step.  Other small loads of the body are prefetched
 * into registers S-1 steps ahead through the same queues (prefetch_loads).
 * A reset of the accumulator in a branch after the dot becomes the next
 * dot's use flag (fold_acc_reset).  Dots on wgmma may leave a group in
 * flight into the next step, their rings then a slot more, or, where that
 * does not fit or would leave one block an SM, the copies last after a second
 * barrier (wgmma_in_flight, group_may_stay).  A loop is left alone when stage 0 would need a value of
 * the body's other ops, when the rest reads a tile that stage 0 computes
 * ahead (but a prefetched load's), when a carried value stage 0 advances is used after the loop, when
 * the body holds an inner loop, when its branches' exchanges would not fit
 * beside the rings, or when the copies would be narrower than 4 bytes.
 */
#include "tir.h"

#include <string.h>

typedef Vec(Value *) ValueVec;

static bool value_in(const ValueVec *v, const Value *x)
{
    for (int i = 0; i < v->len; i++)
        if (v->data[i] == x)
            return true;
    return false;
}

/* the single op of b using v, or NULL */
static Op *single_user(Block *b, const Value *v)
{
    Op *u = NULL;
    int n = 0;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nargs; k++)
            if (op->args[k] == v) {
                if (u != op)
                    n++;
                u = op;
            }
    }
    return n == 1 ? u : NULL;
}

typedef struct Pipe {
    Ctx *ctx;
    Arena *a;
    TirFunc *f;
    Op *loop;
    Block *body;
    int S;
    OpVec loads, converts, s0;
    Vec(DotStage *) stages; /* the ring of each pipelined load */
    ValueVec carried;   /* body arguments stage 0 advances */
    OpVec prefetch;     /* small loads of the rest run ahead in registers (prefetch_loads) */
    int tma;            /* f->tma_rings index + 1 when the copies go through TMA (tma_ring) */
    int *tma_map;       /* and each load's f->tma_maps index */
    bool hold;          /* the wgmma groups stay in flight in a ring of S slots: the copies
                           come last, after a barrier (wgmma_in_flight) */
    bool copies_wait;   /* a copy's address or mask comes from another load (copies_wait_for_loads) */
    bool ws;            /* a producer warpgroup issues the ring's copies (warpspec.c) */
    bool ok;
} Pipe;

/* A load of stage 0 that is not a ring's: a scalar (a block table's entry) or a
 * tile (the slots of the tokens a step gathers), run ahead with the copies. */
static bool ahead_load(const Op *op)
{
    return op->kind == OP_LOAD && !op->load.is_volatile;
}

/* A value of stage 0 made for a guard, shaped and laid out as `like`. */
static Value *guard_value(Pipe *P, Block *b, OpKind k, int n, Value **args, const Value *like, DType d,
                          const Op *near)
{
    Type t = like->type;
    t.dtype = d;
    Op *op = tir_op_new(P->a, P->f, k, n, args, 1, &t);
    op->stmt = near->stmt, op->loc = near->loc;
    Value *v = op->results[0];
    v->layout = like->layout;
    v->ax = like->ax; /* an AND with pred is as constant along each axis as the mask */
    v->ax.has_const = false; /* but no longer a known constant (nor pred, nor the zero) */
    for (int i = 0; i < t.rank; i++) /* a splat or a constant is one value along every axis */
        if (k != OP_AND)
            v->ax.contiguity[i] = 1, v->ax.constancy[i] = t.shape[i], v->ax.divisibility[i] = 1;
    tir_block_append(P->a, b, op);
    return v;
}

/* A load of stage 0 (a scalar or a tile) runs S-1 iterations ahead, where the
 * loop may have ended and its address be past the data: it reads only while
 * `pred` holds and gives 0 (or its `other`) otherwise, as Triton predicates
 * what it pipelines.  The guard's ops are appended to b, before the load. */
static void guard_ahead_load(Pipe *P, Block *b, Op *ld, Value *pred, const Op *near)
{
    Value *mask = pred; /* a tile's mask: pred at every element */
    if (ld->results[0]->type.rank)
        mask = guard_value(P, b, OP_SPLAT, 1, (Value *[]){pred}, ld->args[0], DT_I1, near);
    if (ld->load.has_mask)
        mask = guard_value(P, b, OP_AND, 2, (Value *[]){ld->args[1], mask}, ld->args[1], DT_I1, near);
    Value *other = ld->load.has_other ? ld->args[2]
                                      : guard_value(P, b, OP_CONST, 0, NULL, ld->results[0],
                                                    ld->results[0]->type.dtype, near);
    Value **args = NEW_ARRAY(P->a, Value *, 3);
    args[0] = ld->args[0], args[1] = mask, args[2] = other;
    ld->args = args;
    ld->nargs = 3;
    ld->load.has_mask = ld->load.has_other = true;
}

/* A branch (if) whose regions hold no loop, branch or barrier; with `pure`,
 * nothing but pure ops (it may then run ahead in stage 0). */
static bool plain_branch(const Op *op, bool pure)
{
    if (op->kind != OP_IF)
        return false;
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++) {
            const Op *o = op->regions[r]->ops.data[i];
            if (o->nregions || o->kind == OP_BARRIER ||
                (pure && o->kind != OP_YIELD && !op_is_pure(o->kind)))
                return false;
        }
    return true;
}

/* Adds v's definition chain inside the body to stage 0. */
static void collect_s0(Pipe *P, Value *v)
{
    Block *b = P->body;
    if (!P->ok)
        return;
    if (v->block == b) {
        if (v->arg_index == 0 || value_in(&P->carried, v))
            return;
        vec_push(P->a, &P->carried, v);
        Op *y = tir_block_last(b);
        collect_s0(P, y->args[v->arg_index - 1]);
        return;
    }
    Op *d = v->def;
    if (!d || d->parent != b || opvec_has(&P->s0, d))
        return;
    bool allowed = (op_is_pure(d->kind) && (op_is_elementwise(d->kind) || d->kind == OP_MAKE_RANGE ||
                                           d->kind == OP_BROADCAST || d->kind == OP_EXPAND_DIMS ||
                                           d->kind == OP_PROGRAM_ID || d->kind == OP_NUM_PROGRAMS)) &&
                   d->nregions == 0 && d->nres == 1;
    /* a load an operand's address depends on (a block table's entry, the slots of
     * gathered rows), run ahead with its copy and guarded (guard_ahead_load), and the
     * exchange that brings a gathered index to the copy's layout */
    allowed |= ahead_load(d) || d->kind == OP_CONVERT;
    /* a branch of pure ops that some address depends on (the persistent matmul's move to
     * its next tile), run ahead whole; what its regions read joins stage 0 too */
    bool branch = plain_branch(d, true);
    if (!(allowed || branch) || opvec_has(&P->loads, d)) {
        P->ok = false;
        return;
    }
    vec_push(P->a, &P->s0, d);
    for (int k = 0; k < d->nargs; k++)
        collect_s0(P, d->args[k]);
    for (int r = 0; branch && r < d->nregions; r++)
        for (int i = 0; i < d->regions[r]->ops.len; i++) {
            const Op *o = d->regions[r]->ops.data[i];
            for (int k = 0; k < o->nargs; k++)
                collect_s0(P, o->args[k]);
        }
}

static bool varies(Pipe *P, const Value *v, int depth);

/* Op (of the body, not of stage 0, with its regions) reads values that stage 0
 * computes S-1 iterations ahead: each goes into `delayed`, to be read through
 * a queue of S-1 loop-carried copies (delay_ahead).  False where one is a
 * tile (a queue of tiles would hold S-1 copies in registers: not pipelined). */
static bool note_ahead(Pipe *P, const Op *op, ValueVec *delayed)
{
    for (int k = 0; k < op->nargs; k++) {
        Value *v = op->args[k];
        bool ahead = value_in(&P->carried, v) || (v->def && opvec_has(&P->s0, v->def) && varies(P, v, 0));
        if (!ahead || value_in(delayed, v))
            continue;
        if (v->type.rank && !(v->def && opvec_has(&P->prefetch, v->def)))
            return false;
        vec_push(P->a, delayed, v);
    }
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            if (!note_ahead(P, op->regions[r]->ops.data[i], delayed))
                return false;
    return true;
}

/* Does v (a stage-0 value) change from one iteration to the next? */
static bool varies(Pipe *P, const Value *v, int depth)
{
    if (v->block == P->body)
        return true;
    const Op *d = v->def;
    if (!d || d->parent != P->body || depth > 64)
        return depth > 64;
    for (int k = 0; k < d->nargs; k++)
        if (varies(P, d->args[k], depth + 1))
            return true;
    return false;
}

static Value *mk_const(Pipe *P, Block *b, int at, int64_t c, Type t, const Op *near)
{
    Op *op = tir_op_new(P->a, P->f, OP_CONST, 0, NULL, 1, &t);
    op->constant.ival = c;
    op->constant.fval = (double)c;
    op->stmt = near->stmt;
    op->loc = near->loc;
    tir_block_insert(P->a, b, at, op);
    return op->results[0];
}

static Value *mk_const_i32(Pipe *P, Block *b, int at, int64_t c, const Op *near)
{
    return mk_const(P, b, at, c, type_scalar(DT_I32), near);
}

static Value *mk_op(Pipe *P, Block *b, OpKind k, int n, Value **args, Type t, const Op *near)
{
    Op *op = tir_op_new(P->a, P->f, k, n, args, 1, &t);
    op->stmt = near->stmt;
    op->loc = near->loc;
    tir_block_append(P->a, b, op);
    return op->results[0];
}

/* value map for cloning */
typedef struct VMap {
    ValueVec from, to;
} VMap;

static Value *vmap_get(const VMap *m, Value *v)
{
    for (int i = 0; i < m->from.len; i++)
        if (m->from.data[i] == v)
            return m->to.data[i];
    return v;
}

static void vmap_put(Pipe *P, VMap *m, Value *from, Value *to)
{
    vec_push(P->a, &m->from, from);
    vec_push(P->a, &m->to, to);
}

/* A copy of op appended to b, its operands mapped through m (and its results
 * added to m); the regions of a branch are copied too, op by op. */
static Op *clone_into(Pipe *P, Block *b, const Op *op, VMap *m)
{
    Value **args = NEW_ARRAY(P->a, Value *, op->nargs ? op->nargs : 1);
    Type *rt = NEW_ARRAY(P->a, Type, op->nres ? op->nres : 1);
    for (int k = 0; k < op->nargs; k++)
        args[k] = vmap_get(m, op->args[k]);
    for (int k = 0; k < op->nres; k++)
        rt[k] = op->results[k]->type;
    Op *c = tir_op_new(P->a, P->f, op->kind, op->nargs, args, op->nres, rt);
    tir_op_copy_attrs(c, op);
    c->stmt = op->stmt;
    c->loc = op->loc;
    for (int k = 0; k < op->nres; k++) {
        Value *r = c->results[k], *o = op->results[k];
        r->layout = o->layout;
        r->ax = o->ax;
        r->name = o->name;
        memcpy(r->hint_div, o->hint_div, sizeof r->hint_div);
        vmap_put(P, m, (Value *)o, r);
    }
    c->nregions = op->nregions;
    for (int r = 0; r < op->nregions; r++) {
        c->regions[r] = tir_block_new(P->a, c);
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            clone_into(P, c->regions[r], op->regions[r]->ops.data[i], m);
    }
    tir_block_append(P->a, b, c);
    return c;
}

/* The copies of one iteration: an async_copy per pipelined load. */
static void emit_copies(Pipe *P, Block *b, VMap *m, Value *pred, Value *slot, Op **rings)
{
    for (int i = 0; i < P->loads.len; i++) {
        Op *ld = P->loads.data[i];
        Value *args[6] = {vmap_get(m, ld->args[0]), pred, slot, NULL};
        int n = 3;
        if (ld->load.has_mask)
            args[n++] = vmap_get(m, ld->args[1]);
        if (P->tma) /* the block's offsets */
            for (int d = 0; d < 2; d++)
                args[n++] = vmap_get(m, ld->args[ld->nargs - 2 + d]);
        Op *ac = tir_op_new(P->a, P->f, OP_ASYNC_COPY, n, args, 0, NULL);
        ac->stmt = ld->stmt;
        ac->loc = ld->loc;
        ac->buf = rings[i];
        ac->async_copy.transposed = P->converts.data[i]->args[0] != ld->results[0];
        ac->async_copy.has_mask = ld->load.has_mask;
        ac->async_copy.tma = P->tma;
        ac->async_copy.tma_map = P->tma ? P->tma_map[i] : 0;
        tir_block_append(P->a, b, ac);
    }
}

/* The TMA map the copies of descriptor block load ld into stage s need: a
 * box of the swizzle's width by the block's rows. */
static TmaMap tma_map_of(const Op *ld, const DotStage *s)
{
    return (TmaMap){.param = ld->load.desc_param - 1, .box_cols = s->nvmma * 8 / dtype_bits(s->dtype),
                    .box_rows = s->rows, .swizzle = s->nvmma};
}

/* Before a TMA ring's copies overwrite a slot, every warp must be done
 * reading it.  With one warpgroup the warps meet at each wgmma anyway, so a
 * block barrier costs nothing more, where a free barrier's arrivals and the
 * copying thread's wait held warp 0, and with it the warpgroup's next wgmma
 * (fp16 attention on descriptors, 4 warps: 0.92x -> 0.95x Triton on the
 * H200).  With two or more, a block barrier would hold every warpgroup to
 * the slowest's pace, where each runs its softmax while another's wgmma
 * runs (bf16 attention of head dim 128 on 8 warps: 0.94x against 0.99x with
 * the free barriers, whose wait only the copying thread makes). */
bool tir_tma_free_barriers(const TirFunc *f)
{
    return f->num_warps > 4 || f->producer_warps;
}

int tir_tma_ring_barrier_bytes(const TirFunc *f, const TmaRing *r)
{
    return (tir_tma_free_barriers(f) ? 2 : 1) * 8 * r->nslots;
}

/* f->tma_maps' index of the map of descriptor parameter `param`, or -1 */
int tir_tma_map_index(const TirFunc *f, int param)
{
    for (int i = 0; i < f->tma_maps.len; i++)
        if (f->tma_maps.data[i].param == param)
            return i;
    return -1;
}

bool tir_tma_same_box(const TmaMap *a, const TmaMap *b)
{
    return a->box_cols == b->box_cols && a->box_rows == b->box_rows && a->swizzle == b->swizzle;
}

/* Triton's Hopper path for tensor descriptors: where every pipelined load is
 * a 2-D block of a tensordesc parameter and its ring is in an NVMMA layout
 * (the loop's dots run on wgmma), one thread copies each block with TMA, which
 * writes the swizzle wgmma reads; a slot's copies complete a phase of its
 * barrier instead of a cp.async group.  The cp.async copies stay for targets
 * without TMA (the file's sm_80 path).  A box has at most 256 rows, and a
 * descriptor has one map, so one box, in a kernel.  Called after the last
 * point where pipeline_loop may give up, so that no map is made for a loop
 * left as it was. */
static bool tma_fits(const Pipe *P)
{
    const TirFunc *f = P->f;
    if (f->arch < 90)
        return false;
    for (int i = 0; i < P->loads.len; i++) {
        const Op *ld = P->loads.data[i];
        const DotStage *s = P->stages.data[i];
        bool transposed = P->converts.data[i]->args[0] != ld->results[0];
        if (!ld->load.desc_param || !s->nvmma || s->batch != 1 || s->rows > 256 || s->contig_dim != (transposed ? 0 : 1))
            return false;
        TmaMap m = tma_map_of(ld, s);
        int k = tir_tma_map_index(f, m.param);
        if (k >= 0 && !tir_tma_same_box(&f->tma_maps.data[k], &m))
            return false; /* the descriptor's blocks go elsewhere in boxes of another shape */
        for (int j = 0; j < i; j++) { /* a descriptor loaded twice in this loop */
            TmaMap o = tma_map_of(P->loads.data[j], P->stages.data[j]);
            if (o.param == m.param && !tir_tma_same_box(&o, &m))
                return false;
        }
    }
    return true;
}

static void tma_ring(Pipe *P, int nring)
{
    TirFunc *f = P->f;
    if (!tma_fits(P))
        return;
    P->tma_map = NEW_ARRAY(P->a, int, P->loads.len);
    for (int i = 0; i < P->loads.len; i++) {
        TmaMap m = tma_map_of(P->loads.data[i], P->stages.data[i]);
        int k = tir_tma_map_index(f, m.param);
        if (k < 0) {
            m.name = arena_printf(P->a, "%s_tma", f->params.data[m.param].desc_name);
            vec_push(P->a, &f->tma_maps, m);
            k = f->tma_maps.len - 1;
        }
        P->tma_map[i] = k;
    }
    vec_push(P->a, &f->tma_rings, ((TmaRing){.nslots = nring, .copies = P->loads.len, .producer = P->ws}));
    P->tma = f->tma_rings.len;
    if (P->ws) {
        f->producer_warps = TIR_WS_PRODUCER_WARPS;
        for (int i = 0; i < P->stages.len; i++)
            P->stages.data[i]->producer = true;
    }
}

/* The dots of the body whose two operands come from NVMMA rings (wgmma.c):
 * marked to run on wgmma under sm_90a.  When a K step leaves its wgmma
 * group in flight (WGMMA_GROUPS_IN_FLIGHT 1, Triton's pipelineWgmma), the
 * ring gets one more slot than num_stages (Triton's numBuffers + 1): the
 * copies issued in iteration i, of iteration i + S-1, then go to the slot of
 * iteration i-2, which every warpgroup has finished reading before iteration
 * i's barrier.  True when there is one. */
static bool wgmma_dots(Pipe *P)
{
    bool any = false;
    for (int i = 0; i < P->body->ops.len; i++) {
        Op *d = P->body->ops.data[i];
        if (d->kind != OP_DOT || d->results[0]->layout->mma_version != 3)
            continue;
        int found = 0;
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < P->converts.len; j++)
                if (d->args[k]->def == P->converts.data[j] && P->stages.data[j]->nvmma &&
                    d->args[k]->nuses == 1 && P->converts.data[j]->parent == d->parent)
                    found++;
        if (found == 2) {
            d->dot.wgmma = true;
            P->f->uses_wgmma = true;
            any = true;
        }
    }
    return any;
}

/* Does an op of op's regions (a yield included) read v? */
static bool read_in_regions(const Op *op, const Value *v)
{
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            if (tir_op_reads(op->regions[r]->ops.data[i], v))
                return true;
    return false;
}

/* A reset of the accumulator folded into the next step's dot, as Triton's
 * OptimizeAccumulatorInit does for persistent loops:
 *
 *     acc = dot(a, b, acc)                       acc = dot(a, b, acc, use)
 *     acc = if c { ...acc...; zeros } else acc   if c { ...acc... }
 *                                                use = !c   (carried, true at first)
 *
 * so that the accumulator goes from one dot to the next untouched (a wgmma
 * group may then stay in flight across the branch not taken) and the branch
 * only reads it: no select or copy of the accumulator in every step.  The
 * loop's result for the accumulator must be unused (it would no longer be
 * reset). */
static void fold_acc_reset(Pipe *P)
{
    Block *body = P->body;
    Op *y = tir_block_last(body), *loop = P->loop;
    for (int i = 0; i < body->ops.len; i++) {
        Op *d = body->ops.data[i];
        if (d->kind != OP_DOT || d->nargs != 3 || !dot_uses_mma(d) || d->args[2]->block != body)
            continue;
        int j = d->args[2]->arg_index - 1; /* the carried accumulator */
        Value *r = d->results[0];
        if (j < 0 || loop->results[j]->nuses || y->args[j]->def == NULL || y->args[j]->def->kind != OP_IF)
            continue;
        Op *e = y->args[j]->def;
        int k = 0;
        while (k < e->nres && e->results[k] != y->args[j])
            k++;
        if (e->parent != body || e->results[k]->nuses != 1 || e->nregions != 2)
            continue;
        Op *yt = tir_block_last(e->regions[0]), *ye = tir_block_last(e->regions[1]);
        if (!yt || !ye || yt->kind != OP_YIELD || ye->kind != OP_YIELD)
            continue;
        int reset; /* the region yielding zeros; the other yields r */
        if (tir_is_zero_splat(yt->args[k]) && ye->args[k] == r)
            reset = 0;
        else if (tir_is_zero_splat(ye->args[k]) && yt->args[k] == r)
            reset = 1;
        else
            continue;
        /* r: read by the branch (anywhere but in another yield) and by nothing else */
        int users = 0;
        for (int m = 0; m < body->ops.len; m++) {
            const Op *o = body->ops.data[m];
            for (int a = 0; a < o->nargs; a++)
                users += o->args[a] == r;
            if (o != e && read_in_regions(o, r))
                users += 2;
        }
        if (users)
            continue;
        bool other_yield = false;
        for (int q = 0; q < e->nres; q++)
            if (q != k && (yt->args[q] == r || ye->args[q] == r))
                other_yield = true;
        if (other_yield)
            continue;
        /* the flag: true at first, then whether the branch that resets was not taken */
        Type t1 = type_scalar(DT_I1);
        Op *init = tir_op_new(P->a, P->f, OP_CONST, 0, NULL, 1, &t1);
        init->constant.ival = 1;
        init->constant.fval = 1;
        init->stmt = d->stmt, init->loc = d->loc;
        int at = 0;
        while (loop->parent->ops.data[at] != loop)
            at++;
        tir_block_insert(P->a, loop->parent, at, init);
        Value *use = tir_value_new(P->a, P->f, t1);
        use->name = "use_acc";
        use->block = body;
        use->arg_index = body->args.len;
        vec_push(P->a, &body->args, use);
        Value **la = NEW_ARRAY(P->a, Value *, loop->nargs + 1);
        memcpy(la, loop->args, sizeof(Value *) * (size_t)loop->nargs);
        la[loop->nargs++] = init->results[0];
        loop->args = la;
        Value **lr = NEW_ARRAY(P->a, Value *, loop->nres + 1);
        memcpy(lr, loop->results, sizeof(Value *) * (size_t)loop->nres);
        lr[loop->nres] = tir_value_new(P->a, P->f, t1);
        lr[loop->nres]->def = loop;
        lr[loop->nres]->name = "use_acc";
        loop->results = lr;
        loop->nres++;
        /* the dot takes it */
        Value **da = NEW_ARRAY(P->a, Value *, 4);
        memcpy(da, d->args, sizeof(Value *) * 3);
        da[3] = use;
        d->args = da;
        d->nargs = 4;
        d->dot.use_flag = true;
        /* the branch keeps its other results; the accumulator's is gone */
        for (int q = k; q + 1 < e->nres; q++) {
            e->results[q] = e->results[q + 1];
            yt->args[q] = yt->args[q + 1];
            ye->args[q] = ye->args[q + 1];
        }
        e->nres--, yt->nargs--, ye->nargs--;
        /* next: the accumulator is r, kept unless the reset branch ran */
        Op *nc = tir_op_new(P->a, P->f, OP_NOT, 1, &e->args[0], 1, &t1);
        nc->stmt = e->stmt, nc->loc = e->loc;
        int ei = 0;
        while (body->ops.data[ei] != e)
            ei++;
        tir_block_insert(P->a, body, ei + 1, nc);
        Value **ya = NEW_ARRAY(P->a, Value *, y->nargs + 1);
        memcpy(ya, y->args, sizeof(Value *) * (size_t)y->nargs);
        ya[j] = r;
        ya[y->nargs++] = reset == 0 ? nc->results[0] : e->args[0];
        y->args = ya;
        return; /* one such accumulator a loop */
    }
}

/* Does the result of wgmma dot d reach nothing but the next step's d, as
 * its accumulator, and branches?  Then its group may stay in flight past the
 * step: the next wgmma chains on the same registers, the loop's final wait
 * comes before any other read, and a branch that reads it (a persistent
 * loop's store of a finished tile) waits for every group first, on its own
 * path (Triton's pipelineWgmma asks the same; the emitter's
 * emit_wgmma_branch_wait).  ptxas keeps the groups in flight across such a
 * branch only where nothing else there reads the accumulators' registers;
 * make cuda-check fails where it serializes them (C7514). */
static bool acc_only_chains(Block *body, const Op *d)
{
    const Value *r = d->results[0];
    const Op *y = tir_block_last(body);
    int j = -1;
    for (int i = 0; i < body->ops.len; i++) {
        const Op *o = body->ops.data[i];
        for (int k = 0; k < o->nargs; k++)
            if (o->args[k] == r) {
                if (o != y || j >= 0)
                    return false;
                j = k;
            }
        if (o->kind != OP_IF && read_in_regions(o, r))
            return false;
    }
    if (j < 0)
        return false;
    const Value *carried = body->args.data[j + 1];
    return single_user(body, carried) == d && d->args[2] == carried && d->args[0] != carried && d->args[1] != carried;
}

/* Shared bytes of the rings at `slots` slots each. */
static long ring_bytes(const Pipe *P, int slots)
{
    long bytes = 0;
    for (int i = 0; i < P->stages.len; i++) {
        const DotStage *st = P->stages.data[i];
        int align = dot_stage_align(st);
        bytes += (dot_stage_slot_bytes(st) + align - 1) / align * align;
    }
    return bytes * slots;
}

/* Do the rings fit in shared memory with WGMMA_GROUPS_IN_FLIGHT slots more,
 * next to `extra` bytes? */
static bool spare_slot_fits(const Pipe *P, long extra)
{
    return ring_bytes(P, P->S + WGMMA_GROUPS_IN_FLIGHT) + extra <= tir_smem_limit(P->f->arch);
}

static bool has_branch(const Block *b)
{
    for (int i = 0; i < b->ops.len; i++)
        if (b->ops.data[i]->nregions)
            return true;
    return false;
}

/* The bytes of the largest tile a layout conversion in b (or its regions) may
 * exchange through shared memory: at most the whole tile. */
static long largest_exchange(const Block *b)
{
    long most = 0;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op->kind == OP_CONVERT && op->nres == 1) {
            Type t = op->results[0]->type;
            long n = (long)type_numel(t) * ((dtype_bits(t.dtype) + 7) / 8);
            most = n > most ? n : most;
        }
        for (int r = 0; r < op->nregions; r++) {
            long n = largest_exchange(op->regions[r]);
            most = n > most ? n : most;
        }
    }
    return most;
}

/* The ring of the body's conversion c, or NULL. */
static const DotStage *ring_of(const Pipe *P, const Op *c)
{
    for (int j = 0; j < P->converts.len; j++)
        if (P->converts.data[j] == c)
            return P->stages.data[j];
    return NULL;
}

/* The elements of the body's dot results each thread holds, summed. */
static long dot_acc_per_thread(const Pipe *P)
{
    int threads = P->f->num_warps * 32;
    long acc = 0;
    for (int i = 0; i < P->body->ops.len; i++) {
        const Op *d = P->body->ops.data[i];
        if (d->kind == OP_DOT)
            acc += type_numel(d->results[0]->type) / threads;
    }
    return acc;
}

/* Blocks per SM that rings of `slots` slots allow: shared memory, threads
 * and a floor on registers taken together.  The floor: on mma.sync twice
 * the dots' accumulators per thread (the operand fragments) and 32 for
 * addresses and indices; on wgmma, whose operands stay in shared memory,
 * the accumulators and 64 (a 128x128 fp16 matmul on 4 warps: 180 to 216
 * registers in tilec's kernels, 216 to 220 in Triton's). */
static int blocks_per_sm(const Pipe *P, int slots, bool wgmma)
{
    int threads = P->f->num_warps * 32;
    long acc = dot_acc_per_thread(P);
    long regs = wgmma ? acc + 64 : 2 * acc + 32;
    long n = 2048 / threads; /* threads per SM */
    long by_regs = 65536 / (regs * threads), by_smem = tir_smem_limit(P->f->arch) / ring_bytes(P, slots);
    n = by_regs < n ? by_regs : n;
    return (int)(by_smem < n ? by_smem : n);
}

/* May a dot of this loop leave its wgmma group in flight into the next
 * iteration once tir_wgmma has marked it (wgmma.c, defer_wait: attention's
 * p @ v)?  A dot that fits wgmma, whose result only the yield reads, after
 * another dot that fits, with B from a ring of this loop in the NVMMA
 * layout and A from one or from registers.  Its rings then get the spare
 * slot here, where their size is decided; should tir_wgmma not defer the
 * wait after all (q's buffer did not fit), the slot is only unused. */
static bool group_may_stay(const Pipe *P)
{
    const Op *y = tir_block_last(P->body);
    bool earlier = false;
    long reloaded = 0; /* the buffers dot_reload.c will want for operands made before the loop */
    for (int i = 0; i < P->body->ops.len; i++) {
        const Op *d = P->body->ops.data[i];
        if (d->kind != OP_DOT || !wgmma_dot_fits(P->f, d))
            continue;
        for (int k = 0; k < 2; k++) {
            const Op *c = d->args[k]->def;
            if (c && c->parent != P->body && is_dot_stage(c) && c->kind == OP_CONVERT)
                reloaded += (type_numel(c->results[0]->type) * dtype_bits(c->results[0]->type.dtype) / 8 + 1023) /
                            1024 * 1024;
        }
        const DotStage *sb = ring_of(P, d->args[1]->def), *sa = ring_of(P, d->args[0]->def);
        bool a_ok = (sa && sa->nvmma) || (d->args[0]->def && dot_operand_in_registers(d->args[0]->def));
        if (earlier && single_user(P->body, d->results[0]) == y && sb && sb->nvmma && a_ok)
            return spare_slot_fits(P, reloaded);
        earlier = true;
    }
    return false;
}

static void set_wgmma_pending(Pipe *P, int n)
{
    for (int i = 0; i < P->body->ops.len; i++) {
        Op *d = P->body->ops.data[i];
        if (d->kind == OP_DOT && d->dot.wgmma)
            d->dot.wgmma_pending = n;
    }
}

/* Will the rings' copies go through TMA (tma_ring): a descriptor's blocks
 * under sm_90?  Asked before the rings' size is decided. */
static bool tma_likely(const Pipe *P)
{
    if (P->f->arch < 90)
        return false;
    for (int i = 0; i < P->loads.len; i++)
        if (P->loads.data[i]->load.desc_param)
            return true;
    return false;
}

/* The wgmma groups each K step of the loop's wgmma dots leaves in flight:
 * WGMMA_GROUPS_IN_FLIGHT where every such dot only chains its accumulator
 * into the next step's (or a branch reads it), else 0: each step waits for
 * its own group.  The copies of the step ahead must not overwrite the slot a
 * group in flight reads: the rings get the slot more, or they keep S slots
 * and the copies come last, after a barrier that follows every warpgroup's
 * wait for the step before's group (P->hold, Triton's form; pipeline_loop
 * gives up the groups in flight where the copies cannot come last).  S slots
 * where the spare one does not fit in shared memory, and where it would
 * leave a single block on an SM that S slots share with another: a
 * 128x128x64 matmul on 4 warps, 3 stages, has 96 KB of rings at 3 slots
 * (2 blocks an SM) and 128 KB at 4 (1 block): fp16 0.86x Triton with the
 * spare slot, 1.00x without; bf16 0.87x against 1.04x (H100, alternating
 * rounds in one process).  Elsewhere the spare slot stays: 64x128x64 on 4
 * warps went from 2 blocks to 3 without it and from 1.06x to 0.96x;
 * 128x128x32 on 4 stages (2 blocks either way) lost 3-5%, 128x256x64 on 8
 * warps (1 block) 1%.  Not for TMA rings, which give up the groups in
 * flight under P->hold. */
static int wgmma_in_flight(Pipe *P)
{
    for (int i = 0; i < P->body->ops.len; i++) {
        const Op *d = P->body->ops.data[i];
        if (d->kind == OP_DOT && d->dot.wgmma && (d->nargs < 3 || !acc_only_chains(P->body, d)))
            return 0;
    }
    P->hold = !spare_slot_fits(P, has_branch(P->body) ? largest_exchange(P->body) : 0) ||
              (!tma_likely(P) && blocks_per_sm(P, P->S + WGMMA_GROUPS_IN_FLIGHT, true) == 1 &&
               blocks_per_sm(P, P->S, true) >= 2);
    set_wgmma_pending(P, WGMMA_GROUPS_IN_FLIGHT);
    return WGMMA_GROUPS_IN_FLIGHT;
}

/* The body's ops past stage 0 and the rings, in order, into nb, each reading
 * the queue heads for what stage 0 computes ahead. */
static void append_rest(Pipe *P, Block *nb, const ValueVec *delayed, Value **lq)
{
    Block *body = P->body;
    int D = P->S - 1;
    for (int i = 0; i < body->ops.len - 1; i++) {
        Op *op = body->ops.data[i];
        if (opvec_has(&P->s0, op) || opvec_has(&P->loads, op) || opvec_has(&P->converts, op))
            continue;
        if (op->kind == OP_TRANS && op->nres == 1 && single_user(body, op->results[0]) &&
            opvec_has(&P->converts, single_user(body, op->results[0])))
            continue;
        for (int d = 0; d < delayed->len; d++) /* this iteration's value: the queue's head */
            tir_op_replace_uses(op, delayed->data[d], lq[d * D]);
        tir_block_append(P->a, nb, op);
    }
}

/* The queues of the values stage 0 computes ahead that the rest of the body
 * reads (note_ahead): S-1 carried values each, appended to block b's
 * arguments from index `first` on, the loop's results `res` named and typed
 * alike.  Entry j of value d (the array's d * (S-1) + j) holds it for j
 * iterations after the current one: the head, j = 0, is the current one's. */
static Value **queue_args(Pipe *P, Block *b, const ValueVec *delayed, int first, Value **res)
{
    int D = P->S - 1;
    Value **q = NEW_ARRAY(P->a, Value *, delayed->len > 0 ? delayed->len * D : 1);
    for (int d = 0; d < delayed->len; d++)
        for (int j = 0; j < D; j++) {
            const Value *v = delayed->data[d];
            Value *a = tir_value_new(P->a, P->f, v->type);
            a->block = b;
            a->arg_index = first + d * D + j;
            a->name = v->name;
            a->layout = v->layout, a->ax = v->ax; /* a prefetched tile's queue keeps its layout */
            vec_push(P->a, &b->args, a);
            q[d * D + j] = a;
            Value *r = res[d * D + j];
            if (!r) { /* the main loop's: new values */
                r = res[d * D + j] = tir_value_new(P->a, P->f, v->type);
                r->def = P->loop;
            }
            r->name = v->name;
            r->layout = v->layout, r->ax = v->ax;
        }
    return q;
}

/* The yield of the queues: each moves up one (entry j takes j + 1's value)
 * and the last takes the value stage 0 computed in this iteration (mapped
 * through m, in the prologue). */
static void queue_shift(const ValueVec *delayed, int D, Value **q, const VMap *m, Value **out)
{
    for (int d = 0; d < delayed->len; d++) {
        for (int j = 0; j + 1 < D; j++)
            out[d * D + j] = q[d * D + j + 1];
        out[d * D + D - 1] = vmap_get(m, delayed->data[d]);
    }
}

/* The conversion that stages load ld's tile as a dot operand when that is all
 * the body does with it (perhaps through a transpose; a 3-D operand is copied
 * as it is loaded, untransposed), else NULL. */
static Op *operand_stage(Block *body, const Op *ld)
{
    Op *c = single_user(body, ld->results[0]);
    if (c && c->kind == OP_TRANS && ld->results[0]->type.rank == 2)
        c = single_user(body, c->results[0]);
    return c && c->kind == OP_CONVERT && is_dot_stage(c) ? c : NULL;
}

/* The loads of the body that a ring can take: 2-D (or 3-D) tiles read only by
 * their conversion to a dot operand (perhaps through a transpose), zeros where
 * masked, copies of at least 4 bytes.  False when the body holds anything but
 * branches of plain ops, or no such load. */
static bool find_rings(Pipe *P)
{
    Block *body = P->body;
    for (int i = 0; i < body->ops.len; i++) {
        Op *op = body->ops.data[i];
        if (op->nregions && !plain_branch(op, false))
            return false; /* innermost loops only, with branches of plain ops */
        if (op->kind != OP_LOAD || op->load.is_volatile)
            continue;
        int rank = op->results[0]->type.rank;
        if (rank != 2 && rank != 3)
            continue;
        Value *r = op->results[0];
        Op *c = operand_stage(body, op);
        if (!c || !c->results[0]->layout->parent || c->results[0]->layout->parent->kind != LAYOUT_MMA)
            continue;
        if (op->load.has_other && !tir_is_zero_splat(op->args[2]))
            continue; /* cp.async fills masked elements with zeros only */
        DotStage *st = dot_stage_for(P->a, P->f, c->args[0], c->results[0]->layout, P->S, true);
        int v = stage_copy_vec(op->args[0], st, NULL);
        if (v * dtype_bits(r->type.dtype) / 8 < 4)
            continue;
        vec_push(P->a, &P->loads, op);
        vec_push(P->a, &P->converts, c);
        vec_push(P->a, &P->stages, st);
    }
    return P->loads.len > 0;
}

/* Stage 0 (collect_s0) apart from the rest of the body: what the rest reads of
 * it goes into `delayed` (note_ahead); the yield may carry stage 0's own
 * values, and nothing after the loop may read one.  False where the split
 * cannot be made. */
static bool split_stage0(Pipe *P, ValueVec *delayed)
{
    Block *body = P->body;
    Op *y = tir_block_last(body);
    for (int i = 0; i < P->loads.len && P->ok; i++) {
        Op *ld = P->loads.data[i];
        for (int k = 0; k < ld->nargs; k++)
            if (k != 2 || !ld->load.has_other) /* not `other` */
                collect_s0(P, ld->args[k]);
    }
    if (!P->ok)
        return false;
    /* the rest of the body reads what stage 0 computes ahead only through a queue:
     * scalars such as the tile a persistent loop is on */
    for (int i = 0; i < body->ops.len; i++) {
        Op *op = body->ops.data[i];
        if (opvec_has(&P->s0, op) || opvec_has(&P->loads, op))
            continue;
        if (op != y) {
            if (!note_ahead(P, op, delayed))
                return false;
            continue;
        }
        for (int k = 0; k < op->nargs; k++) {
            Value *v = op->args[k];
            if (v->block == body && v->arg_index - 1 == k)
                continue; /* a carried value that does not change (a block pointer's other offset) */
            if (v->def && opvec_has(&P->s0, v->def)) {
                /* stage 0's own carried values may be yielded */
                bool own = false;
                for (int j = 0; j < P->carried.len; j++)
                    if (P->carried.data[j]->arg_index - 1 == k)
                        own = true;
                if (own)
                    continue;
            }
            if (value_in(&P->carried, v))
                return false;
            if (v->def && opvec_has(&P->s0, v->def) && varies(P, v, 0))
                return false;
        }
    }
    for (int j = 0; j < P->carried.len; j++) {
        int k = P->carried.data[j]->arg_index - 1;
        if (P->loop->results[k]->nuses)
            return false;
        /* the carried value's yield must come from stage 0 (or be the value itself) */
        Value *yv = y->args[k];
        if (yv != P->carried.data[j] && !(yv->def && opvec_has(&P->s0, yv->def)))
            return false;
    }
    return true;
}

/* Small loads of the rest of the body (a step's attention weights, a bias row:
 * at most PREFETCH_MAX_VALUES values a thread) whose address stage 0 can
 * compute run ahead with the copies, as guarded loads into registers, and
 * reach the rest through the queue of S-1 carried tiles that scalars use
 * (note_ahead): their latency then hides behind S-1 steps instead of stalling
 * the step that reads them.  Triton stages such loads through shared memory by
 * cp.async; registers are free where the rings' shared memory bounds the
 * blocks per SM. */
#define PREFETCH_MAX_VALUES 16
static void prefetch_loads(Pipe *P)
{
    Block *body = P->body;
    for (int i = 0; i < body->ops.len; i++) {
        Op *op = body->ops.data[i];
        if (op->kind != OP_LOAD || op->load.is_volatile || !op->results[0]->type.rank ||
            opvec_has(&P->loads, op) || opvec_has(&P->s0, op) || !op->results[0]->layout)
            continue;
        /* a dot operand a ring could not take (copies under 4 bytes) stays as it was: two
         * more copies of it cost an fp16 matmul with 2-byte loads a spill on sm_80 */
        if (operand_stage(body, op))
            continue;
        LayoutMap m;
        const Type *t = &op->results[0]->type;
        layout_map(op->results[0]->layout, t->rank, t->shape, &m);
        if ((1 << m.nreg) > PREFETCH_MAX_VALUES)
            continue;
        int ns0 = P->s0.len, nc = P->carried.len;
        collect_s0(P, op->results[0]);
        /* its address needs the rest's values, or does not change (the guard would
         * then zero what the last S-1 steps read): it stays where it is */
        if (!P->ok || !varies(P, op->results[0], 0)) {
            P->s0.len = ns0, P->carried.len = nc, P->ok = true;
            continue;
        }
        vec_push(P->a, &P->prefetch, op);
    }
}

/* The end of one iteration's copies: a cp.async group (none on the TMA path). */
static Op *commit_op(Pipe *P)
{
    Op *c = tir_op_new(P->a, P->f, OP_ASYNC_COMMIT, 0, NULL, 0, NULL);
    c->async_wait.tma = P->tma;
    return c;
}

/* The rings: one local_load per pipelined operand, reading slot `slot`, in
 * place of its conversion. */
static Op **make_rings(Pipe *P, Value *slot)
{
    Op **rings = NEW_ARRAY(P->a, Op *, P->loads.len);
    for (int i = 0; i < P->loads.len; i++) {
        Op *c = P->converts.data[i];
        Op *ll = tir_op_new(P->a, P->f, OP_LOCAL_LOAD, 1, &slot, 0, NULL);
        ll->nres = 1;
        ll->results[0] = c->results[0];
        c->results[0]->def = ll;
        ll->stmt = c->stmt;
        ll->loc = c->loc;
        ll->stage = P->stages.data[i];
        ll->parent = P->body;
        for (int j = 0; j < P->body->ops.len; j++)
            if (P->body->ops.data[j] == c)
                P->body->ops.data[j] = ll;
        rings[i] = ll;
    }
    return rings;
}

/* Does op, or an op of its regions, read a value stage 0 computes that is not
 * carried to it through a queue (delayed)? */
static bool reads_stage0(const Pipe *P, const Op *op, const ValueVec *delayed)
{
    for (int k = 0; k < op->nargs; k++) {
        const Value *v = op->args[k];
        if (v->def && opvec_has(&P->s0, v->def) && !value_in(delayed, v))
            return true;
    }
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            if (reads_stage0(P, op->regions[r]->ops.data[i], delayed))
                return true;
    return false;
}

/* Does the rest of the body (append_rest's ops) read what stage 0 computes
 * directly?  Then stage 0 must come first (copies_late). */
static bool rest_reads_stage0(const Pipe *P, const ValueVec *delayed)
{
    const Block *body = P->body;
    for (int i = 0; i < body->ops.len - 1; i++) {
        const Op *op = body->ops.data[i];
        if (opvec_has(&P->s0, op) || opvec_has(&P->loads, op) || opvec_has(&P->converts, op))
            continue;
        if (reads_stage0(P, op, delayed))
            return true;
    }
    return false;
}

/* A ring of num_stages-1 slots, as Triton's Ampere pipeline keeps: the copies
 * of step i+S-1 go to the slot step i has just read, after the rest of the
 * body and a second barrier.  Worth that barrier where the ring's shared
 * memory is what limits the blocks per SM (a split-K decode step: 2 blocks
 * with 3 slots, 3 with 2); only for dots that read their slots before the
 * step ends (no wgmma group left in flight) and S >= 3, so that a copy still
 * runs a step ahead; the copies come last (copies_late). */
static bool tight_ring_pays(const Pipe *P)
{
    return P->S >= 3 && blocks_per_sm(P, P->S - 1, false) > blocks_per_sm(P, P->S, false);
}

/* Does a ring's copy wait for another load of the step: its address or mask
 * computed from a loaded value (a block table's entry, a tile of gather
 * indices)?  Found on the body as written, before stage 0 is split off.  A
 * load whose value only the rest of the body reads (prefetch_loads: a step's
 * block scales) holds no copy up. */
static bool copies_wait_for_loads(const Pipe *P)
{
    ValueVec loaded = {0};
    for (int i = 0; i < P->body->ops.len; i++) {
        const Op *op = P->body->ops.data[i];
        bool from = op->kind == OP_LOAD && !opvec_has(&P->loads, op);
        for (int a = 0; a < op->nargs && !from; a++)
            from = value_in(&loaded, op->args[a]);
        for (int r = 0; from && r < op->nres; r++)
            vec_push(P->a, &loaded, op->results[r]);
    }
    for (int i = 0; i < P->loads.len; i++) {
        const Op *ld = P->loads.data[i];
        for (int a = 0; a < ld->nargs; a++)
            if (value_in(&loaded, ld->args[a]))
                return true;
    }
    return false;
}

/* Do the copies of the step ahead (stage 0 and its copies) go after the rest
 * of the body, as Triton places them?  Then the tensor cores already run the
 * step's dots (wgmma's groups in flight, mma.sync's queued) while each thread
 * works out the copies' addresses: 9% on a bf16 attention of head dim 128 on
 * the H200, the same elsewhere.  Not where the rest reads what stage 0
 * computes directly (a load that is the same in every step), and not where
 * a copy's address comes from another load of the step: the copies then wait
 * for that load, and at the end of the step the wait held up the next step
 * (paged attention with a block table, 0.86x Triton late against 0.99x early,
 * on an H100); a load run ahead only for the rest (a step's scales) does not
 * count (copies_wait_for_loads), and not where the
 * dots' accumulators take more than LATE_MAX_ACC registers a thread: the
 * copies' addresses are then live across the dots, and a 128x128 matmul on
 * 4 warps (128 a thread) spilled in its mma.sync path.  Measured: bf16
 * attention of head dim 128 on 8 warps (96 a thread) 1.10x -> 1.19x; the
 * 128-a-thread kernels (fp16 attention d64, the 128x256 matmul) the same
 * either way. */
enum { LATE_MAX_ACC = 96 };

/* Is the loop an attention step for Hopper: a chain of dots (the kernel's
 * dot_chain) under --arch sm_90 or later, which tir_wgmma puts on wgmma?
 * There the late copies pay even past LATE_MAX_ACC, as in Triton's loop,
 * which issues them after the second dot: fp16 attention of head dim 64 on
 * 4 warps (128 a thread), causal, 1.16x -> 1.19x Triton on the H200; not
 * causal 0.97x either way.  A plain matmul past LATE_MAX_ACC (128x256 on 8
 * warps) keeps its order, measured the same either way.  The mma.sync path
 * of the same file (a build for plain sm_90) shares the order.  Not under
 * the caller's --min-blocks: its register bound already spills there, and
 * the addresses live across the dots spilled more (FA2 fp16 d64 with
 * --min-blocks 3: 104 -> 124 bytes, 0.81x -> 0.77x Triton). */
static bool hopper_chain(const Pipe *P)
{
    return P->f->dot_chain && P->f->arch >= 90 && !P->f->min_blocks_asked;
}

static bool copies_late(const Pipe *P, const ValueVec *delayed)
{
    return !rest_reads_stage0(P, delayed) && !P->copies_wait &&
           (dot_acc_per_thread(P) <= LATE_MAX_ACC || hopper_chain(P));
}

/* Does an op of b, from its first up to op `end` (excluded), read a result of an op of c? */
static bool reads_results_of(const Block *b, int end, const Block *c)
{
    for (int i = 0; i < end; i++)
        for (int j = 0; j < c->ops.len; j++)
            for (int r = 0; r < c->ops.data[j]->nres; r++)
                if (tir_op_reads(b->ops.data[i], c->ops.data[j]->results[r]))
                    return true;
    return false;
}

/* The copies of the step ahead (last) go right after the first dot of the
 * rest, ahead of its wgmma wait: the threads address and issue them while
 * the tensor cores run the group, as Triton's loop does, and only then wait
 * for the accumulators.  Two cases gain, each measured on the H200:
 *  - cp.async copies that come after the dots anyway (copies_late), where
 *    the step reads its dot's result at once: unsloth's block-scaled fp8
 *    matmul 0.96x -> 1.04x Triton.  Where they come first (attention on
 *    cp.async), moving them measured 0.97x -> 0.96x, and they stay.
 *  - TMA copies on one warpgroup, which one thread issues: the warpgroup's
 *    first wgmma no longer waits for warp 0 to issue them (fp16 attention on
 *    descriptors, head dim 64: 0.96x -> 1.00x, causal 0.95x -> 0.96x).  With
 *    two or more warpgroups the copying thread waits on a free barrier that
 *    its own warpgroup arrives at after the wait: they stay put.
 * For cp.async the dot must be on wgmma already (both operands in rings);
 * under TMA any first dot, which tir_wgmma may yet put on wgmma (a query tile
 * staged once).  The copies fill the slot the step before read, which the
 * loop's first barrier freed; the dot reads this step's slot, and no copy
 * reads its result (stage 0 is computed a step ahead).  The ops are marked
 * so that the emitter puts the wait after the last of them, and before any
 * op a later pass puts among them; where the dot is not on wgmma in the end,
 * only the order changes.  Returns whether it moved them: rest then holds
 * them. */
static bool shadow_copies(Pipe *P, Block *rest, Block *last)
{
    int d = 0;
    while (d < rest->ops.len && !(rest->ops.data[d]->kind == OP_DOT && (P->tma || rest->ops.data[d]->dot.wgmma)))
        d++;
    if (d == rest->ops.len || !last->ops.len || rest->ops.data[d]->dot.wgmma_pending)
        return false; /* a group left in flight (wgmma_pending) already overlaps the copies */
    if (reads_results_of(rest, d + 1, last))
        return false; /* the rest reads what stage 0 computes before the dot */
    Block merged = {0};
    for (int i = 0; i <= d; i++)
        vec_push(P->a, &merged.ops, rest->ops.data[i]);
    for (int i = 0; i < last->ops.len; i++) {
        last->ops.data[i]->wgmma_shadow = true;
        vec_push(P->a, &merged.ops, last->ops.data[i]);
    }
    for (int i = d + 1; i < rest->ops.len; i++)
        vec_push(P->a, &merged.ops, rest->ops.data[i]);
    rest->ops.data[d]->dot.wgmma_shadowed = true;
    last->ops.data[0]->note = arena_printf(P->a, "the copies of the step %d ahead, issued while this step's first dot "
                                                 "runs (on wgmma): the tensor cores work on it while the threads "
                                                 "issue these", P->S - 1);
    *rest = merged;
    last->ops.len = 0;
    return true;
}

static void append_all(Pipe *P, Block *dst, const Block *src)
{
    for (int i = 0; i < src->ops.len; i++)
        tir_block_append(P->a, dst, src->ops.data[i]);
}

static void pipeline_loop(Ctx *ctx, TirFunc *f, Block *parent, int at, Op *loop)
{
    Pipe P = {.ctx = ctx, .a = &ctx->arena, .f = f, .loop = loop, .body = loop->regions[0], .S = f->num_stages,
              .ok = true};
    Block *body = P.body;
    Value *iv = body->args.data[0];
    /* an int64 induction variable (bounds from int64 offsets, a program id widened
     * against overflow) pipelines as an int32 one; the prologue's and the slots'
     * counters stay int32 */
    Type ivt = iv->type;
    if (P.S < 2 || (ivt.dtype != DT_I32 && ivt.dtype != DT_I64) || !body->ops.len)
        return;
    Op *y = tir_block_last(body);
    if (y->kind != OP_YIELD)
        return;
    if (!find_rings(&P))
        return;
    P.copies_wait = copies_wait_for_loads(&P);
    /* a body with branches (an epilogue in the loop) exchanges data through shared memory
     * while the rings hold theirs: where a whole tile's exchange would not fit beside
     * them, the loop is left as it is, as it translated before */
    if (has_branch(body) && ring_bytes(&P, P.S) + largest_exchange(body) > tir_smem_limit(f->arch))
        return;
    fold_acc_reset(&P);
    bool wgmma_loop = wgmma_dots(&P);
    int in_flight = wgmma_loop ? wgmma_in_flight(&P) : group_may_stay(&P);
    int nring = P.S + (P.hold ? 0 : in_flight);
    /* warp specialisation: the consumers release a slot once its wgmma group is done,
     * so the producer never overwrites one still read, and the ring keeps num_stages
     * slots (its bytes live all kernel long, beside the epilogue's) */
    if (tir_ws_asked(loop)) {
        const char *ws_why = tir_ws_refusal(P.a, f, loop, P.loads.data, P.loads.len);
        if (!ws_why && !(wgmma_loop && tma_fits(&P)))
            ws_why = "the loop's blocks do not go through TMA into wgmma operands";
        if (!ws_why) {
            P.ws = true;
            P.hold = false;
            nring = P.S;
        }
        for (Op *o = loop; ws_why && o; o = o->parent ? o->parent->parent : NULL)
            if (o->kind == OP_FOR && o->for_.warp_specialize && !o->for_.ws_refused)
                o->for_.ws_refused = ws_why;
    }
    for (int i = 0; i < P.stages.len; i++)
        P.stages.data[i]->nslots = nring;
    ValueVec delayed = {0};
    prefetch_loads(&P);
    bool split = split_stage0(&P, &delayed);
    if (!split && P.prefetch.len) { /* the loop as it pipelined before: no prefetches */
        P.prefetch.len = P.s0.len = P.carried.len = delayed.len = 0;
        P.ok = true;
        split = split_stage0(&P, &delayed);
    }
    if (!split)
        return;
    tma_ring(&P, nring);
    bool late = copies_late(&P, &delayed);
    if (P.hold) { /* the copies must come last (the accumulators' count does not matter here) */
        late = !P.tma && !rest_reads_stage0(&P, &delayed) && !P.copies_wait;
        if (!late) { /* each step waits for its own group */
            P.hold = false;
            in_flight = 0;
            set_wgmma_pending(&P, 0);
        }
    }
    bool tight = late && !in_flight && !P.tma && tight_ring_pays(&P);
    if (tight) {
        nring = P.S - 1;
        for (int i = 0; i < P.stages.len; i++)
            P.stages.data[i]->nslots = nring;
    }
    for (int i = 0; i < P.stages.len; i++)
        P.stages.data[i]->hold = P.hold; /* for the .cu's header */

    Type i32 = type_scalar(DT_I32);
    Value *slot_r = tir_value_new(P.a, f, i32), *slot_w = tir_value_new(P.a, f, i32);
    slot_r->name = "read_slot";
    slot_w->name = "write_slot";
    Op **rings = make_rings(&P, slot_r);

    /* ---- the prologue: for s < S-1, the copies of iteration s into slot s */
    Value *lb = loop->args[0], *ub = loop->args[1], *step = loop->args[2];
    int D = P.S - 1;
    int nc = P.carried.len, nq = delayed.len * D; /* stage 0's carried values, the queues */
    Value **pargs = NEW_ARRAY(P.a, Value *, 3 + nc + nq);
    Type *ptypes = NEW_ARRAY(P.a, Type, nc + nq > 0 ? nc + nq : 1);
    Value *zero = mk_const_i32(&P, parent, at, 0, loop);
    Value *dist = mk_const_i32(&P, parent, at + 1, D, loop);
    Value *one = mk_const_i32(&P, parent, at + 2, 1, loop);
    Value *nslots = mk_const_i32(&P, parent, at + 3, nring, loop);
    at += 4;
    Value *dist_iv = dist; /* the distance ahead in the induction variable's type */
    if (ivt.dtype != DT_I32)
        dist_iv = mk_const(&P, parent, at++, D, ivt, loop);
    pargs[0] = zero, pargs[1] = dist, pargs[2] = one;
    for (int j = 0; j < nc; j++) {
        Value *c = P.carried.data[j];
        pargs[3 + j] = loop->args[3 + c->arg_index - 1];
        ptypes[j] = c->type;
    }
    for (int d = 0; d < delayed.len; d++) { /* the queues start empty (zeros), filled by the prologue */
        Type t = delayed.data[d]->type;
        Op *z = tir_op_new(P.a, f, OP_CONST, 0, NULL, 1, &t);
        z->stmt = loop->stmt, z->loc = loop->loc;
        z->results[0]->layout = delayed.data[d]->layout;
        tir_block_insert(P.a, parent, at++, z);
        for (int j = 0; j < D; j++) {
            pargs[3 + nc + d * D + j] = z->results[0];
            ptypes[nc + d * D + j] = t;
        }
    }
    Op *pro = tir_op_new(P.a, f, OP_FOR, 3 + nc + nq, pargs, nc + nq, ptypes);
    pro->stmt = loop->stmt;
    pro->loc = loop->loc;
    Block *pb = tir_block_new(P.a, pro);
    pro->regions[0] = pb;
    pro->nregions = 1;
    Value *s = tir_value_new(P.a, f, i32);
    s->name = "i"; /* prologue iteration i fills slot i */
    s->block = pb;
    s->arg_index = 0;
    vec_push(P.a, &pb->args, s);
    VMap pm = {0};
    for (int j = 0; j < nc; j++) {
        Value *c = P.carried.data[j];
        Value *a = tir_value_new(P.a, f, c->type);
        a->block = pb;
        a->arg_index = j + 1;
        a->layout = c->layout;
        a->ax = c->ax;
        a->name = c->name;
        vec_push(P.a, &pb->args, a);
        vmap_put(&P, &pm, c, a);
        pro->results[j]->layout = c->layout;
        pro->results[j]->ax = c->ax;
        pro->results[j]->name = c->name;
    }
    Value **pq = queue_args(&P, pb, &delayed, nc + 1, pro->results + nc);
    pro->for_.queues = delayed.len;
    pro->for_.queue_first = nc;
    pro->for_.queue_depth = D;
    /* iv of iteration s: lb + s * step; it exists when below ub */
    Value *s_iv = ivt.dtype == DT_I32 ? s : mk_op(&P, pb, OP_CAST, 1, (Value *[]){s}, ivt, loop);
    Value *t = mk_op(&P, pb, OP_MUL, 2, (Value *[]){s_iv, step}, ivt, loop);
    Value *ivs = mk_op(&P, pb, OP_ADD, 2, (Value *[]){lb, t}, ivt, loop);
    ivs->name = "k_ahead";
    Value *pred = mk_op(&P, pb, OP_CMP, 2, (Value *[]){ivs, ub}, type_scalar(DT_I1), loop);
    pred->name = "in_range";
    if (!ub->name)
        ub->name = "trips";
    pred->def->cmp.pred = CMP_LT;
    vmap_put(&P, &pm, iv, ivs);
    for (int i = 0; i < body->ops.len; i++) {
        if (!opvec_has(&P.s0, body->ops.data[i]))
            continue;
        Op *c = clone_into(&P, pb, body->ops.data[i], &pm);
        if (ahead_load(c)) {
            pb->ops.len--;
            guard_ahead_load(&P, pb, c, pred, loop);
            tir_block_append(P.a, pb, c);
        }
    }
    emit_copies(&P, pb, &pm, pred, s, rings);
    tir_block_append(P.a, pb, commit_op(&P));
    Value **yargs = NEW_ARRAY(P.a, Value *, nc + nq > 0 ? nc + nq : 1);
    for (int j = 0; j < nc; j++)
        yargs[j] = vmap_get(&pm, y->args[P.carried.data[j]->arg_index - 1]);
    queue_shift(&delayed, D, pq, &pm, yargs + nc);
    Op *py = tir_op_new(P.a, f, OP_YIELD, nc + nq, yargs, 0, NULL);
    tir_block_append(P.a, pb, py);
    for (int i = 0; i < pb->ops.len; i++)
        pb->ops.data[i]->parent = pb;
    tir_block_insert(P.a, parent, at++, pro);
    for (int j = 0; j < nc; j++)
        loop->args[3 + P.carried.data[j]->arg_index - 1] = pro->results[j];

    /* ---- the loop: more carried values, the slots and the queues */
    int nres = loop->nres;
    Value **nargs = NEW_ARRAY(P.a, Value *, loop->nargs + 2 + nq);
    memcpy(nargs, loop->args, sizeof(Value *) * (size_t)loop->nargs);
    nargs[loop->nargs] = zero;
    nargs[loop->nargs + 1] = tight ? zero : dist; /* the slot of iteration S-1: (S-1) % nring */
    for (int j = 0; j < nq; j++)
        nargs[loop->nargs + 2 + j] = pro->results[nc + j];
    loop->args = nargs;
    loop->nargs += 2 + nq;
    Value **nr = NEW_ARRAY(P.a, Value *, nres + 2 + nq);
    memcpy(nr, loop->results, sizeof(Value *) * (size_t)nres);
    for (int k = 0; k < 2; k++) {
        nr[nres + k] = tir_value_new(P.a, f, i32);
        nr[nres + k]->def = loop;
        nr[nres + k]->name = k ? "write_slot" : "read_slot";
    }
    slot_r->block = body;
    slot_r->arg_index = nres + 1;
    slot_w->block = body;
    slot_w->arg_index = nres + 2;
    vec_push(P.a, &body->args, slot_r);
    vec_push(P.a, &body->args, slot_w);
    Value **lq = queue_args(&P, body, &delayed, nres + 3, nr + nres + 2);
    loop->results = nr;
    loop->nres += 2 + nq;

    /* new body: wait + barrier, the rest, stage 0 for iteration i + S-1, copies, commit,
     * slots, yield (copies_late says when stage 0 comes before the rest instead) */
    Block nb = {0}, ahead = {0}, rest = {0};
    Op *w = tir_op_new(P.a, f, OP_ASYNC_WAIT, P.tma ? 2 : 0, (Value *[]){slot_r, slot_w}, 0, NULL);
    w->async_wait.pending = P.S - 2;
    w->async_wait.tma = P.tma;
    w->stmt = rings[0]->stmt;
    w->loc = rings[0]->loc;
    tir_block_append(P.a, &nb, w);
    Value *ahead_off = mk_op(&P, &ahead, OP_MUL, 2, (Value *[]){step, dist_iv}, ivt, loop);
    Value *iva = mk_op(&P, &ahead, OP_ADD, 2, (Value *[]){iv, ahead_off}, ivt, loop);
    iva->name = "k_ahead";
    Value *preda = mk_op(&P, &ahead, OP_CMP, 2, (Value *[]){iva, ub}, type_scalar(DT_I1), loop);
    preda->name = "in_range";
    preda->def->cmp.pred = CMP_LT;
    /* Which loads of stage 0 to guard: those that change from step to step.  A load
     * that does not is read by the rest as it is, not through a queue (note_ahead),
     * so a guard would zero it for the last S-1 steps; its address held in the first
     * step, so reading it unguarded in each step the loop runs is safe.  Decided before
     * any operand is rewritten to the step ahead, which varies() could not follow. */
    bool *guard = NEW_ARRAY(P.a, bool, (size_t)body->ops.len + 1);
    for (int i = 0; i < body->ops.len; i++) {
        Op *op = body->ops.data[i];
        guard[i] = opvec_has(&P.s0, op) && ahead_load(op) && varies(&P, op->results[0], 0);
    }
    for (int i = 0; i < body->ops.len; i++) {
        Op *op = body->ops.data[i];
        if (!opvec_has(&P.s0, op))
            continue;
        tir_op_replace_uses(op, iv, iva);
        if (guard[i])
            guard_ahead_load(&P, &ahead, op, preda, loop);
        tir_block_append(P.a, &ahead, op);
    }
    VMap none = {0};
    VMap ahead_iv = {0}; /* a TMA copy's offset may be the induction variable itself */
    vmap_put(&P, &ahead_iv, iv, iva);
    emit_copies(&P, &ahead, &ahead_iv, preda, slot_w, rings);
    tir_block_append(P.a, &ahead, commit_op(&P));
    append_rest(&P, &rest, &delayed, lq);
    /* Where the copies come last, stage 0's ops up to its last branch (a
     * persistent loop's move to its next tile) still come first, as in
     * Triton's loop: only the copies' addresses need to overlap the dots,
     * and the persistent matmul with that branch after its dots as well ran
     * 1.7% slower (H200, 0.986x against 1.003x Triton). */
    int early = 0;
    for (int i = 0; late && i < ahead.ops.len; i++)
        if (ahead.ops.data[i]->nregions)
            early = i + 1;
    Block first = {0}, last = {0};
    for (int i = 0; i < ahead.ops.len; i++)
        vec_push(P.a, i < early ? &first.ops : &last.ops, ahead.ops.data[i]);
    if (late)
        last.ops.data[0]->note = arena_printf(P.a, "the copies of the step %d ahead, issued after this step's dots: "
                                                   "the tensor cores work on those while the threads address these", D);
    append_all(&P, &nb, &first);
    /* copies moved into the rest come after nothing else: as late ones do */
    if (!tight && !P.hold && (P.tma ? !tir_tma_free_barriers(f) : late) && shadow_copies(&P, &rest, &last))
        late = true;
    append_all(&P, &nb, late ? &rest : &last);
    if (tight || P.hold) {
        Op *bar = tir_op_new(P.a, f, OP_BARRIER, 0, NULL, 0, NULL);
        bar->note = tight ? "every warp is done with this step's slot: the copies below reuse it"
                          : "every warpgroup's wgmma of the step before is done with its slot (the wait after "
                            "this step's wgmma): the copies below reuse it";
        bar->stmt = w->stmt;
        bar->loc = w->loc;
        tir_block_append(P.a, &nb, bar);
    }
    append_all(&P, &nb, late ? &last : &rest);
    Value *next[2];
    Value *slots[2] = {slot_r, slot_w};
    for (int k = 0; k < 2; k++) {
        /* (slot + 1 == S) ? 0 : slot + 1, each increment an op of its own with one user,
         * so that both print inside the select (this form, not slot == S-1, is the one
         * ptxas gave the fewest registers for attention) */
        Value *inc = mk_op(&P, &nb, OP_ADD, 2, (Value *[]){slots[k], one}, i32, loop);
        Value *wrap = mk_op(&P, &nb, OP_CMP, 2, (Value *[]){inc, nslots}, type_scalar(DT_I1), loop);
        wrap->def->cmp.pred = CMP_EQ;
        Value *inc2 = mk_op(&P, &nb, OP_ADD, 2, (Value *[]){slots[k], one}, i32, loop);
        next[k] = mk_op(&P, &nb, OP_SELECT, 3, (Value *[]){wrap, zero, inc2}, i32, loop);
    }
    Value **yv = NEW_ARRAY(P.a, Value *, y->nargs + 2 + nq);
    memcpy(yv, y->args, sizeof(Value *) * (size_t)y->nargs);
    yv[y->nargs] = next[0];
    yv[y->nargs + 1] = next[1];
    queue_shift(&delayed, D, lq, &none, yv + y->nargs + 2);
    y->args = yv;
    y->nargs += 2 + nq;
    tir_block_append(P.a, &nb, y);
    body->ops = nb.ops;
    for (int i = 0; i < body->ops.len; i++)
        body->ops.data[i]->parent = body;

    /* after the loop: every copy landed, every warp done with the ring (and
     * every wgmma group waited for inside the loop's guard: emit_for) */
    Op *drain = tir_op_new(P.a, f, OP_ASYNC_WAIT, 0, NULL, 0, NULL);
    drain->async_wait.pending = 0;
    drain->async_wait.tma = P.tma;
    loop->for_.wgmma_drain = wgmma_loop && in_flight;
    drain->stmt = loop->stmt;
    drain->loc = loop->loc;
    tir_block_insert(P.a, parent, at + 1, drain);
}

static void pipeline_block(Ctx *ctx, TirFunc *f, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            pipeline_block(ctx, f, op->regions[r]);
        if (op->kind == OP_FOR) {
            int before = b->ops.len;
            pipeline_loop(ctx, f, b, i, op);
            i += b->ops.len - before; /* skip what was inserted around it */
        }
    }
}

void tir_pipeline(Ctx *ctx, TirFunc *f)
{
    if (f->uses_dot && f->num_stages >= 2) {
        pipeline_block(ctx, f, f->body);
        tir_simplify(ctx, f);
    }
    tir_ws_warn(ctx, f);
}

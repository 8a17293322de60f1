/*
 * dot_reload.c — a tl.dot operand made before the loop of its dot stays in
 * shared memory, and the dot reads its fragments there in every iteration
 * (tir_dot_reload).
 *
 * Attention's q is loaded once, before the loop over blocks of keys, and is
 * operand A of the loop's first dot.  Converted to the operand layout where
 * it is made, its fragments would sit in registers for the whole loop (at
 * 128x64 fp16 over 4 warps, 32 per thread next to the 64 of the accumulator
 * and the 64 of the scores), and ptxas, short of registers, serialises the
 * loop's mma.sync.  Triton keeps such an operand in shared memory instead.
 * In Triton 3.6's passes (seen in its MLIR_ENABLE_DUMP output for
 * attn_fwd): AccelerateMatmul puts q's convert_layout to the dot operand
 * layout next to the dot, in the loop; TritonLICM hoists it out; late,
 * ReduceDataDuplication turns it into a local_alloc (the tile written to its
 * swizzled buffer) and a local_load (ldmatrix into the fragments), both
 * still before the loop; then ReorderInstructions
 * (lib/Dialect/TritonGPU/Transforms/ReorderInstructions.cpp: "sink
 * conversions into loops when they will increase register pressure", its
 * willIncreaseRegisterPressure being true of every local_load and of every
 * convert_layout into a dot operand layout) moves each such op that has one
 * user, whose enclosing scf.for is not the op's own, to just before that
 * user, in the loop.  So the conversion is not left hoisted: only the
 * local_alloc stays where the value is made.  There is no threshold of
 * registers: the rule is the shape of the program alone.  The same here:
 *
 *   a conversion into a dot operand layout through shared memory (not one
 *   that only packs registers: dot_operand_in_registers), used once, by an
 *   mma.sync dot whose innermost for loop is not its own,
 *
 * becomes a local_alloc where it was and a local_load just before the dot,
 * which the emitter reads one K step at a time inside the dot (fused_read),
 * as it reads a pipelined operand.  After the op that holds the dot (the
 * loop) every warp must be done with the buffer before its bytes are
 * written again: the barrier after the loop does it, the pipeline's drain
 * where there is one (tir_smem keeps the buffer live until then).
 *
 * The buffer lives through the loop with the loop's pipeline rings.  Where
 * the two would not fit in a block's shared memory the operand stays in
 * registers, as before: a kernel that translated still does (Triton, whose
 * attention rings have a slot fewer, would report that it is out of shared
 * memory instead).
 *
 * Where a later loop's dot reads the same value in the same fragments (a
 * helper called twice, as attention's keys below the diagonal and then on
 * it), that dot reads the same buffer: written once, live through both loops
 * (share).  Triton's CSE merges the two conversions; the local_load, then
 * used twice, stays hoisted and the fragments stay in registers through both
 * loops.  Here they do not, and the tile is not held in registers through the
 * first loop to be written again after it (the attn family's seed 7170: 32
 * registers more through that loop, where ptxas 13.0 at -O3, spilling, then
 * lost part of q; its -O1 was right).
 *
 * Under --arch sm_90 the same split serves a dot that adds onto a wgmma
 * loop's result right after the loop (a K loop's peeled tail, which
 * dot_wgmma_candidate gives the loop's layout): its operands, converted just
 * before it, go to NVMMA buffers there and wgmma reads them in place
 * (stage_beside); a barrier after the dot frees them.
 *
 * In an unpipelined loop, an mma.sync dot's operands converted just before
 * it are read the same way, one K step at a time from buffers written there
 * (stage_beside_mma_sync).
 *
 * TILEC_DOT_RELOAD=0 in the environment keeps such operands in registers
 * (docs/CLI.md: a tuning knob, read by the driver).
 */
#include "tir.h"

typedef struct Reload {
    Arena *a;
    TirFunc *f;
    Op **user;   /* by value id: its user (the uses are counted in Value.nuses) */
} Reload;

static void find_users(Reload *R, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nargs; k++)
            R->user[op->args[k]->id] = op;
        for (int r = 0; r < op->nregions; r++)
            find_users(R, op->regions[r]);
    }
}

/* The innermost for loop around op, or NULL (Triton's getParentOfType<scf::ForOp>). */
static const Op *enclosing_for(const Op *op)
{
    for (const Block *b = op->parent; b && b->parent; b = b->parent->parent)
        if (b->parent->kind == OP_FOR)
            return b->parent;
    return NULL;
}

/* The op of block b that holds op: op itself, or the loop or branch around it. */
static Op *holder_in(const Block *b, Op *op)
{
    while (op && op->parent != b)
        op = op->parent->parent;
    return op;
}

/* The dot that reads convert c's result in a loop of its own, or NULL. */
static Op *reloading_dot(const Reload *R, const Op *c)
{
    if (c->kind != OP_CONVERT || !is_dot_stage(c))
        return NULL;
    const Value *r = c->results[0];
    Op *d = R->user[r->id];
    if (r->nuses != 1 || !d || d->kind != OP_DOT || !dot_uses_mma(d) || d->dot.wgmma || d->args[2] == r)
        return NULL;
    return enclosing_for(d) != enclosing_for(c) ? d : NULL;
}

/* Shared bytes the staged operands read inside op hold for all of it: the
 * pipeline rings and the buffers of operands already reloaded there. */
static int bytes_read_in(const Op *op)
{
    int n = 0;
    for (int r = 0; r < op->nregions; r++) {
        const Block *b = op->regions[r];
        for (int i = 0; i < b->ops.len; i++) {
            const Op *o = b->ops.data[i];
            if (o->kind == OP_LOCAL_LOAD && o->stage)
                n += dot_stage_slot_bytes(o->stage) * o->stage->nslots;
            n += bytes_read_in(o);
        }
    }
    return n;
}

static int index_in(const Block *b, const Op *op)
{
    int i = tir_op_index(b, op);
    if (i < 0)
        BUG("op %s is not in its parent block", op_name(op->kind));
    return i;
}

/* A local_load of alloc's buffer just before dot d, in place of convert c's
 * result; alloc's last reader from now on. */
static Op *read_before(Reload *R, Op *c, Op *d, Op *alloc)
{
    Value *r = c->results[0];
    Op *ll = tir_op_new(R->a, R->f, OP_LOCAL_LOAD, 0, NULL, 0, NULL);
    ll->nres = 1;
    ll->results[0] = r;
    r->def = ll;
    ll->stmt = c->stmt;
    ll->loc = c->loc;
    ll->stage = alloc->stage;
    ll->buf = alloc;
    alloc->buf = ll;
    tir_block_insert(R->a, d->parent, index_in(d->parent, d), ll);
    return ll;
}

/* Every warp is done with alloc's buffer once the op of b that holds its
 * reader ll is over (dot d itself, or d's loop): the pipeline's drain (a
 * wait and a barrier) when it follows, a barrier already there (one for
 * both operands of a dot), else a barrier of its own. */
static void free_after(Reload *R, Block *b, Op *d, Op *ll, Op *alloc)
{
    Op *loop = d->parent == b ? d : holder_in(b, ll);
    int at = index_in(b, loop) + 1;
    if (at < b->ops.len && (b->ops.data[at]->kind == OP_ASYNC_WAIT || b->ops.data[at]->kind == OP_BARRIER))
        return;
    Op *bar = tir_op_new(R->a, R->f, OP_BARRIER, 0, NULL, 0, NULL);
    bar->stmt = loop->stmt;
    bar->loc = loop->loc;
    bar->buf = alloc;
    tir_block_insert(R->a, b, at, bar);
}

/* Convert c (op i of b) into a local_alloc there, storing as s, and a
 * local_load before dot d. */
static void split(Reload *R, Block *b, int i, Op *c, Op *d, DotStage *s)
{
    Op *alloc = tir_op_new(R->a, R->f, OP_LOCAL_ALLOC, 1, &c->args[0], 0, NULL);
    alloc->stmt = c->stmt;
    alloc->loc = c->loc;
    alloc->stage = s;
    alloc->parent = b;
    b->ops.data[i] = alloc;
    free_after(R, b, d, read_before(R, c, d, alloc), alloc);
}

/* A dot given the wgmma layout (mma_version 3) whose operands come to it
 * through shared memory right before it (dot_wgmma_candidate: the tail of a
 * K loop) reads them in place instead, in NVMMA buffers, so that it runs on
 * wgmma: both converts, made just before the dot with nothing else between
 * them and it, become local_allocs and local_loads, and a barrier after the
 * dot frees their bytes (tir_smem keeps the first buffer live past the
 * second's stores).  Not where either buffer would not be in the NVMMA
 * layout (wgmma could not read it; mma.sync reads its registers as well as
 * before), nor where A is already in registers (wgmma takes it from there).
 * The dots of an attention chain keep mma.sync's layout (version 2, every
 * warp on M) and their operands' staging as before. */
static bool stage_beside(Reload *R, Block *b, int i, Op *d)
{
    const Layout *acc = d->results[0]->layout;
    if (d->dot.wgmma || !acc || acc->kind != LAYOUT_MMA || acc->mma_version != 3 || !wgmma_dot_fits(R->f, d) ||
        d->args[0]->nuses != 1 || d->args[1]->nuses != 1)
        return false;
    int at = index_in(b, d), n = 0;
    Op *conv[2] = {NULL, NULL};
    for (int j = i; j < at; j++) {
        Op *c = b->ops.data[j];
        int k = c->nres == 1 && c->results[0] == d->args[0] ? 0 : c->nres == 1 && c->results[0] == d->args[1] ? 1 : -1;
        if (k < 0 || c->kind != OP_CONVERT || !is_dot_stage(c))
            return false;
        conv[k] = c;
        n++;
    }
    if (n != 2)
        return false;
    DotStage *s[2];
    for (int k = 0; k < 2; k++) {
        s[k] = dot_stage_for(R->a, R->f, conv[k]->args[0], conv[k]->results[0]->layout, 1, true);
        if (!s[k]->nvmma || (k == 0 && s[k]->contig_dim != 1))
            return false;
    }
    for (int k = 0; k < 2; k++)
        split(R, b, index_in(b, conv[k]), conv[k], d, s[k]);
    return true;
}

/* The local_alloc before op i of b that already stages convert c's source
 * for the same fragments (a dot in an earlier loop reads it), or NULL. */
static Op *staged_before(Block *b, int i, const Op *c)
{
    for (int j = 0; j < i; j++) {
        Op *o = b->ops.data[j];
        if (o->kind == OP_LOCAL_ALLOC && !local_alloc_beside(o) && o->args[0] == c->args[0] &&
            layout_eq(o->buf->results[0]->layout, c->results[0]->layout))
            return o;
    }
    return NULL;
}

/* Convert c (op i of b) reads what alloc, earlier in b, already holds in
 * shared memory: dot d, in a later loop, reads its fragments there too (the
 * two calls of an attention kernel's inner loop, off the diagonal and on it,
 * both read q).  The buffer then lives through d's loop as well, and is
 * written once: c goes, a local_load before d takes its result, and the
 * barrier that freed the buffer after the earlier loop moves after d's.
 * Staged twice, the tile would stay in registers through the first loop,
 * to be written again after it. */
static void share(Reload *R, Block *b, int i, Op *c, Op *d, Op *alloc)
{
    tir_block_remove(b, i);
    Op *ll = read_before(R, c, d, alloc);
    for (int j = 0; j < b->ops.len; j++)
        if (b->ops.data[j]->kind == OP_BARRIER && b->ops.data[j]->buf == alloc) {
            tir_block_remove(b, j);
            break;
        }
    free_after(R, b, d, ll, alloc);
}

/* Does block b wait for a pipeline's copies (the body of a pipelined loop)? */
static bool pipelined_body(const Block *b)
{
    for (int i = 0; i < b->ops.len; i++)
        if (b->ops.data[i]->kind == OP_ASYNC_WAIT)
            return true;
    return false;
}

/* An mma.sync dot whose operand goes through shared memory right before it
 * (a convert, not a pipeline ring) reads that operand's fragments one K step
 * at a time from the buffer, as it reads a ring's, instead of loading them
 * all between two barriers: for a 64x64 fp16 B on 4 warps, 16 registers a
 * step instead of 64 at once.  The converts of both operands (either alone
 * where the other comes from registers or another buffer) must stand just
 * before the dot, with only the dot's other operand's reads between; each
 * becomes a local_alloc and a local_load, and the barrier after the dot frees
 * the buffers, which live together (where they would not fit in shared
 * memory beside what the loop reads, the converts stay).  Only in an
 * unpipelined loop, where each exchange ends with a barrier anyway (two
 * operands then take three barriers instead of four): outside loops the next
 * exchange's barrier frees such buffers, and in a pipelined loop the wait for
 * the ring's copies does (tir_smem), so one after the dot would be one more. */
static bool stage_beside_mma_sync(Reload *R, Block *b, int i, Op *d)
{
    const Layout *acc = d->results[0]->layout;
    if (d->dot.wgmma || !dot_uses_mma(d) || !acc || acc->kind != LAYOUT_MMA || acc->mma_version != 2 ||
        d->results[0]->type.rank != 2 || d->dot.precision == DOT_TF32X3 || !enclosing_for(d) ||
        pipelined_body(d->parent))
        return false;
    int at = index_in(b, d);
    Op *conv[2] = {NULL, NULL};
    for (int j = i; j < at; j++) {
        Op *c = b->ops.data[j];
        int k = c->nres == 1 && c->results[0] == d->args[0] ? 0 : c->nres == 1 && c->results[0] == d->args[1] ? 1 : -1;
        if (k < 0)
            return false;
        if (c->kind == OP_LOCAL_LOAD)
            continue;
        if (c->kind != OP_CONVERT || !is_dot_stage(c) || d->args[k]->nuses != 1)
            return false;
        conv[k] = c;
    }
    if (!conv[0] && !conv[1])
        return false;
    DotStage *s[2] = {NULL, NULL};
    int bytes = bytes_read_in(holder_in(R->f->body, d));
    for (int k = 0; k < 2; k++)
        if (conv[k]) {
            s[k] = dot_stage_for(R->a, R->f, conv[k]->args[0], conv[k]->results[0]->layout, 1, true);
            bytes += dot_stage_slot_bytes(s[k]);
        }
    if (bytes > tir_smem_limit(R->f->arch))
        return false;
    for (int k = 0; k < 2; k++)
        if (conv[k])
            split(R, b, index_in(b, conv[k]), conv[k], d, s[k]);
    return true;
}

static void reload_block(Reload *R, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            reload_block(R, op->regions[r]);
        Op *user = op->nres == 1 ? R->user[op->results[0]->id] : NULL;
        if (user && user->kind == OP_DOT && user->parent == b && is_dot_stage(op) &&
            (stage_beside(R, b, i, user) || stage_beside_mma_sync(R, b, i, user)))
            continue;
        Op *d = reloading_dot(R, op);
        if (!d)
            continue;
        DotStage *s = dot_stage_for(R->a, R->f, op->args[0], op->results[0]->layout, 1, true);
        /* the buffer must fit in shared memory next to what the loop reads */
        if (bytes_read_in(holder_in(b, d)) + dot_stage_slot_bytes(s) > tir_smem_limit(R->f->arch))
            continue;
        Op *alloc = staged_before(b, i, op);
        if (alloc) { /* on with the op after op, which share's removals move */
            const Op *next = i + 1 < b->ops.len ? b->ops.data[i + 1] : NULL;
            share(R, b, i, op, d, alloc);
            i = (next ? index_in(b, next) : b->ops.len) - 1;
        } else {
            split(R, b, i, op, d, s);
        }
    }
}

bool local_alloc_beside(const Op *alloc)
{
    return alloc->kind == OP_LOCAL_ALLOC && alloc->buf && alloc->buf->parent == alloc->parent;
}

void tir_dot_reload(Ctx *ctx, TirFunc *f, bool enabled)
{
    if (!f->uses_dot || !enabled)
        return;
    Reload R = {.a = &ctx->arena, .f = f};
    R.user = NEW_ARRAY(R.a, Op *, (size_t)f->nvalues + 1);
    find_users(&R, f->body);
    reload_block(&R, f->body);
}

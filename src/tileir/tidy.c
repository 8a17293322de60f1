/*
 * tidy.c — two clean-ups after the pipeline, so that the CUDA reads as a
 * person would write it (tir_tidy).  Neither changes what the kernel computes.
 *
 * Common values: a pure op that repeats a value already computed where it is
 * visible (earlier in its block or in an enclosing one), with the same
 * arguments, attributes, type, layout and source name, gives way to it.
 * Unnamed repeats stay: each prints inside its one user, and sharing would
 * make a tile of it (or print out_rows in terms of ks).  Lowering and the
 * pipeline make such repeats: every tl.arange(0, BLOCK_K) in the source is an
 * op of its own, and the pipeline's prologue and loop each clone the
 * loop's index tiles.
 *
 * Loop updates at the end: a value yielded to the next iteration whose only
 * user is the yield (a_ptrs += BLOCK_K), while the old value is still read
 * after it, moves down to just before the yield, where nothing reads the old
 * value any more, so that the emitter can write it straight into the loop's
 * variable instead of a second tile copied back.  Updates whose old value is
 * not read later stay put: they are written in place already.
 *
 * Decided comparisons: a comparison that every register of every thread
 * answers alike (tir_cmp_decided: cols < N with N a constant at least the
 * block) becomes that constant, and what only it read goes.
 */
#include "tir.h"

#include <string.h>

/* The ops worth sharing: pure, without regions or side effects, and whose
 * attributes are all named below. */
static bool shareable(const Op *op)
{
    if (op->nres != 1 || op->nregions)
        return false;
    switch (op->kind) {
    case OP_MAKE_RANGE: /* start, end */
    case OP_CMP:        /* predicate */
    case OP_ADDPTR:
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_DIV:
    case OP_REM:
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_SHL:
    case OP_SHR:
    case OP_MAX:
    case OP_MIN:
    case OP_NEG:
    case OP_NOT:
    case OP_SELECT: return true;
    default: return false;
    }
}

static bool same_value(const Op *a, const Op *b)
{
    if (a->kind != b->kind || a->nargs != b->nargs)
        return false;
    for (int k = 0; k < a->nargs; k++)
        if (a->args[k] != b->args[k])
            return false;
    const Value *x = a->results[0], *y = b->results[0];
    if (!type_eq(x->type, y->type) || !layout_eq(x->layout, y->layout))
        return false;
    if (!x->name || !y->name || strcmp(x->name, y->name))
        return false; /* rows and cols stay apart, however alike */
    switch (a->kind) {
    case OP_MAKE_RANGE: return a->make_range.start == b->make_range.start && a->make_range.end == b->make_range.end;
    case OP_CMP: return a->cmp.pred == b->cmp.pred;
    default: return true;
    }
}

typedef struct Share {
    Arena *a;
    StrMap by_key;      /* kind and arguments -> an index into seen */
    Vec(Op *) seen;
    bool changed;
} Share;

static const char *share_key(Share *S, const Op *op)
{
    StrBuf k = {0};
    sb_printf(&k, "%d", (int)op->kind);
    for (int i = 0; i < op->nargs; i++)
        sb_printf(&k, ",%d", op->args[i]->id);
    sb_printf(&k, "#%d", op->results[0]->layout ? op->results[0]->layout->id : -1);
    const char *s = arena_strdup(S->a, k.data);
    sb_free(&k);
    return s;
}

/* In program order, each shareable op either finds its twin visible from
 * here (then its uses move to the twin, and tir_simplify drops it) or
 * becomes the one later twins find.  Entries from blocks already left are
 * not visible, and are overwritten. */
static void share_block(Share *S, Block *root, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            share_block(S, root, op->regions[r]);
        if (!shareable(op))
            continue;
        const char *key = share_key(S, op);
        int *at = strmap_find(&S->by_key, key);
        if (at) {
            Op *twin = S->seen.data[*at];
            if (twin->results[0]->nuses && tir_block_encloses(twin->parent, b) && same_value(twin, op)) {
                Value *from = op->results[0], *to = twin->results[0];
                tir_block_replace_uses(root, from, to);
                to->nuses += from->nuses;
                from->nuses = 0;
                S->changed = true;
                continue;
            }
        }
        vec_push(S->a, &S->seen, op);
        strmap_put(S->a, &S->by_key, key, S->seen.len - 1);
    }
}

/* The iteration's value that `update` replaces is still read after it (before
 * the yield at the end of b): then only moving the update down lets it be
 * written in place.  For a while loop the value lives in the other region;
 * its updates always move. */
static bool old_value_read_after(const Block *b, int at, int slot)
{
    const Op *owner = b->parent;
    if (owner->kind != OP_FOR)
        return true;
    const Value *old = b->args.data[slot + 1]; /* args[0] is the induction variable */
    for (int i = at + 1; i < b->ops.len - 1; i++)
        if (tir_op_reads(b->ops.data[i], old))
            return true;
    return false;
}

/* Moves each yielded update whose only user is the yield down to the yield,
 * where the iteration's old value is still read after it; an update whose old
 * value nothing reads later stays where it is (moving it would only keep its
 * operands alive longer). */
static void sink_updates(Block *b)
{
    for (int i = 0; i < b->ops.len; i++)
        for (int r = 0; r < b->ops.data[i]->nregions; r++)
            sink_updates(b->ops.data[i]->regions[r]);
    Op *owner = b->parent;
    if (!owner || (owner->kind != OP_FOR && owner->kind != OP_WHILE) || !b->ops.len)
        return;
    Op *y = tir_block_last(b);
    if (y->kind != OP_YIELD)
        return;
    for (int k = 0; k < y->nargs; k++) {
        Op *d = y->args[k]->def;
        if (!d || d->parent != b || d->nres != 1 || d->results[0]->nuses != 1 || !op_is_elementwise(d->kind) ||
            d->kind == OP_CONST || d->kind == OP_SPLAT)
            continue;
        int at = 0;
        while (b->ops.data[at] != d)
            at++;
        if (!old_value_read_after(b, at, k))
            continue;
        memmove(&b->ops.data[at], &b->ops.data[at + 1], (size_t)(b->ops.len - 2 - at) * sizeof(Op *));
        b->ops.data[b->ops.len - 2] = d;
    }
}

/* Notes on each comparison the registers it decides (tir_cmp_decided), and turns
 * one decided alike in every register into that constant. */
static bool decide_block(Block *b)
{
    bool changed = false;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nregions; k++)
            changed |= decide_block(op->regions[k]);
        CmpDecided dec;
        if (op->kind != OP_CMP || !tir_cmp_decided(op, &dec))
            continue;
        if (dec.prefix < dec.n) {
            op->cmp.decided = dec;
            continue;
        }
        op->kind = OP_CONST;
        op->nargs = 0;
        op->constant.ival = dec.prefix_true;
        op->constant.fval = dec.prefix_true;
        tir_axisinfo_constant(op->results[0], dec.prefix_true);
        changed = true;
    }
    return changed;
}

void tir_tidy(Ctx *ctx, TirFunc *f)
{
    Share S = {.a = &ctx->arena};
    share_block(&S, f->body, f->body);
    if (decide_block(f->body))
        S.changed = true;
    if (S.changed)
        tir_simplify(ctx, f);
    sink_updates(f->body);
}

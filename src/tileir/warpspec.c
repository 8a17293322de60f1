/*
 * warpspec.c — warp specialisation under sm_90a (tl.range(warp_specialize=True)).
 *
 * A pipelined loop whose ring loads are all tensor-descriptor blocks copied by
 * TMA can hand those copies to a warpgroup of their own: the producer runs the
 * kernel's loops with nothing but the scalars the copies need, waits for a slot
 * to be released, and starts the slot's copies; the num_warps consumer warps
 * wait for a slot's copies, run the wgmma that reads it and release it once
 * that wgmma's group is done.  The producer then works ahead across the
 * boundaries of the persistent loop's tiles, during the consumers' epilogue.
 * pipeline.c asks tir_ws_refusal for each such loop; emit_cuda/warpspec.c
 * prints the producer from tir_ws_needed.
 */
#include "tir.h"

#include <string.h>

enum { WS_UNKNOWN, WS_VISITING, WS_YES, WS_NO };

typedef struct WsScan {
    const TirFunc *f;
    int8_t *state; /* by value id */
} WsScan;

static bool computable(WsScan *w, const Value *v);

static bool all_computable(WsScan *w, Value *const *args, int n)
{
    for (int i = 0; i < n; i++)
        if (!computable(w, args[i]))
            return false;
    return true;
}

/* Can the producer compute scalar v: a parameter, a loop counter or a loop-carried
 * scalar of a for loop whose bounds, first value and next value it can compute, or
 * a pure scalar op of such values? */
static bool computable(WsScan *w, const Value *v)
{
    if (v->type.rank)
        return false;
    int8_t *st = &w->state[v->id];
    if (*st == WS_VISITING) /* a loop-carried value through its own next value */
        return true;
    if (*st != WS_UNKNOWN)
        return *st == WS_YES;
    *st = WS_VISITING;
    bool ok;
    if (v->def) {
        const Op *d = v->def;
        ok = op_is_pure(d->kind) && !d->nregions && d->kind != OP_REDUCE && d->kind != OP_SCAN &&
             all_computable(w, d->args, d->nargs);
    } else if (!v->block) {
        ok = true; /* a kernel parameter */
    } else {
        const Op *loop = v->block->parent;
        ok = loop && loop->kind == OP_FOR && all_computable(w, loop->args, 3);
        if (ok && v->arg_index > 0) {
            const Op *y = tir_block_last(v->block);
            int j = v->arg_index - 1;
            ok = computable(w, loop->args[3 + j]) && y && y->kind == OP_YIELD && j < y->nargs &&
                 computable(w, y->args[j]);
        }
    }
    *st = ok ? WS_YES : WS_NO;
    return ok;
}

/* Does the kernel meet at a barrier of the whole block that is not tilec's own, which
 * the consumers' named barrier cannot replace: tl.sort's steps (templates), or inline
 * assembly that synchronises the block? */
static bool syncs_whole_block(const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op->kind == OP_SORT)
            return true;
        if (op->kind == OP_INLINE_ASM && (strstr(op->inline_asm.text, "bar.") || strstr(op->inline_asm.text, "barrier")))
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (syncs_whole_block(op->regions[r]))
                return true;
    }
    return false;
}

bool tir_ws_asked(const Op *loop)
{
    for (const Op *o = loop; o; o = o->parent ? o->parent->parent : NULL)
        if (o->kind == OP_FOR && o->for_.warp_specialize)
            return true;
    return false;
}

const char *tir_ws_refusal(Arena *a, const TirFunc *f, const Op *loop, Op *const *loads, int nloads)
{
    if (f->arch < 90)
        return "it needs --arch sm_90 (TMA copies and wgmma)";
    if (f->num_warps % 4 || f->num_warps + TIR_WS_PRODUCER_WARPS > TIR_MAX_WARPS)
        return "the consumers must be whole warpgroups (num_warps 4, 8 or 16)";
    if (syncs_whole_block(f->body))
        return "the kernel synchronises the whole block outside tilec's barriers (tl.sort's steps, or inline "
               "assembly with bar or barrier), which the producer warpgroup never reaches";
    int dots = 0;
    for (int i = 0; i < loop->regions[0]->ops.len; i++) {
        const Op *d = loop->regions[0]->ops.data[i];
        dots += d->kind == OP_DOT && d->dot.wgmma;
    }
    if (dots != 1)
        return "the loop must run exactly one tl.dot on wgmma over its ring";
    for (int i = 0; i < nloads; i++)
        if (!loads[i]->load.desc_param)
            return "every block the loop loads for its tl.dot must come from a tensor descriptor";
    WsScan w = {.f = f, .state = NEW_ARRAY(a, int8_t, (size_t)f->nvalues + 1)};
    for (int i = 0; i < nloads; i++)
        if (!all_computable(&w, loads[i]->args + loads[i]->nargs - 2, 2))
            return "a descriptor load's offsets depend on a loaded value, a tile or a branch's result, which the producer "
                   "warpgroup cannot compute";
    for (const Op *o = loop; o; o = o->parent ? o->parent->parent : NULL) {
        if (o->kind == OP_FOR && !all_computable(&w, o->args, 3))
            return "a loop's bounds depend on a loaded value, a tile or a branch's result, which the producer warpgroup "
                   "cannot compute";
        if (o->kind == OP_IF || o->kind == OP_WHILE)
            return "the loop stands inside a branch or a while loop";
    }
    return NULL;
}

static void warn_block(Ctx *ctx, const TirFunc *f, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op->kind == OP_FOR && op->for_.warp_specialize && !tir_ws_holds_copy(f, op)) {
            diag_warning(ctx, op->loc,
                         "tl.range(warp_specialize=True) is not applied: %s; the loop runs on every warp, as "
                         "written",
                         op->for_.ws_refused ? op->for_.ws_refused
                                             : "no loop in it copies tensor-descriptor blocks for a tl.dot "
                                               "through a pipeline ring (--arch sm_90, --num-stages 2 or more)");
            continue; /* one warning for the outermost */
        }
        for (int r = 0; r < op->nregions; r++)
            warn_block(ctx, f, op->regions[r]);
    }
}

void tir_ws_warn(Ctx *ctx, const TirFunc *f) { warn_block(ctx, f, f->body); }

bool tir_ws_copy(const TirFunc *f, const Op *op)
{
    return op->kind == OP_ASYNC_COPY && op->async_copy.tma && f->tma_rings.data[op->async_copy.tma - 1].producer;
}

bool tir_ws_holds_copy(const TirFunc *f, const Op *op)
{
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++) {
            const Op *o = op->regions[r]->ops.data[i];
            if (tir_ws_copy(f, o) || tir_ws_holds_copy(f, o))
                return true;
        }
    return false;
}

static void need(bool *needed, const Value *v);

static void need_all(bool *needed, Value *const *args, int n)
{
    for (int i = 0; i < n; i++)
        need(needed, args[i]);
}

static void need(bool *needed, const Value *v)
{
    if (needed[v->id])
        return;
    needed[v->id] = true;
    const Op *d = v->def;
    if (d && d->kind == OP_FOR) { /* a loop's result: its variable in the loop (a pipeline's
                                     prologue hands the K loop a scalar it advanced) */
        for (int r = 0; r < d->nres; r++)
            if (d->results[r] == v)
                need(needed, d->regions[0]->args.data[r + 1]);
        return;
    }
    if (d) {
        need_all(needed, d->args, d->nargs);
        return;
    }
    if (!v->block)
        return;
    const Op *loop = v->block->parent;
    if (!loop || loop->kind != OP_FOR)
        BUG("warpspec: the producer needs an argument of a %s", loop ? op_name(loop->kind) : "block");
    need_all(needed, loop->args, 3);
    if (v->arg_index > 0) {
        const Op *y = tir_block_last(v->block);
        need(needed, loop->args[3 + v->arg_index - 1]);
        need(needed, y->args[v->arg_index - 1]);
    }
}

static void seed(const TirFunc *f, const Block *b, bool *needed)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (tir_ws_copy(f, op)) {
            need(needed, op->args[1]); /* the predicate, the slot, the block's offsets */
            need(needed, op->args[2]);
            need_all(needed, op->args + op->nargs - 2, 2);
        } else if (op->kind == OP_FOR && tir_ws_holds_copy(f, op)) {
            need_all(needed, op->args, 3);
            seed(f, op->regions[0], needed);
        }
    }
}

bool *tir_ws_needed(Arena *a, const TirFunc *f)
{
    bool *needed = NEW_ARRAY(a, bool, (size_t)f->nvalues + 1);
    seed(f, f->body, needed);
    return needed;
}

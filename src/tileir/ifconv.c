/*
 * ifconv.c — branches into selects (tir_if_convert).
 *
 * A runtime `if` whose branches only compute (elementwise ops, shape ops
 * that move no data between threads, constants) and load becomes straight
 * code: both branches run, each load masked by the condition (the else
 * branch's by its negation), and each result of the if is a select between
 * the branches' values.  A masked-off load touches no memory, so nothing
 * runs that the program did not ask for except arithmetic whose result is
 * dropped.  What it buys is the loads: a branch around each load makes every
 * iteration of a loop like
 *
 *     for s in range(NUM_SPLITS):
 *         lse = tl.load(lse_row + s)
 *         if lse > float("-inf"):
 *             acc += tl.exp(lse - m) * tl.load(mid + s * stride)
 *
 * wait for its load before the next can start (16 load latencies in a row);
 * as predicated loads after unrolling, all of them are in flight at once.
 * Triton's compiled kernel issues them so (a split-K decode's merge ran 12%
 * slower than Triton's before this pass).
 *
 * Branches that only compute stay branches (nvcc predicates small ones
 * itself); the pass is for the loads.  Left alone: a branch that stores, prints, asserts, synchronises, loops,
 * reduces or holds any other op that exchanges data through shared memory
 * or has effects; an integer division or remainder (its divisor may be the
 * zero the condition guards against); a volatile load; a branch of more
 * than MAX_OPS ops (both branches always run after the conversion).
 */
#include "tir.h"

#include <string.h>

enum { MAX_OPS = 24 };

/* May op run whether or not its branch is taken (its loads masked)? */
static bool speculable(const Op *op)
{
    switch (op->kind) {
    case OP_YIELD:
    case OP_CONST:
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_MAKE_RANGE:
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: return true;
    case OP_LOAD: return !op->load.is_volatile && !op->load.desc_param;
    case OP_DIV:
    case OP_REM: return dtype_is_float(op->results[0]->type.dtype);
    default: return op_is_elementwise(op->kind) && op->nregions == 0;
    }
}

static bool branch_speculable(const Block *b, int *count, int *loads)
{
    for (int i = 0; i < b->ops.len; i++) {
        if (!speculable(b->ops.data[i]))
            return false;
        ++*count;
        *loads += b->ops.data[i]->kind == OP_LOAD;
    }
    return true;
}

typedef struct Conv {
    Arena *a;
    TirFunc *f;
    Block *b;    /* the if's block */
    int at;      /* where the next op goes */
    Op *near;    /* the if: the new ops' statement and location */
} Conv;

static Value *add(Conv *C, OpKind k, int n, Value **args, Type t)
{
    Op *op = tir_op_new(C->a, C->f, k, n, args, 1, &t);
    op->stmt = C->near->stmt;
    op->loc = C->near->loc;
    op->parent = C->b;
    tir_block_insert(C->a, C->b, C->at++, op);
    return op->results[0];
}

/* cond as a mask of shape t's (itself for a scalar) */
static Value *mask_like(Conv *C, Value *cond, Type t)
{
    if (!t.rank)
        return cond;
    return add(C, OP_SPLAT, 1, &cond, type_tensor(type_scalar(DT_I1), t.rank, t.shape));
}

/* Load ld, from a branch taken when `taken` holds, masked by it too. */
static void mask_load(Conv *C, Op *ld, Value *taken)
{
    Type t = ld->results[0]->type;
    Value *m = mask_like(C, taken, t);
    if (ld->load.has_mask) {
        Value *both = add(C, OP_AND, 2, (Value *[]){ld->args[1], m}, type_tensor(type_scalar(DT_I1), t.rank, t.shape));
        ld->args[1] = both;
        return;
    }
    Value **args = NEW_ARRAY(C->a, Value *, 2);
    args[0] = ld->args[0];
    args[1] = m;
    ld->args = args;
    ld->nargs = 2;
    ld->load.has_mask = true;
}

/* The ops of branch r before the if, loads masked by `taken`. */
static void hoist(Conv *C, Block *r, Value *taken)
{
    for (int i = 0; i + 1 < r->ops.len; i++) {
        Op *op = r->ops.data[i];
        if (op->kind == OP_LOAD)
            mask_load(C, op, taken);
        op->parent = C->b;
        tir_block_insert(C->a, C->b, C->at++, op);
    }
}

/* If op as straight code before it in its block, C->b.  Its results can only be
 * read after it in that block (or in the regions of later ops), so only that
 * block is rewritten to read the new values. */
static void convert(Conv *C, Op *op)
{
    Value *cond = op->args[0];
    Block *then_b = op->regions[0], *else_b = op->regions[1];
    const Op *ty = tir_block_last(then_b), *ey = tir_block_last(else_b);
    hoist(C, then_b, cond);
    bool else_loads = false;
    for (int i = 0; i + 1 < else_b->ops.len; i++)
        else_loads |= else_b->ops.data[i]->kind == OP_LOAD;
    Value *not_cond = else_loads ? add(C, OP_NOT, 1, &cond, type_scalar(DT_I1)) : NULL;
    hoist(C, else_b, not_cond);
    for (int k = 0; k < op->nres; k++) {
        Value *r = op->results[k], *x = ty->args[k], *y = ey->args[k], *v = x;
        if (x != y)
            v = add(C, OP_SELECT, 3, (Value *[]){mask_like(C, cond, r->type), x, y}, r->type);
        if (!v->name)
            v->name = r->name;
        tir_block_replace_uses(C->b, r, v);
    }
}

static void convert_block(Conv *C, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            convert_block(C, op->regions[r]);
        if (op->kind != OP_IF || op->nregions != 2 || op->args[0]->type.rank)
            continue;
        int count = 0, loads = 0;
        if (!branch_speculable(op->regions[0], &count, &loads) ||
            !branch_speculable(op->regions[1], &count, &loads) || !loads || count > MAX_OPS)
            continue;
        Conv c = {.a = C->a, .f = C->f, .b = b, .at = i, .near = op};
        convert(&c, op);
        /* the if itself, now at c.at, goes */
        tir_block_remove(b, c.at);
        i = c.at - 1;
    }
}

void tir_if_convert(Ctx *ctx, TirFunc *f)
{
    Conv C = {.a = &ctx->arena, .f = f};
    convert_block(&C, f->body);
    tir_simplify(ctx, f);
}

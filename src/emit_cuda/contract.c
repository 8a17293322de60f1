/*
 * contract.c — which fp16/bf16 multiplies fuse into their add or subtract,
 * so that the CUDA rounds exactly as Triton's PTX does.
 *
 * Triton compiles with fp fusion on and NVPTX asks for aggressive FMA
 * fusion, so LLVM's DAG combiner (visitFADDForFMACombine and
 * visitFSUBForFMACombine) contracts, within one basic block:
 *
 *   add:  fadd(fmul(x, y), z) -> fma(x, y, z), else fadd(z, fmul(x, y)) ->
 *         fma(x, y, z); when both operands are multiplies, the one with fewer
 *         uses fuses, the left one on a tie.  "Aggressive" means a multiply
 *         with other uses still fuses (it is then computed twice: once
 *         rounded for its other users, once inside the fma).
 *   sub:  fsub(fmul(x, y), z) -> fma(x, y, -z), else fsub(x, fmul(y, z)) ->
 *         fma(-y, z, x); when both are multiplies the left one fuses unless
 *         it has more uses than the right one.
 *   neg:  Triton's -x is 0 - x, so -(x * y) is fma(-x, y, 0).
 *
 * Uses are counted after CSE, which merges equal products of one block.
 *
 * The left operand of an add is the one LLVM's Reassociate pass leaves
 * there: it orders the operands of every commutative instruction by rank
 * (constants 0, arguments small, loads and other side-effecting instructions
 * numbered in program order per block, any other instruction one more than
 * its highest operand, a negation the same), the lower rank on the left.
 * tilec's own layout conversions keep their operand's rank.
 * A multiply and an add in different blocks (a loop body, an if branch) do
 * not fuse, nor does a loop-invariant multiply in a loop body (LICM hoists
 * it out first), nor do they across a cast (an fpext is not free on NVPTX).
 *
 * Not modelled (docs/LANGUAGE.md): SimplifyCFG turning a small if into a
 * select (its add then fuses), InstCombine narrowing fptrunc(fpext(a * b) +
 * fpext(c)) to a half fma, and SLP-vectorised adds whose product is splat
 * across a thread's vector (a vector add of a scalar product does not fuse).
 *
 * The printer then writes __hfma for the fused pairs and __hmul_rn for a
 * multiply read by an add, subtract or negation it does not fuse into: ptxas
 * would otherwise contract mul.f16 + add.f16 its own way.  fp32 is left to
 * nvcc for now, although its contraction differs from Triton's in places
 * (a * b - c * d, a product with two users).
 */
#include "emit_internal.h"

static bool is_half(DType d)
{
    return d == DT_FP16 || d == DT_BF16;
}

/* Reassociate's rank of each value, in program order (see above). */
static void rank_block(Emitter *E, Block *b, int *block_base)
{
    int seq = (++*block_base) << 16;
    for (int i = 0; i < b->args.len; i++)
        info(E, b->args.data[i])->rank = seq;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            rank_block(E, op->regions[r], block_base);
        int rank = 0;
        if (op->kind == OP_CONST)
            rank = 0;
        else if (op->kind == OP_SPLAT || op->kind == OP_BROADCAST || op->kind == OP_EXPAND_DIMS ||
                 op->kind == OP_NEG || op->kind == OP_CONVERT) {
            /* a layout conversion is tilec's, not necessarily Triton's (which may need none
             * where tilec exchanges through shared memory): its value keeps its rank */
            rank = op->nargs ? info(E, op->args[0])->rank : 0;
        } else if (op_is_elementwise(op->kind)) {
            for (int k = 0; k < op->nargs; k++)
                if (info(E, op->args[k])->rank > rank)
                    rank = info(E, op->args[k])->rank;
            rank++;
        } else
            rank = ++seq;
        for (int r = 0; r < op->nres; r++)
            info(E, op->results[r])->rank = rank;
    }
}

/* v does not change from one iteration of loop body b to the next: LICM
 * hoists its computation out of the loop. */
static bool loop_invariant(const Value *v, const Block *b)
{
    const Op *d = v->def;
    if (!d)
        return v->block != b; /* a block argument of b is carried */
    if (d->parent != b)
        return true;
    if (!op_is_elementwise(d->kind) && d->kind != OP_SPLAT && d->kind != OP_BROADCAST && d->kind != OP_EXPAND_DIMS)
        return false;
    for (int k = 0; k < d->nargs; k++)
        if (!loop_invariant(d->args[k], b))
            return false;
    return true;
}

/* v's value before splats and broadcasts, which are no instructions in LLVM. */
static const Value *unbroadcast(const Value *v)
{
    while (v->def && (v->def->kind == OP_SPLAT || v->def->kind == OP_BROADCAST || v->def->kind == OP_EXPAND_DIMS))
        v = v->def->args[0];
    return v;
}

/* The multiply v is, when it can fuse into op: the same half type, and the
 * same LLVM block (a loop-invariant multiply in a loop body is hoisted). */
static const Op *fusable_mul(const Op *op, const Value *v)
{
    v = unbroadcast(v);
    const Op *d = v->def;
    if (!d || d->kind != OP_MUL || d->parent != op->parent || d->results[0]->type.dtype != op->results[0]->type.dtype)
        return NULL;
    const Op *owner = d->parent->parent;
    if (owner && owner->kind != OP_IF && loop_invariant(v, d->parent))
        return NULL;
    return d;
}

/* The uses of multiply v once CSE has merged the same products in its block
 * (x * y and y * x) into one, as Triton's MLIR and LLVM do. */
static int mul_uses(const Value *v)
{
    const Op *m = unbroadcast(v)->def;
    const Block *b = m->parent;
    int n = 0;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *o = b->ops.data[i];
        if (o->kind != OP_MUL || o->results[0]->type.dtype != m->results[0]->type.dtype)
            continue;
        if ((o->args[0] == m->args[0] && o->args[1] == m->args[1]) ||
            (o->args[0] == m->args[1] && o->args[1] == m->args[0]))
            n += o->results[0]->nuses;
    }
    return n;
}

/* The operand (1 or 2) whose multiply fuses into add or subtract op; 0 for none. */
static int fused_operand(Emitter *E, const Op *op)
{
    const Value *l = op->args[0], *r = op->args[1];
    bool lm = fusable_mul(op, l) != NULL, rm = fusable_mul(op, r) != NULL;
    if (!lm && !rm)
        return 0;
    if (lm && rm) {
        if (op->kind == OP_ADD && info(E, unbroadcast(r))->rank < info(E, unbroadcast(l))->rank) {
            /* Reassociate swaps them: the right one is LLVM's left operand */
            return mul_uses(l) < mul_uses(r) ? 1 : 2;
        }
        return mul_uses(l) > mul_uses(r) ? 2 : 1;
    }
    return lm ? 1 : 2;
}

static void mark_rounded_mul(Emitter *E, const Value *v)
{
    v = unbroadcast(v);
    const Op *d = v->def;
    if (d && d->kind == OP_NEG && !info(E, v)->fma_operand)
        d = unbroadcast(d->args[0])->def;
    if (d && d->kind == OP_MUL && is_half(d->results[0]->type.dtype))
        info(E, d->results[0])->mul_rn = true;
}

/* op's statement contracts a multiply-add in op's block: noted for stmt_contracts */
static void note_contracting_stmt(Emitter *E, const Op *op)
{
    strmap_put(E->a, &E->contract_stmts, fmt(E, "%p %p", (const void *)op->parent, (const void *)op->stmt), 1);
}

static void contract_block(Emitter *E, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            contract_block(E, op->regions[r]);
        if (op->nres != 1 || !is_half(op->results[0]->type.dtype))
            continue;
        if (op->kind == OP_NEG) { /* Triton's -x is 0 - x */
            if (fusable_mul(op, op->args[0])) {
                info(E, op->results[0])->fma_operand = 1;
                note_contracting_stmt(E, op);
            }
            continue;
        }
        if (op->kind != OP_ADD && op->kind != OP_SUB)
            continue;
        int f = fused_operand(E, op);
        info(E, op->results[0])->fma_operand = f;
        if (f)
            note_contracting_stmt(E, op);
        for (int k = 0; k < 2; k++)
            if (k + 1 != f)
                mark_rounded_mul(E, op->args[k]);
    }
}

void plan_contractions(Emitter *E, Block *body)
{
    int block_base = 0;
    rank_block(E, body, &block_base);
    contract_block(E, body);
}

/* The operands of the multiply under v (through its splats and broadcasts),
 * at register idx of ctx. */
static void mul_operands(Emitter *E, const Value *v, const Value *ctx, const char *idx, const char **x, const char **y)
{
    for (;;) {
        idx = reg_index(E, v, ctx, idx);
        if (v->def->kind == OP_MUL)
            break;
        ctx = v;
        v = v->def->args[0];
    }
    *x = value_at(E, v->def->args[0], v, idx);
    *y = value_at(E, v->def->args[1], v, idx);
}

/* op (an add, subtract or negation with a fused operand) as __hfma, its
 * operands negated as LLVM forms them. */
const char *fma_contracted_expr(Emitter *E, const Op *op, const char *idx)
{
    const Value *r = op->results[0];
    int f = info(E, r)->fma_operand;
    const char *x, *y;
    mul_operands(E, op->args[f - 1], r, idx, &x, &y);
    if (op->kind == OP_NEG)
        return fmt(E, "__hfma(__hneg(%s), %s, %s)", x, y, zero_of(E, r->type.dtype));
    const char *z = value_at(E, op->args[2 - f], r, idx);
    if (op->kind == OP_SUB && f == 1)
        z = fmt(E, "__hneg(%s)", z);
    else if (op->kind == OP_SUB)
        x = fmt(E, "__hneg(%s)", x);
    return fmt(E, "__hfma(%s, %s, %s)", x, y, z);
}

/* Whether op's statement contracts a multiply-add in op's block, for a note
 * under its source comment (plan_contractions noted each such statement: a
 * scan of the block per comment was quadratic in unrolled code). */
bool stmt_contracts(Emitter *E, const Op *op)
{
    return op->parent && strmap_find(&E->contract_stmts, fmt(E, "%p %p", (const void *)op->parent, (const void *)op->stmt));
}

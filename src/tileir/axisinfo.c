/*
 * axisinfo.c — contiguity, divisibility and constancy of every integer and
 * pointer value, per dimension.  A forward pass in
 * program order.  Induction variables take contiguity 1 and divisibility
 * gcd(lb, step), as Triton gives scf.for's; loop-carried values are joined
 * with what the body yields until they are stable (solve_for).  Each loop is
 * solved once per distinct input and each body visited once more at the end,
 * so the time grows with the program, not exponentially with loop nesting.
 */
#include "tir.h"

#include <string.h>

#define MAX_DIV ((int64_t)1 << 62)

static int64_t gcd_or(int64_t a, int64_t b) { return gcd64(a, b); }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

static int rank_of(const Value *v) { return v->type.rank ? v->type.rank : 1; }
static int64_t dim_of(const Value *v, int d) { return v->type.rank ? v->type.shape[d] : 1; }

static void pessimistic(Value *v)
{
    AxisInfo *a = &v->ax;
    memset(a, 0, sizeof *a);
    a->rank = rank_of(v);
    for (int d = 0; d < a->rank; d++) {
        a->contiguity[d] = 1;
        a->divisibility[d] = 1;
        a->constancy[d] = 1;
    }
}

static void constant_info(Value *v, int64_t c)
{
    AxisInfo *a = &v->ax;
    a->rank = rank_of(v);
    for (int d = 0; d < a->rank; d++) {
        a->contiguity[d] = 1;
        a->divisibility[d] = highest_pow2_divisor(c);
        a->constancy[d] = dim_of(v, d);
    }
    a->has_const = true;
    a->const_value = c;
    a->affine = true;
    a->aff_offset = c;
    memset(a->aff_stride, 0, sizeof a->aff_stride);
}

void tir_axisinfo_constant(Value *v, int64_t c) { constant_info(v, c); }

/* ---- affine values -------------------------------------------------------------
 *
 * An integer tile whose elements are aff_offset + sum_d aff_stride[d] * index[d]
 * exactly: aranges, constants, and sums, differences and constant multiples of
 * them, through splats, broadcasts, transposes and integer casts.  The numbers
 * stay below AFF_LIMIT in magnitude so that the arithmetic here cannot overflow,
 * and a value is affine only while every element fits its type (a wrapped
 * value is not the sum any more). */

#define AFF_LIMIT ((int64_t)1 << 36) /* with shapes below 2^20, the sums of tir_cmp_decided stay below 2^62 */

static bool aff_small(int64_t x) { return x > -AFF_LIMIT && x < AFF_LIMIT; }

/* *out = a * c when both are small and so is the product. */
static bool aff_mul(int64_t a, int64_t c, int64_t *out)
{
    if (!aff_small(a) || !aff_small(c) || (c && (a < 0 ? -a : a) >= AFF_LIMIT / (c < 0 ? -c : c)))
        return false;
    *out = a * c;
    return true;
}

/* The least and greatest element of an affine value. */
static void aff_bounds(const Value *v, int64_t *lo, int64_t *hi)
{
    const AxisInfo *a = &v->ax;
    *lo = *hi = a->aff_offset;
    for (int d = 0; d < a->rank; d++) {
        int64_t span = a->aff_stride[d] * (dim_of(v, d) - 1);
        *lo += span < 0 ? span : 0;
        *hi += span > 0 ? span : 0;
    }
}

/* Keeps v affine only if its numbers are small and every element fits its type. */
static void aff_check(Value *v)
{
    AxisInfo *a = &v->ax;
    if (!a->affine)
        return;
    bool ok = dtype_is_int(v->type.dtype) && aff_small(a->aff_offset);
    for (int d = 0; ok && d < a->rank; d++)
        ok = aff_small(a->aff_stride[d]) && dim_of(v, d) < ((int64_t)1 << 20);
    if (ok) {
        int64_t lo, hi;
        aff_bounds(v, &lo, &hi);
        int bits = dtype_bits(v->type.dtype);
        if (bits < 64) {
            int64_t tmin = dtype_is_signed(v->type.dtype) ? -((int64_t)1 << (bits - 1)) : 0;
            int64_t tmax = dtype_is_signed(v->type.dtype) ? ((int64_t)1 << (bits - 1)) - 1
                                                          : (int64_t)(((uint64_t)1 << bits) - 1);
            ok = lo >= tmin && hi <= tmax;
        }
    }
    if (!ok)
        a->affine = false;
}

/* r = l + sign * rv, element by element, when both are affine. */
static void aff_addsub(Value *r, const Value *l, const Value *rv, int sign)
{
    const AxisInfo *L = &l->ax, *R = &rv->ax;
    AxisInfo *o = &r->ax;
    if (!L->affine || !R->affine || L->rank != o->rank || R->rank != o->rank)
        return;
    o->affine = true;
    o->aff_offset = L->aff_offset + sign * R->aff_offset;
    for (int d = 0; d < o->rank; d++)
        o->aff_stride[d] = L->aff_stride[d] + sign * R->aff_stride[d];
}

static void apply_hints(Value *v)
{
    for (int d = 0; d < v->ax.rank; d++) {
        if (v->hint_div[d])
            v->ax.divisibility[d] = v->hint_div[d];
        if (v->hint_contig[d])
            v->ax.contiguity[d] = v->hint_contig[d];
        if (v->hint_const[d])
            v->ax.constancy[d] = v->hint_const[d];
    }
}

static bool full_contig(const AxisInfo *a, const Value *v, int d) { return a->contiguity[d] == dim_of(v, d); }
static bool full_const(const AxisInfo *a, const Value *v, int d) { return a->constancy[d] == dim_of(v, d); }

static int elem_bytes(Type t)
{
    int b = dtype_bits(t.dtype == DT_PTR ? t.pointee : t.dtype) / 8;
    return b ? b : 1;
}

/* A folded constant wrapped to its type's width (two's complement). */
static int64_t wrap_to_type(const Value *r, uint64_t v)
{
    int bits = dtype_bits(r->type.dtype);
    if (r->type.dtype == DT_PTR || bits >= 64)
        return (int64_t)v;
    uint64_t m = ((uint64_t)1 << bits) - 1;
    v &= m;
    if (dtype_is_signed(r->type.dtype) && (v >> (bits - 1)) & 1)
        v |= ~m;
    return (int64_t)v;
}

static void visit_addsub(Op *op, bool is_sub)
{
    Value *r = op->results[0], *lv = op->args[0], *rv = op->args[1];
    const AxisInfo *L = &lv->ax, *R = &rv->ax;
    AxisInfo *o = &r->ax;
    int64_t rdiv_scale = op->kind == OP_ADDPTR ? elem_bytes(lv->type) : 1;
    for (int d = 0; d < o->rank; d++) {
        int64_t c = is_sub ? gcd_or(L->contiguity[d], R->constancy[d])
                           : imax(gcd_or(L->constancy[d], R->contiguity[d]), gcd_or(L->contiguity[d], R->constancy[d]));
        int64_t ldiv = L->divisibility[d];
        int64_t rdiv = R->divisibility[d] >= MAX_DIV / rdiv_scale ? MAX_DIV : R->divisibility[d] * rdiv_scale;
        int64_t div;
        if (L->contiguity[d] > 1 && R->contiguity[d] > 1) {
            if (is_sub && L->contiguity[d] == R->contiguity[d])
                div = gcd_or(ldiv, rdiv);
            else
                div = (ldiv % 2 == 0 && rdiv % 2 == 0) ? 2 : 1;
        } else if (L->contiguity[d] > 1 || R->contiguity[d] > 1) {
            div = gcd_or(gcd_or(ldiv, rdiv), c * elem_bytes(r->type));
        } else {
            div = gcd_or(ldiv, rdiv);
        }
        o->contiguity[d] = c;
        o->divisibility[d] = div ? div : 1;
        o->constancy[d] = gcd_or(L->constancy[d], R->constancy[d]);
    }
    if (L->has_const && R->has_const && op->kind != OP_ADDPTR) {
        uint64_t a = (uint64_t)L->const_value, b = (uint64_t)R->const_value; /* wraps like the hardware */
        constant_info(r, wrap_to_type(r, is_sub ? a - b : a + b));
    } else if (op->kind != OP_ADDPTR) {
        aff_addsub(r, lv, rv, is_sub ? -1 : 1);
    }
}

static void visit_mul(Op *op)
{
    Value *r = op->results[0];
    const AxisInfo *L = &op->args[0]->ax, *R = &op->args[1]->ax;
    AxisInfo *o = &r->ax;
    bool lone = L->has_const && L->const_value == 1, rone = R->has_const && R->const_value == 1;
    for (int d = 0; d < o->rank; d++) {
        o->contiguity[d] = lone ? R->contiguity[d] : rone ? L->contiguity[d] : 1;
        int64_t ld = (L->contiguity[d] > 1 && !rone) ? 1 : L->divisibility[d];
        int64_t rd = (R->contiguity[d] > 1 && !lone) ? 1 : R->divisibility[d];
        int64_t p = (ld > 0 && rd > MAX_DIV / ld) ? MAX_DIV : ld * rd;
        o->divisibility[d] = p > MAX_DIV ? MAX_DIV : p;
        o->constancy[d] = gcd_or(L->constancy[d], R->constancy[d]);
    }
    if (L->has_const && R->has_const)
        constant_info(r, wrap_to_type(r, (uint64_t)L->const_value * (uint64_t)R->const_value));
    else if ((L->has_const && L->const_value == 0) || (R->has_const && R->const_value == 0))
        constant_info(r, 0);
    else if ((L->affine && R->has_const) || (R->affine && L->has_const)) {
        const AxisInfo *A = L->has_const ? R : L;
        int64_t c = L->has_const ? L->const_value : R->const_value;
        bool ok = A->rank == o->rank && aff_mul(A->aff_offset, c, &o->aff_offset);
        for (int d = 0; ok && d < o->rank; d++)
            ok = aff_mul(A->aff_stride[d], c, &o->aff_stride[d]);
        o->affine = ok;
    }
}

static void visit_div(Op *op)
{
    Value *r = op->results[0], *lv = op->args[0];
    const AxisInfo *L = &lv->ax, *R = &op->args[1]->ax;
    AxisInfo *o = &r->ax;
    bool rone = R->has_const && R->const_value == 1;
    for (int d = 0; d < o->rank; d++) {
        o->contiguity[d] = rone ? L->contiguity[d] : 1;
        int64_t k = gcd_or(L->constancy[d], R->constancy[d]);
        if (full_contig(L, lv, d) && R->constancy[d] == dim_of(op->args[1], d))
            k = imax(k, gcd_or(gcd_or(L->contiguity[d], L->divisibility[d]), R->divisibility[d]));
        o->constancy[d] = k;
        if ((L->has_const && L->const_value == 0) || rone)
            o->divisibility[d] = L->divisibility[d];
        else if (R->has_const && is_pow2(R->const_value) && L->contiguity[d] == 1)
            o->divisibility[d] = imax(1, L->divisibility[d] / R->const_value);
        else
            o->divisibility[d] = 1;
    }
    if (L->has_const && R->has_const && R->const_value != 0)
        constant_info(r, L->const_value / R->const_value);
}

static void visit_rem(Op *op)
{
    Value *r = op->results[0], *lv = op->args[0];
    const AxisInfo *L = &lv->ax, *R = &op->args[1]->ax;
    AxisInfo *o = &r->ax;
    for (int d = 0; d < o->rank; d++) {
        bool rconst = R->constancy[d] == dim_of(op->args[1], d);
        o->contiguity[d] = (full_contig(L, lv, d) && rconst)
                               ? gcd_or(gcd_or(L->contiguity[d], L->divisibility[d]), R->divisibility[d])
                               : 1;
        o->divisibility[d] = R->constancy[d] > 1 ? gcd_or(L->divisibility[d], R->divisibility[d]) : 1;
        o->constancy[d] = (R->has_const && R->const_value == 1) ? dim_of(r, d) : gcd_or(L->constancy[d], R->constancy[d]);
    }
    if (L->has_const && R->has_const && R->const_value != 0)
        constant_info(r, L->const_value % R->const_value);
}

static void visit_cmp(Op *op)
{
    Value *r = op->results[0], *lv = op->args[0], *rv = op->args[1];
    const AxisInfo *L = &lv->ax, *R = &rv->ax;
    AxisInfo *o = &r->ax;
    CmpPred p = op->cmp.pred;
    for (int d = 0; d < o->rank; d++) {
        o->contiguity[d] = 1;
        o->divisibility[d] = 1;
        int64_t k = gcd_or(L->constancy[d], R->constancy[d]);
        if ((p == CMP_GT || p == CMP_LE) && full_const(L, lv, d))
            k = imax(k, gcd_or(gcd_or(R->contiguity[d], L->divisibility[d]), R->divisibility[d]));
        if ((p == CMP_LT || p == CMP_GE) && full_const(R, rv, d))
            k = imax(k, gcd_or(gcd_or(L->contiguity[d], L->divisibility[d]), R->divisibility[d]));
        o->constancy[d] = k;
    }
    if (L->has_const && R->has_const) {
        int64_t a = L->const_value, b = R->const_value, v = 0;
        switch (p) {
        case CMP_LT: v = a < b; break;
        case CMP_LE: v = a <= b; break;
        case CMP_GT: v = a > b; break;
        case CMP_GE: v = a >= b; break;
        case CMP_EQ: v = a == b; break;
        case CMP_NE: v = a != b; break;
        }
        constant_info(r, v);
    }
}

/* ---- loops ---------------------------------------------------------------------
 *
 * A loop's carried values are found by visiting its body until they are stable
 * (solve_for), and the body may hold loops of its own: re-solving each inner loop on every
 * round of every outer one took time exponential in the nesting depth (26 nested loops,
 * 12 s).  A loop's fixpoint depends only on the information of what it reads from outside
 * (its operands, and the values defined outside it that its body uses), so each loop keeps
 * the fixpoints it has found, by those inputs, and an outer round that gives an inner loop
 * inputs it has seen reuses the answer.  The rounds need only the loops' results; the
 * final visit (`final`), once per body in program order, gives every value inside a loop
 * the information of the loop's final fixpoint, as the last of the repeated visits did. */

typedef struct Solved {
    AxisInfo *in;       /* the inputs' information ... */
    AxisInfo *carried;  /* ... and the carried values' at the fixpoint (or pessimistic) */
} Solved;

typedef struct Loop {
    Op *op;
    int end;                 /* loops are numbered in program order: those in its body are (its number, end) */
    Vec(Value *) inputs;     /* operands and the outside values its body reads, each once */
    Vec(Solved) solved;
} Loop;

typedef struct Pass {
    Arena *arena;
    Vec(Loop) loops;
    int *loop_of_iv;  /* by value id: the number of the loop whose induction variable it is */
    int *scope;       /* by value id: the innermost loop defining it, -1 outside every loop */
    int *seen;        /* by value id: the last loop that listed it as an input */
} Pass;

static void visit_op(Pass *P, Op *op, bool final);

static void visit_block(Pass *P, Block *b, bool final)
{
    for (int i = 0; i < b->ops.len; i++)
        visit_op(P, b->ops.data[i], final);
}

/* What holds for both a and b (Triton's AxisInfo join). */
static AxisInfo join_info(const AxisInfo *a, const AxisInfo *b)
{
    AxisInfo j = *a;
    for (int d = 0; d < a->rank; d++) {
        j.contiguity[d] = gcd_or(a->contiguity[d], b->contiguity[d]);
        j.divisibility[d] = gcd_or(a->divisibility[d], b->divisibility[d]);
        j.constancy[d] = gcd_or(a->constancy[d], b->constancy[d]);
    }
    j.has_const = a->has_const && b->has_const && a->const_value == b->const_value;
    j.const_value = j.has_const ? a->const_value : 0;
    j.affine = a->affine && b->affine && a->aff_offset == b->aff_offset &&
               !memcmp(a->aff_stride, b->aff_stride, sizeof a->aff_stride);
    return j;
}

static bool info_eq(const AxisInfo *a, const AxisInfo *b)
{
    if (a->rank != b->rank || a->has_const != b->has_const || (a->has_const && a->const_value != b->const_value))
        return false;
    if (a->affine != b->affine ||
        (a->affine && (a->aff_offset != b->aff_offset || memcmp(a->aff_stride, b->aff_stride, sizeof a->aff_stride))))
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->contiguity[d] != b->contiguity[d] || a->divisibility[d] != b->divisibility[d] ||
            a->constancy[d] != b->constancy[d])
            return false;
    return true;
}

static bool inputs_eq(const Loop *L, const AxisInfo *in)
{
    for (int i = 0; i < L->inputs.len; i++)
        if (!info_eq(&L->inputs.data[i]->ax, &in[i]))
            return false;
    return true;
}

/* A for loop's carried values start as their inits and are joined with what
 * the body yields until nothing changes, so that `ptrs += BLOCK * stride`
 * keeps its contiguity and divisibility (a matmul's vector loads need them).
 * gcds only go down, so this ends; after a few rounds it gives up to the
 * pessimistic answer.  Leaves the fixpoint in the carried values (the body's
 * arguments after the induction variable). */
static void solve_for(Pass *P, Op *op)
{
    Loop *L = &P->loops.data[P->loop_of_iv[op->regions[0]->args.data[0]->id]];
    Block *body = op->regions[0];
    for (int s = 0; s < L->solved.len; s++)
        if (inputs_eq(L, L->solved.data[s].in)) {
            for (int k = 0; k < op->nres; k++)
                body->args.data[k + 1]->ax = L->solved.data[s].carried[k];
            return;
        }
    Op *y = tir_block_last(body);
    bool has_yield = y && y->kind == OP_YIELD && y->nargs == op->nres;
    for (int k = 0; k < op->nres; k++) {
        Value *it = body->args.data[k + 1];
        if (has_yield)
            it->ax = op->args[3 + k]->ax;
        apply_hints(it);
    }
    bool stable = !has_yield;
    for (int round = 0; round < 6 && !stable; round++) {
        visit_block(P, body, false);
        stable = true;
        for (int k = 0; k < op->nres; k++) {
            Value *it = body->args.data[k + 1];
            AxisInfo j = join_info(&it->ax, &y->args[k]->ax);
            if (!info_eq(&j, &it->ax)) {
                it->ax = j;
                stable = false;
            }
        }
    }
    if (!stable)
        for (int k = 0; k < op->nres; k++)
            pessimistic(body->args.data[k + 1]);
    Solved sv = {NEW_ARRAY(P->arena, AxisInfo, L->inputs.len), NEW_ARRAY(P->arena, AxisInfo, op->nres)};
    for (int i = 0; i < L->inputs.len; i++)
        sv.in[i] = L->inputs.data[i]->ax;
    for (int k = 0; k < op->nres; k++)
        sv.carried[k] = body->args.data[k + 1]->ax;
    vec_push(P->arena, &L->solved, sv);
}

/* An if's results hold what both branches yield (Triton joins scf.if's yields
 * the same way); a branch that returned yields nothing and adds nothing.  The
 * persistent matmul's column offsets, recomputed under `if ki == 0` with
 * tl.max_contiguous and carried around the loop, keep their contiguity so. */
static void visit_if_results(Op *op)
{
    for (int k = 0; k < op->nres; k++) {
        Value *res = op->results[k];
        bool any = false;
        for (int r = 0; r < op->nregions; r++) {
            Block *b = op->regions[r];
            Op *y = tir_block_last(b);
            if (!y || y->kind != OP_YIELD || y->nargs != op->nres)
                continue;
            res->ax = any ? join_info(&res->ax, &y->args[k]->ax) : y->args[k]->ax;
            any = true;
        }
        if (!any)
            pessimistic(res);
        apply_hints(res);
    }
}

static void visit_for(Pass *P, Op *op, bool final)
{
    Block *body = op->regions[0];
    solve_for(P, op);
    if (final)
        visit_block(P, body, true);
    for (int k = 0; k < op->nres; k++) {
        op->results[k]->ax = body->args.data[k + 1]->ax;
        apply_hints(op->results[k]);
    }
}

static void visit_op(Pass *P, Op *op, bool final)
{
    for (int i = 0; i < op->nres; i++)
        pessimistic(op->results[i]);
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->args.len; i++)
            pessimistic(op->regions[r]->args.data[i]);
    if (op->kind == OP_FOR) {
        /* the induction variable is known before the body: divisibility gcd(lb, step) */
        Value *iv = op->regions[0]->args.data[0];
        int64_t div = gcd_or(op->args[0]->ax.divisibility[0], op->args[2]->ax.divisibility[0]);
        iv->ax.divisibility[0] = div ? div : 1;
    }
    if (op->kind == OP_FOR) {
        visit_for(P, op, final);
        return;
    }
    for (int r = 0; r < op->nregions; r++)
        visit_block(P, op->regions[r], final);
    if (op->kind == OP_IF) {
        visit_if_results(op);
        return;
    }
    if (op->nres != 1)
        return;
    Value *r = op->results[0];
    AxisInfo *o = &r->ax;
    Value *a0 = op->nargs > 0 ? op->args[0] : NULL;
    switch (op->kind) {
    case OP_CONST:
        if (!dtype_is_float(r->type.dtype))
            constant_info(r, op->constant.ival);
        break;
    case OP_MAKE_RANGE:
        o->contiguity[0] = op->make_range.end - op->make_range.start;
        o->divisibility[0] = highest_pow2_divisor(op->make_range.start);
        o->constancy[0] = 1;
        o->affine = true;
        o->aff_offset = op->make_range.start;
        o->aff_stride[0] = 1;
        break;
    case OP_SPLAT:
        for (int d = 0; d < o->rank; d++) {
            o->contiguity[d] = 1;
            o->divisibility[d] = a0->ax.divisibility[0];
            o->constancy[d] = dim_of(r, d);
        }
        if (a0->ax.has_const) {
            o->has_const = true;
            o->const_value = a0->ax.const_value;
            o->affine = true;
            o->aff_offset = a0->ax.const_value;
        }
        break;
    case OP_BROADCAST:
        for (int d = 0; d < o->rank; d++) {
            bool expanded = a0->type.shape[d] == 1 && r->type.shape[d] != 1;
            o->contiguity[d] = expanded ? 1 : a0->ax.contiguity[d];
            o->divisibility[d] = a0->ax.divisibility[d];
            o->constancy[d] = expanded ? r->type.shape[d] : a0->ax.constancy[d];
            o->aff_stride[d] = expanded ? 0 : a0->ax.aff_stride[d];
        }
        o->has_const = a0->ax.has_const;
        o->const_value = a0->ax.const_value;
        o->affine = a0->ax.affine && a0->ax.rank == o->rank;
        o->aff_offset = a0->ax.aff_offset;
        break;
    case OP_TRANS:
        for (int d = 0; d < o->rank; d++) {
            int from = op->trans.perm[d];
            o->contiguity[d] = a0->ax.contiguity[from];
            o->divisibility[d] = a0->ax.divisibility[from];
            o->constancy[d] = a0->ax.constancy[from];
            o->aff_stride[d] = a0->ax.aff_stride[from];
        }
        o->has_const = a0->ax.has_const;
        o->const_value = a0->ax.const_value;
        o->affine = a0->ax.affine && a0->ax.rank == o->rank;
        o->aff_offset = a0->ax.aff_offset;
        break;
    case OP_EXPAND_DIMS: {
        int axis = op->expand_dims.axis;
        int64_t g = 0;
        for (int d = 0; d < a0->ax.rank; d++)
            g = gcd_or(g, a0->ax.contiguity[d] > 1 ? 1 : a0->ax.divisibility[d]);
        for (int d = 0, s = 0; d < o->rank; d++) {
            if (d == axis) {
                o->contiguity[d] = 1;
                o->constancy[d] = 1;
                o->divisibility[d] = a0->ax.has_const ? highest_pow2_divisor(a0->ax.const_value) : (g ? g : 1);
                continue;
            }
            o->contiguity[d] = a0->ax.contiguity[s];
            o->divisibility[d] = a0->ax.divisibility[s];
            o->constancy[d] = a0->ax.constancy[s];
            o->aff_stride[d] = a0->ax.aff_stride[s];
            s++;
        }
        o->affine = a0->ax.affine && a0->type.rank + 1 == o->rank;
        o->aff_offset = a0->ax.aff_offset;
        break;
    }
    case OP_ADD:
    case OP_ADDPTR: visit_addsub(op, false); break;
    case OP_SUB: visit_addsub(op, true); break;
    case OP_MUL: visit_mul(op); break;
    case OP_DIV:
        if (!dtype_is_float(r->type.dtype))
            visit_div(op);
        break;
    case OP_REM:
        if (!dtype_is_float(r->type.dtype))
            visit_rem(op);
        break;
    case OP_CMP: visit_cmp(op); break;
    case OP_AND:
    case OP_OR:
    case OP_XOR:
    case OP_MAX:
    case OP_MIN:
        for (int d = 0; d < o->rank; d++)
            o->constancy[d] = gcd_or(op->args[0]->ax.constancy[d], op->args[1]->ax.constancy[d]);
        break;
    case OP_SELECT:
        for (int d = 0; d < o->rank; d++) {
            const AxisInfo *c = &op->args[0]->ax, *x = &op->args[1]->ax, *y = &op->args[2]->ax;
            o->contiguity[d] = gcd_or(gcd_or(x->contiguity[d], y->contiguity[d]), c->constancy[d]);
            o->divisibility[d] = gcd_or(x->divisibility[d], y->divisibility[d]);
            o->constancy[d] = gcd_or(gcd_or(x->constancy[d], y->constancy[d]), c->constancy[d]);
        }
        break;
    case OP_CAST:
    case OP_BITCAST:
        if (dtype_is_int(r->type.dtype) || r->type.dtype == DT_PTR) {
            if (dtype_is_int(a0->type.dtype) || a0->type.dtype == DT_PTR) {
                *o = a0->ax;
            } else {
                for (int d = 0; d < o->rank; d++)
                    o->constancy[d] = a0->ax.constancy[d];
            }
        }
        break;
    case OP_LOAD: {
        for (int d = 0; d < o->rank; d++) {
            int64_t k = a0->ax.constancy[d];
            if (op->load.has_mask)
                k = gcd_or(k, op->args[1]->ax.constancy[d]);
            o->constancy[d] = k;
        }
        break;
    }
    case OP_SHL:
    case OP_SHR: {
        const AxisInfo *L = &op->args[0]->ax, *R = &op->args[1]->ax;
        if (R->has_const && R->const_value >= 0 && R->const_value < 62) {
            int64_t k = R->const_value;
            for (int d = 0; d < o->rank; d++) {
                int64_t ld = (L->contiguity[d] > 1 && k) ? 1 : L->divisibility[d];
                o->contiguity[d] = k == 0 ? L->contiguity[d] : 1;
                o->divisibility[d] = op->kind == OP_SHL ? imin(MAX_DIV, ld << imin(k, 61)) : imax(1, ld >> k);
                o->constancy[d] = L->constancy[d];
            }
        }
        break;
    }
    default:
        /* other elementwise ops keep constancy */
        if (op_is_elementwise(op->kind) && op->nargs) {
            for (int d = 0; d < o->rank; d++) {
                int64_t k = 0;
                for (int i = 0; i < op->nargs; i++)
                    k = gcd_or(k, op->args[i]->ax.constancy[d]);
                o->constancy[d] = k ? k : 1;
            }
        }
        break;
    }
    aff_check(r);
    for (int d = 0; d < o->rank; d++) {
        if (o->contiguity[d] < 1)
            o->contiguity[d] = 1;
        if (o->divisibility[d] < 1)
            o->divisibility[d] = 1;
        if (o->constancy[d] < 1)
            o->constancy[d] = 1;
    }
    apply_hints(r);
}

/* Numbers the loops in program order and notes the loop that defines each value. */
static void number_loops(Pass *P, Block *b, int loop)
{
    for (int i = 0; i < b->args.len; i++)
        P->scope[b->args.data[i]->id] = loop;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nres; k++)
            P->scope[op->results[k]->id] = loop;
        if (op->kind != OP_FOR) {
            for (int r = 0; r < op->nregions; r++)
                number_loops(P, op->regions[r], loop);
            continue;
        }
        int n = P->loops.len;
        vec_push(P->arena, &P->loops, ((Loop){.op = op}));
        P->loop_of_iv[op->regions[0]->args.data[0]->id] = n;
        number_loops(P, op->regions[0], n);
        P->loops.data[n].end = P->loops.len;
    }
}

static void add_input(Pass *P, int n, Value *v)
{
    Loop *L = &P->loops.data[n];
    int s = P->scope[v->id];
    if ((s >= n && s < L->end) || P->seen[v->id] == n)
        return; /* defined in the loop, or listed */
    P->seen[v->id] = n;
    vec_push(P->arena, &L->inputs, v);
}

/* The inputs of loop n that its own body's ops (not its inner loops') read, and its inner
 * loops' inputs that come from outside it. */
static void list_inputs(Pass *P, int n, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nargs; k++)
            add_input(P, n, op->args[k]);
        if (op->kind == OP_FOR) {
            const Loop *inner = &P->loops.data[P->loop_of_iv[op->regions[0]->args.data[0]->id]];
            for (int k = 0; k < inner->inputs.len; k++)
                add_input(P, n, inner->inputs.data[k]);
            continue;
        }
        for (int r = 0; r < op->nregions; r++)
            list_inputs(P, n, op->regions[r]);
    }
}

void tir_axisinfo(Ctx *ctx, TirFunc *f)
{
    Pass P = {.arena = &ctx->arena};
    P.loop_of_iv = NEW_ARRAY(P.arena, int, f->nvalues + 1);
    P.scope = NEW_ARRAY(P.arena, int, f->nvalues + 1);
    P.seen = NEW_ARRAY(P.arena, int, f->nvalues + 1);
    for (int i = 0; i <= f->nvalues; i++)
        P.scope[i] = P.seen[i] = -1;
    number_loops(&P, f->body, -1);
    for (int n = P.loops.len - 1; n >= 0; n--) { /* inner loops first */
        Op *op = P.loops.data[n].op;
        for (int k = 0; k < op->nargs; k++)
            add_input(&P, n, op->args[k]);
        list_inputs(&P, n, op->regions[0]);
    }
    for (int i = 0; i < f->params.len; i++) {
        KernelParam *kp = &f->params.data[i];
        if (!kp->value)
            continue;
        pessimistic(kp->value);
        if (kp->div > 1)
            kp->value->ax.divisibility[0] = kp->div;
    }
    visit_block(&P, f->body, true);
}

/* ---- comparisons decided per register -------------------------------------------
 *
 * A comparison of two affine integer tiles can have registers that every thread
 * answers alike.  Triton's LLVM finds the same from the thread index's range:
 * Liger's SwiGLU (16384 columns a row, 11008 of them real, 16 warps) has the
 * last 8 of its 32 registers past the end in every thread, and with the mask
 * false there nvcc drops their loads, math and stores.  Each element is
 * aff_offset + sum_d stride[d] * coordinate[d], and a register's coordinate is
 * its own part plus the lane's and the warp's, whose bits never overlap
 * (LayoutMap), so over all threads the difference of the two sides ranges over
 * an interval found dimension by dimension. */

typedef struct Decide {
    LayoutMap m;
    int64_t thread_max[TIR_MAX_RANK]; /* the most a thread's part of each coordinate reaches */
    const Op *op;
} Decide;

/* 1: register e is true in every thread, -1 false in every thread, 0 it depends. */
static int decide_reg(const Decide *D, int e)
{
    const Value *a = D->op->args[0], *b = D->op->args[1];
    int rank = D->op->results[0]->type.rank;
    int c[TIR_MAX_RANK];
    lmap_coords(&D->m, e, 0, 0, c);
    int64_t lo = a->ax.aff_offset - b->ax.aff_offset;
    for (int d = 0; d < rank; d++)
        lo += (a->ax.aff_stride[d] - b->ax.aff_stride[d]) * c[d];
    int64_t hi = lo;
    for (int d = 0; d < rank; d++) {
        int64_t span = (a->ax.aff_stride[d] - b->ax.aff_stride[d]) * D->thread_max[d];
        lo += span < 0 ? span : 0;
        hi += span > 0 ? span : 0;
    }
    bool yes = false, no = false; /* a - b lies in [lo, hi] in every thread */
    switch (D->op->cmp.pred) {
    case CMP_LT: yes = hi < 0; no = lo >= 0; break;
    case CMP_LE: yes = hi <= 0; no = lo > 0; break;
    case CMP_GT: yes = lo > 0; no = hi <= 0; break;
    case CMP_GE: yes = lo >= 0; no = hi < 0; break;
    case CMP_EQ: yes = lo == 0 && hi == 0; no = hi < 0 || lo > 0; break;
    case CMP_NE: yes = hi < 0 || lo > 0; no = lo == 0 && hi == 0; break;
    }
    return yes ? 1 : no ? -1 : 0;
}

bool tir_cmp_decided(const Op *op, CmpDecided *dec)
{
    const Value *r = op->results[0], *a = op->args[0], *b = op->args[1];
    if (op->kind != OP_CMP || !r->type.rank || !r->layout || !a->ax.affine || !b->ax.affine ||
        !dtype_is_int(a->type.dtype) || !dtype_is_int(b->type.dtype) || a->ax.rank != r->type.rank ||
        b->ax.rank != r->type.rank)
        return false;
    Decide D = {.op = op};
    value_map(r, &D.m);
    for (int i = 0; i < D.m.nlane; i++)
        if (D.m.lane[i].dim >= 0)
            D.thread_max[D.m.lane[i].dim] += (int64_t)1 << D.m.lane[i].bit;
    for (int i = 0; i < D.m.nwarp; i++)
        if (D.m.warp[i].dim >= 0)
            D.thread_max[D.m.warp[i].dim] += (int64_t)1 << D.m.warp[i].bit;
    int n = value_regs(r), first = decide_reg(&D, 0), last = decide_reg(&D, n - 1);
    *dec = (CmpDecided){.n = n, .prefix = 0, .suffix = n, .prefix_true = first > 0, .suffix_true = last > 0};
    while (first && dec->prefix < n && decide_reg(&D, dec->prefix) == first)
        dec->prefix++;
    while (last && dec->suffix > dec->prefix && decide_reg(&D, dec->suffix - 1) == last)
        dec->suffix--;
    return dec->prefix > 0 || dec->suffix < n;
}

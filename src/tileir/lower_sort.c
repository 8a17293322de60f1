/*
 * lower_sort.c — the handlers of tl.sort and tl.bitonic_merge: one OP_SORT
 * each, a bitonic network along the last dimension (Triton sorts only
 * there).  Triton writes both in its standard library as compare-and-swap
 * steps over a hypercube reshape; tilec keeps the network as one op, and the
 * emitter (src/emit_cuda/sort.c) prints its steps with Triton's comparator.
 */
#include "lower_internal.h"

/* The tile to sort, along its last dimension: `dim` must be None or name it
 * (a negative dim too is refused, as Triton's static_assert does). */
static Value *sort_operand(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *x = c->arg[0];
    if (x->kind != CV_VALUE || !x->v->type.rank)
        lower_error(L, c->at[0], "%s needs a tensor, got %s", c->name, cv_describe(L, x));
    Value *v = x->v;
    DType d = v->type.dtype;
    if (d == DT_PTR || dtype_is_fp8(d))
        lower_error(L, c->at[0], "%s cannot order %s", c->name,
                    d == DT_PTR ? "pointers" : arena_printf(L->a, "%s elements", dtype_triton_name(d)));
    if (c->arg[1]) {
        int64_t dim = const_int(L, c->arg[1], c->at[1], "dim");
        if (dim != v->type.rank - 1)
            lower_error(L, c->at[1], "%s sorts along the last dimension only (dim=%d for a tensor of rank %d), got dim=%lld",
                        c->name, v->type.rank - 1, v->type.rank, (long long)dim);
    }
    return v;
}

static CVal *sort_op(const BuiltinCall *c, bool merge_only)
{
    Lower *L = c->L;
    Value *v = sort_operand(c);
    if (v->type.shape[v->type.rank - 1] == 1)
        return cv_value(L, v);
    Op *op = emit_op(L, OP_SORT, c->loc, 1, &v, v->type);
    op->sort.descending = cv_truthy(L, c->arg[2], c->at[2]);
    op->sort.merge_only = merge_only;
    return cv_value(L, op->results[0]);
}

/* tl.sort(x, dim=None, descending=False) */
CVal *builtin_sort(const BuiltinCall *c) { return sort_op(c, false); }

/* tl.bitonic_merge(x, dim=None, descending=False): the last stage of the
 * network alone, which orders a bitonic sequence */
CVal *builtin_bitonic_merge(const BuiltinCall *c) { return sort_op(c, true); }

/*
 * lower_sort.c — the handlers of tl.sort, tl.bitonic_merge and tl.topk: one OP_SORT
 * each, a bitonic network along the last dimension (Triton sorts only
 * there).  Triton writes both in its standard library as compare-and-swap
 * steps over a hypercube reshape; tilec keeps the network as one op, and the
 * emitter (src/emit_cuda/sort.c) prints its steps with Triton's comparator.
 * tl.topk is the same network with halvings between its merges.
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

/* arg[2] (descending) is ignored when `desc` is set */
static CVal *sort_op(const BuiltinCall *c, bool merge_only, bool desc)
{
    Lower *L = c->L;
    Value *v = sort_operand(c);
    if (v->type.shape[v->type.rank - 1] == 1)
        return cv_value(L, v);
    Op *op = emit_op(L, OP_SORT, c->loc, 1, &v, v->type);
    op->sort.descending = desc || cv_truthy(L, c->arg[2], c->at[2]);
    op->sort.merge_only = merge_only;
    return cv_value(L, op->results[0]);
}

/* tl.topk(x, k, dim=None): the k largest along the last dimension,
 * descending.  As in Triton, k counts down to a power of two (its log2 is
 * taken rounding down), and k equal to the length is a descending sort. */
CVal *builtin_topk(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *args[3] = {c->arg[0], c->arg[2], NULL};
    Loc at[3] = {c->at[0], c->at[2], c->at[0]};
    BuiltinCall sc = *c;
    sc.arg = args;
    sc.at = at;
    Value *v = sort_operand(&sc);
    int n = v->type.shape[v->type.rank - 1];
    int64_t k = const_int(L, c->arg[1], c->at[1], "k");
    if (k < 1 || k > n)
        lower_error(L, c->at[1], "tl.topk needs 1 <= k <= %d (the length of the last dimension), got k=%lld", n, (long long)k);
    int pk = 1;
    while (pk * 2 <= k)
        pk *= 2;
    if (pk == n)
        return sort_op(&sc, false, true);
    Type t = v->type;
    t.shape[t.rank - 1] = pk;
    Op *op = emit_op(L, OP_SORT, c->loc, 1, &v, t);
    op->sort.descending = true;
    op->sort.k = pk;
    return cv_value(L, op->results[0]);
}

/* tl.sort(x, dim=None, descending=False) */
CVal *builtin_sort(const BuiltinCall *c) { return sort_op(c, false, false); }

/* tl.bitonic_merge(x, dim=None, descending=False): the last stage of the
 * network alone, which orders a bitonic sequence */
CVal *builtin_bitonic_merge(const BuiltinCall *c) { return sort_op(c, true, false); }

/*
 * lower_combine.c — tl.reduce and tl.associative_scan: reductions and scans whose
 * combine is a @triton.jit function of the user; and tl.map_elementwise, a user's
 * function run on each element (OP_MAP, lowered the same way on scalars).
 *
 * The function is lowered once per reduction or scan, into the op's region (tir.h,
 * RED_COMBINE): it is called, as Triton calls it, with 2N scalars, the left group's N
 * elements then the right group's, and returns N.  What it may do there is what the
 * emitter can print as a device function of scalars: arithmetic, comparisons, casts,
 * math, tl.where, and if/for/while on scalars.  Anything else is refused by name at
 * the place the function does it.
 */
#include "lower_internal.h"

#include <string.h>

/* The operands: one tensor, or a tuple of tensors of one shape. */
static int combine_operands(const BuiltinCall *c, Value ***out)
{
    Lower *L = c->L;
    CVal *in = c->arg[0];
    int n = in->kind == CV_TUPLE ? in->items.len : 1;
    if (n == 0)
        lower_error(L, c->at[0], "%s needs at least one tensor, got an empty tuple", c->name);
    Value **v = NEW_ARRAY(L->a, Value *, n);
    for (int k = 0; k < n; k++) {
        CVal *item = in->kind == CV_TUPLE ? in->items.data[k] : in;
        if (item->kind != CV_VALUE || !item->v->type.rank)
            lower_error(L, c->at[0], "%s expects a tensor or a tuple of tensors, got %s", c->name,
                        item->kind == CV_VALUE ? "a scalar" : cv_describe(L, item));
        v[k] = item->v;
        DType d = v[k]->type.dtype;
        if (d == DT_PTR || dtype_is_fp8(d))
            lower_error(L, c->at[0], "%s of a tensor of %s is not supported by tilec", c->name,
                        d == DT_PTR ? "pointers" : dtype_triton_name(d));
        if (v[k]->type.rank != v[0]->type.rank || memcmp(v[k]->type.shape, v[0]->type.shape, sizeof v[0]->type.shape))
            lower_error(L, c->at[0], "all %s inputs must have the same shape: input %d is %s, input 0 is %s",
                        c->name, k, type_str(L->a, v[k]->type), type_str(L->a, v[0]->type));
    }
    *out = v;
    return n;
}

static FuncDef *combine_function(const BuiltinCall *c, int i, int n)
{
    Lower *L = c->L;
    CVal *fn = c->arg[i];
    if (!fn || fn->kind != CV_FUNC)
        lower_error(L, c->at[i], "the combine function of %s must be a @triton.jit function, got %s", c->name,
                    fn ? cv_describe(L, fn) : "None");
    FuncDef *fd = fn->func;
    int required = 0;
    for (int p = 0; p < fd->params.len; p++)
        required += fd->params.data[p].default_value == NULL;
    if (required > 2 * n || fd->params.len < 2 * n)
        lower_error(L, c->at[i], "the combine function %s() takes %d argument%s, but %s of %d tensor%s calls it with %d "
                    "(the left group's %d, then the right group's %d)", fd->name, fd->params.len,
                    fd->params.len == 1 ? "" : "s", c->name, n, n == 1 ? "" : "s", 2 * n, n, n);
    return fd;
}

/* fd lowered on scalars into op's region (*region, made here, L->cur when this returns):
 * the region takes one element of each of tiles[0..n), named after fd's parameters, and
 * fd is called on them; returns what it returns. */
static CVal *lower_on_scalars(const BuiltinCall *c, Op *op, FuncDef *fd, Value **tiles, int n, Block **region)
{
    Lower *L = c->L;
    Block *b = tir_block_new(L->a, op);
    op->regions[0] = b;
    op->nregions = 1;
    CVal **args = NEW_ARRAY(L->a, CVal *, (size_t)n + 1);
    for (int i = 0; i < n; i++) {
        Value *v = tir_value_new(L->a, L->f, type_elem(tiles[i]->type));
        v->block = b;
        v->arg_index = i;
        v->name = fd->params.data[i].name;
        vec_push(L->a, &b->args, v);
        args[i] = cv_value(L, v);
    }
    L->cur = b;
    *region = b;
    return lower_inline_call(L, fd, c->call, args, n);
}

/* Ops a combine function (map: the function of tl.map_elementwise) may hold: scalar
 * computations and structured control flow. */
static void check_scalar_body(Lower *L, const Block *b, const char *fname, bool map)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        OpKind k = op->kind;
        bool flow = k == OP_IF || k == OP_FOR || k == OP_WHILE || k == OP_YIELD || k == OP_CONDITION;
        if (!flow && !op_is_elementwise(k) && map)
            lower_error(L, op->loc, "tilec cannot emit '%s' inside %s(), the function of tl.map_elementwise: it may "
                        "only compute on its scalar arguments (memory, atomics and printing there are not supported yet)",
                        op_name(k), fname);
        if (!flow && !op_is_elementwise(k))
            lower_error(L, op->loc, "tilec cannot emit '%s' inside the combine function %s(): a combine function "
                        "may only compute on its scalar arguments", op_name(k), fname);
        for (int r = 0; r < op->nres; r++)
            if (op->results[r]->type.rank)
                lower_error(L, op->loc, "tilec cannot emit a tensor (%s) inside %s %s(): it works on one element of "
                            "each input at a time", type_str(L->a, op->results[r]->type),
                            map ? "the tl.map_elementwise function" : "the combine function", fname);
        for (int r = 0; r < op->nregions; r++)
            check_scalar_body(L, op->regions[r], fname, map);
    }
}

/* The combine function lowered into op's region: 2N arguments named after its
 * parameters, its body, and a yield of what it returns, checked against the operands. */
static void build_combine_region(const BuiltinCall *c, Op *op, FuncDef *fd, Value **xs, int n)
{
    Lower *L = c->L;
    Block *saved = L->cur;
    Value **elems = NEW_ARRAY(L->a, Value *, 2 * n);
    for (int i = 0; i < 2 * n; i++)
        elems[i] = xs[i % n];
    Block *b;
    CVal *r = lower_on_scalars(c, op, fd, elems, 2 * n, &b);
    int nr = r->kind == CV_TUPLE ? r->items.len : r->kind == CV_NONE ? 0 : 1;
    if (nr != n)
        lower_error(L, c->at[2], "the combine function %s() returns %d value%s, but %s has %d input%s (Triton: "
                    "expected combine operation to return %d values but got %d)", fd->name, nr, nr == 1 ? "" : "s",
                    c->name, n, n == 1 ? "" : "s", n, nr);
    Value **ys = NEW_ARRAY(L->a, Value *, n);
    for (int k = 0; k < n; k++) {
        CVal *item = r->kind == CV_TUPLE ? r->items.data[k] : r;
        if (item->kind != CV_VALUE && !cv_is_python_scalar(item))
            lower_error(L, c->at[2], "the combine function %s() returns %s as its value %d; it must return scalars",
                        fd->name, cv_describe(L, item), k);
        ys[k] = to_value(L, item, c->at[2]);
        Type want = type_elem(xs[k]->type);
        if (!type_eq(ys[k]->type, want))
            lower_error(L, c->at[2], "the combine function %s() returns %s as its value %d, but input %d is %s "
                        "(Triton: type mismatch on combine operation)", fd->name, type_str(L->a, ys[k]->type), k, k,
                        dtype_triton_name(want.dtype));
    }
    Op *y = tir_op_new(L->a, L->f, OP_YIELD, n, ys, 0, NULL);
    y->loc = c->loc;
    y->stmt = L->stmt;
    tir_block_append(L->a, b, y);
    L->cur = saved;
    check_scalar_body(L, b, fd->name, false);
}

/* One combine op (OP_REDUCE along `axis`, or OP_SCAN) over xs, appended to the block. */
static Op *combine_op(const BuiltinCall *c, OpKind kind, Value **xs, int n, int axis, FuncDef *fd)
{
    Lower *L = c->L;
    Type *res = NEW_ARRAY(L->a, Type, n);
    for (int k = 0; k < n; k++) {
        res[k] = xs[k]->type;
        if (kind == OP_REDUCE) {
            res[k].rank = 0;
            for (int d = 0; d < xs[k]->type.rank; d++)
                if (d != axis)
                    res[k].shape[res[k].rank++] = xs[k]->type.shape[d];
        }
    }
    Op *op = tir_op_new(L->a, L->f, kind, n, xs, n, res);
    op->loc = c->loc;
    op->stmt = L->stmt;
    if (kind == OP_REDUCE) {
        op->reduce.kind = RED_COMBINE;
        op->reduce.axis = axis;
        op->reduce.combine = fd->name;
    } else {
        op->scan.kind = SCAN_COMBINE;
        op->scan.axis = axis;
        op->scan.combine = fd->name;
    }
    build_combine_region(c, op, fd, xs, n);
    tir_block_append(L->a, L->cur, op);
    return op;
}

static CVal *combine_results(Lower *L, CVal *input, Value **rs, int n)
{
    if (input->kind != CV_TUPLE)
        return cv_value(L, rs[0]);
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    for (int k = 0; k < n; k++)
        vec_push(L->a, &t->items, cv_value(L, rs[k]));
    return t;
}

static int combine_axis(const BuiltinCall *c, int rank)
{
    Lower *L = c->L;
    int64_t axis = const_int(L, c->arg[1], c->at[1], "the axis");
    if (axis < -rank || axis >= rank)
        lower_error(L, c->at[1], "axis %lld is out of range for a tensor of rank %d", (long long)axis, rank);
    return (int)(axis < 0 ? axis + rank : axis);
}

/* tl.reduce(input, axis, combine_fn, keep_dims=False); axis=None: every axis, the last first
 * (Triton flattens the tile and lets the order change) */
CVal *builtin_reduce(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value **xs;
    int n = combine_operands(c, &xs);
    FuncDef *fd = combine_function(c, 2, n);
    bool keep_dims = cv_truthy(L, c->arg[3], c->at[3]);
    int rank = xs[0]->type.rank;
    Value **rs = xs;
    bool all = !c->arg[1] || c->arg[1]->kind == CV_NONE;
    int axis = all ? rank - 1 : combine_axis(c, rank);
    for (int d = axis; d >= (all ? 0 : axis); d--) {
        Op *op = combine_op(c, OP_REDUCE, rs, n, d, fd);
        rs = NEW_ARRAY(L->a, Value *, n);
        memcpy(rs, op->results, sizeof *rs * (size_t)n);
    }
    if (keep_dims)
        for (int k = 0; k < n; k++)
            for (int d = all ? 0 : axis; d <= axis; d++)
                rs[k] = lower_expand_dims(L, rs[k], d, c->loc);
    return combine_results(L, c->arg[0], rs, n);
}

/* tl.associative_scan(input, axis, combine_fn, reverse=False) */
CVal *builtin_associative_scan(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value **xs;
    int n = combine_operands(c, &xs);
    FuncDef *fd = combine_function(c, 2, n);
    if (!c->arg[1] || c->arg[1]->kind == CV_NONE)
        lower_error(L, c->at[1], "tl.associative_scan needs an axis, got None");
    int axis = combine_axis(c, xs[0]->type.rank);
    Op *op = combine_op(c, OP_SCAN, xs, n, axis, fd);
    op->scan.reverse = cv_truthy(L, c->arg[3], c->at[3]);
    return combine_results(L, c->arg[0], op->results, n);
}

/* ---- tl.map_elementwise ---------------------------------------------------------- */

/* tl.map_elementwise(scalar_fn, *args, pack=1): the @triton.jit function scalar_fn run
 * on one element of each argument at a time, the arguments broadcast to one shape first
 * (no type promotion, as Triton).  Its body is lowered into an OP_MAP's region on
 * scalars, so a runtime if or loop in it branches per element, as in Triton, where
 * tl.where would compute both sides.  It returns one value or a tuple; each becomes a
 * tensor of the common shape. */
CVal *builtin_map_elementwise(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *fn = c->arg[0], *args = c->arg[1];
    if (!fn || fn->kind != CV_FUNC)
        lower_error(L, c->at[0], "the function of tl.map_elementwise must be a @triton.jit function, got %s",
                    fn ? cv_describe(L, fn) : "None");
    FuncDef *fd = fn->func;
    if (c->arg[2]) {
        int64_t pack = const_int(L, c->arg[2], c->at[2], "pack");
        if (pack != 1)
            lower_error(L, c->at[2], "tl.map_elementwise with pack=%lld is not supported yet (with pack=1 the "
                        "function runs on one element of each argument at a time)", (long long)pack);
    }
    int n = args && args->kind == CV_TUPLE ? args->items.len : 0;
    Value **vals = NEW_ARRAY(L->a, Value *, (size_t)n + 1);
    Loc *at = NEW_ARRAY(L->a, Loc, (size_t)n + 1);
    for (int i = 0; i < n; i++) {
        at[i] = c->rest_at ? c->rest_at[i] : c->loc;
        vals[i] = to_value(L, args->items.data[i], at[i]);
        if (vals[i]->type.dtype == DT_PTR)
            lower_error(L, at[i], "tl.map_elementwise of a tensor of pointers is not supported yet");
    }
    int shape[TIR_MAX_RANK] = {0}, rank = broadcast_all(L, vals, n, at, c->loc, shape);
    if (!rank)
        lower_error(L, c->loc, "tl.map_elementwise needs at least one tensor argument (Triton: map_elementwise must "
                    "have at least 1 input tensor); call %s() directly on scalars", fd->name);
    int required = 0;
    for (int p = 0; p < fd->params.len; p++)
        required += fd->params.data[p].default_value == NULL;
    if (n < required || n > fd->params.len)
        lower_error(L, c->at[0], "%s() takes %d argument%s, but tl.map_elementwise passes it %d (one element of "
                    "each tensor)", fd->name, fd->params.len, fd->params.len == 1 ? "" : "s", n);

    Op *op = tir_op_new(L->a, L->f, OP_MAP, n, vals, 0, NULL);
    op->loc = c->loc;
    op->stmt = L->stmt;
    op->map.fn = fd->name;
    Block *saved = L->cur, *b;
    CVal *r = lower_on_scalars(c, op, fd, vals, n, &b);
    int nr = r->kind == CV_TUPLE ? r->items.len : r->kind == CV_NONE ? 0 : 1;
    if (nr == 0)
        lower_error(L, c->at[0], "%s() returns nothing; the function of tl.map_elementwise must return a value or "
                    "a tuple of values", fd->name);
    Value **ys = NEW_ARRAY(L->a, Value *, (size_t)nr);
    for (int k = 0; k < nr; k++) {
        CVal *item = r->kind == CV_TUPLE ? r->items.data[k] : r;
        if (item->kind != CV_VALUE && !cv_is_python_scalar(item))
            lower_error(L, c->at[0], "%s() returns %s as its value %d; the function of tl.map_elementwise must "
                        "return scalars", fd->name, cv_describe(L, item), k);
        ys[k] = to_value(L, item, c->at[0]);
    }
    Op *y = tir_op_new(L->a, L->f, OP_YIELD, nr, ys, 0, NULL);
    y->loc = c->loc;
    y->stmt = L->stmt;
    tir_block_append(L->a, b, y);
    L->cur = saved;
    check_scalar_body(L, b, fd->name, true);
    op->nres = nr;
    op->results = NEW_ARRAY(L->a, Value *, (size_t)nr);
    for (int k = 0; k < nr; k++) {
        op->results[k] = tir_value_new(L->a, L->f, type_tensor(ys[k]->type, rank, shape));
        op->results[k]->def = op;
    }
    tir_block_append(L->a, L->cur, op);
    if (r->kind != CV_TUPLE)
        return cv_value(L, op->results[0]);
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    for (int k = 0; k < nr; k++)
        vec_push(L->a, &t->items, cv_value(L, op->results[k]));
    return t;
}

/*
 * lower_tiles.c — the handlers (see builtins.h) of the tl.* functions that
 * change a tile's shape or combine its elements: expand_dims and
 * broadcasting, reductions (Triton's result dtypes, axis / keep_dims /
 * return_indices), scans, atomics, transposes and tl.dot, and the
 * debugging ops device_print and device_assert.
 */
#include "lower_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- shapes ------------------------------------------------------------------- */

static int norm_axis(Lower *L, int64_t axis, int rank, Loc loc)
{
    if (axis < -rank || axis >= rank)
        lower_error(L, loc, "axis %lld is out of range for a tensor of rank %d", (long long)axis, rank);
    return (int)(axis < 0 ? axis + rank : axis);
}

static Value *tensor_arg(Lower *L, CVal *c, Loc loc, const char *fname)
{
    if (c->kind != CV_VALUE && !cv_is_python_scalar(c))
        lower_error(L, loc, "%s expects a tensor, got %s", fname, cv_describe(L, c));
    return to_value(L, c, loc);
}

/* tl.expand_dims(input, axis): axis an int or a tuple of them */
CVal *builtin_expand_dims(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = tensor_arg(L, c->arg[0], c->at[0], c->name);
    CVal *axis = c->arg[1];
    int naxes = axis->kind == CV_TUPLE ? axis->items.len : 1;
    int axes[TIR_MAX_RANK];
    int new_rank = v->type.rank + naxes;
    if (new_rank > TIR_MAX_RANK)
        lower_error(L, c->loc, "tensors of rank %d are not supported (at most %d)", new_rank, TIR_MAX_RANK);
    for (int i = 0; i < naxes; i++) {
        CVal *a = axis->kind == CV_TUPLE ? axis->items.data[i] : axis;
        axes[i] = norm_axis(L, const_int(L, a, c->at[1], "the axis"), new_rank, c->at[1]);
    }
    for (int i = 1; i < naxes; i++) /* insert in increasing order */
        for (int j = i; j > 0 && axes[j] < axes[j - 1]; j--) {
            int t = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = t;
        }
    for (int i = 0; i < naxes; i++)
        v = lower_expand_dims(L, v, axes[i], c->loc);
    return cv_value(L, v);
}

static int shape_list(Lower *L, CVal **items, int n, Loc loc, int *shape)
{
    if (n == 1 && items[0]->kind == CV_TUPLE)
        return shape_list(L, items[0]->items.data, items[0]->items.len, loc, shape);
    if (n > TIR_MAX_RANK)
        lower_error(L, loc, "tensors of rank %d are not supported (at most %d)", n, TIR_MAX_RANK);
    for (int i = 0; i < n; i++) {
        int64_t d = const_int(L, items[i], loc, "a shape dimension");
        if (!is_pow2(d) || d > TIR_MAX_NUMEL)
            lower_error(L, loc, "shape dimensions must be powers of two, got %lld", (long long)d);
        shape[i] = (int)d;
    }
    return n;
}

/* tl.broadcast_to(input, *shape): the shape as separate arguments or one tuple */
CVal *builtin_broadcast_to(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = tensor_arg(L, c->arg[0], c->at[0], c->name);
    int shape[TIR_MAX_RANK];
    CVal *dims = c->arg[1];
    int rank = shape_list(L, dims->items.data, dims->items.len, c->loc, shape);
    return cv_value(L, broadcast_to_shape(L, v, rank, shape, c->loc));
}

/* tl.broadcast(input, other): both, broadcast to one shape */
CVal *builtin_broadcast(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *a = to_value(L, c->arg[0], c->at[0]), *b = to_value(L, c->arg[1], c->at[1]);
    broadcast_pair(L, &a, &b, c->loc);
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    vec_push(L->a, &t->items, cv_value(L, a));
    vec_push(L->a, &t->items, cv_value(L, b));
    return t;
}

/* ---- reductions ------------------------------------------------------------------ */

static Value *cast_to(Lower *L, Value *v, DType d, Loc loc)
{
    return v->type.dtype == d ? v : cast_value(L, v, type_scalar(d), loc);
}

/* Triton's input promotion for each reduction (its standard.py). */
static Value *promote_for(Lower *L, ReduceKind k, bool with_index, Value *v, Loc loc)
{
    DType d = v->type.dtype;
    if (d == DT_PTR)
        lower_error(L, loc, "cannot reduce a tensor of pointers");
    if (d == DT_BF16 && k != RED_SUM && k != RED_XOR)
        return cast_to(L, v, DT_FP32, loc);
    switch (k) {
    case RED_SUM:
        if (dtype_is_int(d) && dtype_bits(d) < 32)
            return cast_to(L, v, dtype_is_signed(d) ? DT_I32 : DT_U32, loc);
        return v;
    case RED_MAX:
    case RED_MIN:
        if (!with_index && dtype_bits(d) < 32)
            return cast_to(L, v, dtype_is_float(d) ? DT_FP32 : DT_I32, loc);
        return v;
    case RED_XOR:
        if (!dtype_is_int(d))
            lower_error(L, loc, "tl.xor_sum needs an integer tensor, got %s", dtype_triton_name(d));
        return v;
    default: return v;
    }
}

/* One reduction along one axis; `idx` receives the index result of the arg kinds. */
static Value *reduce_axis(Lower *L, ReduceKind k, Value *v, int axis, Loc loc, Value **idx)
{
    Type t = v->type;
    Type r = type_elem(t);
    r.rank = t.rank - 1;
    for (int d = 0, j = 0; d < t.rank; d++)
        if (d != axis)
            r.shape[j++] = t.shape[d];
    bool arg = k == RED_ARGMAX || k == RED_ARGMIN;
    Type it = r;
    it.dtype = DT_I32;
    Type res[2] = {r, it};
    Op *op = tir_op_new(L->a, L->f, OP_REDUCE, 1, &v, arg ? 2 : 1, res);
    op->loc = loc;
    op->stmt = L->stmt;
    op->reduce.kind = k;
    op->reduce.axis = axis;
    tir_block_append(L->a, L->cur, op);
    if (idx)
        *idx = arg ? op->results[1] : NULL;
    return op->results[0];
}

/* argmax/argmin along an axis of one element: index 0 everywhere (a reduction
 * would compute a maximum nobody reads). */
static Value *first_index(Lower *L, Value *v, int axis, bool keep_dims, Loc loc)
{
    Type t = type_scalar(DT_I32);
    for (int d = 0; d < v->type.rank; d++)
        if (d != axis || keep_dims)
            t.shape[t.rank++] = d == axis ? 1 : v->type.shape[d];
    Value *zero = emit_const_int(L, DT_I32, 0, loc);
    return t.rank ? splat_to(L, zero, t, loc) : zero;
}

static CVal *reduce(Lower *L, ReduceKind k, Value *v, CVal *axis_c, Loc axis_loc, bool keep_dims, bool want_index,
                    Loc loc)
{
    if (!v->type.rank)
        lower_error(L, loc, "cannot reduce a scalar: tl.%s needs a tensor", reduce_name(k));
    check_not_fp8_arith(L, v->type.dtype, arena_printf(L->a, "tl.%s", reduce_name(k)), loc);
    int rank = v->type.rank;
    bool arg = k == RED_ARGMAX || k == RED_ARGMIN;
    Value *res, *idx = NULL;
    if (!axis_c || axis_c->kind == CV_NONE) {  /* no axis, or axis=None: all of them */
        if (arg && rank > 1)
            lower_error(L, axis_c ? axis_loc : loc, "an index reduction needs an axis on a %d-D tensor: Triton 3.6 cannot "
                        "compile one over all axes either (it indexes the shape with None); give axis=", rank);
        res = v;
        for (int d = rank - 1; d >= 0; d--)
            res = reduce_axis(L, k, res, d, loc, &idx);
        if (keep_dims)
            for (int d = 0; d < rank; d++) {
                res = lower_expand_dims(L, res, d, loc);
                if (idx)
                    idx = lower_expand_dims(L, idx, d, loc);
            }
    } else {
        int axis = norm_axis(L, const_int(L, axis_c, axis_loc, "the axis"), rank, axis_loc);
        if (arg && !want_index && v->type.shape[axis] == 1)
            return cv_value(L, first_index(L, v, axis, keep_dims, loc));
        res = reduce_axis(L, k, v, axis, loc, &idx);
        if (keep_dims) {
            res = lower_expand_dims(L, res, axis, loc);
            if (idx)
                idx = lower_expand_dims(L, idx, axis, loc);
        }
    }
    if (!want_index)
        return cv_value(L, arg ? idx : res);
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    vec_push(L->a, &t->items, cv_value(L, res));
    vec_push(L->a, &t->items, cv_value(L, idx));
    return t;
}

CVal *builtin_sum(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = tensor_arg(L, c->arg[0], c->at[0], c->name);
    if (c->arg[3])
        v = cast_value(L, v, parse_dtype_cval(L, c->arg[3], c->at[3]), c->at[3]);
    v = promote_for(L, RED_SUM, false, v, c->loc);
    return reduce(L, RED_SUM, v, c->arg[1], c->at[1], cv_truthy(L, c->arg[2], c->at[2]), false, c->loc);
}

CVal *builtin_xor_sum(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = promote_for(L, RED_XOR, false, tensor_arg(L, c->arg[0], c->at[0], c->name), c->loc);
    return reduce(L, RED_XOR, v, c->arg[1], c->at[1], cv_truthy(L, c->arg[2], c->at[2]), false, c->loc);
}

/* tl.max / tl.min (data RED_MAX / RED_MIN), with return_indices the argmax too */
CVal *builtin_max_min(const BuiltinCall *c)
{
    Lower *L = c->L;
    bool mx = c->data == RED_MAX;
    bool ri = cv_truthy(L, c->arg[2], c->at[2]);
    if (!cv_truthy(L, c->arg[3], c->at[3]))
        lower_error(L, c->at[3], "return_indices_tie_break_left=False is not supported yet (ties go to the lowest index)");
    bool kd = cv_truthy(L, c->arg[4], c->at[4]);
    Value *v = promote_for(L, c->data, ri, tensor_arg(L, c->arg[0], c->at[0], c->name), c->loc);
    if (ri)
        return reduce(L, mx ? RED_ARGMAX : RED_ARGMIN, v, c->arg[1], c->at[1], kd, true, c->loc);
    return reduce(L, c->data, v, c->arg[1], c->at[1], kd, false, c->loc);
}

/* Runs another builtin's handler on arguments this one made (n of them, written at
 * `at`): a library function of Triton's spelled in its own calls, each of which checks
 * and promotes as it does there. */
static CVal *call_builtin(const BuiltinCall *c, BuiltinFn *fn, const char *name, int data, int n, CVal **arg,
                          const Loc *at)
{
    BuiltinCall sub = *c;
    sub.name = name;
    sub.arg = NEW_ARRAY(c->L->a, CVal *, n);
    sub.at = NEW_ARRAY(c->L->a, Loc, n);
    for (int i = 0; i < n; i++)
        sub.arg[i] = arg[i], sub.at[i] = at[i];
    sub.data = data;
    return fn(&sub);
}

/* tl.softmax(x, dim=None, keep_dims=False, ieee_rounding=False): Triton's library
 * function (triton/language/standard.py), which is
 *     z = x - max(x, dim, keep_dims);  num = exp(z);  den = sum(num, dim, keep_dims)
 *     return fdiv(num, den, ieee_rounding)
 * with dim 0 when None.  So a 16-bit x gives an fp32 result (max promotes it), and a
 * 2-D x needs keep_dims=True or a shape that broadcasts, as in Triton. */
CVal *builtin_softmax(const BuiltinCall *c)
{
    Lower *L = c->L;
    Loc x_at = c->at[0], dim_at = c->at[1], keep_at = c->at[2], here = c->loc;
    Value *xv = tensor_arg(L, c->arg[0], x_at, c->name);
    if (!xv->type.rank)
        lower_error(L, x_at, "%s needs a tensor, got a scalar", c->name);
    if (!dtype_is_float(xv->type.dtype) || dtype_is_fp8(xv->type.dtype))
        lower_error(L, x_at, "%s needs a tensor of fp16, bf16, fp32 or fp64, got %s (its tl.exp refuses others, "
                    "as in Triton)", c->name, type_str(L->a, xv->type));
    CVal *x = cv_value(L, xv);
    CVal *dim = c->arg[1] ? c->arg[1] : cv_int(L, 0);
    CVal *keep = c->arg[2] ? c->arg[2] : cv_bool(L, false);
    CVal *ieee = c->arg[3] ? c->arg[3] : cv_bool(L, false);
    CVal *m = call_builtin(c, builtin_max_min, "tl.max", RED_MAX, 5,
                           (CVal *[]){x, dim, cv_bool(L, false), cv_bool(L, true), keep},
                           (Loc[]){x_at, dim_at, here, here, keep_at});
    Type tx = x->v->type, tm = value_type_of(L, m, here);
    for (int i = 1; i <= tm.rank; i++) {   /* numpy broadcasting aligns the trailing axes */
        int a = tx.shape[tx.rank - i], b = tm.shape[tm.rank - i];
        if (a != b && a != 1 && b != 1)
            lower_error(L, here, "tl.softmax along axis %lld of a %d-D tensor without keep_dims subtracts its "
                        "%s maxima from the %s, which do not broadcast (Triton's library function "
                        "does the same): pass keep_dims=True", (long long)const_int(L, dim, dim_at, "the axis"),
                        tx.rank, type_str(L->a, tm), type_str(L->a, tx));
    }
    CVal *z = lower_binop(L, TOK_MINUS, x, m, here);
    CVal *num = call_builtin(c, builtin_math1, "tl.exp", MATH_EXP, 1, (CVal *[]){z}, (Loc[]){x_at});
    CVal *den = call_builtin(c, builtin_sum, "tl.sum", 0, 4, (CVal *[]){num, dim, keep, NULL},
                             (Loc[]){x_at, dim_at, keep_at, here});
    return call_builtin(c, builtin_fdiv, "tl.fdiv", 0, 3, (CVal *[]){num, den, ieee},
                        (Loc[]){x_at, here, c->at[3]});
}

/* tl.argmax / tl.argmin (data RED_ARGMAX / RED_ARGMIN) */
CVal *builtin_argmax_min(const BuiltinCall *c)
{
    Lower *L = c->L;
    if (!cv_truthy(L, c->arg[2], c->at[2]))
        lower_error(L, c->at[2], "tie_break_left=False is not supported yet (ties go to the lowest index)");
    Value *v = promote_for(L, c->data, true, tensor_arg(L, c->arg[0], c->at[0], c->name), c->loc);
    return reduce(L, c->data, v, c->arg[1], c->at[1], cv_truthy(L, c->arg[3], c->at[3]), false, c->loc);
}

/* tl.cumsum / tl.cumprod (data SCAN_SUM / SCAN_PROD) */
CVal *builtin_scan(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = tensor_arg(L, c->arg[0], c->at[0], c->name);
    if (!v->type.rank)
        lower_error(L, c->loc, "%s needs a tensor, got a scalar", c->name);
    if (c->arg[3])
        v = cast_value(L, v, parse_dtype_cval(L, c->arg[3], c->at[3]), c->at[3]);
    DType d = v->type.dtype;
    if (d == DT_PTR)
        lower_error(L, c->at[0], "cannot scan a tensor of pointers");
    if (d == DT_BF16)
        v = cast_to(L, v, DT_FP32, c->loc);
    else if (c->data == SCAN_SUM && dtype_is_int(d) && dtype_bits(d) < 32)
        v = cast_to(L, v, dtype_is_signed(d) ? DT_I32 : DT_U32, c->loc);
    check_not_fp8_arith(L, v->type.dtype, c->name, c->loc);
    int axis = norm_axis(L, const_int(L, c->arg[1], c->at[1], "the axis"), v->type.rank, c->at[1]);
    Op *op = emit_op(L, OP_SCAN, c->loc, 1, &v, v->type);
    op->scan.kind = (ScanKind)c->data;
    op->scan.axis = axis;
    op->scan.reverse = cv_truthy(L, c->arg[2], c->at[2]);
    return cv_value(L, op->results[0]);
}

/* ---- atomics ---------------------------------------------------------------------- */

static int parse_choice(Lower *L, CVal *c, Loc loc, const char *what, const char *const *names, int n, int dflt)
{
    if (!c)
        return dflt;
    if (c->kind != CV_STR)
        lower_error(L, loc, "%s must be a string", what);
    for (int i = 0; i < n; i++)
        if (!strcmp(c->s, names[i]))
            return i;
    StrBuf sb = {0};
    for (int i = 0; i < n; i++)
        sb_printf(&sb, "%s%s", i ? ", " : "", names[i]);
    char *list = arena_strdup(L->a, sb.data); /* lower_error does not return */
    sb_free(&sb);
    lower_error(L, loc, "unknown %s \"%s\" (expected one of: %s)", what, c->s, list);
}

/* tl.atomic_add... (pointer, val, mask, sem, scope), or with `cas`
 * tl.atomic_cas (pointer, cmp, val, sem, scope) */
static CVal *atomic(const BuiltinCall *c, bool cas)
{
    static const char *const sems[] = {"acq_rel", "acquire", "release", "relaxed"};
    static const char *const scopes[] = {"gpu", "cta", "sys"};
    Lower *L = c->L;
    const char *name = c->name;
    int kind = cas ? -1 : c->data;
    Value *ptr = to_value(L, c->arg[0], c->at[0]);
    if (ptr->type.dtype != DT_PTR)
        lower_error(L, c->at[0], "%s expects a pointer or a tensor of pointers, got %s", name, type_str(L->a, ptr->type));
    DType pt = ptr->type.pointee;
    int sem = parse_choice(L, c->arg[3], c->at[3], "memory semantics (sem)", sems, 4, SEM_ACQ_REL);
    int scope = parse_choice(L, c->arg[4], c->at[4], "scope", scopes, 3, SCOPE_GPU);
    bool fp = dtype_is_float(pt);
    int bits = dtype_bits(pt);
    if (cas || kind != ATOM_ADD) {
        if (bits < 32 || (fp && kind != ATOM_MAX && kind != ATOM_MIN && kind != ATOM_XCHG && !cas) ||
            (fp && bits != 32 && bits != 64))
            lower_error(L, c->loc, "%s on %s is not supported (32- and 64-bit elements%s)", name,
                        dtype_triton_name(pt), fp ? "; floats only with add, max, min, xchg, cas" : "");
    } else if (bits < 16 || (!fp && bits < 32) || pt == DT_FP8E4NV || pt == DT_FP8E5) {
        lower_error(L, c->loc, "%s on %s is not supported", name, dtype_triton_name(pt));
    } else if (pt == DT_BF16 && L->opt->arch < 90) {
        lower_error(L, c->loc, "%s on bfloat16 needs sm_90 (--arch 90)", name);
    }
    Type et = type_scalar(pt);
    Value *val = cast_value(L, to_value(L, c->arg[cas ? 2 : 1], c->at[cas ? 2 : 1]), et, c->at[1]);
    Value *cmp = cas ? cast_value(L, to_value(L, c->arg[1], c->at[1]), et, c->at[1]) : NULL;
    Value *mask = !cas && c->arg[2] ? to_bool(L, to_value(L, c->arg[2], c->at[2]), c->at[2]) : NULL;
    /* broadcast everything to the pointer's shape (or the pointer up to the values') */
    Value *all[3] = {ptr, val, cmp ? cmp : mask};
    for (int i = 1; i < 3; i++)
        if (all[i])
            broadcast_pair(L, &all[0], &all[i], c->loc);
    for (int i = 1; i < 3; i++)
        if (all[i])
            broadcast_pair(L, &all[0], &all[i], c->loc);
    ptr = all[0];
    Type rt = type_tensor(et, ptr->type.rank, ptr->type.shape);
    if (!ptr->type.rank)
        rt = et;
    Op *op;
    if (cas) {
        Value *ops3[3] = {ptr, all[2], all[1]};
        op = emit_op(L, OP_ATOMIC_CAS, c->loc, 3, ops3, rt);
    } else {
        Value *ops3[3] = {ptr, all[1], all[2]};
        op = emit_op(L, OP_ATOMIC_RMW, c->loc, mask ? 3 : 2, ops3, rt);
        op->atomic.kind = (AtomicKind)kind;
        op->atomic.has_mask = mask != NULL;
    }
    op->atomic.sem = (MemSem)sem;
    op->atomic.scope = (MemScope)scope;
    return cv_value(L, op->results[0]);
}

/* data: the AtomicKind */
CVal *builtin_atomic(const BuiltinCall *c) { return atomic(c, false); }
CVal *builtin_atomic_cas(const BuiltinCall *c) { return atomic(c, true); }

/* ---- debugging ---------------------------------------------------------------------- */

/* tl.device_print(prefix, *args, hex=False) */
CVal *builtin_device_print(const BuiltinCall *c)
{
    Lower *L = c->L;
    const char *name = c->name;
    if (c->arg[0]->kind != CV_STR)
        lower_error(L, c->loc, "%s needs a string prefix as its first argument", name);
    bool hex = cv_truthy(L, c->arg[2], c->at[2]);
    CVal *args = c->arg[1];
    int n = args->items.len, rank = 0, shape[TIR_MAX_RANK] = {0};
    Value **vals = NEW_ARRAY(L->a, Value *, n + 1);
    for (int i = 0; i < n; i++) {
        vals[i] = to_value(L, args->items.data[i], c->rest_at[i]);
        if (vals[i]->type.rank > rank) {
            rank = vals[i]->type.rank;
            memcpy(shape, vals[i]->type.shape, sizeof shape);
        }
    }
    for (int i = 0; i < n; i++)
        if (rank && vals[i]->type.rank != rank)
            vals[i] = broadcast_to_shape(L, vals[i], rank, shape, c->loc);
        else if (rank) {
            for (int d = 0; d < rank; d++)
                if (vals[i]->type.shape[d] != shape[d])
                    lower_error(L, c->loc, "%s: all tensors must have the same shape", name);
        }
    Op *op = emit_op(L, OP_PRINT, c->loc, n, vals, type_scalar(DT_I1));
    op->nres = 0;
    op->print.hex = hex;
    op->print.prefix = c->arg[0]->s;
    return cv_none(L);
}

CVal *builtin_device_assert(const BuiltinCall *c)
{
    Lower *L = c->L;
    const char *name = c->name;
    CVal *cond_c = c->arg[0], *msg = c->arg[1];
    if (msg && msg->kind != CV_STR)
        lower_error(L, c->at[1], "%s message must be a string", name);
    if (!L->debug)
        return cv_none(L); /* compiled in only with --debug, as Triton does without TRITON_DEBUG */
    if (cv_is_python_scalar(cond_c) || cond_c->kind == CV_NONE) {
        if (!cv_truthy(L, cond_c, c->at[0]))
            lower_error(L, c->at[0], "%s fails at translation time: the condition is false", name);
        return cv_none(L);
    }
    Value *cond = to_bool(L, to_value(L, cond_c, c->at[0]), c->at[0]);
    if (c->arg[2]) {
        Value *m = to_bool(L, to_value(L, c->arg[2], c->at[2]), c->at[2]);
        broadcast_pair(L, &cond, &m, c->loc);
        Value *nm = emit1(L, OP_NOT, c->loc, 1, &m, m->type);
        Value *o[2] = {cond, nm};
        cond = emit1(L, OP_OR, c->loc, 2, o, cond->type);
    }
    Op *op = emit_op(L, OP_ASSERT, c->loc, 1, &cond, type_scalar(DT_I1));
    op->nres = 0;
    op->assert_.msg = msg ? msg->s : "";
    return cv_none(L);
}

/* ---- dot and transposes ------------------------------------------------------------------- */

/* tl.trans / tl.permute (input, *dims): the dims as separate arguments or one tuple */
static CVal *trans(const BuiltinCall *c, bool is_permute)
{
    Lower *L = c->L;
    const char *name = c->name;
    Value *v = tensor_arg(L, c->arg[0], c->at[0], name);
    int rank = v->type.rank;
    CVal **dims = c->arg[1]->items.data;
    int ndims = c->arg[1]->items.len;
    if (ndims == 1 && dims[0]->kind == CV_TUPLE) {
        ndims = dims[0]->items.len;
        dims = dims[0]->items.data;
    }
    int perm[TIR_MAX_RANK];
    if (!ndims) {
        if (is_permute)
            lower_error(L, c->loc, "%s needs the order of the dimensions", name);
        if (rank != 2)
            lower_error(L, c->loc, "%s without dims needs a 2-D tensor, got rank %d", name, rank);
        perm[0] = 1, perm[1] = 0;
    } else {
        if (ndims != rank)
            lower_error(L, c->loc, "%s: %d dims given for a tensor of rank %d", name, ndims, rank);
        bool seen[TIR_MAX_RANK] = {false};
        for (int k = 0; k < rank; k++) {
            perm[k] = norm_axis(L, const_int(L, dims[k], c->loc, "a dimension"), rank, c->loc);
            if (seen[perm[k]])
                lower_error(L, c->loc, "%s: dims must be a permutation of 0..%d", name, rank - 1);
            seen[perm[k]] = true;
        }
    }
    return cv_value(L, lower_permute(L, v, perm, c->loc));
}

CVal *builtin_trans(const BuiltinCall *c) { return trans(c, false); }
CVal *builtin_permute(const BuiltinCall *c) { return trans(c, true); }

/* "[64, 32]": a tile's shape as Triton prints it, in the arena */
static const char *shape_text(Arena *a, Type t)
{
    StrBuf sb = {0};
    sb_putc(&sb, '[');
    for (int d = 0; d < t.rank; d++)
        sb_printf(&sb, "%s%d", d ? ", " : "", t.shape[d]);
    sb_putc(&sb, ']');
    char *s = arena_strdup(a, sb.data);
    sb_free(&sb);
    return s;
}

static bool same_shape(Type x, Type y)
{
    if (x.rank != y.rank)
        return false;
    for (int d = 0; d < x.rank; d++)
        if (x.shape[d] != y.shape[d])
            return false;
    return true;
}

static bool dot_dtype_ok(DType d)
{
    return d == DT_I8 || d == DT_FP16 || d == DT_BF16 || d == DT_FP32 || d == DT_FP64 || dtype_is_fp8(d);
}

/* tl.dot with Triton's rules. */
CVal *builtin_dot(const BuiltinCall *c)
{
    Lower *L = c->L;
    const char *name = c->name;
    Value *a = tensor_arg(L, c->arg[0], c->at[0], name), *b = tensor_arg(L, c->arg[1], c->at[1], name);
    Type ta = a->type, tb = b->type;
    /* 2-D [M, K] @ [K, N], or 3-D [B, M, K] @ [B, K, N] batched over the
     * leading axis (both operands the same batch: Triton does not broadcast it) */
    if (!((ta.rank == 2 && tb.rank == 2) || (ta.rank == 3 && tb.rank == 3))) {
        if (ta.rank == 3 || tb.rank == 3)
            lower_error(L, c->loc, "%s needs two 2-D or two 3-D (batched) tensors, got ranks %d and %d", name, ta.rank,
                        tb.rank);
        lower_error(L, c->loc, "%s needs two 2-D tensors, got ranks %d and %d", name, ta.rank, tb.rank);
    }
    int o = ta.rank - 2; /* the first matrix dimension (1 past the batch) */
    if (o && ta.shape[0] != tb.shape[0])
        lower_error(L, c->loc, "%s: the batch sizes differ (%d against %d); Triton does not broadcast the batch", name,
                    ta.shape[0], tb.shape[0]);
    if (ta.shape[o + 1] != tb.shape[o])
        lower_error(L, c->loc, "%s: the shapes %s and %s do not match (K = %d against %d)", name, shape_text(L->a, ta),
                    shape_text(L->a, tb), ta.shape[o + 1], tb.shape[o]);
    DType da = ta.dtype, db = tb.dtype;
    /* fp8: mma.sync.m16n8k32 with e4m3/e5m2 operands (sm_89 and later), in
     * any combination of the two formats, as Triton allows */
    if (dtype_is_fp8(da) != dtype_is_fp8(db))
        lower_error(L, c->loc, "%s on %s and %s operands is not supported yet (Triton converts the fp8 operand to "
                    "the other's type: write that .to() yourself)", name, dtype_triton_name(da), dtype_triton_name(db));
    if (dtype_is_fp8(da) && L->opt->arch < 90)
        lower_error(L, c->loc, "%s on fp8 operands needs --arch sm_90 (tensor cores take fp8 from sm_89 on)", name);
    if (da == DT_U8 || db == DT_U8)
        lower_error(L, c->loc, "%s on uint8 operands is not supported yet", name);
    if (!dot_dtype_ok(da) || !dot_dtype_ok(db))
        lower_error(L, c->loc, "%s does not take %s operands (int8, float8e4nv, float8e5, float16, bfloat16, float32 "
                    "or float64)", name,
                    dtype_triton_name(dot_dtype_ok(da) ? db : da));
    if (da != db && !dtype_is_fp8(da))
        lower_error(L, c->loc, "%s needs operands of one dtype, got %s and %s", name, dtype_triton_name(da),
                    dtype_triton_name(db));
    int M = ta.shape[o], K = ta.shape[o + 1], N = tb.shape[o + 1];
    int min_k = dtype_bits(da) == 8 ? 32 : dtype_bits(da) == 16 ? 16 : dtype_bits(da) == 32 ? 8 : 4;
    if (K < min_k)
        lower_error(L, c->loc, "%s on %s needs K >= %d, got K = %d", name, dtype_triton_name(da), min_k, K);
    /* precision */
    int prec = DOT_TF32;
    if (c->arg[3] && c->arg[4])
        lower_error(L, c->at[4], "%s: give input_precision or allow_tf32, not both", name);
    if (c->arg[3]) {
        static const char *const names[] = {"tf32", "tf32x3", "ieee"};
        if (c->arg[3]->kind != CV_STR)
            lower_error(L, c->at[3], "input_precision must be a string (\"tf32\", \"tf32x3\" or \"ieee\")");
        prec = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(c->arg[3]->s, names[i]))
                prec = i;
        if (prec < 0)
            lower_error(L, c->at[3], "input_precision \"%s\" is not supported (\"tf32\", \"tf32x3\" or \"ieee\")",
                        c->arg[3]->s);
    } else if (c->arg[4]) {
        prec = cv_truthy(L, c->arg[4], c->at[4]) ? DOT_TF32 : DOT_IEEE;
    }
    if (da != DT_FP32)
        prec = DOT_TF32; /* only fp32 operands have a choice */
    /* result type: int8 gives int32, fp32/bf16 give fp32, fp64 gives fp64,
     * fp16 gives out_dtype; an acc must have the result's shape and be of
     * out_dtype (float32 unless given) */
    DType out_arg = DT_FP32;
    if (c->arg[6]) {
        Type od = parse_dtype_cval(L, c->arg[6], c->at[6]);
        if (od.dtype == DT_BF16)
            lower_error(L, c->at[6], "%s: out_dtype=bfloat16 is not supported (Triton's rule): use float32 and cast "
                        "with .to(tl.bfloat16)", name);
        out_arg = od.dtype;
    }
    DType out = da == DT_I8 ? DT_I32 : da == DT_FP32 || da == DT_BF16 ? DT_FP32 : da == DT_FP64 ? DT_FP64 : out_arg;
    if (dtype_is_fp8(da) && out != DT_FP32)
        lower_error(L, c->at[6], "%s on fp8 operands with out_dtype=%s is not supported yet (use float32 and cast)", name,
                    dtype_triton_name(out));
    if (da == DT_FP16 && out != DT_FP32 && out != DT_FP16)
        lower_error(L, c->at[6], "%s: out_dtype must be float32 or float16 for float16 operands, got %s", name,
                    dtype_triton_name(out));
    Type rt = o ? type_tensor(type_scalar(out), 3, (int[]){ta.shape[0], M, N})
                : type_tensor(type_scalar(out), 2, (int[]){M, N});
    Value *acc;
    if (c->arg[2]) {
        acc = tensor_arg(L, c->arg[2], c->at[2], name);
        if (!same_shape(acc->type, rt))
            lower_error(L, c->at[2], "%s: acc must have the result's shape %s, got %s", name, shape_text(L->a, rt),
                        type_str(L->a, acc->type));
        if (acc->type.dtype != out_arg)
            lower_error(L, c->at[2], "%s: acc is %s but out_dtype is %s (Triton requires them equal; pass out_dtype=tl.%s)",
                        name, dtype_triton_name(acc->type.dtype), dtype_triton_name(out_arg),
                        dtype_triton_name(acc->type.dtype));
        if (acc->type.dtype != out)
            lower_error(L, c->at[2], "%s: acc must be %s, the result type for %s operands, got %s", name,
                        dtype_triton_name(out), dtype_triton_name(da), dtype_triton_name(acc->type.dtype));
    } else {
        Value *z = dtype_is_float(out) ? emit_const_float(L, out, 0.0, c->loc) : emit_const_int(L, out, 0, c->loc);
        acc = splat_to(L, z, rt, c->loc);
    }
    Value *ops[3] = {a, b, acc};
    Op *op = emit_op(L, OP_DOT, c->loc, 3, ops, rt);
    op->dot.precision = (DotPrecision)prec;
    L->f->uses_dot = true;
    return cv_value(L, op->results[0]);
}

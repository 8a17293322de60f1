/*
 * lower_ops.c — typed operations during lowering: Python-level folding,
 * Triton's binary promotion, integer division
 * semantics, casts, numpy broadcasting and the shape
 * primitives (expand_dims, permute) that builtins and subscripts share.
 */
#include "lower_internal.h"

#include <math.h>
#include <string.h>

void lower_error(Lower *L, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(L->ctx, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    longjmp(*L->ctx->on_error, 1);
}

/* ---- CVal constructors --------------------------------------------------- */

static CVal *cv_new(Lower *L, CKind k)
{
    CVal *c = NEW(L->a, CVal);
    c->kind = k;
    return c;
}

CVal *cv_int(Lower *L, int64_t i) { CVal *c = cv_new(L, CV_INT); c->i = i; return c; }
CVal *cv_float(Lower *L, double f) { CVal *c = cv_new(L, CV_FLOAT); c->f = f; return c; }
CVal *cv_bool(Lower *L, bool b) { CVal *c = cv_new(L, CV_BOOL); c->i = b; return c; }
CVal *cv_none(Lower *L) { return cv_new(L, CV_NONE); }
CVal *cv_dtype(Lower *L, Type t) { CVal *c = cv_new(L, CV_DTYPE); c->dt = t; return c; }
CVal *cv_value(Lower *L, Value *v) { CVal *c = cv_new(L, CV_VALUE); c->v = v; return c; }
CVal *cv_builtin(Lower *L, const char *name) { CVal *c = cv_new(L, CV_BUILTIN); c->s = name; return c; }

CVal *cv_str(Lower *L, const char *s, int n)
{
    CVal *c = cv_new(L, CV_STR);
    c->s = arena_strndup(L->a, s, (size_t)n);
    c->slen = n;
    return c;
}

bool cv_is_python_scalar(const CVal *c)
{
    return c->kind == CV_INT || c->kind == CV_FLOAT || c->kind == CV_BOOL;
}

const char *cv_describe(Lower *L, const CVal *c)
{
    switch (c->kind) {
    case CV_UNKNOWN: return "a runtime value";
    case CV_NONE: return "None";
    case CV_INT: return arena_printf(L->a, "int %lld", (long long)c->i);
    case CV_FLOAT: return arena_printf(L->a, "float %g", c->f);
    case CV_BOOL: return c->i ? "True" : "False";
    case CV_STR: return arena_printf(L->a, "str '%s'", c->s);
    case CV_DTYPE: return arena_printf(L->a, "dtype %s", type_str(L->a, c->dt));
    case CV_TUPLE: return "a tuple";
    case CV_DICT: return "a dict";
    case CV_FUNC: return arena_printf(L->a, "function '%s'", c->func->name);
    case CV_LAMBDA: return "a lambda";
    case CV_MODULE: return arena_printf(L->a, "module '%s'", c->s);
    case CV_BUILTIN: return arena_printf(L->a, "function '%s'", c->s);
    case CV_METHOD: return arena_printf(L->a, "method '%s'", c->s);
    case CV_CONSTEXPR_ANN: return "tl.constexpr";
    case CV_VALUE: return type_str(L->a, c->v->type);
    case CV_BLOCKPTR: return "a block pointer";
    case CV_TENSORDESC: return "a tensor descriptor";
    }
    return "?";
}

bool cv_truthy(Lower *L, const CVal *c, Loc loc)
{
    switch (c->kind) {
    case CV_NONE: return false;
    case CV_INT:
    case CV_BOOL: return c->i != 0;
    case CV_FLOAT: return c->f != 0;
    case CV_STR: return c->slen != 0;
    case CV_TUPLE: return c->items.len != 0;
    case CV_DTYPE:
    case CV_FUNC:
    case CV_MODULE:
    case CV_BUILTIN: return true;
    default: lower_error(L, loc, "%s has no truth value at translation time", cv_describe(L, c));
    }
}

int64_t const_int(Lower *L, CVal *c, Loc loc, const char *what)
{
    if (c->kind == CV_INT || c->kind == CV_BOOL)
        return c->i;
    lower_error(L, loc, "%s must be a constexpr integer, got %s", what, cv_describe(L, c));
}

Type parse_dtype_cval(Lower *L, CVal *c, Loc loc)
{
    if (c->kind == CV_DTYPE)
        return c->dt;
    if (c->kind == CV_STR) {
        int d = dtype_from_name(c->s);
        if (d >= 0)
            return type_scalar((DType)d);
    }
    lower_error(L, loc, "expected a dtype (such as tl.float32), got %s", cv_describe(L, c));
}

/* ---- IR building ---------------------------------------------------------- */

Op *emit_op(Lower *L, OpKind kind, Loc loc, int nargs, Value **args, Type res)
{
    if (L->f->nvalues > TIR_MAX_VALUES) /* unrolled loops multiply their bodies */
        lower_error(L, loc, "the kernel is too large: more than %d values after unrolling "
                    "(tl.static_range loops and helper calls repeat their bodies)", TIR_MAX_VALUES);
    Op *op = tir_op_new(L->a, L->f, kind, nargs, args, 1, &res);
    op->loc = loc;
    op->stmt = L->stmt;
    tir_block_append(L->a, L->cur, op);
    return op;
}

Value *emit1(Lower *L, OpKind kind, Loc loc, int nargs, Value **args, Type res)
{
    return emit_op(L, kind, loc, nargs, args, res)->results[0];
}

Value *emit_const_int(Lower *L, DType d, int64_t v, Loc loc)
{
    Op *op = emit_op(L, OP_CONST, loc, 0, NULL, type_scalar(d));
    op->constant.ival = v;
    op->constant.fval = (double)v;
    return op->results[0];
}

Value *emit_const_float(Lower *L, DType d, double v, Loc loc)
{
    if (dtype_is_fp8(d)) {
        /* Triton's scalar_constant makes 0 as the type's null value and has no builder for
         * any other fp8 constant */
        if (v != 0)
            lower_error(L, loc, "Triton cannot make the %s constant %g: an fp8 constant must be 0 "
                        "(convert a float32 value instead, e.g. tl.full(shape, %g, tl.float32).to(tl.%s))",
                        dtype_triton_name(d), v, v, dtype_triton_name(d));
        v = 0.0; /* the null value is +0 */
    }
    Op *op = emit_op(L, OP_CONST, loc, 0, NULL, type_scalar(d));
    op->constant.fval = v;
    op->constant.ival = v > -9.2e18 && v < 9.2e18 ? (int64_t)v : 0; /* inf and nan have no integer */
    return op->results[0];
}

/* The dtype a Python literal gets when it becomes a tensor. */
DType literal_dtype(Lower *L, const CVal *c, Loc loc)
{
    switch (c->kind) {
    case CV_BOOL: return DT_I1;
    case CV_INT:
        if (c->i >= INT32_MIN && c->i <= INT32_MAX)
            return DT_I32;
        if (c->i >= 0 && c->i <= (int64_t)UINT32_MAX)
            return DT_U32;
        return DT_I64;
    case CV_FLOAT: {
        double a = fabs(c->f);
        if (a == 0 || isinf(a) || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127))
            return DT_FP32;
        return DT_FP64;
    }
    default: lower_error(L, loc, "expected a number, got %s", cv_describe(L, c));
    }
}

Value *to_value(Lower *L, CVal *c, Loc loc)
{
    if (c->kind == CV_VALUE)
        return c->v;
    if (!cv_is_python_scalar(c)) /* CV_UNKNOWN too: only heuristics see it, and they report their own error */
        lower_error(L, loc, "expected a tensor or a number, got %s", cv_describe(L, c));
    DType d = literal_dtype(L, c, loc);
    if (c->kind == CV_FLOAT)
        return emit_const_float(L, d, c->f, loc);
    return emit_const_int(L, d, c->i, loc);
}

Type value_type_of(Lower *L, CVal *c, Loc loc)
{
    if (c->kind == CV_VALUE)
        return c->v->type;
    return type_scalar(literal_dtype(L, c, loc));
}

/* ---- broadcasting --------------------------------------------------------- */

Value *splat_to(Lower *L, Value *v, Type shaped, Loc loc)
{
    if (v->type.rank)
        return v;
    Type t = type_tensor(v->type, shaped.rank, shaped.shape);
    return emit1(L, OP_SPLAT, loc, 1, &v, t);
}

Value *broadcast_to_shape(Lower *L, Value *v, int rank, const int *shape, Loc loc)
{
    if (v->type.rank == 0) {
        Type t = type_tensor(v->type, rank, shape);
        return emit1(L, OP_SPLAT, loc, 1, &v, t);
    }
    if (v->type.rank > rank)
        lower_error(L, loc, "cannot broadcast %s to rank %d", type_str(L->a, v->type), rank);
    while (v->type.rank < rank) {
        Type t = v->type;
        memmove(t.shape + 1, t.shape, sizeof(int) * (size_t)t.rank);
        t.shape[0] = 1;
        t.rank++;
        Op *op = emit_op(L, OP_EXPAND_DIMS, loc, 1, &v, t);
        op->expand_dims.axis = 0;
        v = op->results[0];
    }
    bool same = true;
    for (int d = 0; d < rank; d++) {
        if (v->type.shape[d] == shape[d])
            continue;
        if (v->type.shape[d] != 1)
            lower_error(L, loc, "cannot broadcast %s to shape with %d in dimension %d",
                        type_str(L->a, v->type), shape[d], d);
        same = false;
    }
    if (same)
        return v;
    return emit1(L, OP_BROADCAST, loc, 1, &v, type_tensor(type_elem(v->type), rank, shape));
}

/* vals[0..n) broadcast in place to their common shape (scalars splatted, as the
 * arguments of tl.inline_asm_elementwise and tl.map_elementwise are); at[i] (or loc where
 * at is NULL) is where argument i was written.  Returns the shape's rank (0: all scalars,
 * left as they are), the shape in `shape`. */
int broadcast_all(Lower *L, Value **vals, int n, const Loc *at, Loc loc, int *shape)
{
    int rank = 0;
    for (int i = 0; i < n; i++)
        if (vals[i]->type.rank > rank) {
            rank = vals[i]->type.rank;
            memcpy(shape, vals[i]->type.shape, sizeof(int) * (size_t)rank);
        }
    for (int i = 0; i < n; i++)
        for (int d = 0; d < vals[i]->type.rank; d++) {
            int dd = d + rank - vals[i]->type.rank;
            if (shape[dd] == 1)
                shape[dd] = vals[i]->type.shape[d];
        }
    for (int i = 0; i < n && rank; i++)
        vals[i] = broadcast_to_shape(L, vals[i], rank, shape, at ? at[i] : loc);
    return rank;
}

void broadcast_pair(Lower *L, Value **a, Value **b, Loc loc)
{
    Type ta = (*a)->type, tb = (*b)->type;
    if (ta.rank == 0 && tb.rank == 0)
        return;
    if (ta.rank == 0) {
        *a = splat_to(L, *a, tb, loc);
        return;
    }
    if (tb.rank == 0) {
        *b = splat_to(L, *b, ta, loc);
        return;
    }
    int rank = ta.rank > tb.rank ? ta.rank : tb.rank;
    int shape[TIR_MAX_RANK];
    for (int d = 0; d < rank; d++) {
        int ia = d - (rank - ta.rank), ib = d - (rank - tb.rank);
        int sa = ia >= 0 ? ta.shape[ia] : 1, sb = ib >= 0 ? tb.shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            lower_error(L, loc, "incompatible shapes %s and %s for broadcasting",
                        type_str(L->a, ta), type_str(L->a, tb));
        shape[d] = sa > sb ? sa : sb;
    }
    *a = broadcast_to_shape(L, *a, rank, shape, loc);
    *b = broadcast_to_shape(L, *b, rank, shape, loc);
}

Value *lower_expand_dims(Lower *L, Value *v, int axis, Loc loc)
{
    Type t = v->type;
    if (t.rank + 1 > TIR_MAX_RANK)
        lower_error(L, loc, "tensors of rank %d are not supported (at most %d)", t.rank + 1, TIR_MAX_RANK);
    if (!t.rank) /* a scalar becomes a 1-element tile */
        return emit1(L, OP_SPLAT, loc, 1, &v, type_tensor(t, 1, (int[]){1}));
    memmove(t.shape + axis + 1, t.shape + axis, sizeof(int) * (size_t)(t.rank - axis));
    t.shape[axis] = 1;
    t.rank++;
    Op *op = emit_op(L, OP_EXPAND_DIMS, loc, 1, &v, t);
    op->expand_dims.axis = axis;
    return op->results[0];
}

/* tl.trans / tl.permute / .T: result dimension k is input dimension perm[k]. */
Value *lower_permute(Lower *L, Value *v, const int *perm, Loc loc)
{
    Type t = v->type;
    bool ident = true;
    for (int k = 0; k < t.rank; k++) {
        t.shape[k] = v->type.shape[perm[k]];
        ident &= perm[k] == k;
    }
    if (ident)
        return v;
    Op *op = emit_op(L, OP_TRANS, loc, 1, &v, t);
    for (int k = 0; k < t.rank; k++)
        op->trans.perm[k] = perm[k];
    return op->results[0];
}

/* ---- casts --------------------------------------------------------- */

/* fp8 conversions as Triton 3.6 does them (semantic.cast, then FpToFpOpConversion in the
 * NVIDIA backend's ElementwiseOpToLLVM.cpp):
 *  - fp8 converts only to and from floating-point types, in one tt.fp_to_fp whatever the
 *    other type is: fp16 and bf16 do not go through fp32 here;
 *  - fp8 <-> fp64 and fp8e4nv <-> fp8e5 have no lowering (the backend aborts): rejected;
 *  - to fp8, the default rounding is to nearest even with saturation (cvt.rn.satfinite:
 *    magnitudes beyond the largest finite value, infinities included, become that value;
 *    NaN stays NaN); fp_downcast_rounding="rtz" exists only from fp32 to fp8e5 (checked in
 *    lower_cast);
 *  - from fp8 the result is exact (every fp8 value is an fp16, bf16 and fp32 value), except
 *    that fp8e5 -> bf16 turns infinities and NaNs into finite numbers;
 *  - the cvt instructions for .e4m3x2/.e5m2x2 need sm_89: below it Triton refuses fp8e4nv
 *    and converts fp8e5 in software with other roundings, so tilec asks for --arch sm_90;
 *  - a conversion of the constant +0 or -0 folds to the fp8 zero of that sign
 *    (FpToFpOp::fold), so a load's other=0 needs no instruction and no sm_89.
 * templates/tilec_runtime_fp8.cuh holds the instructions of each conversion. */
static Value *cast_fp8(Lower *L, Value *v, Type elem, Loc loc)
{
    DType s = v->type.dtype, d = elem.dtype;
    const char *sn = dtype_triton_name(s), *dn = dtype_triton_name(d);
    if (!dtype_is_float(s) || !dtype_is_float(d))
        lower_error(L, loc, "cannot cast %s to %s: Triton converts fp8 only to and from floating-point types "
                    "(go through tl.float32)", sn, dn);
    if (s == DT_FP64 || d == DT_FP64)
        lower_error(L, loc, "cannot cast %s to %s: Triton 3.6 has no conversion between fp8 and float64 "
                    "(go through tl.float32)", sn, dn);
    if (dtype_is_fp8(s) && dtype_is_fp8(d))
        lower_error(L, loc, "cannot cast %s to %s: Triton 3.6 has no conversion between two fp8 types "
                    "(go through tl.float16 or tl.float32)", sn, dn);
    Type res = type_tensor(elem, v->type.rank, v->type.shape);
    const Op *src = v->def;
    if (src && src->kind == OP_CONST && src->constant.fval == 0) {
        Op *zero = emit_op(L, OP_CONST, loc, 0, NULL, res);
        zero->constant.fval = src->constant.fval; /* keeps the sign */
        return zero->results[0];
    }
    int arch = L->opt->arch ? L->opt->arch : 80;
    if (arch < 89)
        lower_error(L, loc, "converting %s to %s needs sm_89 or newer (cvt with .e4m3x2/.e5m2x2); "
                    "translate with --arch sm_90", sn, dn);
    return emit1(L, OP_CAST, loc, 1, &v, res);
}

Value *cast_value(Lower *L, Value *v, Type elem, Loc loc)
{
    Type src = type_elem(v->type);
    if (type_eq(src, elem))
        return v;
    if (dtype_is_fp8(src.dtype) || dtype_is_fp8(elem.dtype))
        return cast_fp8(L, v, elem, loc);
    Type res = type_tensor(elem, v->type.rank, v->type.shape);
    /* fp16/bf16 <-> anything other than fp32 goes through fp32, as Triton does */
    bool src_half = src.dtype == DT_FP16 || src.dtype == DT_BF16;
    bool dst_half = elem.dtype == DT_FP16 || elem.dtype == DT_BF16;
    if ((src_half && elem.dtype != DT_FP32 && elem.dtype != DT_I1) ||
        (dst_half && src.dtype != DT_FP32)) {
        if (!(src_half && dst_half && src.dtype == elem.dtype)) {
            Value *mid = cast_value(L, v, type_scalar(DT_FP32), loc);
            return cast_value(L, mid, elem, loc);
        }
    }
    if (src.dtype == DT_PTR && elem.dtype != DT_PTR && elem.dtype != DT_I64 && elem.dtype != DT_U64 && elem.dtype != DT_I1)
        lower_error(L, loc, "cannot cast a pointer to %s (only int64, uint64, int1 or another pointer)",
                    dtype_name(elem.dtype));
    if (elem.dtype == DT_PTR && src.dtype != DT_PTR && (!dtype_is_int(src.dtype) || src.dtype == DT_I1))
        lower_error(L, loc, "cannot cast %s to a pointer (only integers of 8 to 64 bits)", dtype_name(src.dtype));
    if (elem.dtype == DT_PTR && src.dtype != DT_PTR && dtype_bits(src.dtype) < 64) {
        /* LLVM's inttoptr, as Triton emits it, zero-extends a narrower integer */
        DType u = src.dtype == DT_I8 ? DT_U8 : src.dtype == DT_I16 ? DT_U16 : src.dtype == DT_I32 ? DT_U32 : src.dtype;
        v = cast_value(L, cast_value(L, v, type_scalar(u), loc), type_scalar(DT_U64), loc);
    }
    return emit1(L, OP_CAST, loc, 1, &v, res);
}

Value *to_bool(Lower *L, Value *v, Loc loc)
{
    return cast_value(L, v, type_scalar(DT_I1), loc);
}

/* ---- Python-level folding ------------------------------------------------- */

static bool py_numeric(const CVal *c) { return cv_is_python_scalar(c); }
static double py_as_float(const CVal *c) { return c->kind == CV_FLOAT ? c->f : (double)c->i; }

static int64_t py_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t py_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

static CVal *fold_int(Lower *L, TokenKind op, int64_t a, int64_t b, Loc loc)
{
    int64_t r = 0;
    bool ovf = false;
    switch (op) {
    case TOK_PLUS: ovf = __builtin_add_overflow(a, b, &r); break;
    case TOK_MINUS: ovf = __builtin_sub_overflow(a, b, &r); break;
    case TOK_STAR: ovf = __builtin_mul_overflow(a, b, &r); break;
    case TOK_SLASH:
        if (b == 0)
            lower_error(L, loc, "division by zero in a constexpr expression");
        return cv_float(L, (double)a / (double)b);
    case TOK_DSLASH:
    case TOK_PERCENT:
        if (b == 0)
            lower_error(L, loc, "integer division or modulo by zero in a constexpr expression");
        if (a == INT64_MIN && b == -1)
            ovf = true;
        else
            r = op == TOK_DSLASH ? py_floordiv(a, b) : py_mod(a, b);
        break;
    case TOK_DSTAR: {
        if (b < 0 && a == 0)
            lower_error(L, loc, "0 cannot be raised to a negative power in a constexpr expression");
        if (b < 0)
            return cv_float(L, pow((double)a, (double)b));
        /* by squaring: 1 ** (1 << 62) must not take 2^62 steps */
        int64_t base = a;
        r = 1;
        for (uint64_t e = (uint64_t)b; e && !ovf;) {
            if (e & 1)
                ovf = __builtin_mul_overflow(r, base, &r);
            e >>= 1;
            if (e && !ovf)
                ovf = __builtin_mul_overflow(base, base, &base);
        }
        break;
    }
    case TOK_LSHIFT:
        if (b < 0)
            lower_error(L, loc, "negative shift count in a constexpr expression");
        if (b >= 63 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b))))
            ovf = true;
        else
            r = (int64_t)((uint64_t)a << b);
        break;
    case TOK_RSHIFT:
        if (b < 0)
            lower_error(L, loc, "negative shift count in a constexpr expression");
        r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
        break;
    case TOK_AMP: r = a & b; break;
    case TOK_PIPE: r = a | b; break;
    case TOK_CARET: r = a ^ b; break;
    default: lower_error(L, loc, "unsupported operator %s on integers", token_kind_name(op));
    }
    if (ovf)
        lower_error(L, loc, "integer overflow in a constexpr expression (tilec folds constexprs in 64 bits)");
    return cv_int(L, r);
}

static CVal *fold_float(Lower *L, TokenKind op, double a, double b, Loc loc)
{
    switch (op) {
    case TOK_PLUS: return cv_float(L, a + b);
    case TOK_MINUS: return cv_float(L, a - b);
    case TOK_STAR: return cv_float(L, a * b);
    case TOK_SLASH:
        if (b == 0)
            lower_error(L, loc, "float division by zero in a constexpr expression");
        return cv_float(L, a / b);
    case TOK_DSLASH:
        if (b == 0)
            lower_error(L, loc, "float division by zero in a constexpr expression");
        return cv_float(L, floor(a / b));
    case TOK_PERCENT: {
        if (b == 0)
            lower_error(L, loc, "float modulo by zero in a constexpr expression");
        double r = fmod(a, b);
        if (r != 0 && ((r < 0) != (b < 0)))
            r += b;
        return cv_float(L, r);
    }
    case TOK_DSTAR:
        if (a == 0 && b < 0)
            lower_error(L, loc, "0 cannot be raised to a negative power in a constexpr expression");
        if (a < 0 && b != floor(b))
            lower_error(L, loc, "a negative number raised to a fractional power is complex");
        return cv_float(L, pow(a, b));
    default: lower_error(L, loc, "unsupported operator %s on floats", token_kind_name(op));
    }
}

static CVal *fold_python(Lower *L, TokenKind op, CVal *a, CVal *b, Loc loc)
{
    if ((a->kind == CV_STR && b->kind == CV_STR && op == TOK_PLUS && a->slen + (int64_t)b->slen > 65536) ||
        (a->kind == CV_TUPLE && b->kind == CV_TUPLE && op == TOK_PLUS && a->items.len + b->items.len > 4096))
        lower_error(L, loc, "a translation-time %s longer than %d is not supported (limit on constexpr values)",
                    a->kind == CV_STR ? "string" : "tuple", a->kind == CV_STR ? 65536 : 4096);
    if (a->kind == CV_STR && b->kind == CV_STR && op == TOK_PLUS) {
        char *s = arena_alloc(L->a, (size_t)(a->slen + b->slen) + 1);
        memcpy(s, a->s, (size_t)a->slen);
        memcpy(s + a->slen, b->s, (size_t)b->slen);
        return cv_str(L, s, a->slen + b->slen);
    }
    if (a->kind == CV_TUPLE && b->kind == CV_TUPLE && op == TOK_PLUS) {
        CVal *t = NEW(L->a, CVal);
        t->kind = CV_TUPLE;
        for (int i = 0; i < a->items.len; i++)
            vec_push(L->a, &t->items, a->items.data[i]);
        for (int i = 0; i < b->items.len; i++)
            vec_push(L->a, &t->items, b->items.data[i]);
        return t;
    }
    if (!py_numeric(a) || !py_numeric(b))
        lower_error(L, loc, "unsupported operand types for %s: %s and %s", token_kind_name(op),
                    cv_describe(L, a), cv_describe(L, b));
    if (a->kind == CV_FLOAT || b->kind == CV_FLOAT) {
        if (op == TOK_LSHIFT || op == TOK_RSHIFT || op == TOK_AMP || op == TOK_PIPE || op == TOK_CARET)
            lower_error(L, loc, "unsupported operand types for %s: %s and %s", token_kind_name(op),
                        cv_describe(L, a), cv_describe(L, b));
        return fold_float(L, op, py_as_float(a), py_as_float(b), loc);
    }
    CVal *r = fold_int(L, op, a->i, b->i, loc);
    if (a->kind == CV_BOOL && b->kind == CV_BOOL && (op == TOK_AMP || op == TOK_PIPE || op == TOK_CARET))
        return cv_bool(L, r->i != 0);
    return r;
}

/* ---- Triton's promotion ---------------------------------------------- */

static int dtype_kind_rank(DType d)
{
    if (d == DT_I1)
        return 0;
    return dtype_is_float(d) ? 2 : 1;
}

static int scalar_kind_rank(const CVal *c)
{
    return c->kind == CV_BOOL ? 0 : c->kind == CV_INT ? 1 : 2;
}

static bool is_div_or_mod(TokenKind op) { return op == TOK_SLASH || op == TOK_PERCENT; }

static DType integer_promote(Lower *L, DType a, DType b, TokenKind op, Loc loc)
{
    if (a == b)
        return a;
    bool sa = dtype_is_signed(a), sb = dtype_is_signed(b);
    if (sa != sb && (op == TOK_SLASH || op == TOK_DSLASH || op == TOK_PERCENT))
        lower_error(L, loc, "cannot use %s between %s and %s: mixed signedness is not allowed for "
                    "division and modulo", token_kind_name(op), dtype_name(a), dtype_name(b));
    int wa = dtype_bits(a), wb = dtype_bits(b);
    if (sa == sb)
        return wa >= wb ? a : b;
    DType u = sa ? b : a, s = sa ? a : b;
    return dtype_bits(u) >= dtype_bits(s) ? u : s;
}

/* The computation dtype of `a op b` for two IR dtypes (rules 1..6). */
static DType promote(Lower *L, DType a, DType b, TokenKind op, Loc loc)
{
    if (a == DT_FP64 || b == DT_FP64)
        return DT_FP64;
    if (a == DT_FP32 || b == DT_FP32)
        return DT_FP32;
    if (a == DT_FP16 || b == DT_FP16)
        return is_div_or_mod(op) ? DT_FP32 : DT_FP16;
    if (a == DT_BF16 && b == DT_BF16)
        return is_div_or_mod(op) ? DT_FP32 : DT_BF16;
    if (a == DT_BF16 || b == DT_BF16)
        return DT_FP32;
    if (dtype_is_fp8(a) && dtype_is_fp8(b))
        return a == b ? a : DT_FP16;
    if (dtype_is_fp8(a) || dtype_is_fp8(b))
        lower_error(L, loc, "cannot combine %s and %s: Triton mixes fp8 only with floating-point types",
                    dtype_triton_name(a), dtype_triton_name(b));
    return integer_promote(L, a, b, op, loc);
}

static void check_scalar_range(Lower *L, const CVal *c, DType d, Loc loc)
{
    if (c->kind != CV_INT || !dtype_is_int(d) || d == DT_I1)
        return;
    if (!dtype_is_signed(d) && c->i < 0)
        lower_error(L, loc, "cannot mix the negative scalar %lld with an unsigned %s tensor",
                    (long long)c->i, dtype_name(d));
    int bits = dtype_bits(d);
    if (bits >= 64)
        return;
    int64_t lo = dtype_is_signed(d) ? -((int64_t)1 << (bits - 1)) : 0;
    int64_t hi = dtype_is_signed(d) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    if (c->i < lo || c->i > hi)
        lower_error(L, loc, "scalar %lld is out of range for %s", (long long)c->i, dtype_name(d));
}

/* Triton has no fp8 arithmetic: its LLVM lowering turns fp8 values into i8, which
 * float instructions (fadd, fcmp, maxnum...) do not take.  Selecting between them works. */
void check_not_fp8_arith(Lower *L, DType d, const char *what, Loc loc)
{
    if (dtype_is_fp8(d))
        lower_error(L, loc, "%s on %s values is not supported by Triton (it has no fp8 arithmetic); "
                    "convert them first, e.g. x.to(tl.float32)", what, dtype_triton_name(d));
}

/* Decide the computation type of a binary op, casting both sides; a or b
 * may be Python scalars.  Returns the operands as IR values.  `what` names the
 * operation for the fp8 check, NULL for a select (which fp8 values allow). */
static DType binary_operands(Lower *L, TokenKind op, CVal *ca, CVal *cb, Value **va, Value **vb,
                             bool compare, const char *what, Loc loc)
{
    DType d;
    if (!compare && cv_is_python_scalar(ca) != cv_is_python_scalar(cb)) {
        CVal *scal = cv_is_python_scalar(ca) ? ca : cb;
        Value *ten = to_value(L, cv_is_python_scalar(ca) ? cb : ca, loc); /* or an error: not a tensor */
        DType td = ten->type.dtype;
        if (td == DT_PTR)
            goto full;
        if (scalar_kind_rank(scal) <= dtype_kind_rank(td)) {
            d = td;
            if ((td == DT_FP16 || td == DT_BF16) && is_div_or_mod(op))
                d = DT_FP32;
            if (what)
                check_not_fp8_arith(L, d, what, loc);
            check_scalar_range(L, scal, td, loc);
            Value *sv = dtype_is_float(d)
                            ? emit_const_float(L, d, scal->kind == CV_FLOAT ? scal->f : (double)scal->i, loc)
                            : emit_const_int(L, d, scal->i, loc);
            Value *tv = cast_value(L, ten, type_scalar(d), loc);
            *va = cv_is_python_scalar(ca) ? sv : tv;
            *vb = cv_is_python_scalar(ca) ? tv : sv;
            return d;
        }
    }
full:;
    Value *a = to_value(L, ca, loc), *b = to_value(L, cb, loc);
    DType da = a->type.dtype, db = b->type.dtype;
    if (da == DT_PTR || db == DT_PTR) {
        *va = a;
        *vb = b;
        return DT_PTR;
    }
    d = promote(L, da, db, op, loc);
    if (what)
        check_not_fp8_arith(L, d, what, loc);
    *va = cast_value(L, a, type_scalar(d), loc);
    *vb = cast_value(L, b, type_scalar(d), loc);
    return d;
}

static Type result_type(Value *a, DType d)
{
    Type t = type_scalar(d);
    return type_tensor(t, a->type.rank, a->type.shape);
}

static CVal *lower_ptr_arith(Lower *L, TokenKind op, Value *a, Value *b, Loc loc)
{
    if (b->type.dtype == DT_PTR && op == TOK_PLUS) {
        Value *t = a;
        a = b;
        b = t;
    }
    if (a->type.dtype != DT_PTR || b->type.dtype == DT_PTR || !dtype_is_int(b->type.dtype) ||
        (op != TOK_PLUS && op != TOK_MINUS))
        lower_error(L, loc, "unsupported pointer arithmetic: %s %s %s", type_str(L->a, a->type),
                    token_kind_name(op), type_str(L->a, b->type));
    if (b->type.dtype == DT_I1)
        b = cast_value(L, b, type_scalar(DT_I32), loc);
    if (!dtype_is_signed(b->type.dtype) && dtype_bits(b->type.dtype) < 64)
        b = cast_value(L, b, type_scalar(DT_I64), loc);
    if (op == TOK_MINUS)
        b = emit1(L, OP_NEG, loc, 1, &b, b->type);
    broadcast_pair(L, &a, &b, loc);
    Value *args[2] = {a, b};
    Type rt = a->type;
    return cv_value(L, emit1(L, OP_ADDPTR, loc, 2, args, rt));
}

CVal *lower_binop(Lower *L, TokenKind op, CVal *ca, CVal *cb, Loc loc)
{
    if (ca->kind != CV_VALUE && cb->kind != CV_VALUE)
        return fold_python(L, op, ca, cb, loc);
    if (op == TOK_DSTAR)
        lower_error(L, loc, "'**' on tensors is not supported by Triton; use tl.math.pow or libdevice.pow");
    if (op == TOK_AT)
        lower_error(L, loc, "'@' (tl.dot) is not supported yet");
    Value *a, *b;
    if ((ca->kind == CV_VALUE && ca->v->type.dtype == DT_PTR) ||
        (cb->kind == CV_VALUE && cb->v->type.dtype == DT_PTR)) {
        a = to_value(L, ca, loc);
        b = to_value(L, cb, loc);
        return lower_ptr_arith(L, op, a, b, loc);
    }
    /* true division: ints become fp32; mixed int/float takes the float */
    if (op == TOK_SLASH) {
        Type ta = value_type_of(L, ca, loc), tb = value_type_of(L, cb, loc);
        if (!dtype_is_float(ta.dtype) && !dtype_is_float(tb.dtype)) {
            Value *x = cast_value(L, to_value(L, ca, loc), type_scalar(DT_FP32), loc);
            Value *y = cast_value(L, to_value(L, cb, loc), type_scalar(DT_FP32), loc);
            ca = cv_value(L, x);
            cb = cv_value(L, y);
        }
    }
    DType d = binary_operands(L, op, ca, cb, &a, &b, false, token_kind_name(op), loc);
    bool isf = dtype_is_float(d);
    OpKind k;
    switch (op) {
    case TOK_PLUS: k = OP_ADD; break;
    case TOK_MINUS: k = OP_SUB; break;
    case TOK_STAR: k = OP_MUL; break;
    case TOK_SLASH: k = OP_DIV; break;
    case TOK_DSLASH:
        if (isf)
            lower_error(L, loc, "'//' on floating-point tensors is not supported by Triton");
        k = OP_DIV;
        break;
    case TOK_PERCENT: k = OP_REM; break;
    case TOK_AMP: k = OP_AND; break;
    case TOK_PIPE: k = OP_OR; break;
    case TOK_CARET: k = OP_XOR; break;
    case TOK_LSHIFT: k = OP_SHL; break;
    case TOK_RSHIFT: k = OP_SHR; break;
    default: lower_error(L, loc, "unsupported operator %s", token_kind_name(op));
    }
    if (isf && (k == OP_AND || k == OP_OR || k == OP_XOR || k == OP_SHL || k == OP_SHR))
        lower_error(L, loc, "operator %s needs integer operands, got %s", token_kind_name(op), dtype_name(d));
    broadcast_pair(L, &a, &b, loc);
    Value *args[2] = {a, b};
    return cv_value(L, emit1(L, k, loc, 2, args, result_type(a, d)));
}

static bool py_compare(Lower *L, TokenKind op, CVal *a, CVal *b, Loc loc)
{
    if (a->kind == CV_STR && b->kind == CV_STR) {
        int c = strcmp(a->s, b->s);
        switch (op) {
        case TOK_EQ: return c == 0;
        case TOK_NE: return c != 0;
        case TOK_LT: return c < 0;
        case TOK_LE: return c <= 0;
        case TOK_GT: return c > 0;
        case TOK_GE: return c >= 0;
        default: break;
        }
    }
    if (py_numeric(a) && py_numeric(b)) {
        if (a->kind != CV_FLOAT && b->kind != CV_FLOAT) {
            int64_t x = a->i, y = b->i;
            switch (op) {
            case TOK_EQ: return x == y;
            case TOK_NE: return x != y;
            case TOK_LT: return x < y;
            case TOK_LE: return x <= y;
            case TOK_GT: return x > y;
            case TOK_GE: return x >= y;
            default: break;
            }
        }
        double x = py_as_float(a), y = py_as_float(b);
        switch (op) {
        case TOK_EQ: return x == y;
        case TOK_NE: return x != y;
        case TOK_LT: return x < y;
        case TOK_LE: return x <= y;
        case TOK_GT: return x > y;
        case TOK_GE: return x >= y;
        default: break;
        }
    }
    if (op == TOK_EQ || op == TOK_NE || op == TOK_IS) {
        bool eq;
        if (a->kind != b->kind)
            eq = false;
        else if (a->kind == CV_NONE)
            eq = true;
        else if (a->kind == CV_DTYPE)
            eq = type_eq(a->dt, b->dt);
        else if (a->kind == CV_FUNC)
            eq = a->func == b->func;
        else if (a->kind == CV_STR)
            eq = !strcmp(a->s, b->s);
        else
            lower_error(L, loc, "cannot compare %s and %s at translation time", cv_describe(L, a),
                        cv_describe(L, b));
        return op == TOK_NE ? !eq : eq;
    }
    lower_error(L, loc, "cannot compare %s and %s with %s", cv_describe(L, a), cv_describe(L, b),
                token_kind_name(op));
}

/* The kernel parameter whose value v is, or NULL. */
static const KernelParam *param_of_value(Lower *L, const Value *v)
{
    for (int i = 0; i < L->f->params.len; i++)
        if (L->f->params.data[i].value == v)
            return &L->f->params.data[i];
    return NULL;
}

CVal *lower_compare(Lower *L, TokenKind op, CVal *ca, CVal *cb, Loc loc)
{
    if (ca->kind != CV_VALUE && cb->kind != CV_VALUE)
        return cv_bool(L, py_compare(L, op, ca, cb, loc));
    Value *a, *b;
    (void)binary_operands(L, op, ca, cb, &a, &b, true, token_kind_name(op), loc);
    if (a->type.dtype == DT_PTR || b->type.dtype == DT_PTR) { /* as Triton's binary_op_type_checking_impl */
        bool both = a->type.dtype == DT_PTR && b->type.dtype == DT_PTR;
        const KernelParam *kp = both ? NULL : param_of_value(L, a->type.dtype == DT_PTR ? a : b);
        lower_error(L, loc, "cannot compare %s and %s with %s: Triton compares numbers, not pointers%s",
                    type_str(L->a, a->type), type_str(L->a, b->type), token_kind_name(op),
                    kp ? arena_printf(L->a, " ('%s' is a pointer in the signature)", kp->name) : "");
    }
    broadcast_pair(L, &a, &b, loc);
    CmpPred p;
    switch (op) {
    case TOK_LT: p = CMP_LT; break;
    case TOK_LE: p = CMP_LE; break;
    case TOK_GT: p = CMP_GT; break;
    case TOK_GE: p = CMP_GE; break;
    case TOK_EQ: p = CMP_EQ; break;
    case TOK_NE: p = CMP_NE; break;
    /* callers turn 'is' into == or != and expand 'in' into == */
    default: BUG("lower_compare: %s", token_kind_name(op));
    }
    Value *args[2] = {a, b};
    Op *o = emit_op(L, OP_CMP, loc, 2, args, result_type(a, DT_I1));
    o->cmp.pred = p;
    return cv_value(L, o->results[0]);
}

CVal *lower_unary(Lower *L, TokenKind op, CVal *a, Loc loc)
{
    if (a->kind != CV_VALUE) {
        if (op == TOK_NOT)
            return cv_bool(L, !cv_truthy(L, a, loc));
        if (!py_numeric(a))
            lower_error(L, loc, "bad operand for unary %s: %s", token_kind_name(op), cv_describe(L, a));
        switch (op) {
        case TOK_PLUS: return a;
        case TOK_MINUS:
            if (a->kind == CV_FLOAT)
                return cv_float(L, -a->f);
            if (a->i == INT64_MIN)
                lower_error(L, loc, "integer overflow in a constexpr expression");
            return cv_int(L, -a->i);
        case TOK_TILDE:
            if (a->kind == CV_FLOAT)
                lower_error(L, loc, "bad operand for unary ~: float");
            return cv_int(L, ~a->i);
        default: break;
        }
        BUG("unary %d", op);
    }
    Value *v = a->v;
    switch (op) {
    case TOK_PLUS: return a;
    case TOK_MINUS:
        if (v->type.dtype == DT_PTR || v->type.dtype == DT_I1)
            lower_error(L, loc, "bad operand for unary -: %s", type_str(L->a, v->type));
        check_not_fp8_arith(L, v->type.dtype, "unary '-'", loc);
        return cv_value(L, emit1(L, OP_NEG, loc, 1, &v, v->type));
    case TOK_TILDE:
        if (!dtype_is_int(v->type.dtype))
            lower_error(L, loc, "'~' needs an integer operand, got %s", type_str(L->a, v->type));
        return cv_value(L, emit1(L, OP_NOT, loc, 1, &v, v->type));
    case TOK_NOT: {
        Value *b = to_bool(L, v, loc);
        return cv_value(L, emit1(L, OP_NOT, loc, 1, &b, b->type));
    }
    default: BUG("unary %d", op);
    }
}

Value *lower_where(Lower *L, Value *c, CVal *x, CVal *y, Loc loc)
{
    c = to_bool(L, c, loc);
    Value *a, *b;
    Type tx = value_type_of(L, x, loc), ty = value_type_of(L, y, loc);
    if (tx.dtype == DT_PTR || ty.dtype == DT_PTR) {
        a = to_value(L, x, loc);
        b = to_value(L, y, loc);
        if (!type_eq(type_elem(a->type), type_elem(b->type)))
            lower_error(L, loc, "tl.where between %s and %s", type_str(L->a, a->type), type_str(L->a, b->type));
    } else {
        (void)binary_operands(L, TOK_PLUS, x, y, &a, &b, false, NULL, loc);
    }
    broadcast_pair(L, &a, &b, loc);
    broadcast_pair(L, &c, &a, loc);
    broadcast_pair(L, &c, &b, loc);
    broadcast_pair(L, &a, &b, loc);
    Value *args[3] = {c, a, b};
    return emit1(L, OP_SELECT, loc, 3, args, a->type);
}

/* tl.maximum and tl.minimum (also Python's max/min on tensors, and each half of tl.clamp), typed
 * as Triton 3.6 types them: both operands become tensors first, so a Python scalar is an i32 or
 * fp32 tensor that takes part in the promotion (tl.maximum(x_fp16, 0.25) is fp32,
 * tl.maximum(x_i8, 3) is i32), unlike in arithmetic; and bf16 operands are widened to fp32
 * (there is no bf16 max/min instruction), so the result of a bf16 maximum is fp32. */
Value *lower_minmax(Lower *L, bool is_max, CVal *x, CVal *y, Loc loc)
{
    Value *a = to_value(L, x, loc), *b = to_value(L, y, loc);
    if (a->type.dtype == DT_BF16)
        a = cast_value(L, a, type_scalar(DT_FP32), loc);
    if (b->type.dtype == DT_BF16)
        b = cast_value(L, b, type_scalar(DT_FP32), loc);
    (void)binary_operands(L, TOK_PLUS, cv_value(L, a), cv_value(L, b), &a, &b, false,
                          is_max ? "tl.maximum" : "tl.minimum", loc);
    if (a->type.dtype == DT_PTR)
        lower_error(L, loc, "maximum/minimum of pointers is not supported");
    broadcast_pair(L, &a, &b, loc);
    Value *args[2] = {a, b};
    return emit1(L, is_max ? OP_MAX : OP_MIN, loc, 2, args, a->type);
}

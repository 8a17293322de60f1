/*
 * expr.c — one element of a value as a C expression: operators, casts, math
 * calls, and the expressions of folded operands nested inside their user's.
 */
#include "emit_internal.h"

#include <stdlib.h>

const char *small_int_wrap(Emitter *E, DType d, const char *s)
{
    if (dtype_is_int(d) && d != DT_I1 && dtype_bits(d) < 32)
        return fmt(E, "(%s)(%s)", dtype_ctype(d), s);
    return s;
}

/* The C function of a math op: MATH_LIST's fp64 or fp32 spelling. */
const char *math_c_name(MathFn m, DType d)
{
    static const char *const f32[] = {
#define X(e, n, f, d, z) f,
        MATH_LIST(X)
#undef X
    };
    static const char *const f64[] = {
#define X(e, n, f, d, z) d,
        MATH_LIST(X)
#undef X
    };
    return d == DT_FP64 ? f64[m] : f32[m];
}

static const char *math_call(Emitter *E, const Op *op, const char *a)
{
    DType d = op->args[0]->type.dtype;
    MathFn m = op->math.fn;
    if (m == MATH_ABS && dtype_is_fp8(d))
        return fmt(E, "tilec::fp8_abs(%s)", a);
    if (m == MATH_ABS && dtype_is_int(d))
    {
        const char *x = paren(E, a); /* `x | 255 < 0` would compare 255 first; -(-3), never --3 */
        return fmt(E, "(%s < 0 ? -%s : %s)", x, x, x);
    }
    if (d == DT_FP16 || d == DT_BF16) {
        if (m == MATH_ABS)
            return fmt(E, "__habs(%s)", a);
        if (m == MATH_FLOOR)
            return fmt(E, "hfloor(%s)", a);
        if (m == MATH_CEIL)
            return fmt(E, "hceil(%s)", a);
    }
    return fmt(E, "%s(%s)", math_c_name(m, d), a);
}

static const char *math2_call(Emitter *E, const Op *op, const char *a, const char *b)
{
    static const char *const f32[] = {
#define X(e, n, f, d) f,
        MATH2_LIST(X)
#undef X
    };
    static const char *const f64[] = {
#define X(e, n, f, d) d,
        MATH2_LIST(X)
#undef X
    };
    DType d = op->args[0]->type.dtype;
    return fmt(E, "%s(%s, %s)", d == DT_FP64 ? f64[op->math2.fn] : f32[op->math2.fn], a, b);
}

/* A conversion to or from fp8: one helper of templates/tilec_runtime_fp8.cuh, named
 * after the two types ("tilec::f32_to_e4m3"); lowering allows only fp32, fp16 and bf16
 * on the other side. */
static const char *fp8_cast_expr(Emitter *E, DType s, DType d, bool rtz, const char *a)
{
    static const struct { DType d; const char *name; } names[] = {
        {DT_FP8E4NV, "e4m3"}, {DT_FP8E5, "e5m2"}, {DT_FP16, "f16"}, {DT_BF16, "bf16"}, {DT_FP32, "f32"},
    };
    const char *sn = NULL, *dn = NULL;
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        if (names[i].d == s)
            sn = names[i].name;
        if (names[i].d == d)
            dn = names[i].name;
    }
    if (!sn || !dn || (dtype_is_fp8(s) && dtype_is_fp8(d)) || (rtz && !(s == DT_FP32 && d == DT_FP8E5)))
        BUG("fp8 conversion %s -> %s%s", dtype_name(s), dtype_name(d), rtz ? " (rtz)" : "");
    return fmt(E, "tilec::%s_to_%s%s(%s)", sn, dn, rtz ? "_rz" : "", a);
}

static const char *cast_expr(Emitter *E, const Op *op, const char *a)
{
    DType s = op->args[0]->type.dtype, d = op->results[0]->type.dtype;
    const Op *src = op->args[0]->def;
    /* a cast of a literal is the literal of the new type (to fp8, the helper below converts
     * it on the device, as Triton does with a nonzero constant) */
    if (src && src->kind == OP_CONST && !info(E, op->args[0])->name && d != DT_PTR && s != DT_PTR &&
        !dtype_is_fp8(d)) {
        double x = dtype_is_float(s) ? src->constant.fval : (double)src->constant.ival;
        if (dtype_is_float(d) && x == x)
            return float_literal(E, x, d);
        if (d == DT_I1)
            return int_literal(E, x != 0, d);
        if (dtype_is_int(d) && !dtype_is_float(s) && dtype_bits(d) >= dtype_bits(s) && dtype_is_signed(d) == dtype_is_signed(s))
            return int_literal(E, src->constant.ival, d);
    }
    a = paren(E, a);
    Type rt = type_elem(op->results[0]->type);
    bool rtz = op->cast.rtz;
    if (dtype_is_fp8(s) || dtype_is_fp8(d))
        return fp8_cast_expr(E, s, d, rtz, a);
    if (d == DT_I1) {
        if (s == DT_FP16 || s == DT_BF16)
            return fmt(E, "(%s != %s)", a, zero_of(E, s));
        if (s == DT_PTR)
            return fmt(E, "(%s != nullptr)", a);
        return fmt(E, "(%s != 0)", a);
    }
    if (s == DT_PTR && d == DT_PTR)
        return fmt(E, "(%s)%s", ctype(E, rt), a);
    if (s == DT_PTR)
        return fmt(E, "(%s)(uintptr_t)%s", dtype_ctype(d), a);
    if (d == DT_PTR)
        return fmt(E, "(%s)(uintptr_t)%s", ctype(E, rt), a);
    if (s == DT_FP16)
        return fmt(E, "__half2float(%s)", a); /* only to fp32 (other targets go through fp32) */
    if (s == DT_BF16)
        return fmt(E, "__bfloat162float(%s)", a);
    if (d == DT_FP16)
        return fmt(E, rtz ? "__float2half_rz(%s)" : "__float2half_rn(%s)", a);
    if (d == DT_BF16)
        return fmt(E, rtz ? "__float2bfloat16_rz(%s)" : "__float2bfloat16_rn(%s)", a);
    if (rtz && s == DT_FP64 && d == DT_FP32)
        return fmt(E, "__double2float_rz(%s)", a);
    return fmt(E, "(%s)%s", dtype_ctype(d), a);
}

static const char *binop_expr(Emitter *E, const Op *op, const char *a, const char *b)
{
    DType d = op->results[0]->type.dtype, ad = op->args[0]->type.dtype;
    bool isf = dtype_is_float(ad);
    switch (op->kind) {
    case OP_ADD: return small_int_wrap(E, d, fmt(E, "%s + %s", a, b));
    case OP_SUB: return small_int_wrap(E, d, fmt(E, "%s - %s", a, b));
    case OP_MUL:
        if (info(E, op->results[0])->mul_rn) /* rounded alone, as in Triton (contract.c) */
            return fmt(E, "__hmul_rn(%s, %s)", a, b);
        return small_int_wrap(E, d, fmt(E, "%s * %s", a, b));
    case OP_DIV:
        if (ad == DT_FP32)
            return fmt(E, "tilec::div_full(%s, %s)", a, b);
        return small_int_wrap(E, d, fmt(E, "%s / %s", a, b));
    case OP_REM:
        if (isf)
            return fmt(E, "%s(%s, %s)", ad == DT_FP64 ? "fmod" : "fmodf", a, b);
        return small_int_wrap(E, d, fmt(E, "%s %% %s", a, b));
    case OP_AND: return fmt(E, "%s & %s", a, b);
    case OP_OR: return fmt(E, "%s | %s", a, b);
    case OP_XOR: return small_int_wrap(E, d, fmt(E, "%s ^ %s", a, b));
    case OP_SHL: return small_int_wrap(E, d, fmt(E, "%s << %s", a, b));
    case OP_SHR: return small_int_wrap(E, d, fmt(E, "%s >> %s", a, b));
    case OP_MAX:
    case OP_MIN: {
        bool mx = op->kind == OP_MAX;
        if (ad == DT_FP32)
            return fmt(E, "%s(%s, %s)", mx ? "fmaxf" : "fminf", a, b);
        if (ad == DT_FP64)
            return fmt(E, "%s(%s, %s)", mx ? "fmax" : "fmin", a, b);
        if (ad == DT_FP16 || ad == DT_BF16)
            return fmt(E, "%s(%s, %s)", mx ? "__hmax" : "__hmin", a, b);
        return fmt(E, "(%s %s %s ? %s : %s)", a, mx ? ">" : "<", b, a, b);
    }
    case OP_UMULHI:
        if (dtype_bits(ad) == 64)
            return dtype_is_signed(ad) ? fmt(E, "(int64_t)__umul64hi((uint64_t)%s, (uint64_t)%s)", a, b)
                                       : fmt(E, "__umul64hi(%s, %s)", a, b);
        if (dtype_is_signed(ad))
            return fmt(E, "(int32_t)__umulhi((uint32_t)%s, (uint32_t)%s)", a, b);
        return fmt(E, "__umulhi(%s, %s)", a, b);
    case OP_CMP: {
        static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
        return fmt(E, "%s %s %s", a, ops[op->cmp.pred], b);
    }
    case OP_ADDPTR: return fmt(E, "%s + %s", a, b);
    default: BUG("binop_expr %s", op_name(op->kind));
    }
}

/* The comparison `test` at register idx, the registers tir_tidy found decided
 * answered without it.  Where every register is decided and they differ, the
 * test stays in the text after the decisions, never reached, so that the
 * operands it names are still read (a variable set and never read draws a
 * warning). */
const char *decided_expr(Emitter *E, const char *idx, const CmpDecided *dec, const char *test)
{
    char *end;
    long k = strtol(idx, &end, 10);
    if (*idx && !*end) /* one register, known here */
        return k < dec->prefix ? (dec->prefix_true ? "true" : "false")
             : k >= dec->suffix ? (dec->suffix_true ? "true" : "false") : test;
    const char *i = paren(E, idx), *s = test; /* test compares: it binds tighter than && and || */
    if (dec->suffix < dec->n)
        s = dec->suffix_true ? fmt(E, "%s >= %d || %s", i, dec->suffix, s) : fmt(E, "%s < %d && %s", i, dec->suffix, s);
    if (dec->prefix > 0) {
        const char *rest = dec->suffix < dec->n ? fmt(E, "(%s)", s) : s;
        s = dec->prefix_true ? fmt(E, "%s < %d || %s", i, dec->prefix, rest)
                             : fmt(E, "%s >= %d && %s", i, dec->prefix, rest);
    }
    return s;
}

/* Parenthesise an operand expression unless it is a name, literal or call. */
const char *paren(Emitter *E, const char *s)
{
    bool simple = true;
    int depth = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '(' || *p == '[')
            depth++;
        else if (*p == ')' || *p == ']')
            depth--;
        else if (depth == 0 && (*p == ' ' || *p == '?'))
            simple = false;
    }
    if (s[0] == '-' || s[0] == '!' || s[0] == '~')
        simple = false;
    if (s[0] == '(' && simple)
        return s;
    return simple ? s : fmt(E, "(%s)", s);
}

const char *op_expr(Emitter *E, const Op *op, const char *idx)
{
    const Value *r = op->results[0];
    if (op->kind == OP_TRANS) /* the same registers, dimensions renamed */
        return value_at(E, op->args[0], NULL, idx);
    if (op_is_shape(op->kind))
        return shape_expr(E, op, idx);
    const char *a = op->nargs > 0 ? paren(E, value_at(E, op->args[0], r, idx)) : NULL;
    const char *b = op->nargs > 1 ? paren(E, value_at(E, op->args[1], r, idx)) : NULL;
    switch (op->kind) {
    case OP_CONST:
        if (dtype_is_float(r->type.dtype))
            return float_literal(E, op->constant.fval, r->type.dtype);
        return int_literal(E, op->constant.ival, r->type.dtype);
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS: return value_at(E, op->args[0], r, idx);
    case OP_PROGRAM_ID: return fmt(E, "(int32_t)blockIdx.%c", "xyz"[op->program_id.axis]);
    case OP_NUM_PROGRAMS: return fmt(E, "(int32_t)gridDim.%c", "xyz"[op->program_id.axis]);
    case OP_MAKE_RANGE: {
        LayoutMap m;
        value_map(r, &m);
        const char *s = elem_coord(E, r, &m, 0, idx);
        if (op->make_range.start)
            s = fmt(E, "%lld + %s", (long long)op->make_range.start, s);
        return s;
    }
    case OP_NEG:
        if (info(E, r)->fma_operand) /* Triton's 0 - x * y, contracted (contract.c) */
            return fma_contracted_expr(E, op, idx);
        return small_int_wrap(E, r->type.dtype, fmt(E, "-%s", a));
    case OP_NOT:
        if (r->type.dtype == DT_I1)
            return fmt(E, "!%s", a);
        return small_int_wrap(E, r->type.dtype, fmt(E, "~%s", a));
    case OP_SELECT: {
        const char *c = paren(E, value_at(E, op->args[2], r, idx));
        return fmt(E, "%s ? %s : %s", a, b, c);
    }
    case OP_MATH: return math_call(E, op, value_at(E, op->args[0], r, idx));
    case OP_MATH2: return math2_call(E, op, value_at(E, op->args[0], r, idx), value_at(E, op->args[1], r, idx));
    case OP_FMA: {
        DType d = r->type.dtype;
        const char *fn = d == DT_FP32 ? "fmaf" : d == DT_FP64 ? "fma" : "__hfma";
        return fmt(E, "%s(%s, %s, %s)", fn, value_at(E, op->args[0], r, idx), value_at(E, op->args[1], r, idx),
                   value_at(E, op->args[2], r, idx));
    }
    case OP_CAST: return cast_expr(E, op, value_at(E, op->args[0], r, idx));
    case OP_ADD:
    case OP_SUB:
        if (info(E, r)->fma_operand) /* Triton's LLVM contracts it (contract.c) */
            return fma_contracted_expr(E, op, idx);
        return binop_expr(E, op, a, b);
    case OP_BITCAST:
        return fmt(E, "tilec::bitcast<%s>(%s)", ctype(E, type_elem(r->type)), value_at(E, op->args[0], r, idx));
    case OP_CMP:
        if (op->cmp.decided.n)
            return decided_expr(E, idx, &op->cmp.decided, binop_expr(E, op, a, b));
        return binop_expr(E, op, a, b);
    default: return binop_expr(E, op, a, b);
    }
}

const char *value_at(Emitter *E, const Value *v, const Value *ctx, const char *idx)
{
    ValInfo *vi = info(E, v);
    const char *ri = reg_index(E, v, ctx, idx);
    if (vi->inl && v->def)
        return op_expr(E, v->def, ri);
    if (v->type.rank == 0)
        return vname(E, v);
    return fmt(E, "%s[%s]", vname(E, v), stored_index(E, v, ri));
}

/* Where register idx of v is kept: idx itself, or idx / V for a tile that keeps one
 * pointer per V-element vector (idx is then a multiple of V). */
const char *stored_index(Emitter *E, const Value *v, const char *idx)
{
    int vec = info(E, v)->vec_store;
    if (vec < 2)
        return idx;
    char *end;
    long k = strtol(idx, &end, 10);
    if (*idx && !*end)
        return fmt(E, "%ld", k / vec);
    return fmt(E, "%s / %d", paren(E, idx), vec);
}

/*
 * lower_builtins.c — attributes of modules, tensors and dtypes, and the
 * handlers (see builtins.h) of Triton's core library: programs, loads and
 * stores, constants, casts, hints, libdevice / tl.math, dtype methods and
 * the Python builtins a kernel may call, each lowered to tile IR with
 * Triton's rules.
 */
#include "lower_internal.h"

#include <math.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

static Value *float_arg(Lower *L, CVal *c, Loc loc, const char *fname, bool allow_half)
{
    Value *v = to_value(L, c, loc);
    DType d = v->type.dtype;
    if (!dtype_is_float(d) || (!allow_half && d != DT_FP32 && d != DT_FP64))
        lower_error(L, loc, "%s expects fp32 or fp64, got %s; cast with .to(tl.float32) first", fname,
                    type_str(L->a, v->type));
    return v;
}

/* ---- dtypes -------------------------------------------------------------- */

/* tl.<name> attributes that are dtypes */
static int tl_dtype(const char *name)
{
    static const struct { const char *n; DType d; } t[] = {
        {"int1", DT_I1}, {"int8", DT_I8}, {"int16", DT_I16}, {"int32", DT_I32}, {"int64", DT_I64},
        {"uint8", DT_U8}, {"uint16", DT_U16}, {"uint32", DT_U32}, {"uint64", DT_U64},
        {"float16", DT_FP16}, {"bfloat16", DT_BF16}, {"float32", DT_FP32}, {"float64", DT_FP64},
        {"float8e4nv", DT_FP8E4NV}, {"float8e5", DT_FP8E5}, {"fp16", DT_FP16}, {"fp32", DT_FP32},
        {"bf16", DT_BF16},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        if (!strcmp(name, t[i].n))
            return (int)t[i].d;
    return -1;
}

/* ---- attributes ------------------------------------------------------------ */

const char *canonical_module(const char *path)
{
    static const struct { const char *path, *canon; } t[] = {
        {"tl", "tl"}, {"triton.language", "tl"}, {"language", "tl"}, {"triton", "triton"},
        {"tl.math", "libdevice"}, {"triton.language.math", "libdevice"}, {"libdevice", "libdevice"},
        {"tl.extra", "tl.extra"}, {"triton.language.extra", "tl.extra"}, {"tl.extra.cuda", "tl.extra.cuda"},
        {"triton.language.extra.cuda", "tl.extra.cuda"}, {"tl.extra.cuda.libdevice", "libdevice"},
        {"triton.language.extra.cuda.libdevice", "libdevice"}, {"tl.extra.libdevice", "libdevice"},
        {"triton.language.extra.libdevice", "libdevice"}, {"math", "math"}, {"tl.core", "tl"},
        {"triton.language.core", "tl"}, {"tl.standard", "tl"}, {"triton.runtime", "triton.runtime"},
        {"tl.random", "tl"}, {"triton.language.standard", "tl"}, {"triton.language.random", "tl"},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        if (!strcmp(path, t[i].path))
            return t[i].canon;
    return NULL;
}

CVal *cv_module(Lower *L, const char *name)
{
    CVal *c = cv_builtin(L, name);
    c->kind = CV_MODULE;
    return c;
}

CVal *lower_attribute(Lower *L, CVal *base, const char *attr, Loc loc)
{
    /* a constexpr's .value is the constant itself: tilec keeps constexprs unwrapped */
    if (!strcmp(attr, "value") && (cv_is_python_scalar(base) || base->kind == CV_NONE || base->kind == CV_STR ||
                                   base->kind == CV_DTYPE || base->kind == CV_UNKNOWN))
        return base;
    if (base->kind == CV_MODULE && base->mod)
        return lower_module_attr(L, base, attr, loc);
    if (base->kind == CV_MODULE) {
        CVal *info = lower_torch_info_attr(L, base, attr, loc);
        if (info)
            return info;
        if (!strcmp(base->s, "torch")) {
            CVal *t = lower_torch_attr(L, attr);
            if (!t)
                lower_error(L, loc, "torch.%s is not supported in kernels (tilec reads torch's dtypes, "
                            "torch.finfo and torch.iinfo)", attr);
            return t;
        }
        const char *canon = canonical_module(arena_printf(L->a, "%s.%s", base->s, attr));
        if (canon)
            return cv_module(L, canon);
        if (!strcmp(base->s, "tl")) {
            int d = tl_dtype(attr);
            if (d >= 0)
                return cv_dtype(L, type_scalar((DType)d));
            if (!strcmp(attr, "constexpr"))
                return cv_builtin(L, "tl.constexpr");
            if (!strncmp(attr, "float8", 6))
                lower_error(L, loc, "tl.%s is not supported yet (of the fp8 types tilec knows only float8e4nv and "
                            "float8e5, and not their arithmetic)", attr);
        }
        if (!strcmp(base->s, "math")) {
            if (!strcmp(attr, "pi"))
                return cv_float(L, 3.14159265358979323846);
            if (!strcmp(attr, "e"))
                return cv_float(L, 2.71828182845904523536);
            if (!strcmp(attr, "inf"))
                return cv_float(L, INFINITY);
            if (!strcmp(attr, "nan"))
                return cv_float(L, NAN);
        }
        return cv_builtin(L, arena_printf(L->a, "%s.%s", base->s, attr));
    }
    if (base->kind == CV_VALUE) {
        Value *v = base->v;
        if (!strcmp(attr, "dtype"))
            return cv_dtype(L, type_elem(v->type));
        if (!strcmp(attr, "shape")) {
            CVal *t = NEW(L->a, CVal);
            t->kind = CV_TUPLE;
            for (int i = 0; i < v->type.rank; i++)
                vec_push(L->a, &t->items, cv_int(L, v->type.shape[i]));
            return t;
        }
        if (!strcmp(attr, "numel"))
            return cv_int(L, type_numel(v->type));
        if (!strcmp(attr, "type"))
            return cv_dtype(L, type_elem(v->type));
        if (!strcmp(attr, "T")) {
            if (v->type.rank != 2)
                lower_error(L, loc, "'.T' needs a 2-D tensor, got rank %d", v->type.rank);
            return cv_value(L, lower_permute(L, v, (int[]){1, 0}, loc));
        }
        CVal *m = NEW(L->a, CVal);
        m->kind = CV_METHOD;
        m->s = attr;
        m->self = base;
        return m;
    }
    if (base->kind == CV_DTYPE) {
        Type t = base->dt;
        if (!strcmp(attr, "element_ty")) {
            if (t.dtype != DT_PTR)
                lower_error(L, loc, "%s has no element_ty: it is not a pointer type", dtype_triton_name(t.dtype));
            return cv_dtype(L, type_pointee(t));
        }
        if (!strcmp(attr, "primitive_bitwidth")) {
            if (t.dtype == DT_PTR) /* Triton's pointer_type has no bit width */
                lower_error(L, loc, "pointer<%s> has no attribute 'primitive_bitwidth'", dtype_triton_name(t.pointee));
            return cv_int(L, dtype_bits(t.dtype));
        }
        if (!strcmp(attr, "name"))
            return cv_str(L, dtype_triton_name(t.dtype), (int)strlen(dtype_triton_name(t.dtype)));
        CVal *m = NEW(L->a, CVal);
        m->kind = CV_METHOD;
        m->s = attr;
        m->self = base;
        return m;
    }
    if (base->kind == CV_TENSORDESC) {
        const BlockPtr *bp = base->bp;
        bool shape = !strcmp(attr, "shape"), strides = !strcmp(attr, "strides"), block = !strcmp(attr, "block_shape");
        if (shape || strides || block) {
            CVal *t = NEW(L->a, CVal);
            t->kind = CV_TUPLE;
            for (int d = 0; d < bp->rank; d++)
                vec_push(L->a, &t->items, shape ? bp->shape[d] : strides ? bp->strides[d] : cv_int(L, bp->block[d]));
            return t;
        }
        if (!strcmp(attr, "dtype"))
            return cv_dtype(L, type_scalar(bp->base->v->type.pointee));
    }
    if (base->kind == CV_TENSORDESC || base->kind == CV_BLOCKPTR) {
        CVal *m = NEW(L->a, CVal);
        m->kind = CV_METHOD;
        m->s = attr;
        m->self = base;
        return m;
    }
    if (base->kind == CV_BUILTIN && !strcmp(base->s, "triton.jit"))
        return base;
    lower_error(L, loc, "%s has no attribute '%s'", cv_describe(L, base), attr);
}

/* ---- casts ----------------------------------------------------------------- */

static Value *lower_cast(Lower *L, Value *v, Type to, bool bitcast, bool rtz, Loc loc)
{
    if (bitcast) {
        Type src = type_elem(v->type);
        int sb = dtype_bits(src.dtype), db = dtype_bits(to.dtype);
        if (sb != db)
            lower_error(L, loc, "cannot bitcast %s to %s: the bit widths differ (%d vs %d)",
                        dtype_name(src.dtype), dtype_name(to.dtype), sb, db);
        if (type_eq(src, to))
            return v;
        if (src.dtype == DT_PTR || to.dtype == DT_PTR)
            return cast_value(L, v, to, loc);
        return emit1(L, OP_BITCAST, loc, 1, &v, type_tensor(to, v->type.rank, v->type.shape));
    }
    Value *r = cast_value(L, v, to, loc);
    if (rtz && r->def && r->def->kind == OP_CAST) {
        DType s = v->type.dtype;
        if (!dtype_is_float(s) || !dtype_is_float(to.dtype) || dtype_bits(to.dtype) >= dtype_bits(s))
            lower_error(L, loc, "fp_downcast_rounding applies only to float downcasts");
        /* the NVIDIA backend rounds toward zero to fp8 only from fp32 to fp8e5 and aborts on the rest */
        if (dtype_is_fp8(to.dtype) && (s != DT_FP32 || to.dtype != DT_FP8E5))
            lower_error(L, loc, "fp_downcast_rounding=\"rtz\" from %s to %s is not supported by Triton 3.6 "
                        "(to fp8 it rounds toward zero only from float32 to float8e5)",
                        dtype_triton_name(s), dtype_triton_name(to.dtype));
        r->def->cast.rtz = true;
    }
    return r;
}

/* ---- tl.* functions ------------------------------------------------------------ */

static int shape_from(Lower *L, CVal *c, Loc loc, int *shape)
{
    if (c->kind == CV_INT) {
        shape[0] = (int)c->i;
        if (c->i <= 0 || !is_pow2(c->i) || c->i > TIR_MAX_NUMEL)
            lower_error(L, loc, "shape dimensions must be powers of two, got %lld", (long long)c->i);
        return 1;
    }
    if (c->kind != CV_TUPLE)
        lower_error(L, loc, "shape must be a tuple of constexpr integers, got %s", cv_describe(L, c));
    if (c->items.len > TIR_MAX_RANK)
        lower_error(L, loc, "tensors of rank %d are not supported (at most %d)", c->items.len, TIR_MAX_RANK);
    int64_t numel = 1;
    for (int i = 0; i < c->items.len; i++) {
        int64_t d = const_int(L, c->items.data[i], loc, "a shape dimension");
        if (!is_pow2(d))
            lower_error(L, loc, "shape dimensions must be powers of two, got %lld", (long long)d);
        numel *= d;
        if (numel > TIR_MAX_NUMEL)
            lower_error(L, loc, "tensor has more than %d elements", TIR_MAX_NUMEL);
        shape[i] = (int)d;
    }
    return c->items.len;
}

static Value *lower_full(Lower *L, int rank, const int *shape, CVal *value, Type dt, Loc loc)
{
    Value *s;
    if (cv_is_python_scalar(value)) {
        if (dtype_is_float(dt.dtype))
            s = emit_const_float(L, dt.dtype, value->kind == CV_FLOAT ? value->f : (double)value->i, loc);
        else if (dt.dtype == DT_PTR)
            lower_error(L, loc, "tl.full of pointers is not supported");
        else {
            if (value->kind == CV_FLOAT && !(value->f > -9.2e18 && value->f < 9.2e18))
                lower_error(L, loc, "tl.full: %g does not fit in %s", value->f, dtype_name(dt.dtype));
            if (value->kind == CV_FLOAT)
                s = emit_const_int(L, dt.dtype, (int64_t)value->f, loc);
            else
                s = emit_const_int(L, dt.dtype, dt.dtype == DT_I1 ? value->i != 0 : value->i, loc);
        }
    } else {
        Value *v = to_value(L, value, loc);
        if (v->type.rank && type_numel(v->type) != 1)
            lower_error(L, loc, "tl.full needs a scalar value");
        s = cast_value(L, v, dt, loc);
    }
    Type t = type_tensor(dt, rank, shape);
    return emit1(L, OP_SPLAT, loc, 1, &s, t);
}

static Value *memory_pointer(Lower *L, CVal *c, Loc loc, const char *fname)
{
    Value *p = to_value(L, c, loc);
    if (p->type.dtype != DT_PTR)
        lower_error(L, loc, "%s expects a pointer or a tensor of pointers, got %s", fname, type_str(L->a, p->type));
    return p;
}

static void check_cache_modifier(Lower *L, CVal *c, Loc loc, bool is_store)
{
    if (!c)
        return;
    if (c->kind != CV_STR)
        lower_error(L, loc, "cache_modifier must be a string");
    const char *ok_load[] = {"", ".ca", ".cg", ".cv"}, *ok_store[] = {"", ".wb", ".cg", ".cs", ".wt"};
    const char *const *ok = is_store ? ok_store : ok_load;
    int n = is_store ? 5 : 4;
    for (int i = 0; i < n; i++)
        if (!strcmp(c->s, ok[i]))
            return;
    lower_error(L, loc, "unknown cache modifier \"%s\"", c->s);
}

/* ---- programs, memory ------------------------------------------------------------ */

CVal *builtin_program_id(const BuiltinCall *c)
{
    Lower *L = c->L;
    int64_t axis = const_int(L, c->arg[0], c->at[0], "the axis");
    if (axis < 0 || axis > 2)
        lower_error(L, c->at[0], "%s axis must be 0, 1 or 2, got %lld", c->name, (long long)axis);
    Op *o = emit_op(L, (OpKind)c->data, c->loc, 0, NULL, type_scalar(DT_I32));
    o->program_id.axis = (int)axis;
    return cv_value(L, o->results[0]);
}

CVal *builtin_arange(const BuiltinCall *c)
{
    Lower *L = c->L;
    Loc loc = c->loc;
    int64_t s = const_int(L, c->arg[0], c->at[0], "tl.arange start");
    int64_t e = const_int(L, c->arg[1], c->at[1], "tl.arange end");
    if ((s >> 32) != 0 || (e >> 32) != 0)
        lower_error(L, loc, "tl.arange bounds must fit in 32 bits");
    if (e <= s)
        lower_error(L, loc, "tl.arange needs end > start, got arange(%lld, %lld)", (long long)s, (long long)e);
    if (!is_pow2(e - s))
        lower_error(L, loc, "tl.arange needs a power-of-two length, got %lld", (long long)(e - s));
    if (e - s > TIR_MAX_NUMEL)
        lower_error(L, loc, "tl.arange length %lld exceeds %d elements", (long long)(e - s), TIR_MAX_NUMEL);
    int shape[1] = {(int)(e - s)};
    Op *o = emit_op(L, OP_MAKE_RANGE, loc, 0, NULL, type_tensor(type_scalar(DT_I32), 1, shape));
    o->make_range.start = s;
    o->make_range.end = e;
    return cv_value(L, o->results[0]);
}

CVal *builtin_load(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *const *A = c->arg;
    const Loc *at = c->at;
    if (A[0]->kind == CV_BLOCKPTR) {
        if (A[1] || A[2])
            lower_error(L, at[A[1] ? 1 : 2], "`mask` and `other` arguments cannot be specified for loading block "
                        "pointers (use boundary_check and padding_option)");
        check_cache_modifier(L, A[5], at[5], false);
        return cv_value(L, blockptr_load(L, A[0]->bp, A[3], at[3], A[4], at[4], cv_truthy(L, A[7], at[7]), c->loc));
    }
    Value *p = memory_pointer(L, A[0], at[0], "tl.load");
    if (A[3] && !(A[3]->kind == CV_TUPLE && A[3]->items.len == 0))
        lower_error(L, at[3], "boundary_check is only for block pointers (tl.make_block_ptr), not for %s",
                    type_str(L->a, p->type));
    if (A[4] && !(A[4]->kind == CV_STR && A[4]->slen == 0))
        lower_error(L, at[4], "padding_option is only for block pointers (tl.make_block_ptr), not for %s",
                    type_str(L->a, p->type));
    if (A[2] && !A[1])
        lower_error(L, at[2], "tl.load: `other` cannot be given without `mask`");
    check_cache_modifier(L, A[5], at[5], false);
    Type elem = p->type.pointee == DT_I1 ? type_scalar(DT_I8) : type_pointee(p->type);
    Value *ops[3] = {p, NULL, NULL};
    int n = 1;
    if (A[1]) {
        Value *m = to_bool(L, to_value(L, A[1], at[1]), at[1]);
        if (p->type.rank == 0 && m->type.rank)
            lower_error(L, at[1], "tl.load of a scalar pointer needs a scalar mask");
        if (p->type.rank)
            m = broadcast_to_shape(L, m, p->type.rank, p->type.shape, at[1]);
        ops[n++] = m;
    }
    if (A[2]) {
        Value *o = cast_value(L, to_value(L, A[2], at[2]), elem, at[2]);
        if (p->type.rank)
            o = broadcast_to_shape(L, o, p->type.rank, p->type.shape, at[2]);
        ops[n++] = o;
    }
    Type rt = type_tensor(elem, p->type.rank, p->type.shape);
    Op *op = emit_op(L, OP_LOAD, c->loc, n, ops, rt);
    op->load.has_mask = A[1] != NULL;
    op->load.has_other = A[2] != NULL;
    op->load.is_volatile = cv_truthy(L, A[7], at[7]);
    Value *r = op->results[0];
    if (p->type.pointee == DT_I1)
        r = to_bool(L, r, c->loc);
    return cv_value(L, r);
}

CVal *builtin_store(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *const *A = c->arg;
    const Loc *at = c->at;
    if (A[0]->kind == CV_BLOCKPTR) {
        if (A[2])
            lower_error(L, at[2], "`mask` cannot be specified for storing through block pointers (use boundary_check)");
        check_cache_modifier(L, A[4], at[4], true);
        blockptr_store(L, A[0]->bp, A[1], at[1], A[3], at[3], c->loc);
        return cv_none(L);
    }
    Value *p = memory_pointer(L, A[0], at[0], "tl.store");
    if (A[3] && !(A[3]->kind == CV_TUPLE && A[3]->items.len == 0))
        lower_error(L, at[3], "boundary_check is only for block pointers (tl.make_block_ptr), not for %s",
                    type_str(L->a, p->type));
    check_cache_modifier(L, A[4], at[4], true);
    Type elem = p->type.pointee == DT_I1 ? type_scalar(DT_I8) : type_pointee(p->type);
    Value *v = to_value(L, A[1], at[1]);
    if (p->type.rank == 0 && v->type.rank)
        lower_error(L, at[1], "tl.store of a tensor through a scalar pointer");
    if (v->type.rank > p->type.rank)
        lower_error(L, at[1], "tl.store: the value's shape %s is larger than the pointer's %s",
                    type_str(L->a, v->type), type_str(L->a, p->type));
    v = cast_value(L, v, elem, at[1]);
    if (p->type.rank)
        v = broadcast_to_shape(L, v, p->type.rank, p->type.shape, at[1]);
    Value *ops[3] = {p, v, NULL};
    int n = 2;
    if (A[2]) {
        Value *m = to_value(L, A[2], at[2]);
        if (m->type.dtype != DT_I1)
            lower_error(L, at[2], "tl.store: mask must be a boolean tensor, got %s", type_str(L->a, m->type));
        if (p->type.rank)
            m = broadcast_to_shape(L, m, p->type.rank, p->type.shape, at[2]);
        ops[n++] = m;
    }
    Op *op = tir_op_new(L->a, L->f, OP_STORE, n, ops, 0, NULL);
    op->loc = c->loc;
    op->stmt = L->stmt;
    op->store.has_mask = A[2] != NULL;
    tir_block_append(L->a, L->cur, op);
    return cv_none(L);
}

/* ---- constants and elementwise functions ------------------------------------------ */

static CVal *full(const BuiltinCall *c, CVal *shape_c, CVal *value, CVal *dtype)
{
    int shape[TIR_MAX_RANK];
    int rank = shape_from(c->L, shape_c, c->loc, shape);
    return cv_value(c->L, lower_full(c->L, rank, shape, value, parse_dtype_cval(c->L, dtype, c->loc), c->loc));
}

CVal *builtin_zeros(const BuiltinCall *c) { return full(c, c->arg[0], cv_int(c->L, 0), c->arg[1]); }
CVal *builtin_full(const BuiltinCall *c) { return full(c, c->arg[0], c->arg[1], c->arg[2]); }

/* zeros_like / full_like: the input's shape, its element type unless dtype is given */
static CVal *full_like(const BuiltinCall *c, CVal *value, CVal *dtype)
{
    Value *x = to_value(c->L, c->arg[0], c->at[0]);
    Type t = dtype ? parse_dtype_cval(c->L, dtype, c->loc) : type_elem(x->type);
    return cv_value(c->L, lower_full(c->L, x->type.rank, x->type.shape, value, t, c->loc));
}

CVal *builtin_zeros_like(const BuiltinCall *c) { return full_like(c, cv_int(c->L, 0), c->arg[1]); }
CVal *builtin_full_like(const BuiltinCall *c) { return full_like(c, c->arg[1], c->arg[2]); }

CVal *builtin_where(const BuiltinCall *c)
{
    Value *cond = to_value(c->L, c->arg[0], c->at[0]);
    return cv_value(c->L, lower_where(c->L, cond, c->arg[1], c->arg[2], c->loc));
}

/* tl.maximum (data 1) and tl.minimum (data 0) */
CVal *builtin_minmax(const BuiltinCall *c)
{
    return cv_value(c->L, lower_minmax(c->L, c->data, c->arg[0], c->arg[1], c->loc));
}

CVal *builtin_clamp(const BuiltinCall *c)
{
    Lower *L = c->L;
    Type tx = value_type_of(L, c->arg[0], c->loc);
    if (!dtype_is_float(tx.dtype))
        lower_error(L, c->loc, "tl.clamp is only defined for floating-point tensors, got %s", dtype_name(tx.dtype));
    Value *lo = lower_minmax(L, true, c->arg[0], c->arg[1], c->loc);
    return cv_value(L, lower_minmax(L, false, cv_value(L, lo), c->arg[2], c->loc));
}

CVal *builtin_fma(const BuiltinCall *c)
{
    Lower *L = c->L;
    Loc loc = c->loc;
    Value *x = to_value(L, c->arg[0], loc), *y = to_value(L, c->arg[1], loc), *z = to_value(L, c->arg[2], loc);
    DType d = x->type.dtype;
    if (!dtype_is_float(d) || !dtype_is_float(y->type.dtype) || !dtype_is_float(z->type.dtype))
        lower_error(L, loc, "%s expects floating-point operands", c->name);
    if (y->type.dtype == DT_FP64 || z->type.dtype == DT_FP64)
        d = DT_FP64;
    else if (d != DT_FP64 && (y->type.dtype == DT_FP32 || z->type.dtype == DT_FP32 || d == DT_FP32))
        d = DT_FP32;
    check_not_fp8_arith(L, d, c->name, loc);
    x = cast_value(L, x, type_scalar(d), loc);
    y = cast_value(L, y, type_scalar(d), loc);
    z = cast_value(L, z, type_scalar(d), loc);
    broadcast_pair(L, &x, &y, loc);
    broadcast_pair(L, &x, &z, loc);
    broadcast_pair(L, &y, &z, loc);
    Value *a3[3] = {x, y, z};
    return cv_value(L, emit1(L, OP_FMA, loc, 3, a3, x->type));
}

CVal *builtin_umulhi(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *r = lower_binop(L, TOK_STAR, c->arg[0], c->arg[1], c->loc); /* for types and broadcast */
    Op *mul = r->v->def;
    Value *a = mul->args[0], *b = mul->args[1];
    if (!dtype_is_int(a->type.dtype) || dtype_bits(a->type.dtype) != 32)
        lower_error(L, c->loc, "%s expects 32-bit integers", c->name);
    Value *a2[2] = {a, b};
    return cv_value(L, emit1(L, OP_UMULHI, c->loc, 2, a2, a->type));
}

/* (x + div - 1) // div */
CVal *builtin_cdiv(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *t = lower_binop(L, TOK_PLUS, c->arg[0], c->arg[1], c->loc);
    t = lower_binop(L, TOK_MINUS, t, cv_int(L, 1), c->loc);
    return lower_binop(L, TOK_DSLASH, t, c->arg[1], c->loc);
}

/* Gives a value a builtin makes inside its expansion the name its definition
 * uses, so that the CUDA reads like that definition (a source name wins). */
static CVal *named(CVal *c, const char *name)
{
    if (c->kind == CV_VALUE && !c->v->name)
        c->v->name = name;
    return c;
}

/* tl.swizzle2d(i, j, size_i, size_j, size_g): the (i, j) of a size_i x size_j grid,
 * renumbered so that groups of size_g rows are walked column by column, as
 * Triton's standard library defines it (the grouped ordering of its matmul
 * tutorial); ints fold, tensors become ops. */
CVal *builtin_swizzle2d(const BuiltinCall *c)
{
    Lower *L = c->L;
    Loc at = c->loc;
    CVal *i = c->arg[0], *j = c->arg[1], *size_i = c->arg[2], *size_j = c->arg[3], *size_g = c->arg[4];
    CVal *ij = named(lower_binop(L, TOK_PLUS, lower_binop(L, TOK_STAR, i, size_j, at), j, at), "ij");
    CVal *size_gj = named(lower_binop(L, TOK_STAR, size_g, size_j, at), "size_gj");
    CVal *off_i = named(lower_binop(L, TOK_STAR, lower_binop(L, TOK_DSLASH, ij, size_gj, at), size_g, at), "off_i");
    CVal *rows_left = lower_binop(L, TOK_MINUS, size_i, off_i, at);
    CVal *group = rows_left->kind == CV_INT && size_g->kind == CV_INT
                      ? cv_int(L, rows_left->i < size_g->i ? rows_left->i : size_g->i)
                      : named(cv_value(L, lower_minmax(L, false, rows_left, size_g, at)), "group_rows");
    CVal *in_group = named(lower_binop(L, TOK_PERCENT, ij, size_gj, at), "ij_in_group");
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    vec_push(L->a, &t->items, lower_binop(L, TOK_PLUS, off_i, lower_binop(L, TOK_PERCENT, in_group, group, at), at));
    vec_push(L->a, &t->items, lower_binop(L, TOK_DSLASH, in_group, group, at));
    return t;
}

static CVal *math2(Lower *L, const char *name, int fn, CVal *x, CVal *y, Loc loc);

CVal *builtin_fdiv(const BuiltinCall *c)
{
    if (cv_truthy(c->L, c->arg[2], c->at[2]))
        return math2(c->L, c->name, MATH2_DIV_RN, c->arg[0], c->arg[1], c->loc);
    return lower_binop(c->L, TOK_SLASH, c->arg[0], c->arg[1], c->loc);
}

CVal *builtin_cast(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = to_value(L, c->arg[0], c->at[0]);
    Type to = parse_dtype_cval(L, c->arg[1], c->at[1]);
    bool rtz = c->arg[2] && c->arg[2]->kind == CV_STR && !strcmp(c->arg[2]->s, "rtz");
    return cv_value(L, lower_cast(L, v, to, cv_truthy(L, c->arg[3], c->at[3]), rtz, c->loc));
}

/* x.to(dtype, fp_downcast_rounding, bitcast) */
CVal *builtin_to(const BuiltinCall *c)
{
    Lower *L = c->L;
    Type to = parse_dtype_cval(L, c->arg[1], c->at[1]);
    bool rtz = false;
    CVal *rounding = c->arg[2];
    if (rounding) {
        if (rounding->kind != CV_STR || (strcmp(rounding->s, "rtz") && strcmp(rounding->s, "rtne")))
            lower_error(L, c->at[2], "fp_downcast_rounding must be \"rtne\" or \"rtz\"");
        rtz = !strcmp(rounding->s, "rtz");
    }
    return cv_value(L, lower_cast(L, c->arg[0]->v, to, cv_truthy(L, c->arg[3], c->at[3]), rtz, c->loc));
}

/* ---- hints and translation-time helpers ------------------------------------------- */

/* tl.multiple_of (data 0), tl.max_contiguous (1), tl.max_constancy (2) */
CVal *builtin_hint(const BuiltinCall *c)
{
    Lower *L = c->L;
    const char *name = c->name;
    Value *v = to_value(L, c->arg[0], c->at[0]);
    int rank = v->type.rank ? v->type.rank : 1;
    int64_t vals[TIR_MAX_RANK];
    CVal *h = c->arg[1];
    Loc at = c->at[1];
    if (h->kind == CV_TUPLE) {
        if (h->items.len != rank)
            lower_error(L, at, "%s needs %d values, one per dimension, got %d", name, rank, h->items.len);
        for (int i = 0; i < rank; i++)
            vals[i] = const_int(L, h->items.data[i], at, name);
    } else {
        if (rank != 1)
            lower_error(L, at, "%s needs one value per dimension", name);
        vals[0] = const_int(L, h, at, name);
    }
    for (int i = 0; i < rank; i++) {
        if (vals[i] <= 0)
            lower_error(L, at, "%s values must be positive, got %lld", name, (long long)vals[i]);
        int64_t *dst = c->data == 0 ? v->hint_div : c->data == 1 ? v->hint_contig : v->hint_const;
        dst[i] = vals[i];
    }
    return cv_value(L, v);
}

CVal *builtin_assume(const BuiltinCall *c) { return cv_none(c->L); }

CVal *builtin_debug_barrier(const BuiltinCall *c)
{
    Lower *L = c->L;
    Op *op = tir_op_new(L->a, L->f, OP_BARRIER, 0, NULL, 0, NULL);
    op->loc = c->loc;
    op->stmt = L->stmt;
    tir_block_append(L->a, L->cur, op);
    return cv_none(L);
}

CVal *builtin_static_assert(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *cond = c->arg[0], *msg = c->arg[1];
    if (cond->kind == CV_VALUE)
        lower_error(L, c->at[0], "tl.static_assert needs a translation-time condition");
    if (!cv_truthy(L, cond, c->at[0])) {
        if (msg && msg->kind == CV_STR && msg->slen)
            lower_error(L, c->loc, "static_assert failed: %s", msg->s);
        lower_error(L, c->loc, "static_assert failed");
    }
    return cv_none(L);
}

/* the values separated by spaces, as a note; sep, end, file and flush are ignored */
CVal *builtin_static_print(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *values = c->arg[0];
    StrBuf sb = {0};
    for (int i = 0; i < values->items.len; i++) {
        CVal *v = values->items.data[i];
        if (i)
            sb_putc(&sb, ' ');
        if (v->kind == CV_STR)
            sb_puts(&sb, v->s);
        else if (v->kind == CV_INT)
            sb_printf(&sb, "%lld", (long long)v->i);
        else
            sb_puts(&sb, cv_describe(L, v));
    }
    diag_note(L->ctx, c->loc, "static_print: %s", sb.data ? sb.data : "");
    sb_free(&sb);
    return cv_none(L);
}

CVal *builtin_constexpr(const BuiltinCall *c) { return c->arg[0]; }

CVal *builtin_get_int_dtype(const BuiltinCall *c)
{
    Lower *L = c->L;
    int64_t bits = const_int(L, c->arg[0], c->at[0], "tl.get_int_dtype's bitwidth");
    bool is_signed = cv_truthy(L, c->arg[1], c->at[1]);
    static const DType s_of[] = {DT_I8, DT_I16, DT_I32, DT_I64}, u_of[] = {DT_U8, DT_U16, DT_U32, DT_U64};
    if (bits == 1 && is_signed)
        return cv_dtype(L, type_scalar(DT_I1));
    for (int i = 0; i < 4; i++)
        if (bits == 8 << i)
            return cv_dtype(L, type_scalar(is_signed ? s_of[i] : u_of[i]));
    lower_error(L, c->at[0], "tl.get_int_dtype: no %ssigned integer type of %lld bits", is_signed ? "" : "un",
                (long long)bits);
}

/* tl.standard._log2: floor(log2(i)) of a constexpr integer, 0 below 2 */
CVal *builtin_log2_constexpr(const BuiltinCall *c)
{
    int64_t n = const_int(c->L, c->arg[0], c->at[0], "tl._log2's argument");
    return cv_int(c->L, n > 1 ? log2_int(n) : 0);
}

/* range(), tl.range(), tl.static_range() anywhere but a for loop's header */
CVal *builtin_for_iterable(const BuiltinCall *c)
{
    lower_error(c->L, c->loc, "%s can only be used as the iterable of a for loop", c->name);
}

/* ---- math functions ---------------------------------------------------------------- */

static CVal *math1(Lower *L, const char *name, int fn, CVal *x, Loc loc)
{
    Value *v = to_value(L, x, loc);
    DType d = v->type.dtype;
    if (fn == MATH_ABS) {
        if (d == DT_PTR)
            lower_error(L, loc, "tl.abs of a pointer");
        if (dtype_is_int(d) && !dtype_is_signed(d))
            return cv_value(L, v);
        if (dtype_is_int(d)) {
            Op *o = emit_op(L, OP_MATH, loc, 1, &v, v->type);
            o->math.fn = MATH_ABS;
            return cv_value(L, o->results[0]);
        }
    }
    v = float_arg(L, x, loc, name, fn == MATH_FLOOR || fn == MATH_CEIL || fn == MATH_ABS);
    if (fn != MATH_ABS) /* Triton's |x| on fp8 clears the sign bit; nothing else computes on fp8 */
        check_not_fp8_arith(L, v->type.dtype, name, loc);
    Type rt = v->type;
    if (fn == MATH_ISNAN || fn == MATH_ISINF)
        rt.dtype = DT_I1;
    Op *o = emit_op(L, OP_MATH, loc, 1, &v, rt);
    o->math.fn = (MathFn)fn;
    return cv_value(L, o->results[0]);
}

static CVal *math2(Lower *L, const char *name, int fn, CVal *x, CVal *y, Loc loc)
{
    Type tx = value_type_of(L, x, loc), ty = value_type_of(L, y, loc);
    DType d = tx.dtype == DT_FP64 || ty.dtype == DT_FP64 ? DT_FP64 : DT_FP32;
    Value *a = cast_value(L, to_value(L, x, loc), type_scalar(d), loc);
    Value *b = cast_value(L, to_value(L, y, loc), type_scalar(d), loc);
    if (!dtype_is_float(tx.dtype) || !dtype_is_float(ty.dtype))
        if (fn == MATH2_DIV_RN)
            lower_error(L, loc, "%s expects floating-point operands", name);
    broadcast_pair(L, &a, &b, loc);
    Value *args2[2] = {a, b};
    Op *o = emit_op(L, OP_MATH2, loc, 2, args2, a->type);
    o->math2.fn = (Math2Fn)fn;
    return cv_value(L, o->results[0]);
}

/* tl.exp, libdevice.exp...: data is the MathFn */
CVal *builtin_math1(const BuiltinCall *c) { return math1(c->L, c->name, c->data, c->arg[0], c->at[0]); }

/* tl.pow, libdevice.atan2...: data is the Math2Fn */
CVal *builtin_math2(const BuiltinCall *c) { return math2(c->L, c->name, c->data, c->arg[0], c->arg[1], c->loc); }

/* ---- dtype methods ------------------------------------------------------------------- */

CVal *builtin_dtype_is_floating(const BuiltinCall *c) { return cv_bool(c->L, dtype_is_float(c->arg[0]->dt.dtype)); }
CVal *builtin_dtype_is_int(const BuiltinCall *c) { return cv_bool(c->L, dtype_is_int(c->arg[0]->dt.dtype)); }
CVal *builtin_dtype_is_int_signed(const BuiltinCall *c) { return cv_bool(c->L, dtype_is_signed(c->arg[0]->dt.dtype)); }

CVal *builtin_dtype_is_int_unsigned(const BuiltinCall *c)
{
    DType d = c->arg[0]->dt.dtype;
    return cv_bool(c->L, dtype_is_int(d) && !dtype_is_signed(d));
}

CVal *builtin_dtype_is_fp8(const BuiltinCall *c) { return cv_bool(c->L, dtype_is_fp8(c->arg[0]->dt.dtype)); }

CVal *builtin_dtype_is_standard_floating(const BuiltinCall *c)
{
    DType d = c->arg[0]->dt.dtype;
    return cv_bool(c->L, dtype_is_float(d) && !dtype_is_fp8(d));
}

/* dtype.is_fp16() and the like: data is the DType */
CVal *builtin_dtype_is(const BuiltinCall *c) { return cv_bool(c->L, c->arg[0]->dt.dtype == (DType)c->data); }

/* ---- Python builtins, math and triton.* helpers ------------------------------------------ */

/* min(a, b, ...) (data 0) and max (data 1): folded on Python numbers, elementwise on tensors */
CVal *builtin_py_minmax(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *args = c->arg[0];
    if (args->items.len < 2)
        lower_error(L, c->loc, "%s in a kernel needs at least two positional arguments", c->name);
    bool is_max = c->data;
    CVal *acc = args->items.data[0];
    for (int i = 1; i < args->items.len; i++) {
        CVal *b = args->items.data[i];
        if (acc->kind != CV_VALUE && b->kind != CV_VALUE) {
            CVal *lt = lower_compare(L, TOK_LT, acc, b, c->loc);
            acc = (lt->i != 0) == is_max ? b : acc;
        } else {
            acc = cv_value(L, lower_minmax(L, is_max, acc, b, c->loc));
        }
    }
    return acc;
}

CVal *builtin_len(const BuiltinCall *c)
{
    CVal *x = c->arg[0];
    if (x->kind == CV_TUPLE)
        return cv_int(c->L, x->items.len);
    if (x->kind == CV_STR)
        return cv_int(c->L, x->slen);
    if (x->kind == CV_VALUE && x->v->type.rank)
        return cv_int(c->L, x->v->type.shape[0]);
    lower_error(c->L, c->loc, "len() of %s", cv_describe(c->L, x));
}

CVal *builtin_abs(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *x = c->arg[0];
    if (x->kind == CV_INT && x->i == INT64_MIN)
        lower_error(L, c->loc, "integer overflow in a constexpr expression (tilec folds constexprs in 64 bits)");
    if (x->kind == CV_INT)
        return cv_int(L, x->i < 0 ? -x->i : x->i);
    if (x->kind == CV_FLOAT)
        return cv_float(L, fabs(x->f));
    return math1(L, "abs", MATH_ABS, x, c->loc);
}

/* int(), float(), bool() of a translation-time number: its value as a double */
static double py_number(const BuiltinCall *c)
{
    CVal *x = c->arg[0];
    if (x->kind == CV_VALUE || !cv_is_python_scalar(x))
        lower_error(c->L, c->loc, "%s is only supported on translation-time numbers", c->name);
    return x->kind == CV_FLOAT ? x->f : (double)x->i;
}

CVal *builtin_int(const BuiltinCall *c)
{
    double f = py_number(c);
    if (c->arg[0]->kind != CV_FLOAT)
        return cv_int(c->L, c->arg[0]->i);
    if (!(f > -9.2e18 && f < 9.2e18))
        lower_error(c->L, c->loc, "int() of %g is out of range", f);
    return cv_int(c->L, (int64_t)f);
}

CVal *builtin_bool(const BuiltinCall *c) { return cv_bool(c->L, py_number(c) != 0); }

/* float(x), and float('inf'), float('-inf'), float('nan'), float('1.5') */
CVal *builtin_float(const BuiltinCall *c)
{
    Lower *L = c->L;
    if (c->arg[0]->kind != CV_STR)
        return cv_float(L, py_number(c));
    const char *t = c->arg[0]->s;
    bool neg = t[0] == '-';
    const char *u = (t[0] == '-' || t[0] == '+') ? t + 1 : t;
    if (!strcasecmp(u, "inf") || !strcasecmp(u, "infinity"))
        return cv_float(L, neg ? -INFINITY : INFINITY);
    if (!strcasecmp(u, "nan"))
        return cv_float(L, NAN);
    char *end;
    double f = strtod(t, &end);
    if (*t && !*end)
        return cv_float(L, f);
    lower_error(L, c->loc, "could not convert string to float: '%s'", t);
}

/* Python's math module on translation-time numbers: data is the MathFn */
CVal *builtin_py_math(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *x = c->arg[0];
    if (!cv_is_python_scalar(x))
        lower_error(L, c->loc, "%s() needs translation-time numbers; use tl.%s for tensors", c->name,
                    c->name + strlen("math."));
    double f = x->kind == CV_FLOAT ? x->f : (double)x->i;
    switch (c->data) {
    case MATH_LOG2: return cv_float(L, log2(f));
    case MATH_LOG: return cv_float(L, log(f));
    case MATH_SQRT: return cv_float(L, sqrt(f));
    case MATH_EXP: return cv_float(L, exp(f));
    default: break;
    }
    if (!(f > -9.2e18 && f < 9.2e18))
        lower_error(L, c->loc, "%s(%g) does not fit in a 64-bit integer", c->name, f);
    return cv_int(L, (int64_t)(c->data == MATH_CEIL ? ceil(f) : floor(f)));
}

CVal *builtin_next_power_of_2(const BuiltinCall *c)
{
    Lower *L = c->L;
    if (c->arg[0]->kind != CV_INT)
        lower_error(L, c->loc, "triton.next_power_of_2 needs a constexpr integer");
    int64_t n = c->arg[0]->i, p = 1;
    if (n > (int64_t)1 << 62)
        lower_error(L, c->loc, "triton.next_power_of_2(%lld) does not fit in 64 bits", (long long)n);
    while (p < n)
        p <<= 1;
    return cv_int(L, p);
}

/*
 * lower_builtins.c — the tl.* library, libdevice/tl.math, and the Python
 * builtins a kernel may call, each lowered to tile IR with Triton's rules.
 * Features of later tiers are recognised by name and reported as not
 * supported yet, never as unknown.
 */
#include "lower_internal.h"

#include <math.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>

/* ---- argument binding ------------------------------------------------------ */

void lower_bind(Lower *L, Node *call, const char *fname, const char *const *params, int np,
                 CVal **args, int nargs, const char **kwn, CVal **kwv, int nkw, Args *out)
{
    memset(out, 0, sizeof *out);
    if (nargs > np)
        lower_error(L, call->loc, "%s takes at most %d arguments, got %d", fname, np, nargs);
    for (int i = 0; i < nargs; i++) {
        out->v[i] = args[i];
        out->loc[i] = call->items.data[i]->loc;
    }
    for (int k = 0; k < nkw; k++) {
        int found = -1;
        for (int i = 0; i < np; i++) {
            size_t n = strcspn(params[i], "?");
            if (strlen(kwn[k]) == n && !strncmp(params[i], kwn[k], n))
                found = i;
        }
        if (found < 0)
            lower_error(L, call->kwargs.data[k].loc, "%s got an unexpected keyword argument '%s'", fname, kwn[k]);
        if (out->v[found])
            lower_error(L, call->kwargs.data[k].loc, "%s got multiple values for argument '%s'", fname, kwn[k]);
        out->v[found] = kwv[k];
        out->loc[found] = call->kwargs.data[k].loc;
    }
    for (int i = 0; i < np; i++) {
        if (!out->loc[i].line)
            out->loc[i] = call->loc;
        if (out->v[i] && out->v[i]->kind == CV_NONE && strchr(params[i], '?'))
            out->v[i] = NULL;
        if (!out->v[i] && !strchr(params[i], '?'))
            lower_error(L, call->loc, "%s is missing its argument '%s'", fname, params[i]);
    }
}

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

/* Names in Triton's library that tilec recognises but does not support yet. */
static const char *later_feature(const char *fn)
{
    static const struct { const char *name, *what; } t[] = {
        {"reduce", "reductions with a combine function"},
        {"associative_scan", "scans with a combine function"},
        {"dot_scaled", "scaled matrix products"},
        {"reshape", "reshapes"}, {"view", "reshapes"}, {"join", "join/split"}, {"split", "join/split"},
        {"interleave", "join/split"}, {"cat", "concatenation"},
        {"make_block_ptr", "block pointers"}, {"advance", "block pointers"},
        {"make_tensor_descriptor", "tensor descriptors"}, {"sort", "sorting"}, {"gather", "gather"},
        {"histogram", "histograms"}, {"inline_asm_elementwise", "inline assembly"},
        {"softmax", "reductions"}, {"flip", "flip"},
        {"swizzle2d", "swizzle2d"}, {"ravel", "reshapes"}, {"topk", "topk"},
        {"_experimental_descriptor_load", "tensor descriptors"},
        {"_experimental_descriptor_store", "tensor descriptors"},
        {"_experimental_make_tensor_descriptor", "tensor descriptors"},
        {"load_tensor_descriptor", "tensor descriptors"}, {"store_tensor_descriptor", "tensor descriptors"},
        {"pointer_type", "pointers to pointers"}, {"map_elementwise", "custom elementwise functions"},
        {"tuple", "tuples of tensors"}, {"async_task", "warp specialization"},

        {"extra.cuda.globaltimer", "CUDA-specific extras"}, {"extra.cuda.smid", "CUDA-specific extras"},
        {"extra.cuda.num_threads", "CUDA-specific extras"}, {"extra.cuda.num_warps", "CUDA-specific extras"},
        {"extra.cuda.convert_custom_float8_sm80", "float8e4b15 conversions"},
        {"extra.cuda.convert_custom_float8_sm70", "float8e4b15 conversions"},
        {"extra.cuda.experimental_device_tensormap_create1d", "tensor descriptors"},
        {"extra.cuda.experimental_device_tensormap_create2d", "tensor descriptors"},
        {"extra.cuda.experimental_tensormap_fenceproxy_acquire", "tensor descriptors"},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        if (!strcmp(fn, t[i].name))
            return t[i].what;
    return NULL;
}

static int math_lookup(const char *n)
{
    static const char *const names[] = {
#define X(e, nm, f, d) nm,
        MATH_LIST(X)
#undef X
    };
    for (int i = 0; i < MATH__COUNT; i++)
        if (!strcmp(n, names[i]))
            return i;
    /* libdevice spellings */
    static const struct { const char *n; MathFn m; } alias[] = {
        {"fabs", MATH_ABS}, {"exp2f", MATH_EXP2}, {"logf", MATH_LOG},
        {"sqrtf", MATH_SQRT_RN}, {"rsqrtf", MATH_RSQRT}, {"tanhf", MATH_TANH}, {"erff", MATH_ERF},
        {"floorf", MATH_FLOOR}, {"ceilf", MATH_CEIL}, {"nearbyint", MATH_RINT}, {"llrint", MATH_RINT},
    };
    for (size_t i = 0; i < ARRAY_LEN(alias); i++)
        if (!strcmp(n, alias[i].n))
            return (int)alias[i].m;
    return -1;
}

static int math2_lookup(const char *n)
{
    static const char *const names[] = {
#define X(e, nm, f, d) nm,
        MATH2_LIST(X)
#undef X
    };
    for (int i = 0; i < MATH2__COUNT; i++)
        if (!strcmp(n, names[i]))
            return i;
    if (!strcmp(n, "powf"))
        return MATH2_POW;
    return -1;
}

/* ---- attributes ------------------------------------------------------------ */

static const char *canonical_module(const char *path)
{
    static const struct { const char *path, *canon; } t[] = {
        {"tl", "tl"}, {"triton.language", "tl"}, {"language", "tl"}, {"triton", "triton"},
        {"tl.math", "libdevice"}, {"triton.language.math", "libdevice"}, {"libdevice", "libdevice"},
        {"tl.extra", "tl.extra"}, {"triton.language.extra", "tl.extra"}, {"tl.extra.cuda", "tl.extra.cuda"},
        {"triton.language.extra.cuda", "tl.extra.cuda"}, {"tl.extra.cuda.libdevice", "libdevice"},
        {"triton.language.extra.cuda.libdevice", "libdevice"}, {"tl.extra.libdevice", "libdevice"},
        {"triton.language.extra.libdevice", "libdevice"}, {"math", "math"}, {"tl.core", "tl"},
        {"triton.language.core", "tl"}, {"tl.standard", "tl"}, {"triton.runtime", "triton.runtime"},
        {"tl.random", "tl"},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        if (!strcmp(path, t[i].path))
            return t[i].canon;
    return NULL;
}

static CVal *cv_module(Lower *L, const char *name)
{
    CVal *c = cv_builtin(L, name);
    c->kind = CV_MODULE;
    return c;
}

CVal *lower_attribute(Lower *L, CVal *base, const char *attr, Loc loc)
{
    if (base->kind == CV_MODULE) {
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
            return cv_dtype(L, type_scalar(t.pointee));
        }
        if (!strcmp(attr, "primitive_bitwidth"))
            return cv_int(L, dtype_bits(t.dtype));
        if (!strcmp(attr, "name"))
            return cv_str(L, dtype_triton_name(t.dtype), (int)strlen(dtype_triton_name(t.dtype)));
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

/* ---- methods ---------------------------------------------------------------- */

static Value *lower_cast(Lower *L, Value *v, Type to, bool bitcast, bool rtz, Loc loc);

CVal *lower_method_call(Lower *L, CVal *method, Node *call, CVal **args, int nargs,
                        const char **kwnames, CVal **kwvals, int nkw)
{
    const char *name = method->s;
    CVal *self = method->self;
    if (self->kind == CV_DTYPE) {
        Type t = self->dt;
        if (nargs || nkw)
            lower_error(L, call->loc, "dtype.%s() takes no arguments", name);
        if (!strcmp(name, "is_floating"))
            return cv_bool(L, dtype_is_float(t.dtype));
        if (!strcmp(name, "is_int"))
            return cv_bool(L, dtype_is_int(t.dtype));
        if (!strcmp(name, "is_int_signed"))
            return cv_bool(L, dtype_is_signed(t.dtype));
        if (!strcmp(name, "is_int_unsigned"))
            return cv_bool(L, dtype_is_int(t.dtype) && !dtype_is_signed(t.dtype));
        if (!strcmp(name, "is_ptr"))
            return cv_bool(L, t.dtype == DT_PTR);
        if (!strcmp(name, "is_fp16"))
            return cv_bool(L, t.dtype == DT_FP16);
        if (!strcmp(name, "is_bf16"))
            return cv_bool(L, t.dtype == DT_BF16);
        if (!strcmp(name, "is_fp32"))
            return cv_bool(L, t.dtype == DT_FP32);
        if (!strcmp(name, "is_fp64"))
            return cv_bool(L, t.dtype == DT_FP64);
        lower_error(L, call->loc, "dtype has no method '%s'", name);
    }
    Value *v = self->v;
    if (!strcmp(name, "to")) {
        BIND("dtype", "fp_downcast_rounding?", "bitcast?");
        Type to = parse_dtype_cval(L, A.v[0], A.loc[0]);
        bool bc = A.v[2] && cv_truthy(L, A.v[2], A.loc[2]);
        bool rtz = false;
        if (A.v[1]) {
            if (A.v[1]->kind != CV_STR || (strcmp(A.v[1]->s, "rtz") && strcmp(A.v[1]->s, "rtne")))
                lower_error(L, A.loc[1], "fp_downcast_rounding must be \"rtne\" or \"rtz\"");
            rtz = !strcmp(A.v[1]->s, "rtz");
        }
        return cv_value(L, lower_cast(L, v, to, bc, rtz, call->loc));
    }
    {
        CVal **all = NEW_ARRAY(L->a, CVal *, nargs + 1);
        all[0] = self;
        Node shifted = *call; /* argument locations: the receiver stands in for item 0 */
        shifted.items.data = NEW_ARRAY(L->a, Node *, nargs + 1);
        shifted.items.data[0] = call;
        if (nargs) { /* memcpy from NULL is undefined even for 0 bytes */
            memcpy(all + 1, args, sizeof(CVal *) * (size_t)nargs);
            memcpy(shifted.items.data + 1, call->items.data, sizeof(Node *) * (size_t)nargs);
        }
        shifted.items.len = nargs + 1;
        CVal *r = lower_tile_builtin(L, name, arena_printf(L->a, ".%s()", name), &shifted, all, nargs + 1, kwnames,
                                     kwvals, nkw);
        if (r)
            return r;
    }
    const char *later = later_feature(name);
    if (later)
        lower_error(L, call->loc, "tensor method '.%s()' is not supported yet (%s)", name, later);
    lower_error(L, call->loc, "tensor has no method '%s' in tilec", name);
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
        r->def->iattr[0] = 1;
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

static CVal *lower_load(Lower *L, Node *call, const char *name, CVal **args, int nargs,
                        const char **kwnames, CVal **kwvals, int nkw)
{
    BIND("pointer", "mask?", "other?", "boundary_check?", "padding_option?", "cache_modifier?",
         "eviction_policy?", "volatile?");
    Value *p = memory_pointer(L, A.v[0], A.loc[0], "tl.load");
    if (A.v[3] && !(A.v[3]->kind == CV_TUPLE && A.v[3]->items.len == 0))
        lower_error(L, A.loc[3], "boundary_check is only for block pointers, which are not supported yet");
    if (A.v[4] && !(A.v[4]->kind == CV_STR && A.v[4]->slen == 0))
        lower_error(L, A.loc[4], "padding_option is only for block pointers, which are not supported yet");
    if (A.v[2] && !A.v[1])
        lower_error(L, A.loc[2], "tl.load: `other` cannot be given without `mask`");
    check_cache_modifier(L, A.v[5], A.loc[5], false);
    Type elem = type_scalar(p->type.pointee == DT_I1 ? DT_I8 : p->type.pointee);
    Value *ops[3] = {p, NULL, NULL};
    int n = 1;
    if (A.v[1]) {
        Value *m = to_bool(L, to_value(L, A.v[1], A.loc[1]), A.loc[1]);
        if (p->type.rank == 0 && m->type.rank)
            lower_error(L, A.loc[1], "tl.load of a scalar pointer needs a scalar mask");
        if (p->type.rank)
            m = broadcast_to_shape(L, m, p->type.rank, p->type.shape, A.loc[1]);
        ops[n++] = m;
    }
    if (A.v[2]) {
        Value *o = cast_value(L, to_value(L, A.v[2], A.loc[2]), elem, A.loc[2]);
        if (p->type.rank)
            o = broadcast_to_shape(L, o, p->type.rank, p->type.shape, A.loc[2]);
        ops[n++] = o;
    }
    Type rt = type_tensor(elem, p->type.rank, p->type.shape);
    Op *op = emit_op(L, OP_LOAD, call->loc, n, ops, rt);
    op->iattr[0] = A.v[1] != NULL;
    op->iattr[1] = A.v[2] != NULL;
    op->iattr[2] = A.v[7] && cv_truthy(L, A.v[7], A.loc[7]);
    Value *r = op->results[0];
    if (p->type.pointee == DT_I1)
        r = to_bool(L, r, call->loc);
    return cv_value(L, r);
}

static CVal *lower_store(Lower *L, Node *call, const char *name, CVal **args, int nargs,
                         const char **kwnames, CVal **kwvals, int nkw)
{
    BIND("pointer", "value", "mask?", "boundary_check?", "cache_modifier?", "eviction_policy?");
    Value *p = memory_pointer(L, A.v[0], A.loc[0], "tl.store");
    if (A.v[3] && !(A.v[3]->kind == CV_TUPLE && A.v[3]->items.len == 0))
        lower_error(L, A.loc[3], "boundary_check is only for block pointers, which are not supported yet");
    check_cache_modifier(L, A.v[4], A.loc[4], true);
    Type elem = type_scalar(p->type.pointee == DT_I1 ? DT_I8 : p->type.pointee);
    Value *v = to_value(L, A.v[1], A.loc[1]);
    if (p->type.rank == 0 && v->type.rank)
        lower_error(L, A.loc[1], "tl.store of a tensor through a scalar pointer");
    if (v->type.rank > p->type.rank)
        lower_error(L, A.loc[1], "tl.store: the value's shape %s is larger than the pointer's %s",
                    type_str(L->a, v->type), type_str(L->a, p->type));
    v = cast_value(L, v, elem, A.loc[1]);
    if (p->type.rank)
        v = broadcast_to_shape(L, v, p->type.rank, p->type.shape, A.loc[1]);
    Value *ops[3] = {p, v, NULL};
    int n = 2;
    if (A.v[2]) {
        Value *m = to_value(L, A.v[2], A.loc[2]);
        if (m->type.dtype != DT_I1)
            lower_error(L, A.loc[2], "tl.store: mask must be a boolean tensor, got %s", type_str(L->a, m->type));
        if (p->type.rank)
            m = broadcast_to_shape(L, m, p->type.rank, p->type.shape, A.loc[2]);
        ops[n++] = m;
    }
    Op *op = tir_op_new(L->a, L->f, OP_STORE, n, ops, 0, NULL);
    op->loc = call->loc;
    op->stmt = L->stmt;
    op->iattr[0] = A.v[2] != NULL;
    tir_block_append(L->a, L->cur, op);
    return cv_none(L);
}

static CVal *lower_hint(Lower *L, Node *call, const char *name, CVal **args, int nargs,
                        const char **kwnames, CVal **kwvals, int nkw, int which)
{
    BIND("input", "values");
    Value *v = to_value(L, A.v[0], A.loc[0]);
    int rank = v->type.rank ? v->type.rank : 1;
    int64_t vals[TIR_MAX_RANK];
    CVal *c = A.v[1];
    if (c->kind == CV_TUPLE) {
        if (c->items.len != rank)
            lower_error(L, A.loc[1], "%s needs %d values, one per dimension, got %d", name, rank, c->items.len);
        for (int i = 0; i < rank; i++)
            vals[i] = const_int(L, c->items.data[i], A.loc[1], name);
    } else {
        if (rank != 1)
            lower_error(L, A.loc[1], "%s needs one value per dimension", name);
        vals[0] = const_int(L, c, A.loc[1], name);
    }
    for (int i = 0; i < rank; i++) {
        if (vals[i] <= 0)
            lower_error(L, A.loc[1], "%s values must be positive, got %lld", name, (long long)vals[i]);
        int64_t *dst = which == 0 ? v->hint_div : which == 1 ? v->hint_contig : v->hint_const;
        dst[i] = vals[i];
    }
    return cv_value(L, v);
}

static CVal *lower_math1(Lower *L, Node *call, const char *name, int fn, CVal *x, Loc loc)
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
            o->iattr[0] = MATH_ABS;
            return cv_value(L, o->results[0]);
        }
    }
    if (fn == MATH_FLOOR || fn == MATH_CEIL || fn == MATH_ABS)
        v = float_arg(L, x, loc, name, true);
    else
        v = float_arg(L, x, loc, name, false);
    if (fn != MATH_ABS) /* Triton's |x| on fp8 clears the sign bit; nothing else computes on fp8 */
        check_not_fp8_arith(L, v->type.dtype, name, loc);
    Type rt = v->type;
    if (fn == MATH_ISNAN || fn == MATH_ISINF)
        rt.dtype = DT_I1;
    Op *o = emit_op(L, OP_MATH, loc, 1, &v, rt);
    o->iattr[0] = fn;
    return cv_value(L, o->results[0]);
}

static CVal *lower_math2(Lower *L, Node *call, int fn, CVal *x, CVal *y, Loc loc, const char *name)
{
    Value *a, *b;
    Type tx = value_type_of(L, x, loc), ty = value_type_of(L, y, loc);
    DType d = tx.dtype == DT_FP64 || ty.dtype == DT_FP64 ? DT_FP64 : DT_FP32;
    a = cast_value(L, to_value(L, x, loc), type_scalar(d), loc);
    b = cast_value(L, to_value(L, y, loc), type_scalar(d), loc);
    if (!dtype_is_float(tx.dtype) || !dtype_is_float(ty.dtype))
        if (fn == MATH2_DIV_RN)
            lower_error(L, loc, "%s expects floating-point operands", name);
    broadcast_pair(L, &a, &b, loc);
    Value *args2[2] = {a, b};
    Op *o = emit_op(L, OP_MATH2, loc, 2, args2, a->type);
    o->iattr[0] = fn;
    return cv_value(L, o->results[0]);
}

static CVal *lower_tl(Lower *L, const char *fn, Node *call, CVal **args, int nargs,
                      const char **kwnames, CVal **kwvals, int nkw)
{
    const char *name = arena_printf(L->a, "tl.%s", fn);
    Loc loc = call->loc;
    CVal *tile = lower_tile_builtin(L, fn, name, call, args, nargs, kwnames, kwvals, nkw);
    if (tile)
        return tile;
    CVal *rnd = lower_random(L, fn, call, args, nargs, kwnames, kwvals, nkw);
    if (rnd)
        return rnd;
    if (!strcmp(fn, "program_id") || !strcmp(fn, "num_programs")) {
        BIND("axis");
        int64_t axis = const_int(L, A.v[0], A.loc[0], "the axis");
        if (axis < 0 || axis > 2)
            lower_error(L, A.loc[0], "%s axis must be 0, 1 or 2, got %lld", name, (long long)axis);
        Op *o = emit_op(L, fn[0] == 'p' ? OP_PROGRAM_ID : OP_NUM_PROGRAMS, loc, 0, NULL, type_scalar(DT_I32));
        o->iattr[0] = axis;
        return cv_value(L, o->results[0]);
    }
    if (!strcmp(fn, "arange")) {
        BIND("start", "end");
        int64_t s = const_int(L, A.v[0], A.loc[0], "tl.arange start");
        int64_t e = const_int(L, A.v[1], A.loc[1], "tl.arange end");
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
        o->iattr[0] = s;
        o->iattr[1] = e;
        return cv_value(L, o->results[0]);
    }
    if (!strcmp(fn, "cdiv")) {
        BIND("x", "div");
        CVal *t = lower_binop(L, TOK_PLUS, A.v[0], A.v[1], loc);
        t = lower_binop(L, TOK_MINUS, t, cv_int(L, 1), loc);
        return lower_binop(L, TOK_DSLASH, t, A.v[1], loc);
    }
    if (!strcmp(fn, "load"))
        return lower_load(L, call, name, args, nargs, kwnames, kwvals, nkw);
    if (!strcmp(fn, "store"))
        return lower_store(L, call, name, args, nargs, kwnames, kwvals, nkw);
    if (!strcmp(fn, "zeros") || !strcmp(fn, "full")) {
        bool z = fn[0] == 'z';
        CVal *shape_c, *val, *dt;
        if (z) {
            BIND("shape", "dtype");
            shape_c = A.v[0], val = cv_int(L, 0), dt = A.v[1];
        } else {
            BIND("shape", "value", "dtype");
            shape_c = A.v[0], val = A.v[1], dt = A.v[2];
        }
        int shape[TIR_MAX_RANK];
        int rank = shape_from(L, shape_c, loc, shape);
        return cv_value(L, lower_full(L, rank, shape, val, parse_dtype_cval(L, dt, loc), loc));
    }
    if (!strcmp(fn, "zeros_like") || !strcmp(fn, "full_like")) {
        Value *x;
        CVal *val = cv_int(L, 0), *dt = NULL;
        if (fn[0] == 'z') {
            BIND("input", "dtype?");
            x = to_value(L, A.v[0], A.loc[0]);
            dt = A.v[1];
        } else {
            BIND("input", "value", "dtype?");
            x = to_value(L, A.v[0], A.loc[0]);
            val = A.v[1];
            dt = A.v[2];
        }
        Type t = dt ? parse_dtype_cval(L, dt, loc) : type_elem(x->type);
        return cv_value(L, lower_full(L, x->type.rank, x->type.shape, val, t, loc));
    }
    if (!strcmp(fn, "where")) {
        BIND("condition", "x", "y");
        Value *c = to_value(L, A.v[0], A.loc[0]);
        return cv_value(L, lower_where(L, c, A.v[1], A.v[2], loc));
    }
    if (!strcmp(fn, "maximum") || !strcmp(fn, "minimum")) {
        BIND("x", "y", "propagate_nan?");
        return cv_value(L, lower_minmax(L, fn[1] == 'a', A.v[0], A.v[1], loc));
    }
    if (!strcmp(fn, "clamp")) {
        BIND("x", "min", "max", "propagate_nan?");
        Type tx = value_type_of(L, A.v[0], loc);
        if (!dtype_is_float(tx.dtype))
            lower_error(L, loc, "tl.clamp is only defined for floating-point tensors, got %s", dtype_name(tx.dtype));
        Value *lo = lower_minmax(L, true, A.v[0], A.v[1], loc);
        return cv_value(L, lower_minmax(L, false, cv_value(L, lo), A.v[2], loc));
    }
    if (!strcmp(fn, "fma")) {
        BIND("x", "y", "z");
        Value *x = to_value(L, A.v[0], loc), *y = to_value(L, A.v[1], loc), *z = to_value(L, A.v[2], loc);
        DType d = x->type.dtype;
        if (!dtype_is_float(d) || !dtype_is_float(y->type.dtype) || !dtype_is_float(z->type.dtype))
            lower_error(L, loc, "tl.fma expects floating-point operands");
        if (y->type.dtype == DT_FP64 || z->type.dtype == DT_FP64)
            d = DT_FP64;
        else if (d != DT_FP64 && (y->type.dtype == DT_FP32 || z->type.dtype == DT_FP32 || d == DT_FP32))
            d = DT_FP32;
        check_not_fp8_arith(L, d, name, loc);
        x = cast_value(L, x, type_scalar(d), loc);
        y = cast_value(L, y, type_scalar(d), loc);
        z = cast_value(L, z, type_scalar(d), loc);
        broadcast_pair(L, &x, &y, loc);
        broadcast_pair(L, &x, &z, loc);
        broadcast_pair(L, &y, &z, loc);
        Value *a3[3] = {x, y, z};
        return cv_value(L, emit1(L, OP_FMA, loc, 3, a3, x->type));
    }
    if (!strcmp(fn, "umulhi")) {
        BIND("x", "y");
        Value *a, *b;
        CVal *r = lower_binop(L, TOK_STAR, A.v[0], A.v[1], loc); /* for types and broadcast */
        Op *mul = r->v->def;
        a = mul->args[0];
        b = mul->args[1];
        if (!dtype_is_int(a->type.dtype) || dtype_bits(a->type.dtype) != 32)
            lower_error(L, loc, "tl.umulhi expects 32-bit integers");
        Value *a2[2] = {a, b};
        return cv_value(L, emit1(L, OP_UMULHI, loc, 2, a2, a->type));
    }
    if (!strcmp(fn, "fdiv")) {
        BIND("x", "y", "ieee_rounding?");
        if (A.v[2] && cv_truthy(L, A.v[2], A.loc[2]))
            return lower_math2(L, call, MATH2_DIV_RN, A.v[0], A.v[1], loc, name);
        return lower_binop(L, TOK_SLASH, A.v[0], A.v[1], loc);
    }
    if (!strcmp(fn, "cast")) {
        BIND("input", "dtype", "fp_downcast_rounding?", "bitcast?");
        Value *v = to_value(L, A.v[0], A.loc[0]);
        Type to = parse_dtype_cval(L, A.v[1], A.loc[1]);
        bool rtz = A.v[2] && A.v[2]->kind == CV_STR && !strcmp(A.v[2]->s, "rtz");
        return cv_value(L, lower_cast(L, v, to, A.v[3] && cv_truthy(L, A.v[3], A.loc[3]), rtz, loc));
    }
    if (!strcmp(fn, "multiple_of"))
        return lower_hint(L, call, name, args, nargs, kwnames, kwvals, nkw, 0);
    if (!strcmp(fn, "max_contiguous"))
        return lower_hint(L, call, name, args, nargs, kwnames, kwvals, nkw, 1);
    if (!strcmp(fn, "max_constancy"))
        return lower_hint(L, call, name, args, nargs, kwnames, kwvals, nkw, 2);
    if (!strcmp(fn, "static_assert")) {
        BIND("cond", "msg?");
        if (A.v[0]->kind == CV_VALUE)
            lower_error(L, A.loc[0], "tl.static_assert needs a translation-time condition");
        if (!cv_truthy(L, A.v[0], A.loc[0])) {
            if (A.v[1] && A.v[1]->kind == CV_STR && A.v[1]->slen)
                lower_error(L, loc, "static_assert failed: %s", A.v[1]->s);
            lower_error(L, loc, "static_assert failed");
        }
        return cv_none(L);
    }
    if (!strcmp(fn, "static_print")) {
        StrBuf sb = {0};
        for (int i = 0; i < nargs; i++) {
            CVal *c = args[i];
            if (i)
                sb_putc(&sb, ' ');
            if (c->kind == CV_STR)
                sb_puts(&sb, c->s);
            else if (c->kind == CV_INT)
                sb_printf(&sb, "%lld", (long long)c->i);
            else
                sb_puts(&sb, cv_describe(L, c));
        }
        diag_note(L->ctx, loc, "static_print: %s", sb.data ? sb.data : "");
        sb_free(&sb);
        return cv_none(L);
    }
    if (!strcmp(fn, "assume"))
        return cv_none(L);
    if (!strcmp(fn, "debug_barrier")) {
        Op *op = tir_op_new(L->a, L->f, OP_BARRIER, 0, NULL, 0, NULL);
        op->loc = loc;
        op->stmt = L->stmt;
        tir_block_append(L->a, L->cur, op);
        return cv_none(L);
    }
    if (!strcmp(fn, "constexpr")) {
        if (nargs != 1)
            lower_error(L, loc, "tl.constexpr takes one value");
        return args[0];
    }
    if (!strcmp(fn, "get_int_dtype")) {
        BIND("bitwidth", "signed");
        int64_t bits = const_int(L, A.v[0], A.loc[0], "tl.get_int_dtype's bitwidth");
        bool is_signed = cv_truthy(L, A.v[1], A.loc[1]);
        static const DType s_of[] = {DT_I8, DT_I16, DT_I32, DT_I64}, u_of[] = {DT_U8, DT_U16, DT_U32, DT_U64};
        if (bits == 1 && is_signed)
            return cv_dtype(L, type_scalar(DT_I1));
        for (int i = 0; i < 4; i++)
            if (bits == 8 << i)
                return cv_dtype(L, type_scalar(is_signed ? s_of[i] : u_of[i]));
        lower_error(L, A.loc[0], "tl.get_int_dtype: no %ssigned integer type of %lld bits", is_signed ? "" : "un",
                    (long long)bits);
    }
    if (!strcmp(fn, "_log2")) {
        /* tl.standard._log2: floor(log2(i)) of a constexpr integer, 0 below 2 */
        BIND("i");
        int64_t n = const_int(L, A.v[0], A.loc[0], "tl._log2's argument");
        return cv_int(L, n > 1 ? log2_int(n) : 0);
    }
    if (!strcmp(fn, "range") || !strcmp(fn, "static_range"))
        lower_error(L, loc, "%s can only be used as the iterable of a for loop", name);
    int m = math_lookup(fn);
    if (m >= 0) {
        BIND("x");
        return lower_math1(L, call, name, m, A.v[0], A.loc[0]);
    }
    int m2 = math2_lookup(fn);
    if (m2 >= 0) {
        BIND("x", "y");
        return lower_math2(L, call, m2, A.v[0], A.v[1], loc, name);
    }
    const char *later = later_feature(fn);
    if (later)
        lower_error(L, loc, "%s is not supported yet (%s)", name, later);
    lower_error(L, loc, "unknown function %s", name);
}

static CVal *lower_libdevice(Lower *L, const char *fn, Node *call, CVal **args, int nargs,
                             const char **kwnames, CVal **kwvals, int nkw)
{
    const char *name = arena_printf(L->a, "libdevice.%s", fn);
    /* libdevice's exp is __nv_expf, not tl.exp's approximation */
    int m = !strcmp(fn, "exp") || !strcmp(fn, "expf") ? (int)MATH_EXP_LIBDEVICE : math_lookup(fn);
    if (m >= 0) {
        BIND("x");
        return lower_math1(L, call, name, m, A.v[0], A.loc[0]);
    }
    int m2 = math2_lookup(fn);
    if (m2 >= 0) {
        BIND("x", "y");
        return lower_math2(L, call, m2, A.v[0], A.v[1], call->loc, name);
    }
    if (!strcmp(fn, "fma") || !strcmp(fn, "umulhi") || !strcmp(fn, "cdiv"))
        return lower_tl(L, fn, call, args, nargs, kwnames, kwvals, nkw);
    lower_error(L, call->loc, "unknown or unsupported math function %s", name);
}

/* Python builtins and triton.* helpers usable in kernels. */
static CVal *lower_python_builtin(Lower *L, const char *fn, Node *call, CVal **args, int nargs,
                                  const char **kwnames, CVal **kwvals, int nkw)
{
    Loc loc = call->loc;
    if (!strcmp(fn, "min") || !strcmp(fn, "max")) {
        if (nargs < 2 || nkw)
            lower_error(L, loc, "%s() in a kernel needs at least two positional arguments", fn);
        bool is_max = fn[1] == 'a';
        CVal *acc = args[0];
        for (int i = 1; i < nargs; i++) {
            CVal *b = args[i];
            if (acc->kind != CV_VALUE && b->kind != CV_VALUE) {
                CVal *lt = lower_compare(L, TOK_LT, acc, b, loc);
                acc = (lt->i != 0) == is_max ? b : acc;
            } else {
                acc = cv_value(L, lower_minmax(L, is_max, acc, b, loc));
            }
        }
        return acc;
    }
    if (!strcmp(fn, "len")) {
        if (nargs != 1)
            lower_error(L, loc, "len() takes one argument");
        if (args[0]->kind == CV_TUPLE)
            return cv_int(L, args[0]->items.len);
        if (args[0]->kind == CV_STR)
            return cv_int(L, args[0]->slen);
        if (args[0]->kind == CV_VALUE && args[0]->v->type.rank)
            return cv_int(L, args[0]->v->type.shape[0]);
        lower_error(L, loc, "len() of %s", cv_describe(L, args[0]));
    }
    if (!strcmp(fn, "float") && nargs == 1 && args[0]->kind == CV_STR) {
        /* float('inf'), float('-inf'), float('nan') */
        const char *t = args[0]->s;
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
        lower_error(L, loc, "could not convert string to float: '%s'", t);
    }
    if (!strcmp(fn, "int") || !strcmp(fn, "float") || !strcmp(fn, "bool")) {
        if (nargs != 1 || args[0]->kind == CV_VALUE || !cv_is_python_scalar(args[0]))
            lower_error(L, loc, "%s() is only supported on translation-time numbers", fn);
        CVal *c = args[0];
        double f = c->kind == CV_FLOAT ? c->f : (double)c->i;
        if (fn[0] == 'i') {
            if (c->kind != CV_FLOAT)
                return cv_int(L, c->i);
            if (!(f > -9.2e18 && f < 9.2e18))
                lower_error(L, loc, "int() of %g is out of range", f);
            return cv_int(L, (int64_t)f);
        }
        if (fn[0] == 'f')
            return cv_float(L, f);
        return cv_bool(L, f != 0);
    }
    if (!strcmp(fn, "abs")) {
        if (nargs != 1)
            lower_error(L, loc, "abs() takes one argument");
        if (args[0]->kind == CV_INT && args[0]->i == INT64_MIN)
            lower_error(L, loc, "integer overflow in a constexpr expression (tilec folds constexprs in 64 bits)");
        if (args[0]->kind == CV_INT)
            return cv_int(L, args[0]->i < 0 ? -args[0]->i : args[0]->i);
        if (args[0]->kind == CV_FLOAT)
            return cv_float(L, fabs(args[0]->f));
        return lower_math1(L, call, "abs", MATH_ABS, args[0], loc);
    }
    if (!strcmp(fn, "triton.cdiv")) {
        if (nargs != 2)
            lower_error(L, loc, "triton.cdiv takes two arguments");
        return lower_tl(L, "cdiv", call, args, nargs, kwnames, kwvals, nkw);
    }
    if (!strcmp(fn, "triton.next_power_of_2")) {
        if (nargs != 1 || args[0]->kind != CV_INT)
            lower_error(L, loc, "triton.next_power_of_2 needs a constexpr integer");
        int64_t n = args[0]->i, p = 1;
        if (n > (int64_t)1 << 62)
            lower_error(L, loc, "triton.next_power_of_2(%lld) does not fit in 64 bits", (long long)n);
        while (p < n)
            p <<= 1;
        return cv_int(L, p);
    }
    if (!strcmp(fn, "print"))
        lower_error(L, loc, "print() in a kernel is tl.device_print, which is not supported yet");
    if (!strcmp(fn, "range"))
        lower_error(L, loc, "range() can only be used as the iterable of a for loop");
    if (!strcmp(fn, "isinstance"))
        lower_error(L, loc, "isinstance() is not supported in kernels");
    lower_error(L, loc, "unknown function %s", fn);
}

CVal *lower_builtin_call(Lower *L, const char *name, Node *call, CVal **args, int nargs,
                         const char **kwnames, CVal **kwvals, int nkw)
{
    if (!strncmp(name, "tl.", 3))
        return lower_tl(L, name + 3, call, args, nargs, kwnames, kwvals, nkw);
    if (!strncmp(name, "libdevice.", 10))
        return lower_libdevice(L, name + 10, call, args, nargs, kwnames, kwvals, nkw);
    if (!strncmp(name, "math.", 5)) {
        const char *fn = name + 5;
        for (int i = 0; i < nargs; i++)
            if (!cv_is_python_scalar(args[i]))
                lower_error(L, call->loc, "%s() needs translation-time numbers; use tl.%s for tensors", name, fn);
        double x = nargs > 0 ? (args[0]->kind == CV_FLOAT ? args[0]->f : (double)args[0]->i) : 0;
        if (!strcmp(fn, "log2")) return cv_float(L, log2(x));
        if (!strcmp(fn, "log")) return cv_float(L, log(x));
        if (!strcmp(fn, "sqrt")) return cv_float(L, sqrt(x));
        if (!strcmp(fn, "exp")) return cv_float(L, exp(x));
        if ((!strcmp(fn, "ceil") || !strcmp(fn, "floor")) && !(x > -9.2e18 && x < 9.2e18))
            lower_error(L, call->loc, "%s(%g) does not fit in a 64-bit integer", name, x);
        if (!strcmp(fn, "ceil")) return cv_int(L, (int64_t)ceil(x));
        if (!strcmp(fn, "floor")) return cv_int(L, (int64_t)floor(x));
        lower_error(L, call->loc, "unsupported function %s", name);
    }
    return lower_python_builtin(L, name, call, args, nargs, kwnames, kwvals, nkw);
}

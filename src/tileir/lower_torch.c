/*
 * lower_torch.c — the few host values of torch that kernel files compute constants from:
 * torch's dtypes and torch.finfo / torch.iinfo of them, as in
 *
 *     _MIN_FLOAT32_VAL = tl.constexpr(torch.finfo(torch.float32).min)
 *
 * The numbers are those torch gives; nothing of torch runs.  A finfo or iinfo object is a
 * CV_MODULE named "torch.finfo" / "torch.iinfo" whose dt is the dtype asked about.
 */
#include "lower_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* torch.NAME as a dtype, or -1 */
static int torch_dtype(const char *name)
{
    static const struct { const char *name; DType dt; } t[] = {
        {"float32", DT_FP32}, {"float", DT_FP32}, {"float16", DT_FP16}, {"half", DT_FP16},
        {"bfloat16", DT_BF16}, {"float64", DT_FP64}, {"double", DT_FP64}, {"int8", DT_I8},
        {"int16", DT_I16}, {"short", DT_I16}, {"int32", DT_I32}, {"int", DT_I32}, {"int64", DT_I64},
        {"long", DT_I64}, {"uint8", DT_U8}, {"uint16", DT_U16}, {"uint32", DT_U32}, {"uint64", DT_U64},
        {"bool", DT_I1}, {"float8_e4m3fn", DT_FP8E4NV}, {"float8_e5m2", DT_FP8E5},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        if (!strcmp(name, t[i].name))
            return (int)t[i].dt;
    return -1;
}

/* torch.ATTR: a dtype, or finfo/iinfo; NULL: not one tilec knows. */
CVal *lower_torch_attr(Lower *L, const char *attr)
{
    int d = torch_dtype(attr);
    if (d >= 0)
        return cv_dtype(L, type_scalar((DType)d));
    if (!strcmp(attr, "finfo") || !strcmp(attr, "iinfo"))
        return cv_builtin(L, arena_printf(L->a, "torch.%s", attr));
    return NULL;
}

/* torch.finfo(dtype) (data 0) and torch.iinfo(dtype) (data 1) */
CVal *builtin_torch_info(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *t = c->arg[0];
    bool ints = c->data == 1;
    if (!t || t->kind != CV_DTYPE || t->dt.dtype == DT_PTR ||
        dtype_is_float(t->dt.dtype) == ints)
        lower_error(L, c->at[0], "%s needs a torch %s dtype, e.g. %s", c->name, ints ? "integer" : "floating-point",
                    ints ? "torch.int32" : "torch.float32");
    CVal *info = cv_module(L, ints ? "torch.iinfo" : "torch.finfo");
    info->dt = t->dt;
    return info;
}

/* The floating-point limits torch.finfo reports: largest finite, smallest normal, epsilon
 * (2^-mantissa bits), decimal resolution. */
static bool float_limits(DType d, double *max, double *tiny, double *eps, double *resolution)
{
    switch (d) {
    case DT_FP16: *max = 65504.0; *tiny = ldexp(1, -14); *eps = ldexp(1, -10); *resolution = 1e-3; return true;
    case DT_BF16: *max = 3.3895313892515355e38; *tiny = ldexp(1, -126); *eps = ldexp(1, -7); *resolution = 1e-2; return true;
    case DT_FP32: *max = FLT_MAX; *tiny = FLT_MIN; *eps = FLT_EPSILON; *resolution = 1e-6; return true;
    case DT_FP64: *max = DBL_MAX; *tiny = DBL_MIN; *eps = DBL_EPSILON; *resolution = 1e-15; return true;
    case DT_FP8E4NV: *max = 448.0; *tiny = ldexp(1, -6); *eps = 0.125; *resolution = 1.0; return true;
    case DT_FP8E5: *max = 57344.0; *tiny = ldexp(1, -14); *eps = 0.25; *resolution = 1.0; return true;
    default: return false;
    }
}

/* finfo.ATTR / iinfo.ATTR; NULL: not an attribute of base (base is not such an object). */
CVal *lower_torch_info_attr(Lower *L, CVal *base, const char *attr, Loc loc)
{
    bool fi = !strcmp(base->s, "torch.finfo");
    if (!fi && strcmp(base->s, "torch.iinfo"))
        return NULL;
    DType d = base->dt.dtype;
    int bits = dtype_bits(d);
    if (!strcmp(attr, "bits"))
        return cv_int(L, bits);
    if (fi) {
        double max, tiny, eps, resolution;
        if (!float_limits(d, &max, &tiny, &eps, &resolution))
            BUG("torch.finfo of a non-float dtype");
        if (!strcmp(attr, "max"))
            return cv_float(L, max);
        if (!strcmp(attr, "min"))
            return cv_float(L, -max);
        if (!strcmp(attr, "tiny") || !strcmp(attr, "smallest_normal"))
            return cv_float(L, tiny);
        if (!strcmp(attr, "eps"))
            return cv_float(L, eps);
        if (!strcmp(attr, "resolution"))
            return cv_float(L, resolution);
    } else {
        bool is_signed = dtype_is_signed(d);
        if (!strcmp(attr, "max")) {
            if (d == DT_I1)
                return cv_int(L, 1);
            if (!is_signed && bits == 64)
                lower_error(L, loc, "torch.iinfo(torch.uint64).max does not fit in a 64-bit signed constant");
            return cv_int(L, is_signed ? (int64_t)((UINT64_C(1) << (bits - 1)) - 1) : (int64_t)((UINT64_C(1) << bits) - 1));
        }
        if (!strcmp(attr, "min"))
            return cv_int(L, is_signed ? -(int64_t)(UINT64_C(1) << (bits - 1)) : 0);
    }
    lower_error(L, loc, "torch.%s has no attribute '%s' in tilec (it knows %s)", fi ? "finfo" : "iinfo", attr,
                fi ? "min, max, eps, tiny, smallest_normal, resolution, bits" : "min, max, bits");
}

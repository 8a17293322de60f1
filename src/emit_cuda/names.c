/*
 * names.c — C names for values, the C types of declarations, and literals.
 *
 * Every name the emitter prints comes from unique_name: a source variable's
 * name where there is one, else a role ("loaded", "cond"), cleaned into a C
 * identifier and suffixed (_2, _3 ...) away from names already taken and from
 * the words the generated CUDA reserves.
 */
#include "emit_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const reserved[] = {
    "auto", "bool", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
    "volatile", "while", "class", "delete", "new", "namespace", "operator", "private", "protected",
    "public", "template", "this", "throw", "try", "catch", "typename", "using", "virtual", "true",
    "false", "nullptr", "asm", "friend", "mutable", "explicit", "export", "constexpr", "decltype",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "tilec", "e", "tid", "lane", "warp",
    "min", "max", "abs", "exp", "log", "sqrt", "dim3", "grid", "stream", "main", "not", "and", "or",
    "xor", "std", "printf", "assert", "kk", "ww", "lane_bit", "partial", "partial_i", "buf", "other", "other_i", "carry", "smem", "old", "part", "before", "total", "incl", "prev", "sum", "rr", "s", "v", "same", "j",
    "ks", "mi", "ni", "np", "qi", /* tl.dot: K steps, 16x8 tiles, ldmatrix groups */
};

static bool name_taken(Emitter *E, const char *s)
{
    for (size_t i = 0; i < ARRAY_LEN(reserved); i++)
        if (!strcmp(reserved[i], s))
            return true;
    if (s[0] == 'L' && s[1] >= '0' && s[1] <= '9')
        return true;
    return strmap_find(&E->names, s) != NULL;
}

const char *unique_name(Emitter *E, const char *base)
{
    char *clean = arena_alloc(E->a, strlen(base) + 3); /* room for a "v_" prefix */
    size_t n = 0;
    for (const char *p = base; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (n && c >= '0' && c <= '9');
        clean[n++] = ok ? c : '_';
    }
    clean[n] = 0;
    if (!n)
        strcpy(clean, "v");
    else if (clean[0] == 'L' && clean[1] >= '0' && clean[1] <= '9') {
        /* L0, L1_rows, ... name layouts; a source variable called so becomes v_L0 (every
         * suffixed form would start with L<digit> too, and be taken) */
        memmove(clean + 2, clean, n + 1);
        memcpy(clean, "v_", 2);
    }
    const char *name = clean;
    if (name_taken(E, name)) {
        /* x, x_2, x_3, ...: each base remembers where its suffixes stopped, so a kernel
         * unrolled into thousands of values named alike still names them in linear time */
        int *next = strmap_find(&E->next_suffix, clean);
        int k = next ? *next : 2;
        for (;; k++) {
            name = fmt(E, "%s_%d", clean, k);
            if (!name_taken(E, name))
                break;
        }
        if (next)
            *next = k + 1;
        else
            strmap_put(E->a, &E->next_suffix, clean, k + 1);
    }
    strmap_put(E->a, &E->names, name, 0);
    return name;
}

static const char *role_name(const Op *op)
{
    switch (op->kind) {
    case OP_LOAD: return "loaded";
    case OP_MAKE_RANGE: return "range";
    case OP_CMP: return "cond";
    case OP_ADDPTR: return "ptrs";
    case OP_PROGRAM_ID: return "pid";
    case OP_NUM_PROGRAMS: return "nprog";
    case OP_CAST: return "cvt";
    case OP_SELECT: return "sel";
    case OP_MATH:
    case OP_MATH2: return "fn";
    default: return "tmp";
    }
}

const char *vname(Emitter *E, const Value *v)
{
    ValInfo *vi = info(E, v);
    if (!vi->name)
        vi->name = unique_name(E, v->name ? v->name : v->def ? role_name(v->def) : "arg");
    return vi->name;
}

const char *ctype(Emitter *E, Type t)
{
    if (t.dtype == DT_PTR)
        return fmt(E, "%s *", dtype_memory_ctype(t.pointee));
    return dtype_ctype(t.dtype);
}

/* "const T name" or "T *const name" */
const char *const_decl(Emitter *E, Type t, const char *name)
{
    if (t.dtype == DT_PTR)
        return fmt(E, "%s *const %s", dtype_memory_ctype(t.pointee), name);
    return fmt(E, "const %s %s", dtype_ctype(t.dtype), name);
}

/* "T name[N]" or "T *name[N]" */
const char *decl(Emitter *E, Type t, const char *name, int n)
{
    const char *ct = ctype(E, t);
    size_t len = strlen(ct);
    const char *sep = (len && ct[len - 1] == '*') ? "" : " ";
    if (n)
        return fmt(E, "%s%s%s[%d]", ct, sep, name, n);
    return fmt(E, "%s%s%s", ct, sep, name);
}

const char *float_literal(Emitter *E, double x, DType d)
{
    if (dtype_is_fp8(d)) { /* lowering makes no fp8 constant but +0 and -0 */
        if (x != 0)
            BUG("fp8 literal %g", x);
        return fmt(E, "tilec::%s_bits(%s)", d == DT_FP8E4NV ? "e4m3" : "e5m2", signbit(x) ? "0x80" : "0x00");
    }
    if (isnan(x) || isinf(x)) {
        const char *f32 = isnan(x) ? "__int_as_float(0x7fc00000)" : x > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
        switch (d) {
        case DT_FP64:
            return isnan(x) ? "__longlong_as_double(0x7ff8000000000000ll)"
                   : x > 0  ? "__longlong_as_double(0x7ff0000000000000ll)"
                            : "__longlong_as_double(0xfff0000000000000ll)";
        case DT_FP16: return fmt(E, "__float2half(%s)", f32);
        case DT_BF16: return fmt(E, "__float2bfloat16(%s)", f32);
        default: return f32;
        }
    }
    char buf[64];
    if (d == DT_FP32)
        snprintf(buf, sizeof buf, "%.9g", (double)(float)x);
    else
        snprintf(buf, sizeof buf, "%.17g", x);
    if (!strpbrk(buf, ".en"))
        strcat(buf, ".0");
    switch (d) {
    case DT_FP32: return fmt(E, "%sf", buf);
    case DT_FP64: return fmt(E, "%s", buf);
    case DT_FP16: return fmt(E, "__double2half(%s)", buf);
    case DT_BF16: return fmt(E, "__double2bfloat16(%s)", buf);
    default: return fmt(E, "%s", buf);
    }
}

const char *int_literal(Emitter *E, int64_t v, DType d)
{
    switch (d) {
    case DT_I1: return v ? "true" : "false";
    case DT_I64:
        if (v == INT64_MIN)
            return "(-9223372036854775807ll - 1)";
        return fmt(E, "%lldll", (long long)v);
    case DT_U64: return fmt(E, "%lluull", (unsigned long long)v);
    case DT_U32: return fmt(E, "%uu", (unsigned)v);
    case DT_I32:
        if (v == INT32_MIN)
            return "(-2147483647 - 1)";
        return fmt(E, "%lld", (long long)v);
    default: return fmt(E, "(%s)%lld", dtype_ctype(d), (long long)v);
    }
}

const char *zero_of(Emitter *E, DType d)
{
    return dtype_is_float(d) ? float_literal(E, 0.0, d) : int_literal(E, 0, d);
}

/* The name of the file loc is in (an imported helper's, or the kernel's) without its
 * folders, as C comment text. */
const char *source_file_name(Emitter *E, Loc loc)
{
    const char *path = loc.src ? loc.src->path : E->ctx->src->path, *slash = strrchr(path, '/');
    return comment_escape(E->a, slash ? slash + 1 : path);
}

const char *shape_note(Emitter *E, const Value *v)
{
    if (!v->type.rank)
        return "";
    StrBuf t = {0};
    for (int d = 0; d < v->type.rank; d++)
        sb_printf(&t, "%s%d", d ? "x" : "", v->type.shape[d]);
    const char *r = fmt(E, "  // [%s] %s, L%d", t.data, dtype_name(v->type.dtype == DT_PTR ? v->type.pointee : v->type.dtype),
                        v->layout ? v->layout->id : -1);
    sb_free(&t);
    return r;
}

/* The kernel's and its runtime parameters' names are C names in the .cu (the kernel, NAME_launch
 * and its arguments) as they are (in_c): refused where C cannot take them. */
void check_c_name(Emitter *E, const char *nm, const char *what, bool in_c)
{
    for (const char *p = nm; *p && in_c; p++)
        if ((unsigned char)*p >= 0x80)
            diag_error(E->ctx, E->f->loc, "%s '%s' is not ASCII, and nvcc takes only ASCII names for kernels and "
                                          "their parameters; please rename it", what, nm);
    for (size_t k = 0; k < ARRAY_LEN(reserved); k++)
        if (!strcmp(reserved[k], nm))
            diag_error(E->ctx, E->f->loc, "%s '%s' is reserved in the generated CUDA; please rename it", what, nm);
}

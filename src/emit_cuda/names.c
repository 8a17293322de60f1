/*
 * names.c — C names for values, the C types of declarations, and literals.
 *
 * Every name the emitter prints comes from unique_name: a source variable's
 * name where there is one, else a role ("loaded", "cond"), cleaned into a C
 * identifier and suffixed (_2, _3 ...) away from names already taken and from
 * the words the generated CUDA reserves.  Parameters are named before that, by
 * cuda_name_params: '_' added to a reserved name, so that no valid Python name
 * is refused and none shadows what the generated code uses.
 */
#include "emit_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Words a name in the generated file must not be: C and C++ keywords, CUDA's
 * built-in variables and types, the functions the kernel calls unqualified, and
 * the file's types.  Besides these: anything starting with "__" or
 * "tilec" (intrinsics, the helpers' namespace), layout names (L0, L1_row) and
 * the file's own helpers (stage0, cvt2_at, atom_*, mma_*). */
static const char *const c_words[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
    "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield",
    "compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit", "continue",
    "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit",
    "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
    "private", "protected", "public", "register", "reinterpret_cast", "requires", "restrict", "return",
    "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch",
    "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
    "main", "std", "defined", "NULL",
    /* CUDA and the types the file names */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "half", "half2", "nv_bfloat16",
    "nv_bfloat162", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
    "uint64_t", "uintptr_t", "size_t", "cudaStream_t", "cudaError_t", "cudaSuccess",
    "cudaErrorInvalidValue", "cudaGetLastError", "cudaFuncSetAttribute",
    "cudaFuncAttributeMaxDynamicSharedMemorySize", "CUresult", "CUstream", "CUdeviceptr",
    "cuLaunchKernel", "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_NOT_INITIALIZED",
    /* functions called unqualified (math: see also math_c_name) */
    "printf", "assert", "min", "max", "abs", "fabs", "fabsf", "fmax", "fmaxf", "fmin", "fminf", "fma",
    "fmaf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log", "logf", "log2", "log2f", "log1p",
    "log1pf", "sqrt", "sqrtf", "rsqrt", "rsqrtf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "tanh",
    "tanhf", "erf", "erff", "floor", "floorf", "ceil", "ceilf", "asin", "asinf", "acos", "acosf", "atan",
    "atanf", "sinh", "sinhf", "cosh", "coshf", "trunc", "truncf", "round", "roundf", "rint", "rintf",
    "cbrt", "cbrtf", "isnan", "isinf", "signbit", "pow", "powf", "atan2", "atan2f", "fmod", "fmodf",
    "hypot", "hypotf", "copysign", "copysignf",
};

/* The launchers' own names (m and args: the embedded-binary one's). */
static const char *const launcher_words[] = {
    "stream", "grid", "grid_x", "grid_y", "grid_z", "gx", "gy", "gz", "ok", "attr", "m", "args", "tma_status",
};

/* The emitter's own names inside the kernel: element and loop counters, the
 * thread's coordinates, shared memory, and the locals of reductions, scans
 * and tl.dot's loops (K steps, 16x8 tiles, ldmatrix groups). */
static const char *const kernel_words[] = {
    "e", "j", "s", "v", "tid", "lane", "warp", "smem", "buf", "kk", "ww", "rr", "lane_bit", "partial",
    "partial_i", "other", "other_i", "carry", "old", "part", "before", "rep_total", "incl", "prev",
    "running", "same", "k_step", "mi", "ni", "np", "qi", "ahead", "has_before", "take",
};

/* The same locals of a combine over tuples, one per element of the tuple: other0, other1 ... */
static const char *const combine_words[] = {
    "other", "partial", "before", "rep_total", "incl", "prev", "running", "ahead",
};

static bool in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], s))
            return true;
    return false;
}

/* s is prefix, digits, suffix: stage0, cvt2_at */
static bool numbered(const char *s, const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) || !(s[n] >= '0' && s[n] <= '9'))
        return false;
    for (s += n; *s >= '0' && *s <= '9'; s++)
        ;
    return !strcmp(s, suffix);
}

/* Does s start as names of C, CUDA or the generated file do (__builtin, tilec::, atom_add,
 * mma_m16n8k16, the layouts L0, L1_row)?  No suffix frees such a name. */
static bool reserved_prefix(const char *s)
{
    return !strncmp(s, "__", 2) || !strncmp(s, "tilec", 5) || !strncmp(s, "atom_", 5) || !strncmp(s, "mma_", 4) ||
           (s[0] == 'L' && s[1] >= '0' && s[1] <= '9');
}

/* s, or where it starts with a reserved prefix "v_" and s without its leading underscores
 * (__x -> v_x, tilec_t -> v_tilec_t, L0 -> v_L0): a base that suffixes can then free. */
static const char *free_prefix(Arena *a, const char *s)
{
    if (!reserved_prefix(s))
        return s;
    while (*s == '_')
        s++;
    return arena_printf(a, *s ? "v_%s" : "v", s);
}

/* A name C, CUDA or the generated file has already at file scope. */
static bool c_word(const char *s)
{
    if (reserved_prefix(s))
        return true;
    if (numbered(s, "stage", "") || numbered(s, "cvt", "_at"))
        return true;
    return in_list(c_words, ARRAY_LEN(c_words), s);
}

/* A name no value in the kernel may take: a C word or one of the emitter's own. */
static bool reserved(const char *s)
{
    for (size_t i = 0; i < ARRAY_LEN(combine_words); i++)
        if (numbered(s, combine_words[i], ""))
            return true;
    return c_word(s) || in_list(kernel_words, ARRAY_LEN(kernel_words), s);
}

static bool launcher_word(const char *s) { return in_list(launcher_words, ARRAY_LEN(launcher_words), s); }

static bool name_taken(Emitter *E, const char *s)
{
    return reserved(s) || strmap_find(&E->names, s) != NULL;
}

void names_enter(Emitter *E, NameScope *saved)
{
    *saved = (NameScope){E->names, E->next_suffix};
    E->names = (StrMap){0};
    E->next_suffix = (StrMap){0};
}

void names_leave(Emitter *E, const NameScope *saved)
{
    E->names = saved->names;
    E->next_suffix = saved->suffix;
}

const char *unique_name(Emitter *E, const char *base)
{
    char *clean = arena_alloc(E->a, strlen(base) + 2); /* room for "v" */
    size_t n = 0;
    for (const char *p = base; *p; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (n && c >= '0' && c <= '9');
        clean[n++] = ok ? c : '_';
    }
    clean[n] = 0;
    if (!n)
        strcpy(clean, "v");
    /* every suffixed form of __t, tilec_x or L0 (a layout's name) would keep the prefix, and be
     * taken: such a name becomes v_t, v_tilec_x, v_L0 */
    const char *stem = free_prefix(E->a, clean);
    const char *name = stem;
    if (name_taken(E, name)) {
        /* x, x_2, x_3, ...: each base remembers where its suffixes stopped, so a kernel
         * unrolled into thousands of values named alike still names them in linear time */
        int *next = strmap_find(&E->next_suffix, stem);
        int k = next ? *next : 2;
        for (;; k++) {
            name = fmt(E, "%s_%d", stem, k);
            if (!name_taken(E, name))
                break;
        }
        if (next)
            *next = k + 1;
        else
            strmap_put(E->a, &E->next_suffix, stem, k + 1);
    }
    strmap_put(E->a, &E->names, name, 0);
    return name;
}

/* The source name a result of a tuple tl.reduce comes to bear when it is not its own:
 * keep_dims expands it first (mean, m2, count = tl.reduce(..., keep_dims=True); a scalar
 * becomes a 1-element tile by a splat), and
 * axis=None reduces it again along the next axis.  NULL when it reaches no name. */
static const char *combine_target(Emitter *E, const Value *v)
{
    while (!v->name) {
        const Op *u = info(E, v)->user;
        if (v->nuses != 1 || !u)
            return NULL;
        int k = 0;
        if (u->kind == OP_REDUCE && u->reduce.kind == RED_COMBINE)
            while (u->args[k] != v)
                k++;
        else if (u->kind != OP_EXPAND_DIMS && u->kind != OP_SPLAT && u->kind != OP_CONVERT)
            return NULL;
        v = u->results[k];
    }
    return v->name;
}

/* A reduction's result by kind and axis: row_max (along a row of a 2-D tile), col_sum,
 * or for a whole 1-D tile total, maximum ... (never a C name such as max).  The results
 * of a tuple tl.reduce take their tuple targets' names the same way (row_mean, row_m2),
 * not one role for all of them. */
static const char *reduce_role(Emitter *E, const Value *v)
{
    static const char *const whole[] = {[RED_SUM] = "total", [RED_MAX] = "maximum", [RED_MIN] = "minimum",
                                        [RED_XOR] = "xor_total", [RED_ARGMAX] = "argmax", [RED_ARGMIN] = "argmin",
                                        [RED_COMBINE] = "reduced"};
    static const char *const part[] = {[RED_SUM] = "sum", [RED_MAX] = "max", [RED_MIN] = "min",
                                       [RED_XOR] = "xor", [RED_ARGMAX] = "argmax", [RED_ARGMIN] = "argmin",
                                       [RED_COMBINE] = "reduced"};
    const Op *op = v->def;
    ReduceKind k = op->reduce.kind;
    int rank = op->args[0]->type.rank, axis = op->reduce.axis;
    const char *target = k == RED_COMBINE && op->nres > 1 ? combine_target(E, v) : NULL;
    if (target) {
        if (rank == 2)
            return fmt(E, "%s_%s", axis == 1 ? "row" : "col", target);
        return rank > 2 ? fmt(E, "dim%d_%s", axis, target) : fmt(E, "all_%s", target);
    }
    if (rank == 2)
        return fmt(E, "%s_%s", axis == 1 ? "row" : "col", part[k]);
    if (rank > 2)
        return fmt(E, "%s_%d", part[k], axis);
    return whole[k];
}

/* "a_frag" or "b_frag" for an operand of tl.dot, else NULL. */
static const char *dot_operand(Emitter *E, const Value *v)
{
    const Op *u = info(E, v)->user;
    if (!u || u->kind != OP_DOT || v->nuses != 1)
        return NULL;
    return u->args[0] == v ? "a_frag" : u->args[1] == v ? "b_frag" : NULL;
}

static const char *role_name(Emitter *E, const Value *v);

/* A math function's result: the function and what it is of ("exp_x", "sqrt_var",
 * "exp_diff" for exp(a - b)), or the function alone where that would be long. */
static const char *math_role(Emitter *E, const Value *v)
{
    const Op *op = v->def;
    const char *fn = op->kind == OP_MATH ? math_fn_name(op->math.fn) : math2_fn_name(op->math2.fn);
    const char *dot = strrchr(fn, '.');
    if (dot)
        fn = dot + 1; /* libdevice.exp */
    const Value *src = op->args[0];
    const char *of = src->name ? src->name : src->def ? role_name(E, src) : NULL;
    return of && strlen(of) <= 12 ? fmt(E, "%s_%s", fn, of) : fmt(E, "%s_val", fn);
}

/* The name of a value the source did not name: its role, from the op that makes it. */
static const char *role_name(Emitter *E, const Value *v)
{
    const Op *op = v->def;
    const Value *src = op->nargs ? op->args[0] : NULL;
    switch (op->kind) {
    case OP_LOAD: return "loaded";
    case OP_MAKE_RANGE: return "range";
    case OP_CMP: return "cond";
    case OP_ADDPTR: return "ptrs";
    case OP_PROGRAM_ID: return "pid";
    case OP_NUM_PROGRAMS: return "nprog";
    case OP_CAST:
        return src->name ? fmt(E, "%s_%s", src->name, dtype_name(v->type.dtype)) : fmt(E, "as_%s", dtype_name(v->type.dtype));
    case OP_BITCAST: return src->name ? fmt(E, "%s_bits", src->name) : "bits";
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_TRANS:
    case OP_CONVERT:
        if (dot_operand(E, v))
            return src->name ? fmt(E, "%s_frag", src->name) : dot_operand(E, v);
        return src->name ? src->name : src->def ? role_name(E, src) : "tile";
    case OP_RESHAPE:
    case OP_FLIP: return src->name ? src->name : src->def ? role_name(E, src) : "tile";
    case OP_JOIN: return "joined";
    case OP_GATHER: return "gathered";
    case OP_SPLIT: return src->name ? fmt(E, "%s_%d", src->name, v->def->split.half) : "half";
    case OP_SELECT: return "sel";
    case OP_MATH:
    case OP_MATH2: return math_role(E, v);
    case OP_ADD: return "sum";
    case OP_SUB: return "diff";
    case OP_MUL: return "prod";
    case OP_DIV: return "quot";
    case OP_REM: return "rem";
    case OP_AND: return v->type.dtype == DT_I1 ? "both" : "masked";
    case OP_OR: return v->type.dtype == DT_I1 ? "either" : "merged";
    case OP_XOR: return "mixed";
    case OP_SHL:
    case OP_SHR: return "shifted";
    case OP_MAX: return "larger";
    case OP_MIN: return "smaller";
    case OP_UMULHI: return "hi";
    case OP_NEG: return "negated";
    case OP_NOT: return "inverted";
    case OP_FMA: return "muladd";
    case OP_REDUCE: return reduce_role(E, v);
    case OP_SCAN: return op->scan.kind == SCAN_SUM ? "cumsum" : op->scan.kind == SCAN_PROD ? "cumprod" : "scanned";
    case OP_DOT: return "dot";
    case OP_SORT: return "sorted";
    case OP_INLINE_ASM: return "asm_out";
    case OP_MAP: return fmt(E, "%s_out", op->map.fn);
    case OP_HISTOGRAM: return "hist";
    case OP_LOCAL_LOAD: return dot_operand(E, v) ? dot_operand(E, v) : "a_frag";
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: return "fetched";
    default: return op_name(op->kind);
    }
}

/* Python's throwaway names (`_`, `__`): every suffixed form would start with "__", which
 * C reserves, so a second value so named is named by its role instead. */
static bool discarded(const char *name)
{
    return name && strspn(name, "_") == strlen(name);
}

const char *vname(Emitter *E, const Value *v)
{
    ValInfo *vi = info(E, v);
    if (!vi->name) {
        const char *src = discarded(v->name) && name_taken(E, v->name) ? NULL : v->name;
        vi->name = unique_name(E, src ? src : v->def ? role_name(E, v) : "arg");
    }
    return vi->name;
}

const char *ctype(Emitter *E, Type t)
{
    if (t.dtype == DT_PTR)
        return fmt(E, t.pointee == DT_PTR ? "%s*" : "%s *", type_pointee_ctype(E->a, t));
    return dtype_ctype(t.dtype);
}

/* "const T name" or "T *const name" */
const char *const_decl(Emitter *E, Type t, const char *name)
{
    if (t.dtype == DT_PTR)
        return fmt(E, "%sconst %s", ctype(E, t), name);
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
    const char *buf = d == DT_FP32 ? fmt(E, "%.9g", (double)(float)x) : fmt(E, "%.17g", x);
    if (!strpbrk(buf, ".en"))
        buf = fmt(E, "%s.0", buf);
    if (d == DT_FP32)
        return fmt(E, "%sf", buf);
    /* a value that fp32 holds exactly rounds to 16 bits the same from fp32 as from fp64,
     * and reads as the float literal a person would write */
    bool exact32 = (double)(float)x == x;
    switch (d) {
    case DT_FP16: return exact32 ? fmt(E, "__float2half(%s)", float_literal(E, x, DT_FP32)) : fmt(E, "__double2half(%s)", buf);
    case DT_BF16:
        return exact32 ? fmt(E, "__float2bfloat16(%s)", float_literal(E, x, DT_FP32)) : fmt(E, "__double2bfloat16(%s)", buf);
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

/* The kernel's name is its symbol in the .cu (NAME and NAME_launch), so it is taken as it is:
 * refused where C cannot take it. */
void check_kernel_name(Emitter *E, const char *nm)
{
    for (const char *p = nm; *p; p++)
        if ((unsigned char)*p >= 0x80)
            diag_error(E->ctx, E->f->loc, "kernel name '%s' is not ASCII, and nvcc takes only ASCII names for kernels and "
                                          "their parameters; please rename it", nm);
    if (c_word(nm) || launcher_word(nm))
        diag_error(E->ctx, E->f->loc, "kernel name '%s' is reserved in the generated CUDA; please rename it", nm);
}

/* Each runtime parameter's name in the generated C: the source's, with '_' added while
 * it is reserved (a C keyword, a CUDA built-in, one of the emitter's or the launchers'
 * names) or another parameter's.  Parameter names are the source's in every file tilec
 * writes (kernel, launcher, --header, --embed-cubin), so one rule serves them all. */
void cuda_name_params(Ctx *ctx, TirFunc *f)
{
    for (int i = 0; i < f->params.len; i++) {
        KernelParam *kp = &f->params.data[i];
        if (!kp->value) {
            kp->c_name = kp->name;
            continue;
        }
        for (const char *p = kp->name; *p; p++)
            if ((unsigned char)*p >= 0x80)
                diag_error(ctx, f->loc, "parameter name '%s' is not ASCII, and nvcc takes only ASCII names for kernels "
                                        "and their parameters; please rename it", kp->name);
        const char *name = free_prefix(&ctx->arena, kp->name);
        for (bool clash = true; clash;) {
            clash = reserved(name) || launcher_word(name);
            for (int k = 0; k < f->params.len && !clash; k++)
                clash = k != i && f->params.data[k].value &&
                        (!strcmp(f->params.data[k].name, name) || (k < i && !strcmp(f->params.data[k].c_name, name)));
            if (clash)
                name = arena_printf(&ctx->arena, "%s_", name);
        }
        kp->c_name = name;
    }
}

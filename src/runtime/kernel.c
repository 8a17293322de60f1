/* kernel.c — kernels: metadata and binary copied from a translation, modules loaded per
 * CUDA context on first use, launch arguments checked and converted, the grid computed
 * from the --grid expression. */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

typedef struct Loaded {
    void *cuctx, *module, *func;
} Loaded;

struct tilec_kernel {
    tilec_context *ctx;
    Arena arena;              /* metadata */
    tilec_kernel_info info;
    GridProg grid;
    int *arg_param;           /* runtime argument i is info.params[arg_param[i]] */
    const char **arg_name;    /* and its name, for the grid's messages */
    RtTmaMap *tma;            /* tensor maps made at launch, passed after the arguments */
    int ntma;
    tilec_binary_kind kind;
    char *image;              /* the cubin or PTX, NUL-terminated */
    size_t image_size;
    int arch;
    Loaded *loaded;           /* one module per CUDA context it ran in */
    int nloaded, cap, last;
    unsigned threads;         /* a launch's block: info.threads_per_block, or the consumer warps
                                 alone where the image has no producer warpgroup (set at load) */
    struct Specializer *spec; /* tilec_translate_options.specialize: the variants */
};

/* One specialisation of a kernel that specialises at launch. */
typedef struct Variant {
    unsigned char *key;       /* a SPEC_* state per candidate argument */
    const char *signature;    /* the entries added to the given signature: "n=1, x_ptr=*fp32:16" */
    tilec_kernel *k;
    int *from;                /* its runtime argument j is the launch's argument from[j] */
} Variant;

enum { SPEC_NONE, SPEC_ONE, SPEC_DIV16 };

/* What a kernel made with tilec_translate_options.specialize needs to translate its
 * variants: the source and options (copied into the kernel's arena), the runtime arguments
 * it looks at, and the variants made so far (the first is the kernel itself, as written). */
typedef struct Specializer {
    const char *source;
    size_t source_size;
    tilec_translate_options topt;
    tilec_compile_options copt;
    int *cand;                /* runtime argument indices with a nonzero tilec_param.specialize */
    int ncand;
    Variant *v;
    int nv, cap, last;
} Specializer;

#define MAX_ARGS 256

/* ---- making kernels ------------------------------------------------------------------- */

static const char *dup(Arena *a, const char *s) { return s ? arena_strdup(a, s) : NULL; }

static void copy_info(tilec_kernel *k, const Translation *t)
{
    Arena *a = &k->arena;
    const tilec_kernel_info *src = &t->pub.info;
    k->info = *src;
    k->info.name = dup(a, src->name);
    k->info.grid = dup(a, src->grid);
    tilec_param *ps = NEW_ARRAY(a, tilec_param, src->num_params + 1);
    for (int i = 0; i < src->num_params; i++) {
        ps[i] = src->params[i];
        ps[i].name = dup(a, ps[i].name);
        ps[i].type = dup(a, ps[i].type);
        ps[i].value = dup(a, ps[i].value);
    }
    k->info.params = ps;
    k->arg_param = NEW_ARRAY(a, int, src->num_args + 1);
    memcpy(k->arg_param, t->arg_param, sizeof(int) * (size_t)src->num_args);
    k->arg_name = NEW_ARRAY(a, const char *, src->num_args + 1);
    for (int i = 0; i < src->num_args; i++)
        k->arg_name[i] = ps[k->arg_param[i]].name;
    k->ntma = t->ntma;
    k->tma = NEW_ARRAY(a, RtTmaMap, t->ntma + 1);
    if (t->ntma)
        memcpy(k->tma, t->tma, sizeof(RtTmaMap) * (size_t)t->ntma);
    k->grid = t->grid;
    for (int d = 0; d < 3; d++) {
        k->grid.ops[d] = NEW_ARRAY(a, GridOp, t->grid.nops[d] + 1);
        if (t->grid.nops[d])
            memcpy(k->grid.ops[d], t->grid.ops[d], sizeof(GridOp) * (size_t)t->grid.nops[d]);
    }
}

tilec_status tilec_kernel_load(tilec_context *ctx, const tilec_translation *t, const tilec_binary *bin,
                               tilec_kernel **out)
{
    if (!ctx)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (!t || !bin || !out || !bin->data)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_load: a NULL argument");
    *out = NULL;
    if (t->status != TILEC_OK || !t->info.name)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT,
                       "tilec_kernel_load needs a successful translation to CUDA (this one has no kernel)");
    if (t->info.num_args + ((const Translation *)t)->ntma > MAX_ARGS)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "kernel %s has more than %d arguments", t->info.name, MAX_ARGS);
    tilec_kernel *k = calloc(1, sizeof *k);
    char *image = malloc(bin->size + 1);
    if (!k || !image) {
        free(k);
        free(image);
        return rt_fail(ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(image, bin->data, bin->size);
    image[bin->size] = 0;
    k->ctx = ctx;
    k->image = image;
    k->image_size = bin->size;
    k->kind = bin->kind;
    k->arch = bin->arch;
    copy_info(k, (const Translation *)t);
    *out = k;
    return rt_ok(ctx);
}

void tilec_kernel_destroy(tilec_kernel *k)
{
    if (!k)
        return;
    if (k->spec) {
        for (int i = 1; i < k->spec->nv; i++)
            tilec_kernel_destroy(k->spec->v[i].k);
        free(k->spec->v);
    }
    RtCuda *cu = &k->ctx->cu;
    for (int i = 0; i < k->nloaded; i++)
        if (cu->ModuleUnload)
            cu->ModuleUnload(k->loaded[i].module); /* fails harmlessly if its context is gone */
    free(k->loaded);
    free(k->image);
    arena_free(&k->arena);
    free(k);
}

const tilec_kernel_info *tilec_kernel_get_info(const tilec_kernel *k) { return k ? &k->info : NULL; }

/* The function in the current CUDA context, loading the module there the first time. */
static tilec_status function_here(tilec_kernel *k, void **func)
{
    tilec_context *ctx = k->ctx;
    void *cur;
    tilec_status s = rt_cuda_current(ctx, &cur);
    if (s)
        return s;
    if (k->nloaded && k->loaded[k->last].cuctx == cur) {
        *func = k->loaded[k->last].func;
        return TILEC_OK;
    }
    for (int i = 0; i < k->nloaded; i++) {
        if (k->loaded[i].cuctx == cur) {
            k->last = i;
            *func = k->loaded[i].func;
            return TILEC_OK;
        }
    }
    RtCuda *cu = &ctx->cu;
    Loaded l = {cur, NULL, NULL};
    int rc = cu->ModuleLoadData(&l.module, k->image);
    if (rc) {
        rt_cuda_fail(ctx, rc, "cuModuleLoadData");
        char *why = rt_strdup(tilec_context_error(ctx)); /* rt_fail rewrites the buffer */
        tilec_status s2 = rt_fail(ctx, rc == 209 ? TILEC_ERROR_COMPILE : TILEC_ERROR_DRIVER,
                                  "%s (kernel %s, %s for %s_%d)", why ? why : "cuModuleLoadData failed", k->info.name,
                                  k->kind == TILEC_BINARY_CUBIN ? "a cubin" : "PTX",
                                  k->kind == TILEC_BINARY_CUBIN ? "sm" : "compute", k->arch);
        free(why);
        return s2;
    }
    if ((rc = cu->ModuleGetFunction(&l.func, l.module, k->info.name))) {
        cu->ModuleUnload(l.module);
        return rt_cuda_fail(ctx, rc, "cuModuleGetFunction");
    }
    if (k->info.dynamic_shared &&
        (rc = cu->FuncSetAttribute(l.func, CU_FATTR_MAX_DYN_SHARED, k->info.shared_bytes))) {
        cu->ModuleUnload(l.module);
        return rt_cuda_fail(ctx, rc, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }
    /* a warp-specialised kernel has its producer warpgroup only in sm_90a images, whose
     * launch bound admits it; other images take the consumer warps alone */
    k->threads = (unsigned)k->info.threads_per_block;
    if (k->info.threads_per_block != 32 * k->info.num_warps) {
        int most = 0;
        if ((rc = cu->FuncGetAttribute(&most, CU_FATTR_MAX_THREADS, l.func))) {
            cu->ModuleUnload(l.module);
            return rt_cuda_fail(ctx, rc, "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
        }
        if (most < k->info.threads_per_block)
            k->threads = (unsigned)(32 * k->info.num_warps);
    }
    if (k->nloaded == k->cap) {
        int ncap = k->cap ? 2 * k->cap : 2;
        Loaded *p = realloc(k->loaded, sizeof *p * (size_t)ncap);
        if (!p) {
            cu->ModuleUnload(l.module);
            return rt_fail(ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        k->loaded = p;
        k->cap = ncap;
    }
    k->last = k->nloaded;
    k->loaded[k->nloaded++] = l;
    *func = l.func;
    return TILEC_OK;
}

/* ---- specialisation at launch ---------------------------------------------------------- */

static tilec_status kernel_create(tilec_context *ctx, const char *source, const tilec_translate_options *topt,
                                  const tilec_compile_options *copt, const char *facts, tilec_kernel **out);

static const char **dup_strings(Arena *a, const char *const *v, int n)
{
    const char **d = NEW_ARRAY(a, const char *, n + 1);
    for (int i = 0; i < n; i++)
        d[i] = dup(a, v[i]);
    return d;
}

/* Keeps what k's variants are translated from, in k's arena. */
static tilec_status make_specializer(tilec_kernel *k, const char *source, const tilec_translate_options *to,
                                     const tilec_compile_options *co)
{
    Arena *a = &k->arena;
    Specializer *sp = NEW(a, Specializer);
    size_t n = to->source_size ? to->source_size : strlen(source);
    sp->source = arena_strndup(a, source, n);
    sp->source_size = n;
    sp->topt = *to;
    tilec_translate_options *t = &sp->topt;
    t->filename = dup(a, to->filename);
    t->kernel = dup(a, to->kernel);
    t->signature = dup(a, to->signature);
    t->grid = dup(a, to->grid);
    t->command = NULL;
    t->value = NULL;
    t->report = NULL;
    t->specialize = 0; /* each variant is translated once, as it is */
    tilec_define *defs = NEW_ARRAY(a, tilec_define, to->num_defines + 1);
    for (int i = 0; i < to->num_defines; i++) {
        defs[i].name = dup(a, to->defines[i].name);
        defs[i].value = dup(a, to->defines[i].value);
    }
    t->defines = defs;
    t->include_dirs = dup_strings(a, to->include_dirs, to->num_include_dirs);
    sp->copt = *co;
    sp->copt.extra_options = dup_strings(a, co->extra_options, co->num_extra_options);
    sp->cand = NEW_ARRAY(a, int, k->info.num_args + 1);
    for (int i = 0; i < k->info.num_args; i++)
        if (k->info.params[k->arg_param[i]].specialize)
            sp->cand[sp->ncand++] = i;
    sp->v = calloc(4, sizeof *sp->v);
    if (!sp->v)
        return rt_fail(k->ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory");
    sp->cap = 4;
    sp->nv = 1;
    sp->v[0].key = NEW_ARRAY(a, unsigned char, sp->ncand + 1); /* all SPEC_NONE */
    sp->v[0].signature = "";
    sp->v[0].k = k;
    k->spec = sp;
    return TILEC_OK;
}

/* The state of each candidate argument, as Triton's launcher keys it (args already checked). */
static void spec_key(const tilec_kernel *k, const tilec_arg *args, unsigned char *key)
{
    const Specializer *sp = k->spec;
    for (int c = 0; c < sp->ncand; c++) {
        const tilec_arg *arg = &args[sp->cand[c]];
        int what = k->info.params[k->arg_param[sp->cand[c]]].specialize;
        unsigned long long v = arg->kind == TILEC_TYPE_POINTER ? arg->v.ptr : arg->kind == TILEC_TYPE_UINT ? arg->v.u
                                                                                             : (unsigned long long)arg->v.i;
        key[c] = (what & TILEC_SPECIALIZE_ONE) && v == 1  ? SPEC_ONE
                 : (what & TILEC_SPECIALIZE_DIV16) && v % 16 == 0 ? SPEC_DIV16
                                                                   : SPEC_NONE;
    }
}

/* Translates, compiles and loads the variant of `key`, and appends it. */
static tilec_status spec_add(tilec_kernel *k, const unsigned char *key, Variant **out)
{
    Specializer *sp = k->spec;
    Arena *a = &k->arena;
    StrBuf sig = {0};
    for (int c = 0; c < sp->ncand; c++) {
        if (key[c] == SPEC_NONE)
            continue;
        const tilec_param *p = &k->info.params[k->arg_param[sp->cand[c]]];
        sb_printf(&sig, "%s%s=%s%s", sig.len ? ", " : "", p->name, key[c] == SPEC_ONE ? "1" : p->type,
                  key[c] == SPEC_DIV16 ? ":16" : "");
    }
    Variant v = {0};
    v.signature = arena_strdup(a, sig.data ? sig.data : "");
    sb_free(&sig);
    v.key = NEW_ARRAY(a, unsigned char, sp->ncand + 1);
    memcpy(v.key, key, (size_t)sp->ncand);
    tilec_translate_options to = sp->topt;
    to.source_size = sp->source_size;
    tilec_status s = kernel_create(k->ctx, sp->source, &to, &sp->copt, v.signature, &v.k);
    if (s) {
        char *why = rt_strdup(tilec_context_error(k->ctx));
        s = rt_fail(k->ctx, s, "%s, specialised at launch with \"%s\": %s", k->info.name, v.signature,
                    why ? why : tilec_status_name(s));
        free(why);
        return s;
    }
    /* the variant's arguments are the launch's less those compiled in as 1 */
    v.from = NEW_ARRAY(a, int, v.k->info.num_args + 1);
    for (int j = 0, i = 0; j < v.k->info.num_args; j++, i++) {
        const char *name = v.k->info.params[v.k->arg_param[j]].name;
        while (i < k->info.num_args && strcmp(k->info.params[k->arg_param[i]].name, name))
            i++;
        if (i == k->info.num_args) {
            tilec_kernel_destroy(v.k);
            return rt_fail(k->ctx, TILEC_ERROR_INPUT, "%s, specialised at launch with \"%s\", takes argument %s, which "
                           "the kernel as written does not", k->info.name, v.signature, name);
        }
        v.from[j] = i;
    }
    if (sp->nv == sp->cap) {
        Variant *p = realloc(sp->v, sizeof *p * (size_t)sp->cap * 2);
        if (!p) {
            tilec_kernel_destroy(v.k);
            return rt_fail(k->ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        sp->v = p;
        sp->cap *= 2;
    }
    sp->v[sp->nv] = v;
    *out = &sp->v[sp->nv++];
    return TILEC_OK;
}

int tilec_kernel_num_variants(const tilec_kernel *k) { return !k ? 0 : k->spec ? k->spec->nv : 1; }

const char *tilec_kernel_variant_signature(const tilec_kernel *k, int i)
{
    if (!k || i < 0 || i >= tilec_kernel_num_variants(k))
        return NULL;
    return k->spec ? k->spec->v[i].signature : "";
}

tilec_status tilec_kernel_create(tilec_context *ctx, const char *source, const tilec_translate_options *topt,
                                 const tilec_compile_options *copt, tilec_kernel **out)
{
    return kernel_create(ctx, source, topt, copt, NULL, out);
}

static tilec_status kernel_create(tilec_context *ctx, const char *source, const tilec_translate_options *topt,
                                  const tilec_compile_options *copt, const char *facts, tilec_kernel **out)
{
    if (!ctx)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (!source || !out)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_create: source and out must not be NULL");
    *out = NULL;
    if (topt && topt->num_variants)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "tilec_kernel_create launches the kernel itself, so it takes "
                       "no variants (they are for the .cu's launcher); set specialize for variants made at launch");
    tilec_compile_options co = copt ? *copt : (tilec_compile_options){0};
    tilec_translate_options to = topt ? *topt : (tilec_translate_options){0};
    tilec_status s;
    if (!co.arch && (s = tilec_device_arch(ctx, &co.arch)))
        return s;
    if (!to.arch)
        to.arch = co.arch == 90 ? 90 : 80;
    to.output = TILEC_OUTPUT_CUDA;
    to.dump = NULL;
    tilec_translation *t;
    s = rt_translate_source(source, &to, facts, &t);
    if (s) {
        s = !t ? rt_fail(ctx, s, "tilec_translate_source: %s", tilec_status_name(s))
               : rt_fail(ctx, s, "%s", *t->diagnostic_text ? t->diagnostic_text : t->error);
        tilec_translation_free(t);
        return s;
    }
    tilec_binary *b;
    s = tilec_compile(ctx, t->code, &co, &b);
    if (!s) {
        s = tilec_kernel_load(ctx, t, b, out);
        tilec_binary_free(b);
    }
    tilec_translation_free(t);
    void *func;
    if (!s && (s = function_here(*out, &func))) {
        tilec_kernel_destroy(*out);
        *out = NULL;
    }
    if (!s && topt && topt->specialize && (s = make_specializer(*out, source, &to, &co))) {
        tilec_kernel_destroy(*out);
        *out = NULL;
    }
    return s;
}

tilec_status tilec_kernel_get_attributes(tilec_kernel *k, tilec_kernel_attributes *out)
{
    if (!k || !out)
        return TILEC_ERROR_INVALID_ARGUMENT;
    void *f;
    tilec_status s = function_here(k, &f);
    if (s)
        return s;
    RtCuda *cu = &k->ctx->cu;
    static const int attrs[] = {CU_FATTR_REGS, CU_FATTR_LOCAL, CU_FATTR_SHARED, CU_FATTR_MAX_THREADS,
                                CU_FATTR_PTX_VERSION, CU_FATTR_BINARY_VERSION};
    int *fields[] = {&out->registers, &out->local_bytes, &out->static_shared_bytes, &out->max_threads_per_block,
                     &out->ptx_version, &out->binary_version};
    for (size_t i = 0; i < ARRAY_LEN(attrs); i++) {
        int rc = cu->FuncGetAttribute(fields[i], attrs[i], f);
        if (rc)
            return rt_cuda_fail(k->ctx, rc, "cuFuncGetAttribute");
    }
    return rt_ok(k->ctx);
}

/* ---- arguments ------------------------------------------------------------------------ */

static const char *kind_word(tilec_type_kind k)
{
    switch (k) {
    case TILEC_TYPE_POINTER: return "a pointer";
    case TILEC_TYPE_INT: return "a signed integer";
    case TILEC_TYPE_UINT: return "an unsigned integer";
    case TILEC_TYPE_FLOAT: return "a float";
    case TILEC_TYPE_BOOL: return "a bool";
    }
    return "?";
}

/* fp32 -> fp16 bits, rounding to nearest even (as __float2half_rn) */
static uint16_t f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
    int exp = (int)((x >> 23) & 0xff);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    exp = exp - 127 + 15;
    if (exp >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000;
        int shift = 14 - exp;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)h;
}

/* fp32 -> bf16 bits, rounding to nearest even */
static uint16_t f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* Converts args[i] into its parameter's bytes in *slot; grid_value gets its integer value. */
static tilec_status convert_arg(tilec_kernel *k, int i, const tilec_arg *arg, uint64_t *slot, long long *grid_value)
{
    const tilec_param *p = &k->info.params[k->arg_param[i]];
    *slot = 0;
    *grid_value = 0;
    if ((unsigned)arg->kind > TILEC_TYPE_BOOL)
        return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: argument %d (%s) has kind %d, not a tilec_type_kind "
                       "(make arguments with tilec_devptr, tilec_int, tilec_uint, tilec_float or tilec_bool)",
                       k->info.name, i + 1, p->name, (int)arg->kind);
    if (p->kind == TILEC_TYPE_POINTER) {
        if (arg->kind != TILEC_TYPE_POINTER)
            goto kind_mismatch;
        *slot = arg->v.ptr;
        return TILEC_OK;
    }
    if (p->kind == TILEC_TYPE_FLOAT) {
        if (arg->kind != TILEC_TYPE_FLOAT)
            goto kind_mismatch;
        if (p->bits == 64) {
            memcpy(slot, &arg->v.f, 8);
        } else {
            float f = (float)arg->v.f;
            if (p->bits == 32)
                memcpy(slot, &f, 4);
            else if (!strcmp(p->type, "fp16"))
                *slot = f32_to_f16(f);
            else if (!strcmp(p->type, "bf16"))
                *slot = f32_to_bf16(f);
            else
                return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: argument %d (%s) is %s; scalars of that type "
                               "cannot be passed yet", k->info.name, i + 1, p->name, p->type);
        }
        return TILEC_OK;
    }
    if (arg->kind == TILEC_TYPE_POINTER || arg->kind == TILEC_TYPE_FLOAT)
        goto kind_mismatch;
    /* integers and bools: the value must fit the parameter's type */
    bool neg = arg->kind != TILEC_TYPE_UINT && arg->v.i < 0;
    unsigned long long mag = arg->kind == TILEC_TYPE_UINT ? arg->v.u : neg ? 0ULL - (unsigned long long)arg->v.i
                                                                           : (unsigned long long)arg->v.i;
    int bits = p->kind == TILEC_TYPE_BOOL ? 1 : p->bits;
    unsigned long long max = p->kind == TILEC_TYPE_INT ? (1ULL << (bits - 1)) - 1 :
                             bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    bool fits = neg ? p->kind == TILEC_TYPE_INT && mag <= max + 1 : mag <= max;
    if (!fits) {
        if (arg->kind == TILEC_TYPE_UINT)
            return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: argument %d (%s) is %s; %llu does not fit",
                           k->info.name, i + 1, p->name, p->type, arg->v.u);
        return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: argument %d (%s) is %s; %lld does not fit",
                       k->info.name, i + 1, p->name, p->type, arg->v.i);
    }
    uint64_t v = arg->kind == TILEC_TYPE_UINT ? arg->v.u : (uint64_t)arg->v.i;
    memcpy(slot, &v, 8); /* little-endian: the low bytes are the parameter's */
    *grid_value = (long long)v;
    return TILEC_OK;

kind_mismatch:
    return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: argument %d (%s) is %s, got %s", k->info.name, i + 1, p->name,
                   p->type, kind_word(arg->kind));
}

#define MAX_TMA 16

int rt_tma_data_type(const RtTmaMap *m) { return m->elem_bytes == 1 ? 0 : m->elem_bytes == 2 ? 1 : 2; }
int rt_tma_swizzle_mode(const RtTmaMap *m) { return m->swizzle == 128 ? 3 : m->swizzle == 64 ? 2 : 1; }

const char *rt_tma_data_type_name(const RtTmaMap *m)
{
    static const char *const names[] = {"CU_TENSOR_MAP_DATA_TYPE_UINT8", "CU_TENSOR_MAP_DATA_TYPE_UINT16",
                                        "CU_TENSOR_MAP_DATA_TYPE_UINT32"};
    return names[rt_tma_data_type(m)];
}

const char *rt_tma_swizzle_name(const RtTmaMap *m)
{
    static const char *const names[] = {"CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B",
                                        "CU_TENSOR_MAP_SWIZZLE_64B", "CU_TENSOR_MAP_SWIZZLE_128B"};
    return names[rt_tma_swizzle_mode(m)];
}

/* The tensor map of m's descriptor (TMA, sm_90a): a row-major 2-D tensor of rows x cols
 * elements, rows `stride` apart, read in box_cols x box_rows boxes into the swizzle that
 * wgmma reads, zeros out of bounds (CUtensorMapEncodeTiled's enums by value: no interleave,
 * 256-byte L2 promotion, no NaN fill; the data type and swizzle from rt_tma_*). */
static tilec_status encode_map(tilec_kernel *k, const RtTmaMap *m, const uint64_t *slots, const long long *values,
                               void *map)
{
    if (!k->ctx->cu.TensorMapEncodeTiled)
        return rt_fail(k->ctx, TILEC_ERROR_DRIVER, "%s copies with TMA, and this CUDA driver has no "
                       "cuTensorMapEncodeTiled (it needs CUDA 12 or newer)", k->info.name);
    long long rows = values[m->base_arg + 1], cols = values[m->base_arg + 2], stride = values[m->base_arg + 3];
    if (rows <= 0 || cols <= 0)
        return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: the tensor of %s is %lld x %lld; a TensorDescriptor's "
                       "shape must be positive", k->info.name, k->info.params[k->arg_param[m->base_arg]].name, rows,
                       cols);
    unsigned long long dims[2] = {(unsigned long long)cols, (unsigned long long)rows};
    unsigned long long strides[1] = {(unsigned long long)stride * (unsigned long long)m->elem_bytes};
    unsigned box[2] = {(unsigned)m->box_cols, (unsigned)m->box_rows}, elem_strides[2] = {1, 1};
    void *base = (void *)(uintptr_t)slots[m->base_arg];
    int rc = k->ctx->cu.TensorMapEncodeTiled(map, rt_tma_data_type(m), 2, base, dims, strides, box, elem_strides, 0,
                                             rt_tma_swizzle_mode(m), 3, 0);
    if (rc)
        return rt_cuda_fail(k->ctx, rc, arena_printf(&k->arena, "cuTensorMapEncodeTiled for %s",
                                                    k->info.params[k->arg_param[m->base_arg]].name));
    return TILEC_OK;
}

static tilec_status wrong_count(tilec_kernel *k, int got)
{
    StrBuf names = {0};
    for (int i = 0; i < k->info.num_args; i++)
        sb_printf(&names, "%s%s", i ? ", " : "", k->info.params[k->arg_param[i]].name);
    tilec_status s = rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s takes %d runtime argument%s (%s), got %d", k->info.name,
                             k->info.num_args, k->info.num_args == 1 ? "" : "s", names.data ? names.data : "none", got);
    sb_free(&names);
    return s;
}

/* The launch's arguments checked and converted into slots (and their integer values). */
static tilec_status convert_args(tilec_kernel *k, const tilec_arg *args, int num_args, uint64_t *slots,
                                 long long *values)
{
    if (num_args != k->info.num_args)
        return wrong_count(k, num_args);
    if (num_args && !args)
        return rt_fail(k->ctx, TILEC_ERROR_INVALID_ARGUMENT, "%s: args is NULL", k->info.name);
    for (int i = 0; i < num_args; i++) {
        tilec_status s = convert_arg(k, i, &args[i], &slots[i], &values[i]);
        if (s)
            return s;
    }
    return TILEC_OK;
}

/* The grid: given, or from k's grid expression; *empty when a dimension is <= 0. */
static tilec_status grid_dims(tilec_kernel *k, const unsigned grid[3], const long long *values, long long dims[3],
                              bool *empty)
{
    StrBuf why = {0}; /* what is wrong with the grid: names a parameter, so any length */
    if (grid) {
        dims[0] = grid[0], dims[1] = grid[1], dims[2] = grid[2];
    } else if (!k->grid.ndims) {
        return rt_fail(k->ctx, TILEC_ERROR_INVALID_ARGUMENT,
                       "%s has no grid expression (translate with options.grid): pass the grid to tilec_launch",
                       k->info.name);
    } else if (!tir_grid_eval(&k->grid, values, k->arg_name, dims, &why)) {
        tilec_status s = rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: grid (%s): %s", k->info.name, k->info.grid,
                                 why.data);
        sb_free(&why);
        return s;
    }
    *empty = dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0;
    if (!*empty && !tir_grid_within_limits(dims, &why)) {
        tilec_status s = rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s: grid (%s): %s", k->info.name,
                                 grid ? "given to tilec_launch" : k->info.grid, why.data);
        sb_free(&why);
        return s;
    }
    return TILEC_OK;
}

static tilec_status run_converted(tilec_kernel *k, void *stream, const long long dims[3], uint64_t *slots,
                                  const long long *values);

/* A kernel that specialises at launch: the arguments checked and converted as the kernel as
 * written takes them, the grid from its expression, then the variant of their key launched
 * (made the first time the key is met) with its arguments picked from them. */
static tilec_status launch_specialised(tilec_kernel *k, void *stream, const unsigned grid[3], const tilec_arg *args,
                                       int num_args)
{
    uint64_t slots[MAX_ARGS];
    long long values[MAX_ARGS], dims[3];
    bool empty;
    tilec_status s = convert_args(k, args, num_args, slots, values);
    if (s || (s = grid_dims(k, grid, values, dims, &empty)) || empty)
        return s ? s : rt_ok(k->ctx);
    Specializer *sp = k->spec;
    unsigned char key[MAX_ARGS];
    spec_key(k, args, key);
    Variant *v = NULL;
    if (!memcmp(sp->v[sp->last].key, key, (size_t)sp->ncand))
        v = &sp->v[sp->last];
    for (int i = 0; !v && i < sp->nv; i++)
        if (!memcmp(sp->v[i].key, key, (size_t)sp->ncand))
            v = &sp->v[i], sp->last = i;
    if (!v) {
        if ((s = spec_add(k, key, &v)))
            return s;
        sp->last = (int)(v - sp->v);
    }
    if (v->k == k)
        return run_converted(k, stream, dims, slots, values);
    uint64_t vslots[MAX_ARGS];
    long long vvalues[MAX_ARGS];
    for (int j = 0; j < v->k->info.num_args; j++) { /* a variant's arguments have the same types */
        vslots[j] = slots[v->from[j]];
        vvalues[j] = values[v->from[j]];
    }
    return run_converted(v->k, stream, dims, vslots, vvalues);
}

tilec_status tilec_launch(tilec_kernel *k, void *stream, const unsigned grid[3], const tilec_arg *args, int num_args)
{
    if (!k)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (k->spec && k->spec->ncand)
        return launch_specialised(k, stream, grid, args, num_args);
    uint64_t slots[MAX_ARGS];
    long long values[MAX_ARGS], dims[3];
    bool empty;
    tilec_status s = convert_args(k, args, num_args, slots, values);
    if (s || (s = grid_dims(k, grid, values, dims, &empty)) || empty)
        return s ? s : rt_ok(k->ctx); /* nothing to do, as the .cu launcher */
    return run_converted(k, stream, dims, slots, values);
}

/* k launched on arguments already converted (convert_args) into a grid already computed. */
static tilec_status run_converted(tilec_kernel *k, void *stream, const long long dims[3], uint64_t *slots,
                                  const long long *values)
{
    int num_args = k->info.num_args;
    void *params[MAX_ARGS + MAX_TMA];
    for (int i = 0; i < num_args; i++)
        params[i] = &slots[i];
    void *f;
    tilec_status s = function_here(k, &f);
    if (s)
        return s;
    /* the tensor maps (the driver is loaded now): 128 bytes each, 64-byte aligned */
    typedef struct { _Alignas(64) unsigned long long opaque[16]; } TensorMap;
    TensorMap maps[MAX_TMA];
    if (k->ntma > MAX_TMA)
        return rt_fail(k->ctx, TILEC_ERROR_LAUNCH_ARGS, "%s takes more than %d tensor maps", k->info.name, MAX_TMA);
    for (int j = 0; j < k->ntma; j++) {
        s = encode_map(k, &k->tma[j], slots, values, &maps[j]);
        if (s)
            return s;
        params[num_args + j] = &maps[j];
    }
    unsigned dyn = k->info.dynamic_shared ? (unsigned)k->info.shared_bytes : 0;
    int rc = k->ctx->cu.LaunchKernel(f, (unsigned)dims[0], (unsigned)dims[1], (unsigned)dims[2], k->threads, 1, 1,
                                     dyn, stream, params, NULL);
    if (rc)
        return rt_cuda_fail(k->ctx, rc, "cuLaunchKernel");
    return TILEC_OK;
}

/* nvrtc.c — NVRTC loaded at run time: finding the library and cuda_fp16.h, compiling
 * CUDA C to PTX or a cubin, ptxas's report.  Results go through the cache (cache.c). */
#define _GNU_SOURCE /* dladdr, RTLD_NODELETE */
#include "runtime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const nvrtc_names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};

static bool file_exists(const char *path) { return access(path, R_OK) == 0; }

/* NVRTC stays mapped after dlclose (RTLD_NODELETE): it is a C++ library whose static
 * state (exception pools, atexit handlers) does not survive being unmapped. */
#define NVRTC_DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

/* dlopen `name`; on failure appends dlerror() to `tried`. */
static void *try_open(const char *name, StrBuf *tried)
{
    void *h = dlopen(name, NVRTC_DLOPEN_FLAGS);
    if (!h) {
        const char *e = dlerror();
        sb_printf(tried, "\n  %s: %s", name, e ? e : "not found");
    }
    return h;
}

static void *open_nvrtc(tilec_context *ctx, StrBuf *tried, char **path)
{
    if (ctx->nvrtc_library) {
        *path = rt_strdup(ctx->nvrtc_library);
        return try_open(ctx->nvrtc_library, tried);
    }
    for (size_t i = 0; i < ARRAY_LEN(nvrtc_names); i++) {
        void *h = dlopen(nvrtc_names[i], NVRTC_DLOPEN_FLAGS);
        if (h) {
            *path = rt_strdup(nvrtc_names[i]);
            return h;
        }
    }
    sb_printf(tried, "\n  libnvrtc.so*: not on the library path");
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t r = 0; r < ARRAY_LEN(roots); r++) {
        if (!roots[r] || !*roots[r])
            continue;
        for (size_t i = 0; i < ARRAY_LEN(nvrtc_names); i++) {
            StrBuf p = {0};
            sb_printf(&p, "%s/lib64/%s", roots[r], nvrtc_names[i]);
            if (file_exists(p.data)) {
                void *h = try_open(p.data, tried);
                if (h) {
                    *path = sb_take(&p);
                    return h;
                }
            }
            sb_free(&p);
        }
    }
    return NULL;
}

/* A folder holding cuda_fp16.h: the option, the environment, the usual place, or the
 * include folder of the toolkit NVRTC came from. */
static char *find_include_dir(tilec_context *ctx)
{
    if (ctx->cuda_include)
        return rt_strdup(ctx->cuda_include);
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t r = 0; r < ARRAY_LEN(roots); r++) {
        if (!roots[r] || !*roots[r])
            continue;
        StrBuf p = {0};
        sb_printf(&p, "%s/include/cuda_fp16.h", roots[r]);
        if (file_exists(p.data)) {
            p.len -= strlen("/cuda_fp16.h");
            p.data[p.len] = 0;
            return sb_take(&p);
        }
        sb_free(&p);
    }
    Dl_info info;
    if (ctx->nvrtc.Version && dladdr((void *)ctx->nvrtc.Version, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash) {
            StrBuf p = {0};
            sb_printf(&p, "%.*s/../include/cuda_fp16.h", (int)(slash - info.dli_fname), info.dli_fname);
            if (file_exists(p.data)) {
                p.len -= strlen("/cuda_fp16.h");
                p.data[p.len] = 0;
                return sb_take(&p);
            }
            sb_free(&p);
        }
    }
    return NULL;
}

#define LOAD(field, sym)                                                                         \
    do {                                                                                         \
        *(void **)&n->field = dlsym(n->handle, sym);                                             \
        if (!n->field) {                                                                         \
            tilec_status s = rt_fail(ctx, TILEC_ERROR_NVRTC_NOT_FOUND, "%s has no symbol %s",      \
                                     n->path, sym);                                              \
            rt_nvrtc_unload(n);                                                                  \
            return s;                                                                            \
        }                                                                                        \
    } while (0)

tilec_status rt_nvrtc_load(tilec_context *ctx)
{
    RtNvrtc *n = &ctx->nvrtc;
    if (n->handle)
        return TILEC_OK;
    StrBuf tried = {0};
    n->handle = open_nvrtc(ctx, &tried, &n->path);
    if (!n->handle) {
        tilec_status s = rt_fail(ctx, TILEC_ERROR_NVRTC_NOT_FOUND,
                                 "cannot load NVRTC (the CUDA toolkit's runtime compiler); tried:%s\n"
                                 "set tilec_context_options.nvrtc_library, or CUDA_HOME to the toolkit",
                                 tried.data ? tried.data : "");
        sb_free(&tried);
        free(n->path);
        n->path = NULL;
        return s;
    }
    sb_free(&tried);
    LOAD(GetErrorString, "nvrtcGetErrorString");
    LOAD(Version, "nvrtcVersion");
    LOAD(CreateProgram, "nvrtcCreateProgram");
    LOAD(CompileProgram, "nvrtcCompileProgram");
    LOAD(DestroyProgram, "nvrtcDestroyProgram");
    LOAD(GetProgramLogSize, "nvrtcGetProgramLogSize");
    LOAD(GetProgramLog, "nvrtcGetProgramLog");
    LOAD(GetPTXSize, "nvrtcGetPTXSize");
    LOAD(GetPTX, "nvrtcGetPTX");
    LOAD(GetCUBINSize, "nvrtcGetCUBINSize");
    LOAD(GetCUBIN, "nvrtcGetCUBIN");
    n->Version(&n->major, &n->minor);
    n->include_dir = find_include_dir(ctx);
    return TILEC_OK;
}

void rt_nvrtc_unload(RtNvrtc *n)
{
    if (n->handle)
        dlclose(n->handle);
    free(n->path);
    free(n->include_dir);
    memset(n, 0, sizeof *n);
}

tilec_status tilec_nvrtc_version(tilec_context *ctx, int *major, int *minor)
{
    if (!ctx || !major || !minor)
        return TILEC_ERROR_INVALID_ARGUMENT;
    tilec_status s = rt_nvrtc_load(ctx);
    if (s)
        return s;
    *major = ctx->nvrtc.major;
    *minor = ctx->nvrtc.minor;
    return rt_ok(ctx);
}

/* ---- ptxas's report -------------------------------------------------------------------- */

/* The largest number written before `what` in the log, -1 when none: a module with several
 * kernels (a .cu with --variant) has one report each, and the worst is the one that matters. */
static int number_before(const char *log, const char *what)
{
    int best = -1;
    for (const char *at = strstr(log, what); at; at = strstr(at + 1, what)) {
        const char *p = at;
        while (p > log && p[-1] == ' ')
            p--;
        const char *e = p;
        while (p > log && p[-1] >= '0' && p[-1] <= '9')
            p--;
        if (p != e && atoi(p) > best)
            best = atoi(p);
    }
    return best;
}

void rt_parse_ptxas_report(const char *log, tilec_binary *b)
{
    b->registers = number_before(log, " registers");
    b->stack_bytes = number_before(log, " bytes stack frame");
    b->spill_store_bytes = number_before(log, " bytes spill stores");
    b->spill_load_bytes = number_before(log, " bytes spill loads");
    b->static_shared_bytes = b->registers < 0 ? -1 : number_before(log, " bytes smem");
    if (b->registers >= 0 && b->static_shared_bytes < 0)
        b->static_shared_bytes = 0; /* ptxas omits "smem" when there is none */
}

/* ---- compiling ------------------------------------------------------------------------- */

tilec_binary *rt_binary_copy(const tilec_binary *b)
{
    tilec_binary *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *b;
    char *data = malloc(b->size + 1);
    char *log = rt_strdup(b->log ? b->log : "");
    if (!data || !log) {
        free(data);
        free(log);
        free(c);
        return NULL;
    }
    memcpy(data, b->data, b->size);
    data[b->size] = 0;
    c->data = data;
    c->log = log;
    return c;
}

void tilec_binary_free(tilec_binary *b)
{
    if (!b)
        return;
    free((void *)b->data);
    free((void *)b->log);
    free(b);
}

static char *program_log(RtNvrtc *n, void *prog)
{
    size_t size = 0;
    if (n->GetProgramLogSize(prog, &size) || !size)
        return rt_strdup("");
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    if (n->GetProgramLog(prog, log))
        log[0] = 0;
    log[size] = 0;
    return log;
}

/* The options NVRTC gets; also the cache key's first part. */
typedef Vec(const char *) OptVec;

/* `hopper`: the file has sm_90a code (wgmma, TMA: it tests __CUDA_ARCH_FEAT_SM90_ALL),
 * which only the architecture-specific target sm_90a compiles; such a binary runs on
 * compute capability 9.0 alone, which arch 90 names anyway. */
static void build_options(tilec_context *ctx, const tilec_compile_options *o, int arch, bool hopper, Arena *a,
                          OptVec *v)
{
    bool cubin = o->kind == TILEC_BINARY_CUBIN;
    vec_push(a, v, arena_printf(a, "--gpu-architecture=%s_%d%s", cubin ? "sm" : "compute", arch,
                                hopper && arch == 90 ? "a" : ""));
    vec_push(a, v, "-std=c++17");
    if (ctx->nvrtc.include_dir)
        vec_push(a, v, arena_printf(a, "-I%s", ctx->nvrtc.include_dir));
    if (cubin)
        vec_push(a, v, "--ptxas-options=-v");
    for (int i = 0; i < o->num_extra_options; i++)
        vec_push(a, v, o->extra_options[i]);
}

static tilec_status run_nvrtc(tilec_context *ctx, const char *cuda, const tilec_compile_options *o, int arch,
                              const char *const *opts, int nopts, tilec_binary **out)
{
    RtNvrtc *n = &ctx->nvrtc;
    void *prog = NULL;
    int rc = n->CreateProgram(&prog, cuda, "tilec_kernel.cu", 0, NULL, NULL);
    if (rc)
        return rt_fail(ctx, TILEC_ERROR_COMPILE, "nvrtcCreateProgram failed: %s", n->GetErrorString(rc));
    rc = n->CompileProgram(prog, nopts, opts);
    char *log = program_log(n, prog);
    if (!log) {
        n->DestroyProgram(&prog);
        return rt_fail(ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory reading the NVRTC log");
    }
    if (rc) {
        tilec_status s = rt_fail(ctx, TILEC_ERROR_COMPILE, "NVRTC %d.%d could not compile for %s_%d: %s%s%s", n->major,
                                 n->minor, o->kind == TILEC_BINARY_CUBIN ? "sm" : "compute", arch,
                                 n->GetErrorString(rc), *log ? "\n" : "", log);
        free(log);
        n->DestroyProgram(&prog);
        return s;
    }
    bool cubin = o->kind == TILEC_BINARY_CUBIN;
    size_t size = 0;
    rc = cubin ? n->GetCUBINSize(prog, &size) : n->GetPTXSize(prog, &size);
    char *data = rc ? NULL : malloc(size + 1);
    if (data)
        rc = cubin ? n->GetCUBIN(prog, data) : n->GetPTX(prog, data);
    n->DestroyProgram(&prog);
    tilec_binary *b = data ? calloc(1, sizeof *b) : NULL;
    if (rc || !b) {
        free(data);
        free(log);
        free(b);
        return rc ? rt_fail(ctx, TILEC_ERROR_COMPILE, "NVRTC produced no %s: %s", cubin ? "cubin" : "PTX",
                            n->GetErrorString(rc))
                  : rt_fail(ctx, TILEC_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    data[size] = 0;
    if (!cubin && size && !data[size - 1])
        size--; /* NVRTC counts PTX's NUL */
    b->kind = o->kind;
    b->arch = arch;
    b->data = data;
    b->size = size;
    b->log = log;
    rt_parse_ptxas_report(log, b);
    *out = b;
    return TILEC_OK;
}

tilec_status tilec_compile(tilec_context *ctx, const char *cuda, const tilec_compile_options *opt, tilec_binary **out)
{
    if (!ctx)
        return TILEC_ERROR_INVALID_ARGUMENT;
    if (!cuda || !out)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "tilec_compile: cuda and out must not be NULL");
    *out = NULL;
    static const tilec_compile_options defaults = {0};
    const tilec_compile_options *o = opt ? opt : &defaults;
    if (o->kind != TILEC_BINARY_CUBIN && o->kind != TILEC_BINARY_PTX)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "unknown binary kind %d", (int)o->kind);
    if (o->num_extra_options < 0 || (o->num_extra_options && !o->extra_options))
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "extra_options is NULL or num_extra_options negative");
    if (o->arch < 0 || o->arch > 9999)
        return rt_fail(ctx, TILEC_ERROR_INVALID_ARGUMENT, "arch %d is not a compute capability like 80 or 90", o->arch);
    int arch = o->arch;
    tilec_status s;
    if (!arch && (s = tilec_device_arch(ctx, &arch)))
        return s;
    if ((s = rt_nvrtc_load(ctx)))
        return s;

    Arena a = {0};
    OptVec opts = {0};
    build_options(ctx, o, arch, strstr(cuda, "__CUDA_ARCH_FEAT_SM90_ALL") != NULL, &a, &opts);
    StrBuf key = {0};
    sb_printf(&key, "tilec %s\nnvrtc %d.%d\n", TILEC_VERSION, ctx->nvrtc.major, ctx->nvrtc.minor);
    for (int i = 0; i < opts.len; i++)
        sb_printf(&key, "%s\n", opts.data[i]);
    sb_puts(&key, "--\n");
    sb_puts(&key, cuda);

    tilec_binary *b = o->no_cache ? NULL : rt_cache_lookup(ctx, key.data);
    if (b) {
        ctx->cache.hits++;
        s = TILEC_OK;
    } else {
        ctx->cache.misses++;
        s = run_nvrtc(ctx, cuda, o, arch, opts.data, opts.len, &b);
        if (!s)
            rt_cache_store(ctx, key.data, b);
    }
    sb_free(&key);
    arena_free(&a);
    if (s)
        return s;
    *out = b;
    return rt_ok(ctx);
}

void tilec_cache_stats(const tilec_context *ctx, long *hits, long *misses)
{
    if (hits)
        *hits = ctx ? ctx->cache.hits : 0;
    if (misses)
        *misses = ctx ? ctx->cache.misses : 0;
}

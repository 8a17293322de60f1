/*
 * runtime.h — the library behind include/tilec.h: translation glue, NVRTC,
 * the binary cache, the CUDA driver, kernels and generated launchers.
 *
 * Contract: everything lives in a tilec_context (struct below) or in the
 * objects made from it; no file here has mutable global state.  NVRTC and
 * the driver are reached only through the function pointers of RtNvrtc and
 * RtCuda, filled by dlopen/dlsym on first use, so nothing links against
 * CUDA.  Every failing function records a message with rt_fail()
 * (rt_util.h) and returns a tilec_status; nothing exits, nothing prints.
 */
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#include "../../include/tilec.h"
#include "../common.h"
#include "../driver.h"
#include "rt_util.h"

/* ---- the grid expression, compiled for the host ---------------------------------------- */

/* A translation's grid is tir_grid_compile's program with each GRID_PARAM
 * renumbered to its runtime argument, so that tir_grid_eval takes the integer
 * values of the runtime arguments. */

/* ---- translations -------------------------------------------------------------------- */

/* The public struct first, so that a tilec_translation * is a Translation *. */
/* A TMA tensor map the kernel takes after its runtime arguments (TmaMap), made
 * at launch from the descriptor's arguments: base, rows, cols, row stride. */
typedef struct RtTmaMap {
    int base_arg;         /* runtime argument index of the descriptor's base */
    int elem_bytes, box_cols, box_rows, swizzle;
} RtTmaMap;

/* The driver's enums for a map (cuda.h's values, so that libtilec needs no cuda.h): the
 * CUtensorMapDataType of its element size (UINT8, UINT16, UINT32: the copies move bits) and
 * the CUtensorMapSwizzle of its swizzle (32B, 64B, 128B); rt_tma_*_name give cuda.h's names. */
int rt_tma_data_type(const RtTmaMap *m);
int rt_tma_swizzle_mode(const RtTmaMap *m);
const char *rt_tma_data_type_name(const RtTmaMap *m);
const char *rt_tma_swizzle_name(const RtTmaMap *m);

typedef struct Translation {
    tilec_translation pub;
    Ctx ctx;              /* its arena owns everything below */
    Source src;
    StrBuf out;
    GridProg grid;
    int *arg_param;       /* runtime argument i is params[arg_param[i]] */
    const char *const *arg_ctype; /* C type of each runtime argument, for launchers */
    const char *const *arg_cname; /* its C name (KernelParam.c_name), for launchers */
    RtTmaMap *tma;        /* the kernel's tensor maps, after its arguments */
    int ntma;
    int nvariants;        /* tilec_translate_options.num_variants: the .cu holds more kernels */
} Translation;

/* tilec_translate_source with `facts` (named signature entries, "n=1, x_ptr=*fp32:16";
 * NULL: none) added after the options' signature, overriding its entries for the same
 * parameters: how a kernel that specialises at launch translates a variant. */
tilec_status rt_translate_source(const char *source, const tilec_translate_options *opt, const char *facts,
                                 tilec_translation **out);

/* The .h declaring a CUDA translation's NAME_launch (embed.c). */
char *rt_launcher_header(Arena *a, const Translation *t);

/* ---- NVRTC -------------------------------------------------------------------------------- */

typedef struct RtNvrtc {
    void *handle;
    char *path;           /* the library that was loaded */
    char *include_dir;    /* for -I, or NULL */
    int major, minor;
    const char *(*GetErrorString)(int);
    int (*Version)(int *, int *);
    int (*CreateProgram)(void **, const char *, const char *, int, const char *const *, const char *const *);
    int (*CompileProgram)(void *, int, const char *const *);
    int (*DestroyProgram)(void **);
    int (*GetProgramLogSize)(void *, size_t *);
    int (*GetProgramLog)(void *, char *);
    int (*GetPTXSize)(void *, size_t *);
    int (*GetPTX)(void *, char *);
    int (*GetCUBINSize)(void *, size_t *);
    int (*GetCUBIN)(void *, char *);
} RtNvrtc;

/* ---- the CUDA driver ----------------------------------------------------------------------- */

typedef struct RtCuda {
    void *handle;
    bool initialised;
    void *retained_ctx;   /* a primary context we retained, released at destroy */
    int retained_device;
    int (*Init)(unsigned);
    int (*DriverGetVersion)(int *);
    int (*DeviceGetCount)(int *);
    int (*DeviceGet)(int *, int);
    int (*DeviceGetAttribute)(int *, int, int);
    int (*CtxGetCurrent)(void **);
    int (*CtxSetCurrent)(void *);
    int (*CtxGetDevice)(int *);
    int (*CtxSynchronize)(void);
    int (*DevicePrimaryCtxRetain)(void **, int);
    int (*DevicePrimaryCtxRelease)(int);
    int (*ModuleLoadData)(void **, const void *);
    int (*ModuleUnload)(void *);
    int (*ModuleGetFunction)(void **, void *, const char *);
    int (*FuncSetAttribute)(void *, int, int);
    int (*FuncGetAttribute)(int *, int, void *);
    int (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **,
                        void **);
    /* cuTensorMapEncodeTiled (CUDA 12 drivers on): NULL where the driver lacks it */
    int (*TensorMapEncodeTiled)(void *, int, unsigned, void *, const unsigned long long *, const unsigned long long *,
                                const unsigned *, const unsigned *, int, int, int, int);
    int (*MemAlloc)(unsigned long long *, size_t);
    int (*MemFree)(unsigned long long);
    int (*MemcpyHtoD)(unsigned long long, const void *, size_t);
    int (*MemcpyDtoH)(void *, unsigned long long, size_t);
    int (*MemsetD8)(unsigned long long, unsigned char, size_t);
    int (*GetErrorName)(int, const char **);
    int (*GetErrorString)(int, const char **);
} RtCuda;

/* driver enum values used here (cuda.h) */
enum {
    CU_ATTR_CC_MAJOR = 75, CU_ATTR_CC_MINOR = 76,
    CU_FATTR_MAX_THREADS = 0, CU_FATTR_SHARED = 1, CU_FATTR_LOCAL = 3, CU_FATTR_REGS = 4,
    CU_FATTR_PTX_VERSION = 5, CU_FATTR_BINARY_VERSION = 6, CU_FATTR_MAX_DYN_SHARED = 8,
    CU_ERR_NO_DEVICE = 100,
};

/* ---- the binary cache ---------------------------------------------------------------------- */

typedef struct CacheEntry {
    uint64_t hash;
    char *key;            /* the whole key, compared on every hit */
    tilec_binary *bin;    /* owned; copied out on a hit */
    struct CacheEntry *next;
} CacheEntry;

typedef struct RtCache {
    CacheEntry *head;
    long hits, misses;
} RtCache;

/* ---- the context ------------------------------------------------------------------------- */

struct tilec_context {
    char *nvrtc_library, *cuda_library, *cuda_include, *cache_dir;
    int device;
    StrBuf error;
    RtNvrtc nvrtc;
    RtCuda cu;
    RtCache cache;
};

tilec_status rt_nvrtc_load(tilec_context *ctx);
void rt_nvrtc_unload(RtNvrtc *n);
tilec_status rt_cuda_load(tilec_context *ctx);
void rt_cuda_unload(RtCuda *cu);
/* Makes sure a CUDA context is current on this thread (retaining the primary context of
 * ctx->device when none is) and returns it. */
tilec_status rt_cuda_current(tilec_context *ctx, void **cuctx);
/* rt_fail with "WHAT failed: CUDA_ERROR_X (description)" for a driver result. */
tilec_status rt_cuda_fail(tilec_context *ctx, int result, const char *what);

/* The cache: a hit returns a copy of the stored binary; store keeps a copy. */
tilec_binary *rt_cache_lookup(tilec_context *ctx, const char *key);
void rt_cache_store(tilec_context *ctx, const char *key, const tilec_binary *bin);
void rt_cache_free(RtCache *c);
tilec_binary *rt_binary_copy(const tilec_binary *b);
/* The ptxas -v report in an NVRTC log, into b's report fields (-1 when absent). */
void rt_parse_ptxas_report(const char *log, tilec_binary *b);

#endif

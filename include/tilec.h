/*
 * tilec.h — the tilec library: Triton kernels translated, compiled and
 * launched from a C or C++ host application.
 *
 * Contract: a kernel's Python source (a string; no file, no Python) is
 * translated into CUDA C with metadata (tilec_translate_source), compiled
 * with NVRTC into PTX or a cubin (tilec_compile), and launched through the
 * CUDA driver API (tilec_kernel_create / tilec_launch).  NVRTC (libnvrtc.so)
 * and the driver (libcuda.so.1) are loaded at run time with dlopen, so a
 * program that only translates links and runs on a machine without CUDA;
 * a missing library is an error code, never a crash.
 *
 * Every function returns a tilec_status; on failure the message is in
 * tilec_context_error() (or in the translation, for tilec_translate_source).
 * The library never calls exit() and holds no mutable global state: all of
 * it lives in a tilec_context, including the NVRTC and driver handles and
 * the binary cache.  A context and the objects made from it are not
 * thread-safe: use one context per thread, or serialise calls to one
 * context.  Translations and compiled binaries own their memory and may be
 * used on any thread once made; kernels belong to the context they were made
 * from and must be destroyed before it.
 *
 * Typical use (error checks shortened):
 *
 *     tilec_context *ctx;
 *     tilec_context_create(NULL, &ctx);
 *     tilec_translate_options o = {.kernel = "add_kernel",
 *         .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
 *         .grid = "cdiv(n_elements, BLOCK_SIZE)"};
 *     tilec_kernel *k;
 *     if (tilec_kernel_create(ctx, source, &o, NULL, &k) != TILEC_OK)
 *         fprintf(stderr, "%s", tilec_context_error(ctx));
 *     tilec_arg args[] = {tilec_devptr(x), tilec_devptr(y), tilec_devptr(out), tilec_int(n)};
 *     tilec_launch(k, NULL, NULL, args, 4);      // grid from the --grid expression
 *     tilec_kernel_destroy(k);
 *     tilec_context_destroy(ctx);
 */
#ifndef TILEC_H
#define TILEC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TILEC_API __attribute__((visibility("default")))
#else
#define TILEC_API
#endif

#define TILEC_VERSION_STRING "0.2.0"

/* ---- status codes ---------------------------------------------------------------------- */

typedef enum tilec_status {
    TILEC_OK = 0,
    TILEC_ERROR_INVALID_ARGUMENT,  /* a NULL pointer or a bad option value */
    TILEC_ERROR_INPUT,             /* the kernel source or its specialisation; see diagnostics */
    TILEC_ERROR_NVRTC_NOT_FOUND,   /* libnvrtc could not be loaded */
    TILEC_ERROR_COMPILE,           /* NVRTC rejected the program or its options; see the log */
    TILEC_ERROR_DRIVER_NOT_FOUND,  /* libcuda.so.1 could not be loaded (no NVIDIA driver) */
    TILEC_ERROR_NO_DEVICE,         /* the driver found no usable GPU */
    TILEC_ERROR_DRIVER,            /* a CUDA driver call failed; the message names it */
    TILEC_ERROR_LAUNCH_ARGS,       /* wrong number or kinds of launch arguments, or a grid that
                                      cannot be computed or is beyond the device's limits */
    TILEC_ERROR_IO,                /* the on-disk cache or another file could not be used */
    TILEC_ERROR_OUT_OF_MEMORY,
} tilec_status;

/* "TILEC_ERROR_COMPILE" etc. */
TILEC_API const char *tilec_status_name(tilec_status s);
/* The library's version, "0.2.0" (TILEC_VERSION_STRING of this header). */
TILEC_API const char *tilec_version(void);
/* Frees a string returned by the library (tilec_generate_embed). */
TILEC_API void tilec_free(void *p);

/* ---- context --------------------------------------------------------------------------- */

typedef struct tilec_context tilec_context;

typedef struct tilec_context_options {
    /* libnvrtc to load: a path or a file name for dlopen.  NULL: libnvrtc.so,
     * libnvrtc.so.13, .so.12, .so.11.2, then the same names in $CUDA_HOME/lib64,
     * $CUDA_PATH/lib64 and /usr/local/cuda/lib64. */
    const char *nvrtc_library;
    /* the CUDA driver to load.  NULL: libcuda.so.1. */
    const char *cuda_library;
    /* a folder that holds cuda_fp16.h, passed to NVRTC as -I.  NULL: $CUDA_HOME/include,
     * $CUDA_PATH/include, /usr/local/cuda/include, then ../include next to libnvrtc. */
    const char *cuda_include;
    /* a folder for compiled binaries kept across runs (created if missing).  NULL: the cache
     * is in memory only.  Failing to write an entry is not an error. */
    const char *cache_dir;
    /* the device used when no CUDA context is current on the calling thread: its primary
     * context is retained and made current (default 0). */
    int device;
} tilec_context_options;

/* Makes a context; opt may be NULL.  Nothing is loaded yet: NVRTC on the first compile,
 * the driver on the first load, launch or device query. */
TILEC_API tilec_status tilec_context_create(const tilec_context_options *opt, tilec_context **out);
/* Destroy the context's kernels first (tilec_kernel_destroy): they unload their modules
 * through its driver.  Translations and binaries do not depend on it. */
TILEC_API void tilec_context_destroy(tilec_context *ctx);
/* The message of the last call on ctx that failed ("" if none).  Valid until the next call. */
TILEC_API const char *tilec_context_error(const tilec_context *ctx);

/* ---- translation ----------------------------------------------------------------------- */

typedef struct tilec_define {
    const char *name;   /* a tl.constexpr parameter */
    const char *value;  /* as on the command line: "1024", "silu", "True" */
} tilec_define;

typedef enum tilec_output {
    TILEC_OUTPUT_CUDA = 0,   /* the .cu file */
    TILEC_OUTPUT_TILEIR,     /* typed tile IR with analyses (tilec --emit tileir) */
    TILEC_OUTPUT_LAYOUTS,    /* layouts and ownership (tilec --emit layouts) */
    TILEC_OUTPUT_HTML,       /* the explorer: one self-contained HTML page (tilec --emit html,
                                docs/EXPLORER.md) */
    TILEC_OUTPUT_SVG,        /* one tile value's layout as an SVG grid (tilec --emit svg --value) */
} tilec_output;

struct tilec_binary;

/* Zero-initialise and set what you need; every field has the CLI's default. */
typedef struct tilec_translate_options {
    const char *filename;    /* shown in diagnostics and the .cu header; NULL: "<source>" */
    size_t source_size;      /* bytes of source; 0: strlen(source) (a NUL before the end is
                                then reported as an error in the input) */
    const char *kernel;      /* -k; NULL: the one kernel no other jit function calls */
    const char *signature;   /* -s, Triton AOT style: "*fp32:16, *fp32:16, i32, 1024" */
    const tilec_define *defines;  /* -D NAME=VALUE */
    int num_defines;
    int num_warps;           /* power of two 1..32; 0: autotune config, else 4 */
    int num_stages;          /* 1..8; 0: autotune config, else 3 */
    int min_blocks_per_sm;   /* --min-blocks: __launch_bounds__'s second argument, the blocks
                                per SM ptxas must leave registers for; 0: tilec decides (see
                                docs/CLI.md), -1: none, N >= 1: N */
    int config;              /* which @triton.autotune config (default 0) */
    int arch;                /* 80 or 90; 0: 80.  The output runs on both. */
    const char *grid;        /* --grid "cdiv(n, BLOCK)"; NULL: the caller gives the grid */
    int debug;               /* compile tl.device_assert in */
    tilec_output output;
    const char *dump;        /* stop after a pass and print it: tokens ast lower simplify
                                axisinfo layouts; NULL: none */
    const char *command;     /* the regenerate command printed in the .cu header; NULL: none */
    const char *const *include_dirs; /* -I DIR: where `import pkg.mod` looks for the project's
                                        modules, after the kernel file's own package root */
    int num_include_dirs;
    const char *value;       /* TILEC_OUTPUT_SVG: the tile value drawn, by name (its first value)
                                or as %ID (tilec --emit layouts lists both); else NULL */
    const struct tilec_binary *report; /* TILEC_OUTPUT_HTML: a cubin of the same kernel
                                (tilec_compile) whose ptxas registers and spills the page's
                                summary shows; NULL: none */
    int specialize;          /* tilec_kernel_create only: 1 specialises the kernel at each launch
                                as Triton's launcher does (see tilec_launch); 0: never.  The
                                translation functions ignore it. */
    const char *const *variants; /* --variant: CUDA output also holds the kernel translated with
                                each of these added to the signature ("n=i32:16, x_ptr=*fp32:16",
                                "stride=1": facts a launch may find; "auto": ":16" on every open
                                pointer and integer), and NAME_launch picks the first whose facts
                                hold (most facts first).  Not for
                                tilec_kernel_create, which launches the kernel itself */
    int num_variants;        /* at most 16 */
} tilec_translate_options;

typedef enum tilec_type_kind {
    TILEC_TYPE_POINTER,      /* a device pointer */
    TILEC_TYPE_INT,          /* signed integer */
    TILEC_TYPE_UINT,         /* unsigned integer */
    TILEC_TYPE_FLOAT,        /* fp16, bf16, fp32, fp64 */
    TILEC_TYPE_BOOL,         /* i1 */
} tilec_type_kind;

typedef struct tilec_param {
    const char *name;
    const char *type;        /* signature spelling: "*fp32", "i32", "fp16" ("constexpr" for
                                a constexpr that has no type) */
    tilec_type_kind kind;
    int bits;                /* scalar width; 64 for pointers */
    long long divisibility;  /* from ":16" (bytes for pointers), 1 when none */
    int is_constexpr;        /* compiled in (a constexpr, or fixed by the signature): not
                                passed at launch */
    const char *value;       /* the compiled-in value as written, or NULL */
    int specialize;          /* what a kernel that specialises at launch looks at in this
                                argument: TILEC_SPECIALIZE_ONE and/or TILEC_SPECIALIZE_DIV16;
                                0 for a parameter given ":16" or a value, a constexpr, a float,
                                a bool, a tensor descriptor's fields, and as @triton.jit's
                                do_not_specialize / do_not_specialize_on_alignment say */
} tilec_param;

/* tilec_param.specialize: an integer argument equal to 1 is compiled in as the constant 1 */
#define TILEC_SPECIALIZE_ONE 1
/* tilec_param.specialize: an integer that is a multiple of 16, or a pointer whose address is,
 * is declared so (":16"), which lets the kernel drop masks and use 16-byte accesses */
#define TILEC_SPECIALIZE_DIV16 2

typedef struct tilec_kernel_info {
    const char *name;
    const tilec_param *params;   /* every parameter in source order */
    int num_params;
    int num_args;                /* the runtime arguments: parameters not compiled in */
    int num_warps;
    int threads_per_block;       /* 32 * num_warps, plus 128 for a warp-specialised kernel's producer
                                    warpgroup (sm_90a builds only: tilec_launch asks the loaded kernel) */
    int shared_bytes;            /* the shared-memory arena */
    int dynamic_shared;          /* 1 above 48 KB: launched as dynamic shared memory */
    const char *grid;            /* the grid expression, or NULL */
    int arch;
    int min_blocks_per_sm;       /* __launch_bounds__'s second argument; 0: none */
    int min_blocks_arch;         /* it applies from sm_<this> on (90 where tilec chose it: the
                                    .cu keeps the plain bound for older GPUs); 0: on every GPU */
} tilec_kernel_info;

typedef enum tilec_severity { TILEC_SEVERITY_ERROR, TILEC_SEVERITY_WARNING, TILEC_SEVERITY_NOTE } tilec_severity;

typedef struct tilec_diagnostic {
    tilec_severity severity;
    const char *file;        /* options.filename, or the option an error is inside: "--grid",
                                "-D NAME" or "-s" (a value such as 2**64, which overflows) */
    int line, column;        /* 1-based; 0 when the message has no location */
    const char *message;     /* without "file:line:col: error: "; control and invisible
                                characters from the input shown escaped (\x1b, \u202e) */
} tilec_diagnostic;

typedef struct tilec_translation {
    tilec_status status;
    const char *code;            /* the output (CUDA C, tile IR, layouts or a dump); NULL on failure */
    size_t code_size;
    const char *header;          /* CUDA output: a .h declaring NAME_launch; else NULL */
    tilec_kernel_info info;      /* CUDA output, on success */
    const tilec_diagnostic *diagnostics;  /* errors, warnings and notes in order */
    int num_diagnostics;
    const char *diagnostic_text; /* the same as the CLI prints: file:line:col: error: message,
                                    the source line and a caret ("" when none) */
    const char *error;           /* on failure, a one-line summary; NULL on success */
} tilec_translation;

/* Translates `source` (a whole .py file, NUL-terminated unless opt->source_size is given).  Unless the arguments are NULL
 * (TILEC_ERROR_INVALID_ARGUMENT, *out NULL) *out is set, also on failure, so that the
 * diagnostics can be read; free it with tilec_translation_free.  Needs no CUDA. */
TILEC_API tilec_status tilec_translate_source(const char *source, const tilec_translate_options *opt,
                                              tilec_translation **out);
TILEC_API void tilec_translation_free(tilec_translation *t);

/* ---- NVRTC compilation ------------------------------------------------------------------- */

typedef enum tilec_binary_kind {
    TILEC_BINARY_CUBIN = 0,  /* machine code for one architecture (sm_XY) */
    TILEC_BINARY_PTX,        /* PTX for compute_XY, JIT-compiled by the driver at load */
} tilec_binary_kind;

typedef struct tilec_compile_options {
    int arch;                /* compute capability as 10*major+minor (80, 86, 90); 0: the
                                device's (needs the driver and a GPU) */
    tilec_binary_kind kind;
    const char *const *extra_options;  /* more NVRTC options, e.g. "-lineinfo" */
    int num_extra_options;
    int no_cache;            /* compile even when the cache has the binary */
} tilec_compile_options;

typedef struct tilec_binary {
    tilec_binary_kind kind;
    int arch;
    const void *data;        /* cubin bytes, or PTX text (NUL-terminated) */
    size_t size;             /* bytes of data (PTX: without the NUL) */
    const char *log;         /* NVRTC's log, "" when empty */
    int from_cache;          /* 1 when the cache supplied it (memory or disk) */
    /* ptxas's report for cubins (-1 when unknown, e.g. PTX); for a module of several kernels
     * (CUDA translated with variants) the largest of each figure: */
    int registers;           /* per thread */
    int spill_store_bytes, spill_load_bytes;
    int stack_bytes;         /* stack frame per thread (local memory) */
    int static_shared_bytes;
} tilec_binary;

/* Compiles CUDA C (a translation's code) with NVRTC.  On TILEC_ERROR_COMPILE the NVRTC log
 * is in tilec_context_error().  opt may be NULL (a cubin for the device's architecture).
 * The result is a copy owned by the caller: free it with tilec_binary_free. */
TILEC_API tilec_status tilec_compile(tilec_context *ctx, const char *cuda, const tilec_compile_options *opt,
                                     tilec_binary **out);
TILEC_API void tilec_binary_free(tilec_binary *b);
/* NVRTC's version (loading it if needed). */
TILEC_API tilec_status tilec_nvrtc_version(tilec_context *ctx, int *major, int *minor);
/* How many compilations the cache saved and how many ran, since the context was made. */
TILEC_API void tilec_cache_stats(const tilec_context *ctx, long *hits, long *misses);

/* ---- kernels: load and launch ------------------------------------------------------------ */

typedef struct tilec_kernel tilec_kernel;

/* Translate + compile (cached) + load into the current CUDA context (or device opt.device's
 * primary context).  copt may be NULL.  Translation errors come back as TILEC_ERROR_INPUT
 * with the formatted diagnostics as the message.  With topt->specialize the kernel keeps a
 * copy of the source and the options, and tilec_launch specialises it (see there). */
TILEC_API tilec_status tilec_kernel_create(tilec_context *ctx, const char *source, const tilec_translate_options *topt,
                                           const tilec_compile_options *copt, tilec_kernel **out);
/* A kernel from a translation and its binary (both copied; they may be freed after).  The
 * module is loaded into a CUDA context the first time the kernel is launched there (or by
 * tilec_kernel_get_attributes); this call does not touch the driver. */
TILEC_API tilec_status tilec_kernel_load(tilec_context *ctx, const tilec_translation *t, const tilec_binary *bin,
                                         tilec_kernel **out);
/* Unloads the kernel's modules; call it before tilec_context_destroy of its context. */
TILEC_API void tilec_kernel_destroy(tilec_kernel *k);
TILEC_API const tilec_kernel_info *tilec_kernel_get_info(const tilec_kernel *k);

/* One launch argument; build them with the helpers below (a kind that is no tilec_type_kind
 * is TILEC_ERROR_LAUNCH_ARGS). */
typedef struct tilec_arg {
    tilec_type_kind kind;
    union {
        unsigned long long ptr;  /* device address */
        long long i;
        unsigned long long u;
        double f;
    } v;
} tilec_arg;

typedef unsigned long long tilec_deviceptr;   /* a CUdeviceptr */

static inline tilec_arg tilec_devptr(tilec_deviceptr p) { tilec_arg a; a.kind = TILEC_TYPE_POINTER; a.v.ptr = p; return a; }
static inline tilec_arg tilec_ptr(const void *p) { tilec_arg a; a.kind = TILEC_TYPE_POINTER; a.v.ptr = (unsigned long long)(size_t)p; return a; }
static inline tilec_arg tilec_int(long long i) { tilec_arg a; a.kind = TILEC_TYPE_INT; a.v.i = i; return a; }
static inline tilec_arg tilec_uint(unsigned long long u) { tilec_arg a; a.kind = TILEC_TYPE_UINT; a.v.u = u; return a; }
static inline tilec_arg tilec_float(double f) { tilec_arg a; a.kind = TILEC_TYPE_FLOAT; a.v.f = f; return a; }
static inline tilec_arg tilec_bool(int b) { tilec_arg a; a.kind = TILEC_TYPE_BOOL; a.v.i = b != 0; return a; }

/* Launches k on `stream` (a CUstream; NULL: the default stream) in the current CUDA context
 * (or the context's device's primary context).  grid: three dimensions, or NULL to compute
 * them from the kernel's grid expression (an error when it has none).  args: the kernel's
 * runtime arguments in order (info.num_args of them); each is checked against its parameter
 * (pointer, integer in range, float, bool) and converted to the parameter's type (fp32
 * scalars are passed as 4-byte floats, fp16/bf16 as their 2-byte encodings).  The grid
 * expression is computed in checked 64-bit arithmetic.  A bad count or kind, a zero divisor
 * or an overflow in the grid, and a grid beyond the device's limits (x < 2^31, y and z <
 * 65536) are TILEC_ERROR_LAUNCH_ARGS with a message, found before the driver is touched.
 * A grid with a dimension <= 0 launches nothing and returns TILEC_OK.  Launches are
 * asynchronous, as with cuLaunchKernel.
 *
 * A kernel made with tilec_translate_options.specialize is specialised at each launch as
 * Triton's launcher specialises a @triton.jit kernel: every argument whose parameter has a
 * nonzero tilec_param.specialize is looked at (an integer equal to 1, an integer that is a
 * multiple of 16, a pointer whose address is), and the kernel runs as translated for those
 * facts: the given signature with "NAME=1" or "NAME=TYPE:16" added.  Each combination is
 * translated and compiled the first time it is met (translation plus NVRTC, or the binary
 * cache) and kept in the kernel.  The arguments, the grid and the errors are those of the
 * kernel as written. */
TILEC_API tilec_status tilec_launch(tilec_kernel *k, void *stream, const unsigned grid[3], const tilec_arg *args,
                                    int num_args);

/* A kernel made with tilec_translate_options.specialize: how many variants it has compiled
 * (the kernel as its signature is written counts as one, the first), and what variant i
 * (0 <= i < the count) added to the given signature, "n=1, x_ptr=*fp32:16" ("" for the
 * first; NULL for an i out of range).  A kernel that does not specialise has one variant. */
TILEC_API int tilec_kernel_num_variants(const tilec_kernel *k);
TILEC_API const char *tilec_kernel_variant_signature(const tilec_kernel *k, int i);

/* What the driver says about the kernel in the current context (loading it there). */
typedef struct tilec_kernel_attributes {
    int registers;
    int local_bytes;             /* per thread: stack and spills */
    int static_shared_bytes;
    int max_threads_per_block;
    int ptx_version, binary_version;  /* 10*major+minor */
} tilec_kernel_attributes;
TILEC_API tilec_status tilec_kernel_get_attributes(tilec_kernel *k, tilec_kernel_attributes *out);

/* ---- device conveniences (for programs that do not link the CUDA runtime) ---------------- */

/* The compute capability of the context's device as 10*major+minor. */
TILEC_API tilec_status tilec_device_arch(tilec_context *ctx, int *arch);
TILEC_API tilec_status tilec_mem_alloc(tilec_context *ctx, size_t bytes, tilec_deviceptr *out);
TILEC_API tilec_status tilec_mem_free(tilec_context *ctx, tilec_deviceptr p);
TILEC_API tilec_status tilec_memcpy_htod(tilec_context *ctx, tilec_deviceptr dst, const void *src, size_t bytes);
TILEC_API tilec_status tilec_memcpy_dtoh(tilec_context *ctx, void *dst, tilec_deviceptr src, size_t bytes);
TILEC_API tilec_status tilec_memset(tilec_context *ctx, tilec_deviceptr dst, unsigned char byte, size_t bytes);
/* Waits for all work in the current CUDA context; reports a failed kernel. */
TILEC_API tilec_status tilec_synchronize(tilec_context *ctx);

/* ---- generated launchers ----------------------------------------------------------------- */

/* Writes a C file that embeds `bins` (cubins and/or PTX, one per architecture) of the kernel
 * translated in t, with NAME_load/NAME_unload/NAME_launch returning CUresult (see the file's
 * header comment), and the matching .h.  Both strings are freed with tilec_free.  The C
 * compiles with a plain C compiler against cuda.h and links with -lcuda.  A NULL entry in
 * bins, or one without data, is TILEC_ERROR_INVALID_ARGUMENT. */
TILEC_API tilec_status tilec_generate_embed(tilec_context *ctx, const tilec_translation *t,
                                            const tilec_binary *const *bins, int num_bins, char **c_file,
                                            char **h_file);

#ifdef __cplusplus
}
#endif

#endif

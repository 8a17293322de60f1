/* test_api.c — the public API (include/tilec.h): translation with metadata and
 * structured diagnostics, option checking, NVRTC compilation and its errors, the cache,
 * and the launch-argument checks that come before the driver.  No GPU is needed: the
 * driver is pointed at a library that does not exist, so the tests behave the same on a
 * machine that has one.  NVRTC must be installed (CI has the CUDA toolkit). */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilec.h"

#define TILEC_MAX_VARIANTS_FOR_TEST 16 /* tilec_translate_options.num_variants: at most 16 */

static const char add_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
    "    mask = offsets < n_elements\n"
    "    x = tl.load(x_ptr + offsets, mask=mask)\n"
    "    y = tl.load(y_ptr + offsets, mask=mask)\n"
    "    tl.store(output_ptr + offsets, x + y, mask=mask)\n";

static const char scale_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def scale_kernel(x_ptr, n, alpha, h, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, x * alpha + h, mask=offs < n)\n";

static tilec_translate_options add_options(void)
{
    return (tilec_translate_options){.filename = "add.py",
                                     .kernel = "add_kernel",
                                     .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                                     .grid = "cdiv(n_elements, BLOCK_SIZE)"};
}

/* A context whose driver cannot be found: launches stop there, on any machine. */
static tilec_context *no_driver_context(void)
{
    tilec_context *ctx;
    tilec_context_options co = {.cuda_library = "/nonexistent/libcuda.so.1"};
    cr_assert_eq(tilec_context_create(&co, &ctx), TILEC_OK);
    return ctx;
}

/* ---- translation ------------------------------------------------------------------------ */

Test(api_translate, metadata)
{
    tilec_translate_options o = add_options();
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_OK);
    cr_assert_eq(t->status, TILEC_OK);
    cr_assert_null(t->error);
    cr_assert_not_null(strstr(t->code, "extern \"C\" __global__"));
    cr_assert_eq(t->code_size, strlen(t->code));
    const tilec_kernel_info *in = &t->info;
    cr_assert_str_eq(in->name, "add_kernel");
    cr_assert_eq(in->num_params, 5);
    cr_assert_eq(in->num_args, 4);
    cr_assert_eq(in->num_warps, 4);
    cr_assert_eq(in->threads_per_block, 128);
    cr_assert_eq(in->shared_bytes, 0);
    cr_assert_eq(in->dynamic_shared, 0);
    cr_assert_str_eq(in->grid, "cdiv(n_elements, BLOCK_SIZE)");
    cr_assert_eq(in->arch, 80);
    cr_assert_str_eq(in->params[0].name, "x_ptr");
    cr_assert_str_eq(in->params[0].type, "*fp32");
    cr_assert_eq(in->params[0].kind, TILEC_TYPE_POINTER);
    cr_assert_eq(in->params[0].divisibility, 16);
    cr_assert_eq(in->params[0].is_constexpr, 0);
    cr_assert_str_eq(in->params[3].type, "i32");
    cr_assert_eq(in->params[3].kind, TILEC_TYPE_INT);
    cr_assert_eq(in->params[3].bits, 32);
    cr_assert_eq(in->params[3].divisibility, 1);
    cr_assert_str_eq(in->params[4].name, "BLOCK_SIZE");
    cr_assert_eq(in->params[4].is_constexpr, 1);
    cr_assert_str_eq(in->params[4].value, "1024");
    cr_assert_not_null(strstr(t->header, "cudaError_t add_kernel_launch(cudaStream_t stream, float *x_ptr, float *y_ptr, "
                                         "float *output_ptr, int32_t n_elements);"));
    cr_assert_eq(t->num_diagnostics, 0);
    cr_assert_str_eq(t->diagnostic_text, "");
    tilec_translation_free(t);
}

/* What a kernel that specialises at launch looks at: Triton's launcher keys, less what the
 * signature already fixes and what @triton.jit's lists leave alone. */
Test(api_translate, what_launch_specialisation_looks_at)
{
    static const char src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "\n"
        "@triton.jit(do_not_specialize=['seed', 4], do_not_specialize_on_alignment=('n',))\n"
        "def k(x_ptr, y_ptr, n, stride, seed, m, w, scale, flag, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs * stride, mask=offs < n)\n"
        "    y = x * scale + seed + m + w\n"
        "    y = tl.where(flag, y, -y)\n"
        "    tl.store(y_ptr + offs, y, mask=offs < n)\n";
    tilec_translate_options o = {.filename = "spec.py",
                                 .signature = "*fp32, *fp32:16, i32, i64, i32, u32, i32:16, fp32, i1, 128",
                                 .specialize = 1};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    const tilec_param *p = t->info.params;
    const int both = TILEC_SPECIALIZE_ONE | TILEC_SPECIALIZE_DIV16;
    cr_expect_eq(p[0].specialize, TILEC_SPECIALIZE_DIV16, "x_ptr, a pointer without :16");
    cr_expect_eq(p[1].specialize, 0, "y_ptr, given :16");
    cr_expect_eq(p[2].specialize, TILEC_SPECIALIZE_ONE, "n, not on its alignment");
    cr_expect_eq(p[3].specialize, both, "stride, an i64");
    cr_expect_eq(p[4].specialize, 0, "seed, do_not_specialize by name and by position");
    cr_expect_eq(p[5].specialize, both, "m, a u32");
    cr_expect_eq(p[6].specialize, 0, "w, given :16");
    cr_expect_eq(p[7].specialize, 0, "scale, a float");
    cr_expect_eq(p[8].specialize, 0, "flag, a bool");
    cr_expect_eq(p[9].specialize, 0, "BLOCK, a constexpr");
    tilec_translation_free(t);

    /* the facts a launch found, in the named form: n == 1 compiled in */
    o.signature = "x_ptr=*fp32:16, y_ptr=*fp32:16, n=1, stride=i64:16, seed=i32, m=u32, w=i32:16, scale=fp32, "
                  "flag=i1, BLOCK=128";
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    cr_expect_eq(t->info.num_args, 8);
    cr_expect_eq(t->info.params[0].divisibility, 16);
    cr_expect_eq(t->info.params[2].is_constexpr, 1);
    cr_expect_str_eq(t->info.params[2].value, "1");
    cr_expect_eq(t->info.params[3].divisibility, 16);
    tilec_translation_free(t);
}

Test(api_translate, unevaluated_jit_lists_specialise_nothing)
{
    static const char src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "\n"
        "@triton.jit(do_not_specialize=LISTS[0])\n"
        "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, 0.0, mask=offs < n)\n";
    tilec_translate_options o = {.filename = "spec.py", .signature = "*fp32, i32, 128"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    cr_expect_eq(t->info.params[0].specialize, 0);
    cr_expect_eq(t->info.params[1].specialize, 0);
    cr_expect_not_null(strstr(t->diagnostic_text, "do_not_specialize of @triton.jit is not evaluated"),
                       "%s", t->diagnostic_text);
    tilec_translation_free(t);
}

Test(api_translate, shared_memory_and_defines)
{
    FILE *f = fopen("examples/softmax.py", "rb");
    cr_assert_not_null(f, "run from the repository root");
    static char src[1 << 16];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    tilec_define d[] = {{"ROWS", "4"}, {"BLOCK_SIZE", "1024"}};
    tilec_translate_options o = {.kernel = "softmax_rows_kernel",
                                 .signature = "*fp32:16, *fp32:16, i32, i32, i32:16, i32:16",
                                 .defines = d,
                                 .num_defines = 2,
                                 .num_warps = 8,
                                 .grid = "cdiv(n_rows, ROWS)"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    cr_assert_eq(t->info.threads_per_block, 256);
    cr_assert_eq(t->info.num_args, 6);
    cr_assert_str_eq(t->info.params[6].value, "4");
    cr_assert_gt(t->info.shared_bytes, 0, "a reduction over warps exchanges partials");
    cr_assert_str_eq(t->info.params[4].name, "in_row_stride");
    cr_assert_eq(t->info.params[4].divisibility, 16);
    tilec_translation_free(t);
}

Test(api_translate, other_outputs_have_no_kernel_metadata)
{
    tilec_translate_options o = add_options();
    o.output = TILEC_OUTPUT_TILEIR;
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_OK);
    cr_assert_not_null(strstr(t->code, "make_range"));
    cr_assert_null(t->header);
    cr_assert_null(t->info.name);
    tilec_translation_free(t);
    o.output = TILEC_OUTPUT_CUDA;
    o.dump = "tokens";
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_OK);
    cr_assert_null(t->info.name);
    tilec_translation_free(t);
}

Test(api_translate, malformed_source_gives_structured_diagnostics)
{
    tilec_translate_options o = {.filename = "bad.py"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source("import triton\n@triton.jit\ndef k(x:\n", &o, &t), TILEC_ERROR_INPUT);
    cr_assert_eq(t->status, TILEC_ERROR_INPUT);
    cr_assert_null(t->code);
    cr_assert_null(t->info.name);
    cr_assert_geq(t->num_diagnostics, 1);
    const tilec_diagnostic *d = &t->diagnostics[0];
    cr_assert_eq(d->severity, TILEC_SEVERITY_ERROR);
    cr_assert_str_eq(d->file, "bad.py");
    cr_assert_eq(d->line, 3);
    cr_assert_eq(d->column, 6);
    cr_assert_str_eq(d->message, "'(' was never closed");
    cr_assert_str_eq(t->diagnostic_text, "bad.py:3:6: error: '(' was never closed\n  def k(x:\n       ^\n");
    cr_assert_str_eq(t->error, "bad.py:3:6: '(' was never closed");
    tilec_translation_free(t);
}

Test(api_translate, nul_inside_the_source_is_an_input_error)
{
    static const char src[] = "import triton\n\0junk\n";
    tilec_translate_options o = {.source_size = sizeof src - 1};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_ERROR_INPUT);
    cr_assert_geq(t->num_diagnostics, 1);
    tilec_translation_free(t);
}

Test(api_translate, unknown_kernel_name)
{
    tilec_translate_options o = add_options();
    o.kernel = "mul_kernel";
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INPUT);
    cr_assert_eq(t->num_diagnostics, 1);
    cr_assert_str_eq(t->diagnostics[0].message, "no @triton.jit function named 'mul_kernel' (found: add_kernel)");
    cr_assert_eq(t->diagnostics[0].line, 0);
    cr_assert_str_eq(t->error, "add.py: no @triton.jit function named 'mul_kernel' (found: add_kernel)");
    tilec_translation_free(t);
}

Test(api_translate, bad_grid_points_into_the_grid)
{
    tilec_translate_options o = add_options();
    o.grid = "cdiv(n_elements, BLOCK)";
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INPUT);
    cr_assert_str_eq(t->diagnostics[0].file, "--grid");
    cr_assert_eq(t->diagnostics[0].column, 18);
    cr_assert_not_null(strstr(t->diagnostics[0].message, "unknown name 'BLOCK'"));
    tilec_translation_free(t);
}

/* Bad options are TILEC_ERROR_INVALID_ARGUMENT with a message naming the option. */
Test(api_translate, bad_options)
{
    static const tilec_define no_value[] = {{"BLOCK_SIZE", NULL}};
    tilec_translate_options base = add_options(), o;
    const char *expect[] = {"num_warps must be 0 (the default) or a power of two from 1 to 32, got 3",
                            "num_stages must be 0 (the default) or a number from 1 to 8, got 9",
                            "arch must be 80 or 90",
                            "signature \"*fp32, 'x\": unterminated quote in the signature",
                            "define 0 needs a name and a value",
                            "dump must be one of tokens",
                            "config must be a non-negative number, got -1",
                            "min_blocks_per_sm must be -1 (none), 0 (tilec decides) or a number from 1 to 32, got 33"};
    for (int i = 0; i < 8; i++) {
        o = base;
        switch (i) {
        case 0: o.num_warps = 3; break;
        case 1: o.num_stages = 9; break;
        case 2: o.arch = 70; break;
        case 3: o.signature = "*fp32, 'x"; break;
        case 4: o.defines = no_value, o.num_defines = 1; break;
        case 5: o.dump = "emit"; break;
        case 6: o.config = -1; break;
        case 7: o.min_blocks_per_sm = 33; break;
        }
        tilec_translation *t;
        cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INVALID_ARGUMENT, "case %d", i);
        cr_assert_not_null(strstr(t->error, expect[i]), "case %d: %s", i, t->error);
        cr_assert_null(t->code);
        tilec_translation_free(t);
    }
}

static const char rows2d_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def rows_kernel(x_ptr, R: tl.constexpr, C: tl.constexpr):\n"
    "    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    tl.store(x_ptr + offs, x * 2.0)\n";

/* The blocks per SM in __launch_bounds__ and in the metadata: what tilec chooses
 * (limits.c, choose_min_blocks), none, or what the caller asks for. */
static int min_blocks_of(const char *src, const char *kernel, const char *sig, int num_warps, int asked,
                         char *bounds, size_t nbounds)
{
    tilec_translate_options o = {.kernel = kernel, .signature = sig, .num_warps = num_warps,
                                 .min_blocks_per_sm = asked};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s %s: %s", kernel, sig,
                 t->diagnostic_text ? t->diagnostic_text : "");
    const char *lb = strstr(t->code, "void __launch_bounds__(");
    cr_assert_not_null(lb);
    lb += strlen("void ");
    snprintf(bounds, nbounds, "%.*s", (int)strcspn(lb, "\n"), lb);
    int k = t->info.min_blocks_per_sm;
    /* tilec's choice applies from sm_90 on; what the caller asks for, everywhere */
    cr_assert_eq(t->info.min_blocks_arch, k && asked == 0 ? 90 : 0);
    tilec_translation_free(t);
    return k;
}

Test(api_translate, min_blocks_per_sm)
{
    char b[64];
    /* 1-D, 32 fp32 registers per thread per tile: room for 64 registers, 4 blocks of 256 */
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 8192", 8, 0, b, sizeof b), 4);
    cr_assert_str_eq(b, "__launch_bounds__(256, 4)");
    /* 64 per thread: room for 128, 4 blocks of 128 */
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 8192", 4, 0, b, sizeof b), 4);
    cr_assert_str_eq(b, "__launch_bounds__(128, 4)");
    /* n not a multiple of 16: the mask is tested per vector at run time, ptxas decides */
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 8192", 8, 0, b, sizeof b), 0);
    cr_assert_str_eq(b, "__launch_bounds__(256)");
    /* too few (4) or too many (128) registers of tile per thread, a 2-D tile: ptxas decides */
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 8, 0, b, sizeof b), 0);
    cr_assert_str_eq(b, "__launch_bounds__(256)");
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 32768", 8, 0, b, sizeof b), 0);
    cr_assert_eq(min_blocks_of(rows2d_py, "rows_kernel", "*fp32:16, 32, 256", 8, 0, b, sizeof b), 0);
    /* asked for: none, or a number */
    cr_assert_eq(min_blocks_of(add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 8192", 8, -1, b, sizeof b), 0);
    cr_assert_str_eq(b, "__launch_bounds__(256)");
    cr_assert_eq(min_blocks_of(rows2d_py, "rows_kernel", "*fp32:16, 32, 256", 8, 2, b, sizeof b), 2);
    cr_assert_str_eq(b, "__launch_bounds__(256, 2)");
    /* more blocks than fit on an SM: an input error at the kernel */
    tilec_translate_options o = {.filename = "add.py", .kernel = "add_kernel", .num_warps = 8, .min_blocks_per_sm = 9,
                                 .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 8192"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INPUT);
    cr_assert_not_null(strstr(t->diagnostic_text, "add.py:5:1: error: --min-blocks 9: at most 8 blocks of 256 threads "
                                                  "fit on an SM"), "%s", t->diagnostic_text);
    tilec_translation_free(t);
}

/* 16-bit vector stores: the predicate inside the PTX where ptxas is held to a register bound
 * (one straight block), a C branch around the store elsewhere. */
static char *code_of(const char *src, const char *kernel, const char *sig, int num_warps)
{
    tilec_translate_options o = {.kernel = kernel, .signature = sig, .num_warps = num_warps};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text ? t->diagnostic_text : "");
    char *code = strdup(t->code);
    tilec_translation_free(t);
    return code;
}

Test(api_translate, narrow_store_form_follows_the_register_bound)
{
    char *bounded = code_of(add_py, "add_kernel", "*fp16:16, *fp16:16, *fp16:16, i32:16, 16384", 8);
    cr_expect(strstr(bounded, "__launch_bounds__(256, "), "%s", bounded);
    cr_expect(strstr(bounded, "tilec::store_global_straight<8>("), "%s", bounded);
    free(bounded);
    char *unbounded = code_of(rows2d_py, "rows_kernel", "*fp16:16, 32, 256", 8);
    cr_expect(strstr(unbounded, "__launch_bounds__(256)\n"), "%s", unbounded);
    cr_expect(strstr(unbounded, "tilec::store_global<8>("), "%s", unbounded);
    cr_expect_null(strstr(unbounded, "tilec::store_global_straight<"), "%s", unbounded);
    free(unbounded);
}

Test(api_translate, null_arguments)
{
    tilec_translation *t = (tilec_translation *)1;
    cr_assert_eq(tilec_translate_source(NULL, NULL, &t), TILEC_ERROR_INVALID_ARGUMENT);
    cr_assert_null(t);
    cr_assert_eq(tilec_translate_source(add_py, NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT);
    tilec_translation_free(NULL);
    cr_assert_str_eq(tilec_status_name(TILEC_ERROR_COMPILE), "TILEC_ERROR_COMPILE");
    cr_assert_str_eq(tilec_version(), TILEC_VERSION_STRING);
}

/* ---- NVRTC -------------------------------------------------------------------------------- */

static tilec_translation *translate_add(void)
{
    tilec_translate_options o = add_options();
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_OK);
    return t;
}

Test(api_compile, missing_nvrtc_is_a_clean_error)
{
    tilec_context_options co = {.nvrtc_library = "/nonexistent/libnvrtc.so.99"};
    tilec_context *ctx;
    cr_assert_eq(tilec_context_create(&co, &ctx), TILEC_OK);
    tilec_translation *t = translate_add();
    tilec_compile_options o = {.arch = 80};
    tilec_binary *b = (tilec_binary *)1;
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b), TILEC_ERROR_NVRTC_NOT_FOUND);
    cr_assert_null(b);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "cannot load NVRTC"));
    cr_assert_not_null(strstr(tilec_context_error(ctx), "/nonexistent/libnvrtc.so.99"));
    int major, minor;
    cr_assert_eq(tilec_nvrtc_version(ctx, &major, &minor), TILEC_ERROR_NVRTC_NOT_FOUND);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_compile, unsupported_arch_returns_the_nvrtc_log)
{
    tilec_context *ctx = no_driver_context();
    tilec_translation *t = translate_add();
    tilec_compile_options o = {.arch = 52};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b), TILEC_ERROR_COMPILE);
    const char *e = tilec_context_error(ctx);
    cr_assert_not_null(strstr(e, "could not compile for sm_52"), "%s", e);
    cr_assert_not_null(strstr(e, "--gpu-architecture"), "the log is part of the message: %s", e);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_compile, bad_cuda_returns_the_nvrtc_log)
{
    tilec_context *ctx = no_driver_context();
    tilec_compile_options o = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, "extern \"C\" __global__ void k() { undeclared(); }", &o, &b), TILEC_ERROR_COMPILE);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "undeclared"), "%s", tilec_context_error(ctx));
    tilec_context_destroy(ctx);
}

Test(api_compile, device_arch_needs_the_driver)
{
    tilec_context *ctx = no_driver_context();
    tilec_translation *t = translate_add();
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, NULL, &b), TILEC_ERROR_DRIVER_NOT_FOUND);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "/nonexistent/libcuda.so.1"));
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_compile, cubin_ptx_report_and_memory_cache)
{
    tilec_context *ctx = no_driver_context();
    tilec_translation *t = translate_add();
    tilec_compile_options o = {.arch = 80};
    tilec_binary *b1, *b2, *p;
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b1), TILEC_OK, "%s", tilec_context_error(ctx));
    cr_assert_eq(b1->kind, TILEC_BINARY_CUBIN);
    cr_assert_eq(b1->arch, 80);
    cr_assert_eq(memcmp(b1->data, "\177ELF", 4), 0);
    cr_assert_eq(b1->from_cache, 0);
    cr_assert_gt(b1->registers, 0);
    cr_assert_eq(b1->spill_store_bytes, 0);
    cr_assert_eq(b1->stack_bytes, 0);
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b2), TILEC_OK);
    cr_assert_eq(b2->from_cache, 1);
    cr_assert_eq(b2->size, b1->size);
    cr_assert_eq(memcmp(b1->data, b2->data, b1->size), 0);
    cr_assert_eq(b2->registers, b1->registers);
    o.kind = TILEC_BINARY_PTX;
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &p), TILEC_OK);
    cr_assert_eq(p->from_cache, 0, "another kind is another key");
    cr_assert_not_null(strstr(p->data, ".entry add_kernel"));
    cr_assert_eq(strlen(p->data), p->size);
    cr_assert_eq(p->registers, -1);
    long hits, misses;
    tilec_cache_stats(ctx, &hits, &misses);
    cr_assert_eq(hits, 1);
    cr_assert_eq(misses, 2);
    tilec_binary_free(b1);
    tilec_binary_free(b2);
    tilec_binary_free(p);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_compile, disk_cache_survives_the_context)
{
    char dir[] = "/tmp/tilec-cache-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char sub[64];
    snprintf(sub, sizeof sub, "%s/c", dir); /* created on first store */
    tilec_context_options co = {.cache_dir = sub, .cuda_library = "/nonexistent/libcuda.so.1"};
    tilec_translation *t = translate_add();
    tilec_compile_options o = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b1, *b2;
    tilec_context *ctx;
    cr_assert_eq(tilec_context_create(&co, &ctx), TILEC_OK);
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b1), TILEC_OK);
    tilec_context_destroy(ctx);
    cr_assert_eq(tilec_context_create(&co, &ctx), TILEC_OK);
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b2), TILEC_OK);
    cr_assert_eq(b2->from_cache, 1);
    cr_assert_eq(b2->size, b1->size);
    cr_assert_str_eq(b2->data, b1->data);
    tilec_context_destroy(ctx);
    tilec_binary_free(b1);
    tilec_binary_free(b2);
    tilec_translation_free(t);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* ---- kernels: the checks before the driver ------------------------------------------------ */

static tilec_kernel *load(tilec_context *ctx, const char *src, const char *kernel, const char *sig, const char *grid)
{
    tilec_translate_options o = {.kernel = kernel, .signature = sig, .grid = grid};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    tilec_compile_options co = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, &co, &b), TILEC_OK, "%s", tilec_context_error(ctx));
    tilec_kernel *k;
    cr_assert_eq(tilec_kernel_load(ctx, t, b, &k), TILEC_OK);
    tilec_binary_free(b);
    tilec_translation_free(t);
    cr_assert_str_eq(tilec_kernel_get_info(k)->name, kernel);
    return k;
}

Test(api_launch, wrong_argument_count)
{
    tilec_context *ctx = no_driver_context();
    tilec_kernel *k = load(ctx, add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                           "cdiv(n_elements, BLOCK_SIZE)");
    tilec_arg args[] = {tilec_devptr(256), tilec_devptr(512), tilec_devptr(1024), tilec_int(10)};
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 3), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx),
                     "add_kernel takes 4 runtime arguments (x_ptr, y_ptr, output_ptr, n_elements), got 3");
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 5), TILEC_ERROR_LAUNCH_ARGS);
    tilec_kernel_destroy(k);
    tilec_context_destroy(ctx);
}

Test(api_launch, argument_kinds_and_ranges)
{
    tilec_context *ctx = no_driver_context();
    tilec_kernel *k = load(ctx, add_py, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                           "cdiv(n_elements, BLOCK_SIZE)");
    tilec_arg args[] = {tilec_devptr(256), tilec_float(1.0), tilec_devptr(1024), tilec_int(10)};
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx), "add_kernel: argument 2 (y_ptr) is *fp32, got a float");
    args[1] = (tilec_arg){.kind = (tilec_type_kind)77, .v.i = 512}; /* was taken for an integer */
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx), "add_kernel: argument 2 (y_ptr) has kind 77, not a tilec_type_kind "
                                               "(make arguments with tilec_devptr, tilec_int, tilec_uint, tilec_float or "
                                               "tilec_bool)");
    args[3] = (tilec_arg){.kind = (tilec_type_kind)77, .v.i = 10};
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    args[1] = tilec_devptr(512);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "argument 4 (n_elements) has kind 77"));
    args[3] = tilec_int(1LL << 40);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx), "add_kernel: argument 4 (n_elements) is i32; 1099511627776 does not fit");
    args[3] = tilec_uint(1u << 31);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    args[3] = tilec_int(-(1LL << 31)); /* fits; the grid is then empty: nothing to launch */
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_OK);
    args[3] = tilec_int(0);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_OK, "cdiv(0, 1024) = 0 programs: no driver needed");
    args[3] = tilec_int(10);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_DRIVER_NOT_FOUND, "one program: needs the driver");
    const unsigned zero[3] = {0, 1, 1};
    cr_assert_eq(tilec_launch(k, NULL, zero, args, 4), TILEC_OK);
    tilec_kernel_destroy(k);
    tilec_context_destroy(ctx);
}

Test(api_launch, float_and_half_scalars_and_no_grid)
{
    tilec_context *ctx = no_driver_context();
    tilec_kernel *k = load(ctx, scale_py, "scale_kernel", "*fp32:16, i32, fp32, fp16, 256", NULL);
    const tilec_kernel_info *in = tilec_kernel_get_info(k);
    cr_assert_eq(in->num_args, 4);
    cr_assert_eq(in->params[2].kind, TILEC_TYPE_FLOAT);
    cr_assert_eq(in->params[2].bits, 32);
    cr_assert_eq(in->params[3].bits, 16);
    tilec_arg args[] = {tilec_devptr(256), tilec_int(100), tilec_float(0.5), tilec_float(1.5)};
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 4), TILEC_ERROR_INVALID_ARGUMENT);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "has no grid expression"));
    args[2] = tilec_int(1);
    const unsigned grid[3] = {1, 1, 1};
    cr_assert_eq(tilec_launch(k, NULL, grid, args, 4), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx), "scale_kernel: argument 3 (alpha) is fp32, got a signed integer");
    args[2] = tilec_float(0.5);
    cr_assert_eq(tilec_launch(k, NULL, grid, args, 4), TILEC_ERROR_DRIVER_NOT_FOUND);
    tilec_kernel_destroy(k);
    tilec_context_destroy(ctx);
}

/* A kernel of one i64 argument n with `grid`, loaded from a binary that is never used: the
 * launches below stop before the driver or at the missing driver. */
static tilec_kernel *grid_kernel(tilec_context *ctx, const char *grid)
{
    tilec_translate_options o = {.kernel = "scale_kernel", .signature = "*fp32:16, i64, 1.0, 1.0, 256", .grid = grid};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(scale_py, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    const tilec_binary unused = {.kind = TILEC_BINARY_PTX, .arch = 80, .data = "// never loaded", .size = 15};
    tilec_kernel *k;
    cr_assert_eq(tilec_kernel_load(ctx, t, &unused, &k), TILEC_OK, "%s", tilec_context_error(ctx));
    tilec_translation_free(t);
    return k;
}

/* tilec_launch with n for the grid: its status, and the message in *message. */
static tilec_status launch_n(tilec_context *ctx, const char *grid, long long n, const char **message)
{
    tilec_kernel *k = grid_kernel(ctx, grid);
    tilec_arg args[] = {tilec_devptr(256), tilec_int(n)};
    tilec_status s = tilec_launch(k, NULL, NULL, args, 2);
    static char text[256];
    snprintf(text, sizeof text, "%s", tilec_context_error(ctx));
    *message = text;
    tilec_kernel_destroy(k);
    return s;
}

/* These trapped (SIGFPE) or wrapped to an empty grid and returned TILEC_OK having launched
 * nothing. */
Test(api_launch, grid_faults_are_launch_errors)
{
    tilec_context *ctx = no_driver_context();
    static const struct {
        const char *grid;
        long long n;
        const char *message;
    } cases[] = {
        {"n // (0 - 1)", LLONG_MIN, "scale_kernel: grid (n // (0 - 1)): -9223372036854775808 // -1 overflows 64-bit integers"},
        {"n % (0 - 1)", LLONG_MIN, "scale_kernel: grid (n % (0 - 1)): -9223372036854775808 % -1 overflows 64-bit integers"},
        {"n * n", 3037000500, "scale_kernel: grid (n * n): 3037000500 * 3037000500 overflows 64-bit integers"},
        {"n + n", LLONG_MAX, "scale_kernel: grid (n + n): 9223372036854775807 + 9223372036854775807 overflows 64-bit integers"},
        {"0 - n", LLONG_MIN, "scale_kernel: grid (0 - n): 0 - -9223372036854775808 overflows 64-bit integers"},
        {"cdiv(n, 7)", LLONG_MAX, "scale_kernel: grid (cdiv(n, 7)): dimension x is 1317624576693539401, beyond the device "
                                  "limit of 2147483647"},
        {"cdiv(1024, n)", 0, "scale_kernel: grid (cdiv(1024, n)): cdiv(1024, 0) divides by zero"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *message;
        cr_expect_eq(launch_n(ctx, cases[i].grid, cases[i].n, &message), TILEC_ERROR_LAUNCH_ARGS, "%s", cases[i].grid);
        cr_expect_str_eq(message, cases[i].message);
    }
    tilec_context_destroy(ctx);
}

Test(api_launch, u64_beyond_the_grid_arithmetic)
{
    tilec_context *ctx = no_driver_context();
    tilec_translate_options o = {.kernel = "scale_kernel", .signature = "*fp32:16, u64, 1.0, 1.0, 256",
                                 .grid = "cdiv(n, BLOCK)"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(scale_py, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    const tilec_binary unused = {.kind = TILEC_BINARY_PTX, .arch = 80, .data = "// never loaded", .size = 15};
    tilec_kernel *k;
    cr_assert_eq(tilec_kernel_load(ctx, t, &unused, &k), TILEC_OK);
    tilec_arg args[] = {tilec_devptr(256), tilec_uint(1ULL << 63)};
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 2), TILEC_ERROR_LAUNCH_ARGS, "it wrapped to an empty grid");
    cr_assert_str_eq(tilec_context_error(ctx),
                     "scale_kernel: grid (cdiv(n, BLOCK)): n = 9223372036854775808 does not fit in 64-bit signed integers");
    args[1] = tilec_uint(256);
    cr_assert_eq(tilec_launch(k, NULL, NULL, args, 2), TILEC_ERROR_DRIVER_NOT_FOUND);
    tilec_kernel_destroy(k);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_launch, grid_limits_and_empty_grids)
{
    tilec_context *ctx = no_driver_context();
    const char *message;
    cr_assert_eq(launch_n(ctx, "n // 2", 1, &message), TILEC_OK, "0 programs: nothing to do, no driver needed");
    cr_assert_eq(launch_n(ctx, "n // 2", -5, &message), TILEC_OK);
    cr_assert_eq(launch_n(ctx, "n // 2", 2, &message), TILEC_ERROR_DRIVER_NOT_FOUND, "one program: needs the driver");
    cr_assert_eq(launch_n(ctx, "1, n", 65535, &message), TILEC_ERROR_DRIVER_NOT_FOUND);
    cr_assert_eq(launch_n(ctx, "1, n", 65536, &message), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(message, "scale_kernel: grid (1, n): dimension y is 65536, beyond the device limit of 65535");
    cr_assert_eq(launch_n(ctx, "0, n", 65536, &message), TILEC_OK, "an empty grid does nothing, however wide");

    tilec_kernel *k = grid_kernel(ctx, NULL);
    tilec_arg args[] = {tilec_devptr(256), tilec_int(1)};
    const unsigned wide[3] = {1, 1, 65536}, empty[3] = {0, 65536, 1}, widest[3] = {0x7fffffffu, 65535, 65535};
    cr_assert_eq(tilec_launch(k, NULL, wide, args, 2), TILEC_ERROR_LAUNCH_ARGS);
    cr_assert_str_eq(tilec_context_error(ctx),
                     "scale_kernel: grid (given to tilec_launch): dimension z is 65536, beyond the device limit of 65535");
    cr_assert_eq(tilec_launch(k, NULL, empty, args, 2), TILEC_OK);
    cr_assert_eq(tilec_launch(k, NULL, widest, args, 2), TILEC_ERROR_DRIVER_NOT_FOUND);
    tilec_kernel_destroy(k);
    tilec_context_destroy(ctx);
}

Test(api_launch, kernel_create_without_a_driver)
{
    tilec_context *ctx = no_driver_context();
    tilec_translate_options o = add_options();
    tilec_kernel *k = (tilec_kernel *)1;
    cr_assert_eq(tilec_kernel_create(ctx, add_py, &o, NULL, &k), TILEC_ERROR_DRIVER_NOT_FOUND);
    cr_assert_null(k);
    tilec_compile_options co = {.arch = 80, .kind = TILEC_BINARY_PTX};
    cr_assert_eq(tilec_kernel_create(ctx, add_py, &o, &co, &k), TILEC_ERROR_DRIVER_NOT_FOUND);
    o.kernel = "nope";
    cr_assert_eq(tilec_kernel_create(ctx, add_py, &o, &co, &k), TILEC_ERROR_INPUT);
    cr_assert_not_null(strstr(tilec_context_error(ctx), "no @triton.jit function named 'nope'"));
    tilec_deviceptr p;
    cr_assert_eq(tilec_mem_alloc(ctx, 16, &p), TILEC_ERROR_DRIVER_NOT_FOUND);
    tilec_context_destroy(ctx);
}

Test(api_embed, generated_c_has_the_launchers)
{
    tilec_context *ctx = no_driver_context();
    tilec_translation *t = translate_add();
    tilec_compile_options o = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, &o, &b), TILEC_OK);
    char *c, *h;
    cr_assert_eq(tilec_generate_embed(ctx, t, (const tilec_binary *const *)&b, 1, &c, &h), TILEC_OK);
    cr_assert_not_null(strstr(h, "CUresult add_kernel_launch(const add_kernel_module *m, CUstream stream, CUdeviceptr "
                                 "x_ptr, CUdeviceptr y_ptr, CUdeviceptr output_ptr, int32_t n_elements);"));
    cr_assert_not_null(strstr(c, "const long long gx = tilec_cdiv((long long)n_elements, 1024ll), gy = 1, gz = 1;"));
    cr_assert_not_null(strstr(c, "{80, 1, add_kernel_image0}"));
    tilec_free(c);
    tilec_free(h);
    tilec_binary_free(b);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

/* Parameter names the launchers use themselves (m, args, stream) or C keeps (int) take a
 * '_' in every file: the kernel, its launcher, the header and the embedded-binary C. */
Test(api_embed, parameter_names_taken_by_c_are_renamed)
{
    static const char src[] = "import triton\nimport triton.language as tl\n\n@triton.jit\n"
                              "def k(m, args, stream, int, BLOCK: tl.constexpr):\n"
                              "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                              "    tl.store(m + offs, tl.load(args + offs) + int, mask=offs < stream)\n";
    tilec_translate_options o = {.filename = "k.py", .kernel = "k", .signature = "*fp32:16, *fp32:16, i32, i32, 128",
                                 .grid = "cdiv(stream, BLOCK)"};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(src, &o, &t), TILEC_OK, "%s", t->error);
    cr_assert_str_eq(t->info.params[0].name, "m", "the API keeps the source's names");
    cr_assert_not_null(strstr(t->code, "k(float *__restrict__ m_, float *__restrict__ args_, int32_t stream_, int32_t int_)"));
    cr_assert_not_null(strstr(t->code, "k<<<grid, 128, 0, stream>>>(m_, args_, stream_, int_);"));
    cr_assert_not_null(strstr(t->header, "cudaError_t k_launch(cudaStream_t stream, float *m_, float *args_, "
                                         "int32_t stream_, int32_t int_);"));
    tilec_context *ctx = no_driver_context();
    tilec_compile_options co = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, &co, &b), TILEC_OK, "%s", tilec_context_error(ctx));
    char *c, *h;
    cr_assert_eq(tilec_generate_embed(ctx, t, (const tilec_binary *const *)&b, 1, &c, &h), TILEC_OK);
    cr_assert_not_null(strstr(h, "CUresult k_launch(const k_module *m, CUstream stream, CUdeviceptr m_, CUdeviceptr args_, "
                                 "int32_t stream_, int32_t int_);"));
    cr_assert_not_null(strstr(c, "const long long gx = tilec_cdiv((long long)stream_, 128ll), gy = 1, gz = 1;"));
    cr_assert_not_null(strstr(c, "void *args[] = {&m_, &args_, &stream_, &int_};"));
    tilec_free(c);
    tilec_free(h);
    tilec_binary_free(b);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

Test(api_embed, bad_binaries_are_argument_errors)
{
    tilec_context *ctx = no_driver_context();
    tilec_translation *t = translate_add();
    const tilec_binary ptx = {.kind = TILEC_BINARY_PTX, .arch = 80, .data = "// PTX", .size = 6},
                       empty = {.kind = TILEC_BINARY_CUBIN, .arch = 90},
                       odd = {.kind = (tilec_binary_kind)5, .arch = 90, .data = "x", .size = 1};
    const tilec_binary *with_null[] = {&ptx, NULL}, *with_empty[] = {&empty}, *with_odd[] = {&ptx, &odd};
    char *c = (char *)1, *h = (char *)1;
    cr_assert_eq(tilec_generate_embed(ctx, t, with_null, 2, &c, &h), TILEC_ERROR_INVALID_ARGUMENT, "it crashed");
    cr_assert_str_eq(tilec_context_error(ctx), "tilec_generate_embed: bins[1] is NULL");
    cr_assert_null(c);
    cr_assert_null(h);
    cr_assert_eq(tilec_generate_embed(ctx, t, with_empty, 1, &c, &h), TILEC_ERROR_INVALID_ARGUMENT);
    cr_assert_str_eq(tilec_context_error(ctx), "tilec_generate_embed: bins[0] has no data");
    cr_assert_eq(tilec_generate_embed(ctx, t, with_odd, 2, &c, &h), TILEC_ERROR_INVALID_ARGUMENT);
    cr_assert_str_eq(tilec_context_error(ctx), "tilec_generate_embed: bins[1] has kind 5, neither a cubin nor PTX");
    cr_assert_eq(tilec_generate_embed(ctx, t, with_null, 1, &c, &h), TILEC_OK, "the first binary alone is fine");
    tilec_free(c);
    tilec_free(h);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

/* ptxas's report of a module with several kernels (a .cu with variants): the worst of each. */
void rt_parse_ptxas_report(const char *log, tilec_binary *b); /* src/runtime/nvrtc.c */

Test(api_compile, ptxas_report_takes_the_worst_kernel)
{
    static const char log[] =
        "ptxas info    : Compiling entry function 'k_v1' for 'sm_90'\n"
        "ptxas info    : Function properties for k_v1\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 40 registers, used 1 barriers, 512 bytes smem\n"
        "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        "ptxas info    : Function properties for k\n"
        "    24 bytes stack frame, 20 bytes spill stores, 16 bytes spill loads\n"
        "ptxas info    : Used 255 registers, used 1 barriers\n";
    tilec_binary b = {0};
    rt_parse_ptxas_report(log, &b);
    cr_expect_eq(b.registers, 255);
    cr_expect_eq(b.stack_bytes, 24);
    cr_expect_eq(b.spill_store_bytes, 20);
    cr_expect_eq(b.spill_load_bytes, 16);
    cr_expect_eq(b.static_shared_bytes, 512);
    rt_parse_ptxas_report("nothing", &b);
    cr_expect_eq(b.registers, -1);
    cr_expect_eq(b.spill_store_bytes, -1);
}

/* --variant through the library: the .cu holds every variant and a dispatching launcher; the
 * functions that launch one kernel themselves refuse such a translation. */
Test(api_variants, translated_dispatched_and_refused_where_one_kernel_runs)
{
    const char *const variants[] = {"n_elements=i32:16", "x_ptr=*fp32:16, y_ptr=*fp32:16, n_elements=i32:16",
                                    "n_elements=1"};
    tilec_translate_options o = {.filename = "add.py", .kernel = "add_kernel",
                                 .signature = "*fp32, *fp32, *fp32, i32, 1024",
                                 .grid = "cdiv(n_elements, BLOCK_SIZE)", .variants = variants, .num_variants = 3};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    const char *v1 = strstr(t->code, "namespace variant1"), *v2 = strstr(t->code, "namespace variant2"),
               *v3 = strstr(t->code, "namespace variant3");
    cr_assert(v1 && v2 && v3 && v1 < v2 && v2 < v3, "each variant in its namespace, in order");
    cr_expect_not_null(strstr(t->code, "add_kernel_v3(float *__restrict__ x_ptr, float *__restrict__ y_ptr, "
                                       "float *__restrict__ output_ptr)"), "n_elements compiled in as 1");
    /* tested most facts first: variant 2 (3 facts), then 1 and 3 (one each) in the order given */
    const char *t2 = strstr(t->code, "if ((uintptr_t)x_ptr % 16 == 0 && (uintptr_t)y_ptr % 16 == 0 && "
                                     "n_elements % 16 == 0) {");
    const char *t1 = strstr(t->code, "if (n_elements % 16 == 0) {");
    const char *t3 = strstr(t->code, "if (n_elements == 1) {");
    cr_assert(t1 && t2 && t3 && t2 < t1 && t1 < t3, "the launcher's tests:\n%s", t->code);
    cr_expect_not_null(strstr(t3, "variant3::add_kernel_v3<<<grid, 128, 0, stream>>>(x_ptr, y_ptr, output_ptr);"));
    cr_expect_eq(t->info.num_args, 4, "the metadata is the kernel as written");

    tilec_context *ctx = no_driver_context();
    const tilec_binary ptx = {.kind = TILEC_BINARY_PTX, .arch = 80, .data = "// PTX", .size = 6};
    const tilec_binary *bins[] = {&ptx};
    char *c, *h;
    cr_expect_eq(tilec_generate_embed(ctx, t, bins, 1, &c, &h), TILEC_ERROR_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(tilec_context_error(ctx), "has variants"), "%s", tilec_context_error(ctx));
    tilec_kernel *k = (tilec_kernel *)1;
    cr_expect_eq(tilec_kernel_create(ctx, add_py, &o, NULL, &k), TILEC_ERROR_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(tilec_context_error(ctx), "set specialize"), "%s", tilec_context_error(ctx));
    tilec_translation_free(t);

    o.output = TILEC_OUTPUT_TILEIR;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(t->error, "variants go with CUDA output"), "%s", t->error);
    tilec_translation_free(t);
    o.output = TILEC_OUTPUT_CUDA;
    o.num_variants = TILEC_MAX_VARIANTS_FOR_TEST + 1;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INVALID_ARGUMENT);
    tilec_translation_free(t);
    const char *const bad[] = {"i32:16"};
    o.variants = bad;
    o.num_variants = 1;
    cr_assert_eq(tilec_translate_source(add_py, &o, &t), TILEC_ERROR_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(t->error, "each entry names its parameter"), "%s", t->error);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

/* No line of generated C may start outside the comment that user text was put in. */
static void expect_inert(const char *what, const char *text)
{
    cr_expect_null(strstr(text, "\n#error"), "%s: a live #error:\n%s", what, text);
    cr_expect_null(strstr(text, "\n#define EVIL"), "%s: a live #define:\n%s", what, text);
    cr_expect_null(strstr(text, "*/ int evil"), "%s: a block comment ended early", what);
    cr_expect_null(strchr(text, '\r'), "%s: a carriage return", what);
}

Test(api_embed, user_text_in_comments_stays_there)
{
    static const char note_py[] =
        "import triton\n"
        "import triton.language as tl\n"
        "\n"
        "@triton.jit\n"
        "def note_kernel(x_ptr, n, NOTE: tl.constexpr, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, 1.0, mask=offs < n)\n";
    tilec_translate_options o = {
        .filename = "dir*/ int evil;\n#define EVIL 1\n/*\\",
        .signature = "*fp32:16, i32, 'a\n#error in a value\r#error after a CR', 256",
        .grid = "cdiv(n, BLOCK) # */ int evil; #error in the grid", /* one line: --grid refuses more */
        .command = "tilec note.py\n#error in the command\\",
    };
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(note_py, &o, &t), TILEC_OK, "%s", t->diagnostic_text);
    expect_inert(".cu", t->code);
    expect_inert(".h", t->header);
    cr_expect_not_null(strstr(t->code, "// Regenerate: tilec note.py\\n#error in the command\\x5c\n"));
    cr_expect_not_null(strstr(t->code, "grid (cdiv(n, BLOCK) # *\\/ int evil; #error in the grid)\n"));
    tilec_context *ctx = no_driver_context();
    tilec_compile_options co = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b;
    cr_assert_eq(tilec_compile(ctx, t->code, &co, &b), TILEC_OK, "%s", tilec_context_error(ctx));
    char *c, *h;
    cr_assert_eq(tilec_generate_embed(ctx, t, (const tilec_binary *const *)&b, 1, &c, &h), TILEC_OK);
    expect_inert("embed .c", c);
    expect_inert("embed .h", h);
    cr_expect_not_null(strstr(c, "from dir*\\/ int evil;\\n#define EVIL 1\\n/\\*\\x5c (kernel note_kernel)"));
    tilec_free(c);
    tilec_free(h);
    tilec_binary_free(b);
    tilec_translation_free(t);
    tilec_context_destroy(ctx);
}

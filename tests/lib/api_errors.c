/*
 * api_errors.c — every error path of the API once, in one plain process, so that valgrind
 * and ASan can watch it (Criterion forks, which they follow badly): malformed source, bad
 * options, a kernel name that does not exist, a bad grid, missing libnvrtc, an NVRTC
 * failure (unsupported architecture), launches with a wrong argument count and kind, a
 * grid that overflows or is beyond the device's limits, a missing driver, NULL arguments
 * (also inside the binaries given to tilec_generate_embed).  Each must return the expected code with a message, and
 * everything is freed.  Exit status 0 when all behave; the leak check is the tool's.
 *
 *   api_errors                         (make lib-test runs it plain, under valgrind, under ASan)
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tilec.h"

static const char add_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),\n"
    "             mask=offs < n)\n";

static int failures;

static void expect(const char *what, tilec_status got, tilec_status want, const char *message, const char *needle)
{
    bool ok = got == want && message && (!needle || strstr(message, needle));
    printf("%s %-40s %s: %.100s\n", ok ? "ok  " : "FAIL", what, tilec_status_name(got), message ? message : "(none)");
    failures += !ok;
}

static void translate_errors(void)
{
    tilec_translation *t;
    tilec_translate_options o = {.filename = "bad.py"};
    tilec_status s = tilec_translate_source("@triton.jit\ndef k(x:\n", &o, &t);
    expect("malformed source", s, TILEC_ERROR_INPUT, t->diagnostic_text, "bad.py:2:6: error:");
    tilec_translation_free(t);

    o = (tilec_translate_options){.kernel = "add_kernel", .signature = "*fp32, *fp32, *fp32, i32, 1024", .num_warps = 3};
    s = tilec_translate_source(add_py, &o, &t);
    expect("bad option (num_warps)", s, TILEC_ERROR_INVALID_ARGUMENT, t->error, "num_warps");
    tilec_translation_free(t);

    o.num_warps = 4;
    o.signature = "*fp32, 'x";
    s = tilec_translate_source(add_py, &o, &t);
    expect("bad option (signature)", s, TILEC_ERROR_INVALID_ARGUMENT, t->error, "unterminated quote");
    tilec_translation_free(t);

    o.signature = "*fp32, *fp32, *fp32, i32, 1024";
    o.kernel = "mul_kernel";
    s = tilec_translate_source(add_py, &o, &t);
    expect("kernel name that does not exist", s, TILEC_ERROR_INPUT, t->error, "no @triton.jit function named");
    tilec_translation_free(t);

    o.kernel = "add_kernel";
    o.grid = "cdiv(n, BLOCK_SIZE)";
    s = tilec_translate_source(add_py, &o, &t);
    expect("bad grid", s, TILEC_ERROR_INPUT, t->diagnostic_text, "--grid:1:9: error: unknown name");
    tilec_translation_free(t);

    s = tilec_translate_source(NULL, &o, &t);
    expect("NULL source", s, TILEC_ERROR_INVALID_ARGUMENT, t ? "not NULL" : "", NULL);
}

static void compile_and_launch_errors(void)
{
    tilec_translate_options o = {.kernel = "add_kernel", .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                                 .grid = "cdiv(n, BLOCK)"};
    tilec_translation *t;
    if (tilec_translate_source(add_py, &o, &t) != TILEC_OK) {
        printf("FAIL cannot translate the test kernel\n%s", t->diagnostic_text);
        failures++;
        tilec_translation_free(t);
        return;
    }
    tilec_context *ctx;
    tilec_context_options co = {.nvrtc_library = "/nonexistent/libnvrtc.so", .cuda_library = "/nonexistent/libcuda.so.1"};
    tilec_context_create(&co, &ctx);
    tilec_compile_options c80 = {.arch = 80, .kind = TILEC_BINARY_PTX};
    tilec_binary *b = NULL;
    tilec_status s = tilec_compile(ctx, t->code, &c80, &b);
    expect("missing libnvrtc", s, TILEC_ERROR_NVRTC_NOT_FOUND, tilec_context_error(ctx), "cannot load NVRTC");
    tilec_context_destroy(ctx);

    co.nvrtc_library = NULL;
    tilec_context_create(&co, &ctx);
    tilec_compile_options c52 = {.arch = 52};
    s = tilec_compile(ctx, t->code, &c52, &b);
    expect("NVRTC failure (sm_52)", s, TILEC_ERROR_COMPILE, tilec_context_error(ctx), "could not compile for sm_52");

    s = tilec_compile(ctx, t->code, &c80, &b);
    expect("compile (PTX for compute_80)", s, TILEC_OK, s ? tilec_context_error(ctx) : "", NULL);
    if (s == TILEC_OK) {
        tilec_kernel *k;
        s = tilec_kernel_load(ctx, t, b, &k);
        expect("kernel from translation + binary", s, TILEC_OK, "", NULL);
        tilec_arg args[4] = {tilec_devptr(256), tilec_devptr(512), tilec_devptr(768), tilec_int(100)};
        s = tilec_launch(k, NULL, NULL, args, 3);
        expect("launch with 3 arguments of 4", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx),
               "add_kernel takes 4 runtime arguments (x_ptr, y_ptr, out_ptr, n), got 3");
        args[0] = tilec_float(1.0);
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("launch with a float for a pointer", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx), "got a float");
        args[0] = tilec_devptr(256);
        args[3] = (tilec_arg){.kind = (tilec_type_kind)77, .v.i = 100};
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("launch with an unknown kind (77)", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx),
               "argument 4 (n) has kind 77, not a tilec_type_kind");
        args[3] = tilec_int(100);
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("launch without a driver", s, TILEC_ERROR_DRIVER_NOT_FOUND, tilec_context_error(ctx),
               "cannot load the CUDA driver");
        tilec_kernel_destroy(k);
        const tilec_binary *bins[] = {b, NULL};
        char *c_file, *h_file;
        s = tilec_generate_embed(ctx, t, bins, 2, &c_file, &h_file);
        expect("embed with a NULL binary", s, TILEC_ERROR_INVALID_ARGUMENT, tilec_context_error(ctx),
               "bins[1] is NULL");
        tilec_binary_free(b);
    }
    tilec_kernel *k2 = NULL;
    o.kernel = "nope";
    s = tilec_kernel_create(ctx, add_py, &o, &c80, &k2);
    expect("kernel_create, unknown kernel", s, TILEC_ERROR_INPUT, tilec_context_error(ctx), "nope");
    tilec_context_destroy(ctx);
    tilec_translation_free(t);
}

/* The grid computed at launch: faults are errors with a message, never a signal. */
static void grid_errors(void)
{
    tilec_translate_options o = {.kernel = "add_kernel", .signature = "*fp32:16, *fp32:16, *fp32:16, i64, 1024",
                                 .grid = "n // (0 - 1), n * n"};
    tilec_translation *t;
    if (tilec_translate_source(add_py, &o, &t) != TILEC_OK) {
        printf("FAIL cannot translate the grid test kernel\n%s", t->diagnostic_text);
        failures++;
        tilec_translation_free(t);
        return;
    }
    tilec_context *ctx;
    tilec_context_options co = {.cuda_library = "/nonexistent/libcuda.so.1"};
    tilec_context_create(&co, &ctx);
    const tilec_binary unused = {.kind = TILEC_BINARY_PTX, .arch = 80, .data = "// never loaded", .size = 15};
    tilec_kernel *k;
    tilec_status s = tilec_kernel_load(ctx, t, &unused, &k);
    expect("kernel for the grid tests", s, TILEC_OK, "", NULL);
    if (s == TILEC_OK) {
        tilec_arg args[4] = {tilec_devptr(256), tilec_devptr(512), tilec_devptr(768), tilec_int(LLONG_MIN)};
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("grid LLONG_MIN // -1", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx),
               "dimension x: -9223372036854775808 // -1 overflows 64-bit integers");
        args[3] = tilec_int(-3037000500);
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("grid n * n beyond 64 bits", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx),
               "dimension y: -3037000500 * -3037000500 overflows 64-bit integers");
        args[3] = tilec_int(-65536);
        s = tilec_launch(k, NULL, NULL, args, 4);
        expect("grid beyond the device limit", s, TILEC_ERROR_LAUNCH_ARGS, tilec_context_error(ctx),
               "dimension y is 4294967296, beyond the device limit of 65535");
        tilec_kernel_destroy(k);
    }
    tilec_context_destroy(ctx);
    tilec_translation_free(t);
}

int main(void)
{
    translate_errors();
    compile_and_launch_errors();
    grid_errors();
    printf("api_errors: %d failed\n", failures);
    return failures != 0;
}

/*
 * explorer_api.c — the explorer through the library: tilec_translate_source with
 * TILEC_OUTPUT_HTML returns the page (the same bytes twice, nothing fetched from outside
 * it), TILEC_OUTPUT_SVG one value's grid (one cell per element), a misuse of `value` or
 * `report` is refused, and, where NVRTC loads, a cubin's ptxas numbers reach the page's
 * summary.  Exit status 0 when all hold.
 *
 *   explorer_api                         (make lib-test runs it)
 */
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
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)\n";

static int failures;

static void check(bool ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static tilec_translation *translate(tilec_output out, const char *value, const tilec_binary *report)
{
    tilec_translate_options o = {.filename = "add.py", .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 256",
                                 .output = out, .value = value, .report = report};
    tilec_translation *t = NULL;
    tilec_translate_source(add_py, &o, &t);
    return t;
}

int main(void)
{
    tilec_translation *a = translate(TILEC_OUTPUT_HTML, NULL, NULL), *b = translate(TILEC_OUTPUT_HTML, NULL, NULL);
    check(a && a->status == TILEC_OK && !strncmp(a->code, "<!DOCTYPE html>", 15), "TILEC_OUTPUT_HTML returns a page");
    check(a && b && a->code_size == b->code_size && !memcmp(a->code, b->code, a->code_size),
          "the same input gives the same bytes");
    check(a && strstr(a->code, "data-loc=\"add.py:6\"") && count(a->code, "<script") == 2 && !strstr(a->code, "src=") &&
              !strstr(a->code, "href=\"http") && !strstr(a->code, "@import"),
          "the page links add.py:6 and loads nothing from outside itself");
    tilec_translation_free(a);
    tilec_translation_free(b);

    tilec_translation *s = translate(TILEC_OUTPUT_SVG, "x", NULL);
    check(s && s->status == TILEC_OK && count(s->code, "<rect ") == 256 && strstr(s->code, "data-owners=\"0:0\""),
          "TILEC_OUTPUT_SVG draws x: 256 cells, element 0 in thread 0's register 0");
    tilec_translation_free(s);
    s = translate(TILEC_OUTPUT_SVG, "no_such_value", NULL);
    check(s && s->status == TILEC_ERROR_INPUT && strstr(s->error, "names no tile value"), "an unknown value is an error");
    tilec_translation_free(s);
    s = translate(TILEC_OUTPUT_SVG, NULL, NULL);
    check(s && s->status == TILEC_ERROR_INVALID_ARGUMENT, "TILEC_OUTPUT_SVG without a value is refused");
    tilec_translation_free(s);
    s = translate(TILEC_OUTPUT_CUDA, "x", NULL);
    check(s && s->status == TILEC_ERROR_INVALID_ARGUMENT, "a value without TILEC_OUTPUT_SVG is refused");
    tilec_translation_free(s);

    /* registers and spills in the page, where NVRTC is there to compile */
    tilec_context *ctx = NULL;
    tilec_translation *cu = translate(TILEC_OUTPUT_CUDA, NULL, NULL);
    tilec_binary *bin = NULL;
    tilec_compile_options co = {.arch = 80, .kind = TILEC_BINARY_CUBIN};
    if (tilec_context_create(NULL, &ctx) == TILEC_OK && cu && tilec_compile(ctx, cu->code, &co, &bin) == TILEC_OK) {
        tilec_translation *p = translate(TILEC_OUTPUT_HTML, NULL, bin);
        char want[64];
        snprintf(want, sizeof want, "%d per thread (ptxas, sm_80)", bin->registers);
        check(p && p->status == TILEC_OK && strstr(p->code, want), "report: the page shows ptxas's registers");
        tilec_translation_free(p);
        p = translate(TILEC_OUTPUT_CUDA, NULL, bin);
        check(p && p->status == TILEC_ERROR_INVALID_ARGUMENT, "report without TILEC_OUTPUT_HTML is refused");
        tilec_translation_free(p);
    } else {
        printf("skip report (NVRTC: %s)\n", ctx ? tilec_context_error(ctx) : "no context");
    }
    tilec_binary_free(bin);
    tilec_translation_free(cu);
    tilec_context_destroy(ctx);
    return failures ? 1 : 0;
}

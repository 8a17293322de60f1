/* test_builtins.c — the builtin table's argument binder (builtins.c): every
 * builtin binds its positional and keyword arguments as Python binds a call
 * to a signature, fills in the table's defaults, and reports each kind of
 * mistake with one message, at the argument it concerns. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static Ctx ctx;
static Source src;
static StrBuf out;
static char text[1024];

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&out);
}

/* Line 8 of the kernel is "    y = EXPR", so EXPR starts at column 9. */
static const char *kernel(const char *expr)
{
    snprintf(text, sizeof text,
             "import triton\n"
             "import triton.language as tl\n"
             "\n"
             "@triton.jit\n"
             "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
             "    offs = tl.arange(0, BLOCK)\n"
             "    x = tl.load(x_ptr + offs)\n"
             "    y = %s\n"
             "    tl.store(x_ptr + offs, y)\n",
             expr);
    return text;
}

/* Translates the kernel around `expr` up to the lowering; returns its status,
 * the dump in `out` and the diagnostics in ctx.log. */
static int lower(const char *expr)
{
    reset();
    const char *source = kernel(expr);
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, "*fp32:16, i32, 64", &opt.lower, &err), "bad signature: %s", err);
    opt.emit = EMIT_TILEIR;
    opt.dump = "lower";
    return tilec_translate(&ctx, &opt, &out);
}

static const char *log_text(void) { return ctx.log.data ? ctx.log.data : ""; }

TestSuite(builtins, .fini = reset);

/* ---- one message per kind of mistake ---------------------------------------------- */

typedef struct BindError {
    char expr[64];
    char want[96]; /* "t.py:8:COL: error: ..." */
} BindError;

ParameterizedTestParameters(builtins, bind_errors)
{
    static BindError cases[] = {
        /* too many positional arguments: at the first one too many */
        {"tl.where(x > 0, x, x, x)", "t.py:8:31: error: tl.where takes 3 arguments, got 4"},
        {"tl.sum(x, 0, False, tl.float32, 1)", "t.py:8:41: error: tl.sum takes at most 4 arguments, got 5"},
        {"abs(x, x)", "t.py:8:16: error: abs() takes 1 argument, got 2"},
        {"tl.debug_barrier(x)", "t.py:8:26: error: tl.debug_barrier takes no arguments, got 1"},
        /* a method's receiver is not counted */
        {"x.sum(0, False, tl.float32, 1)", "t.py:8:37: error: .sum() takes at most 3 arguments, got 4"},
        {"x.dtype.is_int(1)", "t.py:8:24: error: dtype.is_int() takes no arguments, got 1"},
        /* an unknown keyword: at the keyword */
        {"tl.sum(x, axes=0)", "t.py:8:19: error: tl.sum got an unexpected keyword argument 'axes'"},
        {"x.sum(axes=0)", "t.py:8:15: error: .sum() got an unexpected keyword argument 'axes'"},
        {"min(x, key=1)", "t.py:8:16: error: min() got an unexpected keyword argument 'key'"},
        /* "*dims" takes positional arguments only, as in Python */
        {"tl.trans(x, dims=(0,))", "t.py:8:21: error: tl.trans got an unexpected keyword argument 'dims'"},
        /* a required argument missing: at the call */
        {"tl.where(x > 0, x)", "t.py:8:9: error: tl.where is missing its argument 'y'"},
        {"x.to()", "t.py:8:9: error: .to() is missing its argument 'dtype'"},
        {"triton.cdiv(n)", "t.py:8:9: error: triton.cdiv is missing its argument 'div'"},
        /* an argument given twice: at the keyword */
        {"tl.sum(x, 0, axis=0)", "t.py:8:22: error: tl.sum got multiple values for argument 'axis'"},
        {"x.sum(input=x)", "t.py:8:15: error: .sum() got multiple values for argument 'input'"},
    };
    return cr_make_param_array(BindError, cases, ARRAY_LEN(cases));
}

ParameterizedTest(BindError *c, builtins, bind_errors)
{
    cr_assert_neq(lower(c->expr), 0, "%s should not translate", c->expr);
    cr_expect(strstr(log_text(), c->want), "%s: expected '%s' in:\n%s", c->expr, c->want, log_text());
}

/* ---- defaults ----------------------------------------------------------------------------- */

/* Each of `same` lowers to the IR of the first; `other` to something else
 * (so the comparison can fail). */
typedef struct Defaults {
    char same[3][64];
    char other[64];
} Defaults;

ParameterizedTestParameters(builtins, defaults)
{
    static Defaults cases[] = {
        {{"tl.sum(x)", "tl.sum(x, None, False, None)", "tl.sum(x, keep_dims=None, dtype=None)"},
         "tl.sum(x, 0, True)"},
        {{"tl.cumsum(x)", "tl.cumsum(x, 0, False)", "tl.cumsum(x, axis=None, reverse=None)"},
         "tl.cumsum(x, reverse=True)"},
        {{"tl.randint(7, offs)", "tl.randint(7, offs, 10)", "tl.randint(7, offs, n_rounds=None)"},
         "tl.randint(7, offs, n_rounds=7)"},
        {{"x.to(tl.int32)", "x.to(tl.int32, None, False)", "x.to(tl.int32, bitcast=None)"},
         "x.to(tl.int32, bitcast=True)"},
        {{"tl.max(x, 0)", "tl.max(x, 0, False, True, False)", "tl.max(x, 0, return_indices=None)"},
         "tl.max(x, 0, keep_dims=True)"},
    };
    return cr_make_param_array(Defaults, cases, ARRAY_LEN(cases));
}

/* the dump of `expr`, copied out of `out` */
static char *dump_of(const char *expr)
{
    cr_assert_eq(lower(expr), 0, "%s failed:\n%s", expr, log_text());
    return strdup(out.data);
}

ParameterizedTest(Defaults *c, builtins, defaults)
{
    char *first = dump_of(c->same[0]);
    for (int i = 1; i < 3; i++) {
        char *d = dump_of(c->same[i]);
        cr_expect_str_eq(d, first, "%s lowers differently from %s", c->same[i], c->same[0]);
        free(d);
    }
    char *d = dump_of(c->other);
    cr_expect_str_neq(d, first, "%s should lower differently from %s", c->other, c->same[0]);
    free(d);
    free(first);
}

/* ---- variadic parameters ---------------------------------------------------------------- */

/* "*dims" collects the positional arguments; a single tuple stands for them all */
Test(builtins, rest_parameter)
{
    char *spread = dump_of("tl.sum(tl.broadcast_to(tl.expand_dims(x, 0), 2, 64), 0)");
    char *tuple = dump_of("tl.sum(tl.broadcast_to(tl.expand_dims(x, 0), (2, 64)), 0)");
    cr_expect_str_eq(spread, tuple);
    free(spread);
    free(tuple);
}

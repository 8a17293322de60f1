/* test_grid.c — the launch grid (src/tileir/grid.c): the checked evaluator that the
 * library runs at launch, on the values that used to trap or wrap, and the device limits.
 * Grids are read from text against one kernel, as --grid reads them. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <setjmp.h>
#include <string.h>

#include "driver.h"

/* Parameters 1..3 are the runtime integers a, b (i64) and c (i32); BLOCK is 1024. */
static const char kernel_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, a, b, c, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + a + b + c)\n";
static const char kernel_sig[] = "*fp32:16, i64, i64, i32, 1024";

static Ctx ctx;
static Source src;
static const TirFunc *kernel;

static void translate_kernel(void)
{
    src = (Source){"k.py", kernel_py, strlen(kernel_py)};
    ctx = (Ctx){.src = &src};
    TranslateOptions opt = {.emit = EMIT_TILEIR, .dump = "layouts", .result = (TirFunc **)&kernel};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, kernel_sig, &opt.lower, &err), "%s", err);
    StrBuf out = {0};
    cr_assert_eq(tilec_translate(&ctx, &opt, &out), 0, "%s", ctx.log.data);
    sb_free(&out);
}

static void free_kernel(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
}

/* `text` read against the kernel; fails the test with the diagnostics when it is not a grid. */
static GridProg read_grid(const char *text)
{
    GridProg g;
    jmp_buf jb;
    ctx.on_error = &jb;
    if (setjmp(jb))
        cr_assert_fail("--grid \"%s\": %s", text, ctx.log.data);
    tir_grid_compile(&ctx, kernel, text, &g);
    ctx.on_error = NULL;
    ctx.src = &src;
    return g;
}

typedef struct EvalCase {
    char grid[40];
    long long a, b, c;
    long long dims[3];     /* when message is empty */
    char message[80];      /* the evaluator's complaint */
} EvalCase;

ParameterizedTestParameters(grid, eval)
{
    static EvalCase cases[] = {
        {"cdiv(a, BLOCK)", 1000, 0, 0, {1, 1, 1}, ""},
        {"cdiv(a, BLOCK)", 0, 0, 0, {0, 1, 1}, ""},
        {"cdiv(a, BLOCK), b, c", 2049, 3, 4, {3, 3, 4}, ""},
        {"a // b, a % b", -7, 2, 0, {-3, -1, 1}, ""}, /* C's truncation, as the launcher */
        {"cdiv(a, b)", -7, 2, 0, {-3, 1, 1}, ""},
        {"min(a, b), max(a, b)", 5, 9, 0, {5, 9, 1}, ""},
        /* these trapped (SIGFPE) or wrapped to a grid of 0 that launched nothing */
        {"a // (0 - 1)", LLONG_MIN, 0, 0, {0}, "-9223372036854775808 // -1 overflows 64-bit integers"},
        {"a % (0 - 1)", LLONG_MIN, 0, 0, {0}, "-9223372036854775808 % -1 overflows 64-bit integers"},
        {"a * a", 3037000500, 0, 0, {0}, "3037000500 * 3037000500 overflows 64-bit integers"},
        {"a + a", LLONG_MAX, 0, 0, {0}, "9223372036854775807 + 9223372036854775807 overflows 64-bit integers"},
        {"0 - a", LLONG_MIN, 0, 0, {0}, "0 - -9223372036854775808 overflows 64-bit integers"},
        {"a // b", 5, 0, 0, {0}, "5 // 0 divides by zero"},
        {"a % b", 5, 0, 0, {0}, "5 % 0 divides by zero"},
        {"cdiv(a, b)", 5, 0, 0, {0}, "cdiv(5, 0) divides by zero"},
        {"cdiv(a, b)", LLONG_MIN, -1, 0, {0}, "cdiv(-9223372036854775808, -1) overflows 64-bit integers"},
        {"a, b // c", 1, 3, 0, {0}, "dimension y: 3 // 0 divides by zero"},
        /* cdiv of positive operands has no intermediate a + b - 1 to overflow */
        {"cdiv(a, 7)", LLONG_MAX, 0, 0, {1317624576693539401, 1, 1}, ""},
        {"cdiv(a, BLOCK)", LLONG_MAX, 0, 0, {9007199254740992, 1, 1}, ""},
    };
    return cr_make_param_array(EvalCase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(EvalCase *tc, grid, eval, .init = translate_kernel, .fini = free_kernel)
{
    GridProg g = read_grid(tc->grid);
    long long values[5] = {0, tc->a, tc->b, tc->c, 0}, dims[3];
    char err[160] = "";
    bool ok = tir_grid_eval(&g, values, dims, err, sizeof err);
    if (tc->message[0]) {
        cr_assert(!ok, "%s: evaluated to %lld", tc->grid, dims[0]);
        cr_assert_str_eq(err, tc->message, "%s", tc->grid);
        return;
    }
    cr_assert(ok, "%s: %s", tc->grid, err);
    for (int d = 0; d < 3; d++)
        cr_assert_eq(dims[d], tc->dims[d], "%s: dimension %d is %lld, not %lld", tc->grid, d, dims[d], tc->dims[d]);
}

Test(grid, device_limits)
{
    char err[160] = "";
    cr_assert(tir_grid_within_limits((long long[]){2147483647, 65535, 65535}, err, sizeof err));
    cr_assert(!tir_grid_within_limits((long long[]){2147483648, 1, 1}, err, sizeof err));
    cr_assert_str_eq(err, "dimension x is 2147483648, beyond the device limit of 2147483647");
    cr_assert(!tir_grid_within_limits((long long[]){1, 65536, 1}, err, sizeof err));
    cr_assert_str_eq(err, "dimension y is 65536, beyond the device limit of 65535");
    cr_assert(!tir_grid_within_limits((long long[]){1, 1, 1LL << 40}, err, sizeof err));
    cr_assert_str_eq(err, "dimension z is 1099511627776, beyond the device limit of 65535");
}

/* test_grid.c — the launch grid (src/tileir/grid.c): the checked evaluator that the
 * library runs at launch, on the values that used to trap or wrap, and the device limits;
 * which operations the launchers print as checking helpers; and the printed C itself,
 * compiled with UBSan and run on edge values against the evaluator.  Grids are read from
 * text against one kernel, as --grid reads them. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

/* Parameters 1..4 are the runtime integers a, b (i64), c (i32) and u (u64); BLOCK is
 * 1024 and LOWEST the smallest 64-bit integer. */
static const char kernel_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, a, b, c, u, BLOCK: tl.constexpr, LOWEST: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + a + b + c)\n";
static const char kernel_sig[] = "*fp32:16, i64, i64, i32, u64, 1024, -9223372036854775808";
static const char *const names[] = {"x_ptr", "a", "b", "c", "u", "BLOCK", "LOWEST"};

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
    long long values[7] = {0, tc->a, tc->b, tc->c, 0, 0, 0}, dims[3];
    StrBuf err = {0};
    bool ok = tir_grid_eval(&g, values, names, dims, &err);
    if (tc->message[0]) {
        cr_assert(!ok, "%s: evaluated to %lld", tc->grid, dims[0]);
        cr_assert_str_eq(err.data, tc->message, "%s", tc->grid);
        sb_free(&err);
        return;
    }
    cr_assert(ok, "%s: %s", tc->grid, err.data);
    for (int d = 0; d < 3; d++)
        cr_assert_eq(dims[d], tc->dims[d], "%s: dimension %d is %lld, not %lld", tc->grid, d, dims[d], tc->dims[d]);
}

Test(grid, device_limits)
{
    StrBuf err = {0};
    cr_assert(tir_grid_within_limits((long long[]){2147483647, 65535, 65535}, &err));
    cr_assert(!tir_grid_within_limits((long long[]){2147483648, 1, 1}, &err));
    cr_assert_str_eq(err.data, "dimension x is 2147483648, beyond the device limit of 2147483647");
    err.len = 0;
    cr_assert(!tir_grid_within_limits((long long[]){1, 65536, 1}, &err));
    cr_assert_str_eq(err.data, "dimension y is 65536, beyond the device limit of 65535");
    err.len = 0;
    cr_assert(!tir_grid_within_limits((long long[]){1, 1, 1LL << 40}, &err));
    cr_assert_str_eq(err.data, "dimension z is 1099511627776, beyond the device limit of 65535");
    sb_free(&err);
}

Test(grid, u64_beyond_the_grid_arithmetic, .init = translate_kernel, .fini = free_kernel)
{
    GridProg g = read_grid("cdiv(u, BLOCK)");
    long long values[7] = {0, 0, 0, 0, (long long)(1ULL << 63)}, dims[3]; /* u64 values arrive wrapped */
    StrBuf err = {0};
    cr_assert(!tir_grid_eval(&g, values, names, dims, &err));
    cr_assert_str_eq(err.data, "u = 9223372036854775808 does not fit in 64-bit signed integers");
    sb_free(&err);
    values[4] = LLONG_MAX;
    cr_assert(tir_grid_eval(&g, values, names, dims, &err), "%s", err.data);
    cr_assert_eq(dims[0], 9007199254740992);
}

/* The launcher's statements for `grid` (.cu flavour). */
static char *launch_c(const char *grid)
{
    GridProg g = read_grid(grid);
    StrBuf out = {0};
    GridLaunchC how = {names, "cudaSuccess", "cudaErrorInvalidValue", false};
    tir_grid_launch_c(&out, &ctx.arena, &g, &how);
    return out.data;
}

typedef struct PrintCase {
    char grid[48];
    char dims[128];        /* the declaration of gx, gy, gz */
    char limits[48];       /* the limit check, "" when no argument can exceed the limits */
} PrintCase;

ParameterizedTestParameters(grid, checks_only_what_arguments_can_break)
{
    static PrintCase cases[] = {
        /* an i32 size cannot overflow: plain C, as before */
        {"cdiv(c, BLOCK)", "gx = tilec_cdiv((long long)c, 1024ll), gy = 1, gz = 1;", ""},
        {"c, c // 2", "gx = (long long)c, gy = ((long long)c / 2ll), gz = 1;", "gy > 65535ll"},
        {"c * c", "gx = ((long long)c * (long long)c), gy = 1, gz = 1;", "gx > 2147483647ll"},
        {"c % (0 - 1)", "gx = ((long long)c % (0ll - 1ll)), gy = 1, gz = 1;", ""},
        /* an i64 can */
        {"cdiv(a, BLOCK)", "gx = tilec_grid_cdiv((long long)a, 1024ll, &ok), gy = 1, gz = 1;", "gx > 2147483647ll"},
        {"a * 2, a + c", "gx = tilec_grid_mul((long long)a, 2ll, &ok), gy = tilec_grid_add((long long)a, (long long)c, "
                         "&ok), gz = 1;", "gx > 2147483647ll || gy > 65535ll"},
        {"a // 2, a // (0 - 1)", "gx = ((long long)a / 2ll), gy = tilec_grid_div((long long)a, (0ll - 1ll), &ok), gz = 1;",
         "gx > 2147483647ll || gy > 65535ll"},
        {"c // b, c % b", "gx = tilec_grid_div((long long)c, (long long)b, &ok), gy = tilec_grid_mod((long long)c, "
                          "(long long)b, &ok), gz = 1;", "gx > 2147483647ll || gy > 65535ll"},
        {"min(a, 8), max(c, 1) % 4", "gx = tilec_min((long long)a, 8ll), gy = (tilec_max((long long)c, 1ll) % 4ll), gz = 1;",
         ""},
        /* a u64 above LLONG_MAX is a fault; constants are exact, LOWEST has no literal */
        {"u // 2", "gx = (tilec_grid_u64(u, &ok) / 2ll), gy = 1, gz = 1;", "gx > 2147483647ll"},
        {"cdiv(9223372036854775807, 7) // 1000000000000",
         "gx = (tilec_grid_cdiv(9223372036854775807ll, 7ll, &ok) / 1000000000000ll), gy = 1, gz = 1;", ""},
        {"c - LOWEST // 4611686018427387904",
         "gx = ((long long)c - ((-9223372036854775807ll - 1) / 4611686018427387904ll)), gy = 1, gz = 1;",
         "gx > 2147483647ll"},
    };
    return cr_make_param_array(PrintCase, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(PrintCase *tc, grid, checks_only_what_arguments_can_break, .init = translate_kernel,
                  .fini = free_kernel)
{
    char *c = launch_c(tc->grid);
    bool checked = strstr(tc->dims, "&ok") != NULL;
    cr_assert_not_null(strstr(c, tc->dims), "%s:\n%s", tc->grid, c);
    cr_assert_eq(strstr(c, "bool ok = true;") != NULL, checked, "%s:\n%s", tc->grid, c);
    cr_assert_eq(strstr(c, "if (!ok)") != NULL, checked, "%s:\n%s", tc->grid, c);
    char limits[80];
    snprintf(limits, sizeof limits, "if (%s)\n", tc->limits);
    if (tc->limits[0])
        cr_assert_not_null(strstr(c, limits), "%s:\n%s", tc->grid, c);
    else
        cr_assert_null(strstr(c, "> 2147483647ll") ? "x" : strstr(c, "> 65535ll"), "%s:\n%s", tc->grid, c);
    free(c);
}

/* ---- the printed C against the evaluator ------------------------------------------------ */

/* Every operation, checked and plain, on every parameter type. */
static const char *const differential_grids[] = {
    "cdiv(a, BLOCK)", "cdiv(c, BLOCK)", "cdiv(a, b)", "cdiv(c, b)", "cdiv(a, c)", "cdiv(b, 0 - 1)",
    "a + b", "a - b", "a * b", "a // b", "a % b", "a // (0 - 1), a % (0 - 1)",
    "c + c, c - c, c * c", "c * c * c", "c // 7 - c % 7", "(c + 1) * (c - 1) // 2",
    "min(a, b), max(a, c), min(c, 3) * max(b, 2)", "a * 2 + 1, b * (0 - 3) - 1",
    "u // 2", "cdiv(u, c)", "u * 2 + 1, u % 65536", "a // b, b % c, cdiv(c, 3)",
    "cdiv(9223372036854775807, 7) // 1000000000000 + c", "c - LOWEST // 4611686018427387904",
};

static const long long i64_edges[] = {LLONG_MIN, LLONG_MIN + 1, LLONG_MIN + 2, LLONG_MIN + 3, -4294967296, -1025, -2,
                                      -1, 0, 1, 2, 7, 1024, 65535, 65536, 2147483647, 2147483648, 3037000500,
                                      LLONG_MAX - 1, LLONG_MAX};
static const long long i32_edges[] = {INT_MIN, -7, -1, 0, 1, 3, 1024, INT_MAX};
static const unsigned long long u64_edges[] = {0, 1, 2, 65536, LLONG_MAX, 1ULL << 63, ULLONG_MAX};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* grid_N(a, b, c, u, dims) in its own C file: 0 with dims, 1 for an empty grid, 2 for a
 * fault or a grid beyond the limits, as the launcher returns. */
static void write_grid_file(const char *path, int n, const char *grid)
{
    GridProg g = read_grid(grid);
    StrBuf out = {0};
    sb_puts(&out, "#include <stdbool.h>\n#include <stdint.h>\n\n"
                  "static inline long long tilec_cdiv(long long a, long long b) { return (a + b - 1) / b; }\n"
                  "static inline long long tilec_min(long long a, long long b) { return a < b ? a : b; }\n"
                  "static inline long long tilec_max(long long a, long long b) { return a > b ? a : b; }\n\n");
    tir_grid_helpers_c(&out, &g, true);
    sb_printf(&out, "int grid_%d(int64_t a, int64_t b, int32_t c, uint64_t u, long long dims[3])\n{\n", n);
    GridLaunchC how = {names, "1", "2", true};
    tir_grid_launch_c(&out, &ctx.arena, &g, &how);
    sb_puts(&out, "    dims[0] = gx, dims[1] = gy, dims[2] = gz;\n    return 0;\n}\n");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(out.data, f);
    fclose(f);
    sb_free(&out);
}

static void write_main(const char *path)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("#include <limits.h>\n#include <stdint.h>\n#include <stdio.h>\n\n", f);
    for (size_t n = 0; n < COUNT(differential_grids); n++)
        fprintf(f, "int grid_%zu(int64_t a, int64_t b, int32_t c, uint64_t u, long long dims[3]);\n", n);
    fputs("typedef int (*Grid)(int64_t, int64_t, int32_t, uint64_t, long long *);\nstatic const Grid grids[] = {", f);
    for (size_t n = 0; n < COUNT(differential_grids); n++)
        fprintf(f, "grid_%zu, ", n);
    fputs("};\nstatic const long long i64s[] = {", f);
    for (size_t i = 0; i < COUNT(i64_edges); i++)
        fprintf(f, i64_edges[i] == LLONG_MIN ? "LLONG_MIN, " : "%lldll, ", i64_edges[i]);
    fputs("};\nstatic const int32_t i32s[] = {", f);
    for (size_t i = 0; i < COUNT(i32_edges); i++)
        fprintf(f, i32_edges[i] == INT_MIN ? "INT_MIN, " : "%lld, ", i32_edges[i]);
    fputs("};\nstatic const unsigned long long u64s[] = {", f);
    for (size_t i = 0; i < COUNT(u64_edges); i++)
        fprintf(f, "%lluull, ", u64_edges[i]);
    fputs("};\n#define COUNT(a) (sizeof(a) / sizeof((a)[0]))\n\n"
          "int main(void)\n{\n"
          "    for (size_t n = 0; n < COUNT(grids); n++)\n"
          "        for (size_t i = 0; i < COUNT(i64s); i++)\n"
          "            for (size_t j = 0; j < COUNT(i64s); j++)\n"
          "                for (size_t k = 0; k < COUNT(i32s); k++)\n"
          "                    for (size_t l = 0; l < COUNT(u64s); l++) {\n"
          "                        long long d[3] = {0, 0, 0};\n"
          "                        int r = grids[n](i64s[i], i64s[j], i32s[k], u64s[l], d);\n"
          "                        printf(\"%d %lld %lld %lld\\n\", r, d[0], d[1], d[2]);\n"
          "                    }\n"
          "    return 0;\n}\n", f);
    fclose(f);
}

/* What the launcher must return for these values, by the library's evaluator. */
static void expected(const GridProg *g, long long a, long long b, long long c, unsigned long long u, char *line,
                     size_t size)
{
    long long values[7] = {0, a, b, c, (long long)u, 0, 0}, dims[3];
    StrBuf err = {0};
    int r = !tir_grid_eval(g, values, names, dims, &err)                       ? 2 :
            dims[0] <= 0 || dims[1] <= 0 || dims[2] <= 0                      ? 1 :
            !tir_grid_within_limits(dims, &err)                                ? 2 : 0;
    sb_free(&err);
    if (r)
        dims[0] = dims[1] = dims[2] = 0;
    snprintf(line, size, "%d %lld %lld %lld\n", r, dims[0], dims[1], dims[2]);
}

/* Compiled as C99 and as C++ with UBSan (a signed overflow or a division by zero in the
 * printed C aborts), then run on every combination of edge values: every launcher result
 * must be the evaluator's.  A few seconds; no .timeout, whose long values make criterion
 * 2.4.1 leak under ASan (see test_dot.c). */
static void differential(const char *compiler, const char *lang)
{
    char dir[] = "/tmp/tilec-grid.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    StrBuf cmd = {0};
    sb_printf(&cmd, "%s -x %s -O1 -Wall -Wextra -Werror -Wno-unused-parameter -fsanitize=undefined "
                    "-fno-sanitize-recover=all -o %s/grids", compiler, lang, dir);
    GridProg progs[COUNT(differential_grids)];
    for (size_t n = 0; n < COUNT(differential_grids); n++) {
        char path[64];
        snprintf(path, sizeof path, "%s/grid_%zu.c", dir, n);
        write_grid_file(path, (int)n, differential_grids[n]);
        progs[n] = read_grid(differential_grids[n]);
        sb_printf(&cmd, " %s", path);
    }
    sb_printf(&cmd, " %s/main.c 2>&1", dir);
    char path[64];
    snprintf(path, sizeof path, "%s/main.c", dir);
    write_main(path);
    cr_assert_eq(system(cmd.data), 0, "%s", cmd.data);
    snprintf(path, sizeof path, "%s/grids", dir);
    FILE *run = popen(path, "r");
    cr_assert_not_null(run);
    char got[128], want[128];
    size_t lines = 0;
    for (size_t n = 0; n < COUNT(differential_grids); n++)
        for (size_t i = 0; i < COUNT(i64_edges); i++)
            for (size_t j = 0; j < COUNT(i64_edges); j++)
                for (size_t k = 0; k < COUNT(i32_edges); k++)
                    for (size_t l = 0; l < COUNT(u64_edges); l++, lines++) {
                        expected(&progs[n], i64_edges[i], i64_edges[j], i32_edges[k], u64_edges[l], want, sizeof want);
                        cr_assert_not_null(fgets(got, sizeof got, run), "%s: output ends at line %zu", lang, lines);
                        cr_assert_str_eq(got, want, "%s: grid %s, a = %lld, b = %lld, c = %lld, u = %llu", lang,
                                         differential_grids[n], i64_edges[i], i64_edges[j], i32_edges[k], u64_edges[l]);
                    }
    cr_assert_eq(pclose(run), 0, "%s: the program failed (UBSan?)", lang);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    cr_assert_eq(system(path), 0);
    sb_free(&cmd);
}

static const char *compiler(const char *var, const char *fallback)
{
    const char *cc = getenv(var);
    return cc && *cc ? cc : fallback;
}

Test(grid, printed_c_matches_the_evaluator, .init = translate_kernel, .fini = free_kernel)
{
    differential(compiler("CC", "cc"), "c");
}

Test(grid, printed_cxx_matches_the_evaluator, .init = translate_kernel, .fini = free_kernel)
{
    differential(compiler("CXX", "c++"), "c++");
}

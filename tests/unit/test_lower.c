/* test_lower.c — lowering: Triton's type promotion (§7.2/§7.3), constexpr
 * folding, helper inlining and structured control flow, end to end through
 * tilec_translate() with --dump lower. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

static Ctx ctx;
static Source src;
static StrBuf out;
static char text[4096];

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&out);
}

/* Translate `source` with signature `sig` for `arch` (0: the default, sm_80), dumping
 * after `dump` (NULL: tileir).  Returns tilec_translate's status; the text is in `out`,
 * diagnostics in ctx.log. */
static int translate_for(int arch, const char *source, const char *kernel, const char *sig, const char *dump)
{
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    opt.lower.kernel = kernel;
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.arch = arch;
    opt.emit = EMIT_TILEIR;
    opt.dump = dump;
    return tilec_translate(&ctx, &opt, &out);
}

static int translate(const char *source, const char *kernel, const char *sig, const char *dump)
{
    return translate_for(0, source, kernel, sig, dump);
}

static const char *log_text(void) { return ctx.log.data ? ctx.log.data : ""; }
static const char *out_text(void) { return out.data ? out.data : ""; }

/* The printed line that contains `needle` (copied into a static buffer). */
static const char *line_with(const char *needle)
{
    static char line[512];
    const char *s = out_text();
    const char *p = strstr(s, needle);
    if (!p)
        return NULL;
    const char *b = p;
    while (b > s && b[-1] != '\n')
        b--;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - b) : strlen(b);
    if (n >= sizeof line)
        n = sizeof line - 1;
    memcpy(line, b, n);
    line[n] = 0;
    return line;
}

TestSuite(lower, .fini = reset);

/* ---- binary promotion: a, b are 128-element tensors loaded from *A, *B ---- */

typedef struct Promo {
    char sig[32];     /* "*A, *B, *fp32" */
    char expr[32];    /* the expression assigned to r */
    char op[16];      /* expected IR op, e.g. "add", "cmp lt" */
    char type[32];    /* expected result type */
} Promo;

static const char *promo_src(const char *expr)
{
    snprintf(text, sizeof text,
             "import triton\nimport triton.language as tl\n"
             "@triton.jit\n"
             "def k(a_ptr, b_ptr, o_ptr):\n"
             "    offs = tl.arange(0, 128)\n"
             "    a = tl.load(a_ptr + offs)\n"
             "    b = tl.load(b_ptr + offs)\n"
             "    r = %s\n"
             "    tl.store(o_ptr + offs, r)\n",
             expr);
    return text;
}

ParameterizedTestParameters(lower, promotion)
{
    static Promo cases[] = {
        /* rule 0: Python scalar vs tensor keeps the tensor's dtype */
        {"*fp16, *fp16, *fp32", "a * 2.0", "mul", "tensor<128xfp16>"},
        {"*fp16, *fp16, *fp32", "a * 2", "mul", "tensor<128xfp16>"},
        {"*bf16, *bf16, *fp32", "a * 2.0", "mul", "tensor<128xbf16>"},
        {"*i8, *i8, *fp32", "a + 1", "add", "tensor<128xi8>"},
        {"*u8, *u8, *fp32", "a + 1", "add", "tensor<128xu8>"},
        {"*i64, *i64, *fp32", "a + 1", "add", "tensor<128xi64>"},
        {"*fp32, *fp32, *fp32", "a + 1e300", "add", "tensor<128xfp32>"},
        {"*fp64, *fp64, *fp32", "a * 2.0", "mul", "tensor<128xfp64>"},
        /* float scalar with an int tensor falls through to the full rules */
        {"*i32, *i32, *fp32", "a * 2.5", "mul", "tensor<128xfp32>"},
        {"*i32, *i32, *fp32", "a + 1.0", "add", "tensor<128xfp32>"},
        /* rule 0 exception: / and % with fp16/bf16 give fp32 */
        {"*fp16, *fp16, *fp32", "a / 2", "div", "tensor<128xfp32>"},
        {"*fp16, *fp16, *fp32", "a % 2", "rem", "tensor<128xfp32>"},
        {"*bf16, *bf16, *fp32", "a / 2", "div", "tensor<128xfp32>"},
        {"*bf16, *bf16, *fp32", "a % 2.0", "rem", "tensor<128xfp32>"},
        /* rules 1-4: fp64 > fp32 > fp16 > bf16 */
        {"*fp64, *fp32, *fp32", "a + b", "add", "tensor<128xfp64>"},
        {"*fp16, *fp64, *fp32", "a * b", "mul", "tensor<128xfp64>"},
        {"*fp32, *fp16, *fp32", "a + b", "add", "tensor<128xfp32>"},
        {"*bf16, *fp32, *fp32", "a - b", "sub", "tensor<128xfp32>"},
        {"*fp16, *bf16, *fp32", "a + b", "add", "tensor<128xfp16>"},
        {"*bf16, *fp16, *fp32", "a * b", "mul", "tensor<128xfp16>"},
        {"*fp16, *fp16, *fp32", "a + b", "add", "tensor<128xfp16>"},
        {"*fp16, *fp16, *fp32", "a / b", "div", "tensor<128xfp32>"},
        {"*fp16, *fp16, *fp32", "a % b", "rem", "tensor<128xfp32>"},
        {"*bf16, *bf16, *fp32", "a + b", "add", "tensor<128xbf16>"},
        {"*bf16, *bf16, *fp32", "a / b", "div", "tensor<128xfp32>"},
        {"*i32, *bf16, *fp32", "a + b", "add", "tensor<128xfp32>"},
        {"*i32, *fp16, *fp32", "a + b", "add", "tensor<128xfp16>"},
        /* rule 6: integers, C usual arithmetic conversions, no int32 promotion */
        {"*i32, *i64, *fp32", "a + b", "add", "tensor<128xi64>"},
        {"*i32, *u32, *fp32", "a + b", "add", "tensor<128xu32>"},
        {"*i64, *u32, *fp32", "a + b", "add", "tensor<128xi64>"},
        {"*i8, *u8, *fp32", "a + b", "add", "tensor<128xu8>"},
        {"*i16, *u8, *fp32", "a + b", "add", "tensor<128xi16>"},
        {"*i8, *i8, *fp32", "a + b", "add", "tensor<128xi8>"},
        {"*i8, *i8, *fp32", "a * b", "mul", "tensor<128xi8>"},
        /* true division of ints is fp32 */
        {"*i32, *i32, *fp32", "a / b", "div", "tensor<128xfp32>"},
        {"*i32, *i32, *fp32", "a / 2", "div", "tensor<128xfp32>"},
        {"*i64, *i64, *fp32", "a / b", "div", "tensor<128xfp32>"},
        /* // and % on tensors: C truncating div / rem */
        {"*i32, *i32, *fp32", "a // b", "div", "tensor<128xi32>"},
        {"*i32, *i32, *fp32", "a % b", "rem", "tensor<128xi32>"},
        {"*i32, *i32, *fp32", "a // 16", "div", "tensor<128xi32>"},
        {"*i8, *i64, *fp32", "a // b", "div", "tensor<128xi64>"},
        {"*u32, *u32, *fp32", "a % b", "rem", "tensor<128xu32>"},
        /* comparisons give i1 */
        {"*i32, *i32, *fp32", "a < b", "cmp lt", "tensor<128xi1>"},
        {"*fp16, *fp16, *fp32", "a >= 1", "cmp ge", "tensor<128xi1>"},
        {"*i8, *i8, *fp32", "a == 300", "cmp eq", "tensor<128xi1>"},
        {"*fp32, *i64, *fp32", "a != b", "cmp ne", "tensor<128xi1>"},
    };
    return cr_make_param_array(Promo, cases, ARRAY_LEN(cases));
}

ParameterizedTest(Promo *c, lower, promotion)
{
    int rc = translate(promo_src(c->expr), NULL, c->sig, "lower");
    cr_assert_eq(rc, 0, "%s with %s failed:\n%s", c->expr, c->sig, log_text());
    const char *line = line_with("// \"r\"");
    cr_assert(line, "no value named r in:\n%s", out_text());
    char want_op[32], want_ty[48];
    snprintf(want_op, sizeof want_op, "= %s ", c->op);
    snprintf(want_ty, sizeof want_ty, ": %s ", c->type);
    cr_expect(strstr(line, want_op), "%s (%s): expected op '%s' in: %s", c->expr, c->sig, c->op, line);
    cr_expect(strstr(line, want_ty), "%s (%s): expected type %s in: %s", c->expr, c->sig, c->type, line);
}

/* Promotion errors (rule 0 range checks, rule 6 mixed-signedness division). */
typedef struct PromoErr {
    char sig[32];
    char expr[32];
    char msg[64];
} PromoErr;

ParameterizedTestParameters(lower, promotion_errors)
{
    static PromoErr cases[] = {
        {"*i8, *i8, *fp32", "a + 300", "out of range"},
        {"*u32, *u32, *fp32", "a + (-1)", "negative scalar"},
        {"*i32, *u32, *fp32", "a // b", "mixed signedness"},
        {"*i32, *u32, *fp32", "a % b", "mixed signedness"},
    };
    return cr_make_param_array(PromoErr, cases, ARRAY_LEN(cases));
}

ParameterizedTest(PromoErr *c, lower, promotion_errors)
{
    int rc = translate(promo_src(c->expr), NULL, c->sig, "lower");
    cr_assert_eq(rc, 1, "%s with %s should fail; got:\n%s", c->expr, c->sig, out_text());
    cr_expect(strstr(log_text(), c->msg), "expected '%s' in:\n%s", c->msg, log_text());
    cr_expect(strstr(log_text(), "t.py:8:"), "diagnostic should point at line 8:\n%s", log_text());
}

/* A comparison with a Python int promotes the narrow tensor (scalar becomes i32). */
Test(lower, compare_promotes_scalar_to_int32)
{
    cr_assert_eq(translate(promo_src("a < 1"), NULL, "*i8, *i8, *fp32", "lower"), 0, "%s", log_text());
    cr_expect(strstr(out_text(), "cast %6 : tensor<128xi32>"), "i8 tensor not widened:\n%s", out_text());
    cr_expect(strstr(line_with("// \"r\""), "tensor<128xi1>"));
}

/* ---- fp8 (Triton 3.6: one fp_to_fp per conversion, no fp8 arithmetic) ------------ */

typedef struct Fp8Case {
    char sig[40];     /* "*A, *B, *OUT" */
    char expr[56];    /* the expression assigned to r */
    int casts;        /* cast ops in the lowered kernel; -1: an error */
    char want[80];    /* the type of r, or a piece of the error */
} Fp8Case;

ParameterizedTestParameters(lower, fp8)
{
    static Fp8Case cases[] = {
        /* to and from fp8 in one cast, whatever the other float type (no fp32 step) */
        {"*fp32, *fp32, *fp8e4nv", "a.to(tl.float8e4nv)", 1, "tensor<128xfp8e4nv>"},
        {"*fp16, *fp16, *fp8e5", "a.to(tl.float8e5)", 1, "tensor<128xfp8e5>"},
        {"*bf16, *bf16, *fp8e4nv", "a.to(tl.float8e4nv)", 1, "tensor<128xfp8e4nv>"},
        {"*fp8e5, *fp8e5, *bf16", "a.to(tl.bfloat16)", 1, "tensor<128xbf16>"},
        {"*fp8e4nv, *fp8e4nv, *fp16", "tl.cast(a, tl.float16)", 1, "tensor<128xfp16>"},
        {"*fp32, *fp32, *fp8e5", "a.to(tl.float8e5, fp_downcast_rounding='rtz')", 1, "tensor<128xfp8e5>"},
        /* tl.store converts to the pointer's fp8 type */
        {"*fp32, *fp32, *fp8e5", "a + b", 1, "tensor<128xfp32>"},
        /* promotion: two fp8 types meet in fp16, fp8 and fp32 in fp32; a select keeps fp8 */
        {"*fp8e4nv, *fp8e5, *fp16", "a + b", 2, "tensor<128xfp16>"},
        {"*fp8e4nv, *fp32, *fp32", "a * b", 1, "tensor<128xfp32>"},
        {"*fp8e4nv, *fp8e4nv, *fp8e4nv", "tl.where(a > 0.0, a, b)", 1, "tensor<128xfp8e4nv>"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.where(a > 0.0, a, 0.0)", 1, "tensor<128xfp8e5>"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.abs(a)", 0, "tensor<128xfp8e5>"},
        {"*fp8e4nv, *fp8e4nv, *fp32", "tl.max(a, axis=0)", 1, "fp32"},
        /* what Triton rejects */
        {"*fp8e4nv, *fp8e4nv, *fp8e4nv", "a * b", -1, "'*' on float8e4nv values"},
        {"*fp8e4nv, *fp8e4nv, *fp8e4nv", "a * 2.0", -1, "'*' on float8e4nv values"},
        {"*fp8e5, *fp8e5, *fp8e5", "a < b", -1, "'<' on float8e5 values"},
        {"*fp8e5, *fp8e5, *fp8e5", "-a", -1, "unary '-' on float8e5"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.maximum(a, b)", -1, "tl.maximum on float8e5"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.cumsum(a, axis=0)", -1, "tl.cumsum on float8e5"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.floor(a)", -1, "tl.floor on float8e5"},
        {"*fp8e4nv, *fp8e4nv, *fp32", "a + 1", -1, "'+' on float8e4nv values"},
        {"*fp8e4nv, *fp8e4nv, *fp32", "a == 1", -1, "cannot combine float8e4nv and int32"},
        {"*fp8e4nv, *fp8e4nv, *i32", "a.to(tl.int32)", -1, "cannot cast float8e4nv to int32"},
        {"*i8, *i8, *fp8e5", "a.to(tl.float8e5)", -1, "cannot cast int8 to float8e5"},
        {"*fp8e4nv, *fp8e4nv, *i1", "a != 0.0", 2, "tensor<128xi1>"}, /* and i1 to i8 at the store */
        {"*fp64, *fp64, *fp8e4nv", "a.to(tl.float8e4nv)", -1, "between fp8 and float64"},
        {"*fp8e5, *fp8e5, *fp8e4nv", "a.to(tl.float8e4nv)", -1, "between two fp8 types"},
        {"*fp16, *fp16, *fp8e5", "a.to(tl.float8e5, fp_downcast_rounding='rtz')", -1, "from float16 to float8e5"},
        {"*fp8e5, *fp8e5, *fp32", "a.to(tl.float32, fp_downcast_rounding='rtz')", -1, "only to float downcasts"},
        {"*fp8e5, *fp8e5, *fp8e5", "tl.full((128,), 2.0, tl.float8e5)", -1, "constant 2: an fp8 constant must be 0"},
    };
    return cr_make_param_array(Fp8Case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(Fp8Case *c, lower, fp8)
{
    int rc = translate_for(90, promo_src(c->expr), NULL, c->sig, "lower");
    if (c->casts < 0) {
        cr_assert_eq(rc, 1, "%s with %s should fail; got:\n%s", c->expr, c->sig, out_text());
        cr_expect(strstr(log_text(), c->want), "%s: expected '%s' in:\n%s", c->expr, c->want, log_text());
        cr_expect(strstr(log_text(), "t.py:8:"), "diagnostic should point at line 8:\n%s", log_text());
        return;
    }
    cr_assert_eq(rc, 0, "%s with %s failed:\n%s", c->expr, c->sig, log_text());
    int casts = 0;
    for (const char *p = out_text(); (p = strstr(p, "= cast ")); p++)
        casts++;
    cr_expect_eq(casts, c->casts, "%s (%s): %d casts, want %d:\n%s", c->expr, c->sig, casts, c->casts, out_text());
    const char *line = line_with("// \"r\"");
    cr_assert(line, "no value named r in:\n%s", out_text());
    char want_ty[96];
    snprintf(want_ty, sizeof want_ty, ": %s ", c->want);
    cr_expect(strstr(line, want_ty), "%s (%s): expected type %s in: %s", c->expr, c->sig, c->want, line);
}

/* fp8 conversions need the cvt instructions of sm_89: the default sm_80 refuses them, but
 * not fp8 loads and stores, nor a conversion of the constant 0 (folded, as Triton does). */
Test(lower, fp8_needs_sm89)
{
    cr_assert_eq(translate(promo_src("a.to(tl.float8e4nv)"), NULL, "*fp32, *fp32, *fp8e4nv", "lower"), 1);
    cr_expect(strstr(log_text(), "needs sm_89 or newer"), "%s", log_text());
    reset();
    cr_assert_eq(translate(promo_src("tl.where(a > 0.0, a, b)"), NULL, "*fp8e4nv, *fp8e4nv, *fp32", "lower"), 1);
    reset();
    cr_assert_eq(translate(promo_src("tl.where(b != b, b, a)"), NULL, "*fp8e5, *fp32, *fp8e5", "lower"), 1);
    reset();
    const char *copy = "import triton\nimport triton.language as tl\n"
                       "@triton.jit\n"
                       "def k(a_ptr, o_ptr, n):\n"
                       "    offs = tl.arange(0, 128)\n"
                       "    a = tl.load(a_ptr + offs, mask=offs < n, other=0.0)\n"
                       "    tl.store(o_ptr + offs, tl.where(offs < 3, a, -0.0))\n";
    cr_assert_eq(translate(copy, NULL, "*fp8e5, *fp8e5, i32", "lower"), 0, "%s", log_text());
    cr_expect_null(strstr(out_text(), "= cast "), "a cast left in:\n%s", out_text());
}

/* ---- constexpr arithmetic follows Python ------------------------------------ */

static const char *assert_src(const char *cond)
{
    snprintf(text, sizeof text,
             "import triton\nimport triton.language as tl\n"
             "@triton.jit\n"
             "def k(x_ptr, N: tl.constexpr):\n"
             "    tl.static_assert(%s, \"assertion\")\n"
             "    tl.store(x_ptr, 1.0)\n",
             cond);
    return text;
}

ParameterizedTestParameters(lower, constexpr_python_semantics)
{
    static char cases[][48] = {
        "-7 // 2 == -4",  "-7 % 2 == 1",      "7 // -2 == -4",  "7 % -2 == -1",
        "-N // 2 == -4",  "-N % 2 == 1",      "N // -3 == -3",  "7 / 2 == 3.5",
        "-8 // 2 == -4",  "2 ** 10 == 1024",  "-7 >> 1 == -4",  "-7.5 // 2 == -4.0",
    };
    return cr_make_param_array(char[48], cases, ARRAY_LEN(cases));
}

ParameterizedTest(char (*cond)[48], lower, constexpr_python_semantics)
{
    int rc = translate(assert_src(*cond), NULL, "*fp32, 7", "lower");
    cr_expect_eq(rc, 0, "static_assert(%s) failed with N=7:\n%s", *cond, log_text());
}

/* The C-truncating answers must be rejected, so the asserts above can fail. */
Test(lower, constexpr_static_assert_rejects_c_semantics)
{
    cr_assert_eq(translate(assert_src("-7 // 2 == -3"), NULL, "*fp32, 7", "lower"), 1);
    cr_expect(strstr(log_text(), "static_assert failed: assertion"), "%s", log_text());
    cr_expect(strstr(log_text(), "t.py:5:"), "%s", log_text());
    reset();
    cr_assert_eq(translate(assert_src("-7 % 2 == -1"), NULL, "*fp32, 7", "lower"), 1);
}

/* ---- constexpr control flow ---------------------------------------------------- */

static const char *branch_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, n, USE: tl.constexpr, MODE: tl.constexpr):\n"
    "    offs = tl.arange(0, 128)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    if USE:\n"
    "        x = x * 3.0\n"
    "    else:\n"
    "        x = x - 5.0\n"
    "    if MODE == \"a\":\n"
    "        x = x + 11.0\n"
    "    elif MODE == \"b\":\n"
    "        x = x + 13.0\n"
    "    else:\n"
    "        x = x + 17.0\n"
    "    if x.dtype == tl.float16:\n"
    "        x = x + 19.0\n"
    "    else:\n"
    "        x = x + 23.0\n"
    "    tl.store(x_ptr + offs, x)\n";

Test(lower, constexpr_if_removes_dead_branch)
{
    cr_assert_eq(translate(branch_src, NULL, "*fp32, i32, True, 'b'", "lower"), 0, "%s", log_text());
    const char *o = out_text();
    cr_expect(strstr(o, "constant 3 : fp32"), "%s", o);
    cr_expect(!strstr(o, "constant 5 :"), "dead else branch left a trace:\n%s", o);
    cr_expect(!strstr(o, "= if ") && !strstr(o, "  if "), "constexpr if became a runtime if:\n%s", o);
    reset();
    cr_assert_eq(translate(branch_src, NULL, "*fp32, i32, False, 'b'", "lower"), 0, "%s", log_text());
    cr_expect(strstr(out_text(), "constant 5 : fp32"));
    cr_expect(!strstr(out_text(), "constant 3 :"), "%s", out_text());
}

Test(lower, string_constexpr_switch)
{
    static const struct { const char *sig, *keep, *drop1, *drop2; } t[] = {
        {"*fp32, i32, True, 'a'", "constant 11 :", "constant 13 :", "constant 17 :"},
        {"*fp32, i32, True, 'b'", "constant 13 :", "constant 11 :", "constant 17 :"},
        {"*fp32, i32, True, 'zz'", "constant 17 :", "constant 11 :", "constant 13 :"},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++) {
        cr_assert_eq(translate(branch_src, NULL, t[i].sig, "lower"), 0, "%s", log_text());
        cr_expect(strstr(out_text(), t[i].keep), "%s: missing %s", t[i].sig, t[i].keep);
        cr_expect(!strstr(out_text(), t[i].drop1), "%s: has %s", t[i].sig, t[i].drop1);
        cr_expect(!strstr(out_text(), t[i].drop2), "%s: has %s", t[i].sig, t[i].drop2);
        reset();
    }
}

Test(lower, dtype_comparison_folds)
{
    cr_assert_eq(translate(branch_src, NULL, "*fp16, i32, True, 'a'", "lower"), 0, "%s", log_text());
    cr_expect(strstr(out_text(), "constant 19 : fp16"), "%s", out_text());
    cr_expect(!strstr(out_text(), "constant 23 :"), "%s", out_text());
    reset();
    cr_assert_eq(translate(branch_src, NULL, "*fp32, i32, True, 'a'", "lower"), 0, "%s", log_text());
    cr_expect(strstr(out_text(), "constant 23 : fp32"), "%s", out_text());
    cr_expect(!strstr(out_text(), "constant 19 :"), "%s", out_text());
}

/* ---- helpers, loops, early return ---------------------------------------------- */

static const char *flow_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def _pair(x, y):\n"
    "    return x + y, x < y\n"
    "@triton.jit\n"
    "def k(x_ptr, n):\n"
    "    offs = tl.arange(0, 128)\n"
    "    acc = tl.zeros([128], dtype=tl.float32)\n"
    "    cnt = 0\n"
    "    for i in range(0, n, 2):\n"
    "        acc += tl.load(x_ptr + offs)\n"
    "        cnt += 1\n"
    "    s, m = _pair(acc, 1.0)\n"
    "    j = 0\n"
    "    while j < n:\n"
    "        j += 3\n"
    "    if n > 5:\n"
    "        return\n"
    "    tl.store(x_ptr + offs + j + cnt, s, mask=m)\n";

Test(lower, helper_inlined_with_tuple_return)
{
    cr_assert_eq(translate(flow_src, "k", "*fp32, i32", "lower"), 0, "%s", log_text());
    const char *s = line_with("// \"s\"");
    cr_assert(s, "helper result s not bound:\n%s", out_text());
    cr_expect(strstr(s, "= add ") && strstr(s, ": tensor<128xfp32>"), "%s", s);
    const char *m = line_with("// \"m\"");
    cr_assert(m, "helper result m not bound:\n%s", out_text());
    cr_expect(strstr(m, "= cmp lt ") && strstr(m, ": tensor<128xi1>"), "%s", m);
    cr_expect(!strstr(out_text(), "_pair"), "helper not inlined:\n%s", out_text());
    cr_expect(!strstr(out_text(), "call"), "%s", out_text());
}

Test(lower, loop_carried_values_become_for_results)
{
    cr_assert_eq(translate(flow_src, "k", "*fp32, i32", "lower"), 0, "%s", log_text());
    const char *f = line_with("= for ");
    cr_assert(f, "no for op:\n%s", out_text());
    cr_expect(strstr(f, ": tensor<128xfp32>, i32"), "for result types: %s", f);
    f = line_with("= for ");
    cr_expect(strstr(f, "\"acc\", \"cnt\""), "for result names: %s", f);
    cr_expect(strstr(out_text(), "^args(%10: i32 \"i\", %11: tensor<128xfp32> \"acc\", %12: i32 \"cnt\")"),
              "%s", out_text());
    cr_expect(strstr(out_text(), "yield %16, %18"), "%s", out_text());
}

Test(lower, while_loop)
{
    cr_assert_eq(translate(flow_src, "k", "*fp32, i32", "lower"), 0, "%s", log_text());
    const char *w = line_with("= while ");
    cr_assert(w, "no while op:\n%s", out_text());
    cr_expect(strstr(w, ": i32") && strstr(w, "\"j\""), "%s", w);
    cr_expect(strstr(out_text(), "condition "), "%s", out_text());
    cr_expect(strstr(out_text(), "// before"), "%s", out_text());
    cr_expect(strstr(out_text(), "// after"), "%s", out_text());
}

Test(lower, early_return_in_runtime_if)
{
    cr_assert_eq(translate(flow_src, "k", "*fp32, i32", "lower"), 0, "%s", log_text());
    const char *o = out_text();
    const char *c = strstr(o, "cmp gt %1,");
    cr_assert(c, "%s", o);
    const char *r = strstr(c, "    return\n");
    cr_expect(r, "no return inside the if:\n%s", o);
    const char *st = strstr(o, "  store ");
    cr_expect(st && r && st > r, "store should follow the early-return if:\n%s", o);
}

/* ---- values given in the signature ------------------------------------------------- */

static const char *value_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, K: tl.constexpr):\n"
    "    tl.store(x_ptr, K)\n";

/* Integer arithmetic on numbers is folded as Python folds it; other text is an error that
 * names the parameter and points at it, or into the value where the value is wrong. */
Test(lower, signature_values_are_integer_arithmetic)
{
    static const struct { const char *value, *constant; } ok[] = {
        {"2**31", "constant 2147483648 : u32"}, {"(1 << 20) - 1", "constant 1048575 : i32"},
        {"-2**3", "constant -8 : i32"},         {"7 // -2", "constant -4 : i32"},
        {"1e-3", "constant 0.001 : fp32"},      {"'a-b'", NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        char sig[64];
        snprintf(sig, sizeof sig, "*i64, %s", ok[i].value);
        bool is_str = !ok[i].constant;
        int rc = translate(value_src, NULL, sig, "lower");
        if (is_str) { /* a string is a value, which tl.store then refuses */
            cr_expect(strstr(log_text(), "t.py:5:"), "%s: %s", ok[i].value, log_text());
        } else {
            cr_assert_eq(rc, 0, "%s: %s", ok[i].value, log_text());
            cr_expect(strstr(out_text(), ok[i].constant), "%s: no %s in\n%s", ok[i].value, ok[i].constant, out_text());
        }
        reset();
    }
    static const struct { const char *value, *error; } bad[] = {
        {"1 +", "-s:1:4: error: expected an expression, got newline\n"},
        {"2**64", "-s:1:2: error: integer overflow"},
        {"a.b", "t.py:4:14: error: cannot parse the value 'a.b' given for 'K' (-s): a value is a number, a string, "
                "a dtype or integer arithmetic on numbers\n"},
        {"x + 1", "t.py:4:14: error: cannot parse the value 'x + 1' given for 'K' (-s)"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char sig[64];
        snprintf(sig, sizeof sig, "*i64, %s", bad[i].value);
        cr_expect_neq(translate(value_src, NULL, sig, "lower"), 0, "%s", bad[i].value);
        cr_expect(!strncmp(log_text(), bad[i].error, strlen(bad[i].error)), "%s: got\n%s", bad[i].value, log_text());
        reset();
    }
}

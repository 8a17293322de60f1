/* test_axisinfo.c — AxisInfo (triton-internals §3) through --dump axisinfo,
 * the worked examples of §2.3 / §3, and the integer helpers it relies on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

static Ctx ctx;
static Source src;
static StrBuf out;

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&out);
}

TestSuite(axisinfo, .fini = reset);

/* Translates to `dump`'s text (--dump), or to CUDA when dump is NULL. */
static int translate_to(const char *source, const char *sig, const char *dump)
{
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.dump = dump;
    return tilec_translate(&ctx, &opt, &out);
}

static int translate(const char *source, const char *sig) { return translate_to(source, sig, "axisinfo"); }

/* The "{contig=..., div=..., const=...}" annotation of the value named `name`. */
static const char *info_of(const char *name)
{
    static char buf[256];
    char needle[64];
    snprintf(needle, sizeof needle, "// \"%s\" {", name);
    const char *p = out.data ? strstr(out.data, needle) : NULL;
    cr_assert(p, "no value named %s in:\n%s%s", name, out.data ? out.data : "", ctx.log.data ? ctx.log.data : "");
    p = strchr(p, '{');
    const char *e = strchr(p, '}');
    size_t n = (size_t)(e - p + 1);
    cr_assert(n < sizeof buf);
    memcpy(buf, p, n);
    buf[n] = 0;
    return buf;
}

#define EXPECT_INFO(name, want)                                                          \
    do {                                                                                 \
        const char *got_ = info_of(name);                                                \
        cr_expect_str_eq(got_, want, "%s: got %s, want %s", name, got_, want);           \
    } while (0)

static const char *vadd_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, n):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * 1024 + tl.arange(0, 1024)\n"
    "    p = x_ptr + offs\n"
    "    m = offs < n\n"
    "    x = tl.load(p, mask=m)\n"
    "    tl.store(p, x + 1.0, mask=m)\n";

/* §2.3 worked example: ptr:16 + pid*1024 + arange(0,1024). */
Test(axisinfo, vector_add_pointer)
{
    cr_assert_eq(translate(vadd_src, "*fp32:16, i32:16"), 0, "%s", ctx.log.data);
    EXPECT_INFO("offs", "{contig=[1024], div=[1024], const=[1]}");
    EXPECT_INFO("p", "{contig=[1024], div=[16], const=[1]}");
    EXPECT_INFO("pid", "{contig=[1], div=[1], const=[1]}");
}

Test(axisinfo, pointer_without_alignment_hint)
{
    cr_assert_eq(translate(vadd_src, "*fp32, i32:16"), 0, "%s", ctx.log.data);
    EXPECT_INFO("p", "{contig=[1024], div=[1], const=[1]}");  /* unknown base: pessimistic 1, as Triton */
}

Test(axisinfo, fp16_pointer_divisibility_in_bytes)
{
    cr_assert_eq(translate(vadd_src, "*fp16:16, i32:16"), 0, "%s", ctx.log.data);
    EXPECT_INFO("p", "{contig=[1024], div=[16], const=[1]}");
}

/* §3.5: offs < n keeps constancy 16 only when n is a multiple of 16. */
Test(axisinfo, mask_constancy_with_divisible_n)
{
    cr_assert_eq(translate(vadd_src, "*fp32:16, i32:16"), 0, "%s", ctx.log.data);
    EXPECT_INFO("m", "{contig=[1], div=[1], const=[16]}");
}

Test(axisinfo, mask_constancy_without_hint)
{
    cr_assert_eq(translate(vadd_src, "*fp32:16, i32"), 0, "%s", ctx.log.data);
    EXPECT_INFO("m", "{contig=[1], div=[1], const=[1]}");
}

static const char *ops_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, o, USE_HINT: tl.constexpr):\n"
    "    a = tl.arange(0, 128)\n"
    "    q = a // 16\n"
    "    r = a % 64\n"
    "    s = tl.arange(32, 160)\n"
    "    t = a * 2\n"
    "    u = o + a * 2\n"
    "    if USE_HINT:\n"
    "        u = tl.max_contiguous(tl.multiple_of(u, 8), 64)\n"
    "    c = q + r + s + t + u\n"
    "    tl.store(x_ptr + c, 1.0)\n";

Test(axisinfo, arange_leaf)
{
    cr_assert_eq(translate(ops_src, "*fp32:16, i32, False"), 0, "%s", ctx.log.data);
    EXPECT_INFO("a", "{contig=[128], div=[2^62], const=[1]}");
    EXPECT_INFO("s", "{contig=[128], div=[32], const=[1]}");
}

Test(axisinfo, floordiv_constancy)
{
    cr_assert_eq(translate(ops_src, "*fp32:16, i32, False"), 0, "%s", ctx.log.data);
    EXPECT_INFO("q", "{contig=[1], div=[1], const=[16]}");
}

Test(axisinfo, rem_contiguity)
{
    cr_assert_eq(translate(ops_src, "*fp32:16, i32, False"), 0, "%s", ctx.log.data);
    EXPECT_INFO("r", "{contig=[64], div=[64], const=[1]}");
}

Test(axisinfo, mul_of_contiguous_loses_contiguity)
{
    cr_assert_eq(translate(ops_src, "*fp32:16, i32, False"), 0, "%s", ctx.log.data);
    /* [0,2,4,..]: contiguous operand's divisibility counts as 1, times 2 */
    EXPECT_INFO("t", "{contig=[1], div=[2], const=[1]}");
    EXPECT_INFO("u", "{contig=[1], div=[1], const=[1]}");
}

Test(axisinfo, hints_override)
{
    cr_assert_eq(translate(ops_src, "*fp32:16, i32, True"), 0, "%s", ctx.log.data);
    EXPECT_INFO("u", "{contig=[64], div=[8], const=[1]}");
}

Test(axisinfo, constants_carry_value)
{
    cr_assert_eq(translate(vadd_src, "*fp32:16, i32:16"), 0, "%s", ctx.log.data);
    cr_expect(strstr(out.data, "constant 1024 : i32 {contig=[1], div=[1024], const=[1], value=1024}"),
              "%s", out.data);
    cr_expect(strstr(out.data, "\"n\" {divisibility=16} {contig=[1], div=[16], const=[1]}"), "%s", out.data);
}

/* ---- nested loops ---------------------------------------------------------------- */

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The inner loop is solved twice: in the outer loop's first round q is the constant 0 and s
 * stays a multiple of 64; from the second q is only a multiple of 4, and so is s.  The body
 * of the inner loop must end with the last answer, not the first one kept. */
static const char *nested_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, n):\n"
    "    q = 0\n"
    "    for i in range(4):\n"
    "        s = q\n"
    "        for j in range(4):\n"
    "            s = s + 64\n"
    "        q = s + 4\n"
    "    tl.store(x_ptr + q, 1.0)\n";

Test(axisinfo, inner_loop_ends_with_the_outer_loops_fixpoint)
{
    cr_assert_eq(translate(nested_src, "*fp32:16, i32"), 0, "%s", ctx.log.data);
    cr_expect_eq(count_of(out.data, "\"s\" {contig=[1], div=[4], const=[1]}"), 2, "%s", out.data); /* result, add */
    cr_expect_eq(count_of(out.data, "\"s\" {contig=[1], div=[64]"), 0, "%s", out.data);
    EXPECT_INFO("q", "{contig=[1], div=[4], const=[1]}");
}

/* 64 loops, one in another, each carrying a counter of its own that starts at 0 (a loop
 * needs two rounds to settle it), the innermost storing a tile indexed by the loop
 * variables.  Re-solving every inner loop on each round of each outer one took time
 * exponential in the depth (26 loops: 12 s); each loop is now solved once per input. */
Test(axisinfo, nested_loops_in_linear_time, .timeout = 1)
{
    StrBuf k = {0};
    sb_puts(&k, "import triton\nimport triton.language as tl\n@triton.jit\n"
                "def k(x_ptr, o_ptr):\n    r = tl.arange(0, 16)\n");
    int depth = 64;
    for (int d = 0; d < depth; d++) {
        sb_printf(&k, "%*sn%d = 0\n", 4 * (d + 1), "", d);
        sb_printf(&k, "%*sfor i%d in range(4):\n", 4 * (d + 1), "", d);
        sb_printf(&k, "%*sn%d = n%d + 1\n", 4 * (d + 2), "", d, d);
    }
    sb_printf(&k, "%*sx = tl.load(x_ptr + r * i%d + i0 + n%d)\n", 4 * (depth + 1), "", depth - 1, depth / 2);
    sb_printf(&k, "%*stl.store(o_ptr + r + i%d * 16, x * i%d + r)\n", 4 * (depth + 1), "", depth / 2, depth - 1);
    int rc = translate_to(k.data, "*fp32:16, *fp32:16", NULL);
    sb_free(&k);
    cr_assert_eq(rc, 0, "%s", ctx.log.data);
    cr_expect(strstr(out.data, "for (int32_t i63 = 0; i63 < 4; i63 += 1)"), "no innermost loop in:\n%s", out.data);
    cr_expect(strstr(out.data, "// t.py:199  tl.store(o_ptr + r + i32 * 16, x * i63 + r)"), "no store in:\n%s", out.data);
}

/* ---- integer helpers ----------------------------------------------------------- */

Test(axisinfo, highest_pow2_divisor)
{
    static const struct { int64_t x, want; } t[] = {
        {1, 1}, {2, 2}, {3, 1}, {12, 4}, {1024, 1024}, {96, 32}, {-8, 8}, {-6, 2},
        {0, (int64_t)1 << 62}, {(int64_t)1 << 40, (int64_t)1 << 40},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        cr_expect_eq(highest_pow2_divisor(t[i].x), t[i].want, "highest_pow2_divisor(%lld)",
                     (long long)t[i].x);
}

Test(axisinfo, gcd64)
{
    static const struct { int64_t a, b, want; } t[] = {
        {12, 18, 6}, {18, 12, 6}, {7, 13, 1}, {0, 5, 5}, {5, 0, 5}, {1024, 16, 16},
        {(int64_t)1 << 62, 64, 64}, {48, 48, 48},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++)
        cr_expect_eq(gcd64(t[i].a, t[i].b), t[i].want, "gcd64(%lld, %lld)", (long long)t[i].a,
                     (long long)t[i].b);
}

/* ---- affine tiles and comparisons decided per register (tir_cmp_decided) ---- */

static const char *decided_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, n, N: tl.constexpr):\n"
    "    cols = tl.arange(0, 1024)\n"
    "    a = cols < N\n"
    "    b = cols * 4194304 < 0\n"
    "    c = 2 * cols - 7 >= N\n"
    "    d = cols < n\n"
    "    e = cols != 2000\n"
    "    tl.store(x_ptr + cols, a.to(tl.int32) + b.to(tl.int32) + c.to(tl.int32) + d.to(tl.int32)\n"
    "             + e.to(tl.int32))\n";

/* With 4 warps a thread holds 8 of the 1024 columns, registers 4-7 at +512: cols < 400 is
 * false there in every thread, 2 * cols - 7 >= 400 true; cols * 2**22 wraps in int32 (no
 * longer a sum of its parts) and cols < n depends on n, so both stay tests; cols != 2000
 * holds everywhere and becomes a constant. */
Test(axisinfo, comparisons_decided_per_register)
{
    cr_assert_eq(translate_to(decided_src, "*i32:16, i32, 400", NULL), 0, "%s", ctx.log.data);
    cr_expect(strstr(out.data, "e < 4 && cols[e] < 400"), "%s", out.data);
    cr_expect(strstr(out.data, "in every thread, registers 4-7 are false: not tested"), "%s", out.data);
    cr_expect(strstr(out.data, "e >= 4 || ((2 * cols[e]) - 7) >= 400"), "%s", out.data);
    cr_expect(strstr(out.data, "(cols[e] * 4194304) < 0"), "the wrapping product was decided:\n%s", out.data);
    cr_expect(strstr(out.data, "cols[e] < n"), "%s", out.data);
    cr_expect(!strstr(out.data, "!= 2000"), "cols != 2000 was not folded:\n%s", out.data);
}

/* Products too large to follow (2^39 * 2^39 overflows 64 bits) are not affine: the
 * comparison stays a test, and tilec's own arithmetic does not overflow (UBSan runs this). */
Test(axisinfo, huge_products_are_not_decided)
{
    const char *source =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr):\n"
        "    cols = tl.arange(0, 1024).to(tl.int64)\n"
        "    big = cols * 549755813888 * 549755813888\n"
        "    tl.store(x_ptr + cols, (big < 0).to(tl.int32))\n";
    cr_assert_eq(translate_to(source, "*i32:16", NULL), 0, "%s", ctx.log.data);
    cr_expect(!strstr(out.data, "not tested"), "%s", out.data);
    cr_expect(strstr(out.data, "< 0"), "%s", out.data);
}

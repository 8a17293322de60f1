/* test_summary.c — what a kernel uses (src/tileir/summary.c, tir_summarize):
 * the flags the emitter picks its includes and runtime helpers by, and
 * MATH_LIST's flushed column against the helpers of the math template. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "templates.h"

TestSuite(summary, .timeout = 20.0);

static Ctx sctx;
static TirFunc sfn;
static void reset(void)
{
    arena_free(&sctx.arena);
    memset(&sctx, 0, sizeof sctx);
    memset(&sfn, 0, sizeof sfn);
}

static const char *math_template(void)
{
    for (int i = 0; i < tilec_template_count; i++)
        if (strstr(tilec_templates[i].name, "_math"))
            return tilec_templates[i].text;
    cr_assert_fail("no math template");
    return NULL;
}

/* flushed is 1 exactly where the fp32 spelling calls a helper that
 * tilec_runtime_math.cuh defines ("tilec::flushed<sinf>": flushed) */
Test(summary, flushed_column_matches_the_math_template)
{
    static const struct {
        const char *name, *fp32;
        bool flushed;
    } rows[] = {
#define X(e, n, f, d, z) {.name = n, .fp32 = f, .flushed = z},
        MATH_LIST(X)
#undef X
    };
    const char *text = math_template();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *f = rows[i].fp32;
        bool defined = false;
        if (!strncmp(f, "tilec::", 7)) {
            char want[64];
            snprintf(want, sizeof want, "float %.*s(", (int)strcspn(f + 7, "<"), f + 7);
            defined = strstr(text, want) != NULL;
        }
        cr_expect_eq(rows[i].flushed, defined, "%s (%s): flushed column %d", rows[i].name, f, rows[i].flushed);
    }
}

static Op *add_op(Block *b, OpKind kind, int nargs, Value **args, int nres, const Type *res)
{
    Op *op = tir_op_new(&sctx.arena, &sfn, kind, nargs, args, nres, res);
    tir_block_append(&sctx.arena, b, op);
    return op;
}

static Op *math_of(Block *b, MathFn fn, DType d)
{
    Type t = type_scalar(d);
    Value *x = tir_value_new(&sctx.arena, &sfn, t);
    Op *op = add_op(b, OP_MATH, 1, &x, 1, &t);
    op->math.fn = fn;
    return op;
}

static TirFunc *summarized(void)
{
    tir_summarize(&sctx, &sfn);
    return &sfn;
}

Test(summary, flushed_math_by_function_and_type, .fini = reset)
{
    static const struct {
        MathFn fn;
        DType d;
        bool flushed;
    } cases[] = {
        {MATH_SIN, DT_FP32, true},   {MATH_SIN, DT_FP64, false},  {MATH_COS, DT_FP32, false},
        {MATH_ERF, DT_FP32, true},   {MATH_CBRT, DT_FP32, true},  {MATH_EXP, DT_FP32, false},
        {MATH_LOG1P, DT_FP32, true}, {MATH_LOG1P, DT_FP64, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&sfn, 0, sizeof sfn);
        sfn.body = tir_block_new(&sctx.arena, NULL);
        math_of(sfn.body, cases[i].fn, cases[i].d);
        cr_expect_eq(summarized()->uses_flushed_math, cases[i].flushed, "case %zu", i);
    }
}

Test(summary, types_and_printf_inside_regions, .fini = reset)
{
    sfn.body = tir_block_new(&sctx.arena, NULL);
    TirFunc *f = summarized();
    cr_expect(!f->uses_fp16 && !f->uses_bf16 && !f->uses_fp8 && !f->uses_printf && !f->uses_flushed_math);

    Type b1 = type_scalar(DT_I1), h = type_scalar(DT_BF16);
    Value *c = tir_value_new(&sctx.arena, &sfn, b1);
    Op *br = add_op(sfn.body, OP_IF, 1, &c, 0, NULL);
    br->regions[0] = tir_block_new(&sctx.arena, br);
    br->nregions = 1;
    add_op(br->regions[0], OP_CONST, 0, NULL, 1, &h);
    add_op(br->regions[0], OP_ASSERT, 1, &c, 0, NULL);
    f = summarized();
    cr_expect(f->uses_bf16, "a bf16 value in a branch");
    cr_expect(f->uses_printf, "device_assert prints");
    cr_expect(!f->uses_fp16 && !f->uses_fp8);

    Type e5 = type_scalar(DT_FP8E5), hf = type_scalar(DT_FP16);
    add_op(sfn.body, OP_CONST, 0, NULL, 1, &e5);
    add_op(sfn.body, OP_CONST, 0, NULL, 1, &hf);
    f = summarized();
    cr_expect(f->uses_fp8 && f->uses_fp16);
}

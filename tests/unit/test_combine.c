/* test_combine.c — tl.reduce and tl.associative_scan with a jit combine function
 * (src/tileir/lower_combine.c, the combine rules of layout.c, smem.c and tir_verify):
 * the region a combine is lowered into, one layout for all of a combine's operands,
 * and the shared bytes of its partials. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"

TestSuite(combine, .timeout = 20.0);

static Ctx tctx;
static Source tsrc;
static StrBuf tout;

static void translate_reset(void)
{
    arena_free(&tctx.arena);
    sb_free(&tctx.log);
    sb_free(&tout);
}

#define HEAD "import triton\nimport triton.language as tl\n"

static const char *welford_src =
    HEAD "@triton.jit\n"
    "def welford(mean_a, m2_a, n_a, mean_b, m2_b, n_b):\n"
    "    n = n_a + n_b\n"
    "    delta = mean_b - mean_a\n"
    "    share = tl.where(n == 0.0, 0.0, n_b / n)\n"
    "    return mean_a + delta * share, m2_a + m2_b + delta * delta * n_a * share, n\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):\n"
    "    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    m2 = tl.zeros((ROWS, COLS), dtype=tl.float32)\n"
    "    w = (x > 0).to(tl.int8)\n"
    "    mean, m2, n = tl.reduce((x, m2, x * 0.0 + 1.0), 1, welford)\n"
    "    tl.store(y_ptr + tl.arange(0, ROWS), mean + m2 / n)\n";

static const char *cummax_src =
    HEAD "@triton.jit\n"
    "def cummax(v_a, i_a, v_b, i_b):\n"
    "    return tl.maximum(v_a, v_b), tl.where(v_a >= v_b, i_a, i_b)\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr, i_ptr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    small = (offs & 7).to(tl.int8)\n"
    "    v, i = tl.associative_scan((x, small), 0, cummax, reverse=True)\n"
    "    tl.store(y_ptr + offs, v)\n"
    "    tl.store(i_ptr + offs.to(tl.int64) * 2, i)\n";

static TirFunc *translate(const char *src, const char *sig, int warps)
{
    tsrc = (Source){"combine.py", src, strlen(src)};
    memset(&tctx, 0, sizeof tctx);
    tctx.src = &tsrc;
    memset(&tout, 0, sizeof tout);
    TirFunc *f = NULL;
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&tctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.kernel = "k";
    opt.lower.num_warps = warps;
    opt.emit = EMIT_CUDA;
    opt.result = &f;
    cr_assert_eq(tilec_translate(&tctx, &opt, &tout), 0, "%s", tctx.log.data ? tctx.log.data : "");
    return f;
}

static Op *find_op(Block *b, OpKind kind)
{
    for (int i = 0; i < b->ops.len; i++)
        if (b->ops.data[i]->kind == kind)
            return b->ops.data[i];
    return NULL;
}

/* The region: 2N arguments named after the function's parameters, of the operands'
 * element types, ending in a yield of N. */
Test(combine, region_has_the_functions_parameters, .fini = translate_reset)
{
    TirFunc *f = translate(welford_src, "*fp32:16, *fp32:16, 4, 256", 4);
    Op *op = find_op(f->body, OP_REDUCE);
    cr_assert(op, "no reduction");
    cr_expect_eq(op->reduce.kind, RED_COMBINE);
    cr_expect_str_eq(op->reduce.combine, "welford");
    cr_assert_eq(op->nargs, 3);
    cr_assert_eq(op->nres, 3);
    cr_assert_eq(op->nregions, 1);
    Block *b = op->regions[0];
    static const char *const names[6] = {"mean_a", "m2_a", "n_a", "mean_b", "m2_b", "n_b"};
    cr_assert_eq(b->args.len, 6);
    for (int i = 0; i < 6; i++) {
        cr_expect_str_eq(b->args.data[i]->name, names[i]);
        cr_expect(type_eq(b->args.data[i]->type, type_scalar(DT_FP32)), "argument %d", i);
    }
    Op *y = b->ops.data[b->ops.len - 1];
    cr_expect_eq(y->kind, OP_YIELD);
    cr_expect_eq(y->nargs, 3);
}

/* Every operand of a combine in one layout, every result its slice. */
Test(combine, operands_share_a_layout, .fini = translate_reset)
{
    TirFunc *f = translate(welford_src, "*fp32:16, *fp32:16, 4, 256", 4);
    Op *op = find_op(f->body, OP_REDUCE);
    cr_assert(op);
    const Layout *l = op->args[0]->layout;
    cr_assert(l);
    for (int k = 1; k < op->nargs; k++)
        cr_expect(layout_eq(op->args[k]->layout, l), "operand %d has another layout", k);
    for (int k = 0; k < op->nres; k++) {
        const Layout *r = op->results[k]->layout;
        cr_assert(r, "result %d has no layout", k);
        cr_expect(r->kind == LAYOUT_SLICE && r->slice_dim == 1 && layout_eq(r->parent, l), "result %d", k);
    }
}

/* Each operand's partials are their own array, 8-byte aligned: 3 x fp32 (12 bytes, 16
 * with the padding), 3 x i8 (3, 8) and 3 x fp64 (24). */
Test(combine, partials_are_aligned_per_operand, .fini = translate_reset)
{
    memset(&tctx, 0, sizeof tctx);
    TirFunc fn = {0};
    Type ts[3] = {type_tensor(type_scalar(DT_FP32), 1, (int[]){64}), type_tensor(type_scalar(DT_I8), 1, (int[]){64}),
                  type_tensor(type_scalar(DT_FP64), 1, (int[]){64})};
    Value *xs[3];
    for (int k = 0; k < 3; k++)
        xs[k] = tir_value_new(&tctx.arena, &fn, ts[k]);
    Op *op = tir_op_new(&tctx.arena, &fn, OP_REDUCE, 3, xs, 0, NULL);
    cr_expect_eq(combine_partials_bytes(op, 3), 16 + 8 + 24);
    cr_expect_eq(combine_partials_bytes(op, 8), 32 + 8 + 64);
}

/* A reduction whose warps split the axis stages one partial group per warp: the
 * op's shared bytes are those of its partials. */
Test(combine, reduction_across_warps_uses_its_partials, .fini = translate_reset)
{
    TirFunc *f = translate(welford_src, "*fp32:16, *fp32:16, 1, 1024", 8);
    Op *op = find_op(f->body, OP_REDUCE);
    cr_assert(op);
    int w = reduce_warp_bits(op);
    cr_assert_gt(w, 0, "no warps along the axis");
    cr_expect_eq(op->smem_bytes, combine_partials_bytes(op, 1 << w));
}

/* A scan of (fp32, i8) through warps: its buffer holds both operands' totals, and the
 * results keep the operands' layout, whatever their users want. */
Test(combine, scan_results_in_the_operands_layout, .fini = translate_reset)
{
    TirFunc *f = translate(cummax_src, "*fp32:16, *fp32:16, *i8:16, 1024", 4);
    Op *op = find_op(f->body, OP_SCAN);
    cr_assert(op);
    cr_expect_eq(op->scan.kind, SCAN_COMBINE);
    cr_expect(op->scan.reverse);
    cr_expect(layout_eq(op->args[1]->layout, op->args[0]->layout));
    for (int k = 0; k < op->nres; k++)
        cr_expect(layout_eq(op->results[k]->layout, op->args[0]->layout), "result %d", k);
    LayoutMap m;
    value_map(op->args[0], &m);
    AxisBits ab;
    axis_bits(&m, 0, &ab);
    cr_assert_gt(ab.nwarp, 0);
    cr_expect_eq(op->smem_bytes, combine_partials_bytes(op, 1 << ab.nwarp << ab.nrep));
    cr_expect(strstr(tout.data, "void cummax(const float v_a, const int8_t i_a,"), "%s", tout.data);
}

static const char *pick_src =
    HEAD "@triton.jit\n"
    "def pick(v_a, i_a, v_b, i_b):\n"
    "    return tl.where(v_a >= v_b, v_a, v_b), tl.where(v_a >= v_b, i_a, i_b)\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr):\n"
    "    r = tl.arange(0, 8)\n"
    "    offs = r[:, None] * 8 + r[None, :]\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    best, at = tl.reduce((x, offs), None, pick)\n"
    "    tl.store(y_ptr, best + at)\n"
    "    top, where = tl.reduce((tl.load(x_ptr + r), r), 0, pick, keep_dims=True)\n"
    "    tl.store(y_ptr + tl.arange(0, 1), top + where)\n"
    "    hi, hi_at = tl.reduce((x, offs), 1, pick, keep_dims=True)\n"
    "    tl.store(y_ptr + offs, hi + hi_at)\n"
    "    hi3, at3 = tl.reduce((tl.reshape(x, (2, 4, 8)), tl.reshape(offs, (2, 4, 8))), 2, pick, keep_dims=True)\n"
    "    tl.store(y_ptr + r, tl.reshape(hi3 + at3, (8,)))\n";

/* The results of a tuple tl.reduce are named after their tuple targets where these name
 * another value: the kept-dims tile (keep_dims=True), or the last of axis=None's reductions. */
Test(combine, tuple_results_take_their_targets_names, .fini = translate_reset)
{
    translate(pick_src, "*fp32:16, *fp32:16", 4);
    static const char *const decls[] = {
        "float row_best[", "int32_t row_at[", "float best;", "int32_t at;",  /* axis=None */
        "float all_top;", "int32_t all_where;",                              /* 1-D, keep_dims */
        "float row_hi[", "int32_t row_hi_at[",                               /* 2-D, keep_dims */
        "float dim2_hi3[", "int32_t dim2_at3[",                              /* 3-D, keep_dims */
    };
    for (size_t i = 0; i < sizeof decls / sizeof decls[0]; i++)
        cr_expect(strstr(tout.data, decls[i]), "no \"%s\" in\n%s", decls[i], tout.data);
    cr_expect(!strstr(tout.data, "reduced"), "a result named by its role:\n%s", tout.data);
}

/* Runs fn(arg) in a child process whose standard error goes to a pipe: the child must
 * stop on a BUG(), with SIGABRT and "tilec: internal error at FILE:LINE: " then a message
 * holding want.  The expected message is checked here rather than printed into the run's
 * log, where it would read as a real internal error. */
static void expect_bug(void (*fn)(void *), void *arg, const char *want)
{
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0, "fork failed");
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        fn(arg);
        _exit(0); /* no BUG(): the parent sees exit status 0 */
    }
    close(fd[1]);
    StrBuf err = {0};
    char buf[512];
    ssize_t got;
    while ((got = read(fd[0], buf, sizeof buf)) > 0)
        sb_putn(&err, buf, (size_t)got);
    close(fd[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    const char *text = err.data ? err.data : "";
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "the child did not abort (status %d); stderr: %s",
              status, text);
    cr_expect(!strncmp(text, "tilec: internal error at ", 25), "stderr: %s", text);
    cr_expect(strstr(text, want) != NULL, "stderr lacks \"%s\": %s", want, text);
    sb_free(&err);
}

static void verify(void *f) { tir_verify(&tctx, f); }

/* The verifier refuses a combine region that reads a value from outside it. */
Test(combine, verifier_refuses_an_outside_value, .fini = translate_reset)
{
    TirFunc *f = translate(cummax_src, "*fp32:16, *fp32:16, *i8:16, 1024", 4);
    Op *op = find_op(f->body, OP_SCAN);
    cr_assert(op);
    /* an fp32 constant at the top of the kernel, yielded by the combine */
    Type t = type_scalar(DT_FP32);
    Op *c = tir_op_new(&tctx.arena, f, OP_CONST, 0, NULL, 1, &t);
    tir_block_append(&tctx.arena, f->body, c);
    Block *body = f->body;
    memmove(body->ops.data + 1, body->ops.data, sizeof body->ops.data[0] * (size_t)(body->ops.len - 1));
    body->ops.data[0] = c;
    Op *y = op->regions[0]->ops.data[op->regions[0]->ops.len - 1];
    y->args[0] = c->results[0];
    /* combine_ok's reads_only_within */
    expect_bug(verify, f, "op scan has attributes that do not fit its operands");
}

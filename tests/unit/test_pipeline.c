/* test_pipeline.c — where a pipelined loop issues its copies and how many ring
 * slots it keeps (src/tileir/pipeline.c: copies_late, tight_ring_pays), and
 * branches that only compute and load run as straight code (ifconv.c). */
#include <criterion/criterion.h>
#include <string.h>

#include "driver.h"

TestSuite(pipeline, .timeout = 10.0);

static Ctx ctx;
static Source src;
static StrBuf out;
static TirFunc *fn;

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&out);
}

static void translate(const char *source, const char *sig, int num_warps, int arch)
{
    src = (Source){"p.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.num_warps = num_warps;
    opt.lower.num_stages = 3;
    opt.lower.arch = arch;
    opt.emit = EMIT_TILEIR;
    opt.result = &fn;
    cr_assert_eq(tilec_translate(&ctx, &opt, &out), 0, "%s", ctx.log.data ? ctx.log.data : "");
}

/* The ops of kind k in b and the regions below it, in program order. */
static int find_ops(const Block *b, OpKind k, const Op **found, int max)
{
    int n = 0;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op->kind == k && n < max)
            found[n++] = op;
        for (int r = 0; r < op->nregions; r++)
            n += find_ops(op->regions[r], k, found + n, max - n);
    }
    return n;
}

/* The index in b of its first op of kind k, or -1. */
static int first_index(const Block *b, OpKind k)
{
    for (int i = 0; i < b->ops.len; i++)
        if (b->ops.data[i]->kind == k)
            return i;
    return -1;
}

/* The pipelined loop: the last for loop of the kernel's body (after its prologue). */
static const Block *main_loop_body(void)
{
    const Op *loops[4];
    int n = find_ops(fn->body, OP_FOR, loops, 4);
    cr_assert_eq(n, 2, "the prologue and the loop");
    return loops[1]->regions[0];
}

#define HEAD "import triton\nimport triton.language as tl\n@triton.jit\n"

/* A K loop of a BM x 64 x 32 dot: BM 64 holds 32 accumulators a thread on 4
 * warps, BM 256 holds 128. */
static const char *matmul_src =
    HEAD
    "def k(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.arange(0, 64)\n"
    "    rk = tl.arange(0, 32)\n"
    "    acc = tl.zeros((BM, 64), dtype=tl.float32)\n"
    "    for k in range(0, K, 32):\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])\n"
    "        b = tl.load(b_ptr + (k + rk)[:, None] * 64 + rn[None, :])\n"
    "        acc = tl.dot(a, b, acc)\n"
    "    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], acc)\n";

/* The copies of the step ahead come after the step's dot, as Triton places them. */
Test(pipeline, copies_after_the_dots, .fini = reset)
{
    translate(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 64", 4, 80);
    const Block *body = main_loop_body();
    int dot = first_index(body, OP_DOT), copy = first_index(body, OP_ASYNC_COPY);
    cr_assert(dot >= 0 && copy >= 0);
    cr_expect_lt(dot, copy, "the dot first, then the copies");
    cr_expect_eq(first_index(body, OP_ASYNC_WAIT), 0, "the wait and barrier still open the step");
}

/* With 128 accumulators a thread the copies' addresses would compete with them
 * for registers: the copies stay first. */
Test(pipeline, copies_first_with_many_accumulators, .fini = reset)
{
    translate(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 256", 4, 80);
    const Block *body = main_loop_body();
    cr_expect_lt(first_index(body, OP_ASYNC_COPY), first_index(body, OP_DOT));
}

/* A block table's entry, loaded in the step, addresses the copies: they wait
 * for it, so they stay first (at the end of the step the wait held up the
 * next one). */
Test(pipeline, copies_first_when_stage0_loads, .fini = reset)
{
    translate(HEAD
              "def k(a_ptr, t_ptr, b_ptr, c_ptr, steps):\n"
              "    rm = tl.arange(0, 64)\n"
              "    rn = tl.arange(0, 64)\n"
              "    rk = tl.arange(0, 32)\n"
              "    acc = tl.zeros((64, 64), dtype=tl.float32)\n"
              "    for s in range(0, steps):\n"
              "        blk = tl.load(t_ptr + s)\n"
              "        a = tl.load(a_ptr + rm[:, None] * 32 + rk[None, :])\n"
              "        b = tl.load(b_ptr + (blk * 32 + rk)[:, None] * 64 + rn[None, :])\n"
              "        acc = tl.dot(a, b, acc)\n"
              "    tl.store(c_ptr + rm[:, None] * 64 + rn[None, :], acc)\n",
              "*fp16:16, *i32:16, *fp16:16, *fp32:16, i32", 4, 80);
    const Block *body = main_loop_body();
    cr_expect_lt(first_index(body, OP_ASYNC_COPY), first_index(body, OP_DOT));
}

/* A decode step: 16 rows against 64 x 128 fp16 blocks of K and V, 4 warps.
 * Its rings bound the blocks per SM (2 at 3 slots, 3 at 2), so it keeps
 * num_stages-1 slots, and a barrier lets the copies reuse the slot just read. */
Test(pipeline, tight_ring_for_a_decode_step, .fini = reset)
{
    translate(HEAD
              "def k(q_ptr, k_ptr, v_ptr, o_ptr, N):\n"
              "    h = tl.arange(0, 16)\n"
              "    d = tl.arange(0, 128)\n"
              "    t = tl.arange(0, 64)\n"
              "    q = tl.load(q_ptr + h[:, None] * 128 + d[None, :])\n"
              "    acc = tl.zeros((16, 128), dtype=tl.float32)\n"
              "    for n in range(0, N, 64):\n"
              "        kt = tl.load(k_ptr + (n + t)[:, None] * 128 + d[None, :])\n"
              "        s = tl.dot(q, tl.trans(kt))\n"
              "        v = tl.load(v_ptr + (n + t)[:, None] * 128 + d[None, :])\n"
              "        acc = tl.dot(s.to(tl.float16), v, acc)\n"
              "    tl.store(o_ptr + h[:, None] * 128 + d[None, :], acc)\n",
              "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16", 4, 90);
    const Block *body = main_loop_body();
    const Op *copies[8];
    int n = find_ops(body->parent->parent, OP_ASYNC_COPY, copies, 8);
    cr_assert_gt(n, 0);
    for (int i = 0; i < n; i++)
        cr_expect_eq(copies[i]->buf->stage->nslots, 2, "num_stages - 1 slots");
    int bar = first_index(body, OP_BARRIER), copy = first_index(body, OP_ASYNC_COPY);
    cr_assert_geq(bar, 0, "a barrier in the step");
    cr_expect_lt(bar, copy, "before the copies");
    cr_expect_lt(first_index(body, OP_DOT), bar, "after the dots");
}

/* The same with 3 stages' worth of room: 64 x 64 tiles on 4 warps are bound by
 * their registers, not the ring, so the ring keeps num_stages slots and one
 * barrier. */
Test(pipeline, full_ring_where_shared_memory_does_not_bind, .fini = reset)
{
    translate(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 64", 4, 80);
    const Block *body = main_loop_body();
    const Op *copies[4];
    cr_assert_gt(find_ops(body, OP_ASYNC_COPY, copies, 4), 0);
    cr_expect_eq(copies[0]->buf->stage->nslots, 3);
    cr_expect_eq(first_index(body, OP_BARRIER), -1);
}

/* A branch that only computes and loads becomes straight code: no if is left,
 * its loads are masked (the else branch's by the negated condition), and the
 * values it defined are selects.  A branch that stores stays a branch. */
Test(pipeline, branch_loads_become_selects, .fini = reset)
{
    translate(HEAD
              "def k(x_ptr, y_ptr, w_ptr, o_ptr, n):\n"
              "    offs = tl.arange(0, 128)\n"
              "    acc = tl.zeros([128], dtype=tl.float32)\n"
              "    for s in range(4):\n"
              "        w = tl.load(w_ptr + s)\n"
              "        if w > 0:\n"
              "            acc += w * tl.load(x_ptr + offs)\n"
              "        else:\n"
              "            acc -= tl.load(y_ptr + offs, mask=offs < n, other=0.0)\n"
              "    if n > 3:\n"
              "        tl.store(o_ptr + 128 + offs, acc)\n"
              "    tl.store(o_ptr + offs, acc)\n",
              "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32", 4, 80);
    const Op *ifs[4], *loads[8], *selects[8];
    cr_expect_eq(find_ops(fn->body, OP_IF, ifs, 4), 1, "only the storing branch");
    const Op *stores[2];
    cr_expect_eq(find_ops(ifs[0]->regions[0], OP_STORE, stores, 2), 1);
    int n = find_ops(fn->body, OP_LOAD, loads, 8);
    cr_assert_eq(n, 3);
    int masked = 0;
    for (int i = 0; i < n; i++)
        masked += loads[i]->load.has_mask && loads[i]->results[0]->type.rank;
    cr_expect_eq(masked, 2, "both tile loads masked by their branch");
    cr_expect_geq(find_ops(fn->body, OP_SELECT, selects, 8), 1, "acc selected");
}

/* An integer division is left in its branch: the divisor may be the zero the
 * condition guards against. */
Test(pipeline, branch_with_integer_division_stays, .fini = reset)
{
    translate(HEAD
              "def k(x_ptr, o_ptr, d):\n"
              "    offs = tl.arange(0, 128)\n"
              "    x = tl.load(x_ptr + offs)\n"
              "    if d != 0:\n"
              "        x = x // d + tl.load(x_ptr + 128 + offs)\n"
              "    tl.store(o_ptr + offs, x)\n",
              "*i32:16, *i32:16, i32", 4, 80);
    const Op *ifs[2];
    cr_expect_eq(find_ops(fn->body, OP_IF, ifs, 2), 1);
}

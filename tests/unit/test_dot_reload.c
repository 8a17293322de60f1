/* test_dot_reload.c — tir_dot_reload (src/tileir/dot_reload.c): a tl.dot operand
 * made before the loop of its dot is written to shared memory there (local_alloc)
 * and read in the loop (local_load), as Triton's ReorderInstructions sinks it; the
 * buffer's bytes are kept apart from the loop's until a barrier after the loop;
 * TILEC_DOT_RELOAD=0 keeps the operand in registers.  On sm_90 (tir_wgmma, tir_pipeline):
 * attention's dots on wgmma, p @ v's group left in flight with a spare ring slot.  The
 * pipeline suite: where a loop issues its copies, how many slots its rings keep, and
 * branches that only compute and load run as straight code (tir_if_convert). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

TestSuite(dot_reload, .timeout = 10.0);

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

static void translate_on(const char *source, const char *sig, int num_warps, int num_stages, int arch, EmitKind emit)
{
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.num_warps = num_warps;
    opt.lower.num_stages = num_stages;
    opt.lower.arch = arch;
    opt.emit = emit;
    opt.result = &fn;
    cr_assert_eq(tilec_translate(&ctx, &opt, &out), 0, "%s", ctx.log.data ? ctx.log.data : "");
}

static void translate(const char *source, const char *sig, int num_stages, EmitKind emit)
{
    translate_on(source, sig, 4, num_stages, 0, emit);
}

static const char *out_text(void) { return out.data ? out.data : ""; }

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

/* The local_allocs in b and below it that hold a loop-invariant operand (not
 * those written just before their dot, local_alloc_beside), in program order. */
static int find_invariant_allocs(const Block *b, const Op **found, int max)
{
    const Op *all[32];
    int n = find_ops(b, OP_LOCAL_ALLOC, all, 32), m = 0;
    for (int i = 0; i < n; i++)
        if (!local_alloc_beside(all[i]) && m < max)
            found[m++] = all[i];
    return m;
}

/* The barriers in b and below it that free alloc's buffer (dot_reload.c). */
static int barriers_freeing(const Block *b, const Op *alloc, const Op **found, int max)
{
    const Op *all[64];
    int n = find_ops(b, OP_BARRIER, all, 64), m = 0;
    for (int i = 0; i < n; i++)
        if (all[i]->buf == alloc && m < max)
            found[m++] = all[i];
    return m;
}

/* The op after op in its block, or NULL. */
static const Op *next_op(const Op *op)
{
    const Block *b = op->parent;
    for (int i = 0; i + 1 < b->ops.len; i++)
        if (b->ops.data[i] == op)
            return b->ops.data[i + 1];
    return NULL;
}

/* The op of block b that holds op. */
static const Op *holder_in(const Block *b, const Op *op)
{
    while (op && op->parent != b)
        op = op->parent->parent;
    return op;
}

#define KERNEL_HEAD "import triton\nimport triton.language as tl\n@triton.jit\n"
#define ATTN_SIG "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32"

/* attention's two dots: q, loaded before the loop, is operand A of the first */
static const char *attn_src =
    KERNEL_HEAD
    "def k(q_ptr, k_ptr, v_ptr, o_ptr, N):\n"
    "    rows = tl.arange(0, 128)\n"
    "    cols = tl.arange(0, 64)\n"
    "    q = tl.load(q_ptr + rows[:, None] * 64 + cols[None, :])\n"
    "    m_i = tl.full([128], float('-inf'), dtype=tl.float32)\n"
    "    acc = tl.zeros([128, 64], dtype=tl.float32)\n"
    "    for n in range(0, N, 64):\n"
    "        kt = tl.load(k_ptr + (n + cols)[None, :] * 64 + cols[:, None])\n"
    "        s = tl.dot(q, kt)\n"
    "        m_new = tl.maximum(m_i, tl.max(s, 1))\n"
    "        p = tl.exp(s - m_new[:, None])\n"
    "        v = tl.load(v_ptr + (n + cols)[:, None] * 64 + cols[None, :])\n"
    "        acc = acc * tl.exp(m_i - m_new)[:, None] + tl.dot(p.to(tl.float16), v)\n"
    "        m_i = m_new\n"
    "    tl.store(o_ptr + rows[:, None] * 64 + cols[None, :], acc)\n";

/* The operand goes to shared memory before the loop and is read just before
 * its dot; the pipeline's drain after the loop frees the buffer, so no barrier
 * is added; the buffer overlaps none of the loop's rings. */
Test(dot_reload, loop_invariant_operand_read_in_the_loop, .fini = reset)
{
    translate(attn_src, ATTN_SIG, 3, EMIT_TILEIR);
    const Op *allocs[4], *lls[8], *bars[4];
    cr_assert_eq(find_invariant_allocs(fn->body, allocs, 4), 1);
    const Op *alloc = allocs[0], *ll = alloc->buf;
    cr_assert_eq(alloc->parent, fn->body, "the write stays where q is made");
    cr_assert_eq(ll->kind, OP_LOCAL_LOAD);
    cr_expect_eq(ll->buf, alloc);
    cr_expect_eq(ll->nargs, 0, "one buffer, no ring slot");
    const Op *loop = holder_in(fn->body, ll);
    cr_assert_eq(loop->kind, OP_FOR);
    const Op *dot = next_op(ll);
    cr_assert(dot && dot->kind == OP_DOT && dot->args[0] == ll->results[0], "read just before its dot");
    cr_expect_eq(next_op(loop)->kind, OP_ASYNC_WAIT, "the pipeline's drain follows the loop");
    cr_expect_eq(find_ops(fn->body, OP_BARRIER, bars, 4), 0);
    int n = find_ops(fn->body, OP_LOCAL_LOAD, lls, 8);
    int rings = 0;
    for (int i = 0; i < n; i++) {
        if (lls[i] == ll)
            continue;
        rings++;
        int lo = lls[i]->smem_offset, hi = lo + lls[i]->smem_bytes;
        cr_expect(hi <= alloc->smem_offset || alloc->smem_offset + alloc->smem_bytes <= lo,
                  "ring [%d, %d) overlaps q's buffer at %d", lo, hi, alloc->smem_offset);
    }
    cr_expect_eq(rings, 2, "k and v are pipelined");
    cr_expect_eq(alloc->smem_bytes, 128 * 64 * 2);
}

/* The CUDA: q written once before the loop, its fragments read by ldmatrix in
 * the first dot's K steps. */
Test(dot_reload, cuda_reads_fragments_per_k_step, .fini = reset)
{
    translate(attn_src, ATTN_SIG, 3, EMIT_CUDA);
    const char *write = strstr(out_text(), "// q (L0) to stage");
    const char *loop = strstr(out_text(), "for (int32_t n = 0;");
    cr_assert(write && loop, "%s", out_text());
    cr_expect_lt(write, loop, "%s", out_text());
    const char *read = strstr(loop, "one K step at a time, in the tl.dot below");
    cr_expect(read && strstr(read, "tilec::ldmatrix<4, false>(&q_"), "%s", out_text());
    cr_expect(strstr(out_text(), "written once before its loop, read with ldmatrix in every iteration"), "%s", out_text());
}

/* Without a pipeline (num_stages 1) nothing waits after the loop: a barrier of
 * its own frees the buffer. */
Test(dot_reload, barrier_after_a_loop_without_drain, .fini = reset)
{
    translate(attn_src, ATTN_SIG, 1, EMIT_TILEIR);
    const Op *allocs[4], *bars[4];
    cr_assert_eq(find_invariant_allocs(fn->body, allocs, 4), 1);
    const Op *loop = holder_in(fn->body, allocs[0]->buf);
    cr_assert_eq(barriers_freeing(fn->body, allocs[0], bars, 4), 1);
    cr_expect_eq(next_op(loop), bars[0]);
}

/* attention's keys in two loops (below the diagonal, then on it), both dots
 * reading q, with an exchange between the loops (a row sum of q) */
static const char *two_loops_src =
    KERNEL_HEAD
    "def k(q_ptr, k_ptr, v_ptr, o_ptr, r_ptr, N):\n"
    "    rows = tl.arange(0, 128)\n"
    "    cols = tl.arange(0, 64)\n"
    "    q = tl.load(q_ptr + rows[:, None] * 64 + cols[None, :])\n"
    "    acc = tl.zeros([128, 64], dtype=tl.float32)\n"
    "    for n in range(0, N, 64):\n"
    "        kt = tl.load(k_ptr + (n + cols)[None, :] * 64 + cols[:, None])\n"
    "        p = tl.dot(q, kt)\n"
    "        v = tl.load(v_ptr + (n + cols)[:, None] * 64 + cols[None, :])\n"
    "        acc += tl.dot(p.to(tl.float16), v)\n"
    "    tl.store(r_ptr + cols, tl.sum(q.to(tl.float32), 0))\n"
    "    for n in range(N, 2 * N, 64):\n"
    "        kt = tl.load(k_ptr + (n + cols)[None, :] * 64 + cols[:, None])\n"
    "        p = tl.dot(q, kt)\n"
    "        v = tl.load(v_ptr + (n + cols)[:, None] * 64 + cols[None, :])\n"
    "        acc += tl.dot(p.to(tl.float16), v)\n"
    "    tl.store(o_ptr + rows[:, None] * 64 + cols[None, :], acc)\n";

/* Is op (in a block of the kernel's body) before loop or inside it? */
static bool before_or_in(const Op *op, const Op *loop)
{
    const Op *h = holder_in(fn->body, op);
    for (int i = 0; i < fn->body->ops.len; i++)
        if (fn->body->ops.data[i] == h)
            return true;
        else if (fn->body->ops.data[i] == loop)
            return false;
    return false;
}

/* Two loops whose dots read the same q share one buffer, written once before
 * the first: a local_load before each dot, the buffer live through both loops
 * (no exchange between them or in them overlaps it), no barrier between the
 * loops for it. */
Test(dot_reload, two_loops_share_one_write, .fini = reset)
{
    translate(two_loops_src, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32", 1, EMIT_TILEIR);
    const Op *allocs[4], *lls[8], *bars[4], *loops[4];
    cr_assert_eq(find_invariant_allocs(fn->body, allocs, 4), 1, "q is written once");
    const Op *alloc = allocs[0];
    int n = find_ops(fn->body, OP_LOCAL_LOAD, lls, 8), reads = 0;
    cr_assert_eq(find_ops(fn->body, OP_FOR, loops, 4), 2);
    for (int i = 0; i < n; i++) {
        if (lls[i]->buf != alloc)
            continue;
        cr_expect_eq(holder_in(fn->body, lls[i]), loops[reads], "read %d in loop %d", reads, reads);
        reads++;
    }
    cr_expect_eq(reads, 2);
    cr_expect_eq(holder_in(fn->body, alloc->buf), loops[1], "alloc->buf is the last reader");
    cr_assert_eq(barriers_freeing(fn->body, alloc, bars, 4), 1);
    cr_expect_eq(bars[0], next_op(loops[1]), "freed after the second loop only");
    /* every other buffer from the first loop to the end of the second is apart from q's */
    const Op *ops[64];
    OpKind kinds[] = {OP_CONVERT, OP_REDUCE, OP_LOCAL_LOAD, OP_LOCAL_ALLOC};
    for (int k = 0; k < 4; k++) {
        int m = find_ops(fn->body, kinds[k], ops, 64);
        for (int i = 0; i < m; i++) {
            const Op *o = ops[i];
            if (!o->smem_bytes || o == alloc || (o->kind == OP_LOCAL_LOAD && o->buf) || !before_or_in(o, loops[1]))
                continue;
            int lo = o->smem_offset, hi = lo + o->smem_bytes;
            cr_expect(hi <= alloc->smem_offset || alloc->smem_offset + alloc->smem_bytes <= lo,
                      "%s [%d, %d) overlaps q's buffer at %d", op_name(o->kind), lo, hi, alloc->smem_offset);
        }
    }
    /* the CUDA says so, where the write is and in the header */
    reset();
    translate(two_loops_src, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32", 1, EMIT_CUDA);
    cr_expect(strstr(out_text(), "once: the tl.dots in the 2 loops below read its fragments there"), "%s", out_text());
    cr_expect(strstr(out_text(), "written once before its 2 loops"), "%s", out_text());
}

/* The attention loop over int64 bounds (keys counted in int64, as kernels that
 * widen a program id against overflow do) pipelines as over int32 ones: its
 * key and value blocks go through rings, and on sm_90 its dots run on wgmma. */
Test(dot_reload, int64_loop_pipelines, .fini = reset)
{
    char src64[2048];
    const char *at = strstr(attn_src, "range(0, N, 64)");
    cr_assert(at);
    snprintf(src64, sizeof src64, "%.*srange(0, N.to(tl.int64), 64)%s", (int)(at - attn_src), attn_src,
             at + strlen("range(0, N, 64)"));
    for (int arch = 80; arch <= 90; arch += 10) {
        translate_on(src64, ATTN_SIG, 4, 3, arch, EMIT_TILEIR);
        const Op *loops[4], *copies[8], *dots[4];
        cr_assert_eq(find_ops(fn->body, OP_FOR, loops, 4), 2, "the prologue and the loop");
        cr_expect_eq(loops[1]->regions[0]->args.data[0]->type.dtype, DT_I64);
        cr_expect_eq(find_ops(fn->body, OP_ASYNC_COPY, copies, 8), 4, "k and v, in the prologue and ahead");
        cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 4), 2);
        for (int i = 0; i < 2; i++)
            cr_expect_eq(dots[i]->dot.wgmma, arch == 90, "sm_%d: dot %d", arch, i);
        reset();
    }
}

/* In an unpipelined loop (num_stages 1) a dot's operands staged through shared
 * memory right before it are read from their buffers one K step at a time:
 * a local_alloc and a local_load each, the buffers apart, one barrier after
 * the dot to free both (three barriers a step, not four); in the CUDA, no
 * fragment array is filled before the dot's K loop. */
Test(dot_reload, unpipelined_operands_read_per_k_step, .fini = reset)
{
    static const char loop_src[] = KERNEL_HEAD
        "def k(a_ptr, b_ptr, c_ptr, K):\n"
        "    r = tl.arange(0, 128)\n"
        "    c = tl.arange(0, 64)\n"
        "    acc = tl.zeros((128, 64), tl.float32)\n"
        "    for k0 in range(0, K, 64):\n"
        "        a = tl.load(a_ptr + r[:, None] * K + (k0 + c)[None, :])\n"
        "        b = tl.load(b_ptr + (k0 + c)[:, None] * 64 + c[None, :])\n"
        "        acc += tl.dot(a, b)\n"
        "    tl.store(c_ptr + r[:, None] * 64 + c[None, :], acc)\n";
    translate_on(loop_src, "*fp16:16, *fp16:16, *fp32:16, i32:16", 4, 1, 80, EMIT_TILEIR);
    const Op *allocs[4], *dots[2], *bars[8];
    cr_assert_eq(find_ops(fn->body, OP_LOCAL_ALLOC, allocs, 4), 2);
    cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 2), 1);
    for (int k = 0; k < 2; k++) {
        cr_expect(local_alloc_beside(allocs[k]));
        cr_expect_eq(allocs[k]->buf->results[0], dots[0]->args[allocs[k]->stage->op_idx]);
    }
    int lo0 = allocs[0]->smem_offset, hi0 = lo0 + allocs[0]->smem_bytes;
    int lo1 = allocs[1]->smem_offset, hi1 = lo1 + allocs[1]->smem_bytes;
    cr_expect(hi0 <= lo1 || hi1 <= lo0, "A at [%d, %d) and B at [%d, %d) overlap", lo0, hi0, lo1, hi1);
    cr_expect_eq(find_ops(dots[0]->parent, OP_BARRIER, bars, 8), 1);
    cr_expect_eq(next_op(dots[0]), bars[0], "one barrier, after the dot");
    reset();
    translate_on(loop_src, "*fp16:16, *fp16:16, *fp32:16, i32:16", 4, 1, 80, EMIT_CUDA);
    const char *t = out_text();
    cr_expect(strstr(t, "// read from stage0 one K step at a time, in the tl.dot below"), "%s", t);
    cr_expect(strstr(t, "// read from stage1 one K step at a time, in the tl.dot below"), "%s", t);
    cr_expect(strstr(t, "every warp is done with stage0 and stage1 before their bytes are written again"), "%s", t);
    cr_expect(!strstr(t, "through shared memory (stage"), "no conversion fills fragments up front: %s", t);
}

/* TILEC_DOT_RELOAD=0: the operand is converted before the loop, in registers. */
Test(dot_reload, knob_keeps_registers, .fini = reset)
{
    setenv("TILEC_DOT_RELOAD", "0", 1);
    translate(attn_src, ATTN_SIG, 3, EMIT_TILEIR);
    unsetenv("TILEC_DOT_RELOAD");
    const Op *allocs[4], *cvts[8];
    cr_expect_eq(find_invariant_allocs(fn->body, allocs, 4), 0);
    int n = find_ops(fn->body, OP_CONVERT, cvts, 8), staged_outside = 0;
    for (int i = 0; i < n; i++)
        staged_outside += cvts[i]->parent == fn->body && is_dot_stage(cvts[i]);
    cr_expect_eq(staged_outside, 1, "q's conversion to operand A, before the loop");
}

/* A matmul's operands are made in the loop of their dot: nothing to do. */
Test(dot_reload, operands_of_the_same_loop_stay, .fini = reset)
{
    translate(KERNEL_HEAD
              "def k(a_ptr, b_ptr, c_ptr, K):\n"
              "    r = tl.arange(0, 64)\n"
              "    c = tl.arange(0, 32)\n"
              "    acc = tl.zeros([64, 64], dtype=tl.float32)\n"
              "    for k0 in range(0, K, 32):\n"
              "        a = tl.load(a_ptr + r[:, None] * K + (k0 + c)[None, :])\n"
              "        b = tl.load(b_ptr + (k0 + c)[:, None] * 64 + r[None, :])\n"
              "        acc += tl.dot(a, b)\n"
              "    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)\n",
              "*fp16:16, *fp16:16, *fp32:16, i32:16", 3, EMIT_TILEIR);
    const Op *allocs[4];
    cr_expect_eq(find_invariant_allocs(fn->body, allocs, 4), 0);
}

/* Triton sinks into scf.for only: a dot in a while loop keeps its operand in registers. */
Test(dot_reload, while_loops_are_left_alone, .fini = reset)
{
    translate(KERNEL_HEAD
              "def k(a_ptr, b_ptr, c_ptr, K):\n"
              "    r = tl.arange(0, 64)\n"
              "    c = tl.arange(0, 32)\n"
              "    a = tl.load(a_ptr + r[:, None] * 32 + c[None, :])\n"
              "    acc = tl.zeros([64, 64], dtype=tl.float32)\n"
              "    k0 = 0\n"
              "    while k0 < K:\n"
              "        b = tl.load(b_ptr + (k0 + c)[:, None] * 64 + r[None, :])\n"
              "        acc += tl.dot(a, b)\n"
              "        k0 += 32\n"
              "    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc)\n",
              "*fp16:16, *fp16:16, *fp32:16, i32:16", 3, EMIT_TILEIR);
    const Op *allocs[4];
    cr_expect_eq(find_invariant_allocs(fn->body, allocs, 4), 0);
}

/* An operand made in an outer loop and read in an inner one: written in the
 * outer body, read in the inner loop, freed after the inner loop (where the
 * next outer iteration writes it again). */
Test(dot_reload, inner_loop_of_an_outer_one, .fini = reset)
{
    translate(KERNEL_HEAD
              "def k(a_ptr, b_ptr, c_ptr, T, K):\n"
              "    r = tl.arange(0, 64)\n"
              "    c = tl.arange(0, 32)\n"
              "    for t in range(0, T):\n"
              "        a = tl.load(a_ptr + t * 2048 + r[:, None] * 32 + c[None, :])\n"
              "        acc = tl.zeros([64, 64], dtype=tl.float32)\n"
              "        for k0 in range(0, K, 32):\n"
              "            b = tl.load(b_ptr + (k0 + c)[:, None] * 64 + r[None, :])\n"
              "            acc += tl.dot(a, b)\n"
              "        tl.store(c_ptr + t * 4096 + r[:, None] * 64 + r[None, :], acc)\n",
              "*fp16:16, *fp16:16, *fp32:16, i32, i32:16", 1, EMIT_TILEIR);
    const Op *allocs[4], *bars[4];
    cr_assert_eq(find_invariant_allocs(fn->body, allocs, 4), 1);
    const Op *alloc = allocs[0];
    cr_assert_neq(alloc->parent, fn->body);
    cr_expect_eq(alloc->parent->parent->kind, OP_FOR, "written in the outer loop's body");
    const Op *inner = holder_in(alloc->parent, alloc->buf);
    cr_assert_eq(inner->kind, OP_FOR);
    cr_assert_eq(barriers_freeing(fn->body, alloc, bars, 4), 1);
    cr_expect_eq(next_op(inner), bars[0], "every warp done with a before the next outer iteration writes it");
}

/* q 128x256 fp16 (64 KB) next to k and v rings of 2 x 32 KB each (128 KB): more
 * than an sm_80 block's 163 KB, so q stays in registers there; sm_90's 227 KB
 * hold both. */
static const char *wide_src =
    KERNEL_HEAD
    "def k(q_ptr, k_ptr, v_ptr, o_ptr, N):\n"
    "    rows = tl.arange(0, 128)\n"
    "    keys = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 256)\n"
    "    q = tl.load(q_ptr + rows[:, None] * 256 + cols[None, :])\n"
    "    acc = tl.zeros([128, 256], dtype=tl.float32)\n"
    "    for n in range(0, N, 64):\n"
    "        kt = tl.load(k_ptr + (n + keys)[None, :] * 256 + cols[:, None])\n"
    "        p = tl.exp(tl.dot(q, kt))\n"
    "        v = tl.load(v_ptr + (n + keys)[:, None] * 256 + cols[None, :])\n"
    "        acc += tl.dot(p.to(tl.float16), v)\n"
    "    tl.store(o_ptr + rows[:, None] * 256 + cols[None, :], acc)\n";

Test(dot_reload, only_where_shared_memory_holds_it, .fini = reset)
{
    const Op *allocs[4];
    translate_on(wide_src, ATTN_SIG, 8, 2, 80, EMIT_TILEIR);
    cr_expect_eq(find_invariant_allocs(fn->body, allocs, 4), 0, "sm_80: %d bytes of rings", fn->smem_bytes);
    cr_expect_leq(fn->smem_bytes, 163 * 1024);
    reset();
    translate_on(wide_src, ATTN_SIG, 8, 2, 90, EMIT_TILEIR);
    cr_expect_eq(find_invariant_allocs(fn->body, allocs, 4), 1);
    cr_expect_gt(fn->smem_bytes, 163 * 1024);
}

/* The local_load of the ring or buffer an operand of dot d reads, or NULL. */
static const DotStage *operand_stage(const Op *d, int k)
{
    const Op *def = d->args[k]->def;
    return def && def->kind == OP_LOCAL_LOAD ? def->stage : NULL;
}

/* sm_90: both dots of attention on wgmma (tir_wgmma).  q's buffer and the k and
 * v rings in the NVMMA layout; p @ v takes p from registers and leaves its
 * group in flight into the next iteration, whose q @ k wait covers it, so the
 * rings get a spare slot and the loop waits for the last group after its end.
 * sm_80: the same IR with neither. */
Test(dot_reload, attention_dots_on_wgmma, .fini = reset)
{
    const Op *dots[2], *loops[4];
    translate_on(attn_src, ATTN_SIG, 4, 3, 90, EMIT_TILEIR);
    cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 2), 2);
    cr_expect(fn->uses_wgmma);
    cr_expect(dots[0]->dot.wgmma && dots[1]->dot.wgmma);
    cr_expect(!dots[0]->dot.wgmma_next && dots[1]->dot.wgmma_next, "q @ k waits; p @ v stays in flight");
    const DotStage *q = operand_stage(dots[0], 0), *k = operand_stage(dots[0], 1), *v = operand_stage(dots[1], 1);
    cr_assert(q && k && v);
    cr_expect(q->nvmma && k->nvmma && v->nvmma);
    cr_expect_eq(q->nslots, 1);
    cr_expect_eq(k->nslots, 4, "num_stages + the slot a group in flight still reads");
    cr_expect_eq(v->nslots, 4);
    cr_expect_null(operand_stage(dots[1], 0), "p from registers");
    int n = find_ops(fn->body, OP_FOR, loops, 4);
    cr_expect(loops[n - 1]->for_.wgmma_drain);
    reset();
    translate_on(attn_src, ATTN_SIG, 4, 3, 80, EMIT_TILEIR);
    cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 2), 2);
    cr_expect(!fn->uses_wgmma && !dots[0]->dot.wgmma && !dots[1]->dot.wgmma);
    cr_expect_eq(operand_stage(dots[0], 1)->nslots, 3);
    cr_expect(!operand_stage(dots[0], 1)->nvmma);
}

/* A K loop's last step peeled after it (FlagGems' mm), at the top or inside a
 * loop over tiles: on sm_90 the tail's dot takes the loop dot's wgmma layout
 * and runs on wgmma from two buffers written just before it, which never
 * share bytes, a barrier after the dot freeing them; attention's chained dots
 * are not staged this way (attention_dots_on_wgmma). */
static const char peeled_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, c_ptr, K, lda, ldb, TILES, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,\n"
    "      LOOP: tl.constexpr):\n"
    "    for t in range(0, TILES if LOOP else 1):\n"
    "        rows = tl.arange(0, BM)\n"
    "        cols = tl.arange(0, BN)\n"
    "        whole = tl.cdiv(K, BK) * BK - BK\n"
    "        acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "        for k0 in range(0, whole, BK):\n"
    "            ks = k0 + tl.arange(0, BK)\n"
    "            a = tl.load(a_ptr + rows[:, None] * lda + ks[None, :])\n"
    "            b = tl.load(b_ptr + ks[:, None] * ldb + cols[None, :])\n"
    "            acc += tl.dot(a, b)\n"
    "        ks = whole + tl.arange(0, BK)\n"
    "        a = tl.load(a_ptr + rows[:, None] * lda + ks[None, :], mask=ks[None, :] < K, other=0.0)\n"
    "        b = tl.load(b_ptr + ks[:, None] * ldb + cols[None, :], mask=ks[:, None] < K, other=0.0)\n"
    "        acc += tl.dot(a, b)\n"
    "        tl.store(c_ptr + t * BM * BN + rows[:, None] * BN + cols[None, :], acc)\n";

Test(dot_reload, peeled_tail_dot_on_wgmma_from_apart_buffers, .fini = reset)
{
    for (int loop = 0; loop < 2; loop++) {
        char sig[160];
        snprintf(sig, sizeof sig, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32, 64, 64, 64, %s",
                 loop ? "True" : "False");
        translate_on(peeled_src, sig, 4, 3, 90, EMIT_TILEIR);
        const Op *dots[2], *allocs[4];
        cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 2), 2);
        cr_expect(dots[0]->dot.wgmma && dots[1]->dot.wgmma, "loop %d: both dots on wgmma", loop);
        cr_expect_eq(dots[0]->results[0]->layout, dots[1]->results[0]->layout, "one accumulator layout");
        cr_assert_eq(find_ops(fn->body, OP_LOCAL_ALLOC, allocs, 4), 2, "the tail's two operands");
        for (int k = 0; k < 2; k++) {
            cr_expect(local_alloc_beside(allocs[k]));
            cr_expect(allocs[k]->stage->nvmma);
        }
        int lo0 = allocs[0]->smem_offset, hi0 = lo0 + allocs[0]->smem_bytes;
        int lo1 = allocs[1]->smem_offset, hi1 = lo1 + allocs[1]->smem_bytes;
        cr_expect(hi0 <= lo1 || hi1 <= lo0, "loop %d: A at [%d, %d) and B at [%d, %d) overlap", loop, lo0, hi0, lo1,
                  hi1);
        const Op *after = next_op(dots[1]);
        cr_expect(after && after->kind == OP_BARRIER, "a barrier after the tail's dot frees its buffers");
        reset();
    }
    translate_on(peeled_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32, 64, 64, 64, True", 4, 3, 80,
                 EMIT_TILEIR);
    const Op *allocs[2];
    cr_expect_eq(find_ops(fn->body, OP_LOCAL_ALLOC, allocs, 2), 0, "sm_80: mma.sync converts, as before");
}

/* Where the spare slot would leave no room for q's buffer, the rings keep
 * num_stages slots and every dot waits for its own group. */
Test(dot_reload, no_spare_slot_without_room_for_q, .fini = reset)
{
    const Op *dots[2];
    translate_on(wide_src, ATTN_SIG, 8, 2, 90, EMIT_TILEIR);
    cr_assert_eq(find_ops(fn->body, OP_DOT, dots, 2), 2);
    cr_expect(dots[0]->dot.wgmma && dots[1]->dot.wgmma);
    cr_expect(!dots[1]->dot.wgmma_next);
    cr_expect_eq(operand_stage(dots[1], 1)->nslots, 2);
}

/* A K loop with branches (tir_pipeline, dot.c): one loop over (tile, K step)
 * that moves to the next tile in one branch and stores in another. */
static const char *flat_src =
    KERNEL_HEAD
    "def k(a_ptr, b_ptr, c_ptr, K, steps):\n"
    "    ks = tl.arange(0, 32)\n"
    "    rows = tl.arange(0, 64)\n"
    "    tile = -1\n"
    "    k = -1\n"
    "    acc = tl.zeros((64, 64), dtype=tl.float32)\n"
    "    for _ in range(0, steps):\n"
    "        k = tl.where(k == 3, 0, k + 1)\n"
    "        if k == 0:\n"
    "            tile += 1\n"
    "            rows = tile * 64 + tl.arange(0, 64)\n"
    "        a = tl.load(a_ptr + rows[:, None] * K + (k * 32 + ks)[None, :])\n"
    "        b = tl.load(b_ptr + (k * 32 + ks)[:, None] * 64 + tl.arange(0, 64)[None, :])\n"
    "        acc = tl.dot(a, b, acc)\n"
    "        if k == 3:\n"
    "            tl.store(c_ptr + (tile * 64 + tl.arange(0, 64))[:, None] * 64 + tl.arange(0, 64)[None, :], acc)\n"
    "            acc = tl.zeros((64, 64), dtype=tl.float32)\n";

/* The one of ifs[0..n) whose then-branch stores: the tile's epilogue. */
static const Op *store_branch(const Op **ifs, int n)
{
    const Op *found = NULL, *stores[2];
    for (int i = 0; i < n; i++)
        if (find_ops(ifs[i]->regions[0], OP_STORE, stores, 2) > 0) {
            cr_expect_null(found, "one branch stores");
            found = ifs[i];
        }
    cr_assert_not_null(found, "a branch stores");
    return found;
}

/* The branch that moves to the next tile runs ahead with the copies (a copy of
 * it in the prologue), and the store's branch reads k and tile from queues:
 * loop-carried values of the main loop, not the ones stage 0 computes. */
Test(dot_reload, branches_run_ahead_and_queue_what_the_rest_reads, .fini = reset)
{
    const Op *loops[4], *ifs[8], *copies[8];
    translate_on(flat_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32", 4, 3, 80, EMIT_TILEIR);
    cr_assert_eq(find_ops(fn->body, OP_FOR, loops, 4), 2, "the prologue and the loop");
    const Op *pro = loops[0], *loop = loops[1];
    cr_expect_eq(find_ops(pro->regions[0], OP_IF, ifs, 8), 1, "the next tile's branch, in the prologue");
    cr_expect_gt(find_ops(loop->regions[0], OP_ASYNC_COPY, copies, 8), 0, "pipelined");
    int n = find_ops(loop->regions[0], OP_IF, ifs, 8);
    cr_assert_eq(n, 2);
    const Block *body = loop->regions[0];
    const Op *store_if = store_branch(ifs, n);
    const Value *cond = store_if->args[0], *k_read = cond->def->args[0];
    cr_expect_eq(k_read->block, body, "the store's k is a loop-carried queue head");
    cr_expect_gt(k_read->arg_index, loop->nres - 6, "one of the queues after the slots");
    /* the store reads tile from a queue as well */
    const Op *stores[2];
    cr_assert_eq(find_ops(store_if->regions[0], OP_STORE, stores, 2), 1);
    cr_expect_eq(fn->num_stages, 3);
}

/* The reset of the accumulator after a tile's last step is folded into the
 * next step's dot (a use flag): the store's branch keeps no result, the loop
 * yields the dot's result itself. */
Test(dot_reload, accumulator_reset_folded_into_the_next_dot, .fini = reset)
{
    const Op *loops[4], *dots[2], *ifs[8];
    translate_on(flat_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32", 4, 3, 80, EMIT_TILEIR);
    cr_assert_eq(find_ops(fn->body, OP_FOR, loops, 4), 2);
    cr_assert_eq(find_ops(loops[1]->regions[0], OP_DOT, dots, 2), 1);
    cr_expect(dots[0]->dot.use_flag);
    cr_assert_eq(dots[0]->nargs, 4);
    cr_expect_eq(dots[0]->args[3]->block, loops[1]->regions[0], "the flag is loop-carried");
    cr_assert_eq(find_ops(loops[1]->regions[0], OP_IF, ifs, 8), 2);
    cr_expect_eq(store_branch(ifs, 2)->nres, 0, "the store's branch yields nothing");
    const Op *y = tir_block_last(loops[1]->regions[0]);
    bool yields_dot = false;
    for (int k = 0; k < y->nargs; k++)
        yields_dot |= y->args[k] == dots[0]->results[0];
    cr_expect(yields_dot);
}

/* ---- the pipeline's order and ring size (pipeline.c: copies_late, tight_ring_pays) and
 * branches that only compute and load as straight code (ifconv.c) ---------------------- */

TestSuite(pipeline, .timeout = 10.0);

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


/* A K loop of a BM x 64 x 32 dot: BM 64 holds 32 accumulators a thread on 4
 * warps, BM 256 holds 128. */
static const char *matmul_src =
    KERNEL_HEAD
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
    translate_on(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 64", 4, 3, 80, EMIT_TILEIR);
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
    translate_on(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 256", 4, 3, 80, EMIT_TILEIR);
    const Block *body = main_loop_body();
    cr_expect_lt(first_index(body, OP_ASYNC_COPY), first_index(body, OP_DOT));
}

/* A block table's entry, loaded in the step, addresses the copies: they wait
 * for it, so they stay first (at the end of the step the wait held up the
 * next one). */
Test(pipeline, copies_first_when_stage0_loads, .fini = reset)
{
    translate_on(KERNEL_HEAD
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
              "*fp16:16, *i32:16, *fp16:16, *fp32:16, i32", 4, 3, 80, EMIT_TILEIR);
    const Block *body = main_loop_body();
    cr_expect_lt(first_index(body, OP_ASYNC_COPY), first_index(body, OP_DOT));
}

/* A decode step: 16 rows against 64 x 128 fp16 blocks of K and V, 4 warps.
 * Its rings bound the blocks per SM (2 at 3 slots, 3 at 2), so it keeps
 * num_stages-1 slots, and a barrier lets the copies reuse the slot just read. */
Test(pipeline, tight_ring_for_a_decode_step, .fini = reset)
{
    translate_on(KERNEL_HEAD
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
              "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16", 4, 3, 90, EMIT_TILEIR);
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
    translate_on(matmul_src, "*fp16:16, *fp16:16, *fp32:16, i32:16, 64", 4, 3, 80, EMIT_TILEIR);
    const Block *body = main_loop_body();
    const Op *copies[4];
    cr_assert_gt(find_ops(body, OP_ASYNC_COPY, copies, 4), 0);
    cr_expect_eq(copies[0]->buf->stage->nslots, 3);
    cr_expect_eq(first_index(body, OP_BARRIER), -1);
}

/* A persistent loop over (tile, K step) pairs on wgmma: a branch stores the
 * finished tile.  The group stays in flight across that branch, which waits
 * for it on its own path; the 128x256x64 rings have no room for a fourth slot
 * beside the store's exchange, so they keep num_stages slots, and the copies
 * come last, after a barrier that every warpgroup reaches past its wait for
 * the step before's group (Triton's form). */
static const char *wgmma_flat_src =
    KERNEL_HEAD
    "def k(a_ptr, b_ptr, c_ptr, K, steps):\n"
    "    rm = tl.arange(0, 128)\n"
    "    rn = tl.arange(0, 256)\n"
    "    rk = tl.arange(0, 64)\n"
    "    ks = tl.cdiv(K, 64)\n"
    "    kk = -1\n"
    "    tile = -1\n"
    "    acc = tl.zeros((128, 256), dtype=tl.float32)\n"
    "    for _ in range(0, steps):\n"
    "        kk = tl.where(kk == ks - 1, 0, kk + 1)\n"
    "        if kk == 0:\n"
    "            tile += 1\n"
    "        a = tl.load(a_ptr + (tile * 128 + rm)[:, None] * K + (kk * 64 + rk)[None, :])\n"
    "        b = tl.load(b_ptr + (kk * 64 + rk)[:, None] * 256 + rn[None, :])\n"
    "        acc = tl.dot(a, b, acc)\n"
    "        if kk == ks - 1:\n"
    "            tl.store(c_ptr + (tile * 128 + rm)[:, None] * 256 + rn[None, :], acc.to(tl.float16))\n"
    "            acc = tl.zeros((128, 256), dtype=tl.float32)\n";

Test(pipeline, wgmma_group_in_flight_across_a_store_branch, .fini = reset)
{
    translate_on(wgmma_flat_src, "*fp16:16, *fp16:16, *fp16:16, i32:16, i32", 8, 3, 90, EMIT_TILEIR);
    const Block *body = main_loop_body();
    const Op *dots[2], *copies[8], *ifs[4];
    cr_assert_eq(find_ops(body, OP_DOT, dots, 2), 1);
    cr_expect(dots[0]->dot.wgmma);
    cr_expect_eq(dots[0]->dot.wgmma_pending, 1, "the group stays in flight");
    int n = find_ops(body, OP_ASYNC_COPY, copies, 8);
    cr_assert_gt(n, 0);
    for (int i = 0; i < n; i++)
        cr_expect_eq(copies[i]->buf->stage->nslots, 3, "num_stages slots: a fourth does not fit");
    int dot = first_index(body, OP_DOT), bar = first_index(body, OP_BARRIER), copy = first_index(body, OP_ASYNC_COPY);
    cr_assert_geq(bar, 0, "a barrier in the step");
    cr_expect(dot < bar && bar < copy, "the dot, the barrier, then the copies");
    /* the move to the next tile (stage 0's branch) still comes before the dot */
    cr_assert_gt(find_ops(body, OP_IF, ifs, 4), 1);
    cr_expect_lt(first_index(body, OP_IF), dot);
    reset();
    translate_on(wgmma_flat_src, "*fp16:16, *fp16:16, *fp16:16, i32:16, i32", 8, 3, 90, EMIT_CUDA);
    const char *wait1 = strstr(out_text(), "tilec::wgmma_wait<1>();");
    const char *branch = strstr(out_text(), "tilec::wgmma_wait<0>();  // this branch reads acc: its wgmma groups first");
    cr_expect(wait1 && branch && wait1 < branch, "%s", out_text());
    cr_expect(strstr(out_text(), "= __floats2half2_rn(acc[e], acc[e + 1]);"), "the store's exchange rounds pairs");
}

/* A plain K loop on wgmma: BM x BN x BK (constexprs), A [BM, K] and B [K, BN] by rows. */
static const char *wgmma_matmul_src =
    KERNEL_HEAD
    "def k(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])\n"
    "        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])\n"
    "        acc = tl.dot(a, b, acc)\n"
    "    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))\n";

/* The slots of the ring that wgmma_matmul_src's copies fill at 3 stages under sm_90, once its
 * dot is on wgmma with a group left in flight. */
static int wgmma_ring_slots(const char *sig, int warps)
{
    translate_on(wgmma_matmul_src, sig, warps, 3, 90, EMIT_TILEIR);
    const Block *body = main_loop_body();
    const Op *dots[2], *copies[8];
    cr_assert_eq(find_ops(body, OP_DOT, dots, 2), 1);
    cr_assert(dots[0]->dot.wgmma);
    cr_expect_eq(dots[0]->dot.wgmma_pending, 1, "the group stays in flight");
    cr_assert_gt(find_ops(body, OP_ASYNC_COPY, copies, 8), 0);
    return copies[0]->buf->stage->nslots;
}

/* The spare slot for the group in flight, except where it would leave one block on an SM
 * that num_stages slots let two share (128x128x64 on 4 warps: 0.86x Triton with it, 1.01x
 * without); more blocks than two are not worth its loss (64x128x64: 2 blocks with it, 3
 * without, measured slower), nor is equal occupancy (128x256x64 on 8 warps: 1 either way). */
Test(pipeline, wgmma_spare_slot_unless_it_costs_the_second_block, .fini = reset)
{
    cr_expect_eq(wgmma_ring_slots("*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 128, 64", 4), 3);
    const Block *body = main_loop_body();
    int dot = first_index(body, OP_DOT), bar = first_index(body, OP_BARRIER), copy = first_index(body, OP_ASYNC_COPY);
    cr_expect(dot >= 0 && dot < bar && bar < copy, "the dot, a barrier past every warpgroup's wait, then the copies");
    reset();
    cr_expect_eq(wgmma_ring_slots("*fp16:16, *fp16:16, *fp16:16, i32:16, 64, 128, 64", 4), 4);
    cr_expect_eq(first_index(main_loop_body(), OP_BARRIER), -1, "one barrier a step");
    reset();
    cr_expect_eq(wgmma_ring_slots("*fp16:16, *fp16:16, *fp16:16, i32:16, 128, 256, 64", 8), 4);
}

/* A host descriptor's block store under sm_90: the block goes to a staging
 * buffer in the map's swizzle and out by TMA, a box per 64 columns, where the
 * rows end on a 16-byte chunk; else (and in other builds) the pointer store,
 * with its addresses and mask.  Under sm_80 only the pointer store. */
static const char *desc_store_src =
    KERNEL_HEAD
    "def k(x_desc, y_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    off_m = tl.program_id(0) * BM\n"
    "    off_n = tl.program_id(1) * BN\n"
    "    y_desc.store([off_m, off_n], x_desc.load([off_m, off_n]) * 2)\n";

Test(pipeline, descriptor_store_by_tma, .fini = reset)
{
    const char *sig = "tensordesc<fp16[32, 128]>, tensordesc<fp16[32, 128]>, i32, i32, 32, 128";
    translate_on(desc_store_src, sig, 4, 1, 90, EMIT_TILEIR);
    const Op *st[2];
    cr_assert_eq(find_ops(fn->body, OP_STORE, st, 2), 1);
    cr_assert(st[0]->store.desc_param && st[0]->store.tma_map);
    const TmaMap *m = &fn->tma_maps.data[st[0]->store.tma_map - 1];
    cr_expect_eq(m->box_cols, 64, "128 bytes of fp16");
    cr_expect_eq(m->box_rows, 32);
    cr_expect_eq(m->swizzle, 128);
    cr_expect_eq(st[0]->stage->nvmma, 128);
    cr_expect_geq(st[0]->smem_bytes, 32 * 128 * 2, "the staging buffer");
    reset();
    translate_on(desc_store_src, sig, 4, 1, 90, EMIT_CUDA);
    const char *t = out_text();
    const char *tma = strstr(t, "tilec::tma_store_2d(&y_desc_tma, stage0(smem, 0, 64), off_n + 64, off_m);");
    const char *whole = strstr(t, "if (y_desc_shape1 % 8 == 0) {  // rows of whole 16-byte chunks");
    const char *other = strstr(t, "{  // the pointer store: its addresses, its mask");
    cr_expect(whole && tma && other && whole < tma && tma < other, "%s", t);
    cr_expect(strstr(t, "tilec::tma_store_wait_read();"));
    cr_expect(strstr(t, "__align__(1024) unsigned char smem["), "the 128-byte swizzle needs 1024-byte alignment");
    reset();
    translate_on(desc_store_src, sig, 4, 1, 80, EMIT_CUDA);
    cr_expect_null(strstr(out_text(), "tma_store_2d(&"), "no TMA under sm_80");
}

/* A branch that only computes and loads becomes straight code: no if is left,
 * its loads are masked (the else branch's by the negated condition), and the
 * values it defined are selects.  A branch that stores stays a branch. */
Test(pipeline, branch_loads_become_selects, .fini = reset)
{
    translate_on(KERNEL_HEAD
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
              "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32", 4, 3, 80, EMIT_TILEIR);
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
    translate_on(KERNEL_HEAD
              "def k(x_ptr, o_ptr, d):\n"
              "    offs = tl.arange(0, 128)\n"
              "    x = tl.load(x_ptr + offs)\n"
              "    if d != 0:\n"
              "        x = x // d + tl.load(x_ptr + 128 + offs)\n"
              "    tl.store(o_ptr + offs, x)\n",
              "*i32:16, *i32:16, i32", 4, 3, 80, EMIT_TILEIR);
    const Op *ifs[2];
    cr_expect_eq(find_ops(fn->body, OP_IF, ifs, 2), 1);
}

/* A K loop over host descriptors, its blocks copied by TMA into a ring.  Before
 * a step's copies overwrite a slot every warp must be done with it: one
 * warpgroup meets at a block barrier, two or more on the slot's free barrier,
 * which only the copying thread waits on. */
static const char *desc_matmul_src =
    KERNEL_HEAD
    "def k(a_desc, b_desc, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    off_m = tl.program_id(0) * BM\n"
    "    off_n = tl.program_id(1) * BN\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in range(0, K, BK):\n"
    "        acc = tl.dot(a_desc.load([off_m, k]), b_desc.load([off_n, k]).T, acc)\n"
    "    rows = off_m + tl.arange(0, BM)\n"
    "    cols = off_n + tl.arange(0, BN)\n"
    "    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))\n";

Test(pipeline, tma_ring_frees_slots_by_warpgroups, .fini = reset)
{
    const char *sig = "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, *fp16:16, i32, i32:16, i32, 128, 128, 64";
    translate_on(desc_matmul_src, sig, 4, 3, 90, EMIT_CUDA);
    const char *t = out_text();
    cr_assert(strstr(t, "tilec::tma_load_2d("), "the ring is filled by TMA: %s", t);
    cr_expect(strstr(t, "__syncthreads();  // every warp is done with slot"), "one warpgroup: a block barrier");
    cr_expect_null(strstr(t, "ring_free"), "and no free barriers");
    cr_expect(strstr(t, "the full barriers of a TMA ring"), "8 bytes a slot");
    reset();
    translate_on(desc_matmul_src, sig, 8, 3, 90, EMIT_CUDA);
    t = out_text();
    cr_expect(strstr(t, "tilec::mbar_arrive(&ring_free["), "two warpgroups: each warp arrives on the free barrier");
    cr_expect(strstr(t, "if (threadIdx.x == 0)\n"), "and the copying thread waits");
    cr_expect_null(strstr(t, "// every warp is done with slot"));
}

/* A store of an exchanged tile reads each run back just before storing it
 * where the exchange's source stays live after the store (here the row sums of
 * the accumulator); where nothing reads the source after, the reads come first. */
static const char *store_then_sum_src =
    KERNEL_HEAD
    "def k(a_ptr, b_ptr, c_ptr, s_ptr, N: tl.constexpr, SUM: tl.constexpr):\n"
    "    r = tl.arange(0, 64)\n"
    "    a = tl.load(a_ptr + r[:, None] * 32 + tl.arange(0, 32)[None, :])\n"
    "    b = tl.load(b_ptr + tl.arange(0, 32)[:, None] * 64 + r[None, :])\n"
    "    acc = tl.dot(a, b)\n"
    "    tl.store(c_ptr + r[:, None] * 64 + r[None, :], acc.to(tl.float16))\n"
    "    if SUM:\n"
    "        tl.store(s_ptr + r, tl.sum(acc, 1))\n";

Test(pipeline, store_reads_its_exchange_back_where_the_source_lives_on, .fini = reset)
{
    translate_on(store_then_sum_src, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, True", 4, 1, 80, EMIT_CUDA);
    const char *t = out_text(), *back = strstr(t, "// read back run by run");
    cr_assert(back, "%s", t);
    const char *load = strstr(back, "tilec::load<"), *store = strstr(back, "tilec::store_global<");
    const char *end = strstr(back, "}");
    cr_expect(load && store && load < store && store < end, "each run read, then stored, in one loop body");
    reset();
    translate_on(store_then_sum_src, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, 64, False", 4, 1, 80, EMIT_CUDA);
    cr_expect_null(strstr(out_text(), "// read back run by run"), "the accumulator dies at the store");
}

/* tl.argmax combines its candidates with selects: nvcc kept an if as a branch. */
Test(reduce, argmax_combines_with_selects, .fini = reset)
{
    translate_on(KERNEL_HEAD
                 "def k(x_ptr, o_ptr):\n"
                 "    x = tl.load(x_ptr + tl.arange(0, 8)[:, None] * 1024 + tl.arange(0, 1024)[None, :])\n"
                 "    tl.store(o_ptr + tl.arange(0, 8), tl.argmax(x, 1))\n",
                 "*fp32:16, *i32:16", 4, 1, 80, EMIT_CUDA);
    const char *t = out_text();
    cr_expect(strstr(t, "const bool take = other > "), "%s", t);
    cr_expect(strstr(t, " = take ? other_i : "));
    cr_expect_null(strstr(t, "if (other > "), "no branch per candidate");
}

/* A one-element result over 16 or more warps: each lane takes one warp's partial and a
 * butterfly combines them (32 partials: 1 load and 5 shuffles instead of 8 loads and 31
 * combines); fewer warps keep the loop over the partials. */
Test(reduce, many_warps_combine_partials_by_shuffles, .fini = reset)
{
    const char *kernel = KERNEL_HEAD "def k(x_ptr, o_ptr):\n"
                                  "    x = tl.load(x_ptr + tl.arange(0, 8192))\n"
                                  "    tl.store(o_ptr, tl.sum(x, 0))\n";
    translate_on(kernel, "*fp32:16, *fp32:16", 32, 1, 80, EMIT_CUDA);
    const char *t = out_text();
    cr_expect(strstr(t, " = partial[lane];  // lane l takes warp l's partial"), "%s", t);
    cr_expect_null(strstr(t, "for (int ww = 1; ww < 32; ++ww)"), "%s", t);
    reset();
    translate_on(kernel, "*fp32:16, *fp32:16", 16, 1, 80, EMIT_CUDA);
    cr_expect(strstr(out_text(), " = partial[lane & 15];"), "%s", out_text());
    reset();
    translate_on(kernel, "*fp32:16, *fp32:16", 8, 1, 80, EMIT_CUDA);
    cr_expect(strstr(out_text(), "for (int ww = 1; ww < 8; ++ww)"), "%s", out_text());
}

/* A load whose tile only feeds tl.dot operands takes its own vector width, not that of a
 * store of the same shape: int8 operands of a 64x64 block are copied 16 elements a thread
 * though the i32 result of the same shape is stored 4 at a time. */
Test(layout, dot_operand_loads_keep_their_own_vector_width, .fini = reset)
{
    translate_on(KERNEL_HEAD
                 "def k(a_ptr, b_ptr, c_ptr):\n"
                 "    offs = tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :]\n"
                 "    a = tl.load(a_ptr + offs)\n"
                 "    b = tl.load(b_ptr + offs)\n"
                 "    tl.store(c_ptr + offs, tl.dot(a, b))\n",
                 "*i8:16, *i8:16, *i32:16", 4, 1, 80, EMIT_CUDA);
    const char *t = out_text();
    cr_expect(strstr(t, "int8_t a[32];  // [64x64] i8, L0, 16-byte loads"), "%s", t);
    cr_expect(strstr(t, "int8_t b[32];  // [64x64] i8, L0, 16-byte loads"), "%s", t);
    cr_expect(strstr(t, "tilec::store_global<4>(c_ptr + "), "%s", t);
}

/* A pipelined loop's last exchange (here B, not proven contiguous, staged through shared
 * memory each step) keeps no barrier after its reads: the wait for the ring's copies at the
 * next step's start, and the one after the loop, free its buffer. */
Test(pipeline, loop_waits_free_the_last_exchange, .fini = reset)
{
    translate_on(KERNEL_HEAD
                 "def k(a_ptr, b_ptr, c_ptr, K, sbn):\n"
                 "    rows = tl.arange(0, 64)\n"
                 "    cols = tl.arange(0, 64)\n"
                 "    ks = tl.arange(0, 32)\n"
                 "    a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]\n"
                 "    b_ptrs = b_ptr + ks[:, None] + cols[None, :] * sbn\n"
                 "    acc = tl.zeros((64, 64), tl.float32)\n"
                 "    for k in range(0, K, 32):\n"
                 "        a = tl.load(a_ptrs)\n"
                 "        b = tl.load(b_ptrs)\n"
                 "        acc = tl.dot(a, b, acc)\n"
                 "        a_ptrs += 32\n"
                 "        b_ptrs += 32\n"
                 "    tl.store(c_ptr + rows[:, None] * 64 + cols[None, :], acc)\n",
                 "*fp16:16, *fp16:16, *fp32:16, i32:16, i32", 4, 3, 80, EMIT_CUDA);
    const char *t = out_text();
    const char *wait = strstr(t, "tilec::cp_async_wait<1>();");
    cr_assert_not_null(wait, "%s", t);
    const char *freed = strstr(wait, "// no barrier here: the loop's wait for its copies");
    cr_expect_not_null(freed, "%s", t);
    const char *drain = strstr(wait, "tilec::cp_async_wait<0>();");
    cr_assert_not_null(drain, "%s", t);
    const char *kept = strstr(wait, "__syncthreads();  // the buffer is free again");
    cr_expect(!kept || kept > drain, "no trailing barrier inside the loop: %s", t);
}

/* The copies of the step ahead go after the dots where no copy's address comes from another
 * load of the step: a per-step scale tile loaded ahead for the rest of the body does not
 * hold them first (a block table's entry does: the paged goldens). */
Test(pipeline, scale_loads_leave_the_copies_last, .fini = reset)
{
    translate_on(KERNEL_HEAD
                 "def k(a_ptr, b_ptr, s_ptr, c_ptr, K):\n"
                 "    rows = tl.arange(0, 64)\n"
                 "    cols = tl.arange(0, 64)\n"
                 "    ks = tl.arange(0, 32)\n"
                 "    a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]\n"
                 "    b_ptrs = b_ptr + ks[:, None] * 64 + cols[None, :]\n"
                 "    acc = tl.zeros((64, 64), tl.float32)\n"
                 "    for k in range(0, K // 32):\n"
                 "        a = tl.load(a_ptrs)\n"
                 "        b = tl.load(b_ptrs)\n"
                 "        s = tl.load(s_ptr + k * 64 + rows)\n"
                 "        acc += tl.dot(a, b) * s[:, None]\n"
                 "        a_ptrs += 32\n"
                 "        b_ptrs += 32 * 64\n"
                 "    tl.store(c_ptr + rows[:, None] * 64 + cols[None, :], acc)\n",
                 "*fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16", 4, 3, 80, EMIT_CUDA);
    const char *t = out_text();
    const char *loop = strstr(t, "tilec::cp_async_wait<1>();");
    cr_assert_not_null(loop, "%s", t);
    const char *mma = strstr(loop, "tilec::mma_m16n8k16_f16(");
    const char *commit = strstr(loop, "tilec::cp_async_commit();");
    cr_assert(mma && commit, "%s", t);
    cr_expect(mma < commit, "the copies after the dot: %s", t);
}

/* Warp specialisation: tl.range(warp_specialize=True) over a loop of descriptor loads and
 * one wgmma dot, under sm_90.  A warpgroup after the 8 consumer warps issues the copies;
 * the ring keeps num_stages slots, which live all kernel long (apart from the epilogue's
 * buffer, which the consumers write while the producer fills the ring); the consumers'
 * barriers are named barrier 1 of their 256 threads; setmaxnreg moves 128 of the
 * producer's 168 registers a thread to the consumers (232). */
static const char *ws_src =
    KERNEL_HEAD
    "def k(a_desc, b_desc, c_ptr, idx_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,\n"
    "      INDIRECT: tl.constexpr):\n"
    "    off_m = tl.program_id(0) * BM\n"
    "    if INDIRECT:\n"
    "        off_m = tl.load(idx_ptr + tl.program_id(0))\n"
    "    off_n = tl.program_id(1) * BN\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):\n"
    "        a = a_desc.load([off_m, k * BK])\n"
    "        b = b_desc.load([off_n, k * BK])\n"
    "        acc = tl.dot(a, b.T, acc)\n"
    "    rows = off_m + tl.arange(0, BM)\n"
    "    cols = off_n + tl.arange(0, BN)\n"
    "    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16),\n"
    "             mask=(rows[:, None] < M) & (cols[None, :] < N))\n";
#define WS_SIG(indirect)                                                                                          \
    "tensordesc<fp16[128, 64]>, tensordesc<fp16[256, 64]>, *fp16:16, *i32:16, i32, i32, i32, 128, 256, 64, " indirect

Test(pipeline, warp_specialize_gives_the_copies_to_a_producer, .fini = reset)
{
    translate_on(ws_src, WS_SIG("False"), 8, 3, 90, EMIT_TILEIR);
    cr_assert_eq(fn->producer_warps, 4);
    cr_assert_eq(fn->tma_rings.len, 1);
    cr_expect(fn->tma_rings.data[0].producer);
    cr_expect_eq(fn->tma_rings.data[0].nslots, 3, "num_stages slots: the consumers release each after its wgmma");
    const Op *ll[2];
    cr_assert_eq(find_ops(fn->body, OP_LOCAL_LOAD, ll, 2), 2);
    const Op *cv[4];
    int n = find_ops(fn->body, OP_CONVERT, cv, 4);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2; j++)
            if (cv[i]->smem_bytes && !cv[i]->stage) {
                bool apart = cv[i]->smem_offset + cv[i]->smem_bytes <= ll[j]->smem_offset ||
                             ll[j]->smem_offset + ll[j]->smem_bytes <= cv[i]->smem_offset;
                cr_expect(apart, "the epilogue's exchange overlaps a ring the producer may be filling");
            }
    reset();
    translate_on(ws_src, WS_SIG("False"), 8, 3, 90, EMIT_CUDA);
    const char *t = out_text();
    cr_expect(strstr(t, "__launch_bounds__(384, 1)"));
    cr_expect(strstr(t, "tilec::setmaxnreg_dec<40>();"));
    cr_expect(strstr(t, "tilec::setmaxnreg_inc<232>();"));
    const char *split = strstr(t, "if (threadIdx.x >= 256) {  // the producer warpgroup");
    cr_assert(split);
    cr_expect(strstr(split, "tilec::mbar_wait(&ring_free[write_slot], (free_phase >> write_slot) & 1u);"));
    cr_expect(strstr(split, "tilec::consumer_sync<256>();"));
    cr_expect_null(strstr(split, "__syncthreads();"), "the producer never reaches a block barrier");
    cr_expect(strstr(split, "held_slot = read_slot;"), "the consumers hold the slot their group in flight reads");
    cr_expect(strstr(split, "tilec::mbar_arrive(&ring_free[held_slot]);"));
    cr_expect(strstr(t, "const int threads = fa.maxThreadsPerBlock >= 384 ? 384 : 256;"),
              "the launcher starts the producer warpgroup where the sm_90a build runs");
    cr_expect(strstr(t, "#else\nextern \"C\" __global__ void __launch_bounds__(256)\n#endif"),
              "other builds keep the consumers' bound");
}

Test(pipeline, warp_specialize_refused_with_a_warning, .fini = reset)
{
    translate_on(ws_src, WS_SIG("True"), 8, 3, 90, EMIT_TILEIR);
    cr_expect_eq(fn->producer_warps, 0);
    cr_expect_eq(fn->tma_rings.len, 1, "the loop keeps its TMA ring");
    cr_expect(ctx.log.data && strstr(ctx.log.data, "warning: tl.range(warp_specialize=True) is not applied: a "
                                                   "descriptor load's offsets depend on a loaded value, a tile or a branch's result"),
              "%s", ctx.log.data ? ctx.log.data : "(no warning)");
    reset();
    translate_on(ws_src, WS_SIG("False"), 8, 3, 80, EMIT_TILEIR);
    cr_expect_eq(fn->producer_warps, 0);
    cr_expect(ctx.log.data && strstr(ctx.log.data, "not applied: it needs --arch sm_90"));
}

/* tl.sort's steps meet at barriers of the whole block (its template), which the producer
 * warpgroup would never reach: no producer, and a warning that says so. */
Test(pipeline, warp_specialize_refused_where_the_block_syncs_outside_tilec, .fini = reset)
{
    translate_on(KERNEL_HEAD
                 "def k(a_desc, b_desc, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
                 "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
                 "    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):\n"
                 "        a = a_desc.load([0, k * BK])\n"
                 "        b = b_desc.load([0, k * BK])\n"
                 "        acc = tl.dot(a, b.T, acc)\n"
                 "    acc = tl.sort(acc)\n"
                 "    tl.store(c_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], acc)\n",
                 "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, *fp32:16, i32, 128, 128, 64", 8, 3, 90,
                 EMIT_TILEIR);
    cr_expect_eq(fn->producer_warps, 0);
    cr_expect(ctx.log.data && strstr(ctx.log.data, "not applied: the kernel synchronises the whole block outside"),
              "%s", ctx.log.data ? ctx.log.data : "(no warning)");
}

/* test_layout_shape.c — the layouts of shape ops (layout_shape.c): that a
 * reshape, join, split and permute of a map leave every element in the
 * thread and register it was in (checked element by element, not by the
 * bits' spelling), that moving a dimension into registers keeps a valid map,
 * that linear layouts map at other shapes, and that the CUDA of a kernel
 * whose shape ops are free has no shared memory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

TestSuite(layout_shape, .timeout = 10.0);

static LayoutMap blocked_map(int rank, const int *shape, const int *spt, const int *order, int num_warps)
{
    Layout l;
    layout_build(&l, rank, shape, spt, order, num_warps);
    LayoutMap m;
    layout_map(&l, rank, shape, &m);
    return m;
}

static int flat(const LayoutMap *m, const int *c)
{
    int lin = 0;
    for (int d = 0; d < m->rank; d++)
        lin = lin * m->shape[d] + c[d];
    return lin;
}

/* every (register, lane, warp) names an element in the shape and every element has an owner */
static void expect_valid(const LayoutMap *m)
{
    int numel = 1;
    for (int d = 0; d < m->rank; d++)
        numel *= m->shape[d];
    static unsigned char seen[1 << 16];
    cr_assert_leq(numel, (int)sizeof seen);
    memset(seen, 0, sizeof seen);
    for (int w = 0; w < 1 << m->nwarp; w++)
        for (int l = 0; l < 1 << m->nlane; l++)
            for (int r = 0; r < 1 << m->nreg; r++) {
                int c[TIR_MAX_RANK];
                lmap_coords(m, r, l, w, c);
                for (int d = 0; d < m->rank; d++)
                    cr_assert_lt(c[d], m->shape[d]);
                seen[flat(m, c)] = 1;
            }
    for (int i = 0; i < numel; i++)
        cr_assert(seen[i], "element %d owned by nobody", i);
}

/* register r of every thread holds the same row-major element in both maps */
static void expect_same_elements(const LayoutMap *a, const LayoutMap *b)
{
    cr_assert_eq(a->nreg, b->nreg);
    for (int w = 0; w < 1 << a->nwarp; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < 1 << a->nreg; r++) {
                int ca[TIR_MAX_RANK], cb[TIR_MAX_RANK];
                lmap_coords(a, r, l, w, ca);
                lmap_coords(b, r, l, w, cb);
                cr_assert_eq(flat(a, ca), flat(b, cb), "reg %d lane %d warp %d", r, l, w);
            }
}

Test(layout_shape, reshape_keeps_every_element_in_place)
{
    static const struct {
        int rank, shape[4], spt[4], order[4], warps;
        int to_rank, to[4];
    } cases[] = {
        {1, {1024}, {4}, {0}, 4, 2, {32, 32}},           /* with a repetition bit */
        {1, {1024}, {4}, {0}, 4, 2, {512, 2}},           /* pairs: the last dim is register bit 0 */
        {1, {512}, {1}, {0}, 4, 3, {4, 8, 16}},
        {2, {64, 16}, {1, 4}, {1, 0}, 8, 1, {1024}},     /* ravel */
        {3, {4, 8, 16}, {1, 1, 4}, {2, 1, 0}, 4, 2, {32, 16}},
        {2, {16, 64}, {4, 1}, {0, 1}, 2, 3, {2, 8, 64}}, /* column-major order */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        LayoutMap src = blocked_map(cases[i].rank, cases[i].shape, cases[i].spt, cases[i].order, cases[i].warps), dst;
        lmap_reshape(&src, cases[i].to_rank, cases[i].to, &dst);
        expect_valid(&dst);
        expect_same_elements(&src, &dst);
        LayoutMap back;
        lmap_reshape(&dst, src.rank, src.shape, &back);
        cr_expect(lmap_eq(&back, &src), "case %zu: reshaping back gives the source map", i);
    }
}

Test(layout_shape, join_puts_the_new_dim_in_register_bit_0)
{
    LayoutMap a = blocked_map(2, (int[]){32, 16}, (int[]){1, 2}, (int[]){1, 0}, 4), j;
    lmap_join(&a, &j);
    cr_assert_eq(j.rank, 3);
    cr_expect_eq(j.shape[2], 2);
    cr_expect_eq(lmap_last_dim_reg(&j), 0);
    expect_valid(&j);
    /* register r of the join holds element (a's register r >> 1, half r & 1) */
    for (int w = 0; w < 4; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < 1 << j.nreg; r++) {
                int cj[TIR_MAX_RANK], ca[TIR_MAX_RANK];
                lmap_coords(&j, r, l, w, cj);
                lmap_coords(&a, r >> 1, l, w, ca);
                cr_assert(cj[0] == ca[0] && cj[1] == ca[1] && cj[2] == (r & 1), "reg %d lane %d warp %d", r, l, w);
            }
    LayoutMap s;
    lmap_split(&j, &s);
    cr_expect(lmap_eq(&s, &a), "split undoes join");
}

Test(layout_shape, split_where_the_pair_is_in_a_later_register_bit)
{
    /* [8, 2] ... with the last dim in register bit 1: split removes that bit, keeps the order of the others */
    LayoutMap m = blocked_map(2, (int[]){64, 2}, (int[]){2, 2}, (int[]){0, 1}, 1), s;
    cr_assert_eq(lmap_last_dim_reg(&m), 1);
    lmap_split(&m, &s);
    expect_valid(&s);
    cr_expect_eq(s.nreg, m.nreg - 1);
    for (int l = 0; l < 32; l++)
        for (int r = 0; r < 1 << s.nreg; r++) {
            int cs[TIR_MAX_RANK], cm[TIR_MAX_RANK];
            int mr = (r & 1) | (r >> 1) << 2; /* result bit 0 -> bit 0, bits 1.. -> bits 2.. */
            lmap_coords(&s, r, l, 0, cs);
            lmap_coords(&m, mr, l, 0, cm);
            cr_assert(cs[0] == cm[0] && cm[1] == 0, "reg %d lane %d", r, l);
        }
}

Test(layout_shape, last_dim_across_lanes_moves_into_registers)
{
    /* [16, 2] with spt 1: the pair is split over two lanes */
    LayoutMap m = blocked_map(2, (int[]){16, 2}, (int[]){1, 1}, (int[]){1, 0}, 1), in;
    cr_assert(!lmap_dim_in_registers(&m, 1));
    lmap_in_registers(&m, 1, &in);
    cr_expect(lmap_dim_in_registers(&in, 1));
    cr_expect_geq(lmap_last_dim_reg(&in), 0);
    expect_valid(&in);
}

Test(layout_shape, permute_renames_dimensions)
{
    LayoutMap m = blocked_map(3, (int[]){4, 8, 16}, (int[]){1, 1, 4}, (int[]){2, 1, 0}, 4), p;
    lmap_permute(&m, (int[]){2, 0, 1}, &p);
    cr_expect(p.shape[0] == 16 && p.shape[1] == 4 && p.shape[2] == 8);
    expect_valid(&p);
    for (int w = 0; w < 4; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < 1 << m.nreg; r++) {
                int cm[TIR_MAX_RANK], cp[TIR_MAX_RANK];
                lmap_coords(&m, r, l, w, cm);
                lmap_coords(&p, r, l, w, cp);
                cr_assert(cp[0] == cm[2] && cp[1] == cm[0] && cp[2] == cm[1]);
            }
}

Test(layout_shape, flip_mask_is_the_register_bits_of_the_dim)
{
    LayoutMap m = blocked_map(2, (int[]){128, 4}, (int[]){1, 4}, (int[]){1, 0}, 4);
    cr_expect(lmap_dim_in_registers(&m, 1));
    cr_expect_eq(lmap_dim_reg_mask(&m, 1), 3u);
    cr_expect(!lmap_dim_in_registers(&m, 0));
}

/* a linear layout at a smaller shape drops bits, at a larger one adds registers */
Test(layout_shape, linear_layout_at_other_shapes)
{
    LayoutMap src = blocked_map(1, (int[]){256}, (int[]){2}, (int[]){0}, 4), r;
    lmap_reshape(&src, 2, (int[]){64, 4}, &r);
    Layout l = {.kind = LAYOUT_LINEAR, .rank = 2, .shape = {64, 4}, .lin = &r};
    LayoutMap same, small, big;
    layout_map(&l, 2, (int[]){64, 4}, &same);
    cr_expect(lmap_eq(&same, &r));
    layout_map(&l, 2, (int[]){64, 1}, &small);
    expect_valid(&small);
    cr_expect_eq(small.nreg, 0, "column bit 0 was a register; the lane of bit 1 now holds copies");
    layout_map(&l, 2, (int[]){64, 8}, &big);
    expect_valid(&big);
    cr_expect_eq(big.nreg, r.nreg + 1);
}

/* ---- whole kernels -------------------------------------------------------------- */

static Ctx ctx;
static Source src;
static StrBuf out;

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&out);
}

static int translate(const char *source, const char *sig, EmitKind emit)
{
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    memset(&out, 0, sizeof out);
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "%s", err);
    opt.emit = emit;
    return tilec_translate(&ctx, &opt, &out);
}

static const char *swap_pairs_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    a, b = tl.split(tl.reshape(x, (BLOCK // 2, 2)))\n"
    "    tl.store(out_ptr + offs, tl.interleave(b, a + 1.0), mask=offs < n)\n";

Test(layout_shape, split_and_interleave_need_no_shared_memory, .fini = reset)
{
    cr_assert_eq(translate(swap_pairs_src, "*fp32:16, *fp32:16, i32:16, 1024", EMIT_CUDA), 0, "%s", ctx.log.data);
    const char *body = strstr(out.data, "__global__");
    cr_assert(body, "%s", out.data);
    cr_expect(!strstr(body, "__shared__"), "%s", body);
    cr_expect(!strstr(body, "__syncthreads"), "%s", body);
    cr_expect(!strstr(body, "shfl"), "%s", body);
}

Test(layout_shape, emit_layouts_describes_the_linear_layout, .fini = reset)
{
    cr_assert_eq(translate(swap_pairs_src, "*fp32:16, *fp32:16, i32:16, 1024", EMIT_LAYOUTS), 0, "%s", ctx.log.data);
    cr_expect(strstr(out.data, "linear 512x2"), "%s", out.data);
    cr_expect(strstr(out.data, "register [[0, 1], [1, 0], [256, 0]]"), "%s", out.data);
}

static const char *gather_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    tl.store(out_ptr + offs, tl.gather(x, (BLOCK - 1) - offs, 0))\n";

/* the source goes to shared memory row-major; each thread reads its index's elements back */
Test(layout_shape, gather_reads_the_source_at_each_index, .fini = reset)
{
    cr_assert_eq(translate(gather_src, "*fp32:16, *fp32:16, i32, 256", EMIT_CUDA), 0, "%s", ctx.log.data);
    const char *body = strstr(out.data, "__global__");
    cr_assert(body, "%s", out.data);
    cr_expect(strstr(body, "gather along dim 0 through shared memory"), "%s", body);
    cr_expect(strstr(body, "__syncthreads();"), "%s", body);
    cr_expect(strstr(out.data, "tl.gather, row-major, read back at the indices along dim 0"), "%s", out.data);
}

/* test_layout_maps.c — layouts as linear bit maps (layout_map), slices,
 * lmap_local (reading one map in another's register order), the C
 * expressions printed for a map, shuffle distances, and reductions and
 * conversions in the emitted CUDA (the shared memory itself: test_smem.c). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* every test is fast; a broken map must fail the suite, not hang it */
TestSuite(layout_maps, .timeout = 10.0);

/* ---- helpers ------------------------------------------------------------------ */

static Layout blocked(int rank, const int *shape, const int *spt, const int *order, int num_warps)
{
    Layout l;
    layout_build(&l, rank, shape, spt, order, num_warps);
    return l;
}

/* bits written as {dim, bit} pairs; dim -1 means "no coordinate" (bit ignored) */
static void expect_bits(const char *what, const LBit *got, int ngot, const LBit *want, int nwant)
{
    cr_expect_eq(ngot, nwant, "%s: %d bits, want %d", what, ngot, nwant);
    for (int i = 0; i < ngot && i < nwant; i++) {
        if (want[i].dim < 0)
            cr_expect_lt(got[i].dim, 0, "%s bit %d: (%d,%d), want replicated", what, i, got[i].dim, got[i].bit);
        else
            cr_expect(got[i].dim == want[i].dim && got[i].bit == want[i].bit, "%s bit %d: (%d,%d), want (%d,%d)",
                      what, i, got[i].dim, got[i].bit, want[i].dim, want[i].bit);
    }
}

#define BITS(...) ((const LBit[]){__VA_ARGS__}), (int)(sizeof((const LBit[]){__VA_ARGS__}) / sizeof(LBit))
#define NONE {-1, 0}

/* coordinate along dim of register r of thread (lane, warp), from the bits */
static int map_coord(const LayoutMap *m, int r, int lane, int warp, int dim)
{
    int c = 0;
    for (int i = 0; i < m->nreg; i++)
        if ((r >> i & 1) && m->reg[i].dim == dim)
            c += 1 << m->reg[i].bit;
    for (int i = 0; i < m->nlane; i++)
        if ((lane >> i & 1) && m->lane[i].dim == dim)
            c += 1 << m->lane[i].bit;
    for (int i = 0; i < m->nwarp; i++)
        if ((warp >> i & 1) && m->warp[i].dim == dim)
            c += 1 << m->warp[i].bit;
    return c;
}

/* Every element of the shape is owned by some thread, and every
 * (register, lane, warp) names an element inside the shape. */
static void expect_map_covers(const LayoutMap *m, int num_warps)
{
    int numel = 1;
    for (int d = 0; d < m->rank; d++)
        numel *= m->shape[d];
    static unsigned char seen[1 << 16];
    cr_assert_leq(numel, (int)sizeof seen);
    memset(seen, 0, sizeof seen);
    cr_expect_eq(1 << m->nwarp, num_warps);
    cr_expect_eq(m->nlane, 5);
    for (int w = 0; w < (1 << m->nwarp); w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < (1 << m->nreg); r++) {
                int lin = 0;
                for (int d = 0; d < m->rank; d++) {
                    int c = map_coord(m, r, l, w, d);
                    cr_assert_lt(c, m->shape[d], "reg %d lane %d warp %d: coordinate %d along dim %d", r, l, w, c, d);
                    lin = lin * m->shape[d] + c;
                }
                seen[lin] = 1;
            }
    for (int i = 0; i < numel; i++)
        cr_assert(seen[i], "element %d owned by nobody", i);
}

/* ---- 1. layout_map of blocked layouts ------------------------------------------- */

/* [1024] fp32 coalesced: spt 4, tpw 32, wpc 4 — thread t owns 4t..4t+3 and
 * 512+4t..512+4t+3: registers are bits 0,1 then the repetition bit 9. */
Test(layout_maps, blocked_1d_coalesced)
{
    Layout l = blocked(1, (int[]){1024}, (int[]){4}, (int[]){0}, 4);
    cr_assert(l.tpw[0] == 32 && l.wpc[0] == 4);
    LayoutMap m;
    layout_map(&l, 1, (int[]){1024}, &m);
    cr_expect_eq(m.rank, 1);
    cr_expect_eq(m.shape[0], 1024);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 0}, {0, 1}, {0, 9}));
    expect_bits("lane", m.lane, m.nlane, BITS({0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}));
    expect_bits("warp", m.warp, m.nwarp, BITS({0, 7}, {0, 8}));
    cr_expect_eq(lmap_replicated_mask(m.lane, m.nlane), 0u);
    cr_expect_eq(lmap_replicated_mask(m.warp, m.nwarp), 0u);
    /* agrees with the register geometry the emitter used before maps */
    for (int r = 0; r < 8; r++)
        cr_expect_eq(lmap_reg_offset(&m, r, 0), layout_reg_offset(&l, r, 0), "reg %d", r);
    expect_map_covers(&m, 4);
}

/* triton-internals §2.3: [64,64] fp16, spt [1,8], tpw [4,8], wpc [4,1], order [1,0]. */
Test(layout_maps, blocked_2d_fp16)
{
    Layout l = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    cr_assert(l.tpw[0] == 4 && l.tpw[1] == 8 && l.wpc[0] == 4 && l.wpc[1] == 1);
    LayoutMap m;
    layout_map(&l, 2, (int[]){64, 64}, &m);
    /* the 8-wide nano-tile along dim 1, then the 4 repetitions of the 16-row CTA tile */
    expect_bits("reg", m.reg, m.nreg, BITS({1, 0}, {1, 1}, {1, 2}, {0, 4}, {0, 5}));
    /* lanes: 8 along dim 1 (columns 8 apart), then 4 along dim 0 */
    expect_bits("lane", m.lane, m.nlane, BITS({1, 3}, {1, 4}, {1, 5}, {0, 0}, {0, 1}));
    expect_bits("warp", m.warp, m.nwarp, BITS({0, 2}, {0, 3}));
    for (int r = 0; r < 32; r++)
        for (int d = 0; d < 2; d++)
            cr_expect_eq(lmap_reg_offset(&m, r, d), layout_reg_offset(&l, r, d), "reg %d dim %d", r, d);
    expect_map_covers(&m, 4);
}

/* order [0,1] (dim 0 fastest) mirrors the map: the dims swap roles. */
Test(layout_maps, blocked_2d_column_major)
{
    Layout l = blocked(2, (int[]){64, 64}, (int[]){8, 1}, (int[]){0, 1}, 4);
    cr_assert(l.tpw[0] == 8 && l.tpw[1] == 4 && l.wpc[0] == 1 && l.wpc[1] == 4);
    LayoutMap m;
    layout_map(&l, 2, (int[]){64, 64}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 0}, {0, 1}, {0, 2}, {1, 4}, {1, 5}));
    expect_bits("lane", m.lane, m.nlane, BITS({0, 3}, {0, 4}, {0, 5}, {1, 0}, {1, 1}));
    expect_bits("warp", m.warp, m.nwarp, BITS({1, 2}, {1, 3}));
    expect_map_covers(&m, 4);
}

/* The layout's encoding at a larger shape: repetitions along both dims, in `order`. */
Test(layout_maps, blocked_2d_other_shape)
{
    Layout l = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    LayoutMap m;
    layout_map(&l, 2, (int[]){128, 128}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({1, 0}, {1, 1}, {1, 2}, {1, 6}, {0, 4}, {0, 5}, {0, 6}));
    expect_bits("lane", m.lane, m.nlane, BITS({1, 3}, {1, 4}, {1, 5}, {0, 0}, {0, 1}));
    expect_bits("warp", m.warp, m.nwarp, BITS({0, 2}, {0, 3}));
    expect_map_covers(&m, 4);
}

/* A tile smaller than the threads: [16] over 32 lanes x 4 warps.  Lane bits
 * above bit 3 and every warp bit hold copies (dim -1); no registers. */
Test(layout_maps, blocked_1d_smaller_than_threads)
{
    Layout l = blocked(1, (int[]){16}, (int[]){1}, (int[]){0}, 4);
    cr_assert(l.tpw[0] == 32 && l.wpc[0] == 4);
    LayoutMap m;
    layout_map(&l, 1, (int[]){16}, &m);
    cr_expect_eq(m.nreg, 0);
    expect_bits("lane", m.lane, m.nlane, BITS({0, 0}, {0, 1}, {0, 2}, {0, 3}, NONE));
    expect_bits("warp", m.warp, m.nwarp, BITS(NONE, NONE));
    cr_expect_eq(lmap_replicated_mask(m.lane, m.nlane), 0x10u);
    cr_expect_eq(lmap_replicated_mask(m.warp, m.nwarp), 0x3u);
    expect_map_covers(&m, 4);
    StrBuf s = {0};
    lmap_describe(&s, &m);
    cr_expect_str_eq(s.data, "elements lane & 15 (replicated: 8 threads hold each element)");
    sb_free(&s);
}

/* sizePerThread wider than the shape: the registers stop at the shape, the lanes replicate. */
Test(layout_maps, blocked_spt_wider_than_shape)
{
    Layout l = blocked(1, (int[]){2}, (int[]){4}, (int[]){0}, 1);
    LayoutMap m;
    layout_map(&l, 1, (int[]){2}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 0}));
    expect_bits("lane", m.lane, m.nlane, BITS(NONE, NONE, NONE, NONE, NONE));
    cr_expect_eq(m.nwarp, 0);
    expect_map_covers(&m, 1);
}

/* ---- 2. slice layouts ------------------------------------------------------------- */

static Ctx actx;
static TirFunc afn;
static void arena_reset(void)
{
    arena_free(&actx.arena);
    memset(&actx, 0, sizeof actx);
    memset(&afn, 0, sizeof afn);
}

/* Slice along dim 1 (a row reduction's result): the 8 column lanes become
 * copies, the column registers disappear; rows stay (renumbered dim 0). */
Test(layout_maps, slice_along_dim1, .fini = arena_reset)
{
    Layout p = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    Layout *s = layout_slice(&actx.arena, &afn, &p, 1);
    cr_assert_eq(s->kind, LAYOUT_SLICE);
    cr_expect_eq(s->rank, 1);
    cr_expect_eq(s->slice_dim, 1);
    cr_expect_eq(s->parent, &p);
    cr_expect_eq(s->shape[0], 64);
    LayoutMap m;
    layout_map(s, 1, (int[]){64}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 4}, {0, 5}));
    expect_bits("lane", m.lane, m.nlane, BITS(NONE, NONE, NONE, {0, 0}, {0, 1}));
    expect_bits("warp", m.warp, m.nwarp, BITS({0, 2}, {0, 3}));
    cr_expect_eq(lmap_replicated_mask(m.lane, m.nlane), 0x7u);
    expect_map_covers(&m, 4);
}

/* Slice along dim 0 (a column reduction's result): row lanes and all warps
 * become copies; columns are renumbered to dim 0. */
Test(layout_maps, slice_along_dim0, .fini = arena_reset)
{
    Layout p = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    Layout *s = layout_slice(&actx.arena, &afn, &p, 0);
    LayoutMap m;
    layout_map(s, 1, (int[]){64}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 0}, {0, 1}, {0, 2}));
    expect_bits("lane", m.lane, m.nlane, BITS({0, 3}, {0, 4}, {0, 5}, NONE, NONE));
    expect_bits("warp", m.warp, m.nwarp, BITS(NONE, NONE));
    cr_expect_eq(lmap_replicated_mask(m.lane, m.nlane), 0x18u);
    cr_expect_eq(lmap_replicated_mask(m.warp, m.nwarp), 0x3u);
    expect_map_covers(&m, 4);
    StrBuf d = {0};
    lmap_describe(&d, &m);
    cr_expect(strstr(d.data, "(replicated: 16 threads hold each element)"), "%s", d.data);
    sb_free(&d);
}

/* The mma.sync accumulator, 128x64 on 4 warps as [2, 2] (M, N). */
static Layout mma_2x2(void)
{
    Layout l = {0};
    l.kind = LAYOUT_MMA;
    l.rank = 2;
    l.shape[0] = 128, l.shape[1] = 64;
    l.wpc[0] = 2, l.wpc[1] = 2;
    l.order[0] = 1, l.order[1] = 0;
    return l;
}

/* A row reduction of a tl.dot result (attention's row max): the slice keeps
 * the row bits only.  Its registers are the distinct rows a thread holds (8),
 * not the accumulator's column-pair bit as a duplicate (16), which made the
 * reduced values be read with the parent's register numbering (the attention
 * bug of issue 18). */
Test(layout_maps, slice_of_mma_along_dim1, .fini = arena_reset)
{
    Layout p = mma_2x2();
    Layout *s = layout_slice(&actx.arena, &afn, &p, 1);
    LayoutMap m;
    layout_map(s, 1, (int[]){128}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 3}, {0, 5}, {0, 6}));
    expect_bits("lane", m.lane, m.nlane, BITS(NONE, NONE, {0, 0}, {0, 1}, {0, 2}));
    expect_bits("warp", m.warp, m.nwarp, BITS(NONE, {0, 4}));
    expect_map_covers(&m, 4);
}

/* A column reduction of a tl.dot result: the column bits, the row register bit gone. */
Test(layout_maps, slice_of_mma_along_dim0, .fini = arena_reset)
{
    Layout p = mma_2x2();
    Layout *s = layout_slice(&actx.arena, &afn, &p, 0);
    LayoutMap m;
    layout_map(s, 1, (int[]){64}, &m);
    expect_bits("reg", m.reg, m.nreg, BITS({0, 0}, {0, 4}, {0, 5}));
    expect_bits("lane", m.lane, m.nlane, BITS({0, 1}, {0, 2}, NONE, NONE, NONE));
    expect_bits("warp", m.warp, m.nwarp, BITS({0, 3}, NONE));
    expect_map_covers(&m, 4);
}

/* Same parent (or an equal one) and dim: the same Layout; ids in order. */
Test(layout_maps, slice_interning, .fini = arena_reset)
{
    Layout p = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    Layout q = p; /* equal encoding, another object */
    Layout other = blocked(2, (int[]){64, 64}, (int[]){8, 1}, (int[]){0, 1}, 4);
    Layout *s1 = layout_slice(&actx.arena, &afn, &p, 1);
    Layout *s0 = layout_slice(&actx.arena, &afn, &p, 0);
    cr_expect_neq(s1, s0);
    cr_expect_eq(layout_slice(&actx.arena, &afn, &p, 1), s1);
    cr_expect_eq(layout_slice(&actx.arena, &afn, &p, 0), s0);
    cr_expect_eq(layout_slice(&actx.arena, &afn, &q, 1), s1, "an equal parent interns too");
    Layout *o1 = layout_slice(&actx.arena, &afn, &other, 1);
    cr_expect_neq(o1, s1);
    cr_expect_eq(afn.layouts.len, 3);
    cr_expect_eq(s1->id, 0);
    cr_expect_eq(s0->id, 1);
    cr_expect_eq(o1->id, 2);
    cr_expect(layout_eq(s1, layout_slice(&actx.arena, &afn, &p, 1)));
    cr_expect(!layout_eq(s1, s0));
    cr_expect(!layout_eq(s1, o1));
}

/* A slice of a slice drops both dimensions. */
Test(layout_maps, slice_of_slice, .fini = arena_reset)
{
    Layout p = blocked(3, (int[]){4, 8, 64}, (int[]){1, 1, 4}, (int[]){2, 1, 0}, 4);
    Layout *s = layout_slice(&actx.arena, &afn, &p, 1);   /* [4, 64] */
    Layout *ss = layout_slice(&actx.arena, &afn, s, 0);   /* [64] */
    LayoutMap pm, m;
    layout_map(&p, 3, (int[]){4, 8, 64}, &pm);
    layout_map(ss, 1, (int[]){64}, &m);
    /* what is left equals the parent's bits along dim 2, the rest replicated */
    cr_assert_eq(m.nlane, pm.nlane);
    cr_assert_eq(m.nwarp, pm.nwarp);
    for (int i = 0; i < pm.nlane; i++)
        cr_expect(pm.lane[i].dim == 2 ? m.lane[i].dim == 0 && m.lane[i].bit == pm.lane[i].bit : m.lane[i].dim < 0,
                  "lane %d", i);
    for (int i = 0; i < pm.nwarp; i++)
        cr_expect(pm.warp[i].dim == 2 ? m.warp[i].dim == 0 && m.warp[i].bit == pm.warp[i].bit : m.warp[i].dim < 0,
                  "warp %d", i);
    int nreg2 = 0;
    for (int i = 0; i < pm.nreg; i++)
        nreg2 += pm.reg[i].dim == 2;
    cr_expect_eq(m.nreg, nreg2);
    expect_map_covers(&m, 4);
}

/* ---- 3. lmap_local -------------------------------------------------------------- */

/* expand_dims of the dim-1 slice, read in the parent's order: parent
 * registers along the inserted dim read nothing (-1), the row repetitions
 * read the slice's registers 0 and 1. */
Test(layout_maps, local_expand_dims_of_slice, .fini = arena_reset)
{
    Layout p = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    LayoutMap pm, sm;
    layout_map(&p, 2, (int[]){64, 64}, &pm);
    layout_map(layout_slice(&actx.arena, &afn, &p, 1), 1, (int[]){64}, &sm);
    int rb[LMAP_MAX_REG_BITS];
    memset(rb, 0x55, sizeof rb);
    cr_assert(lmap_local(&sm, 1, &pm, rb));
    static const int want[] = {-1, -1, -1, 0, 1};
    for (int i = 0; i < pm.nreg; i++)
        cr_expect_eq(rb[i], want[i], "regbit[%d] = %d, want %d", i, rb[i], want[i]);

    /* the actual expand_dims result [64,1]: no column registers at all */
    LayoutMap em;
    layout_map(&p, 2, (int[]){64, 1}, &em);
    cr_assert_eq(em.nreg, 2);
    cr_assert(lmap_local(&sm, 1, &em, rb));
    cr_expect(rb[0] == 0 && rb[1] == 1, "[%d, %d]", rb[0], rb[1]);

    /* dim-0 slice, expanded at 0: the nano-tile reads registers 0..2 */
    layout_map(layout_slice(&actx.arena, &afn, &p, 0), 1, (int[]){64}, &sm);
    cr_assert(lmap_local(&sm, 0, &pm, rb));
    static const int want0[] = {0, 1, 2, -1, -1};
    for (int i = 0; i < pm.nreg; i++)
        cr_expect_eq(rb[i], want0[i], "regbit[%d] = %d, want %d", i, rb[i], want0[i]);
    /* ... but expanded at the wrong dim it is not local */
    cr_expect(!lmap_local(&sm, 1, &pm, NULL));
}

/* A row vector [1,64] in the same layout broadcasts into [64,64] in place. */
Test(layout_maps, local_broadcast_row_vector)
{
    Layout p = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    LayoutMap row, full;
    layout_map(&p, 2, (int[]){1, 64}, &row);
    layout_map(&p, 2, (int[]){64, 64}, &full);
    expect_bits("row reg", row.reg, row.nreg, BITS({1, 0}, {1, 1}, {1, 2}));
    expect_bits("row lane", row.lane, row.nlane, BITS({1, 3}, {1, 4}, {1, 5}, NONE, NONE));
    expect_bits("row warp", row.warp, row.nwarp, BITS(NONE, NONE));
    int rb[LMAP_MAX_REG_BITS];
    cr_assert(lmap_local(&row, -1, &full, rb));
    static const int want[] = {0, 1, 2, -1, -1};
    for (int i = 0; i < full.nreg; i++)
        cr_expect_eq(rb[i], want[i], "regbit[%d] = %d, want %d", i, rb[i], want[i]);
    /* a column vector [64,1] too */
    LayoutMap col;
    layout_map(&p, 2, (int[]){64, 1}, &col);
    cr_assert(lmap_local(&col, -1, &full, rb));
    static const int wantc[] = {-1, -1, -1, 0, 1};
    for (int i = 0; i < full.nreg; i++)
        cr_expect_eq(rb[i], wantc[i], "col regbit[%d] = %d, want %d", i, rb[i], wantc[i]);
    /* the other way round (full into row shape) is not a broadcast */
    cr_expect(!lmap_local(&full, -1, &row, NULL));
}

/* Two different blocked layouts of one shape need a conversion, both ways;
 * a map is always local to itself with the identity register mapping. */
Test(layout_maps, local_needs_conversion)
{
    Layout a = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    Layout b = blocked(2, (int[]){64, 64}, (int[]){8, 1}, (int[]){0, 1}, 4);
    Layout c = blocked(2, (int[]){64, 64}, (int[]){1, 4}, (int[]){1, 0}, 4); /* same order, narrower */
    LayoutMap am, bm, cm;
    layout_map(&a, 2, (int[]){64, 64}, &am);
    layout_map(&b, 2, (int[]){64, 64}, &bm);
    layout_map(&c, 2, (int[]){64, 64}, &cm);
    cr_expect(!lmap_local(&am, -1, &bm, NULL));
    cr_expect(!lmap_local(&bm, -1, &am, NULL));
    cr_expect(!lmap_local(&am, -1, &cm, NULL));
    cr_expect(!lmap_local(&cm, -1, &am, NULL));
    int rb[LMAP_MAX_REG_BITS];
    cr_assert(lmap_local(&am, -1, &am, rb));
    for (int i = 0; i < am.nreg; i++)
        cr_expect_eq(rb[i], i);
    /* a [1,64] row in layout b does not broadcast into layout a */
    LayoutMap brow;
    layout_map(&b, 2, (int[]){1, 64}, &brow);
    cr_expect(!lmap_local(&brow, -1, &am, NULL));
}

/* ---- 4. expressions ------------------------------------------------------------- */

/* A tiny evaluator for the printed expressions, with C's precedence
 * (+ above << >>, those above &): a missing parenthesis changes the value. */
typedef struct Eval {
    const char *p;
    int lane, warp, e;
    bool bad;
} Eval;

static void ev_ws(Eval *E)
{
    while (*E->p == ' ')
        E->p++;
}
static long ev_and(Eval *E);
static long ev_primary(Eval *E)
{
    ev_ws(E);
    if (*E->p == '(') {
        E->p++;
        long v = ev_and(E);
        ev_ws(E);
        if (*E->p != ')')
            E->bad = true;
        else
            E->p++;
        return v;
    }
    if (*E->p >= '0' && *E->p <= '9') {
        long v = 0;
        while (*E->p >= '0' && *E->p <= '9')
            v = v * 10 + (*E->p++ - '0');
        return v;
    }
    static const struct { const char *name; size_t off; } ids[] = {
        {"lane", offsetof(Eval, lane)}, {"warp", offsetof(Eval, warp)}, {"e", offsetof(Eval, e)}};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++) {
        size_t n = strlen(ids[i].name);
        if (!strncmp(E->p, ids[i].name, n) && !((E->p[n] >= 'a' && E->p[n] <= 'z') || E->p[n] == '_')) {
            E->p += n;
            return *(int *)((char *)E + ids[i].off);
        }
    }
    E->bad = true;
    return 0;
}
static long ev_add(Eval *E)
{
    long v = ev_primary(E);
    for (;;) {
        ev_ws(E);
        if (*E->p != '+')
            return v;
        E->p++;
        v += ev_primary(E);
    }
}
static long ev_shift(Eval *E)
{
    long v = ev_add(E);
    for (;;) {
        ev_ws(E);
        if (!strncmp(E->p, "<<", 2)) {
            E->p += 2;
            v <<= ev_add(E);
        } else if (!strncmp(E->p, ">>", 2)) {
            E->p += 2;
            v >>= ev_add(E);
        } else {
            return v;
        }
    }
}
static long ev_and(Eval *E)
{
    long v = ev_shift(E);
    for (;;) {
        ev_ws(E);
        if (*E->p != '&' || E->p[1] == '&')
            return v;
        E->p++;
        v &= ev_shift(E);
    }
}
static long eval_expr(const char *s, int lane, int warp, int e)
{
    Eval E = {s, lane, warp, e, false};
    long v = ev_and(&E);
    ev_ws(&E);
    cr_assert(!E.bad && !*E.p, "cannot evaluate \"%s\" (stopped at \"%s\")", s, E.p);
    return v;
}

Test(layout_maps, evaluator_precedence)
{
    cr_expect_eq(eval_expr("1 + 2 << 3", 0, 0, 0), 24);       /* (1 + 2) << 3 */
    cr_expect_eq(eval_expr("1 + (2 << 3)", 0, 0, 0), 17);
    cr_expect_eq(eval_expr("lane & 7 << 1", 5, 0, 0), 4);     /* 5 & 14 */
    cr_expect_eq(eval_expr("(e >> 2) & 3", 0, 0, 13), 3);
}

/* The 1-D coalesced layout's expressions, pinned. */
Test(layout_maps, exprs_1d)
{
    Layout l = blocked(1, (int[]){1024}, (int[]){4}, (int[]){0}, 4);
    LayoutMap m;
    layout_map(&l, 1, (int[]){1024}, &m);
    StrBuf b = {0}, r = {0}, d = {0};
    lmap_base_expr(&b, &m, 0);
    lmap_reg_expr(&r, &m, 0, "e");
    lmap_describe(&d, &m);
    cr_expect_str_eq(b.data, "(lane << 2) + (warp << 7)");
    cr_expect_str_eq(r.data, "(e & 3) + ((e >> 2) << 9)");
    cr_expect_str_eq(d.data, "elements (lane << 2) + (warp << 7) + {0, 1, 2, 3, 512, 513, 514, 515}");
    sb_free(&b);
    sb_free(&r);
    sb_free(&d);
}

/* The 2-D example's expressions, pinned. */
Test(layout_maps, exprs_2d)
{
    Layout l = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    LayoutMap m;
    layout_map(&l, 2, (int[]){64, 64}, &m);
    static const char *const want_base[] = {"(lane >> 3) + (warp << 2)", "(lane & 7) << 3"};
    static const char *const want_reg[] = {"(e >> 3) << 4", "e & 7"};
    for (int dim = 0; dim < 2; dim++) {
        StrBuf b = {0}, r = {0};
        lmap_base_expr(&b, &m, dim);
        lmap_reg_expr(&r, &m, dim, "e");
        cr_expect_str_eq(b.data, want_base[dim], "dim %d", dim);
        cr_expect_str_eq(r.data, want_reg[dim], "dim %d", dim);
        sb_free(&b);
        sb_free(&r);
    }
    /* [128,128]: a register run in the middle is masked and shifted */
    layout_map(&l, 2, (int[]){128, 128}, &m);
    StrBuf r = {0};
    lmap_reg_expr(&r, &m, 1, "e");
    cr_expect_str_eq(r.data, "(e & 7) + (((e >> 3) & 1) << 6)");
    sb_free(&r);
    /* a dim no thread bit moves */
    layout_map(&l, 2, (int[]){64, 1}, &m);
    StrBuf z = {0}, zr = {0};
    lmap_base_expr(&z, &m, 1);
    lmap_reg_expr(&zr, &m, 1, "e");
    cr_expect_str_eq(z.data, "0");
    cr_expect_str_eq(zr.data, "0");
    sb_free(&z);
    sb_free(&zr);
}

/* For many maps: base(lane, warp) + reg(e), evaluated with C precedence,
 * is the coordinate the bits say, for every register, lane and warp. */
static void expect_exprs_match(const LayoutMap *m, const char *what)
{
    for (int d = 0; d < m->rank; d++) {
        StrBuf b = {0}, r = {0};
        lmap_base_expr(&b, m, d);
        lmap_reg_expr(&r, m, d, "e");
        for (int w = 0; w < (1 << m->nwarp); w++)
            for (int l = 0; l < 32; l++) {
                long base = eval_expr(b.data, l, w, 0);
                for (int e = 0; e < (1 << m->nreg); e++) {
                    long got = base + eval_expr(r.data, l, w, e);
                    int want = map_coord(m, e, l, w, d);
                    if (got != want)
                        cr_assert_fail("%s dim %d: lane %d warp %d e %d: \"%s\" + \"%s\" = %ld, want %d", what, d, l, w,
                                       e, b.data, r.data, got, want);
                }
            }
        for (int e = 0; e < (1 << m->nreg); e++)
            cr_expect_eq(lmap_reg_offset(m, e, d), eval_expr(r.data, 0, 0, e), "%s dim %d reg %d", what, d, e);
        sb_free(&b);
        sb_free(&r);
    }
}

Test(layout_maps, exprs_evaluate_to_the_map, .fini = arena_reset)
{
    static const struct {
        int rank, shape[3], spt[3], order[3], warps;
        int at[3]; /* the shape the map is taken at */
    } t[] = {
        {1, {1024}, {4}, {0}, 4, {1024}},
        {1, {1024}, {1}, {0}, 4, {1024}},
        {1, {16}, {1}, {0}, 4, {16}},
        {1, {4096}, {8}, {0}, 8, {4096}},
        {2, {64, 64}, {1, 8}, {1, 0}, 4, {64, 64}},
        {2, {64, 64}, {1, 8}, {1, 0}, 4, {128, 128}},
        {2, {64, 64}, {1, 8}, {1, 0}, 4, {1, 64}},
        {2, {64, 64}, {8, 1}, {0, 1}, 4, {64, 64}},
        {2, {64, 64}, {1, 4}, {1, 0}, 4, {64, 64}},
        {2, {4, 1024}, {1, 4}, {1, 0}, 4, {4, 1024}},
        {2, {128, 8}, {1, 4}, {1, 0}, 4, {128, 8}},
        {2, {16, 16}, {1, 1}, {1, 0}, 8, {16, 16}},
        {3, {4, 8, 64}, {1, 1, 4}, {2, 1, 0}, 4, {4, 8, 64}},
        {3, {8, 4, 32}, {2, 1, 2}, {0, 2, 1}, 2, {8, 4, 32}},
    };
    for (size_t i = 0; i < ARRAY_LEN(t); i++) {
        Layout *l = NEW(&actx.arena, Layout);
        layout_build(l, t[i].rank, t[i].shape, t[i].spt, t[i].order, t[i].warps);
        LayoutMap m;
        char what[64];
        layout_map(l, t[i].rank, t[i].at, &m);
        snprintf(what, sizeof what, "case %zu", i);
        expect_exprs_match(&m, what);
        /* and every slice of it */
        for (int d = 0; d < t[i].rank && t[i].rank > 1; d++) {
            int sshape[3];
            for (int k = 0, j = 0; k < t[i].rank; k++)
                if (k != d)
                    sshape[j++] = t[i].at[k];
            layout_map(layout_slice(&actx.arena, &afn, l, d), t[i].rank - 1, sshape, &m);
            snprintf(what, sizeof what, "case %zu slice %d", i, d);
            expect_exprs_match(&m, what);
        }
    }
}

/* Twenty register bits that alternate between the dims give ten one-bit runs per dim, and a
 * long register index (300 characters) is spelled out in every term: the expression must
 * come out whole (fixed-size buffers once cut it mid-term) and evaluate to the map. */
Test(layout_maps, long_exprs_are_never_cut)
{
    LayoutMap m = {.rank = 2, .shape = {1024, 1024}, .nreg = 20};
    for (int i = 0; i < 20; i++)
        m.reg[i] = (LBit){(int8_t)(i % 2), (int8_t)(9 - i / 2)}; /* reversed: no two bits make a run */
    StrBuf idx = {0};
    sb_puts(&idx, "e");
    while (idx.len < 300)
        sb_puts(&idx, " + 0");
    for (int d = 0; d < 2; d++) {
        StrBuf r = {0};
        lmap_reg_expr(&r, &m, d, idx.data);
        int terms = 0;
        for (const char *p = r.data; (p = strstr(p, idx.data)); p += idx.len)
            terms++;
        cr_expect_eq(terms, 10, "dim %d: %d whole copies of the index in \"%s\"", d, terms, r.data);
        cr_expect_gt(r.len, 10 * idx.len);
        for (int b = -1; b < 20; b++) { /* no bit, each bit alone, and all bits */
            int e = b < 0 ? 0 : 1 << b;
            cr_expect_eq(eval_expr(r.data, 0, 0, e), lmap_reg_offset(&m, e, d), "dim %d e %d", d, e);
        }
        cr_expect_eq(eval_expr(r.data, 0, 0, (1 << 20) - 1), 1023, "dim %d, every bit", d);
        sb_free(&r);
    }
    sb_free(&idx);
}

/* lmap_moves_expr with sources whose names are long: every run is a whole term. */
Test(layout_maps, moves_expr_keeps_long_names_whole)
{
    char a[400], b[400];
    memset(a, 'a', sizeof a - 1), a[sizeof a - 1] = 0;
    memset(b, 'b', sizeof b - 1), b[sizeof b - 1] = 0;
    BitSrc srcs[2] = {{a, 8}, {b, -1}};
    BitMove mv[] = {{0, 0, 0}, {0, 1, 1}, {1, 0, 2}, {0, 4, 5}, {1, 3, 9}, {1, 4, 10}};
    StrBuf r = {0};
    lmap_moves_expr(&r, srcs, mv, (int)ARRAY_LEN(mv));
    StrBuf want = {0};
    sb_printf(&want, "(%s & 3) + ((%s & 1) << 2) + (((%s >> 4) & 1) << 5) + (((%s >> 3) & 3) << 9)", a, b, a, b);
    cr_expect_str_eq(r.data, want.data);
    sb_free(&r);
    sb_free(&want);
}

/* ---- 5. shuffle distances ------------------------------------------------------- */

/* xor distances of the lanes that move `axis`, highest first (the butterfly's order) */
static int shuffle_distances(const LayoutMap *m, int axis, int *out)
{
    int n = 0;
    for (int i = m->nlane - 1; i >= 0; i--)
        if (m->lane[i].dim == axis)
            out[n++] = 1 << i;
    return n;
}

static void expect_distances(const Layout *l, int rank, const int *shape, int axis, const int *want, int nwant)
{
    LayoutMap m;
    layout_map(l, rank, shape, &m);
    int got[5];
    int n = shuffle_distances(&m, axis, got);
    cr_expect_eq(n, nwant, "axis %d: %d lane bits, want %d", axis, n, nwant);
    for (int i = 0; i < n && i < nwant; i++)
        cr_expect_eq(got[i], want[i], "axis %d distance %d: %d, want %d", axis, i, got[i], want[i]);
}

Test(layout_maps, shuffle_distances)
{
    /* [64,64] fp16: a row reduction (axis 1) shuffles over lanes 0..2, a column one over lanes 3, 4 */
    Layout a = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    expect_distances(&a, 2, (int[]){64, 64}, 1, (int[]){4, 2, 1}, 3);
    expect_distances(&a, 2, (int[]){64, 64}, 0, (int[]){16, 8}, 2);
    /* 1-D, 32 lanes along the axis */
    Layout b = blocked(1, (int[]){1024}, (int[]){4}, (int[]){0}, 4);
    expect_distances(&b, 1, (int[]){1024}, 0, (int[]){16, 8, 4, 2, 1}, 5);
    /* [4,1024] row max: every lane along the row, none along the column */
    Layout c = blocked(2, (int[]){4, 1024}, (int[]){1, 4}, (int[]){1, 0}, 4);
    cr_expect(c.tpw[0] == 1 && c.tpw[1] == 32 && c.wpc[1] == 4);
    expect_distances(&c, 2, (int[]){4, 1024}, 1, (int[]){16, 8, 4, 2, 1}, 5);
    expect_distances(&c, 2, (int[]){4, 1024}, 0, NULL, 0);
    /* [64,64] fp32 (spt [1,4], tpw [2,16]): rows over lane 4, columns over lanes 0..3 */
    Layout d = blocked(2, (int[]){64, 64}, (int[]){1, 4}, (int[]){1, 0}, 4);
    cr_expect(d.tpw[0] == 2 && d.tpw[1] == 16 && d.wpc[0] == 4);
    expect_distances(&d, 2, (int[]){64, 64}, 0, (int[]){16}, 1);
    expect_distances(&d, 2, (int[]){64, 64}, 1, (int[]){8, 4, 2, 1}, 4);
    /* column-major: dim 0 over lanes 0..2 */
    Layout e = blocked(2, (int[]){64, 64}, (int[]){8, 1}, (int[]){0, 1}, 4);
    expect_distances(&e, 2, (int[]){64, 64}, 0, (int[]){4, 2, 1}, 3);
    expect_distances(&e, 2, (int[]){64, 64}, 1, (int[]){16, 8}, 2);
    /* [16] over 32 lanes: only the low 4 lanes move it; lane 4 holds copies */
    Layout f = blocked(1, (int[]){16}, (int[]){1}, (int[]){0}, 4);
    expect_distances(&f, 1, (int[]){16}, 0, (int[]){8, 4, 2, 1}, 4);
}

/* ---- 7b. the pipeline: reductions and conversions in the emitted CUDA ----------- */

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
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.num_warps = 4;
    opt.emit = emit;
    return tilec_translate(&ctx, &opt, &out);
}

static const char *out_text(void) { return out.data ? out.data : ""; }
static const char *log_text(void) { return ctx.log.data ? ctx.log.data : ""; }

#define EXPECT_OUT(needle) cr_expect(strstr(out_text(), needle), "missing \"%s\" in:\n%s", needle, out_text())
#define EXPECT_NOT_OUT(needle) cr_expect(!strstr(out_text(), needle), "unexpected \"%s\" in:\n%s", needle, out_text())

#define KERNEL_HEAD "import triton\nimport triton.language as tl\n@triton.jit\n"

/* [4,1024] fp32 row max, 4 warps: 32 lanes along the row (butterfly 16..1),
 * then 4 warps exchange partials: 4 results x 4 warps x 4 bytes = 64. */
static const char *rowmax_src =
    KERNEL_HEAD
    "def k(x_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 4)\n"
    "    cols = tl.arange(0, 1024)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])\n"
    "    m = tl.max(x, axis=1)\n"
    "    tl.store(o_ptr + rows, m)\n";

Test(layout_maps, pipeline_row_max, .fini = reset)
{
    cr_assert_eq(translate(rowmax_src, "*fp32:16, *fp32:16, 1024", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("__shared__ __align__(16) unsigned char smem[64];");
    EXPECT_OUT("Launch: 128 threads per block (4 warps), 64 bytes of shared memory");
    EXPECT_OUT("t.py:8  reduce, 64 bytes at 0: 4 partial maxs per result, one from each warp along the axis");
    EXPECT_OUT("for (int lane_bit = 16; lane_bit >= 1; lane_bit >>= 1) {");
    EXPECT_OUT("if (lane == 0) {  // one lane per result writes its warp's partial");
    EXPECT_NOT_OUT("cvt0");
}

/* [64,64] fp32 column max, 4 warps: blocked [1,4]/[2,16]/[4,1]; one lane
 * bit (distance 16) and 2 warp bits along the rows: 64 x 4 x 4 = 1024. */
static const char *colmax_src =
    KERNEL_HEAD
    "def k(x_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 64)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])\n"
    "    m = tl.max(x, axis=0)\n"
    "    tl.store(o_ptr + cols, m)\n";

Test(layout_maps, pipeline_column_max, .fini = reset)
{
    cr_assert_eq(translate(colmax_src, "*fp32:16, *fp32:16, 64", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("L0: blocked 64x64, sizePerThread [1, 4], threadsPerWarp [2, 16], warpsPerCTA [4, 1], order [1, 0]");
    EXPECT_OUT("t.py:8  reduce, 1024 bytes at 0: 4 partial maxs per result, one from each warp along the axis");
    EXPECT_OUT("__shared__ __align__(16) unsigned char smem[1024];");
    EXPECT_OUT("// 4 partials per result, 1024 bytes at smem + 0");
    /* the shuffle distance the map gives for axis 0 */
    Layout l = blocked(2, (int[]){64, 64}, (int[]){1, 4}, (int[]){1, 0}, 4);
    LayoutMap m;
    layout_map(&l, 2, (int[]){64, 64}, &m);
    int dist[5];
    cr_assert_eq(shuffle_distances(&m, 0, dist), 1);
    char want[64];
    snprintf(want, sizeof want, "tilec::shfl_xor(m[e], %d)", dist[0]);
    EXPECT_OUT(want);
    EXPECT_NOT_OUT("lane_bit");
    EXPECT_OUT("if ((lane & 16) == 0) {  // one lane per result writes its warp's partial");
}

/* Both reductions of one tile, added: the column result (slice along 0)
 * is converted to the row result's layout (slice along 1) through a
 * 65-word buffer, conflict-free with one pad word after 32. */
static const char *two_reductions_src =
    KERNEL_HEAD
    "def k(x_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 64)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])\n"
    "    a = tl.max(x, axis=1)\n"
    "    b = tl.max(x, axis=0)\n"
    "    tl.store(o_ptr + tl.arange(0, 64), a + b)\n";

Test(layout_maps, pipeline_conversion, .fini = reset)
{
    cr_assert_eq(translate(two_reductions_src, "*fp32:16, *fp32:16, 64", EMIT_LAYOUTS), 0, "%s", log_text());
    EXPECT_OUT("L1: slice of L0 along dim 1");
    EXPECT_OUT("L2: slice of L0 along dim 0");
    EXPECT_OUT("at 64, a thread owns elements (lane >> 4) + (warp << 1) + 8*i for i < 8 (replicated: 16 threads hold each element)");
    reset();
    cr_assert_eq(translate(two_reductions_src, "*fp32:16, *fp32:16, 64", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("t.py:10  convert_layout, 260 bytes at 1024: the tile changing layout (L2 -> L1), row-major,\n"
               "//       then 1 padding element after every 32;\n"
               "//       no bank conflicts on the write or the read (counted statically; 16 extra wavefronts without the padding)");
    EXPECT_OUT("t.py:9  reduce, 1024 bytes at 0: 4 partial maxs per result");
    EXPECT_OUT("// cvt0: a 64 fp32 tile changing layout (L2 -> L1) in shared memory, row-major,\n"
               "// then 1 padding element after every 32;\n"
               "// 260 bytes; no bank conflicts on the write or the read (counted statically; 16 extra wavefronts without the padding).");
    EXPECT_OUT("static __device__ __forceinline__ int cvt0_at(int i)");
    EXPECT_OUT("    return i + (i >> 5);");
    EXPECT_OUT("buf[cvt0_at(L0_col + e)] = b[e];");
    EXPECT_OUT("b_2[e] = buf[cvt0_at(L0_row + (e << 3))];");
    /* the conversion's buffer follows the reduction's: no barrier between them */
    EXPECT_OUT("float *buf = reinterpret_cast<float *>(smem + 1024);");
    EXPECT_NOT_OUT("**>");
    EXPECT_OUT("unsigned char smem[1296];");
    /* the row reduction stays in the warp: lanes 0..3 */
    EXPECT_OUT("for (int lane_bit = 8; lane_bit >= 1; lane_bit >>= 1) {");
    EXPECT_NOT_OUT("cvt1");
}

/* A 1-D load used elementwise with a row reduction's result takes the
 * slice layout by propagation: no conversion. */
static const char *no_conversion_src =
    KERNEL_HEAD
    "def k(x_ptr, b_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 64)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])\n"
    "    m = tl.max(x, axis=1)\n"
    "    offs = tl.arange(0, 64)\n"
    "    b = tl.load(b_ptr + offs)\n"
    "    tl.store(o_ptr + offs, m + b)\n";

Test(layout_maps, pipeline_load_follows_slice, .fini = reset)
{
    cr_assert_eq(translate(no_conversion_src, "*fp32:16, *fp32:16, *fp32:16, 64", EMIT_LAYOUTS), 0, "%s", log_text());
    EXPECT_OUT("%20 b = load: 64 fp32, L1,");
    reset();
    cr_assert_eq(translate(no_conversion_src, "*fp32:16, *fp32:16, *fp32:16, 64", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_NOT_OUT("cvt0");
    EXPECT_NOT_OUT("convert_layout");
    /* nothing crosses warps: no arena at all */
    EXPECT_OUT("128 threads per block (4 warps), 0 bytes of shared memory");
    EXPECT_NOT_OUT("unsigned char smem[");
}

/* ---- regressions and known bugs ------------------------------------------------ */

/* lmap_describe's own comment promises "columns ((lane & 7) << 3) + 0..7";
 * it prints "columns (lane & 7) << 3 + 0..7", which reads as a shift by 3 + i. */
Test(layout_maps, bug_describe_parenthesises_shifted_base)
{
    Layout l = blocked(2, (int[]){64, 64}, (int[]){1, 8}, (int[]){1, 0}, 4);
    LayoutMap m;
    layout_map(&l, 2, (int[]){64, 64}, &m);
    StrBuf d = {0};
    lmap_describe(&d, &m);
    cr_expect_str_eq(d.data, "rows (lane >> 3) + (warp << 2) + {0, 16, 32, 48}; columns ((lane & 7) << 3) + 0..7");
    sb_free(&d);
}

/* 128 register offsets along one dim, the registers holding the high coordinate bits first:
 * the description lists the smallest offsets, not the first registers' (it once looked at
 * the first 64 registers only, which all had coordinate bit 0 clear). */
Test(layout_maps, describe_lists_the_smallest_of_many_offsets)
{
    LayoutMap m = {.rank = 1, .shape = {8192}, .nreg = 7};
    for (int i = 0; i < 7; i++)
        m.reg[i] = (LBit){0, (int8_t)(2 * (6 - i))};
    StrBuf d = {0};
    lmap_describe(&d, &m);
    cr_expect_str_eq(d.data, "elements {0, 1, 4, 5, 16, 17, 20, 21, ...}");
    sb_free(&d);
}

/* A one-term register offset such as "(e >> 2) << 3" added to the thread's
 * base must be parenthesised: "L0_row + (e >> 2) << 3" would be
 * (L0_row + (e >> 2)) << 3, and argmax along axis 0 would report row 8 for
 * the element in row 1. */
static const char *argmax_rows_src =
    KERNEL_HEAD
    "def k(x_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 64)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])\n"
    "    m = tl.argmax(x, axis=0)\n"
    "    tl.store(o_ptr + cols, m)\n";

Test(layout_maps, argmax_axis0_index_precedence, .fini = reset)
{
    cr_assert_eq(translate(argmax_rows_src, "*fp32:16, *i32:16, 64", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("m[e] = L0_row + ((e >> 2) << 3);");
    EXPECT_OUT("const int32_t other_i = L0_row + (kk << 3);");
    EXPECT_OUT("t.py:8  reduce, 2048 bytes at 0: 4 partial argmaxs per result");
    EXPECT_OUT("int32_t *partial_i = reinterpret_cast<int32_t *>(smem + 1024);");
    EXPECT_NOT_OUT("L0_row + (e >> 2) << 3");
    EXPECT_NOT_OUT("L0_row + kk << 3");
}

/* argmax of a bool tile across warps: tir_smem plans 256 one-byte values
 * then 1024 bytes of indices (1280), but the emitter sizes the values with
 * dtype_bits(i1) / 8 == 0 and puts partial_i at smem + 0, on top of them. */
static const char *argmax_bool_src =
    KERNEL_HEAD
    "def k(x_ptr, o_ptr, N: tl.constexpr):\n"
    "    rows = tl.arange(0, 64)\n"
    "    cols = tl.arange(0, 64)\n"
    "    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :]) > 0\n"
    "    m = tl.argmax(x, axis=0)\n"
    "    tl.store(o_ptr + cols, m)\n";

Test(layout_maps, bug_argmax_bool_index_buffer_overlaps_values, .fini = reset)
{
    cr_assert_eq(translate(argmax_bool_src, "*fp32:16, *i32:16, 64", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("t.py:8  reduce, 1280 bytes at 0");
    EXPECT_OUT("int32_t *partial_i = reinterpret_cast<int32_t *>(smem + 256);");
}

/* ---- 7c. layouts per memory op: transposes, small anchors, recomputed masks ---- */

/* A tile read along rows and written along columns: the load and the store
 * each get a coalesced layout of their own (opposite orders), the data moves
 * once through shared memory, and the mask and index tiles are recomputed in
 * the store's layout instead of being moved. */
static const char *transpose_src =
    KERNEL_HEAD
    "def k(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rows = tl.arange(0, BM)\n"
    "    cols = tl.arange(0, BN)\n"
    "    mask = (rows[:, None] < M) & (cols[None, :] < N)\n"
    "    x = tl.load(X + rows[:, None] * N + cols[None, :], mask=mask)\n"
    "    tl.store(Y + cols[None, :] * M + rows[:, None], x, mask=mask)\n";

Test(layout_maps, transpose_one_layout_per_memory_order, .fini = reset)
{
    cr_assert_eq(translate(transpose_src, "*fp32:16, *fp32:16, i32:16, i32:16, 32, 32", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("order [1, 0]");
    EXPECT_OUT("order [0, 1]");
    /* exactly one exchange: the loaded tile; the bool mask is recomputed */
    const char *first = strstr(out_text(), "convert_layout, ");
    cr_assert(first, "no conversion in:\n%s", out_text());
    cr_expect(!strstr(first + 1, "convert_layout, "), "more than one conversion:\n%s", out_text());
    EXPECT_NOT_OUT("bool *buf");
    EXPECT_OUT("bool mask_2[");
}

Test(layout_maps, transpose_above_48k_uses_dynamic_smem, .fini = reset)
{
    cr_assert_eq(translate(transpose_src, "*fp32:16, *fp32:16, i32:16, i32:16, 128, 128", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("extern __shared__ __align__(16) unsigned char smem[];");
    EXPECT_OUT("(dynamic; the launcher raises the limit)");
    EXPECT_OUT("cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, ");
}

/* A [4, 1] result stored with keep_dims has fewer elements than threads: its
 * store is no layout anchor, so the reduction's own (slice) layout is stored
 * and no shared-memory conversion appears after the reduction. */
Test(layout_maps, small_store_is_not_an_anchor, .fini = reset)
{
    static const char *s =
        KERNEL_HEAD
        "def k(X, O, BM: tl.constexpr, BN: tl.constexpr):\n"
        "    rows = tl.arange(0, BM)\n"
        "    cols = tl.arange(0, BN)\n"
        "    x = tl.load(X + rows[:, None] * BN + cols[None, :])\n"
        "    lo = tl.min(x, axis=1, keep_dims=True)\n"
        "    tl.store(O + rows[:, None], lo)\n";
    cr_assert_eq(translate(s, "*fp32:16, *fp32:16, 4, 256", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_NOT_OUT("convert_layout");
    EXPECT_NOT_OUT("through shared memory");
}

/* cols < N with N a multiple of 16 is constant over each thread's run of 4
 * fp32 elements: computed once per run (one predicate per vector). */
Test(layout_maps, mask_computed_once_per_run, .fini = reset)
{
    static const char *s =
        KERNEL_HEAD
        "def k(X, Y, N, B: tl.constexpr):\n"
        "    offs = tl.arange(0, B)\n"
        "    mask = offs < N\n"
        "    tl.store(Y + offs, tl.load(X + offs, mask=mask) + 1, mask=mask)\n";
    cr_assert_eq(translate(s, "*fp32:16, *fp32:16, i32:16, 1024", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_OUT("the same value in each run of 4 registers (constancy 16 along dim 0): computed once per run");
    EXPECT_OUT("const bool same = offs[e] < N;");
    reset();
    /* without the divisibility there is nothing to share */
    cr_assert_eq(translate(s, "*fp32:16, *fp32:16, i32, 1024", EMIT_CUDA), 0, "%s", log_text());
    EXPECT_NOT_OUT("computed once per run");
}

/* ---- chained dots (attention) --------------------------------------------------- */

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

/* Both dots put every warp on M; the row max stays in the warp (no shared
 * partials); p reaches the second dot in registers; q is written to shared
 * memory once, before the loop, and read there in it (test_dot_reload.c); the
 * second dot accumulates into acc itself (no zeroed temporary). */
Test(layout_maps, chained_dots_in_registers, .fini = reset)
{
    cr_assert_eq(translate(attn_src, "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32", EMIT_CUDA), 0, "%s",
                 log_text());
    EXPECT_OUT("mma.sync accumulator (16x8 tiles, lane = 4*row + column pair), warpsPerCTA [4, 1] (M, N)");
    EXPECT_NOT_OUT("warpsPerCTA [2, 2] (M, N)");
    EXPECT_NOT_OUT("partial maxs per result");
    EXPECT_OUT("in registers: each thread already holds the elements of its fragments");
    EXPECT_OUT("tilec::pack2_f16(");  // p.to(tl.float16): one packed cvt per pair
    const char *q_stage = strstr(out_text(), "// q (L");
    const char *loop = strstr(out_text(), "for (int32_t n = 0;");
    cr_assert(q_stage && loop, "%s", out_text());
    cr_expect_lt(q_stage, loop, "q's operand staging should come before the loop:\n%s", out_text());
    EXPECT_OUT("tilec::mma_m16n8k16_f16(&acc[");
}

/* test_dot3d.c — the 3-D (batched) tl.dot layouts (layout_map.c, dot.c): the
 * batch in the top register bits of the mma accumulator and of both operand
 * fragments, checked element by element against the PTX ISA's fragment tables
 * in the register order the emitter uses (every element owned, none twice),
 * and ldmatrix reading the staged batches (one 2-D tile after another) into
 * exactly the fragments the operand layouts describe. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

TestSuite(dot3d);

/* coordinate along dim of register r of thread (lane, warp), from the bits */
static int map_coord(const LayoutMap *m, int r, int lane, int warp, int dim)
{
    int c[TIR_MAX_RANK];
    lmap_coords(m, r, lane, warp, c);
    return c[dim];
}

/* A batched dot [B, M, K] @ [B, K, N] on wm x wn warps (tilec keeps Triton's
 * 2-D warp placement per batch; the batch is in registers). */
typedef struct Case3 {
    DType dtype;
    int B, M, N, K, wm, wn;
} Case3;

static const Case3 cases[] = {
    {DT_FP16, 2, 64, 64, 32, 2, 2}, {DT_FP16, 4, 16, 64, 16, 1, 4}, {DT_BF16, 2, 64, 64, 32, 2, 2},
    {DT_FP32, 2, 64, 64, 16, 2, 2}, {DT_FP32, 2, 32, 32, 8, 2, 2},  {DT_I8, 2, 64, 64, 64, 2, 2},
    {DT_I8, 8, 32, 16, 32, 2, 2},   {DT_FP16, 2, 32, 16, 16, 2, 1},
};

static void case_str(char *buf, size_t n, const Case3 *c)
{
    snprintf(buf, n, "%s %dx%dx%dx%d, warps [1, %d, %d]", dtype_name(c->dtype), c->B, c->M, c->N, c->K, c->wm, c->wn);
}

typedef struct Layouts3 {
    Layout mma, a, b;
} Layouts3;

static void layouts3(Layouts3 *l, const Case3 *c)
{
    memset(l, 0, sizeof *l);
    l->mma.kind = LAYOUT_MMA;
    l->mma.rank = 3;
    l->mma.wpc[0] = 1, l->mma.wpc[1] = c->wm, l->mma.wpc[2] = c->wn;
    for (int k = 0; k < 2; k++) {
        Layout *o = k ? &l->b : &l->a;
        o->kind = LAYOUT_DOTOP;
        o->rank = 3;
        o->op_idx = k;
        o->kwidth = dot_kwidth(c->dtype);
        o->parent = &l->mma;
    }
}

static int mma_k(DType d) { return d == DT_FP32 ? 8 : d == DT_I8 ? 32 : 16; }

/* The PTX fragment tables (see test_dot.c): element p of a lane's A, B, C fragment. */
static void ptx_a(DType d, int lane, int p, int *m, int *k)
{
    int g = lane >> 2, t = lane & 3;
    if (d == DT_FP32)
        *m = g + 8 * (p & 1), *k = t + 4 * (p >= 2);
    else if (d == DT_I8)
        *m = g + 8 * (p >> 2 & 1), *k = 4 * t + (p & 3) + 16 * (p >= 8);
    else
        *m = g + 8 * (p >> 1 & 1), *k = 2 * t + (p & 1) + 8 * (p >= 4);
}

static void ptx_b(DType d, int lane, int p, int *k, int *n)
{
    int t = lane & 3;
    *n = lane >> 2;
    *k = d == DT_FP32 ? t + 4 * p : d == DT_I8 ? 4 * t + (p & 3) + 16 * (p >= 4) : 2 * t + (p & 1) + 8 * (p >= 2);
}

/* The accumulator: register 4 * (ni + nn * mi) + 4 * nm * nn * bi + c holds
 * c of tile (mi, ni) of batch bi, as the emitter's mma loop indexes it; every
 * element of every batch has exactly one owner. */
Test(dot3d, accumulator_batches_follow_the_ptx_table)
{
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const Case3 *c = &cases[i];
        char what[96];
        case_str(what, sizeof what, c);
        Layouts3 l;
        layouts3(&l, c);
        LayoutMap m;
        layout_map(&l.mma, 3, (int[]){c->B, c->M, c->N}, &m);
        int nm = c->M / (16 * c->wm), nn = c->N / (8 * c->wn), warps = c->wm * c->wn;
        cr_assert_eq(1 << m.nreg, 4 * nm * nn * c->B, "%s: %d registers", what, 1 << m.nreg);
        cr_assert_eq(1 << m.nwarp, warps, "%s", what);
        unsigned char *owners = calloc((size_t)c->B * c->M * c->N, 1);
        for (int w = 0; w < warps; w++)
            for (int lane = 0; lane < 32; lane++)
                for (int bi = 0; bi < c->B; bi++)
                    for (int mi = 0; mi < nm; mi++)
                        for (int ni = 0; ni < nn; ni++)
                            for (int k = 0; k < 4; k++) {
                                int r = 4 * (ni + nn * mi) + 4 * nm * nn * bi + k;
                                int row = (lane >> 2) + 8 * (k >> 1) + 16 * (w / c->wn + c->wm * mi);
                                int col = 2 * (lane & 3) + (k & 1) + 8 * (w % c->wn + c->wn * ni);
                                int gb = map_coord(&m, r, lane, w, 0), gm = map_coord(&m, r, lane, w, 1),
                                    gn = map_coord(&m, r, lane, w, 2);
                                if (gb != bi || gm != row || gn != col)
                                    cr_assert_fail("%s: warp %d lane %d c%d of tile (%d, %d, %d): (%d, %d, %d), "
                                                   "PTX says (%d, %d, %d)",
                                                   what, w, lane, k, bi, mi, ni, gb, gm, gn, bi, row, col);
                                owners[((size_t)bi * c->M + row) * c->N + col]++;
                            }
        for (int e = 0; e < c->B * c->M * c->N; e++)
            if (owners[e] != 1)
                cr_assert_fail("%s: element %d has %d owners", what, e, owners[e]);
        free(owners);
    }
}

/* A [B, M, K]: words 4 * (ks + nk * mi) + 4 * nk * nm * bi; B [B, K, N]:
 * words 2 * (ni & 1) + 4 * (ks + nk * (ni >> 1)) + 2 * nk * nn * bi (or
 * 2 * ks + 2 * nk * bi with one N tile).  Each element is held by the warps
 * along the other operand's dimension, and by no one else. */
Test(dot3d, operand_batches_follow_the_ptx_table)
{
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const Case3 *c = &cases[i];
        char what[96];
        case_str(what, sizeof what, c);
        Layouts3 l;
        layouts3(&l, c);
        int kw = dot_kwidth(c->dtype), ik = mma_k(c->dtype), warps = c->wm * c->wn;
        int nm = c->M / (16 * c->wm), nn = c->N / (8 * c->wn), nk = c->K / ik;
        for (int op = 0; op < 2; op++) {
            LayoutMap m;
            int rows = op ? c->K : c->M, cols = op ? c->N : c->K;
            layout_map(op ? &l.b : &l.a, 3, (int[]){c->B, rows, cols}, &m);
            int words = op ? 2 * nk * nn : 4 * nk * nm;
            cr_assert_eq(1 << m.nreg, kw * words * c->B, "%s %c: %d registers", what, op ? 'B' : 'A', 1 << m.nreg);
            unsigned char *owners = calloc((size_t)c->B * rows * cols, 1);
            for (int w = 0; w < warps; w++)
                for (int lane = 0; lane < 32; lane++)
                    for (int bi = 0; bi < c->B; bi++)
                        for (int t = 0; t < (op ? nn : nm); t++)
                            for (int ks = 0; ks < nk; ks++)
                                for (int p = 0; p < (op ? 2 : 4) * kw; p++) {
                                    int word, row, col;
                                    if (op) {
                                        word = nn >= 2 ? 2 * (t & 1) + 4 * (ks + nk * (t >> 1)) : 2 * ks;
                                        ptx_b(c->dtype, lane, p, &row, &col);
                                        row += ik * ks;
                                        col += 8 * (w % c->wn + c->wn * t);
                                    } else {
                                        word = 4 * (ks + nk * t);
                                        ptx_a(c->dtype, lane, p, &row, &col);
                                        row += 16 * (w / c->wn + c->wm * t);
                                        col += ik * ks;
                                    }
                                    int r = (word + words * bi + p / kw) * kw + p % kw;
                                    int gb = map_coord(&m, r, lane, w, 0), g1 = map_coord(&m, r, lane, w, 1),
                                        g2 = map_coord(&m, r, lane, w, 2);
                                    if (gb != bi || g1 != row || g2 != col)
                                        cr_assert_fail("%s %c: warp %d lane %d element %d of batch %d tile %d step %d: "
                                                       "(%d, %d, %d), PTX says (%d, %d, %d)",
                                                       what, op ? 'B' : 'A', w, lane, p, bi, t, ks, gb, g1, g2, bi, row,
                                                       col);
                                    owners[((size_t)bi * rows + row) * cols + col]++;
                                }
            int want = op ? c->wm : c->wn;
            for (int e = 0; e < c->B * rows * cols; e++)
                if (owners[e] != want)
                    cr_assert_fail("%s %c: element %d held by %d threads, want %d", what, op ? 'B' : 'A', e, owners[e],
                                   want);
            free(owners);
        }
    }
}

/* The staging of a 3-D operand: the batches' tiles one after another, and
 * ldmatrix (groups never spanning two batches) filling every fragment word
 * with the element the operand layout gives it. */
Test(dot3d, ldmatrix_reads_every_batch_as_its_layout_says)
{
    Arena a = {0};
    int checked = 0;
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const Case3 *c = &cases[i];
        Layouts3 l;
        layouts3(&l, c);
        int kw = dot_kwidth(c->dtype), eb = dtype_bits(c->dtype) / 8, warps = c->wm * c->wn;
        for (int op = 0; op < 2; op++)
            for (int k_contig = 1; k_contig >= 0; k_contig--) {
                int shape[3] = {c->B, op ? c->K : c->M, op ? c->N : c->K};
                int kdim = op ? 0 : 1, contig = k_contig ? kdim : 1 - kdim;
                Layout src = {0};
                src.kind = LAYOUT_BLOCKED;
                src.rank = 3;
                src.order[0] = 1 + contig, src.order[1] = 2 - contig, src.order[2] = 0;
                Value v = {0};
                v.type = type_tensor(type_scalar(c->dtype), 3, shape);
                v.layout = &src;
                const Layout *o = op ? &l.b : &l.a;
                DotStage *s = dot_stage_for(&a, NULL, &v, o, 1, false);
                char what[128];
                case_str(what, sizeof what, c);
                snprintf(what + strlen(what), sizeof what - strlen(what), ", %c with %s contiguous", op ? 'B' : 'A',
                         k_contig ? "K" : op ? "N" : "M");
                cr_expect(s->batch == c->B && s->rows == shape[2 - contig] && s->cols == shape[1 + contig],
                          "%s: %d tiles of %dx%d", what, s->batch, s->rows, s->cols);
                cr_expect_eq(dot_stage_slot_elems(s) >= c->B * s->rows * s->cols, true, "%s: slot size", what);
                if (!s->ldmatrix)
                    continue;
                LayoutMap m;
                layout_map(o, 3, shape, &m);
                DotLdmatrix ld;
                dot_ldmatrix(s, &m, kw, &ld);
                int words = (1 << m.nreg) / kw, per_row = 16 / eb;
                cr_assert_eq(ld.group << ld.nq, words, "%s", what);
                cr_assert(ld.group <= words / c->B, "%s: an ldmatrix.x%d spans two batches", what, ld.group);
                for (int w = 0; w < warps; w++)
                    for (int q = 0; q < 1 << ld.nq; q++) {
                        int row[32], col[32];
                        for (int ln = 0; ln < 8 * ld.group; ln++) {
                            cr_assert(dot_ldmatrix_addr(&ld, ln, w, q, &row[ln], &col[ln]));
                            cr_assert(row[ln] >= 0 && row[ln] < c->B * s->rows && col[ln] % per_row == 0 &&
                                          col[ln] + per_row <= s->cols,
                                      "%s: lane %d reads (%d, %d)", what, ln, row[ln], col[ln]);
                        }
                        for (int t = 0; t < 32; t++)
                            for (int j = 0; j < ld.group; j++)
                                for (int e = 0; e < kw; e++) {
                                    int src_lane = ld.trans ? 8 * j + 2 * (t % 4) + e : 8 * j + t / 4;
                                    int r = row[src_lane];
                                    int cc = ld.trans ? col[src_lane] + t / 4 : col[src_lane] + kw * (t % 4) + e;
                                    int oc[3] = {r / s->rows, 0, 0};
                                    oc[1 + s->contig_dim] = cc;
                                    oc[2 - s->contig_dim] = r % s->rows;
                                    int reg = (ld.group * q + j) * kw + e;
                                    for (int d = 0; d < 3; d++)
                                        if (oc[d] != map_coord(&m, reg, t, w, d))
                                            cr_assert_fail("%s: warp %d lane %d word %d element %d receives "
                                                           "(%d, %d, %d), its layout says (%d, %d, %d)",
                                                           what, w, t, ld.group * q + j, e, oc[0], oc[1], oc[2],
                                                           map_coord(&m, reg, t, w, 0), map_coord(&m, reg, t, w, 1),
                                                           map_coord(&m, reg, t, w, 2));
                                }
                    }
                checked++;
            }
    }
    cr_expect_eq(checked, 4 * 4 + 4 * 2, "4 cases of 16-bit operands in 4 ways, 4 of 8- or 32-bit ones in 2");
    arena_free(&a);
}

/* A reduction of a batched accumulator along M keeps the batch: the slice's
 * registers are the batch's and N's, each element held by the warps and
 * lanes along M only. */
Test(dot3d, slice_of_the_batched_accumulator)
{
    Case3 c = {DT_FP16, 2, 64, 64, 32, 2, 2};
    Layouts3 l;
    layouts3(&l, &c);
    Layout sl = {0};
    sl.kind = LAYOUT_SLICE;
    sl.rank = 2;
    sl.slice_dim = 1;
    sl.parent = &l.mma;
    LayoutMap m;
    layout_map(&sl, 2, (int[]){2, 64}, &m);
    unsigned char owners[2 * 64] = {0};
    for (int w = 0; w < 4; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int r = 0; r < 1 << m.nreg; r++)
                owners[map_coord(&m, r, lane, w, 0) * 64 + map_coord(&m, r, lane, w, 1)]++;
    for (int e = 0; e < 2 * 64; e++)
        cr_assert_eq(owners[e], 8 * 2, "element %d: %d owners, want the 8 lanes and 2 warps along M", e, owners[e]);
    cr_assert_eq(m.reg[m.nreg - 1].dim, 0, "the batch stays in the top register bit");
}

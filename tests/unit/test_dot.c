/* test_dot.c — tl.dot on the tensor cores (src/tileir/dot.c and the mma maps of
 * layout.c): the fragment maps against the PTX ISA's mma.sync fragment tables,
 * the ldmatrix addressing (dot_ldmatrix) simulated against those maps and
 * evaluated in the CUDA the emitter prints, Triton's swizzle parameters for
 * every operand, and the bank conflicts of every access to the staging buffers
 * of the matmul configurations that the examples, the goldens and the bench use. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* No .timeout: every loop here is bounded, and with a timeout of 60 s or more
 * on this suite criterion 2.4.1's runner leaks 48 bytes at the end of a
 * --jobs 2 run, which fails make asan-check. */
TestSuite(dot);

/* ---- helpers ------------------------------------------------------------------ */

/* coordinate along dim of register r of thread (lane, warp), from the bits */
static int map_coord(const LayoutMap *m, int r, int lane, int warp, int dim)
{
    int c = 0;
    const LBit *groups[3] = {m->reg, m->lane, m->warp};
    int counts[3] = {m->nreg, m->nlane, m->nwarp}, index[3] = {r, lane, warp};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < counts[g]; i++)
            if ((index[g] >> i & 1) && groups[g][i].dim == dim)
                c += 1 << groups[g][i].bit;
    return c;
}

static int elem_bytes(DType d) { return dtype_bits(d) / 8; }

/* The layouts tilec gives a dot whose warps are placed wm x wn. */
typedef struct DotLayouts {
    Layout mma, a, b;
} DotLayouts;

static void dot_layouts(DotLayouts *l, DType d, int wm, int wn)
{
    memset(l, 0, sizeof *l);
    l->mma.kind = LAYOUT_MMA;
    l->mma.rank = 2;
    l->mma.wpc[0] = wm, l->mma.wpc[1] = wn;
    l->mma.order[0] = 1, l->mma.order[1] = 0;
    for (int k = 0; k < 2; k++) {
        Layout *o = k ? &l->b : &l->a;
        o->kind = LAYOUT_DOTOP;
        o->rank = 2;
        o->op_idx = k;
        o->kwidth = dot_kwidth(d);
        o->parent = &l->mma;
    }
}

/* ---- translations of examples/matmul.py ------------------------------------------------ */

static char matmul_py[1 << 16];
static Ctx tctx;
static Source tsrc;
static StrBuf tout;

static void translation_free(void)
{
    arena_free(&tctx.arena);
    sb_free(&tctx.log);
    sb_free(&tout);
    memset(&tctx, 0, sizeof tctx);
}

static void load_matmul(void)
{
    FILE *f = fopen("examples/matmul.py", "rb");
    cr_assert_not_null(f, "run from the repository root");
    size_t n = fread(matmul_py, 1, sizeof matmul_py - 1, f);
    fclose(f);
    matmul_py[n] = 0;
}

/* One translation: a kernel of examples/matmul.py, its signature, warps and
 * stages (0: the kernel's default or config), the autotune config. */
typedef struct Config {
    const char *kernel, *sig;
    int warps, stages, config;
} Config;

/* The configuration as tilec's flags. */
static void config_str(char *buf, size_t n, const Config *c)
{
    int k = snprintf(buf, n, "-k %s -s \"%s\"", c->kernel, c->sig);
    if (c->warps && k < (int)n)
        k += snprintf(buf + k, n - k, " -w %d", c->warps);
    if (c->stages && k < (int)n)
        k += snprintf(buf + k, n - k, " --num-stages %d", c->stages);
    if (c->config && k < (int)n)
        snprintf(buf + k, n - k, " --config %d", c->config);
}

/* The kernel as tilec translates it for sm_80 (its CUDA in tout), or NULL
 * when tilec rejects the configuration. */
static TirFunc *translate(const Config *c)
{
    translation_free();
    tsrc = (Source){"examples/matmul.py", matmul_py, strlen(matmul_py)};
    tctx.src = &tsrc;
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&tctx.arena, c->sig, &opt.lower, &err), "bad signature %s: %s", c->sig, err);
    opt.lower.kernel = c->kernel;
    opt.lower.num_warps = c->warps;
    opt.lower.num_stages = c->stages;
    opt.lower.config_index = c->config;
    opt.lower.arch = 80;
    opt.emit = EMIT_CUDA;
    TirFunc *f = NULL;
    opt.result = &f;
    return tilec_translate(&tctx, &opt, &tout) ? NULL : f;
}

typedef Vec(Op *) OpList;

/* Every op of b (nested regions too) for which keep() holds, in program order. */
static void collect_ops(Block *b, bool (*keep)(const Op *), OpList *out)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        if (keep(op))
            vec_push(&tctx.arena, out, op);
        for (int r = 0; r < op->nregions; r++)
            collect_ops(op->regions[r], keep, out);
    }
}

static bool is_dot(const Op *op) { return op->kind == OP_DOT; }
static bool is_async_copy(const Op *op) { return op->kind == OP_ASYNC_COPY; }

/* ---- 1. mma.sync fragments --------------------------------------------------------------
 *
 * The PTX ISA's tables ("Matrix Fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"):
 * with g = lane / 4 and t = lane % 4, element p of a fragment (a0, a1, .. in the
 * ISA's numbering) is element p % kwidth, from the low bits up, of the 32-bit
 * register p / kwidth. */

/* A (16 x K of one instruction): element p of lane at (m, k). */
static void ptx_a(DType d, int lane, int p, int *m, int *k)
{
    int g = lane >> 2, t = lane & 3;
    switch (d) {
    case DT_FP32: /* tf32 m16n8k8: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4) */
        *m = g + 8 * (p & 1);
        *k = t + 4 * (p >= 2);
        break;
    case DT_I8: /* s8 m16n8k32: a0..a3 (g, 4t..4t+3), a4..a7 (g+8, ..), a8..a15 the same at k + 16 */
        *m = g + 8 * (p >> 2 & 1);
        *k = 4 * t + (p & 3) + 16 * (p >= 8);
        break;
    default: /* f16 / bf16 m16n8k16: a0,a1 (g, 2t..2t+1), a2,a3 (g+8, ..), a4..a7 the same at k + 8 */
        *m = g + 8 * (p >> 1 & 1);
        *k = 2 * t + (p & 1) + 8 * (p >= 4);
    }
}

/* B (K x 8): element p of lane at (k, n). */
static void ptx_b(DType d, int lane, int p, int *k, int *n)
{
    int g = lane >> 2, t = lane & 3;
    *n = g;
    switch (d) {
    case DT_FP32: *k = t + 4 * p; break;                     /* b0 (t, g), b1 (t+4, g) */
    case DT_I8: *k = 4 * t + (p & 3) + 16 * (p >= 4); break; /* b0..b3 (4t.., g), b4..b7 at k + 16 */
    default: *k = 2 * t + (p & 1) + 8 * (p >= 2);            /* b0,b1 (2t.., g), b2,b3 at k + 8 */
    }
}

/* The accumulator (16 x 8), f32 and s32 alike: c0,c1 (g, 2t..2t+1), c2,c3 (g+8, ..). */
static void ptx_c(int lane, int c, int *m, int *n)
{
    *m = (lane >> 2) + 8 * (c >> 1);
    *n = 2 * (lane & 3) + (c & 1);
}

/* K of one mma.sync: m16n8k16 (fp16, bf16), m16n8k8 (tf32), m16n8k32 (int8). */
static int mma_k(DType d) { return d == DT_FP32 ? 8 : d == DT_I8 ? 32 : 16; }

/* A dot M x N x K on `warps` warps, and where Triton's getMmaV2WarpsPerCTA puts
 * them (wm along M, wn along N): warps go where the 16x8 tiles are more
 * numerous, ties to M (triton-internals §6.2). */
typedef struct DotCase {
    DType dtype;
    int M, N, K, warps, wm, wn;
} DotCase;

static const DotCase dot_cases[] = {
    {DT_FP16, 64, 64, 32, 4, 2, 2},    {DT_FP16, 128, 128, 32, 4, 2, 2}, {DT_FP16, 128, 128, 64, 8, 2, 4},
    {DT_FP16, 128, 256, 64, 8, 2, 4},  {DT_FP16, 64, 128, 32, 4, 1, 4},  {DT_FP16, 16, 64, 16, 4, 1, 4},
    {DT_FP16, 256, 128, 32, 8, 4, 2},  {DT_BF16, 128, 64, 32, 4, 2, 2},  {DT_BF16, 64, 64, 16, 4, 2, 2},
    {DT_FP32, 64, 64, 16, 4, 2, 2},    {DT_FP32, 128, 128, 32, 8, 2, 4}, {DT_FP32, 32, 64, 8, 2, 1, 2},
    {DT_I8, 64, 64, 64, 4, 2, 2},      {DT_I8, 128, 128, 64, 4, 2, 2},   {DT_I8, 128, 256, 128, 8, 2, 4},
    {DT_I8, 64, 64, 32, 4, 2, 2},
};

static void case_str(char *buf, size_t n, const DotCase *c)
{
    snprintf(buf, n, "%s %dx%dx%d, %d warps [%d, %d]", dtype_name(c->dtype), c->M, c->N, c->K, c->warps, c->wm, c->wn);
}

/* The accumulator: warp w is (w / wn, w % wn) (N fastest); its 16x8 tiles
 * (mi, ni) sit at rows 16 * (warp_m + wm * mi), columns 8 * (warp_n + wn * ni),
 * and the emitter keeps tile (mi, ni)'s c0..c3 in registers 4 * (ni + nn * mi) + c.
 * Every element has exactly one owner. */
Test(dot, accumulator_fragments_follow_the_ptx_table)
{
    for (size_t i = 0; i < ARRAY_LEN(dot_cases); i++) {
        const DotCase *c = &dot_cases[i];
        char what[96];
        case_str(what, sizeof what, c);
        DotLayouts l;
        dot_layouts(&l, c->dtype, c->wm, c->wn);
        LayoutMap m;
        layout_map(&l.mma, 2, (int[]){c->M, c->N}, &m);
        int nm = c->M / (16 * c->wm), nn = c->N / (8 * c->wn);
        cr_assert_eq(1 << m.nreg, 4 * nm * nn, "%s: %d registers", what, 1 << m.nreg);
        cr_assert_eq(m.nlane, 5);
        cr_assert_eq(1 << m.nwarp, c->warps, "%s", what);
        unsigned char *owners = calloc((size_t)c->M * c->N, 1);
        for (int w = 0; w < c->warps; w++)
            for (int lane = 0; lane < 32; lane++)
                for (int mi = 0; mi < nm; mi++)
                    for (int ni = 0; ni < nn; ni++)
                        for (int k = 0; k < 4; k++) {
                            int r = 4 * (ni + nn * mi) + k, row, col;
                            ptx_c(lane, k, &row, &col);
                            row += 16 * (w / c->wn + c->wm * mi);
                            col += 8 * (w % c->wn + c->wn * ni);
                            int gm = map_coord(&m, r, lane, w, 0), gn = map_coord(&m, r, lane, w, 1);
                            if (gm != row || gn != col)
                                cr_assert_fail("%s: warp %d lane %d c%d of tile (%d, %d): (%d, %d), PTX says (%d, %d)",
                                               what, w, lane, k, mi, ni, gm, gn, row, col);
                            owners[row * c->N + col]++;
                        }
        for (int e = 0; e < c->M * c->N; e++)
            if (owners[e] != 1)
                cr_assert_fail("%s: element (%d, %d) has %d owners", what, e / c->N, e % c->N, owners[e]);
        free(owners);
    }
}

/* A [M, K]: warp w's 16-row tiles as the accumulator's; tile mi at K step ks
 * (mma_k(dtype) wide) in fragment words 4 * (ks + nk * mi) .. + 3, element p
 * in word p / kwidth.  The wn warps of one warp row hold the same fragments. */
Test(dot, a_operand_fragments_follow_the_ptx_table)
{
    for (size_t i = 0; i < ARRAY_LEN(dot_cases); i++) {
        const DotCase *c = &dot_cases[i];
        char what[96];
        case_str(what, sizeof what, c);
        DotLayouts l;
        dot_layouts(&l, c->dtype, c->wm, c->wn);
        int kw = l.a.kwidth, ik = mma_k(c->dtype);
        cr_assert_eq(kw, 4 / elem_bytes(c->dtype), "%s: kwidth %d (elements per 32-bit register)", what, kw);
        LayoutMap m;
        layout_map(&l.a, 2, (int[]){c->M, c->K}, &m);
        int nm = c->M / (16 * c->wm), nk = c->K / ik;
        cr_assert_eq(1 << m.nreg, 4 * kw * nm * nk, "%s: %d registers", what, 1 << m.nreg);
        cr_assert_eq(1 << m.nwarp, c->warps, "%s", what);
        unsigned char *owners = calloc((size_t)c->M * c->K, 1);
        for (int w = 0; w < c->warps; w++)
            for (int lane = 0; lane < 32; lane++)
                for (int mi = 0; mi < nm; mi++)
                    for (int ks = 0; ks < nk; ks++)
                        for (int p = 0; p < 4 * kw; p++) {
                            int r = (4 * (ks + nk * mi) + p / kw) * kw + p % kw, row, col;
                            ptx_a(c->dtype, lane, p, &row, &col);
                            row += 16 * (w / c->wn + c->wm * mi);
                            col += ik * ks;
                            int gm = map_coord(&m, r, lane, w, 0), gk = map_coord(&m, r, lane, w, 1);
                            if (gm != row || gk != col)
                                cr_assert_fail("%s: A warp %d lane %d a%d of tile %d, K step %d: (%d, %d), "
                                               "PTX says (%d, %d)",
                                               what, w, lane, p, mi, ks, gm, gk, row, col);
                            owners[row * c->K + col]++;
                        }
        for (int e = 0; e < c->M * c->K; e++)
            if (owners[e] != c->wn)
                cr_assert_fail("%s: A (%d, %d) held by %d threads, want %d (the warps of one row)", what, e / c->K,
                               e % c->K, owners[e], c->wn);
        free(owners);
    }
}

/* B [K, N]: warp w's 8-column tiles as the accumulator's; tile ni at K step
 * ks in words b + 0, b + 1 with b = 2 * (ni & 1) + 4 * (ks + nk * (ni >> 1))
 * (two N tiles share one ldmatrix.x4) or, with one N tile, b = 2 * ks.  The
 * wm warps of one warp column hold the same fragments. */
Test(dot, b_operand_fragments_follow_the_ptx_table)
{
    for (size_t i = 0; i < ARRAY_LEN(dot_cases); i++) {
        const DotCase *c = &dot_cases[i];
        char what[96];
        case_str(what, sizeof what, c);
        DotLayouts l;
        dot_layouts(&l, c->dtype, c->wm, c->wn);
        int kw = l.b.kwidth, ik = mma_k(c->dtype);
        LayoutMap m;
        layout_map(&l.b, 2, (int[]){c->K, c->N}, &m);
        int nn = c->N / (8 * c->wn), nk = c->K / ik;
        cr_assert_eq(1 << m.nreg, 2 * kw * nn * nk, "%s: %d registers", what, 1 << m.nreg);
        unsigned char *owners = calloc((size_t)c->K * c->N, 1);
        for (int w = 0; w < c->warps; w++)
            for (int lane = 0; lane < 32; lane++)
                for (int ni = 0; ni < nn; ni++)
                    for (int ks = 0; ks < nk; ks++)
                        for (int p = 0; p < 2 * kw; p++) {
                            int b = nn >= 2 ? 2 * (ni & 1) + 4 * (ks + nk * (ni >> 1)) : 2 * ks;
                            int r = (b + p / kw) * kw + p % kw, row, col;
                            ptx_b(c->dtype, lane, p, &row, &col);
                            row += ik * ks;
                            col += 8 * (w % c->wn + c->wn * ni);
                            int gk = map_coord(&m, r, lane, w, 0), gn = map_coord(&m, r, lane, w, 1);
                            if (gk != row || gn != col)
                                cr_assert_fail("%s: B warp %d lane %d b%d of tile %d, K step %d: (%d, %d), "
                                               "PTX says (%d, %d)",
                                               what, w, lane, p, ni, ks, gk, gn, row, col);
                            owners[row * c->N + col]++;
                        }
        for (int e = 0; e < c->K * c->N; e++)
            if (owners[e] != c->wm)
                cr_assert_fail("%s: B (%d, %d) held by %d threads, want %d (the warps of one column)", what, e / c->N,
                               e % c->N, owners[e], c->wm);
        free(owners);
    }
}

/* The warps tilec places for each case's matmul_kernel are Triton's, and its
 * layouts are the ones the tests above check. */
Test(dot, tilec_places_warps_as_triton, .fini = translation_free)
{
    load_matmul();
    for (size_t i = 0; i < ARRAY_LEN(dot_cases); i++) {
        const DotCase *c = &dot_cases[i];
        const char *t = c->dtype == DT_I8 ? "i8" : dtype_name(c->dtype);
        const char *acc = c->dtype == DT_I8 ? "i32" : dtype_name(c->dtype);
        char sig[256], what[96];
        snprintf(sig, sizeof sig,
                 "*%s:16, *%s:16, *%s:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, %d, %d, %d, 8", t, t,
                 acc, c->M, c->N, c->K);
        case_str(what, sizeof what, c);
        TirFunc *f = translate(&(Config){"matmul_kernel", sig, c->warps, 3, 0});
        cr_assert_not_null(f, "%s: %s", what, tctx.log.data ? tctx.log.data : "");
        OpList dots = {0};
        collect_ops(f->body, is_dot, &dots);
        cr_assert_eq(dots.len, 1);
        const Op *d = dots.data[0];
        const Layout *mma = d->results[0]->layout;
        cr_assert_eq(mma->kind, LAYOUT_MMA);
        cr_expect(mma->wpc[0] == c->wm && mma->wpc[1] == c->wn, "%s: tilec puts the warps [%d, %d]", what, mma->wpc[0],
                  mma->wpc[1]);
        for (int k = 0; k < 2; k++) {
            const Layout *o = d->args[k]->layout;
            cr_assert_eq(o->kind, LAYOUT_DOTOP, "%s operand %d", what, k);
            cr_expect(o->op_idx == k && o->kwidth == dot_kwidth(c->dtype) && layout_eq(o->parent, mma), "%s operand %d",
                      what, k);
        }
    }
}

/* ---- 2. ldmatrix ------------------------------------------------------------------------
 *
 * ldmatrix.m8n8.x{1,2,4}.b16 (PTX ISA, "Warp-level matrix load instruction:
 * ldmatrix"): lanes 8j .. 8j+7 give the addresses of the eight 16-byte rows
 * of matrix j; lane t receives in register j the 32 bits at row t / 4,
 * bytes 4 * (t % 4) .. + 3 of matrix j, and with .trans the 16-bit
 * elements (2 * (t % 4) + e, t / 4), e = 0, 1.  An 8- or 32-bit operand goes
 * through as pairs of 16 bits: four int8 or one fp32 per register. */

/* The staging of an operand of dtype d and shape `shape`, arriving in a blocked
 * layout whose fastest dimension is `contig`, for the dot operand layout o. */
static DotStage *stage_of(Arena *a, DType d, const int *shape, int contig, const Layout *o)
{
    Layout src = {0};
    src.kind = LAYOUT_BLOCKED;
    src.rank = 2;
    src.order[0] = contig, src.order[1] = 1 - contig;
    Value v = {0};
    v.type = type_tensor(type_scalar(d), 2, shape);
    v.layout = &src;
    return dot_stage_for(a, NULL, &v, o, 1, false);
}

/* The operand coordinates of the buffer's (row, col). */
static void stage_to_operand(const DotStage *s, int row, int col, int *oc)
{
    oc[s->contig_dim] = col;
    oc[1 - s->contig_dim] = row;
}

/* Runs every ldmatrix of stage s for every warp on a buffer whose every
 * element holds its own operand coordinates, and checks that each thread's
 * fragment words receive exactly the elements the map m gives them.  Each
 * lane's address must be a 16-byte row inside the buffer that the swizzle
 * keeps in one piece. */
static void expect_ldmatrix_fills_fragments(const DotStage *s, const LayoutMap *m, int kwidth, int warps,
                                            const char *what)
{
    DotLdmatrix ld;
    dot_ldmatrix(s, m, kwidth, &ld);
    int per_row = 16 / elem_bytes(s->dtype), words = (1 << m->nreg) / kwidth;
    cr_assert_eq(ld.group << ld.nq, words, "%s: %d ldmatrix of %d matrices for %d words", what, 1 << ld.nq, ld.group,
                 words);
    cr_assert_eq(ld.trans, s->trans);
    cr_assert(!ld.trans || kwidth == 2, "%s: .trans moves 16-bit elements only", what);
    for (int w = 0; w < warps; w++)
        for (int q = 0; q < 1 << ld.nq; q++) {
            int row[32], col[32];
            for (int l = 0; l < 32; l++) {
                bool has = dot_ldmatrix_addr(&ld, l, w, q, &row[l], &col[l]);
                cr_assert_eq(has, l < 8 * ld.group, "%s: lane %d of ldmatrix.x%d", what, l, ld.group);
                if (!has)
                    continue;
                cr_assert(row[l] >= 0 && row[l] < s->rows && col[l] >= 0 && col[l] + per_row <= s->cols &&
                              col[l] % per_row == 0,
                          "%s: warp %d q %d lane %d reads row %d, columns %d..%d of %dx%d", what, w, q, l, row[l], col[l],
                          col[l] + per_row - 1, s->rows, s->cols);
                int at = smem_swizzle_col(s->swz, row[l], col[l]);
                for (int i = 1; i < per_row; i++)
                    cr_assert_eq(smem_swizzle_col(s->swz, row[l], col[l] + i), at + i,
                                 "%s: the swizzle splits the 16 bytes at (%d, %d)", what, row[l], col[l]);
            }
            for (int t = 0; t < 32; t++)
                for (int j = 0; j < ld.group; j++)
                    for (int e = 0; e < kwidth; e++) {
                        int src = ld.trans ? 8 * j + 2 * (t % 4) + e : 8 * j + t / 4;
                        int r = row[src], c = ld.trans ? col[src] + t / 4 : col[src] + kwidth * (t % 4) + e, oc[2];
                        stage_to_operand(s, r, c, oc);
                        int reg = (ld.group * q + j) * kwidth + e;
                        int want0 = map_coord(m, reg, t, w, 0), want1 = map_coord(m, reg, t, w, 1);
                        if (oc[0] != want0 || oc[1] != want1)
                            cr_assert_fail("%s: warp %d lane %d word %d element %d receives (%d, %d), "
                                           "its layout says (%d, %d)",
                                           what, w, t, ld.group * q + j, e, oc[0], oc[1], want0, want1);
                    }
        }
}

/* Every operand of every case, stored either way: 16-bit operands are read
 * with ldmatrix (.trans when K is not contiguous), 8- and 32-bit ones with
 * ldmatrix when K is contiguous and element by element otherwise. */
Test(dot, ldmatrix_fills_every_fragment_as_its_layout_says)
{
    Arena a = {0};
    int checked = 0;
    for (size_t i = 0; i < ARRAY_LEN(dot_cases); i++) {
        const DotCase *c = &dot_cases[i];
        DotLayouts l;
        dot_layouts(&l, c->dtype, c->wm, c->wn);
        for (int op = 0; op < 2; op++)
            for (int k_contig = 1; k_contig >= 0; k_contig--) {
                const Layout *o = op ? &l.b : &l.a;
                int shape[2] = {op ? c->K : c->M, op ? c->N : c->K};
                int kdim = op ? 0 : 1, contig = k_contig ? kdim : 1 - kdim;
                DotStage *s = stage_of(&a, c->dtype, shape, contig, o);
                char what[128];
                case_str(what, sizeof what, c);
                snprintf(what + strlen(what), sizeof what - strlen(what), ", %c with %s contiguous", op ? 'B' : 'A',
                         k_contig ? "K" : op ? "N" : "M");
                bool ldmatrix = k_contig || dtype_bits(c->dtype) == 16;
                cr_expect_eq(s->ldmatrix, ldmatrix, "%s: ldmatrix", what);
                cr_expect_eq(s->trans, ldmatrix && !k_contig, "%s: .trans", what);
                cr_expect(s->rows == shape[1 - contig] && s->cols == shape[contig], "%s: %dx%d", what, s->rows, s->cols);
                if (!s->ldmatrix)
                    continue;
                LayoutMap m;
                layout_map(o, 2, shape, &m);
                expect_ldmatrix_fills_fragments(s, &m, o->kwidth, c->warps, what);
                checked++;
            }
    }
    cr_expect_eq(checked, 9 * 4 + 7 * 2, "9 cases of 16-bit operands in 4 ways, 7 of 8- or 32-bit ones in 2");
    arena_free(&a);
}

#define BITS(...) ((const LBit[]){__VA_ARGS__}), (int)(sizeof((const LBit[]){__VA_ARGS__}) / sizeof(LBit))
#define NONE {-1, 0}
#define ROW(b) {0, b}
#define COL(b) {1, b}

static void expect_bits(const char *what, const LBit *got, int ngot, const LBit *want, int nwant)
{
    cr_expect_eq(ngot, nwant, "%s: %d bits, want %d", what, ngot, nwant);
    for (int i = 0; i < ngot && i < nwant; i++)
        cr_expect(got[i].dim == want[i].dim && (want[i].dim < 0 || got[i].bit == want[i].bit),
                  "%s bit %d: (%d,%d), want (%d,%d)", what, i, got[i].dim, got[i].bit, want[i].dim, want[i].bit);
}

/* The operands of tests/golden/matmul_fp16_pipelined (128x128x32, warps [2, 2]):
 * A [128, 32] with K contiguous, B [32, 128] with N contiguous (.trans). */
Test(dot, ldmatrix_addressing_pinned)
{
    Arena a = {0};
    DotLayouts l;
    dot_layouts(&l, DT_FP16, 2, 2);
    LayoutMap m;
    DotLdmatrix ld;
    DotStage *s = stage_of(&a, DT_FP16, (int[]){128, 32}, 1, &l.a);
    layout_map(&l.a, 2, (int[]){128, 32}, &m);
    dot_ldmatrix(s, &m, 2, &ld);
    cr_expect(ld.group == 4 && !ld.trans);
    /* lanes 8-15 the rows 8 below, 16-31 the K columns 8 on; warp bit 1 the next 16 rows;
     * ldmatrix q: bit 0 the next 16 K, bits 1-2 the warp's next 16-row tiles */
    expect_bits("A matrix", ld.mat, ld.nmat, BITS(ROW(3), COL(3)));
    expect_bits("A warp", ld.warp, ld.nwarp, BITS(NONE, ROW(4)));
    expect_bits("A q", ld.q, ld.nq, BITS(COL(4), ROW(5), ROW(6)));
    int row, col;
    cr_expect(dot_ldmatrix_addr(&ld, 13, 3, 5, &row, &col));
    cr_expect(row == 64 + 16 + 8 + 5 && col == 16, "lane 13 of warp 3, ldmatrix 5: (%d, %d)", row, col);

    s = stage_of(&a, DT_FP16, (int[]){32, 128}, 1, &l.b);
    layout_map(&l.b, 2, (int[]){32, 128}, &m);
    dot_ldmatrix(s, &m, 2, &ld);
    cr_expect(ld.group == 4 && ld.trans);
    /* the buffer's rows are K: lanes 8-15 the next 8 K, 16-31 the next 16 columns of N;
     * warp bit 0 the next 8 columns; q: bit 0 the next 16 K, bits 1-2 32 columns each */
    expect_bits("B matrix", ld.mat, ld.nmat, BITS(ROW(3), COL(4)));
    expect_bits("B warp", ld.warp, ld.nwarp, BITS(COL(3), NONE));
    expect_bits("B q", ld.q, ld.nq, BITS(ROW(4), COL(5), COL(6)));

    /* one 8-column tile of B per warp and one K step: 2 words, ldmatrix.x2 */
    dot_layouts(&l, DT_FP16, 1, 4);
    s = stage_of(&a, DT_FP16, (int[]){16, 32}, 1, &l.b);
    layout_map(&l.b, 2, (int[]){16, 32}, &m);
    dot_ldmatrix(s, &m, 2, &ld);
    cr_expect(ld.group == 2 && ld.nq == 0 && ld.trans, "group %d, %d q bits", ld.group, ld.nq);
    cr_expect(!dot_ldmatrix_addr(&ld, 16, 0, 0, &row, &col), "lanes 16-31 give no address to an .x2");
    arena_free(&a);
}

/* ---- the CUDA the emitter prints for the reads ---- */

/* A small evaluator for the printed index expressions, with C's precedence
 * (* above +, above << >>, above &) and named variables. */
typedef struct Eval {
    const char *p;
    const char *const *names;
    const int *values;
    int nnames;
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
        if (*E->p++ != ')')
            E->bad = true;
        return v;
    }
    if (*E->p >= '0' && *E->p <= '9') {
        long v = 0;
        while (*E->p >= '0' && *E->p <= '9')
            v = v * 10 + (*E->p++ - '0');
        return v;
    }
    size_t n = 0;
    while ((E->p[n] >= 'a' && E->p[n] <= 'z') || (E->p[n] >= '0' && E->p[n] <= '9') || E->p[n] == '_')
        n++;
    for (int i = 0; i < E->nnames; i++)
        if (strlen(E->names[i]) == n && !strncmp(E->p, E->names[i], n)) {
            E->p += n;
            return E->values[i];
        }
    E->bad = true;
    return 0;
}

static long ev_mul(Eval *E)
{
    long v = ev_primary(E);
    for (ev_ws(E); *E->p == '*'; ev_ws(E)) {
        E->p++;
        v *= ev_primary(E);
    }
    return v;
}

static long ev_add(Eval *E)
{
    long v = ev_mul(E);
    for (ev_ws(E); *E->p == '+'; ev_ws(E)) {
        E->p++;
        v += ev_mul(E);
    }
    return v;
}

static long ev_shift(Eval *E)
{
    long v = ev_add(E);
    for (ev_ws(E); !strncmp(E->p, "<<", 2) || !strncmp(E->p, ">>", 2); ev_ws(E)) {
        bool left = E->p[0] == '<';
        E->p += 2;
        long s = ev_add(E);
        v = left ? v << s : v >> s;
    }
    return v;
}

static long ev_and(Eval *E)
{
    long v = ev_shift(E);
    for (ev_ws(E); *E->p == '&' && E->p[1] != '&'; ev_ws(E)) {
        E->p++;
        v &= ev_shift(E);
    }
    return v;
}

static long eval_expr(const char *s, const char *const *names, const int *values, int n)
{
    Eval E = {s, names, values, n, false};
    long v = ev_and(&E);
    ev_ws(&E);
    cr_assert(!E.bad && !*E.p, "cannot evaluate \"%s\" (stopped at \"%s\")", s, E.p);
    return v;
}

Test(dot, evaluator_precedence)
{
    const char *names[] = {"ks", "mi"};
    int values[] = {3, 1};
    cr_expect_eq(eval_expr("1 + 2 << 3", names, values, 2), 24);
    cr_expect_eq(eval_expr("ks + 2 * mi", names, values, 2), 5);
    cr_expect_eq(eval_expr("((ks + 2 * mi) >> 1) << 5", names, values, 2), 64);
    cr_expect_eq(eval_expr("ks & 1 << 1", names, values, 2), 2);
}

/* The text between `open` (just past an opening bracket) and its closing
 * bracket `close`, into buf. */
static const char *bracketed(const char *open, char close, char *buf, size_t n)
{
    int depth = 0;
    const char *p = open;
    for (; *p && !(depth == 0 && *p == close); p++)
        depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
    cr_assert(*p, "unbalanced: %s", open);
    snprintf(buf, n, "%.*s", (int)(p - open), open);
    return p;
}

/* Splits the top-level comma-separated arguments of `args` (changed in place). */
static int split_args(char *args, char **out, int max)
{
    int n = 0, depth = 0;
    out[n++] = args;
    for (char *p = args; *p; p++) {
        depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
        if (*p == ',' && depth == 0 && n < max) {
            *p = 0;
            out[n++] = p + 2;
        }
    }
    return n;
}

/* One `const int NAME_row = R, NAME_col = C;` line of ld_setup. */
typedef struct LdSetup {
    char name[64], row[512], col[512];
} LdSetup;

static bool parse_setup(const char *line, LdSetup *s)
{
    const char *p = strstr(line, "const int ");
    const char *r = p ? strstr(p, "_row = ") : NULL;
    if (!r)
        return false;
    p += strlen("const int ");
    snprintf(s->name, sizeof s->name, "%.*s", (int)(r - p), p);
    char colkey[96];
    snprintf(colkey, sizeof colkey, ", %s_col = ", s->name);
    const char *c = strstr(r, colkey);
    if (!c)
        return false;
    r += strlen("_row = ");
    snprintf(s->row, sizeof s->row, "%.*s", (int)(c - r), r);
    c += strlen(colkey);
    const char *end = strchr(c, ';');
    snprintf(s->col, sizeof s->col, "%.*s", (int)(end - c), c);
    return true;
}

/* The stage op (a conversion to a dot operand, or a pipelined local_load) of operand op_idx. */
static const Op *stage_op(TirFunc *f, int op_idx)
{
    OpList st = {0};
    collect_ops(f->body, is_dot_stage, &st);
    for (int i = 0; i < st.len; i++)
        if (st.data[i]->stage->op_idx == op_idx)
            return st.data[i];
    return NULL;
}

/* One `tilec::ldmatrix<G, T>(&FRAG[IDX], stageN(smem, [SLOT, ]ROW, COL));`. */
typedef struct LdLine {
    int group, stage;
    bool trans;
    char idx[256], args[1024];
    const char *row, *col;  /* in args */
} LdLine;

static void parse_ldmatrix(const char *call, LdLine *ld, const char *what)
{
    char trans[8];
    cr_assert_eq(sscanf(call, "tilec::ldmatrix<%d, %7[a-z]>(&", &ld->group, trans), 2, "%s: %s", what, call);
    ld->trans = !strcmp(trans, "true");
    const char *at = bracketed(strchr(call, '[') + 1, ']', ld->idx, sizeof ld->idx);
    const char *fn = strstr(at, "stage");
    cr_assert(fn && sscanf(fn, "stage%d", &ld->stage) == 1 && ld->stage >= 0 && ld->stage < 16, "%s: %s", what, call);
    bracketed(strchr(fn, '(') + 1, ')', ld->args, sizeof ld->args);
    char *arg[4];
    int nargs = split_args(ld->args, arg, 4);
    cr_assert(nargs == 3 || nargs == 4, "%s: %s", what, call);
    ld->row = arg[nargs - 2];
    ld->col = arg[nargs - 1];
}

/* Evaluates line `ld`, which reads operand op's fragment through `setup`'s
 * addresses, for every lane, warp and value of the loop variables its
 * fragment index uses; each ldmatrix q = IDX / G it makes (and has not made
 * before: *seen) reads from the addresses dot_ldmatrix_addr gives. */
static void expect_line_addresses(const LdLine *line, const LdSetup *setup, const Op *op, int warps,
                                  unsigned long long *seen, int *groups, const char *what)
{
    LayoutMap m;
    value_map(op->results[0], &m);
    DotLdmatrix ld;
    dot_ldmatrix(op->stage, &m, op->results[0]->layout->kwidth, &ld);
    cr_expect_eq(line->group, ld.group, "%s: ldmatrix.x%d", what, line->group);
    cr_expect_eq(line->trans, ld.trans, "%s: .trans", what);
    cr_assert(ld.nq <= 6, "%s: %d ldmatrix", what, 1 << ld.nq);
    *groups = 1 << ld.nq;
    char rowname[80], colname[80];
    snprintf(rowname, sizeof rowname, "%s_row", setup->name);
    snprintf(colname, sizeof colname, "%s_col", setup->name);
    const char *names[] = {"lane", "warp", rowname, colname, "k_step", "mi", "np", "qi"};
    int values[8] = {0}, used[4], nused = 0;
    for (int k = 0; k < 4; k++)
        if (strstr(line->idx, names[4 + k]))
            used[nused++] = 4 + k;
    for (int vars = 0; vars < 1 << (4 * nused); vars++) {
        for (int k = 0; k < nused; k++)
            values[used[k]] = vars >> (4 * k) & 15;
        long word = eval_expr(line->idx, names, values, 8);
        if (word % ld.group || word / ld.group >= 1 << ld.nq || (*seen >> (word / ld.group) & 1))
            continue; /* not an ldmatrix of the fragment, or one checked already */
        int q = (int)(word / ld.group);
        *seen |= 1ull << q;
        for (int w = 0; w < warps; w++)
            for (int l = 0; l < 8 * ld.group; l++) {
                values[0] = l, values[1] = w;
                values[2] = (int)eval_expr(setup->row, names, values, 2);
                values[3] = (int)eval_expr(setup->col, names, values, 2);
                long r = eval_expr(line->row, names, values, 8), c = eval_expr(line->col, names, values, 8);
                int wr, wc;
                cr_assert(dot_ldmatrix_addr(&ld, l, w, q, &wr, &wc));
                if (r != wr || c != wc)
                    cr_assert_fail("%s: lane %d warp %d ldmatrix %d at (%s, %s) = (%ld, %ld), dot_ldmatrix_addr (%d, %d)",
                                   what, l, w, q, line->row, line->col, r, c, wr, wc);
            }
    }
}

/* Every ldmatrix line of the CUDA in tout (f's), checked by
 * expect_line_addresses; together the lines of an operand make every
 * ldmatrix of its fragment.  Returns the number of lines. */
static int expect_cuda_ldmatrix_as_dot_ldmatrix(TirFunc *f, const char *what)
{
    int op_of_stage[16];   /* stageN: its operand, 0 A, 1 B */
    for (int i = 0; i < 16; i++)
        op_of_stage[i] = -1;
    LdSetup setups[8];
    int nsetups = 0, nlines = 0, groups[2] = {0, 0};
    unsigned long long seen[2] = {0, 0};
    for (const char *p = tout.data; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char text[2048];
        snprintf(text, sizeof text, "%.*s", (int)len, p);
        p += len + (nl != NULL);
        int n;
        char operand;
        if (sscanf(text, "// stage%d: operand %c", &n, &operand) == 2 && n >= 0 && n < 16) {
            op_of_stage[n] = operand == 'B';
            continue;
        }
        if (nsetups < 8 && strstr(text, "_col = ") && parse_setup(text, &setups[nsetups])) {
            nsetups++;
            continue;
        }
        const char *call = strstr(text, "tilec::ldmatrix<");
        if (!call || strstr(text, "__device__"))
            continue;
        nlines++;
        LdLine line;
        parse_ldmatrix(call, &line, what);
        int k = op_of_stage[line.stage];
        cr_assert(k >= 0, "%s: stage%d has no description", what, line.stage);
        const LdSetup *setup = NULL;
        for (int i = 0; i < nsetups; i++) {
            size_t len_name = strlen(setups[i].name);
            if (!strncmp(line.row, setups[i].name, len_name) && !strncmp(line.row + len_name, "_row", 4))
                setup = &setups[i];
        }
        cr_assert_not_null(setup, "%s: no addresses bound for %s", what, text);
        const Op *op = stage_op(f, k);
        cr_assert_not_null(op);
        char where[2560];
        snprintf(where, sizeof where, "%s\n  %s", what, text);
        expect_line_addresses(&line, setup, op, f->num_warps, &seen[k], &groups[k], where);
    }
    for (int k = 0; k < 2; k++)
        if (groups[k])
            cr_expect_eq(seen[k], (groups[k] == 64 ? 0 : 1ull << groups[k]) - 1,
                         "%s: operand %c: the ldmatrix lines make %llx of %d", what, k ? 'B' : 'A', seen[k], groups[k]);
    return nlines;
}

/* A signature of matmul_kernel: A's (B's) element type, C's, A's and B's
 * strides, the block sizes.  ROW_MAJOR strides make an operand's second
 * dimension contiguous (A's K, B's N), COL_MAJOR ones its first (A's M, B's K). */
#define MATMUL_SIG(a, c, a_strides, b_strides, bm, bn, bk)                                                            \
    "*" a ":16, *" a ":16, *" c ":16, i32:16, i32:16, i32:16, " a_strides ", " b_strides ", i32:16, 1, " #bm ", " #bn \
    ", " #bk ", 8"
#define ROW_MAJOR "i32:16, 1"
#define COL_MAJOR "1, i32:16"

/* The reads, fused into the dot's K loop (pipelined) or not, for operands
 * stored either way, and for one or several 8-column tiles of B per warp. */
static const Config cuda_read_configs[] = {
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", ROW_MAJOR, ROW_MAJOR, 128, 128, 32), 4, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", ROW_MAJOR, ROW_MAJOR, 128, 128, 32), 4, 1, 0},
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", COL_MAJOR, COL_MAJOR, 64, 64, 32), 4, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", COL_MAJOR, COL_MAJOR, 64, 64, 32), 4, 1, 0},
    {"matmul_kernel", MATMUL_SIG("bf16", "bf16", ROW_MAJOR, ROW_MAJOR, 128, 256, 64), 8, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", ROW_MAJOR, ROW_MAJOR, 16, 32, 32), 4, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp16", "fp16", ROW_MAJOR, ROW_MAJOR, 16, 64, 16), 4, 2, 0},
    {"matmul_kernel", MATMUL_SIG("i8", "i32", ROW_MAJOR, ROW_MAJOR, 64, 64, 64), 4, 3, 0},
    {"matmul_kernel", MATMUL_SIG("i8", "i32", ROW_MAJOR, COL_MAJOR, 128, 128, 64), 4, 1, 0},
    {"matmul_kernel", MATMUL_SIG("fp32", "fp32", ROW_MAJOR, ROW_MAJOR, 128, 128, 32), 8, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp32", "fp32", ROW_MAJOR, COL_MAJOR, 64, 64, 32), 4, 3, 0},
    {"matmul_kernel", MATMUL_SIG("fp32", "fp32", ROW_MAJOR, ROW_MAJOR, 64, 64, 32) ", 'tf32x3'", 4, 3, 0},
    {"matmul_at_kernel", MATMUL_SIG("fp16", "fp16", ROW_MAJOR, ROW_MAJOR, 64, 64, 32), 4, 3, 0},
};

Test(dot, cuda_ldmatrix_addresses_are_dot_ldmatrix, .fini = translation_free)
{
    load_matmul();
    for (size_t i = 0; i < ARRAY_LEN(cuda_read_configs); i++) {
        char what[256];
        config_str(what, sizeof what, &cuda_read_configs[i]);
        TirFunc *f = translate(&cuda_read_configs[i]);
        cr_assert_not_null(f, "%s: %s", what, tctx.log.data ? tctx.log.data : "");
        cr_expect_gt(expect_cuda_ldmatrix_as_dot_ldmatrix(f, what), 0, "%s: no ldmatrix", what);
    }
}

/* ---- 3. swizzle parameters ---------------------------------------------------------------
 *
 * Triton's choice for mma.sync operands, in the form of Triton 3.1 and older
 * (triton-internals §4.2; the current builder gives the same numbers for 8-,
 * 16- and 32-bit elements), kWidth = 4 / elem_bytes:
 *   perPhase = max(128 / (cols * elem_bytes), 1)  rows shorter than 128 bytes share a phase
 *   K contiguous:         vec = 4 * kWidth (16 bytes), maxPhase = max(8 / perPhase, 1)
 *   M (N) contiguous:     vec = 8, maxPhase = max(4 * kWidth / perPhase, 1) */
static SmemSwizzle triton_swizzle(DType d, int cols, bool k_contig)
{
    int bytes = elem_bytes(d), kwidth = 4 / bytes;
    int per_phase = 128 / (cols * bytes) > 1 ? 128 / (cols * bytes) : 1;
    int vec = k_contig ? 4 * kwidth : 8, stride = k_contig ? 8 : 4 * kwidth;
    return (SmemSwizzle){vec, per_phase, stride / per_phase > 1 ? stride / per_phase : 1};
}

typedef struct SwizzleCase {
    int op_idx;
    DType dtype;
    int cols;
    bool k_contig;
    SmemSwizzle want;
} SwizzleCase;

/* The table of triton-internals §4.2, and the operands of the matmul configurations. */
static const SwizzleCase swizzle_table[] = {
    {0, DT_FP16, 32, true, {8, 2, 4}},   {0, DT_FP16, 64, true, {8, 1, 8}},   {1, DT_FP16, 64, false, {8, 1, 8}},
    {0, DT_FP32, 32, true, {4, 1, 8}},   {0, DT_I8, 64, true, {16, 2, 4}},    {0, DT_FP16, 16, true, {8, 4, 2}},
    {0, DT_FP16, 128, true, {8, 1, 8}},  {1, DT_FP16, 128, false, {8, 1, 8}}, {1, DT_FP16, 256, false, {8, 1, 8}},
    {1, DT_FP16, 32, false, {8, 2, 4}},  {1, DT_FP16, 32, true, {8, 2, 4}},   {0, DT_FP16, 64, false, {8, 1, 8}},
    {0, DT_BF16, 32, true, {8, 2, 4}},   {1, DT_BF16, 256, false, {8, 1, 8}}, {0, DT_FP32, 16, true, {4, 2, 4}},
    {0, DT_FP32, 8, true, {4, 4, 2}},    {1, DT_FP32, 128, false, {8, 1, 4}}, {1, DT_FP32, 16, false, {8, 2, 2}},
    {1, DT_FP32, 32, true, {4, 1, 8}},   {0, DT_FP32, 64, false, {8, 1, 4}},  {0, DT_I8, 32, true, {16, 4, 2}},
    {0, DT_I8, 128, true, {16, 1, 8}},   {1, DT_I8, 128, false, {8, 1, 16}},  {1, DT_I8, 64, false, {8, 2, 8}},
    {1, DT_I8, 256, false, {8, 1, 16}},  {1, DT_I8, 64, true, {16, 2, 4}},    {0, DT_I8, 64, false, {8, 2, 8}},
};

static bool swizzle_eq(SmemSwizzle a, SmemSwizzle b)
{
    return a.vec == b.vec && a.per_phase == b.per_phase && a.max_phase == b.max_phase;
}

Test(dot, swizzle_parameters_pinned)
{
    for (size_t i = 0; i < ARRAY_LEN(swizzle_table); i++) {
        const SwizzleCase *c = &swizzle_table[i];
        int kdim = c->op_idx ? 0 : 1;
        SmemSwizzle got = dot_operand_swizzle(c->op_idx, c->dtype, c->cols, c->k_contig ? kdim : 1 - kdim);
        cr_expect(swizzle_eq(got, c->want), "%c %s, rows of %d, %s contiguous: (%d, %d, %d), want (%d, %d, %d)",
                  c->op_idx ? 'B' : 'A', dtype_name(c->dtype), c->cols, c->k_contig ? "K" : "M/N", got.vec,
                  got.per_phase, got.max_phase, c->want.vec, c->want.per_phase, c->want.max_phase);
        cr_expect(swizzle_eq(triton_swizzle(c->dtype, c->cols, c->k_contig), c->want), "the rule, case %zu", i);
    }
}

/* Every dtype, operand, order and row length 8..256: the rule. */
Test(dot, swizzle_parameters_follow_triton)
{
    static const DType dtypes[] = {DT_FP16, DT_BF16, DT_FP32, DT_I8};
    for (size_t i = 0; i < ARRAY_LEN(dtypes); i++)
        for (int op = 0; op < 2; op++)
            for (int k_contig = 0; k_contig < 2; k_contig++)
                for (int cols = 8; cols <= 256; cols *= 2) {
                    int kdim = op ? 0 : 1;
                    SmemSwizzle got = dot_operand_swizzle(op, dtypes[i], cols, k_contig ? kdim : 1 - kdim);
                    SmemSwizzle want = triton_swizzle(dtypes[i], cols, k_contig);
                    cr_expect(swizzle_eq(got, want), "%c %s, rows of %d, %s contiguous: (%d, %d, %d), want (%d, %d, %d)",
                              op ? 'B' : 'A', dtype_name(dtypes[i]), cols, k_contig ? "K" : "M/N", got.vec,
                              got.per_phase, got.max_phase, want.vec, want.per_phase, want.max_phase);
                    /* the swizzled chunks of one phase cycle stay within 128 bytes */
                    cr_expect_leq(want.vec * want.max_phase * elem_bytes(dtypes[i]), 128);
                }
}

/* The staging keeps the swizzle, except where a row is narrower than one
 * chunk: then there is nothing to swizzle. */
Test(dot, stage_takes_the_swizzle)
{
    Arena a = {0};
    DotLayouts l;
    dot_layouts(&l, DT_I8, 1, 1);
    DotStage *s = stage_of(&a, DT_I8, (int[]){64, 128}, 1, &l.b);
    /* read element by element: padding (16 bytes after every 4 rows) instead of a swizzle */
    cr_expect(smem_swizzle_none(s->swz) && s->pad == 16 && s->pad_rows_log2 == 2 && !s->ldmatrix && s->rows == 64 &&
              s->cols == 128, "swizzle (%d, %d, %d), pad %d after 2^%d rows", s->swz.vec, s->swz.per_phase,
              s->swz.max_phase, s->pad, s->pad_rows_log2);
    s = stage_of(&a, DT_I8, (int[]){64, 4}, 1, &l.b);
    cr_expect(swizzle_eq(s->swz, (SmemSwizzle){1, 1, 1}), "rows of 4 bytes: (%d, %d, %d)", s->swz.vec,
              s->swz.per_phase, s->swz.max_phase);
    arena_free(&a);
}

/* A 32-bit operand read element by element (tf32 B with N contiguous) is
 * swizzled, with no padding: a padded buffer is a quarter larger, which cost
 * attorch's 32x32 tf32 linear a block per SM.  Its conflicts are counted by
 * the tests of section 4. */
Test(dot, element_read_fp32_operand_is_swizzled_without_padding)
{
    Arena a = {0};
    DotLayouts l;
    dot_layouts(&l, DT_FP32, 1, 2);
    const int shapes[][2] = {{32, 32}, {32, 64}, {16, 64}, {64, 128}};
    for (size_t i = 0; i < ARRAY_LEN(shapes); i++) {
        DotStage *s = stage_of(&a, DT_FP32, shapes[i], 1, &l.b);
        cr_expect(!s->ldmatrix && s->pad == 0 && s->swz.max_phase > 1 && s->swz.vec * 4 >= 16,
                  "%dx%d: swizzle (%d, %d, %d), pad %d", shapes[i][0], shapes[i][1], s->swz.vec, s->swz.per_phase,
                  s->swz.max_phase, s->pad);
        cr_expect_eq(dot_stage_slot_bytes(s), shapes[i][0] * shapes[i][1] * 4);
    }
    arena_free(&a);
}

/* ---- 4. bank conflicts of the staging buffers ----------------------------------------------
 *
 * Every warp-wide access to a staging buffer, as the emitted code makes it,
 * counted by the static counter (smem_count_extra) on the buffer as stored
 * (rows of `cols` elements, the stage's swizzle):
 *   writes: cp.async copies of the load's layout (emit_async_copy: as many
 *           elements as copy_vec allows, at most one swizzle chunk),
 *           or the vector stores of a conversion (emit_stage_convert: the
 *           source's run of consecutive elements along the buffer's columns,
 *           at most 16 bytes and one swizzle chunk);
 *   reads:  each ldmatrix (8 lanes and 16 bytes per matrix: one quarter-warp
 *           phase each), or one element per register for the operands read
 *           element by element. */

typedef struct Accesses {
    int *lin;         /* lin[32 * i + lane]: row-major index in one slot, -1: inactive */
    int n, elems;     /* warp-wide accesses, elements per lane */
} Accesses;

static void accesses_init(Accesses *a, int n, int elems)
{
    a->lin = malloc(sizeof(int) * 32 * (size_t)(n > 0 ? n : 1));
    a->n = 0;
    a->elems = elems;
}

static int stage_lin(const DotStage *s, const int *oc) { return oc[1 - s->contig_dim] * s->cols + oc[s->contig_dim]; }

/* Extra wavefronts of the accesses on the buffer as stored, and on the same
 * buffer without its swizzle or padding (*plain). */
static int count_extra(const DotStage *s, Accesses *a, int *plain)
{
    SmemLayout l = {elem_bytes(s->dtype), log2_int(s->cols), s->swz, log2_int(s->cols) + s->pad_rows_log2, s->pad};
    int extra = smem_count_extra(&l, a->lin, a->n, a->elems, INT_MAX);
    l.swz = (SmemSwizzle){1, 1, 1};
    l.pad = 0;
    *plain = smem_count_extra(&l, a->lin, a->n, a->elems, INT_MAX);
    free(a->lin);
    return extra;
}

/* The accesses of every thread of a map over its registers in runs of `vec`,
 * as operand coordinates (swapped when `transposed`).  A run is `vec`
 * consecutive elements of a buffer row, inside one swizzled chunk. */
static void map_accesses(const DotStage *s, const LayoutMap *m, int warps, int vec, bool transposed, Accesses *a)
{
    accesses_init(a, warps * ((1 << m->nreg) / vec), vec);
    for (int w = 0; w < warps; w++)
        for (int r = 0; r < 1 << m->nreg; r += vec) {
            for (int l = 0; l < 32; l++) {
                int lin[16];
                for (int i = 0; i < vec; i++) {
                    int c0 = map_coord(m, r + i, l, w, 0), c1 = map_coord(m, r + i, l, w, 1);
                    int oc[2] = {transposed ? c1 : c0, transposed ? c0 : c1};
                    lin[i] = stage_lin(s, oc);
                    cr_assert_eq(lin[i], lin[0] + i, "registers %d..%d of lane %d, warp %d are not a run", r,
                                 r + vec - 1, l, w);
                }
                cr_assert(vec == 1 || smem_swizzle_none(s->swz) || lin[0] % s->swz.vec + vec <= s->swz.vec,
                          "a %d-element access across swizzled chunks of %d", vec, s->swz.vec);
                a->lin[32 * a->n + l] = lin[0];
            }
            a->n++;
        }
}

/* One cp.async of an iteration's tile into a ring slot. */
static int copy_write_extra(const Op *ac, int warps, int *bytes, int *plain)
{
    const DotStage *s = ac->buf->stage;
    int v = copy_vec(ac);
    *bytes = v * elem_bytes(s->dtype);
    LayoutMap m;
    value_map(ac->args[0], &m);
    Accesses a;
    map_accesses(s, &m, warps, v, ac->async_copy.transposed, &a);
    return count_extra(s, &a, plain);
}

/* The stores of a conversion into its staging buffer. */
static int store_write_extra(const Op *cv, int warps, int *bytes, int *plain)
{
    const DotStage *s = cv->stage;
    LayoutMap m;
    value_map(cv->args[0], &m);
    int vec = 1 << lmap_lead_bits(&m, s->contig_dim);
    if (vec > 16 / elem_bytes(s->dtype))
        vec = 16 / elem_bytes(s->dtype);
    if (s->swz.max_phase > 1 && vec > s->swz.vec)
        vec = s->swz.vec;
    *bytes = vec * elem_bytes(s->dtype);
    Accesses a;
    map_accesses(s, &m, warps, vec, false, &a);
    return count_extra(s, &a, plain);
}

/* The reads of a stage into its fragments. */
static int read_extra(const Op *st, int warps, int *plain)
{
    const DotStage *s = st->stage;
    LayoutMap m;
    value_map(st->results[0], &m);
    Accesses a;
    if (!s->ldmatrix) {
        map_accesses(s, &m, warps, 1, false, &a);
        return count_extra(s, &a, plain);
    }
    DotLdmatrix ld;
    dot_ldmatrix(s, &m, st->results[0]->layout->kwidth, &ld);
    accesses_init(&a, warps << ld.nq, 16 / elem_bytes(s->dtype));
    for (int w = 0; w < warps; w++)
        for (int q = 0; q < 1 << ld.nq; q++) {
            for (int l = 0; l < 32; l++) {
                int row, col;
                a.lin[32 * a.n + l] = dot_ldmatrix_addr(&ld, l, w, q, &row, &col) ? row * s->cols + col : -1;
            }
            a.n++;
        }
    return count_extra(s, &a, plain);
}

/* The counts of one staging buffer. */
typedef struct StageCount {
    const Op *op;
    int write_extra, write_bytes, read_extra;
    int plain_write_extra, plain_read_extra; /* the same without the swizzle */
    bool pipelined;
} StageCount;

static int count_stages(TirFunc *f, StageCount *out, int max)
{
    OpList st = {0}, copies = {0};
    collect_ops(f->body, is_dot_stage, &st);
    collect_ops(f->body, is_async_copy, &copies);
    int n = 0;
    for (int i = 0; i < st.len && n < max; i++) {
        const Op *op = st.data[i];
        StageCount *c = &out[n++];
        *c = (StageCount){.op = op, .pipelined = op->kind == OP_LOCAL_LOAD && !op->buf};
        c->read_extra = read_extra(op, f->num_warps, &c->plain_read_extra);
        if (op->kind == OP_CONVERT)
            c->write_extra = store_write_extra(op, f->num_warps, &c->write_bytes, &c->plain_write_extra);
        else if (op->buf) /* a buffer its local_alloc writes, as a conversion would (dot_reload.c) */
            c->write_extra = store_write_extra(op->buf, f->num_warps, &c->write_bytes, &c->plain_write_extra);
        for (int k = 0; k < copies.len; k++)
            if (copies.data[k]->buf == op) {
                int plain;
                c->write_extra += copy_write_extra(copies.data[k], f->num_warps, &c->write_bytes, &plain);
                c->plain_write_extra += plain;
            }
        cr_assert(op->kind == OP_CONVERT || c->write_bytes, "a ring nobody copies into");
    }
    return n;
}

static void stage_str(char *buf, size_t n, const StageCount *c)
{
    const DotStage *s = c->op->stage;
    const char *dims[2][2] = {{"M", "K"}, {"K", "N"}};
    snprintf(buf, n, "%c [%dx%d %s, %s contiguous, swizzle (%d, %d, %d)], %s %d-byte writes, %s reads",
             s->op_idx ? 'B' : 'A', c->op->results[0]->type.shape[0], c->op->results[0]->type.shape[1],
             dtype_name(s->dtype), dims[s->op_idx][s->contig_dim], s->swz.vec, s->swz.per_phase, s->swz.max_phase,
             c->pipelined ? "cp.async" : "vector-store", c->write_bytes,
             s->ldmatrix ? (s->trans ? "ldmatrix.trans" : "ldmatrix") : "element-by-element");
}

#define FP16x3 "*fp16:16, *fp16:16, *fp16:16, "
#define STRIDES_ROW_MAJOR "i32:16, 1, i32:16, 1, i32:16, 1, "

/* The command lines at the top of examples/matmul.py (the autotuned one with
 * each of its configs), the goldens tests/golden/matmul_*, and the defaults of
 * bench/bench_matmul.py. */
static const Config named_configs[] = {
    /* examples/matmul.py */
    {"matmul_kernel", FP16x3 "i32, i32, i32, " STRIDES_ROW_MAJOR "128, 128, 32, 8", 4, 4, 0},
    {"matmul_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, " STRIDES_ROW_MAJOR "64, 64, 32, 8, 'ieee'", 4, 0, 0},
    {"matmul_kernel", "*i8:16, *i8:16, *i32:16, i32, i32, i32, " STRIDES_ROW_MAJOR "128, 128, 64, 8", 4, 0, 0},
    {"matmul_bias_act_kernel",
     FP16x3 "*fp16:16, i32, i32, i32, i32:16, 1, 1, i32:16, i32:16, 1, 128, 64, 32, 8, 'gelu'", 4, 0, 0},
    {"bmm_kernel",
     "*bf16:16, *bf16:16, *bf16:16, i32, i32, i32, i32:16, i32:16, 1, i32:16, i32:16, 1, i32:16, i32:16, 1, 64, 64, "
     "32, 8",
     4, 0, 0},
    {"matmul_autotuned_kernel", FP16x3 "i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1", 0, 0, 0},
    {"matmul_autotuned_kernel", FP16x3 "i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1", 0, 0, 1},
    {"matmul_autotuned_kernel", FP16x3 "i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1", 0, 0, 2},
    /* tests/golden/matmul_*.flags */
    {"matmul_at_kernel", FP16x3 "i32:16, i32:16, i32:16, 1, i32:16, i32:16, 1, i32:16, 1, 64, 64, 32, 8", 4, 3, 0},
    {"matmul_kernel", "*bf16:16, *bf16:16, *bf16:16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 64, 64, 32, 8", 4, 1, 0},
    {"matmul_bias_act_kernel",
     FP16x3 "*fp16:16, i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "64, 64, 32, 8, 'leaky_relu'", 4, 3, 0},
    {"matmul_kernel", FP16x3 "i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "128, 128, 32, 8", 4, 3, 0},
    {"matmul_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, " STRIDES_ROW_MAJOR "32, 64, 16, 8, 'ieee'", 2, 2, 0},
    {"matmul_kernel", "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "64, 64, 64, 8", 4, 3, 0},
    {"matmul_kernel",
     "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "64, 64, 32, 8, 'tf32x3'", 4, 3, 0},
    /* bench/bench_matmul.py DEFAULT_CONFIGS */
    {"matmul_kernel", FP16x3 "i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "128, 256, 64, 8", 8, 3, 0},
    {"matmul_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "128, 128, 32, 8", 8, 3,
     0},
    {"matmul_kernel", "*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, " STRIDES_ROW_MAJOR "128, 256, 128, 8", 8, 3, 0},
};

/* Totals over the buffers checked. */
typedef struct ConflictTally {
    int configs, buffers;
    int plain_conflicted;  /* buffers whose reads would conflict without the swizzle */
} ConflictTally;

/* Every staging buffer of configuration c: no extra wavefront on its writes
 * or its reads.  TILEC_TEST_DOT_VERBOSE=1 prints every count. */
static void expect_conflict_free(const Config *c, bool must_translate, ConflictTally *t)
{
    char what[256];
    config_str(what, sizeof what, c);
    TirFunc *f = translate(c);
    if (!f) {
        cr_expect(!must_translate, "%s: %s", what, tctx.log.data ? tctx.log.data : "");
        return;
    }
    t->configs++;
    StageCount counts[8];
    int n = count_stages(f, counts, 8);
    for (int i = 0; i < n; i++) {
        const StageCount *s = &counts[i];
        char buf[256];
        stage_str(buf, sizeof buf, s);
        if (getenv("TILEC_TEST_DOT_VERBOSE"))
            fprintf(stderr, "%s\n  %s: extra wavefronts %d + %d (unswizzled %d + %d)\n", what, buf, s->write_extra,
                    s->read_extra, s->plain_write_extra, s->plain_read_extra);
        t->buffers++;
        t->plain_conflicted += s->plain_read_extra > 0;
        cr_expect_eq(s->write_extra, 0, "%s\n  %s: %d extra wavefronts on the writes", what, buf, s->write_extra);
        cr_expect_eq(s->read_extra, 0, "%s\n  %s: %d extra wavefronts on the reads", what, buf, s->read_extra);
    }
}

/* The counter sees conflicts where there are some: without the swizzle,
 * every buffer's reads would have them. */
static void expect_swizzle_needed(const ConflictTally *t)
{
    cr_expect_eq(t->plain_conflicted, t->buffers, "%d of %d buffers would conflict unswizzled", t->plain_conflicted,
                 t->buffers);
}

Test(dot, staging_buffers_of_the_named_configs_have_no_bank_conflicts, .fini = translation_free)
{
    load_matmul();
    ConflictTally t = {0};
    for (size_t i = 0; i < ARRAY_LEN(named_configs); i++)
        expect_conflict_free(&named_configs[i], true, &t);
    cr_expect_eq(t.configs, (int)ARRAY_LEN(named_configs));
    cr_expect_eq(t.buffers, 2 * ((int)ARRAY_LEN(named_configs) - 2), "two buffers a configuration, none with 'ieee'");
    expect_swizzle_needed(&t);
}

/* Every dtype, both orders of A and of B, K from 16 to 128, with and without
 * the pipeline. */
Test(dot, staging_buffers_of_every_dtype_and_order_have_no_bank_conflicts, .fini = translation_free)
{
    load_matmul();
    static const struct {
        const char *a, *c;
        int shapes[6][4]; /* BLOCK_M, BLOCK_N, BLOCK_K, warps */
    } dtypes[] = {
        {"fp16", "fp16",
         {{64, 64, 16, 4}, {64, 64, 32, 4}, {128, 128, 32, 4}, {128, 128, 64, 8}, {128, 256, 64, 8}, {64, 128, 128, 4}}},
        {"bf16", "bf16",
         {{64, 64, 16, 4}, {128, 128, 32, 4}, {128, 256, 64, 8}, {64, 64, 128, 4}, {16, 64, 32, 4}, {256, 128, 32, 8}}},
        {"fp32", "fp32",
         {{64, 64, 16, 4}, {64, 64, 32, 4}, {128, 128, 32, 8}, {64, 64, 64, 4}, {32, 64, 128, 4}, {128, 64, 16, 4}}},
        {"i8", "i32",
         {{64, 64, 32, 4}, {64, 64, 64, 4}, {128, 128, 64, 4}, {128, 256, 128, 8}, {64, 64, 128, 4}, {128, 128, 32, 8}}},
    };
    static const char *const orders[] = {ROW_MAJOR, COL_MAJOR};
    ConflictTally t = {0};
    int tried = 0;
    for (size_t d = 0; d < ARRAY_LEN(dtypes); d++)
        for (int s = 0; s < 6; s++)
            for (int ao = 0; ao < 2; ao++)
                for (int bo = 0; bo < 2; bo++)
                    for (int stages = 1; stages <= 3; stages += 2) {
                        const int *b = dtypes[d].shapes[s];
                        char sig[256];
                        snprintf(sig, sizeof sig,
                                 "*%s:16, *%s:16, *%s:16, i32:16, i32:16, i32:16, %s, %s, i32:16, 1, %d, %d, %d, 8",
                                 dtypes[d].a, dtypes[d].a, dtypes[d].c, orders[ao], orders[bo], b[0], b[1], b[2]);
                        expect_conflict_free(&(Config){"matmul_kernel", sig, b[3], stages, 0}, false, &t);
                        tried++;
                    }
    cr_expect_gt(t.configs, tried * 9 / 10, "%d of %d configurations translate", t.configs, tried);
    expect_swizzle_needed(&t);
}

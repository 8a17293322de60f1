/*
 * layout_map.c — a layout applied to one shape, as a linear map over bits
 * (LayoutMap, tir.h): blocked, slice, mma and dot-operand layouts become, for
 * each bit of the register index, the lane and the warp, the coordinate bit it
 * sets.  Everything that asks which thread holds which element asks the map:
 * conversions, reductions, the emitter's index arithmetic and the header's
 * description of each layout.  layout.c chooses the layouts.
 */
#include "tir.h"

#include <stdio.h>
#include <string.h>

/* ---- layout maps -------------------------------------------------------------- */

static LBit lbit(int dim, int bit) { return (LBit){(int8_t)dim, (int8_t)bit}; }
static const LBit NOBIT = {-1, 0};

static void map_blocked(const Layout *l, int rank, const int *shape, LayoutMap *m)
{
    int lg[TIR_MAX_RANK];
    for (int d = 0; d < rank; d++)
        lg[d] = log2_int(shape[d]);
    /* the sizePerThread nano-tile, in `order` */
    for (int k = 0; k < rank; k++) {
        int d = l->order[k];
        for (int j = 0; j < log2_int(l->spt[d]) && j < lg[d]; j++)
            m->reg[m->nreg++] = lbit(d, j);
    }
    for (int k = 0; k < rank; k++) {
        int d = l->order[k], base = log2_int(l->spt[d]);
        for (int j = 0; j < log2_int(l->tpw[d]); j++)
            m->lane[m->nlane++] = base + j < lg[d] ? lbit(d, base + j) : NOBIT;
    }
    for (int k = 0; k < rank; k++) {
        int d = l->order[k], base = log2_int(l->spt[d] * l->tpw[d]);
        for (int j = 0; j < log2_int(l->wpc[d]); j++)
            m->warp[m->nwarp++] = base + j < lg[d] ? lbit(d, base + j) : NOBIT;
    }
    /* repetitions of the CTA tile, in `order` */
    for (int k = 0; k < rank; k++) {
        int d = l->order[k];
        for (int b = log2_int(l->spt[d] * l->tpw[d] * l->wpc[d]); b < lg[d]; b++)
            m->reg[m->nreg++] = lbit(d, b);
    }
}

/* bit b of dim d when the shape has it, else a replicated bit */
static LBit lbit_in(const int *lg, int dim, int bit) { return bit < lg[dim] ? lbit(dim, bit) : NOBIT; }

/* A 3-D (batched) mma layout: the 2-D map of one batch's [M, N] tile in
 * dims 1 and 2; the batch's low bits in the top warp bits when the layout
 * puts warps on it (wpc[0]), its other bits in the top register bits, so
 * that register r of a thread's batch b is register r + b * (registers of
 * one tile). */
static void add_batch_bits(const int *lg, const Layout *l, int rank, LayoutMap *m)
{
    if (rank != 3)
        return;
    for (int g = 0; g < 3; g++) {
        LBit *bits = g == 0 ? m->reg : g == 1 ? m->lane : m->warp;
        int n = g == 0 ? m->nreg : g == 1 ? m->nlane : m->nwarp;
        for (int i = 0; i < n; i++)
            if (bits[i].dim >= 0)
                bits[i].dim++;
    }
    int wb = log2_int(l->wpc[0]);
    for (int b = 0; b < wb; b++)
        m->warp[m->nwarp++] = lbit_in(lg, 0, b);
    for (int b = wb; b < lg[0]; b++)
        m->reg[m->nreg++] = lbit(0, b);
}

/* The mma.sync m16n8 accumulator: register bit 0 is
 * the column pair, lanes 0-1 the rest of the 8 columns, lanes 2-4 the 8
 * rows, register bit 1 the second 8 rows; warp bits split N (first) and M;
 * then the repetitions, N first; then the batch (3-D). */
static void map_mma(const Layout *l, int rank, const int *shape, LayoutMap *m)
{
    int o = rank - 2;
    int lg3[3] = {log2_int(shape[0]), 0, 0};
    int lg[2] = {log2_int(shape[o]), log2_int(shape[o + 1])};
    int wm = log2_int(l->wpc[l->rank - 2]), wn = log2_int(l->wpc[l->rank - 1]);
    m->reg[m->nreg++] = lbit_in(lg, 1, 0);
    m->reg[m->nreg++] = lbit_in(lg, 0, 3);
    m->lane[m->nlane++] = lbit_in(lg, 1, 1);
    m->lane[m->nlane++] = lbit_in(lg, 1, 2);
    for (int j = 0; j < 3; j++)
        m->lane[m->nlane++] = lbit_in(lg, 0, j);
    for (int j = 0; j < wn; j++)
        m->warp[m->nwarp++] = lbit_in(lg, 1, 3 + j);
    for (int j = 0; j < wm; j++)
        m->warp[m->nwarp++] = lbit_in(lg, 0, 4 + j);
    for (int b = 3 + wn; b < lg[1]; b++)
        m->reg[m->nreg++] = lbit(1, b);
    for (int b = 4 + wm; b < lg[0]; b++)
        m->reg[m->nreg++] = lbit(0, b);
    add_batch_bits(lg3, l->kind == LAYOUT_DOTOP ? l->parent : l, rank, m);
}

/* An mma.sync operand fragment.  K runs along dim 1 of A and dim 0 of B;
 * the other dimension (M of A, N of B) is `mn`.  Per instruction: kwidth
 * elements of K packed in each 32-bit register, lanes 0-1 the next two K
 * bits, lanes 2-4 eight rows of M (columns of N); A's four registers add
 * M + 8 and then K + 4*kwidth*2, B's two add K + 4*kwidth*2.  Then the
 * K repetitions, then the M (N) ones; B puts its first N repetition before
 * the K ones.  Warps along the other operand's
 * dimension hold the same fragment.  A 3-D operand [B, M, K] / [B, K, N]
 * adds the batch in the top register bits, as its accumulator does. */
static void map_dotop_mma(const Layout *l, int rank, const int *shape, LayoutMap *m)
{
    const Layout *p = l->parent;
    int o = rank - 2;
    int kd = l->op_idx == 0 ? 1 : 0, mn = 1 - kd;
    int lg3[3] = {log2_int(shape[0]), 0, 0};
    int lg[2] = {log2_int(shape[o]), log2_int(shape[o + 1])};
    int lw = log2_int(l->kwidth);
    int wm = log2_int(p->wpc[p->rank - 2]), wn = log2_int(p->wpc[p->rank - 1]);
    for (int j = 0; j < lw; j++)
        m->reg[m->nreg++] = lbit_in(lg, kd, j);
    m->lane[m->nlane++] = lbit_in(lg, kd, lw);
    m->lane[m->nlane++] = lbit_in(lg, kd, lw + 1);
    for (int j = 0; j < 3; j++)
        m->lane[m->nlane++] = lbit_in(lg, mn, j);
    if (l->op_idx == 0)
        m->reg[m->nreg++] = lbit_in(lg, mn, 3);
    m->reg[m->nreg++] = lbit_in(lg, kd, lw + 2);
    for (int j = 0; j < wn; j++)
        m->warp[m->nwarp++] = l->op_idx == 0 ? NOBIT : lbit_in(lg, 1, 3 + j);
    for (int j = 0; j < wm; j++)
        m->warp[m->nwarp++] = l->op_idx == 0 ? lbit_in(lg, 0, 4 + j) : NOBIT;
    int first = l->op_idx == 0 ? 4 + wm : 3 + wn;
    /* B: the first N repetition comes before the K ones, so that one
     * ldmatrix.x4 loads the fragments of two 8-column tiles for one K step */
    if (l->op_idx == 1 && first < lg[mn])
        m->reg[m->nreg++] = lbit(mn, first++);
    for (int b = lw + 3; b < lg[kd]; b++)
        m->reg[m->nreg++] = lbit(kd, b);
    for (int b = first; b < lg[mn]; b++)
        m->reg[m->nreg++] = lbit(mn, b);
    add_batch_bits(lg3, l->kind == LAYOUT_DOTOP ? l->parent : l, rank, m);
}

/* A linear layout at its own shape is its map; at a smaller shape the bits
 * past it drop out (registers) or hold copies (lanes, warps); at a larger one
 * the new coordinate bits go to new registers, after the others (as a
 * broadcast's repetitions do in a blocked layout). */
static void map_linear(const Layout *l, int rank, const int *shape, LayoutMap *m)
{
    const LayoutMap *s = l->lin;
    if (rank != s->rank)
        BUG("layout_map: rank %d for a rank-%d linear layout", rank, s->rank);
    int lg[TIR_MAX_RANK];
    for (int d = 0; d < rank; d++)
        lg[d] = log2_int(shape[d]);
    for (int i = 0; i < s->nreg; i++)
        if (s->reg[i].dim < 0 || s->reg[i].bit < lg[s->reg[i].dim])
            m->reg[m->nreg++] = s->reg[i];
    for (int i = 0; i < s->nlane; i++)
        m->lane[m->nlane++] = s->lane[i].dim >= 0 ? lbit_in(lg, s->lane[i].dim, s->lane[i].bit) : NOBIT;
    for (int i = 0; i < s->nwarp; i++)
        m->warp[m->nwarp++] = s->warp[i].dim >= 0 ? lbit_in(lg, s->warp[i].dim, s->warp[i].bit) : NOBIT;
    for (int d = 0; d < rank; d++)
        for (int b = log2_int(s->shape[d]); b < lg[d]; b++) {
            if (m->nreg == LMAP_MAX_REG_BITS)
                BUG("layout_map: too many register bits");
            m->reg[m->nreg++] = lbit(d, b);
        }
}

void layout_map(const Layout *l, int rank, const int *shape, LayoutMap *m)
{
    memset(m, 0, sizeof *m);
    m->rank = rank;
    for (int d = 0; d < rank; d++)
        m->shape[d] = shape[d];
    if (l->kind == LAYOUT_BLOCKED) {
        if (rank != l->rank)
            BUG("layout_map: rank %d for a rank-%d layout", rank, l->rank);
        map_blocked(l, rank, shape, m);
        return;
    }
    if (l->kind == LAYOUT_MMA) {
        map_mma(l, rank, shape, m);
        return;
    }
    if (l->kind == LAYOUT_DOTOP) {
        map_dotop_mma(l, rank, shape, m);
        return;
    }
    if (l->kind == LAYOUT_LINEAR) {
        map_linear(l, rank, shape, m);
        return;
    }
    /* slice: the parent at the shape with a size-1 dimension re-inserted, so
     * that every bit along it drops out; then renumber the dimensions.
     * Lanes and warps along the removed dimension hold copies; register bits
     * along it are removed, so that the registers are the distinct elements
     * in the parent's register order (what a reduction along that dimension
     * leaves in each thread).  Blocked parents already drop them at size 1;
     * the mma accumulator keeps its fixed column-pair bit, which must go. */
    int pshape[TIR_MAX_RANK], sd = l->slice_dim;
    for (int d = 0, k = 0; d <= rank; d++)
        pshape[d] = d == sd ? 1 : shape[k++];
    LayoutMap pm;
    layout_map(l->parent, rank + 1, pshape, &pm);
    LBit *groups[3] = {pm.reg, pm.lane, pm.warp};
    int counts[3] = {pm.nreg, pm.nlane, pm.nwarp};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < counts[g]; i++)
            if (groups[g][i].dim > sd)
                groups[g][i].dim--;
    for (int i = 0; i < pm.nreg; i++)
        if (pm.reg[i].dim >= 0)
            m->reg[m->nreg++] = pm.reg[i];
    memcpy(m->lane, pm.lane, sizeof pm.lane);
    memcpy(m->warp, pm.warp, sizeof pm.warp);
    m->nlane = pm.nlane, m->nwarp = pm.nwarp;
}

void value_map(const Value *v, LayoutMap *m)
{
    if (!v->layout)
        BUG("value_map: value %%%d has no layout", v->id);
    layout_map(v->layout, v->type.rank, v->type.shape, m);
}

int value_regs(const Value *v)
{
    if (!v->type.rank)
        return 1;
    LayoutMap m;
    value_map(v, &m);
    return 1 << m.nreg;
}

/* dst's bit seen from src: the inserted dimension and src's size-1
 * dimensions do not move src's coordinate */
static LBit project(const LayoutMap *src, int insert_dim, LBit b)
{
    if (b.dim < 0 || b.dim == insert_dim)
        return NOBIT;
    int sd = insert_dim >= 0 && b.dim > insert_dim ? b.dim - 1 : b.dim;
    if (src->shape[sd] == 1)
        return NOBIT;
    return lbit(sd, b.bit);
}

static bool lbit_eq(LBit a, LBit b) { return a.dim == b.dim && (a.dim < 0 || a.bit == b.bit); }

bool lmap_local(const LayoutMap *src, int insert_dim, const LayoutMap *dst, int *regbit)
{
    if (src->nlane != dst->nlane || src->nwarp != dst->nwarp)
        return false;
    for (int i = 0; i < dst->nlane; i++)
        if (!lbit_eq(project(src, insert_dim, dst->lane[i]), src->lane[i]))
            return false;
    for (int i = 0; i < dst->nwarp; i++)
        if (!lbit_eq(project(src, insert_dim, dst->warp[i]), src->warp[i]))
            return false;
    for (int i = 0; i < dst->nreg; i++) {
        LBit p = project(src, insert_dim, dst->reg[i]);
        int found = -1;
        for (int j = 0; j < src->nreg && p.dim >= 0 && found < 0; j++)
            if (lbit_eq(src->reg[j], p))
                found = j;
        if (p.dim >= 0 && found < 0)
            return false;
        if (regbit)
            regbit[i] = found;
    }
    return true;
}

void axis_bits(const LayoutMap *m, int axis, AxisBits *ab)
{
    memset(ab, 0, sizeof *ab);
    int lowest = 64;
    for (int i = 0; i < m->nlane; i++)
        if (m->lane[i].dim == axis) {
            ab->lane[ab->nlane++] = i;
            lowest = m->lane[i].bit < lowest ? m->lane[i].bit : lowest;
        }
    for (int i = 0; i < m->nwarp; i++)
        if (m->warp[i].dim == axis) {
            ab->warp[ab->nwarp++] = i;
            lowest = m->warp[i].bit < lowest ? m->warp[i].bit : lowest;
        }
    for (int i = 0; i < m->nreg; i++) {
        if (m->reg[i].dim != axis) {
            ab->kept[ab->nkept++] = i;
            continue;
        }
        ab->axis_reg[ab->naxis_reg++] = i;
        if (m->reg[i].bit < lowest)
            ab->nano[ab->nnano++] = i;
        else
            ab->rep[ab->nrep++] = i;
    }
}

bool axis_bits_ordered(const LayoutMap *m, int axis)
{
    AxisBits ab;
    axis_bits(m, axis, &ab);
    int next = 0; /* the coordinate bit the next hardware bit must hold */
    for (int i = 0; i < ab.nnano; i++)
        if (m->reg[ab.nano[i]].bit != next++)
            return false;
    for (int i = 0; i < ab.nlane; i++)
        if (ab.lane[i] != ab.lane[0] + i || m->lane[ab.lane[i]].bit != next++)
            return false;
    for (int i = 0; i < ab.nwarp; i++)
        if (m->warp[ab.warp[i]].bit != next++)
            return false;
    for (int i = 0; i < ab.nrep; i++)
        if (m->reg[ab.rep[i]].bit != next++)
            return false;
    return true;
}

/* ---- expressions and descriptions of a map ------------------------------------------ */

static bool run_goes_on(const BitMove *a, const BitMove *b)
{
    return b->src == a->src && b->from == a->from + 1 && b->to == a->to + 1;
}

/* One run of `len` bits as C: "((lane >> 3) & 3) << 2".  The mask is left out where the
 * run reaches the source's top bit: nothing above it can be set. */
static void run_term(StrBuf *t, const BitSrc *s, int from, int to, int len)
{
    bool shifted = from > 0, masked = !(s->bits >= 0 && from + len >= s->bits);
    bool compound = shifted || masked || strchr(s->name, ' ');
    if (to && compound)
        sb_putc(t, '(');
    if (shifted && masked)
        sb_putc(t, '(');
    sb_puts(t, s->name);
    if (shifted)
        sb_printf(t, " >> %d", from);
    if (shifted && masked)
        sb_putc(t, ')');
    if (masked)
        sb_printf(t, " & %d", (1 << len) - 1);
    if (to && compound)
        sb_putc(t, ')');
    if (to)
        sb_printf(t, " << %d", to);
}

void lmap_moves_expr(StrBuf *out, const BitSrc *srcs, const BitMove *mv, int n)
{
    int runs = 0;
    for (int i = 0; i < n; i++)
        runs += !i || !run_goes_on(&mv[i - 1], &mv[i]);
    if (!runs) {
        sb_puts(out, "0");
        return;
    }
    for (int i = 0, k = 0; i < n; k++) {
        int len = 1;
        while (i + len < n && run_goes_on(&mv[i + len - 1], &mv[i + len]))
            len++;
        StrBuf t = {0};
        run_term(&t, &srcs[mv[i].src], mv[i].from, mv[i].to, len);
        bool paren = runs > 1 && strchr(t.data, ' ');
        sb_printf(out, paren ? "%s(%s)" : "%s%s", k ? " + " : "", t.data);
        sb_free(&t);
        i += len;
    }
}

/* The moves of the bits of `src` (one of lane, warp, register index) that set coordinate bits of `dim`. */
static int dim_moves(BitMove *mv, int n, const LBit *bits, int nbits, int dim, int src)
{
    for (int i = 0; i < nbits; i++)
        if (bits[i].dim == dim)
            mv[n++] = (BitMove){(int8_t)src, (int8_t)i, bits[i].bit};
    return n;
}

void lmap_base_expr(StrBuf *out, const LayoutMap *m, int dim)
{
    BitSrc srcs[2] = {{"lane", m->nlane}, {"warp", m->nwarp}};
    BitMove mv[5 + 5];
    int n = dim_moves(mv, 0, m->lane, m->nlane, dim, 0);
    n = dim_moves(mv, n, m->warp, m->nwarp, dim, 1);
    lmap_moves_expr(out, srcs, mv, n);
}

void lmap_reg_expr(StrBuf *out, const LayoutMap *m, int dim, const char *idx)
{
    StrBuf name = {0};
    sb_printf(&name, strchr(idx, ' ') ? "(%s)" : "%s", idx); /* an expression: keep it whole under >> and & */
    BitSrc src = {name.data, m->nreg};
    BitMove mv[LMAP_MAX_REG_BITS];
    lmap_moves_expr(out, &src, mv, dim_moves(mv, 0, m->reg, m->nreg, dim, 0));
    sb_free(&name);
}

int lmap_lead_bits(const LayoutMap *m, int d)
{
    int k = 0;
    while (k < m->nreg && d >= 0 && m->reg[k].dim == d && m->reg[k].bit == k)
        k++;
    return k;
}

int lmap_reg_offset(const LayoutMap *m, int reg, int dim)
{
    int off = 0;
    for (int i = 0; i < m->nreg; i++)
        if ((reg >> i & 1) && m->reg[i].dim == dim)
            off += 1 << m->reg[i].bit;
    return off;
}

void lmap_coords(const LayoutMap *m, int r, int lane, int warp, int *c)
{
    for (int d = 0; d < m->rank; d++)
        c[d] = 0;
    for (int i = 0; i < m->nreg; i++)
        if ((r >> i & 1) && m->reg[i].dim >= 0)
            c[m->reg[i].dim] += 1 << m->reg[i].bit;
    for (int i = 0; i < m->nlane; i++)
        if ((lane >> i & 1) && m->lane[i].dim >= 0)
            c[m->lane[i].dim] += 1 << m->lane[i].bit;
    for (int i = 0; i < m->nwarp; i++)
        if ((warp >> i & 1) && m->warp[i].dim >= 0)
            c[m->warp[i].dim] += 1 << m->warp[i].bit;
}

unsigned lmap_replicated_mask(const LBit *bits, int n)
{
    unsigned mask = 0;
    for (int i = 0; i < n; i++)
        if (bits[i].dim < 0)
            mask |= 1u << i;
    return mask;
}

static const char *dim_word(int rank, int d)
{
    static const char *const two[] = {"rows", "columns"};
    static const char *const n[] = {"dim 0", "dim 1", "dim 2", "dim 3"};
    return rank == 2 ? two[d] : n[d];
}

/* "rows (lane >> 3) + (warp << 2) + {0, 16, 32, 48}; columns ((lane & 7) << 3) + 0..7" */
void lmap_describe(StrBuf *out, const LayoutMap *m)
{
    if (!m->rank) {
        sb_puts(out, "a scalar, the same in every thread");
        return;
    }
    for (int d = 0; d < m->rank; d++) {
        if (d)
            sb_puts(out, "; ");
        if (m->rank > 1)
            sb_printf(out, "%s ", dim_word(m->rank, d));
        else
            sb_puts(out, "elements ");
        StrBuf base = {0};
        lmap_base_expr(&base, m, d);
        bool zero = !strcmp(base.data, "0");
        StrBuf dimtext = {0};
        bool wrap = strchr(base.data, ' ') && !strstr(base.data, " + "); /* "(lane & 7) << 3" then " + 0..7" */
        sb_printf(&dimtext, wrap ? "(%s)" : "%s", base.data);
        sb_free(&base);
        /* the register offsets along d are the sums of subsets of these distinct powers of two */
        int pos[LMAP_MAX_REG_BITS], k = 0;
        for (int i = 0; i < m->nreg; i++)
            if (m->reg[i].dim == d)
                pos[k++] = m->reg[i].bit;
        if (!k) {
            if (wrap) /* no offsets follow: drop the parentheses again */
                sb_printf(out, "%.*s", (int)dimtext.len - 2, dimtext.data + 1);
            else
                sb_puts(out, dimtext.data);
            sb_free(&dimtext);
            continue;
        }
        for (int i = 1; i < k; i++)
            for (int j = i; j > 0 && pos[j] < pos[j - 1]; j--) {
                int t = pos[j];
                pos[j] = pos[j - 1];
                pos[j - 1] = t;
            }
        bool ap = pos[k - 1] - pos[0] == k - 1; /* consecutive bits: an arithmetic progression */
        int count = 1 << k, step = 1 << pos[0];
        if (ap && step == 1)
            sb_printf(&dimtext, " + 0..%d", count - 1);
        else if (ap && count > 4)
            sb_printf(&dimtext, " + %d*i for i < %d", step, count);
        else {
            sb_puts(&dimtext, " + {");
            for (int t = 0; t < count && t < 8; t++) { /* the t-th smallest: t's bits on the sorted positions */
                int off = 0;
                for (int j = 0; j < k; j++)
                    off += (t >> j & 1) << pos[j];
                sb_printf(&dimtext, "%s%d", t ? ", " : "", off);
            }
            sb_puts(&dimtext, count > 8 ? ", ...}" : "}");
        }
        sb_puts(out, zero && !strncmp(dimtext.data, "0 + ", 4) ? dimtext.data + 4 : dimtext.data);
        sb_free(&dimtext);
    }
    unsigned lr = lmap_replicated_mask(m->lane, m->nlane), wr = lmap_replicated_mask(m->warp, m->nwarp);
    if (lr || wr) {
        int copies = 1;
        for (int i = 0; i < m->nlane; i++)
            copies <<= m->lane[i].dim < 0;
        for (int i = 0; i < m->nwarp; i++)
            copies <<= m->warp[i].dim < 0;
        sb_printf(out, " (replicated: %d threads hold each element)", copies);
    }
}

/*
 * layout_shape.c — the layouts of shape ops (reshape, join, split, flip and
 * permute) as bit maps (LayoutMap, tir.h), in the way Triton's linear layouts
 * see them: every bit of the register index, the lane and the warp names one
 * coordinate bit, so an op that only renames coordinates leaves every element
 * in the thread and register it was in.
 *
 *   reshape  shapes are powers of two, so a row-major index is the
 *            concatenation of the coordinates' bits: each bit of the source
 *            becomes one bit of the result.  Always free.
 *   join     the new last dimension of 2 is a new first register bit (as
 *            Triton's join puts it in sizePerThread): free.
 *   split    takes that register bit out again; free when the last dimension
 *            is in a register bit, else the operand first moves to a layout
 *            where it is (lmap_in_registers), through shared memory.
 *   flip     keeps its operand's layout: free when the flipped dimension
 *            lies in registers only (coordinate c becomes size-1-c, every bit
 *            of it complemented, so the register index is XORed with the
 *            dimension's register bits), else an exchange through shared
 *            memory writes each element at its mirrored place (emit_convert).
 *   permute  renames dimensions: free.
 *
 * tir_layouts (layout.c) asks shape_result_layout for a result's layout from
 * its operand's, and shape_operand_layout for the reverse; layout_linear
 * reuses an existing layout with the same map, so that a reshape of a
 * blocked layout that is blocked again prints as one.
 */
#include "tir.h"

#include <string.h>

static LBit lbit(int dim, int bit) { return (LBit){(int8_t)dim, (int8_t)bit}; }

bool flip_in_registers(const Op *op)
{
    LayoutMap m;
    value_map(op->args[0], &m);
    return lmap_dim_in_registers(&m, op->flip.axis);
}

bool op_is_shape(OpKind k) { return k == OP_RESHAPE || k == OP_JOIN || k == OP_SPLIT || k == OP_FLIP; }

static bool bit_eq(LBit a, LBit b) { return a.dim == b.dim && (a.dim < 0 || a.bit == b.bit); }

static bool bits_eq(const LBit *a, const LBit *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!bit_eq(a[i], b[i]))
            return false;
    return true;
}

bool lmap_eq(const LayoutMap *a, const LayoutMap *b)
{
    if (a->rank != b->rank || a->nreg != b->nreg || a->nlane != b->nlane || a->nwarp != b->nwarp)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return bits_eq(a->reg, b->reg, a->nreg) && bits_eq(a->lane, b->lane, a->nlane) && bits_eq(a->warp, b->warp, a->nwarp);
}

/* ---- reshape ------------------------------------------------------------------- */

/* bit position of each dimension's lowest bit in the row-major index */
static void flat_offsets(int rank, const int *shape, int *off)
{
    int at = 0;
    for (int d = rank - 1; d >= 0; d--) {
        off[d] = at;
        at += log2_int(shape[d]);
    }
}

static LBit rename_flat(LBit b, const int *soff, int rank, const int *shape, const int *doff)
{
    if (b.dim < 0)
        return b;
    int p = soff[b.dim] + b.bit;
    for (int d = 0; d < rank; d++)
        if (p >= doff[d] && p < doff[d] + log2_int(shape[d]))
            return lbit(d, p - doff[d]);
    BUG("lmap_reshape: bit %d outside the shape", p);
}

void lmap_reshape(const LayoutMap *src, int rank, const int *shape, LayoutMap *dst)
{
    int soff[TIR_MAX_RANK], doff[TIR_MAX_RANK];
    flat_offsets(src->rank, src->shape, soff);
    flat_offsets(rank, shape, doff);
    LayoutMap m = *src;
    m.rank = rank;
    for (int d = 0; d < rank; d++)
        m.shape[d] = shape[d];
    for (int i = 0; i < m.nreg; i++)
        m.reg[i] = rename_flat(src->reg[i], soff, rank, shape, doff);
    for (int i = 0; i < m.nlane; i++)
        m.lane[i] = rename_flat(src->lane[i], soff, rank, shape, doff);
    for (int i = 0; i < m.nwarp; i++)
        m.warp[i] = rename_flat(src->warp[i], soff, rank, shape, doff);
    *dst = m;
}

/* ---- join and split ------------------------------------------------------------ */

void lmap_join(const LayoutMap *src, LayoutMap *dst)
{
    if (src->rank + 1 > TIR_MAX_RANK || src->nreg + 1 > LMAP_MAX_REG_BITS)
        BUG("lmap_join: rank %d with %d register bits", src->rank, src->nreg);
    LayoutMap m = *src;
    m.rank = src->rank + 1;
    m.shape[src->rank] = 2;
    m.reg[0] = lbit(src->rank, 0);
    memcpy(&m.reg[1], src->reg, sizeof(LBit) * (size_t)src->nreg);
    m.nreg = src->nreg + 1;
    *dst = m;
}

int lmap_last_dim_reg(const LayoutMap *m)
{
    for (int i = 0; i < m->nreg; i++)
        if (m->reg[i].dim == m->rank - 1)
            return i;
    return -1;
}

void lmap_split(const LayoutMap *src, LayoutMap *dst)
{
    int at = lmap_last_dim_reg(src);
    if (at < 0 || !lmap_dim_in_registers(src, src->rank - 1))
        BUG("lmap_split: the last dimension is not in a register bit");
    LayoutMap m = *src;
    m.rank = src->rank - 1;
    m.shape[m.rank] = 0;
    memmove(&m.reg[at], &m.reg[at + 1], sizeof(LBit) * (size_t)(src->nreg - at - 1));
    m.nreg = src->nreg - 1;
    *dst = m;
}

/* ---- moving a dimension into registers, permuting, flipping ---------------------- */

bool lmap_dim_in_registers(const LayoutMap *m, int dim)
{
    for (int i = 0; i < m->nlane; i++)
        if (m->lane[i].dim == dim)
            return false;
    for (int i = 0; i < m->nwarp; i++)
        if (m->warp[i].dim == dim)
            return false;
    return true;
}

unsigned lmap_dim_reg_mask(const LayoutMap *m, int dim)
{
    unsigned mask = 0;
    for (int i = 0; i < m->nreg; i++)
        if (m->reg[i].dim == dim)
            mask |= 1u << i;
    return mask;
}

/* a thread bit along dim gives its place to the highest register bit of
 * another dimension (the last repetition), or becomes a copy */
static void pull_in(LayoutMap *m, LBit *thread_bit, int dim)
{
    for (int i = m->nreg - 1; i >= 0; i--)
        if (m->reg[i].dim >= 0 && m->reg[i].dim != dim) {
            LBit t = m->reg[i];
            m->reg[i] = *thread_bit;
            *thread_bit = t;
            return;
        }
    if (m->nreg == LMAP_MAX_REG_BITS)
        BUG("lmap_in_registers: too many register bits");
    m->reg[m->nreg++] = *thread_bit;
    *thread_bit = lbit(-1, 0);
}

void lmap_in_registers(const LayoutMap *src, int dim, LayoutMap *dst)
{
    LayoutMap m = *src;
    for (int i = 0; i < m.nlane; i++)
        if (m.lane[i].dim == dim)
            pull_in(&m, &m.lane[i], dim);
    for (int i = 0; i < m.nwarp; i++)
        if (m.warp[i].dim == dim)
            pull_in(&m, &m.warp[i], dim);
    *dst = m;
}

void lmap_permute(const LayoutMap *src, const int *perm, LayoutMap *dst)
{
    int inv[TIR_MAX_RANK];
    for (int k = 0; k < src->rank; k++)
        inv[perm[k]] = k;
    LayoutMap m = *src;
    for (int k = 0; k < src->rank; k++)
        m.shape[k] = src->shape[perm[k]];
    LBit *groups[3] = {m.reg, m.lane, m.warp};
    int counts[3] = {m.nreg, m.nlane, m.nwarp};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < counts[g]; i++)
            if (groups[g][i].dim >= 0)
                groups[g][i].dim = (int8_t)inv[groups[g][i].dim];
    *dst = m;
}

/* ---- layouts ------------------------------------------------------------------- */

Layout *layout_linear(Arena *a, TirFunc *f, const LayoutMap *m)
{
    for (int i = 0; i < f->layouts.len; i++) {
        Layout *l = f->layouts.data[i];
        if ((l->kind != LAYOUT_BLOCKED && l->kind != LAYOUT_LINEAR) || l->rank != m->rank)
            continue;
        LayoutMap lm;
        layout_map(l, m->rank, m->shape, &lm);
        if (lmap_eq(&lm, m))
            return l;
    }
    Layout *l = NEW(a, Layout);
    l->kind = LAYOUT_LINEAR;
    l->rank = m->rank;
    for (int d = 0; d < m->rank; d++)
        l->shape[d] = m->shape[d];
    LayoutMap *copy = NEW(a, LayoutMap);
    *copy = *m;
    l->lin = copy;
    l->id = f->layouts.len;
    vec_push(a, &f->layouts, l);
    return l;
}

Layout *shape_result_layout(Arena *a, TirFunc *f, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    if (!x->layout)
        return NULL;
    LayoutMap sm, m;
    value_map(x, &sm);
    switch (op->kind) {
    case OP_RESHAPE: lmap_reshape(&sm, r->type.rank, r->type.shape, &m); break;
    case OP_JOIN: lmap_join(&sm, &m); break;
    case OP_SPLIT:
        if (!lmap_dim_in_registers(&sm, sm.rank - 1))
            lmap_in_registers(&sm, sm.rank - 1, &sm);
        lmap_split(&sm, &m);
        break;
    case OP_FLIP: return x->layout;
    default: BUG("shape_result_layout: %s", op_name(op->kind));
    }
    return layout_linear(a, f, &m);
}

Layout *shape_operand_layout(Arena *a, TirFunc *f, const Op *op, const Layout *res)
{
    const Value *x = op->args[0], *r = op->results[0];
    LayoutMap rm, m;
    layout_map(res, r->type.rank, r->type.shape, &rm);
    switch (op->kind) {
    case OP_RESHAPE: lmap_reshape(&rm, x->type.rank, x->type.shape, &m); break;
    case OP_JOIN:
        if (lmap_last_dim_reg(&rm) < 0 || !lmap_dim_in_registers(&rm, rm.rank - 1))
            return NULL;
        lmap_split(&rm, &m);
        break;
    case OP_SPLIT: lmap_join(&rm, &m); break;
    case OP_FLIP: return (Layout *)res;
    default: BUG("shape_operand_layout: %s", op_name(op->kind));
    }
    return layout_linear(a, f, &m);
}

/* Triton's notation for one group of bases: each bit's coordinate, "[[0, 1], [2, 0]]" */
static void print_bases(StrBuf *out, const char *what, const LBit *bits, int n, int rank)
{
    sb_printf(out, "%s [", what);
    for (int i = 0; i < n; i++) {
        sb_puts(out, i ? ", [" : "[");
        for (int d = 0; d < rank; d++)
            sb_printf(out, "%s%d", d ? ", " : "", bits[i].dim == d ? 1 << bits[i].bit : 0);
        sb_putc(out, ']');
    }
    sb_putc(out, ']');
}

/* "L3: linear 64x2, register bases [[0, 1], [1, 0]], lane bases [...], warp bases [...]" */
void layout_describe_linear(StrBuf *out, const Layout *l)
{
    const LayoutMap *m = l->lin;
    sb_printf(out, "L%d: linear ", l->id);
    for (int d = 0; d < m->rank; d++)
        sb_printf(out, "%s%d", d ? "x" : "", m->shape[d]);
    sb_puts(out, " (the coordinates of each bit of the register index, lane and warp; XORed together): ");
    print_bases(out, "register", m->reg, m->nreg, m->rank);
    print_bases(out, ", lane", m->lane, m->nlane, m->rank);
    print_bases(out, ", warp", m->warp, m->nwarp, m->rank);
}

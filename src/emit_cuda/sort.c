/*
 * sort.c — tl.sort and tl.bitonic_merge: Triton's bitonic network along the
 * tile's last dimension, one call of a tilec_runtime_sort.cuh helper per
 * step.  The layout decides how each step exchanges data: a position bit
 * held in the thread's registers pairs registers, one held by the lanes
 * pairs lanes through __shfl_xor_sync, one held by the warps pairs warps
 * through the whole tile in shared memory.
 */
#include "emit_internal.h"

typedef enum BitHome { IN_REGS, IN_LANES, IN_WARPS } BitHome;

static const char *const home_words[] = {"in each thread's registers", "across lanes (shuffles)",
                                         "across warps (shared memory)"};

/* Where bit j of the position along dim d lives, and which register, lane
 * or warp bit holds it. */
static BitHome bit_home(const LayoutMap *m, int d, int j, int *at)
{
    for (int i = 0; i < m->nreg; i++)
        if (m->reg[i].dim == d && m->reg[i].bit == j)
            return *at = i, IN_REGS;
    for (int i = 0; i < m->nlane; i++)
        if (m->lane[i].dim == d && m->lane[i].bit == j)
            return *at = i, IN_LANES;
    for (int i = 0; i < m->nwarp; i++)
        if (m->warp[i].dim == d && m->warp[i].bit == j)
            return *at = i, IN_WARPS;
    BUG("sort: bit %d of dim %d has no home in the layout", j, d);
}

/* "position bits 0-1 in each thread's registers, 2-6 across lanes (shuffles)" */
static const char *bits_summary(Emitter *E, const LayoutMap *m, int d, int nbits)
{
    StrBuf sb = {0};
    for (int j = 0; j < nbits;) {
        int at, k = j;
        BitHome h = bit_home(m, d, j, &at);
        while (k + 1 < nbits && bit_home(m, d, k + 1, &at) == h)
            k++;
        sb_printf(&sb, "%s%s %s", j ? ", " : "", k > j ? fmt(E, "%d-%d", j, k) : fmt(E, "%d", j), home_words[h]);
        j = k + 1;
    }
    const char *s = fmt(E, "%s", sb.data ? sb.data : "");
    sb_free(&sb);
    return s;
}

/* Row-major index of register `idx` of v in a buffer of v's shape, except that
 * the last dimension has `last` positions and the register's position along
 * it is `pos`. */
static const char *tile_slot(Emitter *E, const Value *v, const LayoutMap *m, const char *idx, int last, const char *pos)
{
    int rank = v->type.rank;
    const char *lin = NULL;
    for (int d = 0; d < rank - 1; d++) {
        const char *c = elem_coord(E, v, m, d, idx);
        lin = lin ? fmt(E, "%s * %d + %s", paren(E, lin), v->type.shape[d], paren(E, c)) : c;
    }
    return lin ? fmt(E, "%s * %d + %s", paren(E, lin), last, paren(E, pos)) : pos;
}

/* The names one sort prints: the result, each register's position and slot, the tile. */
typedef struct SortNames {
    const char *y, *pos, *slot, *tile, *larger;
} SortNames;

/* One step: positions 2^j apart exchange; flip_bit < 0 orders every run `desc`. */
static void sort_step(Emitter *E, const LayoutMap *m, int d, const SortNames *nm, int j, int flip_bit, bool desc)
{
    int at;
    const char *flip = fmt(E, "%d, %s", flip_bit, desc ? "true" : "false");
    switch (bit_home(m, d, j, &at)) {
    case IN_REGS:
        line(E, "tilec::bitonic_in_thread(%s, %s, %d, %s);  // 2^%d apart: register bit %d", nm->y, nm->pos, at, flip, j, at);
        break;
    case IN_LANES:
        line(E, "tilec::bitonic_across_lanes(%s, %s, %d, %d, %s);  // 2^%d apart: lane bit %d", nm->y, nm->pos, j, 1 << at,
             flip, j, at);
        break;
    case IN_WARPS:
        line(E, "tilec::bitonic_across_warps(%s, %s, %s, %s, %d, %s);  // 2^%d apart: warp bit %d", nm->y, nm->pos, nm->slot,
             nm->tile, j, flip, j, at);
        break;
    }
}

/* tl.topk's halving across position bit j: both partners keep the larger */
static void topk_halve(Emitter *E, const LayoutMap *m, int d, const SortNames *nm, int j)
{
    int at;
    switch (bit_home(m, d, j, &at)) {
    case IN_REGS:
        line(E, "tilec::topk_max_in_thread(%s, %d, %s);  // 2^%d apart: register bit %d", nm->y, at, nm->larger, j, at);
        break;
    case IN_LANES:
        line(E, "tilec::topk_max_across_lanes(%s, %s, %d, %d, %s);  // 2^%d apart: lane bit %d", nm->y, nm->pos, j, 1 << at,
             nm->larger, j, at);
        break;
    case IN_WARPS:
        line(E, "tilec::topk_max_across_warps(%s, %s, %s, %s, %d, %s);  // 2^%d apart: warp bit %d", nm->y, nm->pos, nm->slot,
             nm->tile, j, nm->larger, j, at);
        break;
    }
}

/* The stages of tl.sort or tl.bitonic_merge. */
static void sort_stages(Emitter *E, const Op *op, const LayoutMap *m, int d, const SortNames *nm, int logn)
{
    bool desc = op->sort.descending;
    for (int s = op->sort.merge_only ? logn : 1; s <= logn; s++) {
        bool last = s == logn;
        if (last)
            line(E, "// stage %d: runs of %d, all %s", s, 1 << s, desc ? "descending" : "ascending");
        else
            line(E, "// stage %d: runs of %d, ascending where position bit %d is 0, else descending", s, 1 << s, s);
        for (int j = s - 1; j >= 0; j--)
            sort_step(E, m, d, nm, j, last ? -1 : s, last && desc);
    }
}

/* The stages of tl.topk (Triton's bitonic top-k): runs of k sorted alternately,
 * then, once per position bit from log2 k up, the tile halved (the larger of
 * each pair kept) and runs of k merged again, the last time descending.
 * Positions that differ only in halved bits hold the same value. */
static void topk_stages(Emitter *E, const LayoutMap *m, int d, const SortNames *nm, int logk, int logn)
{
    for (int s = 1; s <= logk; s++) {
        line(E, "// stage %d: runs of %d, ascending where position bit %d is 0, else descending", s, 1 << s, s);
        for (int j = s - 1; j >= 0; j--)
            sort_step(E, m, d, nm, j, s, false);
    }
    for (int i = logk + 1; i <= logn; i++) {
        bool last = i == logn;
        line(E, "// halving %d: the larger of positions 2^%d apart, then runs of %d merged %s", i - logk, i - 1, 1 << logk,
             last ? "descending" : fmt(E, "ascending where position bit %d is 0, else descending", i));
        topk_halve(E, m, d, nm, i - 1);
        for (int j = logk - 1; j >= 0; j--)
            sort_step(E, m, d, nm, j, last ? -1 : i, last);
    }
}

/* tl.topk's k values of each row, from positions 0..k-1 of the ranked tile
 * (in the operand's layout) to the result's layout, through shared memory. */
static void topk_hand_over(Emitter *E, const Op *op, const LayoutMap *m, const SortNames *nm)
{
    const Value *x = op->args[0], *r = op->results[0];
    int k = op->sort.k, N = nregs(x), NR = nregs(r);
    LayoutMap rm;
    value_map(r, &rm);
    const char *y = vname(E, r), *pos_e = fmt(E, "%s[e]", nm->pos);
    line(E, "// the k = %d largest of each row to the result's layout, through shared memory", k);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", N);
    line(E, "    if (%s < %d)", pos_e, k);
    line(E, "        %s[%s] = %s[e];", nm->tile, tile_slot(E, x, m, "e", k, pos_e), nm->y);
    line(E, "%s;", block_sync(E));
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", NR);
    line(E, "    %s[e] = %s[%s];", y, nm->tile,
         tile_slot(E, r, &rm, "e", k, elem_coord(E, r, &rm, r->type.rank - 1, "e")));
    line(E, "%s;", block_sync(E));
}

static bool warps_along(const LayoutMap *m, int d, int logn)
{
    int at;
    for (int j = 0; j < logn; j++)
        if (bit_home(m, d, j, &at) == IN_WARPS)
            return true;
    return false;
}

/* tl.sort, tl.bitonic_merge and tl.topk.  Sorts walk the result's registers
 * (the operand has its layout); tl.topk ranks a copy of its operand in the
 * operand's layout, then hands the result over. */
void emit_sort(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int d = x->type.rank - 1, n = x->type.shape[d], logn = 0, k = op->sort.k, logk = 0;
    while ((1 << logn) < n)
        logn++;
    while ((1 << logk) < k)
        logk++;
    const Value *home = k ? x : r;
    LayoutMap m;
    value_map(home, &m);
    int N = nregs(home);
    SortNames nm = {.y = k ? unique_name(E, "ranked") : vname(E, r), .pos = unique_name(E, "pos")};
    const char *T = dtype_ctype(r->type.dtype);
    bool across_warps = warps_along(&m, d, logn);
    if (across_warps)
        nm.slot = unique_name(E, "slot");
    if (op->smem_bytes)
        nm.tile = unique_name(E, "tile");
    if (!info(E, r)->declared)
        line(E, "%s;%s", decl(E, type_elem(r->type), vname(E, r), nregs(r)), shape_note(E, r));
    int steps = 0;
    if (k)
        steps = logk * (logk + 1) / 2 + (logn - logk) * (logk + 1);
    else
        for (int s = op->sort.merge_only ? logn : 1; s <= logn; s++)
            steps += s;
    const char *what = k ? fmt(E, "topk (k = %d)", k) : op->sort.merge_only ? "bitonic merge" : "sort";
    line(E, "// %s along dim %d, %s: a bitonic network of %d step%s over %d positions", what, d,
         op->sort.descending ? "descending" : "ascending", steps, steps == 1 ? "" : "s", n);
    line(E, "// position bits %s", bits_summary(E, &m, d, logn));
    line(E, "{");
    E->indent++;
    if (k)
        line(E, "%s %s[%d];  // the operand, ranked in place", T, nm.y, N);
    line(E, "int %s[%d];  // each register's position along dim %d", nm.pos, N, d);
    if (across_warps)
        line(E, "int %s[%d];  // and its row-major index in the tile", nm.slot, N);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", N);
    line(E, "    %s[e] = %s;", nm.pos, elem_coord(E, home, &m, d, "e"));
    if (across_warps)
        line(E, "    %s[e] = %s;", nm.slot, tile_slot(E, home, &m, "e", n, elem_coord(E, home, &m, d, "e")));
    line(E, "    %s[e] = %s;", nm.y, value_at(E, x, k ? NULL : r, "e"));
    line(E, "}");
    if (op->smem_bytes)
        line(E, "%s *%s = reinterpret_cast<%s *>(smem + %d);  // the whole tile, for exchanges between warps", T, nm.tile, T,
             op->smem_offset);
    if (k) {
        nm.larger = unique_name(E, "larger");
        line(E, "auto %s = [](%s a, %s b) { return %s; };  // tl.maximum", nm.larger, T, T,
             combine_expr(E, RED_MAX, r->type.dtype, "a", "b"));
        topk_stages(E, &m, d, &nm, logk, logn);
        topk_hand_over(E, op, &m, &nm);
    } else {
        sort_stages(E, op, &m, d, &nm, logn);
    }
    E->indent--;
    line(E, "}");
}

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

/* Row-major index of register `idx` of v in a buffer of v's whole shape. */
static const char *tile_slot(Emitter *E, const Value *v, const LayoutMap *m, const char *idx)
{
    const char *lin = NULL;
    for (int d = 0; d < v->type.rank; d++) {
        const char *c = elem_coord(E, v, m, d, idx);
        lin = lin ? fmt(E, "(%s) * %d + %s", lin, v->type.shape[d], paren(E, c)) : c;
    }
    return lin;
}

/* The names one sort prints: the result, each register's position and slot, the tile. */
typedef struct SortNames {
    const char *y, *pos, *slot, *tile;
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

void emit_sort(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int d = x->type.rank - 1, n = x->type.shape[d], logn = 0;
    while ((1 << logn) < n)
        logn++;
    bool desc = op->sort.descending;
    LayoutMap m;
    value_map(x, &m);
    int N = nregs(r);
    SortNames nm = {.y = vname(E, r), .pos = unique_name(E, "pos")};
    const char *y = nm.y, *T = dtype_ctype(r->type.dtype);
    if (op->smem_bytes)
        nm.slot = unique_name(E, "slot"), nm.tile = unique_name(E, "tile");
    if (!info(E, r)->declared)
        line(E, "%s;%s", decl(E, type_elem(r->type), y, N), shape_note(E, r));
    int first = op->sort.merge_only ? logn : 1, steps = 0;
    for (int s = first; s <= logn; s++)
        steps += s;
    line(E, "// %s along dim %d, %s: a bitonic network of %d step%s over %d positions", op->sort.merge_only ? "bitonic merge" : "sort",
         d, desc ? "descending" : "ascending", steps, steps == 1 ? "" : "s", n);
    if (logn)
        line(E, "// position bits %s", bits_summary(E, &m, d, logn));
    line(E, "{");
    E->indent++;
    line(E, "int %s[%d];  // each register's position along dim %d", nm.pos, N, d);
    if (op->smem_bytes)
        line(E, "int %s[%d];  // and its row-major index in the tile", nm.slot, N);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", N);
    line(E, "    %s[e] = %s;", nm.pos, elem_coord(E, x, &m, d, "e"));
    if (op->smem_bytes)
        line(E, "    %s[e] = %s;", nm.slot, tile_slot(E, x, &m, "e"));
    line(E, "    %s[e] = %s;", y, value_at(E, x, NULL, "e"));
    line(E, "}");
    if (op->smem_bytes)
        line(E, "%s *%s = reinterpret_cast<%s *>(smem + %d);  // the whole tile, for steps across warps", T, nm.tile, T,
             op->smem_offset);
    for (int s = first; s <= logn; s++) {
        bool last = s == logn;
        if (last)
            line(E, "// stage %d: runs of %d, all %s", s, 1 << s, desc ? "descending" : "ascending");
        else
            line(E, "// stage %d: runs of %d, ascending where position bit %d is 0, else descending", s, 1 << s, s);
        for (int j = s - 1; j >= 0; j--)
            sort_step(E, &m, d, &nm, j, last ? -1 : s, last && desc);
    }
    E->indent--;
    line(E, "}");
}

/*
 * smem.c — the kernel's shared memory: which exchanges need a buffer, how
 * large, with what padding, and where each lives in the one arena.
 *
 * Exchanges: a layout conversion writes the tile in row-major order and
 * reads it back in the new layout; a reduction across warps writes one
 * partial per warp along the axis; a scan across warps writes each warp's
 * total; a scalar atomic broadcasts the old value.  A buffer is live from
 * an exchange's writes until every warp has read it, which the barrier of
 * the following exchange guarantees; so consecutive exchanges alternate
 * between two buffers (tir_smem below) and the arena holds the largest of
 * each parity.
 *
 * Padding: a conversion buffer inserts `pad` elements after every 2^k; the
 * static bank-conflict counter below tries the candidates and keeps the
 * first with the fewest extra shared-memory wavefronts (zero where one
 * exists).
 */
#include "tir.h"

#include <limits.h>

#include <string.h>

int smem_elem_bytes(Type t) { return t.dtype == DT_PTR ? 8 : (dtype_bits(t.dtype) + 7) / 8; }

static int numel_of(const int *shape, int rank)
{
    int n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

/* coordinate of register r of thread (lane, warp) */
static void coords(const LayoutMap *m, int r, int lane, int warp, int *c)
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

int smem_row_major(const int *shape, int rank, const int *c)
{
    int lin = 0;
    for (int d = 0; d < rank; d++)
        lin = lin * shape[d] + c[d];
    return lin;
}

int smem_padded(int lin, int pad_log2, int pad) { return pad ? lin + (lin >> pad_log2) * pad : lin; }

/* Extra wavefronts of one warp-wide access: `addr[l]` is lane l's element
 * index (-1: inactive).  Lanes reading the same 4-byte word share it; 8-byte
 * accesses go in two half-warp phases. */
/* One warp-wide access of elements of at most 4 bytes: each lane touches one
 * word, and a bank's distinct words are its wavefronts.  The distinct words
 * are found with a 64-slot open-addressed set (32 lanes never fill it), so a
 * 32-way conflict costs 32 probes, not 32 * 31 / 2 comparisons. */
static int narrow_wavefronts_extra(const int *addr, int bytes)
{
    int set[64], per_bank[32] = {0}, worst = 1;
    memset(set, 0xff, sizeof set); /* -1: empty (words are never negative) */
    for (int l = 0; l < 32; l++) {
        if (addr[l] < 0)
            continue;
        int word = addr[l] * bytes / 4;
        unsigned h = ((unsigned)word * 0x9E3779B1u) >> 26;
        while (set[h] >= 0 && set[h] != word)
            h = (h + 1) & 63;
        if (set[h] == word)
            continue;
        set[h] = word;
        if (++per_bank[word & 31] > worst)
            worst = per_bank[word & 31];
    }
    return worst - 1;
}

int smem_wavefronts_extra(const int *addr, int bytes)
{
    if (bytes <= 4)
        return narrow_wavefronts_extra(addr, bytes);
    int phase = bytes >= 8 ? 16 : 32, extra = 0;
    for (int p0 = 0; p0 < 32; p0 += phase) {
        int words[32][64];
        int nw[32] = {0};
        int worst = 0;
        for (int l = p0; l < p0 + phase; l++) {
            if (addr[l] < 0)
                continue;
            long byte = (long)addr[l] * bytes;
            for (int k = 0; k < (bytes + 3) / 4; k++) {
                int word = (int)(byte / 4) + k, bank = word & 31;
                bool seen = false;
                for (int j = 0; j < nw[bank]; j++)
                    seen |= words[bank][j] == word;
                if (!seen && nw[bank] < 64)
                    words[bank][nw[bank]++] = word;
            }
        }
        for (int b = 0; b < 32; b++)
            if (nw[b] > worst)
                worst = nw[b];
        if (worst > 1)
            extra += worst - 1;
    }
    return extra;
}

/* The row-major (unpadded) element index that each lane touches in every
 * warp-wide access of a tile in one layout: (warps x registers) accesses of
 * 32 lanes.  Padding is applied later, so one exchange is laid out once and
 * every padding candidate only re-counts. */
typedef struct TileAccesses {
    int *lin, n;
    bool lanes_distinct; /* no two lanes of an access touch one element */
} TileAccesses;

/* A coordinate is the sum of its register, lane and warp bits' contributions
 * (coords above) and the row-major index is linear in the coordinates, so an
 * index is the sum of one table entry per warp, register and lane; lanes
 * touch distinct elements in every access iff the lane entries differ. */
static TileAccesses tile_accesses(Arena *a, const LayoutMap *m)
{
    int nw = 1 << m->nwarp, nr = 1 << m->nreg, c[TIR_MAX_RANK];
    int *wl = NEW_ARRAY(a, int, (size_t)nw), *rl = NEW_ARRAY(a, int, (size_t)nr), ll[32];
    for (int w = 0; w < nw; w++)
        coords(m, 0, 0, w, c), wl[w] = smem_row_major(m->shape, m->rank, c);
    for (int r = 0; r < nr; r++)
        coords(m, r, 0, 0, c), rl[r] = smem_row_major(m->shape, m->rank, c);
    TileAccesses t = {.n = nw * nr, .lanes_distinct = true};
    for (int l = 0; l < 32; l++) {
        coords(m, 0, l, 0, c), ll[l] = smem_row_major(m->shape, m->rank, c);
        for (int j = 0; j < l; j++)
            t.lanes_distinct &= ll[j] != ll[l];
    }
    int *p = t.lin = NEW_ARRAY(a, int, (size_t)t.n * 32);
    for (int w = 0; w < nw; w++)
        for (int r = 0; r < nr; r++)
            for (int l = 0; l < 32; l++)
                *p++ = wl[w] + rl[r] + ll[l];
    return t;
}

/* Extra wavefronts of one access of 4-byte elements by lanes that touch
 * distinct elements: padding keeps them distinct, so the words are too, and a
 * bank's wavefronts are its lanes (smem_wavefronts_extra without the search
 * for shared words). */
static int distinct_words_extra(const int *lin, int pad_log2, int pad)
{
    int per_bank[32] = {0}, worst = 1;
    for (int l = 0; l < 32; l++) {
        int bank = smem_padded(lin[l], pad_log2, pad) & 31;
        if (++per_bank[bank] > worst)
            worst = per_bank[bank];
    }
    return worst - 1;
}

/* Extra wavefronts over the accesses, with the buffer padded as given; the
 * count stops once it passes `limit` (a candidate already beaten). */
static int count_accesses(const TileAccesses *t, int bytes, int pad_log2, int pad, int limit)
{
    int total = 0;
    const int *lin = t->lin;
    for (int i = 0; i < t->n && total <= limit; i++, lin += 32) {
        if (bytes == 4 && t->lanes_distinct) {
            total += distinct_words_extra(lin, pad_log2, pad);
            continue;
        }
        int addr[32];
        for (int l = 0; l < 32; l++)
            addr[l] = smem_padded(lin[l], pad_log2, pad);
        total += smem_wavefronts_extra(addr, bytes);
    }
    return total;
}

/* Both sides of a conversion: the producer's writes and the consumer's reads. */
typedef struct ConvertAccesses {
    TileAccesses write, read;
    int bytes;
} ConvertAccesses;

static ConvertAccesses convert_accesses(Arena *a, const Op *op)
{
    LayoutMap s, d;
    value_map(op->args[0], &s);
    value_map(op->results[0], &d);
    ConvertAccesses ca;
    ca.write = tile_accesses(a, &s);
    ca.read = tile_accesses(a, &d);
    ca.bytes = smem_elem_bytes(op->args[0]->type);
    return ca;
}

static int convert_conflicts(const ConvertAccesses *ca, int pad_log2, int pad, int limit)
{
    int w = count_accesses(&ca->write, ca->bytes, pad_log2, pad, limit);
    return w > limit ? w : w + count_accesses(&ca->read, ca->bytes, pad_log2, pad, limit - w);
}

int smem_convert_conflicts(const Op *op, int pad_log2, int pad)
{
    Arena a = {0};
    ConvertAccesses ca = convert_accesses(&a, op);
    int c = convert_conflicts(&ca, pad_log2, pad, INT_MAX);
    arena_free(&a);
    return c;
}

static void plan_convert(Arena *a, Op *op)
{
    Type t = op->args[0]->type;
    int n = type_numel(t), bytes = smem_elem_bytes(t);
    ConvertAccesses ca = convert_accesses(a, op);
    int best = -1, best_log2 = 0, best_pad = 0;
    int unit = bytes >= 4 ? 1 : 4 / bytes; /* pad by whole words */
    int pads[] = {0, 1, 2, 4, 8};
    for (int k = 5; (1 << k) <= n || k == 5; k++) {
        for (size_t p = 0; p < ARRAY_LEN(pads); p++) {
            int pad = pads[p] * unit;
            if (!pad && k > 5)
                continue;
            int c = convert_conflicts(&ca, k, pad, best < 0 ? INT_MAX : best);
            if (best < 0 || c < best) {
                best = c, best_log2 = k, best_pad = pad;
            }
            if (!best)
                break;
        }
        if (!best || (1 << k) >= n)
            break;
    }
    op->smem_pad_log2 = best_log2;
    op->smem_pad = best_pad;
    op->smem_conflicts = best;
    int end = smem_padded(n - 1, best_log2, best_pad);
    op->smem_bytes = (end + 1) * bytes;
}

static void op_axis_bits(const Op *op, AxisBits *ab)
{
    LayoutMap m;
    value_map(op->args[0], &m);
    axis_bits(&m, (int)op->iattr[1], ab);
}

/* warps along the reduced axis: 2^k of them exchange partials */
int reduce_warp_bits(const Op *op)
{
    AxisBits ab;
    op_axis_bits(op, &ab);
    return ab.nwarp;
}

static void plan_reduce(Op *op)
{
    int k = reduce_warp_bits(op);
    if (!k)
        return;
    Type r = op->results[0]->type;
    int n = numel_of(r.shape, r.rank) << k;
    int bytes = smem_elem_bytes(r);
    op->smem_bytes = n * bytes;
    if (op->nres == 2) /* indices after the values, 4-byte aligned */
        op->smem_bytes = ((op->smem_bytes + 3) & ~3) + n * 4;
}

/* one total per warp along the axis, per repetition of the CTA tile along
 * it, for every other coordinate */
static void plan_scan(Op *op)
{
    AxisBits ab;
    op_axis_bits(op, &ab);
    if (!ab.nwarp)
        return;
    Type t = op->args[0]->type;
    int n = type_numel(t) / t.shape[op->iattr[1]];
    op->smem_bytes = (n << ab.nwarp << ab.nrep) * smem_elem_bytes(t);
}

typedef struct Exchange {
    Op *op;
    bool top;   /* straight-line code of the kernel body, not inside a loop or branch */
} Exchange;

typedef Vec(Exchange) ExchangeVec;

static void plan_block(Arena *a, Block *b, bool top, ExchangeVec *ex)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            plan_block(a, op->regions[r], false, ex);
        op->smem_bytes = 0;
        op->smem_keep_sync = true;
        switch (op->kind) {
        case OP_CONVERT: plan_convert(a, op); break;
        case OP_REDUCE: plan_reduce(op); break;
        case OP_SCAN: plan_scan(op); break;
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            if (!op->args[0]->type.rank && op->results[0]->nuses)
                op->smem_bytes = 8;
            break;
        default: break;
        }
        if (op->smem_bytes)
            vec_push(a, ex, ((Exchange){op, top}));
    }
}

/* Exchanges alternate between two buffers.  Each one has a barrier between
 * its writes and its reads; a warp can only write the buffer again two
 * exchanges later, after passing the next exchange's barrier, which every
 * warp reaches only once it has finished reading.  So in straight-line code
 * an exchange needs no barrier of its own after its reads when the next
 * exchange is also in straight-line code.  Inside loops and branches, and
 * before them, the trailing barrier stays. */
void tir_smem(Ctx *ctx, TirFunc *f)
{
    ExchangeVec ex = {0};
    plan_block(&ctx->arena, f->body, true, &ex);
    int max0 = 0, max1 = 0;
    for (int i = 0; i < ex.len; i++) {
        int *m = i % 2 ? &max1 : &max0;
        if (ex.data[i].op->smem_bytes > *m)
            *m = ex.data[i].op->smem_bytes;
    }
    int off1 = ex.len > 1 ? (max0 + 15) & ~15 : 0;
    for (int i = 0; i < ex.len; i++) {
        Op *op = ex.data[i].op;
        op->smem_offset = i % 2 ? off1 : 0;
        op->smem_keep_sync = !(ex.data[i].top && (i + 1 == ex.len || ex.data[i + 1].top));
    }
    f->smem_bytes = ex.len ? ((ex.len > 1 ? off1 + max1 : max0) + 15) & ~15 : 0;
}

/*
 * smem.c — the kernel's shared memory: which exchanges need a buffer, how
 * large, how each buffer is stored (swizzle, padding), and where each lives
 * in the one arena.
 *
 * Exchanges: a layout conversion writes the tile in row-major order and
 * reads it back in the new layout; a reduction across warps writes one
 * partial per warp along the axis; a scan across warps writes each warp's
 * total; a scalar atomic broadcasts the old value.  Each has a barrier
 * between its writes and its reads.
 *
 * Storage: a conversion buffer is XOR-swizzled within its rows (Triton's
 * form, see SmemLayout in tir.h) and/or padded.  The static bank-conflict
 * counter (smem_count_extra, banks.c) tries the candidates and keeps the
 * cheapest with no extra shared-memory wavefronts on either the writes or the
 * reads: none when the plain buffer is already free, else a swizzle (no
 * memory), else the least padding, alone or under a swizzle.
 *
 * Arena: a buffer lives from its writes until every warp has read it.  When
 * its reads end with a barrier that is the end; in straight-line code the
 * barrier is left out and the buffer lives on until the next exchange's
 * barrier, so the two must not overlap.  Buffers whose lifetimes do not
 * overlap share bytes; offsets come from first-fit, largest buffer first
 * (tir_smem).
 */
#include "tir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int numel_of(const int *shape, int rank)
{
    int n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    return n;
}

/* The row-major element index that each lane touches in every warp-wide
 * access of a tile in layout m: (warps x registers) accesses of 32 lanes,
 * one element each.  Laid out once per exchange; every storage candidate
 * only re-counts. */
static int *tile_accesses(Arena *a, const LayoutMap *m, int *naccess)
{
    *naccess = (1 << m->nwarp) << m->nreg;
    int *lin = NEW_ARRAY(a, int, (size_t)*naccess * 32), *p = lin, c[TIR_MAX_RANK];
    for (int w = 0; w < (1 << m->nwarp); w++)
        for (int r = 0; r < (1 << m->nreg); r++)
            for (int l = 0; l < 32; l++) {
                lmap_coords(m, r, l, w, c);
                *p++ = smem_row_major(m->shape, m->rank, c);
            }
    return lin;
}

/* Both sides of a conversion: the producer's writes (one element each) and
 * the consumer's reads (runs of rvec consecutive elements each). */
typedef struct ConvertAccesses {
    int *write, nwrite, *read, nread;
    int wvec, rvec;     /* elements per write of the source, per read of the result */
    int hint;   /* the access that last showed a conflict: tried first */
} ConvertAccesses;

/* An access of vec registers is the access of its first one: keep every
 * vec-th register's 32 lanes. */
static void first_of_runs(int *lanes, int *n, int vec)
{
    for (int i = 0; i < *n / vec; i++)
        memmove(lanes + 32 * i, lanes + 32 * i * vec, 32 * sizeof *lanes);
    *n /= vec;
}

static ConvertAccesses convert_accesses(Arena *a, const Op *op, int wvec, int rvec)
{
    LayoutMap s, d;
    value_map(op->args[0], &s);
    value_map(op->results[0], &d);
    ConvertAccesses ca = {.wvec = wvec, .rvec = rvec};
    ca.write = tile_accesses(a, &s, &ca.nwrite);
    ca.read = tile_accesses(a, &d, &ca.nread);
    first_of_runs(ca.write, &ca.nwrite, wvec);
    first_of_runs(ca.read, &ca.nread, rvec);
    return ca;
}

static int convert_conflicts(const ConvertAccesses *ca, const SmemLayout *l, int limit)
{
    int w = smem_count_extra(l, ca->write, ca->nwrite, ca->wvec, limit);
    return w > limit ? w : w + smem_count_extra(l, ca->read, ca->nread, ca->rvec, limit - w);
}

/* The widest access (elements) value v's registers allow in a row-major
 * buffer: its run of consecutive registers along the last dimension, at
 * most 16 bytes. */
static int convert_max_vec(const Value *v, int bytes)
{
    LayoutMap m;
    value_map(v, &m);
    int vec = 1 << lmap_lead_bits(&m, m.rank - 1);
    while (vec > 1 && vec * bytes > 16)
        vec /= 2;
    return vec;
}

/* Can storage l hold runs of vec elements contiguous and aligned? */
static bool keeps_runs(const SmemLayout *l, int vec)
{
    if (!smem_swizzle_none(l->swz) && l->swz.vec < vec)
        return false;
    return !l->pad || ((1 << l->pad_log2) >= vec && l->pad % vec == 0);
}

/* Is the conversion conflict-free when stored as `l`?  Most candidates fail,
 * and usually on the access that failed the one before: it goes first. */
static bool convert_free(ConvertAccesses *ca, const SmemLayout *l)
{
    int n = ca->nwrite + ca->nread;
    for (int j = 0; j < n; j++) {
        int i = (ca->hint + j) % n;
        bool w = i < ca->nwrite;
        const int *lanes = w ? ca->write + 32 * i : ca->read + 32 * (i - ca->nwrite);
        if (smem_count_extra(l, lanes, 1, w ? ca->wvec : ca->rvec, INT_MAX)) {
            ca->hint = i;
            return false;
        }
    }
    return true;
}

int smem_convert_conflicts(const Op *op, const SmemLayout *l, int wvec, int rvec)
{
    Arena a = {0};
    ConvertAccesses ca = convert_accesses(&a, op, wvec, rvec);
    int c = convert_conflicts(&ca, l, INT_MAX);
    arena_free(&a);
    return c;
}

/* The swizzles worth trying on rows of 2^row_log2 elements: the XORed
 * columns stay within one 128-byte line of banks and within the row, the
 * vector is at most 16 bytes, and every phase is reached by some row.  Fewer
 * phases first. */
static int swizzle_candidates(int row_log2, int rows, int bytes, SmemSwizzle *out, int max)
{
    int n = 0, width = 1 << row_log2;
    for (int mp = 2; mp <= rows && mp * bytes <= 128 && mp <= width; mp *= 2)
        for (int pp = 1; pp * mp <= rows; pp *= 2)
            for (int vec = 1; vec * bytes <= 16 && vec * mp <= width && vec * mp * bytes <= 128; vec *= 2)
                if (n < max)
                    out[n++] = (SmemSwizzle){vec, pp, mp};
    return n;
}

typedef struct Padding {
    int log2, pad, extra;   /* extra: elements it adds to the buffer */
} Padding;

static int padding_cmp(const void *a, const void *b)
{
    const Padding *x = a, *y = b;
    if (x->extra != y->extra)
        return x->extra - y->extra;
    return x->pad - y->pad;
}

/* Whole words after every 2^k elements (at least 32 elements or a 128-byte
 * line), least memory first. */
static int padding_candidates(int n, int bytes, Padding *out, int max)
{
    int unit = bytes >= 4 ? 1 : 4 / bytes, count = 0;
    for (int k = bytes > 4 ? log2_int(128 / bytes) : 5; (1 << k) < n; k++)
        for (int p = 1; p <= 8; p *= 2)
            if (count < max)
                out[count++] = (Padding){.log2 = k, .pad = p * unit, .extra = ((n - 1) >> k) * p * unit};
    qsort(out, (size_t)count, sizeof *out, padding_cmp);
    return count;
}

/* The longer of a conversion's write and read runs: the storage must keep it whole */
static int widest_run(const ConvertAccesses *ca)
{
    return ca->wvec > ca->rvec ? ca->wvec : ca->rvec;
}

/* `l` under the first of the swizzles that frees it of conflicts, if any. */
static bool first_free_swizzle(ConvertAccesses *ca, SmemLayout l, const SmemSwizzle *swz, int nswz, SmemLayout *out)
{
    for (int s = 0; s < nswz; s++) {
        l.swz = swz[s];
        if (!keeps_runs(&l, widest_run(ca)))
            continue;
        if (convert_free(ca, &l)) {
            *out = l;
            return true;
        }
    }
    return false;
}

/* The first conflict-free storage: plain, a swizzle, else the least
 * padding, alone or under a swizzle; each keeping the reads' runs whole. */
static bool first_free(ConvertAccesses *ca, SmemLayout plain, const SmemSwizzle *swz, int nswz, const Padding *pads,
                       int npad, SmemLayout *out)
{
    if (convert_free(ca, &plain)) {
        *out = plain;
        return true;
    }
    if (first_free_swizzle(ca, plain, swz, nswz, out))
        return true;
    for (int p = 0; p < npad; p++) {
        SmemLayout l = plain;
        l.pad_log2 = pads[p].log2, l.pad = pads[p].pad;
        if (!keeps_runs(&l, widest_run(ca)))
            continue;
        if (convert_free(ca, &l)) {
            *out = l;
            return true;
        }
        if (first_free_swizzle(ca, l, swz, nswz, out))
            return true;
    }
    return false;
}

/* The bytes n elements take stored as l (its padding included). */
static int smem_layout_bytes(const SmemLayout *l, int n)
{
    return (smem_padded(n - 1, l->pad_log2, l->pad) + 1) * l->elem_bytes;
}

static void plan_convert(Arena *a, Op *op, bool wide_writes)
{
    Type t = op->args[0]->type;
    int n = type_numel(t), bytes = smem_elem_bytes(t);
    SmemLayout plain = {.elem_bytes = bytes, .row_log2 = log2_int(t.shape[t.rank - 1]), .swz = {1, 1, 1}}, best = plain;
    SmemSwizzle swz[1024];
    Padding pads[96];
    int nswz = swizzle_candidates(plain.row_log2, n >> plain.row_log2, bytes, swz, (int)ARRAY_LEN(swz));
    int npad = padding_candidates(n, bytes, pads, (int)ARRAY_LEN(pads));
    ConvertAccesses ca = convert_accesses(a, op, 1, 1);
    int conflicts = convert_conflicts(&ca, &plain, INT_MAX);
    op->smem_plain_conflicts = conflicts;
    /* the first conflict-free candidate, for the widest reads the result's
     * layout allows (one vector per run of consecutive elements), then
     * narrower ones.  In kernels on wgmma, the source's runs are written
     * whole where that costs no more bytes than writing them one element at
     * a time (a mirror along the last dimension writes its runs reversed: one
     * by one): written from single roundings, a persistent matmul's store
     * branch made ptxas 13.0 serialize the wgmma groups it keeps in flight
     * (C7514).  Where nothing asks for them they are left out: a 128x256
     * matmul's epilogue took the same time either way (H200), and in an
     * mma.sync kernel at a 128-register cap they took a register more (a
     * 4-byte spill in examples/matmul.py's linear_gelu). */
    bool found = false;
    op->smem_read_vec = op->smem_write_vec = 1;
    int wmax = !wide_writes || (op->kind == OP_FLIP && op->flip.axis == t.rank - 1) ? 1
                                                                                   : convert_max_vec(op->args[0], bytes);
    for (int rvec = convert_max_vec(op->results[0], bytes); rvec >= 1 && !found; rvec /= 2) {
        ConvertAccesses cv = convert_accesses(a, op, 1, rvec);
        found = first_free(&cv, plain, swz, nswz, pads, npad, &best);
        if (found)
            op->smem_read_vec = rvec;
        SmemLayout wide;
        if (wmax > 1) {
            ConvertAccesses cw = convert_accesses(a, op, wmax, rvec);
            if (first_free(&cw, plain, swz, nswz, pads, npad, &wide) &&
                (!found || smem_layout_bytes(&wide, n) <= smem_layout_bytes(&best, n))) {
                best = wide, found = true;
                op->smem_read_vec = rvec, op->smem_write_vec = wmax;
            }
        }
    }
    if (found)
        conflicts = 0;
    else /* none is free: the fewest conflicts of one swizzle or one padding */
        for (int i = 0; i < nswz + npad; i++) {
            SmemLayout l = plain;
            if (i < nswz)
                l.swz = swz[i];
            else
                l.pad_log2 = pads[i - nswz].log2, l.pad = pads[i - nswz].pad;
            int c = convert_conflicts(&ca, &l, conflicts - 1);
            if (c < conflicts)
                best = l, conflicts = c;
        }
    if (found) { /* what the storage buys: the plain buffer's conflicts under the same accesses */
        ConvertAccesses cf = convert_accesses(a, op, op->smem_write_vec, op->smem_read_vec);
        op->smem_plain_conflicts = convert_conflicts(&cf, &plain, INT_MAX);
    }
    op->smem_layout = best;
    op->smem_conflicts = conflicts;
    op->smem_bytes = smem_layout_bytes(&best, n);
}

/* the axis a reduction or a scan runs along */
static int op_axis(const Op *op) { return op->kind == OP_REDUCE ? op->reduce.axis : op->scan.axis; }

static void op_axis_bits(const Op *op, AxisBits *ab)
{
    LayoutMap m;
    value_map(op->args[0], &m);
    axis_bits(&m, op_axis(op), ab);
}

/* warps along the reduced axis: 2^k of them exchange partials */
int reduce_warp_bits(const Op *op)
{
    AxisBits ab;
    op_axis_bits(op, &ab);
    return ab.nwarp;
}

/* A combine's partials, `n` per operand: one array per operand, each 8-byte aligned. */
int combine_partials_bytes(const Op *op, int n)
{
    int bytes = 0;
    for (int k = 0; k < op->nargs; k++)
        bytes += (n * smem_elem_bytes(op->args[k]->type) + 7) & ~7;
    return bytes;
}

static void plan_reduce(Op *op)
{
    int k = reduce_warp_bits(op);
    if (!k)
        return;
    Type r = op->results[0]->type;
    int n = numel_of(r.shape, r.rank) << k;
    if (op->reduce.kind == RED_COMBINE) {
        op->smem_bytes = combine_partials_bytes(op, n);
        return;
    }
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
    int n = type_numel(t) / t.shape[op->scan.axis];
    if (op->scan.kind == SCAN_COMBINE) {
        op->smem_bytes = combine_partials_bytes(op, n << ab.nwarp << ab.nrep);
        return;
    }
    op->smem_bytes = (n << ab.nwarp << ab.nrep) * smem_elem_bytes(t);
}

/* the whole tile, row-major, when warps hold positions along the sorted (last)
 * dimension: each bitonic step across warps writes every element and reads
 * its partner's; tl.topk's result, handed over to its own layout, in the same
 * bytes afterwards */
static void plan_sort(Op *op)
{
    Type t = op->args[0]->type;
    LayoutMap m;
    AxisBits ab;
    value_map(op->args[0], &m);
    axis_bits(&m, t.rank - 1, &ab);
    if (ab.nwarp)
        op->smem_bytes = type_numel(t) * smem_elem_bytes(t);
    if (op->sort.k) {
        int result = type_numel(op->results[0]->type) * smem_elem_bytes(t);
        op->smem_bytes = result > op->smem_bytes ? result : op->smem_bytes;
    }
}

typedef struct Exchange {
    Op *op;
    bool top;        /* straight-line code of the kernel body, not inside a loop or branch */
    int first, last; /* the exchanges (indices) during which its buffer is live */
    int builds;      /* the builds in which it runs: BUILD_TMA, BUILD_OTHER or both */
} Exchange;

enum { BUILD_TMA = 1, BUILD_OTHER = 2 }; /* sm_90a's TMA paths; every other target */

typedef Vec(Exchange) ExchangeVec;

static void plan_block(Arena *a, Block *b, bool top, bool wide_writes, ExchangeVec *ex)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            plan_block(a, op->regions[r], false, wide_writes, ex);
        op->smem_bytes = 0;
        op->smem_offset = 0;
        op->smem_keep_sync = true;
        op->smem_loop_frees = false;
        op->smem_conflicts = op->smem_plain_conflicts = 0;
        switch (op->kind) {
        case OP_CONVERT:
            if (dot_operand_in_registers(op))
                break;
            if (is_dot_stage(op))
                dot_plan_stage(a, op);
            else
                plan_convert(a, op, wide_writes);
            break;
        case OP_LOCAL_LOAD:
            if (!op->buf) /* a ring; else the local_alloc's buffer */
                dot_plan_stage(a, op);
            break;
        case OP_LOCAL_ALLOC: op->smem_bytes = dot_stage_slot_bytes(op->stage); break;
        case OP_GATHER: /* the whole source, row-major: any thread may read any element */
            op->smem_bytes = type_numel(op->args[0]->type) * smem_elem_bytes(op->args[0]->type);
            break;
        case OP_FLIP: /* across threads: each element written at its mirrored place */
            if (!flip_in_registers(op))
                plan_convert(a, op, wide_writes);
            break;
        case OP_DOT:
            if (!dot_uses_mma(op))
                dot_plan_fma(op);
            break;
        case OP_REDUCE: plan_reduce(op); break;
        case OP_SCAN: plan_scan(op); break;
        case OP_SORT: plan_sort(op); break;
        case OP_HISTOGRAM: op->smem_bytes = op->results[0]->type.shape[0] * 4; break; /* the counters */
        case OP_STORE: /* a descriptor store's staging buffer for TMA (tma_store.c) */
            if (op->store.tma_map)
                op->smem_bytes = dot_stage_slot_bytes(op->stage);
            break;
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            if (!op->args[0]->type.rank && op->results[0]->nuses)
                op->smem_bytes = 8;
            break;
        default: break;
        }
        if (op->smem_bytes)
            vec_push(a, ex, ((Exchange){.op = op, .top = top}));
    }
}

static int align16(int x) { return (x + 15) & ~15; }

/* Which builds run each exchange.  A TMA descriptor store runs under sm_90a
 * only, and the ops only its pointer store reads (tir_tma_pointer_path) only
 * in the #else of other targets; the rest run in every build. */
static void mark_builds(Arena *a, ExchangeVec *ex)
{
    for (int i = 0; i < ex->len; i++)
        ex->data[i].builds = BUILD_TMA | BUILD_OTHER;
    for (int j = 0; j < ex->len; j++) {
        const Op *st = ex->data[j].op;
        if (st->kind != OP_STORE || !st->store.tma_map)
            continue;
        ex->data[j].builds = BUILD_TMA;
        OpVec path = tir_tma_pointer_path(a, st);
        for (int k = 0; k < ex->len; k++)
            if (opvec_has(&path, ex->data[k].op))
                ex->data[k].builds = BUILD_OTHER;
    }
}

/* The last exchange whose barrier may be the first to follow exchange i's
 * reads: in each build that runs i, the next exchange that build runs; the
 * buffer must stay apart from everything up to the later of them (ex->len
 * where a build runs none after i). */
static int freeing_exchange(const ExchangeVec *ex, int i)
{
    int last = i + 1;
    for (int b = BUILD_TMA; b <= BUILD_OTHER; b <<= 1) {
        if (!(ex->data[i].builds & b))
            continue;
        int j = i + 1;
        while (j < ex->len && !(ex->data[j].builds & b))
            j++;
        if (j > last)
            last = j;
    }
    return last;
}

/* Does b (or a block inside it) hold a copy into ring? (A loop that does is the
 * ring's prologue or its loop.) */
static bool copies_into(const Block *b, const Op *ring)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op->kind == OP_ASYNC_COPY && op->buf == ring)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (copies_into(op->regions[r], ring))
                return true;
    }
    return false;
}

typedef struct BySize {
    int bytes, index;
} BySize;

/* decreasing size, then program order */
static int larger_first(const void *a, const void *b)
{
    const BySize *x = a, *y = b;
    return x->bytes != y->bytes ? y->bytes - x->bytes : x->index - y->index;
}

/* Is exchange j's life its own step and at most the next (straight-line exchanges and
 * those in loops and branches), not stretched over a loop (rings, loop-invariant operands)? */
static bool short_lived(const ExchangeVec *ex, int j)
{
    return ex->data[j].first == j && ex->data[j].last <= j + 1;
}

/* The exchanges whose buffers may be live with exchange i's, ascending, into cand: the
 * long-lived ones (`longs`, ascending) merged with the short-lived ones from exchange
 * first-1 to last.  Its count. */
static int meeting(const ExchangeVec *ex, const int *longs, int nlongs, int i, int *cand)
{
    int lo = ex->data[i].first > 0 ? ex->data[i].first - 1 : 0;
    int hi = ex->data[i].last < ex->len - 1 ? ex->data[i].last : ex->len - 1;
    int n = 0, l = 0;
    for (int w = lo; w <= hi; w++) {
        if (!short_lived(ex, w))
            continue; /* among the longs */
        while (l < nlongs && longs[l] < w)
            cand[n++] = longs[l++];
        cand[n++] = w;
    }
    while (l < nlongs)
        cand[n++] = longs[l++];
    return n;
}

/* The lowest 16-byte-aligned offset where exchange i's buffer overlaps no
 * placed buffer whose lifetime meets its own.  Only the candidates `meeting`
 * finds are looked at, in the ascending order a scan of all would meet them
 * (so every offset is as that scan gives it), so that a kernel of thousands
 * of exchanges is not placed in quadratic time. */
static int first_fit(const ExchangeVec *ex, const bool *placed, const int *cand, int ncand, int i)
{
    const Op *op = ex->data[i].op;
    int size = op->smem_bytes, off = 0;
    int align = op->stage ? dot_stage_align(op->stage) : 16; /* NVMMA slots: their swizzle pattern's size */
    for (bool moved = true; moved;) {
        moved = false;
        for (int c = 0; c < ncand; c++) {
            const Exchange *o = &ex->data[cand[c]];
            bool live_together = !(o->last < ex->data[i].first || ex->data[i].last < o->first);
            if (!placed[cand[c]] || !live_together)
                continue;
            int lo = o->op->smem_offset, hi = lo + o->op->smem_bytes;
            if (off < hi && lo < off + size) {
                off = (hi + align - 1) / align * align;
                moved = true;
            }
        }
    }
    return off;
}

/* Is op inside loop (in its body or deeper)? */
static bool inside(const Op *op, const Op *loop)
{
    return tir_block_encloses(loop->regions[0], op->parent);
}

/* The index in b of the op that is or holds op, or -1. */
static int index_in(const Block *b, const Op *op)
{
    while (op && op->parent != b)
        op = op->parent ? op->parent->parent : NULL;
    return op ? tir_op_index(b, op) : -1;
}

static bool is_copy_wait(const Op *op) { return op && op->kind == OP_ASYNC_WAIT && !op->async_wait.tma; }

/* Exchange i is the last one in the body of a software-pipelined loop whose
 * body waits for its cp.async copies (and __syncthreads) before its first
 * exchange, and which is followed by the same wait.  Every warp reaches the
 * next step's wait, or the one after the loop, only once it has read the
 * buffer; nothing writes it before then, the ring's slots being live beside
 * it.  So its reads need no barrier of their own, as Triton's pipelined loops
 * have none there. */
static bool freed_by_loop_waits(const ExchangeVec *ex, int i)
{
    const Op *op = ex->data[i].op;
    const Block *body = op->parent;
    const Op *loop = body->parent;
    if (op->kind == OP_LOCAL_LOAD || !loop || loop->kind != OP_FOR || !loop->parent)
        return false;
    if (i + 1 < ex->len && inside(ex->data[i + 1].op, loop))
        return false;
    int first = i;
    while (first > 0 && inside(ex->data[first - 1].op, loop))
        first--;
    int wait = -1, at = index_in(body, ex->data[first].op);
    for (int k = 0; k < at && wait < 0; k++)
        if (is_copy_wait(body->ops.data[k]))
            wait = k;
    if (wait < 0)
        return false;
    const Block *outer = loop->parent;
    int l = index_in(outer, loop);
    return l + 1 < outer->ops.len && is_copy_wait(outer->ops.data[l + 1]);
}

/* Each exchange has a barrier between its writes and its reads.  In
 * straight-line code, when the next exchange is straight-line too, it needs
 * no barrier after its reads: the next exchange's barrier, which every warp
 * reaches only once it has finished reading, frees the buffer for whatever
 * comes after.  Until then the buffer must not overlap the next exchange's.
 * Inside loops and branches, and before them, the trailing barrier stays and
 * the buffer's life ends with its exchange.  The arena holds every buffer at
 * an offset from these lifetimes. */
void tir_smem(Ctx *ctx, TirFunc *f)
{
    ExchangeVec ex = {0};
    plan_block(&ctx->arena, f->body, true, f->uses_wgmma, &ex);
    mark_builds(&ctx->arena, &ex);
    for (int i = 0; i < ex.len; i++) {
        Exchange *e = &ex.data[i];
        /* not a dot operand staged for wgmma, which reads it asynchronously and may still
         * do so past the next step's barrier */
        bool async_reader = f->uses_wgmma && is_dot_stage(e->op);
        e->op->smem_loop_frees = !e->top && !async_reader && freed_by_loop_waits(&ex, i);
        e->op->smem_keep_sync = !(e->top && (i + 1 == ex.len || ex.data[i + 1].top)) && !e->op->smem_loop_frees;
        e->first = i;
        e->last = e->op->smem_keep_sync ? i : freeing_exchange(&ex, i);
    }
    /* a pipeline ring (local_load) holds data in flight for the whole loop, and
     * from the prologue's copies on: it is live together with every exchange inside
     * that loop and its prologue (which may exchange a gathered index, pipeline.c) */
    for (int i = 0; i < ex.len; i++) {
        Exchange *e = &ex.data[i];
        if (e->op->kind != OP_LOCAL_LOAD)
            continue;
        if (e->op->stage && e->op->stage->producer) { /* the producer fills it at any time */
            e->first = 0;
            e->last = ex.len - 1;
            continue;
        }
        const Op *loop = e->op->parent->parent;
        for (int j = 0; j < ex.len; j++)
            for (const Op *o = ex.data[j].op; o; o = o->parent ? o->parent->parent : NULL)
                if (o == loop || (o->kind == OP_FOR && o->parent == loop->parent && copies_into(o->regions[0], e->op))) {
                    e->first = j < e->first ? j : e->first;
                    e->last = j > e->last ? j : e->last;
                    break;
                }
    }
    /* a loop-invariant dot operand (local_alloc, dot_reload.c) is read in every
     * iteration of the loop after it: live until that loop ends, where a barrier frees it */
    for (int i = 0; i < ex.len; i++) {
        Exchange *e = &ex.data[i];
        if (e->op->kind != OP_LOCAL_ALLOC)
            continue;
        const Op *holder = e->op->buf;
        while (holder->parent != e->op->parent)
            holder = holder->parent->parent;
        for (int j = i + 1; j < ex.len; j++)
            for (const Op *o = ex.data[j].op; o; o = o->parent ? o->parent->parent : NULL)
                if (o == holder) {
                    e->last = j > e->last ? j : e->last;
                    break;
                }
    }
    /* an operand written just before its tl.dot (local_alloc_beside) is read there, after
     * the exchanges between (the other operand's stores): live until then; the barrier
     * after the dot (dot_reload.c) frees it */
    for (int i = 0; i < ex.len; i++) {
        Exchange *e = &ex.data[i];
        if (!local_alloc_beside(e->op))
            continue;
        const Block *b = e->op->parent;
        int read_at = tir_op_index(b, e->op->buf);
        for (int j = i + 1; j < ex.len; j++) {
            int at = index_in(b, ex.data[j].op);
            if (at < 0 || at > read_at)
                break;
            e->last = j > e->last ? j : e->last;
        }
    }
    BySize *order = NEW_ARRAY(&ctx->arena, BySize, (size_t)ex.len + 1);
    bool *placed = NEW_ARRAY(&ctx->arena, bool, (size_t)ex.len + 1);
    for (int i = 0; i < ex.len; i++)
        order[i] = (BySize){.bytes = ex.data[i].op->smem_bytes, .index = i};
    qsort(order, (size_t)ex.len, sizeof *order, larger_first);
    int *longs = NEW_ARRAY(&ctx->arena, int, (size_t)ex.len + 1), nlongs = 0;
    for (int j = 0; j < ex.len; j++)
        if (!short_lived(&ex, j))
            longs[nlongs++] = j;
    int *cand = NEW_ARRAY(&ctx->arena, int, (size_t)ex.len + 1);
    int total = 0;
    for (int k = 0; k < ex.len; k++) {
        int i = order[k].index;
        Op *op = ex.data[i].op;
        int ncand = meeting(&ex, longs, nlongs, i, cand);
        op->smem_offset = first_fit(&ex, placed, cand, ncand, i);
        placed[i] = true;
        if (op->smem_offset + op->smem_bytes > total)
            total = op->smem_offset + op->smem_bytes;
    }
    /* the TMA rings' barriers live as long as the kernel: after everything else */
    total = (total + 7) & ~7;
    for (int i = 0; i < f->tma_rings.len; i++) {
        f->tma_rings.data[i].smem_offset = total;
        total += tir_tma_ring_barrier_bytes(f, &f->tma_rings.data[i]);
    }
    f->smem_bytes = align16(total);
}

/*
 * dot.c — how tl.dot's operands reach the tensor cores: the shared-memory
 * staging buffer of each operand (shape, swizzle, ldmatrix or not) and the
 * FMA path's buffers.  The software pipeline of a K loop that fills the
 * buffers is pipeline.c.
 *
 * An operand tile is stored with the contiguous dimension of the layout it
 * arrives in (a row-major A keeps K contiguous, a row-major B keeps N), in
 * rows of `cols` elements, swizzled as Triton does for mma.sync operands
 * so that the eight row addresses of one ldmatrix
 * fall in eight different bank groups.  16-bit operands are read with
 * ldmatrix, transposing (.trans) when K is not the contiguous dimension;
 * 8- and 32-bit ones with ldmatrix when K is contiguous, else element by
 * element.  dot_ldmatrix says which bits of the lane, the warp and the
 * ldmatrix's number address which bits of the buffer's row and column; the
 * emitter prints its addresses from that.
 */
#include "tir.h"

#include <limits.h>
#include <string.h>

#define IMAX(a, b) ((a) > (b) ? (a) : (b))
#define IMIN(a, b) ((a) < (b) ? (a) : (b))


SmemSwizzle dot_operand_swizzle(int op_idx, DType d, int cols, int contig_dim)
{
    int bits = dtype_bits(d);
    int kdim = op_idx == 0 ? 1 : 0;
    int per_phase = IMAX(1024 / (bits * cols), 1);
    int mma_stride = 8;
    int vec = 4 * dot_kwidth(d);
    if (contig_dim != kdim) {
        int t = vec;
        vec = mma_stride;
        mma_stride = t;
    }
    int max_phase = IMAX(IMIN(mma_stride, 1024 / (vec * bits)), 1);
    max_phase = IMAX(max_phase / per_phase, 1);
    return (SmemSwizzle){vec, per_phase, max_phase};
}

/* The buffer's element of operand coordinates c (rank 2, or 3 with the batch first). */
static int stage_elem(const DotStage *s, int rank, const int *c)
{
    int o = rank - 2, b = o ? c[0] : 0;
    return (b * s->rows + c[o + 1 - s->contig_dim]) * s->cols + c[o + s->contig_dim];
}

/* Extra wavefronts of the warp-wide accesses of layout map m (operand
 * coordinates) to stage s stored as l, `vec` consecutive registers per
 * access. */
static int stage_conflicts(const DotStage *s, const SmemLayout *l, const LayoutMap *m, int vec)
{
    int total = 0, lin[32], c[TIR_MAX_RANK];
    for (int w = 0; w < 1 << m->nwarp; w++)
        for (int r = 0; r < 1 << m->nreg; r += vec) {
            for (int lane = 0; lane < 32; lane++) {
                lmap_coords(m, r, lane, w, c);
                lin[lane] = stage_elem(s, m->rank, c);
            }
            total += smem_count_extra(l, lin, 1, vec, INT_MAX);
        }
    return total;
}

/* Extra wavefronts of every fragment read (rd) and, where the source is a
 * blocked tile, every write of `vec` elements (wr) on stage s stored as l. */
static int element_read_cost(const DotStage *s, const SmemLayout *l, const LayoutMap *rd, const LayoutMap *wr, int vec)
{
    return stage_conflicts(s, l, rd, 1) + (wr ? stage_conflicts(s, l, wr, vec) : 0);
}

/* An operand read element by element (8- or 32-bit, K not contiguous): the
 * lanes of one fragment read span a few rows of the buffer (B's lane % 4
 * picks the K row), and unswizzled rows of a power-of-two width put those
 * rows in the same banks.  Two ways out, the one with the fewest bank
 * conflicts over the writes (16-byte chunks of the source layout) and every
 * fragment read winning, then the one with the least memory:
 *   - an XOR swizzle of chunks of `vec` elements (at least 16 bytes, so that
 *     cp.async's chunks stay whole), chunk c of row r stored at chunk
 *     c ^ (r % maxPhase): no memory, and each element's address is the
 *     thread's base XOR a constant, which costs ptxas an address register
 *     or two (Triton's choice for these operands);
 *   - `pad` elements (a multiple of 16 bytes) after every 2^g rows: each
 *     address stays the thread's base plus a constant, but the buffer grows
 *     (attorch's 32x32 fp32 weights, N contiguous: 32 bytes after each
 *     128-byte row, a quarter more, 18 KB a block at 2 stages where the
 *     swizzle takes 16, 12 blocks per SM instead of 13).
 * On a tie the swizzle wins, having no extra bytes. */
static void stage_for_element_reads(DotStage *s, const Value *src, const Layout *to)
{
    int eb = dtype_bits(s->dtype) / 8;
    LayoutMap rd, wr;
    int rank = src->type.rank;
    layout_map(to, rank, src->type.shape, &rd);
    bool writes = src->layout && src->layout->kind == LAYOUT_BLOCKED;
    int vec = 1;
    if (writes) {
        layout_map(src->layout, rank, src->type.shape, &wr);
        vec = IMIN(1 << lmap_lead_bits(&wr, rank - 2 + s->contig_dim), 16 / eb);
    }
    const LayoutMap *w = writes ? &wr : NULL;
    SmemLayout l = {.elem_bytes = eb, .row_log2 = log2_int(s->cols), .swz = {1, 1, 1}}; /* plain first */
    int best = element_read_cost(s, &l, &rd, w, vec), best_mem = 0;
    s->swz = (SmemSwizzle){1, 1, 1};
    s->pad_rows_log2 = s->pad = 0;
    for (int chunk = 16 / eb; chunk * 2 <= s->cols; chunk *= 2)
        for (int phases = 2; phases * chunk <= s->cols && phases <= 8; phases *= 2) {
            l.swz = (SmemSwizzle){chunk, 1, phases};
            int cost = element_read_cost(s, &l, &rd, w, vec);
            if (cost < best) {
                best = cost;
                s->swz = l.swz;
            }
        }
    l.swz = (SmemSwizzle){1, 1, 1};
    for (int g = 0; g <= 3; g++)
        for (int bytes = 16; bytes <= 64; bytes *= 2) {
            l.pad_log2 = log2_int(s->cols) + g;
            l.pad = bytes / eb;
            int cost = element_read_cost(s, &l, &rd, w, vec);
            int mem = (s->batch * s->rows >> g) * l.pad;
            if (cost < best || (cost == best && best_mem && mem < best_mem)) {
                best = cost, best_mem = mem;
                s->swz = (SmemSwizzle){1, 1, 1};
                s->pad_rows_log2 = g;
                s->pad = l.pad;
            }
        }
}

/* A convert into an mma operand layout whose every thread already holds the
 * elements of its fragments: the accumulator of a dot with all warps on M
 * feeding the next dot as A (attention's p @ v), as Triton's register
 * shortcut from the mma layout to the dot operand does.  No shared memory. */
bool dot_operand_in_registers(const Op *op)
{
    if (op->kind != OP_CONVERT || !op->results[0]->layout || op->results[0]->layout->kind != LAYOUT_DOTOP ||
        !op->args[0]->layout || op->args[0]->layout->kind != LAYOUT_MMA)
        return false;
    LayoutMap sm, dm;
    value_map(op->args[0], &sm);
    value_map(op->results[0], &dm);
    return lmap_local(&sm, -1, &dm, NULL);
}

bool is_dot_stage(const Op *op)
{
    return (op->kind == OP_CONVERT || op->kind == OP_LOCAL_LOAD) && op->results[0]->layout &&
           op->results[0]->layout->kind == LAYOUT_DOTOP && !dot_operand_in_registers(op);
}

/* The staging of the operand `src` (a tile in operand coordinates) for the
 * dot operand layout `to`, in `nslots` buffers.  `kept`: the buffer is one a
 * dot reads in place (a pipeline ring, or a loop-invariant operand's
 * buffer, dot_reload.c), which wgmma may read through a descriptor. */
DotStage *dot_stage_for(Arena *a, const TirFunc *f, const Value *src, const Layout *to, int nslots, bool kept)
{
    DotStage *s = NEW(a, DotStage);
    s->op_idx = to->op_idx;
    s->dtype = src->type.dtype;
    int kdim = s->op_idx == 0 ? 1 : 0, o = src->type.rank - 2;
    /* the contiguous one of the tile's two dimensions (K, should a 3-D source run fastest along its batch) */
    s->contig_dim = src->layout && src->layout->kind == LAYOUT_BLOCKED && src->layout->order[0] >= o
                        ? src->layout->order[0] - o : kdim;
    s->rows = src->type.shape[o + 1 - s->contig_dim];
    s->cols = src->type.shape[o + s->contig_dim];
    s->batch = o ? src->type.shape[0] : 1;
    s->nslots = nslots;
    int bits = dtype_bits(s->dtype);
    s->ldmatrix = bits == 16 || s->contig_dim == kdim;
    s->trans = s->ldmatrix && s->contig_dim != kdim;
    s->swz = dot_operand_swizzle(s->op_idx, s->dtype, s->cols, s->contig_dim);
    /* a kept operand of a dot wgmma may run (an accumulator in the wgmma map,
     * wgmma.c), K-major, or a 16-bit B MN-major (N contiguous): Triton's NVMMA
     * layout, which ldmatrix reads as well */
    const Layout *acc = to->parent;
    bool wgmma_major = s->contig_dim == kdim || (bits == 16 && s->op_idx == 1);
    if (kept && wgmma_major && s->batch == 1 && wgmma_acc_layout(f, acc) && (s->nvmma = dot_nvmma_swizzle(s))) {
        s->swz = dot_nvmma_swizzle_pattern(s);
        return s;
    }
    if (s->swz.vec > s->cols) /* a row narrower than one chunk: nothing to swizzle */
        s->swz = (SmemSwizzle){1, 1, 1};
    if (!s->ldmatrix)
        stage_for_element_reads(s, src, to);
    return s;
}

int dot_stage_slot_elems(const DotStage *s)
{
    int rows = s->batch * s->rows;
    return rows * s->cols + (s->pad ? (rows >> s->pad_rows_log2) * s->pad : 0);
}

int dot_stage_slot_bytes(const DotStage *s) { return dot_stage_slot_elems(s) * dtype_bits(s->dtype) / 8; }

/* An operand coordinate bit as a bit of the buffer's (row, col); a 3-D
 * operand's batch bits are row bits above one tile's rows. */
static LBit stage_bit(const DotStage *s, int rank, LBit b)
{
    if (b.dim < 0)
        return b;
    if (rank == 3 && b.dim == 0)
        return (LBit){0, (int8_t)(log2_int(s->rows) + b.bit)};
    int d = b.dim - (rank - 2);
    return (LBit){(int8_t)(d == s->contig_dim ? 1 : 0), b.bit};
}

/* Fragment word j of ldmatrix q holds registers (group*q + j) * kwidth ..
 * of the map: the register bits above a word's elements are j's (the lane's
 * matrix, l / 8), then q's.  The lane's row l % 8 sets the buffer row's low
 * three bits: eight rows of M (of N for B) when K runs along the columns,
 * eight K when the operand is read transposed. */
void dot_ldmatrix(const DotStage *s, const LayoutMap *m, int kwidth, DotLdmatrix *ld)
{
    memset(ld, 0, sizeof *ld);
    int words = (1 << m->nreg) / kwidth;
    int lw = log2_int(kwidth);
    /* one ldmatrix never spans two batches: the group is counted in one tile's words (of
     * the batches in this thread's registers; others may be other warps') */
    int batches = 1;
    for (int i = 0; m->rank == 3 && i < m->nreg; i++)
        batches <<= m->reg[i].dim == 0;
    ld->group = IMIN(words / batches, 4);
    ld->nmat = log2_int(ld->group);
    ld->nq = log2_int(words / ld->group);
    ld->trans = s->trans;
    for (int i = 0; i < ld->nmat; i++)
        ld->mat[i] = stage_bit(s, m->rank, m->reg[lw + i]);
    for (int i = 0; i < ld->nq; i++)
        ld->q[i] = stage_bit(s, m->rank, m->reg[lw + ld->nmat + i]);
    ld->nwarp = m->nwarp;
    for (int i = 0; i < m->nwarp; i++)
        ld->warp[i] = stage_bit(s, m->rank, m->warp[i]);
}

static void add_bits(const LBit *bits, int n, int x, int *c)
{
    for (int i = 0; i < n; i++)
        if ((x >> i & 1) && bits[i].dim >= 0)
            c[bits[i].dim] += 1 << bits[i].bit;
}

bool dot_ldmatrix_addr(const DotLdmatrix *ld, int lane, int warp, int q, int *row, int *col)
{
    if (lane >= 8 * ld->group)
        return false;
    int c[2] = {lane & 7, 0};
    add_bits(ld->mat, ld->nmat, lane >> 3, c);
    add_bits(ld->warp, ld->nwarp, warp, c);
    add_bits(ld->q, ld->nq, q, c);
    *row = c[0];
    *col = c[1];
    return true;
}

void dot_plan_stage(Arena *a, Op *op)
{
    if (!op->stage)
        op->stage = dot_stage_for(a, NULL, op->args[0], op->results[0]->layout, 1, false);
    op->smem_bytes = dot_stage_slot_bytes(op->stage) * op->stage->nslots;
}

/* The type the FMA path computes in, and stages its operands as: fp64 and
 * fp32 themselves, int8 as int32, the 16- and 8-bit floats as fp32 (their
 * products are exact there, as on the tensor cores Triton pads small dots
 * onto). */
DType dot_fma_dtype(const Op *dot)
{
    DType d = dot->args[0]->type.dtype;
    if (d == DT_FP64 || d == DT_FP32)
        return d;
    return d == DT_I8 ? DT_I32 : DT_FP32;
}

/* The FMA path stages A [M,K] and B [K,N] row-major, B after A. */
int dot_fma_b_offset(const Op *dot)
{
    Type ta = dot->args[0]->type;
    int bytes = type_numel(ta) * dtype_bits(dot_fma_dtype(dot)) / 8;
    return (bytes + 15) & ~15;
}

void dot_plan_fma(Op *dot)
{
    Type tb = dot->args[1]->type;
    dot->smem_bytes = dot_fma_b_offset(dot) + type_numel(tb) * dtype_bits(dot_fma_dtype(dot)) / 8;
}

/*
 * dot.c — how tl.dot's operands reach the tensor cores: the shared-memory
 * staging buffer of each operand (shape, swizzle, ldmatrix or not), the
 * FMA path's buffers, and the software pipeline of a K loop (tir_pipeline).
 *
 * An operand tile is stored with the contiguous dimension of the layout it
 * arrives in (a row-major A keeps K contiguous, a row-major B keeps N), in
 * rows of `cols` elements, swizzled as Triton does for mma.sync operands
 * (triton-internals §4.2) so that the eight row addresses of one ldmatrix
 * fall in eight different bank groups.  16-bit operands are read with
 * ldmatrix, transposing (.trans) when K is not the contiguous dimension;
 * 8- and 32-bit ones with ldmatrix when K is contiguous, else element by
 * element.
 */
#include "tir.h"

#include <string.h>

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

SmemSwizzle dot_operand_swizzle(int op_idx, DType d, int cols, int contig_dim)
{
    int bits = dtype_bits(d);
    int kdim = op_idx == 0 ? 1 : 0;
    int per_phase = imax(1024 / (bits * cols), 1);
    int mma_stride = 8;
    int vec = 4 * dot_kwidth(d);
    if (contig_dim != kdim) {
        int t = vec;
        vec = mma_stride;
        mma_stride = t;
    }
    int max_phase = imax(imin(mma_stride, 1024 / (vec * bits)), 1);
    max_phase = imax(max_phase / per_phase, 1);
    return (SmemSwizzle){vec, per_phase, max_phase};
}

bool is_dot_stage(const Op *op)
{
    return (op->kind == OP_CONVERT || op->kind == OP_LOCAL_LOAD) && op->results[0]->layout &&
           op->results[0]->layout->kind == LAYOUT_DOTOP;
}

/* The staging of the operand `src` (a tile in operand coordinates) for the
 * dot operand layout `to`, in `nslots` buffers. */
DotStage *dot_stage_for(Arena *a, const Value *src, const Layout *to, int nslots)
{
    DotStage *s = NEW(a, DotStage);
    s->op_idx = to->op_idx;
    s->dtype = src->type.dtype;
    int kdim = s->op_idx == 0 ? 1 : 0;
    s->contig_dim = src->layout && src->layout->kind == LAYOUT_BLOCKED ? src->layout->order[0] : kdim;
    s->rows = src->type.shape[1 - s->contig_dim];
    s->cols = src->type.shape[s->contig_dim];
    s->nslots = nslots;
    int bits = dtype_bits(s->dtype);
    s->ldmatrix = bits == 16 || s->contig_dim == kdim;
    s->trans = s->ldmatrix && s->contig_dim != kdim;
    s->swz = dot_operand_swizzle(s->op_idx, s->dtype, s->cols, s->contig_dim);
    if (s->swz.vec > s->cols) /* a row narrower than one chunk: nothing to swizzle */
        s->swz = (SmemSwizzle){1, 1, 1};
    return s;
}

int dot_stage_slot_bytes(const DotStage *s) { return s->rows * s->cols * dtype_bits(s->dtype) / 8; }

void dot_plan_stage(Arena *a, Op *op)
{
    if (!op->stage)
        op->stage = dot_stage_for(a, op->args[0], op->results[0]->layout, 1);
    op->smem_bytes = dot_stage_slot_bytes(op->stage) * op->stage->nslots;
}

/* The FMA path stages A [M,K] and B [K,N] row-major, B after A. */
int dot_fma_b_offset(const Op *dot)
{
    Type ta = dot->args[0]->type;
    int bytes = type_numel(ta) * dtype_bits(ta.dtype) / 8;
    return (bytes + 15) & ~15;
}

void dot_plan_fma(Op *dot)
{
    Type tb = dot->args[1]->type;
    dot->smem_bytes = dot_fma_b_offset(dot) + type_numel(tb) * dtype_bits(tb.dtype) / 8;
}

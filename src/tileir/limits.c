/*
 * limits.c — what one CUDA block can hold, checked once layouts and shared
 * memory are known (the pass after tir_smem).
 *
 * A tile lives in registers: each thread holds its elements in a small array
 * that the emitter unrolls.  A value holding more than the 255 registers a
 * thread can have may make ptxas spill to local memory (slow but correct, as
 * with Triton: a warning, worded as the estimate it is, since ptxas need not
 * keep the whole tile live);
 * past TIR_MAX_ELEMS_PER_THREAD elements the unrolled code is too large to
 * compile at all (an error).  Shared memory beyond the architecture's
 * per-block limit cannot be launched (an error).  Atomics whose results the
 * emitter cannot hand to every thread are refused here, before any CUDA is
 * printed.  Each message points at
 * the source of the offending value and suggests the fix.
 *
 * It also chooses __launch_bounds__'s second argument, the blocks per SM
 * that ptxas must make room for (choose_min_blocks).
 */
#include "tir.h"

#define TIR_MAX_ELEMS_PER_THREAD 1024
#define TIR_SPILL_REGS 255               /* registers a thread can have */
#define SM_REGS 65536                    /* 32-bit registers per SM, sm_80 and sm_90 */
#define SM_THREADS 2048                  /* resident threads per SM */
#define SM_BLOCKS 32                     /* resident blocks per SM */

/* Opt-in shared memory per block: sm_80 (A100) 163 KB, sm_90 (H100) 227 KB. */
int tir_smem_limit(int arch) { return arch >= 90 ? 227 * 1024 : 163 * 1024; }

typedef struct Worst {
    const Value *v;
    const Op *op;        /* its defining op, for the location */
    int elems, regs;
} Worst;

typedef struct Shape {   /* what choose_min_blocks looks at */
    int max_rank;        /* of any tile value */
    bool exchanges;      /* a layout conversion through shared memory */
    bool tested_masks;   /* a load or store testing its mask per vector at run time */
} Shape;

static void value_cost(const Value *v, int *elems, int *regs)
{
    *elems = value_regs(v);
    int bits = dtype_bits(v->type.dtype);
    int live = *elems;
    if (v->type.dtype == DT_PTR) {
        /* a pointer tile only keeps one address per contiguous run (the
         * vector accesses'); the compiler drops the others */
        LayoutMap m;
        value_map(v, &m);
        int d = m.nreg ? m.reg[0].dim : -1, run = lmap_lead_bits(&m, d);
        while (run > 0 && ((int64_t)1 << run) > v->ax.contiguity[d])
            run--;
        live >>= run;
    }
    *regs = live * (bits > 32 ? 2 : 1);
}

/* An atomic whose old values are used, on a tile some of whose elements
 * several threads hold: only one thread may do each atomic, and the others
 * would need its result (the emitter does not exchange it yet). */
static void check_atomic(Ctx *ctx, const TirFunc *f, const Op *op)
{
    if ((op->kind != OP_ATOMIC_RMW && op->kind != OP_ATOMIC_CAS) || !op->nres || !op->results[0]->nuses)
        return;
    const Value *ptr = op->args[0];
    if (!ptr->type.rank)
        return;
    LayoutMap m;
    value_map(ptr, &m);
    if (lmap_replicated_mask(m.lane, m.nlane) || lmap_replicated_mask(m.warp, m.nwarp))
        diag_error(ctx, op->loc, "the old values of an atomic on a tile with replicated elements are not "
                   "supported yet (use a tile of at least %d elements, or ignore the result)", 32 * f->num_warps);
}

/* An operand of a dot on wgmma: it stays in its ring (wgmma reads it through
 * descriptors, the mma.sync #else one K step at a time), never whole in registers. */
static bool wgmma_operand(const Value *v)
{
    if (!v->def || v->def->kind != OP_LOCAL_LOAD || v->nuses != 1)
        return false;
    const Block *b = v->def->parent;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *u = b->ops.data[i];
        if (u->kind == OP_DOT && u->dot.wgmma && (u->args[0] == v || u->args[1] == v))
            return true;
    }
    return false;
}

static void scan_block(Ctx *ctx, const TirFunc *f, const Block *b, Worst w[2], const Op **smem_op, Shape *sh)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        check_atomic(ctx, f, op);
        if (op->smem_bytes && (!*smem_op || op->smem_bytes > (*smem_op)->smem_bytes))
            *smem_op = op;
        sh->exchanges |= op->kind == OP_CONVERT && op->smem_bytes;
        if ((op->kind == OP_LOAD || op->kind == OP_STORE) && op->args[0]->type.rank)
            sh->tested_masks |= access_tests_mask(op);
        for (int r = 0; r < op->nres; r++) {
            const Value *v = op->results[r];
            if (!v->type.rank || !v->layout || wgmma_operand(v))
                continue;
            if (v->type.rank > sh->max_rank)
                sh->max_rank = v->type.rank;
            int elems, regs;
            value_cost(v, &elems, &regs);
            if (elems > w[0].elems)
                w[0] = (Worst){.v = v, .op = op, .elems = elems, .regs = regs};
            /* Pointer tiles are left out of the spill estimate: a large one
             * used by one load or store is computed where it is used (emit_cuda/plan.c),
             * and of a loop-carried one only the first pointer of each vector
             * access stays live. */
            if (regs > w[1].regs && v->type.dtype != DT_PTR)
                w[1] = (Worst){.v = v, .op = op, .elems = elems, .regs = regs};
        }
        for (int k = 0; k < op->nregions; k++)
            scan_block(ctx, f, op->regions[k], w, smem_op, sh);
    }
}

/* Blocks of `threads` threads that can be resident on one SM at once. */
static int most_blocks(int threads)
{
    return SM_THREADS / threads < SM_BLOCKS ? SM_THREADS / threads : SM_BLOCKS;
}

int tir_min_blocks_regs(const TirFunc *f)
{
    int regs = (SM_REGS / (32 * f->num_warps * f->min_blocks)) & ~7; /* ptxas allocates in eights */
    return regs < TIR_SPILL_REGS ? regs : TIR_SPILL_REGS;
}

/* The blocks per SM to promise ptxas in __launch_bounds__(threads, k), which
 * lets it use up to 65536 / (k * threads) registers per thread; 0: none.
 *
 * Without the promise ptxas picks registers for occupancy: a row kernel
 * whose thread holds a 32-element tile gets 48 registers (5 blocks of 256
 * per SM), and it then issues a second tile's four 16-byte loads one after
 * another, each waiting for the previous one's data (RMS norm fp16 at
 * 8192: 0.98x Triton).  Room for twice the tile keeps them all in flight
 * (64 registers, 4 blocks: 1.01x).  The same promise hurts elsewhere, so it
 * is made only where it was measured to help or to be neutral (bench/
 * results, 2026-11-24): every tile one-dimensional, no tl.dot and no layout
 * exchange, and the largest tile 32 to 64 registers per thread.  Smaller
 * tiles have few loads to overlap (cross-entropy's 16: 2% slower with it);
 * 2-D tiles, dots and exchanges need more than twice their tile (softmax
 * over 4 rows at once, 89 registers, spills at 64); with a promise of one
 * block ptxas grows row kernels past what it saves (layer norm 64 -> 90
 * registers, 0.81x).  A 64-register tile (4 warps at 8192) gains too:
 * 0.995x -> 1.05x.  The emitter makes this promise for sm_90 and newer only:
 * there it was measured, while on sm_80 ptxas spills under it in RMS norm
 * with an unaligned N, and no A100 was at hand.  Nor is it made where a
 * load or store tests its mask per vector at run time (N not promised a
 * multiple of 16): the element-by-element path beside each vector needs
 * more than twice the tile, and RMS norm at 8192 spilled under it. */
static int choose_min_blocks(const TirFunc *f, const Worst *w, const Shape *sh)
{
    int threads = 32 * f->num_warps, tile = w->regs;
    if (f->uses_dot || sh->exchanges || sh->tested_masks || sh->max_rank != 1 || tile < 32 || tile > 64)
        return 0;
    int k = SM_REGS / (threads * 2 * tile);
    return k < most_blocks(threads) ? k : most_blocks(threads);
}

/* Whether vector stores, and scalars that one thread stores, are written as
 * predicated instructions, the kernel one straight block for ptxas as
 * Triton's PTX is, instead of a branch around each store.  ptxas schedules
 * within a block: before a branch it computes what the code after it needs,
 * so a branch around a row's mean (one thread stores it) made Liger's layer
 * norm compute all 16 outputs' operands first, 62 registers and 4 blocks per
 * SM against Triton's 47 and 5, 0.92x Triton; straight, 48 registers and
 * 1.01x (H200, bench/results/2026-11-27-s6-h200-corpus-straight-stores.md).
 * But in one straight block ptxas also hoists every load to the top, and
 * where a thread holds large tiles that costs more than it saves: lightllm's
 * silu-and-mul (128 fp32 registers of tile a thread) took 128 registers and
 * ran at 0.65x against 0.98x with branches.  So: straight where ptxas is held
 * to a register bound anyway (__launch_bounds__ with blocks per SM), or where
 * no tile holds more than STRAIGHT_TILE_REGS registers a thread.  A tile
 * stored element by element keeps its branches either way (emit_cuda/memory.c). */
#define STRAIGHT_TILE_REGS 16
static bool choose_straight_stores(const TirFunc *f, const Worst *w)
{
    return f->min_blocks > 0 || w->regs <= STRAIGHT_TILE_REGS;
}

void tir_check_limits(Ctx *ctx, TirFunc *f, const LowerOptions *opt)
{
    Worst w[2] = {{0}};   /* the most elements per thread; the most registers (not pointers) */
    const Op *smem_op = NULL;
    Shape sh = {0};
    scan_block(ctx, f, f->body, w, &smem_op, &sh);
    int threads = 32 * f->num_warps, arch = opt->arch;
    f->min_blocks = 0;
    f->min_blocks_auto = f->min_blocks_chain = false;
    if (opt->min_blocks > 0) {
        if (opt->min_blocks > most_blocks(threads))
            diag_error(ctx, f->loc, "--min-blocks %d: at most %d blocks of %d threads fit on an SM",
                       opt->min_blocks, most_blocks(threads), threads);
        f->min_blocks = opt->min_blocks;
    } else if (opt->min_blocks == 0 && f->dot_chain) {
        /* a dot -> dot chain holds the accumulator, the scores and the packed
         * operand at once; left to itself ptxas traded registers for an
         * occupancy those cannot reach and spilled (paged attention on sm_80:
         * 168 registers and 8 spilled bytes; promised one block: 206, none;
         * and 1.96x Triton mma.sync instead of 1.75x on the H100) */
        f->min_blocks = 1;
        f->min_blocks_chain = true;
    } else if (opt->min_blocks == 0) {
        f->min_blocks = choose_min_blocks(f, &w[1], &sh);
        f->min_blocks_auto = f->min_blocks > 0;
    }
    f->straight_stores = choose_straight_stores(f, &w[1]);
    if (w[0].v && w[0].elems > TIR_MAX_ELEMS_PER_THREAD)
        diag_error(ctx, w[0].op->loc,
                   "tile too large: this %s value needs %d elements per thread with %d warps "
                   "(at most %d): use a smaller block or more warps (num_warps up to 32)",
                   type_str(&ctx->arena, w[0].v->type), w[0].elems, f->num_warps, TIR_MAX_ELEMS_PER_THREAD);
    else if (w[1].v && w[1].regs > TIR_SPILL_REGS)
        /* an estimate: ptxas need not keep a whole tile live (a load streamed into a store
         * of 512 registers' worth took 231 and did not spill), so this says what may happen */
        diag_warning(ctx, w[1].op->loc,
                     "this %s value holds %d registers of data per thread (%d threads), more than the %d "
                     "a thread can have: ptxas may spill to local memory (--report shows whether it does); "
                     "a smaller block or more warps avoids it",
                     type_str(&ctx->arena, w[1].v->type), w[1].regs, threads, TIR_SPILL_REGS);
    if (f->smem_bytes > tir_smem_limit(arch))
        diag_error(ctx, smem_op ? smem_op->loc : f->loc,
                   "the kernel needs %d bytes of shared memory, %d of them for this %s, but a block on "
                   "sm_%d can have at most %d (%d KB): use a smaller block",
                   f->smem_bytes, smem_op ? smem_op->smem_bytes : f->smem_bytes,
                   smem_op ? op_name(smem_op->kind) : "kernel", arch, tir_smem_limit(arch), tir_smem_limit(arch) / 1024);
}

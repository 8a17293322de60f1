/*
 * warpspec.c — warp specialisation (tl.range(warp_specialize=True), tileir/warpspec.c):
 * the producer warpgroup that issues the rings' TMA copies, where the roles part
 * at the kernel's top, the consumers' barriers, and their releases of the slots.
 *
 * The block is the num_warps consumer warps, which run the kernel as written
 * (every layout is theirs: threadIdx.x below 32 * num_warps), and one warpgroup
 * more.  Under sm_90a one thread of that warpgroup runs the kernel's loops with
 * only the scalars the copies need, and copies each step's blocks once the
 * consumers have released the slot.  Other targets have no TMA: there the
 * consumers copy with cp.async as in any pipelined loop, and the extra
 * warpgroup leaves at once.  Either way the consumers' barriers are named
 * barrier 1 of their own threads, since the producer never reaches them.
 */
#include "emit_internal.h"

#define FEAT_SM90A "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)"

const char *block_sync(Emitter *E)
{
    if (!E->f->producer_warps)
        return "__syncthreads()";
    return fmt(E, "tilec::consumer_sync<%d>()", 32 * E->f->num_warps);
}

typedef struct Producer {
    Emitter *E;
    const bool *needed; /* by value id (tir_ws_needed) */
} Producer;

static void producer_block(Producer *p, const Block *b);

static bool needs_any(const Producer *p, const Op *op)
{
    for (int r = 0; r < op->nres; r++)
        if (p->needed[op->results[r]->id])
            return true;
    return false;
}

/* A loop that holds copies: its counter and the loop-carried scalars the copies
 * need, declared and advanced as the consumers' loop does (control.c). */
static void producer_for(Producer *p, const Op *op)
{
    Emitter *E = p->E;
    bool *keep = NEW_ARRAY(E->a, bool, (size_t)op->nres + 1);
    for (int i = 0; i < op->nres; i++)
        keep[i] = p->needed[op->regions[0]->args.data[i + 1]->id];
    emit_loop_vars(E, op, keep);
    emit_for_head(E, op);
    E->indent++;
    producer_block(p, op->regions[0]);
    emit_loop_next(E, op, keep);
    E->indent--;
    line(E, "}");
}

/* Is copy i of b the first of its step's slot (no copy into the same slot since
 * the last commit)? */
static bool first_of_slot(const Emitter *E, const Block *b, int i)
{
    const Op *op = b->ops.data[i];
    for (int j = i - 1; j >= 0; j--) {
        const Op *o = b->ops.data[j];
        if (o->kind == OP_ASYNC_COMMIT || o->nregions)
            return true;
        if (tir_ws_copy(E->f, o) && o->args[2] == op->args[2] && o->async_copy.tma == op->async_copy.tma)
            return false;
    }
    return true;
}

static void producer_block(Producer *p, const Block *b)
{
    Emitter *E = p->E;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (tir_ws_copy(E->f, op)) {
            stmt_comment(E, op);
            tma_produce(E, op, first_of_slot(E, b, i));
        } else if (op->kind == OP_FOR && (tir_ws_holds_copy(E->f, op) || needs_any(p, op))) {
            stmt_comment(E, op);
            producer_for(p, op);
            E->last_stmt = NULL;
        } else if (needs_any(p, op)) {
            for (int r = 0; r < op->nres; r++)
                if (op->results[r]->type.rank || !op_is_pure(op->kind) || op->nregions)
                    BUG("warpspec: the producer needs %s, not a pure scalar op", op_name(op->kind));
            emit_op_here(E, op);
        }
    }
}

/* ptxas gives each thread at most 65536 / threads registers, in steps of 8 (at most
 * 255); setmaxnreg moves the producer's beyond TIR_WS_PRODUCER_REGS to the consumers. */
int ws_consumer_regs(const TirFunc *f, int *base)
{
    int threads = tir_block_threads(f);
    *base = (65536 / threads) & ~7;
    if (*base > 248)
        *base = 248;
    int more = (*base - TIR_WS_PRODUCER_REGS) * 32 * f->producer_warps / (32 * f->num_warps);
    int regs = (*base + more) & ~7;
    return regs > 248 ? 248 : regs;
}

void ws_split(Emitter *E, StrBuf *out)
{
    const TirFunc *f = E->f;
    if (!f->producer_warps)
        return;
    int consumers = 32 * f->num_warps, base;
    int regs = ws_consumer_regs(f, &base);
    bool move = regs > base;
    Producer p = {.E = E, .needed = tir_ws_needed(E->a, f)};
    StrBuf body = {0}, *saved = E->out;
    int indent = E->indent;
    E->out = &body;
    E->indent = 3;
    E->last_stmt = NULL;
    E->in_producer = true;
    producer_block(&p, f->body);
    E->in_producer = false;
    E->out = saved;
    E->indent = indent;
    sb_printf(out, FEAT_SM90A "  // sm_90a: the warpgroups part (warp specialisation)\n");
    sb_printf(out, "    if (threadIdx.x >= %d) {  // the producer warpgroup (warps %d..%d): one thread issues every copy of the rings\n",
              consumers, f->num_warps, f->num_warps + f->producer_warps - 1);
    if (move)
        sb_printf(out, "        tilec::setmaxnreg_dec<%d>();  // it needs few registers: %d of each thread's %d go to the consumers\n",
                  TIR_WS_PRODUCER_REGS, base - TIR_WS_PRODUCER_REGS, base);
    sb_printf(out, "        if (threadIdx.x == %d) {\n", consumers);
    if (body.data)
        sb_puts(out, body.data);
    sb_puts(out, "        }\n        return;\n    }\n");
    if (move)
        sb_printf(out, "    tilec::setmaxnreg_inc<%d>();  // the consumer warps: %d registers each for the accumulators, up from %d\n",
                  regs, regs, base);
    sb_printf(out, "#else\n    if (threadIdx.x >= %d)\n        return;  // without TMA the consumer warps copy with cp.async "
                   "themselves: the last warpgroup has nothing to do\n#endif\n",
              consumers);
    sb_free(&body);
    E->last_stmt = NULL;
}

static void release(Emitter *E, const char *slot, const char *why)
{
    line(E, "if ((threadIdx.x & 31) == 0)  // %s", why);
    line(E, "    tilec::mbar_arrive(&%s[%s]);", E->ring_free_names[E->ws_ring - 1], slot);
}

void ws_after_wait(Emitter *E, int pending)
{
    if (!E->ws_ring)
        return;
    const char *held = E->ring_held_names[E->ws_ring - 1], *rs = E->ws_read_slot;
    if (!pending) {
        release(E, rs, fmt(E, "this warp's wgmma are done with slot %s: the producer may refill it", rs));
        return;
    }
    E->ring_held_used[E->ws_ring - 1] = true;
    line(E, "if (%s >= 0 && (threadIdx.x & 31) == 0)  // the step before's group is done: its slot goes back to the producer",
         held);
    line(E, "    tilec::mbar_arrive(&%s[%s]);", E->ring_free_names[E->ws_ring - 1], held);
    line(E, "%s = %s;  // this step's group still reads its slot", held, rs);
}

void ws_drain(Emitter *E)
{
    if (!E->ws_ring)
        return;
    const char *held = E->ring_held_names[E->ws_ring - 1];
    E->ring_held_used[E->ws_ring - 1] = true;
    line(E, "if (%s >= 0 && (threadIdx.x & 31) == 0)  // the last step's slot goes back to the producer", held);
    line(E, "    tilec::mbar_arrive(&%s[%s]);", E->ring_free_names[E->ws_ring - 1], held);
    line(E, "%s = -1;", held);
}

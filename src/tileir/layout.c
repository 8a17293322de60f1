/*
 * layout.c — blocked layouts: Triton's default encoding (§2.2), the
 * Coalesce rule (§2.3), and the geometry the emitter prints (which thread
 * owns which element).
 *
 * Assignment: every tensor shape gets one blocked layout.  Its
 * sizePerThread along the fastest dimension is the Coalesce rule's choice
 * for the memory ops on that shape — the maximum over loads, capped by each
 * store's own width (stores must not exceed 16 bytes per thread) — so that
 * elementwise chains between a load and a store need no conversion.
 */
#include "tir.h"

#include <stdio.h>
#include <string.h>

static int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

void layout_build(Layout *l, int rank, const int *shape, const int *spt, const int *order, int num_warps)
{
    memset(l, 0, sizeof *l);
    l->rank = rank;
    for (int d = 0; d < rank; d++) {
        l->shape[d] = shape[d];
        l->spt[d] = spt[d];
        l->order[d] = order[d];
        l->tpw[d] = 1;
        l->wpc[d] = 1;
    }
    int rem_lanes = 32, rem_warps = num_warps, rem_threads = 32 * num_warps;
    int prev_lanes = 1, prev_warps = 1;
    for (int k = 0; k < rank - 1; k++) {
        int i = order[k];
        int chunks = shape[i] / spt[i];
        int threads = clampi(rem_threads, 1, chunks > 1 ? chunks : 1);
        l->tpw[i] = clampi(threads, 1, rem_lanes);
        l->wpc[i] = clampi(threads / l->tpw[i], 1, rem_warps);
        rem_warps /= l->wpc[i];
        rem_lanes /= l->tpw[i];
        rem_threads /= threads;
        prev_lanes *= l->tpw[i];
        prev_warps *= l->wpc[i];
    }
    int last = order[rank - 1];
    l->tpw[last] = 32 / prev_lanes;
    l->wpc[last] = num_warps / prev_warps;
}

int layout_reps(const Layout *l, int d)
{
    int tile = l->spt[d] * l->tpw[d] * l->wpc[d];
    return l->shape[d] > tile ? l->shape[d] / tile : 1;
}

int layout_elems_per_thread(const Layout *l)
{
    int n = 1;
    for (int d = 0; d < l->rank; d++) {
        int spt = l->spt[d] < l->shape[d] ? l->spt[d] : l->shape[d];
        n *= spt * layout_reps(l, d);
    }
    return n;
}

int layout_contig_per_thread(const Layout *l)
{
    int d = l->order[0];
    return l->spt[d] < l->shape[d] ? l->spt[d] : l->shape[d];
}

/* Register order: first the sizePerThread nano-tile (in `order`), then the
 * repetitions (also in `order`). */
int layout_reg_offset(const Layout *l, int reg, int dim)
{
    int spt[TIR_MAX_RANK], reps[TIR_MAX_RANK];
    int nano = 1;
    for (int d = 0; d < l->rank; d++) {
        spt[d] = l->spt[d] < l->shape[d] ? l->spt[d] : l->shape[d];
        reps[d] = layout_reps(l, d);
        nano *= spt[d];
    }
    int e = reg % nano, r = reg / nano;
    int ecoord[TIR_MAX_RANK], rcoord[TIR_MAX_RANK];
    for (int k = 0; k < l->rank; k++) {
        int d = l->order[k];
        ecoord[d] = e % spt[d];
        e /= spt[d];
        rcoord[d] = r % reps[d];
        r /= reps[d];
    }
    int tile = l->spt[dim] * l->tpw[dim] * l->wpc[dim];
    return rcoord[dim] * tile + ecoord[dim];
}

void order_from_contiguity(const AxisInfo *ax, int rank, int *order)
{
    /* stable argsort by contiguity, descending, starting from reversed identity */
    for (int k = 0; k < rank; k++)
        order[k] = rank - 1 - k;
    for (int i = 1; i < rank; i++)
        for (int j = i; j > 0 && ax->contiguity[order[j]] > ax->contiguity[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

int coalesce_elems_per_thread(const AxisInfo *ax, Type ptr_type, int num_warps, const int *order)
{
    int d = order[0];
    int elem_bits = dtype_bits(ptr_type.pointee);
    if (elem_bits < 8)
        elem_bits = 8;
    int elem_bytes = elem_bits / 8;
    int64_t max_multiple = ax->divisibility[d] / elem_bytes;
    if (max_multiple < 1)
        max_multiple = 1;
    int64_t shape = ptr_type.rank ? ptr_type.shape[d] : 1;
    int64_t max_contig = ax->contiguity[d] < shape ? ax->contiguity[d] : shape;
    int64_t align = max_multiple < max_contig ? max_multiple : max_contig;
    int64_t per = align < 128 / elem_bits ? align : 128 / elem_bits;
    (void)num_warps; /* the numel/threads cap is applied per shape group (finish_group) */
    return (int)(per < 1 ? 1 : per);
}

/* ---- assignment ----------------------------------------------------------- */

typedef struct ShapeGroup {
    int rank;
    int shape[TIR_MAX_RANK];
    int order[TIR_MAX_RANK];
    int load_max, store_min;
    bool has_order;
    Layout *layout;
} ShapeGroup;

typedef struct Assign {
    Ctx *ctx;
    TirFunc *f;
    Vec(ShapeGroup) groups;
} Assign;

static ShapeGroup *group_for(Assign *A, Type t)
{
    for (int i = 0; i < A->groups.len; i++) {
        ShapeGroup *g = &A->groups.data[i];
        if (g->rank != t.rank)
            continue;
        bool same = true;
        for (int d = 0; d < t.rank; d++)
            same &= g->shape[d] == t.shape[d];
        if (same)
            return g;
    }
    ShapeGroup g = {0};
    g.rank = t.rank;
    for (int d = 0; d < t.rank; d++)
        g.shape[d] = t.shape[d];
    g.load_max = 1;
    g.store_min = 0;
    vec_push(&A->ctx->arena, &A->groups, g);
    return &A->groups.data[A->groups.len - 1];
}

static void scan_memory_ops(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            scan_memory_ops(A, op->regions[r]);
        if ((op->kind != OP_LOAD && op->kind != OP_STORE) || op->args[0]->type.rank == 0)
            continue;
        Value *ptr = op->args[0];
        ShapeGroup *g = group_for(A, ptr->type);
        int order[TIR_MAX_RANK];
        order_from_contiguity(&ptr->ax, ptr->type.rank, order);
        if (!g->has_order) {
            memcpy(g->order, order, sizeof order);
            g->has_order = true;
        }
        int per = coalesce_elems_per_thread(&ptr->ax, ptr->type, A->f->num_warps, g->order);
        if (op->kind == OP_LOAD) {
            if (per > g->load_max)
                g->load_max = per;
        } else if (!g->store_min || per < g->store_min) {
            g->store_min = per;
        }
    }
}

static void finish_group(Assign *A, ShapeGroup *g)
{
    if (!g->has_order)
        for (int k = 0; k < g->rank; k++)
            g->order[k] = g->rank - 1 - k;
    int numel = 1;
    for (int d = 0; d < g->rank; d++)
        numel *= g->shape[d];
    int per = g->load_max;
    if (g->store_min && g->store_min > per)
        per = g->store_min;
    int fair = numel / (A->f->num_warps * 32);
    if (fair < 1)
        fair = 1;
    if (per > fair)
        per = fair;
    if (g->store_min && per > g->store_min)
        per = g->store_min;
    int spt[TIR_MAX_RANK];
    for (int d = 0; d < g->rank; d++)
        spt[d] = 1;
    int fast = g->order[0];
    spt[fast] = per < g->shape[fast] ? per : g->shape[fast];
    Layout *l = NEW(&A->ctx->arena, Layout);
    layout_build(l, g->rank, g->shape, spt, g->order, A->f->num_warps);
    l->id = A->f->layouts.len;
    vec_push(&A->ctx->arena, &A->f->layouts, l);
    g->layout = l;
}

static void assign_values(Assign *A, Block *b)
{
    for (int i = 0; i < b->args.len; i++) {
        Value *v = b->args.data[i];
        if (v->type.rank)
            v->layout = group_for(A, v->type)->layout;
    }
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            assign_values(A, op->regions[r]);
        for (int k = 0; k < op->nres; k++) {
            Value *v = op->results[k];
            if (!v->type.rank)
                continue;
            ShapeGroup *g = group_for(A, v->type);
            if (!g->layout)
                finish_group(A, g);
            v->layout = g->layout;
        }
    }
}

static void check_2d(Ctx *ctx, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            check_2d(ctx, op->regions[r]);
        for (int k = 0; k < op->nres; k++)
            if (op->results[k]->type.rank > 1)
                diag_error(ctx, op->loc, "2-D tiles are not supported yet (tilec currently schedules 1-D tiles)");
    }
}

void tir_layouts(Ctx *ctx, TirFunc *f)
{
    check_2d(ctx, f->body);
    Assign A = {ctx, f, {0}};
    scan_memory_ops(&A, f->body);
    for (int i = 0; i < A.groups.len; i++)
        finish_group(&A, &A.groups.data[i]);
    assign_values(&A, f->body);
}

/* ---- description ------------------------------------------------------------ */

static void print_vec(StrBuf *out, const int *v, int n)
{
    sb_putc(out, '[');
    for (int i = 0; i < n; i++)
        sb_printf(out, "%s%d", i ? ", " : "", v[i]);
    sb_putc(out, ']');
}

void layout_describe(StrBuf *out, const Layout *l)
{
    sb_printf(out, "L%d: blocked ", l->id);
    for (int d = 0; d < l->rank; d++)
        sb_printf(out, "%s%d", d ? "x" : "", l->shape[d]);
    sb_puts(out, ", sizePerThread ");
    print_vec(out, l->spt, l->rank);
    sb_puts(out, ", threadsPerWarp ");
    print_vec(out, l->tpw, l->rank);
    sb_puts(out, ", warpsPerCTA ");
    print_vec(out, l->wpc, l->rank);
    sb_puts(out, ", order ");
    print_vec(out, l->order, l->rank);
}

/* "thread t owns elements 4t..4t+3 and 512+4t..512+4t+3" for 1-D layouts */
static void layout_ownership(StrBuf *out, const Layout *l)
{
    if (l->rank != 1) {
        sb_printf(out, "%d elements per thread", layout_elems_per_thread(l));
        return;
    }
    int spt = layout_contig_per_thread(l);
    int tile = l->spt[0] * l->tpw[0] * l->wpc[0];
    int reps = layout_reps(l, 0);
    if (l->shape[0] < tile) {
        int owners = tile / l->shape[0];
        sb_printf(out, "thread t owns element%s ", spt > 1 ? "s" : "");
        if (spt > 1)
            sb_printf(out, "%d*(t %% %d)..%d*(t %% %d)+%d", spt, l->shape[0] / spt, spt, l->shape[0] / spt, spt - 1);
        else
            sb_printf(out, "t %% %d", l->shape[0]);
        sb_printf(out, " (replicated: %d threads hold each element)", owners);
        return;
    }
    sb_puts(out, "thread t owns elements ");
    for (int r = 0; r < reps; r++) {
        if (r && r == reps - 1)
            sb_puts(out, " and ");
        else if (r)
            sb_puts(out, ", ");
        if (r == 3 && reps > 4) {
            sb_printf(out, "... (%d groups, stride %d)", reps, tile);
            break;
        }
        char base[32];
        if (r)
            snprintf(base, sizeof base, "%d+", r * tile);
        else
            base[0] = 0;
        if (spt == 1)
            sb_printf(out, "%st", base);
        else
            sb_printf(out, "%s%dt..%s%dt+%d", base, spt, base, spt, spt - 1);
    }
}

void tir_print_layouts(StrBuf *out, const TirFunc *f)
{
    for (int i = 0; i < f->layouts.len; i++) {
        const Layout *l = f->layouts.data[i];
        layout_describe(out, l);
        sb_puts(out, "\n    ");
        layout_ownership(out, l);
        sb_printf(out, "\n    %d registers per thread per tile value\n", layout_elems_per_thread(l));
    }
}

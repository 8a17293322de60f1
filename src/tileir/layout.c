/*
 * layout.c — choosing layouts (tir_layouts): blocked layouts, Triton's
 * default encoding, by the Coalesce rule; slices, mma and
 * dot-operand layouts; the conversions where two layouts meet; and the
 * descriptions the header prints.  layout_map.c turns a layout into the
 * map of which thread owns which element.
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

bool layout_eq(const Layout *a, const Layout *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind || a->rank != b->rank)
        return false;
    if (a->kind == LAYOUT_SLICE)
        return a->slice_dim == b->slice_dim && layout_eq(a->parent, b->parent);
    if (a->kind == LAYOUT_MMA)
        return a->wpc[a->rank - 2] == b->wpc[b->rank - 2] && a->wpc[a->rank - 1] == b->wpc[b->rank - 1] &&
               (a->rank < 3 || a->wpc[0] == b->wpc[0]) && (a->mma_version == 3) == (b->mma_version == 3);
    if (a->kind == LAYOUT_DOTOP)
        return a->op_idx == b->op_idx && a->kwidth == b->kwidth && layout_eq(a->parent, b->parent);
    if (a->kind == LAYOUT_LINEAR)
        return lmap_eq(a->lin, b->lin);
    for (int d = 0; d < a->rank; d++)
        if (a->spt[d] != b->spt[d] || a->tpw[d] != b->tpw[d] || a->wpc[d] != b->wpc[d] || a->order[d] != b->order[d])
            return false;
    return true;
}

Layout *layout_slice(Arena *a, TirFunc *f, const Layout *parent, int dim)
{
    for (int i = 0; i < f->layouts.len; i++) {
        Layout *l = f->layouts.data[i];
        if (l->kind == LAYOUT_SLICE && l->slice_dim == dim && layout_eq(l->parent, parent))
            return l;
    }
    Layout *l = NEW(a, Layout);
    l->kind = LAYOUT_SLICE;
    l->rank = parent->rank - 1;
    l->slice_dim = dim;
    l->parent = parent;
    for (int d = 0, k = 0; d < parent->rank; d++)
        if (d != dim)
            l->shape[k++] = parent->shape[d];
    l->id = f->layouts.len;
    vec_push(a, &f->layouts, l);
    return l;
}

/* l, or an equal layout f already has; new ones get the next id. */
static Layout *intern_layout(Arena *a, TirFunc *f, const Layout *l)
{
    for (int i = 0; i < f->layouts.len; i++)
        if (layout_eq(f->layouts.data[i], l))
            return f->layouts.data[i];
    Layout *n = NEW(a, Layout);
    *n = *l;
    n->id = f->layouts.len;
    vec_push(a, &f->layouts, n);
    return n;
}

/* Tensor cores, or fused multiply-adds: fp64 and input_precision="ieee", and
 * dots with M or N below 16, which Triton pads onto a 16-row tensor-core
 * tile; tilec computes those few products with FMAs instead (the same
 * exact products, summed in order of k). */
bool dot_uses_mma(const Op *dot)
{
    DType d = dot->args[0]->type.dtype;
    const Type *rt = &dot->results[0]->type;
    if (rt->shape[rt->rank - 2] < 16 || rt->shape[rt->rank - 1] < 16)
        return false;
    if (d == DT_FP16 || d == DT_BF16 || d == DT_I8 || dtype_is_fp8(d))
        return true;
    return d == DT_FP32 && dot->dot.precision != DOT_IEEE;
}

int dot_kwidth(DType operand) { return dtype_bits(operand) >= 32 ? 1 : 32 / dtype_bits(operand); }

/* Triton's getMmaV2WarpsPerCTA: warps go where the repetitions of the 16x8
 * instruction are more numerous, ties to M; a dot chained to another (as in
 * attention) puts every warp on the longer of M and N (M on a tie), so that
 * the rows of a softmax between the two stay in one warp and the first
 * dot's accumulator is already the second's A operand in registers; the
 * later end of the chain takes the same warps (mma_layout_like). */
static Layout *mma_layout(Arena *a, TirFunc *f, const Op *dot, bool chained)
{
    int rank = dot->results[0]->type.rank;
    const int *shape = dot->results[0]->type.shape;
    Layout l = {0};
    l.kind = LAYOUT_MMA;
    l.mma_version = 2;
    l.rank = rank;
    for (int d = 0; d < rank; d++)
        l.shape[d] = shape[d], l.wpc[d] = 1;
    l.order[0] = 1, l.order[1] = 0;
    int o = rank - 2, nw = f->num_warps, *wpc = l.wpc + o;
    const int *mn = shape + o;
    if (!chained && rank == 2 && dot_wgmma_candidate(f, dot)) {
        /* Hopper (wgmma.c): warpgroups stacked along M, each m64 instruction spanning N */
        l.mma_version = 3;
        wpc[0] = nw, wpc[1] = 1;
    } else if (chained && mn[0] >= mn[1]) {
        wpc[0] = nw, wpc[1] = 1;
    } else if (chained) {
        wpc[0] = 1, wpc[1] = nw;
    } else {
        /* a batched dot puts its warps on the batch first, as Triton's
         * warpsPerTileV2 (all of them there): each warp then reads every
         * operand fragment it loads into more mma instructions; only warps
         * beyond the batch size split M and N */
        if (rank == 3) {
            l.wpc[0] = nw < shape[0] ? nw : shape[0];
            nw /= l.wpc[0];
        }
        int reps[2] = {mn[0] / 16 > 1 ? mn[0] / 16 : 1, mn[1] / 8 > 1 ? mn[1] / 8 : 1};
        wpc[0] = wpc[1] = 1;
        while (wpc[0] * wpc[1] < nw) {
            if (reps[0] >= reps[1]) {
                wpc[0] *= 2;
                reps[0] = reps[0] / 2 > 1 ? reps[0] / 2 : 1;
            } else {
                wpc[1] *= 2;
                reps[1] /= 2;
            }
        }
    }
    return intern_layout(a, f, &l);
}

/* The mma layout of a dot chained to one already placed: the same warps, so
 * that values pass between the two without moving (Triton reuses the
 * encoding it finds on the other end of the chain). */
static Layout *mma_layout_like(Arena *a, TirFunc *f, int rank, const int *shape, const Layout *other)
{
    Layout l = *other;
    l.id = 0;
    l.rank = rank;
    for (int d = 0; d < rank; d++)
        l.shape[d] = shape[d], l.wpc[d] = 1;
    l.wpc[rank - 2] = other->wpc[other->rank - 2];
    l.wpc[rank - 1] = other->wpc[other->rank - 1];
    return intern_layout(a, f, &l);
}

static Layout *dotop_layout(Arena *a, TirFunc *f, const Layout *mma, int op_idx, DType operand, Type t)
{
    Layout l = {0};
    l.kind = LAYOUT_DOTOP;
    l.rank = t.rank;
    for (int d = 0; d < t.rank; d++)
        l.shape[d] = t.shape[d];
    l.op_idx = op_idx;
    l.kwidth = dot_kwidth(operand);
    l.parent = mma;
    return intern_layout(a, f, &l);
}

/* The blocked layout l with its dimensions permuted: result dim k is l's
 * dim perm[k] (a transpose moves no data). */
static Layout *permute_blocked(Arena *a, TirFunc *f, const Layout *l, const int *perm, bool inverse)
{
    int p[TIR_MAX_RANK], inv[TIR_MAX_RANK];
    for (int k = 0; k < l->rank; k++)
        p[k] = perm[k];
    if (inverse) {
        for (int k = 0; k < l->rank; k++)
            inv[perm[k]] = k;
        memcpy(p, inv, sizeof p);
    }
    for (int k = 0; k < l->rank; k++)
        inv[p[k]] = k;
    Layout n = *l;
    for (int k = 0; k < l->rank; k++) {
        n.shape[k] = l->shape[p[k]];
        n.spt[k] = l->spt[p[k]];
        n.tpw[k] = l->tpw[p[k]];
        n.wpc[k] = l->wpc[p[k]];
        n.order[k] = inv[l->order[k]];
    }
    return intern_layout(a, f, &n);
}

/* Layouts a permute renames without moving data: blocked and linear ones. */
static bool renamable(const Layout *l) { return l->kind == LAYOUT_BLOCKED || l->kind == LAYOUT_LINEAR; }

/* l (the layout of a value of type t) with its dimensions permuted as
 * permute_blocked does; linear layouts through their maps. */
static Layout *permute_layout(Arena *a, TirFunc *f, const Layout *l, Type t, const int *perm, bool inverse)
{
    if (l->kind == LAYOUT_BLOCKED)
        return permute_blocked(a, f, l, perm, inverse);
    int q[TIR_MAX_RANK];
    for (int k = 0; k < t.rank; k++) {
        if (inverse)
            q[perm[k]] = k;
        else
            q[k] = perm[k];
    }
    LayoutMap m, p;
    layout_map(l, t.rank, t.shape, &m);
    lmap_permute(&m, q, &p);
    return layout_linear(a, f, &p);
}

/* Is v computed from (or used by) another dot through elementwise ops? */
/* The dot whose result reaches v through elementwise ops, conversions and
 * transposes (the p = softmax(q @ k) feeding p @ v of attention), or NULL. */
static const Op *feeding_dot(const Value *v, int depth)
{
    const Op *d = v->def;
    if (!d || depth > 8)
        return NULL;
    if (d->kind == OP_DOT)
        return d;
    if (!op_is_elementwise(d->kind) && d->kind != OP_CONVERT && d->kind != OP_TRANS)
        return NULL;
    for (int k = 0; k < d->nargs; k++) {
        const Op *found = d->args[k]->type.rank ? feeding_dot(d->args[k], depth + 1) : NULL;
        if (found)
            return found;
    }
    return NULL;
}

/* ---- assignment ------------------------------------------------------------------
 *
 * 1. Home layouts: the loads and stores of one tensor shape whose pointers
 *    are contiguous along the same dimensions (one order) share one blocked
 *    layout from the Coalesce rule (the maximum width over the loads, capped
 *    by each store's own width), so that the elementwise chains between
 *    them need no conversion.  A shape read row by row and written column
 *    by column (a transpose) has two.
 * 2. Seeds: the pointers (and loaded values) of memory ops with at least
 *    one element per thread take their group's layout; then the other
 *    tensors of the kernel's highest rank take their shape's first home.
 * 3. Propagation to a fixed point, forward (elementwise results follow their
 *    operands; a reduction's result is the Slice of its input; expand_dims
 *    of a Slice is its parent) and backward (operands follow their users;
 *    the operand of expand_dims along d is the Slice along d of its user).
 *    Loop-carried values, their inits, yields and results share one layout.
 * 4. What is still unassigned takes its shape's home layout, one value at a
 *    time, propagating after each.
 * 5. Where an operand's layout cannot be read in its user's register order
 *    without moving data between threads, it is recomputed in the user's
 *    layout when it is a cheap chain of index arithmetic (ranges, splats,
 *    broadcasts, elementwise ops: a mask or a pointer tile), as Triton's
 *    rematerialization does; otherwise a convert_layout is inserted, which
 *    the emitter stages through shared memory.
 */

typedef struct ShapeGroup {
    int rank;
    int shape[TIR_MAX_RANK];
    int order[TIR_MAX_RANK];
    int load_max, store_min;
    bool has_order;
    bool dot_only;        /* loads whose values only feed tl.dot operands (below) */
    Layout *layout;
} ShapeGroup;

typedef struct MemAnchor {
    Op *op;
    int group;            /* index into Assign.groups */
} MemAnchor;

typedef struct Recomputed {
    Value *v;             /* recomputed ... */
    const Layout *to;     /* ... in this layout ... */
    Block *block;         /* ... at a point of this block, before the users that follow */
    Value *copy;
} Recomputed;

typedef struct Assign {
    Ctx *ctx;
    TirFunc *f;
    Vec(ShapeGroup) groups;
    Vec(MemAnchor) anchors;
    Vec(Recomputed) recomputed;
    Vec(const Op *) chained;  /* dots whose result feeds another dot, or fed by one */
    Vec(const Op *) partner;  /* chained[i]'s other end (the first found) */
    int *uses, *dot_uses;     /* by value id: count_dot_operand_uses */
    int max_rank;
    bool changed;
} Assign;

/* The group of shape t and order `order` (NULL: the first group of the shape). */
/* The group of shape t (and order, unless NULL); dot: 1 the dot-operand loads'
 * groups, 0 the others, -1 either. */
static ShapeGroup *find_group(Assign *A, Type t, const int *order, int dot)
{
    for (int i = 0; i < A->groups.len; i++) {
        ShapeGroup *g = &A->groups.data[i];
        bool same = g->rank == t.rank && (dot < 0 || g->dot_only == (dot > 0));
        for (int d = 0; d < t.rank && same; d++)
            same = g->shape[d] == t.shape[d] && (!order || g->order[d] == order[d]);
        if (same)
            return g;
    }
    return NULL;
}

static ShapeGroup *group_for(Assign *A, Type t, const int *order, bool dot)
{
    ShapeGroup *found = find_group(A, t, order, dot);
    if (found)
        return found;
    ShapeGroup g = {0};
    g.rank = t.rank;
    g.dot_only = dot;
    for (int d = 0; d < t.rank; d++)
        g.shape[d] = t.shape[d];
    if (order) {
        memcpy(g.order, order, sizeof g.order);
        g.has_order = true;
    }
    g.load_max = 1;
    g.store_min = 0;
    vec_push(&A->ctx->arena, &A->groups, g);
    return &A->groups.data[A->groups.len - 1];
}

static bool is_memory_op(OpKind k) { return k == OP_LOAD || k == OP_STORE || k == OP_ATOMIC_RMW || k == OP_ATOMIC_CAS; }

/* The operands of a store or an atomic that are tiles of one layout (a descriptor
 * store's block offsets, its last two, are scalars). */
static int memory_tiles(const Op *op)
{
    return op->kind == OP_STORE ? 2 + op->store.has_mask : op->nargs;
}

/* Count, by value id, each value's uses and those of them that are the a or b
 * operand of a tl.dot (one walk of the kernel, before the memory ops are
 * grouped).  A load whose every use is such an operand reaches the dot through
 * shared memory whatever its layout, so its group need not share the vector
 * width of other memory ops of its shape: as Triton gives each load its own
 * layout, an fp8 operand is copied 16 elements a thread though the bf16 result
 * of the same shape is stored 8 at a time. */
static void count_dot_operand_uses(const Block *b, int *uses, int *dot_uses)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int a = 0; a < op->nargs; a++) {
            uses[op->args[a]->id]++;
            if (op->kind == OP_DOT && a < 2)
                dot_uses[op->args[a]->id]++;
        }
        for (int r = 0; r < op->nregions; r++)
            count_dot_operand_uses(op->regions[r], uses, dot_uses);
    }
}

static bool feeds_only_dots(const Assign *A, const Value *v)
{
    return A->dot_uses[v->id] > 0 && A->dot_uses[v->id] == A->uses[v->id];
}

static void scan_memory_ops(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            scan_memory_ops(A, op->regions[r]);
        for (int k = 0; k < op->nres; k++)
            if (op->results[k]->type.rank > A->max_rank)
                A->max_rank = op->results[k]->type.rank;
        if (!is_memory_op(op->kind) || op->args[0]->type.rank == 0)
            continue;
        Value *ptr = op->args[0];
        int order[TIR_MAX_RANK] = {0};
        order_from_contiguity(&ptr->ax, ptr->type.rank, order);
        ShapeGroup *g = group_for(A, ptr->type, order, op->kind == OP_LOAD && feeds_only_dots(A, op->results[0]));
        vec_push(&A->ctx->arena, &A->anchors, ((MemAnchor){.op = op, .group = (int)(g - A->groups.data)}));
        int per = coalesce_elems_per_thread(&ptr->ax, ptr->type, A->f->num_warps, g->order);
        if (op->kind == OP_ATOMIC_RMW || op->kind == OP_ATOMIC_CAS)
            per = 1; /* one element per atomic instruction */
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
    if (g->layout)
        return;
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
    /* an existing equal layout is reused (same encoding, another shape); it
     * is described at the larger of the two shapes */
    for (int i = 0; i < A->f->layouts.len; i++) {
        Layout *same = A->f->layouts.data[i];
        if (!layout_eq(same, l))
            continue;
        int had = 1;
        for (int d = 0; d < same->rank; d++)
            had *= same->shape[d];
        if (numel > had)
            memcpy(same->shape, l->shape, sizeof same->shape);
        g->layout = same;
        return;
    }
    l->id = A->f->layouts.len;
    vec_push(&A->ctx->arena, &A->f->layouts, l);
    g->layout = l;
}

static Layout *home(Assign *A, Type t)
{
    ShapeGroup *g = group_for(A, t, NULL, false);
    finish_group(A, g);
    return g->layout;
}

static void set_layout(Assign *A, Value *v, Layout *l)
{
    if (!l || !v->type.rank || v->layout || l->rank != v->type.rank)
        return;
    v->layout = l;
    A->changed = true;
}

/* all of vals share one layout */
static void unify(Assign *A, Value **vals, int n)
{
    Layout *l = NULL;
    for (int i = 0; i < n && !l; i++)
        if (vals[i] && vals[i]->type.rank)
            l = vals[i]->layout;
    for (int i = 0; i < n && l; i++)
        if (vals[i])
            set_layout(A, vals[i], l);
}


/* values tied together by structured control flow, position k */
static void unify_region_values(Assign *A, Op *op)
{
    Value *tie[6];
    if (op->kind == OP_FOR) {
        Block *body = op->regions[0];
        Op *y = tir_block_last(body);
        for (int k = 0; k < op->nres; k++) {
            tie[0] = op->args[3 + k], tie[1] = body->args.data[k + 1], tie[2] = op->results[k];
            tie[3] = y && y->kind == OP_YIELD ? y->args[k] : NULL;
            unify(A, tie, 4);
        }
    } else if (op->kind == OP_IF) {
        for (int k = 0; k < op->nres; k++) {
            int n = 0;
            tie[n++] = op->results[k];
            for (int r = 0; r < op->nregions; r++) {
                Op *y = tir_block_last(op->regions[r]);
                if (y && y->kind == OP_YIELD)
                    tie[n++] = y->args[k];
            }
            unify(A, tie, n);
        }
    } else if (op->kind == OP_WHILE) {
        Block *before = op->regions[0], *after = op->regions[1];
        Op *c = tir_block_last(before), *y = tir_block_last(after);
        for (int k = 0; k < op->nres; k++) {
            tie[0] = op->args[k], tie[1] = before->args.data[k], tie[2] = after->args.data[k];
            tie[3] = op->results[k], tie[4] = c->args[1 + k], tie[5] = y->args[k];
            unify(A, tie, 6);
        }
    }
}

static Value *first_operand_of_rank(Op *op, int rank, bool with_layout)
{
    for (int k = 0; k < op->nargs; k++)
        if (op->args[k]->type.rank == rank && rank && (!with_layout || op->args[k]->layout))
            return op->args[k];
    return NULL;
}

static void forward(Assign *A, Block *b)
{
    Arena *a = &A->ctx->arena;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        unify_region_values(A, op);
        for (int r = 0; r < op->nregions; r++)
            forward(A, op->regions[r]);
        unify_region_values(A, op);
        Value *res = op->nres ? op->results[0] : NULL;
        switch (op->kind) {
        case OP_REDUCE:
            if (op->reduce.kind == RED_COMBINE) /* the operands of a combine share one layout */
                unify(A, op->args, op->nargs);
            if (op->args[0]->layout && res->type.rank)
                for (int k = 0; k < op->nres; k++)
                    set_layout(A, op->results[k], layout_slice(a, A->f, op->args[0]->layout, op->reduce.axis));
            break;
        case OP_EXPAND_DIMS: {
            Layout *l = op->args[0]->layout;
            if (l && l->kind == LAYOUT_SLICE && l->slice_dim == op->expand_dims.axis)
                set_layout(A, res, (Layout *)l->parent);
            break;
        }
        case OP_LOAD:
            unify(A, (Value *[]){op->args[0], op->load.has_mask ? op->args[1] : NULL, op->load.has_other ? op->args[2] : NULL, res}, 4);
            break;
        case OP_STORE:
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            unify(A, op->args, memory_tiles(op));
            if (res && op->args[0]->type.rank)
                set_layout(A, res, op->args[0]->layout);
            break;
        case OP_SCAN:
            if (op->scan.kind == SCAN_COMBINE) {
                unify(A, op->args, op->nargs);
                for (int k = 0; k < op->nres; k++)
                    set_layout(A, op->results[k], op->args[0]->layout);
                break;
            }
            set_layout(A, res, op->args[0]->layout);
            break;
        case OP_BROADCAST:
        case OP_SORT:
        case OP_CONVERT:
            set_layout(A, res, op->args[0]->layout);
            break;
        case OP_MAP:
        case OP_INLINE_ASM: { /* elementwise, its results in one layout */
            Value *src = res->type.rank ? first_operand_of_rank(op, res->type.rank, true) : NULL;
            if (src)
                set_layout(A, res, src->layout);
            unify(A, op->results, op->nres);
            break;
        }
        case OP_TRANS:
            if (op->args[0]->layout && renamable(op->args[0]->layout))
                set_layout(A, res, permute_layout(a, A->f, op->args[0]->layout, op->args[0]->type, op->trans.perm, false));
            break;
        case OP_DOT:
            set_layout(A, op->args[2], res->layout);
            break;
        case OP_JOIN:
            unify(A, op->args, 2);
            set_layout(A, res, shape_result_layout(a, A->f, op));
            break;
        case OP_RESHAPE:
        case OP_SPLIT:
        case OP_FLIP:
            set_layout(A, res, shape_result_layout(a, A->f, op));
            break;
        case OP_GATHER: /* each thread reads the elements of the index it holds */
            set_layout(A, res, op->args[1]->layout);
            break;
        default:
            if (op_is_elementwise(op->kind) && res && res->type.rank) {
                Value *src = first_operand_of_rank(op, res->type.rank, true);
                if (src)
                    set_layout(A, res, src->layout);
            }
            break;
        }
    }
}

static void backward(Assign *A, Block *b)
{
    Arena *a = &A->ctx->arena;
    for (int i = b->ops.len - 1; i >= 0; i--) {
        Op *op = b->ops.data[i];
        unify_region_values(A, op);
        for (int r = op->nregions - 1; r >= 0; r--)
            backward(A, op->regions[r]);
        unify_region_values(A, op);
        Value *res = op->nres ? op->results[0] : NULL;
        Layout *rl = res ? res->layout : NULL;
        switch (op->kind) {
        case OP_EXPAND_DIMS:
            if (rl && op->args[0]->type.rank)
                set_layout(A, op->args[0], layout_slice(a, A->f, rl, op->expand_dims.axis));
            break;
        case OP_LOAD:
            unify(A, (Value *[]){op->args[0], op->load.has_mask ? op->args[1] : NULL, op->load.has_other ? op->args[2] : NULL, res}, 4);
            break;
        case OP_STORE:
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            if (rl)
                set_layout(A, op->args[0], rl);
            unify(A, op->args, memory_tiles(op));
            break;
        case OP_SCAN:
            if (op->scan.kind == SCAN_COMBINE) {
                unify(A, op->results, op->nres);
                for (int k = 0; k < op->nargs; k++)
                    set_layout(A, op->args[k], op->results[0]->layout);
                break;
            }
            set_layout(A, op->args[0], rl);
            break;
        case OP_BROADCAST:
        case OP_SORT:
        case OP_CONVERT:
            set_layout(A, op->args[0], rl);
            break;
        case OP_MAP:
        case OP_INLINE_ASM:
            unify(A, op->results, op->nres);
            rl = res->layout;
            for (int k = 0; k < op->nargs && rl; k++)
                set_layout(A, op->args[k], rl);
            break;
        case OP_TRANS:
            if (rl && renamable(rl))
                set_layout(A, op->args[0], permute_layout(a, A->f, rl, res->type, op->trans.perm, true));
            break;
        case OP_DOT:
            set_layout(A, op->args[2], rl);
            break;
        case OP_GATHER:
            set_layout(A, op->args[1], rl);
            break;
        case OP_RESHAPE:
        case OP_JOIN:
        case OP_SPLIT:
        case OP_FLIP:
            if (rl) {
                Layout *ol = shape_operand_layout(a, A->f, op, rl);
                for (int k = 0; k < op->nargs; k++)
                    set_layout(A, op->args[k], ol);
            }
            break;
        default:
            if (op_is_elementwise(op->kind) && rl)
                for (int k = 0; k < op->nargs; k++)
                    if (op->args[k]->type.rank == res->type.rank)
                        set_layout(A, op->args[k], rl);
            break;
        }
    }
}

static void propagate(Assign *A)
{
    do {
        A->changed = false;
        forward(A, A->f->body);
        backward(A, A->f->body);
    } while (A->changed);
}

static bool has_unit_dim(Type t)
{
    for (int d = 0; d < t.rank; d++)
        if (t.shape[d] == 1)
            return true;
    return false;
}

/* A shape whose loads or stores set its layout: one that memory ops touch
 * (its group has an order from them) with at least one element per thread.
 * Smaller ones, such as the [BLOCK_M, 1] column of a row reduction kept
 * with keep_dims, take the layout of what they compute or store, as in
 * Triton, where such a memory op is not a layout anchor (isExpensiveLoadOrStore). */
static bool has_memory_group(Assign *A, Type t)
{
    const ShapeGroup *g = find_group(A, t, NULL, -1);
    return g && g->has_order && type_numel(t) >= 32 * A->f->num_warps;
}

static int chain_index(const Assign *A, const Op *dot)
{
    for (int i = 0; i < A->chained.len; i++)
        if (A->chained.data[i] == dot)
            return i;
    return -1;
}

static void add_chained(Assign *A, const Op *dot, const Op *other)
{
    if (chain_index(A, dot) >= 0)
        return;
    vec_push(&A->ctx->arena, &A->chained, dot);
    vec_push(&A->ctx->arena, &A->partner, other);
}

/* Both ends of every dot -> dot chain, as Triton's warpsPerTileV2 finds them
 * (a dot with another dot in its forward or backward slice). */
static void find_chained_dots(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            find_chained_dots(A, op->regions[r]);
        if (op->kind != OP_DOT)
            continue;
        for (int k = 0; k < 2; k++) {
            const Op *src = feeding_dot(op->args[k], 0);
            if (!src)
                continue;
            add_chained(A, op, src);
            add_chained(A, src, op);
        }
    }
}

/* A dot's result takes the mma accumulator layout (or, on the FMA path,
 * its shape's home layout) before anything else is placed. */
static void seed_dots(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            seed_dots(A, op->regions[r]);
        if (op->kind != OP_DOT)
            continue;
        Value *res = op->results[0];
        int c = chain_index(A, op);
        const Layout *other = c >= 0 ? A->partner.data[c]->results[0]->layout : NULL;
        if (dot_uses_mma(op) && other && other->kind == LAYOUT_MMA)
            set_layout(A, res, mma_layout_like(&A->ctx->arena, A->f, res->type.rank, res->type.shape, other));
        else if (dot_uses_mma(op))
            set_layout(A, res, mma_layout(&A->ctx->arena, A->f, op, c >= 0));
        else
            set_layout(A, res, home(A, res->type));
    }
}

/* Memory ops fix the layouts of their pointers and loaded values first. */
static void seed_memory_ops(Assign *A)
{
    for (int i = 0; i < A->anchors.len; i++) {
        Op *op = A->anchors.data[i].op;
        ShapeGroup *g = &A->groups.data[A->anchors.data[i].group];
        if (!has_memory_group(A, op->args[0]->type))
            continue;
        set_layout(A, op->args[0], g->layout);
        if (op->kind == OP_LOAD)
            set_layout(A, op->results[0], g->layout);
    }
}

static void seed(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            seed(A, op->regions[r]);
        for (int k = 0; k < op->nres; k++) {
            Value *v = op->results[k];
            if (v->type.rank == A->max_rank && v->type.rank && (!has_unit_dim(v->type) || has_memory_group(A, v->type)))
                set_layout(A, v, home(A, v->type));
        }
    }
}

/* The unassigned tensor value of the highest rank, first in program order. */
static void find_unassigned(Block *b, Value **best)
{
    for (int i = 0; i < b->args.len; i++) {
        Value *v = b->args.data[i];
        if (v->type.rank && !v->layout && (!*best || v->type.rank > (*best)->type.rank))
            *best = v;
    }
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            find_unassigned(op->regions[r], best);
        for (int k = 0; k < op->nres; k++) {
            Value *v = op->results[k];
            if (v->type.rank && !v->layout && (!*best || v->type.rank > (*best)->type.rank))
                *best = v;
        }
    }
}

static Value *first_unassigned(Block *b)
{
    Value *best = NULL;
    find_unassigned(b, &best);
    return best;
}

/* ---- conversions ---------------------------------------------------------------- */

static bool readable(const Value *src, int insert_dim, const Layout *dst_layout, Type dst_type)
{
    LayoutMap sm, dm;
    value_map(src, &sm);
    layout_map(dst_layout, dst_type.rank, dst_type.shape, &dm);
    return lmap_local(&sm, insert_dim, &dm, NULL);
}

static Op *new_convert(Assign *A, Value *v, Layout *to, const Op *near)
{
    Op *c = tir_op_new(&A->ctx->arena, A->f, OP_CONVERT, 1, &v, 1, &v->type);
    c->stmt = near->stmt;
    c->loc = near->loc;
    Value *r = c->results[0];
    r->layout = to;
    r->name = v->name;
    r->ax = v->ax;
    return c;
}

/* Can v be recomputed in another layout instead of moved through shared
 * memory: index arithmetic of at most `budget` ops from scalars and ranges? */
static bool cheap_to_recompute(const Value *v, int *budget)
{
    if (!v->type.rank)
        return true;
    const Op *d = v->def;
    if (!d)
        return false;
    if (d->kind != OP_SPLAT && d->kind != OP_MAKE_RANGE && d->kind != OP_CONST && --*budget < 0)
        return false;
    bool kind_ok = d->kind == OP_MAKE_RANGE || d->kind == OP_SPLAT || d->kind == OP_BROADCAST ||
                   d->kind == OP_EXPAND_DIMS ||
                   (op_is_elementwise(d->kind) && op_is_pure(d->kind) && d->kind != OP_MATH && d->kind != OP_MATH2);
    if (!kind_ok || d->nres != 1 || d->nargs > 4)
        return false;
    for (int k = 0; k < d->nargs; k++)
        if (!cheap_to_recompute(d->args[k], budget))
            return false;
    return true;
}

/* A copy of v's definition in layout `to`, its tensor operands recomputed
 * the same way (or reused where they are readable in place), inserted in b
 * before position *at, where `user` needs it (whose statement it is shown under). */
static Value *recompute(Assign *A, Block *b, int *at, Value *v, Layout *to, const Op *user)
{
    if (!v->type.rank || readable(v, -1, to, v->type))
        return v;
    for (int i = 0; i < A->recomputed.len; i++) {
        Recomputed *r = &A->recomputed.data[i];
        if (r->v == v && r->block == b && layout_eq(r->to, to))
            return r->copy;
    }
    Arena *a = &A->ctx->arena;
    const Op *d = v->def;
    Value *args[4];
    for (int k = 0; k < d->nargs; k++) {
        Value *x = d->args[k];
        Layout *want = to;
        if (d->kind == OP_EXPAND_DIMS)
            want = layout_slice(a, A->f, to, d->expand_dims.axis);
        args[k] = x->type.rank ? recompute(A, b, at, x, want, user) : x;
    }
    Op *c = tir_op_new(a, A->f, d->kind, d->nargs, args, 1, &v->type);
    tir_op_copy_attrs(c, d);
    c->stmt = user->stmt;
    c->loc = d->loc;
    Value *r = c->results[0];
    r->layout = to;
    r->name = v->name;
    r->ax = v->ax;
    tir_block_insert(a, b, *at, c);
    (*at)++;
    vec_push(a, &A->recomputed, ((Recomputed){.v = v, .to = to, .block = b, .copy = r}));
    return r;
}

/* Makes op->args[k] readable in `to` (at op's result shape): recomputed
 * there when cheap, else converted in front of op. */
static void fix_operand(Assign *A, Block *b, int *at, Op *op, int k, Layout *to, Type dst_type, int insert_dim)
{
    Value *v = op->args[k];
    if (!v->type.rank || !to || readable(v, insert_dim, to, dst_type))
        return;
    Layout *want = insert_dim >= 0 ? layout_slice(&A->ctx->arena, A->f, to, insert_dim) : to;
    int budget = 16;
    if (op->kind != OP_YIELD && cheap_to_recompute(v, &budget)) {
        op->args[k] = recompute(A, b, at, v, want, op);
        return;
    }
    for (int j = 0; j < *at; j++) { /* converted already in this block */
        Op *c = b->ops.data[j];
        if (c->kind == OP_CONVERT && c->args[0] == v && layout_eq(c->results[0]->layout, want)) {
            op->args[k] = c->results[0];
            return;
        }
    }
    Op *c = new_convert(A, v, want, op);
    tir_block_insert(&A->ctx->arena, b, *at, c);
    (*at)++;
    op->args[k] = c->results[0];
}

static void fix_yield(Assign *A, Block *b, Op *y, Value **targets, int first)
{
    int at = b->ops.len - 1;
    for (int k = first; k < y->nargs; k++)
        fix_operand(A, b, &at, y, k, targets[k - first]->layout, targets[k - first]->type, -1);
}

/* op's result computed in layout `nat`; when the result was given another
 * layout, a conversion after op (at *at) moves it there, and *at moves past
 * it: the conversion is what it should be, not an operand to fix again. */
static void retarget_result(Assign *A, Block *b, int *at, Op *op, Layout *nat)
{
    Value *r = op->results[0];
    LayoutMap have, want;
    value_map(r, &have);
    layout_map(nat, r->type.rank, r->type.shape, &want);
    if (lmap_eq(&have, &want))
        return;
    Value *tmp = tir_value_new(&A->ctx->arena, A->f, r->type);
    tmp->def = op;
    tmp->layout = nat;
    tmp->name = r->name;
    tmp->ax = r->ax;
    op->results[0] = tmp;
    Op *c = new_convert(A, tmp, r->layout, op);
    c->results[0] = r;
    r->def = c;
    tir_block_insert(&A->ctx->arena, b, *at + 1, c);
    (*at)++;
}

/* A shape op renames registers (layout_shape.c): its operands are moved,
 * where they must be, to layouts where it can (join: b like a; split: the
 * last dimension in registers), and its result is what the renaming gives
 * (flip: its operand's layout). */
static void fix_shape_op(Assign *A, Block *b, int *at, Op *op)
{
    Arena *a = &A->ctx->arena;
    Value *x = op->args[0];
    if (op->kind == OP_JOIN)
        fix_operand(A, b, at, op, 1, x->layout, x->type, -1);
    if (op->kind == OP_SPLIT) {
        int dim = x->type.rank - 1;
        LayoutMap sm, m;
        value_map(x, &sm);
        if (!lmap_dim_in_registers(&sm, dim)) {
            lmap_in_registers(&sm, dim, &m); /* the other half then reads the conversion its twin made */
            fix_operand(A, b, at, op, 0, layout_linear(a, A->f, &m), x->type, -1);
        }
    }
    retarget_result(A, b, at, op, shape_result_layout(a, A->f, op));
}

/* The layout a scan, or a reduction with a combine function, along `axis` runs in: `l`
 * where it holds the axis's elements in the order the emitter walks them (reduce.c,
 * combine.c: the run in registers, lanes, warps, repetitions), else the shape's blocked
 * home.  The linear layouts of reshape, permute, split and join may scatter the axis's
 * bits (a register bit below a lane bit, lanes out of order); a combine is ordered and
 * has no identity, so the elements are moved rather than the walk bent. */
static Layout *ordered_layout(Assign *A, Layout *l, Type t, int axis)
{
    LayoutMap m;
    layout_map(l, t.rank, t.shape, &m);
    if (axis_bits_ordered(&m, axis))
        return l;
    Layout *h = home(A, t);
    layout_map(h, t.rank, t.shape, &m);
    if (!axis_bits_ordered(&m, axis))
        BUG("the blocked home layout of a scan or combine reduction walks dim %d out of order", axis);
    return h;
}

/* Op (at b's index i) computes its results in layout `nat`: a result that should have
 * another becomes a conversion after op. */
static int fix_results(Assign *A, Block *b, int i, Op *op, Layout *nat)
{
    int added = 0;
    for (int k = 0; k < op->nres; k++) {
        Value *r = op->results[k];
        if (layout_eq(r->layout, nat))
            continue;
        Value *tmp = tir_value_new(&A->ctx->arena, A->f, r->type);
        tmp->def = op;
        tmp->layout = nat;
        tmp->name = r->name;
        op->results[k] = tmp;
        Op *c = new_convert(A, tmp, r->layout, op);
        c->results[0] = r;
        r->def = c;
        tir_block_insert(&A->ctx->arena, b, i + 1, c);
        added++;
    }
    return added;
}

static void insert_conversions(Assign *A, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            insert_conversions(A, op->regions[r]);
        Value *res = op->nres ? op->results[0] : NULL;
        switch (op->kind) {
        case OP_FOR: {
            for (int k = 0; k < op->nres; k++)
                fix_operand(A, b, &i, op, 3 + k, op->results[k]->layout, op->results[k]->type, -1);
            Block *body = op->regions[0];
            fix_yield(A, body, tir_block_last(body), op->results, 0);
            break;
        }
        case OP_IF:
            for (int r = 0; r < op->nregions; r++) {
                Op *y = tir_block_last(op->regions[r]);
                if (y && y->kind == OP_YIELD)
                    fix_yield(A, op->regions[r], y, op->results, 0);
            }
            break;
        case OP_WHILE:
            for (int k = 0; k < op->nres; k++)
                fix_operand(A, b, &i, op, k, op->results[k]->layout, op->results[k]->type, -1);
            fix_yield(A, op->regions[0], tir_block_last(op->regions[0]), op->results, 1);
            fix_yield(A, op->regions[1], tir_block_last(op->regions[1]), op->results, 0);
            break;
        case OP_EXPAND_DIMS:
            fix_operand(A, b, &i, op, 0, res->layout, res->type, op->expand_dims.axis);
            break;
        case OP_REDUCE:
            if (op->reduce.kind == RED_COMBINE) { /* every operand in one layout, walked in order */
                Layout *run = ordered_layout(A, op->args[0]->layout, op->args[0]->type, op->reduce.axis);
                for (int k = 0; k < op->nargs; k++)
                    fix_operand(A, b, &i, op, k, run, op->args[0]->type, -1);
            }
            if (res->type.rank) /* the result must be the Slice of the input; convert after it if not */
                i += fix_results(A, b, i, op, layout_slice(&A->ctx->arena, A->f, op->args[0]->layout, op->reduce.axis));
            break;
        case OP_STORE:
        case OP_ATOMIC_RMW:
        case OP_ATOMIC_CAS:
            for (int k = 1; k < op->nargs; k++)
                fix_operand(A, b, &i, op, k, op->args[0]->layout, op->args[0]->type, -1);
            break;
        case OP_DOT:
            fix_operand(A, b, &i, op, 2, res->layout, res->type, -1);
            if (dot_uses_mma(op))
                for (int k = 0; k < 2; k++) { /* operands are staged in shared memory, never recomputed */
                    Value *v = op->args[k];
                    Layout *want = dotop_layout(&A->ctx->arena, A->f, res->layout, k, v->type.dtype, v->type);
                    Op *c = new_convert(A, v, want, op);
                    tir_block_insert(&A->ctx->arena, b, i, c);
                    i++;
                    op->args[k] = c->results[0];
                }
            break;
        case OP_TRANS: {
            Arena *a = &A->ctx->arena;
            if (!renamable(res->layout)) {
                /* a transpose moves no data between blocked (or linear)
                 * layouts: do it there, then convert the result */
                Value *x = op->args[0];
                Layout *src = renamable(x->layout) ? x->layout : home(A, x->type);
                Value *tmp = tir_value_new(a, A->f, res->type);
                tmp->def = op;
                tmp->layout = permute_layout(a, A->f, src, x->type, op->trans.perm, false);
                tmp->name = res->name;
                tmp->ax = res->ax;
                op->results[0] = tmp;
                Op *c = new_convert(A, tmp, res->layout, op);
                c->results[0] = res;
                res->def = c;
                tir_block_insert(a, b, i + 1, c);
                res = tmp;
            }
            Layout *want = permute_layout(a, A->f, res->layout, res->type, op->trans.perm, true);
            fix_operand(A, b, &i, op, 0, want, op->args[0]->type, -1);
            break;
        }
        case OP_HISTOGRAM: /* the mask is read in the input's registers */
            if (op->nargs == 2)
                fix_operand(A, b, &i, op, 1, op->args[0]->layout, op->args[0]->type, -1);
            break;
        case OP_MAP:
        case OP_INLINE_ASM:
            for (int k = 0; k < op->nargs && res->type.rank; k++)
                fix_operand(A, b, &i, op, k, res->layout, res->type, -1);
            for (int k = 1; k < op->nres; k++)
                if (op->results[k]->type.rank && !layout_eq(op->results[k]->layout, res->layout))
                    BUG("%s results in different layouts", op_name(op->kind));
            break;
        case OP_SORT:
            /* tl.topk runs the network in its operand's layout and hands over
             * its result through shared memory */
            if (!op->sort.k)
                fix_operand(A, b, &i, op, 0, res->layout, res->type, -1);
            break;
        case OP_RESHAPE:
        case OP_JOIN:
        case OP_SPLIT:
        case OP_FLIP: fix_shape_op(A, b, &i, op); break;
        case OP_GATHER: fix_operand(A, b, &i, op, 1, res->layout, res->type, -1); break;
        case OP_SCAN: { /* operands and results in one layout, walked in order */
            Layout *run = ordered_layout(A, res->layout, res->type, op->scan.axis);
            for (int k = 0; k < op->nargs; k++)
                fix_operand(A, b, &i, op, k, run, res->type, -1);
            i += fix_results(A, b, i, op, run); /* the conversions back read `run` already */
            break;
        }
        case OP_LOAD:
        case OP_BROADCAST:
        case OP_CONVERT:
            for (int k = 0; k < op->nargs; k++)
                fix_operand(A, b, &i, op, k, res->layout, res->type, -1);
            break;
        default:
            if (op_is_elementwise(op->kind) && res && res->type.rank)
                for (int k = 0; k < op->nargs; k++)
                    if (op->args[k]->type.rank == res->type.rank)
                        fix_operand(A, b, &i, op, k, res->layout, res->type, -1);
            break;
        }
    }
}

static void mark_used(const Block *b, bool *used)
{
    for (int i = 0; i < b->args.len; i++)
        for (const Layout *l = b->args.data[i]->layout; l; l = l->parent)
            used[l->id] = true;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int k = 0; k < op->nres; k++)
            for (const Layout *l = op->results[k]->layout; l; l = l->parent)
                used[l->id] = true;
        for (int r = 0; r < op->nregions; r++)
            mark_used(op->regions[r], used);
    }
}

/* Home layouts of shapes whose values all ended up in other layouts are
 * dropped; the rest are renumbered L0, L1... in order. */
static void drop_unused_layouts(Arena *a, TirFunc *f)
{
    bool *used = NEW_ARRAY(a, bool, f->layouts.len);
    mark_used(f->body, used);
    int n = 0;
    for (int i = 0; i < f->layouts.len; i++) {
        Layout *l = f->layouts.data[i];
        if (!used[l->id])
            continue;
        f->layouts.data[n++] = l;
    }
    f->layouts.len = n;
    for (int i = 0; i < n; i++)
        f->layouts.data[i]->id = i;
}


/* ---- loop-invariant operands -------------------------------------------------- */

/* v is computed inside block b (or a block nested in it). */
static bool defined_within(const Value *v, const Block *b)
{
    const Block *at = v->def ? v->def->parent : v->block;
    while (at && at != b)
        at = at->parent ? at->parent->parent : NULL;
    return at == b;
}

static bool loop_op(const Op *op) { return op->kind == OP_FOR || op->kind == OP_WHILE; }

/* Moves out of `loop` (at index *at of b) every conversion into a dot operand
 * layout whose source is computed before the loop, to just before it. */
static void hoist_from(Arena *a, Block *b, int *at, const Op *loop, Block *inner)
{
    for (int i = 0; i < inner->ops.len; i++) {
        Op *op = inner->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            hoist_from(a, b, at, loop, op->regions[r]);
        if (op->kind != OP_CONVERT || op->results[0]->layout->kind != LAYOUT_DOTOP)
            continue;
        bool inside = false;
        for (int r = 0; r < loop->nregions; r++)
            inside |= defined_within(op->args[0], loop->regions[r]);
        if (inside)
            continue;
        tir_block_remove(inner, i);
        i--;
        tir_block_insert(a, b, *at, op);
        (*at)++;
    }
}

/* A dot operand computed before its loop (attention's q) is converted to the
 * operand layout once, before the loop, as Triton's loop-invariant code
 * motion leaves it, not staged through shared memory in every iteration. */
static void hoist_invariant_operands(Arena *a, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        if (loop_op(op))
            for (int r = 0; r < op->nregions; r++)
                hoist_from(a, b, &i, op, op->regions[r]);
        for (int r = 0; r < op->nregions; r++)
            hoist_invariant_operands(a, op->regions[r]);
    }
}

static bool has_shape_ops(const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (op_is_shape(op->kind))
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (has_shape_ops(op->regions[r]))
                return true;
    }
    return false;
}

void tir_layouts(Ctx *ctx, TirFunc *f)
{
    Assign A = {.ctx = ctx, .f = f};
    A.uses = NEW_ARRAY(&ctx->arena, int, 2 * ((size_t)f->nvalues + 1));
    A.dot_uses = A.uses + f->nvalues + 1;
    count_dot_operand_uses(f->body, A.uses, A.dot_uses);
    scan_memory_ops(&A, f->body);
    for (int i = 0; i < A.groups.len; i++)
        finish_group(&A, &A.groups.data[i]);
    find_chained_dots(&A, f->body);
    f->dot_chain = A.chained.len > 0;
    seed_dots(&A, f->body);
    seed_memory_ops(&A);
    /* the accumulator chain (zeros, loop-carried values) takes the mma layout
     * before homes; what a shape op leaves follows its operand, as Triton's
     * layouts flow forward through reshapes, joins and splits */
    if (f->uses_dot || has_shape_ops(f->body))
        propagate(&A);
    seed(&A, f->body);
    propagate(&A);
    for (Value *v; (v = first_unassigned(f->body));) {
        set_layout(&A, v, home(&A, v->type));
        propagate(&A);
    }
    insert_conversions(&A, f->body);
    hoist_invariant_operands(&ctx->arena, f->body);
    tir_simplify(ctx, f);
    drop_unused_layouts(&ctx->arena, f);
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
    if (l->kind == LAYOUT_SLICE) {
        sb_printf(out, "L%d: slice of L%d along dim %d (threads that differ only along dim %d hold the same elements)",
                  l->id, l->parent->id, l->slice_dim, l->slice_dim);
        return;
    }
    if (l->kind == LAYOUT_MMA && l->mma_version == 3) {
        sb_printf(out, "L%d: wgmma accumulator (m64nNk16 per warpgroup of 4 warps, each warp 16 rows; lane = 4*row + "
                       "column pair, as mma.sync's), warpsPerCTA ", l->id);
        print_vec(out, l->wpc, 2);
        sb_puts(out, " (M, N)");
        return;
    }
    if (l->kind == LAYOUT_MMA) {
        sb_printf(out, "L%d: mma.sync accumulator (16x8 tiles, lane = 4*row + column pair), warpsPerCTA ", l->id);
        print_vec(out, l->wpc, l->rank);
        if (l->rank == 3 && l->wpc[0] > 1)
            sb_puts(out, " (batch, M, N); warps first along the batch, the rest of it in the top register bits: "
                         "each thread holds its M x N elements of each of its warp's batches, batch after batch");
        else
            sb_puts(out, l->rank == 3 ? " (batch, M, N); the batch in the top register bits: each thread holds its "
                                        "M x N elements of every batch, batch after batch" : " (M, N)");
        return;
    }
    if (l->kind == LAYOUT_LINEAR) {
        layout_describe_linear(out, l);
        return;
    }
    if (l->kind == LAYOUT_DOTOP) {
        sb_printf(out, "L%d: mma.sync operand %c of L%d (%d element%s of K per 32-bit register; warps along %s share it)",
                  l->id, l->op_idx ? 'B' : 'A', l->parent->id, l->kwidth, l->kwidth > 1 ? "s" : "", l->op_idx ? "M" : "N");
        if (l->rank == 3)
            sb_puts(out, l->parent->wpc[0] > 1 ? "; the batch along the warps, then in the top register bits, as in its "
                                                 "accumulator"
                                               : "; the batch in the top register bits, as in its accumulator");
        return;
    }
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

/* "512+" before a later group's element, nothing before the first group's */
static void group_start(StrBuf *out, int offset)
{
    if (offset)
        sb_printf(out, "%d+", offset);
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
    sb_printf(out, "thread t owns element%s ", reps * spt > 1 ? "s" : "");
    for (int r = 0; r < reps; r++) {
        if (r && r == reps - 1)
            sb_puts(out, " and ");
        else if (r)
            sb_puts(out, ", ");
        if (r == 3 && reps > 4) {
            sb_printf(out, "... (%d groups, stride %d)", reps, tile);
            break;
        }
        if (spt == 1) {
            group_start(out, r * tile);
            sb_puts(out, "t");
        } else {
            group_start(out, r * tile);
            sb_printf(out, "%dt..", spt);
            group_start(out, r * tile);
            sb_printf(out, "%dt+%d", spt, spt - 1);
        }
    }
}

static void list_values(StrBuf *out, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int k = 0; k < op->nres; k++) {
            const Value *v = op->results[k];
            if (!v->type.rank || !v->layout)
                continue;
            LayoutMap m;
            value_map(v, &m);
            sb_printf(out, "  %%%d%s%s = %s: ", v->id, v->name ? " " : "", v->name ? v->name : "", op_name(op->kind));
            /* (below) "1 register", "8 registers" */
            for (int d = 0; d < v->type.rank; d++)
                sb_printf(out, "%s%d", d ? "x" : "", v->type.shape[d]);
            sb_printf(out, " %s, L%d, %d register%s per thread: ",
                      dtype_name(v->type.dtype == DT_PTR ? v->type.pointee : v->type.dtype), v->layout->id, 1 << m.nreg,
                      m.nreg ? "s" : "");
            lmap_describe(out, &m);
            sb_putc(out, '\n');
        }
        for (int r = 0; r < op->nregions; r++)
            list_values(out, op->regions[r]);
    }
}

void tir_print_layouts(StrBuf *out, const TirFunc *f)
{
    for (int i = 0; i < f->layouts.len; i++) {
        const Layout *l = f->layouts.data[i];
        layout_describe(out, l);
        sb_puts(out, "\n    ");
        if (l->kind == LAYOUT_BLOCKED && l->rank == 1) {
            layout_ownership(out, l);
            sb_printf(out, "\n    %d register%s per thread per tile value\n", layout_elems_per_thread(l),
                      layout_elems_per_thread(l) > 1 ? "s" : "");
        } else {
            LayoutMap m;
            layout_map(l, l->rank, l->shape, &m);
            sb_puts(out, "at ");
            for (int d = 0; d < l->rank; d++)
                sb_printf(out, "%s%d", d ? "x" : "", l->shape[d]);
            sb_puts(out, ", a thread owns ");
            lmap_describe(out, &m);
            sb_printf(out, "\n    %d register%s per thread per tile value\n", 1 << m.nreg, m.nreg ? "s" : "");
        }
    }
}

void tir_print_values(StrBuf *out, const TirFunc *f)
{
    sb_puts(out, "Tile values (pointer tiles by pointee type):\n");
    list_values(out, f->body);
}

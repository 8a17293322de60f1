/*
 * plan.c — the plan made before anything is printed: each value's single
 * user, which values are folded into their user's expression, and which
 * yielded values are computed straight into their loop or if variable.
 */
#include "emit_internal.h"

#include <string.h>

void record_users(Emitter *E, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int k = 0; k < op->nargs; k++)
            info(E, op->args[k])->user = op;
        for (int r = 0; r < op->nregions; r++)
            record_users(E, op->regions[r]);
    }
}

static bool inlinable_kind(OpKind k)
{
    return op_is_elementwise(k) || k == OP_MAKE_RANGE || k == OP_PROGRAM_ID || k == OP_NUM_PROGRAMS ||
           k == OP_BROADCAST || k == OP_EXPAND_DIMS || k == OP_JOIN;
}

/* An inlined expression nests those of its inlined operands; a chain of thousands
 * (`a + a + ...`) is cut into named steps, as its text would grow with the square. */
enum { MAX_INLINE_DEPTH = 64 };

static int inline_depth(Emitter *E, const Op *op)
{
    int d = 0;
    for (int k = 0; k < op->nargs; k++) {
        const ValInfo *ai = info(E, op->args[k]);
        if (ai->inl && ai->depth > d)
            d = ai->depth;
    }
    return d + 1;
}

void plan_block(Emitter *E, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            plan_block(E, op->regions[r]);
        if (op->nres != 1)
            continue;
        Value *v = op->results[0];
        ValInfo *vi = info(E, v);
        vi->depth = inline_depth(E, op);
        /* constants (a scalar one cast to another type too: an int64 loop's bounds read
         * by the pipeline's prologue as well), splats and renamings of registers
         * (transpose, reshape, split, flip) are read where used */
        bool const_cast = op->kind == OP_CAST && !v->type.rank && op->args[0]->def && op->args[0]->def->kind == OP_CONST;
        if (op->kind == OP_CONST || const_cast || op->kind == OP_SPLAT || op->kind == OP_TRANS ||
            op->kind == OP_RESHAPE || op->kind == OP_SPLIT || (op->kind == OP_FLIP && flip_in_registers(op))) {
            vi->inl = true;
            continue;
        }
        if (vi->depth > MAX_INLINE_DEPTH)
            continue;
        if (!inlinable_kind(op->kind) || v->nuses != 1 || !vi->user)
            continue;
        Op *u = vi->user;
        /* a named tile is kept, unless it is a large pointer tile (more than
         * 16 per thread) of one load or store: then each address is computed
         * where it is used, instead of a 64-bit register pair per element
         * live in between */
        bool addr = (u->kind == OP_LOAD || u->kind == OP_STORE) && u->args[0] == v && v->type.rank > 0 &&
                    value_regs(v) > 16;
        if (v->name && !addr)
            continue;
        if (u->parent != b)
            continue; /* used in a nested region: compute once, outside */
        if (u->kind == OP_STORE && u->args[1] == v && access_vec(u, NULL) > 1)
            continue; /* a vector store reads a register array */
        if (u->kind == OP_YIELD || u->kind == OP_CONDITION)
            continue;
        vi->inl = true;
        vi->folded_addr = v->name != NULL;
    }
}

static bool depends_on(Emitter *E, const Value *x, const Value *arg)
{
    if (x == arg)
        return true;
    if (!x->def || !x->type.rank || !info(E, x)->inl)
        return false;
    for (int k = 0; k < x->def->nargs; k++)
        if (depends_on(E, x->def->args[k], arg))
            return true;
    return false;
}

/* Does x, read by `reader` register by register, read the old value `arg` at another
 * register than the one being written: through a renaming (a join, split, flip or
 * transpose read where used) or in another register order? */
static bool reads_other_registers(Emitter *E, const Value *x, const Value *arg, const Value *reader)
{
    if (x == arg) {
        if (!arg->type.rank || !arg->layout || !reader->layout)
            return false;
        LayoutMap a, r;
        value_map(arg, &a);
        value_map(reader, &r);
        return !lmap_eq(&a, &r);
    }
    if (!x->def || !x->type.rank || !info(E, x)->inl)
        return false;
    bool renames = op_is_shape(x->def->kind) || x->def->kind == OP_TRANS;
    for (int k = 0; k < x->def->nargs; k++) {
        const Value *a = x->def->args[k];
        if (renames ? depends_on(E, a, arg) : reads_other_registers(E, a, arg, x))
            return true;
    }
    return false;
}

/* A value yielded into a loop-carried or if-result variable can be computed
 * straight into it when nothing reads the variable's old value afterwards, and
 * the value itself reads each old register only where it writes it. */
static void plan_direct_writes(Emitter *E, Op *owner, Block *b, Value **targets)
{
    if (!b->ops.len)
        return;
    Op *y = tir_block_last(b);
    if (y->kind != OP_YIELD)
        return;
    for (int i = 0; i < y->nargs; i++) {
        Value *v = y->args[i];
        ValInfo *vi = info(E, v);
        /* a dot's result may have readers besides the yield (a persistent loop's store
         * reads the accumulator): the variable is written only at the yield, after them */
        if (!v->def || v->def->parent != b || (v->nuses != 1 && v->def->kind != OP_DOT) || v->def->nres != 1)
            continue;
        if (!op_is_elementwise(v->def->kind) && v->def->kind != OP_LOAD && v->def->kind != OP_MAKE_RANGE &&
            v->def->kind != OP_DOT)
            continue;
        if (v->def->kind == OP_CONST || v->def->kind == OP_SPLAT)
            continue;
        bool ok = true;
        if (owner->kind != OP_IF) {
            /* the old value (block argument) must be dead after v's definition */
            Value *arg = b->args.data[owner->kind == OP_FOR ? i + 1 : i];
            for (int a = 0; a < v->def->nargs && ok; a++)
                if (reads_other_registers(E, v->def->args[a], arg, v))
                    ok = false;
            int def_at = tir_op_index(b, v->def);
            for (int k = def_at + 1; k < b->ops.len && ok; k++) {
                Op *o = b->ops.data[k];
                for (int a = 0; a < o->nargs; a++)
                    if (o->args[a] == arg && o != y)
                        ok = false;
                if (o->nregions && tir_op_reads(o, arg))
                    ok = false;
                if (o == y)
                    for (int a = 0; a < y->nargs; a++)
                        if (a != i && y->args[a] == arg)
                            ok = false;
            }
            /* inline expressions of later ops were checked via their users */
            for (int k = def_at + 1; k < b->ops.len - 1 && ok; k++) {
                Op *o = b->ops.data[k];
                if (o->nres == 1 && info(E, o->results[0])->inl)
                    for (int a = 0; a < o->nargs; a++)
                        if (o->args[a] == arg)
                            ok = false;
            }
        }
        if (ok) {
            vi->name = vname(E, targets[i]);
            vi->declared = true;
        }
    }
}

/* A loop's initial tile, computed in the loop's block for the loop alone, is
 * computed straight into the loop's variable: no second tile, no copy.  Only
 * tiles printed as variables of their own (not folded into the loop's copy)
 * and only tiles: a scalar prints as a const. */
static bool init_in_place(Emitter *E, const Op *loop, const Value *init)
{
    const Op *d = init->def;
    if (!d || d->parent != loop->parent || init->nuses != 1 || info(E, init)->inl)
        return false;
    if (d->kind == OP_FOR || d->kind == OP_WHILE)
        return true;
    return init->type.rank && (op_is_elementwise(d->kind) || d->kind == OP_MAKE_RANGE || d->kind == OP_LOAD);
}

/* The loop result k shares its variable with its initial value, or gets its own. */
static const char *loop_var(Emitter *E, const Op *loop, int k, const Value *init)
{
    if (init_in_place(E, loop, init)) {
        info(E, loop->results[k])->name = vname(E, init);
        info(E, loop->results[k])->shares_init = true;
    }
    return vname(E, loop->results[k]);
}

/* A region printed as a __device__ helper of its own (combine.c): a combine function's,
 * or tl.map_elementwise's. */
static bool helper_region(const Op *op)
{
    return op->kind == OP_MAP || (op->kind == OP_REDUCE && op->reduce.kind == RED_COMBINE) ||
           (op->kind == OP_SCAN && op->scan.kind == SCAN_COMBINE);
}

void plan_regions(Emitter *E, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++) {
            if (!helper_region(op)) {
                plan_regions(E, op->regions[r]);
                continue;
            }
            /* its names are its own, the parameters' first (the source's names, whatever
             * the kernel uses): a loop in it does not turn parameter `v` into `v_4` */
            NameScope kernel_names;
            names_enter(E, &kernel_names);
            for (int k = 0; k < op->regions[r]->args.len; k++)
                vname(E, op->regions[r]->args.data[k]);
            plan_regions(E, op->regions[r]);
            names_leave(E, &kernel_names);
        }
        if (op->kind == OP_FOR) {
            Block *body = op->regions[0];
            Value **targets = NEW_ARRAY(E->a, Value *, op->nres + 1);
            for (int k = 0; k < op->nres; k++) {
                /* block argument, result and init variable share one name */
                Value *arg = body->args.data[k + 1];
                const char *n = loop_var(E, op, k, op->args[3 + k]);
                info(E, arg)->name = n;
                info(E, op->results[k])->declared = true;
                targets[k] = op->results[k];
            }
            plan_direct_writes(E, op, body, targets);
        } else if (op->kind == OP_WHILE) {
            Value **targets = NEW_ARRAY(E->a, Value *, op->nres + 1);
            for (int k = 0; k < op->nres; k++) {
                const char *n = loop_var(E, op, k, op->args[k]);
                info(E, op->regions[0]->args.data[k])->name = n;
                info(E, op->regions[1]->args.data[k])->name = n;
                info(E, op->results[k])->declared = true;
                targets[k] = op->results[k];
            }
            plan_direct_writes(E, op, op->regions[1], targets);
        } else if (op->kind == OP_IF) {
            for (int k = 0; k < op->nres; k++)
                info(E, op->results[k])->declared = true;
            for (int r = 0; r < 2; r++)
                plan_direct_writes(E, op, op->regions[r], op->results);
        }
    }
}

/* ---- one pointer per vector ----
 *
 * A pointer tile read only by vectorised loads, stores and cp.async copies needs
 * only the first pointer of each vector: the others are never read.  Such a tile
 * keeps every V-th register (vec_store), V the largest power of two that divides
 * every reader's vector width.  An element-wise op whose result is such a tile
 * (`p += BLOCK_K`) reads its pointer operand at those elements only, so the
 * operand can be such a tile too.  Values that share one C variable (a loop's
 * initial value, block argument, result, and what the body computes into it)
 * are decided together; a copy between variables reads and writes every
 * element, so neither side of one is narrowed. */

struct VecLink {
    int operand, result;
};

typedef struct VecPlan {
    Emitter *E;
    int *group;        /* value id -> group, -1 for values that are not pointer tiles */
    const Value **value; /* value id -> the value, for pointer tiles */
    int *need;         /* group -> gcd of its readers' widths; 0 while unread */
    bool *stored;      /* group -> has a variable (some member is not folded) */
    int ngroups;
    StrMap by_name;    /* C name -> group + 1 */
    Vec(struct VecLink) links; /* operand groups read where their result's group is read */
} VecPlan;

static bool is_ptr_tile(const Value *v) { return v->type.rank && v->type.dtype == DT_PTR && v->layout; }

static void vp_add(VecPlan *P, const Value *v)
{
    if (!is_ptr_tile(v) || P->group[v->id] >= 0)
        return;
    ValInfo *vi = info(P->E, v);
    int *known = vi->name && !vi->inl ? strmap_find(&P->by_name, vi->name) : NULL;
    int g = known ? *known : P->ngroups++;
    if (!known && vi->name && !vi->inl)
        strmap_put(P->E->a, &P->by_name, vi->name, g);
    P->group[v->id] = g;
    P->value[v->id] = v;
    P->stored[g] |= !vi->inl;
}

static void vp_collect(VecPlan *P, const Block *b)
{
    for (int i = 0; i < b->args.len; i++)
        vp_add(P, b->args.data[i]);
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            vp_collect(P, op->regions[r]);
        for (int k = 0; k < op->nres; k++)
            vp_add(P, op->results[k]);
    }
}

static void vp_cap(VecPlan *P, const Value *v, int width)
{
    int g = P->group[v->id];
    if (g >= 0)
        P->need[g] = (int)gcd64(P->need[g], width);
}

static bool same_var(VecPlan *P, const Value *a, const Value *b)
{
    const ValInfo *x = info(P->E, a), *y = info(P->E, b);
    return x->name && y->name && !x->inl && !y->inl && !strcmp(x->name, y->name);
}

/* A value copied into another variable: both are read or written whole. */
static void vp_copy(VecPlan *P, const Value *from, const Value *to)
{
    if (same_var(P, from, to))
        return;
    vp_cap(P, from, 1);
    vp_cap(P, to, 1);
}

/* What reading operand k of op asks of it. */
static void vp_read(VecPlan *P, const Op *op, int k)
{
    const Value *x = op->args[k];
    const Value *r = op->nres == 1 ? op->results[0] : NULL;
    if (k == 0 && op->kind == OP_LOAD && layout_eq(x->layout, r->layout))
        vp_cap(P, x, access_vec(op, NULL));
    else if (k == 0 && op->kind == OP_STORE)
        vp_cap(P, x, access_vec(op, NULL));
    else if (k == 0 && op->kind == OP_ASYNC_COPY)
        vp_cap(P, x, copy_vec(op));
    else if (op_is_elementwise(op->kind) && r && is_ptr_tile(r) && layout_eq(x->layout, r->layout) &&
             type_eq(x->type, r->type))
        vec_push(P->E->a, &P->links, ((struct VecLink){.operand = P->group[x->id], .result = P->group[r->id]}));
    else if (op->kind == OP_YIELD && op->parent->parent)
        vp_copy(P, x, op->parent->parent->results[k]);
    else if (op->kind == OP_FOR || op->kind == OP_WHILE)
        ; /* an initial value: vp_constrain compares it with the loop's variable */
    else
        vp_cap(P, x, 1);
}

static void vp_constrain(VecPlan *P, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            vp_constrain(P, op->regions[r]);
        for (int k = 0; k < op->nres; k++) {
            const Value *v = op->results[k];
            bool computed = op->nres == 1 && op_is_elementwise(op->kind);
            bool carried = op->kind == OP_FOR || op->kind == OP_WHILE || op->kind == OP_IF;
            if (!computed && !carried)
                vp_cap(P, v, 1);
            if (op->kind == OP_FOR)
                vp_copy(P, op->args[3 + k], v);
            else if (op->kind == OP_WHILE)
                vp_copy(P, op->args[k], v);
        }
        for (int k = 0; k < op->nargs; k++)
            if (P->group[op->args[k]->id] >= 0)
                vp_read(P, op, k);
    }
}

void plan_vector_pointers(Emitter *E, Block *body)
{
    int nv = E->f->nvalues + 1;
    VecPlan P = {.E = E, .group = NEW_ARRAY(E->a, int, nv), .value = NEW_ARRAY(E->a, const Value *, nv),
                 .need = NEW_ARRAY(E->a, int, nv), .stored = NEW_ARRAY(E->a, bool, nv)};
    for (int i = 0; i < nv; i++)
        P.group[i] = -1;
    vp_collect(&P, body);
    vp_constrain(&P, body);
    /* an operand is read where its element-wise user's result is: propagate to a fixed point */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < P.links.len; i++) {
            int to = P.links.data[i].operand, n = (int)gcd64(P.need[to], P.need[P.links.data[i].result]);
            if (n != P.need[to]) {
                P.need[to] = n;
                changed = true;
            }
        }
    }
    for (int id = 0; id < nv; id++) {
        int g = P.group[id];
        if (g >= 0 && P.stored[g] && P.need[g] > 1 && !info(E, P.value[id])->inl)
            info(E, P.value[id])->vec_store = P.need[g];
    }
}

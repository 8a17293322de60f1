/*
 * lower_shape.c — the handlers of Triton's shape functions: tl.reshape /
 * tl.view / tl.ravel, tl.join, tl.split, tl.interleave, tl.cat and tl.flip,
 * with Triton 3.6's rules (its core.py, semantic.py and standard.py).  They
 * become OP_RESHAPE, OP_JOIN, OP_SPLIT, OP_FLIP and OP_TRANS; the layouts
 * that make them free are chosen in layout_shape.c.
 */
#include "lower_internal.h"

#include <string.h>

static Value *shape_tensor(Lower *L, CVal *c, Loc loc, const char *fname)
{
    if (c->kind != CV_VALUE)
        lower_error(L, loc, "%s expects a tensor, got %s", fname, cv_describe(L, c));
    if (!c->v->type.rank)
        lower_error(L, loc, "%s expects a tensor, got a scalar %s", fname, dtype_triton_name(c->v->type.dtype));
    return c->v;
}

static char *shape_text(Lower *L, Type t)
{
    StrBuf b = {0};
    sb_putc(&b, '[');
    for (int d = 0; d < t.rank; d++)
        sb_printf(&b, "%s%d", d ? ", " : "", t.shape[d]);
    sb_putc(&b, ']');
    char *s = arena_printf(L->a, "%s", b.data);
    sb_free(&b);
    return s;
}

/* The one element of a 1-element tile as a scalar (Triton's unsplat): a sum
 * along each axis of size 1, which adds nothing, so the element comes back
 * bit for bit (-0.0 and NaN included). */
static Value *unsplat(Lower *L, Value *v, Loc loc)
{
    while (v->type.rank) {
        Type r = v->type;
        r.shape[--r.rank] = 0;
        Op *op = emit_op(L, OP_REDUCE, loc, 1, &v, r);
        op->reduce.kind = RED_SUM;
        op->reduce.axis = v->type.rank - 1;
        v = op->results[0];
    }
    return v;
}

/* The shape of a reshape, as separate arguments or one tuple or list. */
static int reshape_dims(Lower *L, CVal *dims, Loc loc, const char *fname, int *shape)
{
    CVal **items = dims->items.data;
    int n = dims->items.len;
    if (n == 1 && items[0]->kind == CV_TUPLE) {
        n = items[0]->items.len;
        items = items[0]->items.data;
    }
    if (n > TIR_MAX_RANK)
        lower_error(L, loc, "tensors of rank %d are not supported (at most %d)", n, TIR_MAX_RANK);
    for (int i = 0; i < n; i++) {
        int64_t d = const_int(L, items[i], loc, "a shape dimension");
        if (d < 1 || !is_pow2(d) || d > TIR_MAX_NUMEL)
            lower_error(L, loc, "shape element %d must be a power of 2, got %lld", i, (long long)d);
        shape[i] = (int)d;
    }
    return n;
}

static Value *reshape_to(Lower *L, Value *v, int rank, const int *shape, bool can_reorder, Loc loc, const char *fname)
{
    Type t = type_tensor(type_elem(v->type), rank, shape);
    if (type_numel(t) != type_numel(v->type))
        lower_error(L, loc, "%s cannot change the number of elements: %s has %d, the shape %s %d", fname,
                    shape_text(L, v->type), type_numel(v->type), shape_text(L, t), type_numel(t));
    bool same = rank == v->type.rank;
    for (int d = 0; d < rank && same; d++)
        same = shape[d] == v->type.shape[d];
    if (same)
        return v;
    Op *op = emit_op(L, OP_RESHAPE, loc, 1, &v, t);
    op->reshape.can_reorder = can_reorder;
    return op->results[0];
}

/* tl.reshape(input, *shape, can_reorder=False); x.reshape(...); tl.view (can_reorder=True) */
CVal *builtin_reshape(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = shape_tensor(L, c->arg[0], c->at[0], c->name);
    int shape[TIR_MAX_RANK];
    int rank = reshape_dims(L, c->arg[1], c->loc, c->name, shape);
    if (!rank) { /* an empty shape: the scalar of a 1-element tile */
        if (type_numel(v->type) != 1)
            lower_error(L, c->loc, "%s cannot change the number of elements: %s has %d, a scalar 1", c->name,
                        shape_text(L, v->type), type_numel(v->type));
        return cv_value(L, unsplat(L, v, c->loc));
    }
    bool can_reorder = c->data || (c->arg[2] && cv_truthy(L, c->arg[2], c->at[2]));
    return cv_value(L, reshape_to(L, v, rank, shape, can_reorder, c->loc, c->name));
}

/* tl.ravel(x, can_reorder=False): the elements in one row-major dimension */
CVal *builtin_ravel(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = shape_tensor(L, c->arg[0], c->at[0], c->name);
    int numel = type_numel(v->type);
    bool can_reorder = c->arg[1] && cv_truthy(L, c->arg[1], c->at[1]);
    return cv_value(L, reshape_to(L, v, 1, &numel, can_reorder, c->loc, c->name));
}

/* OP_JOIN of a and b (one type) */
static Value *join_of(Lower *L, Value *a, Value *b, Loc loc)
{
    if (a->type.rank + 1 > TIR_MAX_RANK)
        lower_error(L, loc, "tensors of rank %d are not supported (at most %d)", a->type.rank + 1, TIR_MAX_RANK);
    Type t = a->type;
    t.shape[t.rank++] = 2;
    return emit1(L, OP_JOIN, loc, 2, (Value *[]){a, b}, t);
}

/* a and b broadcast to one shape, of one type, stacked along a new last dimension of 2 */
static Value *join_values(Lower *L, const BuiltinCall *c)
{
    Value *a = to_value(L, c->arg[0], c->at[0]), *b = to_value(L, c->arg[1], c->at[1]);
    if (a->type.dtype != b->type.dtype || a->type.pointee != b->type.pointee)
        lower_error(L, c->loc, "%s needs two values of one type, got %s and %s", c->name,
                    type_str(L->a, type_elem(a->type)), type_str(L->a, type_elem(b->type)));
    broadcast_pair(L, &a, &b, c->loc);
    if (!a->type.rank) { /* two scalars: as Triton, [1] tiles joined, then [2] */
        a = lower_expand_dims(L, a, 0, c->loc);
        b = lower_expand_dims(L, b, 0, c->loc);
        return reshape_to(L, join_of(L, a, b, c->loc), 1, (int[]){2}, false, c->loc, c->name);
    }
    return join_of(L, a, b, c->loc);
}

/* tl.join(a, b) */
CVal *builtin_join(const BuiltinCall *c) { return cv_value(c->L, join_values(c->L, c)); }

/* tl.interleave(a, b): join, then the last two dimensions as one */
CVal *builtin_interleave(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *j = join_values(L, c);
    if (j->type.rank == 1)
        return cv_value(L, j);
    int shape[TIR_MAX_RANK], rank = j->type.rank - 1;
    memcpy(shape, j->type.shape, sizeof shape);
    shape[rank - 1] *= 2;
    return cv_value(L, reshape_to(L, j, rank, shape, false, c->loc, c->name));
}

/* tl.split(a): the two halves of a last dimension of 2, as a tuple */
CVal *builtin_split(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = shape_tensor(L, c->arg[0], c->at[0], c->name);
    Type t = v->type;
    if (t.shape[t.rank - 1] != 2)
        lower_error(L, c->at[0], "%s needs a last dimension of 2, got shape %s", c->name, shape_text(L, t));
    bool scalars = t.rank == 1; /* as Triton: [2] is split as [1, 2], each half unsplat */
    if (scalars) {
        v = lower_expand_dims(L, v, 0, c->loc);
        t = v->type;
    }
    t.rank--;
    t.shape[t.rank] = 0;
    CVal *tuple = NEW(L->a, CVal);
    tuple->kind = CV_TUPLE;
    for (int half = 0; half < 2; half++) {
        Op *op = emit_op(L, OP_SPLIT, c->loc, 1, &v, t);
        op->split.half = half;
        Value *r = op->results[0];
        vec_push(L->a, &tuple->items, cv_value(L, scalars ? unsplat(L, r, c->loc) : r));
    }
    return tuple;
}

/* tl.cat(input, other, can_reorder): Triton concatenates 1-D tensors and may
 * reorder; tilec keeps input's elements, then other's (join, transpose,
 * reshape: registers renamed, no data moved) */
CVal *builtin_cat(const BuiltinCall *c)
{
    Lower *L = c->L;
    if (!c->arg[2] || !cv_truthy(L, c->arg[2], c->at[2]))
        lower_error(L, c->loc, "%s needs can_reorder=True: Triton's cat may reorder elements (its only implementation)",
                    c->name);
    Value *a = shape_tensor(L, c->arg[0], c->at[0], c->name), *b = shape_tensor(L, c->arg[1], c->at[1], c->name);
    if (a->type.rank != 1)
        lower_error(L, c->at[0], "%s needs 1-D tensors, got shape %s", c->name, shape_text(L, a->type));
    if (!type_eq(a->type, b->type))
        lower_error(L, c->loc, "%s needs two tensors of one type and shape, got %s and %s", c->name,
                    type_str(L->a, a->type), type_str(L->a, b->type));
    int n = 2 * a->type.shape[0];
    Value *pairs = lower_permute(L, join_of(L, a, b, c->loc), (int[]){1, 0}, c->loc);
    return cv_value(L, reshape_to(L, pairs, 1, &n, true, c->loc, c->name));
}

/* tl.flip(x, dim=None): reversed along dim (the last by default) */
CVal *builtin_flip(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *v = shape_tensor(L, c->arg[0], c->at[0], c->name);
    int rank = v->type.rank;
    int64_t dim = c->arg[1] ? const_int(L, c->arg[1], c->at[1], "the dim") : rank - 1;
    if (dim < -rank || dim >= rank)
        lower_error(L, c->at[1], "%s: dim %lld is out of range for a tensor of rank %d", c->name, (long long)dim, rank);
    if (dim < 0)
        dim += rank;
    if (v->type.shape[dim] == 1)
        return cv_value(L, v);
    Op *op = emit_op(L, OP_FLIP, c->loc, 1, &v, v->type);
    op->flip.axis = (int)dim;
    return cv_value(L, op->results[0]);
}

/* tl.gather(src, index, axis): out[..., i, ...] = src[..., index[..., i, ...], ...]
 * along axis, with the index's shape (Triton's semantic.gather rules) */
CVal *builtin_gather(const BuiltinCall *c)
{
    Lower *L = c->L;
    Value *src = shape_tensor(L, c->arg[0], c->at[0], c->name), *index = shape_tensor(L, c->arg[1], c->at[1], c->name);
    Type ts = src->type, ti = index->type;
    if (!dtype_is_int(ti.dtype) || ti.dtype == DT_I1)
        lower_error(L, c->at[1], "%s: the index must be an integer tensor, got %s", c->name, dtype_triton_name(ti.dtype));
    if (ti.rank != ts.rank)
        lower_error(L, c->at[1], "%s: the source and index tensors must have the same rank, got %d and %d", c->name,
                    ts.rank, ti.rank);
    int64_t axis = const_int(L, c->arg[2], c->at[2], "the axis");
    if (axis < -ts.rank || axis >= ts.rank)
        lower_error(L, c->at[2], "%s: axis %lld is out of range for a tensor of rank %d", c->name, (long long)axis,
                    ts.rank);
    if (axis < 0)
        axis += ts.rank;
    for (int d = 0; d < ts.rank; d++)
        if (d != axis && ti.shape[d] != ts.shape[d])
            lower_error(L, c->at[1], "%s: the index's dim %d (%d) must match the source's (%d)", c->name, d, ti.shape[d],
                        ts.shape[d]);
    /* along an axis of extent 1 the only index in range is 0: each result element is the
     * source's one element of its line, with no exchange (and the index not computed) */
    if (ts.shape[axis] == 1)
        return cv_value(L, broadcast_to_shape(L, src, ti.rank, ti.shape, c->loc));
    Op *op = emit_op(L, OP_GATHER, c->loc, 2, (Value *[]){src, index}, type_tensor(type_elem(ts), ti.rank, ti.shape));
    op->gather.axis = (int)axis;
    return cv_value(L, op->results[0]);
}


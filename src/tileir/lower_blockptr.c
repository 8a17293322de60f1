/*
 * lower_blockptr.c — block pointers (tl.make_block_ptr, tl.advance, tl.load /
 * tl.store with boundary_check and padding_option) and tensor descriptors
 * (tl.make_tensor_descriptor, tensordesc parameters, desc.load / store /
 * atomic_*), lowered as Triton lowers them where there is no TMA: to a tile
 * of pointers and a bounds mask, which the ordinary load, store and atomic
 * paths (and their AxisInfo, layouts and vector widths) then handle.
 *
 * A block pointer is a translation-time structure (BlockPtr, a CV_BLOCKPTR):
 * its base, shape and strides are values fixed where it is made; its offsets
 * change with tl.advance and are what a loop carries.  Element (i0, i1...) of
 * the block is at
 *     base + sum over d of (offsets[d] + i_d) * strides[d]
 * and is in bounds when 0 <= offsets[d] + i_d < shape[d] for every checked d.
 * As in Triton, shape and strides are 64-bit and offsets 32-bit; `order` is a
 * layout hint and changes nothing here (AxisInfo finds the contiguous
 * dimension from the strides).  A tensor descriptor is the same structure
 * without offsets: each load or store gives them, and checks every dimension.
 */
#include "lower_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static CVal *scaled(Lower *L, CVal *offset, CVal *stride, Loc loc);
static Value *named(Lower *L, const BlockPtr *bp, Value *v, const char *role);

static CVal *cv_bp(Lower *L, CKind kind, BlockPtr *bp)
{
    CVal *c = NEW(L->a, CVal);
    c->kind = kind;
    c->bp = bp;
    return c;
}

/* The items of a shape-like argument: a tuple or list, or one item alone (Triton
 * accepts `block_shape=16` for a 1-D block). */
static int items_of(Lower *L, CVal *c, CVal ***out)
{
    if (c->kind == CV_TUPLE) {
        *out = c->items.data;
        return c->items.len;
    }
    CVal **one = NEW_ARRAY(L->a, CVal *, 1);
    one[0] = c;
    *out = one;
    return 1;
}

/* An integer scalar argument (a Python int or an integer scalar value) as a CVal; `bits`
 * is what Triton converts it to: 64 for shape and strides, 32 for offsets. */
static CVal *int_scalar(Lower *L, CVal *c, int bits, Loc loc, const char *what)
{
    if (c->kind == CV_INT || c->kind == CV_BOOL)
        return cv_int(L, c->i);
    if (c->kind != CV_VALUE || c->v->type.rank || !dtype_is_int(c->v->type.dtype))
        lower_error(L, loc, "%s must be integer scalars, got %s", what, cv_describe(L, c));
    Value *v = c->v;
    if (bits == 32 && dtype_bits(v->type.dtype) == 64)
        lower_error(L, loc, "Block pointers only support 32 bit `offsets/block_shape`, add a `.to(tl.int32)` or use "
                    "regular indexing for 64 bit support");
    if (bits == 64) /* shape and strides: a bound compares as it is; a stride widens the index */
        return c;
    return cv_value(L, cast_value(L, v, type_scalar(DT_I32), loc));
}

static void check_block_dim(Lower *L, int64_t b, int d, Loc loc)
{
    if (b <= 0 || b > (1 << 20) || (b & (b - 1)))
        lower_error(L, loc, "Shape element %d must be a power of 2", d);
}

/* ---- making and advancing ------------------------------------------------------------ */

/* tl.make_block_ptr(base, shape, strides, offsets, block_shape, order) */
CVal *builtin_make_block_ptr(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *const *A = c->arg;
    const Loc *at = c->at;
    if (A[0]->kind != CV_VALUE || A[0]->v->type.rank || A[0]->v->type.dtype != DT_PTR)
        lower_error(L, at[0], "Expected `base` to be a pointer type (but not a block pointer type or others), got %s",
                    cv_describe(L, A[0]));
    if (A[0]->v->type.pointee == DT_I1)
        lower_error(L, at[0], "block pointers to int1 are not supported yet (Triton reads them as int8)");
    CVal **items[6];
    int n[6];
    for (int i = 1; i < 6; i++)
        n[i] = items_of(L, A[i], &items[i]);
    for (int i = 1; i < 5; i++)
        if (n[i] != n[5])
            lower_error(L, c->loc, "Expected shape/strides/offsets/block_shape to have the same length");
    int rank = n[5];
    if (rank < 1 || rank > TIR_MAX_RANK)
        lower_error(L, at[4], "block pointers of rank %d are not supported (1 to %d dimensions)", rank, TIR_MAX_RANK);
    BlockPtr *bp = NEW(L->a, BlockPtr);
    bp->rank = rank;
    bp->base = A[0];
    bool seen[TIR_MAX_RANK] = {0};
    for (int d = 0; d < rank; d++) {
        bp->shape[d] = int_scalar(L, items[1][d], 64, at[1], "the shape and strides of a block pointer");
        bp->strides[d] = int_scalar(L, items[2][d], 64, at[2], "the shape and strides of a block pointer");
        bp->offsets[d] = int_scalar(L, items[3][d], 32, at[3], "the offsets of a block pointer");
        CVal *b = items[4][d];
        if (b->kind != CV_INT)
            lower_error(L, at[4], "Expected a list of constant integers (`int32_t` range) in `block_shape`");
        check_block_dim(L, b->i, d, at[4]);
        bp->block[d] = (int)b->i;
        CVal *o = items[5][d];
        if (o->kind != CV_INT || o->i < 0 || o->i >= rank || seen[o->i])
            lower_error(L, at[5], "Expected a permutation of (0, 1, ..., len(order)-1) in order");
        seen[o->i] = true;
        bp->order[d] = (int)o->i;
    }
    return cv_bp(L, CV_BLOCKPTR, bp);
}

/* The offsets of a load, store or advance: `rank` integer scalars (int32). */
static void offsets_of(Lower *L, CVal *c, int rank, Loc loc, const char *what, CVal **out)
{
    CVal **items;
    int n = items_of(L, c, &items);
    if (n != rank)
        lower_error(L, loc, "%s: expected %d offsets, but got %d", what, rank, n);
    for (int d = 0; d < rank; d++)
        out[d] = int_scalar(L, items[d], 32, loc, "the offsets of a block pointer");
}

/* tl.advance(base, offsets) and ptr.advance(offsets) */
CVal *builtin_advance(const BuiltinCall *c)
{
    Lower *L = c->L;
    if (c->arg[0]->kind != CV_BLOCKPTR)
        lower_error(L, c->at[0], "tl.advance needs a block pointer (tl.make_block_ptr), got %s",
                    cv_describe(L, c->arg[0]));
    const BlockPtr *old = c->arg[0]->bp;
    BlockPtr *bp = NEW(L->a, BlockPtr);
    *bp = *old;
    CVal *by[TIR_MAX_RANK];
    offsets_of(L, c->arg[1], bp->rank, c->at[1], "tl.advance", by);
    CVal *step = NULL;
    for (int d = 0; d < bp->rank; d++)
        if (!(by[d]->kind == CV_INT && by[d]->i == 0)) {
            bp->offsets[d] = lower_binop(L, TOK_PLUS, old->offsets[d], by[d], c->at[1]);
            CVal *s = scaled(L, by[d], bp->strides[d], c->at[1]);
            step = step ? lower_binop(L, TOK_PLUS, step, s, c->at[1]) : s;
        }
    /* a pointer tile a loop carries moves by one scalar step, as plain pointers do */
    if (step && old->ptrs)
        bp->ptrs = cv_value(L, named(L, bp, lower_binop(L, TOK_PLUS, old->ptrs, step, c->at[1])->v, "ptrs"));
    return cv_bp(L, CV_BLOCKPTR, bp);
}

/* ---- pointer tiles and masks --------------------------------------------------------- */

/* Names the tile `role` after the block pointer: a_ptr's pointers are a_ptrs. */
static Value *named(Lower *L, const BlockPtr *bp, Value *v, const char *role)
{
    if (!v->def || v->name)
        return v;
    const char *stem = bp->name ? bp->name : "block";
    size_t n = strlen(stem);
    static const char *const tails[] = {"_block_ptr", "_ptr", "_desc"};
    for (size_t i = 0; i < ARRAY_LEN(tails); i++) {
        size_t k = strlen(tails[i]);
        if (n > k && !strcmp(stem + n - k, tails[i])) {
            n -= k;
            break;
        }
    }
    v->name = arena_printf(L->a, "%.*s_%s", (int)n, stem, role);
    return v;
}

/* arange(0, block[d]) shaped to broadcast along dimension d: int32 */
static Value *block_range(Lower *L, const BlockPtr *bp, int d, Loc loc)
{
    Op *r = emit_op(L, OP_MAKE_RANGE, loc, 0, NULL, type_tensor(type_scalar(DT_I32), 1, &bp->block[d]));
    r->make_range.start = 0;
    r->make_range.end = bp->block[d];
    Value *v = r->results[0];
    for (int k = 0; k < bp->rank; k++)
        if (k != d)
            v = lower_expand_dims(L, v, k, loc);
    return v;
}

static bool is_int(const CVal *c, int64_t i) { return c->kind == CV_INT && c->i == i; }

/* offsets[d] * strides[d], 64-bit as in Triton (a unit stride: the int32 offset itself) */
static CVal *scaled(Lower *L, CVal *offset, CVal *stride, Loc loc)
{
    if (is_int(stride, 1))
        return offset;
    Type i64 = type_scalar(DT_I64);
    if (offset->kind == CV_INT && stride->kind == CV_VALUE) /* a constant times a 32-bit stride */
        stride = cv_value(L, cast_value(L, stride->v, i64, loc));
    CVal *wide = offset->kind == CV_INT ? offset : cv_value(L, cast_value(L, offset->v, i64, loc));
    return lower_binop(L, TOK_STAR, wide, stride, loc);
}

/* Whether offsets[d] + arange(0, block[d]) is in [0, shape[d]).  A nonnegative constant
 * offset needs only the upper bound.  Under a 32-bit shape one unsigned compare checks
 * both ends, (uint32)i < (uint32)shape, where the shape is positive (a scalar test, the
 * same for the whole tile); other shapes are compared at both ends. */
static Value *in_bounds(Lower *L, const BlockPtr *bp, int d, Value *range, Loc loc)
{
    static const char *const dim_names[] = {"i0", "i1", "i2", "i3"};
    CVal *off = bp->offsets[d], *shape = bp->shape[d];
    CVal *idx = is_int(off, 0) ? cv_value(L, range) : lower_binop(L, TOK_PLUS, off, cv_value(L, range), loc);
    named(L, bp, idx->v, dim_names[d]);
    if (off->kind == CV_INT && off->i >= 0)
        return lower_compare(L, TOK_LT, idx, shape, loc)->v;
    if (shape->kind == CV_VALUE && dtype_bits(shape->v->type.dtype) == 32) {
        Type u32 = type_scalar(DT_U32);
        CVal *ui = cv_value(L, cast_value(L, idx->v, u32, loc));
        Value *in = lower_compare(L, TOK_LT, ui, cv_value(L, cast_value(L, shape->v, u32, loc)), loc)->v;
        Value *some = named(L, bp, lower_compare(L, TOK_GT, shape, cv_int(L, 0), loc)->v,
                            arena_printf(L->a, "nonempty%d", d));
        return lower_binop(L, TOK_AMP, cv_value(L, in), cv_value(L, some), loc)->v;
    }
    Value *in = lower_compare(L, TOK_LT, idx, shape, loc)->v;
    return lower_binop(L, TOK_AMP, lower_compare(L, TOK_GE, idx, cv_int(L, 0), loc), cv_value(L, in), loc)->v;
}

/* The block's pointers at its offsets; range[d] (when not NULL): arange(0, block[d]) along d. */
static Value *pointer_tile(Lower *L, const BlockPtr *bp, Value **range, Loc loc)
{
    /* Element (i0, i1...) is at base + sum of (offsets[d] + i_d) * strides[d], computed in
     * two parts: the scalar start, base + sum of offsets[d] * strides[d], and the tile sum
     * of i_d * strides[d], the same wherever the block is.  The tile is added one dimension
     * at a time, as a kernel with plain pointers writes it, so that each sum broadcasts only
     * at its last step. */
    CVal *shift = NULL;
    for (int d = 0; d < bp->rank; d++) {
        if (is_int(bp->offsets[d], 0))
            continue;
        CVal *s = scaled(L, bp->offsets[d], bp->strides[d], loc);
        shift = shift ? lower_binop(L, TOK_PLUS, shift, s, loc) : s;
    }
    CVal *ptrs = bp->base;
    if (shift) {
        ptrs = lower_binop(L, TOK_PLUS, ptrs, shift, loc);
        named(L, bp, ptrs->v, "start");
    }
    for (int d = 0; d < bp->rank; d++) {
        Value *r = named(L, bp, block_range(L, bp, d, loc), arena_printf(L->a, "r%d", d));
        if (range)
            range[d] = r;
        ptrs = lower_binop(L, TOK_PLUS, ptrs, scaled(L, cv_value(L, r), bp->strides[d], loc), loc);
    }
    return named(L, bp, broadcast_to_shape(L, ptrs->v, bp->rank, bp->block, loc), "ptrs");
}

/* The block's pointers (the tile a loop carries, if it does) and, when `check` has a
 * dimension, the mask of the elements in bounds along the checked dimensions. */
static Value *block_pointers(Lower *L, const BlockPtr *bp, const bool *check, Value **mask, Loc loc)
{
    Value *range[TIR_MAX_RANK] = {0};
    Value *p = bp->ptrs ? bp->ptrs->v : pointer_tile(L, bp, range, loc);
    *mask = NULL;
    for (int d = 0; d < bp->rank; d++) {
        if (!check[d])
            continue;
        if (!range[d])
            range[d] = named(L, bp, block_range(L, bp, d, loc), arena_printf(L->a, "r%d", d));
        Value *in = in_bounds(L, bp, d, range[d], loc);
        *mask = *mask ? lower_binop(L, TOK_AMP, cv_value(L, *mask), cv_value(L, in), loc)->v : in;
    }
    if (*mask)
        *mask = named(L, bp, broadcast_to_shape(L, *mask, bp->rank, bp->block, loc), "in_bounds");
    return p;
}

/* boundary_check: None, an int or a sequence of distinct dimensions of the block */
static void parse_boundary_check(Lower *L, CVal *c, int rank, Loc loc, bool *check)
{
    for (int d = 0; d < rank; d++)
        check[d] = false;
    if (!c)
        return;
    CVal **items;
    int n = items_of(L, c, &items);
    for (int i = 0; i < n; i++) {
        CVal *d = items[i];
        if (d->kind != CV_INT)
            lower_error(L, loc, "boundary_check must hold constexpr dimensions, got %s", cv_describe(L, d));
        if (d->i < 0 || d->i >= rank)
            lower_error(L, loc, "boundary_check dimension %lld is out of range for a %d-D block pointer",
                        (long long)d->i, rank);
        if (check[d->i])
            lower_error(L, loc, "Duplicate dimension in `boundary_check`");
        check[d->i] = true;
    }
}

static DType pointee(const BlockPtr *bp) { return bp->base->v->type.pointee; }

/* The masked load of a block: out-of-bounds elements are `pad` (NULL: undefined, as
 * Triton's padding_option ""). */
static Value *load_block(Lower *L, const BlockPtr *bp, const bool *check, Value *pad, bool is_volatile, Loc loc)
{
    Value *mask;
    Value *ptrs = block_pointers(L, bp, check, &mask, loc);
    Type elem = type_scalar(pointee(bp));
    Value *ops[3] = {ptrs, mask, NULL};
    int n = mask ? 2 : 1;
    if (mask && pad)
        ops[n++] = broadcast_to_shape(L, pad, bp->rank, bp->block, loc);
    Op *op = emit_op(L, OP_LOAD, loc, n, ops, type_tensor(elem, bp->rank, bp->block));
    op->load.has_mask = mask != NULL;
    op->load.has_other = n == 3;
    op->load.is_volatile = is_volatile;
    return op->results[0];
}

static Value *padding_value(Lower *L, DType elem, bool nan, Loc loc)
{
    return nan ? emit_const_float(L, elem, NAN, loc)
               : dtype_is_float(elem) ? emit_const_float(L, elem, 0, loc) : emit_const_int(L, elem, 0, loc);
}

Value *blockptr_load(Lower *L, const BlockPtr *bp, CVal *boundary_check, Loc check_at, CVal *padding,
                     Loc padding_at, bool is_volatile, Loc loc)
{
    bool check[TIR_MAX_RANK];
    parse_boundary_check(L, boundary_check, bp->rank, check_at, check);
    const char *pad = "";
    if (padding) {
        if (padding->kind != CV_STR)
            lower_error(L, padding_at, "padding_option must be a string, got %s", cv_describe(L, padding));
        pad = padding->s;
        if (strcmp(pad, "") && strcmp(pad, "zero") && strcmp(pad, "nan"))
            lower_error(L, padding_at, "Padding option %s not supported", pad);
    }
    bool nan = !strcmp(pad, "nan");
    if (nan && !dtype_is_float(pointee(bp)))
        lower_error(L, padding_at, "Padding option `nan` is not supported for integer block pointers");
    Value *pv = *pad ? padding_value(L, pointee(bp), nan, loc) : NULL;
    return load_block(L, bp, check, pv, is_volatile, loc);
}

/* The value stored through a block: a tile of the block's shape (a scalar is broadcast),
 * of exactly the pointer's element type (Triton does not convert it). */
static Value *block_value(Lower *L, const BlockPtr *bp, CVal *value, Loc at, bool exact_dtype)
{
    Value *v = to_value(L, value, at);
    Type elem = type_scalar(pointee(bp));
    if (!v->type.rank) /* Triton broadcasts a scalar, then checks its type like a tile's */
        v = broadcast_to_shape(L, v, bp->rank, bp->block, at);
    bool same = v->type.rank == bp->rank;
    for (int d = 0; same && d < bp->rank; d++)
        same = v->type.shape[d] == bp->block[d];
    if (!same) {
        Type bt = type_tensor(elem, bp->rank, bp->block);
        lower_error(L, at, "Block shape(%s) and value shape(%s) mismatch", type_str(L->a, bt), type_str(L->a, v->type));
    }
    if (exact_dtype && v->type.dtype != elem.dtype)
        lower_error(L, at, "Block element type(%s) and value element type(%s) mismatch", dtype_name(elem.dtype),
                    dtype_name(v->type.dtype));
    return cast_value(L, v, elem, at);
}

static Op *store_block(Lower *L, const BlockPtr *bp, const bool *check, Value *v, Loc loc)
{
    Value *mask;
    Value *ptrs = block_pointers(L, bp, check, &mask, loc);
    Value *ops[3] = {ptrs, v, mask};
    Op *op = tir_op_new(L->a, L->f, OP_STORE, mask ? 3 : 2, ops, 0, NULL);
    op->loc = loc;
    op->stmt = L->stmt;
    op->store.has_mask = mask != NULL;
    tir_block_append(L->a, L->cur, op);
    return op;
}

void blockptr_store(Lower *L, const BlockPtr *bp, CVal *value, Loc value_at, CVal *boundary_check,
                    Loc check_at, Loc loc)
{
    Value *v = block_value(L, bp, value, value_at, true);
    bool check[TIR_MAX_RANK];
    parse_boundary_check(L, boundary_check, bp->rank, check_at, check);
    store_block(L, bp, check, v, loc);
}

/* ---- loops carry a block pointer's offsets ------------------------------------------- */

/* A loop carries a block pointer's pointer tile besides its offsets, so that tl.advance
 * moves the pointers by a scalar step instead of the loop computing them afresh. */
CVal *carry_prepare(Lower *L, CVal *c, Loc loc)
{
    if (!c || c->kind != CV_BLOCKPTR || c->bp->ptrs)
        return c;
    BlockPtr *bp = NEW(L->a, BlockPtr);
    *bp = *c->bp;
    bp->ptrs = cv_value(L, pointer_tile(L, bp, NULL, loc));
    return cv_bp(L, CV_BLOCKPTR, bp);
}

int carry_width(const CVal *c) { return c->kind == CV_BLOCKPTR ? c->bp->rank + (c->bp->ptrs != NULL) : 1; }

void carry_values(Lower *L, CVal *tmpl, CVal *now, Value **out, Loc loc)
{
    if (tmpl->kind != CV_BLOCKPTR) {
        out[0] = to_value(L, now, loc);
        return;
    }
    const BlockPtr *bp = now->bp;
    for (int d = 0; d < bp->rank; d++)
        out[d] = to_value(L, bp->offsets[d], loc);
    if (tmpl->bp->ptrs)
        out[bp->rank] = bp->ptrs ? bp->ptrs->v : pointer_tile(L, bp, NULL, loc);
}

CVal *carry_rebuild(Lower *L, CVal *init, Value **vals)
{
    if (init->kind != CV_BLOCKPTR)
        return cv_value(L, vals[0]);
    BlockPtr *bp = NEW(L->a, BlockPtr);
    *bp = *init->bp;
    for (int d = 0; d < bp->rank; d++)
        bp->offsets[d] = cv_value(L, vals[d]);
    if (bp->ptrs)
        bp->ptrs = cv_value(L, vals[bp->rank]);
    return cv_bp(L, CV_BLOCKPTR, bp);
}

const char *carry_part_name(Lower *L, const char *name, const CVal *c, int k)
{
    return k < c->bp->rank ? arena_printf(L->a, "%s_off%d", name, k) : arena_printf(L->a, "%s_ptrs", name);
}

static bool same_but_offsets(const BlockPtr *a, const BlockPtr *b)
{
    bool same = a->rank == b->rank && a->base == b->base;
    for (int d = 0; same && d < a->rank; d++)
        same = a->shape[d] == b->shape[d] && a->strides[d] == b->strides[d] && a->block[d] == b->block[d];
    return same;
}

void blockptr_same_but_offsets(Lower *L, const char *name, CVal *bp, CVal *other, Loc loc)
{
    if (other->kind != CV_BLOCKPTR || !same_but_offsets(bp->bp, other->bp))
        lower_error(L, loc, "block pointer '%s' differs between the branches of a runtime if in more than its "
                    "offsets (make it before the if and move it with tl.advance)", name);
}

void carry_yield(Lower *L, const char *name, CVal *init, CVal *now, Value **out, Loc loc)
{
    if (now->kind != CV_BLOCKPTR)
        lower_error(L, loc, "loop-carried variable '%s' is a block pointer before the loop and %s after it", name,
                    cv_describe(L, now));
    if (!same_but_offsets(init->bp, now->bp))
        lower_error(L, loc, "loop-carried block pointer '%s' is remade in the loop; only its offsets may change "
                    "(move tl.make_block_ptr before the loop and use tl.advance)", name);
    carry_values(L, init, now, out, loc);
}

/* ---- tensor descriptors -------------------------------------------------------------- */

/* tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero") */
CVal *builtin_make_tensor_descriptor(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *const *A = c->arg;
    const Loc *at = c->at;
    if (A[0]->kind != CV_VALUE || A[0]->v->type.rank || A[0]->v->type.dtype != DT_PTR)
        lower_error(L, at[0], "tl.make_tensor_descriptor needs a scalar pointer as its base, got %s",
                    cv_describe(L, A[0]));
    CVal **shape, **strides, **block;
    int ndim = items_of(L, A[1], &shape);
    if (ndim < 1 || ndim > 5)
        lower_error(L, at[1], "Expected 1 <= ndim <= 5 but got %d dimensions", ndim);
    if (items_of(L, A[2], &strides) != ndim)
        lower_error(L, at[2], "Expected %d strides but got %d", ndim, items_of(L, A[2], &strides));
    if (items_of(L, A[3], &block) != ndim)
        lower_error(L, at[3], "Expected block_shape to have %d dimensions but got %d", ndim, items_of(L, A[3], &block));
    if (ndim > TIR_MAX_RANK)
        lower_error(L, at[1], "tensor descriptors of rank %d are not supported (1 to %d dimensions)", ndim,
                    TIR_MAX_RANK);
    DType elem = A[0]->v->type.pointee;
    if (elem == DT_I1)
        lower_error(L, at[0], "tensor descriptors of int1 are not supported");
    int64_t last = block[ndim - 1]->kind == CV_INT ? block[ndim - 1]->i : 0;
    int bytes = dtype_bits(elem) / 8;
    if (last * bytes < 16)
        lower_error(L, at[3], "Descriptor block shape must have at least 16 bytes in the last dimension, but got "
                    "%lld * %d = %lld bytes", (long long)last, bytes, (long long)(last * bytes));
    CVal *ls = strides[ndim - 1];
    if (!(ls->kind == CV_INT && ls->i == 1))
        lower_error(L, at[2], "Tensor descriptor last dim must be 1 but got %s",
                    ls->kind == CV_INT ? arena_printf(L->a, "%lld", (long long)ls->i) : "a runtime value");
    const char *pad = "zero";
    if (A[4]) {
        if (A[4]->kind != CV_STR)
            lower_error(L, at[4], "padding_option must be a string, got %s", cv_describe(L, A[4]));
        pad = A[4]->s;
        if (strcmp(pad, "zero") && strcmp(pad, "nan"))
            lower_error(L, at[4], "Padding option %s not supported%s", pad,
                        *pad ? "" : " (a tensor descriptor pads with \"zero\" or \"nan\")");
    }
    BlockPtr *bp = NEW(L->a, BlockPtr);
    bp->rank = ndim;
    bp->base = A[0];
    bp->nan_padding = !strcmp(pad, "nan");
    if (bp->nan_padding && !dtype_is_float(elem))
        lower_error(L, at[4], "Padding option `nan` is not supported for integer blocks");
    for (int d = 0; d < ndim; d++) {
        /* Triton: shape as int32, strides as int64 */
        CVal *s = int_scalar(L, shape[d], 64, at[1], "the shape and strides of a tensor descriptor");
        bp->shape[d] = s->kind == CV_VALUE ? cv_value(L, cast_value(L, s->v, type_scalar(DT_I32), at[1])) : s;
        bp->strides[d] = int_scalar(L, strides[d], 64, at[2], "the shape and strides of a tensor descriptor");
        if (block[d]->kind != CV_INT)
            lower_error(L, at[3], "the block shape of a tensor descriptor must be constexpr integers, got %s",
                        cv_describe(L, block[d]));
        check_block_dim(L, block[d]->i, d, at[3]);
        bp->block[d] = (int)block[d]->i;
        bp->order[d] = ndim - 1 - d;
    }
    return cv_bp(L, CV_TENSORDESC, bp);
}

static const BlockPtr *desc_arg(const BuiltinCall *c)
{
    if (c->arg[0]->kind != CV_TENSORDESC)
        lower_error(c->L, c->at[0], "%s needs a tensor descriptor (tl.make_tensor_descriptor), got %s", c->name,
                    cv_describe(c->L, c->arg[0]));
    return c->arg[0]->bp;
}

/* The descriptor's block at `offsets`: a block pointer checked along every dimension. */
static BlockPtr *desc_at(const BuiltinCall *c, const BlockPtr *desc, CVal *offsets, Loc at, bool *check)
{
    BlockPtr *bp = NEW(c->L->a, BlockPtr);
    *bp = *desc;
    CVal **items;
    int n = items_of(c->L, offsets, &items);
    if (n != desc->rank)
        lower_error(c->L, at, "expected %d offsets, but got %d", desc->rank, n);
    for (int d = 0; d < desc->rank; d++) {
        bp->offsets[d] = int_scalar(c->L, items[d], 32, at, "the offsets of a tensor descriptor");
        check[d] = true;
    }
    return bp;
}

/* For Hopper: a 2-D block of a descriptor parameter may be copied by TMA (a ring's
 * load, tir_tma_store's store) from its first row and column, which the load or store
 * takes as two more arguments.  They are made here, before that op, which reads them. */
static bool tma_offsets(Lower *L, const BlockPtr *desc, const BlockPtr *bp, Loc loc, Value *first[2])
{
    if (!desc->param || desc->rank != 2 || L->opt->arch < 90)
        return false;
    for (int d = 0; d < 2; d++)
        first[d] = named(L, bp, to_value(L, bp->offsets[d], loc), d ? "col0" : "row0");
    return true;
}

/* op's arguments and then first[0], first[1] */
static void append_tma_offsets(Lower *L, Op *op, Value *first[2])
{
    Value **args = NEW_ARRAY(L->a, Value *, op->nargs + 2);
    memcpy(args, op->args, sizeof(Value *) * (size_t)op->nargs);
    args[op->nargs] = first[0];
    args[op->nargs + 1] = first[1];
    op->args = args;
    op->nargs += 2;
}

/* desc.load(offsets), tl.load_tensor_descriptor(desc, offsets): out of bounds reads 0 (NaN) */
CVal *builtin_descriptor_load(const BuiltinCall *c)
{
    const BlockPtr *desc = desc_arg(c);
    bool check[TIR_MAX_RANK];
    BlockPtr *bp = desc_at(c, desc, c->arg[1], c->at[1], check);
    Value *pad = padding_value(c->L, pointee(desc), desc->nan_padding, c->loc);
    Value *first[2];
    bool tma = tma_offsets(c->L, desc, bp, c->loc, first);
    Value *r = load_block(c->L, bp, check, pad, false, c->loc);
    if (tma) { /* a ring may copy this block with TMA */
        append_tma_offsets(c->L, r->def, first);
        r->def->load.desc_param = desc->param;
    }
    return cv_value(c->L, r);
}

/* desc.store(offsets, value), tl.store_tensor_descriptor(desc, offsets, value): out of
 * bounds writes are dropped */
CVal *builtin_descriptor_store(const BuiltinCall *c)
{
    Lower *L = c->L;
    const BlockPtr *desc = desc_arg(c);
    bool check[TIR_MAX_RANK];
    BlockPtr *bp = desc_at(c, desc, c->arg[1], c->at[1], check);
    Value *v = to_value(L, c->arg[2], c->at[2]);
    if (!v->type.rank)
        lower_error(L, c->at[2], "%s needs a tile of the block's shape, got %s", c->name, type_str(L->a, v->type));
    v = block_value(L, bp, c->arg[2], c->at[2], false);
    Value *first[2];
    bool tma = tma_offsets(L, desc, bp, c->loc, first);
    Op *st = store_block(L, bp, check, v, c->loc);
    if (tma) { /* the block may go out by TMA (tir_tma_store) */
        append_tma_offsets(L, st, first);
        st->store.desc_param = desc->param;
    }
    return cv_none(L);
}

/* desc.atomic_add / min / max / and / or / xor (offsets, value): an atomic per element in
 * bounds; data: the AtomicKind.  The dtypes are Triton's. */
CVal *builtin_descriptor_atomic(const BuiltinCall *c)
{
    Lower *L = c->L;
    const BlockPtr *desc = desc_arg(c);
    DType e = pointee(desc);
    bool ok;
    switch (c->data) {
    case ATOM_ADD: ok = e == DT_U32 || e == DT_I32 || e == DT_U64 || e == DT_FP32 || e == DT_FP16 || e == DT_BF16; break;
    case ATOM_MIN:
    case ATOM_MAX: ok = e == DT_U32 || e == DT_I32 || e == DT_U64 || e == DT_I64; break;
    default: ok = e == DT_U32 || e == DT_I32 || e == DT_U64 || e == DT_I64; break;
    }
    if (!ok)
        lower_error(L, c->loc, "%s: unsupported dtype %s", c->name, dtype_triton_name(e));
    bool check[TIR_MAX_RANK];
    BlockPtr *bp = desc_at(c, desc, c->arg[1], c->at[1], check);
    Value *v = to_value(L, c->arg[2], c->at[2]);
    if (v->type.dtype != e)
        lower_error(L, c->at[2], "%s: the value's dtype %s differs from the descriptor's %s", c->name,
                    dtype_triton_name(v->type.dtype), dtype_triton_name(e));
    v = block_value(L, bp, c->arg[2], c->at[2], true);
    Value *mask;
    Value *ptrs = block_pointers(L, bp, check, &mask, c->loc);
    Value *ops[3] = {ptrs, v, mask};
    Op *op = emit_op(L, OP_ATOMIC_RMW, c->loc, 3, ops, v->type);
    op->atomic.kind = (AtomicKind)c->data;
    op->atomic.has_mask = true;
    op->atomic.sem = SEM_RELAXED;
    op->atomic.scope = SCOPE_GPU;
    return cv_none(L);
}

/* ---- tensordesc parameters ----------------------------------------------------------- */

bool is_tensordesc_sig(const char *text)
{
    while (*text == ' ')
        text++;
    return !strncmp(text, "tensordesc<", 11);
}

static KernelParam *push_param(Lower *L, const char *name, Type t, int64_t div)
{
    KernelParam kp = {0};
    kp.name = kp.c_name = name;
    kp.type = t;
    kp.div = div;
    kp.value = tir_value_new(L->a, L->f, t);
    kp.value->name = name;
    vec_push(L->a, &L->f->params, kp);
    return &L->f->params.data[L->f->params.len - 1];
}

/* "tensordesc<fp16[64, 64]>", as Triton writes a host TensorDescriptor in a signature.
 * The kernel takes NAME_base (16-byte aligned, as TensorDescriptor asserts), NAME_shape0..
 * (int32) and NAME_stride0.. of every dimension but the last (int64, 16-byte multiples);
 * the last stride is 1, which TensorDescriptor also asserts. */
CVal *tensordesc_param(Lower *L, const char *name, const char *text, Loc loc)
{
    while (*text == ' ')
        text++;
    const char *p = text + 11, *br = strchr(p, '['), *close = br ? strchr(br, ']') : NULL;
    if (!br || !close || strcmp(close + 1, ">") != 0)
        lower_error(L, loc, "malformed signature entry '%s': a tensor descriptor is written tensordesc<DTYPE[B0, B1...]>, "
                    "e.g. tensordesc<fp16[64, 64]>", text);
    char *dt = arena_strndup(L->a, p, (size_t)(br - p));
    int d = dtype_from_name(dt);
    if (d < 0 || d == DT_I1 || d == DT_PTR)
        lower_error(L, loc, "malformed signature entry '%s': unknown element type '%s'", text, dt);
    BlockPtr *bp = NEW(L->a, BlockPtr);
    bool ok = true;
    for (const char *s = br + 1; ok && s < close;) {
        while (*s == ' ')
            s++;
        char *end;
        long long b = strtoll(s, &end, 10);
        ok = end != s && bp->rank < TIR_MAX_RANK;
        if (!ok)
            break;
        check_block_dim(L, b, bp->rank, loc);
        bp->block[bp->rank++] = (int)b;
        s = end;
        while (*s == ' ')
            s++;
        if (*s == ',')
            s++;
        else
            ok = s == close;
    }
    if (!ok || !bp->rank)
        lower_error(L, loc, "malformed signature entry '%s': the block shape must be 1 to %d integers", text,
                    TIR_MAX_RANK);
    int bytes = dtype_bits((DType)d) / 8;
    if (bp->block[bp->rank - 1] * bytes < 16)
        lower_error(L, loc, "Descriptor block shape must have at least 16 bytes in the last dimension, but got "
                    "%d * %d = %d bytes", bp->block[bp->rank - 1], bytes, bp->block[bp->rank - 1] * bytes);
    KernelParam *base = push_param(L, arena_printf(L->a, "%s_base", name), type_ptr((DType)d), 16);
    base->desc_name = name;
    base->desc_sig = text;
    bp->param = L->f->params.len; /* base's index + 1 */
    bp->base = cv_value(L, base->value);
    /* the descriptor's fields are not parameters of the source: nothing specialises them at launch */
    for (int k = 0; k < bp->rank; k++) {
        KernelParam *kp = push_param(L, arena_printf(L->a, "%s_shape%d", name, k), type_scalar(DT_I32), 1);
        kp->no_spec_value = kp->no_spec_align = true;
        bp->shape[k] = cv_value(L, kp->value);
    }
    for (int k = 0; k + 1 < bp->rank; k++) {
        KernelParam *kp = push_param(L, arena_printf(L->a, "%s_stride%d", name, k), type_scalar(DT_I64), 16 / bytes);
        kp->no_spec_value = kp->no_spec_align = true;
        bp->strides[k] = cv_value(L, kp->value);
    }
    bp->strides[bp->rank - 1] = cv_int(L, 1);
    bp->name = name;
    for (int k = 0; k < bp->rank; k++)
        bp->order[k] = bp->rank - 1 - k;
    return cv_bp(L, CV_TENSORDESC, bp);
}

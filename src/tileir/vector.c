/*
 * vector.c — how wide a global access can be: a load or store, or the
 * cp.async copy of a pipelined dot operand.  The vector width its pointers
 * allow (alignment and contiguity from AxisInfo, consecutive registers from
 * the layout), and whether its mask must then be tested per vector at run
 * time because AxisInfo cannot prove it constant over one.  The pipeliner,
 * limits.c and both emitters ask here.
 */
#include "tir.h"

/* The mask of a load or store, NULL when it has none. */
static const Value *access_mask(const Op *op)
{
    if (op->kind == OP_LOAD)
        return op->load.has_mask ? op->args[1] : NULL;
    return op->store.has_mask ? op->args[2] : NULL;
}

/* Elements per vector (16 bytes at most, a power of 2) that the pointer tile ptr allows:
 * registers 0, 1, 2.. holding consecutive elements of one dimension (*dim, may be NULL),
 * as far as AxisInfo proves them contiguous and aligned. */
static int pointer_vec(const Value *ptr, int *dim)
{
    int ignored;
    if (!dim)
        dim = &ignored;
    *dim = 0;
    if (!ptr->type.rank || !ptr->layout)
        return 1;
    LayoutMap m;
    value_map(ptr, &m);
    if (!m.nreg || m.reg[0].dim < 0)
        return 1;
    int d = *dim = m.reg[0].dim;
    int bytes = dtype_bits(ptr->type.pointee) / 8;
    if (bytes < 1)
        bytes = 1;
    int64_t v = (int64_t)1 << lmap_lead_bits(&m, d);
    if (v > 16 / bytes)
        v = 16 / bytes;
    int64_t align = ptr->ax.divisibility[d] / bytes;
    if (ptr->ax.contiguity[d] < align)
        align = ptr->ax.contiguity[d];
    if (align < v)
        v = align;
    while (v > 1 && (v & (v - 1))) /* a hint of 24 still makes vectors of 8 */
        v &= v - 1;
    return v < 1 ? 1 : (int)v;
}

/* The vector width of a tensor load or store, and the dimension the vectors run along.  The
 * mask does not narrow it: where AxisInfo cannot prove the mask constant over a vector, the
 * access tests the vector's mask bits at run time (access_tests_mask). */
int access_vec(const Op *op, int *dim)
{
    int vec = pointer_vec(op->args[0], dim);
    if (op->kind == OP_LOAD) {
        const Value *other = op->load.has_other ? op->args[2] : NULL;
        if (op->load.is_volatile)
            vec = 1;
        if (other && !(other->def && other->def->kind == OP_SPLAT))
            vec = 1;
    }
    return vec;
}

bool access_tests_mask(const Op *op)
{
    int dim, vec = access_vec(op, &dim);
    return vec > 1 && mask_varies_within(access_mask(op), dim, vec);
}

int stage_copy_vec(const Value *ptr, const DotStage *st, int *dim)
{
    int v = pointer_vec(ptr, dim);
    if (st->swz.max_phase > 1 && v > st->swz.vec)
        v = st->swz.vec;
    return v;
}

int copy_vec(const Op *copy) { return stage_copy_vec(copy->args[0], copy->buf->stage, NULL); }

bool copy_tests_mask(const Op *copy)
{
    int dim, v = stage_copy_vec(copy->args[0], copy->buf->stage, &dim);
    return v > 1 && mask_varies_within(tir_copy_mask(copy), dim, v);
}

bool mask_varies_within(const Value *mask, int d, int64_t v)
{
    return mask && mask->ax.constancy[d] < v;
}

/*
 * vector.c — how wide a global load or store can be: the vector width its
 * pointers allow (alignment and contiguity from AxisInfo, consecutive
 * registers from the layout), and whether its mask must then be tested per
 * vector at run time because AxisInfo cannot prove it constant over one.
 * The emitter prints what these decide (memory.c); limits.c asks too.
 */
#include "tir.h"

/* The mask of a load or store, NULL when it has none. */
static const Value *access_mask(const Op *op)
{
    if (op->kind == OP_LOAD)
        return op->load.has_mask ? op->args[1] : NULL;
    return op->store.has_mask ? op->args[2] : NULL;
}

/* The vector width of a tensor load or store, as the pointers allow (alignment and
 * contiguity from AxisInfo, consecutive registers from the layout), and the dimension the
 * vectors run along.  The mask does not narrow it: where AxisInfo cannot prove the mask
 * constant over a vector, the access tests the vector's mask bits at run time
 * (access_tests_mask). */
int access_vec(const Op *op, int *dim)
{
    const Value *ptr = op->args[0];
    int ignored;
    if (!dim)
        dim = &ignored;
    *dim = 0;
    if (!ptr->type.rank || !ptr->layout)
        return 1;
    LayoutMap m;
    value_map(ptr, &m);
    int elem_bits = dtype_bits(ptr->type.pointee);
    if (elem_bits < 8)
        elem_bits = 8;
    int64_t vec = 128 / elem_bits;
    /* registers 0, 1, 2.. holding consecutive elements of one dimension */
    int k = m.nreg && m.reg[0].dim >= 0 ? m.reg[0].dim : 0;
    *dim = k;
    int64_t contig = (int64_t)1 << lmap_lead_bits(&m, k);
    int64_t align = ptr->ax.divisibility[k] / (elem_bits / 8);
    if (align < 1)
        align = 1;
    if (ptr->ax.contiguity[k] < align)
        align = ptr->ax.contiguity[k];
    if (contig < vec)
        vec = contig;
    if (align < vec)
        vec = align;
    if (op->kind == OP_LOAD) {
        const Value *other = op->load.has_other ? op->args[2] : NULL;
        if (op->load.is_volatile)
            vec = 1; /* volatile */
        if (other && !(other->def && other->def->kind == OP_SPLAT))
            vec = 1;
    }
    return vec < 1 ? 1 : (int)vec;
}

bool access_tests_mask(const Op *op)
{
    int dim, vec = access_vec(op, &dim);
    return vec > 1 && mask_varies_within(access_mask(op), dim, vec);
}

bool mask_varies_within(const Value *mask, int d, int64_t v)
{
    return mask && mask->ax.constancy[d] < v;
}


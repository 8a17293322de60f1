/*
 * memory.c — tl.load and tl.store: global memory, vectorised where the
 * pointers are contiguous and aligned enough.
 */
#include "emit_internal.h"

#include <string.h>

/* Vector width of a tensor memory op. */
int memory_vec(const Op *op)
{
    const Value *ptr = op->args[0];
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
    const Value *mask = NULL, *other = NULL;
    if (op->kind == OP_LOAD) {
        if (op->load.has_mask)
            mask = op->args[1];
        if (op->load.has_other)
            other = op->args[2];
        if (op->load.is_volatile)
            vec = 1; /* volatile */
    } else if (op->store.has_mask) {
        mask = op->args[2];
    }
    if (mask && mask->ax.constancy[k] < vec)
        vec = mask->ax.constancy[k];
    if (other && !(other->def && other->def->kind == OP_SPLAT))
        vec = 1;
    if (vec < 1)
        vec = 1;
    return (int)vec;
}

void emit_load(Emitter *E, const Op *op)
{
    const Value *r = op->results[0], *ptr = op->args[0];
    const Value *mask = op->load.has_mask ? op->args[1] : NULL, *other = op->load.has_other ? op->args[2] : NULL;
    bool is_volatile = op->load.is_volatile;
    const char *name = vname(E, r);
    DType d = r->type.dtype;
    if (!r->type.rank) {
        const char *p = paren(E, value_at(E, ptr, NULL, "0"));
        const char *val = is_volatile ? fmt(E, "*(volatile %s *)%s", dtype_ctype(d), p) : fmt(E, "*%s", p);
        if (mask)
            val = fmt(E, "%s ? %s : %s", paren(E, value_at(E, mask, NULL, "0")), val,
                      other ? value_at(E, other, NULL, "0") : zero_of(E, d));
        line(E, "%s = %s;", info(E, r)->declared ? name : const_decl(E, r->type, name), val);
        return;
    }
    int n = nregs(r), vec = memory_vec(op);
    if (!info(E, r)->declared)
        line(E, "%s;%s, %d-byte loads", decl(E, type_elem(r->type), name, n), shape_note(E, r),
             vec * dtype_bits(d) / 8);
    const char *i = elem_loop_open(E, n, vec);
    const char *p = value_at(E, ptr, r, i);
    const char *fallback = other ? value_at(E, other, r, i) : zero_of(E, d);
    if (d == DT_I64 || d == DT_U64) /* 1ll is long long, int64_t is long: tilec::load<V, T> must see one T */
        fallback = fmt(E, "(%s)%s", dtype_ctype(d), paren(E, fallback));
    if (is_volatile)
        line(E, "%s[%s] = %s*(volatile %s *)%s%s;", name, i, mask ? fmt(E, "%s ? ", paren(E, value_at(E, mask, r, i))) : "",
             dtype_ctype(d), paren(E, p), mask ? fmt(E, " : %s", fallback) : "");
    else if (!mask)
        line(E, "tilec::load<%d>(&%s[%s], %s);", vec, name, i, p);
    else
        line(E, "tilec::load<%d>(&%s[%s], %s, %s, %s);", vec, name, i, p, value_at(E, mask, r, i), fallback);
    elem_loop_close(E, n, vec);
}

void emit_store(Emitter *E, const Op *op)
{
    const Value *ptr = op->args[0], *val = op->args[1];
    const Value *mask = op->store.has_mask ? op->args[2] : NULL;
    int n = ptr->type.rank ? nregs(ptr) : 1;
    int vec = ptr->type.rank ? memory_vec(op) : 1;
    const char *src = vec > 1 ? vname(E, val) : NULL;
    if (vec > 1 && info(E, val)->inl) {
        /* a vector store reads a register array: a folded value (a splat) gets one */
        src = unique_name(E, "stored");
        line(E, "%s;", decl(E, type_elem(val->type), src, n));
        fill(E, src, ptr, value_elem, val);
    }
    const char *i = elem_loop_open(E, n, vec);
    const char *pred = mask ? value_at(E, mask, ptr, i) : NULL;
    if (!ptr->type.rank) /* a scalar: every thread has it, one stores it */
        pred = pred ? fmt(E, "tid == 0 && %s", paren(E, pred)) : "tid == 0";
    if (ptr->type.rank) {
        LayoutMap m;
        value_map(ptr, &m);
        const char *owner = owner_pred(E, ptr, &m);
        if (owner)
            pred = pred ? fmt(E, "%s && %s", owner, paren(E, pred)) : owner;
    }
    const char *p = value_at(E, ptr, ptr, i);
    if (vec > 1) {
        line(E, "tilec::store<%d>(%s, &%s[%s]%s%s);", vec, p, src, i, pred ? ", " : "", pred ? pred : "");
    } else {
        if (pred)
            line(E, "if (%s)", pred);
        E->indent += pred != NULL;
        line(E, "*%s = %s;", paren(E, p), value_at(E, val, ptr, i));
        E->indent -= pred != NULL;
    }
    elem_loop_close(E, n, vec);
}

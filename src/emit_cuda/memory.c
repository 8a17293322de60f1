/*
 * memory.c — tl.load and tl.store: global memory, vectorised where the
 * pointers are contiguous and aligned enough.
 */
#include "emit_internal.h"

#include <string.h>

/* ---- accesses whose mask is tested at run time ---------------------------------------
 * The pointers allow a vector, but AxisInfo cannot prove the mask constant over one (it
 * compares with a size that need not be a multiple of 16).  A helper of
 * tilec_runtime_masked.cuh tests the vector's mask bits: all set, one wide access; else
 * one element at a time.  It reads the bits through a `bool *`: the mask's own registers
 * when it is a named tile numbered as the access's, else a small array filled here. */

static bool mask_in_registers(Emitter *E, const Value *mask, const Value *ctx)
{
    const ValInfo *mi = info(E, mask);
    return mask->type.rank && !mi->inl && mi->vec_store < 2 && !strcmp(reg_index(E, mask, ctx, "e"), "e");
}

const char *guarded_open(Emitter *E, const Value *mask, const Value *ctx, int n, int vec, const char **idx)
{
    bool own = mask_in_registers(E, mask, ctx);
    const char *i = elem_open_step(E, n, vec, !own);
    *idx = i;
    if (own)
        return fmt(E, "&%s[%s]", vname(E, mask), i);
    const char *bits = unique_name(E, "in_bounds");
    line(E, "bool %s[%d];  // the mask of these %d elements", bits, vec, vec);
    line(E, "#pragma unroll");
    line(E, "for (int j = 0; j < %d; ++j)", vec);
    line(E, "    %s[j] = %s;", bits, value_at(E, mask, ctx, strcmp(i, "0") ? fmt(E, "%s + j", i) : "j"));
    return bits;
}

void guarded_close(Emitter *E, const Value *mask, const Value *ctx, int n, int vec)
{
    if (mask_in_registers(E, mask, ctx))
        elem_loop_close(E, n, vec);
    else
        elem_close(E, n, true);
}

/* "16-byte load when all 8 elements are in bounds (the mask is only known at run time),
 * else one element at a time" */
const char *guarded_note(Emitter *E, const char *what, int vec, DType d)
{
    return fmt(E, "%d-byte %s when %s are in bounds (the mask is only known at run time), else one element at a time",
               vec * dtype_bits(d) / 8, what, vec == 2 ? "both elements" : fmt(E, "all %d elements", vec));
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
    int n = nregs(r), vec = access_vec(op, NULL);
    bool guarded = access_tests_mask(op);
    if (!info(E, r)->declared)
        line(E, "%s;%s, %d-byte loads%s", decl(E, type_elem(r->type), name, n), shape_note(E, r),
             vec * dtype_bits(d) / 8, guarded ? " where in bounds" : "");
    const char *i, *bits = NULL;
    if (guarded) {
        line(E, "// %s", guarded_note(E, "load", vec, d));
        bits = guarded_open(E, mask, r, n, vec, &i);
    } else {
        i = elem_loop_open(E, n, vec);
    }
    const char *p = value_at(E, ptr, r, i);
    const char *fallback = other ? value_at(E, other, r, i) : zero_of(E, d);
    if (d == DT_I64 || d == DT_U64) /* 1ll is long long, int64_t is long: tilec::load<V, T> must see one T */
        fallback = fmt(E, "(%s)%s", dtype_ctype(d), paren(E, fallback));
    if (guarded) {
        line(E, "tilec::load_masked_vec<%d>(&%s[%s], %s, %s, %s);", vec, name, i, p, bits, fallback);
        guarded_close(E, mask, r, n, vec);
        return;
    }
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
    if (op->store.tma_map)
        emit_tma_store(E, op);
    else
        emit_pointer_store(E, op);
}

void emit_pointer_store(Emitter *E, const Op *op)
{
    const Value *ptr = op->args[0], *val = op->args[1];
    const Value *mask = op->store.has_mask ? op->args[2] : NULL;
    int n = ptr->type.rank ? nregs(ptr) : 1;
    int vec = ptr->type.rank ? access_vec(op, NULL) : 1;
    const char *src = vec > 1 ? vname(E, val) : NULL;
    if (vec > 1 && info(E, val)->inl) {
        /* a vector store reads a register array: a folded value (a splat) gets one */
        src = unique_name(E, "stored");
        line(E, "%s;", decl(E, type_elem(val->type), src, n));
        fill(E, src, ptr, value_elem, val);
    }
    bool guarded = ptr->type.rank && access_tests_mask(op);
    bool reads_back = E->fused.store == op; /* two statements a run: braces */
    const char *i, *bits = NULL;
    if (guarded) {
        line(E, "// %s", guarded_note(E, "store", vec, val->type.dtype));
        bits = guarded_open(E, mask, ptr, n, vec, &i);
    } else {
        i = reads_back ? elem_open_step(E, n, vec, true) : elem_loop_open(E, n, vec);
    }
    const char *pred = mask && !guarded ? value_at(E, mask, ptr, i) : NULL;
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
    fused_store_read(E, op, i, vec);
    if (guarded) {
        line(E, "tilec::store_masked_vec<%d>(%s, &%s[%s], %s%s%s);", vec, p, src, i, bits, pred ? ", " : "",
             pred ? pred : "");
        guarded_close(E, mask, ptr, n, vec);
        return;
    }
    if (vec > 1) {
        /* predicated stores in straight-line code, or a branch around each
         * (tileir/limits.c, choose_straight_stores, says which where) */
        line(E, "tilec::store_global%s<%d>(%s, &%s[%s]%s%s);", E->f->straight_stores ? "_straight" : "", vec, p,
             src, i, pred ? ", " : "", pred ? pred : "");
    } else if (pred && E->f->straight_stores && !ptr->type.rank) {
        /* a scalar that one thread stores; a tile's element-by-element stores keep
         * their branches, since straight ptxas hoisted their operands (FlagGems' layer
         * norm with an open N: 61 -> 76 registers, 0.74x -> 0.63x Triton) */
        line(E, "tilec::store_straight(%s, %s, %s);  // one thread stores it: a predicated store, no branch", p,
             value_at(E, val, ptr, i), pred);
    } else {
        if (pred)
            line(E, "if (%s)", pred);
        E->indent += pred != NULL;
        line(E, "*%s = %s;", paren(E, p), value_at(E, val, ptr, i));
        E->indent -= pred != NULL;
    }
    if (reads_back)
        elem_close(E, n, true);
    else
        elem_loop_close(E, n, vec);
}

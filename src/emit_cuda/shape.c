/*
 * shape.c — reshape, join, split and flip as register renaming: tir_layouts
 * (layout_shape.c) gave each result the layout in which it holds the same
 * elements in the same threads as its operands, so element `idx` of the
 * result is some register of an operand in the same thread.  Nothing here
 * moves data between threads; where that was needed, a convert_layout
 * before or after the op does it (convert.c).
 */
#include "emit_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_literal(const char *s)
{
    if (*s == '-')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The layouts tir_layouts promised: the result's map is what the renaming of
 * the operand's map gives (a BUG otherwise, never a silently wrong read). */
static void check_renaming(const Op *op, const LayoutMap *sm, const LayoutMap *rm)
{
    LayoutMap want;
    const Value *r = op->results[0];
    switch (op->kind) {
    case OP_RESHAPE: lmap_reshape(sm, r->type.rank, r->type.shape, &want); break;
    case OP_JOIN: lmap_join(sm, &want); break;
    case OP_SPLIT: lmap_split(sm, &want); break;
    default: want = *sm; break;
    }
    if (!lmap_eq(&want, rm) || (op->kind == OP_FLIP && !lmap_dim_in_registers(sm, op->flip.axis)))
        BUG("%s %%%d: its layout is not a renaming of its operand's", op_name(op->kind), r->id);
}

/* Register bits of the result other than `skip`, onto the operand's bits
 * without it (from[t] -> to[t]); returns how many. */
static int bits_around(int nbits, int skip, int *from, int *to)
{
    int n = 0;
    for (int i = 0; i < nbits; i++)
        if (i != skip) {
            from[n] = i;
            to[n++] = i < skip ? i : i - 1;
        }
    return n;
}

const char *shape_expr(Emitter *E, const Op *op, const char *idx)
{
    const Value *x = op->args[0], *r = op->results[0];
    LayoutMap sm, rm;
    value_map(x, &sm);
    value_map(r, &rm);
    check_renaming(op, &sm, &rm);
    int from[LMAP_MAX_REG_BITS], to[LMAP_MAX_REG_BITS];
    switch (op->kind) {
    case OP_RESHAPE: /* the same registers, coordinates renamed */
        return value_at(E, x, NULL, idx);
    case OP_JOIN: { /* register bit j picks a or b; the others index both */
        int j = lmap_last_dim_reg(&rm);
        const char *xi = move_bits(E, idx, from, to, bits_around(rm.nreg, j, from, to), rm.nreg);
        if (is_literal(idx))
            return value_at(E, op->args[(strtol(idx, NULL, 10) >> j) & 1], NULL, xi);
        const char *pick = move_bits(E, idx, &j, identity_bits, 1, rm.nreg);
        return fmt(E, "%s ? %s : %s", pick, paren(E, value_at(E, op->args[1], NULL, xi)),
                   paren(E, value_at(E, op->args[0], NULL, xi)));
    }
    case OP_SPLIT: { /* the operand's register with bit j = half */
        int j = lmap_last_dim_reg(&sm);
        int n = bits_around(sm.nreg, j, to, from); /* result bit from[t] -> operand bit to[t] */
        const char *xi = move_bits(E, idx, from, to, n, rm.nreg);
        if (op->split.half)
            xi = is_literal(xi) ? fmt(E, "%ld", strtol(xi, NULL, 10) | 1L << j) : fmt(E, "%s | %d", xi, 1 << j);
        return value_at(E, x, NULL, xi);
    }
    case OP_FLIP: { /* every coordinate bit of the axis is a register bit: XOR them */
        unsigned mask = lmap_dim_reg_mask(&rm, op->flip.axis);
        if (!mask)
            return value_at(E, x, NULL, idx);
        if (is_literal(idx))
            return value_at(E, x, NULL, fmt(E, "%ld", strtol(idx, NULL, 10) ^ (long)mask));
        return value_at(E, x, NULL, fmt(E, "%s ^ %u", paren(E, idx), mask));
    }
    default: BUG("shape_expr: %s", op_name(op->kind));
    }
}

/* "(i0 << 7) + (i1 << 4) + i2": the row-major offset of coordinates c[] in shape t */
static const char *row_major(Emitter *E, Type t, const char *const *c)
{
    const char *s = NULL;
    for (int d = 0; d < t.rank; d++) {
        int shift = 0;
        for (int k = d + 1; k < t.rank; k++)
            shift += log2_int(t.shape[k]);
        if (t.shape[d] == 1)
            continue;
        const char *term = shift ? fmt(E, "(%s << %d)", paren(E, c[d]), shift) : c[d];
        s = s ? fmt(E, "%s + %s", s, paren(E, term)) : term;
    }
    return s ? s : "0";
}

/* tl.gather(src, index, axis): every thread writes the source elements it
 * holds to shared memory, row-major; then each reads, for every element of
 * the index it holds, the source element at that index along the axis and
 * at its own coordinates along the others. */
void emit_gather(Emitter *E, const Op *op)
{
    const Value *src = op->args[0], *index = op->args[1], *r = op->results[0];
    Type t = src->type;
    LayoutMap sm, rm;
    value_map(src, &sm);
    value_map(r, &rm);
    const char *name = vname(E, r);
    const char *T = ctype(E, type_elem(t));
    line(E, "%s;%s", decl(E, type_elem(r->type), name, nregs(r)), shape_note(E, r));
    line(E, "{  // gather along dim %d through shared memory: the source row-major, read back at the indices",
         op->gather.axis);
    E->indent++;
    line(E, "%s *buf = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset);
    const char *c[TIR_MAX_RANK] = {0};
    int n = nregs(src);
    const char *e = elem_loop_open(E, n, 1);
    for (int d = 0; d < t.rank; d++)
        c[d] = elem_coord(E, src, &sm, d, e);
    line(E, "buf[%s] = %s;", row_major(E, t, c), value_at(E, src, NULL, e));
    elem_loop_close(E, n, 1);
    line(E, "%s;", block_sync(E));
    n = nregs(r);
    e = elem_loop_open(E, n, 1);
    for (int d = 0; d < t.rank; d++)
        c[d] = d == op->gather.axis ? fmt(E, "(int)%s", paren(E, value_at(E, index, r, e))) : elem_coord(E, r, &rm, d, e);
    line(E, "%s[%s] = buf[%s];", name, e, row_major(E, t, c));
    elem_loop_close(E, n, 1);
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

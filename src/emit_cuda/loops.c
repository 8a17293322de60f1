/*
 * loops.c — loops over a thread's register elements, and the statements that
 * fill a register array element by element (an elementwise op's result, a
 * copy of another value).
 */
#include "emit_internal.h"

#include <string.h>

/* The low bits of e that a loop stepping by `step` leaves 0, so that the
 * indices printed inside drop the terms they feed ((e & 1) with e += 2). */
static int zero_bits_of_step(int step)
{
    int k = 0;
    while ((step >> k) > 1 && !((step >> k) & 1))
        k++;
    return (1 << k) == step ? k : 0;
}

/* "#pragma unroll" and the head of the loop over n register elements in steps of
 * `step`, ending in `tail` (" {" or ""); the step's zero bits of e are noted. */
static void elem_loop_head(Emitter *E, int n, int step, const char *tail)
{
    E->e_zero_bits = zero_bits_of_step(step);
    line(E, "#pragma unroll");
    if (step == 1)
        line(E, "for (int e = 0; e < %d; ++e)%s", n, tail);
    else
        line(E, "for (int e = 0; e < %d; e += %d)%s", n, step, tail);
}

/* Opens the loop over a thread's `n` register elements in steps of `step` and
 * returns the index to use inside it.  One step needs no loop: index 0. */
const char *elem_loop_open(Emitter *E, int n, int step)
{
    if (n == step)
        return "0";
    elem_loop_head(E, n, step, "");
    E->indent++;
    return "e";
}

void elem_loop_close(Emitter *E, int n, int step)
{
    if (n != step)
        E->indent--;
    E->e_zero_bits = 0;
}

/* The same for a body of several statements (`multi`): in braces, which
 * also scope its temporaries; a single step gets braces and no loop.
 * elem_close closes it. */
const char *elem_open_step(Emitter *E, int n, int step, bool multi)
{
    if (!multi)
        return elem_loop_open(E, n, step);
    if (n > step)
        elem_loop_head(E, n, step, " {");
    else
        line(E, "{");
    E->indent++;
    return n > step ? "e" : "0";
}

const char *elem_open(Emitter *E, int n, bool multi) { return elem_open_step(E, n, 1, multi); }

void elem_close(Emitter *E, int n, bool multi)
{
    if (!multi) {
        elem_loop_close(E, n, 1);
        return;
    }
    E->indent--;
    line(E, "}");
    E->e_zero_bits = 0;
}

const char *value_elem(Emitter *E, const void *v, const Value *ctx, const char *idx) { return value_at(E, v, ctx, idx); }

const char *array_elem(Emitter *E, const void *name, const Value *ctx, const char *idx)
{
    return fmt(E, "%s[%s]", (const char *)name, idx);
}

const char *scalar_elem(Emitter *E, const void *name, const Value *ctx, const char *idx) { return name; }

/* dst = src, element by element when `like` is a tensor. */
void fill(Emitter *E, const char *dst, const Value *like, ElemExpr src, const void *arg)
{
    if (!like->type.rank) {
        line(E, "%s = %s;", dst, src(E, arg, like, "0"));
        return;
    }
    int n = nregs(like);
    const char *i = elem_loop_open(E, n, 1);
    line(E, "%s[%s] = %s;", dst, i, src(E, arg, like, i));
    elem_loop_close(E, n, 1);
}

void declare_var(Emitter *E, const Value *v)
{
    int vec = info(E, v)->vec_store;
    if (v->type.rank && vec > 1)
        line(E, "%s;%s: one pointer per %d-element vector", decl(E, type_elem(v->type), vname(E, v), nregs(v) / vec),
             shape_note(E, v), vec);
    else if (v->type.rank)
        line(E, "%s;%s", decl(E, type_elem(v->type), vname(E, v), nregs(v)), shape_note(E, v));
    else
        line(E, "%s;", decl(E, v->type, vname(E, v), 0));
}

/* How many consecutive registers of v hold the same value: the thread's
 * contiguous run along its fastest dimension (the low register bits), cut to
 * the constancy AxisInfo proves along that dimension.  Triton computes such
 * values once per run too; for a mask `cols < N` with N a multiple of 16 it
 * turns one predicate per element into one per vector. */
static int const_run(const Value *v, int *dim)
{
    if (!v->type.rank || !v->layout)
        return 1;
    LayoutMap m;
    value_map(v, &m);
    if (!m.nreg || m.reg[0].dim < 0)
        return 1;
    int d = *dim = m.reg[0].dim, k = lmap_lead_bits(&m, d);
    int run = 1;
    while (run < (1 << k) && run * 2 <= v->ax.constancy[d])
        run *= 2;
    return run;
}

/* s without the parentheses around all of it, if it has them. */
static const char *unparen(Emitter *E, const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[0] != '(' || s[n - 1] != ')')
        return s;
    int depth = 0;
    for (size_t i = 0; i < n - 1; i++) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (!depth)
            return s; /* "(a) + (b)": the first group closes early */
    }
    return fmt(E, "%.*s", (int)(n - 2), s + 1);
}

/* "x[e] = x[e] + y" as "x[e] += y": an add, subtract or multiply whose left operand is the
 * variable it writes (a loop-carried update written in place).  The right operand prints
 * parenthesised when it is itself an expression, so the rest is one operand. */
static void assign_elem(Emitter *E, const Op *op, const char *dst, const char *expr)
{
    static const struct { OpKind kind; const char *sym; } ops[] = {
        {OP_ADD, "+"}, {OP_ADDPTR, "+"}, {OP_SUB, "-"}, {OP_MUL, "*"}};
    for (size_t k = 0; k < ARRAY_LEN(ops); k++) {
        if (op->kind != ops[k].kind)
            continue;
        const char *lhs = fmt(E, "%s %s ", dst, ops[k].sym);
        if (!strncmp(expr, lhs, strlen(lhs))) {
            line(E, "%s %s= %s;", dst, ops[k].sym, unparen(E, expr + strlen(lhs)));
            return;
        }
    }
    line(E, "%s = %s;", dst, expr);
}

/* "register 3 is" or "registers 0-15 are": registers [from, to). */
static const char *reg_span(Emitter *E, int from, int to)
{
    return to - from > 1 ? fmt(E, "registers %d-%d are", from, to - 1) : fmt(E, "register %d is", from);
}

/* Declare (unless already declared) and compute an op's single result. */
void emit_assign(Emitter *E, const Op *op)
{
    const Value *v = op->results[0];
    const char *name = vname(E, v);
    if (!info(E, v)->declared) {
        if (!v->type.rank) {
            line(E, "%s = %s;", const_decl(E, v->type, name), op_expr(E, op, "0"));
            return;
        }
        declare_var(E, v);
    }
    int dim = 0, run = const_run(v, &dim), n = nregs(v), vec = info(E, v)->vec_store;
    if (op->kind == OP_CMP && op->cmp.decided.n) {
        const CmpDecided *dec = &op->cmp.decided;
        const char *t = dec->prefix ? fmt(E, "%s %s", reg_span(E, 0, dec->prefix), dec->prefix_true ? "true" : "false")
                                    : "";
        const char *f = dec->suffix < n ? fmt(E, "%s %s", reg_span(E, dec->suffix, n), dec->suffix_true ? "true" : "false")
                                        : "";
        line(E, "// in every thread, %s%s%s: not tested", t, *t && *f ? " and " : "", f);
    }
    if (vec > 1) { /* only the first element of each vector is ever read */
        const char *i = elem_loop_open(E, n, vec);
        assign_elem(E, op, fmt(E, "%s[%s]", name, stored_index(E, v, i)), op_expr(E, op, i));
        elem_loop_close(E, n, vec);
        return;
    }
    if (run < 2 || op->kind == OP_MAKE_RANGE) {
        if (!v->type.rank) {
            assign_elem(E, op, name, op_expr(E, op, "0"));
            return;
        }
        const char *i = elem_loop_open(E, n, 1);
        assign_elem(E, op, fmt(E, "%s[%s]", name, i), op_expr(E, op, i));
        elem_loop_close(E, n, 1);
        return;
    }
    line(E, "// the same value in each run of %d registers (constancy %lld along dim %d): computed once per run",
         run, (long long)v->ax.constancy[dim], dim);
    const char *i = elem_open_step(E, n, run, true);
    line(E, "%s = %s;", const_decl(E, type_elem(v->type), "same"), op_expr(E, op, i));
    line(E, "#pragma unroll");
    line(E, "for (int j = 0; j < %d; ++j)", run);
    line(E, "    %s[%s] = same;", name, n > run ? "e + j" : "j");
    elem_close(E, n, true);
}

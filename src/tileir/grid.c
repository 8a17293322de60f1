/* grid.c — the launch grid (--grid "cdiv(n, BLOCK), M"), read once for every user.
 *
 * The text is lexed and parsed as a Python expression by the project's own
 * front end, with the grid as the current source so that errors point into
 * it, then checked against the kernel's parameters and flattened into
 * postfix code (GridProg).  The emitter prints the code as C in the .cu
 * launcher (tir_grid_c); the library evaluates it at launch (tir_grid_eval)
 * and prints it in --embed-cubin launchers.  One reader means one set of
 * rules and messages. */
#include "tir.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lexer.h"

/* The largest grid every GPU since sm_30 launches, per dimension. */
static const long long grid_limit[3] = {2147483647LL, 65535, 65535};

/* ---- checked arithmetic ---------------------------------------------------------------- */

typedef enum GridFault {
    FAULT_NONE,
    FAULT_ZERO_DIVISOR,
    FAULT_OVERFLOW,       /* a result (in cdiv, a + b - 1) outside 64-bit signed integers */
} GridFault;

/* One operation in 64-bit arithmetic, a fault where C would divide by zero or overflow.
 * cdiv(a, b) is (a + b - 1) / b, computed without the overflow of a + b - 1 where a and
 * b are positive (there it is a / b rounded up). */
static GridFault grid_apply(GridOpKind k, long long a, long long b, long long *out)
{
    *out = 0;
    switch (k) {
    case GRID_ADD: return __builtin_add_overflow(a, b, out) ? FAULT_OVERFLOW : FAULT_NONE;
    case GRID_SUB: return __builtin_sub_overflow(a, b, out) ? FAULT_OVERFLOW : FAULT_NONE;
    case GRID_MUL: return __builtin_mul_overflow(a, b, out) ? FAULT_OVERFLOW : FAULT_NONE;
    case GRID_DIV:
    case GRID_MOD:
        if (b == 0)
            return FAULT_ZERO_DIVISOR;
        if (a == LLONG_MIN && b == -1)
            return FAULT_OVERFLOW;
        *out = k == GRID_DIV ? a / b : a % b;
        return FAULT_NONE;
    case GRID_CDIV: {
        if (b == 0)
            return FAULT_ZERO_DIVISOR;
        if (a > 0 && b > 0) {
            *out = a / b + (a % b != 0);
            return FAULT_NONE;
        }
        long long sum;
        if (__builtin_add_overflow(a, b, &sum) || __builtin_sub_overflow(sum, 1, &sum))
            return FAULT_OVERFLOW;
        return grid_apply(GRID_DIV, sum, b, out);
    }
    case GRID_MIN: *out = a < b ? a : b; return FAULT_NONE;
    case GRID_MAX: *out = a > b ? a : b; return FAULT_NONE;
    case GRID_CONST:
    case GRID_PARAM: break;
    }
    BUG("grid_apply of op %d", (int)k);
}

static const char *const op_text[] = {[GRID_ADD] = "+",  [GRID_SUB] = "-", [GRID_MUL] = "*",
                                      [GRID_DIV] = "//", [GRID_MOD] = "%", [GRID_CDIV] = "cdiv",
                                      [GRID_MIN] = "min", [GRID_MAX] = "max"};

bool tir_grid_eval(const GridProg *g, const long long *values, long long dims[3], char *err, size_t errlen)
{
    dims[0] = dims[1] = dims[2] = 1;
    for (int d = 0; d < g->ndims; d++) {
        char where[16] = "";
        if (g->ndims > 1)
            snprintf(where, sizeof where, "dimension %c: ", "xyz"[d]);
        long long st[GRID_MAX_STACK];
        int sp = 0;
        for (int i = 0; i < g->nops[d]; i++) {
            GridOp op = g->ops[d][i];
            if (op.kind == GRID_CONST || op.kind == GRID_PARAM) {
                if (sp == GRID_MAX_STACK)
                    BUG("a grid deeper than %d", GRID_MAX_STACK);
                st[sp++] = op.kind == GRID_CONST ? op.v : values[op.v];
                continue;
            }
            long long r = st[--sp], l = st[--sp];
            GridFault f = grid_apply(op.kind, l, r, &st[sp]);
            if (f) {
                const char *what = f == FAULT_ZERO_DIVISOR ? "divides by zero" : "overflows 64-bit integers";
                if (op.kind >= GRID_CDIV)
                    snprintf(err, errlen, "%s%s(%lld, %lld) %s", where, op_text[op.kind], l, r, what);
                else
                    snprintf(err, errlen, "%s%lld %s %lld %s", where, l, op_text[op.kind], r, what);
                return false;
            }
            sp++;
        }
        dims[d] = st[0];
    }
    return true;
}

bool tir_grid_within_limits(const long long dims[3], char *err, size_t errlen)
{
    for (int d = 0; d < 3; d++) {
        if (dims[d] > grid_limit[d]) {
            snprintf(err, errlen, "dimension %c is %lld, beyond the device limit of %lld", "xyz"[d], dims[d],
                     grid_limit[d]);
            return false;
        }
    }
    return true;
}

/* ---- reading the grid ------------------------------------------------------------------ */

typedef Vec(GridOp) GridOps;

static void push(Arena *a, GridOps *ops, GridOpKind k, long long v) { vec_push(a, ops, ((GridOp){k, v})); }

static void grid_node(Ctx *ctx, const TirFunc *f, const Node *n, GridOps *ops)
{
    Arena *a = &ctx->arena;
    switch (n->kind) {
    case N_INT: push(a, ops, GRID_CONST, (long long)n->ival); return;
    case N_NAME:
        for (int i = 0; i < f->params.len; i++) {
            const KernelParam *kp = &f->params.data[i];
            if (strcmp(kp->name, n->name))
                continue;
            if (kp->value && dtype_is_int(kp->type.dtype)) {
                push(a, ops, GRID_PARAM, i);
                return;
            }
            const char *s = kp->spec_text;
            if (!kp->value && s && (isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])))) {
                push(a, ops, GRID_CONST, strtoll(s, NULL, 10));
                return;
            }
            diag_error(ctx, n->loc, "'%s' is not an integer parameter", n->name);
        }
        diag_error(ctx, n->loc, "unknown name '%s' (use the kernel's parameter names)", n->name);
    case N_BINOP: {
        GridOpKind k = n->op == TOK_PLUS ? GRID_ADD : n->op == TOK_MINUS ? GRID_SUB : n->op == TOK_STAR ? GRID_MUL :
                       n->op == TOK_DSLASH ? GRID_DIV : n->op == TOK_PERCENT ? GRID_MOD : GRID_CONST;
        if (k == GRID_CONST)
            diag_error(ctx, n->loc, "the grid supports + - * // %% on integers, not %s", token_kind_name(n->op));
        grid_node(ctx, f, n->lhs, ops);
        grid_node(ctx, f, n->rhs, ops);
        push(a, ops, k, 0);
        return;
    }
    case N_CALL: {
        const Node *fn = n->lhs;
        const char *name = fn->kind == N_NAME || fn->kind == N_ATTR ? fn->name : "";
        GridOpKind k = !strcmp(name, "cdiv") ? GRID_CDIV : !strcmp(name, "min") ? GRID_MIN :
                       !strcmp(name, "max") ? GRID_MAX : GRID_CONST;
        if (k == GRID_CONST)
            diag_error(ctx, n->loc, "unknown function in the grid (cdiv, min and max are available)");
        if (n->items.len != 2 || n->kwargs.len)
            diag_error(ctx, n->loc, "%s takes two arguments", name);
        grid_node(ctx, f, n->items.data[0], ops);
        grid_node(ctx, f, n->items.data[1], ops);
        push(a, ops, k, 0);
        return;
    }
    default: diag_error(ctx, n->loc, "unsupported expression in the grid");
    }
}

void tir_grid_compile(Ctx *ctx, const TirFunc *f, const char *text, GridProg *g)
{
    memset(g, 0, sizeof *g);
    if (!text)
        return;
    const Source *kernel_src = ctx->src;
    Source *gs = NEW(&ctx->arena, Source);
    gs->path = "--grid";
    gs->text = text;
    gs->len = strlen(text);
    ctx->src = gs;
    Node *n = parse_expression_source(ctx, lex_source(ctx));
    const NodeList *dims = n->kind == N_TUPLE ? &n->items : NULL;
    int nd = dims ? dims->len : 1;
    if (nd < 1 || nd > 3)
        diag_error(ctx, n->loc, "a grid has one to three dimensions, got %d", nd);
    g->ndims = nd;
    for (int d = 0; d < nd; d++) {
        GridOps ops = {0};
        grid_node(ctx, f, dims ? dims->data[d] : n, &ops);
        if (ops.len > GRID_MAX_STACK)
            diag_error(ctx, (dims ? dims->data[d] : n)->loc, "the grid expression is too long (at most %d terms)",
                       GRID_MAX_STACK);
        g->ops[d] = ops.data;
        g->nops[d] = ops.len;
    }
    ctx->src = kernel_src;
}

/* ---- printing ---------------------------------------------------------------------------- */

char *tir_grid_c(Arena *a, const GridProg *g, int dim, const char *const *names)
{
    if (dim >= g->ndims)
        return "1";
    char *st[GRID_MAX_STACK];
    int sp = 0;
    for (int i = 0; i < g->nops[dim]; i++) {
        GridOp op = g->ops[dim][i];
        if (op.kind == GRID_CONST || op.kind == GRID_PARAM) {
            st[sp++] = op.kind == GRID_CONST ? arena_printf(a, "%lldll", op.v)
                                             : arena_printf(a, "(long long)%s", names[op.v]);
            continue;
        }
        char *r = st[--sp], *l = st[--sp];
        static const char *const infix[] = {[GRID_ADD] = "+", [GRID_SUB] = "-", [GRID_MUL] = "*", [GRID_DIV] = "/",
                                            [GRID_MOD] = "%"};
        static const char *const call[] = {[GRID_CDIV] = "tilec_cdiv", [GRID_MIN] = "tilec_min",
                                           [GRID_MAX] = "tilec_max"};
        if (op.kind >= GRID_CDIV)
            st[sp++] = arena_printf(a, "%s(%s, %s)", call[op.kind], l, r);
        else
            st[sp++] = arena_printf(a, "(%s %s %s)", l, infix[op.kind], r);
    }
    return st[0];
}

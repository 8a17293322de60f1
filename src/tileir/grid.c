/* grid.c — the launch grid (--grid "cdiv(n, BLOCK), M"), read once for every user.
 *
 * The text is lexed and parsed as a Python expression by the project's own
 * front end, with the grid as the current source so that errors point into
 * it, then checked against the kernel's parameters and flattened into
 * postfix code (GridProg).  The emitter prints the code as C in the .cu
 * launcher (tir_grid_launch_c); the library evaluates it at launch
 * (tir_grid_eval) and prints it in --embed-cubin launchers.  One reader means
 * one set of rules and messages.
 *
 * Every user computes the grid in checked 64-bit arithmetic.  Constants are
 * computed here, and a zero divisor or an overflow among them is an error in
 * the grid text.  For the rest, the range of every value over all arguments
 * (from the parameters' types) tells which operations some argument could
 * make divide by zero or overflow: only those are printed as calls to
 * checking helpers, so that the usual grid of an i32 size stays plain C, and
 * only dimensions that can exceed the device's limits are compared with
 * them. */
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

/* One operation in 64-bit arithmetic, a fault where C would divide by zero or overflow;
 * the launchers' tilec_grid_* helpers (below) fail for exactly the same operands.
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

bool tir_grid_eval(const GridProg *g, const long long *values, const char *const *names, long long dims[3],
                   StrBuf *err)
{
    dims[0] = dims[1] = dims[2] = 1;
    for (int d = 0; d < g->ndims; d++) {
        static const char *const dim_text[] = {"dimension x: ", "dimension y: ", "dimension z: "};
        const char *where = g->ndims > 1 ? dim_text[d] : "";
        long long st[GRID_MAX_STACK];
        int sp = 0;
        for (int i = 0; i < g->nops[d]; i++) {
            GridOp op = g->ops[d][i];
            if (op.kind == GRID_CONST || op.kind == GRID_PARAM) {
                if (sp == GRID_MAX_STACK)
                    BUG("a grid deeper than %d", GRID_MAX_STACK);
                long long v = op.kind == GRID_CONST ? op.v : values[op.v];
                if (op.kind == GRID_PARAM && op.checked && v < 0) {
                    sb_printf(err, "%s%s = %llu does not fit in 64-bit signed integers", where, names[op.v],
                             (unsigned long long)v);
                    return false;
                }
                st[sp++] = v;
                continue;
            }
            long long r = st[--sp], l = st[--sp];
            GridFault f = grid_apply(op.kind, l, r, &st[sp]);
            if (f) {
                const char *what = f == FAULT_ZERO_DIVISOR ? "divides by zero" : "overflows 64-bit integers";
                if (op.kind >= GRID_CDIV)
                    sb_printf(err, "%s%s(%lld, %lld) %s", where, op_text[op.kind], l, r, what);
                else
                    sb_printf(err, "%s%lld %s %lld %s", where, l, op_text[op.kind], r, what);
                return false;
            }
            sp++;
        }
        dims[d] = st[0];
    }
    return true;
}

bool tir_grid_within_limits(const long long dims[3], StrBuf *err)
{
    for (int d = 0; d < 3; d++) {
        if (dims[d] > grid_limit[d]) {
            sb_printf(err, "dimension %c is %lld, beyond the device limit of %lld", "xyz"[d], dims[d],
                     grid_limit[d]);
            return false;
        }
    }
    return true;
}

/* ---- ranges ------------------------------------------------------------------------------ */

/* Every value an expression can take over all arguments, exactly (128 bits hold any
 * product of two 64-bit values).  A constant is a range of one value. */
typedef struct Range {
    __int128 lo, hi;
} Range;

static __int128 min128(__int128 a, __int128 b) { return a < b ? a : b; }
static __int128 max128(__int128 a, __int128 b) { return a > b ? a : b; }
static bool is_const(Range r) { return r.lo == r.hi; }
static bool fits(Range r) { return r.lo >= LLONG_MIN && r.hi <= LLONG_MAX; }
static bool holds(Range r, __int128 v) { return r.lo <= v && v <= r.hi; }
static Range to_64(Range r) { return (Range){max128(r.lo, LLONG_MIN), min128(r.hi, LLONG_MAX)}; }
static Range hull(Range a, Range b) { return (Range){min128(a.lo, b.lo), max128(a.hi, b.hi)}; }

static Range type_range(DType d)
{
    int bits = dtype_bits(d);
    if (dtype_is_signed(d))
        return (Range){-((__int128)1 << (bits - 1)), ((__int128)1 << (bits - 1)) - 1};
    return (Range){0, d == DT_U64 ? LLONG_MAX : ((__int128)1 << bits) - 1}; /* u64: checked */
}

static __int128 exact(GridOpKind k, __int128 a, __int128 b)
{
    switch (k) {
    case GRID_ADD: return a + b;
    case GRID_SUB: return a - b;
    case GRID_MUL: return a * b;
    case GRID_DIV: return a / b;
    case GRID_CDIV: return (a + b - 1) / b;
    default: BUG("exact of op %d", (int)k);
    }
}

/* Op k over l x r where k is monotonic in each operand, so that the corners bound it:
 * +, - and *, and // and cdiv while the divisor keeps one sign. */
static Range corners(GridOpKind k, Range l, Range r)
{
    __int128 c[] = {exact(k, l.lo, r.lo), exact(k, l.lo, r.hi), exact(k, l.hi, r.lo), exact(k, l.hi, r.hi)};
    Range v = {c[0], c[0]};
    for (int i = 1; i < 4; i++)
        v = hull(v, (Range){c[i], c[i]});
    return v;
}

/* The values of op k on operands in l and r, where it does not fault; *checked when
 * some of them make it fault, or (cdiv) make tilec_cdiv's a + b - 1 overflow. */
static Range op_range(GridOpKind k, Range l, Range r, bool *checked)
{
    *checked = false;
    switch (k) {
    case GRID_ADD:
    case GRID_SUB:
    case GRID_MUL: {
        Range v = corners(k, l, r);
        *checked = !fits(v);
        return to_64(v);
    }
    case GRID_DIV: {
        Range neg = {r.lo, min128(r.hi, -1)}, pos = {max128(r.lo, 1), r.hi}, v;
        if (neg.lo > neg.hi)
            v = corners(k, l, pos);
        else if (pos.lo > pos.hi)
            v = corners(k, l, neg);
        else
            v = hull(corners(k, l, neg), corners(k, l, pos));
        *checked = holds(r, 0) || !fits(v); /* LLONG_MIN // -1 is a corner */
        return to_64(v);
    }
    case GRID_MOD: {
        /* the remainder has the dividend's sign and is smaller than the divisor */
        __int128 m = max128(-r.lo, r.hi) - 1;
        *checked = holds(r, 0) || (l.lo == LLONG_MIN && holds(r, -1));
        return (Range){l.lo < 0 ? max128(l.lo, -m) : 0, l.hi > 0 ? min128(l.hi, m) : 0};
    }
    case GRID_CDIV:
        if (r.lo < 1) {
            *checked = true;
            return (Range){LLONG_MIN, LLONG_MAX};
        }
        *checked = l.hi + r.hi - 1 > LLONG_MAX;
        return corners(k, l, r);
    case GRID_MIN: return (Range){min128(l.lo, r.lo), min128(l.hi, r.hi)};
    case GRID_MAX: return (Range){max128(l.lo, r.lo), max128(l.hi, r.hi)};
    case GRID_CONST:
    case GRID_PARAM: break;
    }
    BUG("op_range of op %d", (int)k);
}

/* ---- reading the grid ------------------------------------------------------------------ */

typedef Vec(GridOp) GridOps;

static Range push_const(Arena *a, GridOps *ops, long long v, Loc loc)
{
    vec_push(a, ops, ((GridOp){.kind = GRID_CONST, .v = v, .loc = loc}));
    return (Range){v, v};
}

/* Appends op k on operands in l and r.  Constants are computed here: a zero divisor
 * or an overflow among them is an error at loc, as is a divisor that is always 0. */
static Range push_op(Ctx *ctx, GridOps *ops, GridOpKind k, Range l, Range r, Loc loc)
{
    bool divides = k == GRID_DIV || k == GRID_MOD || k == GRID_CDIV;
    if (divides && is_const(r) && r.lo == 0)
        diag_error(ctx, loc, "%s by zero in the grid", k == GRID_MOD ? "modulo" : "division");
    bool checked;
    Range v = op_range(k, l, r, &checked);
    if (is_const(l) && is_const(r)) {
        long long c;
        if (grid_apply(k, (long long)l.lo, (long long)r.lo, &c))
            diag_error(ctx, loc, "integer overflow in the grid (it is computed in 64-bit integers)");
        v = (Range){c, c};
    }
    vec_push(&ctx->arena, ops, ((GridOp){.kind = k, .checked = checked, .loc = loc}));
    return v;
}

/* A constexpr in the grid: its value as lowering printed it (an integer fits in 64 bits). */
static Range push_constexpr(Ctx *ctx, GridOps *ops, const KernelParam *kp, Loc loc)
{
    const char *s = kp->spec_text;
    if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
        diag_error(ctx, loc, "'%s' is not an integer parameter", kp->name);
    return push_const(&ctx->arena, ops, strtoll(s, NULL, 10), loc);
}

static Range grid_node(Ctx *ctx, const TirFunc *f, const Node *n, GridOps *ops)
{
    switch (n->kind) {
    case N_INT:
        if (n->big)
            diag_error(ctx, n->loc, "integer literal does not fit in 64 bits");
        return push_const(&ctx->arena, ops, (long long)n->ival, n->loc);
    case N_NAME:
        for (int i = 0; i < f->params.len; i++) {
            const KernelParam *kp = &f->params.data[i];
            if (strcmp(kp->name, n->name))
                continue;
            if (!kp->value)
                return push_constexpr(ctx, ops, kp, n->loc);
            if (!dtype_is_int(kp->type.dtype))
                diag_error(ctx, n->loc, "'%s' is not an integer parameter", n->name);
            /* a u64 above LLONG_MAX is beyond the grid's arithmetic */
            bool checked = kp->type.dtype == DT_U64;
            vec_push(&ctx->arena, ops, ((GridOp){.kind = GRID_PARAM, .v = i, .checked = checked, .loc = n->loc}));
            return type_range(kp->type.dtype);
        }
        diag_error(ctx, n->loc, "unknown name '%s' (use the kernel's parameter names)", n->name);
    case N_BINOP: {
        GridOpKind k = n->op == TOK_PLUS ? GRID_ADD : n->op == TOK_MINUS ? GRID_SUB : n->op == TOK_STAR ? GRID_MUL :
                       n->op == TOK_DSLASH ? GRID_DIV : n->op == TOK_PERCENT ? GRID_MOD : GRID_CONST;
        if (k == GRID_CONST)
            diag_error(ctx, n->loc, "the grid supports + - * // %% on integers, not %s", token_kind_name(n->op));
        Range l = grid_node(ctx, f, n->lhs, ops);
        Range r = grid_node(ctx, f, n->rhs, ops);
        return push_op(ctx, ops, k, l, r, n->loc);
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
        Range l = grid_node(ctx, f, n->items.data[0], ops);
        Range r = grid_node(ctx, f, n->items.data[1], ops);
        return push_op(ctx, ops, k, l, r, n->loc);
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
    const char *line_break = strpbrk(text, "\r\n");
    if (line_break)
        diag_error(ctx, (Loc){1, (int)(line_break - text) + 1, NULL}, "the grid must be one line (it is printed in comments)");
    Node *n = parse_expression_source(ctx, lex_source(ctx));
    const NodeList *dims = n->kind == N_TUPLE ? &n->items : NULL;
    int nd = dims ? dims->len : 1;
    if (nd < 1 || nd > 3)
        diag_error(ctx, n->loc, "a grid has one to three dimensions, got %d", nd);
    g->ndims = nd;
    for (int d = 0; d < nd; d++) {
        const Node *dim = dims ? dims->data[d] : n;
        GridOps ops = {0};
        Range r = grid_node(ctx, f, dim, &ops);
        if (ops.len > GRID_MAX_STACK)
            diag_error(ctx, dim->loc, "the grid expression is too long (at most %d terms)", GRID_MAX_STACK);
        if (r.lo > grid_limit[d])
            diag_error(ctx, dim->loc, "the grid's %c dimension is %s%lld, beyond the device limit of %lld", "xyz"[d],
                       is_const(r) ? "" : "at least ", (long long)r.lo, grid_limit[d]);
        g->ops[d] = ops.data;
        g->nops[d] = ops.len;
        g->may_exceed[d] = r.hi > grid_limit[d];
    }
    ctx->src = kernel_src;
}

/* ---- printing: the launchers' C -------------------------------------------------------- */

static bool uses_checks(const GridProg *g)
{
    for (int d = 0; d < g->ndims; d++)
        for (int i = 0; i < g->nops[d]; i++)
            if (g->ops[d][i].checked)
                return true;
    return false;
}

/* C has no literal for LLONG_MIN. */
static char *const_c(Arena *a, long long v)
{
    return v == LLONG_MIN ? "(-9223372036854775807ll - 1)" : arena_printf(a, "%lldll", v);
}

/* Dimension `dim` as a C expression ("1" when absent). */
static char *grid_c(Arena *a, const GridProg *g, int dim, const char *const *names)
{
    if (dim >= g->ndims)
        return "1";
    char *st[GRID_MAX_STACK];
    int sp = 0;
    for (int i = 0; i < g->nops[dim]; i++) {
        GridOp op = g->ops[dim][i];
        if (op.kind == GRID_CONST) {
            st[sp++] = const_c(a, op.v);
            continue;
        }
        if (op.kind == GRID_PARAM) {
            st[sp++] = arena_printf(a, op.checked ? "tilec_grid_u64(%s, &ok)" : "(long long)%s", names[op.v]);
            continue;
        }
        char *r = st[--sp], *l = st[--sp];
        static const char *const infix[] = {[GRID_ADD] = "+", [GRID_SUB] = "-", [GRID_MUL] = "*", [GRID_DIV] = "/",
                                            [GRID_MOD] = "%"};
        static const char *const checked[] = {[GRID_ADD] = "add", [GRID_SUB] = "sub", [GRID_MUL] = "mul",
                                              [GRID_DIV] = "div", [GRID_MOD] = "mod", [GRID_CDIV] = "cdiv"};
        if (op.checked)
            st[sp++] = arena_printf(a, "tilec_grid_%s(%s, %s, &ok)", checked[op.kind], l, r);
        else if (op.kind >= GRID_CDIV)
            st[sp++] = arena_printf(a, "tilec_%s(%s, %s)", op_text[op.kind], l, r);
        else
            st[sp++] = arena_printf(a, "(%s %s %s)", l, infix[op.kind], r);
    }
    return st[0];
}

/* The checking helpers, one per operation, in C that C99 (with stdbool.h) and C++ take. */
static const char *const helper_c[] = {
    [GRID_PARAM] = "static inline long long tilec_grid_u64(unsigned long long a, bool *ok)\n"
                   "{\n"
                   "    if (a > 0x7fffffffffffffffull) {\n"
                   "        *ok = false;\n"
                   "        return 0;\n"
                   "    }\n"
                   "    return (long long)a;\n"
                   "}\n",
    [GRID_ADD] = "static inline long long tilec_grid_add(long long a, long long b, bool *ok)\n"
                 "{\n"
                 "    const long long hi = 0x7fffffffffffffffll, lo = -hi - 1;\n"
                 "    if (b > 0 ? a > hi - b : a < lo - b) {\n"
                 "        *ok = false;\n"
                 "        return 0;\n"
                 "    }\n"
                 "    return a + b;\n"
                 "}\n",
    [GRID_SUB] = "static inline long long tilec_grid_sub(long long a, long long b, bool *ok)\n"
                 "{\n"
                 "    const long long hi = 0x7fffffffffffffffll, lo = -hi - 1;\n"
                 "    if (b < 0 ? a > hi + b : a < lo + b) {\n"
                 "        *ok = false;\n"
                 "        return 0;\n"
                 "    }\n"
                 "    return a - b;\n"
                 "}\n",
    [GRID_MUL] = "static inline long long tilec_grid_mul(long long a, long long b, bool *ok)\n"
                 "{\n"
                 "    const long long hi = 0x7fffffffffffffffll, lo = -hi - 1;\n"
                 "    if (a > 0 ? (b > 0 ? a > hi / b : b < lo / a) : (b > 0 ? a < lo / b : a != 0 && b < hi / a)) {\n"
                 "        *ok = false;\n"
                 "        return 0;\n"
                 "    }\n"
                 "    return a * b;\n"
                 "}\n",
    [GRID_DIV] = "static inline long long tilec_grid_div(long long a, long long b, bool *ok)\n"
                 "{\n"
                 "    if (b == 0 || (b == -1 && a == -0x7fffffffffffffffll - 1)) {\n"
                 "        *ok = false;\n"
                 "        return 0;\n"
                 "    }\n"
                 "    return a / b;\n"
                 "}\n",
    [GRID_MOD] = "static inline long long tilec_grid_mod(long long a, long long b, bool *ok)\n"
                 "{\n"
                 "    if (b == 0 || (b == -1 && a == -0x7fffffffffffffffll - 1)) {\n"
                 "        *ok = false;\n"
                 "        return 0;\n"
                 "    }\n"
                 "    return a % b;\n"
                 "}\n",
    /* (a + b - 1) / b fails where a + b - 1 leaves 64 bits, which needs b <= 0 once the
     * positive case is taken apart, or where it is LLONG_MIN and b is -1 */
    [GRID_CDIV] = "static inline long long tilec_grid_cdiv(long long a, long long b, bool *ok)\n"
                  "{\n"
                  "    const long long lo = -0x7fffffffffffffffll - 1;\n"
                  "    if (a > 0 && b > 0)\n"
                  "        return a / b + (a % b != 0);\n"
                  "    if (b == 0 || (b < 0 && a < lo - b + 1) || (b == -1 && a == lo + 2)) {\n"
                  "        *ok = false;\n"
                  "        return 0;\n"
                  "    }\n"
                  "    return (a + b - 1) / b;\n"
                  "}\n",
};

void tir_grid_helpers_c(StrBuf *out, const GridProg *g, bool c_comments)
{
    if (!uses_checks(g))
        return;
    bool used[GRID_MAX + 1] = {0};
    for (int d = 0; d < g->ndims; d++)
        for (int i = 0; i < g->nops[d]; i++)
            used[g->ops[d][i].kind] |= g->ops[d][i].checked;
    sb_puts(out, c_comments ? "/* the grid in checked 64-bit arithmetic: a zero divisor, or a result beyond 64 bits, "
                              "clears *ok */\n"
                            : "// The grid in checked 64-bit arithmetic: a zero divisor, or a result beyond 64 bits, "
                              "clears *ok.\n");
    for (int k = 0; k <= GRID_MAX; k++)
        if (used[k])
            sb_puts(out, helper_c[k]);
    sb_putc(out, '\n');
}

void tir_grid_launch_c(StrBuf *out, Arena *a, const GridProg *g, const GridLaunchC *how)
{
    const char *open = how->c_comments ? "/* " : "// ", *close = how->c_comments ? " */" : "";
    bool checked = uses_checks(g);
    if (checked)
        sb_printf(out, "    bool ok = true; %scleared by a zero divisor or an overflow%s\n", open, close);
    sb_printf(out, "    const long long gx = %s, gy = %s, gz = %s;\n", grid_c(a, g, 0, how->names),
              grid_c(a, g, 1, how->names), grid_c(a, g, 2, how->names));
    if (checked)
        sb_printf(out, "    if (!ok)\n        return %s; %sa zero divisor or an overflow in the grid%s\n", how->invalid,
                  open, close);
    sb_printf(out, "    if (gx <= 0 || gy <= 0 || gz <= 0)\n        return %s; %snothing to do%s\n", how->empty, open,
              close);
    StrBuf cond = {0};
    for (int d = 0; d < 3; d++)
        if (g->may_exceed[d])
            sb_printf(&cond, "%sg%c > %lldll", cond.len ? " || " : "", "xyz"[d], grid_limit[d]);
    if (cond.len)
        sb_printf(out, "    if (%s)\n        return %s; %sbeyond the device's grid limits%s\n", cond.data, how->invalid,
                  open, close);
    sb_free(&cond);
}

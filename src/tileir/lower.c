/*
 * lower.c — AST → tile IR: kernel specialisation, names and scopes,
 * statements and structured control flow, helper inlining.
 */
#include "lower_internal.h"
#include "pyeval.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- environment ------------------------------------------------------------ */

CVal *env_get(Env *e, const char *name)
{
    for (int i = e->b.len - 1; i >= 0; i--)
        if (!strcmp(e->b.data[i].name, name))
            return e->b.data[i].val;
    return NULL;
}

void env_set(Lower *L, Env *e, const char *name, CVal *v)
{
    for (int i = e->b.len - 1; i >= 0; i--)
        if (!strcmp(e->b.data[i].name, name)) {
            e->b.data[i].val = v;
            return;
        }
    Binding b = {name, v};
    vec_push(L->a, &e->b, b);
}

Env *env_copy(Lower *L, const Env *e)
{
    Env *c = NEW(L->a, Env);
    for (int i = 0; i < e->b.len; i++)
        vec_push(L->a, &c->b, e->b.data[i]);
    return c;
}

/* ---- statements' source ranges ------------------------------------------------ */

void index_lines(Lower *L, const Source *src);

static const SrcStmt *stmt_of(Lower *L, Node *n)
{
    const Source *src = n->loc.src ? n->loc.src : L->ctx->src;
    if (src != L->lines_of)
        index_lines(L, src); /* a helper of another file */
    SrcStmt *s = NEW(L->a, SrcStmt);
    s->loc = n->loc;
    int line = n->loc.line;
    s->begin = (line >= 1 && line <= L->nlines) ? L->line_start[line] + n->loc.col - 1 : 0;
    s->end = n->end_offset > s->begin ? n->end_offset : s->begin;
    s->helper = L->helper;
    s->call_line = L->call_line;
    return s;
}

void index_lines(Lower *L, const Source *src)
{
    L->lines_of = src;
    int n = 1;
    for (size_t i = 0; i < src->len; i++)
        n += src->text[i] == '\n';
    L->line_start = NEW_ARRAY(L->a, int, n + 2);
    L->nlines = n;
    int line = 1;
    L->line_start[1] = 0;
    for (size_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n')
            L->line_start[++line] = (int)i + 1;
}

/* ---- names --------------------------------------------------------------------- */

/* Triton's modules and Python's builtins, by the names kernels know them by. */
static CVal *well_known_name(Lower *L, const char *name)
{
    static const char *const modules[][2] = {
        {"tl", "tl"}, {"triton", "triton"}, {"libdevice", "libdevice"}, {"math", "math"},
        {"language", "tl"},
    };
    for (size_t i = 0; i < ARRAY_LEN(modules); i++)
        if (!strcmp(name, modules[i][0])) {
            CVal *c = cv_builtin(L, modules[i][1]);
            c->kind = CV_MODULE;
            return c;
        }
    static const char *const builtins[] = {"range", "min", "max", "len", "int", "float", "bool",
                                           "abs", "print", "isinstance"};
    for (size_t i = 0; i < ARRAY_LEN(builtins); i++)
        if (!strcmp(name, builtins[i]))
            return cv_builtin(L, builtins[i]);
    if (!strcmp(name, "constexpr"))
        return cv_builtin(L, "tl.constexpr");
    if (!strcmp(name, "jit"))
        return cv_builtin(L, "triton.jit");
    return NULL;
}

/* A local, a module-level name, else a well-known one.  An import tilec cannot follow
 * (`from vllm.triton_utils import tl` without vllm's sources) still gives `tl` its usual
 * meaning; for any other name it is the error. */
static CVal *lookup_name(Lower *L, const char *name, Loc loc)
{
    CVal *v = env_get(L->env, name);
    if (v)
        return v;
    const char *unresolved = NULL;
    v = lower_module_name(L, L->m, name, loc, &unresolved);
    if (!v)
        v = well_known_name(L, name);
    if (v)
        return v;
    if (unresolved)
        lower_error(L, loc, "%s", unresolved);
    lower_error(L, loc, "name '%s' is not defined", name);
}

/* ---- expressions ------------------------------------------------------------- */

static CVal *lower_call(Lower *L, Node *n);
static CVal *inline_call(Lower *L, FuncDef *fd, Node *call, CVal **args, int nargs,
                         const char **kwn, CVal **kwv, int nkw);

static CVal *lower_subscript(Lower *L, Node *n)
{
    CVal *base = lower_expr(L, n->lhs);
    if (base->kind == CV_TUPLE) {
        if (n->items.len != 1)
            lower_error(L, n->loc, "tuple index must be a single integer");
        CVal *ix = lower_expr(L, n->items.data[0]);
        if (ix->kind != CV_INT)
            lower_error(L, n->items.data[0]->loc, "tuple index must be a constexpr integer");
        int64_t i = ix->i < 0 ? ix->i + base->items.len : ix->i;
        if (i < 0 || i >= base->items.len)
            lower_error(L, n->loc, "tuple index %lld out of range", (long long)ix->i);
        return base->items.data[i];
    }
    if (base->kind == CV_DICT) {
        CVal *key = lower_expr(L, n->items.data[0]);
        for (int i = 0; i < base->items.len; i++) {
            CVal *k = base->items.data[i];
            if (k->kind == CV_STR && key->kind == CV_STR && !strcmp(k->s, key->s))
                return base->vals.data[i];
        }
        lower_error(L, n->loc, "key not found in dict");
    }
    if (base->kind == CV_VALUE) {
        /* x[:, None]: ':' keeps a dimension, None inserts one of size 1 */
        Value *v = base->v;
        int kept = 0;
        for (int i = 0; i < n->items.len; i++) {
            Node *it = n->items.data[i];
            if (it->kind == N_NONE)
                continue;
            if (!(it->kind == N_SLICE && !it->lo && !it->hi && !it->step))
                lower_error(L, it->loc, "tensor indexing supports only ':' and None");
            kept++;
        }
        if (kept > v->type.rank)
            lower_error(L, n->loc, "too many indices: %d for a tensor of rank %d", kept, v->type.rank);
        for (int i = 0; i < n->items.len; i++)
            if (n->items.data[i]->kind == N_NONE)
                v = lower_expand_dims(L, v, i, n->items.data[i]->loc);
        return cv_value(L, v);
    }
    lower_error(L, n->loc, "%s is not subscriptable", cv_describe(L, base));
}

/* One link of a BoolOp chain: `acc and rhs` / `acc or rhs`. */
static CVal *lower_boolop(Lower *L, Node *n, CVal *a)
{
    if (a->kind != CV_VALUE) {
        bool t = cv_truthy(L, a, n->lhs->loc);
        if ((n->op == TOK_AND && !t) || (n->op == TOK_OR && t))
            return a;
        return lower_expr(L, n->rhs);
    }
    CVal *b = lower_expr(L, n->rhs);
    Value *x = to_bool(L, a->v, n->loc), *y = to_bool(L, to_value(L, b, n->loc), n->loc);
    broadcast_pair(L, &x, &y, n->loc);
    Value *ab[2] = {x, y};
    return cv_value(L, emit1(L, n->op == TOK_AND ? OP_AND : OP_OR, n->loc, 2, ab, x->type));
}

/* `a + b - c ...` and `a and b and c` are trees as deep as they are long on their left
 * spine (the parser does not count those links as nesting): walked with a loop, in the order
 * the recursion would take, so that a chain's length costs no stack. */
static CVal *lower_chain(Lower *L, Node *n)
{
    Vec(Node *) spine = {0};
    for (Node *k = n; k->kind == N_BINOP || k->kind == N_BOOLOP; k = k->lhs)
        vec_push(L->a, &spine, k);
    CVal *acc = lower_expr(L, spine.data[spine.len - 1]->lhs);
    for (int i = spine.len - 1; i >= 0; i--) {
        Node *k = spine.data[i];
        acc = k->kind == N_BOOLOP ? lower_boolop(L, k, acc) : lower_binop(L, k->op, acc, lower_expr(L, k->rhs), k->loc);
    }
    return acc;
}

/* Python's `a is b`, as Triton answers it: at translation time, on the objects.  A tensor
 * is only itself; constants of one kind are the same object when they are equal (Python
 * shares small ints, True, None and interned strings; tilec shares dtypes). */
static bool cv_identical(Lower *L, CVal *a, CVal *b, Loc loc)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CV_VALUE: return a->v == b->v;
    case CV_NONE: return true;
    case CV_INT: case CV_FLOAT: case CV_BOOL: case CV_STR: case CV_DTYPE:
        return cv_truthy(L, lower_compare(L, TOK_EQ, a, b, loc), loc);
    case CV_FUNC: return a->func == b->func;
    case CV_MODULE: case CV_BUILTIN: return !strcmp(a->s, b->s);
    default: return a == b;
    }
}

CVal *lower_expr(Lower *L, Node *n)
{
    int limit = L->ctx->max_depth > 0 ? L->ctx->max_depth : TILEC_DEFAULT_MAX_DEPTH;
    if (++L->nest > limit)
        lower_error(L, n->loc, "expression nested too deeply (limit %d)", limit);
    CVal *r = NULL;
    switch (n->kind) {
    case N_NAME: r = lookup_name(L, n->name, n->loc); break;
    case N_INT:
        if (n->big)
            lower_error(L, n->loc, "integer literal does not fit in 64 bits");
        r = cv_int(L, n->ival);
        break;
    case N_FLOAT: r = cv_float(L, n->fval); break;
    case N_STR:
        if (n->fstring)
            lower_error(L, n->loc, "f-strings are not supported in kernels");
        r = cv_str(L, n->str, n->str_len);
        break;
    case N_TRUE: r = cv_bool(L, true); break;
    case N_FALSE: r = cv_bool(L, false); break;
    case N_NONE: r = cv_none(L); break;
    case N_BINOP:
    case N_BOOLOP: r = lower_chain(L, n); break;
    case N_UNARY: r = lower_unary(L, n->op, lower_expr(L, n->lhs), n->loc); break;
    case N_COMPARE: {
        CVal *left = lower_expr(L, n->lhs);
        CVal *acc = NULL;
        for (int i = 0; i < n->items.len; i++) {
            CVal *right = lower_expr(L, n->items.data[i]);
            TokenKind op = n->ops.data[i];
            CVal *c;
            if (op == TOK_IS)
                c = cv_bool(L, cv_identical(L, left, right, n->loc) != n->negated.data[i]);
            else if (op == TOK_IN) {
                if (right->kind != CV_TUPLE)
                    lower_error(L, n->loc, "'in' needs a translation-time tuple");
                bool found = false;
                for (int k = 0; k < right->items.len && !found; k++)
                    found = cv_truthy(L, lower_compare(L, TOK_EQ, left, right->items.data[k], n->loc), n->loc);
                c = cv_bool(L, found != n->negated.data[i]);
            } else
                c = lower_compare(L, op, left, right, n->loc);
            if (!acc)
                acc = c;
            else if (acc->kind != CV_VALUE && c->kind != CV_VALUE)
                acc = cv_bool(L, cv_truthy(L, acc, n->loc) && cv_truthy(L, c, n->loc));
            else {
                Value *x = to_value(L, acc, n->loc), *y = to_value(L, c, n->loc);
                broadcast_pair(L, &x, &y, n->loc);
                Value *ab[2] = {x, y};
                acc = cv_value(L, emit1(L, OP_AND, n->loc, 2, ab, x->type));
            }
            left = right;
        }
        r = acc;
        break;
    }
    case N_TERNARY: {
        CVal *c = lower_expr(L, n->cond);
        if (c->kind != CV_VALUE) {
            r = lower_expr(L, cv_truthy(L, c, n->cond->loc) ? n->lhs : n->rhs);
            break;
        }
        CVal *a = lower_expr(L, n->lhs), *b = lower_expr(L, n->rhs);
        r = cv_value(L, lower_where(L, c->v, a, b, n->loc));
        break;
    }
    case N_CALL: r = lower_call(L, n); break;
    case N_ATTR: r = lower_attribute(L, lower_expr(L, n->lhs), n->name, n->loc); break;
    case N_SUBSCRIPT: r = lower_subscript(L, n); break;
    case N_TUPLE:
    case N_LIST: {
        r = NEW(L->a, CVal);
        r->kind = CV_TUPLE;
        for (int i = 0; i < n->items.len; i++)
            vec_push(L->a, &r->items, lower_expr(L, n->items.data[i]));
        break;
    }
    case N_DICT: {
        r = NEW(L->a, CVal);
        r->kind = CV_DICT;
        for (int i = 0; i < n->items.len; i++) {
            vec_push(L->a, &r->items, lower_expr(L, n->items.data[i]));
            vec_push(L->a, &r->vals, lower_expr(L, n->values.data[i]));
        }
        break;
    }
    case N_LAMBDA:
        r = NEW(L->a, CVal);
        r->kind = CV_LAMBDA;
        r->node = n;
        break;
    case N_ELLIPSIS: lower_error(L, n->loc, "'...' is not supported in kernels");
    case N_STARRED: lower_error(L, n->loc, "star-expressions are not supported in kernels");
    case N_COMP: lower_error(L, n->loc, "comprehensions are not supported in kernels or tl.constexpr globals (only in decorator arguments)");
    case N_SLICE: lower_error(L, n->loc, "a slice is only allowed inside a subscript");
    /* the parser builds expressions only of the kinds above */
    default: BUG("lower_expr: %s is not an expression", node_kind_name(n->kind));
    }
    L->nest--;
    return r;
}

CVal *call_lambda(Lower *L, CVal *lam, Node *call, CVal **args, int nargs)
{
    Node *ln = lam->node;
    if (nargs != ln->params.len)
        lower_error(L, call->loc, "lambda takes %d argument%s, got %d", ln->params.len,
                    ln->params.len == 1 ? "" : "s", nargs);
    Env *saved = L->env;
    L->env = env_copy(L, saved);
    for (int i = 0; i < nargs; i++)
        env_set(L, L->env, ln->params.data[i].name, args[i]);
    CVal *r = lower_expr(L, ln->lhs);
    L->env = saved;
    return r;
}

/* The arguments of call n, evaluated left to right: positional ones, then keyword names and values. */
static void lower_call_args(Lower *L, Node *n, CVal ***args, const char ***kwn, CVal ***kwv)
{
    int nargs = n->items.len, nkw = n->kwargs.len;
    *args = NEW_ARRAY(L->a, CVal *, nargs + 1);
    *kwn = NEW_ARRAY(L->a, const char *, nkw + 1);
    *kwv = NEW_ARRAY(L->a, CVal *, nkw + 1);
    for (int i = 0; i < nargs; i++) {
        if (n->items.data[i]->kind == N_STARRED)
            lower_error(L, n->items.data[i]->loc, "*args in calls are not supported in kernels");
        (*args)[i] = lower_expr(L, n->items.data[i]);
    }
    for (int i = 0; i < nkw; i++) {
        if (!n->kwargs.data[i].name)
            lower_error(L, n->kwargs.data[i].loc, "**kwargs in calls are not supported in kernels");
        (*kwn)[i] = n->kwargs.data[i].name;
        (*kwv)[i] = lower_expr(L, n->kwargs.data[i].value);
    }
}

static CVal *lower_call(Lower *L, Node *n)
{
    CVal *callee = lower_expr(L, n->lhs);
    int nargs = n->items.len, nkw = n->kwargs.len;
    CVal **args;
    const char **kwn;
    CVal **kwv;
    lower_call_args(L, n, &args, &kwn, &kwv);
    switch (callee->kind) {
    case CV_FUNC: return inline_call(L, callee->func, n, args, nargs, kwn, kwv, nkw);
    case CV_BUILTIN: return lower_builtin_call(L, callee->s, n, args, nargs, kwn, kwv, nkw);
    case CV_METHOD: return lower_method_call(L, callee, n, args, nargs, kwn, kwv, nkw);
    case CV_LAMBDA: return call_lambda(L, callee, n, args, nargs);
    case CV_DTYPE:
        if (nargs == 1 && cv_is_python_scalar(args[0]))
            return args[0]; /* tl.int32(3): a typed constant; keep Python value */
        lower_error(L, n->loc, "calling a dtype is only supported on constants");
    default: lower_error(L, n->loc, "%s is not callable", cv_describe(L, callee));
    }
}

/* ---- statements ----------------------------------------------------------------- */

void lower_body(Lower *L, NodeList *body);

static void assign_target(Lower *L, Node *t, CVal *v)
{
    if (t->kind == N_NAME) {
        if (v->kind == CV_VALUE && v->v->def && !v->v->name)
            v->v->name = t->name;
        if ((v->kind == CV_BLOCKPTR || v->kind == CV_TENSORDESC) && !v->bp->name)
            v->bp->name = t->name;
        env_set(L, L->env, t->name, v);
        return;
    }
    if (t->kind == N_TUPLE || t->kind == N_LIST) {
        if (v->kind != CV_TUPLE)
            lower_error(L, t->loc, "cannot unpack %s", cv_describe(L, v));
        if (v->items.len != t->items.len)
            lower_error(L, t->loc, "cannot unpack %d values into %d names", v->items.len, t->items.len);
        for (int i = 0; i < t->items.len; i++)
            assign_target(L, t->items.data[i], v->items.data[i]);
        return;
    }
    if (t->kind == N_ATTR || t->kind == N_SUBSCRIPT)
        lower_error(L, t->loc, "assignment to %s is not supported in kernels",
                    t->kind == N_ATTR ? "an attribute" : "a subscript");
    if (t->kind == N_STARRED)
        lower_error(L, t->loc, "starred assignment targets ('*name') are not supported in kernels");
    /* the parser's check_target allows no other kind */
    BUG("assign_target: %s", node_kind_name(t->kind));
}

bool is_constexpr_annotation(Lower *L, Node *ann)
{
    if (!ann)
        return false;
    if (ann->kind == N_NAME && !strcmp(ann->name, "constexpr"))
        return true;
    if (ann->kind == N_ATTR && !strcmp(ann->name, "constexpr"))
        return true;
    if (ann->kind == N_STR && ann->str && strstr(ann->str, "constexpr"))
        return true;
    (void)L;
    return false;
}

typedef Vec(const char *) NameVec;

/* Names assigned anywhere in a statement list (targets of =, op=, for). */
static void collect_assigned(Lower *L, NodeList *body, NameVec *out);

static void collect_target(Lower *L, Node *t, NameVec *out)
{
    if (t->kind == N_NAME)
        vec_push(L->a, out, t->name);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->items.len; i++)
            collect_target(L, t->items.data[i], out);
}

static void collect_assigned(Lower *L, NodeList *body, NameVec *out)
{
    for (int i = 0; i < body->len; i++) {
        Node *s = body->data[i];
        switch (s->kind) {
        case N_ASSIGN:
            for (int k = 0; k < s->items.len; k++)
                collect_target(L, s->items.data[k], out);
            break;
        case N_AUGASSIGN:
        case N_ANNASSIGN: collect_target(L, s->lhs, out); break;
        case N_FOR:
            collect_target(L, s->lhs, out);
            collect_assigned(L, &s->body, out);
            break;
        case N_IF:
        case N_WHILE:
            collect_assigned(L, &s->body, out);
            collect_assigned(L, &s->orelse, out);
            break;
        default: break;
        }
    }
}

/* Loop-carried names: assigned in the body and defined before the loop. */
static int carried_names(Lower *L, NodeList *body, const char ***names_out)
{
    NameVec assigned = {0};
    collect_assigned(L, body, &assigned);
    NameVec carried = {0};
    for (int i = 0; i < assigned.len; i++) {
        const char *nm = assigned.data[i];
        CVal *v = env_get(L->env, nm);
        if (!v)
            continue;
        bool dup = false;
        for (int k = 0; k < carried.len; k++)
            dup |= !strcmp(carried.data[k], nm);
        if (dup)
            continue;
        if (v->kind != CV_VALUE && !cv_is_python_scalar(v) && v->kind != CV_BLOCKPTR)
            continue; /* re-binding a non-value name: leave to the body */
        vec_push(L->a, &carried, nm);
    }
    *names_out = carried.data;
    return carried.len;
}

static void check_carried_type(Lower *L, const char *name, Type init, Type now, Loc loc)
{
    if (!type_eq(init, now))
        lower_error(L, loc, "loop-carried variable '%s' has initial type %s but is re-assigned to %s "
                    "in the loop; make sure the type stays the same (e.g. initialise it with the "
                    "right dtype)", name, type_str(L->a, init), type_str(L->a, now));
}

static Value *yield_value(Lower *L, const char *name, Type want, Loc loc)
{
    CVal *c = env_get(L->env, name);
    if (!c) /* carried names were bound before the loop, and bindings are never removed */
        BUG("loop-carried variable '%s' is unbound at the end of the loop body", name);
    Value *v;
    if (cv_is_python_scalar(c)) {
        v = to_value(L, c, loc);
        if (!type_eq(v->type, want) && !dtype_is_float(want.dtype) == !dtype_is_float(v->type.dtype) && want.rank == 0)
            v = cast_value(L, v, want, loc);
    } else if (c->kind == CV_VALUE)
        v = c->v;
    else
        lower_error(L, loc, "loop-carried variable '%s' became %s", name, cv_describe(L, c));
    check_carried_type(L, name, want, v->type, loc);
    return v;
}

static void emit_yield(Lower *L, Value **vals, int n, Loc loc)
{
    Op *y = tir_op_new(L->a, L->f, OP_YIELD, n, vals, 0, NULL);
    y->loc = loc;
    y->stmt = L->stmt;
    tir_block_append(L->a, L->cur, y);
}

/* The values a loop carries for its carried names: one each, but a block pointer
 * carries its offsets (its base, shape and strides stay as they are). */
typedef struct Carry {
    int n;                /* names */
    const char **names;
    CVal **init;          /* each name's value before the loop */
    int *first;           /* where each name's values start */
    int nv;               /* values */
    Value **vals;         /* their values before the loop */
} Carry;

static Carry carry_begin(Lower *L, const char **names, int n, Loc loc)
{
    Carry c = {.n = n, .names = names};
    c.init = NEW_ARRAY(L->a, CVal *, n + 1);
    c.first = NEW_ARRAY(L->a, int, n + 1);
    for (int i = 0; i < n; i++) {
        c.init[i] = carry_prepare(L, env_get(L->env, names[i]), loc);
        c.first[i] = c.nv;
        c.nv += carry_width(c.init[i]);
    }
    c.vals = NEW_ARRAY(L->a, Value *, c.nv + 1);
    for (int i = 0; i < n; i++)
        carry_values(L, c.init[i], c.init[i], c.vals + c.first[i], loc);
    return c;
}

/* The name of carried value k: the variable's, or "ptr_off1" for a block pointer's offset. */
static const char *carry_name(Lower *L, const Carry *c, int k)
{
    int i = c->n - 1;
    while (c->first[i] > k)
        i--;
    if (c->init[i]->kind != CV_BLOCKPTR)
        return c->names[i];
    return carry_part_name(L, c->names[i], c->init[i], k - c->first[i]);
}

/* Binds the carried names in env to vals (a block's arguments, the loop's results). */
static void carry_bind(Lower *L, const Carry *c, Env *env, Value **vals)
{
    for (int i = 0; i < c->n; i++)
        env_set(L, env, c->names[i], carry_rebuild(L, c->init[i], vals + c->first[i]));
}

/* The values the body yields, of the types rt. */
static Value **carry_yields(Lower *L, const Carry *c, const Type *rt, Loc loc)
{
    Value **ys = NEW_ARRAY(L->a, Value *, c->nv + 1);
    for (int i = 0; i < c->n; i++) {
        int k = c->first[i];
        if (c->init[i]->kind != CV_BLOCKPTR) {
            ys[k] = yield_value(L, c->names[i], rt[k], loc);
            continue;
        }
        CVal *now = env_get(L->env, c->names[i]);
        if (!now)
            BUG("loop-carried variable '%s' is unbound at the end of the loop body", c->names[i]);
        carry_yield(L, c->names[i], c->init[i], now, ys + k, loc);
        for (int d = 0; d < carry_width(c->init[i]); d++)
            check_carried_type(L, carry_name(L, c, k + d), rt[k + d], ys[k + d]->type, loc);
    }
    return ys;
}

static bool body_returns(NodeList *body);

static void lower_static_for(Lower *L, Node *s, CVal *clb, CVal *cub, CVal *cstep)
{
    if (clb->kind != CV_INT || cub->kind != CV_INT || cstep->kind != CV_INT)
        lower_error(L, s->iter->loc, "tl.static_range bounds must be constexpr integers");
    int64_t lb = clb->i, ub = cub->i, step = cstep->i;
    if (step == 0)
        lower_error(L, s->iter->loc, "tl.static_range step must not be zero");
    __int128 span = step > 0 ? (__int128)ub - lb + step - 1 : (__int128)lb - ub - step - 1; /* no overflow */
    __int128 trips128 = span / (step > 0 ? step : -(__int128)step);
    if (trips128 > INT64_MAX)
        lower_error(L, s->iter->loc, "tl.static_range with more than 2^63 iterations is too long to unroll (limit 4096)");
    int64_t trips = (int64_t)trips128;
    if (trips > 4096)
        lower_error(L, s->iter->loc, "tl.static_range with %lld iterations is too long to unroll (limit 4096)",
                    (long long)trips);
    for (int64_t i = lb; step > 0 ? i < ub : i > ub; i += step) {
        assign_target(L, s->lhs, cv_int(L, i));
        lower_body(L, &s->body);
        if (L->returned)
            lower_error(L, s->loc, "return inside a loop is not supported");
    }
}

/* for NAME in range(...) / tl.range(...) / tl.static_range(...): the first two become an
 * OP_FOR, the last unrolls at translation time.  The builtins table binds the arguments. */
static void lower_for(Lower *L, Node *s)
{
    if (s->orelse.len)
        lower_error(L, s->loc, "for ... else is not supported in kernels");
    if (s->iter->kind != N_CALL)
        lower_error(L, s->iter->loc, "for loops in kernels must iterate over range(), tl.range() or tl.static_range()");
    CVal *fn = lower_expr(L, s->iter->lhs);
    const char *fname = fn->kind == CV_BUILTIN ? fn->s : "";
    bool is_static = !strcmp(fname, "tl.static_range");
    if (strcmp(fname, "range") && strcmp(fname, "tl.range") && !is_static)
        lower_error(L, s->iter->loc, "for loops in kernels must iterate over range(), tl.range() or tl.static_range()");
    Node *call = s->iter;
    if (!strcmp(fname, "range") && call->kwargs.len) /* Python's range has positional parameters only */
        lower_error(L, call->kwargs.data[0].loc, "range() takes no keyword arguments");
    CVal **args, **kwv;
    const char **kwn;
    lower_call_args(L, call, &args, &kwn, &kwv);
    CVal **a = lower_bind_builtin(L, fname, call, args, call->items.len, kwn, kwv, call->kwargs.len);
    /* a[0], a[1], a[2]: arg1, arg2 and step, NULL when not given: range(stop) or range(start, stop[, step]) */
    CVal *clb = a[1] ? a[0] : cv_int(L, 0), *cub = a[1] ? a[1] : a[0], *cstep = a[2] ? a[2] : cv_int(L, 1);
    if (is_static) {
        lower_static_for(L, s, clb, cub, cstep);
        return;
    }
    if (s->lhs->kind != N_NAME)
        lower_error(L, s->lhs->loc, "the loop variable must be a single name");
    if (cstep->kind == CV_INT && cstep->i == 0)
        lower_error(L, call->loc, "%s step must not be zero", fname);
    /* A constant negative step counts down, as Triton lowers it: the loop runs upwards
     * over (stop, start] and the variable is start + stop - counter. */
    bool down = cstep->kind == CV_INT && cstep->i < 0;
    if (down) {
        CVal *t = clb;
        clb = cub, cub = t;
        cstep = cv_int(L, -cstep->i);
    }
    /* induction variable type: integer promotion of the bounds (int32 unless one is int64) */
    DType ivt = DT_I32;
    CVal *bounds[3] = {clb, cub, cstep};
    for (int i = 0; i < 3; i++) {
        Type t = value_type_of(L, bounds[i], call->loc);
        if (!dtype_is_int(t.dtype) || t.rank)
            lower_error(L, call->loc, "range bounds must be integer scalars, got %s", type_str(L->a, t));
        if (t.dtype == DT_I64 || t.dtype == DT_U64)
            ivt = DT_I64;
    }
    Value *bv[3];
    for (int i = 0; i < 3; i++)
        bv[i] = cast_value(L, to_value(L, bounds[i], call->loc), type_scalar(ivt), call->loc);

    const char **names;
    int nnames = carried_names(L, &s->body, &names);
    Carry cr = carry_begin(L, names, nnames, s->loc);
    int nc = cr.nv;
    Value **inits = NEW_ARRAY(L->a, Value *, nc + 3);
    inits[0] = bv[0], inits[1] = bv[1], inits[2] = bv[2];
    for (int i = 0; i < nc; i++)
        inits[3 + i] = cr.vals[i];
    Type *rt = NEW_ARRAY(L->a, Type, nc + 1);
    for (int i = 0; i < nc; i++)
        rt[i] = inits[3 + i]->type;
    Op *op = tir_op_new(L->a, L->f, OP_FOR, 3 + nc, inits, nc, rt);
    op->loc = s->loc;
    op->stmt = L->stmt;
    /* tl.range's tuning keywords: loop_unroll_factor becomes #pragma unroll; num_stages,
     * flatten, disallow_acc_multi_buffer, warp_specialize and disable_licm change
     * nothing in tilec (docs/LANGUAGE.md says why) */
    if (!strcmp(fname, "tl.range") && a[4]) {
        int64_t u = const_int(L, a[4], call->loc, "loop_unroll_factor");
        if (u < 1 || u > 1024)
            lower_error(L, call->loc, "tl.range needs loop_unroll_factor from 1 to 1024, got %lld", (long long)u);
        op->for_.unroll = (int)u;
    }
    if (!strcmp(fname, "tl.range") && a[7])
        op->for_.warp_specialize = const_int(L, a[7], call->loc, "warp_specialize") != 0;
    Block *body = tir_block_new(L->a, op);
    op->regions[0] = body;
    op->nregions = 1;
    Value *iv = tir_value_new(L->a, L->f, type_scalar(ivt));
    iv->block = body;
    iv->name = down ? arena_printf(L->a, "%s_up", s->lhs->name) : s->lhs->name;
    vec_push(L->a, &body->args, iv);
    Env *outer = L->env;
    L->env = env_copy(L, outer);
    for (int i = 0; i < nc; i++) {
        Value *arg = tir_value_new(L->a, L->f, rt[i]);
        arg->block = body;
        arg->arg_index = i + 1;
        arg->name = carry_name(L, &cr, i);
        vec_push(L->a, &body->args, arg);
    }
    carry_bind(L, &cr, L->env, body->args.data + 1);
    Block *saved = L->cur;
    L->cur = body;
    CVal *var = cv_value(L, iv);
    if (down) {
        var = lower_binop(L, TOK_PLUS, lower_binop(L, TOK_MINUS, cv_value(L, bv[1]), var, s->lhs->loc),
                          cv_value(L, bv[0]), s->lhs->loc);
        var->v->name = s->lhs->name;
    }
    env_set(L, L->env, s->lhs->name, var);
    lower_body(L, &s->body);
    if (L->returned)
        lower_error(L, s->loc, "return inside a loop is not supported");
    emit_yield(L, carry_yields(L, &cr, rt, s->loc), nc, s->loc);
    L->cur = saved;
    L->env = outer;
    tir_block_append(L->a, L->cur, op);
    for (int i = 0; i < nc; i++)
        op->results[i]->name = carry_name(L, &cr, i);
    carry_bind(L, &cr, L->env, op->results);
}

static void lower_while(Lower *L, Node *s)
{
    if (s->orelse.len)
        lower_error(L, s->loc, "while ... else is not supported in kernels");
    /* a translation-time condition that is false: nothing to do */
    const char **names;
    int nnames = carried_names(L, &s->body, &names);
    Carry cr = carry_begin(L, names, nnames, s->loc);
    int nc = cr.nv;
    Value **inits = cr.vals;
    Type *rt = NEW_ARRAY(L->a, Type, nc + 1);
    for (int i = 0; i < nc; i++)
        rt[i] = inits[i]->type;
    Op *op = tir_op_new(L->a, L->f, OP_WHILE, nc, inits, nc, rt);
    op->loc = s->loc;
    op->stmt = L->stmt;
    op->nregions = 2;
    Env *outer = L->env;
    Block *saved = L->cur;
    for (int r = 0; r < 2; r++) {
        Block *b = tir_block_new(L->a, op);
        op->regions[r] = b;
        L->env = env_copy(L, outer);
        for (int i = 0; i < nc; i++) {
            Value *arg = tir_value_new(L->a, L->f, rt[i]);
            arg->block = b;
            arg->arg_index = i;
            arg->name = carry_name(L, &cr, i);
            vec_push(L->a, &b->args, arg);
        }
        carry_bind(L, &cr, L->env, b->args.data);
        L->cur = b;
        if (r == 0) {
            CVal *c = lower_expr(L, s->cond);
            Value *cv = to_value(L, c, s->cond->loc);
            if (cv->type.rank)
                lower_error(L, s->cond->loc, "a while condition must be a scalar, got %s", type_str(L->a, cv->type));
            cv = to_bool(L, cv, s->cond->loc);
            Value **cargs = NEW_ARRAY(L->a, Value *, nc + 1);
            cargs[0] = cv;
            for (int i = 0; i < nc; i++)
                cargs[1 + i] = b->args.data[i];
            Op *cond = tir_op_new(L->a, L->f, OP_CONDITION, nc + 1, cargs, 0, NULL);
            cond->loc = s->cond->loc;
            cond->stmt = L->stmt;
            tir_block_append(L->a, b, cond);
        } else {
            lower_body(L, &s->body);
            if (L->returned)
                lower_error(L, s->loc, "return inside a loop is not supported");
            emit_yield(L, carry_yields(L, &cr, rt, s->loc), nc, s->loc);
        }
    }
    L->cur = saved;
    L->env = outer;
    tir_block_append(L->a, L->cur, op);
    for (int i = 0; i < nc; i++)
        op->results[i]->name = carry_name(L, &cr, i);
    carry_bind(L, &cr, L->env, op->results);
}

typedef Vec(CVal *) CValList;

/* The leaves of two return values that differ, pairwise, into la and lb (tuples are
 * walked); a leaf that is the same object on both paths is not a result. */
static void return_leaves(Lower *L, Node *s, CVal *a, CVal *b, CValList *la, CValList *lb)
{
    if (a->kind == CV_TUPLE && b->kind == CV_TUPLE && a->items.len == b->items.len) {
        for (int i = 0; i < a->items.len; i++)
            return_leaves(L, s, a->items.data[i], b->items.data[i], la, lb);
        return;
    }
    if (cv_identical(L, a, b, s->loc))
        return;
    bool ok = (a->kind == CV_VALUE || cv_is_python_scalar(a)) && (b->kind == CV_VALUE || cv_is_python_scalar(b));
    if (!ok)
        lower_error(L, s->loc, "helper '%s' returns %s on one path and %s on another", L->helper,
                    cv_describe(L, a), cv_describe(L, b));
    vec_push(L->a, la, a);
    vec_push(L->a, lb, b);
}

/* Return value a with its differing leaves replaced by the if's results, in order. */
static CVal *rebuild_return(Lower *L, Node *s, CVal *a, CVal *b, Value **results, int *next)
{
    if (a->kind == CV_TUPLE && b->kind == CV_TUPLE && a->items.len == b->items.len) {
        CVal *t = NEW(L->a, CVal);
        t->kind = CV_TUPLE;
        for (int i = 0; i < a->items.len; i++)
            vec_push(L->a, &t->items, rebuild_return(L, s, a->items.data[i], b->items.data[i], results, next));
        return t;
    }
    return cv_identical(L, a, b, s->loc) ? a : cv_value(L, results[(*next)++]);
}

/* A runtime if in a helper with a return in a branch (Triton allows it outside loops).
 * Helpers are inlined, so each branch is lowered followed by the rest of the helper,
 * every path ending in a return, and the if yields the helper's return value. */
static void lower_if_returning(Lower *L, Node *s, Value *cv)
{
    NodeList rest = {0};
    for (const Rest *r = L->rest; r; r = r->up)
        for (int i = r->next; i < r->body->len; i++)
            vec_push(L->a, &rest, r->body->data[i]);
    Env *outer = L->env;
    Block *saved = L->cur;
    const Rest *saved_rest = L->rest;
    Op *op = tir_op_new(L->a, L->f, OP_IF, 1, &cv, 0, NULL);
    op->loc = s->loc;
    op->stmt = L->stmt;
    op->nregions = 2;
    CVal *ret[2];
    for (int r = 0; r < 2; r++) {
        NodeList path = {0};
        NodeList *branch = r == 0 ? &s->body : &s->orelse;
        for (int i = 0; i < branch->len; i++)
            vec_push(L->a, &path, branch->data[i]);
        for (int i = 0; i < rest.len; i++)
            vec_push(L->a, &path, rest.data[i]);
        op->regions[r] = tir_block_new(L->a, op);
        L->cur = op->regions[r];
        L->env = env_copy(L, outer);
        L->rest = NULL;
        L->returned = false;
        L->ret = NULL;
        lower_body(L, &path);
        ret[r] = L->ret ? L->ret : cv_none(L); /* falling off the end returns None */
    }
    CValList leaves[2] = {{0}, {0}};
    return_leaves(L, s, ret[0], ret[1], &leaves[0], &leaves[1]);
    int n = leaves[0].len;
    Value **vals[2];
    for (int r = 0; r < 2; r++) {
        L->cur = op->regions[r];
        vals[r] = NEW_ARRAY(L->a, Value *, n + 1);
        for (int i = 0; i < n; i++)
            vals[r][i] = to_value(L, leaves[r].data[i], s->loc);
    }
    op->nres = n;
    op->results = NEW_ARRAY(L->a, Value *, n + 1);
    for (int i = 0; i < n; i++) {
        Type ta = vals[0][i]->type, tb = vals[1][i]->type;
        if (!type_eq(ta, tb))
            lower_error(L, s->loc, "helper '%s' returns %s on one path and %s on another", L->helper,
                        type_str(L->a, ta), type_str(L->a, tb));
        op->results[i] = tir_value_new(L->a, L->f, ta);
        op->results[i]->def = op;
        op->results[i]->name = arena_printf(L->a, "%s_ret", L->helper);
    }
    for (int r = 0; r < 2; r++) {
        L->cur = op->regions[r];
        emit_yield(L, vals[r], n, s->loc);
    }
    L->cur = saved;
    L->env = outer;
    L->rest = saved_rest;
    tir_block_append(L->a, L->cur, op);
    int next = 0;
    L->ret = rebuild_return(L, s, ret[0], ret[1], op->results, &next);
    L->returned = true;
}

static void lower_if(Lower *L, Node *s)
{
    CVal *c = lower_expr(L, s->cond);
    if (c->kind != CV_VALUE) {
        /* translation-time condition: only the taken branch exists */
        lower_body(L, cv_truthy(L, c, s->cond->loc) ? &s->body : &s->orelse);
        return;
    }
    Value *cv = c->v;
    if (cv->type.rank)
        lower_error(L, s->cond->loc, "an if condition must be a scalar, got %s (use tl.where for tensors)",
                    type_str(L->a, cv->type));
    cv = to_bool(L, cv, s->cond->loc);
    if (L->in_helper && (body_returns(&s->body) || body_returns(&s->orelse))) {
        if (L->loops)
            lower_error(L, s->loc, "return inside a loop is not supported");
        lower_if_returning(L, s, cv);
        return;
    }

    Env *outer = L->env;
    Block *saved = L->cur;
    Op *op = tir_op_new(L->a, L->f, OP_IF, 1, &cv, 0, NULL);
    op->loc = s->loc;
    op->stmt = L->stmt;
    op->nregions = 2;
    Env *envs[2];
    bool ret[2];
    for (int r = 0; r < 2; r++) {
        op->regions[r] = tir_block_new(L->a, op);
        L->cur = op->regions[r];
        L->env = env_copy(L, outer);
        L->returned = false;
        lower_body(L, r == 0 ? &s->body : &s->orelse);
        envs[r] = L->env;
        ret[r] = L->returned;
    }
    L->returned = ret[0] && ret[1];
    /* Names whose value differs after the branches become results of the
     * if; a branch that returned contributes nothing. */
    Vec(const char *) names = {0};
    for (int r = 0; r < 2; r++) {
        if (ret[r])
            continue;
        Env *e = envs[r];
        for (int i = 0; i < e->b.len; i++) {
            const char *nm = e->b.data[i].name;
            CVal *before = env_get(outer, nm), *mine = e->b.data[i].val;
            CVal *other = ret[1 - r] ? mine : env_get(envs[1 - r], nm);
            if (!other)
                continue; /* defined in one branch only: local to it */
            if (mine == before && other == before)
                continue;
            bool dup = false;
            for (int k = 0; k < names.len; k++)
                dup |= !strcmp(names.data[k], nm);
            if (dup)
                continue;
            if (mine == other && mine->kind != CV_VALUE) {
                env_set(L, outer, nm, mine); /* the same Python object on both paths */
                continue;
            }
            bool ok = mine->kind == CV_VALUE || cv_is_python_scalar(mine) ||
                      (mine->kind == CV_BLOCKPTR && other->kind == CV_BLOCKPTR);
            if (!ok)
                lower_error(L, s->loc, "'%s' is bound to %s in a runtime if; only values can differ between branches",
                            nm, cv_describe(L, mine->kind != CV_VALUE && !cv_is_python_scalar(mine) ? mine : other));
            vec_push(L->a, &names, nm);
        }
    }
    /* A block pointer's offsets are results, one each (carry_values); its base, shape and
     * strides must be the same on both paths. */
    int nn = names.len, n = 0;
    CVal **tmpl = NEW_ARRAY(L->a, CVal *, nn + 1);
    int *first = NEW_ARRAY(L->a, int, nn + 1);
    for (int i = 0; i < nn; i++) {
        tmpl[i] = env_get(envs[ret[0] ? 1 : 0], names.data[i]);
        first[i] = n;
        n += carry_width(tmpl[i]);
    }
    Type *rt = NEW_ARRAY(L->a, Type, n + 1);
    Value **vals[2];
    for (int r = 0; r < 2; r++) {
        vals[r] = NEW_ARRAY(L->a, Value *, n + 1);
        if (ret[r])
            continue;
        L->cur = op->regions[r];
        for (int i = 0; i < nn; i++) {
            CVal *now = env_get(envs[r], names.data[i]);
            if (tmpl[i]->kind == CV_BLOCKPTR)
                blockptr_same_but_offsets(L, names.data[i], tmpl[i], now, s->loc);
            carry_values(L, tmpl[i], now, vals[r] + first[i], s->loc);
        }
    }
    for (int i = 0; i < n; i++) {
        Value *a = vals[0][i], *b = vals[1][i];
        if (a && b && !type_eq(a->type, b->type)) {
            int k = nn - 1;
            while (first[k] > i)
                k--;
            lower_error(L, s->loc, "variable '%s' has type %s after the then-branch but %s after the else-branch",
                        names.data[k], type_str(L->a, a->type), type_str(L->a, b->type));
        }
        rt[i] = (a ? a : b)->type;
    }
    for (int r = 0; r < 2; r++) {
        L->cur = op->regions[r];
        if (!ret[r])
            emit_yield(L, vals[r], n, s->loc);
    }
    op->nres = n;
    op->results = NEW_ARRAY(L->a, Value *, n + 1);
    for (int i = 0; i < nn; i++)
        for (int k = first[i]; k < first[i] + carry_width(tmpl[i]); k++) {
            op->results[k] = tir_value_new(L->a, L->f, rt[k]);
            op->results[k]->def = op;
            op->results[k]->name = tmpl[i]->kind == CV_BLOCKPTR
                                       ? carry_part_name(L, names.data[i], tmpl[i], k - first[i])
                                       : names.data[i];
        }
    L->cur = saved;
    L->env = outer;
    tir_block_append(L->a, L->cur, op);
    for (int i = 0; i < nn; i++)
        env_set(L, L->env, names.data[i], carry_rebuild(L, tmpl[i], op->results + first[i]));
}

static bool body_returns(NodeList *body)
{
    for (int i = 0; i < body->len; i++) {
        Node *s = body->data[i];
        if (s->kind == N_RETURN)
            return true;
        if ((s->kind == N_IF) && (body_returns(&s->body) || body_returns(&s->orelse)))
            return true;
    }
    return false;
}

static void lower_return(Lower *L, Node *s)
{
    if (L->in_helper) {
        L->ret = s->lhs ? lower_expr(L, s->lhs) : cv_none(L);
        L->returned = true;
        return;
    }
    if (s->lhs)
        lower_error(L, s->loc, "a kernel cannot return a value");
    Op *op = tir_op_new(L->a, L->f, OP_RETURN, 0, NULL, 0, NULL);
    op->loc = s->loc;
    op->stmt = L->stmt;
    tir_block_append(L->a, L->cur, op);
    L->returned = true;
}

/* `raise E("why")` in a branch the translation takes: Triton rejects it there too.
 * The message shows the exception and its text when they are written out. */
static NORETURN void raise_reached(Lower *L, Node *s)
{
    Node *e = s->lhs;
    Node *callee = e && e->kind == N_CALL ? e->lhs : e;
    const char *what = callee && callee->kind == N_NAME ? callee->name : NULL;
    Node *arg = e && e->kind == N_CALL && e->items.len ? e->items.data[0] : NULL;
    if (what && arg && arg->kind == N_STR && !arg->fstring)
        lower_error(L, s->loc, "raise %s reached at translation time: %.*s", what, arg->str_len, arg->str);
    lower_error(L, s->loc, "raise %sreached at translation time (a 'raise' is only allowed in branches "
                "that constexprs rule out)", what ? arena_printf(L->a, "%s ", what) : "");
}

static void lower_stmt(Lower *L, Node *s)
{
    int limit = L->ctx->max_depth > 0 ? L->ctx->max_depth : TILEC_DEFAULT_MAX_DEPTH;
    /* A statement at depth k+1 comes after its parent's header (if/while condition, for
     * iterable) or its helper call's callee was lowered at depth k+1 by lower_expr, which
     * checks the same limit: that check fires first. */
    if (++L->nest > limit)
        BUG("statement nested deeper than %d", limit);
    if (++L->stmts > TIR_MAX_STMTS)
        lower_error(L, s->loc, "the kernel is too large: more than %d statements after unrolling "
                    "(tl.static_range loops and helper calls repeat their bodies)", TIR_MAX_STMTS);
    const SrcStmt *saved_stmt = L->stmt;
    L->stmt = stmt_of(L, s);
    switch (s->kind) {
    case N_EXPR_STMT: {
        CVal *v = lower_expr(L, s->lhs);
        /* Triton's must_use_result on tl.advance (not on the method): a dropped result is a mistake */
        if (v->kind == CV_BLOCKPTR && s->lhs->kind == N_CALL) {
            Node *f = s->lhs->lhs;
            CVal *fn = f->kind == N_NAME || f->kind == N_ATTR ? lower_expr(L, f) : NULL;
            if (fn && fn->kind == CV_BUILTIN && !strcmp(fn->s, "tl.advance"))
                lower_error(L, s->lhs->loc, "The result of tl.advance is not being used. Note that tl.advance does "
                            "not have any side effects. To move the block pointer, you need to assign the result "
                            "of tl.advance to a variable.");
        }
        break;
    }
    case N_ASSIGN: {
        CVal *v = lower_expr(L, s->rhs);
        for (int i = 0; i < s->items.len; i++)
            assign_target(L, s->items.data[i], v);
        break;
    }
    case N_ANNASSIGN:
        if (s->rhs) {
            CVal *v = lower_expr(L, s->rhs);
            if (is_constexpr_annotation(L, s->ann) && v->kind == CV_VALUE)
                lower_error(L, s->rhs->loc, "a tl.constexpr variable needs a translation-time value");
            assign_target(L, s->lhs, v);
        }
        break;
    case N_AUGASSIGN: {
        if (s->lhs->kind != N_NAME)
            lower_error(L, s->lhs->loc, "augmented assignment needs a plain name");
        CVal *cur = lower_expr(L, s->lhs);
        CVal *rhs = lower_expr(L, s->rhs);
        assign_target(L, s->lhs, lower_binop(L, s->op, cur, rhs, s->loc));
        break;
    }
    case N_IF: lower_if(L, s); break;
    case N_FOR: L->loops++, lower_for(L, s), L->loops--; break;
    case N_WHILE: L->loops++, lower_while(L, s), L->loops--; break;
    case N_RETURN: lower_return(L, s); break;
    case N_PASS: break;
    case N_BREAK: lower_error(L, s->loc, "'break' is not supported in kernels (Triton does not support it)");
    case N_CONTINUE: lower_error(L, s->loc, "'continue' is not supported in kernels (Triton does not support it)");
    case N_ASSERT: {
        CVal *c = lower_expr(L, s->cond);
        if (c->kind != CV_VALUE && !cv_truthy(L, c, s->cond->loc))
            lower_error(L, s->loc, "assertion failed at translation time");
        break; /* a runtime assert is tl.device_assert: compiled out without debug */
    }
    case N_RAISE: raise_reached(L, s);
    /* the parser builds statements only of the kinds above */
    default: BUG("lower_stmt: %s is not a statement", node_kind_name(s->kind));
    }
    L->stmt = saved_stmt;
    L->nest--;
}

void lower_body(Lower *L, NodeList *body)
{
    const Rest *up = L->rest;
    for (int i = 0; i < body->len && !L->returned; i++) {
        Rest rest = {body, i + 1, up};
        L->rest = &rest;
        lower_stmt(L, body->data[i]);
    }
    L->rest = up;
}

/* ---- helper inlining ------------------------------------------------------------- */

CVal *lower_inline_call(Lower *L, FuncDef *fd, Node *call, CVal **args, int nargs)
{
    return inline_call(L, fd, call, args, nargs, NULL, NULL, 0);
}

static CVal *inline_call(Lower *L, FuncDef *fd, Node *call, CVal **args, int nargs,
                         const char **kwn, CVal **kwv, int nkw)
{
    for (int i = 0; i < L->call_stack.len; i++)
        if (!strcmp(L->call_stack.data[i], fd->name))
            lower_error(L, call->loc, "recursive call of '%s' is not supported (helpers are inlined)", fd->name);
    if (L->call_stack.len >= 64)
        lower_error(L, call->loc, "helper calls nested too deeply (limit 64)");
    Env *env = NEW(L->a, Env);
    int np = fd->params.len;
    CVal **bound = NEW_ARRAY(L->a, CVal *, np + 1);
    if (nargs > np)
        lower_error(L, call->loc, "%s() takes %d arguments but %d were given", fd->name, np, nargs);
    for (int i = 0; i < nargs; i++)
        bound[i] = args[i];
    for (int k = 0; k < nkw; k++) {
        int f = -1;
        for (int i = 0; i < np; i++)
            if (!strcmp(fd->params.data[i].name, kwn[k]))
                f = i;
        if (f < 0)
            lower_error(L, call->kwargs.data[k].loc, "%s() got an unexpected keyword argument '%s'", fd->name, kwn[k]);
        if (bound[f])
            lower_error(L, call->kwargs.data[k].loc, "%s() got multiple values for argument '%s'", fd->name, kwn[k]);
        bound[f] = kwv[k];
    }
    /* defaults are evaluated in the scope of the helper's module, and so is its body */
    Env *saved_env = L->env;
    Module *saved_module = L->m;
    L->m = fd->module ? fd->module : L->m;
    for (int i = 0; i < np; i++) {
        Param *p = &fd->params.data[i];
        if (!bound[i]) {
            if (!p->default_value)
                lower_error(L, call->loc, "%s() is missing the argument '%s'", fd->name, p->name);
            L->env = NEW(L->a, Env);
            bound[i] = lower_expr(L, p->default_value);
            L->env = saved_env;
        }
        /* a tl.constexpr annotation on a helper's parameter does not make a runtime
         * argument constant: Triton 3.6 passes the value on (06-fused-attention's
         * _attn_fwd_inner takes its offs_m tile that way), and so does tilec */
        env_set(L, env, p->name, bound[i]);
    }
    vec_push(L->a, &L->call_stack, fd->name);
    bool saved_helper = L->in_helper, saved_returned = L->returned;
    CVal *saved_ret = L->ret;
    const char *saved_name = L->helper;
    int saved_line = L->call_line;
    L->helper = fd->name;
    L->call_line = L->stmt ? L->stmt->loc.line : call->loc.line;
    const Rest *saved_rest = L->rest;
    int saved_loops = L->loops;
    L->env = env;
    L->in_helper = true;
    L->returned = false;
    L->ret = NULL;
    L->rest = NULL;
    L->loops = 0;
    lower_body(L, &fd->body);
    L->rest = saved_rest;
    L->loops = saved_loops;
    CVal *r = L->ret ? L->ret : cv_none(L);
    L->env = saved_env;
    L->helper = saved_name;
    L->call_line = saved_line;
    L->in_helper = saved_helper;
    L->returned = saved_returned;
    L->ret = saved_ret;
    L->m = saved_module;
    L->call_stack.len--;
    return r;
}

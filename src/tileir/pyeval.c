/*
 * pyeval.c — a small evaluator for the constant Python that decorator
 * arguments are built with (see pyeval.h).  Unknown is a value, not an
 * error: every operation on an unknown operand gives unknown.
 */
#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include "pyeval.h"

#define PY_STEP_BUDGET 200000 /* nodes evaluated per translation */
#define PY_MAX_LIST 65536      /* longest list a builtin builds */
#define PY_MAX_DEPTH 64        /* nested calls */

typedef struct PyBinding {
    const char *name;
    PyValue *val;
} PyBinding;

struct PyScope {
    PyScope *up;
    Vec(PyBinding) b;
};

struct PyEval {
    Ctx *ctx;
    Arena *a;
    const Module *m;
    long steps;
    int depth;
    PyValue unknown, none;
};

typedef enum Flow { FLOW_NEXT, FLOW_RETURN, FLOW_BREAK, FLOW_CONTINUE, FLOW_UNKNOWN } Flow;

static PyValue *eval(PyEval *e, PyScope *s, Node *n, int line);

/* ---- values ------------------------------------------------------------ */

static PyValue *val(PyEval *e, PyKind k)
{
    PyValue *v = NEW(e->a, PyValue);
    v->kind = k;
    return v;
}

PyValue *py_unknown(PyEval *e) { return &e->unknown; }
PyValue *py_none(PyEval *e) { return &e->none; }
PyValue *py_int(PyEval *e, int64_t i) { PyValue *v = val(e, PY_INT); v->i = i; return v; }
PyValue *py_float(PyEval *e, double f) { PyValue *v = val(e, PY_FLOAT); v->f = f; return v; }
PyValue *py_bool(PyEval *e, bool b) { PyValue *v = val(e, PY_BOOL); v->i = b; return v; }
PyValue *py_str(PyEval *e, const char *s) { PyValue *v = val(e, PY_STR); v->s = s; return v; }
PyValue *py_dict_new(PyEval *e) { return val(e, PY_DICT); }

static bool is_num(const PyValue *v) { return v->kind == PY_INT || v->kind == PY_BOOL || v->kind == PY_FLOAT; }
static bool is_seq(const PyValue *v) { return v->kind == PY_LIST || v->kind == PY_TUPLE; }
static double num(const PyValue *v) { return v->kind == PY_FLOAT ? v->f : (double)v->i; }

static bool equal(const PyValue *a, const PyValue *b)
{
    if (is_num(a) && is_num(b))
        return num(a) == num(b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case PY_NONE: return true;
    case PY_STR: return !strcmp(a->s, b->s);
    case PY_LIST: case PY_TUPLE:
        if (a->items.len != b->items.len)
            return false;
        for (int i = 0; i < a->items.len; i++)
            if (!equal(a->items.data[i], b->items.data[i]))
                return false;
        return true;
    default: return a == b;
    }
}

PyValue *py_dict_get(const PyValue *dict, const char *key)
{
    for (int i = dict->items.len - 1; i >= 0; i--)
        if (dict->items.data[i]->kind == PY_STR && !strcmp(dict->items.data[i]->s, key))
            return dict->vals.data[i];
    return NULL;
}

static void dict_put(PyEval *e, PyValue *dict, PyValue *k, PyValue *v)
{
    for (int i = 0; i < dict->items.len; i++)
        if (equal(dict->items.data[i], k)) {
            dict->vals.data[i] = v;
            return;
        }
    vec_push(e->a, &dict->items, k);
    vec_push(e->a, &dict->vals, v);
}

void py_dict_set(PyEval *e, PyValue *dict, const char *key, PyValue *v) { dict_put(e, dict, py_str(e, key), v); }

/* 1 true, 0 false, -1 unknown */
static int truth(const PyValue *v)
{
    switch (v->kind) {
    case PY_NONE: return 0;
    case PY_BOOL: case PY_INT: return v->i != 0;
    case PY_FLOAT: return v->f != 0;
    case PY_STR: return v->s[0] != 0;
    case PY_LIST: case PY_TUPLE: case PY_DICT: return v->items.len != 0;
    case PY_UNKNOWN: return -1;
    default: return 1;
    }
}

static PyValue *seq(PyEval *e, PyKind k, PyValues items)
{
    PyValue *v = val(e, k);
    v->items = items;
    return v;
}

/* The elements an iteration visits; false when unknown. */
static bool elements(const PyValue *v, PyValues *out)
{
    if (is_seq(v) || v->kind == PY_DICT) {
        *out = v->items;
        return true;
    }
    return false;
}

/* ---- scopes ------------------------------------------------------------ */

static void bind(PyEval *e, PyScope *s, const char *name, PyValue *v)
{
    for (int i = 0; i < s->b.len; i++)
        if (!strcmp(s->b.data[i].name, name)) {
            s->b.data[i].val = v;
            return;
        }
    PyBinding b = {name, v};
    vec_push(e->a, &s->b, b);
}

/* Bind a for/assignment target; false if its shape does not match. */
static bool bind_target(PyEval *e, PyScope *s, Node *t, PyValue *v)
{
    if (t->kind == N_NAME) {
        bind(e, s, t->name, v);
        return true;
    }
    if (t->kind != N_TUPLE && t->kind != N_LIST)
        return false;
    if (!is_seq(v) || v->items.len != t->items.len)
        return false;
    for (int i = 0; i < t->items.len; i++)
        if (!bind_target(e, s, t->items.data[i], v->items.data[i]))
            return false;
    return true;
}

static PyValue *builtin(PyEval *e, const char *name)
{
    PyValue *v = val(e, PY_BUILTIN);
    v->s = name;
    return v;
}

static const char *const builtin_names[] = {
    "range", "len", "min", "max", "sum", "all", "any", "int", "float", "str", "bool", "list", "tuple",
    "dict", "sorted", "reversed", "zip", "enumerate", "abs", "product", "Config", "next_power_of_2", "cdiv",
};

/* Names: the local scopes, then module globals assigned above `line`, then defs, then builtins. */
static PyValue *lookup(PyEval *e, PyScope *s, const char *name, int line)
{
    for (; s; s = s->up)
        for (int i = s->b.len - 1; i >= 0; i--)
            if (!strcmp(s->b.data[i].name, name))
                return s->b.data[i].val;
    for (int i = e->m->globals.len - 1; i >= 0; i--) {
        const Global *g = &e->m->globals.data[i];
        if (g->loc.line < line && !strcmp(g->name, name))
            return g->value ? eval(e, NULL, g->value, g->loc.line) : py_unknown(e);
    }
    for (int i = e->m->host_funcs.len - 1; i >= 0; i--)
        if (!strcmp(e->m->host_funcs.data[i]->name, name)) {
            PyValue *f = val(e, PY_FUNC);
            f->func = e->m->host_funcs.data[i];
            return f;
        }
    for (size_t i = 0; i < ARRAY_LEN(builtin_names); i++)
        if (!strcmp(builtin_names[i], name))
            return builtin(e, builtin_names[i]);
    return py_unknown(e);
}

/* ---- operators --------------------------------------------------------- */

static PyValue *arith(PyEval *e, TokenKind op, PyValue *a, PyValue *b)
{
    if (op == TOK_PLUS && a->kind == b->kind && (is_seq(a) || a->kind == PY_STR)) {
        if (a->kind == PY_STR)
            return py_str(e, arena_printf(e->a, "%s%s", a->s, b->s));
        PyValues items = {0};
        for (int i = 0; i < a->items.len; i++)
            vec_push(e->a, &items, a->items.data[i]);
        for (int i = 0; i < b->items.len; i++)
            vec_push(e->a, &items, b->items.data[i]);
        return seq(e, a->kind, items);
    }
    if (op == TOK_STAR && is_seq(a) && b->kind == PY_INT && b->i * a->items.len <= PY_MAX_LIST) {
        PyValues items = {0};
        for (int64_t r = 0; r < b->i; r++)
            for (int i = 0; i < a->items.len; i++)
                vec_push(e->a, &items, a->items.data[i]);
        return seq(e, a->kind, items);
    }
    if (!is_num(a) || !is_num(b))
        return py_unknown(e);
    if (a->kind != PY_FLOAT && b->kind != PY_FLOAT && op != TOK_SLASH) {
        int64_t x = a->i, y = b->i, r;
        switch (op) { /* Python ints do not overflow; past int64 they are unknown here */
        case TOK_PLUS: return __builtin_add_overflow(x, y, &r) ? py_unknown(e) : py_int(e, r);
        case TOK_MINUS: return __builtin_sub_overflow(x, y, &r) ? py_unknown(e) : py_int(e, r);
        case TOK_STAR: return __builtin_mul_overflow(x, y, &r) ? py_unknown(e) : py_int(e, r);
        case TOK_DSLASH: case TOK_PERCENT: {
            if (!y || (x == INT64_MIN && y == -1))
                return py_unknown(e);
            int64_t q = x / y, m = x % y;
            if (m && ((m < 0) != (y < 0)))
                q--, m += y;
            return py_int(e, op == TOK_DSLASH ? q : m);
        }
        case TOK_DSTAR: {
            if (y < 0 || y > 62)
                return py_unknown(e);
            int64_t p = 1;
            for (int64_t k = 0; k < y; k++)
                if (__builtin_mul_overflow(p, x, &p))
                    return py_unknown(e);
            return py_int(e, p);
        }
        case TOK_LSHIFT: return y >= 0 && y < 63 && x >= 0 && x <= (INT64_MAX >> y) ? py_int(e, x << y) : py_unknown(e);
        case TOK_RSHIFT: return y >= 0 && y < 63 ? py_int(e, x >> y) : py_unknown(e);
        case TOK_AMP: return py_int(e, x & y);
        case TOK_PIPE: return py_int(e, x | y);
        case TOK_CARET: return py_int(e, x ^ y);
        default: return py_unknown(e);
        }
    }
    double x = num(a), y = num(b);
    switch (op) {
    case TOK_PLUS: return py_float(e, x + y);
    case TOK_MINUS: return py_float(e, x - y);
    case TOK_STAR: return py_float(e, x * y);
    case TOK_SLASH: return y != 0 ? py_float(e, x / y) : py_unknown(e);
    case TOK_DSLASH: return y != 0 ? py_float(e, floor(x / y)) : py_unknown(e);
    case TOK_DSTAR: return py_float(e, pow(x, y));
    default: return py_unknown(e);
    }
}

/* 1 / 0, or -1 when unknown */
static int compare(TokenKind op, bool negated, const PyValue *a, const PyValue *b)
{
    if (a->kind == PY_UNKNOWN || b->kind == PY_UNKNOWN)
        return -1;
    int r;
    switch (op) {
    case TOK_EQ: return equal(a, b);
    case TOK_NE: return !equal(a, b);
    case TOK_IS: r = (a->kind == PY_NONE && b->kind == PY_NONE) || a == b ||
                     (a->kind == PY_BOOL && b->kind == PY_BOOL && a->i == b->i);
        return negated ? !r : r;
    case TOK_IN:
        if (b->kind == PY_STR && a->kind == PY_STR)
            r = strstr(b->s, a->s) != NULL;
        else if (is_seq(b) || b->kind == PY_DICT) {
            r = 0;
            for (int i = 0; i < b->items.len && !r; i++)
                r = equal(a, b->items.data[i]);
        } else
            return -1;
        return negated ? !r : r;
    default: break;
    }
    if (a->kind == PY_STR && b->kind == PY_STR) {
        int c = strcmp(a->s, b->s);
        return op == TOK_LT ? c < 0 : op == TOK_LE ? c <= 0 : op == TOK_GT ? c > 0 : c >= 0;
    }
    if (!is_num(a) || !is_num(b))
        return -1;
    double x = num(a), y = num(b);
    return op == TOK_LT ? x < y : op == TOK_LE ? x <= y : op == TOK_GT ? x > y : x >= y;
}

static PyValue *subscript(PyEval *e, PyValue *base, PyValue *idx)
{
    if (base->kind == PY_DICT) {
        for (int i = base->items.len - 1; i >= 0; i--)
            if (equal(base->items.data[i], idx))
                return base->vals.data[i];
        return py_unknown(e);
    }
    if (is_seq(base) && idx->kind == PY_INT) {
        int64_t i = idx->i < 0 ? idx->i + base->items.len : idx->i;
        return i >= 0 && i < base->items.len ? base->items.data[i] : py_unknown(e);
    }
    return py_unknown(e);
}

static PyValue *slice(PyEval *e, PyValue *base, PyValue *lo, PyValue *hi)
{
    if (!is_seq(base) || (lo && lo->kind != PY_INT) || (hi && hi->kind != PY_INT))
        return py_unknown(e);
    int64_t n = base->items.len;
    int64_t a = lo ? (lo->i < 0 ? lo->i + n : lo->i) : 0, b = hi ? (hi->i < 0 ? hi->i + n : hi->i) : n;
    a = a < 0 ? 0 : a > n ? n : a;
    b = b < 0 ? 0 : b > n ? n : b;
    PyValues items = {0};
    for (int64_t i = a; i < b; i++)
        vec_push(e->a, &items, base->items.data[i]);
    return seq(e, base->kind, items);
}

/* ---- calls ------------------------------------------------------------- */

typedef struct Args {
    PyValue **pos;
    int npos;
    const char **kwn;
    PyValue **kwv;
    int nkw;
} Args;

static PyValue *kwarg(const Args *a, const char *name)
{
    for (int i = 0; i < a->nkw; i++)
        if (a->kwn[i] && !strcmp(a->kwn[i], name))
            return a->kwv[i];
    return NULL;
}

static PyValue *call_value(PyEval *e, PyValue *fn, const Args *a);

static PyValue *make_range(PyEval *e, const Args *a)
{
    int64_t lo = 0, hi, step = 1;
    for (int i = 0; i < a->npos; i++)
        if (a->pos[i]->kind != PY_INT)
            return py_unknown(e);
    if (a->npos == 1)
        hi = a->pos[0]->i;
    else if (a->npos == 2 || a->npos == 3) {
        lo = a->pos[0]->i;
        hi = a->pos[1]->i;
        step = a->npos == 3 ? a->pos[2]->i : 1;
    } else
        return py_unknown(e);
    int64_t span;
    if (!step || __builtin_sub_overflow(hi, lo, &span) || span / step > PY_MAX_LIST || (step == -1 && span == INT64_MIN))
        return py_unknown(e);
    PyValues items = {0};
    for (int64_t i = lo; step > 0 ? i < hi : i > hi;) {
        vec_push(e->a, &items, py_int(e, i));
        if (__builtin_add_overflow(i, step, &i))
            break;
    }
    return seq(e, PY_LIST, items);
}

/* zip / itertools.product over the argument sequences */
static PyValue *combine(PyEval *e, const Args *a, bool product)
{
    PyValues lists[16];
    if (a->npos > 16)
        return py_unknown(e);
    for (int i = 0; i < a->npos; i++)
        if (!elements(a->pos[i], &lists[i]))
            return py_unknown(e);
    PyValues out = {0};
    if (!product) {
        int n = a->npos ? INT_MAX : 0;
        for (int i = 0; i < a->npos; i++)
            n = lists[i].len < n ? lists[i].len : n;
        for (int k = 0; k < n; k++) {
            PyValues t = {0};
            for (int i = 0; i < a->npos; i++)
                vec_push(e->a, &t, lists[i].data[k]);
            vec_push(e->a, &out, seq(e, PY_TUPLE, t));
        }
        return seq(e, PY_LIST, out);
    }
    int64_t total = 1;
    for (int i = 0; i < a->npos; i++)
        if ((total *= lists[i].len) > PY_MAX_LIST)
            return py_unknown(e);
    for (int64_t k = 0; k < total; k++) {
        PyValues t = {0};
        int64_t rest = k;
        PyValue *tuple_items[16];
        for (int i = a->npos - 1; i >= 0; i--) {
            tuple_items[i] = lists[i].data[rest % lists[i].len];
            rest /= lists[i].len;
        }
        for (int i = 0; i < a->npos; i++)
            vec_push(e->a, &t, tuple_items[i]);
        vec_push(e->a, &out, seq(e, PY_TUPLE, t));
    }
    return seq(e, PY_LIST, out);
}

static PyValue *reduce(PyEval *e, const char *name, PyValue *const *xs, int n)
{
    bool minmax = !strcmp(name, "min") || !strcmp(name, "max");
    PyValue *acc = minmax ? NULL : !strcmp(name, "sum") ? py_int(e, 0) : py_bool(e, !strcmp(name, "all"));
    for (int i = 0; i < n; i++) {
        PyValue *x = xs[i];
        if (minmax) {
            int c = acc ? compare(TOK_LT, false, x, acc) : 1;
            if (c < 0)
                return py_unknown(e);
            if (!acc || (!strcmp(name, "min") ? c : compare(TOK_GT, false, x, acc) == 1))
                acc = x;
        } else if (!strcmp(name, "sum")) {
            acc = arith(e, TOK_PLUS, acc, x);
        } else {
            int t = truth(x);
            if (t < 0)
                return py_unknown(e);
            if (!strcmp(name, "all") ? !t : t)
                return py_bool(e, t);
        }
    }
    return acc ? acc : py_unknown(e);
}

static PyValue *call_builtin(PyEval *e, const char *name, const Args *a)
{
    PyValue *x = a->npos ? a->pos[0] : NULL;
    PyValues xs = {0};
    if (!strcmp(name, "Config")) {
        PyValue *c = val(e, PY_CONFIG);
        c->kwargs = x && x->kind == PY_DICT ? x : kwarg(a, "kwargs");
        if (!c->kwargs || c->kwargs->kind != PY_DICT)
            return py_unknown(e);
        c->opts = py_dict_new(e);
        for (int i = 0; i < a->nkw; i++)
            if (a->kwn[i])
                py_dict_set(e, c->opts, a->kwn[i], a->kwv[i]);
        return c;
    }
    if (!strcmp(name, "range"))
        return make_range(e, a);
    if (!strcmp(name, "zip") || !strcmp(name, "product"))
        return combine(e, a, name[0] == 'p');
    if (!strcmp(name, "dict")) {
        PyValue *d = py_dict_new(e);
        if (x && x->kind == PY_DICT)
            for (int i = 0; i < x->items.len; i++)
                dict_put(e, d, x->items.data[i], x->vals.data[i]);
        for (int i = 0; i < a->nkw; i++)
            if (a->kwn[i])
                py_dict_set(e, d, a->kwn[i], a->kwv[i]);
        return d;
    }
    if ((!strcmp(name, "min") || !strcmp(name, "max")) && a->npos > 1)
        return reduce(e, name, a->pos, a->npos);
    if (a->npos == 2 && !strcmp(name, "cdiv") && a->pos[0]->kind == PY_INT && a->pos[1]->kind == PY_INT &&
        a->pos[1]->i > 0)
        return py_int(e, (a->pos[0]->i + a->pos[1]->i - 1) / a->pos[1]->i);
    if (a->npos != 1)
        return a->npos == 0 && !strcmp(name, "list") ? seq(e, PY_LIST, xs) : py_unknown(e);
    if (!strcmp(name, "int") && is_num(x))
        return py_int(e, x->kind == PY_FLOAT ? (int64_t)x->f : x->i);
    if (!strcmp(name, "float") && is_num(x))
        return py_float(e, num(x));
    if (!strcmp(name, "bool"))
        return truth(x) < 0 ? py_unknown(e) : py_bool(e, truth(x));
    if (!strcmp(name, "abs") && is_num(x))
        return x->kind == PY_FLOAT ? py_float(e, fabs(x->f)) : py_int(e, x->i < 0 ? -x->i : x->i);
    if (!strcmp(name, "str") && x->kind == PY_STR)
        return x;
    if (!strcmp(name, "str") && (x->kind == PY_INT))
        return py_str(e, arena_printf(e->a, "%lld", (long long)x->i));
    if (!strcmp(name, "next_power_of_2") && x->kind == PY_INT) {
        int64_t p = 1;
        while (p < x->i && p < ((int64_t)1 << 62))
            p <<= 1;
        return py_int(e, p);
    }
    if (!elements(x, &xs))
        return py_unknown(e);
    if (!strcmp(name, "len"))
        return py_int(e, xs.len);
    if (!strcmp(name, "list") || !strcmp(name, "tuple"))
        return seq(e, name[0] == 'l' ? PY_LIST : PY_TUPLE, xs);
    if (!strcmp(name, "reversed") || !strcmp(name, "enumerate")) {
        PyValues out = {0};
        for (int i = 0; i < xs.len; i++) {
            if (name[0] == 'r') {
                vec_push(e->a, &out, xs.data[xs.len - 1 - i]);
                continue;
            }
            PyValues t = {0};
            vec_push(e->a, &t, py_int(e, i));
            vec_push(e->a, &t, xs.data[i]);
            vec_push(e->a, &out, seq(e, PY_TUPLE, t));
        }
        return seq(e, PY_LIST, out);
    }
    if (!strcmp(name, "sorted")) {
        if (a->nkw)
            return py_unknown(e);
        PyValues out = {0};
        for (int i = 0; i < xs.len; i++) {
            vec_push(e->a, &out, xs.data[i]);
            for (int k = out.len - 1; k > 0; k--) { /* insertion sort: stable, lists are short */
                int c = compare(TOK_LT, false, out.data[k], out.data[k - 1]);
                if (c < 0)
                    return py_unknown(e);
                if (!c)
                    break;
                PyValue *t = out.data[k];
                out.data[k] = out.data[k - 1];
                out.data[k - 1] = t;
            }
        }
        return seq(e, PY_LIST, out);
    }
    return reduce(e, name, xs.data, xs.len);
}

static Flow exec_block(PyEval *e, PyScope *s, NodeList *body, PyValue **ret);

static PyValue *call_function(PyEval *e, PyValue *fn, const Args *a)
{
    Vec(Param) *params = fn->kind == PY_LAMBDA ? (void *)&fn->node->params : (void *)&fn->func->params;
    PyScope *s = NEW(e->a, PyScope);
    s->up = fn->kind == PY_LAMBDA ? fn->scope : NULL;
    int used = 0;
    for (int i = 0; i < params->len; i++) {
        Param *p = &params->data[i];
        if (p->star || p->dstar)
            return py_unknown(e);
        PyValue *v = i < a->npos ? a->pos[used++] : kwarg(a, p->name);
        if (!v && p->default_value)
            v = eval(e, NULL, p->default_value, p->loc.line);
        if (!v)
            return py_unknown(e);
        bind(e, s, p->name, v);
    }
    if (used < a->npos)
        return py_unknown(e);
    if (fn->kind == PY_LAMBDA)
        return eval(e, s, fn->node->lhs, INT_MAX);
    PyValue *ret = py_none(e);
    Flow f = exec_block(e, s, &fn->func->body, &ret);
    return f == FLOW_UNKNOWN || f == FLOW_BREAK || f == FLOW_CONTINUE ? py_unknown(e) : ret;
}

static PyValue *call_value(PyEval *e, PyValue *fn, const Args *a)
{
    if (fn->kind == PY_BUILTIN)
        return call_builtin(e, fn->s, a);
    if ((fn->kind != PY_LAMBDA && fn->kind != PY_FUNC) || e->depth >= PY_MAX_DEPTH)
        return py_unknown(e);
    e->depth++;
    PyValue *r = call_function(e, fn, a);
    e->depth--;
    return r;
}

PyValue *py_call(PyEval *e, PyValue *fn, PyValue **args, int nargs)
{
    Args a = {args, nargs, NULL, NULL, 0};
    return call_value(e, fn, &a);
}

/* list.append / list.extend / dict.get / dict.items / keys / values */
static PyValue *call_method(PyEval *e, PyValue *self, const char *name, const Args *a)
{
    if (self->kind == PY_LIST && a->npos == 1 && !strcmp(name, "append")) {
        vec_push(e->a, &self->items, a->pos[0]);
        return py_none(e);
    }
    PyValues xs;
    if (self->kind == PY_LIST && a->npos == 1 && !strcmp(name, "extend") && elements(a->pos[0], &xs)) {
        for (int i = 0; i < xs.len; i++)
            vec_push(e->a, &self->items, xs.data[i]);
        return py_none(e);
    }
    if (self->kind != PY_DICT)
        return py_unknown(e);
    if (!strcmp(name, "get") && (a->npos == 1 || a->npos == 2)) {
        PyValue *v = subscript(e, self, a->pos[0]);
        return v->kind == PY_UNKNOWN ? (a->npos == 2 ? a->pos[1] : py_none(e)) : v;
    }
    PyValues out = {0};
    for (int i = 0; i < self->items.len && a->npos == 0; i++) {
        if (!strcmp(name, "keys"))
            vec_push(e->a, &out, self->items.data[i]);
        else if (!strcmp(name, "values"))
            vec_push(e->a, &out, self->vals.data[i]);
        else if (!strcmp(name, "items")) {
            PyValues t = {0};
            vec_push(e->a, &t, self->items.data[i]);
            vec_push(e->a, &t, self->vals.data[i]);
            vec_push(e->a, &out, seq(e, PY_TUPLE, t));
        } else
            return py_unknown(e);
    }
    return seq(e, PY_LIST, out);
}

static PyValue *eval_call(PyEval *e, PyScope *s, Node *n, int line)
{
    Args a = {0};
    a.pos = NEW_ARRAY(e->a, PyValue *, n->items.len + 1);
    a.kwn = NEW_ARRAY(e->a, const char *, n->kwargs.len + 1);
    a.kwv = NEW_ARRAY(e->a, PyValue *, n->kwargs.len + 1);
    for (int i = 0; i < n->items.len; i++) {
        Node *arg = n->items.data[i];
        if (arg->kind == N_STARRED)
            return py_unknown(e);
        a.pos[a.npos++] = eval(e, s, arg, line);
    }
    for (int i = 0; i < n->kwargs.len; i++) {
        if (!n->kwargs.data[i].name)
            return py_unknown(e);
        a.kwn[a.nkw] = n->kwargs.data[i].name;
        a.kwv[a.nkw++] = eval(e, s, n->kwargs.data[i].value, line);
    }
    Node *f = n->lhs;
    if (f->kind == N_ATTR) {
        /* module functions by their last name: triton.Config, itertools.product, triton.cdiv */
        if (f->lhs->kind == N_NAME && lookup(e, s, f->lhs->name, line)->kind == PY_UNKNOWN) {
            for (size_t i = 0; i < ARRAY_LEN(builtin_names); i++)
                if (!strcmp(builtin_names[i], f->name))
                    return call_builtin(e, f->name, &a);
            return py_unknown(e);
        }
        return call_method(e, eval(e, s, f->lhs, line), f->name, &a);
    }
    return call_value(e, eval(e, s, f, line), &a);
}

/* ---- comprehensions ---------------------------------------------------- */

/* Run clause k of a comprehension; false when unknown. */
static bool comp_clause(PyEval *e, PyScope *s, Node *n, int k, PyValue *out, int line)
{
    if (k == n->items.len) {
        PyValue *x = eval(e, s, n->lhs, line);
        if (n->rhs)
            dict_put(e, out, x, eval(e, s, n->rhs, line));
        else
            vec_push(e->a, &out->items, x);
        return true;
    }
    Node *c = n->items.data[k];
    PyValues xs;
    if (!elements(eval(e, s, c->iter, line), &xs))
        return false;
    for (int i = 0; i < xs.len; i++) {
        if (!bind_target(e, s, c->lhs, xs.data[i]))
            return false;
        bool keep = true;
        for (int j = 0; j < c->body.len && keep; j++) {
            int t = truth(eval(e, s, c->body.data[j], line));
            if (t < 0)
                return false;
            keep = t;
        }
        if (keep && !comp_clause(e, s, n, k + 1, out, line))
            return false;
    }
    return true;
}

static PyValue *eval_comp(PyEval *e, PyScope *s, Node *n, int line)
{
    PyScope *inner = NEW(e->a, PyScope);
    inner->up = s;
    PyValue *out = val(e, n->rhs ? PY_DICT : PY_LIST); /* generators and sets: a list */
    return comp_clause(e, inner, n, 0, out, line) ? out : py_unknown(e);
}

/* ---- expressions ------------------------------------------------------- */

static PyValue *eval_list(PyEval *e, PyScope *s, Node *n, PyKind k, int line)
{
    PyValues items = {0};
    for (int i = 0; i < n->items.len; i++) {
        if (n->items.data[i]->kind == N_STARRED)
            return py_unknown(e);
        vec_push(e->a, &items, eval(e, s, n->items.data[i], line));
    }
    return seq(e, k, items);
}

static PyValue *eval_node(PyEval *e, PyScope *s, Node *n, int line)
{
    switch (n->kind) {
    case N_NAME: return lookup(e, s, n->name, line);
    case N_INT: return n->big ? py_unknown(e) : py_int(e, n->ival);
    case N_FLOAT: return py_float(e, n->fval);
    case N_STR: return n->fstring ? py_unknown(e) : py_str(e, arena_strndup(e->a, n->str, (size_t)n->str_len));
    case N_TRUE: return py_bool(e, true);
    case N_FALSE: return py_bool(e, false);
    case N_NONE: return py_none(e);
    case N_LIST: return eval_list(e, s, n, PY_LIST, line);
    case N_TUPLE: return eval_list(e, s, n, PY_TUPLE, line);
    case N_DICT: {
        PyValue *d = py_dict_new(e);
        for (int i = 0; i < n->items.len; i++)
            dict_put(e, d, eval(e, s, n->items.data[i], line), eval(e, s, n->values.data[i], line));
        return d;
    }
    case N_COMP: return eval_comp(e, s, n, line);
    case N_BINOP: return arith(e, n->op, eval(e, s, n->lhs, line), eval(e, s, n->rhs, line));
    case N_UNARY: {
        PyValue *x = eval(e, s, n->lhs, line);
        if (n->op == TOK_NOT)
            return truth(x) < 0 ? py_unknown(e) : py_bool(e, !truth(x));
        if (x->kind == PY_FLOAT)
            return n->op == TOK_MINUS ? py_float(e, -x->f) : n->op == TOK_PLUS ? x : py_unknown(e);
        if (x->kind != PY_INT && x->kind != PY_BOOL)
            return py_unknown(e);
        if (n->op == TOK_MINUS && x->i == INT64_MIN)
            return py_unknown(e);
        return py_int(e, n->op == TOK_MINUS ? -x->i : n->op == TOK_TILDE ? ~x->i : x->i);
    }
    case N_BOOLOP: {
        PyValue *x = eval(e, s, n->lhs, line);
        int t = truth(x);
        if (t < 0)
            return py_unknown(e);
        return (n->op == TOK_AND) == (t == 1) ? eval(e, s, n->rhs, line) : x;
    }
    case N_COMPARE: {
        PyValue *x = eval(e, s, n->lhs, line);
        for (int i = 0; i < n->items.len; i++) {
            PyValue *y = eval(e, s, n->items.data[i], line);
            int c = compare(n->ops.data[i], n->negated.data[i], x, y);
            if (c <= 0)
                return c < 0 ? py_unknown(e) : py_bool(e, false);
            x = y;
        }
        return py_bool(e, true);
    }
    case N_TERNARY: {
        int t = truth(eval(e, s, n->cond, line));
        return t < 0 ? py_unknown(e) : eval(e, s, t ? n->lhs : n->rhs, line);
    }
    case N_SUBSCRIPT: {
        PyValue *base = eval(e, s, n->lhs, line);
        if (n->items.len != 1)
            return py_unknown(e);
        Node *ix = n->items.data[0];
        if (ix->kind == N_SLICE)
            return ix->step ? py_unknown(e)
                            : slice(e, base, ix->lo ? eval(e, s, ix->lo, line) : NULL,
                                    ix->hi ? eval(e, s, ix->hi, line) : NULL);
        return subscript(e, base, eval(e, s, ix, line));
    }
    case N_CALL: return eval_call(e, s, n, line);
    case N_LAMBDA: {
        PyValue *f = val(e, PY_LAMBDA);
        f->node = n;
        f->scope = s;
        return f;
    }
    case N_ATTR: {
        PyValue *x = eval(e, s, n->lhs, line);
        if (x->kind == PY_CONFIG) {
            PyValue *v = py_dict_get(x->opts, n->name);
            return v ? v : !strcmp(n->name, "kwargs") ? x->kwargs : py_unknown(e);
        }
        return py_unknown(e);
    }
    default: return py_unknown(e);
    }
}

static PyValue *eval(PyEval *e, PyScope *s, Node *n, int line)
{
    if (!n || ++e->steps > PY_STEP_BUDGET || e->depth >= PY_MAX_DEPTH)
        return py_unknown(e);
    e->depth++;
    PyValue *v = eval_node(e, s, n, line);
    e->depth--;
    return v;
}

/* ---- statements (bodies of undecorated defs) --------------------------- */

static Flow exec_stmt(PyEval *e, PyScope *s, Node *n, PyValue **ret)
{
    if (++e->steps > PY_STEP_BUDGET)
        return FLOW_UNKNOWN;
    switch (n->kind) {
    case N_EXPR_STMT:
        if (n->lhs->kind == N_STR)
            return FLOW_NEXT; /* docstring */
        return eval(e, s, n->lhs, INT_MAX)->kind == PY_UNKNOWN ? FLOW_UNKNOWN : FLOW_NEXT;
    case N_ASSIGN: {
        PyValue *v = eval(e, s, n->rhs, INT_MAX);
        for (int i = 0; i < n->items.len; i++)
            if (!bind_target(e, s, n->items.data[i], v))
                return FLOW_UNKNOWN;
        return FLOW_NEXT;
    }
    case N_ANNASSIGN:
        return !n->rhs || bind_target(e, s, n->lhs, eval(e, s, n->rhs, INT_MAX)) ? FLOW_NEXT : FLOW_UNKNOWN;
    case N_AUGASSIGN: {
        if (n->lhs->kind != N_NAME)
            return FLOW_UNKNOWN;
        PyValue *cur = eval(e, s, n->lhs, INT_MAX), *rhs = eval(e, s, n->rhs, INT_MAX);
        if (cur->kind == PY_LIST && n->op == TOK_PLUS && elements(rhs, &(PyValues){0})) {
            PyValues xs;
            elements(rhs, &xs);
            for (int i = 0; i < xs.len; i++)
                vec_push(e->a, &cur->items, xs.data[i]);
            return FLOW_NEXT;
        }
        bind(e, s, n->lhs->name, arith(e, n->op, cur, rhs));
        return FLOW_NEXT;
    }
    case N_IF: {
        int t = truth(eval(e, s, n->cond, INT_MAX));
        return t < 0 ? FLOW_UNKNOWN : exec_block(e, s, t ? &n->body : &n->orelse, ret);
    }
    case N_FOR: {
        PyValues xs;
        if (!elements(eval(e, s, n->iter, INT_MAX), &xs))
            return FLOW_UNKNOWN;
        for (int i = 0; i < xs.len; i++) {
            if (!bind_target(e, s, n->lhs, xs.data[i]))
                return FLOW_UNKNOWN;
            Flow f = exec_block(e, s, &n->body, ret);
            if (f == FLOW_BREAK)
                return FLOW_NEXT;
            if (f == FLOW_RETURN || f == FLOW_UNKNOWN)
                return f;
        }
        return exec_block(e, s, &n->orelse, ret);
    }
    case N_RETURN:
        *ret = n->lhs ? eval(e, s, n->lhs, INT_MAX) : py_none(e);
        return FLOW_RETURN;
    case N_PASS: return FLOW_NEXT;
    case N_BREAK: return FLOW_BREAK;
    case N_CONTINUE: return FLOW_CONTINUE;
    default: return FLOW_UNKNOWN;
    }
}

static Flow exec_block(PyEval *e, PyScope *s, NodeList *body, PyValue **ret)
{
    for (int i = 0; i < body->len; i++) {
        Flow f = exec_stmt(e, s, body->data[i], ret);
        if (f != FLOW_NEXT)
            return f;
    }
    return FLOW_NEXT;
}

PyEval *py_new(Ctx *ctx, const Module *m)
{
    PyEval *e = NEW(&ctx->arena, PyEval);
    e->ctx = ctx;
    e->a = &ctx->arena;
    e->m = m;
    e->unknown.kind = PY_UNKNOWN;
    e->none.kind = PY_NONE;
    return e;
}

PyValue *py_eval(PyEval *e, Node *n) { return eval(e, NULL, n, n->loc.line); }

/*
 * builtins.c — the table of builtins (the rows of builtins.h plus the math
 * functions of tir.h), the one argument binder, and the dispatch from a
 * call to its handler.  Every builtin's arguments are bound here, with the
 * same four messages for the same four mistakes; names that are not in the
 * table are reported as unknown, rows marked LATER as not supported yet.
 */
#include "lower_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Builtin {
    const char *name;
    int flags;          /* BI_METHOD */
    BuiltinFn *fn;      /* NULL for a LATER row */
    int data;
    const char *params; /* "pointer, mask=None, ..." */
    const char *later;  /* LATER rows: what is not supported yet */
} Builtin;

#define ROW(nm, fl, handler, d, ps) {.name = nm, .flags = fl, .fn = builtin_##handler, .data = d, .params = ps},
#define LATER_ROW(nm, fl, what) {.name = nm, .flags = fl, .params = "", .later = what},
#define MATH_ROWS(f, e, nm, ps) \
    {.name = "tl." nm, .fn = f, .data = e, .params = ps}, {.name = "libdevice." nm, .fn = f, .data = e, .params = ps},
#define MATH1_ROWS(e, nm, ...) MATH_ROWS(builtin_math1, e, nm, "x")
#define MATH2_ROWS(e, nm, ...) MATH_ROWS(builtin_math2, e, nm, "x, y")

static const Builtin builtins[] = {
    BUILTIN_LIST(ROW, LATER_ROW)
    MATH_LIST(MATH1_ROWS)
    MATH2_LIST(MATH2_ROWS)
    BUILTIN_MATH_ALIASES(MATH1_ROWS, MATH2_ROWS)
};

#undef ROW
#undef LATER_ROW
#undef MATH_ROWS
#undef MATH1_ROWS
#undef MATH2_ROWS

/* The row named prefix + name (the first one: earlier rows win); with
 * `method`, only rows callable as tensor methods. */
static const Builtin *find(const char *prefix, const char *name, bool method)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < ARRAY_LEN(builtins); i++) {
        const Builtin *b = &builtins[i];
        if (!strncmp(b->name, prefix, n) && !strcmp(b->name + n, name) && (!method || (b->flags & BI_METHOD)))
            return b;
    }
    return NULL;
}

/* ---- parameters ------------------------------------------------------------ */

typedef struct BuiltinParam {
    const char *name;
    const char *dflt; /* the default's text; NULL: required */
    bool rest;        /* "*name" */
} BuiltinParam;

/* "pointer, mask=None, *args, hex=False" -> its parameters */
static int parse_params(Lower *L, const char *spec, BuiltinParam **out)
{
    int n = *spec ? 1 : 0;
    for (const char *s = spec; *s; s++)
        n += *s == ',';
    BuiltinParam *p = NEW_ARRAY(L->a, BuiltinParam, n + 1);
    const char *s = spec;
    for (int i = 0; i < n; i++) {
        while (*s == ' ')
            s++;
        p[i].rest = *s == '*';
        s += p[i].rest;
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        p[i].name = arena_strndup(L->a, s, eq ? (size_t)(eq - s) : len);
        p[i].dflt = eq ? arena_strndup(L->a, eq + 1, len - (size_t)(eq + 1 - s)) : NULL;
        s += len + (s[len] == ',');
    }
    *out = p;
    return n;
}

/* A default as the table writes it; NULL for None. */
static CVal *default_value(Lower *L, const char *text)
{
    if (!strcmp(text, "None"))
        return NULL;
    if (!strcmp(text, "True") || !strcmp(text, "False"))
        return cv_bool(L, text[0] == 'T');
    char *end;
    long long i = strtoll(text, &end, 10);
    if (*text && !*end)
        return cv_int(L, i);
    BUG("builtin parameter default '%s' is not None, True, False or an integer", text);
}

/* "no arguments", "2 arguments", "at most 3 arguments": what the positional
 * parameters p[0..n) accept. */
static const char *arity(Lower *L, const BuiltinParam *p, int n)
{
    if (!n)
        return "no arguments";
    bool all_required = true;
    for (int i = 0; i < n; i++)
        all_required &= !p[i].dflt;
    return arena_printf(L->a, "%s%d argument%s", all_required ? "" : "at most ", n, n == 1 ? "" : "s");
}

/* ---- the binder -------------------------------------------------------------- */

/* Binds `self` (a method's receiver, or NULL), the positional arguments and
 * the keyword arguments of c->call to the parameters in `spec`, the way
 * Python binds a call to a signature; fills c->arg, c->at and c->rest_at. */
static void bind(BuiltinCall *c, const char *spec, CVal *self, CVal **args, int nargs, const char **kwn,
                 CVal **kwv, int nkw)
{
    Lower *L = c->L;
    Node *call = c->call;
    BuiltinParam *p;
    int np = parse_params(L, spec, &p);
    int first = self != NULL, rest = -1;
    for (int i = 0; i < np; i++)
        if (p[i].rest)
            rest = i;
    int npos = (rest >= 0 ? rest : np) - first; /* positional parameters after the receiver */
    c->arg = NEW_ARRAY(L->a, CVal *, np + 1);
    c->at = NEW_ARRAY(L->a, Loc, np + 1);
    if (self)
        c->arg[0] = self, c->at[0] = call->loc;
    if (nargs > npos && rest < 0)
        lower_error(L, call->items.data[npos]->loc, "%s takes %s, got %d", c->name, arity(L, p + first, npos), nargs);
    for (int i = 0; i < nargs && i < npos; i++) {
        c->arg[first + i] = args[i];
        c->at[first + i] = call->items.data[i]->loc;
    }
    if (rest >= 0) {
        CVal *t = NEW(L->a, CVal);
        t->kind = CV_TUPLE;
        Loc *at = NEW_ARRAY(L->a, Loc, nargs + 1);
        for (int i = npos; i < nargs; i++) {
            vec_push(L->a, &t->items, args[i]);
            at[i - npos] = call->items.data[i]->loc;
        }
        c->arg[rest] = t;
        c->at[rest] = nargs > npos ? at[0] : call->loc;
        c->rest_at = at;
    }
    for (int k = 0; k < nkw; k++) {
        int found = -1;
        for (int i = 0; i < np; i++)
            if (!p[i].rest && !strcmp(p[i].name, kwn[k]))
                found = i;
        Loc at = call->kwargs.data[k].loc;
        if (found < 0)
            lower_error(L, at, "%s got an unexpected keyword argument '%s'", c->name, kwn[k]);
        if (c->arg[found])
            lower_error(L, at, "%s got multiple values for argument '%s'", c->name, kwn[k]);
        c->arg[found] = kwv[k];
        c->at[found] = at;
    }
    for (int i = 0; i < np; i++) {
        if (!c->at[i].line)
            c->at[i] = call->loc;
        if (p[i].dflt && (!c->arg[i] || c->arg[i]->kind == CV_NONE))
            c->arg[i] = default_value(L, p[i].dflt);
        else if (!c->arg[i])
            lower_error(L, call->loc, "%s is missing its argument '%s'", c->name, p[i].name);
    }
}

/* Binds the call to row b and runs its handler; `name` is for messages. */
static CVal *call_row(Lower *L, const Builtin *b, const char *name, Node *call, CVal *self, CVal **args,
                      int nargs, const char **kwn, CVal **kwv, int nkw)
{
    BuiltinCall c = {.L = L, .name = name, .call = call, .loc = call->loc, .data = b->data};
    bind(&c, b->params, self, args, nargs, kwn, kwv, nkw);
    return b->fn(&c);
}

/* ---- dispatch --------------------------------------------------------------------- */

CVal *lower_builtin_call(Lower *L, const char *name, Node *call, CVal **args, int nargs,
                         const char **kwnames, CVal **kwvals, int nkw)
{
    const Builtin *b = find("", name, false);
    /* Python's builtins are named as Python names them: "abs()" */
    const char *shown = strchr(name, '.') ? name : arena_printf(L->a, "%s()", name);
    if (b && b->later)
        lower_error(L, call->loc, "%s is not supported yet (%s)", shown, b->later);
    if (b)
        return call_row(L, b, shown, call, NULL, args, nargs, kwnames, kwvals, nkw);
#define GONE(nm, instead)                                                                                    \
    if (!strcmp(name, nm))                                                                                   \
        lower_error(L, call->loc, "module 'triton.language' has no attribute '%s' (Triton 3.6 removed it; use %s)", \
                    name + 3, instead);
    BUILTIN_REMOVED(GONE)
#undef GONE
    if (!strncmp(name, "libdevice.", 10))
        lower_error(L, call->loc, "unknown or unsupported math function %s", name);
    if (!strncmp(name, "math.", 5))
        lower_error(L, call->loc, "unsupported function %s", name);
    lower_error(L, call->loc, "unknown function %s", name);
}

CVal **lower_bind_builtin(Lower *L, const char *name, Node *call, CVal **args, int nargs,
                          const char **kwnames, CVal **kwvals, int nkw)
{
    const Builtin *b = find("", name, false);
    if (!b || b->later)
        BUG("lower_bind_builtin: no row for %s", name);
    BuiltinCall c = {.L = L, .name = strchr(name, '.') ? name : arena_printf(L->a, "%s()", name), .call = call,
                     .loc = call->loc, .data = b->data};
    bind(&c, b->params, NULL, args, nargs, kwnames, kwvals, nkw);
    return c.arg;
}

CVal *lower_method_call(Lower *L, CVal *method, Node *call, CVal **args, int nargs,
                        const char **kwnames, CVal **kwvals, int nkw)
{
    const char *m = method->s;
    CVal *self = method->self;
    if (self->kind == CV_DTYPE) {
        const Builtin *b = find("dtype.", m, false);
        if (!b)
            lower_error(L, call->loc, "dtype has no method '%s'", m);
        return call_row(L, b, arena_printf(L->a, "dtype.%s()", m), call, self, args, nargs, kwnames, kwvals, nkw);
    }
    if (self->kind == CV_TENSORDESC) {
        const Builtin *b = find("tensordesc.", m, false);
        if (!b)
            lower_error(L, call->loc, "tensor descriptor has no method '%s'", m);
        if (b->later)
            lower_error(L, call->loc, "tensor descriptor method '.%s()' is not supported yet (%s)", m, b->later);
        return call_row(L, b, arena_printf(L->a, "desc.%s()", m), call, self, args, nargs, kwnames, kwvals, nkw);
    }
    const Builtin *b = find("tensor.", m, false);
    if (!b)
        b = find("tl.", m, true);
    if (!b)
        lower_error(L, call->loc, "tensor has no method '%s' in tilec", m);
    if (b->later)
        lower_error(L, call->loc, "tensor method '.%s()' is not supported yet (%s)", m, b->later);
    return call_row(L, b, arena_printf(L->a, ".%s()", m), call, self, args, nargs, kwnames, kwvals, nkw);
}

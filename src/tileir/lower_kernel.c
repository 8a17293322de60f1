/*
 * lower_kernel.c — which kernel, and with what: the -s signature and -D values
 * read as types and Python values, the decorators (@triton.autotune configs,
 * @triton.heuristics, evaluated as host Python by pyeval.c or left to the
 * command line), the kernel chosen among the file's jit functions, and
 * tir_lower, which specialises it and lowers its body (lower.c).
 */
#include "lower_internal.h"
#include "pyeval.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- specialisation ----------------------------------------------------------------- */

/* An integer written whole in s; *ok false if it is not one, *too_big when it is one that a
 * 64-bit integer cannot hold (strtoll would have clamped it). */
static int64_t parse_int_text(const char *s, bool *ok, bool *too_big)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    bool whole = end != s && *end == 0;
    *too_big = whole && errno == ERANGE;
    *ok = whole && !*too_big;
    return v;
}

/* Where a -D or signature entry's errors point: its own location, else (given on the command
 * line, which has none) `fallback`, the parameter it is for or the kernel's def line. */
static Loc spec_loc(const SpecEntry *e, Loc fallback) { return e->loc.line ? e->loc : fallback; }

/* Integer literals under unary and binary operators only: what int_expression folds. */
static bool int_arithmetic(const Node *n)
{
    switch (n->kind) {
    case N_INT: return true;
    case N_UNARY: return n->op != TOK_NOT && int_arithmetic(n->lhs);
    case N_BINOP: return int_arithmetic(n->lhs) && int_arithmetic(n->rhs);
    default: return false;
    }
}

/* A value written as integer arithmetic (2**31, (1 << 20) - 1), folded as Python folds it.
 * Its text is a side source named by `origin` (as the grid is), so that a mistake in it points
 * into it: "-D BLOCK:1:4: error: ...". */
static CVal *int_expression(Lower *L, const char *text, const char *origin, Loc loc, const char *param)
{
    const Source *kernel_src = L->ctx->src;
    Source *vs = NEW(L->a, Source);
    *vs = (Source){origin, text, strlen(text)};
    L->ctx->src = vs;
    Node *n = parse_expression_source(L->ctx, lex_source(L->ctx));
    const Source *value_src = L->ctx->src; /* vs, or the lexer's translated copy */
    L->ctx->src = kernel_src;
    if (!int_arithmetic(n))
        lower_error(L, loc, "cannot parse the value '%s' given for '%s' (%s): a value is a number, a string, a "
                    "dtype or integer arithmetic on numbers", text, param, origin);
    L->ctx->src = value_src; /* an overflow while folding points into the value */
    CVal *v = lower_expr(L, n);
    L->ctx->src = kernel_src;
    return v;
}

/* Arithmetic operators outside a number's exponent (1e-3 is a float, -5 an int). */
static bool has_operator(const char *s)
{
    for (const char *p = s; *p; p++)
        if (strchr("*/%<>&|^~()", *p) || ((*p == '+' || *p == '-') && p > s && (p[-1] | 0x20) != 'e'))
            return true;
    return false;
}

/* A value from -D or the signature (origin: "-D NAME" or "-s") for the parameter param; its
 * errors point at loc. */
static CVal *parse_value_text(Lower *L, const char *text, const char *origin, Loc loc, const char *param)
{
    while (*text == ' ')
        text++;
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        n--;
    char *s = arena_strndup(L->a, text, n);
    if (!*s)
        lower_error(L, loc, "empty value given for '%s' (%s)", param, origin);
    bool ok, too_big;
    int64_t i = parse_int_text(s, &ok, &too_big);
    if (ok)
        return cv_int(L, i);
    if (too_big)
        lower_error(L, loc, "the value %s given for '%s' (%s) does not fit in a 64-bit integer", s, param, origin);
    char *end;
    double f = strtod(s, &end);
    if (end != s && *end == 0)
        return cv_float(L, f);
    if (!strcmp(s, "True") || !strcmp(s, "true"))
        return cv_bool(L, true);
    if (!strcmp(s, "False") || !strcmp(s, "false"))
        return cv_bool(L, false);
    if (!strcmp(s, "None"))
        return cv_none(L);
    if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
        return cv_str(L, s + 1, (int)n - 2);
    const char *dt = !strncmp(s, "tl.", 3) ? s + 3 : s;
    int d = dtype_from_name(dt);
    if (d >= 0)
        return cv_dtype(L, type_scalar((DType)d));
    if (has_operator(s))
        return int_expression(L, s, origin, loc, param);
    /* a bare word is a string constexpr (-D ACTIVATION=silu) */
    for (const char *p = s; *p; p++)
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            lower_error(L, loc, "cannot parse the value '%s' given for '%s' (%s): a value is a number, a string, a "
                        "dtype or integer arithmetic on numbers", s, param, origin);
    return cv_str(L, s, (int)n);
}

/* "*fp32:16", "**fp16" (a pointer to pointers, Triton's spelling), "i32",
 * "i64:16", "fp32", or a value.  Returns NULL for a value. */
static bool parse_sig_type(Lower *L, const char *text, Type *t, int64_t *div, Loc loc)
{
    while (*text == ' ')
        text++;
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        n--;
    char *s = arena_strndup(L->a, text, n);
    *div = 1;
    char *colon = strchr(s, ':');
    if (colon) {
        *colon = 0;
        bool ok, too_big;
        int64_t d = parse_int_text(colon + 1, &ok, &too_big);
        if (!ok || d <= 0 || !is_pow2(d))
            lower_error(L, loc, "malformed signature entry '%s': the hint after ':' must be a power of two such as 16", text);
        *div = d;
    }
    int stars = 0;
    while (s[stars] == '*')
        stars++;
    bool ptr = stars > 0;
    int d = dtype_from_name(s + stars);
    if (d < 0) {
        if (ptr)
            lower_error(L, loc, "malformed signature entry '%s': unknown pointee type '%s'", text, s + stars);
        if (colon)
            lower_error(L, loc, "malformed signature entry '%s': unknown type '%s'", text, s);
        return false;
    }
    if (stars > 2)
        lower_error(L, loc, "malformed signature entry '%s': pointers nest two deep at most ('**fp16')", text);
    *t = stars == 2 ? type_ptr_to(type_ptr((DType)d)) : ptr ? type_ptr((DType)d) : type_scalar((DType)d);
    if (!ptr && dtype_is_float((DType)d) && colon)
        lower_error(L, loc, "malformed signature entry '%s': ':%lld' applies to integers and pointers only",
                    text, (long long)*div);
    return true;
}

typedef struct Autotune {
    PyValue *config; /* the chosen triton.Config, or NULL */
    int count;
    bool unknown;    /* configs tilec cannot evaluate */
} Autotune;

static bool callee_is(Node *n, const char *last)
{
    Node *f = n->kind == N_CALL ? n->lhs : n;
    if (f->kind == N_NAME)
        return !strcmp(f->name, last);
    if (f->kind == N_ATTR)
        return !strcmp(f->name, last);
    return false;
}

/*
 * Decorator arguments are host Python: pyeval evaluates what it can (see
 * pyeval.h).  A decorator whose arguments are unknown is noted, and the
 * command line supplies the values it would have given.
 */
static Node *decorator_arg(Node *d, const char *kw)
{
    Node *arg = d->items.len ? d->items.data[0] : NULL;
    for (int k = 0; k < d->kwargs.len; k++)
        if (d->kwargs.data[k].name && !strcmp(d->kwargs.data[k].name, kw))
            arg = d->kwargs.data[k].value;
    return arg;
}

static void note_unevaluated(Lower *L, Node *d, const char *what, const char *flags)
{
    diag_note(L->ctx, d->loc, "%s is not evaluated (%s); its values come from the command line (%s)", what,
              d->opaque ? "its arguments use Python that tilec does not read"
                        : "it needs Python that tilec does not evaluate",
              flags);
}

/* The source of element i of a value written as a display, else of `whole`. */
static Loc element_loc(Node *display, int i, Node *whole)
{
    if (display && (display->kind == N_LIST || display->kind == N_TUPLE || display->kind == N_DICT) &&
        i < display->items.len)
        return display->items.data[i]->loc;
    return whole->loc;
}

static Autotune find_autotune(Lower *L, FuncDef *fd)
{
    Autotune at = {0};
    for (int i = 0; i < fd->decorators.len; i++) {
        Node *d = fd->decorators.data[i];
        if (d->kind != N_CALL || !callee_is(d, "autotune"))
            continue;
        Node *configs = d->opaque ? NULL : decorator_arg(d, "configs");
        if (!d->opaque && !configs)
            lower_error(L, d->loc, "@triton.autotune needs configs=[triton.Config(...), ...]");
        PyValue *list = configs ? py_eval(L->py, configs) : NULL;
        if (!list || list->kind == PY_UNKNOWN) {
            if (L->opt->config_index)
                lower_error(L, d->loc, "--config %d needs the autotune configs, but tilec cannot evaluate this "
                            "@triton.autotune; give the config's values with -D NAME=VALUE instead",
                            L->opt->config_index);
            note_unevaluated(L, d, "@triton.autotune", "-s, -D, --num-warps, --num-stages");
            at.unknown = true;
            continue;
        }
        if (list->kind != PY_LIST && list->kind != PY_TUPLE)
            lower_error(L, d->loc, "@triton.autotune needs configs=[triton.Config(...), ...] written as a list");
        at.count = list->items.len;
        int idx = L->opt->config_index;
        if (idx < 0 || idx >= at.count)
            lower_error(L, d->loc, "--config %d is out of range: the kernel has %d autotune configs", idx, at.count);
        at.config = list->items.data[idx];
        if (at.config->kind == PY_UNKNOWN) {
            note_unevaluated(L, d, arena_printf(L->a, "config %d of @triton.autotune", idx),
                             "-s, -D, --num-warps, --num-stages");
            at.config = NULL;
            at.unknown = true;
            continue;
        }
        if (at.config->kind != PY_CONFIG)
            lower_error(L, element_loc(configs, idx, d), "autotune configs must be triton.Config(...) calls");
    }
    if (!at.config && !at.unknown && L->opt->config_index) /* 0 is the default: it cannot be told from no --config */
        lower_error(L, fd->loc, "--config %d picks an @triton.autotune config, but '%s' has no @triton.autotune",
                    L->opt->config_index, fd->name);
    return at;
}

/*
 * @triton.jit(do_not_specialize=[...], do_not_specialize_on_alignment=[...]): the
 * parameters, by name or position, whose value (the first list: neither == 1 nor a
 * multiple of 16) or whose divisibility by 16 (the second) Triton's launcher leaves
 * unspecialised.  The library's launch-time specialisation honours them; a list tilec
 * cannot evaluate leaves every parameter unspecialised.
 */
static void read_jit_lists(Lower *L, FuncDef *fd, TirFunc *f)
{
    static const char *const lists[] = {"do_not_specialize", "do_not_specialize_on_alignment"};
    for (int i = 0; i < fd->decorators.len; i++) {
        Node *d = fd->decorators.data[i];
        if (!callee_is(d, "jit"))
            continue;
        for (int which = 0; which < 2; which++) {
            Node *arg = NULL;
            for (int k = 0; d->kind == N_CALL && k < d->kwargs.len; k++)
                if (d->kwargs.data[k].name && !strcmp(d->kwargs.data[k].name, lists[which]))
                    arg = d->kwargs.data[k].value;
            if (!arg && !(d->kind == N_CALL && d->opaque))
                continue;
            PyValue *v = arg ? py_eval(L->py, arg) : NULL;
            bool known = v && (v->kind == PY_LIST || v->kind == PY_TUPLE || v->kind == PY_NONE);
            for (int k = 0; known && v->kind != PY_NONE && k < v->items.len; k++)
                known = v->items.data[k]->kind == PY_INT || v->items.data[k]->kind == PY_STR;
            if (!known)
                diag_note(L->ctx, d->loc, "%s of @triton.jit is not evaluated; a kernel the library specialises "
                          "at launch is specialised on no parameter", arg ? lists[which] : "its arguments");
            for (int p = 0; p < f->params.len; p++) {
                KernelParam *kp = &f->params.data[p];
                bool listed = !known;
                for (int k = 0; known && v->kind != PY_NONE && k < v->items.len; k++) {
                    const PyValue *e = v->items.data[k];
                    if (e->kind == PY_STR)
                        listed |= !strcmp(e->s, kp->name);
                    else if (e->i >= 0 && e->i < fd->params.len)
                        listed |= !strcmp(fd->params.data[e->i].name, kp->name);
                }
                if (listed && which == 0)
                    kp->no_spec_value = kp->no_spec_align = true;
                else if (listed)
                    kp->no_spec_align = true;
            }
            if (!arg)
                break; /* an opaque decorator: one note */
        }
    }
}

/* A host value as a constexpr; NULL when it is none tilec can use. */
static CVal *cval_of_py(Lower *L, const PyValue *v)
{
    switch (v->kind) {
    case PY_NONE: return cv_none(L);
    case PY_BOOL: return cv_bool(L, v->i != 0);
    case PY_INT: return cv_int(L, v->i);
    case PY_FLOAT: return cv_float(L, v->f);
    case PY_STR: return cv_str(L, v->s, (int)strlen(v->s));
    default: return NULL;
    }
}

static PyValue *py_of_cval(Lower *L, const CVal *c)
{
    switch (c->kind) {
    case CV_NONE: return py_none(L->py);
    case CV_BOOL: return py_bool(L->py, c->i != 0);
    case CV_INT: return py_int(L->py, c->i);
    case CV_FLOAT: return py_float(L->py, c->f);
    case CV_STR: return py_str(L->py, c->s);
    default: return py_unknown(L->py);
    }
}

static CVal *config_value(Lower *L, Loc loc, PyValue *config, const char *name)
{
    PyValue *v = config ? py_dict_get(config->kwargs, name) : NULL;
    if (!v || v->kind == PY_UNKNOWN) /* left to the command line */
        return NULL;
    CVal *c = cval_of_py(L, v);
    if (!c)
        lower_error(L, loc, "the autotune config's value for '%s' is not a number, bool, string or None", name);
    return c;
}

static int config_int(Lower *L, Loc loc, PyValue *config, const char *kw)
{
    PyValue *v = config ? py_dict_get(config->opts, kw) : NULL;
    if (!v || v->kind == PY_NONE || v->kind == PY_UNKNOWN) /* the flag's default */
        return 0;
    if (v->kind != PY_INT)
        lower_error(L, loc, "%s must be an integer", kw);
    return (int)v->i;
}

static const char *cval_text(Lower *L, CVal *c)
{
    switch (c->kind) {
    case CV_INT: return arena_printf(L->a, "%lld", (long long)c->i);
    case CV_FLOAT: return arena_printf(L->a, "%.17g", c->f);
    case CV_BOOL: return c->i ? "True" : "False";
    case CV_STR: return arena_printf(L->a, "\"%s\"", c->s);
    case CV_NONE: return "None";
    case CV_DTYPE: return arena_printf(L->a, "tl.%s", dtype_triton_name(c->dt.dtype));
    default: return cv_describe(L, c);
    }
}

/* Evaluate a heuristic; NULL (and no diagnostic) if it needs runtime values. */
static CVal *try_call_lambda(Lower *L, CVal *fn, Node *call, CVal **args)
{
    Ctx *ctx = L->ctx;
    jmp_buf jb, *saved_jb = ctx->on_error;
    int saved_n = ctx->diags.len, saved_err = ctx->nerrors, saved_nest = L->nest;
    size_t saved_log = ctx->log.len;
    CVal *volatile v = NULL;
    ctx->on_error = &jb;
    if (!setjmp(jb))
        v = call_lambda(L, fn, call, args, 1);
    ctx->on_error = saved_jb;
    if (!v) {
        ctx->diags.len = saved_n;
        ctx->log.len = saved_log;
        if (ctx->log.data)
            ctx->log.data[saved_log] = 0;
        ctx->nerrors = saved_err;
        L->nest = saved_nest;
    }
    return v;
}

/* Evaluate one heuristic: the lowerer's own evaluation first (it knows tl and triton
 * builtins), then pyeval (comprehensions, host defs).  NULL if it needs runtime values. */
static CVal *eval_heuristic(Lower *L, Node *fn_node, PyValue *fn, Env *env, Loc loc)
{
    if (fn_node && fn_node->kind == N_LAMBDA) {
        CVal *args = NEW(L->a, CVal);
        args->kind = CV_DICT;
        for (int b = 0; b < env->b.len; b++) {
            vec_push(L->a, &args->items, cv_str(L, env->b.data[b].name, (int)strlen(env->b.data[b].name)));
            vec_push(L->a, &args->vals, env->b.data[b].val);
        }
        Env *saved = L->env;
        L->env = NEW(L->a, Env);
        CVal *f = lower_expr(L, fn_node);
        Node fake = {0};
        fake.loc = loc;
        CVal *a1[1] = {args};
        CVal *v = try_call_lambda(L, f, &fake, a1);
        L->env = saved;
        if (v && v->kind != CV_VALUE && v->kind != CV_UNKNOWN)
            return v;
    }
    PyValue *args = py_dict_new(L->py);
    for (int b = 0; b < env->b.len; b++)
        py_dict_set(L->py, args, env->b.data[b].name, py_of_cval(L, env->b.data[b].val));
    PyValue *a1[1] = {args};
    return cval_of_py(L, py_call(L->py, fn, a1, 1));
}

static void apply_heuristics(Lower *L, FuncDef *fd, Env *env)
{
    for (int i = fd->decorators.len - 1; i >= 0; i--) {
        Node *d = fd->decorators.data[i];
        if (d->kind != N_CALL || !callee_is(d, "heuristics"))
            continue;
        Node *arg = d->opaque ? NULL : decorator_arg(d, "values");
        PyValue *dict = arg ? py_eval(L->py, arg) : NULL;
        if (d->opaque || (dict && dict->kind == PY_UNKNOWN)) {
            note_unevaluated(L, d, "@triton.heuristics", "-s, -D");
            continue;
        }
        if (!dict || dict->kind != PY_DICT)
            lower_error(L, d->loc, "@triton.heuristics needs a dict of name: lambda args: ...");
        Node *lit = arg->kind == N_DICT ? arg : NULL;
        for (int k = 0; k < dict->items.len; k++) {
            PyValue *key = dict->items.data[k], *fn = dict->vals.data[k];
            if (key->kind != PY_STR)
                lower_error(L, element_loc(lit, k, d), "heuristics keys must be strings");
            Loc vloc = lit && k < lit->values.len ? lit->values.data[k]->loc : d->loc;
            /* a value given explicitly wins */
            CVal *cur = env_get(env, key->s);
            if (cur && cur->kind != CV_UNKNOWN)
                continue;
            if (fn->kind != PY_LAMBDA && fn->kind != PY_FUNC)
                lower_error(L, vloc, "heuristics values must be lambdas");
            CVal *v = eval_heuristic(L, lit && k < lit->values.len ? lit->values.data[k] : NULL, fn, env, vloc);
            if (!v)
                lower_error(L, element_loc(lit, k, d), "the heuristic for '%s' needs runtime argument values; give it "
                            "with -D %s=...", key->s, key->s);
            env_set(L, env, key->s, v);
        }
    }
}

/* Does any expression in these statements call `name` directly? */
static bool node_calls(const Node *n, const char *name);

static bool list_calls(const NodeList *l, const char *name)
{
    for (int i = 0; i < l->len; i++)
        if (node_calls(l->data[i], name))
            return true;
    return false;
}

/* Recursion on every child but lhs, which is followed with a loop: a chain's left spine
 * (`a + b + ...`) is as long as the chain. */
static bool node_calls(const Node *n, const char *name)
{
    for (; n; n = n->lhs) {
        if (n->kind == N_CALL && n->lhs->kind == N_NAME && !strcmp(n->lhs->name, name))
            return true;
        const Node *kids[] = {n->rhs, n->cond, n->iter, n->lo, n->hi, n->step};
        for (size_t i = 0; i < ARRAY_LEN(kids); i++)
            if (node_calls(kids[i], name))
                return true;
        for (int i = 0; i < n->kwargs.len; i++)
            if (node_calls(n->kwargs.data[i].value, name))
                return true;
        if (list_calls(&n->items, name) || list_calls(&n->values, name) || list_calls(&n->body, name) ||
            list_calls(&n->orelse, name))
            return true;
    }
    return false;
}

static bool body_calls(const NodeList *body, const char *name) { return list_calls(body, name); }

static FuncDef *select_kernel(Lower *L)
{
    Module *m = L->m;
    const char *want = L->opt->kernel;
    if (want) {
        for (int i = 0; i < m->funcs.len; i++)
            if (!strcmp(m->funcs.data[i]->name, want))
                return m->funcs.data[i];
        StrBuf sb = {0};
        for (int i = 0; i < m->funcs.len; i++)
            sb_printf(&sb, "%s%s", i ? ", " : "", m->funcs.data[i]->name);
        Loc none = {0};
        const char *list = arena_strdup(L->a, sb.data ? sb.data : "none");
        sb_free(&sb);
        lower_error(L, none, "no @triton.jit function named '%s' (found: %s)", want, list);
    }
    if (!m->funcs.len) {
        Loc none = {0};
        lower_error(L, none, "no @triton.jit function in this file");
    }
    /* The kernel is the jit function no other jit function calls. */
    FuncDef *k = NULL;
    StrBuf list = {0};
    int candidates = 0;
    for (int i = 0; i < m->funcs.len; i++) {
        FuncDef *f = m->funcs.data[i];
        bool called = false;
        for (int j = 0; j < m->funcs.len && !called; j++)
            called = j != i && body_calls(&m->funcs.data[j]->body, f->name);
        if (called)
            continue;
        k = f;
        sb_printf(&list, "%s%s", candidates++ ? ", " : "", f->name);
    }
    if (candidates > 1) {
        Loc none = {0};
        const char *names = arena_strdup(L->a, list.data);
        sb_free(&list);
        lower_error(L, none, "this file has several kernels (%s); choose one with -k NAME", names);
    }
    sb_free(&list);
    return k ? k : m->funcs.data[0]; /* every function is called: recursion, reported later */
}

static const SpecEntry *find_named(const SpecVec *v, const char *name)
{
    for (int i = v->len - 1; i >= 0; i--)
        if (v->data[i].name && !strcmp(v->data[i].name, name))
            return &v->data[i];
    return NULL;
}

TirFunc *tir_lower(Ctx *ctx, Module *m, const LowerOptions *opt)
{
    Lower Ls = {0}, *L = &Ls;
    L->ctx = ctx;
    L->a = &ctx->arena;
    L->m = m;
    L->kernel_module = m;
    L->opt = opt;
    L->debug = opt->debug;
    index_lines(L, ctx->src);
    FuncDef *fd = select_kernel(L);
    TirFunc *f = NEW(L->a, TirFunc);
    L->f = f;
    f->name = fd->name;
    f->loc = fd->loc;
    f->body = tir_block_new(L->a, NULL);
    L->cur = f->body;
    L->env = NEW(L->a, Env);
    L->py = py_new(ctx, m);

    Autotune at = find_autotune(L, fd);
    int npos = 0;
    for (int i = 0; i < opt->sig.len; i++)
        npos += opt->sig.data[i].name == NULL;
    if (npos > fd->params.len)
        lower_error(L, spec_loc(&opt->sig.data[0], fd->loc), "the signature has %d entries but kernel '%s' has %d parameters",
                    npos, fd->name, fd->params.len);
    for (int i = 0; i < opt->sig.len; i++) {
        const SpecEntry *e = &opt->sig.data[i];
        if (!e->name)
            continue;
        bool found = false;
        for (int k = 0; k < fd->params.len; k++)
            found |= !strcmp(fd->params.data[k].name, e->name);
        if (!found)
            lower_error(L, spec_loc(e, fd->loc), "the signature names '%s', which is not a parameter of '%s'", e->name,
                        fd->name);
    }
    for (int i = 0; i < opt->defines.len; i++) {
        const SpecEntry *e = &opt->defines.data[i];
        bool found = false;
        for (int k = 0; k < fd->params.len; k++)
            found |= !strcmp(fd->params.data[k].name, e->name);
        bool in_heur = false;
        for (int d = 0; d < fd->decorators.len; d++)
            in_heur |= fd->decorators.data[d]->kind == N_CALL && callee_is(fd->decorators.data[d], "heuristics");
        if (!found && !in_heur)
            lower_error(L, spec_loc(e, fd->loc), "-D %s: '%s' has no parameter of that name", e->name, fd->name);
    }

    int pos = 0;
    for (int i = 0; i < fd->params.len; i++) {
        Param *p = &fd->params.data[i];
        if (p->star || p->dstar)
            lower_error(L, p->loc, "*args and **kwargs are not supported in kernel signatures");
        KernelParam kp = {0};
        kp.name = kp.c_name = p->name;
        kp.is_constexpr = is_constexpr_annotation(L, p->annotation);
        const SpecEntry *e = NULL;
        for (int k = 0, seen = 0; k < opt->sig.len; k++)
            if (!opt->sig.data[k].name && seen++ == pos) {
                e = &opt->sig.data[k];
                break;
            }
        pos++;
        const SpecEntry *named = find_named(&opt->sig, p->name);
        if (named)
            e = named;
        const SpecEntry *def = find_named(&opt->defines, p->name);
        CVal *val = NULL;
        if (kp.is_constexpr) {
            if (def)
                val = parse_value_text(L, def->text, arena_printf(L->a, "-D %s", p->name), spec_loc(def, p->loc),
                                       p->name);
            else if (e)
                val = parse_value_text(L, e->text, "-s", spec_loc(e, p->loc), p->name);
            else if ((val = config_value(L, p->loc, at.config, p->name)) != NULL)
                ;
            else if (p->default_value) {
                Env *saved = L->env;
                L->env = NEW(L->a, Env);
                val = lower_expr(L, p->default_value);
                L->env = saved;
            }
            if (!val) {
                CVal *u = NEW(L->a, CVal);
                u->kind = CV_UNKNOWN;
                val = u; /* maybe filled by a heuristic below */
            }
            env_set(L, L->env, p->name, val);
            vec_push(L->a, &f->params, kp);
            continue;
        }
        if (def)
            lower_error(L, spec_loc(def, p->loc), "-D %s: '%s' is not a tl.constexpr parameter; give its type in the signature", p->name, p->name);
        /* an omitted argument whose default is None: Triton specialises None as a constexpr */
        bool none_default = !e && p->default_value && p->default_value->kind == N_NONE;
        if (!e && !none_default)
            lower_error(L, p->loc, "missing signature entry for parameter '%s' of '%s' (e.g. -s \"%s=*fp32:16\" or -s \"%s=i32\")",
                        p->name, fd->name, p->name, p->name);
        Type t;
        int64_t div;
        if (!none_default && is_tensordesc_sig(e->text)) {
            env_set(L, L->env, p->name, tensordesc_param(L, p->name, e->text, spec_loc(e, p->loc)));
            continue;
        }
        if (!none_default && parse_sig_type(L, e->text, &t, &div, spec_loc(e, p->loc))) {
            kp.type = t;
            kp.div = div;
            kp.value = tir_value_new(L->a, f, t);
            kp.value->name = p->name;
            for (int d = 0; d < TIR_MAX_RANK; d++)
                kp.value->hint_div[d] = 0;
            vec_push(L->a, &f->params, kp);
            env_set(L, L->env, p->name, cv_value(L, kp.value));
        } else {
            val = none_default ? cv_none(L) : parse_value_text(L, e->text, "-s", spec_loc(e, p->loc), p->name);
            if (val->kind == CV_STR)
                lower_error(L, spec_loc(e, p->loc), "malformed signature entry '%s' for parameter '%s': expected a type such as "
                            "*fp32:16, i32 or fp32, or a number", e->text, p->name);
            kp.specialised = true;
            kp.spec_text = cval_text(L, val);
            vec_push(L->a, &f->params, kp);
            env_set(L, L->env, p->name, val);
        }
    }
    read_jit_lists(L, fd, f);
    /* runtime parameters are unknown to heuristics */
    Env *heur = env_copy(L, L->env);
    for (int i = 0; i < heur->b.len; i++)
        if (heur->b.data[i].val->kind == CV_VALUE) {
            CVal *u = NEW(L->a, CVal);
            u->kind = CV_UNKNOWN;
            heur->b.data[i].val = u;
        }
    for (int i = 0; i < opt->defines.len; i++) {
        const SpecEntry *e = &opt->defines.data[i];
        if (!env_get(heur, e->name))
            env_set(L, heur, e->name,
                    parse_value_text(L, e->text, arena_printf(L->a, "-D %s", e->name), spec_loc(e, fd->loc), e->name));
    }
    apply_heuristics(L, fd, heur);
    for (int i = 0; i < f->params.len; i++) {
        KernelParam *kp = &f->params.data[i];
        if (!kp->is_constexpr)
            continue;
        CVal *v = env_get(heur, kp->name);
        Loc ploc = fd->loc; /* a tensordesc parameter is several, so find the source's by name */
        for (int k = 0; k < fd->params.len; k++)
            if (!strcmp(fd->params.data[k].name, kp->name))
                ploc = fd->params.data[k].loc;
        if (!v || v->kind == CV_UNKNOWN)
            lower_error(L, ploc, "no value for constexpr parameter '%s': give it with -D %s=VALUE "
                        "or in the signature", kp->name, kp->name);
        kp->spec_text = cval_text(L, v);
        env_set(L, L->env, kp->name, v);
    }
    /* heuristic-only names (not parameters) are visible too */
    for (int i = 0; i < heur->b.len; i++)
        if (!env_get(L->env, heur->b.data[i].name))
            env_set(L, L->env, heur->b.data[i].name, heur->b.data[i].val);

    f->num_warps = opt->num_warps ? opt->num_warps : config_int(L, fd->loc, at.config, "num_warps");
    if (!f->num_warps)
        f->num_warps = 4;
    f->num_stages = opt->num_stages ? opt->num_stages : config_int(L, fd->loc, at.config, "num_stages");
    if (!f->num_stages)
        f->num_stages = 3;
    f->arch = opt->arch ? opt->arch : 80;
    f->min_blocks_asked = opt->min_blocks > 0 ? opt->min_blocks : 0;
    if (!is_pow2(f->num_warps) || f->num_warps > TIR_MAX_WARPS)
        lower_error(L, fd->loc, "num_warps must be a power of two from 1 to %d, got %d", TIR_MAX_WARPS, f->num_warps);
    if (f->num_stages < 1 || f->num_stages > TIR_MAX_STAGES)
        lower_error(L, fd->loc, "num_stages must be a number from 1 to %d, got %d", TIR_MAX_STAGES, f->num_stages);

    lower_body(L, &fd->body);
    return f;
}

/*
 * module.c — the top level of a kernel file, statement by statement: jit
 * functions (parser.c parses them), module-level assignments and
 * triton.jit(f) wrappers, undecorated defs kept for the decorator evaluator,
 * imports in every spelling, and the blocks of module-level if/try, whose
 * conditions are decided where only literals and an unset environment
 * matter.  Everything else is skipped without being looked at.
 */
#include "parser_internal.h"

#include <string.h>

/* dotted_name: NAME ('.' NAME)*  — NULL when the tokens are not one */
static const char *parse_dotted_name(Parser *p)
{
    if (!at(p, TOK_NAME))
        return NULL;
    StrBuf sb = {0};
    sb_puts(&sb, next(p)->text);
    while (at(p, TOK_DOT) && peek_at(p, 1)->kind == TOK_NAME) {
        next(p);
        sb_printf(&sb, ".%s", next(p)->text);
    }
    char *name = arena_strdup(&p->ctx->arena, sb.data);
    sb_free(&sb);
    return name;
}

/* [as NAME]: the name bound, or dflt */
static const char *parse_as_name(Parser *p, const char *dflt, bool *ok)
{
    if (!accept(p, TOK_AS))
        return dflt;
    if (!at(p, TOK_NAME)) {
        *ok = false;
        return dflt;
    }
    return next(p)->text;
}

static void add_import(Parser *p, Module *m, Import im, bool conditional)
{
    im.seq = m->nseq++;
    im.conditional = conditional;
    vec_push(&p->ctx->arena, &m->imports, im);
}

/*
 * import_stmt: 'import' dotted_name ['as' NAME] (',' dotted_name ['as' NAME])*
 * Anything it cannot read is skipped: an import is only looked at when a kernel uses its name.
 */
static void parse_import(Parser *p, Module *m, bool conditional)
{
    bool ok = true;
    do {
        Import im = {0};
        im.loc = peek(p)->loc;
        im.module = parse_dotted_name(p);
        if (!im.module)
            break;
        const char *dot = strchr(im.module, '.');
        const char *top = dot ? arena_strndup(&p->ctx->arena, im.module, (size_t)(dot - im.module)) : im.module;
        im.as = parse_as_name(p, NULL, &ok);
        im.whole = !im.as;
        if (!im.as)
            im.as = top;
        if (ok)
            add_import(p, m, im, conditional);
    } while (ok && accept(p, TOK_COMMA));
}

/*
 * from_stmt: 'from' ('.' | '...')* [dotted_name] 'import'
 *            ('*' | '(' import_as_names [','] ')' | import_as_names)
 * import_as_names: NAME ['as' NAME] (',' NAME ['as' NAME])*
 * `import *` binds nothing tilec can see: it is skipped.
 */
static void parse_from_import(Parser *p, Module *m, bool conditional)
{
    int level = 0;
    for (;; next(p)) {
        if (at(p, TOK_DOT))
            level += 1;
        else if (at(p, TOK_ELLIPSIS))
            level += 3;
        else
            break;
    }
    const char *module = parse_dotted_name(p);
    if ((!module && level == 0) || !accept(p, TOK_IMPORT))
        return;
    bool paren = accept(p, TOK_LPAREN), ok = true;
    while (ok && at(p, TOK_NAME)) {
        Import im = {.module = module ? module : "", .level = level};
        im.loc = peek(p)->loc;
        im.name = next(p)->text;
        im.as = parse_as_name(p, im.name, &ok);
        if (ok)
            add_import(p, m, im, conditional);
        if (!accept(p, TOK_COMMA) || (paren && at(p, TOK_RPAREN)))
            break;
    }
}

static void parse_toplevel(Parser *p, Module *m, bool conditional);

/* ---- module-level conditions ------------------------------------------------ */

/* What tilec knows of a module-level condition's value: only what follows from an unset
 * environment (os.environ.get(K, D) and os.getenv(K, D) give D) and literals. */
typedef struct PyVal {
    enum { PV_UNKNOWN, PV_NONE, PV_BOOL, PV_INT, PV_STR } kind;
    int64_t i;
    const char *s;
    int len;
} PyVal;

static const PyVal pv_unknown = {.kind = PV_UNKNOWN};

static bool is_env_lookup(const Node *f)
{
    if (!f || f->kind != N_ATTR)
        return false;
    const Node *base = f->lhs;
    if (!strcmp(f->name, "getenv"))
        return base->kind == N_NAME && !strcmp(base->name, "os");
    if (strcmp(f->name, "get") || !base)
        return false;
    return (base->kind == N_NAME && !strcmp(base->name, "environ")) ||
           (base->kind == N_ATTR && !strcmp(base->name, "environ") && base->lhs->kind == N_NAME &&
            !strcmp(base->lhs->name, "os"));
}

static bool pv_truthy(PyVal v) { return v.kind == PV_STR ? v.len > 0 : v.kind != PV_NONE && v.i != 0; }

static bool pv_equal(PyVal a, PyVal b)
{
    if (a.kind == PV_STR || b.kind == PV_STR)
        return a.kind == b.kind && a.len == b.len && !memcmp(a.s, b.s, (size_t)a.len);
    if (a.kind == PV_NONE || b.kind == PV_NONE)
        return a.kind == b.kind;
    return a.i == b.i;
}

static PyVal pv_of(Parser *p, const Node *n)
{
    PyVal v = pv_unknown;
    switch (n->kind) {
    case N_STR: if (!n->fstring) v = (PyVal){.kind = PV_STR, .s = n->str, .len = n->str_len}; return v;
    case N_INT: if (!n->big) v = (PyVal){.kind = PV_INT, .i = n->ival}; return v;
    case N_TRUE: case N_FALSE: return (PyVal){.kind = PV_BOOL, .i = n->kind == N_TRUE};
    case N_NONE: return (PyVal){.kind = PV_NONE};
    case N_UNARY:
        if (n->op != TOK_NOT || (v = pv_of(p, n->lhs)).kind == PV_UNKNOWN)
            return pv_unknown;
        return (PyVal){.kind = PV_BOOL, .i = !pv_truthy(v)};
    case N_BOOLOP: {
        PyVal a = pv_of(p, n->lhs);
        if (a.kind == PV_UNKNOWN)
            return a;
        if (pv_truthy(a) == (n->op == TOK_OR))
            return a;
        return pv_of(p, n->rhs);
    }
    case N_CALL:
        if (is_env_lookup(n->lhs) && n->items.len >= 1 && !n->kwargs.len)
            return n->items.len > 1 ? pv_of(p, n->items.data[1]) : (PyVal){.kind = PV_NONE};
        if (n->lhs->kind == N_ATTR && !n->items.len && (v = pv_of(p, n->lhs->lhs)).kind == PV_STR &&
            (!strcmp(n->lhs->name, "lower") || !strcmp(n->lhs->name, "upper"))) {
            char *s = arena_strndup(&p->ctx->arena, v.s, (size_t)v.len);
            for (char *c = s; *c; c++)
                if ((unsigned char)*c < 0x80)
                    *c = n->lhs->name[0] == 'l' ? (char)(*c | ((*c >= 'A' && *c <= 'Z') ? 0x20 : 0))
                                                : (char)(*c & ~((*c >= 'a' && *c <= 'z') ? 0x20 : 0));
            v.s = s;
            return v;
        }
        return pv_unknown;
    case N_COMPARE: {
        PyVal a = pv_of(p, n->lhs);
        if (n->items.len != 1 || a.kind == PV_UNKNOWN)
            return pv_unknown;
        const Node *r = n->items.data[0];
        TokenKind op = n->ops.data[0];
        bool neg = n->negated.data[0], result;
        if (op == TOK_IN && (r->kind == N_TUPLE || r->kind == N_LIST)) {
            result = false;
            for (int i = 0; i < r->items.len; i++) {
                PyVal b = pv_of(p, r->items.data[i]);
                if (b.kind == PV_UNKNOWN)
                    return pv_unknown;
                result |= pv_equal(a, b);
            }
        } else {
            PyVal b = pv_of(p, r);
            if (b.kind == PV_UNKNOWN || (op != TOK_EQ && op != TOK_NE && op != TOK_IS))
                return pv_unknown;
            result = pv_equal(a, b) == (op != TOK_NE);
        }
        return (PyVal){.kind = PV_BOOL, .i = result != neg};
    }
    default:
        return pv_unknown;
    }
}

/* An if/elif condition at module level: 1 true, 0 false, -1 not known.  Parsed
 * speculatively: anything the expression grammar does not take is "not known". */
static int module_condition(Parser *p)
{
    Ctx *ctx = p->ctx;
    int start = p->pos, depth = p->depth, ndiags = ctx->diags.len, nerrors = ctx->nerrors;
    size_t loglen = ctx->log.len;
    jmp_buf *outer = ctx->on_error;
    jmp_buf jb;
    volatile int known = -1;
    ctx->on_error = &jb;
    if (setjmp(jb) == 0) {
        next(p);
        Node *cond = parse_expr(p);
        PyVal v = at(p, TOK_COLON) ? pv_of(p, cond) : pv_unknown;
        known = v.kind == PV_UNKNOWN ? -1 : pv_truthy(v);
    }
    ctx->on_error = outer;
    ctx->diags.len = ndiags;
    ctx->nerrors = nerrors;
    ctx->log.len = loglen;
    if (ctx->log.data)
        ctx->log.data[loglen] = 0;
    p->depth = depth;
    p->pos = start;
    return known;
}

/*
 * A module-level compound statement whose blocks may bind names (if, try):
 * header ':' NEWLINE INDENT toplevel* DEDENT, then its elif/else/except/finally
 * clauses the same way.  A block on the header's line is skipped.  An if clause whose
 * condition is known (module_condition) is read as Python would run it: a false one is
 * skipped, a true one binds unconditionally and ends the chain.
 */
static void parse_toplevel_block(Parser *p, Module *m, bool conditional)
{
    bool is_if = at(p, TOK_IF), taken = false, all_false = true;
    for (;;) {
        TokenKind kw = peek(p)->kind;
        int known = kw == TOK_IF || kw == TOK_ELIF ? module_condition(p) : kw == TOK_ELSE && is_if && all_false ? 1 : -1;
        bool skip = taken || known == 0, sure = known == 1 && all_false; /* surely runs */
        all_false &= known == 0;
        while (!at(p, TOK_NEWLINE) && !at(p, TOK_EOF))
            next(p);
        accept(p, TOK_NEWLINE);
        if (skip && at(p, TOK_INDENT)) {
            p->pos--; /* skip_statement skips the block after a NEWLINE */
            skip_statement(p);
        } else if (accept(p, TOK_INDENT)) {
            enter(p, peek(p)->loc, "blocks");
            while (!accept(p, TOK_DEDENT) && !at(p, TOK_EOF))
                parse_toplevel(p, m, conditional || !sure);
            leave(p);
        }
        taken |= is_if && known == 1;
        TokenKind k = peek(p)->kind;
        if (k != TOK_ELIF && k != TOK_ELSE && k != TOK_EXCEPT && k != TOK_FINALLY)
            return;
    }
}

/* One statement of the module, or of a block of a module-level if/try. */
static void parse_toplevel(Parser *p, Module *m, bool conditional)
{
    const Token *t = peek(p);
    if (t->kind == TOK_INDENT)
        diag_error(p->ctx, t->loc, "unexpected indent");
    else if (t->kind == TOK_AT)
        parse_decorated(p, m);
    else if (t->kind == TOK_NAME && t->at_line_start &&
             (peek_at(p, 1)->kind == TOK_ASSIGN || peek_at(p, 1)->kind == TOK_COLON)) {
        int pos = p->pos, n = m->globals.len;
        parse_global(p, m, conditional);
        if (m->globals.len > n)
            wrap_function(p, m, &m->globals.data[n], pos);
    } else if (t->kind == TOK_DEF && peek_at(p, 1)->kind == TOK_NAME) {
        vec_push(&p->ctx->arena, &p->plain_defs, p->pos);
        skip_statement(p);
    } else if (t->kind == TOK_IMPORT || t->kind == TOK_FROM) {
        int start = p->pos;
        next(p);
        if (t->kind == TOK_IMPORT)
            parse_import(p, m, conditional);
        else
            parse_from_import(p, m, conditional);
        p->pos = start;
        skip_statement(p);
    } else if (t->kind == TOK_IF || t->kind == TOK_TRY)
        parse_toplevel_block(p, m, conditional);
    else
        skip_statement(p);
}

Module *parse_module(Ctx *ctx, TokenArray toks)
{
    Parser p;
    parser_init(&p, ctx, toks);
    Module *m = NEW(&ctx->arena, Module);
    m->src = ctx->src;
    while (!at(&p, TOK_EOF))
        parse_toplevel(&p, m, false);
    for (int i = 0; i < p.plain_defs.len; i++) {
        FuncDef *f = parse_plain_def(&p, p.toks[p.plain_defs.data[i] + 1].text, p.plain_defs.data[i], true);
        if (f)
            vec_push(&ctx->arena, &m->host_funcs, f);
    }
    for (int i = 0; i < m->funcs.len; i++)
        m->funcs.data[i]->module = m;
    return m;
}


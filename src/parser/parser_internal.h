/*
 * parser_internal.h — what parser.c (statements and expressions of jit
 * functions, decorators, globals) shares with module.c (the module's top
 * level: imports, module-level if/try, parse_module).
 */
#ifndef TILEC_PARSER_INTERNAL_H
#define TILEC_PARSER_INTERNAL_H

#include "ast.h"

typedef struct Parser {
    Ctx *ctx;
    const Token *toks;
    int ntoks, pos;
    int prev_end;        /* byte offset just past the last consumed real token */
    int depth, max_depth;
    bool chains_nest;    /* each link of `a + b + c` counts as a level (see enter_link) */
    Vec(int) plain_defs; /* token positions of undecorated top-level `def`s */
    bool host;           /* host Python (decorators, globals): comprehensions allowed */
} Parser;

/* ---- tokens (parser.c's helpers, shared) ---- */

static inline const Token *peek(Parser *p) { return &p->toks[p->pos]; }

static inline const Token *peek_at(Parser *p, int n)
{
    int i = p->pos + n;
    return &p->toks[i < p->ntoks ? i : p->ntoks - 1];
}

static inline bool at(Parser *p, TokenKind k) { return peek(p)->kind == k; }

static inline bool is_layout(TokenKind k)
{
    return k == TOK_NEWLINE || k == TOK_INDENT || k == TOK_DEDENT || k == TOK_EOF;
}

static inline const Token *next(Parser *p)
{
    const Token *t = peek(p);
    if (t->kind != TOK_EOF)
        p->pos++;
    if (!is_layout(t->kind))
        p->prev_end = t->offset + t->length;
    return t;
}

static inline bool accept(Parser *p, TokenKind k)
{
    if (!at(p, k))
        return false;
    next(p);
    return true;
}

/* ---- parser.c, for module.c ---- */

void parser_init(Parser *p, Ctx *ctx, TokenArray toks);
/* Nesting depth for a construct (`what` names it in the too-deep error). */
void enter(Parser *p, Loc loc, const char *what);
void leave(Parser *p);
Node *parse_expr(Parser *p);
/* Skips one statement with its indented block, without looking at it. */
void skip_statement(Parser *p);
void parse_decorated(Parser *p, Module *m);
void parse_global(Parser *p, Module *m, bool conditional);
FuncDef *parse_plain_def(Parser *p, const char *name, int before, bool host);
void wrap_function(Parser *p, Module *m, const Global *g, int pos);

#endif

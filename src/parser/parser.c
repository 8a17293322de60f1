/*
 * parser.c — recursive descent from tokens to the AST of the jit functions.
 *
 * module.c walks the top level and calls in here for jit functions,
 * decorators and module-level assignments (parsed speculatively: a failure
 * only means "value unknown").  Inside a jit function the grammar below is
 * accepted; every other Python construct is a diagnostic that names it.
 * Each parse function carries its rule as a comment.
 */
#include "parser_internal.h"

#include <string.h>


static Node *parse_for_targets(Parser *p);
static Node *parse_testlist(Parser *p);
static Node *parse_or_test(Parser *p);
static Node *parse_binary(Parser *p, int min_prec);
static Node *parse_factor(Parser *p);
static void parse_stmt(Parser *p, NodeList *out);

/* ---- token helpers ----------------------------------------------------- */

/* How a token is named in messages: "')'", "name 'x'", "newline". */
static const char *describe(Parser *p, const Token *t)
{
    switch (t->kind) {
    case TOK_NAME:
    case TOK_INT:
    case TOK_FLOAT:
    case TOK_IMAG:
    case TOK_STRING: {
        int n = t->length > 24 ? 24 : t->length;
        return arena_printf(&p->ctx->arena, "%s '%.*s%s'", token_kind_name(t->kind), n,
                            p->ctx->src->text + t->offset, n < t->length ? "..." : "");
    }
    default:
        return token_kind_name(t->kind);
    }
}

static NORETURN void error_at_token(Parser *p, const char *expected)
{
    diag_error(p->ctx, peek(p)->loc, "expected %s, got %s", expected, describe(p, peek(p)));
}

static const Token *expect(Parser *p, TokenKind k, const char *expected)
{
    if (!at(p, k))
        error_at_token(p, expected);
    return next(p);
}

/* `expected ':' after 'for' header` */
static void expect_colon(Parser *p, const char *after)
{
    if (!accept(p, TOK_COLON))
        diag_error(p->ctx, peek(p)->loc, "expected ':' after %s", after);
}

/* `expected ')' to close '(' at 3:10` */
static void expect_closing(Parser *p, TokenKind close, const Token *open)
{
    if (!accept(p, close))
        diag_error(p->ctx, peek(p)->loc, "expected %s to close %s at %d:%d",
                   token_kind_name(close), token_kind_name(open->kind), open->loc.line,
                   open->loc.col);
}

static NORETURN void unsupported(Parser *p, Loc loc, const char *what)
{
    diag_error(p->ctx, loc, "%s are not supported in @triton.jit functions", what);
}

void enter(Parser *p, Loc loc, const char *what)
{
    if (++p->depth > p->max_depth)
        diag_error(p->ctx, loc, "%s nested too deeply (limit %d)", what, p->max_depth);
}

void leave(Parser *p) { p->depth--; }

/* A link of a left-associative chain (`a + b + c`, `a and b and c`) makes the tree deeper on
 * its left spine only, which the passes over a kernel's AST walk with a loop (lower_expr,
 * ast_dump): there it is not nesting.  The grid's evaluator recurses on it, so for side
 * expressions (chains_nest) it counts.  Returns the levels entered. */
static int enter_link(Parser *p, Loc loc)
{
    if (!p->chains_nest)
        return 0;
    enter(p, loc, "expression");
    return 1;
}

static Node *new_node(Parser *p, NodeKind kind, Loc loc)
{
    Node *n = NEW(&p->ctx->arena, Node);
    n->kind = kind;
    n->loc = loc;
    return n;
}

static bool starts_expr(TokenKind k)
{
    switch (k) {
    case TOK_NAME: case TOK_INT: case TOK_FLOAT: case TOK_IMAG: case TOK_STRING:
    case TOK_TRUE: case TOK_FALSE: case TOK_NONE: case TOK_ELLIPSIS:
    case TOK_LPAREN: case TOK_LBRACKET: case TOK_LBRACE:
    case TOK_MINUS: case TOK_PLUS: case TOK_TILDE: case TOK_NOT: case TOK_LAMBDA:
    case TOK_STAR: case TOK_AWAIT: case TOK_YIELD:
        return true;
    default:
        return false;
    }
}

/* A comprehension after the first element of a display: rejected in kernels. */
static void reject_comprehension(Parser *p, const char *what)
{
    if (at(p, TOK_FOR) || at(p, TOK_ASYNC))
        unsupported(p, peek(p)->loc, what);
}

/* comp_for: ('for' targets 'in' or_test ('if' or_test)*)+ — host Python only */
static Node *parse_comprehension(Parser *p, TokenKind display, Node *elt, Node *value, const char *what)
{
    if (!at(p, TOK_FOR) || !p->host) {
        reject_comprehension(p, what);
        return NULL;
    }
    Node *n = new_node(p, N_COMP, elt->loc);
    n->op = display;
    n->lhs = elt;
    n->rhs = value;
    while (at(p, TOK_FOR)) {
        Node *clause = new_node(p, N_FOR, next(p)->loc);
        clause->lhs = parse_for_targets(p);
        if (!accept(p, TOK_IN))
            error_at_token(p, "'in' after 'for' target");
        clause->iter = parse_or_test(p);
        while (accept(p, TOK_IF))
            vec_push(&p->ctx->arena, &clause->body, parse_or_test(p));
        vec_push(&p->ctx->arena, &n->items, clause);
    }
    return n;
}

/* ---- parameters -------------------------------------------------------- */

typedef Vec(Param) ParamVec;

/*
 * params: param (',' param)* [',']
 * param:  NAME [':' expr] ['=' expr] | '*' [NAME [':' expr]] | '**' NAME [':' expr] | '/'
 * Lambdas take no annotations.  A bare `*` or `/` marker adds no parameter.
 */
static ParamVec parse_params(Parser *p, TokenKind close, bool annotations)
{
    ParamVec params = {0};
    while (!at(p, close)) {
        Param prm = {0};
        prm.loc = peek(p)->loc;
        if (accept(p, TOK_SLASH)) {
            if (!accept(p, TOK_COMMA))
                break;
            continue;
        }
        prm.star = accept(p, TOK_STAR);
        prm.dstar = !prm.star && accept(p, TOK_DSTAR);
        if (prm.star && (at(p, TOK_COMMA) || at(p, close))) {
            if (!accept(p, TOK_COMMA))
                break;
            continue;
        }
        prm.name = expect(p, TOK_NAME, "a parameter name")->text;
        if (annotations && accept(p, TOK_COLON))
            prm.annotation = parse_expr(p);
        if (!prm.star && !prm.dstar && accept(p, TOK_ASSIGN))
            prm.default_value = parse_expr(p);
        vec_push(&p->ctx->arena, &params, prm);
        if (!accept(p, TOK_COMMA))
            break;
    }
    return params;
}

/* ---- expressions ------------------------------------------------------- */

/* strings: STRING+  (adjacent literals concatenate) */
static Node *parse_strings(Parser *p)
{
    Node *n = new_node(p, N_STR, peek(p)->loc);
    const Token *first = next(p);
    n->str = first->text;
    n->str_len = first->text_len;
    n->fstring = first->fstring;
    while (at(p, TOK_STRING)) {
        const Token *t = next(p);
        char *s = arena_alloc(&p->ctx->arena, (size_t)(n->str_len + t->text_len) + 1);
        memcpy(s, n->str, (size_t)n->str_len);
        memcpy(s + n->str_len, t->text, (size_t)t->text_len);
        n->str = s;
        n->str_len += t->text_len;
        n->fstring |= t->fstring;
    }
    return n;
}

/* star_expr: '*' bitor | expr */
static Node *parse_star_expr(Parser *p)
{
    if (!at(p, TOK_STAR))
        return parse_expr(p);
    Node *n = new_node(p, N_STARRED, next(p)->loc);
    n->lhs = parse_binary(p, 1);
    return n;
}

/* paren: '(' ')' | '(' star_expr ')' | '(' star_expr ',' [star_expr (',' star_expr)* [',']] ')' */
static Node *parse_paren(Parser *p)
{
    const Token *open = next(p);
    if (accept(p, TOK_RPAREN))
        return new_node(p, N_TUPLE, open->loc);
    Node *first = parse_star_expr(p);
    Node *gen = parse_comprehension(p, TOK_LPAREN, first, NULL, "generator expressions");
    if (gen) {
        expect_closing(p, TOK_RPAREN, open);
        return gen;
    }
    if (!at(p, TOK_COMMA)) {
        expect_closing(p, TOK_RPAREN, open);
        return first;
    }
    Node *t = new_node(p, N_TUPLE, open->loc);
    vec_push(&p->ctx->arena, &t->items, first);
    while (accept(p, TOK_COMMA) && !at(p, TOK_RPAREN))
        vec_push(&p->ctx->arena, &t->items, parse_star_expr(p));
    expect_closing(p, TOK_RPAREN, open);
    return t;
}

/* list: '[' [star_expr (',' star_expr)* [',']] ']' */
static Node *parse_list(Parser *p)
{
    const Token *open = next(p);
    Node *n = new_node(p, N_LIST, open->loc);
    while (!at(p, TOK_RBRACKET)) {
        vec_push(&p->ctx->arena, &n->items, parse_star_expr(p));
        Node *comp = n->items.len == 1 ? parse_comprehension(p, TOK_LBRACKET, n->items.data[0], NULL,
                                                            "list comprehensions") : NULL;
        if (comp) {
            expect_closing(p, TOK_RBRACKET, open);
            return comp;
        }
        if (!accept(p, TOK_COMMA))
            break;
    }
    expect_closing(p, TOK_RBRACKET, open);
    return n;
}

/* dict: '{' [expr ':' expr (',' expr ':' expr)* [',']] '}'   (sets are rejected) */
static Node *parse_dict(Parser *p)
{
    const Token *open = next(p);
    Node *n = new_node(p, N_DICT, open->loc);
    while (!at(p, TOK_RBRACE)) {
        if (at(p, TOK_DSTAR))
            unsupported(p, peek(p)->loc, "dict unpacking ('**') expressions");
        Node *key = parse_star_expr(p);
        if (!at(p, TOK_COLON)) {
            Node *comp = n->items.len == 0 ? parse_comprehension(p, TOK_LBRACE, key, NULL, "set comprehensions") : NULL;
            if (comp) {
                expect_closing(p, TOK_RBRACE, open);
                return comp;
            }
            unsupported(p, open->loc, "set displays");
        }
        next(p);
        vec_push(&p->ctx->arena, &n->items, key);
        vec_push(&p->ctx->arena, &n->values, parse_expr(p));
        Node *comp = n->items.len == 1 ? parse_comprehension(p, TOK_LBRACE, key, n->values.data[0],
                                                            "dict comprehensions") : NULL;
        if (comp) {
            expect_closing(p, TOK_RBRACE, open);
            return comp;
        }
        if (!accept(p, TOK_COMMA))
            break;
    }
    expect_closing(p, TOK_RBRACE, open);
    return n;
}

/*
 * atom: NAME | NUMBER | STRING+ | 'True' | 'False' | 'None' | '...'
 *     | paren | list | dict
 */
static Node *parse_atom(Parser *p)
{
    const Token *t = peek(p);
    Node *n;
    switch (t->kind) {
    case TOK_NAME:
        n = new_node(p, N_NAME, next(p)->loc);
        n->name = t->text;
        if (at(p, TOK_WALRUS) && !p->host)
            unsupported(p, peek(p)->loc, "assignment expressions (':=')");
        return n;
    case TOK_INT:
        n = new_node(p, N_INT, next(p)->loc);
        n->ival = t->ival;
        n->big = t->big;
        n->fval = t->fval;
        return n;
    case TOK_FLOAT:
        n = new_node(p, N_FLOAT, next(p)->loc);
        n->fval = t->fval;
        return n;
    case TOK_STRING: return parse_strings(p);
    case TOK_TRUE: return new_node(p, N_TRUE, next(p)->loc);
    case TOK_FALSE: return new_node(p, N_FALSE, next(p)->loc);
    case TOK_NONE: return new_node(p, N_NONE, next(p)->loc);
    case TOK_ELLIPSIS: return new_node(p, N_ELLIPSIS, next(p)->loc);
    case TOK_LPAREN: return parse_paren(p);
    case TOK_LBRACKET: return parse_list(p);
    case TOK_LBRACE: return parse_dict(p);
    case TOK_IMAG: unsupported(p, t->loc, "complex numbers");
    case TOK_YIELD: unsupported(p, t->loc, "'yield' expressions");
    case TOK_AWAIT: unsupported(p, t->loc, "'await' expressions");
    default: error_at_token(p, "an expression");
    }
}

/* arguments: [arg (',' arg)* [',']]
 * arg: NAME '=' expr | '**' expr | '*' expr | expr */
static void parse_call_args(Parser *p, Node *call)
{
    const Token *open = next(p);
    Arena *a = &p->ctx->arena;
    while (!at(p, TOK_RPAREN)) {
        const Token *t = peek(p);
        if (t->kind == TOK_NAME && peek_at(p, 1)->kind == TOK_ASSIGN) {
            next(p);
            next(p);
            Keyword kw = {t->text, parse_expr(p), t->loc};
            vec_push(a, &call->kwargs, kw);
        } else if (accept(p, TOK_DSTAR)) {
            Keyword kw = {NULL, parse_expr(p), t->loc};
            vec_push(a, &call->kwargs, kw);
        } else {
            if (call->kwargs.len > 0 && t->kind != TOK_STAR)
                diag_error(p->ctx, t->loc, "positional argument follows keyword argument");
            Node *arg = parse_star_expr(p);
            Node *gen = parse_comprehension(p, TOK_LPAREN, arg, NULL, "generator expressions");
            vec_push(a, &call->items, gen ? gen : arg);
        }
        if (!accept(p, TOK_COMMA))
            break;
    }
    expect_closing(p, TOK_RPAREN, open);
}

/* subscript: expr | [expr] ':' [expr] [':' [expr]] */
static Node *parse_subscript(Parser *p)
{
    Loc loc = peek(p)->loc;
    Node *lo = NULL;
    if (!at(p, TOK_COLON))
        lo = parse_star_expr(p);
    if (!accept(p, TOK_COLON))
        return lo;
    Node *s = new_node(p, N_SLICE, loc);
    s->lo = lo;
    if (!at(p, TOK_COLON) && !at(p, TOK_COMMA) && !at(p, TOK_RBRACKET))
        s->hi = parse_expr(p);
    if (accept(p, TOK_COLON) && !at(p, TOK_COMMA) && !at(p, TOK_RBRACKET))
        s->step = parse_expr(p);
    return s;
}

/* primary: atom ('.' NAME | '(' arguments ')' | '[' subscript (',' subscript)* [','] ']')* */
static Node *parse_primary(Parser *p)
{
    Node *n = parse_atom(p);
    for (int levels = 0;; levels++) {
        Node *t;
        if (at(p, TOK_DOT) || at(p, TOK_LPAREN) || at(p, TOK_LBRACKET))
            enter(p, peek(p)->loc, "expression");
        if (accept(p, TOK_DOT)) {
            t = new_node(p, N_ATTR, n->loc);
            t->lhs = n;
            t->name = expect(p, TOK_NAME, "an attribute name after '.'")->text;
        } else if (at(p, TOK_LPAREN)) {
            t = new_node(p, N_CALL, n->loc);
            t->lhs = n;
            parse_call_args(p, t);
        } else if (at(p, TOK_LBRACKET)) {
            const Token *open = next(p);
            t = new_node(p, N_SUBSCRIPT, n->loc);
            t->lhs = n;
            do {
                if (at(p, TOK_RBRACKET) && t->items.len > 0)
                    break;
                vec_push(&p->ctx->arena, &t->items, parse_subscript(p));
            } while (accept(p, TOK_COMMA));
            expect_closing(p, TOK_RBRACKET, open);
        } else {
            p->depth -= levels;
            return n;
        }
        n = t;
    }
}

/* power: primary ['**' factor] */
static Node *parse_power(Parser *p)
{
    Node *base = parse_primary(p);
    if (!at(p, TOK_DSTAR))
        return base;
    Node *n = new_node(p, N_BINOP, peek(p)->loc);
    enter(p, n->loc, "expression");
    n->op = next(p)->kind;
    n->lhs = base;
    n->rhs = parse_factor(p);
    leave(p);
    return n;
}

/* factor: ('+' | '-' | '~') factor | power */
static Node *parse_factor(Parser *p)
{
    const Token *t = peek(p);
    if (t->kind != TOK_PLUS && t->kind != TOK_MINUS && t->kind != TOK_TILDE)
        return parse_power(p);
    enter(p, t->loc, "expression");
    next(p);
    Node *n = new_node(p, N_UNARY, t->loc);
    n->op = t->kind;
    n->lhs = parse_factor(p);
    leave(p);
    return n;
}

/* Binary operators from `|` (1) to `* / // % @` (6); higher binds tighter. */
static int binary_prec(TokenKind k)
{
    switch (k) {
    case TOK_PIPE: return 1;
    case TOK_CARET: return 2;
    case TOK_AMP: return 3;
    case TOK_LSHIFT: case TOK_RSHIFT: return 4;
    case TOK_PLUS: case TOK_MINUS: return 5;
    case TOK_STAR: case TOK_SLASH: case TOK_DSLASH: case TOK_PERCENT: case TOK_AT: return 6;
    default: return 0;
    }
}

/*
 * bitor: xor ('|' xor)*      xor: band ('^' band)*      band: shift ('&' shift)*
 * shift: arith (('<<'|'>>') arith)*   arith: term (('+'|'-') term)*
 * term: factor (('*'|'/'|'//'|'%'|'@') factor)*
 * All left-associative, by precedence climbing from min_prec.
 */
static Node *parse_binary(Parser *p, int min_prec)
{
    Node *lhs = parse_factor(p);
    int levels = 0;
    for (;;) {
        int prec = binary_prec(peek(p)->kind);
        if (prec == 0 || prec < min_prec) {
            p->depth -= levels;
            return lhs;
        }
        Node *n = new_node(p, N_BINOP, peek(p)->loc);
        levels += enter_link(p, n->loc);
        n->op = next(p)->kind;
        n->lhs = lhs;
        n->rhs = parse_binary(p, prec + 1);
        lhs = n;
    }
}

/* comp_op: '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in' | 'is' ['not'] */
static bool parse_comp_op(Parser *p, TokenKind *op, bool *negated)
{
    TokenKind k = peek(p)->kind;
    *negated = false;
    switch (k) {
    case TOK_LT: case TOK_GT: case TOK_EQ: case TOK_GE: case TOK_LE: case TOK_NE: case TOK_IN:
        next(p);
        *op = k;
        return true;
    case TOK_NOT:
        if (peek_at(p, 1)->kind != TOK_IN)
            return false;
        next(p);
        next(p);
        *op = TOK_IN;
        *negated = true;
        return true;
    case TOK_IS:
        next(p);
        *op = TOK_IS;
        *negated = accept(p, TOK_NOT);
        return true;
    default:
        return false;
    }
}

/* comparison: bitor (comp_op bitor)* */
static Node *parse_comparison(Parser *p)
{
    Node *lhs = parse_binary(p, 1);
    Loc loc = peek(p)->loc;
    TokenKind op;
    bool negated;
    if (!parse_comp_op(p, &op, &negated))
        return lhs;
    Node *n = new_node(p, N_COMPARE, loc);
    Arena *a = &p->ctx->arena;
    n->lhs = lhs;
    do {
        vec_push(a, &n->ops, op);
        vec_push(a, &n->negated, negated);
        vec_push(a, &n->items, parse_binary(p, 1));
    } while (parse_comp_op(p, &op, &negated));
    return n;
}

/* not_test: 'not' not_test | comparison */
static Node *parse_not_test(Parser *p)
{
    const Token *t = peek(p);
    if (t->kind != TOK_NOT)
        return parse_comparison(p);
    enter(p, t->loc, "expression");
    next(p);
    Node *n = new_node(p, N_UNARY, t->loc);
    n->op = TOK_NOT;
    n->lhs = parse_not_test(p);
    leave(p);
    return n;
}

/* and_test: not_test ('and' not_test)*      or_test: and_test ('or' and_test)* */
static Node *parse_bool(Parser *p, TokenKind op)
{
    Node *lhs = op == TOK_OR ? parse_bool(p, TOK_AND) : parse_not_test(p);
    int levels = 0;
    while (at(p, op)) {
        levels += enter_link(p, peek(p)->loc);
        Node *n = new_node(p, N_BOOLOP, next(p)->loc);
        n->op = op;
        n->lhs = lhs;
        n->rhs = op == TOK_OR ? parse_bool(p, TOK_AND) : parse_not_test(p);
        lhs = n;
    }
    p->depth -= levels;
    return lhs;
}

static Node *parse_or_test(Parser *p) { return parse_bool(p, TOK_OR); }

/* lambda: 'lambda' [params] ':' expr */
static Node *parse_lambda(Parser *p)
{
    Node *n = new_node(p, N_LAMBDA, next(p)->loc);
    ParamVec params = parse_params(p, TOK_COLON, false);
    n->params.data = params.data;
    n->params.len = params.len;
    n->params.cap = params.cap;
    expect_colon(p, "lambda parameters");
    n->lhs = parse_expr(p);
    return n;
}

/* expr: lambda | NAME ':=' expr (host Python only) | or_test ['if' or_test 'else' expr] */
Node *parse_expr(Parser *p)
{
    enter(p, peek(p)->loc, "expression");
    Node *n;
    if (p->host && at(p, TOK_NAME) && peek_at(p, 1)->kind == TOK_WALRUS) {
        n = new_node(p, N_NAMED, peek(p)->loc);
        n->name = next(p)->text;
        next(p);
        n->rhs = parse_expr(p);
    } else if (at(p, TOK_LAMBDA)) {
        n = parse_lambda(p);
    } else {
        n = parse_or_test(p);
        if (at(p, TOK_IF)) {
            Node *t = new_node(p, N_TERNARY, next(p)->loc);
            t->lhs = n;
            t->cond = parse_or_test(p);
            if (!accept(p, TOK_ELSE))
                error_at_token(p, "'else' in conditional expression");
            t->rhs = parse_expr(p);
            n = t;
        }
    }
    leave(p);
    return n;
}

/* testlist: star_expr (',' star_expr)* [',']   — a bare tuple when there is a comma */
static Node *parse_testlist(Parser *p)
{
    Node *first = parse_star_expr(p);
    if (!at(p, TOK_COMMA))
        return first;
    Node *t = new_node(p, N_TUPLE, first->loc);
    vec_push(&p->ctx->arena, &t->items, first);
    while (accept(p, TOK_COMMA) && starts_expr(peek(p)->kind))
        vec_push(&p->ctx->arena, &t->items, parse_star_expr(p));
    return t;
}

/* ---- statements -------------------------------------------------------- */

static const char *target_problem(const Node *n)
{
    switch (n->kind) {
    case N_NAME: case N_ATTR: case N_SUBSCRIPT:
        return NULL;
    case N_STARRED:
        return target_problem(n->lhs);
    case N_TUPLE: case N_LIST:
        for (int i = 0; i < n->items.len; i++) {
            const char *why = target_problem(n->items.data[i]);
            if (why)
                return why;
        }
        return NULL;
    case N_CALL: return "function call";
    case N_INT: case N_FLOAT: case N_STR: case N_TRUE: case N_FALSE: case N_NONE:
    case N_ELLIPSIS: return "literal";
    case N_COMPARE: return "comparison";
    case N_TERNARY: return "conditional expression";
    case N_LAMBDA: return "lambda";
    default: return "expression";
    }
}

static void check_target(Parser *p, const Node *n)
{
    const char *why = target_problem(n);
    if (why)
        diag_error(p->ctx, n->loc, "cannot assign to %s", why);
}

static TokenKind augmented_op(TokenKind k)
{
    static const TokenKind map[][2] = {
        {TOK_PLUSEQ, TOK_PLUS},       {TOK_MINUSEQ, TOK_MINUS},   {TOK_STAREQ, TOK_STAR},
        {TOK_SLASHEQ, TOK_SLASH},     {TOK_DSLASHEQ, TOK_DSLASH}, {TOK_PERCENTEQ, TOK_PERCENT},
        {TOK_DSTAREQ, TOK_DSTAR},     {TOK_LSHIFTEQ, TOK_LSHIFT}, {TOK_RSHIFTEQ, TOK_RSHIFT},
        {TOK_AMPEQ, TOK_AMP},         {TOK_PIPEEQ, TOK_PIPE},     {TOK_CARETEQ, TOK_CARET},
        {TOK_ATEQ, TOK_AT},
    };
    for (size_t i = 0; i < ARRAY_LEN(map); i++)
        if (map[i][0] == k)
            return map[i][1];
    return TOK_EOF;
}

/*
 * expr_stmt: testlist ( ':' expr ['=' testlist]      annotated
 *                     | augop testlist                augmented
 *                     | ('=' testlist)* )            plain / chained
 */
static Node *parse_expr_stmt(Parser *p)
{
    Loc loc = peek(p)->loc;
    Node *first = parse_testlist(p);
    Node *n;
    if (accept(p, TOK_COLON)) {
        if (first->kind != N_NAME && first->kind != N_ATTR && first->kind != N_SUBSCRIPT)
            diag_error(p->ctx, first->loc, "only a single target can be annotated");
        n = new_node(p, N_ANNASSIGN, loc);
        n->lhs = first;
        n->ann = parse_expr(p);
        if (accept(p, TOK_ASSIGN))
            n->rhs = parse_testlist(p);
    } else if (augmented_op(peek(p)->kind) != TOK_EOF) {
        if (first->kind != N_NAME && first->kind != N_ATTR && first->kind != N_SUBSCRIPT)
            diag_error(p->ctx, first->loc, "illegal target for augmented assignment");
        n = new_node(p, N_AUGASSIGN, loc);
        n->op = augmented_op(next(p)->kind);
        n->lhs = first;
        n->rhs = parse_testlist(p);
    } else if (at(p, TOK_ASSIGN)) {
        n = new_node(p, N_ASSIGN, loc);
        Node *value = first;
        while (accept(p, TOK_ASSIGN)) {
            check_target(p, value);
            vec_push(&p->ctx->arena, &n->items, value);
            value = parse_testlist(p);
        }
        n->rhs = value;
    } else {
        n = new_node(p, N_EXPR_STMT, loc);
        n->lhs = first;
    }
    return n;
}

static const struct {
    TokenKind kind;
    const char *what;
} unsupported_stmts[] = {
    {TOK_WITH, "'with' statements"},       {TOK_TRY, "'try' statements"},
    {TOK_GLOBAL, "'global' statements"},
    {TOK_NONLOCAL, "'nonlocal' statements"}, {TOK_DEL, "'del' statements"},
    {TOK_IMPORT, "'import' statements"},   {TOK_FROM, "'from ... import' statements"},
    {TOK_CLASS, "class definitions"},      {TOK_DEF, "nested function definitions"},
    {TOK_AT, "nested function definitions"}, {TOK_ASYNC, "'async' statements"},
    {TOK_YIELD, "'yield' expressions"},    {TOK_AWAIT, "'await' expressions"},
};

static void reject_unsupported_stmt(Parser *p)
{
    const Token *t = peek(p);
    for (size_t i = 0; i < ARRAY_LEN(unsupported_stmts); i++)
        if (unsupported_stmts[i].kind == t->kind)
            unsupported(p, t->loc, unsupported_stmts[i].what);
    if (t->kind == TOK_ELSE || t->kind == TOK_ELIF || t->kind == TOK_EXCEPT ||
        t->kind == TOK_FINALLY)
        diag_error(p->ctx, t->loc, "%s without a matching statement", token_kind_name(t->kind));
    if (t->kind == TOK_INDENT)
        diag_error(p->ctx, t->loc, "unexpected indent");
}

/*
 * small_stmt: 'pass' | 'break' | 'continue' | 'return' [testlist]
 *           | 'raise' [expr ['from' expr]] | 'assert' expr [',' expr] | expr_stmt
 */
static Node *parse_small_stmt(Parser *p)
{
    reject_unsupported_stmt(p);
    const Token *t = peek(p);
    Node *n;
    switch (t->kind) {
    case TOK_PASS: next(p); return new_node(p, N_PASS, t->loc);
    case TOK_BREAK: next(p); return new_node(p, N_BREAK, t->loc);
    case TOK_CONTINUE: next(p); return new_node(p, N_CONTINUE, t->loc);
    case TOK_RETURN:
        next(p);
        n = new_node(p, N_RETURN, t->loc);
        if (starts_expr(peek(p)->kind))
            n->lhs = parse_testlist(p);
        return n;
    case TOK_RAISE: /* an error only if lowering reaches it (a dead constexpr branch is fine) */
        next(p);
        n = new_node(p, N_RAISE, t->loc);
        if (starts_expr(peek(p)->kind))
            n->lhs = parse_expr(p);
        if (n->lhs && accept(p, TOK_FROM))
            n->rhs = parse_expr(p);
        return n;
    case TOK_ASSERT:
        next(p);
        n = new_node(p, N_ASSERT, t->loc);
        n->cond = parse_expr(p);
        if (accept(p, TOK_COMMA))
            n->lhs = parse_expr(p);
        return n;
    default:
        return parse_expr_stmt(p);
    }
}

/* simple_stmts: small_stmt (';' small_stmt)* [';'] NEWLINE */
static void parse_simple_stmts(Parser *p, NodeList *out)
{
    for (;;) {
        Node *n = parse_small_stmt(p);
        n->end_offset = p->prev_end;
        vec_push(&p->ctx->arena, out, n);
        if (!accept(p, TOK_SEMI) || at(p, TOK_NEWLINE) || at(p, TOK_EOF))
            break;
    }
    if (!accept(p, TOK_NEWLINE) && !at(p, TOK_EOF))
        error_at_token(p, "a newline or ';' after the statement");
}

/* suite: simple_stmts | NEWLINE INDENT stmt+ DEDENT */
static void parse_suite(Parser *p, NodeList *body, const char *what, const Token *header)
{
    if (!accept(p, TOK_NEWLINE)) {
        parse_simple_stmts(p, body);
        return;
    }
    if (!at(p, TOK_INDENT))
        diag_error(p->ctx, peek(p)->loc, "expected an indented block after %s on line %d", what,
                   header->loc.line);
    enter(p, peek(p)->loc, "blocks");
    next(p);
    while (!accept(p, TOK_DEDENT) && !at(p, TOK_EOF))
        parse_stmt(p, body);
    leave(p);
}

/* if_stmt: ('if' | 'elif') expr ':' suite ['elif' ... | 'else' ':' suite] */
static Node *parse_if(Parser *p)
{
    const Token *kw = next(p);
    Node *n = new_node(p, N_IF, kw->loc);
    n->cond = parse_expr(p);
    expect_colon(p, kw->kind == TOK_IF ? "'if' condition" : "'elif' condition");
    n->end_offset = p->prev_end;
    parse_suite(p, &n->body, kw->kind == TOK_IF ? "'if' statement" : "'elif' statement", kw);
    if (at(p, TOK_ELIF)) {
        vec_push(&p->ctx->arena, &n->orelse, parse_if(p));
    } else if (at(p, TOK_ELSE)) {
        const Token *e = next(p);
        expect_colon(p, "'else'");
        parse_suite(p, &n->orelse, "'else' statement", e);
    }
    return n;
}

static void parse_loop_else(Parser *p, Node *loop)
{
    if (!at(p, TOK_ELSE))
        return;
    const Token *e = next(p);
    expect_colon(p, "'else'");
    parse_suite(p, &loop->orelse, "'else' statement", e);
}

/* targets: ['*'] bitor (',' ['*'] bitor)* [','] — stops before 'in' */
static Node *parse_for_targets(Parser *p)
{
    Node *first = at(p, TOK_STAR) ? parse_star_expr(p) : parse_binary(p, 1);
    if (!at(p, TOK_COMMA))
        return first;
    Node *t = new_node(p, N_TUPLE, first->loc);
    vec_push(&p->ctx->arena, &t->items, first);
    while (accept(p, TOK_COMMA) && !at(p, TOK_IN))
        vec_push(&p->ctx->arena, &t->items,
                 at(p, TOK_STAR) ? parse_star_expr(p) : parse_binary(p, 1));
    return t;
}

/* for_stmt: 'for' targets 'in' testlist ':' suite ['else' ':' suite] */
static Node *parse_for(Parser *p)
{
    const Token *kw = next(p);
    Node *n = new_node(p, N_FOR, kw->loc);
    n->lhs = parse_for_targets(p);
    check_target(p, n->lhs);
    if (!accept(p, TOK_IN))
        error_at_token(p, "'in' after 'for' target");
    n->iter = parse_testlist(p);
    expect_colon(p, "'for' header");
    n->end_offset = p->prev_end;
    parse_suite(p, &n->body, "'for' statement", kw);
    parse_loop_else(p, n);
    return n;
}

/* while_stmt: 'while' expr ':' suite ['else' ':' suite] */
static Node *parse_while(Parser *p)
{
    const Token *kw = next(p);
    Node *n = new_node(p, N_WHILE, kw->loc);
    n->cond = parse_expr(p);
    expect_colon(p, "'while' condition");
    n->end_offset = p->prev_end;
    parse_suite(p, &n->body, "'while' statement", kw);
    parse_loop_else(p, n);
    return n;
}

/* stmt: if_stmt | for_stmt | while_stmt | simple_stmts */
static void parse_stmt(Parser *p, NodeList *out)
{
    reject_unsupported_stmt(p);
    switch (peek(p)->kind) {
    case TOK_IF: vec_push(&p->ctx->arena, out, parse_if(p)); break;
    case TOK_FOR: vec_push(&p->ctx->arena, out, parse_for(p)); break;
    case TOK_WHILE: vec_push(&p->ctx->arena, out, parse_while(p)); break;
    default: parse_simple_stmts(p, out); break;
    }
}

/* ---- top level --------------------------------------------------------- */

/* Skip one top-level statement unparsed: to its NEWLINE, then any indented block. */
void skip_statement(Parser *p)
{
    while (!at(p, TOK_NEWLINE) && !at(p, TOK_EOF))
        next(p);
    accept(p, TOK_NEWLINE);
    if (!at(p, TOK_INDENT))
        return;
    int depth = 0;
    do {
        if (at(p, TOK_INDENT))
            depth++;
        else if (at(p, TOK_DEDENT))
            depth--;
        next(p);
    } while (depth > 0 && !at(p, TOK_EOF));
}

/*
 * Is the decorator after the '@' at p->pos a jit decorator?
 * jit_decorator: NAME ('.' NAME)* ['(' ...] where the last NAME is `jit`.
 */
static bool is_jit_decorator(Parser *p)
{
    int i = 0;
    const char *last = NULL;
    for (;;) {
        const Token *t = peek_at(p, i++);
        if (t->kind != TOK_NAME)
            return false;
        last = t->text;
        if (peek_at(p, i)->kind != TOK_DOT)
            break;
        i++;
    }
    TokenKind after = peek_at(p, i)->kind;
    return strcmp(last, "jit") == 0 && (after == TOK_NEWLINE || after == TOK_LPAREN);
}

/* funcdef: 'def' NAME '(' [params] ')' ['->' expr] ':' suite */
static void parse_funcdef(Parser *p, FuncDef *f)
{
    const Token *kw = expect(p, TOK_DEF, "'def' after the decorators");
    f->loc = kw->loc;
    f->name = expect(p, TOK_NAME, "a function name after 'def'")->text;
    const Token *open = expect(p, TOK_LPAREN, "'(' after the function name");
    ParamVec params = parse_params(p, TOK_RPAREN, true);
    f->params.data = params.data;
    f->params.len = params.len;
    f->params.cap = params.cap;
    expect_closing(p, TOK_RPAREN, open);
    if (accept(p, TOK_ARROW))
        parse_expr(p);
    expect_colon(p, "function signature");
    parse_suite(p, &f->body, "function definition", kw);
}

/*
 * Speculative parsing of host Python: a checkpoint taken before, and a
 * rollback that forgets every diagnostic issued since.  The caller owns the
 * jmp_buf (setjmp must run in its frame) and restores ctx->on_error.
 */
typedef struct Checkpoint {
    int pos, depth, ndiags, nerrors;
    size_t loglen;
    jmp_buf *outer;
} Checkpoint;

static Checkpoint checkpoint(Parser *p)
{
    Ctx *ctx = p->ctx;
    return (Checkpoint){p->pos, p->depth, ctx->diags.len, ctx->nerrors, ctx->log.len, ctx->on_error};
}

static void rollback(Parser *p, const Checkpoint *c)
{
    Ctx *ctx = p->ctx;
    ctx->diags.len = c->ndiags;
    ctx->nerrors = c->nerrors;
    ctx->log.len = c->loglen;
    if (ctx->log.data)
        ctx->log.data[c->loglen] = 0;
    p->depth = c->depth;
    p->pos = c->pos;
}

/*
 * An opaque decorator: the dotted callee of a decorator whose arguments are
 * Python tilec does not parse (a comprehension, a generator expression).
 * It is kept as an N_CALL with `opaque` set and no arguments, so that the
 * lowerer knows which decorator it was and can fall back on the command line.
 */
static Node *opaque_decorator(Parser *p, int start)
{
    p->pos = start;
    Node *callee = NULL;
    while (at(p, TOK_NAME)) {
        const Token *t = next(p);
        Node *n = NEW(&p->ctx->arena, Node);
        n->kind = callee ? N_ATTR : N_NAME;
        n->loc = t->loc;
        n->name = t->text;
        n->lhs = callee;
        callee = n;
        if (!accept(p, TOK_DOT))
            break;
    }
    if (!callee)
        return NULL;
    Node *call = NEW(&p->ctx->arena, Node);
    call->kind = N_CALL;
    call->loc = p->toks[start].loc;
    call->lhs = callee;
    call->opaque = true;
    return call;
}

/*
 * decorator: '@' expr NEWLINE, parsed speculatively like a global: the
 * arguments are host Python and may use what a kernel may not.
 */
static Node *parse_decorator(Parser *p)
{
    Checkpoint c = checkpoint(p);
    jmp_buf jb;
    Node *volatile d = NULL;
    p->ctx->on_error = &jb;
    p->host = true;
    if (setjmp(jb) == 0)
        d = parse_expr(p);
    p->host = false;
    p->ctx->on_error = c.outer;
    if (!d) {
        rollback(p, &c);
        d = opaque_decorator(p, c.pos);
        if (!d) { /* not even a name: report it as the expression it fails to be */
            p->pos = c.pos;
            parse_expr(p);
        }
        while (!at(p, TOK_NEWLINE) && !at(p, TOK_EOF))
            next(p);
    }
    if (!accept(p, TOK_NEWLINE))
        error_at_token(p, "a newline after the decorator");
    return d;
}

/* decorated: ('@' expr NEWLINE)+ (funcdef | anything, skipped unless a decorator is jit) */
void parse_decorated(Parser *p, Module *m)
{
    int start = p->pos;
    bool jit = false;
    while (accept(p, TOK_AT)) {
        jit |= is_jit_decorator(p);
        while (!at(p, TOK_NEWLINE) && !at(p, TOK_EOF))
            next(p);
        accept(p, TOK_NEWLINE);
    }
    if (!jit || !at(p, TOK_DEF)) {
        skip_statement(p);
        return;
    }
    p->pos = start;
    FuncDef *f = NEW(&p->ctx->arena, FuncDef);
    while (accept(p, TOK_AT))
        vec_push(&p->ctx->arena, &f->decorators, parse_decorator(p));
    parse_funcdef(p, f);
    vec_push(&p->ctx->arena, &m->funcs, f);
}

/*
 * global: NAME '=' testlist NEWLINE | NAME ':' expr '=' testlist NEWLINE
 * Returns 1 when parsed, 0 when the statement binds nothing (`NAME: ann`),
 * -1 when something else follows the value.
 */
static int parse_global_rhs(Parser *p, Global *g)
{
    next(p);
    if (accept(p, TOK_COLON)) {
        g->annotation = parse_expr(p);
        if (!accept(p, TOK_ASSIGN))
            return 0;
    } else {
        expect(p, TOK_ASSIGN, "'='");
    }
    g->value = parse_testlist(p);
    return at(p, TOK_NEWLINE) || at(p, TOK_EOF) ? 1 : -1;
}

/*
 * A module-level assignment, parsed speculatively: any diagnostic is rolled
 * back and the global is recorded with no value (the right side may be any
 * Python, e.g. a list comprehension).
 */
void parse_global(Parser *p, Module *m, bool conditional)
{
    Ctx *ctx = p->ctx;
    Checkpoint c = checkpoint(p);
    Global *g = NEW(&ctx->arena, Global);
    g->name = peek(p)->text;
    g->loc = peek(p)->loc;

    jmp_buf jb;
    volatile int status = -1;
    ctx->on_error = &jb;
    p->host = true;
    if (setjmp(jb) == 0)
        status = parse_global_rhs(p, g);
    p->host = false;
    ctx->on_error = c.outer;
    if (status < 0) {
        rollback(p, &c);
        g->value = NULL;
        g->annotation = NULL;
    }
    p->pos = c.pos;
    skip_statement(p);
    g->seq = m->nseq++;
    g->conditional = conditional;
    if (status != 0)
        vec_push(&ctx->arena, &m->globals, *g);
}

/* ---- wrapped functions: `f = triton.jit(f)` ---------------------------- */

static const char *callee_last_name(const Node *n)
{
    return n->kind == N_NAME || n->kind == N_ATTR ? n->name : NULL;
}

static bool is_wrapping_call(const Node *v)
{
    return v->kind == N_CALL && v->items.len == 1 && v->items.data[0]->kind != N_STARRED;
}

/*
 * wrapper: jit '(' wrapper ')' | (autotune | heuristics) '(' ... ')' '(' wrapper ')' | NAME
 * Appends the decorators, outermost first, and returns the innermost name (or NULL).
 */
static Node *unwrap_decorators(Parser *p, Node *v, NodeList *decos, bool *jit)
{
    while (is_wrapping_call(v)) {
        Node *callee = v->lhs;
        const char *last = callee_last_name(callee->kind == N_CALL ? callee->lhs : callee);
        if (!last)
            return NULL;
        if (callee->kind == N_CALL && (!strcmp(last, "autotune") || !strcmp(last, "heuristics") ||
                                       !strcmp(last, "jit"))) {
            vec_push(&p->ctx->arena, decos, callee);
        } else if (callee->kind != N_CALL && !strcmp(last, "jit")) {
            vec_push(&p->ctx->arena, decos, callee);
        } else {
            return NULL;
        }
        *jit |= !strcmp(last, "jit");
        v = v->items.data[0];
    }
    return v->kind == N_NAME ? v : NULL;
}

static FuncDef *find_funcdef(Module *m, const char *name)
{
    for (int i = m->funcs.len - 1; i >= 0; i--)
        if (!strcmp(m->funcs.data[i]->name, name))
            return m->funcs.data[i];
    return NULL;
}

/* The last undecorated `def name` above the token position `before`, parsed now. */
FuncDef *parse_plain_def(Parser *p, const char *name, int before, bool host)
{
    for (int i = p->plain_defs.len - 1; i >= 0; i--) {
        int pos = p->plain_defs.data[i];
        if (pos > before || strcmp(p->toks[pos + 1].text, name))
            continue;
        /* host code until a kernel calls it: a def that is no valid kernel is left out */
        Checkpoint c = checkpoint(p);
        jmp_buf jb;
        FuncDef *volatile f = NEW(&p->ctx->arena, FuncDef);
        p->pos = pos;
        p->ctx->on_error = &jb;
        p->host = host;
        if (setjmp(jb) == 0)
            parse_funcdef(p, f);
        else
            f = NULL;
        p->host = false;
        p->ctx->on_error = c.outer;
        rollback(p, &c);
        return f;
    }
    return NULL;
}

/*
 * A module-level `g = triton.heuristics({...})(triton.jit(f))` makes `g` a
 * jit function: `f`'s parameters and body under the decorators of the
 * chain (outermost first, then those `f` already had).
 */
void wrap_function(Parser *p, Module *m, const Global *g, int pos)
{
    NodeList decos = {0};
    bool jit = false;
    Node *inner = g->value ? unwrap_decorators(p, g->value, &decos, &jit) : NULL;
    if (!inner || !decos.len)
        return;
    FuncDef *base = find_funcdef(m, inner->name);
    bool only_jit = true;
    for (int i = 0; i < decos.len; i++)
        only_jit &= !strcmp(callee_last_name(decos.data[i]->kind == N_CALL ? decos.data[i]->lhs : decos.data[i]), "jit");
    if (base && only_jit)
        return; /* an alias of a jit function: a global, as before */
    if (!base && jit)
        base = parse_plain_def(p, inner->name, pos, false);
    if (!base)
        return;
    FuncDef *f = NEW(&p->ctx->arena, FuncDef);
    *f = *base;
    f->name = g->name;
    f->decorators = (NodeList){0};
    for (int i = 0; i < decos.len; i++)
        vec_push(&p->ctx->arena, &f->decorators, decos.data[i]);
    for (int i = 0; i < base->decorators.len; i++)
        vec_push(&p->ctx->arena, &f->decorators, base->decorators.data[i]);
    for (int i = 0; i < m->funcs.len; i++)
        if (m->funcs.data[i] == base && !strcmp(base->name, g->name)) {
            m->funcs.data[i] = f; /* `f = triton.jit(f)` rebinds f */
            return;
        }
    vec_push(&p->ctx->arena, &m->funcs, f);
}

void parser_init(Parser *p, Ctx *ctx, TokenArray toks)
{
    if (toks.len == 0 || toks.data[toks.len - 1].kind != TOK_EOF)
        BUG("token array does not end with TOK_EOF");
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->toks = toks.data;
    p->ntoks = toks.len;
    p->max_depth = ctx->max_depth > 0 ? ctx->max_depth : TILEC_DEFAULT_MAX_DEPTH;
}

Node *parse_expression_source(Ctx *ctx, TokenArray toks)
{
    Parser p;
    parser_init(&p, ctx, toks);
    p.chains_nest = true;
    accept(&p, TOK_INDENT);
    Node *n = parse_testlist(&p);
    accept(&p, TOK_NEWLINE);
    while (accept(&p, TOK_DEDENT))
        ;
    if (!at(&p, TOK_EOF))
        diag_error(ctx, peek(&p)->loc, "unexpected %s after the expression", describe(&p, peek(&p)));
    return n;
}

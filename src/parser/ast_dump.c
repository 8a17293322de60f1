/*
 * ast_dump.c — the stable text form of the AST (for tests and --dump ast).
 *
 * Expressions print as S-expressions on one line: `(BinOp + (Name x) (Int 1))`.
 * Statements print one per line, indented by two spaces per level; compound
 * statements print their header, then their bodies one level deeper:
 *
 *     If (Name c)
 *       (Pass)
 *     else
 *       (Return (Int 1))
 *
 * The output holds no pointers and no floating-point noise: floats print in
 * the shortest form that reads back to the same double.
 */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *node_kind_name(NodeKind k)
{
    static const char *const names[] = {
#define X(kind, name) name,
        NODE_LIST(X)
#undef X
    };
    if ((unsigned)k >= ARRAY_LEN(names))
        return "?";
    return names[k];
}

/* An operator without the quotes of its token spelling: `+`, `not`, `//`. */
static void put_op(StrBuf *out, TokenKind op)
{
    const char *s = token_kind_name(op);
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'')
        sb_putn(out, s + 1, n - 2);
    else
        sb_puts(out, s);
}

static void put_double(StrBuf *out, double v)
{
    StrBuf text = {0};
    for (int prec = 1; prec <= 17; prec++) {
        text.len = 0;
        sb_printf(&text, "%.*g", prec, v);
        if (strtod(text.data, NULL) == v)
            break;
    }
    sb_puts(out, text.data);
    if (!strpbrk(text.data, ".eEni"))
        sb_puts(out, ".0");
    sb_free(&text);
}

static void put_string(StrBuf *out, const char *s, int len, bool fstring)
{
    sb_puts(out, fstring ? "f\"" : "\"");
    for (int i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_puts(out, "\\\""); break;
        case '\\': sb_puts(out, "\\\\"); break;
        case '\n': sb_puts(out, "\\n"); break;
        case '\t': sb_puts(out, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7F)
                sb_printf(out, "\\x%02x", c);
            else
                sb_putc(out, (char)c);
        }
    }
    sb_putc(out, '"');
}

static void dump_expr(StrBuf *out, const Node *n);

static void dump_opt(StrBuf *out, const Node *n)
{
    if (n)
        dump_expr(out, n);
    else
        sb_putc(out, '_');
}

static void dump_items(StrBuf *out, const NodeList *items)
{
    for (int i = 0; i < items->len; i++) {
        sb_putc(out, ' ');
        dump_expr(out, items->data[i]);
    }
}

static void dump_param(StrBuf *out, const Param *prm)
{
    sb_puts(out, prm->star ? "*" : prm->dstar ? "**" : "");
    sb_puts(out, prm->name);
    if (prm->annotation) {
        sb_puts(out, ": ");
        dump_expr(out, prm->annotation);
    }
    if (prm->default_value) {
        sb_puts(out, " = ");
        dump_expr(out, prm->default_value);
    }
}

/* `(BinOp + (BinOp + a b) c)` for a chain as long as its left spine: the openings of the
 * spine, the leftmost operand, then each link's right operand, with a loop. */
static void dump_chain(StrBuf *out, const Node *n)
{
    Arena a = {0};
    Vec(const Node *) spine = {0};
    const Node *k = n;
    for (; k->kind == N_BINOP || k->kind == N_BOOLOP; k = k->lhs) {
        vec_push(&a, &spine, k);
        sb_printf(out, "(%s ", node_kind_name(k->kind));
        put_op(out, k->op);
        sb_putc(out, ' ');
    }
    dump_expr(out, k);
    for (int i = spine.len - 1; i >= 0; i--) {
        sb_putc(out, ' ');
        dump_expr(out, spine.data[i]->rhs);
        sb_putc(out, ')');
    }
    arena_free(&a);
}

static void dump_expr(StrBuf *out, const Node *n)
{
    if (n->kind == N_BINOP || n->kind == N_BOOLOP) {
        dump_chain(out, n);
        return;
    }
    sb_printf(out, "(%s", node_kind_name(n->kind));
    switch (n->kind) {
    case N_NAME: sb_printf(out, " %s", n->name); break;
    case N_INT:
        if (n->big) {
            sb_putc(out, ' ');
            put_double(out, n->fval);
            sb_puts(out, " big");
        } else {
            sb_printf(out, " %lld", (long long)n->ival);
        }
        break;
    case N_FLOAT: sb_putc(out, ' '); put_double(out, n->fval); break;
    case N_STR: sb_putc(out, ' '); put_string(out, n->str, n->str_len, n->fstring); break;
    case N_TRUE: case N_FALSE: case N_NONE: case N_ELLIPSIS: break;
    case N_UNARY:
        sb_putc(out, ' ');
        put_op(out, n->op);
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        break;
    case N_COMPARE:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        for (int i = 0; i < n->items.len; i++) {
            bool neg = n->negated.data[i];
            TokenKind op = n->ops.data[i];
            sb_puts(out, " ");
            if (neg && op == TOK_IN)
                sb_puts(out, "not ");
            put_op(out, op);
            if (neg && op == TOK_IS)
                sb_puts(out, " not");
            sb_putc(out, ' ');
            dump_expr(out, n->items.data[i]);
        }
        break;
    case N_TERNARY:
        sb_putc(out, ' ');
        dump_expr(out, n->cond);
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        sb_putc(out, ' ');
        dump_expr(out, n->rhs);
        break;
    case N_CALL:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        dump_items(out, &n->items);
        for (int i = 0; i < n->kwargs.len; i++) {
            const Keyword *kw = &n->kwargs.data[i];
            sb_printf(out, " %s%s=", kw->name ? "" : "**", kw->name ? kw->name : "");
            dump_expr(out, kw->value);
        }
        break;
    case N_ATTR:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        sb_printf(out, " %s", n->name);
        break;
    case N_SUBSCRIPT:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        dump_items(out, &n->items);
        break;
    case N_SLICE:
        sb_putc(out, ' ');
        dump_opt(out, n->lo);
        sb_putc(out, ' ');
        dump_opt(out, n->hi);
        sb_putc(out, ' ');
        dump_opt(out, n->step);
        break;
    case N_TUPLE: case N_LIST: dump_items(out, &n->items); break;
    case N_DICT:
        for (int i = 0; i < n->items.len; i++) {
            sb_putc(out, ' ');
            dump_expr(out, n->items.data[i]);
            sb_puts(out, ": ");
            dump_expr(out, n->values.data[i]);
        }
        break;
    case N_LAMBDA:
        sb_puts(out, " (");
        for (int i = 0; i < n->params.len; i++) {
            if (i)
                sb_putc(out, ' ');
            dump_param(out, &n->params.data[i]);
        }
        sb_puts(out, ") ");
        dump_expr(out, n->lhs);
        break;
    case N_STARRED: sb_putc(out, ' '); dump_expr(out, n->lhs); break;
    case N_COMP:
        sb_puts(out, n->op == TOK_LBRACKET ? " list " : n->op == TOK_LPAREN ? " generator " : n->rhs ? " dict " : " set ");
        dump_expr(out, n->lhs);
        if (n->rhs) {
            sb_puts(out, ": ");
            dump_expr(out, n->rhs);
        }
        for (int i = 0; i < n->items.len; i++) {
            const Node *c = n->items.data[i];
            sb_puts(out, " for ");
            dump_expr(out, c->lhs);
            sb_puts(out, " in ");
            dump_expr(out, c->iter);
            for (int k = 0; k < c->body.len; k++) {
                sb_puts(out, " if ");
                dump_expr(out, c->body.data[k]);
            }
        }
        break;
    case N_NAMED:
        sb_printf(out, " %s := ", n->name);
        dump_expr(out, n->rhs);
        break;
    default: sb_puts(out, " ?"); break;
    }
    sb_putc(out, ')');
}

static void dump_body(StrBuf *out, const NodeList *body, int indent)
{
    for (int i = 0; i < body->len; i++)
        ast_dump_node(out, body->data[i], indent);
}

static void dump_else(StrBuf *out, const Node *n, int indent)
{
    if (n->orelse.len == 0)
        return;
    sb_printf(out, "%*selse\n", indent * 2, "");
    dump_body(out, &n->orelse, indent + 1);
}

/* One statement (with its bodies), or an expression without a newline. */
void ast_dump_node(StrBuf *out, const Node *n, int indent)
{
    if (n->kind < N_EXPR_STMT) {
        dump_expr(out, n);
        return;
    }
    sb_printf(out, "%*s", indent * 2, "");
    switch (n->kind) {
    case N_IF:
        sb_puts(out, "If ");
        dump_expr(out, n->cond);
        sb_putc(out, '\n');
        dump_body(out, &n->body, indent + 1);
        dump_else(out, n, indent);
        return;
    case N_FOR:
        sb_puts(out, "For ");
        dump_expr(out, n->lhs);
        sb_puts(out, " in ");
        dump_expr(out, n->iter);
        sb_putc(out, '\n');
        dump_body(out, &n->body, indent + 1);
        dump_else(out, n, indent);
        return;
    case N_WHILE:
        sb_puts(out, "While ");
        dump_expr(out, n->cond);
        sb_putc(out, '\n');
        dump_body(out, &n->body, indent + 1);
        dump_else(out, n, indent);
        return;
    default:
        break;
    }
    sb_printf(out, "(%s", node_kind_name(n->kind));
    switch (n->kind) {
    case N_EXPR_STMT: sb_putc(out, ' '); dump_expr(out, n->lhs); break;
    case N_ASSIGN:
        dump_items(out, &n->items);
        sb_puts(out, " = ");
        dump_expr(out, n->rhs);
        break;
    case N_AUGASSIGN:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        sb_putc(out, ' ');
        put_op(out, n->op);
        sb_puts(out, "= ");
        dump_expr(out, n->rhs);
        break;
    case N_ANNASSIGN:
        sb_putc(out, ' ');
        dump_expr(out, n->lhs);
        sb_puts(out, ": ");
        dump_expr(out, n->ann);
        if (n->rhs) {
            sb_puts(out, " = ");
            dump_expr(out, n->rhs);
        }
        break;
    case N_RETURN:
        if (n->lhs) {
            sb_putc(out, ' ');
            dump_expr(out, n->lhs);
        }
        break;
    case N_RAISE:
        if (n->lhs) {
            sb_putc(out, ' ');
            dump_expr(out, n->lhs);
        }
        break;
    case N_ASSERT:
        sb_putc(out, ' ');
        dump_expr(out, n->cond);
        if (n->lhs) {
            sb_putc(out, ' ');
            dump_expr(out, n->lhs);
        }
        break;
    default: break;
    }
    sb_puts(out, ")\n");
}

void ast_dump_module(StrBuf *out, const Module *m)
{
    for (int i = 0; i < m->imports.len; i++) {
        const Import *im = &m->imports.data[i];
        sb_printf(out, "Import %s = %.*s%s%s%s%s%s\n", im->as, im->level, "..........", im->module,
                  im->name && *im->module ? "." : "", im->name ? im->name : "", im->whole ? " (whole)" : "",
                  im->conditional ? " (conditional)" : "");
    }
    for (int i = 0; i < m->globals.len; i++) {
        const Global *g = &m->globals.data[i];
        sb_printf(out, "Global %s", g->name);
        if (g->annotation) {
            sb_puts(out, ": ");
            dump_expr(out, g->annotation);
        }
        sb_puts(out, " = ");
        if (g->value)
            dump_expr(out, g->value);
        else
            sb_puts(out, "<unparsed>");
        sb_puts(out, g->conditional ? " (conditional)\n" : "\n");
    }
    for (int i = 0; i < m->funcs.len; i++) {
        const FuncDef *f = m->funcs.data[i];
        sb_printf(out, "FunctionDef %s\n", f->name);
        for (int j = 0; j < f->decorators.len; j++) {
            sb_puts(out, "  @");
            dump_expr(out, f->decorators.data[j]);
            sb_putc(out, '\n');
        }
        for (int j = 0; j < f->params.len; j++) {
            sb_puts(out, "  param ");
            dump_param(out, &f->params.data[j]);
            sb_putc(out, '\n');
        }
        sb_puts(out, "  body\n");
        dump_body(out, &f->body, 2);
    }
}

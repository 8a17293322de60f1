/*
 * ast.h — the syntax tree of a kernel file.
 *
 * Contract: parse_module() reads the token array of a whole .py file and
 * returns every function decorated with a jit decorator (`@triton.jit`,
 * `@jit`, `@triton.jit(...)`, possibly under `@triton.autotune(...)` /
 * `@triton.heuristics(...)`), plus module-level simple assignments
 * (`NAME = expr`, `NAME: ann = expr`) as globals, plus `name = triton.jit(f)`
 * wrappers (recorded as jit functions), plus the undecorated top-level defs
 * that parse (host_funcs, for pyeval), and `import` and `from ... import`
 * statements as imports.  Those are also read inside module-level
 * `if`/`elif`/`else` and `try`/`except`/`else`/`finally` blocks, marked
 * conditional.  Decorator arguments and globals are host Python:
 * comprehensions are parsed there (N_COMP), never in kernels.  All other
 * top-level Python is skipped by indentation, never
 * parsed.  Inside jit functions the parser accepts the statement and
 * expression grammar below; anything else is a diagnostic naming the
 * construct.  The tree is plain data in the Ctx arena; no semantic checks.
 */
#ifndef TILEC_AST_H
#define TILEC_AST_H

#include "../common.h"
#include "../lexer.h"

typedef struct Node Node;
typedef Vec(Node *) NodeList;

/* X(kind, name) — name is used by the AST dumper (parse_dump). */
#define NODE_LIST(X)                                                           \
    /* expressions */                                                          \
    X(N_NAME, "Name")        /* name */                                        \
    X(N_INT, "Int")          /* ival (big: fval holds the value) */            \
    X(N_FLOAT, "Float")      /* fval */                                        \
    X(N_STR, "Str")          /* str, str_len; fstring */                       \
    X(N_TRUE, "True")                                                          \
    X(N_FALSE, "False")                                                        \
    X(N_NONE, "None")                                                          \
    X(N_ELLIPSIS, "Ellipsis")                                                  \
    X(N_BINOP, "BinOp")      /* op (TokenKind), lhs, rhs */                    \
    X(N_UNARY, "Unary")      /* op (TOK_MINUS/PLUS/TILDE/NOT), lhs */          \
    X(N_BOOLOP, "BoolOp")    /* op (TOK_AND/TOK_OR), lhs, rhs */               \
    X(N_COMPARE, "Compare")  /* lhs, items = operands after lhs, ops[] */      \
    X(N_TERNARY, "IfExp")    /* cond, lhs (then), rhs (else) */                \
    X(N_CALL, "Call")        /* lhs = callee, items = positional, kwargs */    \
    X(N_ATTR, "Attribute")   /* lhs, name */                                   \
    X(N_SUBSCRIPT, "Subscript") /* lhs, items = indices (N_SLICE/None/expr) */ \
    X(N_SLICE, "Slice")      /* lo, hi, step (each may be NULL) */             \
    X(N_TUPLE, "Tuple")      /* items */                                       \
    X(N_LIST, "List")        /* items */                                       \
    X(N_DICT, "Dict")        /* items = keys, values */                        \
    X(N_LAMBDA, "Lambda")    /* params, lhs = body */                          \
    X(N_STARRED, "Starred")  /* lhs; `*args` in a call or target */            \
    X(N_COMP, "Comprehension") /* host Python only: op (TOK_LBRACKET list,     \
                                  TOK_LBRACE set/dict, TOK_LPAREN generator),  \
                                  lhs element (dict: key), rhs dict value,     \
                                  items = N_FOR clauses (body = if conditions) */ \
    /* statements */                                                           \
    X(N_EXPR_STMT, "Expr")   /* lhs */                                         \
    X(N_ASSIGN, "Assign")    /* items = targets (a = b = v), rhs = value */    \
    X(N_AUGASSIGN, "AugAssign") /* op (binary TokenKind), lhs target, rhs */   \
    X(N_ANNASSIGN, "AnnAssign") /* lhs target, ann, rhs (may be NULL) */       \
    X(N_IF, "If")            /* cond, body, orelse (elif = nested N_IF) */     \
    X(N_FOR, "For")          /* lhs target, iter, body, orelse */              \
    X(N_WHILE, "While")      /* cond, body, orelse */                          \
    X(N_RETURN, "Return")    /* lhs (may be NULL) */                           \
    X(N_PASS, "Pass")                                                          \
    X(N_BREAK, "Break")                                                        \
    X(N_CONTINUE, "Continue")                                                  \
    X(N_ASSERT, "Assert")    /* cond, lhs = message (may be NULL) */           \
    X(N_RAISE, "Raise")      /* lhs = exception (may be NULL), rhs = cause */ \
    X(N_NAMED, "NamedExpr")  /* host Python only: name := rhs */

typedef enum NodeKind {
#define X(k, s) k,
    NODE_LIST(X)
#undef X
    N__COUNT
} NodeKind;

typedef struct Keyword {
    const char *name;    /* NULL for `**kwargs` */
    Node *value;
    Loc loc;
} Keyword;

typedef struct Param {
    const char *name;
    Node *annotation;    /* may be NULL; `tl.constexpr` marks a constexpr */
    Node *default_value; /* may be NULL */
    Loc loc;
    bool star;           /* *args */
    bool dstar;          /* **kwargs */
} Param;

struct Node {
    NodeKind kind;
    Loc loc;             /* first token; but binary, boolean and comparison
                            operators: the (first) operator; IfExp: its 'if' */
    int end_offset;      /* statements: byte offset just past the statement's
                            last token; if/for/while: past the ':' of the
                            header (elif: its own header) */
    TokenKind op;
    const char *name;
    const char *str;
    int str_len;
    int64_t ival;
    double fval;
    bool big, fstring;
    bool opaque;         /* N_CALL decorator whose arguments were not parsed */
    Node *lhs, *rhs, *cond, *ann, *iter;
    Node *lo, *hi, *step;
    NodeList items;      /* call args, tuple/list elements, dict keys, targets */
    NodeList values;     /* dict values */
    Vec(TokenKind) ops;  /* N_COMPARE: one per item (TOK_IN/TOK_IS with negated) */
    Vec(bool) negated;   /* N_COMPARE: `not in` / `is not` */
    Vec(Keyword) kwargs; /* N_CALL */
    Vec(Param) params;   /* N_LAMBDA */
    NodeList body, orelse;
};

typedef struct Module Module;

typedef struct FuncDef {
    const char *name;
    Module *module;      /* the file it was defined in */
    Loc loc;             /* of the `def` keyword */
    Vec(Param) params;
    NodeList decorators; /* decorator expressions, outermost first */
    NodeList body;
} FuncDef;              /* only @triton.jit functions are kept; the rest is skipped */

typedef struct Global {
    const char *name;
    Node *value;         /* parsed eagerly, NULL if unparsable */
    Node *annotation;
    Loc loc;
    int seq;             /* order among the module's globals and imports */
    bool conditional;    /* under a module-level if/try */
} Global;

/* One name an import statement binds.
 *   import a.b.c          -> module "a.b.c", name NULL, as "a", whole
 *   import a.b.c as m     -> module "a.b.c", name NULL, as "m"
 *   from ..a.b import f   -> level 2, module "a.b", name "f", as "f"
 *   from . import f as g  -> level 1, module "",    name "f", as "g" */
typedef struct Import {
    const char *module;  /* dotted, after the leading dots; "" for `from . import` */
    int level;           /* the leading dots: 0 absolute */
    const char *name;    /* the imported name, NULL for `import M` */
    const char *as;      /* the name bound in the importing module */
    bool whole;          /* `import a.b.c` binds the top package `a` */
    Loc loc;
    int seq;
    bool conditional;
} Import;

struct Module {
    Vec(FuncDef *) funcs;  /* jit functions in file order */
    Vec(Global) globals;   /* module-level NAME = expr, later ones shadow */
    Vec(FuncDef *) host_funcs; /* undecorated defs that parse (as host Python), for pyeval */
    Vec(Import) imports;   /* module-level imports, in file order */
    const Source *src;     /* the file it was read from; NULL: a folder without __init__.py */
    int nseq;
    /* set by the lowerer for a module it imported: */
    const char *name;          /* dotted, for messages */
    const char *package_dir;   /* a package's folder (its submodules' home), else NULL */
};

Module *parse_module(Ctx *ctx, TokenArray toks);

/* Parse a lone expression (used by -s/-D/--grid values); src must be ctx->src. */
Node *parse_expression_source(Ctx *ctx, TokenArray toks);

/* Stable text dump of the tree, for tests and --dump ast. */
void ast_dump_module(StrBuf *out, const Module *m);
void ast_dump_node(StrBuf *out, const Node *n, int indent);
const char *node_kind_name(NodeKind k);

#endif

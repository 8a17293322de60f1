/* test_parser.c — top-level skipping, the jit-function grammar, and its diagnostics. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "parser/ast.h"

static Ctx ctx;
static Source src;
static jmp_buf jb;
static Module *mod;
static Node *expr;
static StrBuf dump;

static void setup_ctx(const char *text)
{
    src = (Source){"t.py", text, strlen(text)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    ctx.on_error = &jb;
    mod = NULL;
    expr = NULL;
}

/* Lex and parse a whole file; false if a diagnostic unwound. */
static bool parse(const char *text)
{
    setup_ctx(text);
    if (setjmp(jb))
        return false;
    mod = parse_module(&ctx, lex_source(&ctx));
    return true;
}

static bool parse_expr_text(const char *text)
{
    setup_ctx(text);
    if (setjmp(jb))
        return false;
    expr = parse_expression_source(&ctx, lex_source(&ctx));
    return true;
}

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&dump);
}

TestSuite(parser, .fini = reset);

static const char *dump_module(void)
{
    sb_free(&dump);
    ast_dump_module(&dump, mod);
    return dump.data ? dump.data : "";
}

/* The dump of a kernel whose body is `body` (each line indented by 4). */
static const char *dump_body(const char *body)
{
    static char text[4096];
    snprintf(text, sizeof text, "@triton.jit\ndef k(x):\n%s", body);
    cr_assert(parse(text), "parse failed:\n%s", ctx.log.data);
    cr_assert_eq(mod->funcs.len, 1);
    sb_free(&dump);
    const NodeList *b = &mod->funcs.data[0]->body;
    for (int i = 0; i < b->len; i++)
        ast_dump_node(&dump, b->data[i], 0);
    return dump.data ? dump.data : "";
}

static const char *dump_expr(const char *text)
{
    cr_assert(parse_expr_text(text), "parse of %s failed:\n%s", text, ctx.log.data);
    sb_free(&dump);
    ast_dump_node(&dump, expr, 0);
    return dump.data;
}

/* The first diagnostic line must be `want`, and parsing must have unwound. */
static void expect_error(const char *text, const char *want)
{
    cr_assert_not(parse(text), "no error for:\n%s", text);
    cr_assert_eq(ctx.nerrors, 1);
    size_t n = strlen(want);
    cr_assert(ctx.log.len > n && strncmp(ctx.log.data, want, n) == 0 && ctx.log.data[n] == '\n',
              "got: %s\nwant: %s", ctx.log.data, want);
}

static void expect_body_error(const char *body, const char *want)
{
    char text[1024];
    snprintf(text, sizeof text, "@triton.jit\ndef k(x):\n%s", body);
    expect_error(text, want);
}

/* ---- a realistic file -------------------------------------------------- */

static const char kernel_file[] =
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "from typing import Optional\n"
    "\n"
    "BLOCK: tl.constexpr = 128\n"
    "X = tl.constexpr(3)\n"
    "Y = [i for i in range(3)]\n"
    "a, b = 1, 2\n"
    "Z: int\n"
    "\n"
    "class Runner:\n"
    "    '''not a kernel'''\n"
    "    @staticmethod\n"
    "    @triton.jit\n"
    "    def inner(x):\n"
    "        try:\n"
    "            yield x\n"
    "        except Exception:\n"
    "            raise\n"
    "\n"
    "def helper(x):\n"
    "    with torch.no_grad():\n"
    "        return {k: v for k, v in x.items()}\n"
    "\n"
    "@torch.compile(mode='max')\n"
    "def compiled(x): return x @ x\n"
    "\n"
    "@triton.autotune(\n"
    "    configs=[\n"
    "        triton.Config({'BLOCK': 128}, num_warps=4, num_stages=2),\n"
    "        triton.Config({'BLOCK': 256}, num_warps=8),\n"
    "    ],\n"
    "    key=['n_elements'],\n"
    ")\n"
    "@triton.heuristics({'EVEN': lambda args: args['n_elements'] % args['BLOCK'] == 0})\n"
    "@triton.jit(do_not_specialize=['n_elements'])\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr: tl.tensor, n_elements,\n"
    "               BLOCK: tl.constexpr, EVEN: tl.constexpr = False,):\n"
    "    \"\"\"Adds.\"\"\"\n"
    "    pid = tl.program_id(axis=0)\n"
    "    offsets = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offsets < n_elements\n"
    "    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
    "    tl.store(out_ptr + offsets, x, mask=mask)\n"
    "\n"
    "def add(x: torch.Tensor, y: torch.Tensor):\n"
    "    out = torch.empty_like(x)\n"
    "    grid = lambda meta: (triton.cdiv(x.numel(), meta['BLOCK']),)\n"
    "    add_kernel[grid](x, y, out, x.numel())\n"
    "    print(f\"{out.shape=} {'done'!r}\")\n"
    "    return out\n"
    "\n"
    "@jit\n"
    "def helper2(a, b) -> tl.tensor:\n"
    "    return a + b\n"
    "\n"
    "wrapped = triton.jit(helper)\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    x = torch.rand(1024, device='cuda')\n"
    "    print(add(x, x))\n"
    "else:\n"
    "    pass\n";

Test(parser, realistic_file_keeps_only_jit_functions_and_globals)
{
    cr_assert(parse(kernel_file), "%s", ctx.log.data);
    cr_assert_eq(ctx.nerrors, 0);
    cr_assert_eq(ctx.diags.len, 0);
    cr_assert(ctx.log.len == 0, "%s", ctx.log.data);
    cr_assert_str_eq(dump_module(),
        "Import torch = torch (whole)\n"
        "Import triton = triton (whole)\n"
        "Import tl = triton.language\n"
        "Import Optional = typing.Optional\n"
        "Global BLOCK: (Attribute (Name tl) constexpr) = (Int 128)\n"
        "Global X = (Call (Attribute (Name tl) constexpr) (Int 3))\n"
        "Global Y = (Comprehension list (Name i) for (Name i) in (Call (Name range) (Int 3)))\n"
        "Global wrapped = (Call (Attribute (Name triton) jit) (Name helper))\n"
        "Global x = (Call (Attribute (Name torch) rand) (Int 1024) device=(Str \"cuda\")) (conditional)\n"
        "FunctionDef add_kernel\n"
        "  @(Call (Attribute (Name triton) autotune) configs=(List (Call (Attribute (Name triton) Config) "
        "(Dict (Str \"BLOCK\"): (Int 128)) num_warps=(Int 4) num_stages=(Int 2)) (Call (Attribute (Name "
        "triton) Config) (Dict (Str \"BLOCK\"): (Int 256)) num_warps=(Int 8))) key=(List (Str \"n_elements\")))\n"
        "  @(Call (Attribute (Name triton) heuristics) (Dict (Str \"EVEN\"): (Lambda (args) (Compare (BinOp % "
        "(Subscript (Name args) (Str \"n_elements\")) (Subscript (Name args) (Str \"BLOCK\"))) == (Int 0)))))\n"
        "  @(Call (Attribute (Name triton) jit) do_not_specialize=(List (Str \"n_elements\")))\n"
        "  param x_ptr\n"
        "  param y_ptr\n"
        "  param out_ptr: (Attribute (Name tl) tensor)\n"
        "  param n_elements\n"
        "  param BLOCK: (Attribute (Name tl) constexpr)\n"
        "  param EVEN: (Attribute (Name tl) constexpr) = (False)\n"
        "  body\n"
        "    (Expr (Str \"Adds.\"))\n"
        "    (Assign (Name pid) = (Call (Attribute (Name tl) program_id) axis=(Int 0)))\n"
        "    (Assign (Name offsets) = (BinOp + (BinOp * (Name pid) (Name BLOCK)) (Call (Attribute (Name tl) "
        "arange) (Int 0) (Name BLOCK))))\n"
        "    (Assign (Name mask) = (Compare (Name offsets) < (Name n_elements)))\n"
        "    (Assign (Name x) = (Call (Attribute (Name tl) load) (BinOp + (Name x_ptr) (Name offsets)) "
        "mask=(Name mask) other=(Float 0.0)))\n"
        "    (Expr (Call (Attribute (Name tl) store) (BinOp + (Name out_ptr) (Name offsets)) (Name x) "
        "mask=(Name mask)))\n"
        "FunctionDef helper2\n"
        "  @(Name jit)\n"
        "  param a\n"
        "  param b\n"
        "  body\n"
        "    (Return (BinOp + (Name a) (Name b)))\n");
}

Test(parser, function_and_statement_locations)
{
    cr_assert(parse(kernel_file));
    const FuncDef *f = mod->funcs.data[0];
    cr_assert_str_eq(f->name, "add_kernel");
    cr_assert_eq(f->loc.line, 38);
    cr_assert_eq(f->loc.col, 1);
    cr_assert_eq(f->decorators.len, 3);
    cr_assert_eq(f->params.data[2].loc.line, 38);
    cr_assert_eq(f->params.data[2].loc.col, 30);
    const Node *mask = f->body.data[3];
    cr_assert_eq(mask->loc.line, 43);
    cr_assert_eq(mask->loc.col, 5);
    int start = (int)(strstr(kernel_file, "mask = offsets") - kernel_file);
    cr_assert_eq(mask->end_offset - start, (int)strlen("mask = offsets < n_elements"));
    const Global *g = &mod->globals.data[0];
    cr_assert_str_eq(g->name, "BLOCK");
    cr_assert_eq(g->loc.line, 6);
}

Test(parser, compound_statement_end_offset_covers_the_header)
{
    const char *text = "@triton.jit\ndef k(n):\n    for i in range(n):  # loop\n        x = 1; y = 2\n";
    cr_assert(parse(text), "%s", ctx.log.data);
    const Node *loop = mod->funcs.data[0]->body.data[0];
    int start = (int)(strstr(text, "for") - text);
    cr_assert_eq(loop->loc.line, 3);
    cr_assert_eq(loop->end_offset - start, (int)strlen("for i in range(n):"));
    const Node *y = loop->body.data[1];
    cr_assert_eq(y->loc.col, 16);
    cr_assert_eq(y->end_offset, (int)(strstr(text, "y = 2") - text) + 5);
}

Test(parser, decorators_of_non_jit_functions_are_not_parsed)
{
    cr_assert(parse("@some.decorator(lambda: [x for x in y], {1, 2})\ndef f():\n    with a: pass\n"
                    "@property\nclass C: pass\n@triton.jit\ndef k(): pass\n"));
    cr_assert_eq(mod->funcs.len, 1);
    cr_assert_str_eq(mod->funcs.data[0]->name, "k");
}

Test(parser, jit_decorator_forms)
{
    cr_assert(parse("@triton.runtime.jit.jit\ndef a(): pass\n@jit()\ndef b(): pass\n"
                    "@triton.jitter\ndef c(): pass\n@jit.foo\ndef d(): pass\n"
                    "@triton.jit\nasync def e(): pass\n"));
    cr_assert_eq(mod->funcs.len, 2);
    cr_assert_str_eq(mod->funcs.data[0]->name, "a");
    cr_assert_str_eq(mod->funcs.data[1]->name, "b");
}

Test(parser, parameters)
{
    cr_assert(parse("@triton.jit\ndef k(a, b: int, c=1, d: tl.constexpr = 2, *args, e, **kw) -> None:\n"
                    "    pass\n@triton.jit\ndef m(a, *, b, /): pass\n"));
    const FuncDef *f = mod->funcs.data[0];
    cr_assert_eq(f->params.len, 7);
    cr_assert_str_eq(f->params.data[3].name, "d");
    cr_assert_not_null(f->params.data[3].annotation);
    cr_assert_not_null(f->params.data[3].default_value);
    cr_assert(f->params.data[4].star);
    cr_assert_str_eq(f->params.data[4].name, "args");
    cr_assert(f->params.data[6].dstar);
    cr_assert_eq(mod->funcs.data[1]->params.len, 2);
}

Test(parser, globals)
{
    cr_assert(parse("N = 4\nN2: tl.constexpr = N * 2\nBAD = [i for i in x]\nT = 1, 2\n"
                    "C = a = 3\nD = 1; E = 2\nF = {1, 2}\nG = (\n  1 +\n  2)\nH: int\nx.y = 1\n"));
    cr_assert_eq(ctx.nerrors, 0);
    cr_assert_eq(ctx.diags.len, 0);
    cr_assert(ctx.log.len == 0);
    cr_assert_str_eq(dump_module(),
                     "Global N = (Int 4)\n"
                     "Global N2: (Attribute (Name tl) constexpr) = (BinOp * (Name N) (Int 2))\n"
                     "Global BAD = (Comprehension list (Name i) for (Name i) in (Name x))\n"
                     "Global T = (Tuple (Int 1) (Int 2))\n"
                     "Global C = <unparsed>\n"
                     "Global D = <unparsed>\n"
                     "Global F = <unparsed>\n"
                     "Global G = (BinOp + (Int 1) (Int 2))\n");
}

Test(parser, failed_global_keeps_earlier_diagnostics_and_handler)
{
    setup_ctx("Y = [i for i in range(3) if]\n");
    jmp_buf *outer = ctx.on_error;
    diag_warning(&ctx, (Loc){1, 1, NULL}, "earlier");
    size_t loglen = ctx.log.len;
    if (setjmp(jb))
        cr_assert_fail("unexpected error: %s", ctx.log.data);
    mod = parse_module(&ctx, lex_source(&ctx));
    cr_assert_eq(ctx.on_error, outer);
    cr_assert_eq(ctx.diags.len, 1);
    cr_assert_eq(ctx.log.len, loglen);
    cr_assert_eq(ctx.nerrors, 0);
    cr_assert_null(mod->globals.data[0].value);
}

/* ---- expressions ------------------------------------------------------- */

Test(parser, precedence)
{
    static const struct { const char *src, *dump; } cases[] = {
        {"a + b * c", "(BinOp + (Name a) (BinOp * (Name b) (Name c)))"},
        {"a - b - c", "(BinOp - (BinOp - (Name a) (Name b)) (Name c))"},
        {"a ** b ** c", "(BinOp ** (Name a) (BinOp ** (Name b) (Name c)))"},
        {"-x**2", "(Unary - (BinOp ** (Name x) (Int 2)))"},
        {"2**-1", "(BinOp ** (Int 2) (Unary - (Int 1)))"},
        {"-a * b", "(BinOp * (Unary - (Name a)) (Name b))"},
        {"~a & b", "(BinOp & (Unary ~ (Name a)) (Name b))"},
        {"a | b ^ c & d << e + f",
         "(BinOp | (Name a) (BinOp ^ (Name b) (BinOp & (Name c) (BinOp << (Name d) "
         "(BinOp + (Name e) (Name f))))))"},
        {"a >> 1 << 2", "(BinOp << (BinOp >> (Name a) (Int 1)) (Int 2))"},
        {"a // b % c @ d", "(BinOp @ (BinOp % (BinOp // (Name a) (Name b)) (Name c)) (Name d))"},
        {"a / b * c", "(BinOp * (BinOp / (Name a) (Name b)) (Name c))"},
        {"not a == b", "(Unary not (Compare (Name a) == (Name b)))"},
        {"a or b and not c", "(BoolOp or (Name a) (BoolOp and (Name b) (Unary not (Name c))))"},
        {"a and b or c", "(BoolOp or (BoolOp and (Name a) (Name b)) (Name c))"},
        {"a < b <= c != d", "(Compare (Name a) < (Name b) <= (Name c) != (Name d))"},
        {"x not in y", "(Compare (Name x) not in (Name y))"},
        {"x is not None", "(Compare (Name x) is not (None))"},
        {"a == b > c >= d", "(Compare (Name a) == (Name b) > (Name c) >= (Name d))"},
        {"a + 1 < b | c", "(Compare (BinOp + (Name a) (Int 1)) < (BinOp | (Name b) (Name c)))"},
        {"a if c else b", "(IfExp (Name c) (Name a) (Name b))"},
        {"a if c else b if d else e",
         "(IfExp (Name c) (Name a) (IfExp (Name d) (Name b) (Name e)))"},
        {"x or y if c else z", "(IfExp (Name c) (BoolOp or (Name x) (Name y)) (Name z))"},
        {"lambda x, y=1: x + y", "(Lambda (x y = (Int 1)) (BinOp + (Name x) (Name y)))"},
        {"lambda: 0", "(Lambda () (Int 0))"},
        {"lambda a: a if a else -a", "(Lambda (a) (IfExp (Name a) (Name a) (Unary - (Name a))))"},
        {"-(a + b)", "(Unary - (BinOp + (Name a) (Name b)))"},
        {"(((x)))", "(Name x)"},
        {"+x", "(Unary + (Name x))"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert_str_eq(dump_expr(cases[i].src), cases[i].dump, "for %s", cases[i].src);
        reset();
    }
}

Test(parser, atoms_and_trailers)
{
    static const struct { const char *src, *dump; } cases[] = {
        {"x[:, None]", "(Subscript (Name x) (Slice _ _ _) (None))"},
        {"x[None, :]", "(Subscript (Name x) (None) (Slice _ _ _))"},
        {"x[a:b]", "(Subscript (Name x) (Slice (Name a) (Name b) _))"},
        {"x[a:b:c]", "(Subscript (Name x) (Slice (Name a) (Name b) (Name c)))"},
        {"x[::2]", "(Subscript (Name x) (Slice _ _ (Int 2)))"},
        {"x[1:]", "(Subscript (Name x) (Slice (Int 1) _ _))"},
        {"x[:n, 1::]", "(Subscript (Name x) (Slice _ (Name n) _) (Slice (Int 1) _ _))"},
        {"x[i, j]", "(Subscript (Name x) (Name i) (Name j))"},
        {"x[i,]", "(Subscript (Name x) (Name i))"},
        {"x[(i, j)]", "(Subscript (Name x) (Tuple (Name i) (Name j)))"},
        {"a.b.c(d)[e]", "(Subscript (Call (Attribute (Attribute (Name a) b) c) (Name d)) (Name e))"},
        {"f(x, *a, k=1, **kw)",
         "(Call (Name f) (Name x) (Starred (Name a)) k=(Int 1) **=(Name kw))"},
        {"f()", "(Call (Name f))"},
        {"f(a,)", "(Call (Name f) (Name a))"},
        {"(a, b)", "(Tuple (Name a) (Name b))"},
        {"()", "(Tuple)"},
        {"(a,)", "(Tuple (Name a))"},
        {"a, b", "(Tuple (Name a) (Name b))"},
        {"a,", "(Tuple (Name a))"},
        {"[1, 2.5, 'x']", "(List (Int 1) (Float 2.5) (Str \"x\"))"},
        {"[]", "(List)"},
        {"{'a': 1, 'b': [2]}", "(Dict (Str \"a\"): (Int 1) (Str \"b\"): (List (Int 2)))"},
        {"{}", "(Dict)"},
        {"'a' \"b\" '''c'''", "(Str \"abc\")"},
        {"'x' f'{y}'", "(Str f\"x{y}\")"},
        {"True, False, None, ...", "(Tuple (True) (False) (None) (Ellipsis))"},
        {"1e-5, 0x10, 1.0, 0.1", "(Tuple (Float 1e-05) (Int 16) (Float 1.0) (Float 0.1))"},
        {"99999999999999999999", "(Int 1e+20 big)"},
        {"'a\\nb\"'", "(Str \"a\\nb\\\"\")"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert_str_eq(dump_expr(cases[i].src), cases[i].dump, "for %s", cases[i].src);
        reset();
    }
}

Test(parser, expression_locations)
{
    cr_assert(parse_expr_text("a + f(b)[c].d"));
    cr_assert_eq(expr->loc.col, 3);             /* binary operators point at the operator */
    cr_assert_eq(expr->lhs->loc.col, 1);
    cr_assert_eq(expr->rhs->loc.col, 5);        /* trailers start at their primary */
    cr_assert_eq(expr->rhs->lhs->kind, N_SUBSCRIPT);
}

Test(parser, expression_source_errors)
{
    cr_assert_not(parse_expr_text("a b"));
    cr_assert_str_eq(ctx.log.data, "t.py:1:3: error: unexpected name 'b' after the expression\n  a b\n    ^\n");
    reset();
    cr_assert_not(parse_expr_text(""));
    cr_assert(strstr(ctx.log.data, "error: expected an expression, got end of file"));
    reset();
    cr_assert(parse_expr_text("  (n + 1) // 2\n"));
    cr_assert_eq(expr->kind, N_BINOP);
}

/* ---- statements -------------------------------------------------------- */

Test(parser, assignments)
{
    cr_assert_str_eq(dump_body("    a, b = f(x)\n"
                               "    (a, b) = x\n"
                               "    [a, *b] = x\n"
                               "    a = b = c\n"
                               "    x.y[0] = 1\n"
                               "    x: tl.constexpr = 3\n"
                               "    y: int\n"
                               "    x = 1; y = 2;\n"
                               "    z = a, b\n"),
                     "(Assign (Tuple (Name a) (Name b)) = (Call (Name f) (Name x)))\n"
                     "(Assign (Tuple (Name a) (Name b)) = (Name x))\n"
                     "(Assign (List (Name a) (Starred (Name b))) = (Name x))\n"
                     "(Assign (Name a) (Name b) = (Name c))\n"
                     "(Assign (Subscript (Attribute (Name x) y) (Int 0)) = (Int 1))\n"
                     "(AnnAssign (Name x): (Attribute (Name tl) constexpr) = (Int 3))\n"
                     "(AnnAssign (Name y): (Name int))\n"
                     "(Assign (Name x) = (Int 1))\n"
                     "(Assign (Name y) = (Int 2))\n"
                     "(Assign (Name z) = (Tuple (Name a) (Name b)))\n");
}

Test(parser, augmented_assignments)
{
    cr_assert_str_eq(dump_body("    a += 1\n    a -= 1\n    a *= 1\n    a /= 1\n    a //= 1\n"
                               "    a %= 1\n    a **= 1\n    a <<= 1\n    a >>= 1\n    a &= 1\n"
                               "    a |= 1\n    a ^= 1\n    a @= b\n    x[i] += 1, 2\n"),
                     "(AugAssign (Name a) += (Int 1))\n(AugAssign (Name a) -= (Int 1))\n"
                     "(AugAssign (Name a) *= (Int 1))\n(AugAssign (Name a) /= (Int 1))\n"
                     "(AugAssign (Name a) //= (Int 1))\n(AugAssign (Name a) %= (Int 1))\n"
                     "(AugAssign (Name a) **= (Int 1))\n(AugAssign (Name a) <<= (Int 1))\n"
                     "(AugAssign (Name a) >>= (Int 1))\n(AugAssign (Name a) &= (Int 1))\n"
                     "(AugAssign (Name a) |= (Int 1))\n(AugAssign (Name a) ^= (Int 1))\n"
                     "(AugAssign (Name a) @= (Name b))\n"
                     "(AugAssign (Subscript (Name x) (Name i)) += (Tuple (Int 1) (Int 2)))\n");
}

Test(parser, control_flow)
{
    cr_assert_str_eq(dump_body("    if a:\n        pass\n    elif b: return\n    elif c:\n"
                               "        break\n    else:\n        continue\n"
                               "    for i, j in zip(a, b):\n        x = i\n    else:\n        pass\n"
                               "    for (i) in range(0, n, 2): pass\n"
                               "    while x < 10:\n        x += 1\n    else: pass\n"
                               "    return a, b\n"
                               "    return\n"
                               "    assert x > 0, 'msg'\n"
                               "    assert y\n"
                               "    '''doc'''\n"
                               "    if a: x = 1; y = 2\n"),
                     "If (Name a)\n"
                     "  (Pass)\n"
                     "else\n"
                     "  If (Name b)\n"
                     "    (Return)\n"
                     "  else\n"
                     "    If (Name c)\n"
                     "      (Break)\n"
                     "    else\n"
                     "      (Continue)\n"
                     "For (Tuple (Name i) (Name j)) in (Call (Name zip) (Name a) (Name b))\n"
                     "  (Assign (Name x) = (Name i))\n"
                     "else\n"
                     "  (Pass)\n"
                     "For (Name i) in (Call (Name range) (Int 0) (Name n) (Int 2))\n"
                     "  (Pass)\n"
                     "While (Compare (Name x) < (Int 10))\n"
                     "  (AugAssign (Name x) += (Int 1))\n"
                     "else\n"
                     "  (Pass)\n"
                     "(Return (Tuple (Name a) (Name b)))\n"
                     "(Return)\n"
                     "(Assert (Compare (Name x) > (Int 0)) (Str \"msg\"))\n"
                     "(Assert (Name y))\n"
                     "(Expr (Str \"doc\"))\n"
                     "If (Name a)\n"
                     "  (Assign (Name x) = (Int 1))\n"
                     "  (Assign (Name y) = (Int 2))\n");
}

Test(parser, elif_is_a_nested_if_at_the_elif)
{
    cr_assert(parse("@triton.jit\ndef k(a):\n    if a:\n        pass\n    elif b:\n        pass\n"));
    const Node *n = mod->funcs.data[0]->body.data[0];
    cr_assert_eq(n->orelse.len, 1);
    cr_assert_eq(n->orelse.data[0]->kind, N_IF);
    cr_assert_eq(n->orelse.data[0]->loc.line, 5);
    cr_assert_eq(n->orelse.data[0]->loc.col, 5);
}

Test(parser, node_kind_names)
{
    cr_assert_str_eq(node_kind_name(N_TERNARY), "IfExp");
    cr_assert_str_eq(node_kind_name(N_RAISE), "Raise");
}

/* `raise` parses: it is an error only where lowering reaches it (a dead constexpr branch is fine). */
Test(parser, raise_statement)
{
    cr_assert_str_eq(dump_body("    raise ValueError(\"why\") from e\n    raise\n"),
                     "(Raise (Call (Name ValueError) (Str \"why\")))\n"
                     "(Raise)\n");
}

/* ---- diagnostics ------------------------------------------------------- */

Test(parser, unsupported_statements)
{
    static const struct { const char *body, *message; } cases[] = {
        {"    with a:\n        pass\n", "t.py:3:5: error: 'with' statements are not supported in @triton.jit functions"},
        {"    try:\n        pass\n    except E:\n        pass\n", "t.py:3:5: error: 'try' statements are not supported in @triton.jit functions"},
        {"    global g\n", "t.py:3:5: error: 'global' statements are not supported in @triton.jit functions"},
        {"    nonlocal g\n", "t.py:3:5: error: 'nonlocal' statements are not supported in @triton.jit functions"},
        {"    x = 1; del x\n", "t.py:3:12: error: 'del' statements are not supported in @triton.jit functions"},
        {"    import math\n", "t.py:3:5: error: 'import' statements are not supported in @triton.jit functions"},
        {"    from a import b\n", "t.py:3:5: error: 'from ... import' statements are not supported in @triton.jit functions"},
        {"    class C:\n        pass\n", "t.py:3:5: error: class definitions are not supported in @triton.jit functions"},
        {"    def g():\n        pass\n", "t.py:3:5: error: nested function definitions are not supported in @triton.jit functions"},
        {"    @triton.jit\n    def g():\n        pass\n", "t.py:3:5: error: nested function definitions are not supported in @triton.jit functions"},
        {"    yield x\n", "t.py:3:5: error: 'yield' expressions are not supported in @triton.jit functions"},
        {"    y = yield x\n", "t.py:3:9: error: 'yield' expressions are not supported in @triton.jit functions"},
        {"    async for i in x:\n        pass\n", "t.py:3:5: error: 'async' statements are not supported in @triton.jit functions"},
        {"    await x\n", "t.py:3:5: error: 'await' expressions are not supported in @triton.jit functions"},
        {"    if (n := 10) > 5:\n        pass\n", "t.py:3:11: error: assignment expressions (':=') are not supported in @triton.jit functions"},
        {"    y = [i for i in x]\n", "t.py:3:12: error: list comprehensions are not supported in @triton.jit functions"},
        {"    y = sum(i for i in x)\n", "t.py:3:15: error: generator expressions are not supported in @triton.jit functions"},
        {"    y = (i for i in x)\n", "t.py:3:12: error: generator expressions are not supported in @triton.jit functions"},
        {"    y = {k: 1 for k in x}\n", "t.py:3:15: error: dict comprehensions are not supported in @triton.jit functions"},
        {"    y = {k for k in x}\n", "t.py:3:12: error: set comprehensions are not supported in @triton.jit functions"},
        {"    y = {1, 2}\n", "t.py:3:9: error: set displays are not supported in @triton.jit functions"},
        {"    y = {**a}\n", "t.py:3:10: error: dict unpacking ('**') expressions are not supported in @triton.jit functions"},
        {"    y = 1j\n", "t.py:3:9: error: complex numbers are not supported in @triton.jit functions"},
        {"    if x: with a: pass\n", "t.py:3:11: error: 'with' statements are not supported in @triton.jit functions"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        expect_body_error(cases[i].body, cases[i].message);
        reset();
    }
}

Test(parser, syntax_errors)
{
    static const struct { const char *body, *message; } cases[] = {
        {"    for i in range(3)\n        pass\n", "t.py:3:22: error: expected ':' after 'for' header"},
        {"    for i range(3):\n        pass\n", "t.py:3:11: error: expected 'in' after 'for' target, got name 'range'"},
        {"    if x\n        pass\n", "t.py:3:9: error: expected ':' after 'if' condition"},
        {"    while x\n        pass\n", "t.py:3:12: error: expected ':' after 'while' condition"},
        {"    if x:\n        pass\n    else\n        pass\n", "t.py:5:9: error: expected ':' after 'else'"},
        {"    y = f(a, )\n    z = (1 + )\n", "t.py:4:14: error: expected an expression, got ')'"},
        {"    y = (a +\n         b c)\n", "t.py:4:12: error: expected ')' to close '(' at 3:9"},
        {"    y = x[1 2]\n", "t.py:3:13: error: expected ']' to close '[' at 3:10"},
        {"    y = {'a': 1 'b'}\n", "t.py:3:17: error: expected '}' to close '{' at 3:9"},
        {"    if x:\n    pass\n", "t.py:4:5: error: expected an indented block after 'if' statement on line 3"},
        {"    y = 1 2\n", "t.py:3:11: error: expected a newline or ';' after the statement, got integer '2'"},
        {"    f(x) = 1\n", "t.py:3:5: error: cannot assign to function call"},
        {"    a + b = 1\n", "t.py:3:7: error: cannot assign to expression"},
        {"    1 = x\n", "t.py:3:5: error: cannot assign to literal"},
        {"    a, b += 1\n", "t.py:3:5: error: illegal target for augmented assignment"},
        {"    a, b: int = 1\n", "t.py:3:5: error: only a single target can be annotated"},
        {"    y = a if b\n", "t.py:3:15: error: expected 'else' in conditional expression, got newline"},
        {"    y = f(a=1, b)\n", "t.py:3:16: error: positional argument follows keyword argument"},
        {"    y = x.\n", "t.py:3:11: error: expected an attribute name after '.', got newline"},
        {"    else:\n        pass\n", "t.py:3:5: error: 'else' without a matching statement"},
        {"    x = 1\n        y = 2\n", "t.py:4:9: error: unexpected indent"},
        {"    return )\n", "t.py:3:12: error: unmatched ')'"},
        {"    y = lambda x 1\n", "t.py:3:18: error: expected ':' after lambda parameters"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        expect_body_error(cases[i].body, cases[i].message);
        reset();
    }
}

Test(parser, header_errors)
{
    expect_error("@triton.jit\ndef k(x y):\n    pass\n", "t.py:2:9: error: expected ')' to close '(' at 2:6");
    reset();
    expect_error("@triton.jit\ndef k(1):\n    pass\n", "t.py:2:7: error: expected a parameter name, got integer '1'");
    reset();
    expect_error("@triton.jit\ndef k(x)\n    pass\n", "t.py:2:9: error: expected ':' after function signature");
    reset();
    expect_error("@triton.jit\ndef k(x):\nx = 1\n", "t.py:3:1: error: expected an indented block after function definition on line 2");
    reset();
    expect_error("@triton.jit(\ndef k(x): pass\n", "t.py:1:12: error: '(' was never closed");
    reset();
    expect_error("@triton.jit\n@\ndef k(x): pass\n", "t.py:2:2: error: expected an expression, got newline");
    reset();
    expect_error("  x = 1\n", "t.py:1:3: error: unexpected indent");
}

Test(parser, error_caret_points_at_the_offending_token)
{
    expect_body_error("    y = (1 + )\n", "t.py:3:14: error: expected an expression, got ')'");
    cr_assert_str_eq(ctx.log.data, "t.py:3:14: error: expected an expression, got ')'\n"
                                   "      y = (1 + )\n"
                                   "               ^\n");
}

/* "@triton.jit\ndef k(x):\n    y = " + open*depth + "x" + close*depth */
static const char *nested(const char *open, const char *close, int depth)
{
    static char text[8192];
    int n = snprintf(text, sizeof text, "@triton.jit\ndef k(x):\n    y = ");
    for (int i = 0; i < depth; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s", open);
    n += snprintf(text + n, sizeof text - (size_t)n, "x");
    for (int i = 0; i < depth; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s", close);
    snprintf(text + n, sizeof text - (size_t)n, "\n");
    return text;
}

Test(parser, nesting_limit)
{
    /* the body is one level and `y = (...` the second: 198 parens fit, 199 do not */
    cr_assert(parse(nested("(", ")", 198)), "%s", ctx.log.data);
    reset();
    expect_error(nested("(", ")", 199), "t.py:3:208: error: expression nested too deeply (limit 200)");
    reset();
    expect_error(nested("(", ")", 250), "t.py:3:208: error: expression nested too deeply (limit 200)");
    reset();
    expect_error(nested("-", "", 250), "t.py:3:207: error: expression nested too deeply (limit 200)");
    reset();
    expect_error(nested("not ", "", 250), "t.py:3:801: error: expression nested too deeply (limit 200)");
    reset();

    setup_ctx(nested("[", "]", 6));
    ctx.max_depth = 4;
    if (setjmp(jb) == 0) {
        mod = parse_module(&ctx, lex_source(&ctx));
        cr_assert_fail("no error");
    }
    cr_assert_str_eq(ctx.log.data, "t.py:3:12: error: expression nested too deeply (limit 4)\n"
                                   "      y = [[[[[[x]]]]]]\n"
                                   "             ^\n");
}

/* A flat chain nests nothing: `x + x + ... + x` of 10,000 terms parses, in a kernel as in
 * the dump (whose text is the same nested form for any length), while parentheses nest. */
Test(parser, long_chains_are_not_nesting)
{
    enum { TERMS = 10000 };
    static char text[64 + 2 * 6 * TERMS];
    int n = snprintf(text, sizeof text, "@triton.jit\ndef k(x):\n    y = x");
    for (int i = 1; i < TERMS; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " + x");
    n += snprintf(text + n, sizeof text - (size_t)n, "\n    z = x");
    for (int i = 1; i < TERMS; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " and x");
    snprintf(text + n, sizeof text - (size_t)n, "\n");
    cr_assert(parse(text), "%s", ctx.log.data);
    const Node *y = mod->funcs.data[0]->body.data[0]->rhs;
    int links = 0;
    for (; y->kind == N_BINOP; y = y->lhs)
        links++;
    cr_expect_eq(links, TERMS - 1, "left-associative: one link per '+'");
    reset();
    cr_assert_str_eq(dump_expr("a - b + c and d and e"),
                     "(BoolOp and (BoolOp and (BinOp + (BinOp - (Name a) (Name b)) (Name c)) (Name d)) (Name e))");
    reset();
    /* the grid's evaluator recurses on chains: there a link still counts */
    static char grid[16 + 4 * 300];
    n = snprintf(grid, sizeof grid, "n");
    for (int i = 0; i < 250; i++)
        n += snprintf(grid + n, sizeof grid - (size_t)n, " + n");
    cr_assert_not(parse_expr_text(grid));
    cr_assert(strstr(ctx.log.data, "error: expression nested too deeply (limit 200)"), "%s", ctx.log.data);
}

Test(parser, deep_blocks_are_limited)
{
    static char text[8192];
    int n = snprintf(text, sizeof text, "@triton.jit\ndef k(x):\n");
    for (int i = 1; i <= 5; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%*swhile x:\n", 4 * i, "");
    snprintf(text + n, sizeof text - (size_t)n, "%*spass\n", 24, "");
    cr_assert(parse(text), "%s", ctx.log.data);
    reset();
    setup_ctx(text);
    ctx.max_depth = 3;
    if (setjmp(jb) == 0) {
        mod = parse_module(&ctx, lex_source(&ctx));
        cr_assert_fail("no error");
    }
    cr_assert(strstr(ctx.log.data, "nested too deeply (limit 3)"), "%s", ctx.log.data);
}

Test(parser, imports_in_every_spelling_and_under_if_and_try)
{
    cr_assert(parse("import triton.language as tl, numpy\n"
                    "from triton import language as tl2\n"
                    "from triton.language import (program_id,\n"
                    "    arange as ar,)\n"
                    "from . import utils\n"
                    "from ..ops.op import exp\n"
                    "from ...x import *\n"
                    "if compare_version('triton', '3.0.0'):\n"
                    "    try:\n"
                    "        from triton.language.extra.libdevice import rsqrt\n"
                    "    except ModuleNotFoundError:\n"
                    "        from triton.language.extra.cuda.libdevice import rsqrt\n"
                    "elif os.environ.get('X', '1').lower() in ('1', 'true'):\n"
                    "    exp2 = tl.exp2\n"
                    "else:\n"
                    "    from triton.language.math import rsqrt\n"
                    "if os.getenv('FAST') == '1':\n"
                    "    exp = tl.math.exp\n"
                    "elif not os.environ.get('FAST'):\n"
                    "    log = tl.log\n"
                    "else:\n"
                    "    log = tl.log2\n"
                    "EPS: tl.constexpr = 1e-6\n"),
              "%s", ctx.log.data);
    cr_assert_str_eq(dump_module(),
        "Import tl = triton.language\n"
        "Import numpy = numpy (whole)\n"
        "Import tl2 = triton.language\n"
        "Import program_id = triton.language.program_id\n"
        "Import ar = triton.language.arange\n"
        "Import utils = .utils\n"
        "Import exp = ..ops.op.exp\n"
        "Import rsqrt = triton.language.extra.libdevice.rsqrt (conditional)\n"
        "Import rsqrt = triton.language.extra.cuda.libdevice.rsqrt (conditional)\n"
        "Global exp2 = (Attribute (Name tl) exp2) (conditional)\n"
        "Global log = (Attribute (Name tl) log)\n"
        "Global EPS: (Attribute (Name tl) constexpr) = (Float 1e-06)\n");
}

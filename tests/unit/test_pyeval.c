/* test_pyeval.c — the host-Python evaluator behind decorator arguments. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "parser/ast.h"
#include "tileir/pyeval.h"

static Ctx ctx;
static Source src;
static jmp_buf jb;

static void show(StrBuf *sb, const PyValue *v)
{
    switch (v->kind) {
    case PY_UNKNOWN: sb_puts(sb, "?"); break;
    case PY_NONE: sb_puts(sb, "None"); break;
    case PY_BOOL: sb_puts(sb, v->i ? "True" : "False"); break;
    case PY_INT: sb_printf(sb, "%lld", (long long)v->i); break;
    case PY_FLOAT: sb_printf(sb, "%g", v->f); break;
    case PY_STR: sb_printf(sb, "'%s'", v->s); break;
    case PY_LIST: case PY_TUPLE:
        sb_putc(sb, v->kind == PY_LIST ? '[' : '(');
        for (int i = 0; i < v->items.len; i++) {
            if (i)
                sb_puts(sb, ", ");
            show(sb, v->items.data[i]);
        }
        sb_putc(sb, v->kind == PY_LIST ? ']' : ')');
        break;
    case PY_DICT:
        sb_putc(sb, '{');
        for (int i = 0; i < v->items.len; i++) {
            sb_puts(sb, i ? ", " : "");
            show(sb, v->items.data[i]);
            sb_puts(sb, ": ");
            show(sb, v->vals.data[i]);
        }
        sb_putc(sb, '}');
        break;
    case PY_CONFIG:
        sb_puts(sb, "Config(");
        show(sb, v->kwargs);
        sb_puts(sb, ", ");
        show(sb, v->opts);
        sb_putc(sb, ')');
        break;
    default: sb_puts(sb, "<fn>"); break;
    }
}

static StrBuf text, shown;

/* Parse `prelude` then `RESULT = expr`, and print the value of RESULT. */
static const char *eval_text(const char *prelude, const char *expr)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&text);
    sb_free(&shown);
    sb_printf(&text, "%sRESULT = %s\n", prelude, expr);
    src = (Source){"t.py", text.data, text.len};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    ctx.on_error = &jb;
    if (setjmp(jb))
        return "<parse error>";
    Module *m = parse_module(&ctx, lex_source(&ctx));
    const Global *g = &m->globals.data[m->globals.len - 1];
    if (!g->value)
        return "<unparsed>";
    show(&shown, py_eval(py_new(&ctx, m), g->value));
    return shown.data ? shown.data : "";
}

typedef struct Case {
    const char *prelude, *expr, *want;
} Case;

static const Case cases[] = {
    /* literals and operators */
    {"", "1 + 2 * 3", "7"},
    {"", "-7 // 2, -7 % 2, 2 ** 10, 7 / 2", "(-4, 1, 1024, 3.5)"},
    {"", "[1, 2] + [3] * 2", "[1, 2, 3, 3]"},
    {"", "'a' + 'b' if 1 < 2 <= 2 else None", "'ab'"},
    {"", "3 in (1, 2, 3) and 'x' not in 'abc'", "True"},
    {"", "[10, 20, 30][-1], [1, 2, 3, 4][1:3]", "(30, [2, 3])"},
    {"", "{'a': 1, 'b': 2}['b']", "2"},
    /* module-level names, in file order */
    {"N = 2\nN = N * 4\n", "N", "8"},
    {"L = [1]\n", "L + [2]", "[1, 2]"},
    /* comprehensions and builtins */
    {"", "[x * x for x in range(5) if x % 2 == 0]", "[0, 4, 16]"},
    {"", "{k: v for k, v in zip('ab', [1, 2])}", "?"},
    {"", "{k: v for k, v in zip(['a', 'b'], [1, 2])}", "{'a': 1, 'b': 2}"},
    {"", "[(i, x) for i, x in enumerate([5, 6])]", "[(0, 5), (1, 6)]"},
    {"import itertools\n", "list(itertools.product([1, 2], 'x' if False else [3]))", "[(1, 3), (2, 3)]"},
    {"", "len([1, 2]), min(3, 1), max([2, 5]), sum(range(4)), all(x > 0 for x in [1, 2])",
     "(2, 1, 5, 6, True)"},
    {"", "sorted([3, 1, 2]), list(reversed((1, 2))), int(2.7), float(1), str(5), bool([])",
     "([1, 2, 3], [2, 1], 2, 1, '5', False)"},
    {"", "dict(a=1), tuple([1])", "({'a': 1}, (1))"},
    /* triton.Config */
    {"import triton\n", "triton.Config({'BLOCK': 64}, num_warps=2)", "Config({'BLOCK': 64}, {'num_warps': 2})"},
    /* host defs */
    {"def f(n, w=4):\n    out = []\n    for i in range(n):\n        if i == 1:\n            continue\n"
     "        out.append(i * w)\n    out.extend([0])\n    return out\n",
     "f(3), f(2, w=1)", "([0, 8, 0], [0, 0])"},
    {"def g(x):\n    y = x\n    y += 1\n    return y if y > 2 else -y\n", "g(1), g(5)", "(-2, 6)"},
    {"", "(lambda a, b=2: a * b)(3)", "6"},
    /* unknown, never an error */
    {"", "undefined_name + 1", "?"},
    {"from m import cfg\n", "cfg()", "?"},
    {"", "f'{1}'", "?"},
    {"", "1 // 0", "?"},
    {"", "9223372036854775807 + 1, 2 ** 64, -(-9223372036854775807 - 1)", "(?, ?, ?)"},
    {"def loop(n):\n    while True:\n        pass\n", "loop(1)", "?"},
    {"def rec(n):\n    return rec(n + 1)\n", "rec(0)", "?"},
    {"", "[x for x in range(10 ** 12)]", "?"},
    {"def big(n):\n    out = []\n    for i in range(60000):\n        for j in range(60000):\n"
     "            out.append(i)\n    return out\n", "big(1)", "?"},
};

Test(pyeval, table)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = eval_text(cases[i].prelude, cases[i].expr);
        cr_expect_str_eq(got, cases[i].want, "case %zu: %s", i, cases[i].expr);
    }
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
    sb_free(&text);
    sb_free(&shown);
}

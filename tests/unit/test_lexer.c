/* test_lexer.c — the Python tokenizer: every token class, layout, and each error. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

static Ctx ctx;
static Source src;
static jmp_buf jb;
static TokenArray toks;

/* Lex `len` bytes of `text` (which must be NUL-terminated at len); false if an error unwound. */
static bool lex_n(const char *text, size_t len)
{
    src = (Source){"t.py", text, len};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    ctx.on_error = &jb;
    toks = (TokenArray){0};
    if (setjmp(jb))
        return false;
    toks = lex_source(&ctx);
    return true;
}

static bool lex(const char *text) { return lex_n(text, strlen(text)); }

static void teardown(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
}

TestSuite(lexer, .fini = teardown);

/* The token stream in short form: names and numbers by value, layout in capitals. */
static const char *shape(void)
{
    static char buf[4096];
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < toks.len; i++) {
        const Token *t = &toks.data[i];
        char one[256];
        switch (t->kind) {
        case TOK_NEWLINE: snprintf(one, sizeof one, "NEWLINE"); break;
        case TOK_INDENT: snprintf(one, sizeof one, "INDENT"); break;
        case TOK_DEDENT: snprintf(one, sizeof one, "DEDENT"); break;
        case TOK_EOF: snprintf(one, sizeof one, "EOF"); break;
        case TOK_NAME: snprintf(one, sizeof one, "%s", t->text); break;
        case TOK_INT: snprintf(one, sizeof one, "%lld", (long long)t->ival); break;
        case TOK_FLOAT: snprintf(one, sizeof one, "%g", t->fval); break;
        case TOK_STRING: snprintf(one, sizeof one, "STR(%.*s)", t->text_len, t->text); break;
        default: {
            const char *s = token_kind_name(t->kind);
            snprintf(one, sizeof one, "%.*s", (int)strlen(s) - 2, s + 1);
        }
        }
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "", one);
    }
    return buf;
}

static void expect_shape(const char *text, const char *want)
{
    cr_assert(lex(text), "lexing failed: %s", ctx.log.data);
    cr_assert_str_eq(shape(), want, "for %s", text);
}

/* The first diagnostic line must be `want`, and lexing must have unwound. */
static void expect_error(const char *text, size_t len, const char *want)
{
    cr_assert_not(lex_n(text, len), "no error for %s", text);
    cr_assert_eq(ctx.nerrors, 1);
    size_t n = strlen(want);
    cr_assert(ctx.log.len > n && strncmp(ctx.log.data, want, n) == 0 && ctx.log.data[n] == '\n',
              "got: %s\nwant: %s", ctx.log.data, want);
}

#define EXPECT_ERROR(text, want) expect_error((text), sizeof(text) - 1, (want))

/* ---- token classes ----------------------------------------------------- */

Test(lexer, keywords)
{
    static const struct { const char *text; TokenKind kind; } cases[] = {
        {"def", TOK_DEF}, {"return", TOK_RETURN}, {"if", TOK_IF}, {"elif", TOK_ELIF},
        {"else", TOK_ELSE}, {"for", TOK_FOR}, {"while", TOK_WHILE}, {"in", TOK_IN},
        {"not", TOK_NOT}, {"and", TOK_AND}, {"or", TOK_OR}, {"is", TOK_IS},
        {"pass", TOK_PASS}, {"break", TOK_BREAK}, {"continue", TOK_CONTINUE},
        {"True", TOK_TRUE}, {"False", TOK_FALSE}, {"None", TOK_NONE},
        {"lambda", TOK_LAMBDA}, {"class", TOK_CLASS}, {"import", TOK_IMPORT},
        {"from", TOK_FROM}, {"as", TOK_AS}, {"assert", TOK_ASSERT}, {"with", TOK_WITH},
        {"try", TOK_TRY}, {"except", TOK_EXCEPT}, {"finally", TOK_FINALLY},
        {"raise", TOK_RAISE}, {"global", TOK_GLOBAL}, {"nonlocal", TOK_NONLOCAL},
        {"del", TOK_DEL}, {"yield", TOK_YIELD}, {"async", TOK_ASYNC}, {"await", TOK_AWAIT},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert(lex(cases[i].text));
        cr_assert_eq(toks.len, 3);
        cr_assert_eq(toks.data[0].kind, cases[i].kind, "%s", cases[i].text);
        cr_assert_eq(toks.data[0].length, (int)strlen(cases[i].text));
        teardown();
    }
}

Test(lexer, names)
{
    expect_shape("define iffy None_ _x1 x\xcf\x80 \xcf\x80 __init__ true",
                 "define iffy None_ _x1 x\xcf\x80 \xcf\x80 __init__ true NEWLINE EOF");
    cr_assert_eq(toks.data[0].kind, TOK_NAME);
    cr_assert_eq(toks.data[5].length, 2);
}

Test(lexer, operators)
{
    static const struct { const char *text; TokenKind kind; } cases[] = {
        {":", TOK_COLON}, {",", TOK_COMMA}, {".", TOK_DOT}, {";", TOK_SEMI},
        {"->", TOK_ARROW}, {"...", TOK_ELLIPSIS}, {"@", TOK_AT}, {":=", TOK_WALRUS},
        {"+", TOK_PLUS}, {"-", TOK_MINUS}, {"*", TOK_STAR}, {"/", TOK_SLASH},
        {"//", TOK_DSLASH}, {"%", TOK_PERCENT}, {"**", TOK_DSTAR}, {"<<", TOK_LSHIFT},
        {">>", TOK_RSHIFT}, {"&", TOK_AMP}, {"|", TOK_PIPE}, {"^", TOK_CARET},
        {"~", TOK_TILDE}, {"<", TOK_LT}, {">", TOK_GT}, {"<=", TOK_LE}, {">=", TOK_GE},
        {"==", TOK_EQ}, {"!=", TOK_NE}, {"=", TOK_ASSIGN}, {"+=", TOK_PLUSEQ},
        {"-=", TOK_MINUSEQ}, {"*=", TOK_STAREQ}, {"/=", TOK_SLASHEQ},
        {"//=", TOK_DSLASHEQ}, {"%=", TOK_PERCENTEQ}, {"**=", TOK_DSTAREQ},
        {"<<=", TOK_LSHIFTEQ}, {">>=", TOK_RSHIFTEQ}, {"&=", TOK_AMPEQ},
        {"|=", TOK_PIPEEQ}, {"^=", TOK_CARETEQ}, {"@=", TOK_ATEQ},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert(lex(cases[i].text), "%s: %s", cases[i].text, ctx.log.data);
        cr_assert_eq(toks.data[0].kind, cases[i].kind, "%s", cases[i].text);
        cr_assert_eq(toks.data[0].length, (int)strlen(cases[i].text), "%s", cases[i].text);
        teardown();
    }
    /* brackets must balance, so they are checked in pairs */
    expect_shape("()[]{}", "( ) [ ] { } NEWLINE EOF");
    static const TokenKind brackets[] = {TOK_LPAREN, TOK_RPAREN, TOK_LBRACKET,
                                         TOK_RBRACKET, TOK_LBRACE, TOK_RBRACE};
    for (size_t i = 0; i < ARRAY_LEN(brackets); i++)
        cr_assert_eq(toks.data[i].kind, brackets[i]);
}

Test(lexer, operators_are_greedy)
{
    expect_shape("a**=b//=c>>=d<<=e->f...g:=h", "a **= b //= c >>= d <<= e -> f ... g := h NEWLINE EOF");
    teardown();
    expect_shape("x[::2]", "x [ : : 2 ] NEWLINE EOF");
    teardown();
    expect_shape("a<=-b!=~c", "a <= - b != ~ c NEWLINE EOF");
}

Test(lexer, integers)
{
    static const struct { const char *text; int64_t value; } cases[] = {
        {"0", 0}, {"00", 0}, {"0_0", 0}, {"7", 7}, {"123", 123}, {"1_000", 1000},
        {"0x1F", 31}, {"0XfF", 255}, {"0x_ff", 255}, {"0o17", 15}, {"0O7_7", 63},
        {"0b1010", 10}, {"0B_1", 1}, {"9223372036854775807", INT64_MAX},
        {"0x7fffffffffffffff", INT64_MAX},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert(lex(cases[i].text), "%s: %s", cases[i].text, ctx.log.data);
        cr_assert_eq(toks.data[0].kind, TOK_INT, "%s", cases[i].text);
        cr_assert_not(toks.data[0].big, "%s", cases[i].text);
        cr_assert_eq(toks.data[0].ival, cases[i].value, "%s", cases[i].text);
        cr_assert_eq(toks.data[0].length, (int)strlen(cases[i].text));
        teardown();
    }
}

Test(lexer, big_integers)
{
    cr_assert(lex("9223372036854775808 0x1_0000_0000_0000_0000 100000000000000000000000"));
    cr_assert(toks.data[0].big);
    cr_assert_float_eq(toks.data[0].fval, 9223372036854775808.0, 1.0);
    cr_assert(toks.data[1].big);
    cr_assert_float_eq(toks.data[1].fval, 18446744073709551616.0, 1.0);
    cr_assert(toks.data[2].big);
    cr_assert_float_eq(toks.data[2].fval, 1e23, 1e8);
}

Test(lexer, floats_and_imaginary)
{
    static const struct { const char *text; TokenKind kind; double value; } cases[] = {
        {"1.", TOK_FLOAT, 1.0},       {".5", TOK_FLOAT, 0.5},      {"1e-5", TOK_FLOAT, 1e-5},
        {"1_0.0_1", TOK_FLOAT, 10.01}, {"1E+3", TOK_FLOAT, 1000.0}, {"1.5e3", TOK_FLOAT, 1500.0},
        {"09.5", TOK_FLOAT, 9.5},     {"0e0", TOK_FLOAT, 0.0},     {"1.e2", TOK_FLOAT, 100.0},
        {"3.14159", TOK_FLOAT, 3.14159},
        {"1j", TOK_IMAG, 1.0},        {"1.5J", TOK_IMAG, 1.5},     {"1e3j", TOK_IMAG, 1000.0},
        {".5j", TOK_IMAG, 0.5},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert(lex(cases[i].text), "%s: %s", cases[i].text, ctx.log.data);
        cr_assert_eq(toks.data[0].kind, cases[i].kind, "%s", cases[i].text);
        cr_assert_float_eq(toks.data[0].fval, cases[i].value, 1e-12, "%s", cases[i].text);
        cr_assert_eq(toks.data[0].length, (int)strlen(cases[i].text), "%s", cases[i].text);
        teardown();
    }
}

Test(lexer, strings)
{
    static const struct {
        const char *text, *value;
        int len;
        bool fstring, bytes;
    } cases[] = {
        {"'a'", "a", 1, false, false},
        {"\"a\"", "a", 1, false, false},
        {"''", "", 0, false, false},
        {"'it\\'s'", "it's", 4, false, false},
        {"\"q\\\"q\"", "q\"q", 3, false, false},
        {"'say \"hi\"'", "say \"hi\"", 8, false, false},
        {"'\\n\\t\\\\\\r\\a\\b\\f\\v'", "\n\t\\\r\a\b\f\v", 8, false, false},
        {"'\\x41\\101\\0'", "AA\0", 3, false, false},
        {"'\\u00e9\\U0001F600'", "\xc3\xa9\xf0\x9f\x98\x80", 6, false, false},
        {"'\\xe9'", "\xc3\xa9", 2, false, false},
        {"'\\d+'", "\\d+", 3, false, false},
        {"'a\\\nb'", "ab", 2, false, false},
        {"r'a\\nb'", "a\\nb", 4, false, false},
        {"R\"\\d+\"", "\\d+", 3, false, false},
        {"r'\\''", "\\'", 2, false, false},
        {"r\"\\\\\"", "\\\\", 2, false, false},
        {"u'x'", "x", 1, false, false},
        {"U\"x\"", "x", 1, false, false},
        {"b'\\x00ab'", "\0ab", 3, false, true},
        {"B'\\xff'", "\xff", 1, false, true},
        {"b'\\u00e9'", "\\u00e9", 6, false, true},
        {"rb'\\x'", "\\x", 2, false, true},
        {"Br'\\\\'", "\\\\", 2, false, true},
        {"bR'a'", "a", 1, false, true},
        {"RB'a'", "a", 1, false, true},
        {"f'{x}'", "{x}", 3, true, false},
        {"F\"{x!r:>10}\"", "{x!r:>10}", 9, true, false},
        {"rf'{x}\\n'", "{x}\\n", 5, true, false},
        {"fR'{x}'", "{x}", 3, true, false},
        {"Rf'a'", "a", 1, true, false},
        {"FR'a'", "a", 1, true, false},
        {"'''a'b\"c'''", "a'b\"c", 5, false, false},
        {"\"\"\"x\"\"y\"\"\"", "x\"\"y", 4, false, false},
        {"'''\\''''", "'", 1, false, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cr_assert(lex(cases[i].text), "%s: %s", cases[i].text, ctx.log.data);
        const Token *t = &toks.data[0];
        cr_assert_eq(t->kind, TOK_STRING, "%s", cases[i].text);
        cr_assert_eq(toks.len, 3, "%s", cases[i].text);
        cr_assert_eq(t->text_len, cases[i].len, "%s: length %d", cases[i].text, t->text_len);
        cr_assert(memcmp(t->text, cases[i].value, (size_t)cases[i].len) == 0, "%s", cases[i].text);
        cr_assert_eq(t->text[t->text_len], 0);
        cr_assert_eq(t->fstring, cases[i].fstring, "%s", cases[i].text);
        cr_assert_eq(t->bytes, cases[i].bytes, "%s", cases[i].text);
        cr_assert_eq(t->length, (int)strlen(cases[i].text), "%s", cases[i].text);
        teardown();
    }
}

Test(lexer, string_prefix_is_not_a_name)
{
    expect_shape("rb + r'x' + bar'y'", "rb + STR(x) + bar STR(y) NEWLINE EOF");
}

Test(lexer, triple_quoted_multiline)
{
    const char *text = "x = \"\"\"first\n  second 'q' \"q\"\nthird\"\"\"\ny = 1\n";
    expect_shape(text, "x = STR(first\n  second 'q' \"q\"\nthird) NEWLINE y = 1 NEWLINE EOF");
    cr_assert_eq(toks.data[2].loc.line, 1);
    cr_assert_eq(toks.data[2].loc.col, 5);
    cr_assert_eq(toks.data[3].loc.line, 3);  /* NEWLINE after the closing quotes */
    cr_assert_eq(toks.data[3].loc.col, 9);
    cr_assert_eq(toks.data[4].loc.line, 4);
    cr_assert_eq(toks.data[4].loc.col, 1);
}

Test(lexer, docstring_indentation_is_ignored)
{
    expect_shape("def f():\n    '''doc\nat column 0\n        deeper\n    '''\n    return\n",
                 "def f ( ) : NEWLINE INDENT STR(doc\nat column 0\n        deeper\n    ) NEWLINE "
                 "return NEWLINE DEDENT EOF");
}

Test(lexer, fstrings_with_nested_quotes)
{
    const char *text = "s = f\"{x['a']}\" + f'{y[\"b\"]:>{w}}' + f\"{{lit}}\" + f'{\"}\"}'\n";
    expect_shape(text, "s = STR({x['a']}) + STR({y[\"b\"]:>{w}}) + STR({{lit}}) + STR({\"}\"}) "
                       "NEWLINE EOF");
    for (int i = 2; i <= 8; i += 2)
        cr_assert(toks.data[i].fstring);
    teardown();
    /* a triple-quoted f-string over lines, with a nested string holding '#' */
    expect_shape("m = f'''{a}\n{'#'}\n'''\n", "m = STR({a}\n{'#'}\n) NEWLINE EOF");
}

Test(lexer, comments)
{
    expect_shape("x = 1  # a comment ( with a bracket\n# whole line\ny = '#not a comment'  #\n",
                 "x = 1 NEWLINE y = STR(#not a comment) NEWLINE EOF");
}

Test(lexer, locations_offsets_and_line_starts)
{
    cr_assert(lex("ab = 12\n  \n  # c\nc.d(\n  e)\n"));
    /* ab = 12 NEWLINE c . d ( e ) NEWLINE EOF */
    cr_assert_eq(toks.len, 12);
    const Token *t = toks.data;
    cr_assert_eq(t[0].loc.line, 1);
    cr_assert_eq(t[0].loc.col, 1);
    cr_assert_eq(t[0].offset, 0);
    cr_assert_eq(t[0].length, 2);
    cr_assert(t[0].at_line_start);
    cr_assert_eq(t[2].loc.col, 6);
    cr_assert_eq(t[2].offset, 5);
    cr_assert_not(t[2].at_line_start);
    cr_assert_eq(t[3].kind, TOK_NEWLINE);
    cr_assert_eq(t[3].offset, 7);
    cr_assert_eq(t[4].loc.line, 4);
    cr_assert(t[4].at_line_start);
    cr_assert_eq(t[8].loc.line, 5);
    cr_assert_eq(t[8].loc.col, 3);
    cr_assert_eq(t[8].offset, 24);
    cr_assert_not(t[8].at_line_start);
}

/* ---- layout ------------------------------------------------------------ */

Test(lexer, empty_and_comment_only_sources)
{
    expect_shape("", "EOF");
    teardown();
    expect_shape("\n\n   \n", "EOF");
    teardown();
    expect_shape("# only\n    # comments\n", "EOF");
}

Test(lexer, indent_and_dedent)
{
    expect_shape("if x:\n    y = 1\nz\n", "if x : NEWLINE INDENT y = 1 NEWLINE DEDENT z NEWLINE EOF");
}

Test(lexer, blank_lines_and_odd_comments_inside_blocks)
{
    expect_shape("if x:\n    a\n        \n\n  # odd\n            # odder\n    b\n",
                 "if x : NEWLINE INDENT a NEWLINE b NEWLINE DEDENT EOF");
}

Test(lexer, several_dedents_at_once)
{
    expect_shape("if a:\n  if b:\n    if c:\n      d\ne\n",
                 "if a : NEWLINE INDENT if b : NEWLINE INDENT if c : NEWLINE INDENT d NEWLINE "
                 "DEDENT DEDENT DEDENT e NEWLINE EOF");
    const Token *e = &toks.data[toks.len - 3];
    cr_assert_eq(e->loc.line, 5);
    cr_assert(e->at_line_start);
    teardown();
    expect_shape("if a:\n  if b:\n    c\n  d\n", "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE "
                                               "DEDENT d NEWLINE DEDENT EOF");
}

Test(lexer, dedents_at_eof_without_trailing_newline)
{
    expect_shape("def f():\n    if x:\n        return 1", "def f ( ) : NEWLINE INDENT if x : NEWLINE INDENT "
                                                        "return 1 NEWLINE DEDENT DEDENT EOF");
    teardown();
    expect_shape("x = 1", "x = 1 NEWLINE EOF");
    teardown();
    expect_shape("x = 1\n  # trailing comment", "x = 1 NEWLINE EOF");
}

Test(lexer, brackets_join_lines)
{
    expect_shape("x = f(a,\n  b,\n        c,\n\n  # comment\n d)\ny = [\n1]\n",
                 "x = f ( a , b , c , d ) NEWLINE y = [ 1 ] NEWLINE EOF");
    teardown();
    expect_shape("if x:\n    d = {\n'k': (1,\n2)}\n    e\n",
                 "if x : NEWLINE INDENT d = { STR(k) : ( 1 , 2 ) } NEWLINE e NEWLINE DEDENT EOF");
}

Test(lexer, backslash_continuation)
{
    expect_shape("x = 1 + \\\n        2\nif a and \\\n b:\n    c\n",
                 "x = 1 + 2 NEWLINE if a and b : NEWLINE INDENT c NEWLINE DEDENT EOF");
    cr_assert_eq(toks.data[4].loc.line, 2);
    cr_assert_eq(toks.data[4].loc.col, 9);
}

/* Python reads sources with universal newlines: CRLF and a lone CR are LF, in strings too. */
Test(lexer, crlf_line_endings)
{
    expect_shape("if x:\r\n    y = 'a'\r\n\r\n    # c\r\nz = \\\r\n 1\r\n",
                 "if x : NEWLINE INDENT y = STR(a) NEWLINE DEDENT z = 1 NEWLINE EOF");
    cr_assert_eq(toks.data[3].length, 1);  /* the NEWLINE of the translated text */
    cr_assert_eq(toks.data[toks.len - 3].loc.line, 6);
    teardown();
    expect_shape("s = '''a\r\nb'''\r\n", "s = STR(a\nb) NEWLINE EOF");
}

Test(lexer, lone_cr_ends_a_line_as_in_python)
{
    /* the CR ends the comment: the second assignment is code, as Python runs it */
    expect_shape("if a:\n    o = x + y  # note\r    o = x - y\n",
                 "if a : NEWLINE INDENT o = x + y NEWLINE o = x - y NEWLINE DEDENT EOF");
    cr_assert_eq(toks.data[toks.len - 7].loc.line, 3, "the line after the CR is line 3");
    cr_assert_str_eq(ctx.src->text, "if a:\n    o = x + y  # note\n    o = x - y\n");
    teardown();
    expect_shape("a = 1\rb = 2\r\rc = 3", "a = 1 NEWLINE b = 2 NEWLINE c = 3 NEWLINE EOF");
    cr_assert_eq(toks.data[8].loc.line, 4);
    teardown();
    expect_shape("s = '''a\rb\r\nc'''\rt = \\\r 1\r", "s = STR(a\nb\nc) NEWLINE t = 1 NEWLINE EOF");
    teardown();
    EXPECT_ERROR("s = 'a\rb'\n", "t.py:1:5: error: unterminated string literal");
}

Test(lexer, utf8_bom_is_skipped)
{
    expect_shape("\xEF\xBB\xBFx = 1\n", "x = 1 NEWLINE EOF");
    cr_assert_eq(toks.data[0].loc.col, 1);
}

/* Names follow Python's identifier rule; what Python refuses, tilec refuses at the character. */
Test(lexer, unicode_names)
{
    expect_shape("caf\xc3\xa9 = \xe4\xb8\xad_1\n", "caf\xc3\xa9 = \xe4\xb8\xad_1 NEWLINE EOF");
    teardown();
    EXPECT_ERROR("x\xe2\x80\x8b = 1\n", "t.py:1:2: error: invalid non-printable character U+200B");
    teardown();
    EXPECT_ERROR("ab\xe2\x80\xae" "cd = 1\n", "t.py:1:3: error: invalid non-printable character U+202E");
    teardown();
    EXPECT_ERROR("x = a \xe2\x82\xac b\n", "t.py:1:7: error: invalid character '\xe2\x82\xac' (U+20AC)");
    teardown();
    EXPECT_ERROR("\xef\xac\x81le = 1\n", "t.py:1:1: error: '\xef\xac\x81' (U+FB01) in a name is another character "
                                     "after the NFKC normalization Python applies to names; write the name in "
                                     "NFKC form");
    teardown();
    EXPECT_ERROR("x = 1\n# caf\xe9\n", "t.py:2:6: error: invalid UTF-8 (byte 0xe9): Python reads source files as UTF-8");
}

Test(lexer, tabs_indent_to_multiples_of_eight)
{
    expect_shape("if x:\n\ty\n        z\n  \tw\n", "if x : NEWLINE INDENT y NEWLINE z NEWLINE w NEWLINE DEDENT EOF");
}

Test(lexer, token_kind_names)
{
    cr_assert_str_eq(token_kind_name(TOK_EOF), "end of file");
    cr_assert_str_eq(token_kind_name(TOK_RPAREN), "')'");
    cr_assert_str_eq(token_kind_name(TOK_DSLASHEQ), "'//='");
    cr_assert_str_eq(token_kind_name(TOK_NAME), "name");
    cr_assert_str_eq(token_kind_name(TOK_ATEQ), "'@='");
}

/* ---- errors ------------------------------------------------------------ */

Test(lexer, unterminated_strings)
{
    EXPECT_ERROR("x = 'abc\ny = 1\n", "t.py:1:5: error: unterminated string literal");
    teardown();
    EXPECT_ERROR("x = \"abc", "t.py:1:5: error: unterminated string literal");
    teardown();
    EXPECT_ERROR("x = 1\ns = r'abc\\'\n", "t.py:2:5: error: unterminated string literal");
    teardown();
    EXPECT_ERROR("x = 1\n  y = f'''abc\n\n'' ", "t.py:2:7: error: unterminated triple-quoted string literal");
    teardown();
    EXPECT_ERROR("f\"{d['k}\"\n", "t.py:1:1: error: unterminated string literal");
}

Test(lexer, error_report_has_source_line_and_caret)
{
    EXPECT_ERROR("x = 'abc\n", "t.py:1:5: error: unterminated string literal");
    cr_assert_str_eq(ctx.log.data, "t.py:1:5: error: unterminated string literal\n  x = 'abc\n      ^\n");
}

Test(lexer, invalid_numbers)
{
    EXPECT_ERROR("x = 0x\n", "t.py:1:5: error: invalid hexadecimal literal");
    teardown();
    EXPECT_ERROR("x = 1__0\n", "t.py:1:5: error: invalid decimal literal");
    teardown();
    EXPECT_ERROR("x = 09\n", "t.py:1:5: error: leading zeros in decimal integer literals are not "
                            "permitted; use an 0o prefix for octal integers");
    teardown();
    EXPECT_ERROR("0o8", "t.py:1:1: error: invalid octal literal");
    teardown();
    EXPECT_ERROR("0b102", "t.py:1:1: error: invalid binary literal");
    teardown();
    EXPECT_ERROR("  (1_)", "t.py:1:4: error: invalid decimal literal");
    teardown();
    EXPECT_ERROR("1.5x", "t.py:1:1: error: invalid decimal literal");
    teardown();
    EXPECT_ERROR("1e", "t.py:1:1: error: invalid decimal literal");
    teardown();
    EXPECT_ERROR("'\\x4'", "t.py:1:1: error: truncated \\x escape in string literal");
}

Test(lexer, inconsistent_dedent)
{
    EXPECT_ERROR("if x:\n    a\n  b\n", "t.py:3:3: error: unindent does not match any outer indentation level");
    teardown();
    EXPECT_ERROR("if x:\n        a\n    b\n", "t.py:3:5: error: unindent does not match any outer indentation level");
}

Test(lexer, unexpected_characters)
{
    EXPECT_ERROR("x = $y", "t.py:1:5: error: unexpected character '$'");
    teardown();
    EXPECT_ERROR("a ? b", "t.py:1:3: error: unexpected character '?'");
    teardown();
    EXPECT_ERROR("`x`", "t.py:1:1: error: unexpected character '`'");
    teardown();
    EXPECT_ERROR("a ! b", "t.py:1:3: error: unexpected character '!'");
    teardown();
    EXPECT_ERROR("a \x01", "t.py:1:3: error: unexpected character '\\x01'");
    teardown();
    EXPECT_ERROR("x = 1 \\ 2", "t.py:1:7: error: unexpected character after line continuation character");
}

Test(lexer, unbalanced_brackets)
{
    EXPECT_ERROR("x = 1)\n", "t.py:1:6: error: unmatched ')'");
    teardown();
    EXPECT_ERROR("x = (1]\n", "t.py:1:7: error: closing ']' does not match opening '('");
    teardown();
    EXPECT_ERROR("x = [{1: 2)]", "t.py:1:11: error: closing ')' does not match opening '{'");
    teardown();
    EXPECT_ERROR("x = 1\ny = f(a,\n  b\n\n", "t.py:2:6: error: '(' was never closed");
    teardown();
    EXPECT_ERROR("x = [(1, 2),\n", "t.py:1:5: error: '[' was never closed");
}

Test(lexer, null_bytes)
{
    EXPECT_ERROR("x = 1\x00y\n", "t.py:1:6: error: null byte in source");
    teardown();
    EXPECT_ERROR("x = 'a\x00" "b'\n", "t.py:1:7: error: null byte in source");
    teardown();
    EXPECT_ERROR("# c\x00\n", "t.py:1:4: error: null byte in source");
}

/* Limits: a source over TILEC_MAX_SOURCE_BYTES is refused before it is scanned, and a
 * diagnostic on a very long line shows a window around the column, not the whole line. */
Test(lexer, source_too_large)
{
    size_t n = (size_t)TILEC_MAX_SOURCE_BYTES + 1;
    char *big = malloc(n + 1);
    cr_assert(big);
    memset(big, ' ', n);
    big[n] = 0;
    bool ok = lex_n(big, n);
    free(big);
    cr_assert(!ok);
    cr_assert_str_eq(ctx.log.data, "t.py: error: source file too large (8388609 bytes; tilec reads at most 8 MiB)\n");
}

Test(lexer, long_line_excerpt)
{
    char line[1200];
    memset(line, 'a', sizeof line);
    line[0] = 'x';
    line[1] = '=';
    line[1000] = '$';
    line[sizeof line - 1] = 0;
    cr_assert(!lex(line));
    cr_assert(strstr(ctx.log.data, "t.py:1:1001: error: unexpected character '$'\n  ..."));
    /* the excerpt is about 100 columns wide and the caret sits under the '$' */
    const char *excerpt = strchr(ctx.log.data, '\n') + 1;
    const char *eol = strchr(excerpt, '\n');
    cr_assert_lt(eol - excerpt, 120);
    const char *dollar = memchr(excerpt, '$', (size_t)(eol - excerpt));
    cr_assert(dollar);
    const char *caret = strchr(eol + 1, '^');
    cr_assert_eq(caret - (eol + 1), dollar - excerpt);
}

/* test_common.c — src/common.c: the string map (the emitter's names), UTF-8 and Unicode classes,
 * and the escapers that keep user text inert in diagnostics and generated C. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "common.h"

Test(strmap, finds_what_was_put_through_growth)
{
    Arena a = {0};
    StrMap m = {0};
    cr_expect_null(strmap_find(&m, "x"), "an empty map has nothing");
    char *keys[5000];
    for (int i = 0; i < 5000; i++) {
        keys[i] = arena_printf(&a, "acc_%d", i);
        strmap_put(&a, &m, keys[i], i);
    }
    cr_expect_eq(m.len, 5000);
    cr_expect_leq(2 * m.len, m.cap, "more than half full: %d of %d", m.len, m.cap);
    for (int i = 0; i < 5000; i++) {
        char probe[32];  /* another copy of the key: compared by content */
        snprintf(probe, sizeof probe, "acc_%d", i);
        int *v = strmap_find(&m, probe);
        cr_assert_not_null(v, "%s lost", probe);
        cr_expect_eq(*v, i);
    }
    cr_expect_null(strmap_find(&m, "acc_5000"));
    cr_expect_null(strmap_find(&m, "acc"));
    arena_free(&a);
}

Test(strmap, put_overwrites_without_growing)
{
    Arena a = {0};
    StrMap m = {0};
    strmap_put(&a, &m, "x", 1);
    strmap_put(&a, &m, "x", 7);
    cr_expect_eq(m.len, 1);
    cr_expect_eq(*strmap_find(&m, "x"), 7);
    *strmap_find(&m, "x") = 9;  /* the value is stored in place */
    cr_expect_eq(*strmap_find(&m, "x"), 9);
    arena_free(&a);
}

/* ---- escapers: one row per rule ------------------------------------------------------- */

typedef struct EscapeCase {
    const char *in, *out;
} EscapeCase;

Test(escape, comment_text_cannot_end_or_continue_the_comment)
{
    static const EscapeCase cases[] = {
        {"cdiv(n, BLOCK)", "cdiv(n, BLOCK)"},
        {"cdiv(n, B)\n#error x\n", "cdiv(n, B)\\n#error x\\n"},  /* no second line */
        {"a\rb", "a\\rb"},                     /* CR ends a line for C compilers too */
        {"x*/ int y; /*", "x*\\/ int y; /\\*"},
        {"a/**/b", "a/\\**\\/b"},
        {"dir\\", "dir\\x5c"},                  /* a backslash-newline would splice */
        {"dir\\  ", "dir\\x5c  "},
        {"a\\b", "a\\b"},                       /* inside the text it is harmless */
        {"what?\?/", "what?\\?/"},                /* trigraph ??/ is a backslash in C99 */
        {"?\?\?", "?\\?\\?"},
        {"esc\x1b[2J", "esc\\x1b[2J"},
        {"tab\tbell\a", "tab\\tbell\\x07"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},           /* UTF-8 stays */
        {"rl\xe2\x80\xaeo", "rl\\u202eo"},       /* U+202E RIGHT-TO-LEFT OVERRIDE */
        {"zw\xe2\x80\x8bj", "zw\\u200bj"},       /* U+200B ZERO WIDTH SPACE */
        {"bad\xff", "bad\\xff"},                  /* not UTF-8 */
        {"\xc2\x9b", "\\u009b"},                 /* C1 CSI */
    };
    Arena a = {0};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        cr_expect_str_eq(comment_escape(&a, cases[i].in), cases[i].out, "case %zu", i);
    arena_free(&a);
}

Test(escape, c_string_text_stays_one_literal)
{
    static const EscapeCase cases[] = {
        {"c is NaN", "c is NaN"},
        {"line1\nline2", "line1\\nline2"},
        {"say \"hi\" \\ back", "say \\\"hi\\\" \\\\ back"},
        {"cr\rtab\t", "cr\\rtab\\t"},
        {"esc\x1b" "1", "esc\\0331"},              /* octal stops after three digits */
        {"del\x7f", "del\\177"},
        {"?\?=", "?\\?="},
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"rl\xe2\x80\xaeo", "rl\\342\\200\\256o"},   /* the same bytes, shown */
        {"bad\xff", "bad\\377"},
    };
    Arena a = {0};
    for (size_t i = 0; i < ARRAY_LEN(cases); i++)
        cr_expect_str_eq(c_string_escape(&a, cases[i].in), cases[i].out, "case %zu", i);
    arena_free(&a);
}

Test(escape, visible_text_for_terminals)
{
    StrBuf sb = {0};
    const char in[] = "a\x1b]0;title\x07 \xe2\x80\xae */ \n";
    sb_put_visible(&sb, in, sizeof in - 1);
    cr_expect_str_eq(sb.data, "a\\x1b]0;title\\x07 \\u202e */ \\n");
    sb_free(&sb);
}

Test(unicode, utf8_decode_rejects_what_is_not_utf8)
{
    uint32_t cp = 0;
    cr_expect_eq(utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
    cr_expect_eq(cp, 0xE9);
    cr_expect_eq(utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
    cr_expect_eq(cp, 0x1F600);
    cr_expect_eq(utf8_decode((const unsigned char *)"\xc0\xaf", 2, &cp), 0, "overlong");
    cr_expect_eq(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0, "surrogate");
    cr_expect_eq(utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0, "past U+10FFFF");
    cr_expect_eq(utf8_decode((const unsigned char *)"\xe2\x80", 2, &cp), 0, "truncated");
    cr_expect_eq(utf8_decode((const unsigned char *)"\x80", 1, &cp), 0, "a lone continuation byte");
}

Test(unicode, python_identifier_classes)
{
    cr_expect(uni_is_xid_start('_') && uni_is_xid_start('a') && !uni_is_xid_start('1'));
    cr_expect(uni_is_xid_continue('1') && !uni_is_xid_continue('-'));
    cr_expect(uni_is_xid_start(0xE9), "e acute");
    cr_expect(uni_is_xid_start(0x4E2D), "a CJK ideograph");
    cr_expect(!uni_is_xid_start(0x0301) && uni_is_xid_continue(0x0301), "a combining accent continues");
    cr_expect(!uni_is_xid_continue(0x200B), "ZERO WIDTH SPACE");
    cr_expect(!uni_is_xid_continue(0x202E), "RIGHT-TO-LEFT OVERRIDE");
    cr_expect(!uni_is_xid_continue(0x20AC), "the euro sign");
    cr_expect(uni_is_invisible(0x202E) && uni_is_invisible(0x200B) && uni_is_invisible(0x1B));
    cr_expect(!uni_is_invisible(0xE9));
    cr_expect(uni_nfkc_changes(0xFB01), "the fi ligature is 'fi' to Python");
    cr_expect(!uni_nfkc_changes(0xE9));
}

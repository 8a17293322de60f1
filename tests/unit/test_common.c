/* test_common.c — the string map of src/common.c (the emitter's names). */
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

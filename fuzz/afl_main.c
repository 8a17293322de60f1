/*
 * afl_main.c — a main() for the fuzz targets outside libFuzzer: AFL++
 * (built with afl-clang-fast, persistent mode when available) and replaying
 * inputs by hand.
 *
 *   build/fuzz-afl/fuzz_translate < input.py         one input from stdin
 *   build/fuzz-afl/fuzz_translate a.py b.py ...      each file in turn
 *   afl-fuzz -i seeds -o out -- build/fuzz-afl/fuzz_translate
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_common.h"

#ifdef __AFL_FUZZ_TESTCASE_LEN
#include <unistd.h> /* read(), used by __AFL_FUZZ_INIT */
__AFL_FUZZ_INIT();
#endif

static size_t read_all(FILE *f, uint8_t **out)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = cap < FUZZ_MAX_INPUT * 4 ? realloc(buf, cap * 2) : NULL;
            if (!bigger)
                break;
            buf = bigger;
            cap *= 2;
        }
    }
    *out = buf;
    return n;
}

int main(int argc, char **argv)
{
#ifdef __AFL_FUZZ_TESTCASE_LEN
    if (argc < 2) {
        __AFL_INIT();
        const uint8_t *buf = __AFL_FUZZ_TESTCASE_BUF;
        while (__AFL_LOOP(10000))
            LLVMFuzzerTestOneInput(buf, (size_t)__AFL_FUZZ_TESTCASE_LEN);
        return 0;
    }
#endif
    if (argc < 2) {
        uint8_t *buf;
        size_t n = read_all(stdin, &buf);
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 1;
        }
        uint8_t *buf;
        size_t n = read_all(f, &buf);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    return 0;
}

/*
 * fuzz_lexer.c — libFuzzer/AFL++ target: the lexer and the token dump.
 *
 * Any byte string is a source file.  The lexer must answer with tokens or a
 * diagnostic; never a crash, a hang, a leak or a sanitizer report.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_run(data, size, "tokens", false);
    return 0;
}

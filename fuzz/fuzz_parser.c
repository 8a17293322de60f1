/*
 * fuzz_parser.c — libFuzzer/AFL++ target: lexer, parser and the AST dump.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_run(data, size, "ast", false);
    return 0;
}

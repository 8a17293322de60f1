/*
 * fuzz_translate.c — libFuzzer/AFL++ target: the whole translation, source
 * to CUDA (or tile IR, or layouts, as the input's flags line asks).
 *
 * The input may open with a "# flags: ..." line in the form tests/errors/
 * uses, read by tilec's own flag parser (src/options.c); without one, the kernel is the last jit function in the file and
 * its signature is derived from its parameters (fuzz_common.h).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_run(data, size, NULL, true);
    return 0;
}

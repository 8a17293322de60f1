/*
 * fuzz_common.h — what the fuzz targets share: one input, one translation.
 *
 * Contract: fuzz_run() treats the bytes as a .py file, runs tilec_translate()
 * on a private Ctx (stopping after `dump` when it is not NULL) and frees
 * everything it allocated.  With `flags` true the input's first line may be
 * "# flags: ..." (as in tests/errors/); otherwise, or without such a line,
 * the options are derived from the source: the kernel is the last jit
 * function and each parameter gets a signature entry from its name.
 */
#ifndef TILEC_FUZZ_COMMON_H
#define TILEC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "driver.h"

/* Inputs longer than this are skipped: size limits are tested elsewhere and
 * long inputs only slow the search down. */
#define FUZZ_MAX_INPUT (64 * 1024)

void fuzz_run(const uint8_t *data, size_t size, const char *dump, bool flags);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

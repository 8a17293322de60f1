/*
 * rt_util.h — what every runtime file shares: a context's error message and
 * malloc'd strings.
 *
 * Contract: these depend on nothing else in src/runtime/, so every file there
 * may call them without calling back into the public API's front (api.c).
 */
#ifndef TILEC_RT_UTIL_H
#define TILEC_RT_UTIL_H

#include "../../include/tilec.h"
#include "../common.h"

/* Records the message and returns s (s == TILEC_OK clears the message). */
tilec_status rt_fail(tilec_context *ctx, tilec_status s, const char *fmt, ...) PRINTF_LIKE(3, 4);
tilec_status rt_ok(tilec_context *ctx);      /* clears the message, returns TILEC_OK */
char *rt_strdup(const char *s);              /* malloc'd copy, NULL for NULL */

#endif

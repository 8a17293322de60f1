/* rt_util.c — a context's error message and malloc'd strings (rt_util.h). */
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

char *rt_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

tilec_status rt_fail(tilec_context *ctx, tilec_status s, const char *fmt, ...)
{
    rt_ok(ctx);
    if (s == TILEC_OK)
        return s;
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&ctx->error, fmt, ap);
    va_end(ap);
    return s;
}

tilec_status rt_ok(tilec_context *ctx)
{
    ctx->error.len = 0;
    if (ctx->error.data)
        ctx->error.data[0] = 0;
    return TILEC_OK;
}

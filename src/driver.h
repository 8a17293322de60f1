/*
 * driver.h — one translation, source text to output text.
 *
 * Contract: tilec_translate() runs the pipeline on ctx->src and appends the
 * requested output (CUDA, tile IR, layouts, or a pass dump) to `out`.  It
 * returns 0 on success and 1 on a user error, whose diagnostics are in
 * ctx->diags and formatted in ctx->log.  It never exits and holds no global
 * state; everything it allocates lives in ctx->arena.
 */
#ifndef TILEC_DRIVER_H
#define TILEC_DRIVER_H

#include "tileir/tir.h"

typedef enum EmitKind {
    EMIT_CUDA,
    EMIT_TILEIR,
    EMIT_LAYOUTS,
} EmitKind;

typedef struct TranslateOptions {
    LowerOptions lower;
    EmitKind emit;
    const char *dump;     /* pass name: tokens, ast, lower, simplify, axisinfo, layouts; NULL */
    const char *grid;
    const char *command;  /* regenerate command for the .cu header */
    TirFunc **result;     /* if set, receives the translated kernel (in ctx->arena); the library reads its metadata */
} TranslateOptions;

int tilec_translate(Ctx *ctx, const TranslateOptions *opt, StrBuf *out);

/* Splits "*fp32:16, i32, 1024" or "x=*fp32, n=i32" into entries (named or
 * positional), honouring quotes.  Returns false with a message on bad input. */
bool tilec_parse_signature(Arena *a, const char *sig, LowerOptions *lo, const char **err);

#endif

/*
 * driver.h — one translation, source text to output text.
 *
 * Contract: tilec_translate() runs the pipeline on ctx->src and appends the
 * requested output (CUDA, tile IR, layouts, the explorer's page or picture, or a
 * pass dump) to `out`.  It
 * returns 0 on success and 1 on a user error, whose diagnostics are in
 * ctx->diags and formatted in ctx->log.  It never exits and holds no global
 * state; everything it allocates lives in ctx->arena.
 */
#ifndef TILEC_DRIVER_H
#define TILEC_DRIVER_H

#include "emit_html/html.h"
#include "tileir/tir.h"

typedef enum EmitKind {
    EMIT_CUDA,
    EMIT_TILEIR,
    EMIT_LAYOUTS,
    EMIT_HTML,      /* the explorer's page (src/emit_html/) */
    EMIT_SVG,       /* one value's layout picture: TranslateOptions.value */
} EmitKind;

/* The pipeline, pass by pass, in order: each pass's name (--dump NAME prints the
 * program after it and stops), whether the IR verifier follows it (debug builds),
 * and how its result is printed.  driver.c runs the list (pass_NAME does the work,
 * dump_* prints); every list of pass names is made from it. */
#define PASS_LIST(X)                        \
    X(tokens,   false, dump_tokens)         \
    X(ast,      false, dump_ast)            \
    X(lower,    true,  dump_ir)             \
    X(simplify, true,  dump_ir)             \
    X(axisinfo, false, dump_ir_analyses)    \
    X(layouts,  true,  dump_ir_analyses)

/* ", tokens, ast, lower, simplify, axisinfo, layouts", a literal: the list is &PASS_NAMES[2]. */
#define PASS_COMMA_NAME_(name, verify, print) ", " #name
#define PASS_NAMES PASS_LIST(PASS_COMMA_NAME_)

/* Whether `name` is one of PASS_LIST's names. */
bool tilec_pass_exists(const char *name);

typedef struct TranslateOptions {
    LowerOptions lower;
    EmitKind emit;
    const char *dump;     /* a PASS_LIST name, or NULL */
    const char *grid;
    const char *command;  /* regenerate command for the .cu header */
    const char *value;    /* EMIT_SVG: the value drawn (a name or %ID) */
    PtxasReport ptxas;    /* EMIT_HTML: what ptxas said of the kernel (registers < 0: unknown) */
    TirFunc **result;     /* if set, receives the kernel as the last pass run left it (in ctx->arena);
                             the library reads the metadata of a whole translation */
    /* --variant: EMIT_CUDA also holds the kernel translated with each of these named entries
     * added to the signature (facts: NAME=1, NAME=TYPE:16), its launcher dispatching */
    const SpecVec *variants;
    const char **variant_text; /* each as given, for messages and the header */
    int nvariants;
} TranslateOptions;


int tilec_translate(Ctx *ctx, const TranslateOptions *opt, StrBuf *out);

/* Splits "*fp32:16, i32, 1024" or "x=*fp32, n=i32" into entries (named or
 * positional), honouring quotes.  Returns false with a message on bad input. */
bool tilec_parse_signature(Arena *a, const char *sig, LowerOptions *lo, const char **err);

#endif

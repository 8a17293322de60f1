/*
 * html.h — the explorer: tile IR with layouts and its CUDA → one HTML page,
 * or one tile value's layout → one SVG picture.
 *
 * Contract: html_emit() prints a self-contained page (the templates of
 * templates/explorer/ with the kernel's facts in place: inline CSS, script
 * and data, nothing fetched) that shows how the tile program becomes
 * per-thread CUDA: the source and the CUDA side by side, linked through the
 * CUDA's `// file.py:N` comments; every tile value's layout (from
 * layout_map); reductions and scans, layout conversions, shared buffers with
 * their banks, dot operands; a summary.  svg_emit() prints the grid of one
 * value, as the page draws it.  Both read f and the CUDA text and change
 * nothing; the output depends only on them (same input, same bytes).  A
 * --value that names no tile value is a user error (diag_error).
 */
#ifndef TILEC_HTML_H
#define TILEC_HTML_H

#include "../tileir/tir.h"

/* What ptxas reported for the kernel's cubin (registers < 0: not compiled). */
typedef struct PtxasReport {
    int arch;
    int registers;
    int spill_store_bytes, spill_load_bytes;
} PtxasReport;

typedef struct HtmlOptions {
    const char *cuda;         /* the .cu text cuda_emit made for f */
    const char *command;      /* the command that regenerates the page, or NULL */
    PtxasReport ptxas;
} HtmlOptions;

void html_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const HtmlOptions *opt);

/* The value `name`: a source name (its first value in program order) or %ID. */
const Value *html_find_value(Ctx *ctx, const TirFunc *f, const char *name);
void svg_emit(Arena *a, StrBuf *out, const Value *v);

#endif

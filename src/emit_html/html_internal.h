/* html_internal.h — what the explorer's files share: text escaping, the
 * key that links a source line to its CUDA (`file.py:N`), the grid geometry
 * and warp colours that the page's script and svg.c both draw with. */
#ifndef TILEC_HTML_INTERNAL_H
#define TILEC_HTML_INTERNAL_H

#include "html.h"

void html_escape(StrBuf *out, const char *s, size_t n);
void json_string(StrBuf *out, const char *s);

/* "softmax.py:31": the file's last path component and the line, as the CUDA's
 * source comments name them. */
const char *loc_key(Arena *a, Loc loc, const Source *main_src);
/* The statement an op came from, else the op's own location. */
Loc op_loc(const Op *op);

/* The facts the page's script draws, as one JSON object (data.c). */
void html_facts(Ctx *ctx, StrBuf *out, const TirFunc *f, const HtmlOptions *opt);

/* A value's grid: rows x cols cells, a 1-D tile wrapped GRID_WRAP per row,
 * higher ranks with their leading dimensions folded into rows. */
#define GRID_WRAP 32
void grid_shape(const LayoutMap *m, int *rows, int *cols);
int grid_cell_px(int cols);          /* the cell size both drawings use */
const char *warp_colour(int warp);   /* "#4e79a7" */

#endif

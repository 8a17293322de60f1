/*
 * svg.c — one tile value's layout as an SVG grid, what --emit svg --value
 * prints: one cell per element, coloured by the warp of its first owner
 * (the lowest thread that holds it), labelled with that thread's lane and
 * register where the cells are large enough.  Each cell also lists every
 * owner as data-owners="THREAD:REGISTER ..." — the page's tests compare the
 * page's grids with it.  The page's script draws the same grid.
 */
#include "html_internal.h"

#include <string.h>

/* Tableau's ten, less the two that read as grey and olive. */
static const char *const COLOURS[8] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                       "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};

const char *warp_colour(int warp) { return COLOURS[warp % 8]; }

void grid_shape(const LayoutMap *m, int *rows, int *cols)
{
    int n = 1;
    for (int d = 0; d < m->rank; d++)
        n *= m->shape[d];
    *cols = m->rank == 1 ? (n < GRID_WRAP ? n : GRID_WRAP) : m->shape[m->rank - 1];
    *rows = n / *cols;
}

int grid_cell_px(int cols)
{
    int px = 640 / cols;
    return px > 28 ? 28 : px < 4 ? 4 : px;
}

typedef struct Owner {
    int thread, reg;
} Owner;

void svg_emit(Arena *a, StrBuf *out, const Value *v)
{
    LayoutMap m;
    value_map(v, &m);
    int rows, cols, c[TIR_MAX_RANK];
    grid_shape(&m, &rows, &cols);
    int n = rows * cols, px = grid_cell_px(cols), nowners = (1 << m.nwarp) * 32 << m.nreg;
    /* every (thread, register) in thread order, chained per cell: each cell's owners come
     * out sorted, its first owner first */
    Owner *owners = NEW_ARRAY(a, Owner, (size_t)nowners);
    int *next = NEW_ARRAY(a, int, (size_t)nowners), *first = NEW_ARRAY(a, int, (size_t)n),
        *last = NEW_ARRAY(a, int, (size_t)n);
    for (int i = 0; i < n; i++)
        first[i] = last[i] = -1;
    int k = 0;
    for (int w = 0; w < 1 << m.nwarp; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < 1 << m.nreg; r++, k++) {
                lmap_coords(&m, r, l, w, c);
                int lin = smem_row_major(m.shape, m.rank, c);
                owners[k] = (Owner){32 * w + l, r};
                next[k] = -1;
                if (first[lin] < 0)
                    first[lin] = k;
                else
                    next[last[lin]] = k;
                last[lin] = k;
            }
    StrBuf name = {0};
    sb_printf(&name, "%%%d%s%s", v->id, v->name ? " " : "", v->name ? v->name : "");
    sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" data-value=\"%d\" "
                   "font-family=\"monospace\" font-size=\"%d\">\n<title>",
              cols * px + 1, rows * px + 1, v->id, px / 3 > 6 ? px / 3 : 6);
    html_escape(out, name.data, name.len);
    sb_printf(out, ": %s, L%d; colour: warp, label: lane/register</title>\n", dtype_name(v->type.dtype == DT_PTR ? v->type.pointee : v->type.dtype), v->layout->id);
    sb_free(&name);
    for (int i = 0; i < n; i++) {
        const Owner *o = &owners[first[i]];
        sb_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" data-i=\"%d\" "
                       "data-owners=\"",
                  i % cols * px, i / cols * px, px, px, warp_colour(o->thread / 32), i);
        for (int j = first[i]; j >= 0; j = next[j])
            sb_printf(out, "%s%d:%d", j == first[i] ? "" : " ", owners[j].thread, owners[j].reg);
        sb_puts(out, "\"/>\n");
    }
    if (px >= 18)
        for (int i = 0; i < n; i++) {
            const Owner *o = &owners[first[i]];
            int x = i % cols * px + px / 2, y = i / cols * px;
            sb_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#fff\">%d</text>", x, y + px / 2 - 1,
                      o->thread % 32);
            sb_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#fff\">r%d</text>\n", x, y + px - 3, o->reg);
        }
    sb_puts(out, "</svg>\n");
}

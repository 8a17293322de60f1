/*
 * data.c — the kernel's facts for the page's script, as one JSON object:
 * every tile value and the layout map of its shape (the bits layout_map
 * gives, which the script turns into owners exactly as lmap_coords does),
 * the reductions and scans with the steps their axis bits imply, the layout
 * conversions, the shared buffers with their storage (swizzle, padding), the
 * dots, the vector width of every global access, and the summary.
 */
#include "html_internal.h"

#include <string.h>

typedef struct Facts {
    Ctx *ctx;
    const TirFunc *f;
    Vec(const Value *) maps;  /* one value per distinct (layout, shape) */
    StrBuf values, reductions, converts, buffers, dots, accesses;
} Facts;

static void sep(StrBuf *b) { sb_puts(b, b->len ? ",\n" : "\n"); }

static bool same_map(const Value *a, const Value *b)
{
    if (a->layout != b->layout || a->type.rank != b->type.rank)
        return false;
    for (int d = 0; d < a->type.rank; d++)
        if (a->type.shape[d] != b->type.shape[d])
            return false;
    return true;
}

static int map_index(Facts *F, const Value *v)
{
    for (int i = 0; i < F->maps.len; i++)
        if (same_map(F->maps.data[i], v))
            return i;
    vec_push(&F->ctx->arena, &F->maps, v);
    return F->maps.len - 1;
}

static void int_list(StrBuf *b, const int *x, int n)
{
    sb_putc(b, '[');
    for (int i = 0; i < n; i++)
        sb_printf(b, "%s%d", i ? "," : "", x[i]);
    sb_putc(b, ']');
}

static void bit_list(StrBuf *b, const LBit *bits, int n)
{
    sb_putc(b, '[');
    for (int i = 0; i < n; i++)
        sb_printf(b, "%s[%d,%d]", i ? "," : "", bits[i].dim, bits[i].bit);
    sb_putc(b, ']');
}

static const char *elem_name(Type t) { return dtype_name(t.dtype == DT_PTR ? t.pointee : t.dtype); }

static void key(Facts *F, StrBuf *b, const Op *op)
{
    sb_puts(b, "\"loc\":");
    json_string(b, loc_key(&F->ctx->arena, op_loc(op), F->ctx->src));
}

static void add_value(Facts *F, const Op *op, const Value *v)
{
    StrBuf *b = &F->values;
    sep(b);
    sb_printf(b, "{\"id\":%d,\"name\":", v->id);
    json_string(b, v->name ? v->name : "");
    sb_printf(b, ",\"op\":\"%s\",\"shape\":", op_name(op->kind));
    int_list(b, v->type.shape, v->type.rank);
    sb_printf(b, ",\"dtype\":\"%s\",\"ptr\":%s,\"layout\":\"L%d\",\"map\":%d,", elem_name(v->type),
              v->type.dtype == DT_PTR ? "true" : "false", v->layout->id, map_index(F, v));
    key(F, b, op);
    sb_putc(b, '}');
}

/* The steps of a reduction or scan along `axis` of its input, from the bits
 * of the input's map along it: registers (in the thread), lanes (shuffles),
 * warps (shared memory). */
static void reduction_steps(StrBuf *b, const Op *op, const LayoutMap *m, int axis)
{
    AxisBits ab;
    axis_bits(m, axis, &ab);
    bool scan = op->kind == OP_SCAN;
    sb_puts(b, "[");
    int n = 0;
    if (ab.naxis_reg)
        sb_printf(b, "%s\"each thread combines its own %d elements along dim %d, in registers\"", n++ ? "," : "",
                  1 << ab.naxis_reg, axis);
    if (ab.nlane) {
        sb_printf(b, "%s\"then %d lanes of a warp combine with shuffles (%s", n++ ? "," : "", 1 << ab.nlane,
                  scan ? "up by" : "xor");
        for (int i = ab.nlane - 1; i >= 0; i--)
            sb_printf(b, " %d", 1 << ab.lane[i]);
        sb_puts(b, ")\"");
    }
    if (ab.nwarp)
        sb_printf(b, "%s\"then %d warps exchange %s through shared memory (%d bytes at %d)\"", n++ ? "," : "",
                  1 << ab.nwarp, scan ? "their totals" : "partials", op->smem_bytes, op->smem_offset);
    if (!n)
        sb_puts(b, "\"the axis has one element: nothing to combine\"");
    sb_puts(b, "]");
}

static void add_reduction(Facts *F, const Op *op)
{
    StrBuf *b = &F->reductions;
    const Value *in = op->args[0];
    int axis = op->kind == OP_REDUCE ? op->reduce.axis : op->scan.axis;
    LayoutMap m;
    value_map(in, &m);
    sep(b);
    sb_printf(b, "{\"kind\":\"%s\",\"what\":\"%s\",\"input\":%d,\"axis\":%d,", op_name(op->kind),
              op->kind == OP_REDUCE ? reduce_name(op->reduce.kind) : op->scan.kind == SCAN_SUM ? "cumsum" : "cumprod",
              in->id, axis);
    key(F, b, op);
    sb_puts(b, ",\"steps\":");
    reduction_steps(b, op, &m, axis);
    sb_putc(b, '}');
}

static void swz_json(StrBuf *b, SmemSwizzle s) { sb_printf(b, "[%d,%d,%d]", s.vec, s.per_phase, s.max_phase); }

static void add_buffer(Facts *F, const Op *op)
{
    StrBuf *b = &F->buffers;
    sep(b);
    sb_printf(b, "{\"op\":\"%s\",\"offset\":%d,\"bytes\":%d,", op_name(op->kind), op->smem_offset, op->smem_bytes);
    key(F, b, op);
    if (op->stage) {
        const DotStage *s = op->stage;
        sb_printf(b, ",\"stage\":{\"operand\":\"%s\",\"rows\":%d,\"cols\":%d,\"elem\":%d,\"swz\":", s->op_idx ? "B" : "A",
                  s->rows, s->cols, (dtype_bits(s->dtype) + 7) / 8);
        swz_json(b, s->swz);
        sb_printf(b, ",\"padRowsLog2\":%d,\"pad\":%d,\"slots\":%d,\"ldmatrix\":%s,\"trans\":%s}", s->pad_rows_log2, s->pad,
                  s->nslots, s->ldmatrix ? "true" : "false", s->trans ? "true" : "false");
    } else if (op->kind == OP_CONVERT) {
        const SmemLayout *l = &op->smem_layout;
        sb_printf(b, ",\"convert\":{\"src\":%d,\"dst\":%d,\"elem\":%d,\"rowLog2\":%d,\"swz\":", op->args[0]->id,
                  op->results[0]->id, l->elem_bytes, l->row_log2);
        swz_json(b, l->swz);
        sb_printf(b, ",\"padLog2\":%d,\"pad\":%d,\"readVec\":%d,\"conflicts\":%d,\"plainConflicts\":%d}", l->pad_log2,
                  l->pad, op->smem_read_vec, op->smem_conflicts, op->smem_plain_conflicts);
    }
    sb_putc(b, '}');
}

static void add_dot(Facts *F, const Op *op)
{
    StrBuf *b = &F->dots;
    sep(b);
    sb_printf(b, "{\"a\":%d,\"b\":%d,\"c\":%d,\"mma\":%s,", op->args[0]->id, op->args[1]->id, op->results[0]->id,
              dot_uses_mma(op) ? "true" : "false");
    key(F, b, op);
    sb_putc(b, '}');
}

/* A global load or store of a tile, or a cp.async: elements per vector, and "guarded" when
 * its mask is tested per vector at run time (whole vectors only where all are in bounds). */
static void add_access(Facts *F, const Op *op)
{
    const Value *ptr = op->args[0];
    if (!ptr->type.rank)
        return;
    bool copy = op->kind == OP_ASYNC_COPY;
    int vec = copy ? copy_vec(op) : access_vec(op, NULL);
    bool guarded = copy ? copy_tests_mask(op) : access_tests_mask(op);
    StrBuf *b = &F->accesses;
    sep(b);
    StrBuf shape = {0};
    for (int d = 0; d < ptr->type.rank; d++)
        sb_printf(&shape, "%s%d", d ? "x" : "", ptr->type.shape[d]);
    /* a TMA ring's copy: one thread's box copies on sm_90a, these cp.async copies elsewhere */
    const char *what = copy ? (op->async_copy.tma ? "TMA (sm_90a) or cp.async" : "cp.async") : op_name(op->kind);
    sb_printf(b, "{\"op\":\"%s\",\"what\":\"%s %s\",\"vec\":%d,\"bytes\":%d,", what,
              shape.data, dtype_name(ptr->type.pointee), vec, vec * ((dtype_bits(ptr->type.pointee) + 7) / 8));
    if (guarded)
        sb_puts(b, "\"guarded\":true,");
    sb_free(&shape);
    key(F, b, op);
    sb_putc(b, '}');
}

static void walk(Facts *F, const Block *blk)
{
    for (int i = 0; i < blk->ops.len; i++) {
        const Op *op = blk->ops.data[i];
        for (int k = 0; k < op->nres; k++)
            if (op->results[k]->type.rank && op->results[k]->layout)
                add_value(F, op, op->results[k]);
        if ((op->kind == OP_REDUCE || op->kind == OP_SCAN) && op->args[0]->type.rank)
            add_reduction(F, op);
        if (op->kind == OP_DOT)
            add_dot(F, op);
        if (op->kind == OP_LOAD || op->kind == OP_STORE || op->kind == OP_ASYNC_COPY)
            add_access(F, op);
        if (op->smem_bytes)
            add_buffer(F, op);
        for (int r = 0; r < op->nregions; r++)
            walk(F, op->regions[r]);
    }
}

static void maps_json(Facts *F, StrBuf *b)
{
    for (int i = 0; i < F->maps.len; i++) {
        const Value *v = F->maps.data[i];
        LayoutMap m;
        value_map(v, &m);
        sep(b);
        sb_puts(b, "{\"shape\":");
        int_list(b, m.shape, m.rank);
        sb_puts(b, ",\"reg\":");
        bit_list(b, m.reg, m.nreg);
        sb_puts(b, ",\"lane\":");
        bit_list(b, m.lane, m.nlane);
        sb_puts(b, ",\"warp\":");
        bit_list(b, m.warp, m.nwarp);
        StrBuf d = {0};
        layout_describe(&d, v->layout);
        sb_puts(b, ",\"layout\":");
        json_string(b, d.data);
        sb_free(&d);
        lmap_describe(&d, &m);
        sb_puts(b, ",\"owns\":");
        json_string(b, d.data);
        sb_free(&d);
        sb_putc(b, '}');
    }
}

/* The .cu header's "Shared memory:" paragraph, without its comment marks. */
static void smem_text(StrBuf *b, const char *cuda)
{
    const char *p = strstr(cuda, "\n// Shared memory:");
    StrBuf t = {0};
    for (p = p ? p + 1 : NULL; p && !strncmp(p, "//", 2) && strncmp(p, "//\n", 3); p = strchr(p, '\n') + 1) {
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        const char *s = p + 2 + (p[2] == ' ');
        sb_printf(&t, "%.*s\n", (int)(nl - s), s);
    }
    json_string(b, t.data ? t.data : "");
    sb_free(&t);
}

void html_facts(Ctx *ctx, StrBuf *out, const TirFunc *f, const HtmlOptions *opt)
{
    Facts F = {.ctx = ctx, .f = f};
    walk(&F, f->body);
    sb_puts(out, "{\"kernel\":");
    json_string(out, f->name);
    sb_printf(out, ",\n\"threads\":%d,\"warps\":%d,\"smemBytes\":%d,\"stages\":%d,\n\"ptxas\":",
              32 * f->num_warps, f->num_warps, f->smem_bytes, f->num_stages);
    if (opt->ptxas.registers >= 0)
        sb_printf(out, "{\"arch\":%d,\"registers\":%d,\"spillStores\":%d,\"spillLoads\":%d}", opt->ptxas.arch,
                  opt->ptxas.registers, opt->ptxas.spill_store_bytes, opt->ptxas.spill_load_bytes);
    else
        sb_puts(out, "null");
    sb_puts(out, ",\n\"colours\":[");
    for (int w = 0; w < 8; w++)
        sb_printf(out, "%s\"%s\"", w ? "," : "", warp_colour(w));
    sb_printf(out, "],\"wrap\":%d,\n\"smemText\":", GRID_WRAP);
    smem_text(out, opt->cuda);
    StrBuf maps = {0};
    maps_json(&F, &maps);
    const char *names[] = {"maps", "values", "reductions", "buffers", "dots", "accesses"};
    StrBuf *parts[] = {&maps, &F.values, &F.reductions, &F.buffers, &F.dots, &F.accesses};
    for (int i = 0; i < 6; i++) {
        sb_printf(out, ",\n\"%s\":[%s%s]", names[i], parts[i]->data ? parts[i]->data : "", parts[i]->len ? "\n" : "");
        sb_free(parts[i]);
    }
    sb_puts(out, "}");
}

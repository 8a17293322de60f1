/*
 * emit.c — prints a scheduled TirFunc as readable CUDA C.
 *
 * Two steps: plan (names, which values are folded into their single user's
 * expression, the vector width of each memory op, which loop-carried values
 * are written in place), then print (header, helpers, kernel, launcher).
 */
#include "emit_internal.h"

#include <stdio.h>
#include <string.h>

#include "templates.h"

static void emit_block(Emitter *E, const Block *b);
static bool fused_read(Emitter *E, const Value *v);
static bool helper_known(Emitter *E, const char *name);

/* ---- output primitives -------------------------------------------------------- */

void line(Emitter *E, const char *fmt, ...)
{
    for (int i = 0; i < E->indent; i++)
        sb_puts(E->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(E->out, fmt, ap);
    va_end(ap);
    sb_putc(E->out, '\n');
}

char *fmt(Emitter *E, const char *f, ...)
{
    va_list ap, ap2;
    va_start(ap, f);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *p = arena_alloc(E->a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, f, ap2);
    va_end(ap2);
    return p;
}

static void stmt_comment(Emitter *E, const Op *op)
{
    const SrcStmt *s = op->stmt;
    if (!s || s == E->last_stmt)
        return;
    if (E->last_stmt && E->last_stmt->begin == s->begin && E->last_stmt->end == s->end)
        return;
    E->last_stmt = s;
    const Source *src = E->ctx->src;
    StrBuf text = {0};
    bool space = false;
    for (int i = s->begin; i < s->end && i < (int)src->len; i++) {
        char c = src->text[i];
        bool continuation = c == '\\' && i + 1 < (int)src->len && src->text[i + 1] == '\n';
        if (c == '\n' || c == '\t' || c == ' ' || continuation) {
            space = text.len > 0;
            continue;
        }
        if (space)
            sb_putc(&text, ' ');
        space = false;
        sb_putc(&text, c);
    }
    const char *stmt = comment_escape(E->a, text.data ? text.data : "");
    sb_free(&text);
    if (s->helper)
        line(E, "// %s:%d  %s    (in %s, inlined from line %d)", source_file_name(E), s->loc.line, stmt, s->helper,
             s->call_line);
    else
        line(E, "// %s:%d  %s", source_file_name(E), s->loc.line, stmt);
}

/* ---- tl.dot: operand staging, ldmatrix, mma.sync, the FMA path ------------------------------- */

/* 32-bit registers of a dot operand fragment (kwidth elements each). */
static int frag_words(const Value *v) { return nregs(v) / v->layout->kwidth; }

/* The element type a staging buffer is addressed in: fp8 as its bytes
 * (uint8_t), which the compiler keeps in registers where the cuda_fp8.h
 * struct types would not be. */
static const char *stage_ctype(DType d) { return dtype_is_fp8(d) ? "uint8_t" : dtype_ctype(d); }

/* The staging buffer's address helper (made once per buffer):
 * stageN(smem, [slot,] row, col) -> the element's address. */
static const char *stage_helper(Emitter *E, const Op *op)
{
    for (int i = 0; i < E->stage_ops.len; i++)
        if (E->stage_ops.data[i] == op)
            return E->stage_fns.data[i];
    const DotStage *s = op->stage;
    const char *fn = fmt(E, "stage%d", E->nbuf++);
    vec_push(E->a, &E->stage_ops, op);
    vec_push(E->a, &E->stage_fns, fn);
    StrBuf *h = &E->helpers;
    const char *dims[2][2] = {{"M", "K"}, {"K", "N"}};
    const Type t = op->results[0]->type;
    const char *T = stage_ctype(s->dtype);
    sb_printf(h, "// %s: operand %c of a tl.dot (%dx%d %s, %s x %s), staged in shared memory for the tensor cores\n", fn,
              s->op_idx ? 'B' : 'A', t.shape[0], t.shape[1], dtype_name(s->dtype), dims[s->op_idx][0],
              dims[s->op_idx][1]);
    sb_printf(h, "// as %d rows of %d elements with %s contiguous; %s.\n", s->rows, s->cols,
              dims[s->op_idx][s->contig_dim],
              s->ldmatrix ? fmt(E, "read with ldmatrix%s", s->trans ? ".trans (K is not the contiguous dimension)" : "")
                          : "read element by element (ldmatrix cannot transpose 8- or 32-bit elements)");
    if (s->swz.max_phase > 1)
        sb_printf(h, "// Swizzle (Triton's vec %d, perPhase %d, maxPhase %d): chunk c of %d elements in row r is stored\n"
                     "// at chunk c ^ ((r / %d) %% %d), so the 8 rows one ldmatrix reads fall in 8 different bank groups.\n",
                  s->swz.vec, s->swz.per_phase, s->swz.max_phase, s->swz.vec, s->swz.per_phase, s->swz.max_phase);
    if (s->pad)
        sb_printf(h, "// Padding: %d elements (%d bytes) after every %d row%s, so that the lanes of one element read\n"
                     "// fall in different banks; each address stays the thread's base plus a constant.\n",
                  s->pad, s->pad * dtype_bits(s->dtype) / 8, 1 << s->pad_rows_log2, s->pad_rows_log2 ? "s" : "");
    if (s->nslots > 1)
        sb_printf(h, "// %d slots of %d bytes, one per pipeline stage, at byte %d of the arena.\n", s->nslots,
                  dot_stage_slot_bytes(s), op->smem_offset);
    else
        sb_printf(h, "// %d bytes at byte %d of the arena.\n", dot_stage_slot_bytes(s), op->smem_offset);
    sb_printf(h, "static __device__ __forceinline__ %s *%s(unsigned char *smem, %sint row, int col)\n{\n", T, fn,
              s->nslots > 1 ? "int slot, " : "");
    const char *in_row = s->swz.max_phase > 1 ? fmt(E, "tilec::swizzle<%d, %d, %d>(row, col)", s->swz.vec,
                                                    s->swz.per_phase, s->swz.max_phase) : "col";
    const char *pad = !s->pad ? "" : s->pad_rows_log2 ? fmt(E, "(row >> %d) * %d + ", s->pad_rows_log2, s->pad)
                                                      : fmt(E, "row * %d + ", s->pad);
    sb_printf(h, "    return reinterpret_cast<%s *>(smem + %d) + %srow * %d + %s%s;\n}\n\n", T, op->smem_offset,
              s->nslots > 1 ? fmt(E, "slot * %d + ", dot_stage_slot_elems(s)) : "", s->cols, pad, in_row);
    return fn;
}

/* The value whose register array holds v's elements in v's order: v, or the
 * operand of the transposes it is a view of; NULL when v is an expression. */
static const Value *array_of(Emitter *E, const Value *v)
{
    while (info(E, v)->inl && v->def && v->def->kind == OP_TRANS)
        v = v->def->args[0];
    return info(E, v)->inl ? NULL : v;
}

/* The bits of ld's that move buffer coordinate c (0 row, 1 col), from `src` as C. */
static const char *ld_part(Emitter *E, const LBit *bits, int n, int c, const char *src)
{
    int from[LMAP_MAX_REG_BITS], to[LMAP_MAX_REG_BITS], k = 0;
    for (int i = 0; i < n; i++)
        if (bits[i].dim == c)
            from[k] = i, to[k++] = bits[i].bit;
    return k ? move_bits(E, src, from, to, k, n) : "0";
}

/* How ldmatrix reads a staged operand's fragment. */
static void stage_ldmatrix(const Op *op, DotLdmatrix *ld)
{
    LayoutMap m;
    value_map(op->results[0], &m);
    dot_ldmatrix(op->stage, &m, op->results[0]->layout->kwidth, ld);
}

/* ldmatrix addressing of a staged operand (dot_ldmatrix): binds `<name>_row`
 * and `<name>_col`, the lane's address in ldmatrix 0. */
static void ld_setup(Emitter *E, const Op *op, const char *name)
{
    DotLdmatrix ld;
    stage_ldmatrix(op, &ld);
    const char *coord[2];
    for (int c = 0; c < 2; c++) {
        /* the warp's bits, then the lane's: lane l gives row l % 8 of matrix l / 8, so lane
         * bits 0..2 are row bits and the ones above pick the matrix */
        BitSrc srcs[2] = {{"warp", ld.nwarp}, {"lane", 3 + ld.nmat}};
        BitMove mv[ARRAY_LEN(ld.warp) + 3 + ARRAY_LEN(ld.mat)];
        int k = 0;
        for (int i = 0; i < ld.nwarp; i++)
            if (ld.warp[i].dim == c)
                mv[k++] = (BitMove){0, (int8_t)i, ld.warp[i].bit};
        for (int b = 0; b < 3 && c == 0; b++)
            mv[k++] = (BitMove){1, (int8_t)b, (int8_t)b};
        for (int i = 0; i < ld.nmat; i++)
            if (ld.mat[i].dim == c)
                mv[k++] = (BitMove){1, (int8_t)(3 + i), ld.mat[i].bit};
        StrBuf t = {0};
        lmap_moves_expr(&t, srcs, mv, k);
        coord[c] = fmt(E, "%s", t.data);
        sb_free(&t);
    }
    line(E, "// ldmatrix%s.x%d into %s: lane l gives the address of row l %% 8 of 8x8 matrix l / 8", ld.trans ? ".trans" : "",
         ld.group, vname(E, op->results[0]));
    line(E, "const int %s_row = %s, %s_col = %s;", name, coord[0], name, coord[1]);
}

/* ldmatrix number q (a C expression): fragment words group*q .. group*q + group-1. */
static void ld_group(Emitter *E, const Op *op, const char *fn, const char *slot, const char *name, const char *q)
{
    DotLdmatrix ld;
    stage_ldmatrix(op, &ld);
    const char *off[2];
    for (int c = 0; c < 2; c++)
        off[c] = strcmp(q, "0") ? ld_part(E, ld.q, ld.nq, c, q) : "0";
    const char *row = strcmp(off[0], "0") ? fmt(E, "%s_row + %s", name, paren(E, off[0])) : fmt(E, "%s_row", name);
    const char *col = strcmp(off[1], "0") ? fmt(E, "%s_col + %s", name, paren(E, off[1])) : fmt(E, "%s_col", name);
    line(E, "tilec::ldmatrix<%d, %s>(&%s[%s], %s(smem, %s%s, %s));", ld.group, ld.trans ? "true" : "false",
         vname(E, op->results[0]), strcmp(q, "0") ? fmt(E, "%d * %s", ld.group, paren(E, q)) : "0", fn, slot, row, col);
}

/* Fragment element `e` (a C expression) of a staged operand read element
 * by element (8- or 32-bit with K not contiguous: no ldmatrix); `slot` is
 * "" or the ring slot followed by ", ". */
static void elem_read(Emitter *E, const Op *op, const char *fn, const char *slot, const char *e)
{
    const DotStage *s = op->stage;
    const Value *r = op->results[0];
    LayoutMap m;
    value_map(r, &m);
    line(E, "reinterpret_cast<%s *>(%s)[%s] = *%s(smem, %s%s, %s);", stage_ctype(s->dtype), vname(E, r), e, fn, slot,
         elem_coord(E, r, &m, 1 - s->contig_dim, e), elem_coord(E, r, &m, s->contig_dim, e));
}

/* Reads the staged operand into r's fragment: ldmatrix, or one element at a time. */
static void stage_read(Emitter *E, const Op *op, const char *fn, const char *slot)
{
    const DotStage *s = op->stage;
    const Value *r = op->results[0];
    if (!s->ldmatrix) {
        int n = nregs(r);
        const char *e = elem_loop_open(E, n, 1);
        elem_read(E, op, fn, slot, e);
        elem_loop_close(E, n, 1);
        return;
    }
    int words = frag_words(r), g = words < 4 ? words : 4;
    ld_setup(E, op, "ld");
    if (words > g) {
        line(E, "#pragma unroll");
        line(E, "for (int qi = 0; qi < %d; ++qi)", words / g);
        E->indent++;
    }
    ld_group(E, op, fn, slot, "ld", words > g ? "qi" : "0");
    if (words > g)
        E->indent--;
}

/* A convert into a dot operand layout: the tile goes to its swizzled staging
 * buffer (vector stores where the source holds consecutive elements), then
 * every warp reads its fragments. */
static void emit_stage_convert(Emitter *E, const Op *op)
{
    const DotStage *s = op->stage;
    const Value *x = op->args[0], *r = op->results[0];
    const char *fn = stage_helper(E, op);
    line(E, "uint32_t %s[%d];  // [%dx%d] %s, L%d: operand %c fragments, %d elements per register", vname(E, r),
         frag_words(r), r->type.shape[0], r->type.shape[1], dtype_name(s->dtype), r->layout->id, s->op_idx ? 'B' : 'A',
         r->layout->kwidth);
    line(E, "{  // L%d -> L%d through shared memory (%s)", x->layout->id, r->layout->id, fn);
    E->indent++;
    LayoutMap sm;
    value_map(x, &sm);
    int rd = 1 - s->contig_dim, cd = s->contig_dim;
    const Value *arr = array_of(E, x);
    int vec = 1 << lmap_lead_bits(&sm, cd);
    int cap = 16 * 8 / dtype_bits(s->dtype);
    if (vec > cap)
        vec = cap;
    if (vec > s->swz.vec && s->swz.max_phase > 1)
        vec = s->swz.vec;
    if (!arr)
        vec = 1;
    int n = nregs(x);
    const char *e = elem_loop_open(E, n, vec);
    const char *at = fmt(E, "%s(smem, %s, %s)", fn, elem_coord(E, x, &sm, rd, e), elem_coord(E, x, &sm, cd, e));
    if (dtype_is_fp8(s->dtype)) /* the buffer holds fp8 as bytes */
        at = fmt(E, "reinterpret_cast<%s *>(%s)", dtype_ctype(s->dtype), at);
    if (vec > 1)
        line(E, "tilec::store<%d>(%s, &%s[%s]);", vec, at, vname(E, arr), e);
    else
        line(E, "*%s = %s;", at, ex(E, x, NULL, e));
    elem_loop_close(E, n, vec);
    line(E, "__syncthreads();");
    stage_read(E, op, fn, "");
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

/* A dot operand whose fragments this thread already holds (dot_operand_in_registers):
 * each 32-bit word packs `kwidth` of the source's registers, no shared memory. */
static void emit_register_fragments(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int kw = r->layout->kwidth;
    LayoutMap sm, dm;
    value_map(x, &sm);
    value_map(r, &dm);
    int rb[LMAP_MAX_REG_BITS];
    if (!lmap_local(&sm, -1, &dm, rb))
        BUG("operand %%%d is not held by the threads of its fragments", r->id);
    line(E, "uint32_t %s[%d];  // [%dx%d] %s, L%d: operand %c fragments, %d element%s per register", vname(E, r),
         frag_words(r), r->type.shape[0], r->type.shape[1], dtype_name(x->type.dtype), r->layout->id,
         r->layout->op_idx ? 'B' : 'A', kw, kw > 1 ? "s" : "");
    line(E, "// L%d -> L%d in registers: each thread already holds the elements of its fragments", x->layout->id,
         r->layout->id);
    const char *e = elem_loop_open(E, nregs(r), kw);
    const char *base = reg_index(E, x, r, e);
    StrBuf elems = {0};
    for (int j = 0; j < kw; j++) {
        int off = 0;
        for (int i = 0; (1 << i) < kw; i++)
            if ((j >> i & 1) && rb[i] >= 0)
                off |= 1 << rb[i];
        const char *idx = off ? fmt(E, "%s + %d", paren(E, base), off) : base;
        sb_printf(&elems, "%s%s", j ? ", " : "", ex(E, x, NULL, idx));
    }
    const char *list = elems.data ? elems.data : "";
    const char *word = kw == 1 ? fmt(E, "tilec::bitcast<uint32_t>(%s)", list) : fmt(E, "tilec::pack%d(%s)", kw, list);
    /* fp32 rounded to 16 bits on the way in (p.to(tl.float16)): one packed cvt per pair */
    const Op *cast = x->def;
    if (kw == 2 && info(E, x)->inl && cast && cast->kind == OP_CAST && !cast->iattr[0] &&
        cast->args[0]->type.dtype == DT_FP32 && (x->type.dtype == DT_FP16 || x->type.dtype == DT_BF16)) {
        const char *lo = ex(E, cast->args[0], NULL, base);
        const char *hi = ex(E, cast->args[0], NULL, fmt(E, "%s + %d", paren(E, base), 1 << rb[0]));
        word = fmt(E, "tilec::pack2_%s(%s, %s)", x->type.dtype == DT_FP16 ? "f16" : "bf16", lo, hi);
    }
    line(E, "%s[%s] = %s;", vname(E, r), kw > 1 ? fmt(E, "%s / %d", e, kw) : e, word);
    sb_free(&elems);
    elem_loop_close(E, nregs(r), kw);
}

/* A pipelined operand: its fragments from the ring slot of this iteration. */
static void emit_local_load(Emitter *E, const Op *op)
{
    const Value *r = op->results[0];
    const char *fn = stage_helper(E, op);
    line(E, "uint32_t %s[%d];  // [%dx%d] %s, L%d: operand %c fragments, %d elements per register", vname(E, r),
         frag_words(r), r->type.shape[0], r->type.shape[1], dtype_name(op->stage->dtype), r->layout->id,
         op->stage->op_idx ? 'B' : 'A', r->layout->kwidth);
    if (fused_read(E, r)) {
        line(E, "// read from slot %s of %s one K step at a time, in the tl.dot below", ex(E, op->args[0], NULL, "0"), fn);
        return;
    }
    line(E, "{  // from slot %s of %s", ex(E, op->args[0], NULL, "0"), fn);
    E->indent++;
    stage_read(E, op, fn, fmt(E, "%s, ", ex(E, op->args[0], NULL, "0")));
    E->indent--;
    line(E, "}");
}

/* cp.async of one iteration's operand tile into a ring slot: each thread
 * copies its chunks (the load's layout), zero-filled where masked or past
 * the loop's end. */
static void emit_async_copy(Emitter *E, const Op *op)
{
    const Op *ll = op->buf;
    const DotStage *s = ll->stage;
    const char *fn = stage_helper(E, ll);
    const Value *ptr = op->args[0], *pred = op->args[1], *slot = op->args[2];
    const Value *mask = op->nargs > 3 ? op->args[3] : NULL;
    int v = async_copy_elems(ptr, mask);
    if (s->swz.max_phase > 1 && v > s->swz.vec)
        v = s->swz.vec; /* a copy must stay inside one swizzled chunk */
    int bytes = v * dtype_bits(s->dtype) / 8;
    LayoutMap m;
    value_map(ptr, &m);
    int n = nregs(ptr);
    line(E, "// cp.async into slot %s of %s: %d-byte copies, zero-filled where masked or past the loop's end",
         ex(E, slot, NULL, "0"), fn, bytes);
    const char *e = elem_loop_open(E, n, v);
    const char *c0 = elem_coord(E, ptr, &m, 0, e), *c1 = elem_coord(E, ptr, &m, 1, e);
    const char *oc[2] = {op->iattr[0] ? c1 : c0, op->iattr[0] ? c0 : c1}; /* operand coordinates */
    const char *p = ex(E, pred, NULL, "0");
    if (mask)
        p = fmt(E, "%s && %s", paren(E, p), paren(E, ex(E, mask, ptr, e)));
    line(E, "tilec::cp_async<%d>(%s(smem, %s, %s, %s), %s, %s);", bytes, fn, ex(E, slot, NULL, "0"),
         oc[1 - s->contig_dim], oc[s->contig_dim], ex(E, ptr, ptr, e), p);
    elem_loop_close(E, n, v);
}

/* The fp8 mma (sm_89 and later), written into the helpers when a kernel uses it. */
static const char *mma_fp8_helper(Emitter *E, DType a, DType b)
{
    const char *ta = a == DT_FP8E5 ? "e5m2" : "e4m3", *tb = b == DT_FP8E5 ? "e5m2" : "e4m3";
    const char *fn = fmt(E, "mma_m16n8k32_%s_%s", ta, tb);
    if (helper_known(E, fn))
        return fn;
    StrBuf *h = &E->helpers;
    sb_printf(h, "// mma.sync on fp8 (sm_89 and later): d (4 fp32 accumulators of one 16x8 tile) += a (16x32 %s)\n"
                 "// * b (32x8 %s), four elements per fragment register, in the PTX order (as int8's m16n8k32).\n", ta, tb);
    sb_printf(h, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890\n"
                 "#error \"this kernel multiplies fp8 on tensor cores: compile it for sm_89 or later\"\n#endif\n");
    sb_printf(h, "static __device__ __forceinline__ void %s(float *d, const uint32_t *a, const uint32_t *b)\n{\n", fn);
    sb_printf(h, "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, %%3}, \"\n", ta, tb);
    sb_printf(h, "                 \"{%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\\n\"\n");
    sb_printf(h, "                 : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n");
    sb_printf(h, "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n}\n\n");
    return fn;
}

/* The mma helper (tilec::... from the template, or a helper of this file). */
static const char *mma_fn(Emitter *E, DType in, DType in_b, DType out)
{
    if (dtype_is_fp8(in))
        return mma_fp8_helper(E, in, in_b);
    switch (in) {
    case DT_FP16: return out == DT_FP16 ? "tilec::mma_m16n8k16_f16_f16acc" : "tilec::mma_m16n8k16_f16";
    case DT_BF16: return "tilec::mma_m16n8k16_bf16";
    case DT_FP32: return "tilec::mma_m16n8k8_tf32";
    default: return "tilec::mma_m16n8k32_s8";
    }
}

/* Number of repetitions (per thread) of the 16x8 tile along d in the mma map. */
static int mma_reps(const LayoutMap *m, int d)
{
    int n = 0;
    for (int i = 2; i < m->nreg; i++)
        n += m->reg[i].dim == d;
    return 1 << n;
}

/* r = acc, unless the dot accumulates in acc's own registers. */
static void dot_init_result(Emitter *E, const Op *op)
{
    const Value *acc = op->args[2], *r = op->results[0];
    const char *name = vname(E, r);
    if (!info(E, r)->declared)
        declare_var(E, r);
    if (strcmp(name, vname(E, acc)) || info(E, acc)->inl)
        fill(E, name, r, value_elem, acc);
}

/* A pipelined operand read by its dot only: its fragments are loaded inside
 * the dot's K loop, one K step at a time, so that only the registers (and
 * the addresses) of the current step are live. */
static bool fused_read(Emitter *E, const Value *v)
{
    const Op *d = v->def;
    return d && d->kind == OP_LOCAL_LOAD && v->nuses == 1 && info(E, v)->user &&
           info(E, v)->user->kind == OP_DOT && info(E, v)->user->parent == d->parent &&
           !(info(E, v)->user->args[0]->type.dtype == DT_FP32 && info(E, v)->user->iattr[0] == DOT_TF32X3);
}

/* B fragment word of (ks, ni): its first N repetition sits before the K ones. */
static const char *b_word(Emitter *E, int nn, int nk)
{
    return nn >= 2 ? fmt(E, "2 * (ni & 1) + 4 * (ks + %d * (ni >> 1))", nk) : "2 * ks";
}

/* The fragment registers of K step ks read one element at a time (operands
 * whose K is not contiguous in 8- or 32-bit types, which ldmatrix cannot
 * transpose): `words` registers from word `first` (a C expression) on,
 * inside loops over `loop` (mi or ni) when n > 1. */
static void fused_elem_read(Emitter *E, const Op *ll, const char *fn, const char *loop, int n, const char *first,
                            int words)
{
    const DotStage *s = ll->stage;
    const Value *r = ll->results[0];
    int kw = r->layout->kwidth;
    line(E, "// operand %c of K step ks, one element at a time (%s's K is not its contiguous dimension)",
         s->op_idx ? 'B' : 'A', vname(E, r));
    if (n > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int %s = 0; %s < %d; ++%s)", loop, loop, n, loop);
    }
    line(E, "#pragma unroll");
    line(E, "%sfor (int j = 0; j < %d; ++j) {  // %d registers x %d elements", n > 1 ? "    " : "", words * kw, words, kw);
    E->indent += n > 1 ? 2 : 1;
    line(E, "const int e = %d * (%s) + j;", kw, first);
    elem_read(E, ll, fn, fmt(E, "%s, ", ex(E, ll->args[0], NULL, "0")), "e");
    E->indent -= n > 1 ? 2 : 1;
    line(E, "%s}", n > 1 ? "    " : "");
}

static void emit_mma_loop(Emitter *E, const Op *op, const char *fn, const char *a, const char *b, int nm, int nn, int nk)
{
    const Value *r = op->results[0];
    const char *name = vname(E, r);
    bool fa = fused_read(E, op->args[0]), fb = fused_read(E, op->args[1]);
    const Op *lla = fa ? op->args[0]->def : NULL, *llb = fb ? op->args[1]->def : NULL;
    const char *fna = fa ? stage_helper(E, lla) : NULL, *fnb = fb ? stage_helper(E, llb) : NULL;
    if (fa && lla->stage->ldmatrix)
        ld_setup(E, lla, fmt(E, "%s_ld", a));
    if (fb && llb->stage->ldmatrix)
        ld_setup(E, llb, fmt(E, "%s_ld", b));
    line(E, "#pragma unroll");
    line(E, "for (int ks = 0; ks < %d; ++ks) {  // K steps", nk);
    E->indent++;
    if (fa && !lla->stage->ldmatrix) {
        fused_elem_read(E, lla, fna, "mi", nm, fmt(E, nm > 1 ? "4 * (ks + %d * mi)" : "4 * ks", nk), 4);
        fa = false;
    }
    if (fb && !llb->stage->ldmatrix) {
        fused_elem_read(E, llb, fnb, "ni", nn, nn >= 2 ? b_word(E, nn, nk) : "2 * ks", 2);
        fb = false;
    }
    if (fa) {
        const Op *ll = op->args[0]->def;
        const char *slot = fmt(E, "%s, ", ex(E, ll->args[0], NULL, "0"));
        line(E, "#pragma unroll");
        line(E, "for (int mi = 0; mi < %d; ++mi)", nm);
        E->indent++;
        ld_group(E, ll, fna, slot, fmt(E, "%s_ld", a), fmt(E, "ks + %d * mi", nk));
        E->indent--;
    }
    if (fb) {
        const Op *ll = op->args[1]->def;
        const char *slot = fmt(E, "%s, ", ex(E, ll->args[0], NULL, "0"));
        if (nn >= 2) {
            line(E, "#pragma unroll");
            line(E, "for (int np = 0; np < %d; ++np)  // two 8-column tiles per ldmatrix.x4", nn / 2);
            E->indent++;
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b), fmt(E, "ks + %d * np", nk));
            E->indent--;
        } else if (nk >= 2) {
            line(E, "if ((ks & 1) == 0)  // one ldmatrix.x4 holds two K steps");
            E->indent++;
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b), "(ks >> 1)");
            E->indent--;
        } else {
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b), "0");
        }
    }
    bool h = r->type.dtype == DT_FP16;
    line(E, "#pragma unroll");
    line(E, "for (int mi = 0; mi < %d; ++mi)  // 16-row tiles of this warp", nm);
    line(E, "#pragma unroll");
    line(E, "    for (int ni = 0; ni < %d; ++ni)  // 8-column tiles of this warp", nn);
    const char *acc = fmt(E, "&%s[4 * (ni + %d * mi)]", name, nn);
    if (h)
        acc = fmt(E, "reinterpret_cast<uint32_t *>(%s)", acc);
    line(E, "        %s(%s, &%s[4 * (ks + %d * mi)], &%s[%s]);", fn, acc, a, nk, b, b_word(E, nn, nk));
    E->indent--;
    line(E, "}");
}

static void emit_dot_mma(Emitter *E, const Op *op)
{
    const Value *a = op->args[0], *b = op->args[1], *r = op->results[0];
    DType in = a->type.dtype;
    LayoutMap m;
    value_map(r, &m);
    int M = r->type.shape[0], N = r->type.shape[1], K = a->type.shape[1];
    int ik = 8 * dot_kwidth(in); /* K of one mma: 16 fp16/bf16, 8 tf32, 32 int8 */
    int nm = mma_reps(&m, 0), nn = mma_reps(&m, 1), nk = K / ik;
    const char *fn = mma_fn(E, in, b->type.dtype, r->type.dtype);
    dot_init_result(E, op);
    const char *prec = in != DT_FP32 ? "" : op->iattr[0] == DOT_TF32X3 ? ", tf32x3: three tf32 products" : ", tf32";
    line(E, "// %dx%d += %dx%d @ %dx%d on tensor cores%s: each warp issues %d x %d mma.sync.%s per K step of %d, %d K step%s",
         M, N, M, K, K, N, prec, nm, nn, strchr(fn, '_') + 1, ik, nk, nk > 1 ? "s" : "");  /* "m16n8k16_f16" */
    if (in == DT_FP32 && op->iattr[0] == DOT_TF32X3) {
        /* Triton's F32DotTC: small products into a zeroed sum (NaN there
         * becomes 0), big * big on top, then added to the accumulator */
        const char *an = vname(E, a), *bn = vname(E, b), *name = vname(E, r);
        int wa = frag_words(a), wb = frag_words(b);
        line(E, "{");
        E->indent++;
        line(E, "uint32_t a_big[%d], a_small[%d], b_big[%d], b_small[%d];", wa, wa, wb, wb);
        line(E, "#pragma unroll");
        line(E, "for (int i = 0; i < %d; ++i)", wa);
        line(E, "    a_big[i] = tilec::tf32_big(%s[i]), a_small[i] = tilec::tf32_small(%s[i]);", an, an);
        line(E, "#pragma unroll");
        line(E, "for (int i = 0; i < %d; ++i)", wb);
        line(E, "    b_big[i] = tilec::tf32_big(%s[i]), b_small[i] = tilec::tf32_small(%s[i]);", bn, bn);
        line(E, "#pragma unroll");
        line(E, "for (int mi = 0; mi < %d; ++mi)  // 16-row tiles of this warp", nm);
        line(E, "#pragma unroll");
        line(E, "    for (int ni = 0; ni < %d; ++ni) {  // 8-column tiles of this warp", nn);
        E->indent += 2;
        line(E, "float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};");
        const char *pairs[3][2] = {{"a_small", "b_big"}, {"a_big", "b_small"}, {"a_big", "b_big"}};
        for (int p = 0; p < 3; p++) {
            if (p == 2) {
                line(E, "#pragma unroll");
                line(E, "for (int j = 0; j < 4; ++j)");
                line(E, "    t[j] = isnan(t[j]) ? 0.0f : t[j];");
            }
            line(E, "#pragma unroll");
            line(E, "for (int ks = 0; ks < %d; ++ks)", nk);
            line(E, "    %s(t, &%s[4 * (ks + %d * mi)], &%s[%s]);", fn, pairs[p][0], nk, pairs[p][1],
                 b_word(E, nn, nk));
        }
        line(E, "#pragma unroll");
        line(E, "for (int j = 0; j < 4; ++j)");
        line(E, "    %s[4 * (ni + %d * mi) + j] += t[j];", name, nn);
        E->indent -= 2;
        line(E, "    }");
        E->indent--;
        line(E, "}");
        return;
    }
    emit_mma_loop(E, op, fn, vname(E, a), vname(E, b), nm, nn, nk);
}

/* The FMA path (fp64, input_precision="ieee"): A and B through shared
 * memory row-major; for each k a thread reads the A values of its rows and
 * the B values of its columns, then updates its results. */
static void emit_dot_fma(Emitter *E, const Op *op)
{
    const Value *a = op->args[0], *b = op->args[1], *r = op->results[0];
    int M = r->type.shape[0], N = r->type.shape[1], K = a->type.shape[1];
    const char *T = dtype_ctype(a->type.dtype);
    dot_init_result(E, op);
    line(E, "{  // %dx%d += %dx%d @ %dx%d with fused multiply-adds (exact fp32/fp64), A and B through shared memory",
         M, N, M, K, K, N);
    E->indent++;
    line(E, "%s *as = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset);
    line(E, "%s *bs = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset + dot_fma_b_offset(op));
    const Value *xs[2] = {a, b};
    const char *bufs[2] = {"as", "bs"};
    for (int k = 0; k < 2; k++) {
        LayoutMap xm;
        value_map(xs[k], &xm);
        int n = nregs(xs[k]);
        const char *e = elem_loop_open(E, n, 1);
        line(E, "%s[%s * %d + %s] = %s;", bufs[k], paren(E, elem_coord(E, xs[k], &xm, 0, e)), xs[k]->type.shape[1],
             paren(E, elem_coord(E, xs[k], &xm, 1, e)), ex(E, xs[k], NULL, e));
        elem_loop_close(E, n, 1);
    }
    line(E, "__syncthreads();");
    LayoutMap m;
    value_map(r, &m);
    /* the result's register bits along M (rows) and N (columns) */
    int rb[2][LMAP_MAX_REG_BITS], nb[2] = {0, 0}, pos[2][LMAP_MAX_REG_BITS];
    for (int i = 0; i < m.nreg; i++)
        if (m.reg[i].dim >= 0) {
            int d = m.reg[i].dim;
            rb[d][nb[d]] = i;
            pos[d][nb[d]++] = i;
        }
    const char *name = vname(E, r);
    const char *fma = a->type.dtype == DT_FP64 ? "fma" : "fmaf";
    line(E, "#pragma unroll 4");
    line(E, "for (int k = 0; k < %d; ++k) {", K);
    E->indent++;
    line(E, "%s a_k[%d], b_k[%d];  // A[row][k] for this thread's rows, B[k][col] for its columns", T, 1 << nb[0], 1 << nb[1]);
    for (int d = 0; d < 2; d++) {
        line(E, "#pragma unroll");
        line(E, "for (int i = 0; i < %d; ++i)", 1 << nb[d]);
        const char *reg = deposit(E, pos[d], nb[d], "i");
        const char *c = elem_coord(E, r, &m, d, reg);
        if (d == 0)
            line(E, "    a_k[i] = as[%s * %d + k];", paren(E, c), K);
        else
            line(E, "    b_k[i] = bs[k * %d + %s];", N, paren(E, c));
    }
    int n = nregs(r);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", n);
    line(E, "    %s[e] = %s(a_k[%s], b_k[%s], %s[e]);", name, fma, compress(E, rb[0], nb[0], "e", m.nreg),
         compress(E, rb[1], nb[1], "e", m.nreg), name);
    E->indent--;
    line(E, "}");
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

static void emit_dot(Emitter *E, const Op *op)
{
    if (dot_uses_mma(op))
        emit_dot_mma(E, op);
    else
        emit_dot_fma(E, op);
}

/* ---- atomics and debugging ops ---------------------------------------------------------- */

static bool helper_known(Emitter *E, const char *name)
{
    for (int i = 0; i < E->helper_names.len; i++)
        if (!strcmp(E->helper_names.data[i], name))
            return true;
    vec_push(E->a, &E->helper_names, name);
    return false;
}

/* PTX operand type and constraint of an atomic on d: ".s32", "r" */
static void atom_ptx_type(DType d, const char *kind, const char **ptx, const char **cons, const char **reg_t)
{
    bool bitwise = !strcmp(kind, "and") || !strcmp(kind, "or") || !strcmp(kind, "xor") || !strcmp(kind, "exch") ||
                   !strcmp(kind, "cas");
    int bits = dtype_bits(d);
    *cons = bits == 64 ? "l" : bits == 16 ? "h" : d == DT_FP32 ? "f" : "r";
    if (d == DT_FP64 && !bitwise)
        *cons = "d";
    if (bitwise) {
        *ptx = bits == 64 ? ".b64" : ".b32";
        *cons = bits == 64 ? "l" : "r";
        *reg_t = bits == 64 ? "unsigned long long" : "unsigned";
        return;
    }
    switch (d) {
    case DT_FP32: *ptx = ".f32", *reg_t = "float"; break;
    case DT_FP64: *ptx = ".f64", *reg_t = "double"; break;
    case DT_FP16: *ptx = ".noftz.f16", *reg_t = "unsigned short"; break;
    case DT_BF16: *ptx = ".noftz.bf16", *reg_t = "unsigned short"; break;
    case DT_I32: *ptx = ".s32", *reg_t = "int"; break;
    case DT_U32: *ptx = ".u32", *reg_t = "unsigned"; break;
    case DT_I64: *ptx = !strcmp(kind, "add") ? ".u64" : ".s64", *reg_t = "long long"; break;
    default: *ptx = ".u64", *reg_t = "unsigned long long"; break;
    }
}

static const char *const sem_names[] = {"acq_rel", "acquire", "release", "relaxed"};

static const char *const scope_names[] = {"gpu", "cta", "sys"};

/* A device helper doing one `atom` instruction; returns its name. */
static const char *atom_helper(Emitter *E, const char *kind, DType d, int sem, int scope)
{
    const char *suffix = sem == SEM_ACQ_REL && scope == SCOPE_GPU ? "" : fmt(E, "_%s_%s", sem_names[sem], scope_names[scope]);
    const char *name = fmt(E, "atom_%s_%s%s", kind, dtype_name(d), suffix);
    if (helper_known(E, name))
        return name;
    const char *ptx, *cons, *rt;
    atom_ptx_type(d, kind, &ptx, &cons, &rt);
    const char *T = dtype_ctype(d);
    bool cas = !strcmp(kind, "cas");
    StrBuf *h = &E->helpers;
    const char *tn = dtype_triton_name(d);
    sb_printf(h, "// atom.%s: %s on %s %s in global memory, %s ordering at %s scope; returns the old value\n", kind,
              kind, tn[0] == 'i' ? "an" : "a", tn, sem_names[sem], scope_names[scope]);
    sb_printf(h, "static __device__ __forceinline__ %s %s(%s *p, %s%s v)\n{\n", T, name, T, cas ? fmt(E, "%s cmp, ", T) : "", T);
    bool same = !strcmp(rt, T) || (!strcmp(rt, "int") && d == DT_I32) || (!strcmp(rt, "long long") && d == DT_I64);
    const char *conv_in = "v", *conv_cmp = "cmp";
    if (!same) {
        if (d == DT_FP16)
            conv_in = "__half_as_ushort(v)";
        else if (d == DT_BF16)
            conv_in = "__bfloat16_as_ushort(v)";
        else {
            conv_in = fmt(E, "tilec::bitcast<%s>(v)", rt);
            conv_cmp = fmt(E, "tilec::bitcast<%s>(cmp)", rt);
        }
    }
    sb_printf(h, "    %s old;\n", rt);
    sb_printf(h, "    asm volatile(\"atom.%s.%s.global.%s%s %%0, [%%1], %%2%s;\"\n", sem_names[sem], scope_names[scope], kind,
              ptx, cas ? ", %3" : "");
    sb_printf(h, "                 : \"=%s\"(old) : \"l\"(p), \"%s\"(%s)%s : \"memory\");\n", cons, cons,
              cas ? conv_cmp : conv_in, cas ? fmt(E, ", \"%s\"(%s)", cons, conv_in) : "");
    if (same)
        sb_puts(h, "    return old;\n}\n\n");
    else if (d == DT_FP16)
        sb_puts(h, "    return __ushort_as_half(old);\n}\n\n");
    else if (d == DT_BF16)
        sb_puts(h, "    return __ushort_as_bfloat16(old);\n}\n\n");
    else
        sb_printf(h, "    return tilec::bitcast<%s>(old);\n}\n\n", T);
    return name;
}

/* Float max/min from integer atomics: non-negative floats order like signed
 * ints, negative ones in reverse like unsigned ints (what Triton does). */
static const char *atom_float_minmax(Emitter *E, bool mx, DType d, int sem, int scope)
{
    const char *suffix = sem == SEM_ACQ_REL && scope == SCOPE_GPU ? "" : fmt(E, "_%s_%s", sem_names[sem], scope_names[scope]);
    const char *name = fmt(E, "atom_%s_%s%s", mx ? "max" : "min", dtype_name(d), suffix);
    if (helper_known(E, name))
        return name;
    bool f64 = d == DT_FP64;
    const char *si = atom_helper(E, mx ? "max" : "min", f64 ? DT_I64 : DT_I32, sem, scope);
    const char *ui = atom_helper(E, mx ? "min" : "max", f64 ? DT_U64 : DT_U32, sem, scope);
    const char *T = dtype_ctype(d), *S = f64 ? "int64_t" : "int32_t", *U = f64 ? "uint64_t" : "uint32_t";
    StrBuf *h = &E->helpers;
    sb_printf(h, "// atomic %s of a %s through integer atomics: non-negative values compare like signed\n"
                 "// integers, negative ones in reverse like unsigned integers\n", mx ? "max" : "min", dtype_triton_name(d));
    sb_printf(h, "static __device__ __forceinline__ %s %s(%s *p, %s v)\n{\n", T, name, T, T);
    sb_printf(h, "    if (!signbit(v))\n        return tilec::bitcast<%s>(%s((%s *)p, tilec::bitcast<%s>(v)));\n", T, si, S, S);
    sb_printf(h, "    return tilec::bitcast<%s>(%s((%s *)p, tilec::bitcast<%s>(v)));\n}\n\n", T, ui, U, U);
    return name;
}

static void emit_atomic(Emitter *E, const Op *op)
{
    bool cas = op->kind == OP_ATOMIC_CAS;
    const Value *ptr = op->args[0], *r = op->results[0];
    DType d = ptr->type.pointee;
    int sem = (int)op->iattr[2], scope = (int)op->iattr[3];
    static const char *const kinds[] = {
#define X(e, n) n,
        ATOMIC_LIST(X)
#undef X
    };
    const char *fn;
    if (cas)
        fn = atom_helper(E, "cas", d, sem, scope);
    else {
        int k = (int)op->iattr[0];
        if ((k == ATOM_MAX || k == ATOM_MIN) && dtype_is_float(d))
            fn = atom_float_minmax(E, k == ATOM_MAX, d, sem, scope);
        else
            fn = atom_helper(E, k == ATOM_XCHG ? "exch" : kinds[k], d, sem, scope);
    }
    const Value *val = cas ? op->args[2] : op->args[1];
    const Value *cmp = cas ? op->args[1] : NULL;
    const Value *mask = !cas && op->iattr[1] ? op->args[2] : NULL;
    bool used = r->nuses > 0;
    const char *name = used ? vname(E, r) : NULL;
    if (!ptr->type.rank) {
        /* one thread does a scalar atomic; the old value reaches the others through shared memory */
        if (used)
            line(E, "%s;", decl(E, r->type, name, 0));
        const char *pred = mask ? fmt(E, "tid == 0 && %s", paren(E, ex(E, mask, NULL, "0"))) : "tid == 0";
        line(E, "if (%s)", pred);
        const char *call = cas ? fmt(E, "%s(%s, %s, %s)", fn, ex(E, ptr, NULL, "0"), ex(E, cmp, NULL, "0"), ex(E, val, NULL, "0"))
                               : fmt(E, "%s(%s, %s)", fn, ex(E, ptr, NULL, "0"), ex(E, val, NULL, "0"));
        if (used) {
            const char *T = ctype(E, r->type);
            line(E, "    *reinterpret_cast<%s *>(smem + %d) = %s;", T, op->smem_offset, call);
            line(E, "__syncthreads();");
            line(E, "%s = *reinterpret_cast<%s *>(smem + %d);", name, T, op->smem_offset);
            trailing_sync(E, op);
        } else {
            line(E, "    %s;", call);
        }
        return;
    }
    LayoutMap m;
    value_map(ptr, &m);
    const char *owner = owner_pred(E, ptr, &m);
    if (used) {
        if (owner)
            diag_error(E->ctx, op->loc, "the old values of an atomic on a tile with replicated elements are not supported yet (use a tile of at least %d elements, or ignore the result)", 32 * E->f->num_warps);
        line(E, "%s;%s", decl(E, type_elem(r->type), name, nregs(r)), shape_note(E, r));
    }
    int n = nregs(ptr);
    const char *i = elem_loop_open(E, n, 1);
    const char *pred = mask ? ex(E, mask, ptr, i) : NULL;
    if (owner)
        pred = pred ? fmt(E, "%s && %s", owner, paren(E, pred)) : owner;
    const char *call = cas ? fmt(E, "%s(%s, %s, %s)", fn, ex(E, ptr, ptr, i), ex(E, cmp, ptr, i), ex(E, val, ptr, i))
                           : fmt(E, "%s(%s, %s)", fn, ex(E, ptr, ptr, i), ex(E, val, ptr, i));
    if (used)
        line(E, pred ? "%s[%s] = %s ? %s : %s;" : "%s[%s] = %s%s", name, i, pred ? pred : call, pred ? call : ";",
             pred ? zero_of(E, d) : "");
    else if (pred)
        line(E, "if (%s)\n%*s    %s;", pred, E->indent * 4, "", call);
    else
        line(E, "%s;", call);
    elem_loop_close(E, n, 1);
}

/* s inside the string literal of a printf format: C escapes, and % doubled. */
static const char *printf_literal(Emitter *E, const char *s)
{
    StrBuf pct = {0};
    for (; *s; s++) {
        if (*s == '%')
            sb_putc(&pct, '%');
        sb_putc(&pct, *s);
    }
    const char *r = c_string_escape(E->a, pct.data ? pct.data : "");
    sb_free(&pct);
    return r;
}

/* tl.device_print: one line per element, "pid (x, y, z) idx (i, j) prefix value" as Triton prints */
/* Triton's device_print prefix: ends in ": " when there are values, and
 * starts with a space when longer than two characters. */
static const char *print_prefix(Emitter *E, const char *prefix, bool has_args)
{
    StrBuf p = {0};
    sb_puts(&p, prefix);
    if (has_args && (!p.len || p.data[p.len - 1] != ' '))
        sb_putc(&p, ' ');
    if (has_args && (p.len < 2 || p.data[p.len - 2] != ':')) {
        p.data[--p.len] = 0;
        sb_puts(&p, ": ");
    }
    const char *r = printf_literal(E, fmt(E, "%s%s", p.len > 2 && p.data[0] != ' ' ? " " : "", p.data ? p.data : ""));
    sb_free(&p);
    return r;
}

/* tl.device_print, in Triton's format: "pid (x, y, z) idx (i, j) prefix: value", the
 * indices padded to the width of the largest one ("idx ()" for a scalar), hex as 0x and all
 * the type's digits. */
static void emit_print(Emitter *E, const Op *op)
{
    const char *pf = print_prefix(E, op->sattr ? op->sattr : "", op->nargs > 0);
    if (!op->nargs) {
        line(E, "printf(\"pid (%%u, %%u, %%u)%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z);", pf);
        return;
    }
    for (int a = 0; a < op->nargs; a++) {
        const Value *v = op->args[a];
        DType d = v->type.dtype;
        int bits = dtype_bits(d);
        const char *vf, *vv = NULL;
        const char *val = ex(E, v, v->type.rank ? v : NULL, v->type.rank ? "e" : "0");
        if (op->iattr[0] && d != DT_PTR) {
            int w = bits < 8 ? 2 : bits / 4;
            vf = bits == 64 ? "0x%016llx" : fmt(E, "0x%%0%dx", w);
            if (bits == 64)
                vv = fmt(E, "(unsigned long long)tilec::bitcast<uint64_t>(%s)", val);
            else if (d == DT_FP32)
                vv = fmt(E, "__float_as_uint(%s)", val);
            else if (bits == 16)
                vv = fmt(E, "(unsigned)tilec::bitcast<uint16_t>(%s)", val);
            else if (bits <= 8)
                vv = fmt(E, "(unsigned)(uint8_t)%s", val);
            else
                vv = fmt(E, "(unsigned)%s", val);
        } else if (dtype_is_float(d)) {
            vf = "%f";
            vv = d == DT_FP16 ? fmt(E, "(double)__half2float(%s)", val) : d == DT_BF16 ? fmt(E, "(double)__bfloat162float(%s)", val)
                                                                         : fmt(E, "(double)%s", val);
        } else if (d == DT_PTR) {
            vf = "%p";
            vv = fmt(E, "(const void *)%s", val);
        } else if (bits == 64) {
            vf = dtype_is_signed(d) ? "%lld" : "%llu";
            vv = fmt(E, dtype_is_signed(d) ? "(long long)%s" : "(unsigned long long)%s", val);
        } else {
            vf = dtype_is_signed(d) || d == DT_I1 ? "%d" : "%u";
            vv = fmt(E, dtype_is_signed(d) || d == DT_I1 ? "(int)%s" : "(unsigned)%s", val);
        }
        const char *argpart = op->nargs > 1 ? fmt(E, "(operand %d) ", a) : "";
        if (!v->type.rank) {
            line(E, "printf(\"pid (%%u, %%u, %%u) idx ()%s%s%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z, %s);", pf, argpart, vf, vv);
            continue;
        }
        LayoutMap m;
        value_map(v, &m);
        const char *owner = owner_pred(E, v, &m);
        int n = nregs(v);
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e)", n);
        E->indent++;
        if (owner)
            line(E, "if (%s)", owner);
        StrBuf idxf = {0}, idxv = {0};
        for (int d2 = 0; d2 < v->type.rank; d2++) {
            int width = 1;
            for (int top = v->type.shape[d2] - 1; top >= 10; top /= 10)
                width++;
            sb_printf(&idxf, "%s%%%dd", d2 ? ", " : "", width);
            sb_printf(&idxv, ", %s", elem_coord(E, v, &m, d2, "e"));
        }
        line(E, "%sprintf(\"pid (%%u, %%u, %%u) idx (%s)%s%s%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z%s, %s);",
             owner ? "    " : "", idxf.data, pf, argpart, vf, idxv.data, vv);
        sb_free(&idxf);
        sb_free(&idxv);
        E->indent--;
    }
}

/* tl.device_assert (with --debug): report file, line and the failing program, then trap */
static void emit_assert(Emitter *E, const Op *op)
{
    const Value *c = op->args[0];
    const Source *src = E->ctx->src;
    const char *file = strrchr(src->path, '/');
    file = file ? file + 1 : src->path;
    const char *msg = printf_literal(E, op->sattr ? op->sattr : "");
    const char *report = fmt(E, "printf(\"%s:%d: %s: block: [%%u, %%u, %%u], thread: [%%u, 0, 0] Assertion `%s` failed.\\n\", "
                                "blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x);",
                             printf_literal(E, file), op->loc.line, E->f->name, msg);
    if (!c->type.rank) {
        line(E, "if (!%s) {", paren(E, ex(E, c, NULL, "0")));
        line(E, "    %s", report);
        line(E, "    __trap();");
        line(E, "}");
        return;
    }
    int n = nregs(c);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", n);
    line(E, "    if (!%s) {", paren(E, ex(E, c, c, "e")));
    line(E, "        %s", report);
    line(E, "        __trap();");
    line(E, "    }");
}

static bool is_block_arg(const Block *b, const Value *v)
{
    for (int i = 0; i < b->args.len; i++)
        if (b->args.data[i] == v)
            return true;
    return false;
}

/* Assign yielded values to the variables they feed.  The assignments are
 * simultaneous: when one reads another's variable, go through temporaries. */
static void emit_yield_into(Emitter *E, const Block *b, const Op *y, Value *const *targets)
{
    bool clash = false;
    for (int i = 0; i < y->nargs; i++)
        if (is_block_arg(b, y->args[i]) && strcmp(vname(E, y->args[i]), vname(E, targets[i])))
            clash = true;
    for (int i = 0; i < y->nargs && clash; i++) {
        const Value *t = targets[i];
        const char *tmp = fmt(E, "%s_next", vname(E, t));
        if (!strcmp(vname(E, t), vname(E, y->args[i])))
            continue;
        if (t->type.rank)
            line(E, "%s;", decl(E, type_elem(t->type), tmp, nregs(t)));
        else
            line(E, "%s;", decl(E, t->type, tmp, 0));
        fill(E, tmp, t, value_elem, y->args[i]);
    }
    for (int i = 0; i < y->nargs; i++) {
        const char *dst = vname(E, targets[i]);
        if (!strcmp(dst, vname(E, y->args[i])))
            continue;
        if (clash)
            fill(E, dst, targets[i], targets[i]->type.rank ? array_elem : scalar_elem, fmt(E, "%s_next", dst));
        else
            fill(E, dst, targets[i], value_elem, y->args[i]);
    }
}

static void assign_from(Emitter *E, const Value *dst, const Value *src)
{
    if (!strcmp(vname(E, dst), vname(E, src)) && !info(E, src)->inl)
        return;
    fill(E, vname(E, dst), dst, value_elem, src);
}

static void emit_for(Emitter *E, const Op *op)
{
    const Block *body = op->regions[0];
    for (int i = 0; i < op->nres; i++) {
        declare_var(E, op->results[i]);
        assign_from(E, op->results[i], op->args[3 + i]);
    }
    const Value *iv = body->args.data[0];
    const char *t = dtype_ctype(iv->type.dtype);
    const char *ivn = vname(E, iv);
    line(E, "for (%s %s = %s; %s < %s; %s += %s) {", t, ivn, ex(E, op->args[0], NULL, "0"), ivn,
         paren(E, ex(E, op->args[1], NULL, "0")), ivn, paren(E, ex(E, op->args[2], NULL, "0")));
    E->indent++;
    emit_block(E, body);
    const Op *y = body->ops.data[body->ops.len - 1];
    emit_yield_into(E, body, y, op->results);
    E->indent--;
    line(E, "}");
}

static void emit_while(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++) {
        declare_var(E, op->results[i]);
        assign_from(E, op->results[i], op->args[i]);
    }
    line(E, "while (true) {");
    E->indent++;
    const Block *before = op->regions[0], *after = op->regions[1];
    emit_block(E, before);
    const Op *cond = before->ops.data[before->ops.len - 1];
    line(E, "if (!%s)", paren(E, ex(E, cond->args[0], NULL, "0")));
    line(E, "    break;");
    emit_block(E, after);
    const Op *y = after->ops.data[after->ops.len - 1];
    emit_yield_into(E, after, y, op->results);
    E->indent--;
    line(E, "}");
}

static void emit_if(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        declare_var(E, op->results[i]);
    line(E, "if (%s) {", ex(E, op->args[0], NULL, "0"));
    for (int r = 0; r < 2; r++) {
        const Block *b = op->regions[r];
        if (r == 1) {
            bool empty = b->ops.len == 1 && b->ops.data[0]->kind == OP_YIELD && !op->nres;
            if (empty)
                break;
            line(E, "} else {");
        }
        E->indent++;
        emit_block(E, b);
        const Op *y = b->ops.data[b->ops.len - 1];
        if (y->kind == OP_YIELD)
            emit_yield_into(E, b, y, op->results);
        E->indent--;
    }
    line(E, "}");
}

static void emit_op(Emitter *E, const Op *op)
{
    if (op->nres == 1 && info(E, op->results[0])->inl) {
        const Value *v = op->results[0];
        if (info(E, v)->folded_addr) {
            stmt_comment(E, op);
            line(E, "// (%s: each address is computed where it is used, below)", vname(E, v));
        }
        return;
    }
    if (op->kind == OP_YIELD || op->kind == OP_CONDITION)
        return;
    stmt_comment(E, op);
    switch (op->kind) {
    case OP_LOAD: emit_load(E, op); break;
    case OP_STORE: emit_store(E, op); break;
    case OP_FOR: emit_for(E, op); E->last_stmt = NULL; break;
    case OP_WHILE: emit_while(E, op); E->last_stmt = NULL; break;
    case OP_IF: emit_if(E, op); E->last_stmt = NULL; break;
    case OP_RETURN: line(E, "return;"); break;
    case OP_BARRIER: line(E, "__syncthreads();"); break;
    case OP_REDUCE: emit_reduce(E, op); break;
    case OP_CONVERT:
        if (dot_operand_in_registers(op))
            emit_register_fragments(E, op);
        else if (is_dot_stage(op))
            emit_stage_convert(E, op);
        else
            emit_convert(E, op);
        break;
    case OP_DOT: emit_dot(E, op); break;
    case OP_LOCAL_LOAD: emit_local_load(E, op); break;
    case OP_ASYNC_COPY: emit_async_copy(E, op); break;
    case OP_ASYNC_COMMIT: line(E, "tilec::cp_async_commit();"); break;
    case OP_ASYNC_WAIT:
        line(E, "tilec::cp_async_wait<%lld>();  // at most %lld group%s of copies still in flight",
             (long long)op->iattr[0], (long long)op->iattr[0], op->iattr[0] == 1 ? "" : "s");
        line(E, "__syncthreads();");
        break;
    case OP_SCAN: emit_scan(E, op); break;
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: emit_atomic(E, op); break;
    case OP_PRINT: emit_print(E, op); break;
    case OP_ASSERT: emit_assert(E, op); break;
    default:
        if (op->nres != 1)
            BUG("emit: unexpected op %s", op_name(op->kind));
        emit_assign(E, op);
        break;
    }
}

static void emit_block(Emitter *E, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++)
        emit_op(E, b->ops.data[i]);
}

/* ---- grid expression (host) ------------------------------------------------------------- */

/* Fills E->grid from opt->grid (tir_grid_compile). */
static void parse_grid(Emitter *E) { tir_grid_compile(E->ctx, E->f, E->opt->grid, &E->grid); }

/* ---- header and launcher --------------------------------------------------------------- */

/* Prints text as "// " comment lines of at most about 100 columns. */
static void comment_paragraph(Emitter *E, const char *text)
{
    int col = 0;
    for (const char *p = text; *p;) {
        int len = (int)strcspn(p, " ");
        if (!col || col + 1 + len > 100) {
            sb_printf(E->out, "%s//", col ? "\n" : "");
            col = 2;
        }
        sb_printf(E->out, " %.*s", len, p);
        col += 1 + len;
        p += len;
        p += strspn(p, " ");
    }
    sb_putc(E->out, '\n');
}

static void describe_smem(Emitter *E, const Block *b)
{
    const char *file = source_file_name(E);
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            describe_smem(E, op->regions[r]);
        if (!op->smem_bytes)
            continue;
        sb_printf(E->out, "//   %s:%d  %s, %d bytes at %d: ", file, op->loc.line, op_name(op->kind), op->smem_bytes,
                  op->smem_offset);
        switch (op->kind) {
        case OP_REDUCE:
            sb_printf(E->out, "%d partial %ss per result, one from each warp along the axis\n", 1 << reduce_warp_bits(op),
                      reduce_name((ReduceKind)op->iattr[0]));
            break;
        case OP_SCAN: sb_puts(E->out, "each warp's running total, per repetition along the axis\n"); break;
        case OP_LOCAL_LOAD:
        case OP_CONVERT:
            if (op->stage) {
                const DotStage *st = op->stage;
                const char *storage =
                    st->pad ? fmt(E, "padded (%d bytes after every %d row%s)", st->pad * dtype_bits(st->dtype) / 8,
                                  1 << st->pad_rows_log2, st->pad_rows_log2 ? "s" : "")
                    : smem_swizzle_none(st->swz) ? "not swizzled"
                    : fmt(E, "swizzled (vec %d, perPhase %d, maxPhase %d)", st->swz.vec, st->swz.per_phase,
                          st->swz.max_phase);
                sb_printf(E->out, "operand %c of tl.dot, %d x %d %s%s, %s, read %s\n", st->op_idx ? 'B' : 'A', st->rows,
                          st->cols, dtype_name(st->dtype), st->nslots > 1 ? fmt(E, " in %d pipeline slots", st->nslots) : "",
                          storage, st->ldmatrix ? fmt(E, "with ldmatrix%s", st->trans ? ".trans" : "") : "element by element");
                break;
            }
            sb_printf(E->out, "the tile changing layout (L%d -> L%d), %s;\n//       %s\n",
                      op->args[0]->layout->id, op->results[0]->layout->id, smem_storage(E, op, "\n//       "),
                      smem_verdict(E, op));
            break;
        case OP_DOT:
            sb_printf(E->out, "A (%dx%d) and B (%dx%d) row-major for the FMA path of tl.dot\n", op->args[0]->type.shape[0],
                      op->args[0]->type.shape[1], op->args[1]->type.shape[0], op->args[1]->type.shape[1]);
            break;
        default: sb_puts(E->out, "the old value, from the thread that did the atomic to all\n"); break;
        }
    }
}

static void emit_header(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    const Source *src = E->ctx->src;
    sb_printf(E->out, "// %s.cu — generated by tilec %s from %s:%d (kernel %s). Do not edit.\n", f->name,
              TILEC_VERSION, comment_escape(E->a, src->path), f->loc.line, f->name);
    if (E->opt->command)
        sb_printf(E->out, "// Regenerate: %s\n", comment_escape(E->a, E->opt->command));
    sb_puts(E->out, "//\n// Signature:\n");
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value) {
            Type t = kp->type;
            sb_printf(E->out, "//   %-16s %s", kp->name,
                      t.dtype == DT_PTR ? fmt(E, "*%s", dtype_name(t.pointee)) : dtype_name(t.dtype));
            if (kp->div > 1)
                sb_printf(E->out, t.dtype == DT_PTR ? " (%lld-byte aligned)" : " (multiple of %lld)", (long long)kp->div);
            sb_putc(E->out, '\n');
        } else {
            sb_printf(E->out, "//   %-16s = %s (%s)\n", kp->name, kp->spec_text ? comment_escape(E->a, kp->spec_text) : "?",
                      kp->is_constexpr ? "constexpr" : "specialised");
        }
    }
    sb_printf(E->out, "//\n// Launch: %d threads per block (%d warps), %d bytes of shared memory%s, grid ", threads,
              f->num_warps, f->smem_bytes, f->smem_bytes > 48 * 1024 ? " (dynamic; the launcher raises the limit)" : "");
    if (E->opt->grid)
        sb_printf(E->out, "(%s)\n", comment_escape(E->a, E->opt->grid));
    else
        sb_puts(E->out, "chosen by the caller\n");
    if (f->min_blocks) {
        const char *promise = fmt(E, "__launch_bounds__(%d, %d) promises ptxas %d block%s per SM, so a thread may use "
                                     "up to %d registers", threads, f->min_blocks, f->min_blocks,
                                  f->min_blocks == 1 ? "" : "s", tir_min_blocks_regs(f));
        sb_puts(E->out, "//\n");
        if (f->min_blocks_auto) /* the reasons: limits.c, choose_min_blocks */
            comment_paragraph(E, fmt(E, "Registers: on sm_%d and newer, %s: tilec's choice, as its largest tile takes "
                                        "32 to 64 registers per thread; room for twice that keeps all of a thread's "
                                        "loads in flight, where ptxas would otherwise trade them for occupancy. It was "
                                        "measured on the H200; for older GPUs, where ptxas may spill under this bound, "
                                        "the kernel keeps __launch_bounds__(%d).",
                                     TIR_MIN_BLOCKS_ARCH, promise, threads));
        else if (f->min_blocks_chain)
            comment_paragraph(E, fmt(E, "Registers: %s: tilec's choice for a chain of tl.dots, whose accumulator, "
                                        "scores and packed operand are live at once; left to itself, ptxas may give "
                                        "up registers for an occupancy they cannot reach, and spill.", promise));
        else
            comment_paragraph(E, fmt(E, "Registers: %s (--min-blocks).", promise));
    }
    if (f->smem_bytes) {
        sb_puts(E->out, "//\n// Shared memory: one arena; buffers whose lifetimes do not overlap share bytes.  A buffer\n"
                        "// lives from its writes to its reads, or, where no barrier follows its reads, until the\n"
                        "// next exchange's barrier.\n");
        describe_smem(E, f->body);
    }
    sb_puts(E->out, "//\n// Layouts: how each tile's elements are spread over the threads of a block.\n");
    if (!f->layouts.len)
        sb_puts(E->out, "//   (none: this kernel has no tiles)\n");
    StrBuf lay = {0};
    tir_print_layouts(&lay, f);
    for (char *p = lay.data, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        sb_printf(E->out, "//   %.*s\n", (int)(nl - p), p);
    }
    sb_free(&lay);
    sb_puts(E->out, "\n");
}

static void emit_includes(Emitter *E)
{
    bool half = false, bf16 = false, fp8 = false;
    for (int i = 0; i < E->f->params.len; i++) {
        const KernelParam *kp = &E->f->params.data[i];
        DType d = kp->type.dtype == DT_PTR ? kp->type.pointee : kp->type.dtype;
        half |= d == DT_FP16;
        bf16 |= d == DT_BF16;
        fp8 |= dtype_is_fp8(d);
    }
    half |= E->f->uses_fp16;
    bf16 |= E->f->uses_bf16;
    fp8 |= E->f->uses_fp8;
    if (half)
        sb_puts(E->out, "#include <cuda_fp16.h>\n");
    if (bf16)
        sb_puts(E->out, "#include <cuda_bf16.h>\n");
    if (fp8) /* with cuda_fp16.h and cuda_bf16.h, which its conversions use */
        sb_puts(E->out, "#include <cuda_fp8.h>\n");
    if (E->f->uses_printf) /* device printf: declared by stdio.h under nvcc, built into NVRTC */
        sb_puts(E->out, "#ifndef __CUDACC_RTC__\n#include <stdio.h>\n#endif\n");
    if (half || bf16 || fp8 || E->f->uses_printf)
        sb_putc(E->out, '\n');
    /* in file-name order: the runtime helpers, then the fp8, flush-to-zero math and
     * tensor-core ones where needed */
    for (int i = 0; i < tilec_template_count; i++) {
        const char *name = tilec_templates[i].name;
        if ((strstr(name, "tensorcore") && !E->f->uses_dot) || (strstr(name, "fp8") && !fp8) ||
            (strstr(name, "_math") && !E->f->uses_flushed_math))
            continue;
        sb_puts(E->out, tilec_templates[i].text);
    }
    sb_putc(E->out, '\n');
}

static const char *param_decl(Emitter *E, const KernelParam *kp)
{
    Type t = kp->type;
    if (t.dtype == DT_PTR)
        return fmt(E, "%s *__restrict__ %s", dtype_memory_ctype(t.pointee), kp->name);
    return fmt(E, "%s %s", dtype_ctype(t.dtype), kp->name);
}

static bool ident_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* Does the C text use `name` as an identifier?  Comments and string literals
 * do not count ("// tiles of this warp" declares no need for `warp`: an
 * unused variable is an NVRTC warning). */
static bool uses_ident(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
            continue;
        }
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
            continue;
        }
        if (!strncmp(p, name, n) && !ident_char(p[n]) && (p == text || !ident_char(p[-1])))
            return true;
    }
    return false;
}

static void emit_kernel(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    /* the body first: it binds the per-thread names the prologue declares
     * and the device helpers printed above the kernel */
    E->indent = 1;
    StrBuf body = {0};
    StrBuf *saved = E->out;
    E->out = &body;
    emit_block(E, f->body);
    E->out = saved;
    if (E->helpers.data) {
        sb_puts(E->out, E->helpers.data);
        sb_putc(E->out, '\n');
    }
    sb_free(&E->helpers);
    const char *plain = fmt(E, "__launch_bounds__(%d)", threads);
    const char *bound = f->min_blocks ? fmt(E, "__launch_bounds__(%d, %d)", threads, f->min_blocks) : plain;
    if (f->min_blocks_auto) /* tilec's choice, for the GPUs it was measured on (see the header) */
        sb_printf(E->out, "#if __CUDA_ARCH__ >= %d0\nextern \"C\" __global__ void %s\n#else\nextern \"C\" __global__ "
                          "void %s\n#endif\n%s(", TIR_MIN_BLOCKS_ARCH, bound, plain, f->name);
    else
        sb_printf(E->out, "extern \"C\" __global__ void %s\n%s(", bound, f->name);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (!kp->value)
            continue;
        sb_printf(E->out, "%s%s", n++ ? ", " : "", param_decl(E, kp));
    }
    sb_puts(E->out, ")\n{\n");
    StrBuf pro = {0};
    for (int i = 0; i < E->binds.len; i++) {
        const Binding *b = &E->binds.data[i];
        sb_printf(&pro, "    const %s %s = %s;  // %s\n", b->type, b->name, b->expr, b->comment);
    }
    bool uses_lane = uses_ident(pro.data, "lane"), uses_warp = uses_ident(pro.data, "warp");
    bool uses_tid = uses_ident(body.data, "tid") || uses_lane || uses_warp;
    bool uses_lane_body = uses_ident(body.data, "lane");
    bool uses_warp_body = uses_ident(body.data, "warp");
    if (f->smem_bytes) {
        if (f->smem_bytes > 48 * 1024)
            sb_puts(E->out, "    extern __shared__ __align__(16) unsigned char smem[];  // the arena (dynamic, see the header)\n");
        else
            sb_printf(E->out, "    __shared__ __align__(16) unsigned char smem[%d];  // the arena (see the header)\n", f->smem_bytes);
    }
    if (uses_tid)
        line(E, "const int tid = threadIdx.x;");
    if (uses_lane || uses_lane_body)
        line(E, "const int lane = tid & 31;  // position in the warp");
    if (uses_warp || uses_warp_body)
        line(E, "const int warp = tid >> 5;  // warp in the block");
    if (pro.data)
        sb_puts(E->out, pro.data);
    if (uses_tid || pro.data || f->smem_bytes)
        sb_putc(E->out, '\n');
    if (body.data)
        sb_puts(E->out, body.data);
    sb_free(&body);
    sb_free(&pro);
    sb_puts(E->out, "}\n");
}

static void emit_launcher(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    sb_puts(E->out, "\n#ifndef __CUDACC_RTC__\n");
    tir_grid_helpers_c(E->out, &E->grid, false);
    sb_printf(E->out, "// Host launcher: %s_launch(stream, %sthe kernel's runtime arguments).\n", f->name,
              E->opt->grid ? "" : "grid_x, grid_y, grid_z, ");
    sb_printf(E->out, "extern \"C\" cudaError_t %s_launch(cudaStream_t stream", f->name);
    if (!E->opt->grid)
        sb_puts(E->out, ", unsigned grid_x, unsigned grid_y, unsigned grid_z");
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, ", %s", param_decl(E, kp));
    }
    sb_puts(E->out, ")\n{\n");
    if (E->opt->grid) {
        const char **names = NEW_ARRAY(E->a, const char *, f->params.len + 1);
        for (int i = 0; i < f->params.len; i++)
            names[i] = f->params.data[i].name;
        sb_printf(E->out, "    // grid = (%s)\n", comment_escape(E->a, E->opt->grid));
        GridLaunchC how = {names, "cudaSuccess", "cudaErrorInvalidValue", false};
        tir_grid_launch_c(E->out, E->a, &E->grid, &how);
        sb_puts(E->out, "    const dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gz);\n");
    } else {
        sb_puts(E->out, "    if (grid_x == 0 || grid_y == 0 || grid_z == 0)\n        return cudaSuccess; // nothing to do\n");
        sb_puts(E->out, "    const dim3 grid(grid_x, grid_y, grid_z);\n");
    }
    int dyn = f->smem_bytes > 48 * 1024 ? f->smem_bytes : 0;
    if (dyn) {
        sb_printf(E->out, "    // %d bytes of shared memory: above the default 48 KB, so raise the limit first\n", dyn);
        sb_printf(E->out, "    const cudaError_t attr = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d);\n",
                  f->name, dyn);
        sb_puts(E->out, "    if (attr != cudaSuccess)\n        return attr;\n");
    }
    sb_printf(E->out, "    %s<<<grid, %d, %d, stream>>>(", f->name, threads, dyn);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, "%s%s", n++ ? ", " : "", kp->name);
    }
    sb_puts(E->out, ");\n    return cudaGetLastError();\n}\n#endif\n");
}

static void scan_uses(TirFunc *f, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        f->uses_printf |= op->kind == OP_PRINT || op->kind == OP_ASSERT;
        if (op->kind == OP_MATH)
            f->uses_flushed_math |= strstr(math_c_name((MathFn)op->iattr[0], op->args[0]->type.dtype),
                                           "flushed") != NULL;
        for (int k = 0; k < op->nres; k++) {
            DType d = op->results[k]->type.dtype;
            f->uses_fp16 |= d == DT_FP16;
            f->uses_bf16 |= d == DT_BF16;
            f->uses_fp8 |= dtype_is_fp8(d);
        }
        for (int r = 0; r < op->nregions; r++)
            scan_uses(f, op->regions[r]);
    }
}

void cuda_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt)
{
    Emitter E = {0};
    E.ctx = ctx;
    E.a = &ctx->arena;
    E.out = out;
    E.f = f;
    E.opt = opt;
    E.vi = NEW_ARRAY(E.a, ValInfo, f->nvalues + 1);
    scan_uses((TirFunc *)f, f->body);
    /* parameter names are the source's and come first */
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        strmap_put(E.a, &E.names, kp->name, 0);
        if (kp->value)
            E.vi[kp->value->id].name = kp->name;
    }
    check_c_name(&E, f->name, "kernel name", true);
    for (int i = 0; i < f->params.len; i++)
        check_c_name(&E, f->params.data[i].name, "parameter name", f->params.data[i].value != NULL);
    record_users(&E, f->body);
    plan_block(&E, f->body);
    plan_regions(&E, f->body);
    int threads = 32 * f->num_warps;
    /* the grid is checked before anything is printed */
    parse_grid(&E);
    emit_header(&E, threads);
    emit_includes(&E);
    emit_kernel(&E, threads);
    emit_launcher(&E, threads);
}

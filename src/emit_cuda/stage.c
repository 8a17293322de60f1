/*
 * stage.c — tl.dot operands on their way to the tensor cores: staging buffers
 * in shared memory, ldmatrix and element reads of their fragments, fragments
 * packed from registers, and the cp.async copies of pipelined operands.
 */
#include "emit_internal.h"

#include <string.h>

/* 32-bit registers of a dot operand fragment (kwidth elements each). */
int frag_words(const Value *v) { return nregs(v) / v->layout->kwidth; }

/* The element type a staging buffer is addressed in: fp8 as its bytes
 * (uint8_t), which the compiler keeps in registers where the cuda_fp8.h
 * struct types would not be. */
static const char *stage_ctype(DType d) { return dtype_is_fp8(d) ? "uint8_t" : dtype_ctype(d); }

/* The address helper of a buffer in Triton's NVMMA layout (wgmma.c). */
static void stage_helper_nvmma(Emitter *E, const Op *op, const char *fn)
{
    const DotStage *s = op->stage;
    StrBuf *h = &E->helpers;
    int eb = dtype_bits(s->dtype) / 8, w = s->nvmma, per_row = w / eb, vec = 16 / eb;
    sb_printf(h, "// NVMMA layout (Triton's, the one wgmma reads through a descriptor), %d-byte swizzle: the rows are\n"
                 "// cut into column blocks of %d elements (%d bytes), stored one after another, %d rows x %d bytes each;\n"
                 "// in row r of a block, 16-byte chunk c is stored at chunk c ^ ((r / %d) %% %d), a pattern of 8 rows\n"
                 "// (%d bytes, the alignment of every slot).\n",
              w, per_row, w, s->rows, w, s->swz.per_phase, s->swz.max_phase, 8 * w);
    if (s->nslots > 1)
        sb_printf(h, "// %d slots of %d bytes, one per pipeline stage, at byte %d of the arena.\n", s->nslots,
                  dot_stage_slot_bytes(s), op->smem_offset);
    sb_printf(h, "static __device__ __forceinline__ %s *%s(unsigned char *smem, %sint row, int col)\n{\n",
              stage_ctype(s->dtype), fn, s->nslots > 1 ? "int slot, " : "");
    /* told that row and col are not negative, the compiler turns / and % into shifts and masks
     * and sees that rows 8 apart share a swizzle: each copy's address is then one base plus an
     * immediate (matmul 128x256x64: 141 -> 124 SASS instructions a K step) */
    sb_puts(h, "    __builtin_assume(row >= 0 && col >= 0);  // never negative: the compiler then makes / and % shifts and masks\n");
    sb_printf(h, "    const int block = col / %d, in_block = col %% %d;\n", per_row, per_row);
    sb_printf(h, "    return reinterpret_cast<%s *>(smem + %d) + %sblock * %d + row * %d +\n", stage_ctype(s->dtype),
              op->smem_offset, s->nslots > 1 ? fmt(E, "slot * %d + ", dot_stage_slot_elems(s)) : "", s->rows * per_row,
              per_row);
    sb_printf(h, "           ((in_block / %d) ^ ((row / %d) %% %d)) * %d + in_block %% %d;\n}\n\n", vec, s->swz.per_phase,
              s->swz.max_phase, vec, vec);
}

/* The local_loads of alloc's buffer in b and below it (one per loop whose dot
 * reads it, dot_reload.c), and whether a wgmma dot reads one (*wgmma). */
static int alloc_readers(Emitter *E, const Block *b, const Op *alloc, bool *wgmma)
{
    int n = 0;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            n += alloc_readers(E, op->regions[r], alloc, wgmma);
        if (op->kind == OP_LOCAL_LOAD && op->buf == alloc) {
            const Op *dot = info(E, op->results[0])->user;
            *wgmma |= dot && dot->kind == OP_DOT && dot->dot.wgmma;
            n++;
        }
    }
    return n;
}

/* When a local_alloc writes its buffer, for comments: "written just before
 * its tl.dot", "written once before its loop", "written once before its 2
 * loops". */
const char *local_alloc_written(Emitter *E, const Op *alloc)
{
    if (local_alloc_beside(alloc))
        return "written just before its tl.dot";
    bool wgmma = false;
    int n = alloc_readers(E, alloc->parent, alloc, &wgmma);
    return n > 1 ? fmt(E, "written once before its %d loops", n) : "written once before its loop";
}

/* The staging buffer's address helper (made once per buffer):
 * stageN(smem, [slot,] row, col) -> the element's address. */
const char *stage_helper(Emitter *E, const Op *op)
{
    if (op->kind == OP_LOCAL_LOAD && op->buf) /* the buffer of its local_alloc */
        op = op->buf;
    for (int i = 0; i < E->stage_ops.len; i++)
        if (E->stage_ops.data[i] == op)
            return E->stage_fns.data[i];
    const DotStage *s = op->stage;
    const char *fn = fmt(E, "stage%d", E->nbuf++);
    vec_push(E->a, &E->stage_ops, op);
    vec_push(E->a, &E->stage_fns, fn);
    StrBuf *h = &E->helpers;
    if (op->kind == OP_STORE) { /* a descriptor store's staging buffer (tma_store.c) */
        sb_printf(h, "// %s: the %dx%d %s block a tensor descriptor's store writes, staged in shared memory for\n"
                     "// the TMA engine (sm_90a); %d bytes at byte %d of the arena.\n",
                  fn, s->rows, s->cols, dtype_name(s->dtype), dot_stage_slot_bytes(s), op->smem_offset);
        sb_puts(h, "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // only the TMA path reads it\n");
        stage_helper_nvmma(E, op, fn);
        sb_puts(h, "#endif\n\n");
        return fn;
    }
    const char *dims[2][2] = {{"M", "K"}, {"K", "N"}};
    const Type t = op->nres ? op->results[0]->type : op->args[0]->type;
    const char *T = stage_ctype(s->dtype);
    int o = t.rank - 2;
    sb_printf(h, "// %s: operand %c of a tl.dot (%s%dx%d %s, %s%s x %s), staged in shared memory for the tensor cores\n",
              fn, s->op_idx ? 'B' : 'A', o ? fmt(E, "%dx", t.shape[0]) : "", t.shape[o], t.shape[o + 1],
              dtype_name(s->dtype), o ? "batch x " : "", dims[s->op_idx][0], dims[s->op_idx][1]);
    if (s->batch > 1)
        sb_printf(h, "// one tile per batch, tile after tile: batch b's row r is buffer row b * %d + r;\n", s->rows);
    sb_printf(h, "// as %d rows of %d elements with %s contiguous; %s.\n", s->batch * s->rows, s->cols,
              dims[s->op_idx][s->contig_dim],
              s->ldmatrix ? fmt(E, "read %swith ldmatrix%s", s->nvmma ? "by wgmma (sm_90a) or " : "",
                                s->trans ? ".trans (K is not the contiguous dimension)" : "")
                          : "read element by element (ldmatrix cannot transpose 8- or 32-bit elements)");
    if (s->nvmma) {
        stage_helper_nvmma(E, op, fn);
        return fn;
    }
    if (s->swz.max_phase > 1)
        sb_printf(h, "// Swizzle (%s vec %d, perPhase %d, maxPhase %d): chunk c of %d elements in row r is stored\n"
                     "// at chunk c ^ (%s %% %d), so that %s.\n",
                  s->ldmatrix ? "Triton's" : "tilec's, in Triton's terms:", s->swz.vec, s->swz.per_phase,
                  s->swz.max_phase, s->swz.vec, s->swz.per_phase > 1 ? fmt(E, "(r / %d)", s->swz.per_phase) : "r", s->swz.max_phase,
                  s->ldmatrix ? "the 8 rows one ldmatrix reads fall in 8 different bank groups"
                              : "the rows one element read spans fall in different banks, with no bytes of padding");
    if (s->pad)
        sb_printf(h, "// Padding: %d elements (%d bytes) after every %d row%s, so that the lanes of one element read\n"
                     "// fall in different banks; each address stays the thread's base plus a constant.\n",
                  s->pad, s->pad * dtype_bits(s->dtype) / 8, 1 << s->pad_rows_log2, s->pad_rows_log2 ? "s" : "");
    if (s->nslots > 1)
        sb_printf(h, "// %d slots of %d bytes, one per pipeline stage, at byte %d of the arena.\n", s->nslots,
                  dot_stage_slot_bytes(s), op->smem_offset);
    else
        sb_printf(h, "// %d bytes at byte %d of the arena%s.\n", dot_stage_slot_bytes(s), op->smem_offset,
                  op->kind != OP_LOCAL_ALLOC ? ""
                  : fmt(E, ", %s%s", local_alloc_written(E, op),
                        local_alloc_beside(op) ? ", which reads it in place" : " and read in every iteration"));
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

/* "64x32", "2x64x32": an operand tile's shape in a comment */
static const char *dims_text(Emitter *E, Type t)
{
    return t.rank == 3 ? fmt(E, "%dx%dx%d", t.shape[0], t.shape[1], t.shape[2]) : fmt(E, "%dx%d", t.shape[0], t.shape[1]);
}

/* The staging buffer's (row, col) of element e (a C expression) of v, a
 * tile in operand coordinates mapped by m: a 3-D operand's batch b starts
 * at row b * rows. */
static void stage_coords(Emitter *E, const DotStage *s, const Value *v, const LayoutMap *m, const char *e,
                         const char **row, const char **col)
{
    int o = v->type.rank - 2;
    *col = elem_coord(E, v, m, o + s->contig_dim, e); /* first: the order the kernel's coordinates are bound in */
    *row = elem_coord(E, v, m, o + 1 - s->contig_dim, e);
    if (o) {
        const char *b = elem_coord(E, v, m, 0, e);
        *row = strcmp(b, "0") ? fmt(E, "%s * %d + %s", paren(E, b), s->rows, *row) : *row;
    }
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
void ld_setup(Emitter *E, const Op *op, const char *name)
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
void ld_group(Emitter *E, const Op *op, const char *fn, const char *slot, const char *name, const char *q)
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
void elem_read(Emitter *E, const Op *op, const char *fn, const char *slot, const char *e)
{
    const DotStage *s = op->stage;
    const Value *r = op->results[0];
    LayoutMap m;
    value_map(r, &m);
    const char *row, *col;
    stage_coords(E, s, r, &m, e, &row, &col);
    line(E, "reinterpret_cast<%s *>(%s)[%s] = *%s(smem, %s%s, %s);", stage_ctype(s->dtype), vname(E, r), e, fn, slot,
         row, col);
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
    DotLdmatrix ld;
    stage_ldmatrix(op, &ld);
    int words = frag_words(r), g = ld.group;
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

/* The tile x = op->args[0] into its swizzled staging buffer: vector stores
 * where the source holds consecutive elements. */
static void stage_write(Emitter *E, const Op *op, const char *fn)
{
    const DotStage *s = op->stage;
    const Value *x = op->args[0];
    LayoutMap sm;
    value_map(x, &sm);
    int cd = x->type.rank - 2 + s->contig_dim;
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
    const char *row, *col;
    stage_coords(E, s, x, &sm, e, &row, &col);
    const char *at = fmt(E, "%s(smem, %s, %s)", fn, row, col);
    if (dtype_is_fp8(s->dtype)) /* the buffer holds fp8 as bytes */
        at = fmt(E, "reinterpret_cast<%s *>(%s)", dtype_ctype(s->dtype), at);
    if (vec > 1)
        line(E, "tilec::store<%d>(%s, &%s[%s]);", vec, at, vname(E, arr), e);
    else
        line(E, "*%s = %s;", at, value_at(E, x, NULL, e));
    elem_loop_close(E, n, vec);
}

/* Tile x into staging buffer s (fn, one slot) at its own coordinates: runs of
 * consecutive columns as one store each, fp32 rounded to 16 bits two at a
 * time (paired_rounding). */
void stage_store_tile(Emitter *E, const DotStage *s, const char *fn, const Value *x)
{
    LayoutMap sm;
    value_map(x, &sm);
    const Value *arr = array_of(E, x);
    int run = 1 << lmap_lead_bits(&sm, x->type.rank - 1), cap = 16 * 8 / dtype_bits(s->dtype);
    const char *pair_type = NULL, *pair = !arr && run >= 2 ? paired_rounding(E, x, &pair_type) : NULL;
    int vec = pair ? 2 : arr ? (run > cap ? cap : run) : 1;
    int n = nregs(x);
    const char *e = elem_loop_open(E, n, vec);
    const char *row, *col;
    stage_coords(E, s, x, &sm, e, &row, &col);
    const char *at = fmt(E, "%s(smem, %s, %s)", fn, row, col);
    if (pair)
        emit_paired_store(E, at, x, e, pair, pair_type);
    else if (vec > 1)
        line(E, "tilec::store<%d>(%s, &%s[%s]);", vec, at, vname(E, arr), e);
    else
        line(E, "*%s = %s;", at, value_at(E, x, NULL, e));
    elem_loop_close(E, n, vec);
}

/* A convert into a dot operand layout: the tile goes to its staging buffer,
 * then every warp reads its fragments. */
void emit_stage_convert(Emitter *E, const Op *op)
{
    const DotStage *s = op->stage;
    const Value *x = op->args[0], *r = op->results[0];
    const char *fn = stage_helper(E, op);
    line(E, "uint32_t %s[%d];  // [%s] %s, L%d: operand %c fragments, %d elements per register", vname(E, r),
         frag_words(r), dims_text(E, r->type), dtype_name(s->dtype), r->layout->id, s->op_idx ? 'B' : 'A',
         r->layout->kwidth);
    line(E, "{  // L%d -> L%d through shared memory (%s)", x->layout->id, r->layout->id, fn);
    E->indent++;
    stage_write(E, op, fn);
    line(E, "%s;", block_sync(E));
    stage_read(E, op, fn, "");
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

/* A loop-invariant dot operand (dot_reload.c): the tile goes to its staging
 * buffer once, before the loop (or the loops), whose tl.dot reads the
 * fragments there.  Or an operand of the dot right after it, which reads it
 * in place.  Each write ends with a barrier: the one before it frees the
 * bytes an earlier exchange's slower warps may still read (tir_smem's rule
 * for every exchange). */
void emit_local_alloc(Emitter *E, const Op *op)
{
    const Value *x = op->args[0];
    const char *fn = stage_helper(E, op);
    /* a reader on wgmma needs the proxy fence (the dots of several loops may differ) */
    bool wgmma = false;
    int n = alloc_readers(E, op->parent, op, &wgmma);
    const char *readers = local_alloc_beside(op) ? ": the tl.dot below reads"
                          : n > 1 ? fmt(E, ", once: the tl.dots in the %d loops below read", n)
                                  : ", once: the tl.dot in the loop below reads";
    line(E, "// %s (L%d) to %s%s %s there%s", vname(E, x), x->layout->id, fn, readers, wgmma ? "it" : "its fragments",
         local_alloc_beside(op) ? "" : " in every iteration");
    stage_write(E, op, fn);
    if (wgmma) {
        line(E, "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // sm_90a: wgmma");
        line(E, "tilec::fence_proxy_async();  // this thread's stores, visible to wgmma's reads");
        line(E, "#endif");
    }
    line(E, "%s;", block_sync(E));
}

/* "slot, " for a ring's address helper; "" for a buffer of one slot. */
const char *stage_slot_arg(Emitter *E, const Op *ll)
{
    return ll->nargs ? fmt(E, "%s, ", value_at(E, ll->args[0], NULL, "0")) : "";
}

/* "slot read_slot of stage1", "stage0": where a local_load reads, for comments. */
static const char *stage_where(Emitter *E, const Op *ll, const char *fn)
{
    return ll->nargs ? fmt(E, "slot %s of %s", value_at(E, ll->args[0], NULL, "0"), fn) : fn;
}

/* A dot operand whose fragments this thread already holds (dot_operand_in_registers):
 * each 32-bit word packs `kwidth` of the source's registers, no shared memory. */
void emit_register_fragments(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int kw = r->layout->kwidth;
    LayoutMap sm, dm;
    value_map(x, &sm);
    value_map(r, &dm);
    int rb[LMAP_MAX_REG_BITS];
    if (!lmap_local(&sm, -1, &dm, rb))
        BUG("operand %%%d is not held by the threads of its fragments", r->id);
    line(E, "uint32_t %s[%d];  // [%s] %s, L%d: operand %c fragments, %d element%s per register", vname(E, r),
         frag_words(r), dims_text(E, r->type), dtype_name(x->type.dtype), r->layout->id,
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
        sb_printf(&elems, "%s%s", j ? ", " : "", value_at(E, x, NULL, idx));
    }
    const char *list = elems.data ? elems.data : "";
    const char *word = kw == 1 ? fmt(E, "tilec::bitcast<uint32_t>(%s)", list) : fmt(E, "tilec::pack%d(%s)", kw, list);
    /* fp32 rounded to 16 bits on the way in (p.to(tl.float16)): one packed cvt per pair */
    const Op *cast = x->def;
    if (kw == 2 && info(E, x)->inl && cast && cast->kind == OP_CAST && !cast->cast.rtz &&
        cast->args[0]->type.dtype == DT_FP32 && (x->type.dtype == DT_FP16 || x->type.dtype == DT_BF16)) {
        const char *lo = value_at(E, cast->args[0], NULL, base);
        const char *hi = value_at(E, cast->args[0], NULL, fmt(E, "%s + %d", paren(E, base), 1 << rb[0]));
        word = fmt(E, "tilec::pack2_%s(%s, %s)", x->type.dtype == DT_FP16 ? "f16" : "bf16", lo, hi);
    }
    line(E, "%s[%s] = %s;", vname(E, r), kw > 1 ? fmt(E, "%s / %d", e, kw) : e, word);
    sb_free(&elems);
    elem_loop_close(E, nregs(r), kw);
}

/* A pipelined operand: its fragments from the ring slot of this iteration; a
 * loop-invariant one: from the buffer its local_alloc wrote before the loop. */
void emit_local_load(Emitter *E, const Op *op)
{
    const Value *r = op->results[0];
    const char *fn = stage_helper(E, op);
    const char *where = stage_where(E, op, fn);
    if (fused_read(E, r) && info(E, r)->user->dot.wgmma) { /* declared in the dot's mma.sync #else */
        line(E, "// operand %c in %s, read by the tl.dot below", op->stage->op_idx ? 'B' : 'A', where);
        return;
    }
    emit_fragment_decl(E, op);
    if (fused_read(E, r)) {
        line(E, "// read from %s one K step at a time, in the tl.dot below", where);
        return;
    }
    line(E, "{  // from %s", where);
    E->indent++;
    stage_read(E, op, fn, stage_slot_arg(E, op));
    E->indent--;
    line(E, "}");
}

/* The fragment array of a pipelined operand. */
void emit_fragment_decl(Emitter *E, const Op *op)
{
    const Value *r = op->results[0];
    line(E, "uint32_t %s[%d];  // [%s] %s, L%d: operand %c fragments, %d elements per register", vname(E, r),
         frag_words(r), dims_text(E, r->type), dtype_name(op->stage->dtype), r->layout->id,
         op->stage->op_idx ? 'B' : 'A', r->layout->kwidth);
}

/* cp.async of one iteration's operand tile into a ring slot: each thread
 * copies its chunks (the load's layout), zero-filled where masked or past
 * the loop's end. */
void emit_async_copy(Emitter *E, const Op *op)
{
    const Op *ll = op->buf;
    const DotStage *s = ll->stage;
    const char *fn = stage_helper(E, ll);
    const Value *ptr = op->args[0], *pred = op->args[1], *slot = op->args[2];
    const Value *mask = tir_copy_mask(op);
    int v = copy_vec(op);
    int bytes = v * dtype_bits(s->dtype) / 8;
    LayoutMap m;
    value_map(ptr, &m);
    int n = nregs(ptr);
    bool guarded = copy_tests_mask(op);
    if (op->async_copy.tma)
        tma_copy(E, op);
    if (guarded)
        line(E, "// cp.async into slot %s of %s: %s; zero-filled where masked or past the loop's end",
             value_at(E, slot, NULL, "0"), fn, guarded_note(E, "copy", v, s->dtype));
    else
        line(E, "// cp.async into slot %s of %s: %d-byte copies, zero-filled where masked or past the loop's end",
             value_at(E, slot, NULL, "0"), fn, bytes);
    const char *e, *bits = NULL;
    if (guarded)
        bits = guarded_open(E, mask, ptr, n, v, &e);
    else
        e = elem_loop_open(E, n, v);
    const char *row, *col;
    if (ptr->type.rank == 3) { /* a batched operand, never transposed on its way (tir_pipeline) */
        stage_coords(E, s, ptr, &m, e, &row, &col);
    } else {
        const char *c0 = elem_coord(E, ptr, &m, 0, e), *c1 = elem_coord(E, ptr, &m, 1, e);
        const char *oc[2] = {op->async_copy.transposed ? c1 : c0, op->async_copy.transposed ? c0 : c1}; /* operand coordinates */
        row = oc[1 - s->contig_dim], col = oc[s->contig_dim];
    }
    const char *p = value_at(E, pred, NULL, "0");
    const char *dst = fmt(E, "%s(smem, %s, %s, %s)", fn, value_at(E, slot, NULL, "0"), row, col);
    if (guarded) {
        line(E, "tilec::cp_async_masked_vec<%d, %d>(%s, %s, %s, %s);", bytes, v, dst, value_at(E, ptr, ptr, e), bits, p);
        guarded_close(E, mask, ptr, n, v);
    } else {
        if (mask)
            p = fmt(E, "%s && %s", paren(E, p), paren(E, value_at(E, mask, ptr, e)));
        line(E, "tilec::cp_async<%d>(%s, %s, %s);", bytes, dst, value_at(E, ptr, ptr, e), p);
        elem_loop_close(E, n, v);
    }
    if (op->async_copy.tma)
        line(E, "#endif");
}

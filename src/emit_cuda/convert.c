/*
 * convert.c — a tile changing layout through shared memory (convert_layout),
 * and the description of each conversion buffer's storage.
 */
#include "emit_internal.h"

#include <string.h>

/* The barrier after an exchange's reads, unless the next exchange's barrier does its job (tir_smem). */
void trailing_sync(Emitter *E, const Op *op)
{
    if (op->smem_keep_sync)
        line(E, "%s;  // the buffer is free again", block_sync(E));
    else if (op->smem_loop_frees)
        line(E, "// no barrier here: the loop's wait for its copies, at the next step's start and after the loop, frees these");
    else
        line(E, "// no barrier here: a following exchange uses other bytes, and its barrier frees these");
}

/* How a conversion buffer is stored, in words, its clauses separated by `sep`:
 * "row-major", the swizzle's formula, the padding. */
const char *smem_storage(Emitter *E, const Op *op, const char *sep)
{
    const SmemLayout *l = &op->smem_layout;
    const SmemSwizzle *z = &l->swz;
    StrBuf b = {0};
    sb_puts(&b, "row-major");
    if (!smem_swizzle_none(*z)) {
        const char *phase = z->per_phase > 1 ? fmt(E, "(row / %d) %% %d", z->per_phase, z->max_phase)
                                             : fmt(E, "row %% %d", z->max_phase);
        sb_printf(&b, ",%scolumns swizzled in each row of %d (tilec::swizzle): col' = ", sep, 1 << l->row_log2);
        if (z->vec > 1)
            sb_printf(&b, "((col / %d) ^ (%s)) * %d + col %% %d", z->vec, phase, z->vec, z->vec);
        else
            sb_printf(&b, "col ^ (%s)", phase);
    }
    if (l->pad)
        sb_printf(&b, ",%sthen %d padding element%s after every %d", sep, l->pad, l->pad > 1 ? "s" : "", 1 << l->pad_log2);
    const char *s = fmt(E, "%s", b.data);
    sb_free(&b);
    return s;
}

/* What the swizzle or padding buys, or the conflicts that remain. */
const char *smem_verdict(Emitter *E, const Op *op)
{
    if (op->smem_conflicts)
        return fmt(E, "%d extra shared-memory wavefronts counted (bank conflicts)", op->smem_conflicts);
    if (op->smem_plain_conflicts)
        return fmt(E, "no bank conflicts on the write or the read (counted statically; %d extra wavefronts without %s)",
                   op->smem_plain_conflicts,
                   smem_swizzle_none(op->smem_layout.swz) ? "the padding"
                   : op->smem_layout.pad                 ? "the swizzle and padding"
                                                         : "the swizzle");
    return "no bank conflicts on the write or the read (counted statically)";
}

/* cvtN_at(coordinates): the element's offset in the buffer. */
static void emit_convert_index(Emitter *E, const Op *op, const char *fn)
{
    Type t = op->args[0]->type;
    const SmemLayout *l = &op->smem_layout;
    StrBuf *h = &E->helpers;
    bool swizzled = !smem_swizzle_none(l->swz);
    sb_printf(h, "static __device__ __forceinline__ int %s(", fn);
    if (t.rank == 1)
        sb_puts(h, "int i)\n{\n");
    else if (t.rank == 2)
        sb_puts(h, "int row, int col)\n{\n");
    else {
        for (int d = 0; d < t.rank; d++)
            sb_printf(h, "%sint i%d", d ? ", " : "", d);
        sb_puts(h, ")\n{\n    const int row = ");
        for (int d = 0; d < t.rank - 1; d++) {
            int stride = 1;
            for (int k = d + 1; k < t.rank - 1; k++)
                stride *= t.shape[k];
            sb_printf(h, "%s%s", d ? " + " : "", stride > 1 ? fmt(E, "(i%d << %d)", d, log2_int(stride)) : fmt(E, "i%d", d));
        }
        sb_printf(h, ", col = i%d;\n", t.rank - 1);
    }
    if (t.rank > 1) {
        if (swizzled)
            sb_printf(h, "    const int i = (row << %d) + tilec::swizzle<%d, %d, %d>(row, col);\n", l->row_log2, l->swz.vec,
                      l->swz.per_phase, l->swz.max_phase);
        else
            sb_printf(h, "    const int i = (row << %d) + col;\n", l->row_log2);
    }
    if (l->pad)
        sb_printf(h, "    return i + (i >> %d)%s;\n}\n\n", l->pad_log2, l->pad > 1 ? fmt(E, " * %d", l->pad) : "");
    else
        sb_puts(h, "    return i;\n}\n\n");
}

/* Where x is fp32 rounded to fp16 or bf16 to the nearest (printed inside its
 * user), the intrinsic that rounds a pair into one 32-bit word (one
 * cvt.rn.f16x2.f32, as Triton's PTX does) and that word's type; else NULL.
 * A run written from single roundings made ptxas 13.0 serialize the wgmma
 * groups of a persistent matmul whose store branch writes them (C7514). */
const char *paired_rounding(Emitter *E, const Value *x, const char **pair_type)
{
    const Op *c = x->def;
    if (!c || c->kind != OP_CAST || c->cast.rtz || !info(E, x)->inl || c->args[0]->type.dtype != DT_FP32)
        return NULL;
    if (x->type.dtype == DT_FP16)
        return *pair_type = "__half2", "__floats2half2_rn";
    if (x->type.dtype == DT_BF16)
        return *pair_type = "__nv_bfloat162", "__floats2bfloat162_rn";
    return NULL;
}

/* "*reinterpret_cast<__half2 *>(ADDR) = __floats2half2_rn(x[e], x[e + 1]);": elements e
 * and e + 1 of x (paired_rounding gave pair and pair_type) stored at ADDR by one write. */
void emit_paired_store(Emitter *E, const char *addr, const Value *x, const char *e, const char *pair,
                       const char *pair_type)
{
    const Value *f = x->def->args[0];
    line(E, "*reinterpret_cast<%s *>(%s) = %s(%s, %s);", pair_type, addr, pair, value_at(E, f, NULL, e),
         value_at(E, f, NULL, fmt(E, "%s + 1", e)));
}

/* Are v's registers, or those of the tiles a folded v is computed from where
 * used (a cast of the accumulator), read by an op of block b after its op at `at`? */
static bool live_after(Emitter *E, const Block *b, int at, const Value *v, int depth)
{
    for (int i = at + 1; i < b->ops.len; i++)
        if (tir_op_reads(b->ops.data[i], v))
            return true;
    if (!info(E, v)->inl || !v->def || depth > 8)
        return false;
    for (int k = 0; k < v->def->nargs; k++)
        if (v->def->args[k]->type.rank && live_after(E, b, at, v->def->args[k], depth + 1))
            return true;
    return false;
}

/* The pointer store right after layout change op that is the only reader of its
 * result, in the result's layout, storing runs no wider than the buffer's reads
 * (vr elements), where the change's source stays live after the store (a row sum
 * of the accumulator after its store): it reads each run back just before storing
 * it.  Otherwise the whole tile comes back into registers first, beside its live
 * source: a 128x256 epilogue on 8 warps spilled at 255 registers, and took 198
 * with the reads beside the stores.  Where the source is dead, the reads stay
 * together ahead of the stores (the stores' asm keeps later reads behind them, so
 * reading run by run would wait out each read's latency). */
static const Op *store_reading_back(Emitter *E, const Op *op, int vr)
{
    const Block *b = op->parent;
    const Value *r = op->results[0];
    int at = 0;
    while (at < b->ops.len && b->ops.data[at] != op)
        at++;
    if (op->kind != OP_CONVERT || at + 1 >= b->ops.len)
        return NULL;
    const Op *st = b->ops.data[at + 1];
    if (st->kind != OP_STORE || st->store.tma_map || st->nargs < 2 || st->args[1] != r || info(E, r)->inl)
        return NULL;
    const Value *ptr = st->args[0];
    if (!ptr->type.rank || ptr->layout != r->layout || access_vec(st, NULL) > vr || access_tests_mask(st))
        return NULL;
    for (int k = 0; k < st->nargs; k++)
        if (k != 1 && st->args[k] == r)
            return NULL;
    /* r, defined in b, can be read only by b's later ops (and their regions) */
    if (!live_after(E, b, at + 1, op->args[0], 0) || live_after(E, b, at + 1, r, 0))
        return NULL;
    return st;
}

/* Inside store st's loop, before it stores register run i..i+vec-1: that run,
 * read back from the exchange buffer (store_reading_back). */
void fused_store_read(Emitter *E, const Op *st, const char *i, int vec)
{
    if (E->fused.store != st)
        return;
    const Op *op = E->fused.cvt;
    const Value *r = op->results[0];
    LayoutMap dm;
    value_map(r, &dm);
    StrBuf args = {0};
    for (int d = 0; d < r->type.rank; d++)
        sb_printf(&args, "%s%s", d ? ", " : "", elem_coord(E, r, &dm, d, i));
    if (vec > 1)
        line(E, "tilec::load<%d>(&%s[%s], &buf[%s(%s)]);", vec, vname(E, r), i, E->fused.fn, args.data ? args.data : "");
    else
        line(E, "%s[%s] = buf[%s(%s)];", vname(E, r), i, E->fused.fn, args.data ? args.data : "");
    sb_free(&args);
}

/* A tile changes layout through a shared buffer, row-major, swizzled or
 * padded as tir_smem chose.  A flip across threads is the same exchange in
 * one layout, each element written at its mirrored place along the axis. */
void emit_convert(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    LayoutMap sm, dm;
    value_map(x, &sm);
    value_map(r, &dm);
    Type t = x->type;
    int bufno = E->nbuf++;
    const char *fn = fmt(E, "cvt%d_at", bufno);
    vec_push(E->a, &E->exchange_fns, fn);
    StrBuf *h = &E->helpers;
    StrBuf shape = {0};
    for (int d = 0; d < t.rank; d++)
        sb_printf(&shape, "%s%d", d ? "x" : "", t.shape[d]);
    const char *what = op->kind == OP_FLIP ? fmt(E, "reversed along dim %d (L%d)", op->flip.axis, x->layout->id)
                                           : fmt(E, "changing layout (L%d -> L%d)", x->layout->id, r->layout->id);
    sb_printf(h, "// cvt%d: a %s %s tile %s in shared memory, %s;\n// %d bytes; %s.\n", bufno, shape.data,
              dtype_name(t.dtype == DT_PTR ? DT_I64 : t.dtype), what, smem_storage(E, op, "\n// "), op->smem_bytes,
              smem_verdict(E, op));
    sb_free(&shape);
    emit_convert_index(E, op, fn);
    const char *T = ctype(E, type_elem(t));
    const char *name = vname(E, r);
    if (!info(E, r)->declared)
        line(E, "%s;%s", decl(E, type_elem(r->type), name, nregs(r)), shape_note(E, r));
    if (op->kind == OP_FLIP)
        line(E, "{  // reversed along dim %d through shared memory (cvt%d): each element goes to its mirrored place",
             op->flip.axis, bufno);
    else
        line(E, "{  // L%d -> L%d through shared memory (cvt%d)", x->layout->id, r->layout->id, bufno);
    E->indent++;
    const char *BT = T[strlen(T) - 1] == '*' ? fmt(E, "%s*", T) : fmt(E, "%s *", T);
    line(E, "%sbuf = reinterpret_cast<%s>(smem + %d);", BT, BT, op->smem_offset);
    int n = nregs(x), vw = op->smem_write_vec > 1 ? op->smem_write_vec : 1;
    /* a run of vw registers goes in as one write: from x's own registers where
     * they are numbered as the run's, else gathered in a small array first */
    bool own = vw > 1 && !info(E, x)->inl && !strcmp(reg_index(E, x, NULL, "e"), "e");
    const char *pair_type = NULL, *pair = vw > 1 && !own ? paired_rounding(E, x, &pair_type) : NULL;
    if (vw > 1)
        line(E, "// each run of %d consecutive elements goes in as one %d-byte write", vw,
             vw * smem_elem_bytes(type_elem(t)));
    const char *e = vw == 1 || own || (pair && vw == 2) ? elem_loop_open(E, n, vw) : elem_open_step(E, n, vw, true);
    StrBuf args = {0};
    for (int d = 0; d < t.rank; d++) {
        const char *c = elem_coord(E, x, &sm, d, e);
        if (op->kind == OP_FLIP && d == op->flip.axis)
            c = fmt(E, "%d - (%s)", t.shape[d] - 1, c);
        sb_printf(&args, "%s%s", d ? ", " : "", c);
    }
    const char *at = fmt(E, "%s(%s)", fn, args.data ? args.data : "");
    sb_free(&args);
    if (vw == 1) {
        line(E, "buf[%s] = %s;", at, value_at(E, x, NULL, e));
        elem_loop_close(E, n, 1);
    } else if (own) {
        line(E, "tilec::store<%d>(&buf[%s], &%s[%s]);", vw, at, vname(E, x), e);
        elem_loop_close(E, n, vw);
    } else if (pair) {
        const Value *f = x->def->args[0];
        if (vw == 2)
            emit_paired_store(E, fmt(E, "&buf[%s]", at), x, e, pair, pair_type);
        else {
            line(E, "%s run[%d];  // pairs, each rounded by one instruction", pair_type, vw / 2);
            line(E, "#pragma unroll");
            line(E, "for (int j = 0; j < %d; ++j)", vw / 2);
            const char *j0 = strcmp(e, "0") ? fmt(E, "%s + 2 * j", e) : "2 * j";
            line(E, "    run[j] = %s(%s, %s);", pair, value_at(E, f, NULL, j0), value_at(E, f, NULL, fmt(E, "%s + 1", j0)));
            line(E, "tilec::store<%d>(reinterpret_cast<%s *>(&buf[%s]), run);", vw / 2, pair_type, at);
        }
        if (vw == 2)
            elem_loop_close(E, n, vw);
        else
            elem_close(E, n, true);
    } else {
        line(E, "%s run[%d];", T, vw);
        line(E, "#pragma unroll");
        line(E, "for (int j = 0; j < %d; ++j)", vw);
        line(E, "    run[j] = %s;", value_at(E, x, NULL, strcmp(e, "0") ? fmt(E, "%s + j", e) : "j"));
        line(E, "tilec::store<%d>(&buf[%s], run);", vw, at);
        elem_close(E, n, true);
    }
    line(E, "%s;", block_sync(E));
    n = nregs(r);
    int vr = op->smem_read_vec;
    const Op *st = store_reading_back(E, op, vr > 1 ? vr : 1);
    if (st) {
        line(E, "// read back run by run, each stored as it arrives: the tile is never whole in registers");
        E->fused.cvt = op;
        E->fused.store = st;
        E->fused.fn = fn;
        stmt_comment(E, st);
        emit_pointer_store(E, st);
        E->fused.cvt = E->fused.store = NULL;
        E->done_store = st;
        trailing_sync(E, op);
        E->indent--;
        line(E, "}");
        return;
    }
    if (vr > 1)
        line(E, "// each run of %d consecutive elements comes back as one %d-byte read", vr,
             vr * smem_elem_bytes(type_elem(t)));
    e = elem_loop_open(E, n, vr);
    StrBuf args2 = {0};
    for (int d = 0; d < t.rank; d++)
        sb_printf(&args2, "%s%s", d ? ", " : "", elem_coord(E, r, &dm, d, e));
    if (vr > 1)
        line(E, "tilec::load<%d>(&%s[%s], &buf[%s(%s)]);", vr, name, e, fn, args2.data ? args2.data : "");
    else
        line(E, "%s[%s] = buf[%s(%s)];", name, e, fn, args2.data ? args2.data : "");
    sb_free(&args2);
    elem_loop_close(E, n, vr);
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

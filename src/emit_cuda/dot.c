/*
 * dot.c — tl.dot: mma.sync over the operand fragments (tf32x3 included), and
 * the FMA path through shared memory.
 */
#include "emit_internal.h"

#include <string.h>

/* The fp8 mma (sm_89 and later), written into the helpers when a kernel uses it;
 * for the mma.sync #else of a dot on wgmma (emit_dot_wgmma) only where that
 * #else is compiled, since an unused static function is a warning. */
static const char *mma_fp8_helper(Emitter *E, DType a, DType b, bool wgmma_else)
{
    const char *ta = a == DT_FP8E5 ? "e5m2" : "e4m3", *tb = b == DT_FP8E5 ? "e5m2" : "e4m3";
    const char *fn = fmt(E, "mma_m16n8k32_%s_%s", ta, tb);
    if (helper_known(E, fn))
        return fn;
    StrBuf *h = &E->helpers;
    if (wgmma_else)
        sb_printf(h, "#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the mma.sync path of a dot that sm_90a runs on wgmma\n");
    sb_printf(h, "// mma.sync on fp8 (sm_89 and later): d (4 fp32 accumulators of one 16x8 tile) += a (16x32 %s)\n"
                 "// * b (32x8 %s), four elements per fragment register, in the PTX order (as int8's m16n8k32).\n", ta, tb);
    sb_printf(h, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890\n"
                 "#error \"this kernel multiplies fp8 on tensor cores: compile it for sm_89 or later\"\n#endif\n");
    /* Hopper has no fp8 mma.sync: ptxas splits it into two fp16 mmas and adds the
     * second's result with 4 FADDs a tile (128 a K step of a 128x128 matmul on 8
     * warps: 499 SASS instructions a step against the 331 of Triton, which converts
     * the operands itself).  Converted here, exactly, the halves chain on the
     * accumulators.  A fragment register's four bytes are four K elements; its low
     * byte pair gives one fp16x2 register and its high pair another, for A and B
     * alike, so both walk K in the same (permuted) order and the sum is the same. */
    sb_printf(h, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n");
    for (int k = 0; k < 2; k++)
        sb_printf(h, "// %s's %s as fp16: the four elements of w (bytes), converted exactly, in two registers\n"
                     "static __device__ __forceinline__ void %s_%s16(uint32_t w, uint32_t *lo, uint32_t *hi)\n{\n"
                     "    asm(\"{\\n .reg .b16 l, h;\\n mov.b32 {l, h}, %%2;\\n cvt.rn.f16x2.%sx2 %%0, l;\\n\"\n"
                     "        \" cvt.rn.f16x2.%sx2 %%1, h;\\n}\" : \"=r\"(*lo), \"=r\"(*hi) : \"r\"(w));\n}\n",
                  fn, k ? "b" : "a", fn, k ? "b" : "a", k ? tb : ta, k ? tb : ta);
    sb_printf(h, "#endif\n");
    sb_printf(h, "static __device__ __forceinline__ void %s(float *d, const uint32_t *a, const uint32_t *b)\n{\n", fn);
    sb_printf(h, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900  // no fp8 mma.sync: K's halves as fp16 mmas\n"
                 "#pragma unroll\n"
                 "    for (int half = 0; half < 2; ++half) {\n"
                 "        uint32_t a16[4], b16[2];  // rows g and g+8 of A, each in two registers; B's column g\n"
                 "        %s_a16(a[2 * half], &a16[0], &a16[2]);\n"
                 "        %s_a16(a[2 * half + 1], &a16[1], &a16[3]);\n"
                 "        %s_b16(b[half], &b16[0], &b16[1]);\n"
                 "        tilec::mma_m16n8k16_f16(d, a16, b16);\n"
                 "    }\n"
                 "#else\n", fn, fn, fn);
    sb_printf(h, "    asm volatile(\"mma.sync.aligned.m16n8k32.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, %%3}, \"\n", ta, tb);
    sb_printf(h, "                 \"{%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\\n\"\n");
    sb_printf(h, "                 : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])\n");
    sb_printf(h, "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n");
    sb_printf(h, "#endif\n}\n");
    sb_puts(h, wgmma_else ? "#endif\n\n" : "\n");
    return fn;
}

/* The mma helper (tilec::... from the template, or a helper of this file). */
static const char *mma_fn(Emitter *E, DType in, DType in_b, DType out, bool wgmma_else)
{
    if (dtype_is_fp8(in))
        return mma_fp8_helper(E, in, in_b, wgmma_else);
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
void dot_init_result(Emitter *E, const Op *op)
{
    const Value *acc = op->args[2], *r = op->results[0];
    const char *name = vname(E, r);
    if (!info(E, r)->declared)
        declare_var(E, r);
    if (strcmp(name, vname(E, acc)) || info(E, acc)->inl)
        fill(E, name, r, value_elem, acc);
}

/* A staged operand (a pipeline ring, or a loop-invariant operand's buffer)
 * read by its dot only: its fragments are loaded inside the dot's K loop,
 * one K step at a time, so that only the registers (and the addresses) of
 * the current step are live. */
bool fused_read(Emitter *E, const Value *v)
{
    const Op *d = v->def;
    return d && d->kind == OP_LOCAL_LOAD && v->nuses == 1 && info(E, v)->user &&
           info(E, v)->user->kind == OP_DOT && info(E, v)->user->parent == d->parent &&
           !(info(E, v)->user->args[0]->type.dtype == DT_FP32 && info(E, v)->user->dot.precision == DOT_TF32X3);
}

/* " + 64 * bi": the offset of batch bi in an array of `per` elements per
 * batch, or nothing for a 2-D dot (nb == 1). */
static const char *batch_term(Emitter *E, int nb, int per)
{
    return nb > 1 ? fmt(E, " + %d * bi", per) : "";
}

/* B fragment word of (ks, ni): its first N repetition sits before the K ones;
 * a 3-D dot's batches follow each other, 2 * nk * nn words each. */
static const char *b_word(Emitter *E, int nn, int nk, int nb)
{
    const char *w = nn >= 2 ? fmt(E, "2 * (ni & 1) + 4 * (k_step + %d * (ni >> 1))", nk) : "2 * k_step";
    return fmt(E, "%s%s", w, batch_term(E, nb, 2 * nk * nn));
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
    line(E, "// operand %c of K step k_step, one element at a time (%s's K is not its contiguous dimension)",
         s->op_idx ? 'B' : 'A', vname(E, r));
    if (n > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int %s = 0; %s < %d; ++%s)", loop, loop, n, loop);
    }
    line(E, "#pragma unroll");
    line(E, "%sfor (int j = 0; j < %d; ++j) {  // %d registers x %d elements", n > 1 ? "    " : "", words * kw, words, kw);
    E->indent += n > 1 ? 2 : 1;
    line(E, "const int e = %d * (%s) + j;", kw, first);
    elem_read(E, ll, fn, stage_slot_arg(E, ll), "e");
    E->indent -= n > 1 ? 2 : 1;
    line(E, "%s}", n > 1 ? "    " : "");
}

/* The mma loops: per batch (3-D dots, nb > 1), per K step, the operand
 * fragments of the step when they are read here, then nm x nn mma.sync. */
static void emit_mma_loop(Emitter *E, const Op *op, const char *fn, const char *a, const char *b, int nm, int nn, int nk,
                          int nb)
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
    if (nb > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int bi = 0; bi < %d; ++bi) {  // batches: registers, fragments and staged tiles of batch bi", nb);
        E->indent++;
    }
    line(E, "#pragma unroll");
    line(E, "for (int k_step = 0; k_step < %d; ++k_step) {  // K steps", nk);
    E->indent++;
    const char *a_word = fmt(E, "%s%s", fmt(E, nm > 1 ? "4 * (k_step + %d * mi)" : "4 * k_step", nk),
                             batch_term(E, nb, 4 * nk * nm));
    if (fa && !lla->stage->ldmatrix) {
        fused_elem_read(E, lla, fna, "mi", nm, a_word, 4);
        fa = false;
    }
    if (fb && !llb->stage->ldmatrix) {
        fused_elem_read(E, llb, fnb, "ni", nn, b_word(E, nn, nk, nb), 2);
        fb = false;
    }
    if (fa) {
        const Op *ll = op->args[0]->def;
        const char *slot = stage_slot_arg(E, ll);
        line(E, "#pragma unroll");
        line(E, "for (int mi = 0; mi < %d; ++mi)", nm);
        E->indent++;
        ld_group(E, ll, fna, slot, fmt(E, "%s_ld", a), fmt(E, "k_step + %d * mi%s", nk, batch_term(E, nb, nk * nm)));
        E->indent--;
    }
    if (fb) {
        const Op *ll = op->args[1]->def;
        const char *slot = stage_slot_arg(E, ll);
        if (nn >= 2) {
            line(E, "#pragma unroll");
            line(E, "for (int np = 0; np < %d; ++np)  // two 8-column tiles per ldmatrix.x4", nn / 2);
            E->indent++;
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b),
                     fmt(E, "k_step + %d * np%s", nk, batch_term(E, nb, nk * nn / 2)));
            E->indent--;
        } else if (nk >= 2) {
            line(E, "if ((k_step & 1) == 0)  // one ldmatrix.x4 holds two K steps");
            E->indent++;
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b), fmt(E, "(k_step >> 1)%s", batch_term(E, nb, nk / 2)));
            E->indent--;
        } else {
            ld_group(E, ll, fnb, slot, fmt(E, "%s_ld", b), nb > 1 ? "bi" : "0");
        }
    }
    bool h = r->type.dtype == DT_FP16;
    line(E, "#pragma unroll");
    line(E, "for (int mi = 0; mi < %d; ++mi)  // 16-row tiles of this warp", nm);
    line(E, "#pragma unroll");
    line(E, "    for (int ni = 0; ni < %d; ++ni)  // 8-column tiles of this warp", nn);
    const char *acc = fmt(E, "&%s[4 * (ni + %d * mi)%s]", name, nn, batch_term(E, nb, 4 * nm * nn));
    if (h)
        acc = fmt(E, "reinterpret_cast<uint32_t *>(%s)", acc);
    line(E, "        %s(%s, &%s[4 * (k_step + %d * mi)%s], &%s[%s]);", fn, acc, a, nk, batch_term(E, nb, 4 * nk * nm),
         b, b_word(E, nn, nk, nb));
    E->indent--;
    line(E, "}");
    if (nb > 1) {
        E->indent--;
        line(E, "}");
    }
}

static void emit_dot_mma(Emitter *E, const Op *op)
{
    const Value *a = op->args[0], *b = op->args[1], *r = op->results[0];
    DType in = a->type.dtype;
    LayoutMap m;
    value_map(r, &m);
    int o = r->type.rank - 2; /* 1 for a 3-D dot, whose batch is dim 0 */
    int M = r->type.shape[o], N = r->type.shape[o + 1], K = a->type.shape[o + 1];
    int ik = 8 * dot_kwidth(in); /* K of one mma: 16 fp16/bf16, 8 tf32, 32 int8 */
    int nm = mma_reps(&m, o), nn = mma_reps(&m, o + 1), nk = K / ik, nb = o ? mma_reps(&m, 0) : 1;
    const char *fn = mma_fn(E, in, b->type.dtype, r->type.dtype, op->dot.wgmma);
    if (!op->dot.wgmma) /* else before the #if of emit_dot_wgmma */
        dot_init_result(E, op);
    if (op->dot.use_flag) {
        DType t = r->type.dtype;
        line(E, "if (!%s) {  // the accumulator starts from zero again (the reset after the last step, folded here)",
             value_at(E, op->args[3], NULL, "0"));
        E->indent++;
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e)", nregs(r));
        line(E, "    %s[e] = %s;", vname(E, r), dtype_is_float(t) ? float_literal(E, 0.0, t) : int_literal(E, 0, t));
        E->indent--;
        line(E, "}");
    }
    const char *prec = in != DT_FP32 ? "" : op->dot.precision == DOT_TF32X3 ? ", tf32x3: three tf32 products" : ", tf32";
    if (nb > 1)
        line(E, "// %d batches, one after another in the registers (%d accumulators, %d + %d fragment words each):",
             nb, 4 * nm * nn, 4 * nk * nm, 2 * nk * nn);
    line(E, "// %dx%d += %dx%d @ %dx%d on tensor cores%s: each warp issues %d x %d mma.sync.%s per K step of %d, %d K step%s",
         M, N, M, K, K, N, prec, nm, nn, strchr(fn, '_') + 1, ik, nk, nk > 1 ? "s" : "");  /* "m16n8k16_f16" */
    if (in == DT_FP32 && op->dot.precision == DOT_TF32X3) {
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
        if (nb > 1) {
            line(E, "#pragma unroll");
            line(E, "for (int bi = 0; bi < %d; ++bi) {  // batches", nb);
            E->indent++;
        }
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
            line(E, "for (int k_step = 0; k_step < %d; ++k_step)", nk);
            line(E, "    %s(t, &%s[4 * (k_step + %d * mi)%s], &%s[%s]);", fn, pairs[p][0], nk,
                 batch_term(E, nb, 4 * nk * nm), pairs[p][1], b_word(E, nn, nk, nb));
        }
        line(E, "#pragma unroll");
        line(E, "for (int j = 0; j < 4; ++j)");
        line(E, "    %s[4 * (ni + %d * mi)%s + j] += t[j];", name, nn, batch_term(E, nb, 4 * nm * nn));
        E->indent -= 2;
        line(E, "    }");
        if (nb > 1) {
            E->indent--;
            line(E, "}");
        }
        E->indent--;
        line(E, "}");
        return;
    }
    emit_mma_loop(E, op, fn, vname(E, a), vname(E, b), nm, nn, nk, nb);
}

/* An operand element as the FMA path stages it (dot_fma_dtype): 16- and
 * 8-bit floats widened to fp32, int8 to int32, and fp32 under "tf32" cut to
 * the 19 bits a tensor core reads of it (Triton runs such a dot on one). */
static const char *fma_stage_value(Emitter *E, const Op *op, DType d, const char *v)
{
    switch (d) {
    case DT_FP16: return fmt(E, "__half2float(%s)", v);
    case DT_BF16: return fmt(E, "__bfloat162float(%s)", v);
    case DT_FP8E4NV: return fmt(E, "tilec::e4m3_to_f32(%s)", v);
    case DT_FP8E5: return fmt(E, "tilec::e5m2_to_f32(%s)", v);
    case DT_I8: return fmt(E, "(int32_t)%s", v);
    case DT_FP32:
        if (op->dot.precision == DOT_TF32)
            return fmt(E, "__uint_as_float(__float_as_uint(%s) & 0xffffe000u)", v);
        return v;
    default: return v;
    }
}

/* acc + a * b in the accumulator's type: fused in fp32 and fp64, exact in
 * int32, and rounded once more to a 16-bit accumulator. */
static const char *fma_update(Emitter *E, DType acc, const char *a, const char *b, const char *c)
{
    switch (acc) {
    case DT_FP64: return fmt(E, "fma(%s, %s, %s)", a, b, c);
    case DT_FP16: return fmt(E, "__float2half_rn(fmaf(%s, %s, __half2float(%s)))", a, b, c);
    case DT_BF16: return fmt(E, "__float2bfloat16_rn(fmaf(%s, %s, __bfloat162float(%s)))", a, b, c);
    case DT_I32: return fmt(E, "%s + %s * %s", c, a, b);
    default: return fmt(E, "fmaf(%s, %s, %s)", a, b, c);
    }
}

/* The FMA path (fp64, input_precision="ieee", and dots with M or N below
 * 16): A and B through shared memory row-major (a 3-D dot's batches one
 * after another); for each k a thread reads the A values of its rows and the
 * B values of its columns (of each of its batches), then updates its
 * results. */
static void emit_dot_fma(Emitter *E, const Op *op)
{
    const Value *a = op->args[0], *b = op->args[1], *r = op->results[0];
    int o = r->type.rank - 2;
    int M = r->type.shape[o], N = r->type.shape[o + 1], K = a->type.shape[o + 1];
    const char *T = dtype_ctype(dot_fma_dtype(op));
    dot_init_result(E, op);
    const char *how = a->type.dtype == DT_FP64 || (a->type.dtype == DT_FP32 && op->dot.precision != DOT_TF32)
                          ? "fused multiply-adds (exact fp32/fp64)"
                          : fmt(E, "multiply-adds in %s (M or N below 16: too small for a tensor-core tile)", T);
    line(E, "{  // %s%dx%d += %dx%d @ %dx%d with %s, A and B through shared memory",
         o ? fmt(E, "%d batches of ", r->type.shape[0]) : "", M, N, M, K, K, N, how);
    E->indent++;
    line(E, "%s *as = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset);
    line(E, "%s *bs = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset + dot_fma_b_offset(op));
    const Value *xs[2] = {a, b};
    const char *bufs[2] = {"as", "bs"};
    for (int k = 0; k < 2; k++) {
        LayoutMap xm;
        value_map(xs[k], &xm);
        int n = nregs(xs[k]);
        int rows = xs[k]->type.shape[o];
        const char *e = elem_loop_open(E, n, 1);
        const char *val = value_at(E, xs[k], NULL, e); /* before the coordinates: the order they are bound in */
        const char *col = paren(E, elem_coord(E, xs[k], &xm, o + 1, e));
        const char *row = elem_coord(E, xs[k], &xm, o, e);
        if (o) /* batch b's rows follow batch b-1's */
            row = fmt(E, "%s * %d + %s", paren(E, elem_coord(E, xs[k], &xm, 0, e)), rows, row);
        line(E, "%s[%s * %d + %s] = %s;", bufs[k], paren(E, row), xs[k]->type.shape[o + 1], col,
             fma_stage_value(E, op, xs[k]->type.dtype, val));
        elem_loop_close(E, n, 1);
    }
    line(E, "%s;", block_sync(E));
    LayoutMap m;
    value_map(r, &m);
    /* the result's register bits that pick an A row (M, and the batch) and a B column (N, and the batch) */
    int rb[2][LMAP_MAX_REG_BITS], nb[2] = {0, 0};
    for (int i = 0; i < m.nreg; i++)
        for (int d = 0; d < 2; d++)
            if (m.reg[i].dim >= 0 && (m.reg[i].dim == o + d || (o && m.reg[i].dim == 0)))
                rb[d][nb[d]++] = i;
    const char *name = vname(E, r);
    line(E, "#pragma unroll 4");
    line(E, "for (int k = 0; k < %d; ++k) {", K);
    E->indent++;
    line(E, "%s a_k[%d], b_k[%d];  // A[row][k] for this thread's rows, B[k][col] for its columns", T, 1 << nb[0], 1 << nb[1]);
    for (int d = 0; d < 2; d++) {
        line(E, "#pragma unroll");
        line(E, "for (int i = 0; i < %d; ++i)", 1 << nb[d]);
        const char *reg = deposit(E, rb[d], nb[d], "i");
        const char *c = elem_coord(E, r, &m, o + d, reg);
        const char *bat = o ? fmt(E, "%s * %d + ", paren(E, elem_coord(E, r, &m, 0, reg)), d ? K * N : M * K) : "";
        if (d == 0)
            line(E, "    a_k[i] = as[%s%s * %d + k];", bat, paren(E, c), K);
        else
            line(E, "    b_k[i] = bs[%sk * %d + %s];", bat, N, paren(E, c));
    }
    int n = nregs(r);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", n);
    line(E, "    %s[e] = %s;", name,
         fma_update(E, r->type.dtype, fmt(E, "a_k[%s]", compress(E, rb[0], nb[0], "e", m.nreg)),
                    fmt(E, "b_k[%s]", compress(E, rb[1], nb[1], "e", m.nreg)), fmt(E, "%s[e]", name)));
    E->indent--;
    line(E, "}");
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

void emit_dot(Emitter *E, const Op *op)
{
    if (op->dot.wgmma)
        emit_dot_wgmma(E, op, emit_dot_mma);
    else if (dot_uses_mma(op))
        emit_dot_mma(E, op);
    else
        emit_dot_fma(E, op);
}

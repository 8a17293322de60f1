/*
 * reduce.c — reductions (tl.sum, tl.max, tl.argmax ...) and scans (tl.cumsum,
 * tl.cumprod) along one axis: within the thread, across the lanes of a warp
 * with shuffles, and across warps through shared memory.
 */
#include "emit_internal.h"

#include <string.h>

static const char *combine_expr(Emitter *E, ReduceKind k, DType d, const char *a, const char *b)
{
    a = paren(E, a);
    b = paren(E, b);
    bool half = d == DT_FP16 || d == DT_BF16;
    switch (k) {
    case RED_SUM:
        if (half)
            return fmt(E, "__hadd(%s, %s)", a, b);
        return small_int_wrap(E, d, fmt(E, "%s + %s", a, b));
    case RED_XOR: return small_int_wrap(E, d, fmt(E, "%s ^ %s", a, b));
    case RED_MAX:
    case RED_MIN: {
        bool mx = k == RED_MAX;
        if (d == DT_FP32)
            return fmt(E, "%s(%s, %s)", mx ? "fmaxf" : "fminf", a, b);
        if (d == DT_FP64)
            return fmt(E, "%s(%s, %s)", mx ? "fmax" : "fmin", a, b);
        if (half)
            return fmt(E, "%s(%s, %s)", mx ? "__hmax" : "__hmin", a, b);
        return fmt(E, "(%s %s %s ? %s : %s)", a, mx ? ">" : "<", b, a, b);
    }
    default: BUG("combine_expr %d", k);
    }
}

/* Integer min/max is a conditional that names its second operand twice: a shuffle there
 * would run in only the lanes that take that branch, which __shfl_xor_sync with a full
 * mask forbids (divergent shuffles pair with other shuffles and return garbage). */
static bool combine_reads_twice(ReduceKind k, DType d)
{
    bool fp = d == DT_FP32 || d == DT_FP64 || d == DT_FP16 || d == DT_BF16;
    return (k == RED_MAX || k == RED_MIN) && !fp;
}

/* Row-major index of register `idx` of v in a buffer of v's shape. */
static const char *linear_index(Emitter *E, const Value *v, const LayoutMap *m, const char *idx)
{
    if (!v->type.rank)
        return "0";
    const char *lin = NULL;
    for (int d = 0; d < v->type.rank; d++) {
        const char *c = elem_coord(E, v, m, d, idx);
        if (!lin)
            lin = c;
        else
            lin = fmt(E, "(%s) * %d + %s", lin, v->type.shape[d], c);
    }
    return lin;
}

/* dst = better of (dst, v) for the index reductions; ties take the lower index */
static void arg_combine(Emitter *E, bool mx, const char *dv, const char *di, const char *v, const char *i)
{
    line(E, "if (%s %s %s || (%s == %s && %s < %s)) {", v, mx ? ">" : "<", dv, v, dv, i, di);
    line(E, "    %s = %s;", dv, v);
    line(E, "    %s = %s;", di, i);
    line(E, "}");
}

/* One reduction being printed: the operand's register, lane and warp bits split
 * along the axis (AxisBits), and the names of the result and of its index. */
typedef struct Reduce {
    const Op *op;
    const Value *x, *r, *ri; /* operand, result, and the index of tl.argmax/argmin or NULL */
    ReduceKind k;
    int axis;
    bool mx;                 /* ri: argmax, else argmin */
    LayoutMap xm;            /* the operand's layout */
    AxisBits ab;
    int NR, K;               /* results per thread; operand values per result in one thread */
    DType d;
    const char *T;           /* the result's C type */
    bool scalar;             /* a scalar result: no register arrays */
    const char *acc, *acci;  /* the result's name, its index's (or NULL) */
} Reduce;

/* The result (or index, `name`) register j writes, or the scalar itself. */
static const char *acc_elem(Emitter *E, const Reduce *R, const char *name, const char *j)
{
    return R->scalar ? name : fmt(E, "%s[%s]", name, j);
}

/* a tree, not a chain: log2(K) dependent steps instead of K - 1 */
static void reduce_tree(Emitter *E, const Reduce *R, const char *dv, const char *xr)
{
    const char *T = R->T;
    int K = R->K;
    line(E, "%s part[%d];  // this thread's %d values, combined pairwise", T, K, K);
    line(E, "#pragma unroll");
    line(E, "for (int kk = 0; kk < %d; ++kk)", K);
    line(E, "    part[kk] = %s;", ex(E, R->x, NULL, xr));
    for (int half = K / 2; half >= 1; half /= 2) { /* constant bounds: fully unrolled, registers only */
        if (half > 1) {
            line(E, "#pragma unroll");
            line(E, "for (int kk = 0; kk < %d; ++kk)", half);
            line(E, "    part[kk] = %s;", combine_expr(E, R->k, R->d, "part[kk]", fmt(E, "part[kk + %d]", half)));
        } else {
            line(E, "part[0] = %s;", combine_expr(E, R->k, R->d, "part[0]", "part[1]"));
        }
    }
    line(E, "%s = part[0];", dv);
}

/* a chain from the first value, keeping the best one's index for argmax/argmin */
static void reduce_chain(Emitter *E, const Reduce *R, const char *dv, const char *di, const char *xk, const char *xr)
{
    const Value *x = R->x;
    line(E, "%s = %s;", dv, ex(E, x, NULL, xk));
    if (R->ri)
        line(E, "%s = %s;", di, elem_coord(E, x, &R->xm, R->axis, xk));
    if (R->K == 1)
        return;
    line(E, "#pragma unroll");
    line(E, "for (int kk = 1; kk < %d; ++kk)%s", R->K, R->ri ? " {" : "");
    E->indent++;
    if (R->ri) {
        line(E, "const %s other = %s;", R->T, ex(E, x, NULL, xr));
        line(E, "const int32_t other_i = %s;", elem_coord(E, x, &R->xm, R->axis, xr));
        arg_combine(E, R->mx, dv, di, "other", "other_i");
    } else {
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, ex(E, x, NULL, xr)));
    }
    E->indent--;
    if (R->ri)
        line(E, "}");
}

/* 1. within the thread: each result's K values */
static void reduce_in_thread(Emitter *E, const Reduce *R)
{
    const AxisBits *ab = &R->ab;
    bool multi = R->K > 1 || R->ri;
    const char *j = elem_open(E, R->NR, multi);
    const char *dv = acc_elem(E, R, R->acc, j);
    const char *di = R->ri ? acc_elem(E, R, R->acci, j) : NULL;
    const char *xk = deposit(E, ab->kept, ab->nkept, j);
    const char *xr = or_bits(E, xk, deposit(E, ab->axis_reg, ab->naxis_reg, "kk"));
    if (R->K >= 4 && !R->ri)
        reduce_tree(E, R, dv, xr);
    else
        reduce_chain(E, R, dv, di, xk, xr);
    elem_close(E, R->NR, multi);
}

/* Every result combined with the one of the lane `m` (a C expression) away. */
static void reduce_shuffle(Emitter *E, const Reduce *R, const char *m)
{
    /* two statements per element need a block, except for one element: the lane
     * loop's own braces hold them */
    bool twice = combine_reads_twice(R->k, R->d), block = R->ri || (twice && R->NR > 1);
    const char *j = elem_open(E, R->NR, block);
    const char *dv = acc_elem(E, R, R->acc, j);
    if (R->ri) {
        const char *di = acc_elem(E, R, R->acci, j);
        line(E, "const %s other = tilec::shfl_xor(%s, %s);", R->T, dv, m);
        line(E, "const int32_t other_i = tilec::shfl_xor(%s, %s);", di, m);
        arg_combine(E, R->mx, dv, di, "other", "other_i");
    } else if (twice) {
        line(E, "const %s other = tilec::shfl_xor(%s, %s);", R->T, dv, m);
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, "other"));
    } else {
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, fmt(E, "tilec::shfl_xor(%s, %s)", dv, m)));
    }
    elem_close(E, R->NR, block);
}

/* 2. across lanes: butterfly, so every lane ends with the result; a run of
 * consecutive lane bits is one loop */
static void reduce_lanes(Emitter *E, const Reduce *R)
{
    const int *lanes = R->ab.lane;
    for (int i = R->ab.nlane - 1; i >= 0;) {
        int hi = lanes[i], len = 1;
        while (i - len >= 0 && lanes[i - len] == hi - len)
            len++;
        int lo = hi - len + 1;
        if (len > 1) {
            line(E, "#pragma unroll");
            line(E, "for (int lane_bit = %d; lane_bit >= %d; lane_bit >>= 1) {", 1 << hi, 1 << lo);
        } else {
            line(E, "{");
        }
        E->indent++;
        reduce_shuffle(E, R, len > 1 ? "lane_bit" : fmt(E, "%d", 1 << hi));
        E->indent--;
        line(E, "}");
        i -= len;
    }
}

/* One lane of each warp per result writes the warp's partial to slot
 * slot_base + the result's index. */
static void write_partials(Emitter *E, const Reduce *R, const LayoutMap *rm, const char *slot_base)
{
    unsigned lane_axis = 0;
    for (int i = 0; i < R->ab.nlane; i++)
        lane_axis |= 1u << R->ab.lane[i];
    if (lane_axis)
        line(E, lane_axis == 31 ? "if (lane == 0) {  // one lane per result writes its warp's partial"
                                : "if ((lane & %u) == 0) {  // one lane per result writes its warp's partial", lane_axis);
    else
        line(E, "{");
    E->indent++;
    const char *j = elem_open(E, R->NR, R->ri != NULL);
    const char *lin = R->scalar ? "0" : linear_index(E, R->r, rm, j);
    const char *slot = strcmp(lin, "0") ? fmt(E, "%s + %s", slot_base, lin) : slot_base;
    line(E, "partial[%s] = %s;", slot, acc_elem(E, R, R->acc, j));
    if (R->ri)
        line(E, "partial_i[%s] = %s;", slot, acc_elem(E, R, R->acci, j));
    elem_close(E, R->NR, R->ri != NULL);
    E->indent--;
    line(E, "}");
}

/* Every thread combines the W warps' partials of each of its results. */
static void combine_partials(Emitter *E, const Reduce *R, const LayoutMap *rm, int numel, int W)
{
    const char *j = elem_open(E, R->NR, true);
    const char *lin = R->scalar ? "0" : linear_index(E, R->r, rm, j);
    const char *dv = acc_elem(E, R, R->acc, j);
    const char *di = R->ri ? acc_elem(E, R, R->acci, j) : NULL;
    line(E, "%s = partial[%s];", dv, lin);
    if (R->ri)
        line(E, "%s = partial_i[%s];", di, lin);
    const char *wslot = strcmp(lin, "0") ? fmt(E, "ww * %d + %s", numel, lin) : fmt(E, "ww * %d", numel);
    if (numel == 1)
        wslot = strcmp(lin, "0") ? fmt(E, "ww + %s", lin) : "ww";
    line(E, "#pragma unroll");
    line(E, "for (int ww = 1; ww < %d; ++ww)%s", W, R->ri ? " {" : "");
    E->indent++;
    if (R->ri)
        arg_combine(E, R->mx, dv, di, fmt(E, "partial[%s]", wslot), fmt(E, "partial_i[%s]", wslot));
    else
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, fmt(E, "partial[%s]", wslot)));
    E->indent--;
    if (R->ri)
        line(E, "}");
    elem_close(E, R->NR, true);
}

/* 3. across warps, through shared memory: one partial per warp along the axis */
static void reduce_warps(Emitter *E, const Reduce *R)
{
    const Op *op = R->op;
    const char *T = R->T;
    LayoutMap rm;
    if (!R->scalar)
        value_map(R->r, &rm);
    int numel = type_numel(R->r->type);
    int W = 1 << R->ab.nwarp;
    const char *wa = compress(E, R->ab.warp, R->ab.nwarp, "warp", R->xm.nwarp);
    int bytes = smem_elem_bytes(R->r->type);
    int idx_off = op->smem_offset + (((numel * W * bytes) + 3) & ~3);
    line(E, "{");
    E->indent++;
    line(E, "// %d partials per result, %d bytes at smem + %d", W, op->smem_bytes, op->smem_offset);
    line(E, "%s *partial = reinterpret_cast<%s *>(smem + %d);", T, T, op->smem_offset);
    if (R->ri)
        line(E, "int32_t *partial_i = reinterpret_cast<int32_t *>(smem + %d);", idx_off);
    write_partials(E, R, &rm, numel > 1 ? fmt(E, "%s * %d", paren(E, wa), numel) : wa);
    line(E, "__syncthreads();");
    combine_partials(E, R, &rm, numel, W);
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

void emit_reduce(Emitter *E, const Op *op)
{
    Reduce R = {.op = op, .x = op->args[0], .r = op->results[0], .ri = op->nres > 1 ? op->results[1] : NULL};
    R.k = (ReduceKind)op->iattr[0];
    R.axis = (int)op->iattr[1];
    R.mx = R.k == RED_ARGMAX;
    value_map(R.x, &R.xm);
    axis_bits(&R.xm, R.axis, &R.ab);
    R.NR = 1 << R.ab.nkept;
    R.K = 1 << R.ab.naxis_reg;
    R.d = R.r->type.dtype;
    R.T = dtype_ctype(R.d);
    R.scalar = R.r->type.rank == 0;
    R.acc = vname(E, R.r);
    R.acci = R.ri ? vname(E, R.ri) : NULL;
    if (R.scalar) {
        line(E, "%s %s;", R.T, R.acc);
        if (R.ri)
            line(E, "int32_t %s;", R.acci);
    } else {
        line(E, "%s;%s", decl(E, type_elem(R.r->type), R.acc, R.NR), shape_note(E, R.r));
        if (R.ri)
            line(E, "%s;", decl(E, type_elem(R.ri->type), R.acci, R.NR));
    }
    int nl = R.ab.nlane, nw = R.ab.nwarp;
    line(E, "// %s along dim %d: %d value%s in each thread%s%s", reduce_name(R.k), R.axis, R.K, R.K > 1 ? "s" : "",
         nl ? fmt(E, ", then across %d lanes", 1 << nl) : "", nw ? fmt(E, ", then across %d warps", 1 << nw) : "");
    reduce_in_thread(E, &R);
    reduce_lanes(E, &R);
    if (nw)
        reduce_warps(E, &R);
}

/* `s` with every "WW" replaced by `w`. */
static const char *strrep_ww(Emitter *E, const char *s, const char *w)
{
    StrBuf t = {0};
    for (const char *p = s; *p;) {
        if (p[0] == 'W' && p[1] == 'W') {
            sb_puts(&t, w);
            p += 2;
        } else {
            sb_putc(&t, *p++);
        }
    }
    const char *r = fmt(E, "%s", t.data);
    sb_free(&t);
    return r;
}

/* A scan along one axis: in-thread runs, a Hillis-Steele scan over the
 * lanes along the axis, warp totals through shared memory, and carries
 * between the CTA tile's repetitions (which hold later coordinates). */
void emit_scan(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int axis = (int)op->iattr[1];
    bool rev = op->iattr[2] != 0, prod = op->iattr[0] == SCAN_PROD;
    DType d = r->type.dtype;
    const char *T = dtype_ctype(d);
    const char *ident = prod ? (dtype_is_float(d) ? float_literal(E, 1.0, d) : int_literal(E, 1, d)) : zero_of(E, d);
#define COMBINE(a, b) (prod ? small_int_wrap(E, d, fmt(E, "%s * %s", paren(E, a), paren(E, b))) : combine_expr(E, RED_SUM, d, a, b))
    LayoutMap m;
    value_map(x, &m);
    AxisBits ab;
    axis_bits(&m, axis, &ab);
    int xm_nwarp = m.nwarp;
    const int *nano = ab.nano, *rep = ab.rep, *kept = ab.kept, *lanes = ab.lane, *warps = ab.warp;
    int nn = ab.nnano, nr = ab.nrep, nk = ab.nkept, nl = ab.nlane, nw = ab.nwarp;
    int NK = 1 << nk, NR = 1 << nr, NN = 1 << nn, NO = NK * NR;
    const char *y = vname(E, r);
    if (!info(E, r)->declared)
        line(E, "%s;%s", decl(E, type_elem(r->type), y, nregs(r)), shape_note(E, r));
    line(E, "// %s%s along dim %d: runs of %d in each thread%s%s%s", prod ? "cumprod" : "cumsum", rev ? " (reversed)" : "",
         axis, NN, nl ? fmt(E, ", across %d lanes", 1 << nl) : "", nw ? fmt(E, ", across %d warps", 1 << nw) : "",
         NR > 1 ? fmt(E, ", carried over %d repetitions", NR) : "");
    line(E, "{");
    E->indent++;
    /* register of (outer e = rep * NK + kept, inner kk) */
    int up[LMAP_MAX_REG_BITS];
    for (int i = 0; i < nr; i++)
        up[i] = nk + i;
    const char *ej = compress(E, identity_bits, nk, "e", nk + nr), *er = compress(E, up, nr, "e", nk + nr);
    const char *outer_bits = or_bits(E, deposit(E, kept, nk, ej), deposit(E, rep, nr, er));
#define REG(kkexpr) or_bits(E, outer_bits, deposit(E, nano, nn, kkexpr))
    const char *first = rev ? fmt(E, "%d", NN - 1) : "0";
    const char *last = rev ? "0" : fmt(E, "%d", NN - 1);
    /* 1. runs within the thread */
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", NO);
    E->indent++;
    line(E, "%s[%s] = %s;", y, REG(first), ex(E, x, NULL, REG(first)));
    if (NN > 1) {
        line(E, "#pragma unroll");
        if (rev)
            line(E, "for (int kk = %d; kk >= 0; --kk)", NN - 2);
        else
            line(E, "for (int kk = 1; kk < %d; ++kk)", NN);
        const char *prev = rev ? "kk + 1" : "kk - 1";
        line(E, "    %s[%s] = %s;", y, REG("kk"), COMBINE(fmt(E, "%s[%s]", y, REG(prev)), ex(E, x, NULL, REG("kk"))));
    }
    E->indent--;
    line(E, "}");
    /* 2. the thread's run totals, scanned over the lanes along the axis */
    line(E, "%s before[%d];  // everything ahead of this thread's run, within its repetition", T, NO);
    bool need_total = nw || NR > 1; /* else unused, and NVRTC warns */
    if (need_total)
        line(E, "%s total[%d];   // each repetition's total over the whole block", T, NO);
    unsigned lmask = 0;
    for (int i = 0; i < nl; i++)
        lmask |= 1u << lanes[i];
    const char *lane_a = nl ? compress(E, lanes, nl, "lane", 5) : "0";
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", NO);
    E->indent++;
    if (nl || need_total)
        line(E, "%s incl = %s[%s];", T, y, REG(last));
    if (nl) {
        line(E, "#pragma unroll");
        line(E, "for (int s = 1; s < %d; s <<= 1) {", 1 << nl);
        line(E, "    const %s other = tilec::%s(incl, %s);", T, rev ? "shfl_down" : "shfl_up",
             lanes[0] ? fmt(E, "s << %d", lanes[0]) : "s");
        line(E, rev ? "    if (%s + s < %d)" : "    if (%s >= s)", lane_a, 1 << nl);
        line(E, "        incl = %s;", COMBINE("other", "incl"));
        line(E, "}");
        line(E, "const %s prev = tilec::%s(incl, %d);", T, rev ? "shfl_down" : "shfl_up", 1 << lanes[0]);
        line(E, "before[e] = %s == %d ? %s : prev;", lane_a, rev ? (1 << nl) - 1 : 0, ident);
        if (need_total)
            line(E, "total[e] = tilec::shfl_idx(incl, %s);", rev ? fmt(E, "lane & %u", ~lmask & 31u) : fmt(E, "lane | %u", lmask));
    } else {
        line(E, "before[e] = %s;", ident);
        if (need_total)
            line(E, "total[e] = incl;");
    }
    E->indent--;
    line(E, "}");
    /* 3. warp totals through shared memory */
    if (nw) {
        int W = 1 << nw;
        int other = type_numel(x->type) / x->type.shape[axis];
        const char *wa = compress(E, warps, nw, "warp", xm_nwarp);
        line(E, "%s *partial = reinterpret_cast<%s *>(smem + %d);  // [%d warps][%d repetitions][%d]", T, T,
             op->smem_offset, W, NR, other);
        StrBuf olin = {0};
        const char *reg0 = REG("0");
        bool any = false;
        for (int dd = 0; dd < x->type.rank; dd++) {
            if (dd == axis)
                continue;
            const char *c = elem_coord(E, x, &m, dd, reg0);
            if (any)
                sb_printf(&olin, " * %d + %s", x->type.shape[dd], paren(E, c));
            else
                sb_puts(&olin, paren(E, c));
            any = true;
        }
        const char *olin_s = any ? fmt(E, "%s", olin.data) : "0";
        sb_free(&olin);
        /* [warp][repetition][other coordinates] */
        const char *wr = NR > 1 ? fmt(E, "WW * %d + %s", NR, er) : "WW";
        const char *slot = other > 1 ? fmt(E, "%s * %d + %s", paren(E, wr), other, olin_s) : wr;
        if (nl)
            line(E, rev ? "if (%s == 0) {" : "if (%s == %d) {", lane_a, (1 << nl) - 1);
        else
            line(E, "{");
        line(E, "    #pragma unroll");
        line(E, "    for (int e = 0; e < %d; ++e)", NO);
        line(E, "        partial[%s] = total[e];", strrep_ww(E, slot, paren(E, wa)));
        line(E, "}");
        line(E, "__syncthreads();");
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e) {", NO);
        E->indent++;
        line(E, "%s sum = %s;", T, ident);
        line(E, "#pragma unroll");
        line(E, "for (int ww = 0; ww < %d; ++ww) {", W);
        line(E, "    const %s v = partial[%s];", T, strrep_ww(E, slot, "ww"));
        line(E, rev ? "    if (ww > %s)" : "    if (ww < %s)", wa);
        line(E, "        before[e] = %s;", COMBINE("before[e]", "v"));
        line(E, "    sum = %s;", COMBINE("sum", "v"));
        line(E, "}");
        line(E, "total[e] = sum;");
        E->indent--;
        line(E, "}");
        trailing_sync(E, op);
    }
    /* 4. carries between repetitions, then everything ahead added to the runs */
    if (NR > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e) {", NO);
        line(E, "    #pragma unroll");
        line(E, "    for (int rr = 0; rr < %d; ++rr)", NR);
        line(E, rev ? "        if (rr > %s)" : "        if (rr < %s)", er);
        line(E, "            before[e] = %s;", COMBINE("before[e]", nk ? fmt(E, "total[rr * %d + %s]", NK, ej) : "total[rr]"));
        line(E, "}");
    }
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", NO);
    if (NN > 1) {
        line(E, "    #pragma unroll");
        line(E, "    for (int kk = 0; kk < %d; ++kk)", NN);
        line(E, "        %s[%s] = %s;", y, REG("kk"), COMBINE("before[e]", fmt(E, "%s[%s]", y, REG("kk"))));
    } else {
        line(E, "    %s[%s] = %s;", y, REG("0"), COMBINE("before[e]", fmt(E, "%s[%s]", y, REG("0"))));
    }
    E->indent--;
    line(E, "}");
#undef REG
#undef COMBINE
}

/*
 * reduce.c — reductions (tl.sum, tl.max, tl.argmax ...) and scans (tl.cumsum,
 * tl.cumprod) along one axis: within the thread, across the lanes of a warp
 * with shuffles, and across warps through shared memory.
 */
#include "emit_internal.h"

#include <string.h>

const char *combine_expr(Emitter *E, ReduceKind k, DType d, const char *a, const char *b)
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
const char *linear_index(Emitter *E, const Value *v, const LayoutMap *m, const char *idx)
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

/* dst = better of (dst, v) for the index reductions; ties take the lower
 * index.  As selects, not a branch: nvcc kept the branch, two per combine
 * (98 in argmax_rows' loop, 1028 instructions against Triton's 765). */
static void arg_combine(Emitter *E, bool mx, const char *dv, const char *di, const char *v, const char *i)
{
    line(E, "const bool take = %s %s %s || (%s == %s && %s < %s);", v, mx ? ">" : "<", dv, v, dv, i, di);
    line(E, "%s = take ? %s : %s;", dv, v, dv);
    line(E, "%s = take ? %s : %s;", di, i, di);
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
    line(E, "    part[kk] = %s;", value_at(E, R->x, NULL, xr));
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
    line(E, "%s = %s;", dv, value_at(E, x, NULL, xk));
    if (R->ri)
        line(E, "%s = %s;", di, elem_coord(E, x, &R->xm, R->axis, xk));
    if (R->K == 1)
        return;
    line(E, "#pragma unroll");
    line(E, "for (int kk = 1; kk < %d; ++kk)%s", R->K, R->ri ? " {" : "");
    E->indent++;
    if (R->ri) {
        line(E, "const %s other = %s;", R->T, value_at(E, x, NULL, xr));
        line(E, "const int32_t other_i = %s;", elem_coord(E, x, &R->xm, R->axis, xr));
        arg_combine(E, R->mx, dv, di, "other", "other_i");
    } else {
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, value_at(E, x, NULL, xr)));
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
    bool twice = combine_reads_twice(R->k, R->d), block = (R->ri || twice) && R->NR > 1;
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

/* The butterfly's steps over the run of consecutive lane bits that ends at
 * lanes[*i], counting down: a loop over lane_bit, or a block for one bit.
 * Returns the partner's distance ("lane_bit" or the constant) and moves *i
 * past the run; the caller prints the step and closes the block. */
const char *lane_run_open(Emitter *E, const int *lanes, int *i)
{
    int hi = lanes[*i], len = 1;
    while (*i - len >= 0 && lanes[*i - len] == hi - len)
        len++;
    int lo = hi - len + 1;
    if (len > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int lane_bit = %d; lane_bit >= %d; lane_bit >>= 1) {", 1 << hi, 1 << lo);
    } else {
        line(E, "{");
    }
    E->indent++;
    *i -= len;
    return len > 1 ? "lane_bit" : fmt(E, "%d", 1 << hi);
}

/* A butterfly over the n lane bits lanes[] (ascending), highest first, so that
 * every lane ends with the result; a run of consecutive bits is one loop. */
static void butterfly(Emitter *E, const Reduce *R, const int *lanes, int n)
{
    for (int i = n - 1; i >= 0;) {
        reduce_shuffle(E, R, lane_run_open(E, lanes, &i));
        E->indent--;
        line(E, "}");
    }
}

/* 2. across lanes */
static void reduce_lanes(Emitter *E, const Reduce *R) { butterfly(E, R, R->ab.lane, R->ab.nlane); }

/* Opens the block in which one lane of each warp per result (lane bits
 * along the axis all 0) writes the warp's partial; the caller closes it. */
void partial_writers_open(Emitter *E, const AxisBits *ab)
{
    unsigned lane_axis = 0;
    for (int i = 0; i < ab->nlane; i++)
        lane_axis |= 1u << ab->lane[i];
    if (lane_axis)
        line(E, lane_axis == 31 ? "if (lane == 0) {  // one lane per result writes its warp's partial"
                                : "if ((lane & %u) == 0) {  // one lane per result writes its warp's partial", lane_axis);
    else
        line(E, "{");
    E->indent++;
}

/* One lane of each warp per result writes the warp's partial to slot
 * slot_base + the result's index. */
static void write_partials(Emitter *E, const Reduce *R, const LayoutMap *rm, const char *slot_base)
{
    partial_writers_open(E, &R->ab);
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
    if (R->ri) {
        line(E, "const %s other = partial[%s];", R->T, wslot);
        line(E, "const int32_t other_i = partial_i[%s];", wslot);
        arg_combine(E, R->mx, dv, di, "other", "other_i");
    } else
        line(E, "%s = %s;", dv, combine_expr(E, R->k, R->d, dv, fmt(E, "partial[%s]", wslot)));
    E->indent--;
    if (R->ri)
        line(E, "}");
    elem_close(E, R->NR, true);
}

/* From this many warps' partials of a one-element result on, each lane takes
 * one warp's partial and a butterfly combines them: 32 partials cost every warp
 * 1 load and 5 shuffles instead of 8 loads and 31 combines, and with all warps
 * doing it at once after the barrier the issue slots are what decides.
 * Unsloth's 32-warp cross entropy went from 0.87x to 0.97x Triton's speed with
 * it (H200), and a 16-warp softmax was the same either way; fewer warps keep
 * the loop (at most 4 loads and 7 combines), not measured against it. */
enum { SHUFFLE_COMBINE_MIN_WARPS = 16 };

/* Each lane takes warp (lane mod W)'s partial, then the lanes combine them. */
static void shuffle_partials(Emitter *E, const Reduce *R, int W)
{
    const char *slot = W == 32 ? "lane" : fmt(E, "lane & %d", W - 1);
    line(E, "%s = partial[%s];  // lane l takes warp %s's partial", acc_elem(E, R, R->acc, "0"), slot,
         W == 32 ? "l" : fmt(E, "(l mod %d)", W));
    if (R->ri)
        line(E, "%s = partial_i[%s];", acc_elem(E, R, R->acci, "0"), slot);
    static const int low_bits[] = {0, 1, 2, 3, 4};
    int n = 0;
    while ((1 << n) < W)
        n++;
    butterfly(E, R, low_bits, n);
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
    line(E, "%s;", block_sync(E));
    if (numel == 1 && W >= SHUFFLE_COMBINE_MIN_WARPS)
        shuffle_partials(E, R, W);
    else
        combine_partials(E, R, &rm, numel, W);
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

void emit_reduce(Emitter *E, const Op *op)
{
    Reduce R = {.op = op, .x = op->args[0], .r = op->results[0], .ri = op->nres > 1 ? op->results[1] : NULL};
    R.k = op->reduce.kind;
    R.axis = op->reduce.axis;
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

/* One scan being printed.  The thread's registers are walked as (outer e, inner kk):
 * e = repetition * NK + kept bits, kk the run along the axis. */
typedef struct Scan {
    const Op *op;
    const Value *x, *r;
    int axis;
    bool rev, prod;          /* reversed; cumprod, else cumsum */
    DType d;
    const char *T, *ident;   /* the C type; the identity of the combine */
    LayoutMap m;             /* the result's layout, the one walked (the operand is read in it) */
    AxisBits ab;
    int NK, NR, NN, NO;      /* kept registers, repetitions, run length, NK * NR */
    const char *y;           /* the result's name */
    const char *ej, *er;     /* e's kept part and repetition */
    const char *outer_bits;  /* e's bits in place in a register index */
    const char *lane_a;      /* the lane's position along the axis */
    bool need_total;         /* the block's total is needed: warps or repetitions */
} Scan;

static const char *scan_combine(Emitter *E, const Scan *S, const char *a, const char *b)
{
    if (S->prod)
        return small_int_wrap(E, S->d, fmt(E, "%s * %s", paren(E, a), paren(E, b)));
    return combine_expr(E, RED_SUM, S->d, a, b);
}

/* register of (outer e, inner kk) */
static const char *scan_reg(Emitter *E, const Scan *S, const char *kk)
{
    return or_bits(E, S->outer_bits, deposit(E, S->ab.nano, S->ab.nnano, kk));
}

/* 1. runs within the thread */
static void scan_runs(Emitter *E, const Scan *S)
{
    const char *y = S->y, *first = S->rev ? fmt(E, "%d", S->NN - 1) : "0";
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
    E->indent++;
    line(E, "%s[%s] = %s;", y, scan_reg(E, S, first), value_at(E, S->x, S->r, scan_reg(E, S, first)));
    if (S->NN > 1) {
        line(E, "#pragma unroll");
        if (S->rev)
            line(E, "for (int kk = %d; kk >= 0; --kk)", S->NN - 2);
        else
            line(E, "for (int kk = 1; kk < %d; ++kk)", S->NN);
        const char *prev = S->rev ? "kk + 1" : "kk - 1";
        line(E, "    %s[%s] = %s;", y, scan_reg(E, S, "kk"),
             scan_combine(E, S, fmt(E, "%s[%s]", y, scan_reg(E, S, prev)), value_at(E, S->x, S->r, scan_reg(E, S, "kk"))));
    }
    E->indent--;
    line(E, "}");
}

/* 2. the thread's run totals, scanned over the lanes along the axis (Hillis-Steele) */
static void scan_lanes(Emitter *E, Scan *S)
{
    const char *T = S->T;
    bool rev = S->rev;
    const int *lanes = S->ab.lane;
    int nl = S->ab.nlane;
    line(E, "%s before[%d];  // everything ahead of this thread's run, within its repetition", T, S->NO);
    if (S->need_total)
        line(E, "%s rep_total[%d];  // each repetition's total over the whole block", T, S->NO);
    unsigned lmask = 0;
    for (int i = 0; i < nl; i++)
        lmask |= 1u << lanes[i];
    S->lane_a = nl ? compress(E, lanes, nl, "lane", 5) : "0";
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
    E->indent++;
    if (nl || S->need_total)
        line(E, "%s incl = %s[%s];", T, S->y, scan_reg(E, S, rev ? "0" : fmt(E, "%d", S->NN - 1)));
    if (nl) {
        line(E, "#pragma unroll");
        line(E, "for (int s = 1; s < %d; s <<= 1) {", 1 << nl);
        line(E, "    const %s other = tilec::%s(incl, %s);", T, rev ? "shfl_down" : "shfl_up",
             lanes[0] ? fmt(E, "s << %d", lanes[0]) : "s");
        line(E, rev ? "    if (%s + s < %d)" : "    if (%s >= s)", S->lane_a, 1 << nl);
        line(E, "        incl = %s;", scan_combine(E, S, "other", "incl"));
        line(E, "}");
        line(E, "const %s prev = tilec::%s(incl, %d);", T, rev ? "shfl_down" : "shfl_up", 1 << lanes[0]);
        line(E, "before[e] = %s == %d ? %s : prev;", S->lane_a, rev ? (1 << nl) - 1 : 0, S->ident);
        if (S->need_total)
            line(E, "rep_total[e] = tilec::shfl_idx(incl, %s);", rev ? fmt(E, "lane & %u", ~lmask & 31u) : fmt(E, "lane | %u", lmask));
    } else {
        line(E, "before[e] = %s;", S->ident);
        if (S->need_total)
            line(E, "rep_total[e] = incl;");
    }
    E->indent--;
    line(E, "}");
}

/* Row-major index of the coordinates other than the axis of register 0 of e, as C. */
static const char *scan_other_index(Emitter *E, const Scan *S)
{
    const Value *x = S->r;
    StrBuf olin = {0};
    const char *reg0 = scan_reg(E, S, "0");
    bool any = false;
    for (int dd = 0; dd < x->type.rank; dd++) {
        if (dd == S->axis)
            continue;
        const char *c = elem_coord(E, x, &S->m, dd, reg0);
        if (any)
            sb_printf(&olin, " * %d + %s", x->type.shape[dd], paren(E, c));
        else
            sb_puts(&olin, paren(E, c));
        any = true;
    }
    const char *olin_s = any ? fmt(E, "%s", olin.data) : "0";
    sb_free(&olin);
    return olin_s;
}

/* 3. warp totals through shared memory: each warp's last lane writes its totals, then
 * every thread adds those of the warps ahead of its own */
static void scan_warps(Emitter *E, const Scan *S)
{
    const Value *x = S->x;
    const char *T = S->T;
    bool rev = S->rev;
    int nl = S->ab.nlane, NR = S->NR, NO = S->NO;
    int W = 1 << S->ab.nwarp;
    int other = type_numel(x->type) / x->type.shape[S->axis];
    const char *wa = compress(E, S->ab.warp, S->ab.nwarp, "warp", S->m.nwarp);
    line(E, "%s *partial = reinterpret_cast<%s *>(smem + %d);  // [%d warps][%d repetitions][%d]", T, T,
         S->op->smem_offset, W, NR, other);
    const char *olin_s = scan_other_index(E, S);
    /* [warp][repetition][other coordinates] */
    const char *wr = NR > 1 ? fmt(E, "WW * %d + %s", NR, S->er) : "WW";
    const char *slot = other > 1 ? fmt(E, "%s * %d + %s", paren(E, wr), other, olin_s) : wr;
    if (nl)
        line(E, rev ? "if (%s == 0) {" : "if (%s == %d) {", S->lane_a, (1 << nl) - 1);
    else
        line(E, "{");
    line(E, "    #pragma unroll");
    line(E, "    for (int e = 0; e < %d; ++e)", NO);
    line(E, "        partial[%s] = rep_total[e];", strrep_ww(E, slot, paren(E, wa)));
    line(E, "}");
    line(E, "%s;", block_sync(E));
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", NO);
    E->indent++;
    line(E, "%s running = %s;", T, S->ident);
    line(E, "#pragma unroll");
    line(E, "for (int ww = 0; ww < %d; ++ww) {", W);
    line(E, "    const %s v = partial[%s];", T, strrep_ww(E, slot, "ww"));
    line(E, rev ? "    if (ww > %s)" : "    if (ww < %s)", wa);
    line(E, "        before[e] = %s;", scan_combine(E, S, "before[e]", "v"));
    line(E, "    running = %s;", scan_combine(E, S, "running", "v"));
    line(E, "}");
    line(E, "rep_total[e] = running;");
    E->indent--;
    line(E, "}");
    trailing_sync(E, S->op);
}

/* 4. carries between repetitions, then everything ahead added to the runs */
static void scan_carry(Emitter *E, const Scan *S)
{
    const char *y = S->y;
    if (S->NR > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
        line(E, "    #pragma unroll");
        line(E, "    for (int rr = 0; rr < %d; ++rr)", S->NR);
        line(E, S->rev ? "        if (rr > %s)" : "        if (rr < %s)", S->er);
        line(E, "            before[e] = %s;",
             scan_combine(E, S, "before[e]", S->ab.nkept ? fmt(E, "rep_total[rr * %d + %s]", S->NK, S->ej) : "rep_total[rr]"));
        line(E, "}");
    }
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", S->NO);
    if (S->NN > 1) {
        line(E, "    #pragma unroll");
        line(E, "    for (int kk = 0; kk < %d; ++kk)", S->NN);
        line(E, "        %s[%s] = %s;", y, scan_reg(E, S, "kk"),
             scan_combine(E, S, "before[e]", fmt(E, "%s[%s]", y, scan_reg(E, S, "kk"))));
    } else {
        line(E, "    %s[%s] = %s;", y, scan_reg(E, S, "0"),
             scan_combine(E, S, "before[e]", fmt(E, "%s[%s]", y, scan_reg(E, S, "0"))));
    }
}

/* A scan along one axis: in-thread runs, a Hillis-Steele scan over the
 * lanes along the axis, warp totals through shared memory, and carries
 * between the CTA tile's repetitions (which hold later coordinates). */
void emit_scan(Emitter *E, const Op *op)
{
    Scan S = {.op = op, .x = op->args[0], .r = op->results[0]};
    S.axis = op->scan.axis;
    S.rev = op->scan.reverse;
    S.prod = op->scan.kind == SCAN_PROD;
    DType d = S.d = S.r->type.dtype;
    S.T = dtype_ctype(d);
    S.ident = S.prod ? (dtype_is_float(d) ? float_literal(E, 1.0, d) : int_literal(E, 1, d)) : zero_of(E, d);
    value_map(S.r, &S.m); /* ordered along the axis (layout.c); the operand may hold its registers in another order */
    axis_bits(&S.m, S.axis, &S.ab);
    int nk = S.ab.nkept, nr = S.ab.nrep, nl = S.ab.nlane, nw = S.ab.nwarp;
    S.NK = 1 << nk, S.NR = 1 << nr, S.NN = 1 << S.ab.nnano, S.NO = S.NK * S.NR;
    S.y = vname(E, S.r);
    if (!info(E, S.r)->declared)
        line(E, "%s;%s", decl(E, type_elem(S.r->type), S.y, nregs(S.r)), shape_note(E, S.r));
    line(E, "// %s%s along dim %d: runs of %d in each thread%s%s%s", S.prod ? "cumprod" : "cumsum", S.rev ? " (reversed)" : "",
         S.axis, S.NN, nl ? fmt(E, ", across %d lanes", 1 << nl) : "", nw ? fmt(E, ", across %d warps", 1 << nw) : "",
         S.NR > 1 ? fmt(E, ", carried over %d repetitions", S.NR) : "");
    line(E, "{");
    E->indent++;
    int up[LMAP_MAX_REG_BITS];
    for (int i = 0; i < nr; i++)
        up[i] = nk + i;
    S.ej = compress(E, identity_bits, nk, "e", nk + nr);
    S.er = compress(E, up, nr, "e", nk + nr);
    S.outer_bits = or_bits(E, deposit(E, S.ab.kept, nk, S.ej), deposit(E, S.ab.rep, nr, S.er));
    S.need_total = nw || S.NR > 1; /* else unused, and NVRTC warns */
    scan_runs(E, &S);
    scan_lanes(E, &S);
    if (nw)
        scan_warps(E, &S);
    scan_carry(E, &S);
    E->indent--;
    line(E, "}");
}

/*
 * combine.c — tl.reduce and tl.associative_scan with a jit combine function: the
 * function printed once as a __device__ helper, and the reduction and scan phases of
 * reduce.c (in the thread, across lanes with shuffles, across warps through shared
 * memory, across repetitions) calling it on tuples of elements.
 *
 * Each element of a tuple is its own register array (the op's results), shuffled and
 * staged on its own; the helper takes the left group, the right group and references to
 * the combined group.  A combine has no identity, so a scan keeps, per register group,
 * whether anything comes before it (has_before) instead of starting from zero; and the
 * order is kept: combine(everything before, what follows), as Triton's scan does.
 */
#include "emit_internal.h"

#include <string.h>

/* ---- the helper ------------------------------------------------------------------ */

/* name(a..., b..., out...) as one statement. */
static void call_combine(Emitter *E, const char *fn, int n, const char *const *a, const char *const *b,
                         const char *const *out)
{
    StrBuf s = {0};
    const char *const *groups[3] = {a, b, out};
    for (int g = 0; g < 3; g++)
        for (int k = 0; k < n; k++)
            sb_printf(&s, "%s%s", g || k ? ", " : "", groups[g][k]);
    line(E, "%s(%s);", fn, s.data);
    sb_free(&s);
}

/* The helper's parameters, left group, right group, combined group; its names are its
 * own (the source's parameter names, whatever the kernel uses), so E->names is swapped
 * for an empty table while they and the body are named. */
static const char **helper_params(Emitter *E, const Block *b, int n, const char **out)
{
    const char **decls = NEW_ARRAY(E->a, const char *, 3 * n);
    for (int i = 0; i < 2 * n; i++)
        decls[i] = const_decl(E, b->args.data[i]->type, vname(E, b->args.data[i]));
    for (int k = 0; k < n; k++) {
        const Value *v = b->args.data[k];
        out[k] = unique_name(E, fmt(E, "out_%s", vname(E, v)));
        decls[2 * n + k] = fmt(E, "%s &%s", dtype_ctype(v->type.dtype), out[k]);
    }
    return decls;
}

/* Marks the names the plan gave values of b (loop variables) as taken. */
static void reserve_planned_names(Emitter *E, const Block *b)
{
    for (int i = 0; i < b->args.len; i++)
        if (info(E, b->args.data[i])->name)
            strmap_put(E->a, &E->names, info(E, b->args.data[i])->name, 0);
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int k = 0; k < op->nres; k++)
            if (info(E, op->results[k])->name)
                strmap_put(E->a, &E->names, info(E, op->results[k])->name, 0);
        for (int r = 0; r < op->nregions; r++)
            reserve_planned_names(E, op->regions[r]);
    }
}

/* A jit function printed as a __device__ helper of scalars: its parameters, in groups
 * (the left and right groups of a combine and the combined one; a map's operands and its
 * results), and its body.  Its names come from a table of its own (the source's parameter
 * names, whatever the kernel uses): helper_begin swaps E->names for an empty one, and
 * helper_body, having printed the body, swaps it back. */
typedef struct Helper {
    NameScope kernel_names;
    StrBuf body;
} Helper;

static void helper_begin(Emitter *E, const Block *b, Helper *h)
{
    *h = (Helper){0};
    names_enter(E, &h->kernel_names);
    reserve_planned_names(E, b);
}

/* b printed into h->body as a kernel's statements are (src: the jit function, for the
 * source comments), then, under `note`, each of the m results assigned to out[k]. */
static void helper_body(Emitter *E, const Block *b, const char *src, const char *note, const char *const *out,
                        int m, Helper *h)
{
    StrBuf *saved_out = E->out;
    int saved_indent = E->indent;
    const SrcStmt *saved_stmt = E->last_stmt;
    E->out = &h->body;
    E->indent = 1;
    E->last_stmt = NULL;
    E->combine_src = src;
    emit_block(E, b);
    E->combine_src = NULL;
    const Op *y = tir_block_last(b);
    line(E, "// %s", note);
    for (int k = 0; k < m; k++)
        line(E, "%s = %s;", out[k], value_at(E, y->args[k], NULL, "0"));
    E->out = saved_out;
    E->indent = saved_indent;
    E->last_stmt = saved_stmt;
    names_leave(E, &h->kernel_names);
}

/* The helper's C name: that of an identical one printed before (the same function, types
 * and body, as tl.reduce over every axis makes), or a new one, printed into the helpers
 * under `comment` with its parameters in `ngroups` groups of group_len[g] (decls, one after
 * another), each on a line of its own that group_end[g] ends (",  // the left group"). */
static const char *helper_intern(Emitter *E, const char *base, Helper *h, const char *comment, const char *const *decls,
                                 int ngroups, const int *group_len, const char *const *group_end)
{
    int nd = 0;
    for (int g = 0; g < ngroups; g++)
        nd += group_len[g];
    StrBuf key = {0};
    sb_printf(&key, "%s(", base);
    for (int i = 0; i < nd; i++)
        sb_printf(&key, "%s;", decls[i]);
    sb_printf(&key, "){%s}", h->body.data ? h->body.data : "");
    const char *fn = NULL;
    for (int i = 0; i < E->combine_keys.len && !fn; i++)
        if (!strcmp(E->combine_keys.data[i], key.data))
            fn = E->combine_fns.data[i];
    if (!fn) {
        fn = unique_name(E, base);
        vec_push(E->a, &E->combine_keys, fmt(E, "%s", key.data));
        vec_push(E->a, &E->combine_fns, fn);
        const char *head = fmt(E, "__device__ __forceinline__ void %s(", fn);
        StrBuf *out = &E->helpers;
        if (out->len)
            sb_putc(out, '\n');
        sb_printf(out, "%s\n%s", comment, head);
        for (int g = 0, i = 0; g < ngroups; g++) {
            sb_printf(out, "%*s", g ? (int)strlen(head) : 0, "");
            for (int k = 0; k < group_len[g]; k++, i++)
                sb_printf(out, "%s%s", k ? ", " : "", decls[i]);
            sb_printf(out, "%s\n", group_end[g]);
        }
        sb_printf(out, "{\n%s}\n", h->body.data ? h->body.data : "");
    }
    sb_free(&key);
    sb_free(&h->body);
    return fn;
}

/* Prints op's combine function into the helpers, unless an identical one is there; returns
 * its C name. */
static const char *combine_helper(Emitter *E, const Op *op)
{
    const Block *b = op->regions[0];
    int n = op->nargs;
    Helper h;
    helper_begin(E, b, &h);
    const char **out = NEW_ARRAY(E->a, const char *, n);
    const char **decls = helper_params(E, b, n, out);
    const char *base = op->kind == OP_REDUCE ? op->reduce.combine : op->scan.combine;
    helper_body(E, b, base, "the combined group", out, n, &h);
    const char *comment = fmt(E, "// The combine function %s() on groups of %d element%s, the left group first along "
                                 "the axis\n// (first used by the %s at %s:%d).",
                              base, n, n == 1 ? "" : "s", op->kind == OP_REDUCE ? "reduction" : "scan",
                              source_file_name(E, op->loc), op->loc.line);
    static const char *const end[3] = {",  // the left group", ",  // the right group", ")  // the combined group"};
    return helper_intern(E, base, &h, comment, decls, 3, (int[]){n, n, n}, end);
}

/* ---- tl.map_elementwise ----------------------------------------------------------- */

/* Prints op's function (an OP_MAP's region) into the helpers as a __device__ function of
 * one element of each operand, its results through references, unless an identical one
 * is there; returns its C name. */
static const char *map_helper(Emitter *E, const Op *op)
{
    const Block *b = op->regions[0];
    int n = op->nargs, m = op->nres;
    Helper h;
    helper_begin(E, b, &h);
    const char **decls = NEW_ARRAY(E->a, const char *, n + m);
    const char **out = NEW_ARRAY(E->a, const char *, m);
    for (int i = 0; i < n; i++)
        decls[i] = const_decl(E, b->args.data[i]->type, vname(E, b->args.data[i]));
    const Op *y = tir_block_last(b);
    for (int k = 0; k < m; k++) {
        out[k] = unique_name(E, m == 1 ? "result" : fmt(E, "result%d", k));
        decls[n + k] = fmt(E, "%s &%s", dtype_ctype(y->args[k]->type.dtype), out[k]);
    }
    helper_body(E, b, op->map.fn, "what it returns", out, m, &h);
    const char *comment = fmt(E, "// %s() on one element of each operand, as tl.map_elementwise runs it: its ifs and "
                                 "loops\n// branch per element (first used at %s:%d).",
                              op->map.fn, source_file_name(E, op->loc), op->loc.line);
    static const char *const end[2] = {",  // one element of each operand", ")  // what it returns"};
    return helper_intern(E, op->map.fn, &h, comment, decls, 2, (int[]){n, m}, end);
}

void emit_map(Emitter *E, const Op *op)
{
    const char *fn = map_helper(E, op);
    const Value *r0 = op->results[0];
    int N = nregs(r0);
    const char **rname = NEW_ARRAY(E->a, const char *, (size_t)op->nres);
    for (int k = 0; k < op->nres; k++) {
        const Value *r = op->results[k];
        rname[k] = vname(E, r);
        if (!info(E, r)->declared)
            line(E, "%s;%s", decl(E, type_elem(r->type), rname[k], nregs(r)), shape_note(E, r));
    }
    line(E, "// %s() on each element this thread holds (tl.map_elementwise)", op->map.fn);
    const char *e = N > 1 ? "e" : "0";
    if (N > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e)", N);
        E->indent++;
    }
    StrBuf call = {0};
    for (int i = 0; i < op->nargs; i++)
        sb_printf(&call, "%s%s", i ? ", " : "", value_at(E, op->args[i], r0, e));
    for (int k = 0; k < op->nres; k++)
        sb_printf(&call, ", %s[%s]", rname[k], e);
    line(E, "%s(%s);", fn, call.data);
    sb_free(&call);
    if (N > 1)
        E->indent--;
}

/* names[k] with `suffix` after each ("acc[e]"), or the names themselves */
static const char **indexed(Emitter *E, int n, const char *const *names, const char *idx)
{
    const char **r = NEW_ARRAY(E->a, const char *, n);
    for (int k = 0; k < n; k++)
        r[k] = idx ? fmt(E, "%s[%s]", names[k], idx) : names[k];
    return r;
}

/* one local per element of the tuple: `base`, or base0, base1 ... */
static const char **locals(Emitter *E, int n, const char *base)
{
    const char **r = NEW_ARRAY(E->a, const char *, n);
    for (int k = 0; k < n; k++)
        r[k] = n == 1 ? base : fmt(E, "%s%d", base, k);
    return r;
}

/* ---- reductions ---------------------------------------------------------------- */

typedef struct CReduce {
    const Op *op;
    int n;                   /* elements of the tuple: operands and results */
    const char *fn;          /* the helper */
    const char **T;          /* C type of each element */
    const char **acc;        /* the results' names */
    int axis;
    LayoutMap xm;            /* the operands' layout */
    AxisBits ab;
    int NR, K;               /* results per thread; operand values per result in one thread */
    bool scalar;             /* a scalar result: no register arrays */
    bool *dropped;           /* per result: not declared, not written (nothing reads it; only
                                where each result is a copy of its operand); NULL: none */
} CReduce;

static const char **acc_at(Emitter *E, const CReduce *R, const char *j)
{
    return indexed(E, R->n, R->acc, R->scalar ? NULL : j);
}

static const char **operands_at(Emitter *E, const CReduce *R, const char *reg)
{
    const char **r = NEW_ARRAY(E->a, const char *, R->n);
    for (int k = 0; k < R->n; k++)
        r[k] = value_at(E, R->op->args[k], NULL, reg);
    return r;
}

/* 1. within the thread: a chain over the K values along the axis, in their order */
static void creduce_in_thread(Emitter *E, const CReduce *R)
{
    const AxisBits *ab = &R->ab;
    const char *j = elem_open(E, R->NR, true);
    const char **acc = acc_at(E, R, j);
    const char *xk = deposit(E, ab->kept, ab->nkept, j);
    const char *xr = or_bits(E, xk, deposit(E, ab->axis_reg, ab->naxis_reg, "kk"));
    const char **first = operands_at(E, R, xk);
    for (int k = 0; k < R->n; k++)
        if (!R->dropped || !R->dropped[k])
            line(E, "%s = %s;", acc[k], first[k]);
    if (R->K > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int kk = 1; kk < %d; ++kk)", R->K);
        E->indent++;
        call_combine(E, R->fn, R->n, acc, operands_at(E, R, xr), acc);
        E->indent--;
    }
    elem_close(E, R->NR, true);
}

/* 2. across lanes: butterfly, every element shuffled, then combined (partner second) */
static void creduce_lanes(Emitter *E, const CReduce *R)
{
    const char **other = locals(E, R->n, "other");
    for (int i = R->ab.nlane - 1; i >= 0;) {
        const char *m = lane_run_open(E, R->ab.lane, &i);
        const char *j = elem_open(E, R->NR, true);
        const char **acc = acc_at(E, R, j);
        for (int k = 0; k < R->n; k++)
            line(E, "const %s %s = tilec::shfl_xor(%s, %s);", R->T[k], other[k], acc[k], m);
        call_combine(E, R->fn, R->n, acc, other, acc);
        elem_close(E, R->NR, true);
        E->indent--;
        line(E, "}");
    }
}

/* 3. across warps: one lane per result writes its warp's partial group, then every thread
 * combines the W partials in warp order */
static void creduce_warps(Emitter *E, const CReduce *R)
{
    const Op *op = R->op;
    const Value *r0 = op->results[0];
    LayoutMap rm;
    if (!R->scalar)
        value_map(r0, &rm);
    int numel = type_numel(r0->type), W = 1 << R->ab.nwarp;
    const char *wa = compress(E, R->ab.warp, R->ab.nwarp, "warp", R->xm.nwarp);
    const char **partial = locals(E, R->n, "partial");
    line(E, "{");
    E->indent++;
    line(E, "// %d partial groups per result, %d bytes at smem + %d", W, op->smem_bytes, op->smem_offset);
    int off = op->smem_offset;
    for (int k = 0; k < R->n; k++) {
        line(E, "%s *%s = reinterpret_cast<%s *>(smem + %d);", R->T[k], partial[k], R->T[k], off);
        off += (numel * W * smem_elem_bytes(op->results[k]->type) + 7) & ~7;
    }
    partial_writers_open(E, &R->ab);
    const char *j = elem_open(E, R->NR, true);
    const char *lin = R->scalar ? "0" : linear_index(E, r0, &rm, j);
    const char *base = numel > 1 ? fmt(E, "%s * %d", paren(E, wa), numel) : wa;
    const char *slot = strcmp(lin, "0") ? fmt(E, "%s + %s", base, lin) : base;
    const char **acc = acc_at(E, R, j);
    for (int k = 0; k < R->n; k++)
        line(E, "%s[%s] = %s;", partial[k], slot, acc[k]);
    elem_close(E, R->NR, true);
    E->indent--;
    line(E, "}");
    line(E, "%s;", block_sync(E));
    j = elem_open(E, R->NR, true);
    lin = R->scalar ? "0" : linear_index(E, r0, &rm, j);
    acc = acc_at(E, R, j);
    for (int k = 0; k < R->n; k++)
        line(E, "%s = %s[%s];", acc[k], partial[k], lin);
    const char *wslot = numel == 1 ? "ww" : fmt(E, "ww * %d", numel);
    if (strcmp(lin, "0"))
        wslot = fmt(E, "%s + %s", wslot, lin);
    line(E, "#pragma unroll");
    line(E, "for (int ww = 1; ww < %d; ++ww)", W);
    E->indent++;
    call_combine(E, R->fn, R->n, acc, indexed(E, R->n, partial, wslot), acc);
    E->indent--;
    elem_close(E, R->NR, true);
    trailing_sync(E, op);
    E->indent--;
    line(E, "}");
}

void emit_reduce_combine(Emitter *E, const Op *op)
{
    CReduce R = {.op = op, .n = op->nargs, .axis = op->reduce.axis};
    R.fn = combine_helper(E, op);
    value_map(op->args[0], &R.xm);
    axis_bits(&R.xm, R.axis, &R.ab);
    R.NR = 1 << R.ab.nkept;
    R.K = 1 << R.ab.naxis_reg;
    R.scalar = op->results[0]->type.rank == 0;
    R.T = NEW_ARRAY(E->a, const char *, R.n);
    R.acc = NEW_ARRAY(E->a, const char *, R.n);
    /* one value per thread along the axis and no lanes or warps to combine with: each
     * result is its operand, and one nothing reads is not written at all */
    if (R.K == 1 && !R.ab.nlane && !R.ab.nwarp)
        R.dropped = NEW_ARRAY(E->a, bool, R.n);
    for (int k = 0; k < R.n; k++) {
        const Value *r = op->results[k];
        R.T[k] = dtype_ctype(r->type.dtype);
        R.acc[k] = vname(E, r);
        if (R.dropped && !r->nuses) {
            R.dropped[k] = true;
            continue;
        }
        if (R.scalar)
            line(E, "%s %s;", R.T[k], R.acc[k]);
        else
            line(E, "%s;%s", decl(E, type_elem(r->type), R.acc[k], R.NR), shape_note(E, r));
    }
    int nl = R.ab.nlane, nw = R.ab.nwarp;
    line(E, "// reduction with %s along dim %d: %d value%s in each thread%s%s", R.fn, R.axis, R.K,
         R.K > 1 ? "s" : "", nl ? fmt(E, ", then across %d lanes", 1 << nl) : "",
         nw ? fmt(E, ", then across %d warps", 1 << nw) : "");
    creduce_in_thread(E, &R);
    creduce_lanes(E, &R);
    if (nw)
        creduce_warps(E, &R);
}

/* ---- scans ------------------------------------------------------------------------ */

/* One scan being printed: as reduce.c's Scan, the registers walked as (outer e, inner kk),
 * e = repetition * NK + kept bits, kk the run along the axis. */
typedef struct CScan {
    const Op *op;
    int n;
    const char *fn;
    const char **T, **y;     /* per element: C type, the result's name */
    int axis;
    bool rev;
    LayoutMap m;             /* the results' layout, the one walked (operands are read in it) */
    AxisBits ab;
    int NK, NR, NN, NO;      /* kept registers, repetitions, run length, NK * NR */
    const char *ej, *er;     /* e's kept part and repetition */
    const char *outer_bits;  /* e's bits in place in a register index */
    const char *lane_a;      /* the lane's position along the axis */
} CScan;

static const char *cscan_reg(Emitter *E, const CScan *S, const char *kk)
{
    return or_bits(E, S->outer_bits, deposit(E, S->ab.nano, S->ab.nnano, kk));
}

static const char **cscan_y(Emitter *E, const CScan *S, const char *kk)
{
    return indexed(E, S->n, S->y, cscan_reg(E, S, kk));
}

/* 1. runs within the thread, in scan order */
static void cscan_runs(Emitter *E, const CScan *S)
{
    const char *first = S->rev ? fmt(E, "%d", S->NN - 1) : "0";
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
    E->indent++;
    const char **y0 = cscan_y(E, S, first);
    for (int k = 0; k < S->n; k++)
        line(E, "%s = %s;", y0[k], value_at(E, S->op->args[k], S->op->results[0], cscan_reg(E, S, first)));
    if (S->NN > 1) {
        line(E, "#pragma unroll");
        if (S->rev)
            line(E, "for (int kk = %d; kk >= 0; --kk)", S->NN - 2);
        else
            line(E, "for (int kk = 1; kk < %d; ++kk)", S->NN);
        E->indent++;
        const char **x = NEW_ARRAY(E->a, const char *, S->n);
        for (int k = 0; k < S->n; k++)
            x[k] = value_at(E, S->op->args[k], S->op->results[0], cscan_reg(E, S, "kk"));
        call_combine(E, S->fn, S->n, cscan_y(E, S, S->rev ? "kk + 1" : "kk - 1"), x, cscan_y(E, S, "kk"));
        E->indent--;
    }
    E->indent--;
    line(E, "}");
}

/* 2. the runs' totals scanned over the lanes along the axis (Hillis-Steele); `before` is
 * what the lanes ahead hold, when there are any */
static void cscan_lanes(Emitter *E, CScan *S, bool need_total)
{
    int n = S->n, nl = S->ab.nlane;
    const int *lanes = S->ab.lane;
    const char **before = locals(E, n, "before"), **total = locals(E, n, "rep_total");
    const char **incl = locals(E, n, "incl"), **other = locals(E, n, "other");
    for (int k = 0; k < n; k++)
        line(E, "%s %s[%d];  // what comes before this thread's run, within its repetition", S->T[k], before[k], S->NO);
    line(E, "bool has_before[%d];  // whether anything does", S->NO);
    if (need_total)
        for (int k = 0; k < n; k++)
            line(E, "%s %s[%d];  // each repetition's total over the whole block", S->T[k], total[k], S->NO);
    unsigned lmask = 0;
    for (int i = 0; i < nl; i++)
        lmask |= 1u << lanes[i];
    S->lane_a = nl ? compress(E, lanes, nl, "lane", 5) : "0";
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
    E->indent++;
    const char **last = cscan_y(E, S, S->rev ? "0" : fmt(E, "%d", S->NN - 1));
    for (int k = 0; k < n; k++)
        line(E, "%s %s = %s;", S->T[k], incl[k], last[k]);
    if (nl) {
        line(E, "#pragma unroll");
        line(E, "for (int s = 1; s < %d; s <<= 1) {", 1 << nl);
        E->indent++;
        for (int k = 0; k < n; k++)
            line(E, "const %s %s = tilec::%s(%s, %s);", S->T[k], other[k], S->rev ? "shfl_down" : "shfl_up", incl[k],
                 lanes[0] ? fmt(E, "s << %d", lanes[0]) : "s");
        line(E, S->rev ? "if (%s + s < %d)  // the lanes s ahead come first" : "if (%s >= s)  // the lanes s ahead come first",
             S->lane_a, 1 << nl);
        E->indent++;
        call_combine(E, S->fn, n, other, incl, incl);
        E->indent--;
        E->indent--;
        line(E, "}");
        for (int k = 0; k < n; k++)
            line(E, "%s[e] = tilec::%s(%s, %d);", before[k], S->rev ? "shfl_down" : "shfl_up", incl[k], 1 << lanes[0]);
        line(E, "has_before[e] = %s != %d;", S->lane_a, S->rev ? (1 << nl) - 1 : 0);
        if (need_total)
            for (int k = 0; k < n; k++)
                line(E, "%s[e] = tilec::shfl_idx(%s, %s);", total[k], incl[k],
                     S->rev ? fmt(E, "lane & %u", ~lmask & 31u) : fmt(E, "lane | %u", lmask));
    } else {
        for (int k = 0; k < n; k++)
            line(E, "%s[e] = %s;", before[k], incl[k]);
        line(E, "has_before[e] = false;");
        if (need_total)
            for (int k = 0; k < n; k++)
                line(E, "%s[e] = %s;", total[k], incl[k]);
    }
    E->indent--;
    line(E, "}");
}

/* `ahead` (what comes before `before` in scan order) put in front of before[e] */
static void cscan_prepend(Emitter *E, const CScan *S, const char *const *ahead)
{
    const char **before = indexed(E, S->n, locals(E, S->n, "before"), "e");
    line(E, "if (has_before[e]) {");
    E->indent++;
    call_combine(E, S->fn, S->n, ahead, before, before);
    E->indent--;
    line(E, "} else {");
    E->indent++;
    for (int k = 0; k < S->n; k++)
        line(E, "%s = %s;", before[k], ahead[k]);
    E->indent--;
    line(E, "}");
    line(E, "has_before[e] = true;");
}

/* Combines `count` groups read by `at` (the C of group number POS, "POS" in it) in scan
 * order into `running`, keeping in `ahead` those before position `mine`; then puts
 * `ahead` in front of before[e] when there are any. */
static void cscan_fold(Emitter *E, const CScan *S, const char *const *src, const char *pos_var, int count,
                       const char *mine)
{
    int n = S->n;
    const char **running = locals(E, n, "running"), **ahead = locals(E, n, "ahead");
    const char *first = S->rev ? fmt(E, "%d", count - 1) : "0";
    const char *pos = S->rev ? fmt(E, "(%d - %s)", count - 1, pos_var) : pos_var;
    const char *mine_pos = S->rev ? fmt(E, "%d - %s", count - 1, paren(E, mine)) : mine;
    const char **at = NEW_ARRAY(E->a, const char *, n), **at0 = NEW_ARRAY(E->a, const char *, n);
    for (int k = 0; k < n; k++) {
        const char *p = strstr(src[k], "POS");
        at[k] = fmt(E, "%.*s%s%s", (int)(p - src[k]), src[k], pos, p + 3);
        at0[k] = fmt(E, "%.*s%s%s", (int)(p - src[k]), src[k], first, p + 3);
    }
    for (int k = 0; k < n; k++)
        line(E, "%s %s = %s;", S->T[k], running[k], at0[k]);
    for (int k = 0; k < n; k++)
        line(E, "%s %s = %s;", S->T[k], ahead[k], running[k]);
    line(E, "#pragma unroll");
    line(E, "for (int %s = 1; %s < %d; ++%s) {  // in scan order", pos_var, pos_var, count, pos_var);
    E->indent++;
    line(E, "if (%s == %s) {  // all of those before this thread's", pos_var, mine_pos);
    E->indent++;
    for (int k = 0; k < n; k++)
        line(E, "%s = %s;", ahead[k], running[k]);
    E->indent--;
    line(E, "}");
    call_combine(E, S->fn, n, running, at, running);
    E->indent--;
    line(E, "}");
    line(E, "if (%s != 0) {", mine_pos);
    E->indent++;
    cscan_prepend(E, S, ahead);
    E->indent--;
    line(E, "}");
}

/* Row-major index of the coordinates other than the axis of register 0 of e, as C. */
static const char *cscan_other_index(Emitter *E, const CScan *S)
{
    const Value *x = S->op->results[0];
    const char *reg0 = cscan_reg(E, S, "0"), *lin = NULL;
    for (int d = 0; d < x->type.rank; d++) {
        if (d == S->axis)
            continue;
        const char *c = paren(E, elem_coord(E, x, &S->m, d, reg0));
        lin = lin ? fmt(E, "%s * %d + %s", lin, x->type.shape[d], c) : c;
    }
    return lin ? lin : "0";
}

/* 3. across warps: each warp's last lane along the axis writes its totals, then every
 * thread folds the totals of the warps in scan order */
static void cscan_warps(Emitter *E, const CScan *S)
{
    const Op *op = S->op;
    const Value *x = op->args[0];
    int n = S->n, nl = S->ab.nlane, NR = S->NR, W = 1 << S->ab.nwarp;
    int other = type_numel(x->type) / x->type.shape[S->axis];
    const char *wa = compress(E, S->ab.warp, S->ab.nwarp, "warp", S->m.nwarp);
    const char **partial = locals(E, n, "partial"), **total = locals(E, n, "rep_total");
    int off = op->smem_offset;
    for (int k = 0; k < n; k++) {
        line(E, "%s *%s = reinterpret_cast<%s *>(smem + %d);  // [%d warps][%d repetitions][%d]", S->T[k], partial[k],
             S->T[k], off, W, NR, other);
        off += (W * NR * other * smem_elem_bytes(op->args[k]->type) + 7) & ~7;
    }
    const char *olin = cscan_other_index(E, S);
    /* [warp][repetition][other coordinates], "POS" the warp */
    const char *wr = NR > 1 ? fmt(E, "POS * %d + %s", NR, S->er) : "POS";
    const char *slot = other > 1 ? fmt(E, "(%s) * %d + %s", wr, other, olin) : wr;
    const char **src = NEW_ARRAY(E->a, const char *, n);
    for (int k = 0; k < n; k++)
        src[k] = fmt(E, "%s[%s]", partial[k], slot);
    if (nl)
        line(E, S->rev ? "if (%s == 0) {" : "if (%s == %d) {", S->lane_a, (1 << nl) - 1);
    else
        line(E, "{");
    line(E, "    #pragma unroll");
    line(E, "    for (int e = 0; e < %d; ++e) {", S->NO);
    const char *mine_slot = fmt(E, "%.*s%s%s", (int)(strstr(slot, "POS") - slot), slot, paren(E, wa), strstr(slot, "POS") + 3);
    for (int k = 0; k < n; k++)
        line(E, "        %s[%s] = %s[e];", partial[k], mine_slot, total[k]);
    line(E, "    }");
    line(E, "}");
    line(E, "%s;", block_sync(E));
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e) {", S->NO);
    E->indent++;
    cscan_fold(E, S, src, "ww", W, wa);
    for (int k = 0; k < n; k++)
        line(E, "%s[e] = %s;", total[k], locals(E, n, "running")[k]);
    E->indent--;
    line(E, "}");
    trailing_sync(E, op);
}

/* 4. the repetitions ahead, then everything before put in front of the runs */
static void cscan_carry(Emitter *E, const CScan *S)
{
    int n = S->n;
    if (S->NR > 1) {
        const char **total = locals(E, n, "rep_total"), **src = NEW_ARRAY(E->a, const char *, n);
        for (int k = 0; k < n; k++)
            src[k] = S->ab.nkept ? fmt(E, "%s[POS * %d + %s]", total[k], S->NK, S->ej) : fmt(E, "%s[POS]", total[k]);
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e) {  // the repetitions ahead come first", S->NO);
        E->indent++;
        cscan_fold(E, S, src, "rr", S->NR, S->er);
        E->indent--;
        line(E, "}");
    }
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", S->NO);
    E->indent++;
    line(E, "if (has_before[e]) {  // everything before, then the run");
    E->indent++;
    const char **before = indexed(E, n, locals(E, n, "before"), "e");
    if (S->NN > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int kk = 0; kk < %d; ++kk)", S->NN);
        E->indent++;
    }
    const char *kk = S->NN > 1 ? "kk" : "0";
    call_combine(E, S->fn, n, before, cscan_y(E, S, kk), cscan_y(E, S, kk));
    if (S->NN > 1)
        E->indent--;
    E->indent--;
    line(E, "}");
    E->indent--;
}

void emit_scan_combine(Emitter *E, const Op *op)
{
    CScan S = {.op = op, .n = op->nargs, .axis = op->scan.axis, .rev = op->scan.reverse};
    S.fn = combine_helper(E, op);
    value_map(op->results[0], &S.m); /* ordered along the axis (layout.c); operands may hold their registers in another order */
    axis_bits(&S.m, S.axis, &S.ab);
    int nk = S.ab.nkept, nr = S.ab.nrep, nl = S.ab.nlane, nw = S.ab.nwarp;
    S.NK = 1 << nk, S.NR = 1 << nr, S.NN = 1 << S.ab.nnano, S.NO = S.NK * S.NR;
    S.T = NEW_ARRAY(E->a, const char *, S.n);
    S.y = NEW_ARRAY(E->a, const char *, S.n);
    for (int k = 0; k < S.n; k++) {
        const Value *r = op->results[k];
        S.T[k] = dtype_ctype(r->type.dtype);
        S.y[k] = vname(E, r);
        if (!info(E, r)->declared)
            line(E, "%s;%s", decl(E, type_elem(r->type), S.y[k], nregs(r)), shape_note(E, r));
    }
    line(E, "// scan with %s%s along dim %d: runs of %d in each thread%s%s%s", S.fn, S.rev ? " (reversed)" : "", S.axis,
         S.NN, nl ? fmt(E, ", across %d lanes", 1 << nl) : "", nw ? fmt(E, ", across %d warps", 1 << nw) : "",
         S.NR > 1 ? fmt(E, ", carried over %d repetitions", S.NR) : "");
    line(E, "{");
    E->indent++;
    int up[LMAP_MAX_REG_BITS];
    for (int i = 0; i < nr; i++)
        up[i] = nk + i;
    S.ej = compress(E, identity_bits, nk, "e", nk + nr);
    S.er = compress(E, up, nr, "e", nk + nr);
    S.outer_bits = or_bits(E, deposit(E, S.ab.kept, nk, S.ej), deposit(E, S.ab.rep, nr, S.er));
    cscan_runs(E, &S);
    if (nl || nw || S.NR > 1) {
        cscan_lanes(E, &S, nw || S.NR > 1);
        if (nw)
            cscan_warps(E, &S);
        cscan_carry(E, &S);
    }
    E->indent--;
    line(E, "}");
}

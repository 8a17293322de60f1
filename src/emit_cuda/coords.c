/*
 * coords.c — where a thread's register elements sit: register indices as bit
 * arithmetic on loop counters, coordinates along each dimension, and the
 * per-thread names (layout bases, owner predicates) bound once at the top of
 * the kernel.
 */
#include "emit_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *bind_once(Emitter *E, const char *hint, const char *type, const char *expr, const char *comment)
{
    for (int i = 0; i < E->binds.len; i++)
        if (!strcmp(E->binds.data[i].expr, expr) && !strcmp(E->binds.data[i].type, type))
            return E->binds.data[i].name;
    /* The hint may name a layout (L0_base), which unique_name would rename away from; a
     * second binding of it with another expression (the same layout over a smaller tile)
     * gets the next free suffix, L0_base_2. */
    const char *name = hint;
    for (int k = 2; strmap_find(&E->names, name); k++)
        name = fmt(E, "%s_%d", hint, k);
    name = arena_strdup(E->a, name);
    strmap_put(E->a, &E->names, name, 0);
    Binding b = {.name = name, .type = type, .expr = arena_strdup(E->a, expr), .comment = comment};
    vec_push(E->a, &E->binds, b);
    return b.name;
}

static const char *dim_suffix(int rank, int d)
{
    static const char *const two[] = {"row", "col"};
    static const char *const n[] = {"d0", "d1", "d2", "d3"};
    return rank == 1 ? "base" : rank == 2 ? two[d] : n[d];
}

/* The blocked layout under a chain of slices, and dim d's index in it. */
static const Layout *root_layout(const Layout *l, int *d)
{
    while (l->kind == LAYOUT_SLICE) {
        if (*d >= l->slice_dim)
            (*d)++;
        l = l->parent;
    }
    return l;
}

/* ---- register indices ------------------------------------------------------------------
 *
 * A register index travels through the emitter as C text: a loop counter ("e", "kk"), a
 * constant, or bits of counters moved into place by move_bits.  Reading a value through a
 * chain of views (a broadcast of an expand_dims of a slice ...) moves the bits again at each
 * link, and a coordinate takes bits of the result once more; wrapping the text each time
 * would nest the bit algebra as deep as the chain.  So each index move_bits prints is also
 * recorded as the runs of counter bits it spells, and the next move, or the coordinate,
 * starts from those runs: the C is one level of shifts and masks however long the chain.
 * A record says what its text says (a run printed without a mask takes all the counter's
 * higher bits), given the emitter's invariant that the fields of an index never overlap. */

/* ((var >> from) & (2^len - 1)) << to, where len may be IX_ALL (no mask: all of var's bits
 * from `from` up); `top`: var has no bits above the run */
typedef struct IxRun {
    int8_t var, from, to, len;
    bool top;
} IxRun;

#define IX_ALL 64

#define IX_MAX_VARS 4

typedef struct RegIx {
    const char *var[IX_MAX_VARS]; /* counters as C: a name, or an expression in parentheses */
    int nvar;
    IxRun run[LMAP_MAX_REG_BITS];
    int nrun;
} RegIx;

static bool is_int_literal(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The runs `text` spells: its record, or else all of it as one counter. */
static RegIx ix_get(Emitter *E, const char *text)
{
    int *k = strmap_find(&E->ix_of_text, text);
    if (k)
        return E->ixs.data[*k];
    return (RegIx){.var = {paren(E, text)}, .nvar = 1, .run = {{.var = 0, .from = 0, .to = 0, .len = IX_ALL, .top = true}}, .nrun = 1};
}

/* R's number for counter `name`, added if new; -1 when R has no room for another */
static int ix_var(RegIx *R, const char *name)
{
    for (int v = 0; v < R->nvar; v++)
        if (!strcmp(R->var[v], name))
            return v;
    if (R->nvar == IX_MAX_VARS)
        return -1;
    R->var[R->nvar] = name;
    return R->nvar++;
}

/* Bit b of S as counter bit (*var, *bit); false when the bit is always 0. */
static bool ix_bit(const RegIx *S, int b, int *var, int *bit)
{
    for (int i = 0; i < S->nrun; i++) {
        const IxRun *r = &S->run[i];
        if (b >= r->to && b < r->to + r->len) {
            *var = r->var;
            *bit = r->from + b - r->to;
            return true;
        }
    }
    return false;
}

/* ix_bit, also false for a bit of the register loop's counter e that its step
 * leaves 0 (E->e_zero_bits): inside `e += 8`, (e & 7) is 0 and prints as no term. */
static bool ix_bit_live(const Emitter *E, const RegIx *S, int b, int *var, int *bit)
{
    return ix_bit(S, b, var, bit) && !(*bit < E->e_zero_bits && !strcmp(S->var[*var], "e"));
}

/* How many low bits counter v can have set when S is below 2^nbits (-1: unknown): known
 * through a top run, by its end, or by S's bound where the run is unmasked. */
static int ix_var_bits(const RegIx *S, int v, int nbits)
{
    int w = -1;
    for (int i = 0; i < S->nrun; i++) {
        const IxRun *r = &S->run[i];
        if (r->var != v || !r->top)
            continue;
        int end = r->len != IX_ALL ? r->from + r->len : nbits < 0 ? -1 : r->from + (nbits > r->to ? nbits - r->to : 0);
        if (end >= 0 && (w < 0 || end < w))
            w = end;
    }
    return w;
}

/* Records R as the runs of `text`.  An unmasked run ends where another field of the index
 * begins, as fields never overlap, and its counter has no bits above that; a record whose
 * runs still overlap is not kept. */
static void ix_record(Emitter *E, const char *text, RegIx R)
{
    if (strmap_find(&E->ix_of_text, text))
        return;
    for (int i = 0; i < R.nrun; i++) {
        IxRun *r = &R.run[i];
        int end = r->to + r->len;
        for (int j = 0; j < R.nrun && r->len == IX_ALL; j++)
            if (R.run[j].to > r->to && R.run[j].to < end)
                end = R.run[j].to;
        if (r->len == IX_ALL)
            r->len = (int8_t)(end - r->to);
    }
    for (int i = 0; i < R.nrun; i++)
        for (int j = i + 1; j < R.nrun; j++)
            if (R.run[i].to < R.run[j].to + R.run[j].len && R.run[j].to < R.run[i].to + R.run[i].len)
                return;
    vec_push(E->a, &E->ixs, R);
    strmap_put(E->a, &E->ix_of_text, text, E->ixs.len - 1);
}

/* Bits from[t] of `src` moved to bits to[t], as C ("(e & 3) | ((e >> 2) << 4)").
 * Runs of consecutive bits move together.  `src_bits` is how many low bits
 * src can have set (-1: unknown); a run that ends there needs no mask.  src may be
 * an index this function printed: then its counters' bits move, not its text. */
const char *move_bits(Emitter *E, const char *src, const int *from, const int *to, int n, int src_bits)
{
    if (!n || !strcmp(src, "0"))
        return "0";
    if (is_int_literal(src)) {
        long long x = strtoll(src, NULL, 10), r = 0;
        for (int t = 0; t < n; t++)
            r |= (x >> from[t] & 1) << to[t];
        return fmt(E, "%lld", r);
    }
    RegIx S = ix_get(E, src), R = {.nvar = 0};
    int var[LMAP_MAX_REG_BITS], bit[LMAP_MAX_REG_BITS], dst[LMAP_MAX_REG_BITS], k = 0;
    for (int t = 0; t < n; t++)
        if (ix_bit_live(E, &S, from[t], &var[k], &bit[k]))
            dst[k++] = to[t];
    StrBuf text = {0};
    for (int i = 0; i < k;) {
        int len = 1;
        while (i + len < k && var[i + len] == var[i] && bit[i + len] == bit[i] + len && dst[i + len] == dst[i] + len)
            len++;
        int f = bit[i], d = dst[i], mask = (1 << len) - 1, width = ix_var_bits(&S, var[i], src_bits);
        const char *x = S.var[var[i]];
        bool top = width >= 0 && f + len >= width;
        const char *term;
        if (f == d) {
            term = !f && top ? x : fmt(E, "(%s & %d)", x, mask << f);
        } else {
            term = f ? fmt(E, "(%s >> %d)", x, f) : x;
            if (!top)
                term = fmt(E, "(%s & %d)", term, mask);
            if (d)
                term = fmt(E, "(%s << %d)", term, d);
        }
        bool unmasked = top && (f != d || !f);
        /* R's counters are some of S's, so ix_var finds room */
        R.run[R.nrun++] = (IxRun){.var = (int8_t)ix_var(&R, x), .from = (int8_t)f, .to = (int8_t)d,
                                     .len = (int8_t)(unmasked ? IX_ALL : len), .top = unmasked};
        sb_printf(&text, "%s%s", i ? " | " : "", term);
        i += len;
    }
    if (!k)
        return "0";
    const char *r = fmt(E, "%s", text.data);
    sb_free(&text);
    ix_record(E, r, R);
    return r;
}

const int identity_bits[LMAP_MAX_REG_BITS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};

/* Bit t of `src` (t < n) moved to bit pos[t]. */
const char *deposit(Emitter *E, const int *pos, int n, const char *src)
{
    return move_bits(E, src, identity_bits, pos, n, n);
}

/* Bits pos[t] of `src` (which has src_bits bits) gathered into bit t. */
const char *compress(Emitter *E, const int *pos, int n, const char *src, int src_bits)
{
    return move_bits(E, src, pos, identity_bits, n, src_bits);
}

/* a | b for register-index parts, which set different bits; either may be "0" */
const char *or_bits(Emitter *E, const char *a, const char *b)
{
    if (!strcmp(a, "0"))
        return b;
    if (!strcmp(b, "0"))
        return a;
    const char *text = fmt(E, "%s | %s", a, b);
    RegIx A = ix_get(E, a), B = ix_get(E, b), R = A;
    for (int i = 0; i < B.nrun; i++) {
        IxRun r = B.run[i];
        int v = ix_var(&R, B.var[r.var]);
        if (v < 0 || R.nrun == LMAP_MAX_REG_BITS)
            return text; /* not recorded: a later move wraps the text */
        r.var = (int8_t)v;
        R.run[R.nrun++] = r;
    }
    ix_record(E, text, R);
    return text;
}

/* Register idx's offset from the thread's first coordinate along d (m's dim), as C: one
 * term per run of counter bits, "(e & 1) + (((e >> 2) & 3) << 4)". */
static const char *reg_coord(Emitter *E, const LayoutMap *m, int d, const char *idx)
{
    if (is_int_literal(idx))
        return fmt(E, "%d", lmap_reg_offset(m, (int)strtol(idx, NULL, 10), d));
    RegIx S = ix_get(E, idx);
    BitSrc srcs[IX_MAX_VARS];
    for (int v = 0; v < S.nvar; v++)
        srcs[v] = (BitSrc){S.var[v], ix_var_bits(&S, v, m->nreg)};
    BitMove mv[LMAP_MAX_REG_BITS];
    int n = 0;
    for (int i = 0; i < m->nreg; i++) {
        int var, bit;
        if (m->reg[i].dim == d && ix_bit_live(E, &S, i, &var, &bit))
            mv[n++] = (BitMove){(int8_t)var, (int8_t)bit, m->reg[i].bit};
    }
    StrBuf t = {0};
    lmap_moves_expr(&t, srcs, mv, n);
    const char *r = fmt(E, "%s", t.data);
    sb_free(&t);
    return r;
}

/* The thread's first coordinate of `v` along dim d, as a name or "0". */
static const char *thread_coord(Emitter *E, const Value *v, const LayoutMap *m, int d)
{
    StrBuf t = {0};
    lmap_base_expr(&t, m, d);
    const char *expr = fmt(E, "%s", t.data);
    sb_free(&t);
    if (!strcmp(expr, "0"))
        return "0";
    int rd = d;
    const Layout *root = root_layout(v->layout, &rd);
    StrBuf off = {0};
    lmap_reg_expr(&off, m, d, "e");
    const char *name = fmt(E, "L%d_%s", root->id, dim_suffix(root->rank, rd));
    const char *comment = fmt(E, "L%d: this thread's first %s", root->id, root->rank == 1 ? "element" : dim_suffix(root->rank, rd));
    if (strcmp(off.data, "0"))
        comment = fmt(E, "%s; register e is at +%s", comment, off.data);
    sb_free(&off);
    return bind_once(E, name, "int", expr, comment);
}

/* Register `idx`'s coordinate along d: thread base + constant offset. */
const char *elem_coord(Emitter *E, const Value *v, const LayoutMap *m, int d, const char *idx)
{
    const char *base = thread_coord(E, v, m, d);
    const char *off = reg_coord(E, m, d, idx);
    if (!strcmp(off, "0"))
        return base;
    if (!strcmp(base, "0"))
        return paren(E, off);
    return fmt(E, "%s + %s", base, paren(E, off));
}

/* "lane & 24 == 0 && warp == 0" for the threads that own a replicated map's elements, or NULL */
const char *owner_pred(Emitter *E, const Value *v, const LayoutMap *m)
{
    unsigned lr = lmap_replicated_mask(m->lane, m->nlane), wr = lmap_replicated_mask(m->warp, m->nwarp);
    if (!lr && !wr)
        return NULL;
    const char *c1 = lr ? (lr == 31 ? "lane == 0" : fmt(E, "(lane & %u) == 0", lr)) : NULL;
    const char *c2 = wr ? (wr == (1u << m->nwarp) - 1 ? "warp == 0" : fmt(E, "(warp & %u) == 0", wr)) : NULL;
    const char *expr = c1 && c2 ? fmt(E, "%s && %s", c1, c2) : c1 ? c1 : c2;
    int d0 = 0;
    const Layout *root = root_layout(v->layout, &d0);
    return bind_once(E, v->layout->kind == LAYOUT_SLICE ? fmt(E, "L%d_owner", v->layout->id) : fmt(E, "L%d_owner", root->id),
                     "bool", expr, fmt(E, "L%d is replicated: one owner writes each element", v->layout->id));
}

/* The register of `v` that register `idx` of `ctx` reads (same thread). */
const char *reg_index(Emitter *E, const Value *v, const Value *ctx, const char *idx)
{
    if (!v->type.rank)
        return "0";
    if (!ctx || ctx == v)
        return idx;
    int insert = -1;
    if (v->type.rank + 1 == ctx->type.rank && ctx->def && ctx->def->kind == OP_EXPAND_DIMS)
        insert = ctx->def->expand_dims.axis;
    LayoutMap sm, dm;
    value_map(v, &sm);
    value_map(ctx, &dm);
    int rb[LMAP_MAX_REG_BITS];
    if (!lmap_local(&sm, insert, &dm, rb))
        BUG("value %%%d is read in another thread's layout without a conversion", v->id);
    bool ident = sm.nreg == dm.nreg;
    for (int i = 0; i < dm.nreg; i++)
        ident &= rb[i] == i;
    if (ident)
        return idx;
    int from[LMAP_MAX_REG_BITS], to[LMAP_MAX_REG_BITS], n = 0;
    for (int i = 0; i < dm.nreg; i++)
        if (rb[i] >= 0)
            from[n] = i, to[n++] = rb[i];
    return move_bits(E, idx, from, to, n, dm.nreg);
}

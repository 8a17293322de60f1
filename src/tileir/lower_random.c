/*
 * lower_random.c — Triton's counter-based Philox random numbers
 * (triton/language/random.py, Triton 3.6) lowered to tile IR.
 *
 * Triton implements these as @jit helpers in Python; tilec emits the same
 * sequence of operations those helpers trace, with the same types, so the
 * bit stream is Triton's for the same seed and offsets:
 *
 *   philox_impl(c0..c3, k0, k1, n)   n rounds of Philox4x32 (uint32 counters)
 *                                    or Philox4x64 (uint64 counters); per
 *                                    round c0 = umulhi(B, c2) ^ c1 ^ k0,
 *                                    c2 = umulhi(A, c0) ^ c3 ^ k1, c1 = B * c2,
 *                                    c3 = A * c0, then the key is raised.
 *   philox(seed, c0..c3, n)          seed.to(uint64); 32-bit counters use the
 *                                    key (seed & 0xffffffff, seed >> 32),
 *                                    64-bit counters the key (seed, 0); the
 *                                    counters are bitcast to uint32/uint64.
 *   randint4x(seed, offset, n)       philox(seed, lo, hi, 0, 0): lo is
 *                                    offset.to(uint32), hi the upper half of a
 *                                    64-bit offset (else 0), the zeros made as
 *                                    `lo * 0`.
 *   randint / rand / rand4x / randn / randn4x, uint_to_uniform_float,
 *   pair_uniform_to_normal           built from the above.
 *
 * Operand typing goes through lower_binop / lower_compare / lower_where, so
 * Python-int constants meet tensors with Triton's promotion rules exactly as
 * they do in random.py.  n_rounds is a constexpr (static_range in Triton) and
 * the rounds are unrolled here.
 */
#include "lower_internal.h"

#include <string.h>

#define N_ROUNDS_MAX 1024 /* tilec's guard against runaway unrolling */

/* The Philox multipliers and Weyl key increments (Random123's
 * PHILOX_M4x32_0/1, PHILOX_W32_0/1 and their 64-bit counterparts), named as
 * in random.py: ROUND_A multiplies c0, ROUND_B multiplies c2. */
typedef struct PhiloxConsts {
    uint64_t key_a, key_b, round_a, round_b;
} PhiloxConsts;

static const PhiloxConsts philox_u32 = {.key_a = 0x9E3779B9u, .key_b = 0xBB67AE85u,
                                        .round_a = 0xD2511F53u, .round_b = 0xCD9E8D57u};
static const PhiloxConsts philox_u64 = {.key_a = 0x9E3779B97F4A7C15ull, .key_b = 0xBB67AE8584CAA73Bull,
                                        .round_a = 0xD2E7470EE14C6C93ull, .round_b = 0xCA5A826395121157ull};

/* uint_to_uniform_float scales: the largest value with MAX_INT * scale < 1.0
 * in fp32 (these Python floats become fp32 constants). */
#define UNIFORM_SCALE_32 4.6566127342e-10
#define UNIFORM_SCALE_64 1.0842020432385337e-19

/* n_rounds: a constexpr integer (builtins.h gives random.py's default, 10). */
static int n_rounds_arg(Lower *L, CVal *c, Loc loc, const char *fname)
{
    if (c->kind != CV_INT)
        lower_error(L, loc, "%s: n_rounds must be a constexpr integer, got %s", fname, cv_describe(L, c));
    if (c->i < 0 || c->i > N_ROUNDS_MAX)
        lower_error(L, loc, "%s: n_rounds must be between 0 and %d, got %lld", fname, N_ROUNDS_MAX,
                    (long long)c->i);
    return (int)c->i;
}

/* ---- building blocks ---------------------------------------------------------- */

/* x.to(dtype, bitcast=True) */
static Value *bitcast_to(Lower *L, Value *v, DType d, Loc loc, const char *fname, const char *what)
{
    DType s = v->type.dtype;
    if (s == d)
        return v;
    if (s == DT_PTR)
        lower_error(L, loc, "%s: %s must be an integer, got %s", fname, what, type_str(L->a, v->type));
    if (dtype_bits(s) != dtype_bits(d))
        lower_error(L, loc, "%s: cannot bitcast %s %s to %s: the bit widths differ (%d vs %d)", fname, what,
                    dtype_name(s), dtype_name(d), dtype_bits(s), dtype_bits(d));
    return emit1(L, OP_BITCAST, loc, 1, &v, type_tensor(type_scalar(d), v->type.rank, v->type.shape));
}

/* A Philox constant as random.py writes it: a Python int.  The 64-bit ones do
 * not fit tilec's int64 constexprs, so they become uint64 constants, which is
 * what Triton's promotion gives them against the uint64 state. */
static CVal *philox_const(Lower *L, DType d, uint64_t k, Loc loc)
{
    if (d == DT_U32)
        return cv_int(L, (int64_t)k);
    return cv_value(L, emit_const_int(L, DT_U64, (int64_t)k, loc));
}

/* math.umulhi(x, y): both become tensors and are legalised to one type. */
static CVal *umulhi(Lower *L, CVal *x, CVal *y, Loc loc)
{
    Value *a = to_value(L, x, loc), *b = to_value(L, y, loc);
    if (a->type.dtype != b->type.dtype) {
        Op *mul = lower_binop(L, TOK_STAR, cv_value(L, a), cv_value(L, b), loc)->v->def;
        a = mul->args[0];
        b = mul->args[1];
    } else {
        broadcast_pair(L, &a, &b, loc);
    }
    DType d = a->type.dtype;
    if (d != DT_I32 && d != DT_U32 && d != DT_I64 && d != DT_U64)
        lower_error(L, loc, "umulhi expects int32, uint32, int64 or uint64 operands, got %s", dtype_name(d));
    Value *ab[2] = {a, b};
    return cv_value(L, emit1(L, OP_UMULHI, loc, 2, ab, a->type));
}

static CVal *tuple_of(Lower *L, CVal **items, int n)
{
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    for (int i = 0; i < n; i++)
        vec_push(L->a, &t->items, items[i]);
    return t;
}

/* philox_impl: `n` rounds on the state c[4] with the key k[2], in place. */
static void philox_impl(Lower *L, CVal **c, CVal **k, int n, Loc loc, const char *fname)
{
    Value *c0 = to_value(L, c[0], loc);
    DType d = c0->type.dtype;
    if (d != DT_U32 && d != DT_U64)
        lower_error(L, loc, "%s: dtype not supported in philox_impl: the counters must be uint32 or uint64, "
                    "got %s", fname, dtype_name(d));
    const PhiloxConsts *K = d == DT_U32 ? &philox_u32 : &philox_u64;
    CVal *c0v = cv_value(L, c0), *c1 = c[1], *c2 = c[2], *c3 = c[3], *k0 = k[0], *k1 = k[1];
    for (int r = 0; r < n; r++) {
        CVal *a0 = c0v, *a2 = c2;
        /* c0 = umulhi(B, _c2) ^ c1 ^ k0 */
        CVal *t = umulhi(L, philox_const(L, d, K->round_b, loc), a2, loc);
        t = lower_binop(L, TOK_CARET, t, c1, loc);
        c0v = lower_binop(L, TOK_CARET, t, k0, loc);
        /* c2 = umulhi(A, _c0) ^ c3 ^ k1 */
        t = umulhi(L, philox_const(L, d, K->round_a, loc), a0, loc);
        t = lower_binop(L, TOK_CARET, t, c3, loc);
        c2 = lower_binop(L, TOK_CARET, t, k1, loc);
        /* c1 = B * _c2; c3 = A * _c0 */
        c1 = lower_binop(L, TOK_STAR, philox_const(L, d, K->round_b, loc), a2, loc);
        c3 = lower_binop(L, TOK_STAR, philox_const(L, d, K->round_a, loc), a0, loc);
        /* raise the key */
        k0 = lower_binop(L, TOK_PLUS, k0, philox_const(L, d, K->key_a, loc), loc);
        k1 = lower_binop(L, TOK_PLUS, k1, philox_const(L, d, K->key_b, loc), loc);
    }
    c[0] = c0v;
    c[1] = c1;
    c[2] = c2;
    c[3] = c3;
}

/* philox(seed, c0..c3, n): the key from the seed, the counters bitcast to
 * uint32 (32-bit counters) or uint64 (64-bit counters). */
static void philox(Lower *L, CVal *seed_c, CVal **c, int n, Loc loc, const char *fname)
{
    static const char *const cname[4] = {"c0 (the offset)", "c1", "c2", "c3"};
    Value *seed = to_value(L, seed_c, loc);
    Value *cv[4];
    bool all_scalar = seed->type.rank == 0;
    for (int i = 0; i < 4; i++) {
        cv[i] = to_value(L, c[i], loc);
        all_scalar = all_scalar && cv[i]->type.rank == 0;
    }
    if (!dtype_is_int(seed->type.dtype)) /* tl.static_assert(seed.dtype.is_int()) */
        lower_error(L, loc, "%s: the seed must be an integer, got %s", fname, type_str(L->a, seed->type));
    seed = cast_value(L, seed, type_scalar(DT_U64), loc);
    DType c0d = cv[0]->type.dtype;
    if (c0d == DT_PTR)
        lower_error(L, loc, "%s: the offsets must be integers, got %s", fname, type_str(L->a, cv[0]->type));
    int bits = dtype_bits(c0d);
    DType d;
    CVal *k[2];
    if (bits == 32) {
        d = DT_U32;
        /* seed_hi = ((seed >> 32) & 0xffffffff).to(uint32); seed_lo = (seed & 0xffffffff).to(uint32) */
        CVal *s = cv_value(L, seed);
        CVal *hi = lower_binop(L, TOK_RSHIFT, s, cv_int(L, 32), loc);
        hi = lower_binop(L, TOK_AMP, hi, cv_int(L, 0xffffffff), loc);
        CVal *lo = lower_binop(L, TOK_AMP, s, cv_int(L, 0xffffffff), loc);
        k[1] = cv_value(L, cast_value(L, hi->v, type_scalar(DT_U32), loc));
        k[0] = cv_value(L, cast_value(L, lo->v, type_scalar(DT_U32), loc));
    } else if (bits == 64) {
        d = DT_U64;
        /* seed_hi = tl.full((1,), 0, uint64): a one-element tensor.  Against
         * any shaped operand it broadcasts like a scalar, so it is kept as a
         * tensor only where its shape shows in the results. */
        Value *zero = emit_const_int(L, DT_U64, 0, loc);
        if (all_scalar) {
            int one[1] = {1};
            zero = emit1(L, OP_SPLAT, loc, 1, &zero, type_tensor(type_scalar(DT_U64), 1, one));
        }
        k[1] = cv_value(L, zero);
        k[0] = cv_value(L, seed);
    } else {
        lower_error(L, loc, "%s: bitwidth not supported in philox: the offsets must be 32- or 64-bit, got %s",
                    fname, dtype_name(c0d));
    }
    for (int i = 0; i < 4; i++)
        c[i] = cv_value(L, bitcast_to(L, cv[i], d, loc, fname, cname[i]));
    philox_impl(L, c, k, n, loc, fname);
}

/* randint4x(seed, offset, n): the counter is (offset_lo, offset_hi, 0, 0)
 * with offset_lo = offset.to(uint32) (a cast, not a bitcast), offset_hi the
 * upper 32 bits of a 64-bit offset or zero, and the zeros made as
 * `offset_lo * 0`; so every offset width uses Philox4x32. */
static void randint4x(Lower *L, CVal *seed, CVal *offset, int n, CVal **out, Loc loc, const char *fname)
{
    if (offset->kind != CV_VALUE)
        lower_error(L, loc, "%s: the offset must be a tensor or a runtime scalar, got %s (Triton calls "
                    "offset.to(tl.uint32) on it)", fname, cv_describe(L, offset));
    Value *off = offset->v;
    if (off->type.dtype == DT_PTR)
        lower_error(L, loc, "%s: the offsets must be integers, got %s", fname, type_str(L->a, off->type));
    CVal *lo = cv_value(L, cast_value(L, off, type_scalar(DT_U32), loc));
    CVal *zero = lower_binop(L, TOK_STAR, lo, cv_int(L, 0), loc);
    CVal *hi = zero;
    if (dtype_bits(off->type.dtype) > 32) {
        CVal *sh = lower_binop(L, TOK_RSHIFT, offset, cv_int(L, 32), loc);
        hi = cv_value(L, cast_value(L, sh->v, type_scalar(DT_U32), loc));
    }
    out[0] = lo;
    out[1] = hi;
    out[2] = out[3] = zero;
    philox(L, seed, out, n, loc, fname);
}

/* uint_to_uniform_float(x): a random int as a float in [0, 1). */
static CVal *uint_to_uniform_float(Lower *L, CVal *xc, Loc loc, const char *fname)
{
    if (xc->kind != CV_VALUE)
        lower_error(L, loc, "%s expects a tensor of int32/uint32/int64/uint64, got %s", fname, cv_describe(L, xc));
    Value *x = xc->v;
    DType d = x->type.dtype;
    double scale;
    if (d == DT_U32 || d == DT_I32) {
        x = bitcast_to(L, x, DT_I32, loc, fname, "x");
        scale = UNIFORM_SCALE_32;
    } else if (d == DT_U64 || d == DT_I64) {
        x = bitcast_to(L, x, DT_I64, loc, fname, "x");
        scale = UNIFORM_SCALE_64;
    } else {
        lower_error(L, loc, "%s expects int32, uint32, int64 or uint64, got %s", fname, type_str(L->a, x->type));
    }
    /* x = tl.where(x < 0, -x - 1, x); return x * scale */
    CVal *xv = cv_value(L, x);
    CVal *neg = lower_compare(L, TOK_LT, xv, cv_int(L, 0), loc);
    CVal *m = lower_binop(L, TOK_MINUS, lower_unary(L, TOK_MINUS, xv, loc), cv_int(L, 1), loc);
    CVal *w = cv_value(L, lower_where(L, neg->v, m, xv, loc));
    return lower_binop(L, TOK_STAR, w, cv_float(L, scale), loc);
}

/* math.log / math.sqrt / math.cos / math.sin on fp32 or fp64. */
static CVal *math1(Lower *L, MathFn fn, CVal *xc, Loc loc, const char *fname)
{
    Value *x = to_value(L, xc, loc);
    if (x->type.dtype != DT_FP32 && x->type.dtype != DT_FP64)
        lower_error(L, loc, "%s expects fp32 or fp64, got %s", fname, type_str(L->a, x->type));
    Op *o = emit_op(L, OP_MATH, loc, 1, &x, x->type);
    o->math.fn = fn;
    return cv_value(L, o->results[0]);
}

/* pair_uniform_to_normal(u1, u2): Box-Muller. */
static void pair_uniform_to_normal(Lower *L, CVal *u1, CVal *u2, CVal **out, Loc loc, const char *fname)
{
    u1 = cv_value(L, lower_minmax(L, true, cv_float(L, 1.0e-7), u1, loc));
    CVal *th = lower_binop(L, TOK_STAR, cv_float(L, 6.283185307179586), u2, loc);
    CVal *r = lower_binop(L, TOK_STAR, cv_float(L, -2.0), math1(L, MATH_LOG, u1, loc, fname), loc);
    r = math1(L, MATH_SQRT, r, loc, fname);
    out[0] = lower_binop(L, TOK_STAR, r, math1(L, MATH_COS, th, loc, fname), loc);
    out[1] = lower_binop(L, TOK_STAR, r, math1(L, MATH_SIN, th, loc, fname), loc);
}

/* ---- the builtins -------------------------------------------------------------- */

CVal *builtin_philox_impl(const BuiltinCall *c)
{
    CVal *r[4] = {c->arg[0], c->arg[1], c->arg[2], c->arg[3]}, *k[2] = {c->arg[4], c->arg[5]};
    philox_impl(c->L, r, k, n_rounds_arg(c->L, c->arg[6], c->at[6], c->name), c->loc, c->name);
    return tuple_of(c->L, r, 4);
}

CVal *builtin_philox(const BuiltinCall *c)
{
    CVal *r[4] = {c->arg[1], c->arg[2], c->arg[3], c->arg[4]};
    philox(c->L, c->arg[0], r, n_rounds_arg(c->L, c->arg[5], c->at[5], c->name), c->loc, c->name);
    return tuple_of(c->L, r, 4);
}

CVal *builtin_uint_to_uniform_float(const BuiltinCall *c)
{
    return uint_to_uniform_float(c->L, c->arg[0], c->at[0], c->name);
}

CVal *builtin_pair_uniform_to_normal(const BuiltinCall *c)
{
    CVal *nrm[2];
    pair_uniform_to_normal(c->L, c->arg[0], c->arg[1], nrm, c->loc, c->name);
    return tuple_of(c->L, nrm, 2);
}

/* The four random ints of (seed, offset, n_rounds), the parameters of
 * randint, randint4x, rand, rand4x, randn and randn4x. */
static void random_ints(const BuiltinCall *c, CVal **r)
{
    randint4x(c->L, c->arg[0], c->arg[1], n_rounds_arg(c->L, c->arg[2], c->at[2], c->name), r, c->loc, c->name);
}

/* r[0..n) as uniform floats */
static void uniform(const BuiltinCall *c, CVal **r, int n)
{
    for (int i = 0; i < n; i++)
        r[i] = uint_to_uniform_float(c->L, r[i], c->loc, c->name);
}

CVal *builtin_randint(const BuiltinCall *c)
{
    CVal *r[4];
    random_ints(c, r);
    return r[0];
}

CVal *builtin_randint4x(const BuiltinCall *c)
{
    CVal *r[4];
    random_ints(c, r);
    return tuple_of(c->L, r, 4);
}

CVal *builtin_rand(const BuiltinCall *c)
{
    CVal *r[4];
    random_ints(c, r);
    uniform(c, r, 1);
    return r[0];
}

CVal *builtin_rand4x(const BuiltinCall *c)
{
    CVal *r[4];
    random_ints(c, r);
    uniform(c, r, 4);
    return tuple_of(c->L, r, 4);
}

CVal *builtin_randn(const BuiltinCall *c)
{
    CVal *r[4], *nrm[2];
    random_ints(c, r);
    uniform(c, r, 2);
    pair_uniform_to_normal(c->L, r[0], r[1], nrm, c->loc, c->name);
    return nrm[0];
}

CVal *builtin_randn4x(const BuiltinCall *c)
{
    CVal *r[4], *nrm[4];
    random_ints(c, r);
    uniform(c, r, 4);
    pair_uniform_to_normal(c->L, r[0], r[1], nrm, c->loc, c->name);
    pair_uniform_to_normal(c->L, r[2], r[3], nrm + 2, c->loc, c->name);
    return tuple_of(c->L, nrm, 4);
}

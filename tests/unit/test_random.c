/* test_random.c — Triton's Philox RNG (lower_random.c) checked on the CPU.
 *
 * Each kernel is lowered to tile IR and the IR itself is run by a small
 * interpreter on scalar (one-element) values, then compared with
 *   - the Random123 known-answer vectors for Philox4x32 and Philox4x64
 *     (tests/kat_vectors of github.com/DEShawResearch/random123, 7 and 10
 *     rounds), which pins the constants, the round structure and the key
 *     schedule, and
 *   - a reference written from triton/language/random.py (seed split into
 *     (lo, hi) after a sign-extending cast to uint64, counter (offset, 0, 0, 0),
 *     uint_to_uniform_float, Box-Muller), which pins the wrappers.
 * The GPU side (that the emitted CUDA computes what the IR says) is covered
 * by the GPU tests. */
#include <criterion/criterion.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "lexer.h"

static Ctx ctx;
static Source src;

static void reset(void)
{
    arena_free(&ctx.arena);
    sb_free(&ctx.log);
}

TestSuite(random, .fini = reset);

/* ---- reference Philox ------------------------------------------------------ */

static void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[1] = (uint32_t)p1;
        c[3] = (uint32_t)p0;
        c[0] = n0;
        c[2] = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

static void philox4x64(uint64_t c[4], uint64_t k0, uint64_t k1, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        unsigned __int128 p0 = (unsigned __int128)0xD2E7470EE14C6C93ull * c[0];
        unsigned __int128 p1 = (unsigned __int128)0xCA5A826395121157ull * c[2];
        uint64_t n0 = (uint64_t)(p1 >> 64) ^ c[1] ^ k0, n2 = (uint64_t)(p0 >> 64) ^ c[3] ^ k1;
        c[1] = (uint64_t)p1;
        c[3] = (uint64_t)p0;
        c[0] = n0;
        c[2] = n2;
        k0 += 0x9E3779B97F4A7C15ull;
        k1 += 0xBB67AE8584CAA73Bull;
    }
}

static float ref_uniform32(uint32_t u)
{
    int32_t x = (int32_t)u;
    x = x < 0 ? (int32_t)(-(int64_t)x - 1) : x;
    return (float)x * (float)4.6566127342e-10;
}

static float ref_uniform64(uint64_t u)
{
    int64_t x = (int64_t)u;
    x = x < 0 ? -(x + 1) : x;
    return (float)x * (float)1.0842020432385337e-19;
}

static float ref_normal(float u1, float u2)
{
    u1 = fmaxf((float)1.0e-7, u1);
    float th = (float)6.283185307179586 * u2;
    float r = sqrtf(-2.0f * logf(u1));
    return r * cosf(th);
}

/* The Random123 known answers: counter[4], key[2] -> output[4]. */
typedef struct Kat32 {
    int rounds;
    uint32_t ctr[4], key[2], out[4];
} Kat32;

static const Kat32 kat32[] = {
    {7, {0, 0, 0, 0}, {0, 0}, {0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
    {7, {~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, {0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
    {7, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
    {10, {0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {10, {~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {10, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

typedef struct Kat64 {
    int rounds;
    uint64_t ctr[4], key[2], out[4];
} Kat64;

#define ONES64 0xffffffffffffffffull
static const Kat64 kat64[] = {
    {7, {0, 0, 0, 0}, {0, 0},
     {0x5dc8ee6268ec62cdull, 0x139bc570b6c125a0ull, 0x84d6deb4fb65f49eull, 0xaff7583376d378c2ull}},
    {7, {ONES64, ONES64, ONES64, ONES64}, {ONES64, ONES64},
     {0x071dd84367903154ull, 0x48e2bbdc722b37d1ull, 0x6afa9890bb89f76cull, 0x9194c8d8ada56ac7ull}},
    {7, {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull},
     {0x452821e638d01377ull, 0xbe5466cf34e90c6cull},
     {0x513a366704edf755ull, 0xf05d9924c07044d3ull, 0xbef2cb9cbea74c6cull, 0x8db948de4caa1f8aull}},
    {10, {0, 0, 0, 0}, {0, 0},
     {0x16554d9eca36314cull, 0xdb20fe9d672d0fdcull, 0xd7e772cee186176bull, 0x7e68b68aec7ba23bull}},
    {10, {ONES64, ONES64, ONES64, ONES64}, {ONES64, ONES64},
     {0x87b092c3013fe90bull, 0x438c3c67be8d0224ull, 0x9cc7d7c69cd777b6ull, 0xa09caebf594f0ba0ull}},
    {10, {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull},
     {0x452821e638d01377ull, 0xbe5466cf34e90c6cull},
     {0xa528f45403e61d95ull, 0x38c72dbd566e9788ull, 0xa5a1610e72fd18b5ull, 0x57bd43b5e52b7fe6ull}},
};

/* ---- lowering and a scalar IR interpreter -------------------------------------- */

static TirFunc *lower_kernel(const char *source, const char *sig, const char *defines)
{
    src = (Source){"t.py", source, strlen(source)};
    memset(&ctx, 0, sizeof ctx);
    ctx.src = &src;
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&ctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    if (defines) {
        SpecEntry e = {0};
        const char *eq = strchr(defines, '=');
        e.name = arena_strndup(&ctx.arena, defines, (size_t)(eq - defines));
        e.text = eq + 1;
        vec_push(&ctx.arena, &opt.lower.defines, e);
    }
    jmp_buf jb;
    ctx.on_error = &jb;
    if (setjmp(jb))
        cr_assert_fail("lowering failed:\n%s", ctx.log.data ? ctx.log.data : "");
    TokenArray toks = lex_source(&ctx);
    Module *m = parse_module(&ctx, toks);
    TirFunc *f = tir_lower(&ctx, m, &opt.lower);
    tir_simplify(&ctx, f);
    ctx.on_error = NULL;
    return f;
}

/* Every value holds one element: ints as their bits (sign- or zero-extended to
 * 64 bits by their type), floats as a double (fp32 rounded to float). */
typedef struct Cell {
    uint64_t u;
    double f;
} Cell;

static uint64_t norm(DType d, uint64_t x)
{
    int b = dtype_bits(d);
    if (d == DT_I1)
        return x != 0;
    if (b >= 64)
        return x;
    x &= ((uint64_t)1 << b) - 1;
    if (dtype_is_signed(d) && (x >> (b - 1)) & 1)
        x |= ~(((uint64_t)1 << b) - 1);
    return x;
}

static double fround(DType d, double x) { return d == DT_FP32 ? (double)(float)x : x; }

/* Pointer parameter j points at out[j]; a pointer is (j << 32) + index. */
#define MAX_OUT 16
typedef struct Machine {
    Cell *cell;
    Cell out[2][MAX_OUT];
    bool stored[2][MAX_OUT];
} Machine;

static void run_op(Machine *M, const Op *op)
{
    Cell *c = M->cell;
    Cell a = op->nargs > 0 ? c[op->args[0]->id] : (Cell){0, 0};
    Cell b = op->nargs > 1 ? c[op->args[1]->id] : (Cell){0, 0};
    if (op->kind == OP_STORE) {
        uint64_t j = a.u >> 32, i = a.u & 0xffffffffu;
        cr_assert(j < 2 && i < MAX_OUT, "store out of range");
        cr_assert(!op->store.has_mask || c[op->args[2]->id].u, "masked-off store");
        M->out[j][i] = b;
        M->stored[j][i] = true;
        return;
    }
    cr_assert_eq(op->nres, 1, "unexpected op %s", op_name(op->kind));
    const Value *r = op->results[0];
    DType d = r->type.dtype, ad = op->nargs ? op->args[0]->type.dtype : d;
    bool isf = dtype_is_float(ad);
    Cell o = {0, 0};
    switch (op->kind) {
    case OP_CONST:
        if (dtype_is_float(d))
            o.f = fround(d, op->constant.fval);
        else
            o.u = norm(d, (uint64_t)op->constant.ival);
        break;
    case OP_MAKE_RANGE: o.u = (uint64_t)op->make_range.start; break;
    case OP_SPLAT:
    case OP_BROADCAST:
    case OP_EXPAND_DIMS: o = a; break;
    case OP_ADDPTR: o.u = a.u + b.u; break;
    case OP_CAST:
        if (dtype_is_float(d))
            o.f = fround(d, isf ? a.f : dtype_is_signed(ad) ? (double)(int64_t)a.u : (double)a.u);
        else if (d == DT_I1)
            o.u = isf ? a.f != 0 : a.u != 0;
        else if (isf)
            o.u = norm(d, (uint64_t)(int64_t)a.f);
        else
            o.u = norm(d, a.u);
        break;
    case OP_BITCAST:
        cr_assert(!isf && !dtype_is_float(d), "float bitcast not modelled");
        o.u = norm(d, a.u);
        break;
    case OP_ADD: if (isf) o.f = fround(d, a.f + b.f); else o.u = norm(d, a.u + b.u); break;
    case OP_SUB: if (isf) o.f = fround(d, a.f - b.f); else o.u = norm(d, a.u - b.u); break;
    case OP_MUL: if (isf) o.f = fround(d, a.f * b.f); else o.u = norm(d, a.u * b.u); break;
    case OP_AND: o.u = a.u & b.u; break;
    case OP_OR: o.u = a.u | b.u; break;
    case OP_XOR: o.u = norm(d, a.u ^ b.u); break;
    case OP_SHR:
        o.u = dtype_is_signed(d) ? norm(d, (uint64_t)((int64_t)a.u >> b.u)) : norm(d, a.u >> b.u);
        break;
    case OP_SHL: o.u = norm(d, a.u << b.u); break;
    case OP_NEG: if (isf) o.f = -a.f; else o.u = norm(d, 0 - a.u); break;
    case OP_UMULHI:
        if (dtype_bits(d) == 32)
            o.u = norm(d, ((a.u & 0xffffffffu) * (b.u & 0xffffffffu)) >> 32);
        else
            o.u = norm(d, (uint64_t)(((unsigned __int128)a.u * b.u) >> 64));
        break;
    case OP_CMP: {
        int cmp;
        if (isf)
            cmp = a.f < b.f ? -1 : a.f > b.f;
        else if (dtype_is_signed(ad))
            cmp = (int64_t)a.u < (int64_t)b.u ? -1 : (int64_t)a.u > (int64_t)b.u;
        else
            cmp = a.u < b.u ? -1 : a.u > b.u;
        static const int want[][3] = {{1, 0, 0}, {1, 1, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 0, 1}};
        o.u = (uint64_t)want[op->cmp.pred][cmp + 1];
        break;
    }
    case OP_SELECT: o = a.u ? b : c[op->args[2]->id]; break;
    case OP_MAX:
        cr_assert(isf);
        o.f = fround(d, fmax(a.f, b.f));
        break;
    case OP_MATH:
        cr_assert_eq(d, DT_FP32);
        switch (op->math.fn) {
        case MATH_LOG: o.f = logf((float)a.f); break;
        case MATH_SQRT: o.f = sqrtf((float)a.f); break;
        case MATH_COS: o.f = cosf((float)a.f); break;
        case MATH_SIN: o.f = sinf((float)a.f); break;
        default: cr_assert_fail("math function %d not modelled", (int)op->math.fn);
        }
        break;
    default: cr_assert_fail("op %s not modelled", op_name(op->kind));
    }
    c[r->id] = o;
}

/* Run `f` with its runtime scalar parameters (those that are not pointers)
 * set to `params`, in order. */
static void run(TirFunc *f, const uint64_t *params, int nparams, Machine *M)
{
    memset(M, 0, sizeof *M);
    M->cell = arena_alloc(&ctx.arena, sizeof(Cell) * (size_t)(f->nvalues + 1));
    memset(M->cell, 0, sizeof(Cell) * (size_t)(f->nvalues + 1));
    int k = 0, nptr = 0;
    for (int i = 0; i < f->params.len; i++) {
        KernelParam *p = &f->params.data[i];
        if (!p->value)
            continue;
        if (p->type.dtype == DT_PTR) {
            M->cell[p->value->id].u = (uint64_t)nptr++ << 32;
            continue;
        }
        cr_assert(k < nparams, "too few parameters");
        M->cell[p->value->id].u = norm(p->type.dtype, params[k++]);
    }
    cr_assert_eq(k, nparams, "too many parameters");
    for (int i = 0; i < f->body->ops.len; i++) {
        const Op *op = f->body->ops.data[i];
        if (op->kind == OP_RETURN)
            break;
        run_op(M, op);
    }
}

/* ---- tests -------------------------------------------------------------------- */

static const char *philox32_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(out, seed, c0, c1, c2, c3, N: tl.constexpr):\n"
    "    a, b, c, d = tl.philox(seed, c0, c1, c2, c3, N)\n"
    "    tl.store(out + 0, a)\n"
    "    tl.store(out + 1, b)\n"
    "    tl.store(out + 2, c)\n"
    "    tl.store(out + 3, d)\n";

/* tl.philox with 32-bit counters is Philox4x32 keyed by (seed_lo, seed_hi). */
Test(random, philox4x32_known_answers)
{
    for (size_t t = 0; t < ARRAY_LEN(kat32); t++) {
        const Kat32 *K = &kat32[t];
        char def[32];
        snprintf(def, sizeof def, "N=%d", K->rounds);
        TirFunc *f = lower_kernel(philox32_src, "*u32, i64, i32, i32, i32, i32", def);
        uint64_t seed = ((uint64_t)K->key[1] << 32) | K->key[0];
        uint64_t p[5] = {seed, K->ctr[0], K->ctr[1], K->ctr[2], K->ctr[3]};
        Machine M;
        run(f, p, 5, &M);
        for (int i = 0; i < 4; i++) {
            cr_assert(M.stored[0][i]);
            cr_expect_eq(M.out[0][i].u, K->out[i], "vector %zu word %d: got %08llx want %08x", t, i,
                         (unsigned long long)M.out[0][i].u, K->out[i]);
        }
        reset();
    }
}

/* tl.philox_impl on uint64 state is Philox4x64. */
Test(random, philox4x64_known_answers)
{
    static const char *s =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(out, c0, c1, c2, c3, k0, k1, N: tl.constexpr):\n"
        "    u = tl.uint64\n"
        "    a, b, c, d = tl.philox_impl(c0.to(u, bitcast=True), c1.to(u, bitcast=True), c2.to(u, bitcast=True),\n"
        "                                c3.to(u, bitcast=True), k0.to(u, bitcast=True), k1.to(u, bitcast=True), N)\n"
        "    tl.store(out + 0, a)\n"
        "    tl.store(out + 1, b)\n"
        "    tl.store(out + 2, c)\n"
        "    tl.store(out + 3, d)\n";
    for (size_t t = 0; t < ARRAY_LEN(kat64); t++) {
        const Kat64 *K = &kat64[t];
        char def[32];
        snprintf(def, sizeof def, "N=%d", K->rounds);
        TirFunc *f = lower_kernel(s, "*u64, i64, i64, i64, i64, i64, i64", def);
        uint64_t p[6] = {K->ctr[0], K->ctr[1], K->ctr[2], K->ctr[3], K->key[0], K->key[1]};
        Machine M;
        run(f, p, 6, &M);
        for (int i = 0; i < 4; i++)
            cr_expect_eq(M.out[0][i].u, K->out[i], "vector %zu word %d: got %016llx want %016llx", t, i,
                         (unsigned long long)M.out[0][i].u, (unsigned long long)K->out[i]);
        reset();
    }
}

static const char *streams_src =
    "import triton\nimport triton.language as tl\n"
    "@triton.jit\n"
    "def k(outi, outf, seed, off):\n"
    "    a, b, c, d = tl.randint4x(seed, off)\n"
    "    tl.store(outi + 0, a)\n"
    "    tl.store(outi + 1, b)\n"
    "    tl.store(outi + 2, c)\n"
    "    tl.store(outi + 3, d)\n"
    "    tl.store(outi + 4, tl.randint(seed, off))\n"
    "    tl.store(outf + 5, tl.rand(seed, off))\n"
    "    tl.store(outf + 6, tl.randn(seed, off))\n"
    "    u0, u1, u2, u3 = tl.rand4x(seed, off)\n"
    "    tl.store(outf + 7, u3)\n"
    "    n0, n1, n2, n3 = tl.randn4x(seed, off)\n"
    "    tl.store(outf + 8, n1)\n"
    "    tl.store(outf + 9, tl.random.rand(seed, off, n_rounds=3))\n";

static const int64_t seeds[] = {0, 1, 42, -1, -123456789, 0x7fffffff, (int64_t)0x123456789abcdefll,
                                -0x100000000ll};
static const int64_t offsets32[] = {0, 1, 2, 1000, -1, 0x7fffffff, INT32_MIN};

static void check_streams(TirFunc *f, int64_t seed, int64_t off, bool wide_seed)
{
    /* Triton: seed.to(uint64) sign-extends a signed seed; (lo, hi) is the key. */
    uint64_t s = wide_seed ? (uint64_t)seed : (uint64_t)(int64_t)(int32_t)seed;
    uint32_t c[4] = {(uint32_t)off, 0, 0, 0};
    philox4x32(c, (uint32_t)s, (uint32_t)(s >> 32), 10);
    uint32_t c3[4] = {(uint32_t)off, 0, 0, 0};
    philox4x32(c3, (uint32_t)s, (uint32_t)(s >> 32), 3);
    uint64_t p[2] = {(uint64_t)seed, (uint64_t)off};
    Machine M;
    run(f, p, 2, &M);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(M.out[0][i].u, c[i], "randint4x[%d] seed %lld offset %lld", i, (long long)seed, (long long)off);
    cr_expect_eq(M.out[0][4].u, c[0], "randint");
    cr_expect_eq((float)M.out[1][5].f, ref_uniform32(c[0]), "rand seed %lld offset %lld", (long long)seed,
                 (long long)off);
    cr_expect((float)M.out[1][5].f >= 0.0f && (float)M.out[1][5].f < 1.0f);
    cr_expect_eq((float)M.out[1][6].f, ref_normal(ref_uniform32(c[0]), ref_uniform32(c[1])), "randn");
    cr_expect_eq((float)M.out[1][7].f, ref_uniform32(c[3]), "rand4x[3]");
    float u0 = ref_uniform32(c[0]), u1 = ref_uniform32(c[1]);
    u0 = fmaxf((float)1.0e-7, u0);
    float n1 = sqrtf(-2.0f * logf(u0)) * sinf((float)6.283185307179586 * u1);
    cr_expect_eq((float)M.out[1][8].f, n1, "randn4x[1]");
    cr_expect_eq((float)M.out[1][9].f, ref_uniform32(c3[0]), "rand with n_rounds=3");
}

Test(random, int32_seed_and_offset)
{
    TirFunc *f = lower_kernel(streams_src, "*u32, *fp32, i32, i32", NULL);
    for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
        for (size_t j = 0; j < ARRAY_LEN(offsets32); j++)
            check_streams(f, (int64_t)(int32_t)seeds[i], offsets32[j], false);
}

Test(random, int64_seed)
{
    TirFunc *f = lower_kernel(streams_src, "*u32, *fp32, i64, i32", NULL);
    for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
        for (size_t j = 0; j < ARRAY_LEN(offsets32); j++)
            check_streams(f, seeds[i], offsets32[j], true);
}

/* A Python-int seed is an int32 constant when it fits, so -7 sign-extends;
 * 3000000000 is a uint32 constant, zero-extended. */
Test(random, constant_seed)
{
    static const char *s =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(out, off):\n"
        "    tl.store(out + 0, tl.randint(-7, off))\n"
        "    tl.store(out + 1, tl.randint(3000000000, off))\n";
    TirFunc *f = lower_kernel(s, "*u32, i32", NULL);
    uint64_t p[1] = {77};
    Machine M;
    run(f, p, 1, &M);
    uint32_t c[4] = {77, 0, 0, 0};
    philox4x32(c, (uint32_t)-7, 0xffffffffu, 10);
    cr_expect_eq(M.out[0][0].u, c[0], "seed -7");
    uint32_t d[4] = {77, 0, 0, 0};
    philox4x32(d, 3000000000u, 0, 10);
    cr_expect_eq(M.out[0][1].u, d[0], "seed 3000000000");
}

/* Offsets of other widths: offset.to(uint32) is a cast (int16 sign-extends),
 * and a 64-bit offset puts its upper half in the second counter word. */
Test(random, offset_widths)
{
    static const char *s =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(out, seed, off):\n"
        "    tl.store(out + 0, tl.randint(seed, off))\n"
        "    tl.store(out + 1, tl.randint(seed, off.to(tl.int16)))\n"
        "    tl.store(out + 2, tl.randint(seed, off.to(tl.uint64)))\n"
        "    tl.store(out + 3, tl.randint(seed, off.to(tl.int32)))\n";
    static const int64_t offs[] = {0, 5, -1, -300, (int64_t)0x123456789ll, INT64_MIN, INT64_MAX};
    TirFunc *f = lower_kernel(s, "*u32, i32, i64", NULL);
    for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
        for (size_t j = 0; j < ARRAY_LEN(offs); j++) {
            int64_t seed = (int32_t)seeds[i], o = offs[j];
            uint64_t key = (uint64_t)seed;
            uint32_t c64[4] = {(uint32_t)o, (uint32_t)((uint64_t)o >> 32), 0, 0};
            philox4x32(c64, (uint32_t)key, (uint32_t)(key >> 32), 10);
            uint32_t c16[4] = {(uint32_t)(int32_t)(int16_t)o, 0, 0, 0};
            philox4x32(c16, (uint32_t)key, (uint32_t)(key >> 32), 10);
            uint32_t c32[4] = {(uint32_t)o, 0, 0, 0};
            philox4x32(c32, (uint32_t)key, (uint32_t)(key >> 32), 10);
            uint64_t p[2] = {(uint64_t)seed, (uint64_t)o};
            Machine M;
            run(f, p, 2, &M);
            cr_expect_eq(M.out[0][0].u, c64[0], "int64 offset %lld seed %lld", (long long)o, (long long)seed);
            cr_expect_eq(M.out[0][1].u, c16[0], "int16 offset %lld", (long long)o);
            cr_expect_eq(M.out[0][2].u, c64[0], "uint64 offset %lld", (long long)o);
            cr_expect_eq(M.out[0][3].u, c32[0], "int32 offset %lld", (long long)o);
        }
}

/* tl.philox with 64-bit counters: Philox4x64 keyed by (seed, 0), and
 * uint_to_uniform_float's int64 branch on its results.  seed_hi is Triton's
 * tl.full((1,), 0), so scalar counters give one-element tensors. */
Test(random, philox_64bit_counters)
{
    static const char *s =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(outi, outf, seed, off):\n"
        "    i = tl.arange(0, 1)\n"
        "    z = off * 0\n"
        "    a, b, c, d = tl.random.philox(seed, off, z, z, z)\n"
        "    tl.store(outi + 0 + i, a.to(tl.int64, bitcast=True))\n"
        "    tl.store(outi + 3 + i, d.to(tl.int64, bitcast=True))\n"
        "    tl.store(outf + i, tl.uint_to_uniform_float(a))\n"
        "    n0, n1 = tl.pair_uniform_to_normal(tl.uint_to_uniform_float(a), tl.uint_to_uniform_float(b))\n"
        "    tl.store(outf + 1 + i, n0)\n";
    static const int64_t offs[] = {0, 5, -1, (int64_t)0x123456789ll, INT64_MIN};
    TirFunc *f = lower_kernel(s, "*i64, *fp32, i64, i64", NULL);
    for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
        for (size_t j = 0; j < ARRAY_LEN(offs); j++) {
            uint64_t c[4] = {(uint64_t)offs[j], 0, 0, 0};
            philox4x64(c, (uint64_t)seeds[i], 0, 10);
            uint64_t p[2] = {(uint64_t)seeds[i], (uint64_t)offs[j]};
            Machine M;
            run(f, p, 2, &M);
            cr_expect_eq(M.out[0][0].u, c[0], "philox[0] seed %lld offset %lld", (long long)seeds[i], (long long)offs[j]);
            cr_expect_eq(M.out[0][3].u, c[3], "philox[3]");
            cr_expect_eq((float)M.out[1][0].f, ref_uniform64(c[0]), "uniform");
            cr_expect((float)M.out[1][0].f >= 0.0f && (float)M.out[1][0].f < 1.0f);
            cr_expect_eq((float)M.out[1][1].f, ref_normal(ref_uniform64(c[0]), ref_uniform64(c[1])), "normal");
        }
}

/* The uniform conversion at its edges: never 1.0, symmetric in the sign bit. */
Test(random, uniform_float_edges)
{
    static const char *s =
        "import triton\nimport triton.language as tl\n"
        "@triton.jit\n"
        "def k(out, x):\n"
        "    tl.store(out, tl.uint_to_uniform_float(x))\n";
    TirFunc *f = lower_kernel(s, "*fp32, u32", NULL);
    static const uint32_t xs[] = {0, 1, 0x7fffffff, 0x80000000u, 0xffffffffu, 0x12345678};
    for (size_t i = 0; i < ARRAY_LEN(xs); i++) {
        uint64_t p[1] = {xs[i]};
        Machine M;
        run(f, p, 1, &M);
        cr_expect_eq((float)M.out[0][0].f, ref_uniform32(xs[i]), "x = %08x", xs[i]);
        cr_expect((float)M.out[0][0].f < 1.0f, "x = %08x gives %a", xs[i], M.out[0][0].f);
    }
    cr_expect_eq(ref_uniform32(0x7fffffff), ref_uniform32(0x80000000u));
}

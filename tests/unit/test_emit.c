/* test_emit.c — properties of the CUDA that src/emit_cuda/ prints, checked on every
 * line of a translation (the golden tests pin the exact text; these say what must hold in
 * any text the emitter could choose). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tilec.h"

/* Kernel `k` of `source` translated with `signature` (num_warps and arch 0: the defaults);
 * fails the test with tilec's diagnostics when it does not translate. */
static tilec_translation *translate_k(const char *source, const char *signature, int num_warps, int arch)
{
    tilec_translate_options o = {.filename = "k.py", .kernel = "k", .signature = signature,
                                 .num_warps = num_warps, .arch = arch};
    tilec_translation *t;
    cr_assert_eq(tilec_translate_source(source, &o, &t), TILEC_OK, "%s: %s", signature, t->diagnostic_text);
    return t;
}

/* One reduction per dtype and kind, across lanes (and warps with more than one). */
static const char reduce_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ROWS: tl.constexpr):\n"
    "    r = tl.arange(0, ROWS)\n"
    "    c = tl.arange(0, BLOCK)\n"
    "    mask = (r[:, None] < ROWS) & (c[None, :] < n)\n"
    "    x = tl.load(x_ptr + r[:, None] * BLOCK + c[None, :], mask=mask, other=0)\n"
    "    tl.store(out_ptr + r, tl.max(x, axis=1) + tl.min(x, axis=1) + tl.sum(x, axis=1))\n"
    "    tl.store(out_ptr + ROWS + c, tl.max(x, axis=0) - tl.min(x, axis=0))\n"
    "    tl.store(out_ptr + ROWS + BLOCK, tl.max(tl.max(x, axis=1), axis=0))\n";

typedef struct ReduceCase {
    char signature[40];
    int num_warps;
} ReduceCase;

ParameterizedTestParameters(emit, shuffles_run_in_every_lane)
{
    static ReduceCase cases[] = {
        {"*i32, *i32, i32, 256, 4", 4},  {"*i32, *i32, i32, 32, 1", 1},  {"*i64, *i64, i32, 128, 8", 8},
        {"*i8, *i8, i32, 64, 2", 2},     {"*i16, *i16, i32, 512, 2", 8}, {"*u32, *u32, i32, 64, 4", 2},
        {"*fp32, *fp32, i32, 256, 4", 4}, {"*fp16, *fp16, i32, 64, 2", 1},
    };
    return cr_make_param_array(ReduceCase, cases, sizeof cases / sizeof cases[0]);
}

/* A warp shuffle with a full mask must be reached by all 32 lanes: never inside a
 * conditional expression (`a < shfl(..) ? a : shfl(..)` shuffles again in only the lanes
 * that take the second branch, and on the GPU those shuffles pair with unrelated ones). */
ParameterizedTest(ReduceCase *rc, emit, shuffles_run_in_every_lane)
{
    tilec_translation *t = translate_k(reduce_py, rc->signature, rc->num_warps, 0);
    int shuffles = 0;
    for (const char *p = t->code; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (strstr(line, "tilec::shfl_") && !strstr(line, "__device__")) {
            shuffles++;
            cr_expect_null(strchr(line, '?'), "%s: a shuffle inside a conditional: %s", rc->signature, line);
        }
        p += len + (nl != NULL);
    }
    cr_expect_gt(shuffles, 0, "%s: no shuffle found (the test no longer looks at the butterfly)", rc->signature);
    tilec_translation_free(t);
}

/* ---- fp8 conversions: one named helper each (templates/tilec_runtime_fp8.cuh) ---- */

static const char fp8_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr, RTZ: tl.constexpr):\n"
    "    offs = tl.arange(0, 128)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    if RTZ:\n"
    "        tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty, fp_downcast_rounding='rtz'))\n"
    "    else:\n"
    "        tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty))\n";

typedef struct Fp8Emit {
    char signature[32];
    char helper[32];  /* the call that must appear in the kernel */
} Fp8Emit;

ParameterizedTestParameters(emit, fp8_conversion_helpers)
{
    static Fp8Emit cases[] = {
        {"*fp32, *fp8e4nv, 0", "tilec::f32_to_e4m3("},   {"*fp32, *fp8e5, 0", "tilec::f32_to_e5m2("},
        {"*fp32, *fp8e5, 1", "tilec::f32_to_e5m2_rz("},  {"*fp16, *fp8e4nv, 0", "tilec::f16_to_e4m3("},
        {"*fp16, *fp8e5, 0", "tilec::f16_to_e5m2("},     {"*bf16, *fp8e4nv, 0", "tilec::bf16_to_e4m3("},
        {"*bf16, *fp8e5, 0", "tilec::bf16_to_e5m2("},    {"*fp8e4nv, *fp32, 0", "tilec::e4m3_to_f32("},
        {"*fp8e4nv, *fp16, 0", "tilec::e4m3_to_f16("},   {"*fp8e4nv, *bf16, 0", "tilec::e4m3_to_bf16("},
        {"*fp8e5, *fp32, 0", "tilec::e5m2_to_f32("},     {"*fp8e5, *fp16, 0", "tilec::e5m2_to_f16("},
        {"*fp8e5, *bf16, 0", "tilec::e5m2_to_bf16("},
    };
    return cr_make_param_array(Fp8Emit, cases, sizeof cases / sizeof cases[0]);
}

/* The conversion is the helper named after its two types, applied in the kernel body, and
 * the file includes cuda_fp8.h and the fp8 helpers (which other kernels do without). */
ParameterizedTest(Fp8Emit *c, emit, fp8_conversion_helpers)
{
    tilec_translation *t = translate_k(fp8_py, c->signature, 0, 90);
    const char *body = strstr(t->code, "extern \"C\" __global__");
    cr_assert(body, "no kernel in:\n%s", t->code);
    cr_expect(strstr(body, c->helper), "%s: no %s in the kernel:\n%s", c->signature, c->helper, body);
    cr_expect(strstr(t->code, "#include <cuda_fp8.h>"), "%s: cuda_fp8.h not included", c->signature);
    cr_expect(strstr(t->code, "tilec fp8 helpers"), "%s: the fp8 helpers are missing", c->signature);
    tilec_translation_free(t);
}

Test(emit, no_fp8_helpers_without_fp8)
{
    tilec_translation *t = translate_k(fp8_py, "*fp32, *fp16, 0", 0, 0);
    cr_expect_null(strstr(t->code, "cuda_fp8.h"));
    cr_expect_null(strstr(t->code, "tilec fp8 helpers"));
    tilec_translation_free(t);
}

/* Unrolling names thousands of values alike (acc, acc_2, ... acc_4096): naming each must not
 * scan all the names before it for every suffix it tries.  That took 78 s for this kernel
 * (found by the fuzzer as a timeout); now it takes milliseconds, and the timeout fails a
 * return of the quadratic search. */
static const char unrolled_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, n):\n"
    "    acc = n\n"
    "    for i in tl.static_range(4096):\n"
    "        acc = acc * 3 + (acc >> 2) - 1\n"
    "    tl.store(x_ptr, acc)\n";

Test(emit, thousands_of_alike_names_in_linear_time, .timeout = 10)
{
    tilec_translation *t = translate_k(unrolled_py, "*i32, i32", 0, 0);
    cr_expect(strstr(t->code, "acc_4096 ="), "the last unrolled value is not acc_4096");
    cr_expect_null(strstr(t->code, "acc_4097"), "more names than values");
    tilec_translation_free(t);
}

/* Names that start like a layout's (L0, L1_rows) are the emitter's: a source variable called
 * L0 is printed as v_L0, and a layout's base bound twice (the same layout over a tile of 64
 * and one of 16 elements) as L0_base and L0_base_2.  Both once renamed forever, every
 * candidate L0_2, L0_3, ... being taken (found by the fuzzer as a timeout). */
static const char layout_names_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    L0 = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + L0)\n"
    "    tl.device_print('x', tl.zeros((16,), dtype=tl.float32))\n"
    "    tl.store(x_ptr + L0, x + 1)\n";

Test(emit, names_like_a_layouts_are_renamed_once, .timeout = 10)
{
    tilec_translation *t = translate_k(layout_names_py, "*fp32:16, i32, 64", 0, 0);
    cr_expect(strstr(t->code, "v_L0["), "the variable L0 is not v_L0:\n%s", t->code);
    cr_expect(strstr(t->code, "const int L0_base ="), "no L0_base:\n%s", t->code);
    cr_expect(strstr(t->code, "const int L0_base_2 ="), "no second binding L0_base_2:\n%s", t->code);
    tilec_translation_free(t);
}

/* The same for every prefix the emitter keeps (__, tilec, atom_, mma_): a parameter or a
 * local named so is printed as v_ and the rest of its name, its leading underscores dropped,
 * where adding '_' (parameters) or _2, _3 (locals) kept the prefix and looped for ever
 * (found by the fuzzer as a timeout: a parameter __x_ptr). */
static const char prefix_names_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(__x_ptr, tilec_n, BLOCK: tl.constexpr):\n"
    "    __t = tl.arange(0, BLOCK)\n"
    "    atom_t = tl.load(__x_ptr + __t, mask=__t < tilec_n)\n"
    "    mma_t = atom_t * 2\n"
    "    tl.store(__x_ptr + __t, mma_t, mask=__t < tilec_n)\n";

Test(emit, names_with_reserved_prefixes_are_renamed_once, .timeout = 10)
{
    tilec_translation *t = translate_k(prefix_names_py, "*fp32:16, i32, 64", 0, 0);
    static const char *const want[] = {"float *__restrict__ v_x_ptr", "int32_t v_tilec_n", "v_t[", "v_atom_t[",
                                       "v_mma_t["};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(t->code, want[i]), "no %s:\n%s", want[i], t->code);
    cr_expect(strstr(t->code, "__x_ptr          *fp32 (16-byte aligned), called v_x_ptr in the C code"), "%s", t->code);
    tilec_translation_free(t);
}

/* An unrolled loop whose statements alternate prints a source comment per statement, and
 * each comment asked whether its statement contracts a multiply-add by scanning every op of
 * the block: quadratic, a minute for these 65,536 statements.  The note still goes under the
 * statement that contracts (fp16 a * 3 + 1 as __hfma) and not under the other.  Under ASan
 * (make asan-check) every step costs an order more: fewer of them there, where the test
 * checks the notes rather than the time. */
#if defined(__SANITIZE_ADDRESS__)
#define OUTER_STEPS 2
#else
#define OUTER_STEPS 8
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
static const char alternating_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr):\n"
    "    acc = tl.load(x_ptr)\n"
    "    for j in tl.static_range(" STR(OUTER_STEPS) "):\n"
    "        for i in tl.static_range(4096):\n"
    "            acc = acc * 3 + 1\n"
    "            acc = acc - j\n"
    "    tl.store(x_ptr, acc)\n";

/* How many times `what` occurs in text, in one pass (strstr from each match would rescan the
 * rest under ASan, whose interceptor measures the whole string each call). */
static int count_of(const char *text, const char *what)
{
    size_t len = strlen(text), n = strlen(what);
    int count = 0;
    for (size_t i = 0; i + n <= len; i++)
        if (text[i] == what[0] && !memcmp(text + i, what, n))
            count++;
    return count;
}

Test(emit, alternating_statements_in_linear_time, .timeout = 10)
{
    tilec_translation *t = translate_k(alternating_py, "*fp16", 0, 0);
    cr_expect_eq(count_of(t->code, "// k.py:9  acc = acc * 3 + 1\n"), OUTER_STEPS * 4096);
    cr_expect_eq(count_of(t->code, "// k.py:10  acc = acc - j\n"), OUTER_STEPS * 4096);
    cr_expect_eq(count_of(t->code, "// (__hfma: "), OUTER_STEPS * 4096, "one note under each a * 3 + 1, none under acc - j");
    tilec_translation_free(t);
}

/* One warp: nothing needs `warp`, though comments speak of "this warp"; an
 * unused variable is an NVRTC warning (the attention difftest, seed 6). */
Test(emit, one_warp_dot_declares_no_warp_index)
{
    static const char dot_py[] = "import triton\n"
                                 "import triton.language as tl\n"
                                 "\n"
                                 "@triton.jit\n"
                                 "def k(a_ptr, b_ptr, c_ptr):\n"
                                 "    i = tl.arange(0, 16)\n"
                                 "    a = tl.load(a_ptr + i[:, None] * 16 + i[None, :])\n"
                                 "    b = tl.load(b_ptr + i[:, None] * 16 + i[None, :])\n"
                                 "    tl.store(c_ptr + i[:, None] * 16 + i[None, :], tl.dot(a, b))\n";
    tilec_translation *t = translate_k(dot_py, "*fp16:16, *fp16:16, *fp32:16", 1, 80);
    cr_expect(strstr(t->code, "tiles of this warp"), "the comment the old check tripped on is gone:\n%s", t->code);
    cr_expect_null(strstr(t->code, "const int warp ="), "%s", t->code);
    tilec_translation_free(t);
}

/* A source name of 120 characters is printed whole: the emitter once cut names at 95, so that
 * x..x and x..x_b became x..x (95) and x..x_2. */
Test(emit, long_names_are_kept_whole, .timeout = 10)
{
    char name[121], py[1024], want[512];
    memset(name, 'x', 120);
    name[120] = 0;
    snprintf(py, sizeof py,
             "import triton\nimport triton.language as tl\n\n@triton.jit\n"
             "def k(x_ptr):\n"
             "    r = tl.arange(0, 16)\n"
             "    %s = tl.load(x_ptr + r)\n"
             "    %s_b = %s * 2\n"
             "    tl.store(x_ptr + r, %s_b)\n",
             name, name, name, name);
    tilec_translation *t = translate_k(py, "*fp32:16", 0, 0);
    snprintf(want, sizeof want, "%s_b[0] = %s[0] * 2.0f;", name, name);
    cr_expect(strstr(t->code, want), "no \"%s\" in:\n%s", want, t->code);
    tilec_translation_free(t);
}

/* A row kernel: one 16-bit row of BLOCK columns a program, its mean stored by one thread. */
static const char row_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, y_ptr, mean_ptr, n, BLOCK: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    c = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + row * BLOCK + c, mask=c < n, other=0.0).to(tl.float32)\n"
    "    m = tl.sum(x, axis=0) / n\n"
    "    tl.store(mean_ptr + row, m)\n"
    "    tl.store(y_ptr + row * BLOCK + c, (x - m).to(tl.float16), mask=c < n)\n";

/* Where no tile holds more than 16 registers a thread, the stores are predicated
 * instructions in straight code, the scalar's too (a branch around the mean made ptxas
 * compute the rest before it: tileir/limits.c, choose_straight_stores); with 128 a thread
 * and no __launch_bounds__ promise, branches. */
Test(emit, small_tiles_store_without_branches)
{
    tilec_translation *t = translate_k(row_py, "*fp16:16, *fp16:16, *fp32:16, i32:16, 4096", 8, 90);
    cr_expect(strstr(t->code, "tilec::store_straight(mean_ptr + row, m, tid == 0);"), "%s", t->code);
    cr_expect(strstr(t->code, "tilec::store_global_straight<8>("), "%s", t->code);
    cr_expect(!strstr(strstr(t->code, "__global__"), "if (tid == 0)"), "%s", t->code);
    tilec_translation_free(t);
    t = translate_k(row_py, "*fp16:16, *fp16:16, *fp32:16, i32:16, 16384", 4, 90);
    cr_expect(strstr(strstr(t->code, "__global__"), "if (tid == 0)"), "%s", t->code);
    cr_expect(strstr(t->code, "tilec::store_global<8>("), "%s", t->code);
    tilec_translation_free(t);
}

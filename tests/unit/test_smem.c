/* test_smem.c — shared memory (src/tileir/smem.c): the static bank-conflict
 * counter, Triton's XOR swizzle, how conversion buffers are stored (no
 * conflicts on the transposes, which padding alone cannot give), and the
 * arena's offsets from buffer lifetimes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

TestSuite(shared_memory, .timeout = 20.0);

static Ctx actx;
static TirFunc afn;
static void arena_reset(void)
{
    arena_free(&actx.arena);
    memset(&actx, 0, sizeof actx);
    memset(&afn, 0, sizeof afn);
}

/* ---- 1. the counter --------------------------------------------------------------- */

Test(shared_memory, wavefronts)
{
    int addr[32];
    for (int l = 0; l < 32; l++)
        addr[l] = l;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 0, "consecutive words");
    cr_expect_eq(smem_wavefronts_extra(addr, 8), 0, "consecutive 8-byte elements (two half-warp phases)");
    cr_expect_eq(smem_wavefronts_extra(addr, 16), 0, "consecutive 16-byte vectors (four quarter-warp phases)");
    cr_expect_eq(smem_wavefronts_extra(addr, 2), 0, "consecutive halves: two lanes per word");
    cr_expect_eq(smem_wavefronts_extra(addr, 1), 0, "consecutive bytes");
    for (int l = 0; l < 32; l++)
        addr[l] = 32 * l;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 31, "a column of a 32x32 float tile");
    for (int l = 0; l < 32; l++)
        addr[l] = 33 * l;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 0, "a column with one padding element per row");
    for (int l = 0; l < 32; l++)
        addr[l] = smem_padded(smem_row_major((int[]){32, 32}, 2, (int[]){l, 5}), 5, 1);
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 0, "the same, through smem_padded");
    for (int l = 0; l < 32; l++)
        addr[l] = 7;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 0, "broadcast");
    for (int l = 0; l < 32; l++)
        addr[l] = 2 * l;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 1, "stride 2 words: 2-way");
    cr_expect_eq(smem_wavefronts_extra(addr, 8), 2, "stride 2 doubles: 2-way in each phase");
    cr_expect_eq(smem_wavefronts_extra(addr, 16), 4, "stride 2 vectors: 2-way in each of 4 phases");
    for (int l = 0; l < 32; l++)
        addr[l] = l < 16 ? 32 * l : -1;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 15, "inactive lanes do not count");
    for (int l = 0; l < 32; l++)
        addr[l] = -1;
    cr_expect_eq(smem_wavefronts_extra(addr, 4), 0, "nobody");
}

Test(shared_memory, row_major_and_padding)
{
    cr_expect_eq(smem_row_major((int[]){4, 8}, 2, (int[]){2, 3}), 19);
    cr_expect_eq(smem_row_major((int[]){2, 4, 8}, 3, (int[]){1, 2, 3}), 51);
    cr_expect_eq(smem_padded(31, 5, 1), 31);
    cr_expect_eq(smem_padded(32, 5, 1), 33);
    cr_expect_eq(smem_padded(100, 5, 2), 106);
    cr_expect_eq(smem_padded(100, 5, 0), 100);
}

/* ---- 2. the swizzle --------------------------------------------------------------- */

/* The examples of Triton's SwizzledSharedEncodingAttr documentation. */
Test(shared_memory, swizzle_formula)
{
    SmemSwizzle none = {1, 1, 1}, r4 = {1, 1, 4}, pairs = {1, 2, 4}, two = {1, 1, 2}, v2 = {2, 1, 4};
    cr_expect(smem_swizzle_none(none) && !smem_swizzle_none(r4));
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            cr_expect_eq(smem_swizzle_col(none, r, c), c);
            cr_expect_eq(smem_swizzle_col(r4, r, c), c ^ (r % 4), "vec 1, perPhase 1, maxPhase 4: row r XORed with r");
            cr_expect_eq(smem_swizzle_col(pairs, r, c), c ^ (r / 2 % 4), "perPhase 2: pairs of rows share a phase");
            cr_expect_eq(smem_swizzle_col(two, r, c), c ^ (r % 2), "maxPhase 2");
            cr_expect_eq(smem_swizzle_col(v2, r, c), ((c / 2) ^ (r % 4)) * 2 + c % 2, "vec 2: pairs move together");
        }
    /* storage: rows of 8, swizzled, then one pad element after every 32 of the swizzled index */
    SmemLayout l = {4, 3, {1, 1, 4}, 5, 1};
    cr_expect_eq(smem_storage_index(&l, 0 * 8 + 1), 1);
    cr_expect_eq(smem_storage_index(&l, 3 * 8 + 1), 3 * 8 + (1 ^ 3));
    cr_expect_eq(smem_storage_index(&l, 5 * 8 + 1), 5 * 8 + (1 ^ 1) + 1, "past 32: one pad element");
}

/* The counter with 16-byte vectors, as tensor-core operand staging uses it:
 * eight lanes each read one 16-byte row segment of a [64, 64] fp16 tile down
 * column 0 (ldmatrix's row addresses).  Rows of 128 bytes put all eight in
 * one group of four banks; Triton's swizzle for this operand (vec 8,
 * perPhase 1, maxPhase 8; triton-internals §4.2) spreads them. */
Test(shared_memory, vector_accesses_down_a_column)
{
    int lin[64];
    for (int l = 0; l < 64; l++)
        lin[l] = (l % 32) * 64;   /* two accesses, rows 0..31 each */
    SmemLayout plain = {2, 6, {1, 1, 1}, 0, 0}, mma = {2, 6, {8, 1, 8}, 0, 0};
    cr_expect_eq(smem_count_extra(&plain, lin, 1, 8, 1000), 4 * 7, "8-way in each quarter warp");
    cr_expect_eq(smem_count_extra(&plain, lin, 2, 8, 1000), 2 * 4 * 7);
    cr_expect_eq(smem_count_extra(&plain, lin, 2, 8, 0), 4 * 7, "counting stops once past the limit");
    cr_expect_eq(smem_count_extra(&mma, lin, 2, 8, 0), 0);
}

/* ---- 3. conversion buffers: the transposes ---------------------------------------- */

static Ctx tctx;
static Source tsrc;
static StrBuf tout;

static void translate_reset(void)
{
    arena_free(&tctx.arena);
    sb_free(&tctx.log);
    sb_free(&tout);
}

#define KERNEL_HEAD "import triton\nimport triton.language as tl\n@triton.jit\n"

/* examples/transpose.py */
static const char *transpose_src =
    KERNEL_HEAD
    "def transpose_kernel(X, Y, M, N, stride_x, stride_y, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):\n"
    "    rows = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)\n"
    "    cols = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)\n"
    "    mask = (rows[:, None] < M) & (cols[None, :] < N)\n"
    "    x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask)\n"
    "    tl.store(Y + cols[None, :] * stride_y + rows[:, None], x, mask=mask)\n";

static Op *find_convert(Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        if (b->ops.data[i]->kind == OP_CONVERT)
            return b->ops.data[i];
        for (int r = 0; r < b->ops.data[i]->nregions; r++) {
            Op *op = find_convert(b->ops.data[i]->regions[r]);
            if (op)
                return op;
        }
    }
    return NULL;
}

/* The transpose's one conversion, translated as the goldens are. */
static Op *transpose_convert(const char *dtype, int block, int warps)
{
    tsrc = (Source){"transpose.py", transpose_src, strlen(transpose_src)};
    memset(&tctx, 0, sizeof tctx);
    tctx.src = &tsrc;
    memset(&tout, 0, sizeof tout);
    char sig[128];
    snprintf(sig, sizeof sig, "*%s:16, *%s:16, i32, i32, i32:16, i32:16, %d, %d", dtype, dtype, block, block);
    TirFunc *f = NULL;
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&tctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.num_warps = warps;
    opt.emit = EMIT_CUDA;
    opt.result = &f;
    cr_assert_eq(tilec_translate(&tctx, &opt, &tout), 0, "%s", tctx.log.data ? tctx.log.data : "");
    Op *op = find_convert(f->body);
    cr_assert(op, "no conversion in the %s %dx%d transpose", dtype, block, block);
    return op;
}

typedef struct TransposeCase {
    const char *dtype;
    int block, warps;
} TransposeCase;

static const TransposeCase transposes[] = {
    {"fp32", 32, 4}, {"fp32", 64, 4}, {"fp32", 128, 8},
    {"fp16", 32, 4}, {"fp16", 64, 4}, {"fp16", 128, 8},
};

/* Every transpose's exchange is conflict-free as stored, counted again here
 * from the layouts; the plain row-major buffer is not, so the count can fail. */
Test(shared_memory, transposes_have_no_bank_conflicts, .fini = translate_reset)
{
    for (size_t i = 0; i < sizeof transposes / sizeof *transposes; i++) {
        const TransposeCase *t = &transposes[i];
        Op *op = transpose_convert(t->dtype, t->block, t->warps);
        SmemLayout plain = op->smem_layout;
        plain.swz = (SmemSwizzle){1, 1, 1};
        plain.pad = plain.pad_log2 = 0;
        int bytes = !strcmp(t->dtype, "fp32") ? 4 : 2;
        cr_expect_eq(op->smem_layout.elem_bytes, bytes);
        cr_expect_eq(1 << op->smem_layout.row_log2, t->block, "%s %d: rows of the tile's last dimension", t->dtype, t->block);
        cr_expect_eq(smem_convert_conflicts(op, &op->smem_layout, op->smem_write_vec, op->smem_read_vec), 0,
                     "%s %dx%d: conflicts as stored", t->dtype, t->block, t->block);
        cr_expect_eq(op->smem_conflicts, 0);
        int wv = op->smem_write_vec, rv = op->smem_read_vec;
        cr_expect_gt(smem_convert_conflicts(op, &plain, wv, rv), 0, "%s %dx%d: the plain buffer is conflict-free?", t->dtype,
                     t->block, t->block);
        cr_expect_eq(op->smem_plain_conflicts, smem_convert_conflicts(op, &plain, wv, rv));
        cr_expect(!smem_swizzle_none(op->smem_layout.swz), "%s %d: a swizzle", t->dtype, t->block);
        /* every element has its own slot inside the buffer */
        int slots = op->smem_bytes / bytes;
        char *used = calloc((size_t)slots, 1);
        for (int lin = 0; lin < t->block * t->block; lin++) {
            int at = smem_storage_index(&op->smem_layout, lin);
            cr_assert(at >= 0 && at < slots, "%s %d: element %d at %d of %d", t->dtype, t->block, lin, at, slots);
            cr_assert(!used[at], "%s %d: two elements at %d", t->dtype, t->block, at);
            used[at] = 1;
        }
        free(used);
        /* padding, where any, stays small: at most 1/16 of the tile */
        int numel = t->block * t->block;
        cr_expect_leq(op->smem_bytes, (numel + numel / 16) * bytes, "%s %d: %d bytes", t->dtype, t->block, op->smem_bytes);
        translate_reset();
    }
}

/* Padding alone (the earlier plan) leaves the 64x64 fp32 transpose with
 * conflicts whatever its amount: the writes need the row's two halves and two
 * rows in different banks, the reads sixteen rows four apart. */
Test(shared_memory, padding_alone_cannot_free_the_transpose, .fini = translate_reset)
{
    Op *op = transpose_convert("fp32", 64, 4);
    SmemLayout l = {4, 6, {1, 1, 1}, 0, 0};
    for (l.pad_log2 = 5; l.pad_log2 < 12; l.pad_log2++)
        for (l.pad = 1; l.pad <= 8; l.pad *= 2)
            cr_expect_gt(smem_convert_conflicts(op, &l, 1, 1), 0, "1 << %d, pad %d", l.pad_log2, l.pad);
}

/* What the .cu says about the buffer: the formula in the header and above
 * the index helper, which calls the runtime's tilec::swizzle. */
Test(shared_memory, transpose_cuda_shows_the_swizzle, .fini = translate_reset)
{
    Op *op = transpose_convert("fp32", 32, 4);
    const char *cu = tout.data;
    SmemSwizzle z = op->smem_layout.swz;
    char want[160];
    snprintf(want, sizeof want, "tilec::swizzle<%d, %d, %d>(row, col)", z.vec, z.per_phase, z.max_phase);
    cr_expect(strstr(cu, want), "missing \"%s\"", want);
    cr_expect(strstr(cu, "static __device__ __forceinline__ int cvt0_at(int row, int col)"));
    cr_expect(strstr(cu, "__device__ __forceinline__ int swizzle(int row, int col)"), "the runtime helper");
    cr_expect(strstr(cu, "columns swizzled in each row of 32 (tilec::swizzle): col' = "));
    cr_expect(strstr(cu, "no bank conflicts on the write or the read (counted statically; "));
}

/* ---- 4. sizes and offsets on hand-built ops -------------------------------------- */

/* x: [64,64] fp32 in blocked [1,4]/[2,16]/[4,1]; max along 0 crosses 4
 * warps, along 1 none; the column result converted to the row result's
 * layout (rank 1: no rows to swizzle) needs one padding word after every 32
 * to be conflict-free. */
Test(shared_memory, plan_by_hand, .fini = arena_reset)
{
    afn.num_warps = 4;
    Arena *a = &actx.arena;
    Layout *l = NEW(a, Layout);
    layout_build(l, 2, (int[]){64, 64}, (int[]){1, 4}, (int[]){1, 0}, 4);
    Type t2 = type_tensor(type_scalar(DT_FP32), 2, (int[]){64, 64});
    Type t1 = type_tensor(type_scalar(DT_FP32), 1, (int[]){64});
    Value *x = tir_value_new(a, &afn, t2);
    x->layout = l;
    Op *r0 = tir_op_new(a, &afn, OP_REDUCE, 1, &x, 1, &t1);
    r0->reduce.kind = RED_MAX, r0->reduce.axis = 0;
    r0->results[0]->layout = layout_slice(a, &afn, l, 0);
    Op *r1 = tir_op_new(a, &afn, OP_REDUCE, 1, &x, 1, &t1);
    r1->reduce.kind = RED_MAX, r1->reduce.axis = 1;
    r1->results[0]->layout = layout_slice(a, &afn, l, 1);
    cr_expect_eq(reduce_warp_bits(r0), 2);
    cr_expect_eq(reduce_warp_bits(r1), 0);
    Value *col = r0->results[0];
    Op *cv = tir_op_new(a, &afn, OP_CONVERT, 1, &col, 1, &t1);
    cv->results[0]->layout = r1->results[0]->layout;
    /* unpadded, lanes l and l+8 of the write hit one bank: 4 registers x 4 warps */
    SmemLayout s = {.elem_bytes = 4, .row_log2 = 6, .swz = {1, 1, 1}, .pad_log2 = 5, .pad = 0};
    cr_expect_eq(smem_convert_conflicts(cv, &s, 1, 1), 16);
    s.pad = 1;
    cr_expect_eq(smem_convert_conflicts(cv, &s, 1, 1), 0);
    s.pad_log2 = 6;
    cr_expect_eq(smem_convert_conflicts(cv, &s, 1, 1), 16, "padding after 64 of 64 elements pads nothing");
    Type ti = type_tensor(type_scalar(DT_I32), 1, (int[]){64});
    Op *am = tir_op_new(a, &afn, OP_REDUCE, 1, &x, 2, (Type[]){t1, ti});
    am->reduce.kind = RED_ARGMAX, am->reduce.axis = 0;
    am->results[0]->layout = am->results[1]->layout = r0->results[0]->layout;

    afn.body = tir_block_new(a, NULL);
    tir_block_append(a, afn.body, r0);
    tir_block_append(a, afn.body, r1);
    tir_block_append(a, afn.body, cv);
    tir_smem(&actx, &afn);
    cr_expect_eq(r0->smem_bytes, 64 * 4 * 4, "64 results x 4 warps x 4 bytes");
    cr_expect_eq(r1->smem_bytes, 0, "within a warp: no buffer");
    /* written as 16-byte runs (what a kernel on wgmma does) the plain buffer would be
     * conflict-free; this kernel writes element by element, so one pad word it is */
    cr_expect_eq(smem_convert_conflicts(cv, &(SmemLayout){.elem_bytes = 4, .row_log2 = 6, .swz = {1, 1, 1}}, 4, 1), 0);
    cr_expect_eq(cv->smem_write_vec, 1);
    cr_expect_eq(cv->smem_bytes, 65 * 4, "64 words and one pad");
    cr_expect_eq(cv->smem_layout.pad_log2, 5);
    cr_expect_eq(cv->smem_layout.pad, 1);
    cr_expect(smem_swizzle_none(cv->smem_layout.swz));
    cr_expect_eq(cv->smem_conflicts, 0);
    cr_expect_eq(cv->smem_plain_conflicts, 16);
    /* straight-line code: no barrier after the reads, so the two lifetimes meet */
    cr_expect(!r0->smem_keep_sync && !cv->smem_keep_sync);
    cr_expect_eq(r0->smem_offset, 0);
    cr_expect_eq(cv->smem_offset, 1024);
    cr_expect_eq(afn.smem_bytes, 1296, "1024 + 260, rounded to 16");

    /* argmax after the conversion: it may share bytes with the first
     * reduction (whose buffer the conversion's barrier frees), not with the
     * conversion's; the largest buffer is placed first */
    tir_block_append(a, afn.body, am);
    tir_smem(&actx, &afn);
    cr_expect_eq(am->smem_bytes, 2 * 64 * 4 * 4, "values, then the int32 indices");
    cr_expect_eq(am->smem_offset, 0);
    cr_expect_eq(r0->smem_offset, 0);
    cr_expect_eq(cv->smem_offset, 2048);
    cr_expect_eq(afn.smem_bytes, 2320, "2048 + 260, rounded to 16");
}

/* Scalar atomics broadcasting their old value (8 bytes each) between two
 * cross-warp reductions (1024 bytes), all in straight-line code: each buffer
 * meets only its neighbours' lifetimes.  Alternating two buffers would take
 * 1024 + 1024 bytes; from lifetimes both reductions sit at 0. */
Test(shared_memory, arena_offsets_from_lifetimes, .fini = arena_reset)
{
    afn.num_warps = 4;
    Arena *a = &actx.arena;
    Layout *l = NEW(a, Layout);
    layout_build(l, 2, (int[]){64, 64}, (int[]){1, 4}, (int[]){1, 0}, 4);
    Type t2 = type_tensor(type_scalar(DT_FP32), 2, (int[]){64, 64});
    Type t1 = type_tensor(type_scalar(DT_FP32), 1, (int[]){64});
    Value *x = tir_value_new(a, &afn, t2);
    x->layout = l;
    Value *p = tir_value_new(a, &afn, type_ptr(DT_FP32));
    Value *v = tir_value_new(a, &afn, type_scalar(DT_FP32));
    Op *ops[4];
    for (int i = 0; i < 4; i++) {
        if (i == 0 || i == 3) {
            ops[i] = tir_op_new(a, &afn, OP_REDUCE, 1, &x, 1, &t1);
            ops[i]->reduce.kind = RED_SUM, ops[i]->reduce.axis = 0;
            ops[i]->results[0]->layout = layout_slice(a, &afn, l, 0);
        } else {
            Type ts = type_scalar(DT_FP32);
            ops[i] = tir_op_new(a, &afn, OP_ATOMIC_RMW, 2, (Value *[]){p, v}, 1, &ts);
            ops[i]->results[0]->nuses = 1;
        }
    }
    afn.body = tir_block_new(a, NULL);
    for (int i = 0; i < 4; i++)
        tir_block_append(a, afn.body, ops[i]);
    tir_smem(&actx, &afn);
    cr_expect_eq(ops[0]->smem_bytes, 1024);
    cr_expect_eq(ops[1]->smem_bytes, 8);
    cr_expect_eq(ops[0]->smem_offset, 0);
    cr_expect_eq(ops[3]->smem_offset, 0, "its lifetime starts after the first's ends");
    cr_expect_eq(ops[1]->smem_offset, 1024, "after the reduction before it");
    cr_expect_eq(ops[2]->smem_offset, 1040, "after the atomic before it, and above the reduction after it");
    cr_expect_eq(afn.smem_bytes, 1056);
    for (int i = 0; i < 4; i++)
        cr_expect(!ops[i]->smem_keep_sync, "straight-line: the next exchange's barrier frees buffer %d", i);
    /* neighbours never overlap: no barrier separates one's reads from the next's writes */
    for (int i = 0; i + 1 < 4; i++) {
        int lo = ops[i]->smem_offset, hi = lo + ops[i]->smem_bytes;
        int nlo = ops[i + 1]->smem_offset, nhi = nlo + ops[i + 1]->smem_bytes;
        cr_expect(hi <= nlo || nhi <= lo, "exchanges %d and %d overlap", i, i + 1);
    }
}

/* A descriptor store under sm_90a after a bias exchange, whose accumulator
 * goes to the store's layout only on the pointer path (the difftest's tma
 * family, seed 1299) */
static const char *tma_store_src =
    KERNEL_HEAD
    "def k(a_desc, b_desc, c_desc, bias_ptr, N, K):\n"
    "    offs_n = tl.program_id(0) * 128\n"
    "    acc = tl.zeros((64, 128), dtype=tl.float32)\n"
    "    for k in range(0, tl.cdiv(K, 32)):\n"
    "        acc = tl.dot(a_desc.load([0, k * 32]), b_desc.load([k * 32, offs_n]), acc)\n"
    "    cols = offs_n + tl.arange(0, 128)\n"
    "    acc += tl.load(bias_ptr + cols, mask=cols < N, other=0.0)[None, :]\n"
    "    c_desc.store([0, offs_n], acc.to(tl.bfloat16))\n";

static void collect(Block *b, OpVec *v)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            collect(op->regions[r], v);
        if (op->smem_bytes)
            vec_push(&tctx.arena, v, op);
    }
}

/* Under sm_90a the pointer path's exchange does not run, nor its barrier: the
 * bias exchange before it, which that barrier was to free, must not share
 * bytes with the store's staging buffer, written before the store's barrier.
 * (They shared them, and a slow warp's bias read raced the store's writes.) */
/* source translated for sm_90 on 4 warps, 3 stages, as the IR */
static TirFunc *translate_sm90(const char *source, const char *sig)
{
    tsrc = (Source){"t.py", source, strlen(source)};
    memset(&tctx, 0, sizeof tctx);
    tctx.src = &tsrc;
    memset(&tout, 0, sizeof tout);
    TirFunc *f = NULL;
    TranslateOptions opt = {0};
    const char *err = NULL;
    cr_assert(tilec_parse_signature(&tctx.arena, sig, &opt.lower, &err), "bad signature: %s", err);
    opt.lower.num_warps = 4;
    opt.lower.num_stages = 3;
    opt.lower.arch = 90;
    opt.emit = EMIT_TILEIR;
    opt.result = &f;
    cr_assert_eq(tilec_translate(&tctx, &opt, &tout), 0, "%s", tctx.log.data ? tctx.log.data : "");
    return f;
}

#define TMA_STORE_SIG "tensordesc<bf16[64, 32]>, tensordesc<bf16[32, 128]>, tensordesc<bf16[64, 128]>, *fp32:16"

Test(shared_memory, tma_store_apart_from_the_exchange_before_its_fallback, .fini = translate_reset)
{
    TirFunc *f = translate_sm90(tma_store_src, TMA_STORE_SIG ", i32, i32");
    OpVec ex = {0};
    collect(f->body, &ex);
    const Op *st = NULL, *bias = NULL;
    int skipped = 0;
    for (int i = 0; i < ex.len; i++)
        if (ex.data[i]->kind == OP_STORE && ex.data[i]->store.tma_map) {
            st = ex.data[i];
            OpVec path = tir_tma_pointer_path(&tctx.arena, st);
            int k = i - 1;
            for (; k >= 0; k--) {
                if (!opvec_has(&path, ex.data[k]))
                    break;
                skipped++;
            }
            bias = k >= 0 ? ex.data[k] : NULL;
        }
    cr_assert(st, "the store goes out by TMA");
    cr_assert_eq(skipped, 1, "one exchange (the accumulator to the store's layout) is the fallback's alone");
    cr_assert(bias && bias->kind == OP_CONVERT, "the bias's exchange comes before it");
    cr_expect(!bias->smem_keep_sync, "the bias's exchange leaves its freeing to the next barrier");
    int lo = bias->smem_offset, hi = lo + bias->smem_bytes;
    cr_expect(hi <= st->smem_offset || st->smem_offset + st->smem_bytes <= lo,
              "the bias's buffer [%d, %d) overlaps the staging buffer at %d", lo, hi, st->smem_offset);
}

/* The same with the accumulator's column sums exchanged after the store: in the builds for
 * other targets the store's sm_90a block, and its barrier, do not run, so the
 * fallback's exchange (the accumulator to the pointer store's layout) must
 * stay apart from the sums' buffer, whose writes come before its barrier. */
Test(shared_memory, tma_store_fallback_apart_from_the_exchange_after_it, .fini = translate_reset)
{
    static const char sums_src[] =
        KERNEL_HEAD
        "def k(a_desc, b_desc, c_desc, bias_ptr, r_ptr, N, K):\n"
        "    offs_n = tl.program_id(0) * 128\n"
        "    acc = tl.zeros((64, 128), dtype=tl.float32)\n"
        "    for k in range(0, tl.cdiv(K, 32)):\n"
        "        acc = tl.dot(a_desc.load([0, k * 32]), b_desc.load([k * 32, offs_n]), acc)\n"
        "    c_desc.store([0, offs_n], acc.to(tl.bfloat16))\n"
        "    tl.store(r_ptr + offs_n + tl.arange(0, 128), tl.sum(acc, 0))\n";
    TirFunc *f = translate_sm90(sums_src, TMA_STORE_SIG ", *fp32:16, i32, i32");
    OpVec ex = {0};
    collect(f->body, &ex);
    const Op *st = NULL, *fallback = NULL, *sums = NULL;
    for (int i = 0; i < ex.len; i++)
        if (ex.data[i]->kind == OP_STORE && ex.data[i]->store.tma_map) {
            st = ex.data[i];
            OpVec path = tir_tma_pointer_path(&tctx.arena, st);
            fallback = i > 0 && opvec_has(&path, ex.data[i - 1]) ? ex.data[i - 1] : NULL;
            sums = i + 1 < ex.len ? ex.data[i + 1] : NULL;
        }
    cr_assert(st, "the store goes out by TMA");
    cr_assert(fallback && fallback->kind == OP_CONVERT, "the pointer store's exchange comes before it");
    cr_assert(sums && sums->kind == OP_REDUCE, "the column sums are exchanged after it");
    cr_expect(!fallback->smem_keep_sync);
    int lo = fallback->smem_offset, hi = lo + fallback->smem_bytes;
    cr_expect(hi <= sums->smem_offset || sums->smem_offset + sums->smem_bytes <= lo,
              "the fallback's buffer [%d, %d) overlaps the sums' at %d", lo, hi, sums->smem_offset);
}

/* test_wgmma.c — the Hopper path of tl.dot (src/tileir/wgmma.c): the NVMMA
 * addresses that cp.async writes (dot_nvmma_offset) against an independent
 * model of what wgmma reads through its matrix descriptor (the PTX ISA's
 * canonical layouts, then the hardware's XOR of address bits 4.. with bits
 * 7..), and the wgmma accumulator map against the PTX fragment of m64nNk16. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

TestSuite(wgmma);

/* A pipelined operand staged for wgmma: A [M,K] K-major, or B [K,N] N-major. */
static DotStage nvmma_stage(int op_idx, DType d, int rows, int cols)
{
    DotStage s = {.op_idx = op_idx, .rows = rows, .cols = cols, .batch = 1, .contig_dim = 1, .dtype = d, .nslots = 3};
    s.nvmma = dot_nvmma_swizzle(&s);
    return s;
}

/* The hardware's swizzle of a (relative, pattern-aligned) shared address. */
static int hw_swizzle(int addr, int swizzle)
{
    int bits = swizzle == 128 ? 3 : swizzle == 64 ? 2 : 1;
    return addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4);
}

/* The byte wgmma reads for element (i, k) of a K-major operand tile
 * (i < 64 rows of M, k < 16) whose descriptor starts at `start`: rows of
 * `swizzle` bytes, 8-row groups SBO apart (canonical ((8,m),(T,2k))). */
static int kmajor_addr(int start, WgmmaDesc d, int swizzle, int eb, int i, int k)
{
    return hw_swizzle(start + (i / 8) * d.sbo + (i % 8) * swizzle + k * eb, swizzle);
}

/* The byte wgmma reads for element (k, n) of an MN-major operand (k < 16,
 * n < N): `swizzle` bytes of N per row of K, rows of K `swizzle` apart,
 * 8-row groups SBO apart, the next `swizzle` bytes of N LBO apart
 * (canonical ((T,w/16,m),(8,k)):((1,T,LBO),(w/16*T,SBO))). */
static int mnmajor_addr(int start, WgmmaDesc d, int swizzle, int eb, int k, int n)
{
    int per = swizzle / eb;
    return hw_swizzle(start + (n / per) * d.lbo + (n % per) * eb + (k / 8) * d.sbo + (k % 8) * swizzle, swizzle);
}

/* Every element has its own byte; 16-byte chunks stay whole and aligned. */
static void check_distinct(const DotStage *s)
{
    int eb = dtype_bits(s->dtype) / 8, bytes = dot_stage_slot_bytes(s);
    cr_assert_eq(bytes % dot_stage_align(s), 0);
    char *seen = calloc((size_t)bytes, 1);
    for (int r = 0; r < s->rows; r++)
        for (int c = 0; c < s->cols; c++) {
            int o = dot_nvmma_offset(s, r, c);
            cr_assert(o >= 0 && o + eb <= bytes, "(%d, %d) at %d outside the slot", r, c, o);
            cr_assert(!seen[o], "(%d, %d) at %d shared", r, c, o);
            seen[o] = 1;
            int first = dot_nvmma_offset(s, r, c - c % (16 / eb));
            cr_assert_eq(first % 16, 0);
            cr_assert_eq(o, first + (c % (16 / eb)) * eb, "chunk of (%d, %d) not contiguous", r, c);
        }
    free(seen);
}

static const struct {
    int op_idx, rows, cols, swizzle;
} shapes[] = {
    {0, 128, 32, 64},  {0, 128, 64, 128}, {0, 128, 128, 128}, {0, 64, 16, 32}, {0, 256, 64, 128},
    {1, 32, 128, 128}, {1, 64, 128, 128}, {1, 16, 64, 128},   {1, 32, 32, 64}, {1, 64, 16, 32},
    {1, 32, 256, 128},
};

Test(wgmma, nvmma_swizzle_width_as_triton)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        DotStage s = nvmma_stage(shapes[i].op_idx, DT_FP16, shapes[i].rows, shapes[i].cols);
        cr_assert_eq(s.nvmma, shapes[i].swizzle, "%dx%d", shapes[i].rows, shapes[i].cols);
    }
    DotStage narrow = nvmma_stage(1, DT_FP16, 32, 8); /* 16 bytes: no swizzle, mma.sync */
    cr_assert_eq(narrow.nvmma, 0);
}

Test(wgmma, nvmma_addresses_distinct_and_chunked)
{
    DType ds[2] = {DT_FP16, DT_BF16};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            DotStage s = nvmma_stage(shapes[i].op_idx, ds[t], shapes[i].rows, shapes[i].cols);
            check_distinct(&s);
        }
}

/* A: the descriptor of the 64 rows from m0 at K step ks, started where the
 * emitter starts it (the stage's address of (m0, 16*ks)), reads every
 * element where cp.async wrote it. */
Test(wgmma, a_descriptor_reads_what_cp_async_wrote)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        if (shapes[i].op_idx != 0)
            continue;
        DotStage s = nvmma_stage(0, DT_FP16, shapes[i].rows, shapes[i].cols);
        WgmmaDesc d = dot_wgmma_desc(&s);
        cr_assert_eq(d.sbo, 8 * s.nvmma);
        for (int m0 = 0; m0 < s.rows; m0 += 64)
            for (int k0 = 0; k0 < s.cols; k0 += 16) {
                int start = dot_nvmma_offset(&s, m0, k0);
                for (int r = 0; r < 64; r++)
                    for (int k = 0; k < 16; k++)
                        cr_assert_eq(kmajor_addr(start, d, s.nvmma, 2, r, k), dot_nvmma_offset(&s, m0 + r, k0 + k),
                                     "%dx%d: A (%d, %d)", s.rows, s.cols, m0 + r, k0 + k);
            }
    }
}

/* B: the descriptor of K rows 16*ks.., all N columns, started at the
 * stage's address of (16*ks, 0). */
Test(wgmma, b_descriptor_reads_what_cp_async_wrote)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        if (shapes[i].op_idx != 1)
            continue;
        DotStage s = nvmma_stage(1, DT_BF16, shapes[i].rows, shapes[i].cols);
        WgmmaDesc d = dot_wgmma_desc(&s);
        cr_assert_eq(d.lbo, s.rows * s.nvmma);
        for (int k0 = 0; k0 < s.rows; k0 += 16) {
            int start = dot_nvmma_offset(&s, k0, 0);
            for (int k = 0; k < 16; k++)
                for (int n = 0; n < s.cols; n++)
                    cr_assert_eq(mnmajor_addr(start, d, s.nvmma, 2, k, n), dot_nvmma_offset(&s, k0 + k, n),
                                 "%dx%d: B (%d, %d)", s.rows, s.cols, k0 + k, n);
        }
    }
}

/* K-major operands of every wgmma type: A [M, K], and B stored [N, K] (B by
 * columns; the only B layout of tf32, fp8 and int8).  The descriptor of K
 * columns ki*ks.. (32 bytes: one wgmma's K), started at the stage's address
 * of (row0, ki*ks), reads every element where cp.async wrote it. */
Test(wgmma, kmajor_descriptor_reads_what_cp_async_wrote_every_type)
{
    static const struct {
        int op_idx, rows, cols;
        DType d;
    } kshapes[] = {
        {0, 128, 32, DT_FP32}, {1, 128, 32, DT_FP32}, {1, 256, 16, DT_FP32}, {0, 128, 128, DT_I8},
        {1, 256, 128, DT_I8},  {1, 64, 64, DT_FP8E5}, {0, 128, 64, DT_FP8E4NV}, {1, 128, 32, DT_BF16},
        {1, 64, 64, DT_FP16},
    };
    for (size_t i = 0; i < sizeof kshapes / sizeof kshapes[0]; i++) {
        DotStage s = {.op_idx = kshapes[i].op_idx, .rows = kshapes[i].rows, .cols = kshapes[i].cols, .batch = 1,
                      .contig_dim = kshapes[i].op_idx == 0 ? 1 : 0, .dtype = kshapes[i].d, .nslots = 4};
        s.nvmma = dot_nvmma_swizzle(&s);
        cr_assert(s.nvmma, "%dx%d", s.rows, s.cols);
        check_distinct(&s);
        WgmmaDesc d = dot_wgmma_desc(&s);
        int eb = dtype_bits(s.dtype) / 8, ki = wgmma_instr_k(s.dtype), span = s.op_idx == 0 ? 64 : s.rows;
        cr_assert_eq(ki * eb, 32);
        cr_assert_eq(d.sbo, 8 * s.nvmma);
        for (int r0 = 0; r0 < s.rows; r0 += span)
            for (int k0 = 0; k0 < s.cols; k0 += ki) {
                int start = dot_nvmma_offset(&s, r0, k0);
                for (int r = 0; r < span; r++)
                    for (int k = 0; k < ki; k++)
                        cr_assert_eq(kmajor_addr(start, d, s.nvmma, eb, r, k), dot_nvmma_offset(&s, r0 + r, k0 + k),
                                     "%s %dx%d op %d: (%d, %d)", dtype_name(s.dtype), s.rows, s.cols, s.op_idx, r0 + r,
                                     k0 + k);
            }
    }
}

Test(wgmma, descriptor_modes)
{
    DotStage a64 = nvmma_stage(0, DT_FP16, 128, 32), a128 = nvmma_stage(0, DT_FP16, 128, 64);
    DotStage a32 = nvmma_stage(0, DT_FP16, 64, 16);
    cr_assert_eq(dot_wgmma_desc(&a128).mode, 1);
    cr_assert_eq(dot_wgmma_desc(&a64).mode, 2);
    cr_assert_eq(dot_wgmma_desc(&a32).mode, 3);
}

/* The wgmma accumulator layout against the PTX fragment of m64nNk16: warp w
 * of warpgroup g = w / 4, lane l, register 4*i + j of the instruction mi:
 * row 64*g + 16*num_warps*mi + 16*(w % 4) + l/4 + 8*(j/2), column 8*i + 2*(l%4) + j%2. */
Test(wgmma, accumulator_map_is_the_wgmma_fragment)
{
    int warps[2] = {4, 8}, ms[2] = {128, 256}, ns[3] = {64, 128, 256};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int c = 0; c < 3; c++) {
                int nw = warps[a], M = ms[b], N = ns[c];
                TirFunc f = {.num_warps = nw, .arch = 90};
                int shape[2] = {M, N};
                cr_assert(layout_wgmma_fits(&f, DT_FP16, DT_FP32, shape));
                Layout l = {.kind = LAYOUT_MMA, .mma_version = 3, .rank = 2, .wpc = {nw, 1}, .order = {1, 0}};
                l.shape[0] = M, l.shape[1] = N;
                LayoutMap m;
                layout_map(&l, 2, shape, &m);
                cr_assert_eq(1 << m.nreg, M * N / (32 * nw));
                for (int w = 0; w < nw; w++)
                    for (int lane = 0; lane < 32; lane++)
                        for (int r = 0; r < 1 << m.nreg; r++) {
                            int mi = r / (N / 2), i = r % (N / 2) / 4, j = r % 4, co[2];
                            lmap_coords(&m, r, lane, w, co);
                            int row = 64 * (w / 4) + 16 * nw * mi + 16 * (w % 4) + lane / 4 + 8 * (j / 2);
                            cr_assert_eq(co[0], row, "%dx%d/%d: warp %d lane %d reg %d row", M, N, nw, w, lane, r);
                            cr_assert_eq(co[1], 8 * i + 2 * (lane % 4) + j % 2);
                        }
            }
}

Test(wgmma, fits_only_where_triton_puts_warps_on_m)
{
    TirFunc f = {.num_warps = 8, .arch = 90};
    cr_assert_not(layout_wgmma_fits(&f, DT_FP16, DT_FP32, (int[]){64, 128})); /* [4, 2] */
    cr_assert_not(layout_wgmma_fits(&f, DT_FP16, DT_FP16, (int[]){128, 128})); /* fp16 accumulators */
    cr_assert_not(layout_wgmma_fits(&f, DT_FP8E4NV, DT_FP16, (int[]){128, 128}));
    cr_assert_not(layout_wgmma_fits(&f, DT_I8, DT_FP32, (int[]){128, 128}));  /* int8 adds in s32 */
    cr_assert_not(layout_wgmma_fits(&f, DT_I8, DT_I32, (int[]){128, 40}));    /* no m64n40k32.s8 */
    cr_assert(layout_wgmma_fits(&f, DT_I8, DT_I32, (int[]){128, 24}));
    cr_assert(layout_wgmma_fits(&f, DT_I8, DT_I32, (int[]){128, 48}));
    cr_assert(layout_wgmma_fits(&f, DT_FP32, DT_FP32, (int[]){128, 40})); /* tf32 */
    cr_assert(layout_wgmma_fits(&f, DT_FP8E5, DT_FP32, (int[]){128, 128}));
    cr_assert_not(layout_wgmma_fits(&f, DT_FP64, DT_FP64, (int[]){128, 128}));
    f.arch = 80;
    cr_assert_not(layout_wgmma_fits(&f, DT_FP16, DT_FP32, (int[]){128, 128}));
    f.num_warps = 2, f.arch = 90;
    cr_assert_not(layout_wgmma_fits(&f, DT_FP16, DT_FP32, (int[]){128, 128}));
}

/* The emitter makes each dot's descriptors once and moves them by the byte
 * offset of each K step and M tile (emit_cuda/wgmma.c, k_step_bytes):
 * along K, 32 bytes a step within a column block and rows * swizzle bytes
 * a block; along rows (B with N contiguous), ki rows of `swizzle` bytes a
 * step; an M tile, its rows of `swizzle` bytes.  Those are the staging
 * layout's own offsets from a row whose swizzle phase is 0, which this pins
 * for every swizzle width and element size. */
Test(wgmma, descriptor_steps_are_the_layouts_offsets)
{
    const DType types[] = {DT_FP16, DT_FP8E4NV, DT_FP32};
    const int cols_of[] = {16, 32, 64, 128, 256};
    for (size_t t = 0; t < ARRAY_LEN(types); t++)
        for (size_t c = 0; c < ARRAY_LEN(cols_of); c++)
            for (int rows = 64; rows <= 256; rows *= 2) {
                DType d = types[t];
                int eb = dtype_bits(d) / 8, ki = wgmma_instr_k(d);
                /* K along the columns: A [M, K] K-major, or B stored [N, K] */
                DotStage s = nvmma_stage(0, d, rows, cols_of[c]);
                if (!s.nvmma || s.cols % ki)
                    continue;
                int w = s.nvmma, per_block = w / 32, base = dot_nvmma_offset(&s, 0, 0);
                cr_assert_eq(ki * eb, 32);
                for (int k = 0; k < s.cols / ki; k++) {
                    int want = dot_nvmma_offset(&s, 0, k * ki) - base;
                    int got = (k / per_block) * rows * w + (k % per_block) * 32;
                    cr_expect_eq(got, want, "%s rows %d cols %d: K step %d at %d, the layout says %d", dtype_name(d),
                                 rows, s.cols, k, got, want);
                }
                for (int m = 64; m < rows; m += 64) /* an M tile's rows */
                    cr_expect_eq(dot_nvmma_offset(&s, m, 0), m * w, "%s: row %d", dtype_name(d), m);
                /* K along the rows: B [K, N] with N contiguous, 16-bit only */
                if (eb != 2)
                    continue;
                DotStage b = nvmma_stage(1, d, rows, cols_of[c]);
                for (int k = 0; k < rows / ki; k++)
                    cr_expect_eq(dot_nvmma_offset(&b, k * ki, 0), k * ki * b.nvmma, "%s: B K step %d", dtype_name(d), k);
            }
}

/* A TMA copy into a ring slot (tma.c): one box per column block of the NVMMA
 * layout, box_cols = the swizzle's width in elements, at the block's start.
 * TMA writes element (r, c) of a box at the box's start plus the swizzled
 * address of r * swizzle + (c % box_cols) * eb (CU_TENSOR_MAP_SWIZZLE_*B: the
 * same XOR as wgmma's read), which must be where the layout keeps it. */
static int tma_addr(const DotStage *s, int r, int c)
{
    int eb = dtype_bits(s->dtype) / 8, w = s->nvmma, box_cols = w / eb;
    int box_start = dot_nvmma_offset(s, 0, c - c % box_cols);
    return box_start + hw_swizzle(r * w + (c % box_cols) * eb, w);
}

Test(wgmma, tma_boxes_write_the_nvmma_layout)
{
    DType ds[3] = {DT_FP16, DT_BF16, DT_FP8E4NV};
    for (int t = 0; t < 3; t++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            int eb = dtype_bits(ds[t]) / 8;
            /* the same bytes per row whatever the type */
            DotStage s = nvmma_stage(shapes[i].op_idx, ds[t], shapes[i].rows, shapes[i].cols * 2 / eb);
            if (!s.nvmma)
                continue;
            cr_assert_eq(dot_nvmma_offset(&s, 0, 0) % (8 * s.nvmma), 0);
            for (int r = 0; r < s.rows; r++)
                for (int c = 0; c < s.cols; c++)
                    cr_assert_eq(tma_addr(&s, r, c), dot_nvmma_offset(&s, r, c), "%s %dx%d: (%d, %d)",
                                 dtype_name(ds[t]), s.rows, s.cols, r, c);
        }
}

/*
 * host.c — a C program that runs two Triton kernels through libtilec: the kernels are
 * strings in this file; the library translates them to CUDA C, compiles them with NVRTC
 * for the GPU that is present and launches them.  No Python, no nvcc, no files.
 *
 *   cc -Iinclude examples/host/host.c build/release/libtilec.a -ldl -lm -o host_example
 *   cc examples/host/host.c $(pkg-config --cflags --libs tilec) -o host_example  (installed)
 *   ./host_example                 runs vector add and softmax, checks the results
 *   ./host_example --allow-no-gpu  without a GPU: translates and compiles (for sm_80), then
 *                                  stops with status 0 (what CI runs)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

static const char vector_add_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
    "    mask = offsets < n_elements\n"
    "    x = tl.load(x_ptr + offsets, mask=mask)\n"
    "    y = tl.load(y_ptr + offsets, mask=mask)\n"
    "    tl.store(output_ptr + offsets, x + y, mask=mask)\n";

static const char softmax_py[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,\n"
    "                   BLOCK_SIZE: tl.constexpr):\n"
    "    row = tl.program_id(axis=0)\n"
    "    cols = tl.arange(0, BLOCK_SIZE)\n"
    "    mask = cols < n_cols\n"
    "    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float('inf'))\n"
    "    z = x - tl.max(x, axis=0)\n"
    "    num = tl.exp(z)\n"
    "    den = tl.sum(num, axis=0)\n"
    "    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)\n";

static const tilec_translate_options add_opts = {
    .filename = "vector_add.py",
    .kernel = "add_kernel",
    .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
    .grid = "cdiv(n_elements, BLOCK_SIZE)", /* the library computes the grid from n_elements */
    .num_warps = 4,
};

static const tilec_translate_options softmax_opts = {
    .filename = "softmax.py",
    .kernel = "softmax_kernel",
    .signature = "*fp32:16, *fp32:16, i32, i32, i32, 1024", /* one row per program, rows <= 1024 */
    .num_warps = 4,
};

#define CHECK(call)                                                                              \
    do {                                                                                         \
        tilec_status s_ = (call);                                                                \
        if (s_ != TILEC_OK) {                                                                    \
            fprintf(stderr, "host_example: %s: %s\n%s\n", #call, tilec_status_name(s_),          \
                    tilec_context_error(ctx));                                                   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

/* Without a GPU: the translate and compile steps alone, for sm_80. */
static int translate_and_compile_only(tilec_context *ctx)
{
    const char *srcs[] = {vector_add_py, softmax_py};
    const tilec_translate_options *opts[] = {&add_opts, &softmax_opts};
    for (int i = 0; i < 2; i++) {
        tilec_translation *t;
        if (tilec_translate_source(srcs[i], opts[i], &t) != TILEC_OK) {
            fprintf(stderr, "%s", t ? t->diagnostic_text : "out of memory\n");
            tilec_translation_free(t);
            return 1;
        }
        tilec_compile_options co = {.arch = 80};
        tilec_binary *b;
        CHECK(tilec_compile(ctx, t->code, &co, &b));
        printf("%s: %zu bytes of CUDA, %d runtime arguments, %d threads, %zu-byte cubin for sm_80, %d registers\n",
               t->info.name, t->code_size, t->info.num_args, t->info.threads_per_block, b->size, b->registers);
        tilec_binary_free(b);
        tilec_translation_free(t);
    }
    return 0;
}

static int run_vector_add(tilec_context *ctx)
{
    tilec_kernel *k;
    CHECK(tilec_kernel_create(ctx, vector_add_py, &add_opts, NULL, &k));
    const int n = 98432;
    float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n), *out = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.25f;
        y[i] = 1.0f / (float)(1 + i % 7);
    }
    tilec_deviceptr dx, dy, dout;
    CHECK(tilec_mem_alloc(ctx, sizeof(float) * n, &dx));
    CHECK(tilec_mem_alloc(ctx, sizeof(float) * n, &dy));
    CHECK(tilec_mem_alloc(ctx, sizeof(float) * n, &dout));
    CHECK(tilec_memcpy_htod(ctx, dx, x, sizeof(float) * n));
    CHECK(tilec_memcpy_htod(ctx, dy, y, sizeof(float) * n));
    CHECK(tilec_memset(ctx, dout, 0xff, sizeof(float) * n)); /* NaN: unwritten outputs show */
    tilec_arg args[] = {tilec_devptr(dx), tilec_devptr(dy), tilec_devptr(dout), tilec_int(n)};
    CHECK(tilec_launch(k, NULL, NULL, args, 4));
    CHECK(tilec_synchronize(ctx));
    CHECK(tilec_memcpy_dtoh(ctx, out, dout, sizeof(float) * n));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += out[i] != x[i] + y[i]; /* one rounding: bit-exact */
    printf("vector add: %d elements, %d wrong\n", n, bad);
    tilec_mem_free(ctx, dx);
    tilec_mem_free(ctx, dy);
    tilec_mem_free(ctx, dout);
    free(x);
    free(y);
    free(out);
    tilec_kernel_destroy(k);
    return bad != 0;
}

static int run_softmax(tilec_context *ctx)
{
    tilec_kernel *k;
    CHECK(tilec_kernel_create(ctx, softmax_py, &softmax_opts, NULL, &k));
    const int rows = 1823, cols = 781;
    size_t bytes = sizeof(float) * (size_t)rows * cols;
    float *in = malloc(bytes), *out = malloc(bytes);
    unsigned seed = 1;
    for (int i = 0; i < rows * cols; i++) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = (float)((int)(seed >> 9) % 2000 - 1000) / 250.0f;
    }
    tilec_deviceptr din, dout;
    CHECK(tilec_mem_alloc(ctx, bytes, &din));
    CHECK(tilec_mem_alloc(ctx, bytes, &dout));
    CHECK(tilec_memcpy_htod(ctx, din, in, bytes));
    CHECK(tilec_memset(ctx, dout, 0xff, bytes));
    tilec_arg args[] = {tilec_devptr(dout), tilec_devptr(din), tilec_int(cols), tilec_int(cols), tilec_int(cols)};
    const unsigned grid[3] = {(unsigned)rows, 1, 1}; /* no --grid: one program per row */
    CHECK(tilec_launch(k, NULL, grid, args, 5));
    CHECK(tilec_synchronize(ctx));
    CHECK(tilec_memcpy_dtoh(ctx, out, dout, bytes));
    double worst = 0;
    for (int r = 0; r < rows; r++) {
        const float *xr = in + (size_t)r * cols;
        double m = -INFINITY, sum = 0;
        for (int c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++)
            sum += exp(xr[c] - m);
        for (int c = 0; c < cols; c++) {
            double ref = exp(xr[c] - m) / sum, err = fabs(out[(size_t)r * cols + c] - ref) / (ref + 1e-30);
            worst = err > worst || err != err ? err : worst;
        }
    }
    printf("softmax: %d x %d, worst relative error %.3g\n", rows, cols, worst);
    tilec_mem_free(ctx, din);
    tilec_mem_free(ctx, dout);
    free(in);
    free(out);
    tilec_kernel_destroy(k);
    return !(worst <= 1e-5);
}

int main(int argc, char **argv)
{
    int allow_no_gpu = argc > 1 && !strcmp(argv[1], "--allow-no-gpu");
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK)
        return 1;
    int arch, rc;
    tilec_status s = tilec_device_arch(ctx, &arch);
    if (s != TILEC_OK) {
        printf("no GPU (%s)\n", tilec_context_error(ctx));
        rc = translate_and_compile_only(ctx);
        if (!rc && !allow_no_gpu) {
            fprintf(stderr, "host_example: translated and compiled, but running needs a GPU\n");
            rc = 1;
        }
    } else {
        printf("GPU sm_%d\n", arch);
        rc = run_vector_add(ctx) | run_softmax(ctx);
        printf("%s\n", rc ? "FAILED" : "all results correct");
    }
    tilec_context_destroy(ctx);
    return rc;
}

/*
 * bench_library.c — what the library costs a host application, per kernel:
 *   translate    tilec_translate_source (source string -> CUDA C + metadata), median of 30
 *   nvrtc cold   tilec_compile with the cache bypassed (a cubin for --arch), median of 3
 *   cached       tilec_compile answered by the in-memory cache, median of 200
 *   launch       (GPU only) tilec_launch of vector add on 1 element, asynchronous, per call,
 *                averaged over 20000 calls after 1000 warm-up calls; argument checking,
 *                conversion, grid evaluation and cuLaunchKernel included
 *
 *   bench_library [--arch N] FLAGS...     make bench-lib passes every golden .flags file
 *
 * Run from the repository root.  Prints a Markdown table.  Targets (issue 5): translate
 * <= 5 ms per kernel, launch overhead <= 5 us per call.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "golden_flags.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void bench_kernel(tilec_context *ctx, const Case *c, int arch)
{
    double t[200];
    tilec_translation *tr = NULL;
    for (int i = 0; i < 30; i++) {
        tilec_translation_free(tr);
        double t0 = now_ms();
        tilec_translate_source(c->source, &c->o, &tr);
        t[i] = now_ms() - t0;
    }
    double translate = median(t, 30);
    if (!tr || tr->status != TILEC_OK) {
        printf("| %s | translation failed | | | |\n", c->name);
        tilec_translation_free(tr);
        return;
    }
    tilec_compile_options cold = {.arch = arch, .no_cache = 1}, warm = {.arch = arch};
    tilec_binary *b;
    for (int i = 0; i < 3; i++) {
        double t0 = now_ms();
        if (tilec_compile(ctx, tr->code, &cold, &b)) {
            printf("| %s | %.2f | compile failed: %s | | |\n", c->name, translate, tilec_context_error(ctx));
            tilec_translation_free(tr);
            return;
        }
        t[i] = now_ms() - t0;
        if (i == 0) { /* fill the cache */
            tilec_binary *keep;
            tilec_compile(ctx, tr->code, &warm, &keep);
            tilec_binary_free(keep);
        }
        tilec_binary_free(b);
    }
    double nvrtc = median(t, 3);
    for (int i = 0; i < 200; i++) {
        double t0 = now_ms();
        tilec_compile(ctx, tr->code, &warm, &b);
        t[i] = now_ms() - t0;
        tilec_binary_free(b);
    }
    double cached = median(t, 200);
    printf("| %s | %s | %.2f | %.0f | %.1f |\n", c->name, tr->info.name, translate, nvrtc, cached * 1e3);
    tilec_translation_free(tr);
}

static const char add_py[] =
    "import triton\nimport triton.language as tl\n@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n),\n"
    "             mask=offs < n)\n";

static void bench_launch(tilec_context *ctx)
{
    int arch;
    if (tilec_device_arch(ctx, &arch) != TILEC_OK) {
        printf("\nlaunch overhead: not measured (%s)\n", tilec_context_error(ctx));
        return;
    }
    tilec_translate_options o = {.kernel = "add_kernel", .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
                                 .grid = "cdiv(n, BLOCK)"};
    tilec_kernel *k;
    double t0 = now_ms();
    if (tilec_kernel_create(ctx, add_py, &o, NULL, &k) != TILEC_OK) {
        printf("\nlaunch overhead: kernel_create failed: %s\n", tilec_context_error(ctx));
        return;
    }
    double create = now_ms() - t0;
    tilec_deviceptr buf;
    tilec_mem_alloc(ctx, 3 * 4096, &buf);
    tilec_arg args[] = {tilec_devptr(buf), tilec_devptr(buf + 4096), tilec_devptr(buf + 8192), tilec_int(1)};
    for (int i = 0; i < 1000; i++)
        tilec_launch(k, NULL, NULL, args, 4);
    tilec_synchronize(ctx);
    const int calls = 20000;
    double per_call[5];
    for (int r = 0; r < 5; r++) {
        t0 = now_ms();
        for (int i = 0; i < calls; i++)
            tilec_launch(k, NULL, NULL, args, 4);
        per_call[r] = (now_ms() - t0) * 1e3 / calls;
        tilec_synchronize(ctx);
    }
    printf("\nGPU sm_%d: tilec_kernel_create (translate + cached compile + load) %.1f ms;\n"
           "launch overhead through the library: %.2f us per call (median of 5 runs of %d asynchronous calls)\n",
           arch, create, median(per_call, 5), calls);
    tilec_mem_free(ctx, buf);
    tilec_kernel_destroy(k);
}

int main(int argc, char **argv)
{
    int arch = 80, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--arch"))
        arch = atoi(argv[2]), first = 3;
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK)
        return 1;
    int major = 0, minor = 0;
    if (tilec_nvrtc_version(ctx, &major, &minor) != TILEC_OK) {
        fprintf(stderr, "bench_library: %s\n", tilec_context_error(ctx));
        return 1;
    }
    printf("tilec %s, NVRTC %d.%d, sm_%d cubins\n\n", tilec_version(), major, minor, arch);
    printf("| flags | kernel | translate (ms) | NVRTC cold (ms) | cached compile (us) |\n");
    printf("|---|---|---:|---:|---:|\n");
    for (int i = first; i < argc; i++) {
        Case c = {0};
        if (load_case(&c, argv[i]))
            bench_kernel(ctx, &c, arch);
        free_case(&c);
    }
    bench_launch(ctx);
    tilec_context_destroy(ctx);
    return 0;
}

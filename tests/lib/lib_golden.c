/*
 * lib_golden.c — every golden kernel through the library, in-process, as a host
 * application would run it (plain C: it also runs on the GPU machine).
 *
 *   lib_golden [--arch N] FLAGS...     translate + NVRTC-compile each tests/golden/NAME.flags
 *                                      (a cubin for sm_N, default 80), then again to check
 *                                      that every binary now comes from the cache
 *   lib_golden --run [--skip NAME]... FLAGS...
 *                                      translate, compile for the GPU present, load and launch
 *                                      each kernel on small synthetic inputs (pointers: 4 MiB
 *                                      buffers of 1.0 floats / zero integers; integer scalars 64;
 *                                      float scalars 0.5; grid from --grid, else 4 programs),
 *                                      then synchronize: the launch and the kernel must succeed
 *
 * Run from the repository root (the .flags lines name inputs relative to it).  Prints one
 * line per kernel and a summary; exit status 1 if any failed, 2 on bad usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_flags.h"
#include "tilec.h"

#define BUFFER_BYTES (4u << 20)

/* ---- compile mode ------------------------------------------------------------------------- */

static int compile_case(tilec_context *ctx, const Case *c, int arch, int pass)
{
    tilec_translation *t;
    if (tilec_translate_source(c->source, &c->o, &t) != TILEC_OK) {
        printf("FAIL %s: translation: %s\n%s", c->name, t ? t->error : "out of memory", t ? t->diagnostic_text : "");
        tilec_translation_free(t);
        return 1;
    }
    if (c->o.arch > arch) /* translated for a later GPU (fp8 tensor cores): compiled for it */
        arch = c->o.arch;
    tilec_compile_options co = {.arch = arch};
    tilec_binary *b;
    int bad = 0;
    if (tilec_compile(ctx, t->code, &co, &b) != TILEC_OK) {
        printf("FAIL %s: %s\n", c->name, tilec_context_error(ctx));
        bad = 1;
    } else {
        if (pass == 0 && (b->spill_store_bytes > 0 || b->spill_load_bytes > 0)) {
            printf("FAIL %s: ptxas spills %d/%d bytes\n", c->name, b->spill_store_bytes, b->spill_load_bytes);
            bad = 1;
        } else if (pass == 1 && !b->from_cache) {
            printf("FAIL %s: the second compilation did not come from the cache\n", c->name);
            bad = 1;
        } else if (pass == 0) {
            printf("ok   %s (%s, sm_%d cubin %zu bytes, %d registers, %d bytes shared)\n", c->name, t->info.name, arch,
                   b->size, b->registers, t->info.shared_bytes);
        }
        tilec_binary_free(b);
    }
    tilec_translation_free(t);
    return bad;
}

/* ---- run mode ----------------------------------------------------------------------------- */

static void fill_pattern(unsigned char *buf, const char *type)
{
    memset(buf, 0, BUFFER_BYTES);
    if (!strcmp(type, "*fp32"))
        for (size_t i = 0; i < BUFFER_BYTES / 4; i++)
            memcpy(buf + 4 * i, &(float){1.0f}, 4);
    else if (!strcmp(type, "*fp64"))
        for (size_t i = 0; i < BUFFER_BYTES / 8; i++)
            memcpy(buf + 8 * i, &(double){1.0}, 8);
    else if (!strcmp(type, "*fp16") || !strcmp(type, "*bf16"))
        for (size_t i = 0; i < BUFFER_BYTES / 2; i++)
            memcpy(buf + 2 * i, &(unsigned short){type[3] == 'p' ? 0x3c00 : 0x3f80}, 2);
}

static int run_case(tilec_context *ctx, const Case *c, unsigned char *host)
{
    tilec_kernel *k;
    tilec_translate_options o = c->o;
    if (o.num_variants) { /* the .cu's launcher dispatches them; a library kernel specialises at launch */
        o.num_variants = 0;
        o.variants = NULL;
        o.specialize = 1;
    }
    if (tilec_kernel_create(ctx, c->source, &o, NULL, &k) != TILEC_OK) {
        printf("FAIL %s: %s\n", c->name, tilec_context_error(ctx));
        return 1;
    }
    const tilec_kernel_info *in = tilec_kernel_get_info(k);
    tilec_arg args[64];
    tilec_deviceptr bufs[64];
    int nbufs = 0, bad = 0;
    for (int i = 0, a = 0; i < in->num_params && !bad; i++) {
        const tilec_param *p = &in->params[i];
        if (p->is_constexpr)
            continue;
        switch (p->kind) {
        case TILEC_TYPE_POINTER:
            fill_pattern(host, p->type);
            if (tilec_mem_alloc(ctx, BUFFER_BYTES, &bufs[nbufs]) || tilec_memcpy_htod(ctx, bufs[nbufs], host, BUFFER_BYTES))
                bad = 1;
            args[a++] = tilec_devptr(bufs[nbufs++]);
            break;
        case TILEC_TYPE_FLOAT: args[a++] = tilec_float(0.5); break;
        case TILEC_TYPE_BOOL: args[a++] = tilec_bool(1); break;
        default: args[a++] = tilec_int(64); break;
        }
    }
    const unsigned fixed[3] = {4, 1, 1};
    if (!bad && (tilec_launch(k, NULL, in->grid ? NULL : fixed, args, in->num_args) || tilec_synchronize(ctx)))
        bad = 1;
    if (bad)
        printf("FAIL %s: %s\n", c->name, tilec_context_error(ctx));
    else
        printf("ok   %s (%s: launched %s, %d threads, %d bytes shared)\n", c->name, in->name,
               in->grid ? in->grid : "4 programs", in->threads_per_block, in->shared_bytes);
    for (int i = 0; i < nbufs; i++)
        tilec_mem_free(ctx, bufs[i]);
    tilec_kernel_destroy(k);
    return bad;
}

int main(int argc, char **argv)
{
    int arch = 80, run = 0, first = 1;
    const char *skip[16];
    int nskip = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--run"))
            run = 1;
        else if (!strcmp(argv[first], "--arch") && first + 1 < argc)
            arch = atoi(argv[++first]);
        else if (!strcmp(argv[first], "--skip") && first + 1 < argc && nskip < 16)
            skip[nskip++] = argv[++first];
        else
            break;
    }
    if (first >= argc || argv[first][0] == '-') {
        fprintf(stderr, "usage: lib_golden [--arch N] FLAGS...  |  lib_golden --run [--skip NAME]... FLAGS...\n");
        return 2;
    }
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx) != TILEC_OK)
        return 1;
    int n = argc - first, failed = 0, skipped = 0;
    Case *cases = calloc((size_t)n, sizeof *cases);
    unsigned char *host = run ? malloc(BUFFER_BYTES) : NULL;
    for (int i = 0; i < n; i++) {
        Case *c = &cases[i];
        if (!load_case(c, argv[first + i])) {
            failed++;
            continue;
        }
        bool skipping = false;
        for (int s = 0; s < nskip; s++)
            skipping |= strstr(c->name, skip[s]) != NULL;
        if (skipping) {
            printf("SKIP %s\n", c->name);
            skipped++;
        } else {
            failed += run ? run_case(ctx, c, host) : compile_case(ctx, c, arch, 0);
        }
    }
    if (!run) /* the same again: every binary from the cache */
        for (int i = 0; i < n; i++)
            if (cases[i].source)
                failed += compile_case(ctx, &cases[i], arch, 1);
    long hits, misses;
    tilec_cache_stats(ctx, &hits, &misses);
    printf("lib_golden%s: %d kernels, %d failed, %d skipped (cache: %ld hits, %ld compilations)\n", run ? " --run" : "", n,
           failed, skipped, hits, misses);
    for (int i = 0; i < n; i++)
        free_case(&cases[i]);
    free(cases);
    free(host);
    tilec_context_destroy(ctx);
    return failed ? 1 : 0;
}

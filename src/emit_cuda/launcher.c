/*
 * launcher.c — the host launcher, NAME_launch(stream, ...), guarded from NVRTC.
 */
#include "emit_internal.h"

#include <string.h>

/* The launcher's parameter (a runtime parameter of the kernel as written, E) called name. */
static const KernelParam *launcher_param(const Emitter *E, const char *name)
{
    for (int i = 0; i < E->f->params.len; i++)
        if (E->f->params.data[i].value && !strcmp(E->f->params.data[i].name, name))
            return &E->f->params.data[i];
    BUG("variant parameter %s is not the kernel's", name);
}

/* K's launch (the kernel as written, E, or one of E->variants) with the launcher's arguments,
 * the dynamic shared memory limit raised first where it needs more than 48 KB. */
static void launch_call(Emitter *E, const Emitter *K, const char *ind)
{
    const TirFunc *f = K->f;
    const char *name = f->name; /* a variant's kernel is in its namespace (cuda_emit) */
    for (int i = 0; K != E && i < E->opt->nvariants; i++)
        if (K == &E->variants[i])
            name = fmt(E, "variant%d::%s", i + 1, f->name);
    int dyn = f->smem_bytes > 48 * 1024 ? f->smem_bytes : 0;
    if (dyn) {
        sb_printf(E->out, "%s// %d bytes of shared memory: above the default 48 KB, so raise the limit first\n", ind, dyn);
        sb_printf(E->out, "%sconst cudaError_t attr = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d);\n",
                  ind, name, dyn);
        sb_printf(E->out, "%sif (attr != cudaSuccess)\n%s    return attr;\n", ind, ind);
    }
    const char *threads = fmt(E, "%d", tir_block_threads(f));
    if (f->producer_warps) {
        sb_printf(E->out, "%s// %d threads where the sm_90a build (warp-specialised) was loaded, %d elsewhere: the "
                          "kernel's launch bound says which\n", ind, tir_block_threads(f), 32 * f->num_warps);
        sb_printf(E->out, "%scudaFuncAttributes fa;\n%sconst cudaError_t fa_status = cudaFuncGetAttributes(&fa, %s);\n",
                  ind, ind, name);
        sb_printf(E->out, "%sif (fa_status != cudaSuccess)\n%s    return fa_status;\n", ind, ind);
        sb_printf(E->out, "%sconst int threads = fa.maxThreadsPerBlock >= %d ? %d : %d;\n", ind, tir_block_threads(f),
                  tir_block_threads(f), 32 * f->num_warps);
        threads = "threads";
    }
    sb_printf(E->out, "%s%s<<<grid, %s, %d, stream>>>(", ind, name, threads, dyn);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, "%s%s", n++ ? ", " : "", launcher_param(E, kp->name)->c_name);
    }
    for (int i = 0; i < f->tma_maps.len; i++)
        sb_printf(E->out, "%s%s", n++ ? ", " : "", E->tma_map_names[i]);
    sb_printf(E->out, ");\n%sreturn cudaGetLastError();\n", ind);
}

/* `if (facts of variant i hold) {`, with the facts in a comment above. */
static void emit_variant_test(Emitter *E, int i)
{
    const SpecVec *facts = &E->opt->variant_facts[i];
    sb_printf(E->out, "    // %s_v%d: %s\n    if (", E->f->name, i + 1, comment_escape(E->a, E->opt->variant_text[i]));
    for (int k = 0; k < facts->len; k++) {
        const KernelParam *kp = launcher_param(E, facts->data[k].name);
        if (k)
            sb_puts(E->out, " && ");
        if (!strcmp(facts->data[k].text, "1"))
            sb_printf(E->out, "%s == 1", kp->c_name);
        else if (kp->type.dtype == DT_PTR)
            sb_printf(E->out, "(uintptr_t)%s %% 16 == 0", kp->c_name);
        else
            sb_printf(E->out, "%s %% 16 == 0", kp->c_name);
    }
    sb_puts(E->out, ") {\n");
}

void emit_launcher(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    sb_puts(E->out, "\n#ifndef __CUDACC_RTC__\n");
    tir_grid_helpers_c(E->out, E->grid, false);
    sb_printf(E->out, "// Host launcher: %s_launch(stream, %sthe kernel's runtime arguments).\n", f->name,
              E->opt->grid ? "" : "grid_x, grid_y, grid_z, ");
    sb_printf(E->out, "extern \"C\" cudaError_t %s_launch(cudaStream_t stream", f->name);
    if (!E->opt->grid)
        sb_puts(E->out, ", unsigned grid_x, unsigned grid_y, unsigned grid_z");
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, ", %s", param_decl(E, kp));
    }
    sb_puts(E->out, ")\n{\n");
    if (E->opt->grid) {
        const char **names = NEW_ARRAY(E->a, const char *, f->params.len + 1);
        for (int i = 0; i < f->params.len; i++)
            names[i] = f->params.data[i].c_name;
        sb_printf(E->out, "    // grid = (%s)\n", comment_escape(E->a, E->opt->grid));
        GridLaunchC how = {.names = names, .empty = "cudaSuccess", .invalid = "cudaErrorInvalidValue"};
        tir_grid_launch_c(E->out, E->a, E->grid, &how);
        sb_puts(E->out, "    const dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gz);\n");
    } else {
        sb_puts(E->out, "    if (grid_x == 0 || grid_y == 0 || grid_z == 0)\n        return cudaSuccess; // nothing to do\n");
        sb_puts(E->out, "    const dim3 grid(grid_x, grid_y, grid_z);\n");
    }
    tma_encode(E);
    for (int k = 0; k < E->opt->nvariants; k++) {
        int i = variant_order(E->opt, k);
        emit_variant_test(E, i);
        launch_call(E, &E->variants[i], "        ");
        sb_puts(E->out, "    }\n");
    }
    launch_call(E, E, "    ");
    sb_puts(E->out, "}\n#endif\n");
}

/*
 * launcher.c — the host launcher, NAME_launch(stream, ...), guarded from NVRTC.
 */
#include "emit_internal.h"

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
    int dyn = f->smem_bytes > 48 * 1024 ? f->smem_bytes : 0;
    if (dyn) {
        sb_printf(E->out, "    // %d bytes of shared memory: above the default 48 KB, so raise the limit first\n", dyn);
        sb_printf(E->out, "    const cudaError_t attr = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d);\n",
                  f->name, dyn);
        sb_puts(E->out, "    if (attr != cudaSuccess)\n        return attr;\n");
    }
    sb_printf(E->out, "    %s<<<grid, %d, %d, stream>>>(", f->name, threads, dyn);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, "%s%s", n++ ? ", " : "", kp->c_name);
    }
    for (int i = 0; i < f->tma_maps.len; i++)
        sb_printf(E->out, "%s%s", n++ ? ", " : "", E->tma_map_names[i]);
    sb_puts(E->out, ");\n    return cudaGetLastError();\n}\n#endif\n");
}

/*
 * emit.c — prints a scheduled TirFunc as readable CUDA C (cuda_emit).
 *
 * Two steps: plan (names, which values are folded into their single user's
 * expression, the vector width of each memory op, which loop-carried values
 * are written in place), then print (header, helpers, kernel, launcher).
 * The other files of this folder each print one kind of op or one part of
 * the file; emit_internal.h lists what they share.
 */
#include "emit_internal.h"

#include <stdio.h>

/* One line of the kernel, at the current indent. */
void line(Emitter *E, const char *fmt, ...)
{
    for (int i = 0; i < E->indent; i++)
        sb_puts(E->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(E->out, fmt, ap);
    va_end(ap);
    sb_putc(E->out, '\n');
}

/* printf into the arena: the emitter's C text lives as long as the translation. */
char *fmt(Emitter *E, const char *f, ...)
{
    va_list ap, ap2;
    va_start(ap, f);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *p = arena_alloc(E->a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, f, ap2);
    va_end(ap2);
    return p;
}


void cuda_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt)
{
    Emitter E = {0};
    E.ctx = ctx;
    E.a = &ctx->arena;
    E.out = out;
    E.f = f;
    E.opt = opt;
    E.vi = NEW_ARRAY(E.a, ValInfo, f->nvalues + 1);
    /* parameter names (cuda_name_params) come first */
    check_kernel_name(&E, f->name);
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value) {
            strmap_put(E.a, &E.names, kp->c_name, 0);
            E.vi[kp->value->id].name = kp->c_name;
        }
    }
    tma_names(&E);
    record_users(&E, f->body);
    plan_block(&E, f->body);
    plan_contractions(&E, f->body);
    plan_regions(&E, f->body);
    plan_vector_pointers(&E, f->body);
    int threads = 32 * f->num_warps;
    E.grid = opt->grid_prog;
    emit_header(&E, threads);
    emit_includes(&E);
    emit_kernel(&E, threads);
    emit_launcher(&E, threads);
}

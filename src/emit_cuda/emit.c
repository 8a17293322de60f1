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


/* An emitter for f, planned: names, folded values, vector widths, in-place updates. */
static void plan_emitter(Emitter *E, Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt)
{
    *E = (Emitter){0};
    E->ctx = ctx;
    E->a = &ctx->arena;
    E->out = out;
    E->f = f;
    E->opt = opt;
    E->grid = opt->grid_prog;
    E->vi = NEW_ARRAY(E->a, ValInfo, f->nvalues + 1);
    /* parameter names (cuda_name_params) come first */
    check_kernel_name(E, f->name);
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value) {
            strmap_put(E->a, &E->names, kp->c_name, 0);
            E->vi[kp->value->id].name = kp->c_name;
        }
    }
    tma_names(E);
    record_users(E, f->body);
    plan_block(E, f->body);
    plan_contractions(E, f->body);
    plan_regions(E, f->body);
    plan_vector_pointers(E, f->body);
}

/* The templates and headers every kernel of the file needs: f's, and its variants'. */
static void emit_includes_for_all(Emitter *E)
{
    const EmitOptions *opt = E->opt;
    if (!opt->nvariants) {
        emit_includes(E);
        return;
    }
    TirFunc all = *E->f;
    for (int i = 0; i < opt->nvariants; i++)
        tir_uses_merge(&all, opt->variants[i]);
    const TirFunc *f = E->f;
    E->f = &all;
    emit_includes(E);
    E->f = f;
}

void cuda_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt)
{
    Emitter E;
    plan_emitter(&E, ctx, out, f, opt);
    int threads = tir_block_threads(f);
    emit_header(&E, threads);
    emit_includes_for_all(&E);
    emit_kernel(&E, threads);
    /* --variant: each variant's kernel after it, named NAME_v1, NAME_v2, ... */
    Emitter *vs = NEW_ARRAY(E.a, Emitter, opt->nvariants + 1);
    for (int i = 0; i < opt->nvariants; i++) {
        TirFunc *v = NEW(E.a, TirFunc);
        *v = *opt->variants[i]; /* the emitter only reads it */
        v->name = arena_printf(E.a, "%s_v%d", f->name, i + 1);
        plan_emitter(&vs[i], ctx, out, v, opt);
        emit_variant_comment(&vs[i], i);
        /* its helpers may have the names of the first kernel's: a namespace of its own */
        sb_printf(out, "namespace variant%d {\n\n", i + 1);
        emit_kernel(&vs[i], 32 * v->num_warps);
        sb_printf(out, "\n} // namespace variant%d\n", i + 1);
    }
    E.variants = vs;
    emit_launcher(&E, threads);
}

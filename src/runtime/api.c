/* api.c — the public API's front half: contexts, status names, and translation with
 * metadata (parameters, launch shape, the grid compiled for the host). */
#include "runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lexer.h"
#include "../options.h"
#include "../parser/ast.h"

const char *tilec_version(void) { return TILEC_VERSION; }

void tilec_free(void *p) { free(p); }

const char *tilec_status_name(tilec_status s)
{
    switch (s) {
    case TILEC_OK: return "TILEC_OK";
    case TILEC_ERROR_INVALID_ARGUMENT: return "TILEC_ERROR_INVALID_ARGUMENT";
    case TILEC_ERROR_INPUT: return "TILEC_ERROR_INPUT";
    case TILEC_ERROR_NVRTC_NOT_FOUND: return "TILEC_ERROR_NVRTC_NOT_FOUND";
    case TILEC_ERROR_COMPILE: return "TILEC_ERROR_COMPILE";
    case TILEC_ERROR_DRIVER_NOT_FOUND: return "TILEC_ERROR_DRIVER_NOT_FOUND";
    case TILEC_ERROR_NO_DEVICE: return "TILEC_ERROR_NO_DEVICE";
    case TILEC_ERROR_DRIVER: return "TILEC_ERROR_DRIVER";
    case TILEC_ERROR_LAUNCH_ARGS: return "TILEC_ERROR_LAUNCH_ARGS";
    case TILEC_ERROR_IO: return "TILEC_ERROR_IO";
    case TILEC_ERROR_OUT_OF_MEMORY: return "TILEC_ERROR_OUT_OF_MEMORY";
    }
    return "TILEC_ERROR_UNKNOWN";
}

/* ---- context ------------------------------------------------------------------------- */

tilec_status tilec_context_create(const tilec_context_options *opt, tilec_context **out)
{
    if (!out)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    tilec_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return TILEC_ERROR_OUT_OF_MEMORY;
    if (opt) {
        ctx->nvrtc_library = rt_strdup(opt->nvrtc_library);
        ctx->cuda_library = rt_strdup(opt->cuda_library);
        ctx->cuda_include = rt_strdup(opt->cuda_include);
        ctx->cache_dir = rt_strdup(opt->cache_dir);
        ctx->device = opt->device;
    }
    *out = ctx;
    return TILEC_OK;
}

void tilec_context_destroy(tilec_context *ctx)
{
    if (!ctx)
        return;
    rt_cache_free(&ctx->cache);
    rt_cuda_unload(&ctx->cu);
    rt_nvrtc_unload(&ctx->nvrtc);
    free(ctx->nvrtc_library);
    free(ctx->cuda_library);
    free(ctx->cuda_include);
    free(ctx->cache_dir);
    sb_free(&ctx->error);
    free(ctx);
}

const char *tilec_context_error(const tilec_context *ctx)
{
    return ctx && ctx->error.data ? ctx->error.data : "";
}

/* ---- metadata ------------------------------------------------------------------------ */

static tilec_type_kind kind_of(DType d)
{
    if (d == DT_PTR)
        return TILEC_TYPE_POINTER;
    if (d == DT_I1)
        return TILEC_TYPE_BOOL;
    if (dtype_is_float(d))
        return TILEC_TYPE_FLOAT;
    return dtype_is_signed(d) ? TILEC_TYPE_INT : TILEC_TYPE_UINT;
}

_Static_assert(TIR_FACT_ONE == TILEC_SPECIALIZE_ONE && TIR_FACT_DIV16 == TILEC_SPECIALIZE_DIV16,
               "tilec_param.specialize takes tir_param_facts as it is");

static void fill_info(Translation *t, const TirFunc *f, const TranslateOptions *to)
{
    Arena *a = &t->ctx.arena;
    tilec_kernel_info *info = &t->pub.info;
    tilec_param *ps = NEW_ARRAY(a, tilec_param, f->params.len + 1);
    t->arg_param = NEW_ARRAY(a, int, f->params.len + 1);
    const char **ctypes = NEW_ARRAY(a, const char *, f->params.len + 1);
    const char **cnames = NEW_ARRAY(a, const char *, f->params.len + 1);
    int nargs = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        tilec_param *p = &ps[i];
        Type ty = kp->type;
        p->name = kp->name;
        p->is_constexpr = !kp->value;
        p->value = kp->spec_text;
        p->divisibility = kp->div > 1 ? kp->div : 1;
        if (kp->is_constexpr) {
            p->type = "constexpr";
            p->kind = TILEC_TYPE_INT;
            p->bits = 64;
        } else {
            p->type = type_sig_str(a, ty);
            p->kind = kind_of(ty.dtype);
            p->bits = dtype_bits(ty.dtype);
        }
        p->specialize = tir_param_facts(kp); /* TIR_FACT_* are TILEC_SPECIALIZE_*, checked below */
        if (kp->value) {
            ctypes[nargs] = ty.dtype == DT_PTR ? arena_printf(a, ty.pointee == DT_PTR ? "%s*" : "%s *", type_pointee_ctype(a, ty))
                                               : dtype_ctype(ty.dtype);
            cnames[nargs] = kp->c_name;
            t->arg_param[nargs++] = i;
        }
    }
    t->arg_ctype = ctypes;
    t->arg_cname = cnames;
    info->name = f->name;
    info->params = ps;
    info->num_params = f->params.len;
    info->num_args = nargs;
    info->num_warps = f->num_warps;
    info->threads_per_block = tir_block_threads(f);
    info->shared_bytes = f->smem_bytes;
    info->dynamic_shared = f->smem_bytes > 48 * 1024;
    info->grid = to->grid;
    info->arch = to->lower.arch;
    info->min_blocks_per_sm = f->min_blocks;
    info->min_blocks_arch = f->min_blocks_auto ? TIR_MIN_BLOCKS_ARCH : 0;
    t->ntma = f->tma_maps.len;
    t->tma = NEW_ARRAY(a, RtTmaMap, t->ntma + 1);
    for (int j = 0; j < t->ntma; j++) {
        const TmaMap *m = &f->tma_maps.data[j];
        RtTmaMap *r = &t->tma[j];
        for (int arg = 0; arg < nargs; arg++)
            if (t->arg_param[arg] == m->param)
                r->base_arg = arg;
        r->elem_bytes = dtype_bits(f->params.data[m->param].type.pointee) / 8;
        r->box_cols = m->box_cols;
        r->box_rows = m->box_rows;
        r->swizzle = m->swizzle;
    }
}

/* ---- the grid, compiled to postfix code ---------------------------------------------- */

/* tir_grid_compile, then each parameter renumbered to its runtime argument. */
static bool compile_grid(Translation *t, const TirFunc *f)
{
    Ctx *ctx = &t->ctx;
    jmp_buf jb;
    ctx->on_error = &jb;
    bool ok = true;
    if (setjmp(jb)) {
        ok = false;
    } else {
        tir_grid_compile(ctx, f, t->pub.info.grid, &t->grid);
        for (int d = 0; d < t->grid.ndims; d++)
            for (int i = 0; i < t->grid.nops[d]; i++) {
                GridOp *op = &t->grid.ops[d][i];
                if (op->kind != GRID_PARAM)
                    continue;
                for (int arg = 0; arg < t->pub.info.num_args; arg++)
                    if (t->arg_param[arg] == op->v) {
                        op->v = arg;
                        break;
                    }
            }
    }
    ctx->on_error = NULL;
    ctx->src = &t->src;
    return ok;
}

/* ---- translation ---------------------------------------------------------------------- */

static void collect_diagnostics(Translation *t)
{
    Ctx *ctx = &t->ctx;
    tilec_diagnostic *ds = NEW_ARRAY(&ctx->arena, tilec_diagnostic, ctx->diags.len + 1);
    for (int i = 0; i < ctx->diags.len; i++) {
        const Diagnostic *d = &ctx->diags.data[i];
        ds[i].severity = d->kind == DIAG_ERROR ? TILEC_SEVERITY_ERROR :
                         d->kind == DIAG_WARNING ? TILEC_SEVERITY_WARNING : TILEC_SEVERITY_NOTE;
        ds[i].file = d->file;
        ds[i].line = d->loc.line;
        ds[i].column = d->loc.col;
        ds[i].message = d->message;
    }
    t->pub.diagnostics = ds;
    t->pub.num_diagnostics = ctx->diags.len;
    t->pub.diagnostic_text = ctx->log.data ? ctx->log.data : "";
}

static tilec_status finish(Translation *t, tilec_status s, const char *error)
{
    t->pub.status = s;
    t->pub.error = error;
    if (s != TILEC_OK) {
        t->pub.code = NULL;
        t->pub.code_size = 0;
        t->pub.header = NULL;
    }
    return s;
}

tilec_status tilec_translate_source(const char *source, const tilec_translate_options *opt, tilec_translation **out)
{
    return rt_translate_source(source, opt, NULL, out);
}

tilec_status rt_translate_source(const char *source, const tilec_translate_options *opt, const char *facts,
                                 tilec_translation **out)
{
    if (!out)
        return TILEC_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (!source)
        return TILEC_ERROR_INVALID_ARGUMENT;
    Translation *t = calloc(1, sizeof *t);
    if (!t)
        return TILEC_ERROR_OUT_OF_MEMORY;
    *out = &t->pub;
    static const tilec_translate_options defaults = {0};
    if (!opt)
        opt = &defaults;
    Arena *a = &t->ctx.arena;
    t->src.path = arena_strdup(a, opt->filename ? opt->filename : "<source>");
    t->src.len = opt->source_size ? opt->source_size : strlen(source);
    t->src.text = arena_strndup(a, source, t->src.len);
    t->ctx.src = &t->src;
    t->pub.diagnostic_text = "";

    TranslateOptions to = {0};
    const char *err = options_translate(a, opt, &to);
    if (err)
        return finish(t, TILEC_ERROR_INVALID_ARGUMENT, err);
    if (facts) {
        LowerOptions extra = {0};
        if (!tilec_parse_signature(a, arena_strdup(a, facts), &extra, &err))
            return finish(t, TILEC_ERROR_INVALID_ARGUMENT, arena_printf(a, "signature \"%s\": %s", facts, err));
        for (int i = 0; i < extra.sig.len; i++)
            vec_push(a, &to.lower.sig, extra.sig.data[i]); /* named: they override the given entries */
    }
    TirFunc *f = NULL;
    to.result = &f;
    int rc = tilec_translate(&t->ctx, &to, &t->out);
    collect_diagnostics(t);
    if (rc) {
        const tilec_diagnostic *d = NULL;
        for (int i = 0; i < t->pub.num_diagnostics && !d; i++)
            if (t->pub.diagnostics[i].severity == TILEC_SEVERITY_ERROR)
                d = &t->pub.diagnostics[i];
        const char *msg = !d ? "the translation failed" :
                          d->line ? arena_printf(a, "%s:%d:%d: %s", d->file, d->line, d->column, d->message) :
                                    arena_printf(a, "%s: %s", d->file, d->message);
        return finish(t, TILEC_ERROR_INPUT, msg);
    }
    t->pub.code = t->out.data ? t->out.data : "";
    t->pub.code_size = t->out.len;
    t->nvariants = to.nvariants;
    if (to.emit == EMIT_CUDA && !to.dump && f) {
        fill_info(t, f, &to);
        if (!compile_grid(t, f)) {
            collect_diagnostics(t);
            return finish(t, TILEC_ERROR_INPUT, "the grid expression could not be compiled for the host");
        }
        t->pub.header = rt_launcher_header(a, t);
    }
    return finish(t, TILEC_OK, NULL);
}

void tilec_translation_free(tilec_translation *pub)
{
    if (!pub)
        return;
    Translation *t = (Translation *)pub;
    sb_free(&t->out);
    sb_free(&t->ctx.log);
    arena_free(&t->ctx.arena);
    free(t);
}

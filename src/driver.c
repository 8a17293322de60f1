/* driver.c — the translate function: the pipeline, one pass per line. */
#include "driver.h"

#include <string.h>

#include "emit_cuda/emit.h"
#include "lexer.h"
#include "parser/ast.h"

/* The IR verifier runs after every pass that rewrites the IR, in debug builds. */
#ifdef TILEC_DEBUG
#define VERIFY(ctx, f) tir_verify((ctx), (f))
#else
#define VERIFY(ctx, f) ((void)0)
#endif

static bool dump_after(const TranslateOptions *opt, const char *pass)
{
    return opt->dump && !strcmp(opt->dump, pass);
}

static void dump_tokens(StrBuf *out, TokenArray toks)
{
    for (int i = 0; i < toks.len; i++) {
        const Token *t = &toks.data[i];
        sb_printf(out, "%d:%d %s", t->loc.line, t->loc.col, token_kind_name(t->kind));
        if (t->kind == TOK_NAME || t->kind == TOK_STRING)
            sb_printf(out, " %.*s", t->kind == TOK_STRING ? t->text_len : (int)strlen(t->text), t->text);
        else if (t->kind == TOK_INT)
            sb_printf(out, " %lld", (long long)t->ival);
        else if (t->kind == TOK_FLOAT)
            sb_printf(out, " %.17g", t->fval);
        sb_putc(out, '\n');
    }
}

static int run(Ctx *ctx, const TranslateOptions *opt, StrBuf *out)
{
    TokenArray toks = lex_source(ctx);
    if (dump_after(opt, "tokens"))
        return dump_tokens(out, toks), 0;

    Module *m = parse_module(ctx, toks);
    if (dump_after(opt, "ast"))
        return ast_dump_module(out, m), 0;

    TirFunc *f = tir_lower(ctx, m, &opt->lower);
    VERIFY(ctx, f);
    if (dump_after(opt, "lower"))
        return tir_print(out, f, false), 0;

    tir_simplify(ctx, f);
    tir_combine(ctx, f);
    VERIFY(ctx, f);
    if (dump_after(opt, "simplify"))
        return tir_print(out, f, false), 0;

    tir_axisinfo(ctx, f);
    if (dump_after(opt, "axisinfo"))
        return tir_print(out, f, true), 0;

    tir_layouts(ctx, f);
    tir_pipeline(ctx, f);
    tir_tidy(ctx, f);
    VERIFY(ctx, f);
    tir_smem(ctx, f);
    tir_check_limits(ctx, f, &opt->lower);
    if (opt->result)
        *opt->result = f;
    if (dump_after(opt, "layouts"))
        return tir_print(out, f, true), 0;

    switch (opt->emit) {
    case EMIT_TILEIR: tir_print(out, f, true); break;
    case EMIT_LAYOUTS:
        tir_print_layouts(out, f);
        tir_print_values(out, f);
        break;
    case EMIT_CUDA: {
        EmitOptions eo = {opt->command, opt->grid, opt->lower.arch};
        cuda_name_params(ctx, f);
        cuda_emit(ctx, out, f, &eo);
        break;
    }
    }
    return 0;
}

int tilec_translate(Ctx *ctx, const TranslateOptions *opt, StrBuf *out)
{
    jmp_buf jb;
    jmp_buf *saved = ctx->on_error;
    const Source *src = ctx->src; /* a pass may read a side source (--grid) */
    ctx->on_error = &jb;
    int rc;
    if (setjmp(jb))
        rc = 1;
    else
        rc = run(ctx, opt, out);
    ctx->on_error = saved;
    ctx->src = src;
    return rc;
}

/* ---- signatures ------------------------------------------------------------- */

bool tilec_parse_signature(Arena *a, const char *sig, LowerOptions *lo, const char **err)
{
    const char *p = sig;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        char quote = 0;
        while (*p && (quote || *p != ',')) {
            if (quote && *p == quote)
                quote = 0;
            else if (!quote && (*p == '"' || *p == '\''))
                quote = *p;
            p++;
        }
        if (quote) {
            *err = "unterminated quote in the signature";
            return false;
        }
        const char *end = p;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end == start) {
            if (*p == ',' || p != sig) {
                *err = "empty entry in the signature";
                return false;
            }
            break;
        }
        SpecEntry e = {0};
        const char *eq = NULL;
        for (const char *q = start; q < end; q++) {
            if (*q == '"' || *q == '\'')
                break;
            if (*q == '=') {
                eq = q;
                break;
            }
        }
        if (eq) {
            const char *ne = eq;
            while (ne > start && ne[-1] == ' ')
                ne--;
            e.name = arena_strndup(a, start, (size_t)(ne - start));
            const char *vs = eq + 1;
            while (vs < end && *vs == ' ')
                vs++;
            e.text = arena_strndup(a, vs, (size_t)(end - vs));
            if (!*e.name || !*e.text) {
                *err = "malformed 'name=value' entry in the signature";
                return false;
            }
        } else {
            e.text = arena_strndup(a, start, (size_t)(end - start));
        }
        vec_push(a, &lo->sig, e);
        if (*p == ',')
            p++;
    }
    int named = 0, positional = 0;
    StrMap seen = {0};
    for (int i = 0; i < lo->sig.len; i++) {
        const char *name = lo->sig.data[i].name;
        if (name && strmap_find(&seen, name)) {
            *err = arena_printf(a, "'%s' is named twice in the signature", name);
            return false;
        }
        if (name)
            strmap_put(a, &seen, name, i);
        name ? named++ : positional++;
    }
    if (named && positional) {
        *err = "the signature mixes positional and named entries; use one form";
        return false;
    }
    return true;
}

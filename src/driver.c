/* driver.c — the translate function: the passes of PASS_LIST (driver.h), one function each. */
#include "driver.h"

#include <stdlib.h>
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

/* What the passes have made so far. */
typedef struct Pipeline {
    Ctx *ctx;
    const TranslateOptions *opt;
    TokenArray toks;
    Module *m;
    TirFunc *f;
} Pipeline;

/* ---- the passes (PASS_LIST, driver.h) ------------------------------------------ */

static void pass_tokens(Pipeline *p) { p->toks = lex_source(p->ctx); }

static void pass_ast(Pipeline *p) { p->m = parse_module(p->ctx, p->toks); }

/* The kernel into typed tile IR, specialised for the signature and constexprs. */
static void pass_lower(Pipeline *p) { p->f = tir_lower(p->ctx, p->m, &p->opt->lower); }

static void pass_simplify(Pipeline *p)
{
    tir_simplify(p->ctx, p->f);
    tir_combine(p->ctx, p->f);
    tir_if_convert(p->ctx, p->f);
}

static void pass_axisinfo(Pipeline *p) { tir_axisinfo(p->ctx, p->f); }

/* TILEC_DOT_RELOAD=0 keeps loop-invariant dot operands in registers instead of reading
 * them from shared memory in their loop (tir_dot_reload): a tuning knob (docs/CLI.md). */
static bool dot_reload_enabled(void)
{
    const char *v = getenv("TILEC_DOT_RELOAD");
    return !v || strcmp(v, "0") != 0;
}

/* Layouts, the cp.async pipeline of dot loops, loop-invariant dot operands, the tidy-up,
 * shared memory, the limits a block must fit, and what the kernel uses. */
static void pass_layouts(Pipeline *p)
{
    tir_layouts(p->ctx, p->f);
    tir_pipeline(p->ctx, p->f);
    tir_dot_reload(p->ctx, p->f, dot_reload_enabled());
    tir_wgmma(p->ctx, p->f);
    tir_tma_store(p->ctx, p->f);
    tir_tidy(p->ctx, p->f);
    tir_smem(p->ctx, p->f);
    tir_check_limits(p->ctx, p->f, &p->opt->lower);
    tir_summarize(p->ctx, p->f);
}

/* ---- the dumps -------------------------------------------------------------------- */

static void dump_tokens(StrBuf *out, const Pipeline *p)
{
    for (int i = 0; i < p->toks.len; i++) {
        const Token *t = &p->toks.data[i];
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

static void dump_ast(StrBuf *out, const Pipeline *p) { ast_dump_module(out, p->m); }

static void dump_ir(StrBuf *out, const Pipeline *p) { tir_print(out, p->f, false); }

static void dump_ir_analyses(StrBuf *out, const Pipeline *p) { tir_print(out, p->f, true); }

/* ---- the pipeline ----------------------------------------------------------------- */

bool tilec_pass_exists(const char *name)
{
#define PASS_IS(pass, verify, print) || !strcmp(name, #pass)
    return false PASS_LIST(PASS_IS);
#undef PASS_IS
}

/* ---- --variant ------------------------------------------------------------------- */

/* A variant's entries may only add what a launch can test about a runtime parameter of
 * the kernel as written: an integer equal to 1 (NAME=1), or an integer or a pointer
 * divisible by 16 (NAME=TYPE:16, its type unchanged). */
static void check_facts(Ctx *ctx, const TirFunc *f, const SpecVec *facts, const char *text)
{
    for (int i = 0; i < facts->len; i++) {
        const SpecEntry *e = &facts->data[i];
        const KernelParam *kp = NULL;
        for (int k = 0; k < f->params.len && !kp; k++)
            if (!f->params.data[k].desc_name && !strcmp(f->params.data[k].name, e->name))
                kp = &f->params.data[k];
        if (!kp)
            diag_error(ctx, f->loc, "--variant \"%s\": '%s' is not a parameter of '%s'", text, e->name, f->name);
        if (!kp->value)
            diag_error(ctx, f->loc, "--variant \"%s\": '%s' is a constexpr or fixed by the signature; a variant "
                       "adds facts about runtime parameters", text, e->name);
        Type t = kp->type;
        bool integer = tir_type_is_integer(t);
        const char *div16 = arena_printf(&ctx->arena, "%s:16", type_sig_str(&ctx->arena, t));
        if (integer && !strcmp(e->text, "1"))
            continue;
        if ((integer || t.dtype == DT_PTR) && !strcmp(e->text, div16)) {
            if (kp->div >= 16)
                diag_error(ctx, f->loc, "--variant \"%s\": '%s' is declared :16 already", text, e->name);
            continue;
        }
        if (integer)
            diag_error(ctx, f->loc, "--variant \"%s\": '%s' may be %s=1 or %s=%s; a variant adds facts a launch "
                       "can test, not types or other values", text, e->name, e->name, e->name, div16);
        if (t.dtype == DT_PTR)
            diag_error(ctx, f->loc, "--variant \"%s\": '%s' may be %s=%s (16-byte aligned); a variant adds facts "
                       "a launch can test, not types", text, e->name, e->name, div16);
        diag_error(ctx, f->loc, "--variant \"%s\": '%s' is %s; a variant only adds facts about integers and "
                   "pointers", text, e->name, type_sig_str(&ctx->arena, t));
    }
}

/* --variant auto: ":16" for every pointer and integer the signature leaves open (and
 * @triton.jit's lists do not exclude), the variant that aligned sizes and addresses take. */
static SpecVec auto_facts(Ctx *ctx, const TirFunc *f, const char **text)
{
    SpecVec v = {0};
    StrBuf sb = {0};
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (!(tir_param_facts(kp) & TIR_FACT_DIV16))
            continue;
        SpecEntry e = {.name = kp->name, .text = arena_printf(&ctx->arena, "%s:16", type_sig_str(&ctx->arena, kp->type))};
        vec_push(&ctx->arena, &v, e);
        sb_printf(&sb, "%s%s=%s", sb.len ? ", " : "", e.name, e.text);
    }
    if (!v.len)
        diag_error(ctx, f->loc, "--variant auto: every pointer and integer of '%s' is declared :16 or fixed already, "
                   "so no fact is left for a variant to add", f->name);
    *text = arena_strdup(&ctx->arena, sb.data);
    sb_free(&sb);
    return v;
}

/* Variant i: the kernel translated again, with its facts after the signature, through the
 * layouts.  Its notes and warnings are dropped (the kernel as written gave them); an
 * error in it says which variant it came from. */
static TirFunc *variant_func(Ctx *ctx, const TranslateOptions *opt, const TirFunc *base, int i)
{
    check_facts(ctx, base, &opt->variants[i], opt->variant_text[i]);
    TranslateOptions vo = *opt;
    vo.lower.sig = (SpecVec){0};
    for (int k = 0; k < opt->lower.sig.len; k++)
        vec_push(&ctx->arena, &vo.lower.sig, opt->lower.sig.data[k]);
    for (int k = 0; k < opt->variants[i].len; k++)
        vec_push(&ctx->arena, &vo.lower.sig, opt->variants[i].data[k]); /* named: they override */
    vo.nvariants = 0;
    vo.result = NULL;
    vo.dump = NULL;
    int ndiags = ctx->diags.len;
    size_t loglen = ctx->log.len;
    jmp_buf jb, *outer = ctx->on_error;
    ctx->on_error = &jb;
    if (setjmp(jb)) {
        ctx->on_error = outer;
        diag_note(ctx, base->loc, "in the variant \"%s\" (--variant)", opt->variant_text[i]);
        longjmp(*outer, 1);
    }
    Pipeline q = {.ctx = ctx, .opt = &vo};
    pass_tokens(&q);
    pass_ast(&q);
    pass_lower(&q);
    VERIFY(ctx, q.f);
    pass_simplify(&q);
    VERIFY(ctx, q.f);
    pass_axisinfo(&q);
    pass_layouts(&q);
    VERIFY(ctx, q.f);
    /* the launcher encodes the tensor maps once, for whichever kernel it runs */
    bool same_maps = q.f->tma_maps.len == base->tma_maps.len;
    for (int k = 0; same_maps && k < base->tma_maps.len; k++) {
        const TmaMap *a = &base->tma_maps.data[k], *b = &q.f->tma_maps.data[k];
        same_maps = a->param == b->param && a->box_cols == b->box_cols && a->box_rows == b->box_rows &&
                    a->swizzle == b->swizzle;
    }
    if (!same_maps)
        diag_error(ctx, base->loc, "--variant \"%s\": this variant copies its tensor descriptors by TMA in other boxes "
                   "than the kernel as written, and one launcher encodes one set of tensor maps; drop the variant",
                   opt->variant_text[i]);
    ctx->on_error = outer;
    ctx->diags.len = ndiags;
    ctx->log.len = loglen;
    if (ctx->log.data)
        ctx->log.data[loglen] = 0;
    return q.f;
}

static void emit_cuda(const Pipeline *p, StrBuf *out)
{
    const TranslateOptions *opt = p->opt;
    cuda_name_params(p->ctx, p->f);
    GridProg grid; /* --grid's errors come before any output */
    tir_grid_compile(p->ctx, p->f, opt->grid, &grid);
    EmitOptions eo = {.command = opt->command, .grid = opt->grid, .grid_prog = &grid, .arch = opt->lower.arch};
    if (opt->nvariants) {
        Arena *a = &p->ctx->arena;
        const TirFunc **vs = NEW_ARRAY(a, const TirFunc *, opt->nvariants + 1);
        /* the facts as given, with "auto" made into its entries */
        TranslateOptions vo = *opt;
        SpecVec *facts = NEW_ARRAY(a, SpecVec, opt->nvariants + 1);
        const char **text = NEW_ARRAY(a, const char *, opt->nvariants + 1);
        for (int i = 0; i < opt->nvariants; i++) {
            facts[i] = opt->variants[i];
            text[i] = opt->variant_text[i];
            if (!strcmp(text[i], "auto"))
                facts[i] = auto_facts(p->ctx, p->f, &text[i]);
        }
        vo.variants = facts;
        vo.variant_text = text;
        for (int i = 0; i < opt->nvariants; i++) {
            TirFunc *v = variant_func(p->ctx, &vo, p->f, i);
            cuda_name_params(p->ctx, v);
            vs[i] = v;
        }
        eo.variants = vs;
        eo.variant_facts = facts;
        eo.variant_text = text;
        eo.nvariants = opt->nvariants;
    }
    cuda_emit(p->ctx, out, p->f, &eo);
}

static void emit(const Pipeline *p, StrBuf *out)
{
    const TranslateOptions *opt = p->opt;
    switch (opt->emit) {
    case EMIT_TILEIR: tir_print(out, p->f, true); break;
    case EMIT_LAYOUTS:
        tir_print_layouts(out, p->f);
        tir_print_values(out, p->f);
        break;
    case EMIT_CUDA: emit_cuda(p, out); break;
    case EMIT_HTML: {
        StrBuf cuda = {0}; /* the page shows the .cu and links it to the source */
        emit_cuda(p, &cuda);
        HtmlOptions ho = {.cuda = cuda.data, .command = opt->command, .ptxas = opt->ptxas};
        html_emit(p->ctx, out, p->f, &ho);
        sb_free(&cuda);
        break;
    }
    case EMIT_SVG: svg_emit(&p->ctx->arena, out, html_find_value(p->ctx, p->f, opt->value)); break;
    }
}

/* Each pass of PASS_LIST in turn, the verifier after those that rewrite the IR, and a
 * stop after the one --dump names. */
static int run(Ctx *ctx, const TranslateOptions *opt, StrBuf *out)
{
    Pipeline p = {.ctx = ctx, .opt = opt};
#define RUN_PASS(pass, verify, print)                 \
    pass_##pass(&p);                                  \
    if (verify)                                       \
        VERIFY(ctx, p.f);                             \
    if (opt->result)                                  \
        *opt->result = p.f;                           \
    if (opt->dump && !strcmp(opt->dump, #pass))       \
        return print(out, &p), 0;
    PASS_LIST(RUN_PASS)
#undef RUN_PASS
    emit(&p, out);
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
        int depth = 0; /* inside tensordesc<fp16[64, 64]>'s brackets */
        while (*p && (quote || depth || *p != ',')) {
            if (quote && *p == quote)
                quote = 0;
            else if (!quote && (*p == '"' || *p == '\''))
                quote = *p;
            else if (!quote && *p == '[')
                depth++;
            else if (!quote && *p == ']' && depth)
                depth--;
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

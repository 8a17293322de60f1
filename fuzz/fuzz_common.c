/* fuzz_common.c — one fuzz input through tilec_translate (see fuzz_common.h). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "parser/ast.h"

/* Split one line into shell-like words: spaces separate, quotes group. */
static int split_words(Arena *a, const char *s, const char *end, char **words, int max)
{
    int n = 0;
    while (s < end && n < max) {
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s >= end)
            break;
        char *w = arena_alloc(a, (size_t)(end - s) + 1), *o = w;
        char quote = 0;
        for (; s < end && (quote || (*s != ' ' && *s != '\t')); s++) {
            if (quote && *s == quote)
                quote = 0;
            else if (!quote && (*s == '"' || *s == '\''))
                quote = *s;
            else
                *o++ = *s;
        }
        *o = 0;
        words[n++] = w;
    }
    return n;
}

static bool small_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* The "# flags: ..." line, with the checks the command line makes. */
static bool apply_flags(Arena *a, const char *line, const char *end, TranslateOptions *t)
{
    char *w[64];
    int n = split_words(a, line, end, w, 64);
    for (int i = 0; i < n; i++) {
        const char *f = w[i];
        const char *v = i + 1 < n ? w[i + 1] : NULL;
        if (!strcmp(f, "--debug")) {
            t->lower.debug = true;
            continue;
        }
        if (!strncmp(f, "-D", 2) && f[2]) {
            v = f + 2;
        } else if (f[0] != '-') {
            continue; /* the input file of a golden .flags line */
        } else {
            if (!v)
                return false;
            i++;
        }
        const char *err;
        if (!strcmp(f, "-k")) {
            t->lower.kernel = v;
        } else if (!strcmp(f, "-s")) {
            if (!tilec_parse_signature(a, v, &t->lower, &err))
                return false;
        } else if (!strncmp(f, "-D", 2)) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1])
                return false;
            SpecEntry e = {arena_strndup(a, v, (size_t)(eq - v)), eq + 1, {0, 0}};
            vec_push(a, &t->lower.defines, e);
        } else if (!strcmp(f, "-w")) {
            if (!small_int(v, 1, 32, &t->lower.num_warps) || !is_pow2(t->lower.num_warps))
                return false;
        } else if (!strcmp(f, "--num-stages")) {
            if (!small_int(v, 1, 8, &t->lower.num_stages))
                return false;
        } else if (!strcmp(f, "--config")) {
            if (!small_int(v, 0, 1 << 20, &t->lower.config_index))
                return false;
        } else if (!strcmp(f, "--arch")) {
            t->lower.arch = !strcmp(v, "sm_90") ? 90 : 80;
        } else if (!strcmp(f, "--grid")) {
            t->grid = v;
        } else if (!strcmp(f, "--emit")) {
            t->emit = !strcmp(v, "tileir") ? EMIT_TILEIR : !strcmp(v, "layouts") ? EMIT_LAYOUTS : EMIT_CUDA;
        }
    }
    return true;
}

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* A plausible signature entry for a parameter, chosen by its name. */
static const char *entry_for(const Param *p)
{
    static const char *const ptrs[] = {"*fp32:16", "*fp32:16", "*fp16:16", "*bf16:16", "*i32:16", "*i64", "*u8:16", "*fp32"};
    static const char *const scalars[] = {"i32", "i32:16", "i32", "i64", "fp32", "i32:16"};
    static const char *const consts[] = {"64", "128", "32", "1024", "16", "256", "4", "True"};
    unsigned h = name_hash(p->name);
    if (p->annotation)
        return p->default_value ? NULL : consts[h % ARRAY_LEN(consts)];
    if (strstr(p->name, "ptr") || strstr(p->name, "Ptr") || strstr(p->name, "PTR"))
        return ptrs[h % ARRAY_LEN(ptrs)];
    return scalars[h % ARRAY_LEN(scalars)];
}

/* Kernel and named signature from the source, when it parses. */
static void derive_options(Arena *a, const Source *src, TranslateOptions *t)
{
    Ctx ctx = {0};
    ctx.src = src;
    jmp_buf jb;
    ctx.on_error = &jb;
    if (setjmp(jb) == 0) {
        Module *m = parse_module(&ctx, lex_source(&ctx));
        if (m->funcs.len > 0) {
            FuncDef *fd = m->funcs.data[m->funcs.len - 1];
            t->lower.kernel = arena_strdup(a, fd->name);
            for (int i = 0; i < fd->params.len; i++) {
                const Param *p = &fd->params.data[i];
                const char *text = p->star || p->dstar ? NULL : entry_for(p);
                if (!text)
                    continue;
                SpecEntry e = {arena_strdup(a, p->name), text, {0, 0}};
                vec_push(a, &t->lower.sig, e);
            }
        }
    }
    sb_free(&ctx.log);
    arena_free(&ctx.arena);
}

void fuzz_run(const uint8_t *data, size_t size, const char *dump, bool flags)
{
    if (size > FUZZ_MAX_INPUT)
        return;
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = 0;
    Source src = {"fuzz.py", text, size};

    Arena opts = {0};
    TranslateOptions t = {0};
    t.lower.arch = 80;
    t.dump = dump;
    t.command = "tilec fuzz.py";
    bool ok = true;
    if (flags && size > 8 && !memcmp(text, "# flags:", 8)) {
        const char *eol = memchr(text, '\n', size);
        ok = apply_flags(&opts, text + 8, eol ? eol : text + size, &t);
    } else if (flags) {
        derive_options(&opts, &src, &t);
    }
    if (ok) {
        Ctx ctx = {0};
        ctx.src = &src;
        StrBuf out = {0};
        tilec_translate(&ctx, &t, &out);
        sb_free(&out);
        sb_free(&ctx.log);
        arena_free(&ctx.arena);
    }
    arena_free(&opts);
    free(text);
}

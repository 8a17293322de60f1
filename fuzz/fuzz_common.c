/* fuzz_common.c — one fuzz input through tilec_translate (see fuzz_common.h). */
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "options.h"
#include "parser/ast.h"

/* The "# flags: ..." line, read as tilec reads its command line (options.c). */
static bool apply_flags(Arena *a, const char *line, TranslateOptions *t)
{
    int n;
    char **words = options_split(a, line, &n);
    CliOptions cli = {0};
    return !options_parse(a, n, words, &cli) && !options_translate(a, &cli.t, t);
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
                SpecEntry e = {arena_strdup(a, p->name), text, {0}};
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
    bool ok = true;
    if (flags && size > 8 && !memcmp(text, "# flags:", 8)) {
        ok = apply_flags(&opts, text + 8, &t);
    } else {
        const tilec_translate_options defaults = {.command = "tilec fuzz.py"};
        options_translate(&opts, &defaults, &t);
        if (flags)
            derive_options(&opts, &src, &t);
    }
    if (dump)
        t.dump = dump;
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

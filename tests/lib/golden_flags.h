/*
 * golden_flags.h — reading tests/golden/NAME.flags into library options, for the plain-C
 * programs that run golden kernels through the library (lib_golden, bench_library).  The
 * flags go through tilec's own parser (src/options.h, in libtilec.a), so they mean here what
 * they mean to tilec.  Static functions: include it in one file per program.
 */
#ifndef TILEC_GOLDEN_FLAGS_H
#define TILEC_GOLDEN_FLAGS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/options.h"
#include "tilec.h"

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = 0;
    *len = n;
    return buf;
}

typedef struct Case {
    const char *name;
    char *line;               /* the flags line as read */
    char *source;
    size_t source_size;
    tilec_translate_options o;
    Arena arena;              /* the words of the line and what the options hold */
} Case;

/* tilec's flags, read by tilec's own parser (src/options.c): the first word is the input. */
static const char *parse_case(Case *c)
{
    int n;
    char **words = options_split(&c->arena, c->line, &n);
    CliOptions cli = {0};
    const char *err = options_parse(&c->arena, n, words, &cli);
    if (!err && !cli.input)
        err = "no input file";
    c->o = cli.t;
    c->o.filename = cli.input;
    return err;
}

static bool load_case(Case *c, const char *flags_path)
{
    size_t len;
    c->line = read_text(flags_path, &len);
    const char *slash = strrchr(flags_path, '/');
    c->name = slash ? slash + 1 : flags_path;
    const char *err = c->line ? parse_case(c) : "cannot read the flags";
    if (!err && !(c->source = read_text(c->o.filename, &c->source_size)))
        err = "cannot read the input file";
    if (err) {
        printf("FAIL %s: %s\n", c->name, err);
        return false;
    }
    c->o.source_size = c->source_size;
    return true;
}

static void free_case(Case *c)
{
    free(c->line);
    free(c->source);
    arena_free(&c->arena);
}

#endif

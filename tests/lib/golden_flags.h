/*
 * golden_flags.h — reading tests/golden/NAME.flags into library options, for the plain-C
 * programs that run golden kernels through the library (lib_golden, bench_library).  Static
 * functions: include it in one file per program.
 */
#ifndef TILEC_GOLDEN_FLAGS_H
#define TILEC_GOLDEN_FLAGS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilec.h"

#define MAX_WORDS 64

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

/* Splits the first line of `line` into words as sh does for quotes ("..." and '...').
 * Words point into `line`, which is modified. */
static int split_words(char *line, char **words)
{
    int n = 0;
    char *r = line, *w = line;
    while (*r && *r != '\n') {
        while (*r == ' ' || *r == '\t')
            r++;
        if (!*r || *r == '\n')
            break;
        if (n == MAX_WORDS)
            return -1;
        words[n++] = w;
        char quote = 0;
        while (*r && *r != '\n' && (quote || (*r != ' ' && *r != '\t'))) {
            if (quote && *r == quote)
                quote = 0, r++;
            else if (!quote && (*r == '"' || *r == '\''))
                quote = *r++;
            else if (quote == '"' && *r == '\\' && r[1])
                r++, *w++ = *r++;
            else
                *w++ = *r++;
        }
        char *end = r;
        if (*r)
            r++;
        *w++ = 0;
        if (w > end + 1)
            return -1; /* cannot happen: w never passes r */
    }
    return n;
}

typedef struct Case {
    const char *name;
    char *line;               /* owns the words */
    char *source;
    size_t source_size;
    tilec_translate_options o;
    tilec_define defines[16];
} Case;

/* tilec's flags, the subset the golden files use. */
static const char *parse_case(Case *c, char **w, int n)
{
    if (n < 1)
        return "empty flags line";
    c->o.filename = w[0];
    for (int i = 1; i < n; i++) {
        const char *a = w[i], *v = i + 1 < n ? w[i + 1] : NULL;
        if (!strncmp(a, "-D", 2)) {
            const char *d = a[2] ? a + 2 : (i++, v);
            char *eq = d ? strchr(d, '=') : NULL;
            if (!eq || c->o.num_defines == 16)
                return "bad -D";
            *eq = 0;
            c->defines[c->o.num_defines++] = (tilec_define){d, eq + 1};
            continue;
        }
        if (!strcmp(a, "--debug")) {
            c->o.debug = 1;
            continue;
        }
        if (!v)
            return "a flag without its value";
        i++;
        if (!strcmp(a, "-k"))
            c->o.kernel = v;
        else if (!strcmp(a, "-s"))
            c->o.signature = v;
        else if (!strcmp(a, "-w"))
            c->o.num_warps = atoi(v);
        else if (!strcmp(a, "--num-stages"))
            c->o.num_stages = atoi(v);
        else if (!strcmp(a, "--config"))
            c->o.config = atoi(v);
        else if (!strcmp(a, "--min-blocks"))
            c->o.min_blocks_per_sm = !strcmp(v, "none") ? -1 : !strcmp(v, "auto") ? 0 : atoi(v);
        else if (!strcmp(a, "--grid"))
            c->o.grid = v;
        else if (!strcmp(a, "--arch"))
            c->o.arch = atoi(v + (v[0] == 's' ? 3 : 0));
        else
            return "unknown flag";
    }
    c->o.defines = c->defines;
    return NULL;
}

static bool load_case(Case *c, const char *flags_path)
{
    size_t len;
    c->line = read_text(flags_path, &len);
    const char *slash = strrchr(flags_path, '/');
    c->name = slash ? slash + 1 : flags_path;
    char *words[MAX_WORDS];
    int n = c->line ? split_words(c->line, words) : -1;
    const char *err = n < 0 ? "cannot read or split the flags" : parse_case(c, words, n);
    if (!err && !(c->source = read_text(c->o.filename, &c->source_size)))
        err = "cannot read the input file";
    if (err) {
        printf("FAIL %s: %s\n", c->name, err);
        return false;
    }
    c->o.source_size = c->source_size;
    return true;
}

#endif

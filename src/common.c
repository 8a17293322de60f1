/* common.c — arena, vectors, string builder, diagnostics. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bug_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tilec: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("tilec: out of memory\n", stderr);
        abort();
    }
    return p;
}

/* ---- arena ------------------------------------------------------------- */

struct ArenaChunk {
    ArenaChunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void *arena_alloc(Arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    ArenaChunk *c = a->head;
    if (!c || c->used + size > c->size) {
        size_t cap = size > 65536 ? size : 65536;
        c = xmalloc(sizeof(ArenaChunk) + cap);
        c->next = a->head;
        c->used = 0;
        c->size = cap;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void arena_free(Arena *a)
{
    ArenaChunk *c = a->head;
    while (c) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

void vec_grow_(Arena *a, void **data, int *cap, size_t elem)
{
    int ncap = *cap ? *cap * 2 : 8;
    void *p = arena_alloc(a, elem * (size_t)ncap);
    if (*data)
        memcpy(p, *data, elem * (size_t)*cap);
    *data = p;
    *cap = ncap;
}

/* ---- string maps ------------------------------------------------------- */

uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of key, or the empty slot where it would go; cap is a power of two, never full. */
static int strmap_slot(const StrMap *m, const char *key)
{
    int mask = m->cap - 1;
    int i = (int)(str_hash(key) & (uint64_t)mask);
    while (m->keys[i] && strcmp(m->keys[i], key))
        i = (i + 1) & mask;
    return i;
}

int *strmap_find(const StrMap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    int i = strmap_slot(m, key);
    return m->keys[i] ? &m->vals[i] : NULL;
}

void strmap_put(Arena *a, StrMap *m, const char *key, int val)
{
    if (2 * (m->len + 1) > m->cap) {  /* at most half full */
        int cap = m->cap ? 2 * m->cap : 16;
        StrMap grown = {NEW_ARRAY(a, const char *, cap), NEW_ARRAY(a, int, cap), cap, m->len};
        for (int i = 0; i < m->cap; i++)
            if (m->keys[i]) {
                int j = strmap_slot(&grown, m->keys[i]);
                grown.keys[j] = m->keys[i];
                grown.vals[j] = m->vals[i];
            }
        *m = grown;
    }
    int i = strmap_slot(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->len++;
    }
    m->vals[i] = val;
}

/* ---- string builder ---------------------------------------------------- */

static void sb_reserve(StrBuf *sb, size_t extra)
{
    if (sb->len + extra + 1 <= sb->cap)
        return;
    size_t ncap = sb->cap ? sb->cap * 2 : 256;
    while (ncap < sb->len + extra + 1)
        ncap *= 2;
    char *p = xmalloc(ncap);
    if (sb->data) {
        memcpy(p, sb->data, sb->len);
        free(sb->data);
    }
    sb->data = p;
    sb->cap = ncap;
    sb->data[sb->len] = 0;
}

void sb_putn(StrBuf *sb, const char *s, size_t n)
{
    sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = 0;
}

void sb_putc(StrBuf *sb, char c) { sb_putn(sb, &c, 1); }
void sb_puts(StrBuf *sb, const char *s) { sb_putn(sb, s, strlen(s)); }

void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    sb->len += (size_t)n;
}

void sb_printf(StrBuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void sb_free(StrBuf *sb)
{
    free(sb->data);
    sb->data = NULL;
    sb->len = sb->cap = 0;
}

char *sb_take(StrBuf *sb)
{
    if (!sb->data)
        sb_reserve(sb, 0);
    char *p = sb->data;
    sb->data = NULL;
    sb->len = sb->cap = 0;
    return p;
}

/* ---- diagnostics ------------------------------------------------------- */

const char *source_line(const Source *src, int line, int *len)
{
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; p++)
        if (*p == '\n')
            l++;
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    *len = (int)(e - p);
    return p;
}

/* The source line under a diagnostic and a caret; a long line is cut to a
 * window around the column, marked with "...". */
static void print_source_excerpt(StrBuf *log, const Source *src, Loc loc)
{
    enum { WIDTH = 100, BEFORE = 60 };
    int len;
    const char *text = source_line(src, loc.line, &len);
    int start = 0, end = len;
    if (len > WIDTH + 20) {
        start = loc.col - 1 > BEFORE ? loc.col - 1 - BEFORE : 0;
        if (start > len)
            start = len;
        end = start + WIDTH < len ? start + WIDTH : len;
    }
    const char *pre = start > 0 ? "..." : "", *post = end < len ? "..." : "";
    sb_printf(log, "  %s%.*s%s\n  %s", pre, end - start, text + start, post, start > 0 ? "   " : "");
    for (int i = start + 1; i < loc.col && i <= end; i++)
        sb_putc(log, text[i - 1] == '\t' ? '\t' : ' ');
    sb_puts(log, "^\n");
}

static const char *kind_name(DiagKind k)
{
    switch (k) {
    case DIAG_ERROR: return "error";
    case DIAG_WARNING: return "warning";
    case DIAG_NOTE: return "note";
    }
    return "?";
}

void diag_vreport(Ctx *ctx, DiagKind kind, Loc loc, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = arena_alloc(&ctx->arena, (size_t)n + 1);
    vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);

    const char *file = ctx->src ? ctx->src->path : "tilec";
    Diagnostic d = {kind, file, loc, msg};
    vec_push(&ctx->arena, &ctx->diags, d);
    if (kind == DIAG_ERROR)
        ctx->nerrors++;

    if (loc.line > 0) {
        sb_printf(&ctx->log, "%s:%d:%d: %s: %s\n", file, loc.line, loc.col, kind_name(kind), msg);
        print_source_excerpt(&ctx->log, ctx->src, loc);
    } else {
        sb_printf(&ctx->log, "%s: %s: %s\n", file, kind_name(kind), msg);
    }
}

void diag_error(Ctx *ctx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx, DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    if (!ctx->on_error)
        BUG("diag_error outside a translation");
    longjmp(*ctx->on_error, 1);
}

void diag_warning(Ctx *ctx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx, DIAG_WARNING, loc, fmt, ap);
    va_end(ap);
}

void diag_note(Ctx *ctx, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx, DIAG_NOTE, loc, fmt, ap);
    va_end(ap);
}

int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int64_t highest_pow2_divisor(int64_t x)
{
    if (x == 0)
        return (int64_t)1 << 62;
    uint64_t u = (uint64_t)x;
    return (int64_t)(u & (~u + 1));
}

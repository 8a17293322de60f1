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
        StrMap grown = {.keys = NEW_ARRAY(a, const char *, cap), .vals = NEW_ARRAY(a, int, cap),
                         .cap = cap, .len = m->len};
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

/* ---- Unicode and user text in output ----------------------------------- */

typedef struct UnicodeRange {
    uint32_t lo, hi;
} UnicodeRange;

#include "unicode_tables.h"

static bool in_ranges(const UnicodeRange *r, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < r[mid].lo)
            hi = mid;
        else if (cp > r[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static bool ascii_name_char(uint32_t cp, bool first)
{
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_' || (!first && cp >= '0' && cp <= '9');
}

bool uni_is_xid_start(uint32_t cp)
{
    return cp < 0x80 ? ascii_name_char(cp, true) : in_ranges(xid_start, ARRAY_LEN(xid_start), cp);
}

bool uni_is_xid_continue(uint32_t cp)
{
    return cp < 0x80 ? ascii_name_char(cp, false) : in_ranges(xid_continue, ARRAY_LEN(xid_continue), cp);
}

bool uni_nfkc_changes(uint32_t cp) { return cp >= 0x80 && in_ranges(nfkc_changes, ARRAY_LEN(nfkc_changes), cp); }

bool uni_is_invisible(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && in_ranges(invisible, ARRAY_LEN(invisible), cp));
}

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    static const uint32_t min_of[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (!n)
        return 0;
    int len = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || (size_t)len > n)
        return 0;
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min_of[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

/* One character of user text at s (n > 0 bytes left), as sb_put_visible shows it; returns
 * the bytes it took. */
static size_t put_visible_char(StrBuf *sb, const unsigned char *s, size_t n)
{
    uint32_t cp = 0;
    int len = utf8_decode(s, n, &cp);
    if (!len) {
        sb_printf(sb, "\\x%02x", s[0]);
        return 1;
    }
    if (!uni_is_invisible(cp)) {
        sb_putn(sb, (const char *)s, (size_t)len);
        return (size_t)len;
    }
    switch (cp) {
    case '\n': sb_puts(sb, "\\n"); break;
    case '\r': sb_puts(sb, "\\r"); break;
    case '\t': sb_puts(sb, "\\t"); break;
    default: sb_printf(sb, cp < 0x80 ? "\\x%02x" : cp <= 0xFFFF ? "\\u%04x" : "\\U%08x", (unsigned)cp);
    }
    return (size_t)len;
}

void sb_put_visible(StrBuf *sb, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end)
        p += put_visible_char(sb, p, (size_t)(end - p));
}

void sb_put_comment(StrBuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        unsigned char prev = p > (const unsigned char *)s ? p[-1] : 0;
        if ((*p == '/' && prev == '*') || (*p == '*' && prev == '/') || (*p == '?' && prev == '?')) {
            sb_putc(sb, '\\');  /* no comment end or start, no trigraph */
            sb_putc(sb, (char)*p++);
        } else if (*p == '\\' && p + 1 + strspn((const char *)p + 1, " ") == end) {
            sb_puts(sb, "\\x5c");  /* would splice the next line into the comment */
            p++;
        } else {
            p += put_visible_char(sb, p, (size_t)(end - p));
        }
    }
}

void sb_put_c_string(StrBuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        uint32_t cp = 0;
        int len = utf8_decode(p, (size_t)(end - p), &cp);
        if (*p == '"' || *p == '\\' || (*p == '?' && p > (const unsigned char *)s && p[-1] == '?')) {
            sb_putc(sb, '\\');
            sb_putc(sb, (char)*p++);
        } else if (*p == '\n' || *p == '\r' || *p == '\t') {
            sb_puts(sb, *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : "\\t");
            p++;
        } else if (len && !uni_is_invisible(cp)) {
            sb_putn(sb, (const char *)p, (size_t)len);
            p += len;
        } else {
            for (int i = 0; i < (len ? len : 1); i++)  /* the same bytes, shown */
                sb_printf(sb, "\\%03o", *p++);
        }
    }
}

static char *escape_into(Arena *a, const char *s, void (*put)(StrBuf *, const char *))
{
    StrBuf sb = {0};
    put(&sb, s);
    char *r = arena_strndup(a, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return r;
}

char *comment_escape(Arena *a, const char *s) { return escape_into(a, s, sb_put_comment); }
char *c_string_escape(Arena *a, const char *s) { return escape_into(a, s, sb_put_c_string); }

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
 * window around the column, marked with "...".  The line is shown as
 * sb_put_visible shows text (tabs kept), and the caret counts what is shown. */
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
        while (start > 0 && (text[start] & 0xC0) == 0x80) /* whole UTF-8 characters */
            start--;
        while (end < len && (text[end] & 0xC0) == 0x80)
            end++;
    }
    StrBuf shown = {0}, pad = {0};
    for (int i = start; i < end;) {
        size_t before = shown.len;
        int n = 1;
        if (text[i] == '\t')
            sb_putc(&shown, '\t');
        else
            n = (int)put_visible_char(&shown, (const unsigned char *)text + i, (size_t)(end - i));
        bool escaped = shown.len - before != (size_t)n || memcmp(shown.data + before, text + i, (size_t)n);
        for (size_t c = 0; i < loc.col - 1 && c < (escaped ? shown.len - before : 1); c++)
            sb_putc(&pad, text[i] == '\t' ? '\t' : ' ');
        i += n;
    }
    for (int i = end; i < loc.col - 1 && i <= end; i++) /* a column just past the line's end */
        sb_putc(&pad, ' ');
    const char *pre = start > 0 ? "..." : "", *post = end < len ? "..." : "";
    sb_printf(log, "  %s%s%s\n  %s%s^\n", pre, shown.data ? shown.data : "", post, start > 0 ? "   " : "",
              pad.data ? pad.data : "");
    sb_free(&shown);
    sb_free(&pad);
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
    StrBuf raw = {0}, shown = {0};
    sb_vprintf(&raw, fmt, ap);
    sb_put_visible(&shown, raw.data ? raw.data : "", raw.len);  /* user text in it may hold anything */
    char *msg = arena_strndup(&ctx->arena, shown.data ? shown.data : "", shown.len);
    sb_free(&raw);
    sb_free(&shown);

    const Source *src = loc.src ? loc.src : ctx->src;
    const char *file = src ? src->path : "tilec";
    sb_put_visible(&shown, file, strlen(file));
    file = arena_strndup(&ctx->arena, shown.data, shown.len);
    sb_free(&shown);
    Diagnostic d = {.kind = kind, .file = file, .loc = loc, .message = msg};
    vec_push(&ctx->arena, &ctx->diags, d);
    if (kind == DIAG_ERROR)
        ctx->nerrors++;

    if (loc.line > 0) {
        sb_printf(&ctx->log, "%s:%d:%d: %s: %s\n", file, loc.line, loc.col, kind_name(kind), msg);
        print_source_excerpt(&ctx->log, src, loc);
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

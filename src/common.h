/*
 * common.h — the small toolkit every layer of tilec shares.
 *
 * Contract: everything one translation allocates comes from one Arena and is
 * freed at once (arena_free); nothing here holds mutable global state, so a
 * process may run many translations, one per Ctx.  User errors are reported
 * through the Ctx's diagnostic sink and unwind to the driver with longjmp
 * (diag_error never returns); internal invariants use BUG(), which aborts.
 */
#ifndef TILEC_COMMON_H
#define TILEC_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TILEC_VERSION "0.2.0"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define NORETURN
#define PRINTF_LIKE(f, a)
#endif

/* An internal bug: not the user's fault.  Prints file:line and aborts. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
NORETURN void bug_at(const char *file, int line, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* ---- arena ------------------------------------------------------------- */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
    ArenaChunk *head;
} Arena;

void *arena_alloc(Arena *a, size_t size);          /* zeroed, 16-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
void arena_free(Arena *a);

#define NEW(arena, T) ((T *)arena_alloc((arena), sizeof(T)))
#define NEW_ARRAY(arena, T, n) ((T *)arena_alloc((arena), sizeof(T) * (size_t)(n)))

/* ---- growable vectors (arena-backed) ----------------------------------- */

/* A typed vector: `Vec(Token) toks = {0}; vec_push(arena, &toks, tok);` */
#define Vec(T) struct { T *data; int len, cap; }
#define vec_push(arena, v, x)                                                  \
    do {                                                                       \
        if ((v)->len == (v)->cap)                                              \
            vec_grow_((arena), (void **)&(v)->data, &(v)->cap,                 \
                      sizeof(*(v)->data));                                     \
        (v)->data[(v)->len++] = (x);                                           \
    } while (0)
void vec_grow_(Arena *a, void **data, int *cap, size_t elem);

/* ---- string maps (arena-backed) ----------------------------------------- */

uint64_t str_hash(const char *s); /* FNV-1a, 64-bit */

/* Strings to ints, open addressing.  Keys are not copied: they must live as long as the map.
 * `StrMap m = {0};` is an empty map. */
typedef struct StrMap {
    const char **keys;
    int *vals;
    int cap, len;
} StrMap;
int *strmap_find(const StrMap *m, const char *key);             /* NULL when absent */
void strmap_put(Arena *a, StrMap *m, const char *key, int val); /* inserts or overwrites */

/* ---- string builder (heap-backed, caller frees) ------------------------ */

typedef struct StrBuf {
    char *data;
    size_t len, cap;
} StrBuf;

void sb_putc(StrBuf *sb, char c);
void sb_puts(StrBuf *sb, const char *s);
void sb_putn(StrBuf *sb, const char *s, size_t n);
void sb_printf(StrBuf *sb, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(StrBuf *sb, const char *fmt, va_list ap);
void sb_free(StrBuf *sb);
char *sb_take(StrBuf *sb); /* returns the NUL-terminated buffer; sb is reset */

/* ---- Unicode and user text in output ----------------------------------- */

/* The code point of the UTF-8 sequence at s (n bytes available) in *cp, and its length
 * 1..4; 0 for a byte that starts no valid sequence (overlong, surrogate, past U+10FFFF). */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
bool uni_is_xid_start(uint32_t cp);     /* Python's first character of a name (and '_') */
bool uni_is_xid_continue(uint32_t cp);  /* a later character of a name */
bool uni_nfkc_changes(uint32_t cp);     /* rewritten by NFKC, which Python applies to names */
bool uni_is_invisible(uint32_t cp);     /* control, format, bidi or line separator */

/* User text (paths, source, options) in what tilec prints.  Each shows what could act on a
 * terminal or hide text as an escape: control characters as \n \r \t \x1b, invisible
 * and bidi characters (U+200B, U+202E) as \u202e, bytes that are not UTF-8 as \xff. */
void sb_put_visible(StrBuf *sb, const char *s, size_t n);   /* diagnostics */
/* Inside a C comment (// or a block comment): also "*" "/" and "/" "*" broken by a
 * backslash, "??" written ?\? (no trigraph) and a backslash that ends the text as \x5c (no
 * line splice), so the text cannot end the comment or continue it onto the next line. */
void sb_put_comment(StrBuf *sb, const char *s);
/* Inside a C string literal: \" \\ \n \r \t, every other byte that is not printable
 * ASCII or valid visible UTF-8 as a three-digit octal escape, "??" as ?\?. */
void sb_put_c_string(StrBuf *sb, const char *s);
char *comment_escape(Arena *a, const char *s);   /* sb_put_comment into the arena */
char *c_string_escape(Arena *a, const char *s);  /* sb_put_c_string into the arena */

/* ---- sources and locations --------------------------------------------- */

typedef struct Source {
    const char *path;  /* as given on the command line, used in messages */
    const char *text;  /* NUL-terminated */
    size_t len;
} Source;

typedef struct Loc {
    int line, col;     /* 1-based; 0 means "no location" */
    const Source *src; /* the file it is in; NULL: the Ctx's source (the kernel file) */
} Loc;

/* ---- diagnostics and the translation context --------------------------- */

typedef enum DiagKind {
    DIAG_ERROR,
    DIAG_WARNING,
    DIAG_NOTE,
} DiagKind;

typedef struct Diagnostic {
    DiagKind kind;
    const char *file;
    Loc loc;
    const char *message;
} Diagnostic;

/* One translation's context: its arena, its source, its diagnostics. */
typedef struct Ctx {
    Arena arena;
    const Source *src;
    Vec(Diagnostic) diags;
    StrBuf log;          /* formatted diagnostics, as printed by the CLI */
    jmp_buf *on_error;   /* where diag_error unwinds to */
    int nerrors;
    int max_depth;       /* nesting limit for the parser and the lowerer */
} Ctx;

NORETURN void diag_error(Ctx *ctx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_warning(Ctx *ctx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_note(Ctx *ctx, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void diag_vreport(Ctx *ctx, DiagKind kind, Loc loc, const char *fmt, va_list ap);

/* The text of source line `line` (without newline) and its length. */
const char *source_line(const Source *src, int line, int *len);

/* ---- limits on the input ----------------------------------------------- */

#define TILEC_MAX_SOURCE_BYTES (8 << 20)  /* a kernel file is kilobytes; 8 MiB is not one */
#define TILEC_DEFAULT_MAX_DEPTH 200       /* nesting of blocks and expressions */

/* ---- small integer helpers --------------------------------------------- */

static inline bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
static inline int log2_int(int64_t x) { int n = 0; while (x > 1) { x >>= 1; n++; } return n; }
int64_t gcd64(int64_t a, int64_t b);
int64_t highest_pow2_divisor(int64_t x); /* x & -x; 2^62 for 0 */

#endif

/*
 * page.c — the explorer's page: templates/explorer/page.html with the
 * style, the script, the summary, the two code panes and the facts
 * (data.c) put in its @@NAME@@ slots.
 *
 * The link between the panes is the CUDA's own source comments: a line
 * "// softmax.py:31  z = x - ..." and the lines after it, up to the next
 * source comment, a blank line or a line indented less than the comment,
 * carry the key "softmax.py:31", as does line 31 of softmax.py.  The script
 * only joins equal keys.
 */
#include "html_internal.h"

#include <stdlib.h>
#include <string.h>

#include "page_templates.h"

void html_escape(StrBuf *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '<': sb_puts(out, "&lt;"); break;
        case '>': sb_puts(out, "&gt;"); break;
        case '&': sb_puts(out, "&amp;"); break;
        case '"': sb_puts(out, "&quot;"); break;
        default: sb_putc(out, s[i]);
        }
    }
}

/* A JSON string that is also safe inside <script>: no "</script>" can form. */
void json_string(StrBuf *out, const char *s)
{
    sb_putc(out, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(out, "\\%c", c);
        else if (c == '\n')
            sb_puts(out, "\\n");
        else if (c < 32 || c == '<' || c == '>' || c == '&')
            sb_printf(out, "\\u%04x", c);
        else
            sb_putc(out, (char)c);
    }
    sb_putc(out, '"');
}

Loc op_loc(const Op *op) { return op->stmt ? op->stmt->loc : op->loc; }

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *loc_key(Arena *a, Loc loc, const Source *main_src)
{
    const Source *src = loc.src ? loc.src : main_src;
    return arena_printf(a, "%s:%d", base_name(src->path), loc.line);
}

static const char *page_template(const char *name)
{
    for (int i = 0; i < tilec_page_template_count; i++)
        if (!strcmp(tilec_page_templates[i].name, name))
            return tilec_page_templates[i].text;
    BUG("no page template '%s'", name);
}

/* ---- the code panes -------------------------------------------------------------- */

/* Lines go in chunks of CHUNK_LINES, which the browser lays out only near the screen
 * (style.css): a .cu has a thousand lines. */
enum { CHUNK_LINES = 64 };

static void line_div(StrBuf *out, const char *key, const char *cls, int no)
{
    if (no % CHUNK_LINES == 1)
        sb_puts(out, no == 1 ? "<div class=\"chunk\">" : "</div><div class=\"chunk\">");
    sb_printf(out, "<div class=\"ln%s%s\"", cls ? " " : "", cls ? cls : "");
    if (key) {
        sb_puts(out, " data-loc=\"");
        html_escape(out, key, strlen(key));
        sb_putc(out, '"');
    }
    sb_printf(out, "><span class=\"no\">%d</span>", no);
}

static void source_file(StrBuf *out, const Source *src)
{
    const char *name = base_name(src->path);
    sb_puts(out, "<div class=\"file\">");
    html_escape(out, name, strlen(name));
    sb_puts(out, "</div>\n");
    const char *p = src->text, *end = src->text + src->len;
    for (int no = 1; p < end || no == 1; no++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        StrBuf k = {0};
        sb_printf(&k, "%s:%d", name, no);
        line_div(out, k.data, NULL, no);
        sb_free(&k);
        html_escape(out, p, n);
        sb_puts(out, "</div>\n");
        if (!nl)
            break;
        p = nl + 1;
    }
    sb_puts(out, "</div>\n");
}

typedef Vec(const Source *) SourceVec;

static void collect_sources(Arena *a, const Block *b, SourceVec *srcs)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        const Source *s = op_loc(op).src;
        bool seen = !s;
        for (int k = 0; k < srcs->len && !seen; k++)
            seen = srcs->data[k] == s;
        if (!seen)
            vec_push(a, srcs, s);
        for (int r = 0; r < op->nregions; r++)
            collect_sources(a, op->regions[r], srcs);
    }
}

/* The kernel's file, then each other file a helper came from. */
static void source_pane(Ctx *ctx, StrBuf *out, const TirFunc *f)
{
    SourceVec srcs = {0};
    vec_push(&ctx->arena, &srcs, ctx->src);
    collect_sources(&ctx->arena, f->body, &srcs);
    for (int i = 0; i < srcs.len; i++)
        source_file(out, srcs.data[i]);
}

/* Where a CUDA line starts "// NAME.py:N  ", the key "NAME.py:N". */
static const char *comment_key(Arena *a, const char *p, size_t n, int *indent)
{
    size_t i = 0;
    while (i < n && p[i] == ' ')
        i++;
    *indent = (int)i;
    if (n - i < 4 || strncmp(p + i, "// ", 3) || p[i + 3] == ' ')
        return NULL;
    size_t s = i + 3, colon = s;
    while (colon < n && p[colon] != ':' && p[colon] != ' ')
        colon++;
    if (colon >= n || p[colon] != ':' || colon - s < 4 || strncmp(p + colon - 3, ".py", 3))
        return NULL;
    size_t d = colon + 1;
    while (d < n && p[d] >= '0' && p[d] <= '9')
        d++;
    if (d == colon + 1 || d + 2 > n || strncmp(p + d, "  ", 2))
        return NULL;
    return arena_strndup(a, p + s, d - s);
}

/* One CUDA line, its comment in a span. */
static void cuda_text(StrBuf *out, const char *p, size_t n)
{
    size_t c = n;
    char quote = 0;
    for (size_t i = 0; i < n && c == n; i++) {
        if (quote && p[i] == '\\')
            i++;
        else if (quote && p[i] == quote)
            quote = 0;
        else if (!quote && (p[i] == '"' || p[i] == '\''))
            quote = p[i];
        else if (!quote && p[i] == '/' && i + 1 < n && p[i + 1] == '/')
            c = i;
    }
    html_escape(out, p, c);
    if (c < n) {
        sb_puts(out, "<span class=\"cm\">");
        html_escape(out, p + c, n - c);
        sb_puts(out, "</span>");
    }
}

static void cuda_pane(Ctx *ctx, StrBuf *out, const char *cuda)
{
    const char *key = NULL;
    int key_indent = 0;
    const char *p = cuda;
    for (int no = 1; *p; no++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        int indent;
        const char *k = comment_key(&ctx->arena, p, n, &indent);
        if (k)
            key = k, key_indent = indent;
        else if (key && (strspn(p, " ") == n || indent < key_indent))
            key = NULL;
        line_div(out, key, k ? "sc" : NULL, no);
        cuda_text(out, p, n);
        sb_puts(out, "</div>\n");
        if (!nl)
            break;
        p = nl + 1;
    }
    sb_puts(out, "</div>\n");
}

/* ---- the summary ------------------------------------------------------------------ */

static void row(StrBuf *out, const char *name, const char *value)
{
    sb_printf(out, "<tr><th>%s</th><td>", name);
    html_escape(out, value, strlen(value));
    sb_puts(out, "</td></tr>\n");
}

static void summary(Ctx *ctx, StrBuf *out, const TirFunc *f, const HtmlOptions *opt)
{
    Arena *a = &ctx->arena;
    sb_puts(out, "<table class=\"summary\">\n");
    row(out, "threads", arena_printf(a, "%d per block (%d warps of 32)", 32 * f->num_warps, f->num_warps));
    row(out, "shared memory", f->smem_bytes ? arena_printf(a, "%d bytes", f->smem_bytes) : "none");
    row(out, "tile values", arena_printf(a, "%d layouts", f->layouts.len));
    if (opt->ptxas.registers >= 0) {
        row(out, "registers", arena_printf(a, "%d per thread (ptxas, sm_%d)", opt->ptxas.registers, opt->ptxas.arch));
        row(out, "spills", arena_printf(a, "%d bytes stored, %d bytes loaded", opt->ptxas.spill_store_bytes,
                                        opt->ptxas.spill_load_bytes));
    } else {
        row(out, "registers", "not compiled (tilec --emit html --report compiles with NVRTC)");
    }
    sb_puts(out, "</table>\n");
}

/* ---- the page --------------------------------------------------------------------- */

void html_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const HtmlOptions *opt)
{
    StrBuf slot[7] = {{0}};
    html_escape(&slot[0], f->name, strlen(f->name));
    if (opt->command)
        html_escape(&slot[1], opt->command, strlen(opt->command));
    summary(ctx, &slot[2], f, opt);
    source_pane(ctx, &slot[3], f);
    cuda_pane(ctx, &slot[4], opt->cuda);
    html_facts(ctx, &slot[5], f, opt);
    const char *names[] = {"TITLE", "COMMAND", "SUMMARY", "SOURCE", "CUDA", "DATA", "STYLE", "SCRIPT"};
    const char *text[8];
    for (int i = 0; i < 6; i++)
        text[i] = slot[i].data ? slot[i].data : "";
    text[6] = page_template("style");
    text[7] = page_template("script");
    for (const char *p = page_template("page"); *p;) {
        const char *at = strstr(p, "@@");
        if (!at) {
            sb_puts(out, p);
            break;
        }
        sb_putn(out, p, (size_t)(at - p));
        const char *end = strstr(at + 2, "@@");
        int k = 0;
        while (k < 8 && !(end && (size_t)(end - at - 2) == strlen(names[k]) && !strncmp(at + 2, names[k], strlen(names[k]))))
            k++;
        if (k == 8)
            BUG("page.html: unknown slot at '%.20s'", at);
        sb_puts(out, text[k]);
        p = end + 2;
    }
    for (int i = 0; i < 6; i++)
        sb_free(&slot[i]);
}

static const Value *html_find_in(const Block *b, const char *name, int id)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int k = 0; k < op->nres; k++) {
            const Value *v = op->results[k];
            if (v->type.rank && v->layout && (id >= 0 ? v->id == id : v->name && !strcmp(v->name, name)))
                return v;
        }
        for (int r = 0; r < op->nregions; r++) {
            const Value *v = html_find_in(op->regions[r], name, id);
            if (v)
                return v;
        }
    }
    return NULL;
}

const Value *html_find_value(Ctx *ctx, const TirFunc *f, const char *name)
{
    int id = -1;
    size_t digits = strlen(name + (name[0] == '%'));
    if (name[0] == '%' && digits && digits <= 9 && strspn(name + 1, "0123456789") == digits)
        id = atoi(name + 1);
    const Value *v = html_find_in(f->body, name, id);
    if (!v)
        diag_error(ctx, f->loc, "--value '%s' names no tile value of kernel %s (tilec --emit layouts lists them, by "
                                "name and %%ID)", name, f->name);
    return v;
}

/* cache.c — compiled binaries kept by key (tilec version, NVRTC version, options,
 * architecture, the CUDA source): in memory for the context's life, and in files under
 * cache_dir across runs.  A key is compared whole, never trusted by its hash alone; a
 * damaged or foreign file is a miss; failing to write is silent (the binary is still
 * returned). */
#include "runtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[] = "TILECBIN1\n";

static char *entry_path(const tilec_context *ctx, uint64_t h)
{
    StrBuf p = {0};
    sb_printf(&p, "%s/%016llx.tilecbin", ctx->cache_dir, (unsigned long long)h);
    return sb_take(&p);
}

/* ---- files ---------------------------------------------------------------------------- */

static bool put_u64(FILE *f, uint64_t v) { return fwrite(&v, sizeof v, 1, f) == 1; }
static bool get_u64(FILE *f, uint64_t *v) { return fread(v, sizeof *v, 1, f) == 1; }

static bool put_blob(FILE *f, const void *p, size_t n) { return put_u64(f, n) && (!n || fwrite(p, 1, n, f) == n); }

static char *get_blob(FILE *f, size_t *n, size_t limit)
{
    uint64_t len;
    if (!get_u64(f, &len) || len > limit)
        return NULL;
    char *p = malloc((size_t)len + 1);
    if (p && len && fread(p, 1, (size_t)len, f) != len) {
        free(p);
        return NULL;
    }
    if (p)
        p[len] = 0;
    *n = (size_t)len;
    return p;
}

static void write_file(const tilec_context *ctx, uint64_t h, const char *key, const tilec_binary *b)
{
    mkdir(ctx->cache_dir, 0777); /* an existing folder is fine; other failures show at fopen */
    char *path = entry_path(ctx, h);
    StrBuf tmp = {0};
    sb_printf(&tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp.data, "wb");
    bool ok = f != NULL;
    if (ok) {
        int32_t fields[7] = {b->kind, b->arch, b->registers, b->spill_store_bytes, b->spill_load_bytes, b->stack_bytes,
                             b->static_shared_bytes};
        ok = fwrite(magic, 1, sizeof magic - 1, f) == sizeof magic - 1 && put_blob(f, key, strlen(key)) &&
             fwrite(fields, sizeof fields, 1, f) == 1 && put_blob(f, b->data, b->size) &&
             put_blob(f, b->log, strlen(b->log));
        ok = (fclose(f) == 0) && ok;
    }
    /* rename is atomic: a reader sees the old entry, the new one, or none */
    if (!ok || rename(tmp.data, path) != 0)
        remove(tmp.data);
    sb_free(&tmp);
    free(path);
}

static tilec_binary *read_file(const tilec_context *ctx, uint64_t h, const char *key)
{
    char *path = entry_path(ctx, h);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return NULL;
    tilec_binary *b = NULL;
    char head[sizeof magic - 1];
    size_t klen = 0, size = 0, loglen = 0;
    char *k = NULL, *data = NULL, *log = NULL;
    int32_t fields[7];
    if (fread(head, 1, sizeof head, f) == sizeof head && !memcmp(head, magic, sizeof head) &&
        (k = get_blob(f, &klen, (size_t)1 << 30)) && !strcmp(k, key) && fread(fields, sizeof fields, 1, f) == 1 &&
        (data = get_blob(f, &size, (size_t)1 << 30)) && (log = get_blob(f, &loglen, (size_t)1 << 26)) &&
        (b = calloc(1, sizeof *b))) {
        b->kind = (tilec_binary_kind)fields[0];
        b->arch = fields[1];
        b->registers = fields[2];
        b->spill_store_bytes = fields[3];
        b->spill_load_bytes = fields[4];
        b->stack_bytes = fields[5];
        b->static_shared_bytes = fields[6];
        b->data = data;
        b->size = size;
        b->log = log;
        data = log = NULL;
    }
    fclose(f);
    free(k);
    free(data);
    free(log);
    return b;
}

/* ---- the cache ------------------------------------------------------------------------ */

static void remember(tilec_context *ctx, uint64_t h, const char *key, const tilec_binary *b)
{
    CacheEntry *e = calloc(1, sizeof *e);
    if (!e)
        return;
    e->hash = h;
    e->key = rt_strdup(key);
    e->bin = rt_binary_copy(b);
    if (!e->key || !e->bin) {
        free(e->key);
        tilec_binary_free(e->bin);
        free(e);
        return;
    }
    e->next = ctx->cache.head;
    ctx->cache.head = e;
}

tilec_binary *rt_cache_lookup(tilec_context *ctx, const char *key)
{
    uint64_t h = str_hash(key);
    for (CacheEntry *e = ctx->cache.head; e; e = e->next) {
        if (e->hash == h && !strcmp(e->key, key)) {
            tilec_binary *b = rt_binary_copy(e->bin);
            if (b)
                b->from_cache = 1;
            return b;
        }
    }
    if (!ctx->cache_dir)
        return NULL;
    tilec_binary *b = read_file(ctx, h, key);
    if (b) {
        remember(ctx, h, key, b);
        b->from_cache = 1;
    }
    return b;
}

void rt_cache_store(tilec_context *ctx, const char *key, const tilec_binary *bin)
{
    uint64_t h = str_hash(key);
    remember(ctx, h, key, bin);
    if (ctx->cache_dir)
        write_file(ctx, h, key, bin);
}

void rt_cache_free(RtCache *c)
{
    CacheEntry *e = c->head;
    while (e) {
        CacheEntry *next = e->next;
        free(e->key);
        tilec_binary_free(e->bin);
        free(e);
        e = next;
    }
    c->head = NULL;
}

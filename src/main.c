/* main.c — the tilec command line, a client of the library (include/tilec.h): parse
 * flags, read the file, translate, optionally compile with NVRTC, write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "options.h"
#include "tilec.h"

static const char usage[] =
    "usage: tilec FILE.py [options]\n"
    "\n"
    "Translate a Triton kernel (@triton.jit) into readable, standalone CUDA C.\n"
    "\n"
    "options:\n"
    "  -k, --kernel NAME     the kernel to translate (needed when the file has several)\n"
    "                          tilec add.py -k add_kernel ...\n"
    "  -s, --signature SIG   parameter types and constexpr values, Triton-AOT style:\n"
    "                          -s \"*fp32:16, *fp32:16, *fp32:16, i32, 1024\"   (positional)\n"
    "                          -s \"x_ptr=*fp16:16, n=i32:16\"                (named)\n"
    "                        *T is a pointer to T; :16 means 16-byte aligned (pointers) or a\n"
    "                        multiple of 16 (integers); a number or 'string' fixes the value.\n"
    "                        Types: i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 bf16 fp32 fp64\n"
    "  -D NAME=VALUE         set a tl.constexpr parameter:  -D BLOCK_SIZE=1024 -D ACT=silu\n"
    "  -I DIR                also look in DIR for the modules the file imports (repeatable;\n"
    "                        the file's own package root is searched first)\n"
    "  -w, --num-warps N     warps per block (default: autotune config, else 4):  -w 8\n"
    "      --num-stages N    pipeline stages (default: autotune config, else 3)\n"
    "      --min-blocks K    __launch_bounds__(threads, K): ptxas keeps registers for K blocks\n"
    "                        per SM (at most 65536 / (K * threads) per thread); auto (default:\n"
    "                        tilec decides, see the .cu header) or none\n"
    "      --config N        which @triton.autotune config supplies constexprs (default 0)\n"
    "      --arch ARCH       sm_80 or sm_90 (default sm_80; the output runs on both)\n"
    "      --debug           compile tl.device_assert checks in (Triton's TRITON_DEBUG=1)\n"
    "      --grid EXPR       launch grid for the generated launcher, in parameter names:\n"
    "                          --grid \"cdiv(n_elements, BLOCK_SIZE)\"   --grid \"M, N\"\n"
    "                        without it, NAME_launch takes grid_x, grid_y, grid_z\n"
    "      --variant FACTS   also translate with these facts added to the signature; the\n"
    "                        launcher runs the first whose facts hold (repeatable, up to 16):\n"
    "                          --variant \"n=i32:16, x_ptr=*fp32:16\"   --variant \"stride=1\"\n"
    "                        --variant auto: :16 on every open pointer and integer\n"
    "  -o FILE               write the output to FILE (default, or -o -: standard output)\n"
    "      --emit KIND       cuda (default), tileir (typed IR with analyses), layouts,\n"
    "                        ptx / cubin (compiled in-process by NVRTC for --arch), html (the\n"
    "                        explorer: one page linking source, CUDA and every tile's layout;\n"
    "                        with --report also ptxas's registers) or svg (one layout picture):\n"
    "                          tilec add.py -s ... --emit layouts\n"
    "                          tilec add.py -k add_kernel -s ... --emit cubin -o add.cubin\n"
    "                          tilec softmax.py -s ... --emit html -o softmax.html\n"
    "      --value NAME      the tile value --emit svg draws: a source name or %%ID\n"
    "                          tilec softmax.py -s ... --emit svg --value x -o x.svg\n"
    "      --report          compile a cubin with NVRTC and print to stderr what ptxas reports:\n"
    "                        registers, spills, stack, shared memory, threads per block; with a\n"
    "                        GPU and its driver also the driver's view (cuFuncGetAttribute)\n"
    "                          tilec add.py -k add_kernel -s ... --report -o add.cu\n"
    "      --header          also write the launcher's declarations next to -o FILE, as FILE\n"
    "                        with its extension replaced by .h (with --embed-cubin: the\n"
    "                        declarations of NAME_load/NAME_unload/NAME_launch)\n"
    "                          tilec add.py -k add_kernel -s ... --grid ... -o add.cu --header\n"
    "      --embed-cubin ARCHS\n"
    "                        instead of the .cu, write a C file that embeds the kernel compiled\n"
    "                        by NVRTC for each of ARCHS (sm_XY: cubin, compute_XY: PTX) with\n"
    "                        NAME_load/NAME_unload/NAME_launch returning CUresult; compile it\n"
    "                        with any C compiler against cuda.h and link with -lcuda:\n"
    "                          tilec add.py -k add_kernel -s ... --grid ... \\\n"
    "                                --embed-cubin sm_80,sm_90,compute_90 -o add.c --header\n"
    "      --dump PASS       print the program after PASS and stop: %s\n"
    "  -h, --help            show this help\n"
    "      --version         print the version\n"
    "\n"
    "Errors are printed as file:line:col: error: message.  Exit status: 0 success,\n"
    "1 error in the input (or NVRTC missing or failing), 2 bad command line.\n"
    "NVRTC is loaded at run time (libnvrtc.so; set CUDA_HOME if it is not on the library\n"
    "path); only --emit ptx/cubin, --report and --embed-cubin need it.\n";

/* The help with the pass names of --dump in place, wrapped as the rest of it: at most 90
 * columns, continued under the descriptions (column 24). */
static void print_help(void)
{
    const char *at = strstr(usage, "%s"), *line = at;
    while (line > usage && line[-1] != '\n')
        line--;
    size_t col = (size_t)(at - line);
    StrBuf names = {0};
    for (const char *p = options_pass_names(); *p;) {
        size_t n = strcspn(p, " ");
        if (names.len && col + 1 + n > 90) {
            sb_printf(&names, "\n%24s", "");
            col = 24;
        } else if (names.len) {
            sb_putc(&names, ' ');
            col++;
        }
        sb_putn(&names, p, n);
        col += n;
        p += n + strspn(p + n, " ");
    }
    printf(usage, names.data);
    sb_free(&names);
}

typedef struct Cli {
    CliOptions o;
    Arena arena;
} Cli;

static char *header_path(Arena *a, const char *out);

/* Whether two paths name one file: the same text, or the same file on disk. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, b))
        return true;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* s as a terminal should see it: control and invisible characters escaped (free it). */
static char *visible(const char *s)
{
    StrBuf sb = {0};
    sb_put_visible(&sb, s, strlen(s));
    return sb_take(&sb);
}

/* A bad command line: fmt with arg, shown as a terminal should see it. */
static int usage_error(const char *fmt, const char *arg)
{
    char *shown = visible(arg);
    fprintf(stderr, "tilec: error: ");
    fprintf(stderr, fmt, shown);
    fprintf(stderr, "\n(run 'tilec --help' for usage)\n");
    free(shown);
    return 2;
}

/* The flags (options.c), then what only the files on disk can tell. */
static int parse_args(Cli *c, int argc, char **argv)
{
    Arena *a = &c->arena;
    const char *err = options_parse(a, argc - 1, argv + 1, &c->o);
    if (!err && c->o.help) {
        print_help();
        exit(0);
    }
    if (!err && c->o.version) {
        printf("tilec %s\n", TILEC_VERSION);
        exit(0);
    }
    if (!err)
        err = options_check_outputs(a, &c->o);
    if (err)
        return usage_error("%s", err);
    const char *in = c->o.input, *out = c->o.output;
    const char *header = c->o.header ? header_path(a, out) : NULL;
    if (out && same_file(out, in))
        return usage_error("-o names the input file '%s': tilec would overwrite the source", out);
    if (header && same_file(header, out))
        return usage_error("--header writes FILE.h next to -o FILE, so -o '%s' would be overwritten by the "
                           "header: name the output .cu (.c with --embed-cubin)", out);
    if (header && same_file(header, in))
        return usage_error("--header would write '%s', the input file", header);
    return 0;
}

/* The whole of the regular file at path, NUL-terminated, or NULL with the reason in *why.
 * Nothing else is read: a directory, a device (/dev/zero) or a pipe is refused before any read
 * (opened without blocking, then looked at), and no more than the size limit is allocated. */
static char *read_file(const char *path, size_t *len, const char **why)
{
    *why = NULL;
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0 || fstat(fd, &st) != 0)
        *why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        *why = "is a directory";
    else if (!S_ISREG(st.st_mode))
        *why = "not a regular file";
    else if (st.st_size > TILEC_MAX_SOURCE_BYTES)
        *why = "larger than the 8 MiB tilec reads (a kernel file is kilobytes)";
    FILE *f = *why ? NULL : fdopen(fd, "rb");
    if (!*why && !f)
        *why = strerror(errno);
    if (*why) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    /* st_size is at most the limit; one byte more tells a file that grew since */
    size_t want = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(want + 1);
    if (!buf)
        *why = "out of memory";
    else if ((n = fread(buf, 1, want, f)) == want)
        *why = "it grew while tilec read it";
    else if (ferror(f))
        *why = strerror(errno);
    fclose(f);
    if (*why) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static bool write_file(const char *path, const void *data, size_t size)
{
    FILE *o = path ? fopen(path, "wb") : stdout;
    int err = errno;
    char *shown = visible(path ? path : "standard output");
    if (!o) {
        fprintf(stderr, "tilec: error: cannot write '%s': %s\n", shown, strerror(err));
        free(shown);
        return false;
    }
    bool ok = fwrite(data, 1, size, o) == size;
    if (o != stdout)
        ok = fclose(o) == 0 && ok;
    else
        ok = fflush(o) == 0 && ok;
    if (!ok)
        fprintf(stderr, "tilec: error: cannot write '%s': %s\n", shown, strerror(errno));
    free(shown);
    return ok;
}

/* FILE.cu -> FILE.h (the extension replaced, or .h appended). */
static char *header_path(Arena *a, const char *out)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
    return arena_printf(a, "%.*s.h", (int)stem, out);
}

static int env_error(tilec_context *ctx)
{
    fprintf(stderr, "tilec: error: %s\n", tilec_context_error(ctx));
    return 1;
}

static void print_report(tilec_context *ctx, const tilec_translation *t, const tilec_binary *b)
{
    const tilec_kernel_info *in = &t->info;
    int major = 0, minor = 0;
    tilec_nvrtc_version(ctx, &major, &minor);
    fprintf(stderr, "tilec: report for %s (sm_%d cubin from NVRTC %d.%d, ptxas -v):\n", in->name, b->arch, major, minor);
    fprintf(stderr, "  threads per block    %d (%d warps, __launch_bounds__", in->threads_per_block, in->num_warps);
    if (in->min_blocks_per_sm && b->arch >= in->min_blocks_arch)
        fprintf(stderr, " with %d block%s per SM", in->min_blocks_per_sm, in->min_blocks_per_sm == 1 ? "" : "s");
    else if (in->min_blocks_per_sm)
        fprintf(stderr, "; the promise of %d blocks per SM applies from sm_%d", in->min_blocks_per_sm,
                in->min_blocks_arch);
    fprintf(stderr, ")\n");
    fprintf(stderr, "  shared memory        %d bytes planned by tilec%s; ptxas: %d bytes static\n", in->shared_bytes,
            in->dynamic_shared ? " (dynamic)" : "", b->static_shared_bytes);
    fprintf(stderr, "  registers            %d per thread\n", b->registers);
    fprintf(stderr, "  spills               %d bytes stored, %d bytes loaded\n", b->spill_store_bytes, b->spill_load_bytes);
    fprintf(stderr, "  stack frame          %d bytes per thread\n", b->stack_bytes);
    tilec_kernel *k = NULL;
    tilec_kernel_attributes at;
    if (tilec_kernel_load(ctx, t, b, &k) == TILEC_OK && tilec_kernel_get_attributes(k, &at) == TILEC_OK) {
        fprintf(stderr, "  driver               %d registers, %d bytes local, %d bytes static shared, "
                        "at most %d threads per block\n",
                at.registers, at.local_bytes, at.static_shared_bytes, at.max_threads_per_block);
    } else {
        const char *why = tilec_context_error(ctx), *nl = strchr(why, ';');
        fprintf(stderr, "  driver               not available (%.*s): the limits the GPU sets (max threads per "
                        "block at this register use, occupancy) need a GPU\n",
                nl ? (int)(nl - why) : (int)strlen(why), why);
    }
    tilec_kernel_destroy(k);
}

/* --embed-cubin: one binary per architecture, then the C file (and its .h). */
static int write_embed(Cli *c, tilec_context *ctx, const tilec_translation *t)
{
    tilec_compile_options *archs = c->o.archs;
    int n = c->o.narchs;
    tilec_binary **bins = NEW_ARRAY(&c->arena, tilec_binary *, n);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        if (tilec_compile(ctx, t->code, &archs[i], &bins[i]))
            rc = env_error(ctx);
    char *cf = NULL, *hf = NULL;
    if (!rc && tilec_generate_embed(ctx, t, (const tilec_binary *const *)bins, n, &cf, &hf))
        rc = env_error(ctx);
    if (!rc && !write_file(c->o.output, cf, strlen(cf)))
        rc = 1;
    if (!rc && c->o.header && !write_file(header_path(&c->arena, c->o.output), hf, strlen(hf)))
        rc = 1;
    if (!rc && c->o.report)
        for (int i = 0; i < n; i++)
            if (bins[i]->kind == TILEC_BINARY_CUBIN)
                print_report(ctx, t, bins[i]);
    for (int i = 0; i < n; i++)
        tilec_binary_free(bins[i]);
    tilec_free(cf);
    tilec_free(hf);
    return rc;
}

/* --emit html --report: the kernel's CUDA compiled to a cubin by NVRTC, then the page again
 * with what ptxas reported in its summary. */
static int page_with_report(Cli *c, const char *text)
{
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) {
        fprintf(stderr, "tilec: error: out of memory\n");
        return 1;
    }
    tilec_translate_options o = c->o.t;
    o.output = TILEC_OUTPUT_CUDA;
    tilec_translation *cu = NULL, *page = NULL;
    tilec_binary *b = NULL;
    tilec_compile_options co = {.arch = o.arch, .kind = TILEC_BINARY_CUBIN};
    int rc = 0;
    if (tilec_translate_source(text, &o, &cu)) {
        fprintf(stderr, "tilec: error: %s\n", cu ? cu->error : "out of memory");
        rc = 1;
    } else if (tilec_compile(ctx, cu->code, &co, &b)) {
        rc = env_error(ctx);
    } else {
        o.output = TILEC_OUTPUT_HTML;
        o.report = b;
        if (tilec_translate_source(text, &o, &page)) {
            fprintf(stderr, "tilec: error: %s\n", page ? page->error : "out of memory");
            rc = 1;
        } else if (!write_file(c->o.output, page->code, page->code_size)) {
            rc = 1;
        }
        else
            print_report(ctx, cu, b);
    }
    tilec_binary_free(b);
    tilec_translation_free(cu);
    tilec_translation_free(page);
    tilec_context_destroy(ctx);
    return rc;
}

/* Everything after a successful translation. */
static int produce(Cli *c, const char *text, const tilec_translation *t)
{
    if (c->o.emit == CLI_HTML && c->o.report)
        return page_with_report(c, text);
    bool compiled = c->o.emit == CLI_PTX || c->o.emit == CLI_CUBIN;
    if (!compiled && !c->o.report && !c->o.embed) {
        if (!write_file(c->o.output, t->code, t->code_size))
            return 1;
        if (c->o.header && !write_file(header_path(&c->arena, c->o.output), t->header, strlen(t->header)))
            return 1;
        return 0;
    }
    tilec_context *ctx;
    if (tilec_context_create(NULL, &ctx)) {
        fprintf(stderr, "tilec: error: out of memory\n");
        return 1;
    }
    int rc = 0;
    if (c->o.embed) {
        rc = write_embed(c, ctx, t);
    } else {
        tilec_compile_options o = {.arch = c->o.t.arch, .kind = c->o.emit == CLI_PTX ? TILEC_BINARY_PTX : TILEC_BINARY_CUBIN};
        tilec_binary *b = NULL, *rb = NULL;
        if (tilec_compile(ctx, t->code, &o, &b))
            rc = env_error(ctx);
        else if (!write_file(c->o.output, compiled ? b->data : t->code, compiled ? b->size : t->code_size))
            rc = 1;
        else if (c->o.header && !write_file(header_path(&c->arena, c->o.output), t->header, strlen(t->header)))
            rc = 1;
        if (!rc && c->o.report) {
            o.kind = TILEC_BINARY_CUBIN;
            if (b->kind == TILEC_BINARY_CUBIN)
                print_report(ctx, t, b);
            else if (tilec_compile(ctx, t->code, &o, &rb))
                rc = env_error(ctx);
            else
                print_report(ctx, t, rb);
        }
        tilec_binary_free(b);
        tilec_binary_free(rb);
    }
    tilec_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    Cli c = {0};
    int rc = parse_args(&c, argc, argv);
    if (rc) {
        arena_free(&c.arena);
        return rc;
    }
    size_t len = 0;
    const char *why = NULL;
    char *text = read_file(c.o.input, &len, &why);
    if (!text) {
        char *shown = visible(c.o.input);
        fprintf(stderr, "tilec: error: cannot read '%s': %s\n", shown, why);
        free(shown);
        arena_free(&c.arena);
        return 1;
    }
    c.o.t.filename = c.o.input;
    c.o.t.source_size = len;
    tilec_translation *t = NULL;
    tilec_status s = tilec_translate_source(text, &c.o.t, &t);
    if (!t) {
        fprintf(stderr, "tilec: error: %s\n", tilec_status_name(s));
        rc = 1;
    } else {
        fputs(t->diagnostic_text, stderr);
        if (s == TILEC_ERROR_INVALID_ARGUMENT)
            rc = usage_error("%s", t->error);
        else if (s)
            rc = 1;
        else
            rc = produce(&c, text, t);
    }
    tilec_translation_free(t);
    arena_free(&c.arena);
    free(text);
    return rc;
}

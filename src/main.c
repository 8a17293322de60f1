/* main.c — the tilec command line: parse flags, read the file, translate, write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

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
    "  -w, --num-warps N     warps per block (default: autotune config, else 4):  -w 8\n"
    "      --num-stages N    pipeline stages (default: autotune config, else 3)\n"
    "      --config N        which @triton.autotune config supplies constexprs (default 0)\n"
    "      --arch ARCH       sm_80 or sm_90 (default sm_80; the output runs on both)\n"
    "      --debug           compile tl.device_assert checks in (Triton's TRITON_DEBUG=1)\n"
    "      --grid EXPR       launch grid for the generated launcher, in parameter names:\n"
    "                          --grid \"cdiv(n_elements, BLOCK_SIZE)\"   --grid \"M, N\"\n"
    "                        without it, NAME_launch takes grid_x, grid_y, grid_z\n"
    "  -o FILE               write the output to FILE (default: standard output)\n"
    "      --emit KIND       cuda (default), tileir (typed IR with analyses), layouts\n"
    "                          tilec add.py -s ... --emit layouts\n"
    "      --dump PASS       print the program after PASS and stop: tokens, ast, lower,\n"
    "                        simplify, axisinfo, layouts\n"
    "  -h, --help            show this help\n"
    "      --version         print the version\n"
    "\n"
    "Errors are printed as file:line:col: error: message.  Exit status: 0 success,\n"
    "1 error in the input, 2 bad command line.\n";

typedef struct Cli {
    const char *input, *output;
    TranslateOptions t;
    Arena arena;
} Cli;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tilec: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(run 'tilec --help' for usage)\n");
    return 2;
}

static bool parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 1 << 20)
        return false;
    *out = (int)v;
    return true;
}

/* Quote an argument for the regenerate command when it needs it. */
static void quote_arg(StrBuf *sb, const char *a)
{
    bool plain = *a != 0;
    for (const char *p = a; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-=./:,+", *p))
            plain = false;
    if (plain) {
        sb_puts(sb, a);
        return;
    }
    sb_putc(sb, '"');
    for (const char *p = a; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '$' || *p == '`')
            sb_putc(sb, '\\');
        sb_putc(sb, *p);
    }
    sb_putc(sb, '"');
}

static int parse_args(Cli *c, int argc, char **argv)
{
    StrBuf cmd = {0};
    sb_puts(&cmd, "tilec");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
#define TAKE()                                                                  \
    do {                                                                        \
        if (i + 1 >= argc) {                                                    \
            sb_free(&cmd);                                                      \
            return usage_error("option %s needs a value", a);                   \
        }                                                                       \
        val = argv[++i];                                                        \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            sb_free(&cmd);
            exit(0);
        }
        if (!strcmp(a, "--version")) {
            printf("tilec %s\n", TILEC_VERSION);
            sb_free(&cmd);
            exit(0);
        }
        bool record = true;
        if (!strcmp(a, "-k") || !strcmp(a, "--kernel")) {
            TAKE();
            c->t.lower.kernel = val;
        } else if (!strcmp(a, "-s") || !strcmp(a, "--signature")) {
            TAKE();
            const char *err;
            if (!tilec_parse_signature(&c->arena, val, &c->t.lower, &err)) {
                sb_free(&cmd);
                fprintf(stderr, "tilec: error: -s \"%s\": %s\n", val, err);
                return 2;
            }
        } else if (!strncmp(a, "-D", 2)) {
            const char *d = a + 2;
            if (!*d) {
                TAKE();
                d = val;
            }
            const char *eq = strchr(d, '=');
            if (!eq || eq == d || !eq[1]) {
                sb_free(&cmd);
                return usage_error("-D needs NAME=VALUE, got '%s'", d);
            }
            SpecEntry e = {arena_strndup(&c->arena, d, (size_t)(eq - d)), eq + 1, {0, 0}};
            vec_push(&c->arena, &c->t.lower.defines, e);
        } else if (!strcmp(a, "-w") || !strcmp(a, "--num-warps")) {
            TAKE();
            if (!parse_int(val, &c->t.lower.num_warps) || !c->t.lower.num_warps || (c->t.lower.num_warps & (c->t.lower.num_warps - 1)) ||
                c->t.lower.num_warps > 32) {
                sb_free(&cmd);
                return usage_error("-w needs a power of two from 1 to 32, got '%s'", val);
            }
        } else if (!strcmp(a, "--num-stages")) {
            TAKE();
            if (!parse_int(val, &c->t.lower.num_stages) || c->t.lower.num_stages < 1 || c->t.lower.num_stages > 8) {
                sb_free(&cmd);
                return usage_error("--num-stages needs a number from 1 to 8, got '%s'", val);
            }
        } else if (!strcmp(a, "--config")) {
            TAKE();
            if (!parse_int(val, &c->t.lower.config_index)) {
                sb_free(&cmd);
                return usage_error("--config needs a non-negative number, got '%s'", val);
            }
        } else if (!strcmp(a, "--arch")) {
            TAKE();
            if (!strcmp(val, "sm_80") || !strcmp(val, "80"))
                c->t.lower.arch = 80;
            else if (!strcmp(val, "sm_90") || !strcmp(val, "90") || !strcmp(val, "sm_90a"))
                c->t.lower.arch = 90;
            else {
                sb_free(&cmd);
                return usage_error("--arch must be sm_80 or sm_90, got '%s'", val);
            }
        } else if (!strcmp(a, "--debug")) {
            c->t.lower.debug = true;
        } else if (!strcmp(a, "--grid")) {
            TAKE();
            c->t.grid = val;
        } else if (!strcmp(a, "-o")) {
            TAKE();
            c->output = val;
            record = false;
        } else if (!strcmp(a, "--emit")) {
            TAKE();
            if (!strcmp(val, "cuda"))
                c->t.emit = EMIT_CUDA;
            else if (!strcmp(val, "tileir"))
                c->t.emit = EMIT_TILEIR;
            else if (!strcmp(val, "layouts"))
                c->t.emit = EMIT_LAYOUTS;
            else {
                sb_free(&cmd);
                return usage_error("--emit must be cuda, tileir or layouts, got '%s'", val);
            }
        } else if (!strcmp(a, "--dump")) {
            TAKE();
            static const char *const passes[] = {"tokens", "ast", "lower", "simplify", "axisinfo", "layouts"};
            bool ok = false;
            for (size_t k = 0; k < sizeof passes / sizeof *passes; k++)
                ok |= !strcmp(val, passes[k]);
            if (!ok) {
                sb_free(&cmd);
                return usage_error("--dump needs one of tokens, ast, lower, simplify, axisinfo, layouts; got '%s'", val);
            }
            c->t.dump = val;
        } else if (a[0] == '-' && a[1]) {
            sb_free(&cmd);
            return usage_error("unknown option '%s'", a);
        } else {
            if (c->input) {
                sb_free(&cmd);
                return usage_error("more than one input file ('%s')", a);
            }
            c->input = a;
        }
        if (record) {
            sb_putc(&cmd, ' ');
            quote_arg(&cmd, a);
            if (val) {
                sb_putc(&cmd, ' ');
                quote_arg(&cmd, val);
            }
        }
#undef TAKE
    }
    if (c->output) {
        sb_puts(&cmd, " -o ");
        quote_arg(&cmd, c->output);
    }
    c->t.command = arena_strdup(&c->arena, cmd.data);
    sb_free(&cmd);
    if (!c->input)
        return usage_error("%s", "no input file (run 'tilec --help' for usage)");
    if (!c->t.lower.arch)
        c->t.lower.arch = 80;
    return 0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= ((size_t)1 << 30)) { /* 1 GiB is not a kernel */
                free(buf);
                fclose(f);
                errno = EFBIG;
                return NULL;
            }
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        if (!got)
            break;
        n += got;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
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
    char *text = read_file(c.input, &len);
    if (!text) {
        fprintf(stderr, "tilec: error: cannot read '%s': %s\n", c.input, strerror(errno));
        arena_free(&c.arena);
        return 1;
    }
    Source src = {c.input, text, len};
    Ctx ctx = {0};
    ctx.src = &src;
    StrBuf out = {0};
    rc = tilec_translate(&ctx, &c.t, &out);
    if (ctx.log.len)
        fputs(ctx.log.data, stderr);
    if (rc == 0) {
        FILE *o = stdout;
        if (c.output && !(o = fopen(c.output, "wb"))) {
            fprintf(stderr, "tilec: error: cannot write '%s': %s\n", c.output, strerror(errno));
            rc = 1;
        } else {
            fwrite(out.data ? out.data : "", 1, out.len, o);
            if (o != stdout && fclose(o) != 0) {
                fprintf(stderr, "tilec: error: cannot write '%s': %s\n", c.output, strerror(errno));
                rc = 1;
            }
        }
    }
    sb_free(&out);
    sb_free(&ctx.log);
    arena_free(&ctx.arena);
    arena_free(&c.arena);
    free(text);
    return rc;
}

/* options.c — tilec's flags and the API's options, each fact about them checked once. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* A message about the flags (tools/diag_coverage.py finds each in tests/errors). */
PRINTF_LIKE(2, 3) static const char *flag_error(Arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    StrBuf sb = {0};
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
    char *s = arena_strdup(a, sb.data);
    sb_free(&sb);
    return s;
}

/* ---- the facts ---------------------------------------------------------------------- */

/* The integer options: the flag, the API's field, and the values either takes.  The
 * API's 0 (and min_blocks_per_sm's -1) mean "not given"; the flags spell those out. */
typedef struct IntRule {
    const char *flag, *field;
    int lo, hi;
    bool pow2;
} IntRule;

static const IntRule num_warps_rule = {.flag = "-w", .field = "num_warps", .lo = 1, .hi = TIR_MAX_WARPS, .pow2 = true};
static const IntRule num_stages_rule = {.flag = "--num-stages", .field = "num_stages", .lo = 1, .hi = TIR_MAX_STAGES, .pow2 = false};
static const IntRule min_blocks_rule = {.flag = "--min-blocks", .field = "min_blocks_per_sm", .lo = 1, .hi = 32, .pow2 = false};
static const IntRule config_rule = {.flag = "--config", .field = "config", .lo = 0, .hi = INT_MAX, .pow2 = false};

/* The architectures tilec translates for, by the names --arch takes; the API takes the
 * numbers.  The output runs on all of them. */
static const struct {
    const char *name;
    int arch;
} arch_names[] = {{"sm_80", 80}, {"80", 80}, {"sm_90", 90}, {"90", 90}, {"sm_90a", 90}};
enum { DEFAULT_ARCH = 80 };

static const struct {
    const char *name;
    tilec_output output;
} emit_kinds[] = {
#define CLI_EMIT_ROW(kind, name, output) [kind] = {name, output},
    CLI_EMIT_LIST(CLI_EMIT_ROW)
#undef CLI_EMIT_ROW
};

static bool rule_allows(const IntRule *r, long v) { return v >= r->lo && v <= r->hi && (!r->pow2 || is_pow2(v)); }

/* "a power of two from 1 to 32" */
static const char *rule_text(Arena *a, const IntRule *r)
{
    if (r->lo == 0 && r->hi == INT_MAX)
        return "a non-negative number";
    return arena_printf(a, "%s from %d to %d", r->pow2 ? "a power of two" : "a number", r->lo, r->hi);
}

static bool arch_known(int arch)
{
    for (size_t i = 0; i < ARRAY_LEN(arch_names); i++)
        if (arch_names[i].arch == arch)
            return true;
    return false;
}

const char *options_pass_names(void) { return &PASS_NAMES[2]; }

/* ---- the API's options -------------------------------------------------------------- */

/* The API's value of r's field, which may also be one of the values `unset` names. */
static const char *check_field(Arena *a, const IntRule *r, int v, const char *unset)
{
    if (rule_allows(r, v))
        return NULL;
    return arena_printf(a, "%s must be %s%s, got %d", r->field, unset, rule_text(a, r), v);
}

static const char *check_values(Arena *a, const tilec_translate_options *o)
{
    const char *err = NULL;
    if (o->num_warps && (err = check_field(a, &num_warps_rule, o->num_warps, "0 (the default) or ")))
        return err;
    if (o->num_stages && (err = check_field(a, &num_stages_rule, o->num_stages, "0 (the default) or ")))
        return err;
    if (o->min_blocks_per_sm != -1 && o->min_blocks_per_sm &&
        (err = check_field(a, &min_blocks_rule, o->min_blocks_per_sm, "-1 (none), 0 (tilec decides) or ")))
        return err;
    if ((err = check_field(a, &config_rule, o->config, "")))
        return err;
    if (o->arch && !arch_known(o->arch))
        return arena_printf(a, "arch must be 80 or 90 (the output runs on both; compile for another GPU with "
                               "tilec_compile_options.arch), got %d", o->arch);
    if (o->output < TILEC_OUTPUT_CUDA || o->output > TILEC_OUTPUT_SVG)
        return arena_printf(a, "unknown output kind %d", (int)o->output);
    if ((o->output == TILEC_OUTPUT_SVG) != (o->value != NULL))
        return "value names the tile value of TILEC_OUTPUT_SVG, and only of it";
    if (o->report && o->output != TILEC_OUTPUT_HTML)
        return "report (a cubin's ptxas numbers) goes with TILEC_OUTPUT_HTML only";
    if (o->report && (o->report->kind != TILEC_BINARY_CUBIN || o->report->registers < 0))
        return "report must be a cubin that ptxas reported on (tilec_compile with TILEC_BINARY_CUBIN)";
    if (o->dump && !tilec_pass_exists(o->dump))
        return arena_printf(a, "dump must be one of %s; got '%s'", options_pass_names(), o->dump);
    return NULL;
}

const char *options_translate(Arena *a, const tilec_translate_options *o, TranslateOptions *to)
{
    LowerOptions *lo = &to->lower;
    lo->kernel = o->kernel ? arena_strdup(a, o->kernel) : NULL;
    if (o->signature) {
        const char *err;
        if (!tilec_parse_signature(a, arena_strdup(a, o->signature), lo, &err))
            return arena_printf(a, "signature \"%s\": %s", o->signature, err);
    }
    if (o->num_defines < 0 || (o->num_defines && !o->defines))
        return "num_defines is negative, or defines is NULL";
    for (int i = 0; i < o->num_defines; i++) {
        const tilec_define *d = &o->defines[i];
        if (!d->name || !*d->name || !d->value || !*d->value)
            return arena_printf(a, "define %d needs a name and a value", i);
        SpecEntry e = {.name = arena_strdup(a, d->name), .text = arena_strdup(a, d->value)};
        vec_push(a, &lo->defines, e);
    }
    if (o->num_include_dirs < 0 || (o->num_include_dirs && !o->include_dirs))
        return "num_include_dirs is negative, or include_dirs is NULL";
    for (int i = 0; i < o->num_include_dirs; i++) {
        if (!o->include_dirs[i] || !*o->include_dirs[i])
            return arena_printf(a, "include dir %d is NULL or empty", i);
        vec_push(a, &lo->include_dirs, (const char *)arena_strdup(a, o->include_dirs[i]));
    }
    const char *err = check_values(a, o);
    if (err)
        return err;
    lo->num_warps = o->num_warps;
    lo->num_stages = o->num_stages;
    lo->config_index = o->config;
    lo->arch = o->arch ? o->arch : DEFAULT_ARCH;
    lo->debug = o->debug != 0;
    lo->min_blocks = o->min_blocks_per_sm;
    static const EmitKind emits[] = {[TILEC_OUTPUT_CUDA] = EMIT_CUDA, [TILEC_OUTPUT_TILEIR] = EMIT_TILEIR,
                                     [TILEC_OUTPUT_LAYOUTS] = EMIT_LAYOUTS, [TILEC_OUTPUT_HTML] = EMIT_HTML,
                                     [TILEC_OUTPUT_SVG] = EMIT_SVG};
    to->emit = emits[o->output];
    to->value = o->value ? arena_strdup(a, o->value) : NULL;
    to->ptxas.registers = -1;
    if (o->report)
        to->ptxas = (PtxasReport){o->report->arch, o->report->registers, o->report->spill_store_bytes,
                                  o->report->spill_load_bytes};
    to->dump = o->dump ? arena_strdup(a, o->dump) : NULL;
    if (o->num_variants < 0 || o->num_variants > TILEC_MAX_VARIANTS || (o->num_variants && !o->variants))
        return arena_printf(a, "num_variants must be 0 to %d, with variants not NULL", TILEC_MAX_VARIANTS);
    if (o->num_variants && (o->output != TILEC_OUTPUT_CUDA || o->dump))
        return "variants go with CUDA output (they add kernels to the .cu and its launcher)";
    SpecVec *variants = NEW_ARRAY(a, SpecVec, o->num_variants + 1);
    to->variants = variants;
    to->variant_text = NEW_ARRAY(a, const char *, o->num_variants + 1);
    for (int i = 0; i < o->num_variants; i++) {
        LowerOptions facts = {0};
        const char *text = o->variants[i];
        if (!text || !*text)
            return arena_printf(a, "variant %d is NULL or empty", i + 1);
        if (!strcmp(text, "auto")) { /* every fact a launch can find about the signature's open
                                       * pointers and integers: made by the driver */
            variants[i] = facts.sig;
            to->variant_text[i] = "auto";
            continue;
        }
        if (!tilec_parse_signature(a, arena_strdup(a, text), &facts, &err))
            return arena_printf(a, "variant \"%s\": %s", text, err);
        for (int k = 0; k < facts.sig.len; k++)
            if (!facts.sig.data[k].name)
                return arena_printf(a, "variant \"%s\": each entry names its parameter (n=i32:16, x_ptr=*fp32:16, "
                                    "stride=1); '%s' does not", text, facts.sig.data[k].text);
        variants[i] = facts.sig;
        to->variant_text[i] = arena_strdup(a, text);
    }
    to->nvariants = o->num_variants;
    to->grid = o->grid ? arena_strdup(a, o->grid) : NULL;
    to->command = o->command ? arena_strdup(a, o->command) : NULL;
    return NULL;
}

/* ---- the regenerate command --------------------------------------------------------- */

/* An argument holding control characters, in bash's $'...' quoting: the command stays one line
 * that pastes back as it was run. */
static void quote_arg_ansi_c(StrBuf *sb, const char *a)
{
    sb_puts(sb, "$'");
    for (const unsigned char *p = (const unsigned char *)a; *p; p++) {
        if (*p == '\\' || *p == '\'')
            sb_printf(sb, "\\%c", *p);
        else if (*p == '\n' || *p == '\t' || *p == '\r')
            sb_puts(sb, *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : "\\r");
        else if (*p < 0x20 || *p == 0x7F)
            sb_printf(sb, "\\x%02x", *p);
        else
            sb_putc(sb, (char)*p);
    }
    sb_putc(sb, '\'');
}

/* Quote an argument for the regenerate command when it needs it. */
static void quote_arg(StrBuf *sb, const char *a)
{
    sb_putc(sb, ' ');
    for (const unsigned char *p = (const unsigned char *)a; *p; p++)
        if (*p < 0x20 || *p == 0x7F) {
            quote_arg_ansi_c(sb, a);
            return;
        }
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

/* ---- the flags ---------------------------------------------------------------------- */

/* A decimal number from lo to hi, and nothing else. */
static bool parse_number(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static const char *flag_int(Arena *a, const IntRule *r, const char *val, int *out, const char *specials)
{
    if (parse_number(val, r->lo, r->hi, out) && rule_allows(r, *out))
        return NULL;
    return flag_error(a, "%s needs %s%s, got '%s'", r->flag, specials, rule_text(a, r), val);
}

/* "sm_80,sm_90,compute_90" (or "80,90") into compile options; false on a bad entry. */
static bool parse_archs(Arena *a, const char *list, tilec_compile_options **out, int *n)
{
    int cap = 1;
    for (const char *p = list; *p; p++)
        cap += *p == ',';
    tilec_compile_options *o = NEW_ARRAY(a, tilec_compile_options, cap);
    *n = 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *item = arena_strndup(a, p, len);
        const char *digits = item;
        tilec_binary_kind kind = TILEC_BINARY_CUBIN;
        if (!strncmp(item, "sm_", 3))
            digits = item + 3;
        else if (!strncmp(item, "compute_", 8))
            digits = item + 8, kind = TILEC_BINARY_PTX;
        if (!parse_number(digits, 10, 9999, &o[*n].arch))
            return false;
        o[*n].kind = kind;
        (*n)++;
        p = e ? e + 1 : p + len;
    }
    *out = o;
    return *n > 0;
}

/* "a, b, c or d" */
static const char *emit_names(Arena *a)
{
    StrBuf sb = {0};
    for (size_t k = 0; k < ARRAY_LEN(emit_kinds); k++)
        sb_printf(&sb, "%s%s", k == 0 ? "" : k + 1 < ARRAY_LEN(emit_kinds) ? ", " : " or ", emit_kinds[k].name);
    char *s = arena_strdup(a, sb.data);
    sb_free(&sb);
    return s;
}

/* One flag with its value (NULL for those that take none); *record: whether it belongs in
 * the regenerate command. */
static const char *parse_flag(Arena *a, CliOptions *c, const char *f, const char *val, bool *record)
{
    tilec_translate_options *t = &c->t;
    if (!strcmp(f, "-k") || !strcmp(f, "--kernel")) {
        t->kernel = val;
    } else if (!strcmp(f, "-s") || !strcmp(f, "--signature")) {
        t->signature = val; /* checked by options_translate */
    } else if (!strncmp(f, "-D", 2)) {
        const char *eq = strchr(val, '=');
        if (!eq || eq == val || !eq[1])
            return flag_error(a, "-D needs NAME=VALUE, got '%s'", val);
        tilec_define d = {.name = arena_strndup(a, val, (size_t)(eq - val)), .value = eq + 1};
        vec_push(a, &c->defines, d);
        t->defines = c->defines.data;
        t->num_defines = c->defines.len;
    } else if (!strncmp(f, "-I", 2)) {
        if (!*val)
            return flag_error(a, "-I needs a folder");
        vec_push(a, &c->includes, val);
        t->include_dirs = c->includes.data;
        t->num_include_dirs = c->includes.len;
    } else if (!strcmp(f, "--variant")) {
        vec_push(a, &c->variants, val); /* checked by options_translate and the lowering */
        t->variants = c->variants.data;
        t->num_variants = c->variants.len;
    } else if (!strcmp(f, "-w") || !strcmp(f, "--num-warps")) {
        return flag_int(a, &num_warps_rule, val, &t->num_warps, "");
    } else if (!strcmp(f, "--num-stages")) {
        return flag_int(a, &num_stages_rule, val, &t->num_stages, "");
    } else if (!strcmp(f, "--min-blocks")) {
        if (!strcmp(val, "auto") || !strcmp(val, "none"))
            t->min_blocks_per_sm = !strcmp(val, "auto") ? 0 : -1;
        else
            return flag_int(a, &min_blocks_rule, val, &t->min_blocks_per_sm, "auto, none or ");
    } else if (!strcmp(f, "--config")) {
        return flag_int(a, &config_rule, val, &t->config, "");
    } else if (!strcmp(f, "--arch")) {
        size_t k = 0;
        while (k < ARRAY_LEN(arch_names) && strcmp(val, arch_names[k].name))
            k++;
        if (k == ARRAY_LEN(arch_names))
            return flag_error(a, "--arch must be sm_80 or sm_90, got '%s'", val);
        t->arch = arch_names[k].arch;
    } else if (!strcmp(f, "--grid")) {
        t->grid = val;
    } else if (!strcmp(f, "-o")) {
        c->output = strcmp(val, "-") ? val : NULL; /* "-": standard output, as without -o */
        *record = false; /* last in the command */
    } else if (!strcmp(f, "--emit")) {
        size_t k = 0;
        while (k < ARRAY_LEN(emit_kinds) && strcmp(val, emit_kinds[k].name))
            k++;
        if (k == ARRAY_LEN(emit_kinds))
            return flag_error(a, "--emit must be %s, got '%s'", emit_names(a), val);
        c->emit = (CliEmit)k;
        t->output = emit_kinds[k].output;
    } else if (!strcmp(f, "--value")) {
        t->value = val;
    } else if (!strcmp(f, "--embed-cubin")) {
        c->embed = val;
        if (!parse_archs(a, val, &c->archs, &c->narchs))
            return flag_error(a, "--embed-cubin needs a comma-separated list like sm_80,sm_90,compute_90; got '%s'",
                                val);
    } else if (!strcmp(f, "--dump")) {
        if (!tilec_pass_exists(val))
            return flag_error(a, "--dump needs one of %s; got '%s'", options_pass_names(), val);
        t->dump = val;
    } else if (!strcmp(f, "--debug")) {
        t->debug = 1;
    } else if (!strcmp(f, "--report")) {
        c->report = true;
    } else if (!strcmp(f, "--header")) {
        c->header = true;
    } else {
        return flag_error(a, "unknown option '%s'", f);
    }
    return NULL;
}

/* Whether flag f takes a value (the next word, or for -D and -I also the rest of f). */
static bool takes_value(const char *f)
{
    static const char *const with_value[] = {"-k", "--kernel", "-s", "--signature", "-D", "-I", "-w", "--num-warps",
                                             "--num-stages", "--min-blocks", "--config", "--arch", "--grid", "--variant",
                                             "-o", "--emit", "--embed-cubin", "--dump", "--value"};
    for (size_t i = 0; i < ARRAY_LEN(with_value); i++)
        if (!strcmp(f, with_value[i]))
            return true;
    return false;
}

const char *options_parse(Arena *a, int n, char **words, CliOptions *c)
{
    StrBuf cmd = {0};
    sb_puts(&cmd, "tilec");
    const char *err = NULL;
    for (int i = 0; i < n && !err; i++) {
        const char *f = words[i], *val = NULL;
        if (!strcmp(f, "-h") || !strcmp(f, "--help") || !strcmp(f, "--version")) {
            c->version = !strcmp(f, "--version");
            c->help = !c->version;
            break;
        }
        bool record = true;
        if (f[0] != '-' || !f[1]) {
            if (c->input)
                err = flag_error(a, "more than one input file ('%s')", f);
            c->input = f;
        } else if (!strncmp(f, "-D", 2) && f[2]) {
            err = parse_flag(a, c, "-D", f + 2, &record);
        } else if (!strncmp(f, "-I", 2) && f[2]) {
            err = parse_flag(a, c, "-I", f + 2, &record);
        } else if (takes_value(f) && i + 1 >= n) {
            err = flag_error(a, "option %s needs a value", f);
        } else {
            val = takes_value(f) ? words[++i] : NULL;
            err = parse_flag(a, c, f, val, &record);
        }
        if (record) {
            quote_arg(&cmd, f);
            if (val)
                quote_arg(&cmd, val);
        }
    }
    if (c->output) {
        sb_puts(&cmd, " -o");
        quote_arg(&cmd, c->output);
    }
    c->t.command = arena_strdup(a, cmd.data);
    sb_free(&cmd);
    if (!c->t.arch)
        c->t.arch = DEFAULT_ARCH;
    return err;
}

const char *options_check_outputs(Arena *a, const CliOptions *c)
{
    bool cuda_out = c->emit != CLI_TILEIR && c->emit != CLI_LAYOUTS && c->emit != CLI_SVG && !c->t.dump;
    if (!c->input)
        return flag_error(a, "no input file");
    if (c->header && !c->output)
        return flag_error(a, "--header writes next to the output: give -o FILE");
    if (c->header && c->emit != CLI_CUDA)
        return flag_error(a, "--header goes with CUDA output or --embed-cubin, not --emit ptx/cubin/tileir/layouts/html/svg");
    if (c->embed && (c->emit != CLI_CUDA || c->t.dump))
        return flag_error(a, "--embed-cubin writes a C file: it does not combine with --emit or --dump");
    if (c->t.num_variants && (c->embed || c->t.dump || (c->emit != CLI_CUDA && c->emit != CLI_PTX && c->emit != CLI_CUBIN)))
        return flag_error(a, "--variant adds kernels to the .cu and its launcher: it goes with CUDA, PTX or cubin "
                          "output, not --embed-cubin, --emit tileir/layouts/html/svg or --dump");
    if (c->report && !cuda_out)
        return flag_error(a, "--report needs CUDA output or the page (not --emit tileir/layouts/svg or --dump)");
    if (c->emit == CLI_SVG && (!c->t.value || c->t.dump))
        return flag_error(a, "--emit svg draws one tile value: give --value NAME (or %%ID; --emit layouts lists them)");
    if (c->t.value && c->emit != CLI_SVG)
        return flag_error(a, "--value picks the tile value that --emit svg draws; it goes with --emit svg only");
    return NULL;
}

/* ---- flags lines -------------------------------------------------------------------- */

char **options_split(Arena *a, const char *line, int *n)
{
    Vec(char *) words = {0};
    const char *r = line;
    while (*r && *r != '\n') {
        while (*r == ' ' || *r == '\t')
            r++;
        if (!*r || *r == '\n')
            break;
        char *w = arena_alloc(a, strcspn(r, "\n") + 1), *o = w;
        char quote = 0;
        while (*r && *r != '\n' && (quote || (*r != ' ' && *r != '\t'))) {
            if (quote && *r == quote)
                quote = 0, r++;
            else if (!quote && (*r == '"' || *r == '\''))
                quote = *r++;
            else if (quote == '"' && *r == '\\' && r[1] && r[1] != '\n')
                r++, *o++ = *r++;
            else
                *o++ = *r++;
        }
        vec_push(a, &words, w);
    }
    *n = words.len;
    return words.data;
}

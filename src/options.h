/*
 * options.h — tilec's options, read from a command line or given to the API, and checked.
 *
 * Contract: every fact about an option's value (num_warps a power of two from 1 to 32,
 * the ranges of num_stages and min_blocks, the architecture names, the output kinds, the
 * pass names of --dump, the default architecture) is checked or set here and nowhere
 * else.  options_parse() reads tilec's flags, checking each value as it reads it;
 * options_check_outputs() checks what the flags ask for together; options_translate()
 * checks a tilec_translate_options, however it was made, and turns it into the driver's
 * TranslateOptions.  Each returns a message for people (NULL: fine); everything they
 * allocate comes from the arena they are given; nothing prints or exits.  The command
 * line (main.c), the library's tests and the fuzzers all read flags through here.
 */
#ifndef TILEC_OPTIONS_H
#define TILEC_OPTIONS_H

#include "../include/tilec.h"
#include "common.h"

/* What --emit asks for: an output of the translation, or a binary NVRTC compiles from it. */
#define CLI_EMIT_LIST(X)                      \
    X(CLI_CUDA,    "cuda",    TILEC_OUTPUT_CUDA)    \
    X(CLI_TILEIR,  "tileir",  TILEC_OUTPUT_TILEIR)  \
    X(CLI_LAYOUTS, "layouts", TILEC_OUTPUT_LAYOUTS) \
    X(CLI_PTX,     "ptx",     TILEC_OUTPUT_CUDA)    \
    X(CLI_CUBIN,   "cubin",   TILEC_OUTPUT_CUDA)    \
    X(CLI_HTML,    "html",    TILEC_OUTPUT_HTML)    \
    X(CLI_SVG,     "svg",     TILEC_OUTPUT_SVG)

typedef enum CliEmit {
#define CLI_EMIT_ENUM(kind, name, output) kind,
    CLI_EMIT_LIST(CLI_EMIT_ENUM)
#undef CLI_EMIT_ENUM
} CliEmit;

/* A command line, read. */
typedef struct CliOptions {
    tilec_translate_options t;    /* for the library: arch set (the default when not given),
                                     command the line to regenerate the output with */
    const char *input, *output;   /* FILE.py and -o FILE; NULL: not given */
    CliEmit emit;
    bool report, header;
    bool help, version;           /* -h/--help or --version came: the rest was not read */
    const char *embed;            /* --embed-cubin ARCHS as given, or NULL */
    tilec_compile_options *archs; /* ... one per architecture */
    int narchs;
    Vec(tilec_define) defines;    /* -D NAME=VALUE; t.defines points here */
    Vec(const char *) includes;   /* -I DIR; t.include_dirs points here */
    Vec(const char *) variants;   /* --variant FACTS; t.variants points here */
} CliOptions;

/* Reads the n words after the program's name into c, stopping at the first bad one. */
const char *options_parse(Arena *a, int n, char **words, CliOptions *c);

/* What c's flags ask for together: an input file, --header with -o and CUDA output,
 * --embed-cubin with CUDA output, --report with CUDA output or the page, --value with
 * --emit svg. */
const char *options_check_outputs(Arena *a, const CliOptions *c);

/* Checks o and fills *to (zeroed by the caller) from it, copying its strings into a. */
struct TranslateOptions;
const char *options_translate(Arena *a, const tilec_translate_options *o, struct TranslateOptions *to);

/* A line of flags split into words as sh splits them ("..." and '...' group, \ escapes
 * inside "..."); the first line of `line` only.  *n receives the count. */
char **options_split(Arena *a, const char *line, int *n);

/* "tokens, ast, lower, simplify, axisinfo, layouts": the passes --dump takes. */
const char *options_pass_names(void);

#endif

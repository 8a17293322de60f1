/*
 * emit.h — tile IR with layouts → readable CUDA C.
 *
 * Contract: cuda_emit() prints one self-contained .cu for a TirFunc whose
 * values carry layouts: a header comment (version, source, regenerate
 * command, signature, constexprs, launch shape, every layout in words), the
 * runtime helpers from templates/, the `extern "C"` kernel, and a host
 * launcher guarded from NVRTC.  Each source statement appears as a comment
 * above its code; per-thread work is register arrays filled by unrolled
 * constant-bound loops.  The output depends only on its inputs (same input,
 * same bytes).  It reports user errors (a bad --grid) through diag_error.
 * It changes nothing in f: what f uses (f->uses_*) tir_summarize has noted.
 */
#ifndef TILEC_EMIT_H
#define TILEC_EMIT_H

#include "../tileir/tir.h"

typedef struct EmitOptions {
    const char *command;   /* the regenerate command for the header */
    const char *grid;      /* --grid expression or NULL, for the comments */
    const GridProg *grid_prog; /* that expression compiled (tir_grid_compile) */
    int arch;              /* 80, 90 */
    /* --variant: the kernel also translated with each of these facts (named signature
     * entries, as given in variant_text), printed after it as NAME_v1, NAME_v2, ...; the
     * launcher takes the first whose facts the arguments meet, most facts first */
    const TirFunc *const *variants;
    const SpecVec *variant_facts;
    const char *const *variant_text;
    int nvariants;
} EmitOptions;

/* Before cuda_emit: each runtime parameter's C name (KernelParam.c_name), the
 * source's unless C or the generated code has it already. */
void cuda_name_params(Ctx *ctx, TirFunc *f);
void cuda_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt);

#endif

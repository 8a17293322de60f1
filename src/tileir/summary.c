/*
 * summary.c — what the kernel uses, noted on the TirFunc (tir_summarize).
 *
 * The emitter chooses the file's includes and runtime helpers from these
 * flags; computing them here, after the last pass that rewrites the IR,
 * lets it take the function as const.
 */
#include "tir.h"

/* MATH_LIST's flushed column, by MathFn */
static const bool math_flushed[] = {
#define X(e, n, f, d, z) z,
    MATH_LIST(X)
#undef X
};

/* An op whose C goes through tilec_runtime_math.cuh: every type but fp64 takes
 * the fp32 spelling. */
static bool uses_flushed_math(const Op *op)
{
    return op->kind == OP_MATH && op->args[0]->type.dtype != DT_FP64 && math_flushed[op->math.fn];
}

static void summarize_block(TirFunc *f, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        f->uses_printf |= op->kind == OP_PRINT || op->kind == OP_ASSERT;
        f->uses_flushed_math |= uses_flushed_math(op);
        f->uses_sort |= op->kind == OP_SORT;
        if ((op->kind == OP_LOAD || op->kind == OP_STORE) && op->args[0]->type.rank)
            f->uses_masked_access |= access_tests_mask(op);
        f->uses_masked_copy |= op->kind == OP_ASYNC_COPY && copy_tests_mask(op);
        for (int k = 0; k < op->nres; k++) {
            DType d = op->results[k]->type.dtype;
            f->uses_fp16 |= d == DT_FP16;
            f->uses_bf16 |= d == DT_BF16;
            f->uses_fp8 |= dtype_is_fp8(d);
        }
        for (int r = 0; r < op->nregions; r++)
            summarize_block(f, op->regions[r]);
    }
}

void tir_summarize(Ctx *ctx, TirFunc *f)
{
    (void)ctx;
    f->uses_fp16 = f->uses_bf16 = f->uses_fp8 = false;
    f->uses_printf = f->uses_flushed_math = f->uses_sort = false;
    f->uses_masked_access = f->uses_masked_copy = false;
    summarize_block(f, f->body);
}

void tir_uses_merge(TirFunc *into, const TirFunc *from)
{
    into->uses_fp16 |= from->uses_fp16;
    into->uses_bf16 |= from->uses_bf16;
    into->uses_fp8 |= from->uses_fp8;
    into->uses_printf |= from->uses_printf;
    into->uses_dot |= from->uses_dot;
    into->uses_wgmma |= from->uses_wgmma;
    into->uses_flushed_math |= from->uses_flushed_math;
    into->uses_sort |= from->uses_sort;
    into->uses_masked_access |= from->uses_masked_access;
    into->uses_masked_copy |= from->uses_masked_copy;
}

int tir_param_facts(const KernelParam *kp)
{
    Type t = kp->type;
    if (!kp->value || kp->desc_name || kp->div >= 16)
        return 0;
    if (t.dtype == DT_PTR)
        return kp->no_spec_align ? 0 : TIR_FACT_DIV16;
    if (!tir_type_is_integer(t) || kp->no_spec_value)
        return 0;
    return TIR_FACT_ONE | (kp->no_spec_align ? 0 : TIR_FACT_DIV16);
}

bool tir_type_is_integer(Type t) { return t.rank == 0 && dtype_is_int(t.dtype) && t.dtype != DT_I1; }

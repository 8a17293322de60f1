/*
 * lower_histogram.c — tl.histogram(input, num_bins, mask=None): the counts of
 * a 1-D integer tile's values in bins 0..num_bins-1 (width 1), as an int32
 * tile of num_bins; elements where `mask` is false are not counted.  A value
 * counts in the bin of its low log2(num_bins) bits, as Triton's GPU lowering
 * (ballots on those bits) counts it: values outside the bins wrap.
 */
#include "lower_internal.h"

CVal *builtin_histogram(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *x = c->arg[0];
    if (x->kind != CV_VALUE || x->v->type.rank != 1)
        lower_error(L, c->at[0], "tl.histogram needs a 1-D tensor, got %s", cv_describe(L, x));
    Value *v = x->v;
    if (!dtype_is_int(v->type.dtype) || v->type.dtype == DT_I1)
        lower_error(L, c->at[0], "tl.histogram needs integers, got %s", dtype_triton_name(v->type.dtype));
    int64_t bins = const_int(L, c->arg[1], c->at[1], "num_bins");
    if (bins < 1 || bins > TIR_MAX_NUMEL || (bins & (bins - 1)))
        lower_error(L, c->at[1], "tl.histogram needs num_bins a power of two from 1 to %d (its result is a tile), got %lld",
                    TIR_MAX_NUMEL, (long long)bins);
    Value *args[2] = {v, NULL};
    if (c->arg[2]) {
        CVal *m = c->arg[2];
        if (m->kind == CV_VALUE && m->v->type.dtype != DT_I1)
            lower_error(L, c->at[2], "tl.histogram's mask must be boolean, got %s", dtype_triton_name(m->v->type.dtype));
        args[1] = broadcast_to_shape(L, to_bool(L, to_value(L, m, c->at[2]), c->at[2]), 1, v->type.shape, c->at[2]);
    }
    int shape[1] = {(int)bins};
    Op *op = emit_op(L, OP_HISTOGRAM, c->loc, args[1] ? 2 : 1, args, type_tensor(type_scalar(DT_I32), 1, shape));
    op->histogram.has_mask = args[1] != NULL;
    return cv_value(L, op->results[0]);
}

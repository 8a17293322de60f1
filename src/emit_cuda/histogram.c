/*
 * histogram.c — tl.histogram: the block counts in shared memory.  The
 * counters are cleared, every element (once: where the layout replicates
 * elements, only their owner) adds one to its bin with a shared-memory
 * atomicAdd, and each thread then reads the bins its result registers hold.
 */
#include "emit_internal.h"

void emit_histogram(Emitter *E, const Op *op)
{
    const Value *x = op->args[0], *r = op->results[0];
    int bins = r->type.shape[0], threads = E->f->num_warps * 32, N = nregs(x), NR = nregs(r);
    LayoutMap xm, rm;
    value_map(x, &xm);
    value_map(r, &rm);
    const char *y = vname(E, r), *counts = unique_name(E, "bin_counts");
    if (!info(E, r)->declared)
        line(E, "%s;%s", decl(E, type_elem(r->type), y, NR), shape_note(E, r));
    line(E, "// histogram of %d values into %d bins (a value's low %d bits), in shared memory", x->type.shape[0], bins,
         __builtin_ctz((unsigned)bins));
    line(E, "{");
    E->indent++;
    line(E, "int32_t *%s = reinterpret_cast<int32_t *>(smem + %d);  // one counter per bin", counts, op->smem_offset);
    line(E, "for (int b = tid; b < %d; b += %d)", bins, threads);
    line(E, "    %s[b] = 0;", counts);
    line(E, "%s;", block_sync(E));
    const char *owner = owner_pred(E, x, &xm);
    const char *cond = owner;
    if (op->histogram.has_mask) {
        const char *m = value_at(E, op->args[1], x, "e");
        cond = cond ? fmt(E, "%s && %s", cond, paren(E, m)) : m;
    }
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", N);
    if (cond)
        line(E, "    if (%s)", cond);
    line(E, "%satomicAdd(&%s[(int)(%s) & %d], 1);", cond ? "        " : "    ", counts, value_at(E, x, NULL, "e"), bins - 1);
    line(E, "%s;", block_sync(E));
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", NR);
    line(E, "    %s[e] = %s[%s];", y, counts, elem_coord(E, r, &rm, 0, "e"));
    line(E, "%s;  // the counters are free again", block_sync(E));
    E->indent--;
    line(E, "}");
}

/*
 * kernel.c — the kernel's text around its body: the header comment (signature,
 * launch shape, shared memory, layouts), the includes and runtime helpers,
 * the device helpers made while printing, and the kernel's signature and
 * per-thread prologue.
 */
#include "emit_internal.h"

#include <string.h>

#include "templates.h"

/* Has a device helper called `name` been printed into E->helpers?  If not, it
 * counts as printed from now on: the caller prints it. */
bool helper_known(Emitter *E, const char *name)
{
    for (int i = 0; i < E->helper_names.len; i++)
        if (!strcmp(E->helper_names.data[i], name))
            return true;
    vec_push(E->a, &E->helper_names, name);
    return false;
}

/* Prints text as "// " comment lines of at most about 100 columns. */
static void comment_paragraph(Emitter *E, const char *text)
{
    int col = 0;
    for (const char *p = text; *p;) {
        int len = (int)strcspn(p, " ");
        if (!col || col + 1 + len > 100) {
            sb_printf(E->out, "%s//", col ? "\n" : "");
            col = 2;
        }
        sb_printf(E->out, " %.*s", len, p);
        col += 1 + len;
        p += len;
        p += strspn(p, " ");
    }
    sb_putc(E->out, '\n');
}

/* " in N pipeline slots", and why N where it is not num_stages: one more for the wgmma group a
 * step leaves in flight (pipeline.c, wgmma_in_flight), one fewer where the copies reuse the
 * slot the step has just read (tight_ring_pays); and why not one more where a group stays in
 * flight in num_stages slots (P->hold). */
static const char *slots_text(Emitter *E, const DotStage *st)
{
    if (st->nslots <= 1)
        return "";
    int S = E->f->num_stages;
    const char *why = st->nslots == S + 1 ? fmt(E, " (num_stages %d and one for the wgmma group a step leaves in flight)", S)
                      : st->nslots == S - 1 ? fmt(E, " (num_stages %d less one: the copies reuse the slot a step has read)", S)
                      : st->hold ? fmt(E, " (num_stages %d, none more for the wgmma group a step leaves in flight, which "
                                       "would cost shared memory or a block per SM: each step's copies wait for the "
                                       "group before to be done with their slot)", S)
                                 : "";
    return fmt(E, " in %d pipeline slots%s", st->nslots, why);
}

static void describe_smem(Emitter *E, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            describe_smem(E, op->regions[r]);
        if (!op->smem_bytes)
            continue;
        sb_printf(E->out, "//   %s:%d  %s, %d bytes at %d: ", source_file_name(E, op->loc), op->loc.line, op_name(op->kind), op->smem_bytes,
                  op->smem_offset);
        switch (op->kind) {
        case OP_REDUCE:
            if (op->reduce.kind == RED_COMBINE) {
                sb_printf(E->out, "%d partial groups per result for %s, one from each warp along the axis\n",
                          1 << reduce_warp_bits(op), op->reduce.combine);
                break;
            }
            sb_printf(E->out, "%d partial %ss per result, one from each warp along the axis\n", 1 << reduce_warp_bits(op),
                      reduce_name(op->reduce.kind));
            break;
        case OP_SCAN: sb_puts(E->out, "each warp's running total, per repetition along the axis\n"); break;
        case OP_SORT: sb_puts(E->out, "the whole tile, row-major, for the bitonic steps between warps\n"); break;
        case OP_HISTOGRAM: sb_puts(E->out, "the block's counters, one per bin\n"); break;
        case OP_GATHER:
            sb_printf(E->out, "the source of tl.gather, row-major, read back at the indices along dim %d\n",
                      op->gather.axis);
            break;
        case OP_FLIP:
            sb_printf(E->out, "the tile reversed along dim %d, each element written at its mirrored place, %s;\n//       %s\n",
                      op->flip.axis, smem_storage(E, op, "\n//       "), smem_verdict(E, op));
            break;
        case OP_LOCAL_LOAD:
        case OP_LOCAL_ALLOC:
        case OP_CONVERT:
            if (op->stage) {
                const DotStage *st = op->stage;
                const char *storage =
                    st->nvmma ? fmt(E, "NVMMA layout (%d-byte swizzle, %d-byte column blocks)", st->nvmma, st->nvmma)
                    : st->pad ? fmt(E, "padded (%d bytes after every %d row%s)", st->pad * dtype_bits(st->dtype) / 8,
                                  1 << st->pad_rows_log2, st->pad_rows_log2 ? "s" : "")
                    : smem_swizzle_none(st->swz) ? "not swizzled"
                    : fmt(E, "swizzled (vec %d, perPhase %d, maxPhase %d)", st->swz.vec, st->swz.per_phase,
                          st->swz.max_phase);
                sb_printf(E->out, "operand %c of tl.dot, %s%d x %d %s%s, %s, %sread %s%s\n", st->op_idx ? 'B' : 'A',
                          st->batch > 1 ? fmt(E, "%d batches (one tile after another) of ", st->batch) : "", st->rows,
                          st->cols, dtype_name(st->dtype), slots_text(E, st),
                          storage, op->kind != OP_LOCAL_ALLOC ? "" : fmt(E, "%s, ", local_alloc_written(E, op)),
                          st->ldmatrix ? fmt(E, "%swith ldmatrix%s", st->nvmma ? "by wgmma (sm_90a) or " : "",
                                             st->trans ? ".trans" : "")
                                       : "element by element",
                          op->kind == OP_LOCAL_ALLOC && !local_alloc_beside(op) ? " in every iteration" : "");
                break;
            }
            sb_printf(E->out, "the tile changing layout (L%d -> L%d), %s;\n//       %s\n",
                      op->args[0]->layout->id, op->results[0]->layout->id, smem_storage(E, op, "\n//       "),
                      smem_verdict(E, op));
            break;
        case OP_DOT:
            if (op->args[0]->type.rank == 3)
                sb_printf(E->out, "A (%dx%dx%d) and B (%dx%dx%d) row-major, batch after batch, for the FMA path of tl.dot\n",
                          op->args[0]->type.shape[0], op->args[0]->type.shape[1], op->args[0]->type.shape[2],
                          op->args[1]->type.shape[0], op->args[1]->type.shape[1], op->args[1]->type.shape[2]);
            else
                sb_printf(E->out, "A (%dx%d) and B (%dx%d) row-major for the FMA path of tl.dot\n", op->args[0]->type.shape[0],
                          op->args[0]->type.shape[1], op->args[1]->type.shape[0], op->args[1]->type.shape[1]);
            break;
        case OP_STORE:
            sb_printf(E->out, "the %d x %d %s block of a descriptor store, in the %d-byte swizzle of its tensor map, "
                              "for the TMA engine (sm_90a)\n",
                      op->stage->rows, op->stage->cols, dtype_name(op->stage->dtype), op->stage->nvmma);
            break;
        default: sb_puts(E->out, "the old value, from the thread that did the atomic to all\n"); break;
        }
    }
}

void emit_header(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    const Source *src = E->ctx->src;
    sb_printf(E->out, "// %s.cu — generated by tilec %s from %s:%d (kernel %s). Do not edit.\n", f->name,
              TILEC_VERSION, comment_escape(E->a, src->path), f->loc.line, f->name);
    if (E->opt->command)
        sb_printf(E->out, "// Regenerate: %s\n", comment_escape(E->a, E->opt->command));
    sb_puts(E->out, "//\n// Signature:\n");
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->desc_name)
            sb_printf(E->out, "//   %-16s %s: a host TensorDescriptor, passed as its base, its shape\n"
                      "//   %-16s and its strides but the last (which is 1):\n", kp->desc_name,
                      comment_escape(E->a, kp->desc_sig), "");
        if (kp->value) {
            Type t = kp->type;
            sb_printf(E->out, "//   %-16s %s", kp->name,
                      type_sig_str(E->a, t));
            if (kp->div > 1)
                sb_printf(E->out, t.dtype == DT_PTR ? " (%lld-byte aligned)" : " (multiple of %lld)", (long long)kp->div);
            if (strcmp(kp->c_name, kp->name))
                sb_printf(E->out, ", called %s in the C code", kp->c_name);
            sb_putc(E->out, '\n');
        } else {
            sb_printf(E->out, "//   %-16s = %s (%s)\n", kp->name, kp->spec_text ? comment_escape(E->a, kp->spec_text) : "?",
                      kp->is_constexpr ? "constexpr" : "specialised");
        }
    }
    if (E->opt->nvariants) {
        sb_puts(E->out, "//\n");
        comment_paragraph(E, fmt(E, "Variants: the same kernel translated again for facts a launch may find; %s_launch "
                                    "tests them in this order (most facts first) and runs the first that holds, else "
                                    "%s as written. Each is described above its kernel.", f->name, f->name));
        for (int k = 0; k < E->opt->nvariants; k++) {
            int i = variant_order(E->opt, k);
            sb_printf(E->out, "//   %s_v%d: %s\n", f->name, i + 1, comment_escape(E->a, E->opt->variant_text[i]));
        }
    }
    sb_printf(E->out, "//\n// Launch: %d threads per block (%d warps%s), %d bytes of shared memory%s, grid ", threads,
              f->num_warps, f->producer_warps ? fmt(E, " and a producer warpgroup of %d", f->producer_warps) : "",
              f->smem_bytes, f->smem_bytes > 48 * 1024 ? " (dynamic; the launcher raises the limit)" : "");
    if (E->opt->grid)
        sb_printf(E->out, "(%s)\n", comment_escape(E->a, E->opt->grid));
    else
        sb_puts(E->out, "chosen by the caller\n");
    if (f->producer_warps) {
        int base, regs = ws_consumer_regs(f, &base);
        sb_puts(E->out, "//\n");
        comment_paragraph(
            E, fmt(E, "Warp specialisation (tl.range(warp_specialize=True)): warps 0..%d run the kernel as written "
                      "and are the consumers; warps %d..%d are the producer. Under sm_90a one producer thread runs "
                      "the loops with only the scalars the copies need and issues every TMA copy of the rings, each "
                      "once the slot's free barrier says all %d consumer warps are done with it, so it works ahead "
                      "into the next tile while the consumers store this one. The consumers wait on a slot's full "
                      "barrier and release the slot once the wgmma group that read it is done. The consumers' "
                      "barriers are named barrier 1 of their %d threads (tilec::consumer_sync). "
                      "__launch_bounds__(%d, 1) gives each thread %d registers%s. Builds for other targets have no "
                      "TMA: there the kernel's bound is the consumers' %d threads, the launcher (which asks the "
                      "loaded kernel for its limit) starts only those, and they copy for themselves with cp.async.",
                   f->num_warps - 1, f->num_warps, f->num_warps + f->producer_warps - 1, f->num_warps,
                   32 * f->num_warps, threads, base,
                   regs > base ? fmt(E, "; setmaxnreg lowers the producer's to %d and raises the consumers' to %d",
                                     TIR_WS_PRODUCER_REGS, regs)
                               : "",
                   32 * f->num_warps));
    } else if (f->min_blocks) {
        const char *promise = fmt(E, "__launch_bounds__(%d, %d) promises ptxas %d block%s per SM, so a thread may use "
                                     "up to %d registers", threads, f->min_blocks, f->min_blocks,
                                  f->min_blocks == 1 ? "" : "s", tir_min_blocks_regs(f));
        sb_puts(E->out, "//\n");
        if (f->min_blocks_auto) /* the reasons: limits.c, choose_min_blocks */
            comment_paragraph(E, fmt(E, "Registers: on sm_%d and newer, %s: tilec's choice, as its largest tile takes "
                                        "32 to 64 registers per thread; room for twice that keeps all of a thread's "
                                        "loads in flight, where ptxas would otherwise trade them for occupancy. It was "
                                        "measured on the H200; for older GPUs, where ptxas may spill under this bound, "
                                        "the kernel keeps __launch_bounds__(%d).",
                                     TIR_MIN_BLOCKS_ARCH, promise, threads));
        else if (f->min_blocks_chain)
            comment_paragraph(E, fmt(E, "Registers: %s: tilec's choice for a chain of tl.dots, whose accumulator, "
                                        "scores and packed operand are live at once; left to itself, ptxas may give "
                                        "up registers for an occupancy they cannot reach, and spill.", promise));
        else
            comment_paragraph(E, fmt(E, "Registers: %s (--min-blocks).", promise));
    }
    if (f->smem_bytes) {
        sb_puts(E->out, "//\n// Shared memory: one arena; buffers whose lifetimes do not overlap share bytes.  A buffer\n"
                        "// lives from its writes to its reads, or, where no barrier follows its reads, until the\n"
                        "// next exchange's barrier.\n");
        describe_smem(E, f->body);
        for (int i = 0; i < f->tma_rings.len; i++) {
            const TmaRing *r = &f->tma_rings.data[i];
            sb_printf(E->out, "//   bytes %d..%d: the %s barriers of a TMA ring's %d slots (sm_90a)\n", r->smem_offset,
                      r->smem_offset + tir_tma_ring_barrier_bytes(f, r) - 1,
                      tir_tma_free_barriers(f) ? "full and free" : "full", r->nslots);
        }
    }
    tma_describe(E);
    sb_puts(E->out, "//\n// Layouts: how each tile's elements are spread over the threads of a block.\n");
    if (!f->layouts.len)
        sb_puts(E->out, "//   (none: this kernel has no tiles)\n");
    StrBuf lay = {0};
    tir_print_layouts(&lay, f);
    for (char *p = lay.data, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        sb_printf(E->out, "//   %.*s\n", (int)(nl - p), p);
    }
    sb_free(&lay);
    sb_puts(E->out, "\n");
}

/* The k-th variant the launcher tests: most facts first, then in the order given. */
int variant_order(const EmitOptions *opt, int k)
{
    int order[TILEC_MAX_VARIANTS];
    int n = opt->nvariants;
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort: stable */
        for (int j = i; j > 0 && opt->variant_facts[order[j]].len > opt->variant_facts[order[j - 1]].len; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    return order[k];
}

void emit_variant_comment(Emitter *E, int i)
{
    const TirFunc *f = E->f;
    sb_puts(E->out, "\n");
    comment_paragraph(E, fmt(E, "Variant %d: the kernel above translated again with these facts added to its "
                                "signature: %s. The launcher runs it when they hold. %d bytes of shared memory.", i + 1,
                             comment_escape(E->a, E->opt->variant_text[i]), f->smem_bytes));
    StrBuf lay = {0};
    tir_print_layouts(&lay, f);
    if (lay.data)
        sb_puts(E->out, "// Layouts:\n");
    for (char *p = lay.data, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        sb_printf(E->out, "//   %.*s\n", (int)(nl - p), p);
    }
    sb_free(&lay);
}

void emit_includes(Emitter *E)
{
    bool half = false, bf16 = false, fp8 = false;
    for (int i = 0; i < E->f->params.len; i++) {
        const KernelParam *kp = &E->f->params.data[i];
        DType d = kp->type.dtype != DT_PTR ? kp->type.dtype : kp->type.pointee == DT_PTR ? kp->type.inner : kp->type.pointee;
        half |= d == DT_FP16;
        bf16 |= d == DT_BF16;
        fp8 |= dtype_is_fp8(d);
    }
    half |= E->f->uses_fp16;
    bf16 |= E->f->uses_bf16;
    fp8 |= E->f->uses_fp8;
    if (half)
        sb_puts(E->out, "#include <cuda_fp16.h>\n");
    if (bf16)
        sb_puts(E->out, "#include <cuda_bf16.h>\n");
    if (fp8) /* with cuda_fp16.h and cuda_bf16.h, which its conversions use */
        sb_puts(E->out, "#include <cuda_fp8.h>\n");
    if (E->f->uses_printf) /* device printf: declared by stdio.h under nvcc, built into NVRTC */
        sb_puts(E->out, "#ifndef __CUDACC_RTC__\n#include <stdio.h>\n#endif\n");
    if (half || bf16 || fp8 || E->f->uses_printf)
        sb_putc(E->out, '\n');
    /* in file-name order: the runtime helpers, then the fp8, masked-vector, flush-to-zero
     * math and tensor-core ones where needed */
    for (int i = 0; i < tilec_template_count; i++) {
        const char *name = tilec_templates[i].name;
        if ((strstr(name, "tensorcore") && !E->f->uses_dot && !E->f->tma_maps.len) || (strstr(name, "wgmma") && !E->f->uses_wgmma) ||
            (strstr(name, "fp8") && !fp8) || (strstr(name, "_math") && !E->f->uses_flushed_math) ||
            (strstr(name, "_sort") && !E->f->uses_sort) || (strstr(name, "runtime_masked") && !E->f->uses_masked_access) ||
            (strstr(name, "tensorcore_masked") && !E->f->uses_masked_copy) || (strstr(name, "_tma") && !E->f->tma_maps.len))
            continue;
        sb_puts(E->out, tilec_templates[i].text);
    }
    sb_putc(E->out, '\n');
}

const char *param_decl(Emitter *E, const KernelParam *kp)
{
    Type t = kp->type;
    if (t.dtype == DT_PTR)
        return fmt(E, "%s__restrict__ %s", ctype(E, t), kp->c_name);
    return fmt(E, "%s %s", dtype_ctype(t.dtype), kp->c_name);
}

static bool ident_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* Does the C text use `name` as an identifier?  Comments and string literals
 * do not count ("// tiles of this warp" declares no need for `warp`: an
 * unused variable is an NVRTC warning). */
bool uses_ident(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            if (!*p)
                break;
            continue;
        }
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                break;
            continue;
        }
        if (!strncmp(p, name, n) && !ident_char(p[n]) && (p == text || !ident_char(p[-1])))
            return true;
    }
    return false;
}

void emit_kernel(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    /* the body first: it binds the per-thread names the prologue declares
     * and the device helpers printed above the kernel */
    E->indent = 1;
    StrBuf body = {0};
    StrBuf *saved = E->out;
    E->out = &body;
    emit_block(E, f->body);
    E->out = saved;
    if (E->helpers.data) {
        sb_puts(E->out, E->helpers.data);
        sb_putc(E->out, '\n');
    }
    sb_free(&E->helpers);
    const char *plain = fmt(E, "__launch_bounds__(%d)", threads);
    const char *bound = f->min_blocks ? fmt(E, "__launch_bounds__(%d, %d)", threads, f->min_blocks) : plain;
    if (f->producer_warps) { /* setmaxnreg shares out the registers of one block an SM; builds
                                without TMA have no producer and keep the consumers' bound */
        int consumers = 32 * f->num_warps;
        const char *rest = f->min_blocks ? fmt(E, "__launch_bounds__(%d, %d)", consumers, f->min_blocks)
                                         : fmt(E, "__launch_bounds__(%d)", consumers);
        sb_printf(E->out, "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the producer warpgroup's threads too\nextern \"C\" "
                          "__global__ void __launch_bounds__(%d, 1)\n#else\nextern \"C\" __global__ void %s\n#endif\n%s(",
                  threads, rest, f->name);
    } else if (f->min_blocks_auto) /* tilec's choice, for the GPUs it was measured on (see the header) */
        sb_printf(E->out, "#if __CUDA_ARCH__ >= %d0\nextern \"C\" __global__ void %s\n#else\nextern \"C\" __global__ "
                          "void %s\n#endif\n%s(", TIR_MIN_BLOCKS_ARCH, bound, plain, f->name);
    else
        sb_printf(E->out, "extern \"C\" __global__ void %s\n%s(", bound, f->name);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (!kp->value)
            continue;
        sb_printf(E->out, "%s%s", n++ ? ", " : "", param_decl(E, kp));
    }
    tma_params(E, E->out, &n);
    sb_puts(E->out, ")\n{\n");
    StrBuf pro = {0};
    for (int i = 0; i < E->binds.len; i++) {
        const Binding *b = &E->binds.data[i];
        sb_printf(&pro, "    const %s %s = %s;  // %s\n", b->type, b->name, b->expr, b->comment);
    }
    StrBuf tma = {0};
    tma_setup(E, &tma);
    ws_split(E, &tma);
    bool uses_lane = uses_ident(pro.data, "lane"), uses_warp = uses_ident(pro.data, "warp");
    bool uses_tid = uses_ident(body.data, "tid") || uses_lane || uses_warp;
    bool uses_lane_body = uses_ident(body.data, "lane");
    bool uses_warp_body = uses_ident(body.data, "warp");
    if (f->smem_bytes) {
        /* wgmma and TMA swizzle absolute addresses: the NVMMA buffers' offsets are multiples of 1024 */
        int align = f->uses_wgmma || f->tma_maps.len ? 1024 : 16;
        if (f->smem_bytes > 48 * 1024)
            sb_printf(E->out, "    extern __shared__ __align__(%d) unsigned char smem[];  // the arena (dynamic, see the header)\n",
                      align);
        else
            sb_printf(E->out, "    __shared__ __align__(%d) unsigned char smem[%d];  // the arena (see the header)\n", align,
                      f->smem_bytes);
    }
    if (uses_tid)
        line(E, "const int tid = threadIdx.x;");
    if (uses_lane || uses_lane_body)
        line(E, "const int lane = tid & 31;  // position in the warp");
    if (uses_warp || uses_warp_body)
        line(E, "const int warp = tid >> 5;  // warp in the block");
    if (pro.data)
        sb_puts(E->out, pro.data);
    if (tma.data)
        sb_puts(E->out, tma.data);
    if (uses_tid || pro.data || f->smem_bytes)
        sb_putc(E->out, '\n');
    sb_free(&tma);
    if (body.data)
        sb_puts(E->out, body.data);
    sb_free(&body);
    sb_free(&pro);
    sb_puts(E->out, "}\n");
}

/*
 * emit.c — prints a scheduled TirFunc as readable CUDA C.
 *
 * Two steps: plan (names, which values are folded into their single user's
 * expression, the vector width of each memory op, which loop-carried values
 * are written in place), then print (header, helpers, kernel, launcher).
 */
#include "emit_internal.h"

#include <stdio.h>
#include <string.h>

#include "templates.h"

static void emit_block(Emitter *E, const Block *b);

/* ---- output primitives -------------------------------------------------------- */

void line(Emitter *E, const char *fmt, ...)
{
    for (int i = 0; i < E->indent; i++)
        sb_puts(E->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(E->out, fmt, ap);
    va_end(ap);
    sb_putc(E->out, '\n');
}

char *fmt(Emitter *E, const char *f, ...)
{
    va_list ap, ap2;
    va_start(ap, f);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *p = arena_alloc(E->a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, f, ap2);
    va_end(ap2);
    return p;
}

static void stmt_comment(Emitter *E, const Op *op)
{
    const SrcStmt *s = op->stmt;
    if (!s || s == E->last_stmt)
        return;
    if (E->last_stmt && E->last_stmt->begin == s->begin && E->last_stmt->end == s->end)
        return;
    E->last_stmt = s;
    const Source *src = E->ctx->src;
    StrBuf text = {0};
    bool space = false;
    for (int i = s->begin; i < s->end && i < (int)src->len; i++) {
        char c = src->text[i];
        bool continuation = c == '\\' && i + 1 < (int)src->len && src->text[i + 1] == '\n';
        if (c == '\n' || c == '\t' || c == ' ' || continuation) {
            space = text.len > 0;
            continue;
        }
        if (space)
            sb_putc(&text, ' ');
        space = false;
        sb_putc(&text, c);
    }
    const char *stmt = comment_escape(E->a, text.data ? text.data : "");
    sb_free(&text);
    if (s->helper)
        line(E, "// %s:%d  %s    (in %s, inlined from line %d)", source_file_name(E), s->loc.line, stmt, s->helper,
             s->call_line);
    else
        line(E, "// %s:%d  %s", source_file_name(E), s->loc.line, stmt);
}

/* ---- atomics and debugging ops ---------------------------------------------------------- */

bool helper_known(Emitter *E, const char *name)
{
    for (int i = 0; i < E->helper_names.len; i++)
        if (!strcmp(E->helper_names.data[i], name))
            return true;
    vec_push(E->a, &E->helper_names, name);
    return false;
}

static bool is_block_arg(const Block *b, const Value *v)
{
    for (int i = 0; i < b->args.len; i++)
        if (b->args.data[i] == v)
            return true;
    return false;
}

/* Assign yielded values to the variables they feed.  The assignments are
 * simultaneous: when one reads another's variable, go through temporaries. */
static void emit_yield_into(Emitter *E, const Block *b, const Op *y, Value *const *targets)
{
    bool clash = false;
    for (int i = 0; i < y->nargs; i++)
        if (is_block_arg(b, y->args[i]) && strcmp(vname(E, y->args[i]), vname(E, targets[i])))
            clash = true;
    for (int i = 0; i < y->nargs && clash; i++) {
        const Value *t = targets[i];
        const char *tmp = fmt(E, "%s_next", vname(E, t));
        if (!strcmp(vname(E, t), vname(E, y->args[i])))
            continue;
        if (t->type.rank)
            line(E, "%s;", decl(E, type_elem(t->type), tmp, nregs(t)));
        else
            line(E, "%s;", decl(E, t->type, tmp, 0));
        fill(E, tmp, t, value_elem, y->args[i]);
    }
    for (int i = 0; i < y->nargs; i++) {
        const char *dst = vname(E, targets[i]);
        if (!strcmp(dst, vname(E, y->args[i])))
            continue;
        if (clash)
            fill(E, dst, targets[i], targets[i]->type.rank ? array_elem : scalar_elem, fmt(E, "%s_next", dst));
        else
            fill(E, dst, targets[i], value_elem, y->args[i]);
    }
}

static void assign_from(Emitter *E, const Value *dst, const Value *src)
{
    if (!strcmp(vname(E, dst), vname(E, src)) && !info(E, src)->inl)
        return;
    fill(E, vname(E, dst), dst, value_elem, src);
}

static void emit_for(Emitter *E, const Op *op)
{
    const Block *body = op->regions[0];
    for (int i = 0; i < op->nres; i++) {
        declare_var(E, op->results[i]);
        assign_from(E, op->results[i], op->args[3 + i]);
    }
    const Value *iv = body->args.data[0];
    const char *t = dtype_ctype(iv->type.dtype);
    const char *ivn = vname(E, iv);
    line(E, "for (%s %s = %s; %s < %s; %s += %s) {", t, ivn, ex(E, op->args[0], NULL, "0"), ivn,
         paren(E, ex(E, op->args[1], NULL, "0")), ivn, paren(E, ex(E, op->args[2], NULL, "0")));
    E->indent++;
    emit_block(E, body);
    const Op *y = body->ops.data[body->ops.len - 1];
    emit_yield_into(E, body, y, op->results);
    E->indent--;
    line(E, "}");
}

static void emit_while(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++) {
        declare_var(E, op->results[i]);
        assign_from(E, op->results[i], op->args[i]);
    }
    line(E, "while (true) {");
    E->indent++;
    const Block *before = op->regions[0], *after = op->regions[1];
    emit_block(E, before);
    const Op *cond = before->ops.data[before->ops.len - 1];
    line(E, "if (!%s)", paren(E, ex(E, cond->args[0], NULL, "0")));
    line(E, "    break;");
    emit_block(E, after);
    const Op *y = after->ops.data[after->ops.len - 1];
    emit_yield_into(E, after, y, op->results);
    E->indent--;
    line(E, "}");
}

static void emit_if(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        declare_var(E, op->results[i]);
    line(E, "if (%s) {", ex(E, op->args[0], NULL, "0"));
    for (int r = 0; r < 2; r++) {
        const Block *b = op->regions[r];
        if (r == 1) {
            bool empty = b->ops.len == 1 && b->ops.data[0]->kind == OP_YIELD && !op->nres;
            if (empty)
                break;
            line(E, "} else {");
        }
        E->indent++;
        emit_block(E, b);
        const Op *y = b->ops.data[b->ops.len - 1];
        if (y->kind == OP_YIELD)
            emit_yield_into(E, b, y, op->results);
        E->indent--;
    }
    line(E, "}");
}

static void emit_op(Emitter *E, const Op *op)
{
    if (op->nres == 1 && info(E, op->results[0])->inl) {
        const Value *v = op->results[0];
        if (info(E, v)->folded_addr) {
            stmt_comment(E, op);
            line(E, "// (%s: each address is computed where it is used, below)", vname(E, v));
        }
        return;
    }
    if (op->kind == OP_YIELD || op->kind == OP_CONDITION)
        return;
    stmt_comment(E, op);
    switch (op->kind) {
    case OP_LOAD: emit_load(E, op); break;
    case OP_STORE: emit_store(E, op); break;
    case OP_FOR: emit_for(E, op); E->last_stmt = NULL; break;
    case OP_WHILE: emit_while(E, op); E->last_stmt = NULL; break;
    case OP_IF: emit_if(E, op); E->last_stmt = NULL; break;
    case OP_RETURN: line(E, "return;"); break;
    case OP_BARRIER: line(E, "__syncthreads();"); break;
    case OP_REDUCE: emit_reduce(E, op); break;
    case OP_CONVERT:
        if (dot_operand_in_registers(op))
            emit_register_fragments(E, op);
        else if (is_dot_stage(op))
            emit_stage_convert(E, op);
        else
            emit_convert(E, op);
        break;
    case OP_DOT: emit_dot(E, op); break;
    case OP_LOCAL_LOAD: emit_local_load(E, op); break;
    case OP_ASYNC_COPY: emit_async_copy(E, op); break;
    case OP_ASYNC_COMMIT: line(E, "tilec::cp_async_commit();"); break;
    case OP_ASYNC_WAIT:
        line(E, "tilec::cp_async_wait<%lld>();  // at most %lld group%s of copies still in flight",
             (long long)op->iattr[0], (long long)op->iattr[0], op->iattr[0] == 1 ? "" : "s");
        line(E, "__syncthreads();");
        break;
    case OP_SCAN: emit_scan(E, op); break;
    case OP_ATOMIC_RMW:
    case OP_ATOMIC_CAS: emit_atomic(E, op); break;
    case OP_PRINT: emit_print(E, op); break;
    case OP_ASSERT: emit_assert(E, op); break;
    default:
        if (op->nres != 1)
            BUG("emit: unexpected op %s", op_name(op->kind));
        emit_assign(E, op);
        break;
    }
}

static void emit_block(Emitter *E, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++)
        emit_op(E, b->ops.data[i]);
}

/* ---- grid expression (host) ------------------------------------------------------------- */

/* Fills E->grid from opt->grid (tir_grid_compile). */
static void parse_grid(Emitter *E) { tir_grid_compile(E->ctx, E->f, E->opt->grid, &E->grid); }

/* ---- header and launcher --------------------------------------------------------------- */

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

static void describe_smem(Emitter *E, const Block *b)
{
    const char *file = source_file_name(E);
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            describe_smem(E, op->regions[r]);
        if (!op->smem_bytes)
            continue;
        sb_printf(E->out, "//   %s:%d  %s, %d bytes at %d: ", file, op->loc.line, op_name(op->kind), op->smem_bytes,
                  op->smem_offset);
        switch (op->kind) {
        case OP_REDUCE:
            sb_printf(E->out, "%d partial %ss per result, one from each warp along the axis\n", 1 << reduce_warp_bits(op),
                      reduce_name((ReduceKind)op->iattr[0]));
            break;
        case OP_SCAN: sb_puts(E->out, "each warp's running total, per repetition along the axis\n"); break;
        case OP_LOCAL_LOAD:
        case OP_CONVERT:
            if (op->stage) {
                const DotStage *st = op->stage;
                const char *storage =
                    st->pad ? fmt(E, "padded (%d bytes after every %d row%s)", st->pad * dtype_bits(st->dtype) / 8,
                                  1 << st->pad_rows_log2, st->pad_rows_log2 ? "s" : "")
                    : smem_swizzle_none(st->swz) ? "not swizzled"
                    : fmt(E, "swizzled (vec %d, perPhase %d, maxPhase %d)", st->swz.vec, st->swz.per_phase,
                          st->swz.max_phase);
                sb_printf(E->out, "operand %c of tl.dot, %d x %d %s%s, %s, read %s\n", st->op_idx ? 'B' : 'A', st->rows,
                          st->cols, dtype_name(st->dtype), st->nslots > 1 ? fmt(E, " in %d pipeline slots", st->nslots) : "",
                          storage, st->ldmatrix ? fmt(E, "with ldmatrix%s", st->trans ? ".trans" : "") : "element by element");
                break;
            }
            sb_printf(E->out, "the tile changing layout (L%d -> L%d), %s;\n//       %s\n",
                      op->args[0]->layout->id, op->results[0]->layout->id, smem_storage(E, op, "\n//       "),
                      smem_verdict(E, op));
            break;
        case OP_DOT:
            sb_printf(E->out, "A (%dx%d) and B (%dx%d) row-major for the FMA path of tl.dot\n", op->args[0]->type.shape[0],
                      op->args[0]->type.shape[1], op->args[1]->type.shape[0], op->args[1]->type.shape[1]);
            break;
        default: sb_puts(E->out, "the old value, from the thread that did the atomic to all\n"); break;
        }
    }
}

static void emit_header(Emitter *E, int threads)
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
        if (kp->value) {
            Type t = kp->type;
            sb_printf(E->out, "//   %-16s %s", kp->name,
                      t.dtype == DT_PTR ? fmt(E, "*%s", dtype_name(t.pointee)) : dtype_name(t.dtype));
            if (kp->div > 1)
                sb_printf(E->out, t.dtype == DT_PTR ? " (%lld-byte aligned)" : " (multiple of %lld)", (long long)kp->div);
            sb_putc(E->out, '\n');
        } else {
            sb_printf(E->out, "//   %-16s = %s (%s)\n", kp->name, kp->spec_text ? comment_escape(E->a, kp->spec_text) : "?",
                      kp->is_constexpr ? "constexpr" : "specialised");
        }
    }
    sb_printf(E->out, "//\n// Launch: %d threads per block (%d warps), %d bytes of shared memory%s, grid ", threads,
              f->num_warps, f->smem_bytes, f->smem_bytes > 48 * 1024 ? " (dynamic; the launcher raises the limit)" : "");
    if (E->opt->grid)
        sb_printf(E->out, "(%s)\n", comment_escape(E->a, E->opt->grid));
    else
        sb_puts(E->out, "chosen by the caller\n");
    if (f->min_blocks) {
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
    }
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

static void emit_includes(Emitter *E)
{
    bool half = false, bf16 = false, fp8 = false;
    for (int i = 0; i < E->f->params.len; i++) {
        const KernelParam *kp = &E->f->params.data[i];
        DType d = kp->type.dtype == DT_PTR ? kp->type.pointee : kp->type.dtype;
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
    /* in file-name order: the runtime helpers, then the fp8, flush-to-zero math and
     * tensor-core ones where needed */
    for (int i = 0; i < tilec_template_count; i++) {
        const char *name = tilec_templates[i].name;
        if ((strstr(name, "tensorcore") && !E->f->uses_dot) || (strstr(name, "fp8") && !fp8) ||
            (strstr(name, "_math") && !E->f->uses_flushed_math))
            continue;
        sb_puts(E->out, tilec_templates[i].text);
    }
    sb_putc(E->out, '\n');
}

static const char *param_decl(Emitter *E, const KernelParam *kp)
{
    Type t = kp->type;
    if (t.dtype == DT_PTR)
        return fmt(E, "%s *__restrict__ %s", dtype_memory_ctype(t.pointee), kp->name);
    return fmt(E, "%s %s", dtype_ctype(t.dtype), kp->name);
}

static bool ident_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

/* Does the C text use `name` as an identifier?  Comments and string literals
 * do not count ("// tiles of this warp" declares no need for `warp`: an
 * unused variable is an NVRTC warning). */
static bool uses_ident(const char *text, const char *name)
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

static void emit_kernel(Emitter *E, int threads)
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
    if (f->min_blocks_auto) /* tilec's choice, for the GPUs it was measured on (see the header) */
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
    sb_puts(E->out, ")\n{\n");
    StrBuf pro = {0};
    for (int i = 0; i < E->binds.len; i++) {
        const Binding *b = &E->binds.data[i];
        sb_printf(&pro, "    const %s %s = %s;  // %s\n", b->type, b->name, b->expr, b->comment);
    }
    bool uses_lane = uses_ident(pro.data, "lane"), uses_warp = uses_ident(pro.data, "warp");
    bool uses_tid = uses_ident(body.data, "tid") || uses_lane || uses_warp;
    bool uses_lane_body = uses_ident(body.data, "lane");
    bool uses_warp_body = uses_ident(body.data, "warp");
    if (f->smem_bytes) {
        if (f->smem_bytes > 48 * 1024)
            sb_puts(E->out, "    extern __shared__ __align__(16) unsigned char smem[];  // the arena (dynamic, see the header)\n");
        else
            sb_printf(E->out, "    __shared__ __align__(16) unsigned char smem[%d];  // the arena (see the header)\n", f->smem_bytes);
    }
    if (uses_tid)
        line(E, "const int tid = threadIdx.x;");
    if (uses_lane || uses_lane_body)
        line(E, "const int lane = tid & 31;  // position in the warp");
    if (uses_warp || uses_warp_body)
        line(E, "const int warp = tid >> 5;  // warp in the block");
    if (pro.data)
        sb_puts(E->out, pro.data);
    if (uses_tid || pro.data || f->smem_bytes)
        sb_putc(E->out, '\n');
    if (body.data)
        sb_puts(E->out, body.data);
    sb_free(&body);
    sb_free(&pro);
    sb_puts(E->out, "}\n");
}

static void emit_launcher(Emitter *E, int threads)
{
    const TirFunc *f = E->f;
    sb_puts(E->out, "\n#ifndef __CUDACC_RTC__\n");
    tir_grid_helpers_c(E->out, &E->grid, false);
    sb_printf(E->out, "// Host launcher: %s_launch(stream, %sthe kernel's runtime arguments).\n", f->name,
              E->opt->grid ? "" : "grid_x, grid_y, grid_z, ");
    sb_printf(E->out, "extern \"C\" cudaError_t %s_launch(cudaStream_t stream", f->name);
    if (!E->opt->grid)
        sb_puts(E->out, ", unsigned grid_x, unsigned grid_y, unsigned grid_z");
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, ", %s", param_decl(E, kp));
    }
    sb_puts(E->out, ")\n{\n");
    if (E->opt->grid) {
        const char **names = NEW_ARRAY(E->a, const char *, f->params.len + 1);
        for (int i = 0; i < f->params.len; i++)
            names[i] = f->params.data[i].name;
        sb_printf(E->out, "    // grid = (%s)\n", comment_escape(E->a, E->opt->grid));
        GridLaunchC how = {names, "cudaSuccess", "cudaErrorInvalidValue", false};
        tir_grid_launch_c(E->out, E->a, &E->grid, &how);
        sb_puts(E->out, "    const dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gz);\n");
    } else {
        sb_puts(E->out, "    if (grid_x == 0 || grid_y == 0 || grid_z == 0)\n        return cudaSuccess; // nothing to do\n");
        sb_puts(E->out, "    const dim3 grid(grid_x, grid_y, grid_z);\n");
    }
    int dyn = f->smem_bytes > 48 * 1024 ? f->smem_bytes : 0;
    if (dyn) {
        sb_printf(E->out, "    // %d bytes of shared memory: above the default 48 KB, so raise the limit first\n", dyn);
        sb_printf(E->out, "    const cudaError_t attr = cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d);\n",
                  f->name, dyn);
        sb_puts(E->out, "    if (attr != cudaSuccess)\n        return attr;\n");
    }
    sb_printf(E->out, "    %s<<<grid, %d, %d, stream>>>(", f->name, threads, dyn);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (kp->value)
            sb_printf(E->out, "%s%s", n++ ? ", " : "", kp->name);
    }
    sb_puts(E->out, ");\n    return cudaGetLastError();\n}\n#endif\n");
}

static void scan_uses(TirFunc *f, const Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        f->uses_printf |= op->kind == OP_PRINT || op->kind == OP_ASSERT;
        if (op->kind == OP_MATH)
            f->uses_flushed_math |= strstr(math_c_name((MathFn)op->iattr[0], op->args[0]->type.dtype),
                                           "flushed") != NULL;
        for (int k = 0; k < op->nres; k++) {
            DType d = op->results[k]->type.dtype;
            f->uses_fp16 |= d == DT_FP16;
            f->uses_bf16 |= d == DT_BF16;
            f->uses_fp8 |= dtype_is_fp8(d);
        }
        for (int r = 0; r < op->nregions; r++)
            scan_uses(f, op->regions[r]);
    }
}

void cuda_emit(Ctx *ctx, StrBuf *out, const TirFunc *f, const EmitOptions *opt)
{
    Emitter E = {0};
    E.ctx = ctx;
    E.a = &ctx->arena;
    E.out = out;
    E.f = f;
    E.opt = opt;
    E.vi = NEW_ARRAY(E.a, ValInfo, f->nvalues + 1);
    scan_uses((TirFunc *)f, f->body);
    /* parameter names are the source's and come first */
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        strmap_put(E.a, &E.names, kp->name, 0);
        if (kp->value)
            E.vi[kp->value->id].name = kp->name;
    }
    check_c_name(&E, f->name, "kernel name", true);
    for (int i = 0; i < f->params.len; i++)
        check_c_name(&E, f->params.data[i].name, "parameter name", f->params.data[i].value != NULL);
    record_users(&E, f->body);
    plan_block(&E, f->body);
    plan_regions(&E, f->body);
    int threads = 32 * f->num_warps;
    /* the grid is checked before anything is printed */
    parse_grid(&E);
    emit_header(&E, threads);
    emit_includes(&E);
    emit_kernel(&E, threads);
    emit_launcher(&E, threads);
}

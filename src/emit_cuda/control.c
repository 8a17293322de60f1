/*
 * control.c — statements in order: each op after its source comment, and the
 * for, while and if statements with the assignments of their yielded values.
 */
#include "emit_internal.h"

#include <string.h>

/* "// file.py:LINE  the statement", where op starts a new source statement */
void stmt_comment(Emitter *E, const Op *op)
{
    const SrcStmt *s = op->stmt;
    if (!s || s == E->last_stmt)
        return;
    if (E->last_stmt && E->last_stmt->loc.src == s->loc.src && E->last_stmt->begin == s->begin &&
        E->last_stmt->end == s->end)
        return;
    E->last_stmt = s;
    const Source *src = s->loc.src ? s->loc.src : E->ctx->src; /* a helper may be in another file */
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
    if (E->combine_src && s->helper && strcmp(s->helper, E->combine_src)) /* a helper the combine calls */
        line(E, "// %s:%d  %s    (in %s)", source_file_name(E, s->loc), s->loc.line, stmt, s->helper);
    else if (E->combine_src)
        line(E, "// %s:%d  %s", source_file_name(E, s->loc), s->loc.line, stmt);
    else if (s->helper)
        line(E, "// %s:%d  %s    (in %s, inlined from line %d)", source_file_name(E, s->loc), s->loc.line, stmt, s->helper,
             s->call_line);
    else
        line(E, "// %s:%d  %s", source_file_name(E, s->loc), s->loc.line, stmt);
    if (stmt_contracts(E, op))
        line(E, "// (__hfma: a multiply-add Triton's LLVM contracts, rounded once)");
}

static bool is_block_arg(const Block *b, const Value *v)
{
    for (int i = 0; i < b->args.len; i++)
        if (b->args.data[i] == v)
            return true;
    return false;
}

/* Can the yield's assignments be ordered so that none overwrites a variable a later
 * one reads (the shift of a pipeline's queue: p = p_2; p_2 = p_4)?  Only where every
 * yielded value is a variable of its own, so that its name is all it reads; then
 * they are emitted so, and true is returned. */
static bool emit_yield_ordered(Emitter *E, const Op *y, Value *const *targets)
{
    int n = y->nargs;
    for (int i = 0; i < n; i++)
        if (info(E, y->args[i])->inl)
            return false;
    bool *order = NEW_ARRAY(&E->ctx->arena, bool, (size_t)n + 1); /* placed (or in place) */
    int *seq = NEW_ARRAY(&E->ctx->arena, int, (size_t)n + 1), m = 0, left = 0;
    for (int i = 0; i < n; i++)
        left += !(order[i] = !strcmp(vname(E, targets[i]), vname(E, y->args[i])));
    for (bool moved = true; moved && m < left;) {
        moved = false;
        for (int i = 0; i < n; i++) {
            bool read_later = false;
            for (int j = 0; j < n && !order[i] && !read_later; j++)
                read_later = j != i && !order[j] && !strcmp(vname(E, y->args[j]), vname(E, targets[i]));
            if (order[i] || read_later)
                continue;
            order[i] = moved = true;
            seq[m++] = i;
        }
    }
    if (m < left) /* a cycle (a swap): temporaries */
        return false;
    for (int k = 0; k < m; k++)
        fill(E, vname(E, targets[seq[k]]), targets[seq[k]], value_elem, y->args[seq[k]]);
    return true;
}

/* Assign yielded values to the variables they feed.  The assignments are
 * simultaneous: when one reads another's variable, they go in an order where
 * none is overwritten before it is read, else through temporaries. */
static void emit_yield_into(Emitter *E, const Block *b, const Op *y, Value *const *targets)
{
    bool clash = false;
    for (int i = 0; i < y->nargs; i++)
        if (is_block_arg(b, y->args[i]) && strcmp(vname(E, y->args[i]), vname(E, targets[i])))
            clash = true;
    if (clash && emit_yield_ordered(E, y, targets))
        return;
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

/* A loop variable, declared and given its initial value (one line for a scalar). */
static void init_loop_var(Emitter *E, const Value *var, const Value *init)
{
    if (info(E, var)->shares_init)
        return;
    if (!var->type.rank && strcmp(vname(E, var), vname(E, init))) {
        line(E, "%s = %s;", decl(E, var->type, vname(E, var), 0), value_at(E, init, NULL, "0"));
        return;
    }
    declare_var(E, var);
    assign_from(E, var, init);
}

/* Does an op of b, or of its regions, read v, other than `pass` passing it on as its
 * argument `slot`? */
static bool read_in(const Block *b, const Value *v, const Op *pass, int slot)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        for (int k = 0; k < op->nargs; k++)
            if (op->args[k] == v && !(op == pass && k == slot))
                return true;
        for (int r = 0; r < op->nregions; r++)
            if (read_in(op->regions[r], v, pass, slot))
                return true;
    }
    return false;
}

/* Is loop variable i of a for loop dead: a scalar that its body only passes on unchanged
 * and that nothing reads after the loop (a block pointer's offset along a dimension that
 * tl.advance moves by 0 and no boundary check reads)?  It then gets no variable at all. */
static bool dead_loop_var(Emitter *E, const Op *loop, int i)
{
    const Block *body = loop->regions[0];
    const Value *arg = body->args.data[i + 1];
    const Op *y = tir_block_last(body);
    return !arg->type.rank && y && y->kind == OP_YIELD && i < y->nargs && y->args[i] == arg &&
           !read_in(body, arg, y, i) && !read_in(E->f->body, loop->results[i], NULL, -1);
}

/* Before a pipeline's prologue: what its queues of values computed ahead hold. */
static void queue_comments(Emitter *E, const Op *op)
{
    int D = op->for_.queue_depth;
    for (int q = 0; q < op->for_.queues; q++) {
        const Value *const *r = (const Value *const *)op->results + op->for_.queue_first + q * D;
        StrBuf sb = {0};
        const char *name = r[0]->name ? comment_escape(E->a, r[0]->name) : "a value";
        sb_printf(&sb, "// a queue: %s holds this step's %s", vname(E, r[0]), name);
        for (int j = 1; j < D; j++)
            sb_printf(&sb, ", %s the %s", vname(E, r[j]), j == 1 ? "next step's" : fmt(E, "one %d steps on", j));
        sb_printf(&sb, " (computed %d step%s ahead with the copies; the loop below fills it)", D, D > 1 ? "s" : "");
        line(E, "%s", sb.data);
        sb_free(&sb);
    }
}

/* A for loop's first line (with tl.range's #pragma unroll before it): its counter from
 * the lower bound while below the upper, by the step. */
void emit_for_head(Emitter *E, const Op *op)
{
    const Value *iv = op->regions[0]->args.data[0];
    const char *ivn = vname(E, iv);
    if (op->for_.unroll)
        line(E, "#pragma unroll %d  // tl.range(loop_unroll_factor=%d)", op->for_.unroll, op->for_.unroll);
    line(E, "for (%s %s = %s; %s < %s; %s += %s) {", dtype_ctype(iv->type.dtype), ivn, value_at(E, op->args[0], NULL, "0"),
         ivn, paren(E, value_at(E, op->args[1], NULL, "0")), ivn, paren(E, value_at(E, op->args[2], NULL, "0")));
}

/* A for loop's variables, those with keep[i] (NULL: all), declared and initialised. */
void emit_loop_vars(Emitter *E, const Op *op, const bool *keep)
{
    for (int i = 0; i < op->nres; i++)
        if ((!keep || keep[i]) && !dead_loop_var(E, op, i))
            init_loop_var(E, op->results[i], op->args[3 + i]);
}

/* The end of a for loop's body: its variables with keep[i] (NULL: all) take the values
 * the body yields, as emit_yield_into assigns them. */
void emit_loop_next(Emitter *E, const Op *op, const bool *keep)
{
    const Block *body = op->regions[0];
    const Op *y = tir_block_last(body);
    if (!keep) {
        emit_yield_into(E, body, y, op->results);
        return;
    }
    Op kept = *y;
    Value **targets = NEW_ARRAY(E->a, Value *, (size_t)y->nargs + 1);
    kept.args = NEW_ARRAY(E->a, Value *, (size_t)y->nargs + 1);
    kept.nargs = 0;
    for (int i = 0; i < y->nargs && i < op->nres; i++)
        if (keep[i]) {
            targets[kept.nargs] = op->results[i];
            kept.args[kept.nargs++] = y->args[i];
        }
    emit_yield_into(E, body, &kept, targets);
}

static void emit_for(Emitter *E, const Op *op)
{
    const Block *body = op->regions[0];
    queue_comments(E, op);
    emit_loop_vars(E, op, NULL);
    if (op->for_.wgmma_drain) {
        line(E, "if (%s < %s) {  // the loop runs: it leaves its last wgmma group in flight, waited for below",
             paren(E, value_at(E, op->args[0], NULL, "0")), paren(E, value_at(E, op->args[1], NULL, "0")));
        E->indent++;
    }
    emit_for_head(E, op);
    E->indent++;
    emit_block(E, body);
    emit_loop_next(E, op, NULL);
    E->indent--;
    line(E, "}");
    if (op->for_.wgmma_drain) {
        emit_wgmma_drain(E, op);
        E->indent--;
        line(E, "}");
    }
}

static void emit_while(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        init_loop_var(E, op->results[i], op->args[i]);
    line(E, "while (true) {");
    E->indent++;
    const Block *before = op->regions[0], *after = op->regions[1];
    emit_block(E, before);
    const Op *cond = tir_block_last(before);
    line(E, "if (!%s)", paren(E, value_at(E, cond->args[0], NULL, "0")));
    line(E, "    break;");
    emit_block(E, after);
    const Op *y = tir_block_last(after);
    emit_yield_into(E, after, y, op->results);
    E->indent--;
    line(E, "}");
}

static void emit_if(Emitter *E, const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        declare_var(E, op->results[i]);
    line(E, "if (%s) {", value_at(E, op->args[0], NULL, "0"));
    for (int r = 0; r < 2; r++) {
        const Block *b = op->regions[r];
        if (r == 1) {
            bool empty = b->ops.len == 1 && b->ops.data[0]->kind == OP_YIELD && !op->nres;
            if (empty)
                break;
            line(E, "} else {");
        }
        E->indent++;
        emit_wgmma_branch_wait(E, op, b);
        emit_block(E, b);
        const Op *y = tir_block_last(b);
        if (y->kind == OP_YIELD)
            emit_yield_into(E, b, y, op->results);
        E->indent--;
    }
    line(E, "}");
}

/* The named values whose registers a renaming (reshape, split, join, flip within threads, transpose) reads. */
static const char *renamed_from(Emitter *E, const Value *v)
{
    const Op *d = v->def;
    bool renaming = d && info(E, v)->inl && (op_is_shape(d->kind) || d->kind == OP_TRANS);
    if (!renaming)
        return v->name ? v->name : "an unnamed tile";
    if (d->kind == OP_JOIN)
        return fmt(E, "%s and %s", renamed_from(E, d->args[0]), renamed_from(E, d->args[1]));
    return renamed_from(E, d->args[0]);
}

static void emit_op(Emitter *E, const Op *op)
{
    if (op == E->done_store) { /* printed inside the exchange it reads back (convert.c) */
        E->done_store = NULL;
        return;
    }
    if (!tma_store_owns(E, op))
        emit_op_here(E, op);
}

void emit_op_here(Emitter *E, const Op *op)
{
    E->e_zero_bits = 0; /* a register loop's step holds inside that loop only (loops.c) */
    if (op->note && !E->in_producer) {
        stmt_comment(E, op);
        line(E, "// %s", op->note);
    }
    if (op->nres == 1 && info(E, op->results[0])->inl) {
        const Value *v = op->results[0];
        if (info(E, v)->folded_addr) {
            stmt_comment(E, op);
            line(E, "// (%s: each address is computed where it is used, below)", vname(E, v));
        }
        if (op_is_shape(op->kind) && v->name) { /* a named renaming: say where its elements are */
            stmt_comment(E, op);
            line(E, "// (%s: the registers of %s under new coordinates, read where used; no data moves)", v->name,
                 renamed_from(E, v));
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
    case OP_BARRIER:
        if (op->buf && local_alloc_beside(op->buf)) { /* after the dot that read them in place (dot_reload.c) */
            int at = tir_op_index(op->parent, op); /* stage_beside put it right after the dot */
            const Op *dot = at > 0 ? op->parent->ops.data[at - 1] : NULL;
            if (!dot || dot->kind != OP_DOT)
                BUG("the barrier after a dot's in-place operands does not follow the dot");
            const char *bufs[2];
            int n = 0;
            for (int k = 0; k < 2; k++) {
                const Op *ll = dot->args[k]->def;
                if (ll && ll->kind == OP_LOCAL_LOAD && ll->buf && local_alloc_beside(ll->buf))
                    bufs[n++] = stage_helper(E, ll->buf);
            }
            if (!n)
                BUG("the barrier after a dot frees no buffer of its operands");
            line(E, "%s;  // every warp is done with %s%s%s before %s bytes are written again", block_sync(E), bufs[0],
                 n > 1 ? " and " : "", n > 1 ? bufs[1] : "", n > 1 ? "their" : "its");
        } else if (op->buf) { /* after the loop that read a loop-invariant dot operand (dot_reload.c) */
            line(E, "%s;  // every warp is done with %s before its bytes are written again", block_sync(E),
                 stage_helper(E, op->buf));
        } else {
            line(E, "%s;", block_sync(E));
        }
        break;
    case OP_REDUCE:
        if (op->reduce.kind == RED_COMBINE)
            emit_reduce_combine(E, op);
        else
            emit_reduce(E, op);
        break;
    case OP_CONVERT:
        if (dot_operand_in_registers(op))
            emit_register_fragments(E, op);
        else if (is_dot_stage(op))
            emit_stage_convert(E, op);
        else
            emit_convert(E, op);
        break;
    case OP_DOT: emit_dot(E, op); break;
    case OP_FLIP: emit_convert(E, op); break; /* across threads (else folded: shape.c) */
    case OP_GATHER: emit_gather(E, op); break;
    case OP_LOCAL_LOAD: emit_local_load(E, op); break;
    case OP_LOCAL_ALLOC: emit_local_alloc(E, op); break;
    case OP_ASYNC_COPY: emit_async_copy(E, op); break;
    case OP_ASYNC_COMMIT: line(E, "tilec::cp_async_commit();"); break;
    case OP_ASYNC_WAIT:
        if (op->async_wait.tma && op->nargs) {
            tma_wait(E, op);
            break;
        }
        line(E, "tilec::cp_async_wait<%d>();  // at most %d group%s of copies still in flight",
             op->async_wait.pending, op->async_wait.pending, op->async_wait.pending == 1 ? "" : "s");
        line(E, "%s;", block_sync(E));
        if (op->async_wait.tma)
            E->ws_ring = 0; /* the end of a ring's loop */
        break;
    case OP_SCAN:
        if (op->scan.kind == SCAN_COMBINE)
            emit_scan_combine(E, op);
        else
            emit_scan(E, op);
        break;
    case OP_SORT: emit_sort(E, op); break;
    case OP_INLINE_ASM: emit_inline_asm(E, op); break;
    case OP_MAP: emit_map(E, op); break;
    case OP_HISTOGRAM: emit_histogram(E, op); break;
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

/* A wgmma dot whose wait comes after the ops marked wgmma_shadow that follow
 * it (the copies of the step ahead) gets that wait before the first op not so
 * marked, or at the block's end. */
void emit_block(Emitter *E, const Block *b)
{
    const Op *in_flight = NULL;
    for (int i = 0; i < b->ops.len; i++) {
        const Op *op = b->ops.data[i];
        if (in_flight && !op->wgmma_shadow) {
            emit_wgmma_shadow_wait(E, in_flight);
            in_flight = NULL;
        }
        if (in_flight && tir_op_reads(op, in_flight->results[0]))
            BUG("emit: %s reads a wgmma result before its wait", op_name(op->kind));
        emit_op(E, op);
        if (wgmma_waits_after_copies(op))
            in_flight = op;
    }
    if (in_flight)
        emit_wgmma_shadow_wait(E, in_flight);
}

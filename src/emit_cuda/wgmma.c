/*
 * wgmma.c — tl.dot on Hopper tensor cores (wgmma.mma_async, sm_90a) for the
 * dots marked dot.wgmma (by tir_pipeline: both operands in NVMMA rings; by
 * tir_wgmma: operands in NVMMA buffers read in place, or A in registers),
 * and the ring's waits around them.  The same file still compiles for sm_80 and
 * plain sm_90: the wgmma code sits under __CUDA_ARCH_FEAT_SM90_ALL (defined
 * by the sm_90a target only), the mma.sync code of the same dot in the #else.
 * Both read the same shared memory (ldmatrix reads the NVMMA layout as well)
 * and write the same accumulator registers (tileir/wgmma.c: the wgmma
 * accumulator map is mma.sync's with warpsPerCTA [num_warps, 1]).
 */
#include "emit_internal.h"

#include <string.h>

#define FEAT_SM90A "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // sm_90a: wgmma"

/* The wgmma of one shape and type, written into the helpers once: d (N/2
 * accumulators per thread, fp32 or s32) += A (64xK: K-major in shared memory,
 * descriptor a, or with a_regs this thread's 4 fragment registers, as
 * mma.sync's m16n8k16 A of its warp's 16 rows) @ B (KxN, descriptor b:
 * K-major, or N contiguous for 16-bit types, tnspB).  The operands after the
 * descriptors differ by type (PTX ISA): scale-d, imm-scale-a/b and
 * imm-trans-a/b for f16 and bf16 (no imm-trans-a with A in registers); no
 * transposes for tf32 and fp8; scale-d alone for s8. */
static const char *wgmma_helper(Emitter *E, int n, DType ta, DType tb, bool b_mn_major, bool a_regs)
{
    const char *na = wgmma_type_name(ta), *nb = wgmma_type_name(tb);
    bool is_int = ta == DT_I8, is_16 = dtype_bits(ta) == 16;
    int k = wgmma_instr_k(ta);
    const char *acc = is_int ? "s32" : "f32";
    const char *fn = ta == tb ? fmt(E, "wgmma_m64n%dk%d_%s_%s%s%s", n, k, acc, na, is_16 && !b_mn_major ? "_kb" : "",
                                    a_regs ? "_ra" : "")
                              : fmt(E, "wgmma_m64n%dk%d_%s_%s_%s", n, k, acc, na, nb);
    if (helper_known(E, fn))
        return fn;
    StrBuf *h = &E->helpers;
    int nd = n / 2, na_regs = a_regs ? 4 : 1; /* operands: d, then A's registers or descriptor, b, scale-d */
    sb_printf(h, "// wgmma.m64n%dk%d (sm_90a), %s x %s inputs, %s accumulators: the warpgroup's d (64x%d, %d registers per\n"
                 "// thread: register 4*i + {0,1} holds row l/4 of the thread's warp's 16 rows, columns 8*i + 2*(l%%4) + {0,1};\n"
                 "// 4*i + {2,3} the same columns of row l/4 + 8) += A (64x%d, %s) @ B (%dx%d, %s).\n",
              n, k, na, nb, acc, n, nd, k,
              a_regs ? "in registers: each warp's 16 rows as mma.sync's m16n8k16 A fragment" : "K-major", k, n,
              b_mn_major ? "N contiguous: tnspB = 1" : "K-major");
    sb_printf(h, "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n");
    sb_printf(h, "static __device__ __forceinline__ void %s(%s *d, %sa, uint64_t b, int scale_d)\n{\n", fn,
              is_int ? "int32_t" : "float", a_regs ? "const uint32_t *" : "uint64_t ");
    sb_printf(h, "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n\"\n", nd + na_regs + 1);
    sb_printf(h, "                 \"wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s {\"\n", n, k, acc, na, nb);
    for (int i = 0; i < nd; i += 8) {
        sb_puts(h, "                 \"");
        for (int j = i; j < i + 8 && j < nd; j++)
            sb_printf(h, "%%%d%s", j, j + 1 < nd ? ", " : "");
        sb_puts(h, "\"\n");
    }
    /* scale-d = p (1: d is added to, 0: d is overwritten); inputs not negated; A K-major */
    const char *rest = is_int ? "p" : !is_16 ? "p, 1, 1" : a_regs ? (b_mn_major ? "p, 1, 1, 1" : "p, 1, 1, 0")
                                            : b_mn_major ? "p, 1, 1, 0, 1" : "p, 1, 1, 0, 0";
    if (a_regs)
        sb_printf(h, "                 \"}, {%%%d, %%%d, %%%d, %%%d}, %%%d, %s;\\n}\\n\"\n", nd, nd + 1, nd + 2, nd + 3,
                  nd + 4, rest);
    else
        sb_printf(h, "                 \"}, %%%d, %%%d, %s;\\n}\\n\"\n", nd, nd + 1, rest);
    for (int i = 0; i < nd; i += 8) {
        sb_printf(h, "                 %s", i ? ", " : ": ");
        for (int j = i; j < i + 8 && j < nd; j++)
            sb_printf(h, "\"%s\"(d[%d])%s", is_int ? "+r" : "+f", j, j + 1 < i + 8 && j + 1 < nd ? ", " : "");
        sb_puts(h, "\n");
    }
    if (a_regs)
        sb_puts(h, "                 : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"l\"(b), \"r\"(scale_d));\n}\n#endif\n\n");
    else
        sb_puts(h, "                 : \"l\"(a), \"l\"(b), \"r\"(scale_d));\n}\n#endif\n\n");
    return fn;
}

/* The end of a loop that leaves its last wgmma group in flight
 * (for_.wgmma_drain), inside the guard that skips a loop of no trip: ptxas
 * keeps the groups of the loop in flight together only where no path that
 * joins theirs reaches the accumulators before this wait (C7514). */
void emit_wgmma_drain(Emitter *E, const Op *loop)
{
    line(E, FEAT_SM90A);
    line(E, "tilec::wgmma_wait<0>();  // the last wgmma group has written the accumulators");
    ws_drain(E);
    /* the loop's results that the groups left in flight write: pinned after the wait */
    const Block *body = loop->regions[0];
    const Op *y = tir_block_last(body);
    for (int i = 0; i < body->ops.len; i++) {
        const Op *d = body->ops.data[i];
        if (d->kind != OP_DOT || !d->dot.wgmma || !(d->dot.wgmma_next || d->dot.wgmma_pending))
            continue;
        for (int k = 0; k < y->nargs && k < loop->nres; k++)
            if (y->args[k] == d->results[0])
                line(E, "tilec::wgmma_fence_operands<%d>(%s);  // no read of them moves above that wait",
                     nregs(loop->results[k]), vname(E, loop->results[k]));
    }
    line(E, "#endif");
}

/* Does wgmma dot op wait for its group only after the ops marked
 * wgmma_shadow that follow it (tir_pipeline's copies of the step ahead)? */
bool wgmma_waits_after_copies(const Op *op)
{
    return op->kind == OP_DOT && op->dot.wgmma && op->dot.wgmma_shadowed && !op->dot.wgmma_pending &&
           !op->dot.wgmma_next;
}

/* The wait of wgmma dot d (dot.wgmma_shadowed), after the ops that ran
 * while its group was in flight (Op.wgmma_shadow). */
void emit_wgmma_shadow_wait(Emitter *E, const Op *d)
{
    line(E, FEAT_SM90A);
    line(E, "tilec::wgmma_wait<0>();  // %s: done reading its slot, the accumulators written", vname(E, d->results[0]));
    ws_after_wait(E, 0);
    line(E, "tilec::wgmma_fence_operands<%d>(%s);  // no use of the accumulators moves above that wait",
         nregs(d->results[0]), vname(E, d->results[0]));
    line(E, "#endif");
}

/* The start of a branch of if_op that reads the accumulators of a wgmma dot
 * before it in its block whose group stays in flight (dot.wgmma_pending: a
 * persistent loop's store of a finished tile): it waits for every group
 * there, on its own path, as Triton's pipelineWgmma does.  The branch's
 * condition is a scalar, the same in every thread, as wgmma.wait_group's
 * .aligned asks. */
void emit_wgmma_branch_wait(Emitter *E, const Op *if_op, const Block *region)
{
    const Block *b = if_op->parent;
    bool waited = false;
    if (!E->f->uses_wgmma) /* no group to wait for; and the scan below is long in unrolled code */
        return;
    for (int i = 0; b && i < b->ops.len && b->ops.data[i] != if_op; i++) {
        const Op *d = b->ops.data[i];
        if (d->kind != OP_DOT || !d->dot.wgmma || !d->dot.wgmma_pending)
            continue;
        bool reads = false;
        for (int k = 0; k < region->ops.len && !reads; k++)
            reads = tir_op_reads(region->ops.data[k], d->results[0]);
        if (!reads)
            continue;
        if (!waited) {
            line(E, FEAT_SM90A);
            line(E, "tilec::wgmma_wait<0>();  // this branch reads %s: its wgmma groups first", vname(E, d->results[0]));
            waited = true;
        }
        line(E, "tilec::wgmma_fence_operands<%d>(%s);  // no read of them moves above that wait", nregs(d->results[0]),
             vname(E, d->results[0]));
    }
    if (waited)
        line(E, "#endif");
}

/* Bytes from the start of NVMMA buffer s's K step 0 to K step k_step's (a C
 * expression): a step is 32 bytes of K (wgmma_instr_k), along the rows of s
 * (B with N contiguous: ki rows of s->nvmma bytes) or along its columns,
 * column block after column block (each rows x nvmma bytes).  Every start
 * stays on a row whose swizzle phase is 0, so these are the helper's own
 * offsets, constants once the K loop is unrolled. */
static const char *k_step_bytes(Emitter *E, const DotStage *s, bool k_along_rows, int ki, int nk)
{
    int w = s->nvmma, per_block = w / 32;
    if (k_along_rows)
        return fmt(E, "%d * k_step", ki * w);
    if (nk <= per_block)
        return "32 * k_step";
    return fmt(E, "(k_step / %d) * %d + (k_step %% %d) * 32", per_block, s->rows * w, per_block);
}

void emit_dot_wgmma(Emitter *E, const Op *op, void (*fallback)(Emitter *, const Op *))
{
    const Value *a = op->args[0], *b = op->args[1], *r = op->results[0];
    const Op *lla = a->def, *llb = b->def;
    bool a_regs = lla->kind != OP_LOCAL_LOAD; /* p @ v: A's fragments already in this thread's registers */
    const DotStage *sa = a_regs ? NULL : lla->stage, *sb = llb->stage;
    int M = r->type.shape[0], N = r->type.shape[1], K = a->type.shape[1];
    int ki = wgmma_instr_k(a->type.dtype);
    int nw = E->f->num_warps, nm = M / (16 * nw), nk = K / ki;
    bool b_mn_major = sb->contig_dim == 1; /* N contiguous (16-bit only); else K-major, stored [N, K] */
    const char *fn = wgmma_helper(E, N, a->type.dtype, b->type.dtype, b_mn_major, a_regs);
    const char *fa = a_regs ? NULL : stage_helper(E, lla), *fb = stage_helper(E, llb);
    const char *slot_a = a_regs ? NULL : stage_slot_arg(E, lla), *slot_b = stage_slot_arg(E, llb);
    WgmmaDesc da = a_regs ? (WgmmaDesc){0} : dot_wgmma_desc(sa), db = dot_wgmma_desc(sb);
    /* both paths accumulate into the result's registers; a zero accumulator is
     * not written first on wgmma: its first K step overwrites (scale-d 0) */
    bool zero_acc = tir_is_zero_splat(op->args[2]) && !info(E, r)->declared;
    if (zero_acc)
        declare_var(E, r);
    else
        dot_init_result(E, op);
    const char *scale_d = zero_acc ? "k_step > 0"
                          : op->dot.use_flag ? fmt(E, "k_step > 0 || %s", value_at(E, op->args[3], NULL, "0")) : "1";
    line(E, FEAT_SM90A);
    line(E, "{  // %dx%d += %dx%d @ %dx%d on Hopper tensor cores: warpgroup g (warps 4g..4g+3) issues %d wgmma.m64n%dk%d "
            "per K step of %d (rows 64*g + %d*mi), %d K step%s", M, N, M, K, K, N, nm, N, ki, ki, 16 * nw, nk,
         nk > 1 ? "s" : "");
    E->indent++;
    /* The descriptors of A are made from the warpgroup: ptxas keeps them in uniform registers
     * only when it can tell that every lane has the same one (of warp >> 2 it cannot: it
     * computed them per thread and moved them with 8 R2UR a K step).  So a matmul's warpgroup
     * is a constant on one warpgroup and a shuffle from lane 0 on more: a 128x128x32 matmul on
     * one warpgroup went from 0.95x to 1.00-1.01x Triton.  A chain of dots (attention) keeps
     * warp >> 2: uniform descriptors made FlashAttention-2 2-3% slower, on one warpgroup and
     * on two. */
    if (!a_regs && E->f->num_warps == 4 && !E->f->dot_chain)
        line(E, "const int warpgroup = 0;  // one warpgroup: the descriptors below are the same in every lane");
    else if (!a_regs && !E->f->dot_chain)
        line(E, "const int warpgroup = __shfl_sync(0xffffffffu, warp >> 2, 0);  // the same in every lane, as "
                "ptxas can then tell: the descriptors below stay in uniform registers");
    else if (!a_regs)
        line(E, "const int warpgroup = warp >> 2;");
    int nacc = nregs(r);
    line(E, "tilec::wgmma_fence_operands<%d>(%s);  // the accumulators stay put while wgmma owns them", nacc, vname(E, r));
    line(E, "tilec::wgmma_fence();  // the %s earlier writes before wgmma reads them",
         a_regs ? "accumulators' and A's" : "accumulators'");
    line(E, "// the descriptor%s of K step 0%s; %s moves %s by its bytes", a_regs ? "" : "s",
         a_regs ? "" : " (A: from row 64*warpgroup)", a_regs ? "a K step" : "a K step or an M tile",
         a_regs ? "it" : "them");
    if (!a_regs)
        line(E, "const uint64_t a_desc0 = tilec::wgmma_desc<%d, %d, %d>(%s(smem, %s64 * warpgroup, 0));", da.lbo, da.sbo,
             da.mode, fa, slot_a);
    line(E, "const uint64_t b_desc0 = tilec::wgmma_desc<%d, %d, %d>(%s(smem, %s0, 0));", db.lbo, db.sbo, db.mode, fb,
         slot_b);
    line(E, "#pragma unroll");
    line(E, "for (int k_step = 0; k_step < %d; ++k_step) {", nk);
    E->indent++;
    if (b_mn_major)
        line(E, "// B: rows %d*k_step.. of %s, %d-byte column blocks %d bytes apart, 8-row groups %d bytes apart", ki, fb,
             sb->nvmma, db.lbo, db.sbo);
    else
        line(E, "// B (stored [N, K], K-major): all %d rows of %s, columns %d*k_step.., 8-row groups %d bytes apart", N, fb,
             ki, db.sbo);
    line(E, "const uint64_t b_desc = tilec::wgmma_desc_at(b_desc0, %s);", k_step_bytes(E, sb, b_mn_major, ki, nk));
    line(E, "#pragma unroll");
    line(E, "for (int mi = 0; mi < %d; ++mi) {", nm);
    E->indent++;
    if (a_regs) {
        line(E, "// A: this warp's fragment of rows %d*mi.. (the same registers mma.sync reads), K step k_step", 16 * nw);
        line(E, "%s(&%s[%d * mi], &%s[4 * (k_step + %d * mi)], b_desc, %s);", fn, vname(E, r), N / 2, vname(E, a), nk,
             scale_d);
    } else {
        line(E, "// A: 64 rows of %s from row 64*warpgroup + %d*mi, columns %d*k_step.., 8-row groups %d bytes apart",
             fa, 16 * nw, ki, da.sbo);
        const char *ka = k_step_bytes(E, sa, false, ki, nk);
        line(E, "const uint64_t a_desc = tilec::wgmma_desc_at(a_desc0, %s);",
             nm > 1 ? fmt(E, "%d * mi + %s", 16 * nw * sa->nvmma, paren(E, ka)) : ka);
        line(E, "%s(&%s[%d * mi], a_desc, b_desc, %s);", fn, vname(E, r), N / 2, scale_d);
    }
    E->indent--;
    line(E, "}");
    E->indent--;
    line(E, "}");
    line(E, "tilec::wgmma_commit();  // this dot's wgmmas: one group");
    bool shadowed = wgmma_waits_after_copies(op);
    if (shadowed) {
        line(E, "// left in flight while the threads issue the copies below; the wait after them waits for it");
        E->indent--;
        line(E, "}");
        line(E, "#else  // mma.sync on the same shared memory and accumulators");
    } else if (op->dot.wgmma_next)
        line(E, "// left in flight: the next iteration's first wgmma wait, or the wait after the loop, waits for it");
    else if (op->dot.wgmma_pending) {
        line(E, "tilec::wgmma_wait<%d>();  // the previous step's group has finished reading its slot",
             op->dot.wgmma_pending);
        ws_after_wait(E, op->dot.wgmma_pending);
    } else {
        line(E, "tilec::wgmma_wait<0>();  // done reading this slot, the accumulators written");
        ws_after_wait(E, 0);
    }
    if (!shadowed) {
        line(E, "tilec::wgmma_fence_operands<%d>(%s);  // %s", nacc, vname(E, r),
             op->dot.wgmma_next ? "nothing touches them until then" : "no use of the accumulators moves above that wait");
        E->indent--;
        line(E, "}");
        line(E, "#else  // mma.sync on the same shared memory and accumulators");
    }
    if (zero_acc)
        fill(E, vname(E, r), r, value_elem, op->args[2]);
    if (!a_regs)
        emit_fragment_decl(E, lla);
    emit_fragment_decl(E, llb);
    fallback(E, op);
    line(E, "#endif");
}

/*
 * emit_internal.h — what the files of the CUDA emitter share (emit.h has the
 * contract; emit.c is the entry point, and each other file holds one concern,
 * named in its first comment).
 *
 * One Emitter lives for one cuda_emit call.  Everything it prints is C text
 * allocated in the translation's arena (fmt); `line` prints one indented line
 * of the kernel.  A register index travels as C text: a loop counter, a
 * constant, or bits of counters moved into place (coords.c).  value_at turns
 * a value and a register index into the C expression of that element, with
 * folded operands nested inside (expr.c).  Functions used by one file stay
 * static there; those below are used by several.
 */
#ifndef TILEC_EMIT_INTERNAL_H
#define TILEC_EMIT_INTERNAL_H

#include "emit.h"
#include "../tileir/tir.h"

typedef struct ValInfo {
    const char *name;   /* C name; NULL while unnamed */
    Op *user;           /* the single user when nuses == 1 */
    bool inl;           /* printed inside its user's expression */
    bool declared;      /* a variable declared before its defining op (if/for results) */
    bool shares_init;   /* a loop result whose variable is its initial value's (plan_regions) */
    bool folded_addr;   /* a named pointer tile computed inside its load or store */
    int depth;          /* inl: how deeply its expression nests inlined ones (plan_block) */
    int vec_store;      /* > 1: a pointer tile read only at the first element of each run of
                           vec_store registers (vectorised accesses): it keeps those, element e
                           at index e / vec_store (plan_vector_pointers) */
    int rank;           /* LLVM Reassociate's operand rank (plan_contractions) */
    int fma_operand;    /* fp16/bf16 add, sub: 1 or 2, the operand whose multiply fuses (contract.c) */
    bool mul_rn;        /* fp16/bf16 mul read unfused by an add, sub or neg: __hmul_rn */
} ValInfo;

/* Named per-thread quantities bound once at the top of the kernel: each
 * layout's first coordinate along each dimension, and owner predicates of
 * replicated layouts. */
typedef struct Binding {
    const char *name, *type, *expr, *comment;
} Binding;

/* A descriptor store that goes out by TMA, and the ops before it that only its
 * pointer store (the fallback for other targets) reads, in program order. */
typedef struct TmaPath {
    const Op *store;
    Op **ops;
    int nops;
} TmaPath;

typedef struct Emitter {
    Ctx *ctx;
    Arena *a;
    StrBuf *out;
    const TirFunc *f;
    const EmitOptions *opt;
    int indent;
    int e_zero_bits; /* inside a loop over registers stepping e by 2^k: k (its low bits are 0) */
    ValInfo *vi;
    StrMap names;          /* C names taken so far */
    StrMap next_suffix;    /* base name -> the next _N to try for it */
    StrMap contract_stmts; /* "block stmt" (their addresses) of statements with an __hfma (contract.c) */
    Vec(struct RegIx) ixs; /* register indices printed so far, as bit runs ... */
    StrMap ix_of_text;     /* ... by their text */
    const SrcStmt *last_stmt;
    const GridProg *grid;  /* the launch grid (--grid), compiled by the driver */
    Vec(struct Binding) binds; /* per-thread names bound at the kernel's top */
    StrBuf helpers;        /* device helpers printed before the kernel */
    Vec(const char *) helper_names;
    int nbuf;              /* shared buffers named so far */
    Vec(const Op *) stage_ops; /* staging buffers named so far ... */
    Vec(struct TmaPath) tma_paths; /* each TMA store's pointer-path ops (tma.c), found once */
    bool tma_paths_found;
    Vec(const char *) stage_fns; /* ... and their helpers */
    Vec(const char *) exchange_fns; /* the index helpers of exchange buffers, in order (convert.c) */
    Vec(const char *) combine_keys; /* combine helpers printed so far, by their text ... */
    Vec(const char *) combine_fns;  /* ... and their names (combine.c) */
    const char *combine_src;  /* the jit function whose combine helper is being printed, or NULL */
    const char **tma_map_names;  /* f->tma_maps' parameters, f->tma_rings' barriers and phase words */
    const char **ring_bar_names, **ring_phase_names, **ring_free_names, **ring_free_phase_names;
    const char **ring_held_names; /* a producer ring's slot still read by a wgmma group in flight */
    bool *ring_held_used;         /* ... read by the body (a group stays in flight across steps) */
    int ws_ring;               /* the producer ring (index + 1) whose loop is being printed, 0: none */
    const char *ws_read_slot;  /* ... and the slot its step reads */
    bool in_producer;          /* printing the producer warpgroup (warpspec.c): the ops' notes,
                                  which tell of the consumers' loop, are left out */
    /* a layout change whose only reader is the store after it: the store reads each run
     * back from the exchange buffer just before storing it (convert.c), and is then done */
    struct {
        const Op *cvt, *store; /* NULL when no store is reading an exchange */
        const char *fn;        /* the buffer's index helper */
    } fused;
    const Op *done_store;      /* that store, printed already: emit_op skips it */
    struct Emitter *variants; /* --variant: the variants' emitters, for the launcher (opt->nvariants) */
} Emitter;

static inline ValInfo *info(Emitter *E, const Value *v) { return &E->vi[v->id]; }

void fused_store_read(Emitter *E, const Op *st, const char *i, int vec); /* convert.c */

static inline int nregs(const Value *v) { return value_regs(v); }

/* Element `idx` of some source: a value, an op's expression, or an array. */
typedef const char *(*ElemExpr)(Emitter *E, const void *src, const Value *ctx, const char *idx);

/* emit.c: output primitives */
void line(Emitter *E, const char *fmt, ...) PRINTF_LIKE(2, 3);
char *fmt(Emitter *E, const char *f, ...) PRINTF_LIKE(2, 3);

/* names.c: C names, declarations, literals */
/* A table of names of its own, for a region printed as a __device__ helper (a combine
 * function, tl.map_elementwise's function): names_enter saves the kernel's table in
 * *saved and starts an empty one; names_leave puts the kernel's back. */
typedef struct NameScope {
    StrMap names, suffix;
} NameScope;
void names_enter(Emitter *E, NameScope *saved);
void names_leave(Emitter *E, const NameScope *saved);
const char *unique_name(Emitter *E, const char *base);
const char *vname(Emitter *E, const Value *v);
const char *ctype(Emitter *E, Type t);
const char *const_decl(Emitter *E, Type t, const char *name);
const char *decl(Emitter *E, Type t, const char *name, int n);
const char *float_literal(Emitter *E, double x, DType d);
const char *int_literal(Emitter *E, int64_t v, DType d);
const char *zero_of(Emitter *E, DType d);
const char *source_file_name(Emitter *E, Loc loc);
const char *shape_note(Emitter *E, const Value *v);
void check_kernel_name(Emitter *E, const char *nm);

/* coords.c: register indices (bit moves on C text) and element coordinates */
const char *move_bits(Emitter *E, const char *src, const int *from, const int *to, int n, int src_bits);
extern const int identity_bits[LMAP_MAX_REG_BITS];
const char *deposit(Emitter *E, const int *pos, int n, const char *src);
const char *compress(Emitter *E, const int *pos, int n, const char *src, int src_bits);
const char *or_bits(Emitter *E, const char *a, const char *b);
const char *elem_coord(Emitter *E, const Value *v, const LayoutMap *m, int d, const char *idx);
const char *owner_pred(Emitter *E, const Value *v, const LayoutMap *m);
const char *reg_index(Emitter *E, const Value *v, const Value *ctx, const char *idx);

/* plan.c: the plan made before printing */
void record_users(Emitter *E, Block *b);
void plan_block(Emitter *E, Block *b);
void plan_regions(Emitter *E, Block *b);
void plan_contractions(Emitter *E, Block *body);
const char *fma_contracted_expr(Emitter *E, const Op *op, const char *idx);
bool stmt_contracts(Emitter *E, const Op *op);
void plan_vector_pointers(Emitter *E, Block *body);

/* expr.c: element expressions */
const char *small_int_wrap(Emitter *E, DType d, const char *s);
const char *math_c_name(MathFn m, DType d);
const char *paren(Emitter *E, const char *s);
const char *op_expr(Emitter *E, const Op *op, const char *idx);
const char *decided_expr(Emitter *E, const char *idx, const CmpDecided *dec, const char *test);
const char *value_at(Emitter *E, const Value *v, const Value *ctx, const char *idx);
const char *stored_index(Emitter *E, const Value *v, const char *idx); /* idx, or idx / vec_store */

/* loops.c: loops over a thread's elements; element-wise statements */
const char *elem_loop_open(Emitter *E, int n, int step);
void elem_loop_close(Emitter *E, int n, int step);
const char *elem_open(Emitter *E, int n, bool multi);
const char *elem_open_step(Emitter *E, int n, int step, bool multi);
void elem_close(Emitter *E, int n, bool multi);
/* ElemExprs: a Value (value_at), a char * array or scalar name */
const char *value_elem(Emitter *E, const void *v, const Value *ctx, const char *idx);
const char *array_elem(Emitter *E, const void *name, const Value *ctx, const char *idx);
const char *scalar_elem(Emitter *E, const void *name, const Value *ctx, const char *idx);
void fill(Emitter *E, const char *dst, const Value *like, ElemExpr src, const void *arg);
void declare_var(Emitter *E, const Value *v);
void emit_assign(Emitter *E, const Op *op);

/* memory.c: tl.load, tl.store */
/* the loop over the vectors of an access guarded at run time, and the C address of the
 * current vector's mask bits (`bool *`); guarded_close closes it */
const char *guarded_open(Emitter *E, const Value *mask, const Value *ctx, int n, int vec, const char **idx);
void guarded_close(Emitter *E, const Value *mask, const Value *ctx, int n, int vec);
const char *guarded_note(Emitter *E, const char *what, int vec, DType d);
void emit_load(Emitter *E, const Op *op);
void emit_store(Emitter *E, const Op *op);

/* convert.c: layout conversions through shared memory */
void trailing_sync(Emitter *E, const Op *op); /* the barrier after an exchange's reads */
const char *smem_storage(Emitter *E, const Op *op, const char *sep);
const char *smem_verdict(Emitter *E, const Op *op);
void emit_convert(Emitter *E, const Op *op);

/* shape.c: reshape, join, split, flip: element idx of the result, read from the operands' registers */
const char *shape_expr(Emitter *E, const Op *op, const char *idx);
void emit_gather(Emitter *E, const Op *op);   /* tl.gather through shared memory */

/* reduce.c: reductions and scans */
const char *combine_expr(Emitter *E, ReduceKind k, DType d, const char *a, const char *b); /* a (+ max min ^) b */
void emit_reduce(Emitter *E, const Op *op);
void emit_scan(Emitter *E, const Op *op);

/* combine.c: tl.reduce and tl.associative_scan with a jit combine function */
void emit_reduce_combine(Emitter *E, const Op *op);
void emit_scan_combine(Emitter *E, const Op *op);

/* sort.c: tl.sort, tl.bitonic_merge */
void emit_sort(Emitter *E, const Op *op);

/* asm.c: tl.inline_asm_elementwise */
void emit_inline_asm(Emitter *E, const Op *op);
void emit_map(Emitter *E, const Op *op);            /* tl.map_elementwise (combine.c) */

/* histogram.c: tl.histogram */
void emit_histogram(Emitter *E, const Op *op);

/* stage.c: tl.dot operands (staging, ldmatrix, cp.async) */
int frag_words(const Value *v);
const char *stage_helper(Emitter *E, const Op *op);
void ld_setup(Emitter *E, const Op *op, const char *name);
void ld_group(Emitter *E, const Op *op, const char *fn, const char *slot, const char *name, const char *q);
void elem_read(Emitter *E, const Op *op, const char *fn, const char *slot, const char *e);
void emit_stage_convert(Emitter *E, const Op *op);
void emit_register_fragments(Emitter *E, const Op *op);
void emit_local_load(Emitter *E, const Op *op);
void emit_local_alloc(Emitter *E, const Op *op);  /* a loop-invariant operand, staged before its loop */
const char *local_alloc_written(Emitter *E, const Op *alloc); /* "written once before its loop", for comments */
const char *stage_slot_arg(Emitter *E, const Op *ll); /* "slot, " of a ring's local_load, else "" */
void emit_async_copy(Emitter *E, const Op *op);

/* dot.c: tl.dot */
bool fused_read(Emitter *E, const Value *v); /* a staged operand read in its dot's K loop */
void emit_dot(Emitter *E, const Op *op);
void dot_init_result(Emitter *E, const Op *op); /* the result declared, the accumulator copied in where it is another variable */
/* wgmma.c: a dot marked dot.wgmma, with `fallback` (mma.sync) in the #else */
void emit_dot_wgmma(Emitter *E, const Op *op, void (*fallback)(Emitter *, const Op *));
void emit_wgmma_drain(Emitter *E, const Op *loop); /* the wgmma_wait<0> closing a for_.wgmma_drain loop */
void emit_wgmma_branch_wait(Emitter *E, const Op *if_op, const Block *region); /* ... opening a branch that reads one */
bool wgmma_waits_after_copies(const Op *op);          /* a wgmma dot whose wait follows the copies after it */
void emit_wgmma_shadow_wait(Emitter *E, const Op *d);  /* ... that wait, after the last of them */
void emit_fragment_decl(Emitter *E, const Op *op); /* stage.c: a pipelined operand's fragment array */
void stage_store_tile(Emitter *E, const DotStage *s, const char *fn, const Value *x); /* stage.c */
const char *paired_rounding(Emitter *E, const Value *x, const char **pair_type); /* convert.c */
void emit_paired_store(Emitter *E, const char *addr, const Value *x, const char *e, const char *pair,
                       const char *pair_type); /* convert.c */
void emit_pointer_store(Emitter *E, const Op *op); /* memory.c: tl.store through its pointers */
void stmt_comment(Emitter *E, const Op *op);       /* control.c */
void emit_for_head(Emitter *E, const Op *op);      /* control.c: `for (...) {` */
void emit_loop_vars(Emitter *E, const Op *op, const bool *keep); /* control.c: a loop's variables */
void emit_loop_next(Emitter *E, const Op *op, const bool *keep); /* control.c: their next values */
bool uses_ident(const char *text, const char *name); /* kernel.c: as an identifier, outside comments and strings */
const char *lane_run_open(Emitter *E, const int *lanes, int *i); /* reduce.c: a butterfly's run of lane bits */
const char *linear_index(Emitter *E, const Value *v, const LayoutMap *m, const char *idx); /* reduce.c: row-major */
void partial_writers_open(Emitter *E, const AxisBits *ab); /* reduce.c: the lanes that write warp partials */
void emit_tma_store(Emitter *E, const Op *op);     /* tma.c: a descriptor store by TMA, the pointer store its fallback */
bool tma_store_owns(Emitter *E, const Op *op);      /* tma.c: op is printed in a TMA store's pointer path */
void emit_op_here(Emitter *E, const Op *op);        /* control.c: op, wherever it belongs */

/* atomics.c */
void emit_atomic(Emitter *E, const Op *op);

/* debug.c: tl.device_print, tl.device_assert */
void emit_print(Emitter *E, const Op *op);
void emit_assert(Emitter *E, const Op *op);

/* control.c: statements in order, control flow */
void emit_block(Emitter *E, const Block *b);

/* kernel.c: the header comment, includes, device helpers, the kernel's signature */
bool helper_known(Emitter *E, const char *name); /* printed already into E->helpers? */
void emit_header(Emitter *E, int threads);
void emit_includes(Emitter *E);
const char *param_decl(Emitter *E, const KernelParam *kp);
void emit_kernel(Emitter *E, int threads);
void emit_variant_comment(Emitter *E, int i); /* the comment above variant i's kernel */
int variant_order(const EmitOptions *opt, int k); /* the k-th variant NAME_launch tests */

/* tma.c: the TMA path of pipelined rings (sm_90a) */
void tma_names(Emitter *E);
void tma_params(Emitter *E, StrBuf *out, int *n);
void tma_describe(Emitter *E);
void tma_setup(Emitter *E, StrBuf *out);
void tma_copy(Emitter *E, const Op *op);
void tma_wait(Emitter *E, const Op *op);
void tma_encode(Emitter *E);
void tma_produce(Emitter *E, const Op *op, bool first); /* the producer's copy of a slot's block */
/* warpspec.c: warp specialisation (f->producer_warps) */
const char *block_sync(Emitter *E);       /* a barrier of the threads that run the body */
void ws_split(Emitter *E, StrBuf *out);   /* the producer warpgroup, and where the roles part */
void ws_after_wait(Emitter *E, int pending); /* after a wgmma wait in a producer ring's loop */
void ws_drain(Emitter *E);                /* after the wait that ends such a loop */
int ws_consumer_regs(const TirFunc *f, int *base); /* setmaxnreg's registers for the consumers */

/* launcher.c: the host launcher */
void emit_launcher(Emitter *E, int threads);

#endif

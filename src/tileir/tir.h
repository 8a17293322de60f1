/*
 * tir.h — the tile IR: typed SSA values, ops with structured control flow.
 *
 * Contract: tir_lower() turns the AST of one kernel, specialised by a
 * signature and constexpr values, into a TirFunc whose every value has a
 * concrete type (scalar or power-of-two-shaped tensor).  Constexprs are
 * folded away; helper jit functions are inlined; dead constexpr branches are
 * gone.  Control flow stays structured (for / if / while regions whose
 * blocks end in a yield) so the emitter prints real loops.  Later passes
 * annotate values in place: axisinfo (tir_axisinfo) and layouts
 * (tir_layouts).  No pass prints CUDA; no pass frees memory (arena).
 */
#ifndef TILEC_TIR_H
#define TILEC_TIR_H

#include "../common.h"
#include "../parser/ast.h"

#define TIR_MAX_RANK 4
#define TIR_MAX_NUMEL (1 << 20)   /* Triton's TRITON_MAX_TENSOR_NUMEL */
#define TIR_MAX_VALUES 250000     /* IR values of one kernel: real kernels have thousands */
#define TIR_MAX_STMTS 200000      /* statements lowered, each unrolled trip counted */
#define TIR_MAX_WARPS 32          /* num_warps: a power of two from 1 to this */
#define TIR_MAX_STAGES 8          /* num_stages: from 1 to this */

/* X(enum, short name (signature / IR), triton name, C type, bits, class)
 * class: 'b' bool, 's' signed int, 'u' unsigned int, 'f' float, 'p' pointer */
#define DTYPE_LIST(X)                                                          \
    X(DT_I1, "i1", "int1", "bool", 1, 'b')                                     \
    X(DT_I8, "i8", "int8", "int8_t", 8, 's')                                   \
    X(DT_I16, "i16", "int16", "int16_t", 16, 's')                              \
    X(DT_I32, "i32", "int32", "int32_t", 32, 's')                              \
    X(DT_I64, "i64", "int64", "int64_t", 64, 's')                              \
    X(DT_U8, "u8", "uint8", "uint8_t", 8, 'u')                                 \
    X(DT_U16, "u16", "uint16", "uint16_t", 16, 'u')                            \
    X(DT_U32, "u32", "uint32", "uint32_t", 32, 'u')                            \
    X(DT_U64, "u64", "uint64", "uint64_t", 64, 'u')                            \
    X(DT_FP8E4NV, "fp8e4nv", "float8e4nv", "__nv_fp8_e4m3", 8, 'f')            \
    X(DT_FP8E5, "fp8e5", "float8e5", "__nv_fp8_e5m2", 8, 'f')                  \
    X(DT_FP16, "fp16", "float16", "__half", 16, 'f')                           \
    X(DT_BF16, "bf16", "bfloat16", "__nv_bfloat16", 16, 'f')                   \
    X(DT_FP32, "fp32", "float32", "float", 32, 'f')                            \
    X(DT_FP64, "fp64", "float64", "double", 64, 'f')                           \
    X(DT_PTR, "ptr", "pointer", "void *", 64, 'p')

typedef enum DType {
#define X(e, s, t, c, b, k) e,
    DTYPE_LIST(X)
#undef X
    DT__COUNT
} DType;

const char *dtype_name(DType d);        /* "fp32" */
const char *dtype_triton_name(DType d); /* "float32" */
const char *dtype_ctype(DType d);       /* "float" */
/* The C type of an element in memory, what a pointer to d points to: a byte (int8_t) for i1,
 * as Triton keeps bools in memory; dtype_ctype otherwise. */
const char *dtype_memory_ctype(DType d);
int dtype_bits(DType d);
bool dtype_is_float(DType d);
bool dtype_is_int(DType d);             /* incl. i1 */
bool dtype_is_signed(DType d);          /* signed ints only */
bool dtype_is_ptr(DType d);
bool dtype_is_fp8(DType d);           /* fp8e4nv, fp8e5 */
int dtype_from_name(const char *s);     /* accepts fp32/float32/f32/i32/int32/bool...; -1 if none */

typedef struct Type {
    DType dtype;        /* element type; DT_PTR for pointers */
    DType pointee;      /* when dtype == DT_PTR */
    DType inner;        /* when pointee is DT_PTR too (**fp16): what that pointer points to */
    int rank;           /* 0: scalar */
    int shape[TIR_MAX_RANK];
} Type;

Type type_scalar(DType d);
Type type_ptr(DType pointee);
Type type_ptr_to(Type elem);            /* a pointer to elem, a scalar or a pointer to a scalar */
Type type_pointee(Type ptr);            /* what ptr points to: a scalar, or a pointer for **T */
/* The C type of what ptr points to, in memory: "__half", or "__half *" for **fp16. */
const char *type_pointee_ctype(Arena *a, Type ptr);
char *type_sig_str(Arena *a, Type t);   /* as a signature writes it: "i32", "*fp16", "**fp16" */
Type type_tensor(Type elem, int rank, const int *shape);
Type type_elem(Type t);                 /* the scalar type of a tensor */
bool type_eq(Type a, Type b);
int type_numel(Type t);
char *type_str(Arena *a, Type t);       /* "tensor<1024xfp32>", "ptr<fp16>", "i32" */

/* ---- analyses attached to values ---------------------------------------- */

typedef struct AxisInfo {
    int rank;
    int64_t contiguity[TIR_MAX_RANK];
    int64_t divisibility[TIR_MAX_RANK];
    int64_t constancy[TIR_MAX_RANK];
    bool has_const;
    int64_t const_value;
    /* affine: every element is exactly aff_offset + sum over d of aff_stride[d] *
     * index[d] (an integer tile built from aranges and constants; emit_cuda
     * decides comparisons of such tiles per register where every thread agrees) */
    bool affine;
    int64_t aff_offset;
    int64_t aff_stride[TIR_MAX_RANK];
} AxisInfo;

/* A layout: how a tensor's elements map to the registers,
 * lanes and warps of a block.  Like Triton's encodings it does not fix the
 * tensor's shape; layout_map() gives the concrete map for one shape.
 *   blocked: sizePerThread / threadsPerWarp / warpsPerCTA / order, all
 *            powers of two;
 *   slice:   the parent with dimension `slice_dim` removed — the layout of a
 *            reduction's result; threads that differed only along that
 *            dimension now hold the same elements;
 *   mma:     the accumulator of mma.sync.m16n8kK (version 2): each warp owns
 *            16x8 tiles, lane = 4*group + tig holds (group, 2*tig + {0,1})
 *            and (group + 8, ...); warps split M and N by `wpc`, N fastest
 *           ;
 *   dotop:   operand `op_idx` (0: A [M,K], 1: B [K,N]) of a dot whose result
 *            has layout `parent` (mma: the mma.sync fragment, `kwidth`
 *            elements of K packed per 32-bit register; blocked: the FMA
 *            path, a thread holds its rows of A / columns of B for all K);
 *   linear:  any map of register, lane and warp bits onto coordinate bits
 *            (Triton's LinearEncoding), made for one shape: what a reshape,
 *            join, split or permute leaves when the data stays where it was
 *            (layout_shape.c).  At a smaller shape the bits past it drop out;
 *            at a larger one the new coordinate bits go to new registers. */
typedef enum LayoutKind { LAYOUT_BLOCKED, LAYOUT_SLICE, LAYOUT_MMA, LAYOUT_DOTOP, LAYOUT_LINEAR } LayoutKind;

typedef struct LayoutMap LayoutMap;

typedef struct Layout Layout;
struct Layout {
    int id;             /* L0, L1, ... */
    LayoutKind kind;
    int rank;
    int shape[TIR_MAX_RANK]; /* the shape it was made for (descriptions, geometry helpers) */
    int spt[TIR_MAX_RANK];   /* blocked: sizePerThread */
    int tpw[TIR_MAX_RANK];   /* blocked: threadsPerWarp, product 32 */
    int wpc[TIR_MAX_RANK];   /* blocked: warpsPerCTA, product num_warps */
    int order[TIR_MAX_RANK]; /* blocked: fastest dimension first */
    int slice_dim;           /* slice: the removed dimension of the parent */
    const Layout *parent;    /* slice, dotop */
    int op_idx;              /* dotop: 0 = A, 1 = B */
    int kwidth;              /* dotop on mma: K elements per 32-bit register */
    const LayoutMap *lin;    /* linear: the map at `shape` */
    int mma_version;         /* mma: 2 (mma.sync) or 3 (wgmma, layout_wgmma: the same map) */
};

/* A layout applied to one shape, as a linear map over bits (Triton's
 * LinearLayout restricted to what blocked and slice layouts need): each bit
 * of the register index, the lane and the warp sets one coordinate bit,
 * or none (dim < 0: threads differing in that bit hold the same element).
 * Bit fields never overlap, so an element's coordinate is the sum. */
typedef struct LBit {
    int8_t dim, bit;
} LBit;

#define LMAP_MAX_REG_BITS 20
struct LayoutMap {
    int rank;
    int shape[TIR_MAX_RANK];
    int nreg, nlane, nwarp;          /* bit counts: registers = 1 << nreg */
    LBit reg[LMAP_MAX_REG_BITS];
    LBit lane[5];
    LBit warp[5];
};

/* ---- values, ops, blocks ------------------------------------------------ */

typedef struct Op Op;

/* A comparison of affine tiles (after layouts) answered alike in every thread for its
 * first registers [0, prefix) and its last [suffix, n), each run to its own answer; the
 * ones between are tested at run time.  n == 0: nothing decided. */
typedef struct CmpDecided {
    int n, prefix, suffix;
    bool prefix_true, suffix_true;
} CmpDecided;
typedef struct Block Block;
typedef Vec(Op *) OpVec;

typedef struct SrcStmt {  /* the source statement an op came from */
    Loc loc;
    int begin, end;       /* byte range in the source */
    const char *helper;   /* the inlined helper it belongs to, or NULL */
    int call_line;        /* where that helper was called */
} SrcStmt;

typedef struct Value {
    int id;
    Type type;
    Op *def;            /* NULL for block and kernel arguments */
    Block *block;       /* for block arguments */
    int arg_index;
    const char *name;   /* source-level name hint, may be NULL */
    int nuses;
    /* hints from tl.multiple_of / tl.max_contiguous / tl.max_constancy, 0 = none */
    int64_t hint_div[TIR_MAX_RANK], hint_contig[TIR_MAX_RANK], hint_const[TIR_MAX_RANK];
    AxisInfo ax;        /* filled by tir_axisinfo */
    Layout *layout;     /* tensors, filled by tir_layouts */
    const char *cname;  /* emitter's name */
} Value;

/* Comparison predicates (OP_CMP's cmp.pred). */
typedef enum CmpPred { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE } CmpPred;

/* Math functions (OP_MATH's math.fn):
 *   X(enum, tl name, C fp32 spelling, C fp64 spelling, flushed)
 * flushed: 1 when the fp32 spelling is a helper of templates/tilec_runtime_math.cuh
 * (Triton's flush-to-zero), which the kernel then includes (tir_summarize). */
#define MATH_LIST(X)                                                           \
    X(MATH_EXP, "exp", "tilec::exp_approx", "exp", 0)                          \
    X(MATH_EXP2, "exp2", "tilec::exp2_approx", "exp2", 0)                      \
    X(MATH_LOG, "log", "logf", "log", 0)  /* Triton: libdevice __nv_logf */    \
    X(MATH_LOG2, "log2", "log2f", "log2", 0)                                   \
    X(MATH_SQRT, "sqrt", "tilec::sqrt_approx", "sqrt", 0)                      \
    X(MATH_SQRT_RN, "sqrt_rn", "__fsqrt_rn", "sqrt", 0)                        \
    X(MATH_RSQRT, "rsqrt", "tilec::rsqrt_approx", "rsqrt", 0)                  \
    X(MATH_SIN, "sin", "tilec::flushed<sinf>", "sin", 1)                       \
    X(MATH_COS, "cos", "cosf", "cos", 0)                                       \
    X(MATH_TAN, "tan", "tilec::flushed<tanf>", "tan", 1)                       \
    X(MATH_TANH, "tanh", "tilec::flushed<tanhf>", "tanh", 1)                   \
    X(MATH_ERF, "erf", "tilec::erf_flushed", "erf", 1)                          \
    X(MATH_FLOOR, "floor", "tilec::flushed<floorf>", "floor", 1)               \
    X(MATH_CEIL, "ceil", "tilec::flushed<ceilf>", "ceil", 1)                   \
    X(MATH_ABS, "abs", "fabsf", "fabs", 0)                                     \
    X(MATH_SIGMOID, "sigmoid", "tilec::sigmoid", "tilec::sigmoid", 0)          \
    X(MATH_LOG1P, "log1p", "tilec::log1p_flushed", "log1p", 1)                 \
    X(MATH_EXPM1, "expm1", "tilec::expm1_flushed", "expm1", 1)                 \
    X(MATH_ASIN, "asin", "tilec::flushed<asinf>", "asin", 1)                   \
    X(MATH_ACOS, "acos", "acosf", "acos", 0)                                   \
    X(MATH_ATAN, "atan", "tilec::flushed<atanf>", "atan", 1)                   \
    X(MATH_SINH, "sinh", "tilec::flushed<sinhf>", "sinh", 1)                   \
    X(MATH_COSH, "cosh", "coshf", "cosh", 0)                                   \
    X(MATH_TRUNC, "trunc", "truncf", "trunc", 0)                               \
    X(MATH_ROUND, "round", "roundf", "round", 0)                               \
    X(MATH_RINT, "rint", "rintf", "rint", 0)                                   \
    X(MATH_CBRT, "cbrt", "tilec::cbrt_flushed", "cbrt", 1)                     \
    /* libdevice.exp (__nv_expf: more exact than tl.exp's ex2.approx(x * log2 e)); \
     * lower_libdevice picks it, the dotted name keeps tl.* lookups from matching it */ \
    X(MATH_EXP_LIBDEVICE, "libdevice.exp", "expf", "exp", 0)                   \
    X(MATH_ISNAN, "isnan", "isnan", "isnan", 0)                                \
    X(MATH_ISINF, "isinf", "isinf", "isinf", 0)

typedef enum MathFn {
#define X(e, n, f, d, z) e,
    MATH_LIST(X)
#undef X
    MATH__COUNT
} MathFn;

/* Binary math functions (OP_MATH2's math2.fn). */
#define MATH2_LIST(X)                                                          \
    X(MATH2_POW, "pow", "powf", "pow")                                         \
    X(MATH2_ATAN2, "atan2", "atan2f", "atan2")                                 \
    X(MATH2_FMOD, "fmod", "fmodf", "fmod")                                     \
    X(MATH2_DIV_RN, "div_rn", "__fdiv_rn", "__ddiv_rn")                        \
    X(MATH2_HYPOT, "hypot", "hypotf", "hypot")                                 \
    X(MATH2_COPYSIGN, "copysign", "copysignf", "copysign")

typedef enum Math2Fn {
#define X(e, n, f, d) e,
    MATH2_LIST(X)
#undef X
    MATH2__COUNT
} Math2Fn;
const char *math_fn_name(MathFn fn);     /* Triton's name: "exp", "libdevice.exp" */
const char *math2_fn_name(Math2Fn fn);

/* X(enum, printed name, property flags)
 * flags: E = elementwise (result element i depends on operand elements i),
 *        P = pure (no side effects; may be removed when unused) */
#define OP_LIST(X)                                                             \
    X(OP_CONST, "constant", "EP") /* constant.ival, fval; result scalar */     \
    X(OP_PROGRAM_ID, "program_id", "P") /* program_id.axis */                  \
    X(OP_NUM_PROGRAMS, "num_programs", "P") /* program_id.axis */              \
    X(OP_MAKE_RANGE, "make_range", "P") /* make_range.start, end */            \
    X(OP_SPLAT, "splat", "EP")          /* args[0] scalar -> tensor */         \
    X(OP_BROADCAST, "broadcast", "P")   /* args[0] -> larger shape */          \
    X(OP_EXPAND_DIMS, "expand_dims", "P") /* expand_dims.axis */               \
    X(OP_ADDPTR, "addptr", "EP")        /* ptr, offset (elements) */           \
    X(OP_ADD, "add", "EP")                                                     \
    X(OP_SUB, "sub", "EP")                                                     \
    X(OP_MUL, "mul", "EP")                                                     \
    X(OP_DIV, "div", "EP")     /* ints: truncating; floats: Triton's div.full */\
    X(OP_REM, "rem", "EP")     /* ints: C %; floats: fmod */                   \
    X(OP_AND, "and", "EP")                                                     \
    X(OP_OR, "or", "EP")                                                       \
    X(OP_XOR, "xor", "EP")                                                     \
    X(OP_SHL, "shl", "EP")                                                     \
    X(OP_SHR, "shr", "EP")     /* arithmetic for signed, logical unsigned */   \
    X(OP_MAX, "max", "EP")     /* floats: maxnum (NaN ignored) */              \
    X(OP_MIN, "min", "EP")                                                     \
    X(OP_UMULHI, "umulhi", "EP")                                               \
    X(OP_NEG, "neg", "EP")                                                     \
    X(OP_NOT, "not", "EP")     /* bitwise ~; logical not on i1 */              \
    X(OP_CMP, "cmp", "EP")     /* cmp.pred; result i1 */                       \
    X(OP_SELECT, "select", "EP") /* cond, a, b */                              \
    X(OP_MATH, "math", "EP")   /* math.fn */                                   \
    X(OP_MATH2, "math2", "EP") /* math2.fn */                                  \
    X(OP_FMA, "fma", "EP")                                                     \
    X(OP_CAST, "cast", "EP")   /* to result type; cast.rtz */                  \
    X(OP_BITCAST, "bitcast", "EP")                                             \
    X(OP_LOAD, "load", "")     /* ptr [, mask [, other]]; load.has_mask,       \
                                  has_other, is_volatile */                    \
    X(OP_STORE, "store", "")   /* ptr, value [, mask]; store.has_mask */       \
    X(OP_FOR, "for", "")       /* lb, ub, step, inits...; region: iv, iters */ \
    X(OP_IF, "if", "")         /* cond; regions then, else; results */         \
    X(OP_WHILE, "while", "")   /* inits; region 0 before (ends in condition),  \
                                  region 1 after (ends in yield) */            \
    X(OP_CONDITION, "condition", "") /* cond, values passed to the after block */\
    X(OP_YIELD, "yield", "")                                                   \
    X(OP_RETURN, "return", "")                                                 \
    X(OP_BARRIER, "debug_barrier", "")                                         \
    X(OP_REDUCE, "reduce", "P") /* reduce.kind, axis; arg variants have      \
                                   results (value, index); combine: N operands,\
                                   N results, region 0 the combine function */\
    X(OP_SCAN, "scan", "P")     /* scan.kind, axis, reverse; combine: as     \
                                   OP_REDUCE's */                             \
    X(OP_CONVERT, "convert_layout", "P") /* same tensor, another layout */   \
    X(OP_ATOMIC_RMW, "atomic_rmw", "") /* ptr, val [, mask]; atomic.kind,    \
                                   has_mask, sem, scope */                    \
    X(OP_ATOMIC_CAS, "atomic_cas", "") /* ptr, cmp, val; atomic.sem, scope */  \
    X(OP_PRINT, "device_print", "") /* args printed; print.prefix, hex */     \
    X(OP_ASSERT, "device_assert", "") /* cond; assert_.msg */                 \
    X(OP_DOT, "dot", "P")       /* a, b, acc[, use: dot.use_flag]; dot.precision */ \
    X(OP_TRANS, "trans", "P")   /* trans.perm */                              \
    X(OP_LOCAL_LOAD, "local_load", "P") /* [slot]: a dot operand from its   \
                                   staging buffer (stage), ldmatrix; with no  \
                                   slot, the buffer of local_alloc `buf` */   \
    X(OP_LOCAL_ALLOC, "local_alloc", "") /* x: a dot operand tile written to  \
                                   its staging buffer (stage) before the loop \
                                   whose local_load `buf` reads it (dot_reload.c) */\
    X(OP_ASYNC_COPY, "async_copy", "") /* ptr, pred, slot [, mask]: cp.async \
                                   of a tile into `buf`'s staging buffer;     \
                                   async_copy.transposed */                   \
    X(OP_ASYNC_COMMIT, "async_commit", "") /* closes this thread's group of copies \
                                   (async_wait.tma: not under sm_90a) */     \
    X(OP_ASYNC_WAIT, "async_wait", "") /* [slot]: async_wait.pending, tma; then \
                                   a barrier */                                \
    /* ---- sorting, inline assembly (lower_sort.c, lower_asm.c) */              \
    X(OP_SORT, "sort", "P")     /* x: a bitonic network along the last dim;   \
                                   sort.descending, merge_only (bitonic_merge), \
                                   k (topk: the result's last dim) */          \
    X(OP_INLINE_ASM, "inline_asm", "") /* args (one shape): one asm statement \
                                   per `pack` elements; inline_asm.*; one      \
                                   result per dtype, in one layout */          \
    X(OP_MAP, "map_elementwise", "P") /* args (one shape): region 0 is a jit   \
                                   function on one element of each (N scalar   \
                                   args, a yield of the results); map.fn names \
                                   it; results in one layout (lower_combine.c) */\
    X(OP_HISTOGRAM, "histogram", "P") /* x [, mask]: i32 counts of x's low   \
                                   bits; histogram.has_mask */               \
    /* shape ops (lower_shape.c, layout_shape.c, emit_cuda/shape.c) */          \
    X(OP_RESHAPE, "reshape", "P") /* x: same elements in row-major order,      \
                                   another shape; reshape.can_reorder */      \
    X(OP_JOIN, "join", "P")     /* a, b: stacked along a new last dim of 2 */ \
    X(OP_SPLIT, "split", "P")   /* x: the half split.half of its last dim (2) */\
    X(OP_FLIP, "flip", "P")     /* x reversed along flip.axis */              \
    X(OP_GATHER, "gather", "P") /* src, index: src at index along gather.axis */

/* OP_REDUCE kinds; the arg variants carry (value, index) pairs, ties going
 * to the lowest index. */
#define REDUCE_LIST(X)                                                         \
    X(RED_SUM, "sum")                                                          \
    X(RED_MAX, "max")                                                          \
    X(RED_MIN, "min")                                                          \
    X(RED_XOR, "xor_sum")                                                      \
    X(RED_ARGMAX, "argmax")                                                    \
    X(RED_ARGMIN, "argmin")                                                    \
    X(RED_COMBINE, "combine") /* tl.reduce: a jit function combines (see below) */

/* A combine function (tl.reduce, tl.associative_scan; RED_COMBINE, SCAN_COMBINE):
 * the op's region 0 has 2N scalar arguments, the left group's N elements then
 * the right group's, of the operands' element types, and ends in a yield of the
 * N combined elements.  Its ops are scalar, elementwise or structured control
 * flow, and read nothing defined outside the region; `combine` names the jit
 * function.  Reductions combine (earlier, later) and assume the function is
 * associative and commutative, as Triton does; scans keep the order:
 * combine(everything before, this element), "before" running from the end for
 * a reversed scan. */

typedef enum ReduceKind {
#define X(e, n) e,
    REDUCE_LIST(X)
#undef X
} ReduceKind;
const char *reduce_name(ReduceKind k);

typedef enum ScanKind { SCAN_SUM, SCAN_PROD, SCAN_COMBINE } ScanKind;

/* tl.dot input_precision (matters for fp32 operands only) */
typedef enum DotPrecision { DOT_TF32, DOT_TF32X3, DOT_IEEE } DotPrecision;

#define ATOMIC_LIST(X)                                                         \
    X(ATOM_ADD, "add")                                                         \
    X(ATOM_MAX, "max")                                                         \
    X(ATOM_MIN, "min")                                                         \
    X(ATOM_AND, "and")                                                         \
    X(ATOM_OR, "or")                                                           \
    X(ATOM_XOR, "xor")                                                         \
    X(ATOM_XCHG, "xchg")

typedef enum AtomicKind {
#define X(e, n) e,
    ATOMIC_LIST(X)
#undef X
} AtomicKind;

/* memory semantics and scope of atomics (Triton's defaults: acq_rel, gpu) */
typedef enum MemSem { SEM_ACQ_REL, SEM_ACQUIRE, SEM_RELEASE, SEM_RELAXED } MemSem;
typedef enum MemScope { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS } MemScope;

typedef enum OpKind {
#define X(e, s, f) e,
    OP_LIST(X)
#undef X
    OP__COUNT
} OpKind;

const char *op_name(OpKind k);
bool op_is_elementwise(OpKind k);
bool op_is_pure(OpKind k);

/* A shared buffer's storage (smem.c).  The tile is stored row-major, viewed
 * as rows of 2^row_log2 elements (the tile's last dimension); within each row
 * the columns are XOR-swizzled in Triton's form
 *     col' = ((col / vec) ^ ((row / per_phase) % max_phase)) * vec + col % vec
 * and then, along the swizzled row-major index i, `pad` elements follow every
 * 2^pad_log2.  All parameters are powers of two; {1, 1, 1} swizzles nothing.
 * The same struct, smem_storage_index() and smem_count_extra() serve every
 * buffer tilec stages (layout conversions today, tl.dot operands later). */
typedef struct SmemSwizzle {
    int vec, per_phase, max_phase;
} SmemSwizzle;

typedef struct SmemLayout {
    int elem_bytes;
    int row_log2;         /* elements per storage row */
    SmemSwizzle swz;
    int pad_log2, pad;    /* `pad` elements after every 2^pad_log2 (pad 0: none) */
} SmemLayout;

/* A dot operand staged in shared memory (OP_CONVERT to a dotop layout,
 * OP_LOCAL_LOAD).  The buffer holds `rows` x `cols` elements per slot, cols
 * contiguous; the operand's coordinate `contig_dim` (0 or 1 of the operand
 * [M,K] / [K,N]) runs along cols. */
typedef struct DotStage {
    int op_idx;
    int rows, cols;       /* of one batch's tile */
    int batch;            /* 3-D operands: tiles stacked row after row, batch b at row b * rows (1: 2-D) */
    int contig_dim;
    DType dtype;
    SmemSwizzle swz;
    int pad_rows_log2, pad; /* `pad` elements after every 2^pad_rows_log2 rows (0: none) */
    int nslots;           /* buffers in the pipeline ring (1: not pipelined) */
    bool ldmatrix;        /* read with ldmatrix(.trans); else element by element */
    bool producer;        /* a producer ring's (warp specialisation): live for the whole kernel */
    bool hold;            /* num_stages slots although a wgmma group stays in flight: the copies
                             come after a barrier behind every warpgroup's wait (pipeline.c, P->hold) */
    bool trans;           /* ldmatrix .trans (16-bit operand stored MN-major) */
    int nvmma;            /* 128, 64, 32: Triton's NVMMA layout with this swizzle width in
                             bytes (column blocks of that width, dot_nvmma_offset); 0: rows
                             of `cols` with the mma.sync swizzle above */
} DotStage;

/* How a warp reads a staged operand's fragment with ldmatrix (dot.c).  The
 * fragment's 32-bit words go in groups of `group` (1, 2, 4: .x1, .x2, .x4):
 * ldmatrix number q fills words group*q .. group*q + group-1, one 8x8 matrix
 * of 16-bit elements (8 rows of 16 bytes) each.  Lane l gives the address of
 * row l % 8 of matrix l / 8, at the buffer's (row, col):
 *     row = (l & 7) + the bits below along dim 0,  col = those along dim 1
 * where a set bit i of l / 8, of the warp or of q adds 1 << mat[i].bit
 * (warp[i].bit, q[i].bit) to coordinate mat[i].dim (0: row, 1: col; -1:
 * none).  Lanes from 8 * group on give no address. */
typedef struct DotLdmatrix {
    int group, nq;                  /* 2^nq ldmatrix fill the fragment */
    bool trans;
    LBit mat[2], warp[5], q[LMAP_MAX_REG_BITS];
    int nmat, nwarp;
} DotLdmatrix;


struct Op {
    OpKind kind;
    const SrcStmt *stmt;  /* source statement it came from */
    Loc loc;              /* the expression it came from */
    Value **args;
    int nargs;
    Value **results;
    int nres;
    Block *regions[2];
    int nregions;
    Block *parent;
    int smem_offset;      /* bytes into the shared arena (ops that use it) */
    int smem_bytes;
    SmemLayout smem_layout; /* conversion buffers: swizzle and padding */
    int smem_read_vec;    /* conversions: elements per read of the result (its runs, up to 16 bytes) */
    int smem_write_vec;   /* ... and per write of the source */
    int smem_conflicts;   /* extra wavefronts counted statically (0: conflict-free) */
    int smem_plain_conflicts; /* conversions: the same, row-major without swizzle or padding */
    bool smem_keep_sync;  /* a barrier after the reads (see tir_smem) */
    bool smem_loop_frees; /* no barrier after: the pipelined loop's copy waits free it (tir_smem) */
    bool wgmma_shadow;    /* runs while the group of the wgmma dot before it is in flight: the
                             copies of the step ahead (tir_pipeline); that dot's wait follows
                             the last op so marked */
    DotStage *stage;      /* dot operand staging (convert to dotop, local_load, async_copy) */
    Op *buf;              /* async_copy: the local_load whose buffer it fills; local_alloc: the
                             last local_load that reads its buffer (dots in several loops may
                             read one: dot_reload.c), and every such local_load: the
                             local_alloc; a debug_barrier of dot_reload.c: the local_alloc whose
                             buffer it frees */
    const char *note;     /* tilec's own words the emitter prints before the op, or NULL:
                             why a pass put it there (no user text) */
    /* The attributes of the op's kind (OP_LIST says which); last, so that
     * tir_op_copy_attrs copies them as Op's tail. */
    union {
        struct {
            int64_t ival;     /* ints; floats: the value truncated (0 for inf, nan) */
            double fval;      /* floats; ints: the value converted */
        } constant;
        struct {
            int axis;         /* 0, 1, 2: x, y, z (also OP_NUM_PROGRAMS) */
        } program_id;
        struct {
            int64_t start, end;
        } make_range;
        struct {
            int axis;         /* the new dimension of size 1 */
        } expand_dims;
        struct {
            CmpPred pred;
            CmpDecided decided; /* tir_tidy, from the final layouts; the emitter prints it */
        } cmp;
        struct {
            MathFn fn;
        } math;
        struct {
            Math2Fn fn;
        } math2;
        struct {
            bool rtz;         /* fp_downcast_rounding="rtz": toward zero */
        } cast;
        struct {
            bool has_mask, has_other; /* args[1], args[2] */
            bool is_volatile;
            /* a 2-D load of a tensordesc parameter's block (the TMA path, tir_pipeline):
             * the descriptor's first parameter (f->params index + 1; 0: none), its
             * offsets the last two args */
            int desc_param;
        } load;
        struct {
            bool has_mask;    /* args[2] */
            /* a 2-D store of a tensordesc parameter's block (tl.store_tensor_descriptor):
             * the descriptor's first parameter (f->params index + 1; 0: none), the block's
             * offsets the last two args */
            int desc_param;
            int tma_map;      /* f->tma_maps index + 1 where the block goes out by TMA from the
                                 staging buffer op->stage under sm_90a (tir_tma_store); 0: no */
        } store;
        struct {
            ReduceKind kind;
            int axis;
            const char *combine; /* RED_COMBINE: the jit function's name */
        } reduce;
        struct {
            const char *fn;   /* the jit function tl.map_elementwise runs on each element */
        } map;
        struct {
            ScanKind kind;
            int axis;
            bool reverse;
            const char *combine; /* SCAN_COMBINE: the jit function's name */
        } scan;
        struct {
            AtomicKind kind;  /* OP_ATOMIC_RMW only, as has_mask */
            bool has_mask;    /* args[2] */
            MemSem sem;
            MemScope scope;
        } atomic;             /* OP_ATOMIC_RMW, OP_ATOMIC_CAS */
        struct {
            const char *prefix;
            bool hex;
        } print;
        struct {
            const char *msg;
        } assert_;
        struct {
            DotPrecision precision;
            bool wgmma;       /* wgmma under sm_90a: both operands in NVMMA rings (tir_pipeline),
                                 or in buffers read in place or A in registers (tir_wgmma) */
            int wgmma_pending;/* wgmma groups a K step leaves in flight (tir_pipeline: 0 where
                                 the ring's extra slot does not fit) */
            bool wgmma_next;  /* the group stays in flight into the next iteration, where an
                                 earlier dot's wait covers it (tir_wgmma, defer_wait) */
            bool wgmma_shadowed; /* the ops after it marked wgmma_shadow run before its wait */
            bool use_flag;    /* args[3], an i1: false, the accumulator is taken as zeros
                                 (tir_pipeline's fold of a reset into the next dot) */
        } dot;
        struct {
            int perm[TIR_MAX_RANK]; /* the input dimension of result dimension k */
        } trans;
        struct {
            bool transposed;  /* stored transposed: the load reaches the dot through a trans */
            int tma;          /* f->tma_rings index + 1 of the loop's TMA ring (0: cp.async
                                 only): under sm_90a one thread copies the tile with TMA,
                                 args[3 + has_mask..] its block's offsets, load.desc_param's */
            int tma_map;      /* f->tma_maps index of the descriptor */
            bool has_mask;    /* args[3] is the cp.async mask */
        } async_copy;
        struct {
            bool descending;  /* the last stage's direction */
            bool merge_only;  /* tl.bitonic_merge: the last stage alone */
            int k;            /* tl.topk: the k largest, descending (0: sort the whole) */
        } sort;
        struct {
            const char *text; /* the assembly in CUDA's spelling: operand N is %N, a % is %% */
            const char *outs; /* the constraint letter of each output register (r h l f d) */
            const char *ins;  /* ... and of each input register, outputs first in the numbering */
            int pack;         /* elements per asm statement; smaller ones share 32-bit registers */
            bool is_pure;     /* no side effects: plain asm, else asm volatile */
            bool clobbers_memory; /* "~{memory}" */
        } inline_asm;
        struct {
            bool has_mask;    /* args[1]: elements counted */
        } histogram;
        struct {
            int unroll;       /* tl.range's loop_unroll_factor: #pragma unroll N (0: none) */
            bool wgmma_drain; /* a pipelined loop that leaves its last wgmma group in flight
                                 (tir_pipeline): guarded by its first trip's test, and
                                 waits for every wgmma group inside the guard */
            int queues;       /* a pipeline's prologue (tir_pipeline): its results from
                                 queue_first on are `queues` queues of queue_depth entries,
                                 values stage 0 computes ahead (the emitter says so) */
            int queue_first, queue_depth;
            bool warp_specialize; /* tl.range(warp_specialize=True): the TMA rings of the loop,
                                     or of loops inside it, are filled by a producer warpgroup
                                     of their own under sm_90a (tir_pipeline, warpspec.c) */
            const char *ws_refused; /* why a ring loop in it got no producer (tir_pipeline) */
        } for_;
        struct {
            bool can_reorder; /* the user allowed any order (tilec keeps row-major order) */
        } reshape;
        struct {
            int half;         /* 0: the elements at index 0 of the last dim, 1: at index 1 */
        } split;
        struct {
            int axis;
        } flip;
        struct {
            int axis;
        } gather;
        struct {
            int pending;      /* groups of copies left in flight */
            int tma;          /* f->tma_rings index + 1: under sm_90a, wait for the
                                 full barrier of slot args[0], then free slot args[1]
                                 for the copies (none after the loop) */
        } async_wait;
    };
};

struct Block {
    Vec(Value *) args;
    Vec(Op *) ops;
    Op *parent;           /* NULL for the function body */
};

/* A kernel parameter after specialisation. */
typedef struct KernelParam {
    const char *name;
    const char *c_name;   /* its name in the generated C (cuda_name_params) */
    Type type;
    bool is_constexpr;    /* removed from the CUDA signature */
    bool specialised;     /* a value fixed by the signature (e.g. an int 1) */
    const char *spec_text;/* the constexpr value as given, for the header */
    int64_t div;          /* divisibility hint from ":16" (bytes for pointers) */
    /* listed in @triton.jit's do_not_specialize (value: no == 1 and no multiple of 16) or
     * do_not_specialize_on_alignment (align: no multiple of 16) */
    bool no_spec_value, no_spec_align;
    Value *value;         /* runtime parameters */
    /* the first field of a tensordesc parameter: that parameter's name and entry
     * ("tensordesc<fp16[64, 64]>"), for the header */
    const char *desc_name, *desc_sig;
} KernelParam;

/* A TMA tensor map (sm_90a).  The host encodes one for each tensordesc
 * parameter whose blocks a pipelined loop copies with TMA, from the
 * descriptor's runtime parameters (base, shapes, strides), and passes it as a
 * __grid_constant__ parameter after the others.  One copy moves a box of
 * box_cols x box_rows elements, box_cols the swizzle's width, into shared
 * memory in the NVMMA layout; a block wider than that takes one copy per
 * column block. */
typedef struct TmaMap {
    const char *name;     /* its parameter in the CUDA: "<desc>_tma" */
    int param;            /* f->params index of the descriptor's base */
    int box_cols, box_rows;
    int swizzle;          /* 128, 64 or 32 bytes */
} TmaMap;

/* A pipelined loop's TMA ring: two mbarriers per slot, in the shared arena at
 * smem_offset (tir_smem), the nslots "full" ones first.  Each copy into a slot
 * is one arrival on its full barrier that expects its bytes, so a slot
 * completes a phase when all `copies` have landed.  The "free" ones take an
 * arrival from every warp once it has finished reading the slot; the thread
 * that copies waits for them before it overwrites the slot, in place of a
 * barrier of the whole block. */
typedef struct TmaRing {
    int nslots, copies;
    int smem_offset;      /* full[nslots], then free[nslots] */
    bool producer;        /* filled by the producer warpgroup (warp specialisation): its
                             copies are the producer's alone, and the consumers release
                             each slot once the wgmma group that read it is done */
} TmaRing;

/* tilec's own choice of __launch_bounds__'s blocks per SM applies from this
 * architecture on (limits.c, choose_min_blocks: where it was measured). */
#define TIR_MIN_BLOCKS_ARCH 90

typedef struct TirFunc {
    const char *name;
    Loc loc;
    Vec(KernelParam) params;
    Block *body;
    int num_warps;
    int num_stages;
    int arch;             /* 80, 90: --arch (layout_wgmma applies from 90) */
    int nvalues;
    Vec(Layout *) layouts;
    int smem_bytes;       /* the shared-memory arena, after tir_layouts */
    int min_blocks;       /* __launch_bounds__'s blocks per SM; 0: none (tir_check_limits) */
    bool min_blocks_auto; /* tilec's choice (for sm_TIR_MIN_BLOCKS_ARCH and newer), not the caller's */
    int min_blocks_asked; /* the caller's --min-blocks (0: none), known from tir_lower on */
    bool dot_chain;       /* a tl.dot feeds another (attention): tir_layouts */
    bool min_blocks_chain;/* tilec's one-block promise for a dot chain, on every architecture */
    bool straight_stores; /* stores as predicated instructions, no branches (limits.c) */
    /* what the file includes, noted by tir_summarize (uses_dot: by tir_lower) */
    bool uses_fp16, uses_bf16;
    bool uses_fp8;        /* cuda_fp8.h and the fp8 helpers are included */
    bool uses_printf;     /* device_print / device_assert */
    bool uses_dot;        /* tl.dot: the tensor-core helpers are included */
    bool uses_wgmma;      /* a dot on wgmma (tir_pipeline): the Hopper helpers are included */
    bool uses_flushed_math; /* fp32 math through tilec_runtime_math.cuh's flush */
    bool uses_sort;       /* tl.sort: tilec_runtime_sort.cuh's bitonic steps */
    bool uses_masked_access; /* a load or store testing its mask per vector: tilec_runtime_masked.cuh */
    bool uses_masked_copy;   /* a cp.async doing so: tilec_tensorcore_masked.cuh */
    bool debug;           /* device_assert compiled in */
    Vec(TmaMap) tma_maps; /* tir_pipeline: the TMA path of tensordesc parameters */
    Vec(TmaRing) tma_rings;
    /* warp specialisation (tl.range(warp_specialize=True), tir_pipeline): a warpgroup
     * after the num_warps consumer warps issues the producer rings' copies; 0: none */
    int producer_warps;
} TirFunc;

/* Warp specialisation (warpspec.c).  tir_ws_refusal: why pipelined loop `loop` (one
 * tir_ws_asked of), whose
 * ring loads are `loads`, cannot have its copies issued by a producer warpgroup (NULL:
 * it can): the producer computes only scalars, so each copy's offsets and every
 * bound of the loops around it must follow from parameters, program ids and loop
 * counters by pure scalar arithmetic.  tir_ws_warn: after tir_pipeline, a warning
 * for each tl.range(warp_specialize=True) that got no producer.  tir_ws_needed: the
 * values (by id) the producer computes; tir_ws_copy: a producer ring's copy;
 * tir_ws_holds_copy: a loop or branch with one inside. */
bool tir_ws_asked(const Op *loop); /* loop, or one around it, says warp_specialize=True */
const char *tir_ws_refusal(Arena *a, const TirFunc *f, const Op *loop, Op *const *loads, int nloads);
void tir_ws_warn(Ctx *ctx, const TirFunc *f);
bool *tir_ws_needed(Arena *a, const TirFunc *f);
bool tir_ws_copy(const TirFunc *f, const Op *op);
bool tir_ws_holds_copy(const TirFunc *f, const Op *op);
#define TIR_WS_PRODUCER_WARPS 4   /* one warpgroup: setmaxnreg works per warpgroup */
#define TIR_WS_PRODUCER_REGS 40   /* what the producer keeps (setmaxnreg.dec) */

/* Threads per block: the consumer warps and the producer warpgroup, if any. */
static inline int tir_block_threads(const TirFunc *f) { return 32 * (f->num_warps + f->producer_warps); }

/* ---- building -------------------------------------------------------- */

Block *tir_block_new(Arena *a, Op *parent);
Op *tir_block_last(const Block *b); /* its last op (a region's yield or condition), NULL if empty */
Value *tir_value_new(Arena *a, TirFunc *f, Type t);
Op *tir_op_new(Arena *a, TirFunc *f, OpKind kind, int nargs, Value **args, int nres, const Type *res_types);
void tir_block_append(Arena *a, Block *b, Op *op);
void tir_block_insert(Arena *a, Block *b, int at, Op *op); /* op becomes b's op number at */
void tir_block_remove(Block *b, int at);                   /* b's op number at leaves b */
bool opvec_has(const OpVec *v, const Op *op);
void tir_op_copy_attrs(Op *to, const Op *from); /* same kind */
Value *tir_copy_mask(const Op *async_copy);     /* its mask, NULL when it has none */

/* ---- passes (driver order) ------------------------------------------- */

typedef struct SpecEntry {    /* one signature entry, by parameter */
    const char *name;         /* NULL: positional */
    const char *text;         /* as written */
    Loc loc;
} SpecEntry;

typedef Vec(SpecEntry) SpecVec;

/* The most --variant flags one translation takes (driver.c, emit_cuda). */
#define TILEC_MAX_VARIANTS 16

typedef struct LowerOptions {
    const char *kernel;       /* NULL: the one jit function no other jit function calls */
    SpecVec sig;              /* positional and named entries */
    SpecVec defines;          /* -D NAME=VALUE */
    int num_warps;            /* 0: from config or 4 */
    int num_stages;           /* 0: from config or 3 */
    int config_index;         /* autotune config, default 0 */
    int arch;                 /* 80, 90 */
    bool debug;               /* compile tl.device_assert in (Triton's TRITON_DEBUG) */
    int min_blocks;           /* __launch_bounds__ blocks per SM: 0 tilec decides, -1 none */
    Vec(const char *) include_dirs; /* -I: searched for imported modules */
} LowerOptions;

TirFunc *tir_lower(Ctx *ctx, Module *m, const LowerOptions *opt);
void tir_verify(Ctx *ctx, TirFunc *f);          /* BUG() on a broken invariant */
void tir_simplify(Ctx *ctx, TirFunc *f);        /* dead code, use counts */
/* Registers of a comparison decided at translation (tir_cmp_decided, axisinfo.c), and
 * the constant a value becomes (tidy.c turns comparisons decided everywhere into one). */
bool tir_cmp_decided(const Op *op, CmpDecided *dec);
void tir_axisinfo_constant(Value *v, int64_t c);
void tir_combine(Ctx *ctx, TirFunc *f);         /* x + tl.dot(a, b) -> tl.dot(a, b, x), as Triton */
void tir_if_convert(Ctx *ctx, TirFunc *f);      /* ifconv.c: branches that only compute and load as selects */
bool tir_op_reads(const Op *op, const Value *v);             /* op or an op of its regions reads v */
int tir_op_index(const Block *b, const Op *op);             /* op's index among b's ops, or -1 */
bool tir_block_encloses(const Block *outer, const Block *b); /* outer is b or a block around it */
void tir_op_replace_uses(Op *op, const Value *from, Value *to); /* in op and its regions */
void tir_block_replace_uses(Block *b, const Value *from, Value *to); /* in b's ops and their regions */
bool tir_is_zero_splat(const Value *v);         /* a constant 0 (not -0.0), splat or broadcast */
void tir_axisinfo(Ctx *ctx, TirFunc *f);
void tir_layouts(Ctx *ctx, TirFunc *f);
void tir_pipeline(Ctx *ctx, TirFunc *f);       /* pipeline.c: cp.async rings for the K loops of dots */
/* dot_reload.c: a dot operand made before its dot's loop kept in shared memory and read
 * there in each iteration, as Triton does (enabled: false keeps it in registers) */
void tir_dot_reload(Ctx *ctx, TirFunc *f, bool enabled);
/* a local_alloc whose tl.dot comes right after it, in its block (the tail of a K loop on
 * wgmma), rather than in a loop after it (a loop-invariant operand) */
bool local_alloc_beside(const Op *alloc);
/* after tir_smem and tir_check_limits, the last: notes the types, printf and flushed
 * math the kernel uses (f->uses_*), so that the emitter only reads the IR */
void tir_summarize(Ctx *ctx, TirFunc *f);
/* into uses what from uses too (f->uses_*: a .cu holding both kernels needs both's helpers);
 * a flag added to TirFunc is added here */
void tir_uses_merge(TirFunc *into, const TirFunc *from);
/* What a launch can test of runtime parameter kp, as Triton's launcher keys its arguments:
 * TIR_FACT_ONE (an integer equal to 1) and TIR_FACT_DIV16 (an integer, or a pointer's
 * address, that is a multiple of 16), for parameters the signature leaves open, less what
 * @triton.jit's do_not_specialize lists exclude; 0 for the rest (constexprs, values, ":16",
 * floats, bools, a tensor descriptor's fields).  The library's specialisation at launch and
 * --variant auto both follow it. */
enum { TIR_FACT_ONE = 1, TIR_FACT_DIV16 = 2 };
int tir_param_facts(const KernelParam *kp);
bool tir_type_is_integer(Type t); /* a scalar integer type other than i1 */
void tir_tidy(Ctx *ctx, TirFunc *f);           /* tidy.c: repeated values shared, loop updates last */

/* ---- the launch grid (--grid) ------------------------------------------ */

/* One dimension of the grid as postfix code over long long values, with C's
 * semantics (as the .cu launcher computes it), in checked 64-bit arithmetic:
 * a zero divisor or an overflow fails the launch, never a wrong grid. */
typedef enum GridOpKind {
    GRID_CONST,   /* push v */
    GRID_PARAM,   /* push an integer parameter: v indexes f->params (the library renumbers
                     it to the runtime argument before evaluating) */
    GRID_ADD, GRID_SUB, GRID_MUL, GRID_DIV, GRID_MOD,
    GRID_CDIV, GRID_MIN, GRID_MAX,
} GridOpKind;

typedef struct GridOp {
    GridOpKind kind;
    long long v;
    bool checked;         /* some arguments make it divide by zero or overflow (a u64
                             parameter: exceed LLONG_MAX), so launchers check it */
    Loc loc;              /* in the grid text */
} GridOp;

typedef struct GridProg {
    int ndims;            /* 0: no grid expression */
    GridOp *ops[3];
    int nops[3];
    bool may_exceed[3];   /* some arguments take dimension d beyond the device's limit */
} GridProg;

#define GRID_MAX_STACK 64

/* Reads `text` (NULL: no grid) against f's parameters; errors through diag_error,
 * pointing into the grid text: also a constant that divides by zero or overflows, and a
 * dimension always beyond the device's limit. */
void tir_grid_compile(Ctx *ctx, const TirFunc *f, const char *text, GridProg *g);
/* The dimensions for `values` (GRID_PARAM v's value; a u64 above LLONG_MAX wrapped to
 * negative).  false with a message in err (naming names[v]) on a zero divisor or an
 * overflow.  A dimension <= 0 is no error: the launch has nothing to do. */
bool tir_grid_eval(const GridProg *g, const long long *values, const char *const *names, long long dims[3],
                   StrBuf *err);
/* false with a message when a dimension is beyond the device's limit (x < 2^31, y and z
 * < 65536 on every GPU). */
bool tir_grid_within_limits(const long long dims[3], StrBuf *err);

/* The launchers' C (the .cu's and --embed-cubin's), for C99 with stdbool.h or C++. */
typedef struct GridLaunchC {
    const char *const *names;   /* names[v] spells GRID_PARAM v */
    const char *empty;          /* returned when a dimension is <= 0: "cudaSuccess" */
    const char *invalid;        /* returned on a fault or beyond the limits */
    bool c_comments;            /* comments as C's block comments, not // */
} GridLaunchC;
/* The tilec_grid_* helpers that the grid's checked operations call, then a blank line
 * (nothing when no operation is checked). */
void tir_grid_helpers_c(StrBuf *out, const GridProg *g, bool c_comments);
/* Statements (indented four spaces) that set `const long long gx, gy, gz` and return as
 * `how` says; they call tilec_cdiv/tilec_min/tilec_max, which the launchers define. */
void tir_grid_launch_c(StrBuf *out, Arena *a, const GridProg *g, const GridLaunchC *how);

/* ---- printing -------------------------------------------------------- */

void tir_print(StrBuf *out, const TirFunc *f, bool with_analyses);
void tir_print_layouts(StrBuf *out, const TirFunc *f);
void tir_print_values(StrBuf *out, const TirFunc *f);   /* every tile value: layout, ownership */
void layout_describe(StrBuf *out, const Layout *l);  /* in words */
char *axisinfo_str(Arena *a, const AxisInfo *ax);
/* vector.c: global accesses' vector widths.  access_vec: the elements per vector of a
 * tensor load or store as its pointers allow, and (dim, may be NULL) the dimension they run
 * along; access_tests_mask: whether the access tests its vectors' mask bits at run time
 * (one vector where all are set, else element by element).  stage_copy_vec: the elements
 * per cp.async of the pointer tile ptr into dot stage st (within one swizzled chunk);
 * copy_vec and copy_tests_mask: the same for an OP_ASYNC_COPY.  mask_varies_within: does
 * `mask` (NULL: none) change within some aligned run of v elements along dim d, as far as
 * AxisInfo knows? */
int access_vec(const Op *op, int *dim);
bool access_tests_mask(const Op *op);
int stage_copy_vec(const Value *ptr, const DotStage *st, int *dim);
int copy_vec(const Op *copy);
bool copy_tests_mask(const Op *copy);
bool mask_varies_within(const Value *mask, int d, int64_t v);

/* Layout maps (linear bit maps) for one shape. */
void layout_map(const Layout *l, int rank, const int *shape, LayoutMap *m);
void value_map(const Value *v, LayoutMap *m);
int value_regs(const Value *v);          /* registers per thread for a tensor value */
/* Can `src` (at its shape) be read in `dst`'s register order without moving
 * data between threads?  dst has src's rank, or one more when `insert_dim`
 * >= 0 (expand_dims); src dimensions of size 1 broadcast.  On success
 * regbit[i] is the src register bit that dst register bit i reads (-1: none). */
bool lmap_local(const LayoutMap *src, int insert_dim, const LayoutMap *dst, int *regbit);
/* the slice layout, interned in f->layouts */
Layout *layout_slice(Arena *a, TirFunc *f, const Layout *parent, int dim);
bool layout_eq(const Layout *a, const Layout *b);
/* tl.dot: tensor cores (mma.sync) or the FMA path (fp64, input_precision="ieee") */
bool dot_uses_mma(const Op *dot);
int dot_kwidth(DType operand);   /* K elements of an operand per 32-bit register */
/* C for the thread's first coordinate along dim ("(lane >> 3) + (warp << 2)"),
 * for register `idx`'s offset from it, and the registers' constant offsets. */
void lmap_base_expr(StrBuf *out, const LayoutMap *m, int dim);
void lmap_reg_expr(StrBuf *out, const LayoutMap *m, int dim, const char *idx);
/* Index arithmetic as bit moves: bit `from` of source `src` (srcs[src]: its C, and how many
 * low bits it can have set, -1 if unknown) lands on bit `to` of the result; no two moves
 * land on one bit.  lmap_moves_expr appends the result as a sum with one term per run of
 * moves (consecutive source bits onto consecutive result bits), in the moves' order:
 * "(e & 1) + (((e >> 2) & 3) << 4)"; "0" when there are none. */
typedef struct BitSrc {
    const char *name;
    int bits;
} BitSrc;
typedef struct BitMove {
    int8_t src, from, to;
} BitMove;
void lmap_moves_expr(StrBuf *out, const BitSrc *srcs, const BitMove *mv, int n);
int lmap_reg_offset(const LayoutMap *m, int reg, int dim);
/* The coordinate c[] of register r of thread (lane, warp). */
void lmap_coords(const LayoutMap *m, int r, int lane, int warp, int *c);
/* How many leading register bits of m hold consecutive elements of dim d
 * (registers 0, 1, 2.. at coordinates 0, 1, 2.. along d): log2 of the run a
 * vector access or a constant run can use. */
int lmap_lead_bits(const LayoutMap *m, int d);
unsigned lmap_replicated_mask(const LBit *bits, int n); /* bits that do not move the coordinate */
void lmap_describe(StrBuf *out, const LayoutMap *m);
/* How one axis of a map spreads over a thread's registers, the lanes and
 * the warps (bit positions).  Register bits along the axis below every lane
 * and warp bit of it are the thread's contiguous run ("nano"); those above
 * are repetitions of the CTA tile.  Used by reductions and scans. */
typedef struct AxisBits {
    int axis_reg[LMAP_MAX_REG_BITS], naxis_reg; /* all register bits along the axis, in order */
    int nano[LMAP_MAX_REG_BITS], nnano;
    int rep[LMAP_MAX_REG_BITS], nrep;
    int kept[LMAP_MAX_REG_BITS], nkept;        /* register bits of the other dimensions */
    int lane[5], nlane;
    int warp[5], nwarp;
} AxisBits;
void axis_bits(const LayoutMap *m, int axis, AxisBits *ab);
/* Whether the axis's coordinate bits run, from the lowest, through the run's register
 * bits, then the lane bits (consecutive lanes), the warp bits and the repetitions' register
 * bits, each group in its own bit order: the element order that reduce.c's and
 * combine.c's scans (and reductions with a combine function) walk.  Blocked layouts have
 * it; a linear layout from a shape op may not. */
bool axis_bits_ordered(const LayoutMap *m, int axis);

/* Shared memory: sizes of the buffers each exchange needs, their padding,
 * offsets in the kernel's one arena (the pass after tir_layouts). */
void tir_smem(Ctx *ctx, TirFunc *f);
/* Per-thread registers of every tile and the shared arena against what a
 * block can hold on `arch` (limits.c): errors and a spill warning. */
void tir_check_limits(Ctx *ctx, TirFunc *f, const LowerOptions *opt);
int tir_smem_limit(int arch);  /* opt-in shared memory per block: 163 KB (sm_80), 227 KB (sm_90) */
int tir_min_blocks_regs(const TirFunc *f); /* registers per thread __launch_bounds__ leaves (min_blocks > 0) */
int tir_smem_limit(int arch);                 /* shared memory a block may opt in to on sm_<arch> */
int smem_elem_bytes(Type t);          /* bytes of one element in shared memory (bool: 1) */
int smem_row_major(const int *shape, int rank, const int *coord);
int smem_padded(int lin, int pad_log2, int pad);
int smem_wavefronts_extra(const int *addr, int bytes); /* one warp-wide access, addr -1: inactive lane */
bool smem_swizzle_none(SmemSwizzle s);
int smem_swizzle_col(SmemSwizzle s, int row, int col);  /* col' of the formula above */
int smem_storage_index(const SmemLayout *l, int lin);   /* element offset of row-major index lin */
/* Extra shared-memory wavefronts (bank conflicts) of `naccess` warp-wide
 * accesses to a buffer stored as `l`: lin[32 * i + lane] is the row-major index
 * of the first element lane touches in access i (-1: inactive), each lane
 * moving `access_elems` consecutive elements (one vector; the swizzle's vec and
 * the padding keep it contiguous and aligned).  Counting stops once the total
 * passes `limit`. */
int smem_count_extra(const SmemLayout *l, const int *lin, int naccess, int access_elems, int limit);
/* A conversion's writes (wvec elements each) and reads (rvec each) through a buffer stored as `l`, counted. */
int smem_convert_conflicts(const Op *op, const SmemLayout *l, int wvec, int rvec);
int reduce_warp_bits(const Op *op);   /* log2 of the warps along a reduction's axis */
/* bytes of a combine's partials (RED_COMBINE, SCAN_COMBINE): n of each operand, each
 * operand's array 8-byte aligned, in operand order */
int combine_partials_bytes(const Op *op, int n);

/* dot.c: tl.dot operand staging and the FMA path's buffers */
SmemSwizzle dot_operand_swizzle(int op_idx, DType d, int cols, int contig_dim);
bool is_dot_stage(const Op *op);        /* a convert to a dot operand layout through shared memory, or a local_load */
bool dot_operand_in_registers(const Op *op); /* a convert to a dot operand that moves no data between threads */
DotStage *dot_stage_for(Arena *a, const TirFunc *f, const Value *src, const Layout *to, int nslots, bool kept);
int dot_stage_slot_elems(const DotStage *s);   /* one slot, padding included */
int dot_stage_slot_bytes(const DotStage *s);
/* Hopper (wgmma.c): the wgmma accumulator layout's rule, the NVMMA layout of a
 * staged operand and the wgmma shared-memory descriptors that read it. */
/* wgmma groups a K step leaves in flight, as Triton (pipelineWgmma): the
 * tensor cores finish step k while step k+1 issues its copies and waits at
 * its barrier.  The ring then needs a slot more, and the loop waits for its
 * last group before its exit joins the path that skips it (for_.wgmma_drain):
 * waiting after the join made ptxas 13.0 serialize every wgmma of the loop
 * (C7514, "non wgmma instructions reading accumulator registers"). */
#define WGMMA_GROUPS_IN_FLIGHT 1
bool layout_wgmma_fits(const TirFunc *f, DType in, DType out, const int *shape);
int dot_nvmma_swizzle(const DotStage *s);
int dot_nvmma_offset(const DotStage *s, int row, int col);
int dot_stage_align(const DotStage *s);
/* pipeline.c: f->tma_maps' index of descriptor parameter param's map (-1: none); do two
 * maps copy boxes of one shape and swizzle?  A descriptor has one map in a kernel. */
int tir_tma_map_index(const TirFunc *f, int param);
bool tir_tma_same_box(const TmaMap *a, const TmaMap *b);
/* pipeline.c: do f's TMA rings free a slot through a barrier per slot (true:
 * more than one warpgroup) or a barrier of the whole block (one warpgroup)? */
bool tir_tma_free_barriers(const TirFunc *f);
/* pipeline.c: the bytes of a TMA ring's barriers (8 a slot, 16 with free barriers) */
int tir_tma_ring_barrier_bytes(const TirFunc *f, const TmaRing *r);
/* wgmma.c: the swizzle of an NVMMA buffer of s->nvmma bytes (16-byte chunks, as Triton's) */
SmemSwizzle dot_nvmma_swizzle_pattern(const DotStage *s);
/* tma_store.c: under sm_90a, a tensor descriptor's block store goes out by TMA from shared memory */
void tir_tma_store(Ctx *ctx, TirFunc *f);
/* tma_store.c: the ops before TMA store st, in its block, that only its pointer store (the
 * fallback for other targets) reads, in program order */
OpVec tir_tma_pointer_path(Arena *a, const Op *st);
typedef struct WgmmaDesc {
    int lbo, sbo;         /* leading / stride byte offsets */
    int mode;             /* swizzle mode field: 1 = 128B, 2 = 64B, 3 = 32B */
} WgmmaDesc;
WgmmaDesc dot_wgmma_desc(const DotStage *s);
const char *wgmma_type_name(DType d); /* f16, bf16, tf32, e4m3, e5m2, s8; NULL: no wgmma */
int wgmma_instr_k(DType in);          /* K of one wgmma: 16, 8 (tf32), 32 (8-bit) */
bool dot_wgmma_candidate(const TirFunc *f, const Op *dot); /* fits, and both operands will be in rings */
/* dot d's types, shape and accumulator layout allow wgmma, whatever its operands */
bool wgmma_dot_fits(const TirFunc *f, const Op *d);
/* the accumulator layout acc is in the wgmma map: chosen for wgmma, or mma.sync's with every warp on M */
bool wgmma_acc_layout(const TirFunc *f, const Layout *acc);
/* Marks the dots tir_pipeline left on mma.sync that wgmma can run as they
 * are: operands in NVMMA buffers read in place (a ring, a loop-invariant
 * operand's buffer) or A in registers (attention's p @ v); each waits for
 * its own group. */
void tir_wgmma(Ctx *ctx, TirFunc *f);
/* The ldmatrix reads of stage s into the fragment map m (the dot operand
 * layout at the operand's shape, `kwidth` elements per word), and the
 * address lane `lane` of `warp` gives in ldmatrix q (false: none). */
void dot_ldmatrix(const DotStage *s, const LayoutMap *m, int kwidth, DotLdmatrix *ld);
bool dot_ldmatrix_addr(const DotLdmatrix *ld, int lane, int warp, int q, int *row, int *col);
void dot_plan_stage(Arena *a, Op *op);
DType dot_fma_dtype(const Op *dot);
int dot_fma_b_offset(const Op *dot);
void dot_plan_fma(Op *dot);

/* layout_shape.c: the layouts of shape ops (reshape, join, split, permute,
 * flip), as bit maps.  Each map function fills `dst` from `src`. */
bool lmap_eq(const LayoutMap *a, const LayoutMap *b);
/* src at another shape of as many elements: each bit keeps its register, lane
 * or warp, its coordinate bit renamed through the row-major index (free) */
void lmap_reshape(const LayoutMap *src, int rank, const int *shape, LayoutMap *dst);
/* join's result: src with a new last dimension of 2 in a new first register bit */
void lmap_join(const LayoutMap *src, LayoutMap *dst);
/* the register bit that holds bit 0 of the last dimension, or -1 (lane/warp) */
int lmap_last_dim_reg(const LayoutMap *m);
/* split's result: src without the register bit of its last dimension (it must have one) */
void lmap_split(const LayoutMap *src, LayoutMap *dst);
/* src with every coordinate bit of `dim` in registers: each lane or warp bit
 * along dim swaps with a register bit of another dimension (or, with none
 * left, becomes a copy and the dim bit a new register bit) */
void lmap_in_registers(const LayoutMap *src, int dim, LayoutMap *dst);
/* result dimension k is src's dimension perm[k] */
void lmap_permute(const LayoutMap *src, const int *perm, LayoutMap *dst);
/* the register-index bits that hold coordinate bits of dim (flip: XOR them) */
unsigned lmap_dim_reg_mask(const LayoutMap *m, int dim);
bool lmap_dim_in_registers(const LayoutMap *m, int dim);
/* The layout of m: an existing blocked or linear layout of f with this map at
 * m's shape, else a new linear one. */
Layout *layout_linear(Arena *a, TirFunc *f, const LayoutMap *m);
/* The layout a shape op's result k has when nothing moves (from its operand's
 * layout), and the operand layout that lets a result layout stay where it is
 * (NULL: none). */
Layout *shape_result_layout(Arena *a, TirFunc *f, const Op *op);
Layout *shape_operand_layout(Arena *a, TirFunc *f, const Op *op, const Layout *res);
bool op_is_shape(OpKind k);   /* reshape, join, split, flip */
bool flip_in_registers(const Op *op); /* else it goes through shared memory */
void layout_describe_linear(StrBuf *out, const Layout *l);

/* Layout geometry of blocked layouts, shared by the emitter and the tests. */
int layout_elems_per_thread(const Layout *l);
int layout_reps(const Layout *l, int dim);
/* Coordinate (along dim) of register element `reg` for the thread whose base
 * coordinate is 0: the constant part of the owned-element formula. */
int layout_reg_offset(const Layout *l, int reg, int dim);
/* Contiguous elements per thread along the layout's fastest dimension. */
int layout_contig_per_thread(const Layout *l);
/* Default blocked encoding for a shape. */
void layout_build(Layout *l, int rank, const int *shape, const int *spt, const int *order, int num_warps);
/* Coalesced elements per thread for one memory op. */
int coalesce_elems_per_thread(const AxisInfo *ptr_ax, Type ptr_type, int num_warps, const int *order);
void order_from_contiguity(const AxisInfo *ax, int rank, int *order);

#endif

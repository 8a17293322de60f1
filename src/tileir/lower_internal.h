/*
 * lower_internal.h — shared state of the AST → tile IR lowering
 * (lower.c: statements, names, calls; lower_ops.c: typed operations and
 * Triton's promotion rules; builtins.c: the table of callable builtins and
 * their argument binder; lower_builtins.c, lower_tiles.c, lower_random.c:
 * the builtins' handlers).
 *
 * During lowering every expression evaluates to a CVal: either a
 * compile-time Python object (int, float, bool, str, None, dtype, tuple,
 * function, module...) or an IR Value.  Python objects fold with Python
 * semantics; as soon as an IR Value is involved, Triton's rules apply.
 */
#ifndef TILEC_LOWER_INTERNAL_H
#define TILEC_LOWER_INTERNAL_H

#include "builtins.h"
#include "tir.h"

typedef enum CKind {
    CV_UNKNOWN,   /* a runtime value seen from a heuristic: cannot fold */
    CV_NONE,      /* None */
    CV_INT,       /* i */
    CV_FLOAT,     /* f */
    CV_BOOL,      /* i (0/1) */
    CV_STR,       /* s, slen */
    CV_DTYPE,     /* dt (a scalar Type; DT_PTR with pointee for pointer types) */
    CV_TUPLE,     /* items */
    CV_DICT,      /* items = keys, vals */
    CV_FUNC,      /* func: a jit function */
    CV_LAMBDA,    /* node: an N_LAMBDA */
    CV_MODULE,    /* s: canonical module name ("tl", "libdevice", "triton", "math"), or
                     mod: a project module (s its dotted name) */
    CV_BUILTIN,   /* s: canonical function name ("tl.load", "range", ...) */
    CV_METHOD,    /* s: method name, self: receiver */
    CV_CONSTEXPR_ANN, /* the tl.constexpr marker itself */
    CV_VALUE,     /* v: an IR value */
    CV_BLOCKPTR,  /* bp: a block pointer (tl.make_block_ptr), lower_blockptr.c */
    CV_TENSORDESC,/* bp: a tensor descriptor (tl.make_tensor_descriptor, a tensordesc parameter) */
} CKind;

/* A block pointer or a tensor descriptor: a structure of scalars that exists only at
 * translation time.  A load through it becomes a tile of pointers
 *     base + sum over d of (offsets[d] + arange(0, block[d])) * strides[d]
 * with a mask from the bounds checked (lower_blockptr.c). */
typedef struct BlockPtr {
    int rank;
    struct CVal *base;                /* a scalar pointer value */
    struct CVal *shape[TIR_MAX_RANK]; /* Python ints or scalar integer values */
    struct CVal *strides[TIR_MAX_RANK];
    struct CVal *offsets[TIR_MAX_RANK]; /* block pointers only: int32 */
    struct CVal *ptrs;                /* where a loop carries it: the pointer tile at the offsets */
    int block[TIR_MAX_RANK];
    int order[TIR_MAX_RANK];          /* block pointers: a layout hint, checked only */
    bool nan_padding;                 /* descriptors: out-of-bounds reads give NaN, not 0 */
    const char *name;                 /* the variable first bound to it, for the tiles' names */
    int param;                        /* a tensordesc parameter: f->params index + 1 of its base */
} BlockPtr;

typedef struct CVal CVal;
struct CVal {
    CKind kind;
    int64_t i;
    double f;
    const char *s;
    int slen;
    Type dt;
    Vec(CVal *) items;
    Vec(CVal *) vals;
    FuncDef *func;
    Module *mod;          /* CV_MODULE: a module of the project (NULL: one of Triton's) */
    Node *node;
    CVal *self;
    Value *v;
    BlockPtr *bp;         /* CV_BLOCKPTR, CV_TENSORDESC */
};

typedef struct Binding {
    const char *name;
    CVal *val;
} Binding;

typedef struct Env {
    Vec(Binding) b;
} Env;

/* The statements that follow the one being lowered, to the end of the helper: the rest
 * of the innermost body, then of each enclosing one (lower_body keeps the chain). */
typedef struct Rest {
    NodeList *body;
    int next;              /* the first statement of body still to come */
    const struct Rest *up; /* the enclosing body's rest; NULL at the helper's body */
} Rest;

typedef struct PyEval PyEval;

/* A module-level name, resolved once (lower_imports.c). */
typedef struct ModuleName {
    Module *m;
    const char *name;
    CVal *val;           /* NULL while it is being resolved: meeting it again is a cycle */
    const char *why;     /* set when it did not resolve: asked again, it fails again at once */
} ModuleName;

typedef struct LoadedFile {
    const char *path;
    Module *m;           /* NULL: there is no such file */
} LoadedFile;

typedef struct Lower {
    Ctx *ctx;
    PyEval *py;          /* host Python of decorator arguments */
    Arena *a;
    Module *m;             /* the module whose names are in scope: the helper's file */
    Module *kernel_module; /* the kernel's file */
    TirFunc *f;
    const LowerOptions *opt;
    Block *cur;
    const SrcStmt *stmt;
    Env *env;
    int depth;             /* helper inlining depth */
    int nest;              /* expression/statement recursion depth */
    int stmts;             /* statements lowered so far, unrolled loops counted per trip */
    bool in_helper;
    const char *helper;    /* name of the helper being inlined */
    int call_line;         /* line of the statement that called it */
    CVal *ret;             /* helper return value */
    bool returned;         /* the current straight-line path has returned */
    const Rest *rest;      /* what follows the current statement in the helper */
    int loops;             /* loops around the current statement, in this helper */
    Vec(Binding) global_cache;

    Vec(ModuleName) names;        /* module-level names resolved so far */
    Vec(LoadedFile) files;        /* imported files, parsed once */
    Vec(const char *) call_stack; /* helper names, for recursion errors */
    const Source *lines_of;  /* the file line_start indexes */
    int *line_start;       /* byte offset of each line, 1-based index */
    int nlines;
    bool debug;
} Lower;

/* constructors */
CVal *cv_int(Lower *L, int64_t i);
CVal *cv_float(Lower *L, double f);
CVal *cv_bool(Lower *L, bool b);
CVal *cv_str(Lower *L, const char *s, int n);
CVal *cv_none(Lower *L);
CVal *cv_dtype(Lower *L, Type t);
CVal *cv_value(Lower *L, Value *v);
CVal *cv_builtin(Lower *L, const char *name);
const char *cv_describe(Lower *L, const CVal *c);
bool cv_is_python_scalar(const CVal *c);
bool cv_truthy(Lower *L, const CVal *c, Loc loc);
int64_t const_int(Lower *L, CVal *c, Loc loc, const char *what);
Type parse_dtype_cval(Lower *L, CVal *c, Loc loc);  /* tl.float32, 'fp32'... */

/* IR building */
Op *emit_op(Lower *L, OpKind kind, Loc loc, int nargs, Value **args, Type res);
Value *emit1(Lower *L, OpKind kind, Loc loc, int nargs, Value **args, Type res);
Value *emit_const_int(Lower *L, DType d, int64_t v, Loc loc);
Value *emit_const_float(Lower *L, DType d, double v, Loc loc);
Value *to_value(Lower *L, CVal *c, Loc loc);                 /* Python scalar -> constant */
Value *cast_value(Lower *L, Value *v, Type elem, Loc loc);   /* Triton's cast rules */
Value *splat_to(Lower *L, Value *v, Type shaped, Loc loc);
Value *lower_expand_dims(Lower *L, Value *v, int axis, Loc loc);
Value *lower_permute(Lower *L, Value *v, const int *perm, Loc loc);   /* result dim k = input dim perm[k] */
Value *broadcast_to_shape(Lower *L, Value *v, int rank, const int *shape, Loc loc);
void broadcast_pair(Lower *L, Value **a, Value **b, Loc loc);
int broadcast_all(Lower *L, Value **vals, int n, const Loc *at, Loc loc, int *shape);
CVal *lower_binop(Lower *L, TokenKind op, CVal *a, CVal *b, Loc loc);
CVal *lower_compare(Lower *L, TokenKind op, CVal *a, CVal *b, Loc loc);
CVal *lower_unary(Lower *L, TokenKind op, CVal *a, Loc loc);
Value *lower_where(Lower *L, Value *c, CVal *x, CVal *y, Loc loc);
Value *lower_minmax(Lower *L, bool is_max, CVal *x, CVal *y, Loc loc);
Value *to_bool(Lower *L, Value *v, Loc loc);
/* errors out when d is fp8: Triton has no fp8 arithmetic (what: "'+'", "tl.sum"...) */
void check_not_fp8_arith(Lower *L, DType d, const char *what, Loc loc);
DType literal_dtype(Lower *L, const CVal *c, Loc loc);
Type value_type_of(Lower *L, CVal *c, Loc loc);

/* ---- builtins (builtins.h: the table; builtins.c: binder and dispatch) ---- */

/* One call of a builtin, its arguments bound to the row's parameters. */
typedef struct BuiltinCall {
    Lower *L;
    const char *name;     /* for messages: "tl.sum", ".sum()" (a method), "abs()" */
    Node *call;           /* the N_CALL */
    Loc loc;              /* the call's location */
    CVal **arg;           /* one per parameter; NULL: an optional one whose default is None */
    Loc *at;              /* where each argument was written (the call when not given) */
    const Loc *rest_at;   /* where each item of the "*name" parameter's tuple was written */
    int data;             /* the row's data */
} BuiltinCall;

typedef CVal *BuiltinFn(const BuiltinCall *c);
#define X(name, flags, handler, data, params) BuiltinFn builtin_##handler;
#define LATER(name, flags, what)
BUILTIN_LIST(X, LATER)
#undef X
#undef LATER
BuiltinFn builtin_math1, builtin_math2; /* the MATH_LIST / MATH2_LIST rows */

/* f(...) where f is a CV_BUILTIN named `name`, and x.f(...) where `method`
 * is a CV_METHOD: find the row, bind the arguments, run the handler. */
CVal *lower_builtin_call(Lower *L, const char *name, Node *call, CVal **args, int nargs,
                         const char **kwnames, CVal **kwvals, int nkw);
CVal *lower_method_call(Lower *L, CVal *method, Node *call, CVal **args, int nargs,
                        const char **kwnames, CVal **kwvals, int nkw);
/* Binds a call to the parameters of builtin `name` without running it (for loop
 * headers): the arguments in parameter order, NULL where None or not given. */
CVal **lower_bind_builtin(Lower *L, const char *name, Node *call, CVal **args, int nargs,
                          const char **kwnames, CVal **kwvals, int nkw);
CVal *lower_attribute(Lower *L, CVal *base, const char *attr, Loc loc);

/* lower_blockptr.c: block pointers and tensor descriptors.  Loads and stores through a
 * block pointer come here from tl.load / tl.store; the loops carry a block pointer's
 * offsets as `rank` scalars (its base, shape and strides are invariant). */
Value *blockptr_load(Lower *L, const BlockPtr *bp, CVal *boundary_check, Loc check_at, CVal *padding,
                     Loc padding_at, bool is_volatile, Loc loc);
void blockptr_store(Lower *L, const BlockPtr *bp, CVal *value, Loc value_at, CVal *boundary_check,
                    Loc check_at, Loc loc);
/* c as a loop carries it: a block pointer with its pointer tile (computed here, before the loop) */
CVal *carry_prepare(Lower *L, CVal *c, Loc loc);
/* values a loop carries for c: a block pointer's offsets (and its pointer tile), else 1 */
int carry_width(const CVal *c);
/* the values of `now` for a name carried as `tmpl` (its width) */
void carry_values(Lower *L, CVal *tmpl, CVal *now, Value **out, Loc loc);
CVal *carry_rebuild(Lower *L, CVal *init, Value **vals);
/* the name of carried value k of `c`, bound to `name`: "ptr_off1", "ptr_ptrs" */
const char *carry_part_name(Lower *L, const char *name, const CVal *c, int k);
/* the values at the end of a loop body for a name that was bound to `init` */
void carry_yield(Lower *L, const char *name, CVal *init, CVal *now, Value **out, Loc loc);
/* errors out unless `other` is block pointer `bp` with other offsets (the paths of a runtime if) */
void blockptr_same_but_offsets(Lower *L, const char *name, CVal *bp, CVal *other, Loc loc);
/* a `tensordesc<fp16[64, 64]>` parameter: its runtime parameters, bound as one descriptor */
bool is_tensordesc_sig(const char *text);
CVal *tensordesc_param(Lower *L, const char *name, const char *text, Loc loc);

/* shared with lower.c */
CVal *lower_expr(Lower *L, Node *n);

/* lower_imports.c: names at module level, imports, the project's modules */
/* NULL: unbound, or (*why set) bound only by imports that lead nowhere */
CVal *lower_module_name(Lower *L, Module *m, const char *name, Loc loc, const char **why);
CVal *lower_module_attr(Lower *L, CVal *mod, const char *attr, Loc loc);
CVal *cv_module(Lower *L, const char *name);
const char *canonical_module(const char *path);
/* lower_torch.c: torch's dtypes and torch.finfo / torch.iinfo at translation time */
CVal *lower_torch_attr(Lower *L, const char *attr);
CVal *lower_torch_info_attr(Lower *L, CVal *base, const char *attr, Loc loc);

NORETURN void lower_error(Lower *L, Loc loc, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* lower.c, for lower_kernel.c: the environment of names, the statements' source
 * lines, a kernel body, and calls of lambdas */
CVal *env_get(Env *e, const char *name);
void env_set(Lower *L, Env *e, const char *name, CVal *v);
Env *env_copy(Lower *L, const Env *e);
void index_lines(Lower *L, const Source *src);
bool is_constexpr_annotation(Lower *L, Node *ann);
void lower_body(Lower *L, NodeList *body);
CVal *call_lambda(Lower *L, CVal *lam, Node *call, CVal **args, int nargs);
/* a call of jit function fd with positional arguments, inlined (tl.reduce's combine) */
CVal *lower_inline_call(Lower *L, FuncDef *fd, Node *call, CVal **args, int nargs);

#endif

/* tir.c — types, construction, printing, verification and simplification of the tile IR. */
#include "tir.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- dtypes ------------------------------------------------------------- */

static const struct {
    const char *name, *triton, *ctype;
    int bits;
    char cls;
} dtype_info[] = {
#define X(e, s, t, c, b, k) {.name = s, .triton = t, .ctype = c, .bits = b, .cls = k},
    DTYPE_LIST(X)
#undef X
};

const char *dtype_name(DType d) { return dtype_info[d].name; }
const char *dtype_triton_name(DType d) { return dtype_info[d].triton; }
const char *dtype_ctype(DType d) { return dtype_info[d].ctype; }
const char *dtype_memory_ctype(DType d) { return d == DT_I1 ? "int8_t" : dtype_info[d].ctype; }
int dtype_bits(DType d) { return dtype_info[d].bits; }
bool dtype_is_float(DType d) { return dtype_info[d].cls == 'f'; }
bool dtype_is_int(DType d) { return strchr("bsu", dtype_info[d].cls) != NULL; }
bool dtype_is_signed(DType d) { return dtype_info[d].cls == 's'; }
bool dtype_is_ptr(DType d) { return d == DT_PTR; }
bool dtype_is_fp8(DType d) { return d == DT_FP8E4NV || d == DT_FP8E5; }

int dtype_from_name(const char *s)
{
    static const struct { const char *alias; DType d; } aliases[] = {
        {"bool", DT_I1}, {"int1", DT_I1}, {"f16", DT_FP16}, {"f32", DT_FP32}, {"f64", DT_FP64},
        {"half", DT_FP16}, {"float", DT_FP32}, {"double", DT_FP64}, {"b1", DT_I1},
        {"fp8e4", DT_FP8E4NV}, {"float8_e4m3fn", DT_FP8E4NV}, {"float8_e5m2", DT_FP8E5},
        {"float8e4nv", DT_FP8E4NV}, {"float8e5", DT_FP8E5},
    };
    for (int i = 0; i < DT__COUNT; i++)
        if (i != DT_PTR && (!strcmp(s, dtype_info[i].name) || !strcmp(s, dtype_info[i].triton)))
            return i;
    for (size_t i = 0; i < ARRAY_LEN(aliases); i++)
        if (!strcmp(s, aliases[i].alias))
            return (int)aliases[i].d;
    return -1;
}

/* ---- types -------------------------------------------------------------- */

Type type_scalar(DType d)
{
    Type t = {0};
    t.dtype = d;
    return t;
}

Type type_ptr(DType pointee)
{
    Type t = {0};
    t.dtype = DT_PTR;
    t.pointee = pointee;
    return t;
}

Type type_ptr_to(Type elem)
{
    Type t = type_ptr(elem.dtype);
    if (elem.dtype == DT_PTR) {
        if (elem.pointee == DT_PTR)
            BUG("a pointer to a pointer to a pointer");
        t.inner = elem.pointee;
    }
    return t;
}

Type type_pointee(Type ptr)
{
    return ptr.pointee == DT_PTR ? type_ptr(ptr.inner) : type_scalar(ptr.pointee);
}

const char *type_pointee_ctype(Arena *a, Type ptr)
{
    if (ptr.pointee == DT_PTR)
        return arena_printf(a, "%s *", dtype_memory_ctype(ptr.inner));
    return dtype_memory_ctype(ptr.pointee);
}

char *type_sig_str(Arena *a, Type t)
{
    if (t.dtype != DT_PTR)
        return arena_strdup(a, dtype_name(t.dtype));
    if (t.pointee == DT_PTR)
        return arena_printf(a, "**%s", dtype_name(t.inner));
    return arena_printf(a, "*%s", dtype_name(t.pointee));
}

Type type_tensor(Type elem, int rank, const int *shape)
{
    Type t = elem;
    t.rank = rank;
    for (int i = 0; i < rank; i++)
        t.shape[i] = shape[i];
    return t;
}

Type type_elem(Type t)
{
    t.rank = 0;
    memset(t.shape, 0, sizeof t.shape);
    return t;
}

bool type_eq(Type a, Type b)
{
    if (a.dtype != b.dtype || a.rank != b.rank)
        return false;
    if (a.dtype == DT_PTR && (a.pointee != b.pointee || (a.pointee == DT_PTR && a.inner != b.inner)))
        return false;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != b.shape[i])
            return false;
    return true;
}

int type_numel(Type t)
{
    int n = 1;
    for (int i = 0; i < t.rank; i++)
        n *= t.shape[i];
    return n;
}

char *type_str(Arena *a, Type t)
{
    StrBuf sb = {0};
    if (t.rank)
        sb_puts(&sb, "tensor<");
    for (int i = 0; i < t.rank; i++)
        sb_printf(&sb, "%dx", t.shape[i]);
    if (t.dtype == DT_PTR && t.pointee == DT_PTR)
        sb_printf(&sb, "ptr<ptr<%s>>", dtype_name(t.inner));
    else if (t.dtype == DT_PTR)
        sb_printf(&sb, "ptr<%s>", dtype_name(t.pointee));
    else
        sb_puts(&sb, dtype_name(t.dtype));
    if (t.rank)
        sb_puts(&sb, ">");
    char *s = arena_strdup(a, sb.data);
    sb_free(&sb);
    return s;
}

/* ---- ops ---------------------------------------------------------------- */

static const struct {
    const char *name, *flags;
} op_info[] = {
#define X(e, s, f) {s, f},
    OP_LIST(X)
#undef X
};

const char *op_name(OpKind k) { return op_info[k].name; }
bool op_is_elementwise(OpKind k) { return strchr(op_info[k].flags, 'E') != NULL; }
bool op_is_pure(OpKind k) { return strchr(op_info[k].flags, 'P') != NULL; }

Op *tir_block_last(const Block *b) { return b->ops.len ? b->ops.data[b->ops.len - 1] : NULL; }

Block *tir_block_new(Arena *a, Op *parent)
{
    Block *b = NEW(a, Block);
    b->parent = parent;
    return b;
}

Value *tir_value_new(Arena *a, TirFunc *f, Type t)
{
    Value *v = NEW(a, Value);
    v->id = f->nvalues++;
    v->type = t;
    return v;
}

Op *tir_op_new(Arena *a, TirFunc *f, OpKind kind, int nargs, Value **args, int nres, const Type *res_types)
{
    Op *op = NEW(a, Op);
    op->kind = kind;
    op->nargs = nargs;
    op->args = NEW_ARRAY(a, Value *, nargs ? nargs : 1);
    for (int i = 0; i < nargs; i++)
        op->args[i] = args[i];
    op->nres = nres;
    op->results = NEW_ARRAY(a, Value *, nres ? nres : 1);
    for (int i = 0; i < nres; i++) {
        op->results[i] = tir_value_new(a, f, res_types[i]);
        op->results[i]->def = op;
    }
    return op;
}

void tir_block_append(Arena *a, Block *b, Op *op)
{
    op->parent = b;
    vec_push(a, &b->ops, op);
}

void tir_block_insert(Arena *a, Block *b, int at, Op *op)
{
    op->parent = b;
    vec_push(a, &b->ops, op);
    memmove(&b->ops.data[at + 1], &b->ops.data[at], (size_t)(b->ops.len - 1 - at) * sizeof(Op *));
    b->ops.data[at] = op;
}

void tir_block_remove(Block *b, int at)
{
    if (at < 0 || at >= b->ops.len)
        BUG("removing op %d of a block of %d", at, b->ops.len);
    memmove(&b->ops.data[at], &b->ops.data[at + 1], (size_t)(b->ops.len - at - 1) * sizeof(Op *));
    b->ops.len--;
}

bool opvec_has(const OpVec *v, const Op *op)
{
    for (int i = 0; i < v->len; i++)
        if (v->data[i] == op)
            return true;
    return false;
}

/* The attribute union is Op's tail (tir.h), and C names no type for it to assign. */
void tir_op_copy_attrs(Op *to, const Op *from)
{
    size_t at = offsetof(Op, constant);
    memcpy((char *)to + at, (const char *)from + at, sizeof(Op) - at);
}

Value *tir_copy_mask(const Op *op) { return op->async_copy.has_mask ? op->args[3] : NULL; }

/* ---- printing ----------------------------------------------------------- */

typedef struct Printer {
    StrBuf *out;
    const TirFunc *f;
    bool analyses;
    Arena scratch;
} Printer;

static void print_value(Printer *p, const Value *v)
{
    sb_printf(p->out, "%%%d", v->id);
}

static void print_indent(Printer *p, int depth)
{
    for (int i = 0; i < depth; i++)
        sb_puts(p->out, "  ");
}

static const char *const cmp_names[] = {"lt", "le", "gt", "ge", "eq", "ne"};
static const char *const math_names[] = {
#define X(e, n, f, d, z) n,
    MATH_LIST(X)
#undef X
};
static const char *const math2_names[] = {
#define X(e, n, f, d) n,
    MATH2_LIST(X)
#undef X
};

const char *math_fn_name(MathFn fn) { return math_names[fn]; }
const char *math2_fn_name(Math2Fn fn) { return math2_names[fn]; }

static void print_block(Printer *p, const Block *b, int depth);

static const char *const reduce_names[] = {
#define X(e, n) n,
    REDUCE_LIST(X)
#undef X
};

static const char *const atomic_names[] = {
#define X(e, n) n,
    ATOMIC_LIST(X)
#undef X
};

const char *reduce_name(ReduceKind k) { return reduce_names[k]; }

static void print_op_attrs(Printer *p, const Op *op)
{
    switch (op->kind) {
    case OP_CONST: {
        Type t = op->results[0]->type;
        if (dtype_is_float(t.dtype))
            sb_printf(p->out, " %.17g", op->constant.fval);
        else
            sb_printf(p->out, " %lld", (long long)op->constant.ival);
        break;
    }
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: sb_printf(p->out, " {axis=%d}", op->program_id.axis); break;
    case OP_EXPAND_DIMS: sb_printf(p->out, " {axis=%d}", op->expand_dims.axis); break;
    case OP_RESHAPE:
        if (op->reshape.can_reorder)
            sb_puts(p->out, " {can_reorder}");
        break;
    case OP_SPLIT: sb_printf(p->out, " {half=%d}", op->split.half); break;
    case OP_FLIP: sb_printf(p->out, " {axis=%d}", op->flip.axis); break;
    case OP_GATHER: sb_printf(p->out, " {axis=%d}", op->gather.axis); break;
    case OP_MAKE_RANGE:
        sb_printf(p->out, " {start=%lld, end=%lld}", (long long)op->make_range.start, (long long)op->make_range.end);
        break;
    case OP_CMP: sb_printf(p->out, " %s", cmp_names[op->cmp.pred]); break;
    case OP_MATH: sb_printf(p->out, " %s", math_names[op->math.fn]); break;
    case OP_MATH2: sb_printf(p->out, " %s", math2_names[op->math2.fn]); break;
    case OP_CAST:
        if (op->cast.rtz)
            sb_puts(p->out, " {rounding=rtz}");
        break;
    case OP_LOAD:
        if (op->load.is_volatile)
            sb_puts(p->out, " {volatile}");
        if (op->load.desc_param)
            sb_printf(p->out, " {tensordesc=%s}", p->f->params.data[op->load.desc_param - 1].desc_name);
        break;
    case OP_STORE:
        if (op->store.desc_param)
            sb_printf(p->out, " {tensordesc=%s}", p->f->params.data[op->store.desc_param - 1].desc_name);
        if (op->store.tma_map)
            sb_printf(p->out, " {tma=%s}", p->f->tma_maps.data[op->store.tma_map - 1].name);
        break;
    case OP_MAP: sb_printf(p->out, " {fn=%s}", op->map.fn); break;
    case OP_REDUCE:
        if (op->reduce.kind == RED_COMBINE)
            sb_printf(p->out, " combine {axis=%d, fn=%s}", op->reduce.axis, op->reduce.combine);
        else
            sb_printf(p->out, " %s {axis=%d}", reduce_name(op->reduce.kind), op->reduce.axis);
        break;
    case OP_SCAN:
        if (op->scan.kind == SCAN_COMBINE)
            sb_printf(p->out, " combine {axis=%d%s, fn=%s}", op->scan.axis, op->scan.reverse ? ", reverse" : "",
                      op->scan.combine);
        else
            sb_printf(p->out, " %s {axis=%d%s}", op->scan.kind == SCAN_SUM ? "sum" : "prod", op->scan.axis,
                      op->scan.reverse ? ", reverse" : "");
        break;
    case OP_ATOMIC_RMW: sb_printf(p->out, " %s", atomic_names[op->atomic.kind]); break;
    case OP_ASYNC_COPY:
        if (op->async_copy.tma)
            sb_printf(p->out, " {tma=%s, ring=%d}", p->f->tma_maps.data[op->async_copy.tma_map].name,
                      op->async_copy.tma - 1);
        break;
    case OP_ASYNC_WAIT:
        if (op->async_wait.tma)
            sb_printf(p->out, " {tma ring=%d}", op->async_wait.tma - 1);
        break;
    case OP_FOR:
        if (op->for_.unroll)
            sb_printf(p->out, " {unroll=%d}", op->for_.unroll);
        if (op->for_.wgmma_drain)
            sb_puts(p->out, " {wgmma_drain}");
        break;
    case OP_INLINE_ASM:
        sb_printf(p->out, " {pack=%d, outs=\"%s\", ins=\"%s\"%s%s}", op->inline_asm.pack, op->inline_asm.outs,
                  op->inline_asm.ins, op->inline_asm.is_pure ? ", pure" : "", op->inline_asm.clobbers_memory ? ", memory" : "");
        break;
    case OP_SORT:
        sb_printf(p->out, " {%s%s}", op->sort.descending ? "descending" : "ascending",
                  op->sort.merge_only ? ", merge only" : "");
        if (op->sort.k)
            sb_printf(p->out, " {k=%d}", op->sort.k);
        break;
    case OP_PRINT: sb_printf(p->out, " \"%s\"", op->print.prefix ? op->print.prefix : ""); break;
    case OP_ASSERT: sb_printf(p->out, " \"%s\"", op->assert_.msg ? op->assert_.msg : ""); break;
    default: break;
    }
}

static void print_analyses(Printer *p, const Value *v)
{
    if (!p->analyses)
        return;
    if (v->ax.rank || dtype_is_int(v->type.dtype) || v->type.dtype == DT_PTR)
        sb_printf(p->out, " %s", axisinfo_str(&p->scratch, &v->ax));
    if (v->layout)
        sb_printf(p->out, " #L%d", v->layout->id);
}

static void print_op(Printer *p, const Op *op, int depth)
{
    print_indent(p, depth);
    for (int i = 0; i < op->nres; i++) {
        if (i)
            sb_puts(p->out, ", ");
        print_value(p, op->results[i]);
    }
    if (op->nres)
        sb_puts(p->out, " = ");
    sb_puts(p->out, op_name(op->kind));
    print_op_attrs(p, op);
    for (int i = 0; i < op->nargs; i++) {
        sb_puts(p->out, i ? ", " : " ");
        print_value(p, op->args[i]);
    }
    if (op->nres) {
        sb_puts(p->out, " : ");
        for (int i = 0; i < op->nres; i++) {
            if (i)
                sb_puts(p->out, ", ");
            sb_puts(p->out, type_str(&p->scratch, op->results[i]->type));
        }
    }
    for (int i = 0; i < op->nres; i++)
        if (op->results[i]->name)
            sb_printf(p->out, "%s\"%s\"", i ? ", " : "  // ", op->results[i]->name);
    if (op->nres == 1)
        print_analyses(p, op->results[0]);
    sb_putc(p->out, '\n');
    for (int r = 0; r < op->nregions; r++) {
        const Block *b = op->regions[r];
        print_indent(p, depth);
        sb_puts(p->out, r == 0 ? "{" : "} else {");
        if (op->kind == OP_WHILE)
            sb_puts(p->out, r == 0 ? "  // before" : "  // after");
        sb_putc(p->out, '\n');
        print_block(p, b, depth + 1);
    }
    if (op->nregions) {
        print_indent(p, depth);
        sb_puts(p->out, "}\n");
    }
}

static void print_block(Printer *p, const Block *b, int depth)
{
    if (b->args.len) {
        print_indent(p, depth);
        sb_puts(p->out, "^args(");
        for (int i = 0; i < b->args.len; i++) {
            const Value *v = b->args.data[i];
            if (i)
                sb_puts(p->out, ", ");
            print_value(p, v);
            sb_printf(p->out, ": %s", type_str(&p->scratch, v->type));
            if (v->name)
                sb_printf(p->out, " \"%s\"", v->name);
        }
        sb_puts(p->out, ")\n");
    }
    for (int i = 0; i < b->ops.len; i++)
        print_op(p, b->ops.data[i], depth);
}

void tir_print(StrBuf *out, const TirFunc *f, bool with_analyses)
{
    Printer p = {out, f, with_analyses, {0}};
    sb_printf(out, "func @%s(", f->name);
    int n = 0;
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (!kp->value)
            continue;
        if (n++)
            sb_puts(out, ", ");
        print_value(&p, kp->value);
        sb_printf(out, ": %s \"%s\"", type_str(&p.scratch, kp->type), kp->name);
        if (kp->div > 1)
            sb_printf(out, " {divisibility=%lld}", (long long)kp->div);
        if (with_analyses)
            print_analyses(&p, kp->value);
    }
    sb_printf(out, ") num_warps=%d {\n", f->num_warps);
    for (int i = 0; i < f->params.len; i++) {
        const KernelParam *kp = &f->params.data[i];
        if (!kp->value)
            sb_printf(out, "  // constexpr %s = %s\n", kp->name, kp->spec_text ? kp->spec_text : "?");
    }
    print_block(&p, f->body, 1);
    sb_puts(out, "}\n");
    arena_free(&p.scratch);
}

char *axisinfo_str(Arena *a, const AxisInfo *ax)
{
    StrBuf sb = {0};
    const int64_t *vecs[3] = {ax->contiguity, ax->divisibility, ax->constancy};
    const char *names[3] = {"contig", "div", "const"};
    sb_puts(&sb, "{");
    for (int k = 0; k < 3; k++) {
        sb_printf(&sb, "%s%s=[", k ? ", " : "", names[k]);
        for (int d = 0; d < (ax->rank ? ax->rank : 1); d++) {
            int64_t x = ax->rank ? vecs[k][d] : 1;
            if (x >= ((int64_t)1 << 62))
                sb_printf(&sb, "%s2^62", d ? "," : "");
            else
                sb_printf(&sb, "%s%lld", d ? "," : "", (long long)x);
        }
        sb_puts(&sb, "]");
    }
    if (ax->has_const)
        sb_printf(&sb, ", value=%lld", (long long)ax->const_value);
    sb_puts(&sb, "}");
    char *s = arena_strdup(a, sb.data);
    sb_free(&sb);
    return s;
}

/* ---- verifier ----------------------------------------------------------- */

static void verify_block(TirFunc *f, const Block *b, unsigned char *defined);

static bool is_permutation(const int *perm, int n)
{
    unsigned seen = 0;
    for (int k = 0; k < n; k++) {
        if (perm[k] < 0 || perm[k] >= n || (seen >> perm[k] & 1))
            return false;
        seen |= 1u << perm[k];
    }
    return true;
}

/* Does every op of b read only values defined in `region` (b or a block inside it)? */
static bool reads_only_within(const Block *b, const Block *region)
{
    for (int i = 0; i < b->ops.len; i++) {
        const Op *o = b->ops.data[i];
        for (int k = 0; k < o->nargs; k++) {
            const Block *at = o->args[k]->def ? o->args[k]->def->parent : o->args[k]->block;
            while (at && at != region)
                at = at->parent ? at->parent->parent : NULL;
            if (!at)
                return false;
        }
        for (int r = 0; r < o->nregions; r++)
            if (!reads_only_within(o->regions[r], region))
                return false;
    }
    return true;
}

/* A combine function's region (tir.h, RED_COMBINE): N operands of one shape, N results,
 * 2N scalar arguments of the operands' element types, a yield of N of them, nothing read
 * from outside. */
static bool combine_ok(const Op *op)
{
    int n = op->nargs;
    if (op->nregions != 1 || op->nres != n || !(op->kind == OP_REDUCE ? op->reduce.combine : op->scan.combine))
        return false;
    const Block *b = op->regions[0];
    const Op *y = tir_block_last(b);
    if (b->args.len != 2 * n || !y || y->kind != OP_YIELD || y->nargs != n)
        return false;
    for (int k = 0; k < n; k++) {
        Type e = type_elem(op->args[k]->type);
        if (!type_eq(b->args.data[k]->type, e) || !type_eq(b->args.data[n + k]->type, e) || !type_eq(y->args[k]->type, e))
            return false;
        if (op->args[k]->type.rank != op->args[0]->type.rank)
            return false;
        for (int d = 0; d < op->args[0]->type.rank; d++)
            if (op->args[k]->type.shape[d] != op->args[0]->type.shape[d])
                return false;
    }
    return reads_only_within(b, b);
}

/* tl.map_elementwise: operands and results of one shape, a region taking one element of
 * each operand and yielding one of each result, reading nothing from outside. */
static bool map_ok(const Op *op)
{
    if (op->nregions != 1 || !op->nres || !op->nargs || !op->map.fn)
        return false;
    const Block *b = op->regions[0];
    const Op *y = tir_block_last(b);
    if (b->args.len != op->nargs || !y || y->kind != OP_YIELD || y->nargs != op->nres)
        return false;
    Type shape = op->args[0]->type;
    for (int k = 0; k < op->nargs + op->nres; k++) {
        const Value *v = k < op->nargs ? op->args[k] : op->results[k - op->nargs];
        if (v->type.rank != shape.rank || memcmp(v->type.shape, shape.shape, sizeof(int) * (size_t)shape.rank))
            return false;
        const Value *inner = k < op->nargs ? b->args.data[k] : y->args[k - op->nargs];
        if (!type_eq(inner->type, type_elem(v->type)))
            return false;
    }
    return reads_only_within(b, b);
}

/* tl.sort keeps its operand's type; tl.topk's result has k along the last dimension. */
static bool sort_result_ok(const Op *op)
{
    Type x = op->args[0]->type, r = op->results[0]->type;
    if (!op->sort.k)
        return type_eq(x, r);
    int last = x.rank - 1, k = op->sort.k;
    bool ok = r.rank == x.rank && r.dtype == x.dtype && r.shape[last] == k && (k & (k - 1)) == 0 && k < x.shape[last];
    for (int d = 0; d < last; d++)
        ok &= r.shape[d] == x.shape[d];
    return ok && op->sort.descending && !op->sort.merge_only;
}

/* The attributes of op's kind (Op's union) in range and agreeing with its operands. */
static bool attrs_ok(const Op *op)
{
    int rank = op->nargs ? op->args[0]->type.rank : 0;
    switch (op->kind) {
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: return op->program_id.axis >= 0 && op->program_id.axis < 3;
    case OP_MAKE_RANGE: return op->make_range.start < op->make_range.end;
    case OP_EXPAND_DIMS: return op->expand_dims.axis >= 0 && op->expand_dims.axis <= rank;
    case OP_CMP: return (unsigned)op->cmp.pred <= CMP_NE;
    case OP_MATH: return (unsigned)op->math.fn < MATH__COUNT;
    case OP_MATH2: return (unsigned)op->math2.fn < MATH2__COUNT;
    case OP_LOAD:
        return (op->load.has_mask || !op->load.has_other) &&
               op->nargs == 1 + op->load.has_mask + op->load.has_other + (op->load.desc_param ? 2 : 0);
    case OP_STORE: return op->nargs == 2 + op->store.has_mask + (op->store.desc_param ? 2 : 0);
    case OP_REDUCE:
        return op->reduce.axis >= 0 && op->reduce.axis < rank &&
               (op->reduce.kind == RED_COMBINE ? combine_ok(op) : !op->nregions);
    case OP_SCAN:
        return op->scan.axis >= 0 && op->scan.axis < rank &&
               (op->scan.kind == SCAN_COMBINE ? combine_ok(op) : !op->nregions);
    case OP_ATOMIC_RMW: return op->nargs == 2 + op->atomic.has_mask;
    case OP_ATOMIC_CAS: return op->nargs == 3 && !op->atomic.has_mask;
    case OP_TRANS: return is_permutation(op->trans.perm, rank);
    case OP_SORT: return rank >= 1 && op->nres == 1 && sort_result_ok(op);
    case OP_HISTOGRAM: return rank == 1 && op->nargs == 1 + op->histogram.has_mask && op->results[0]->type.rank == 1;
    case OP_MAP: return map_ok(op);
    case OP_INLINE_ASM: return op->nres >= 1 && op->inline_asm.pack >= 1 && op->inline_asm.text && op->inline_asm.outs &&
                               op->inline_asm.ins;
    case OP_RESHAPE: return type_numel(op->args[0]->type) == type_numel(op->results[0]->type);
    case OP_JOIN:
        return type_eq(op->args[0]->type, op->args[1]->type) && op->results[0]->type.rank == rank + 1 &&
               op->results[0]->type.shape[rank] == 2;
    case OP_SPLIT:
        return rank >= 1 && op->args[0]->type.shape[rank - 1] == 2 && op->results[0]->type.rank == rank - 1 &&
               (op->split.half == 0 || op->split.half == 1);
    case OP_FLIP: return op->flip.axis >= 0 && op->flip.axis < rank;
    case OP_GATHER:
        return op->gather.axis >= 0 && op->gather.axis < rank && op->args[1]->type.rank == rank &&
               type_eq(op->results[0]->type, type_tensor(type_elem(op->args[0]->type), rank, op->args[1]->type.shape));
    case OP_ASYNC_WAIT: return op->async_wait.pending >= 0;
    case OP_LOCAL_LOAD:
        return op->nres == 1 && op->stage &&
               (op->nargs == 1 || (!op->nargs && op->buf && op->buf->kind == OP_LOCAL_ALLOC));
    case OP_LOCAL_ALLOC:
        return op->nargs == 1 && !op->nres && op->stage && op->buf && op->buf->kind == OP_LOCAL_LOAD &&
               op->buf->buf == op;
    default: return true;
    }
}

static void verify_op(TirFunc *f, const Op *op, const Block *b, unsigned char *defined)
{
    if (op->parent != b)
        BUG("op %s has a wrong parent block", op_name(op->kind));
    for (int i = 0; i < op->nargs; i++) {
        const Value *v = op->args[i];
        if (!v)
            BUG("op %s has a null operand %d", op_name(op->kind), i);
        if (!defined[v->id])
            BUG("op %s uses %%%d before its definition", op_name(op->kind), v->id);
    }
    if (!attrs_ok(op))
        BUG("op %s has attributes that do not fit its operands", op_name(op->kind));
    if (op_is_elementwise(op->kind) && op->kind != OP_SPLAT && op->kind != OP_CONST)
        for (int i = 0; i < op->nargs; i++)
            if (op->args[i]->type.rank != op->results[0]->type.rank)
                BUG("elementwise op %s mixes ranks", op_name(op->kind));
    for (int r = 0; r < op->nregions; r++) {
        const Block *rb = op->regions[r];
        if (rb->parent != op)
            BUG("region of %s has a wrong parent", op_name(op->kind));
        verify_block(f, rb, defined);
        const Op *last = tir_block_last(rb);
        OpKind want = (op->kind == OP_WHILE && r == 0) ? OP_CONDITION : OP_YIELD;
        if (!last || (last->kind != want && last->kind != OP_RETURN))
            BUG("region %d of %s does not end in %s", r, op_name(op->kind), op_name(want));
    }
    for (int i = 0; i < op->nres; i++)
        defined[op->results[i]->id] = 1;
}

static void verify_block(TirFunc *f, const Block *b, unsigned char *defined)
{
    for (int i = 0; i < b->args.len; i++)
        defined[b->args.data[i]->id] = 1;
    for (int i = 0; i < b->ops.len; i++)
        verify_op(f, b->ops.data[i], b, defined);
}

void tir_verify(Ctx *ctx, TirFunc *f)
{
    unsigned char *defined = arena_alloc(&ctx->arena, (size_t)f->nvalues + 1);
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].value)
            defined[f->params.data[i].value->id] = 1;
    verify_block(f, f->body, defined);
}

/* ---- simplification: remove unused pure ops, count uses ----------------- */

static void count_uses(Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int j = 0; j < op->nargs; j++)
            op->args[j]->nuses++;
        for (int r = 0; r < op->nregions; r++)
            count_uses(op->regions[r]);
    }
}

static void clear_uses(Block *b)
{
    for (int i = 0; i < b->args.len; i++)
        b->args.data[i]->nuses = 0;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int j = 0; j < op->nres; j++)
            op->results[j]->nuses = 0;
        for (int r = 0; r < op->nregions; r++)
            clear_uses(op->regions[r]);
    }
}

static bool op_unused(const Op *op)
{
    for (int i = 0; i < op->nres; i++)
        if (op->results[i]->nuses)
            return false;
    return true;
}

static bool remove_dead(Block *b)
{
    bool changed = false;
    int n = 0;
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            changed |= remove_dead(op->regions[r]);
        if (op_is_pure(op->kind) && op_unused(op)) {
            for (int j = 0; j < op->nargs; j++)
                op->args[j]->nuses--;
            changed = true;
            continue;
        }
        b->ops.data[n++] = op;
    }
    b->ops.len = n;
    return changed;
}

/* ---- combining -------------------------------------------------------------------- */

bool tir_is_zero_splat(const Value *v)
{
    const Op *d = v->def;
    while (d && (d->kind == OP_SPLAT || d->kind == OP_BROADCAST || d->kind == OP_CAST))
        d = d->args[0]->def;
    if (!d || d->kind != OP_CONST)
        return false;
    return dtype_is_float(d->results[0]->type.dtype) ? d->constant.fval == 0.0 && !signbit(d->constant.fval) : d->constant.ival == 0;
}

bool tir_op_reads(const Op *op, const Value *v)
{
    for (int k = 0; k < op->nargs; k++)
        if (op->args[k] == v)
            return true;
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            if (tir_op_reads(op->regions[r]->ops.data[i], v))
                return true;
    return false;
}

void tir_op_replace_uses(Op *op, const Value *from, Value *to)
{
    for (int k = 0; k < op->nargs; k++)
        if (op->args[k] == from)
            op->args[k] = to;
    for (int r = 0; r < op->nregions; r++)
        for (int i = 0; i < op->regions[r]->ops.len; i++)
            tir_op_replace_uses(op->regions[r]->ops.data[i], from, to);
}

void tir_block_replace_uses(Block *b, const Value *from, Value *to)
{
    for (int i = 0; i < b->ops.len; i++)
        tir_op_replace_uses(b->ops.data[i], from, to);
}

int tir_op_index(const Block *b, const Op *op)
{
    for (int i = 0; i < b->ops.len; i++)
        if (b->ops.data[i] == op)
            return i;
    return -1;
}

bool tir_block_encloses(const Block *outer, const Block *b)
{
    for (; b; b = b->parent ? b->parent->parent : NULL)
        if (b == outer)
            return true;
    return false;
}

/* x + tl.dot(a, b) becomes tl.dot(a, b, acc=x) when the dot's own acc is zero
 * and the sum is its only use (Triton's CombineDotAdd patterns): the tensor
 * cores add x as they accumulate, with no second tile of registers and no
 * separate pass of adds.  Triton does it, so the rounding is Triton's too.
 * The dot moves down to the sum, where x is known to be computed. */
static void combine_dot_add(Block *root, Block *b)
{
    for (int i = 0; i < b->ops.len; i++) {
        Op *op = b->ops.data[i];
        for (int r = 0; r < op->nregions; r++)
            combine_dot_add(root, op->regions[r]);
        if (op->kind != OP_ADD || op->results[0]->type.rank != 2)
            continue;
        for (int k = 0; k < 2; k++) {
            Op *dot = op->args[k]->def;
            Value *x = op->args[1 - k];
            if (!dot || dot->kind != OP_DOT || dot->parent != b || op->args[k]->nuses != 1 ||
                !tir_is_zero_splat(dot->args[2]) || x->type.dtype != dot->results[0]->type.dtype)
                continue;
            int at = tir_op_index(b, dot);
            memmove(&b->ops.data[at], &b->ops.data[at + 1], (size_t)(i - at - 1) * sizeof(Op *));
            b->ops.data[i - 1] = dot;
            dot->args[2]->nuses--;
            dot->args[2] = x;
            tir_block_replace_uses(root, op->results[0], dot->results[0]);
            dot->results[0]->nuses = op->results[0]->nuses;
            op->results[0]->nuses = 0;
            dot->results[0]->name = op->results[0]->name ? op->results[0]->name : dot->results[0]->name;
            break;
        }
    }
}

void tir_combine(Ctx *ctx, TirFunc *f)
{
    combine_dot_add(f->body, f->body);
    tir_simplify(ctx, f);
}

void tir_simplify(Ctx *ctx, TirFunc *f)
{
    (void)ctx;
    for (int i = 0; i < f->params.len; i++)
        if (f->params.data[i].value)
            f->params.data[i].value->nuses = 0;
    clear_uses(f->body);
    count_uses(f->body);
    while (remove_dead(f->body))
        ;
}

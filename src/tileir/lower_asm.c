/*
 * lower_asm.c — the handler of tl.inline_asm_elementwise: one OP_INLINE_ASM.
 *
 * Triton hands the assembly and its constraints to LLVM, so both are in
 * LLVM's spelling: operands are $N, constraints a comma-separated list of
 * "=X" outputs, then "X" inputs, then "~{memory}".  Each asm statement sees
 * `pack` elements of every operand; elements narrower than 32 bits share
 * registers, min(pack, 32 / bits) to a register.  The outputs are numbered
 * first, result by result, then the inputs, argument by argument.  tilec
 * checks all of it here, so that the CUDA's asm statement (src/emit_cuda/asm.c)
 * says the same thing: operands become %N and a literal % becomes %%.
 */
#include "lower_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Registers that `pack` elements of d take, and elements per register. */
static int asm_regs(DType d, int pack, int *per_reg)
{
    int bits = dtype_bits(d);
    int per = bits < 32 ? 32 / bits : 1;
    *per_reg = per < pack ? per : pack;
    return (pack + *per_reg - 1) / *per_reg;
}

static int constraint_bits(char c)
{
    switch (c) {
    case 'h': return 16;
    case 'r':
    case 'f': return 32;
    case 'l':
    case 'd': return 64;
    default: return 0;
    }
}

/* One constraint letter per register (arena strings: errors jump out). */
typedef struct AsmOperands {
    char *outs, *ins;
    int nouts, nins;
    bool memory;
} AsmOperands;

/* Reads Triton's constraint string into one letter per register. */
static void parse_constraints(Lower *L, const char *s, Loc at, AsmOperands *o)
{
    bool inputs = false;
    size_t most = strlen(s) + 1;
    o->outs = NEW_ARRAY(L->a, char, most);
    o->ins = NEW_ARRAY(L->a, char, most);
    while (*s) {
        size_t len = strcspn(s, ",");
        const char *item = arena_strndup(L->a, s, len);
        while (*item == ' ' || *item == '\t' || *item == '\n')
            item++;
        size_t n = strlen(item);
        while (n && (item[n - 1] == ' ' || item[n - 1] == '\t' || item[n - 1] == '\n'))
            n--;
        item = arena_strndup(L->a, item, n);
        if (!strcmp(item, "~{memory}")) {
            o->memory = true;
        } else if (item[0] == '=' && constraint_bits(item[1]) && !item[2] && !inputs) {
            o->outs[o->nouts++] = item[1];
        } else if (constraint_bits(item[0]) && !item[1]) {
            inputs = true;
            o->ins[o->nins++] = item[0];
        } else {
            lower_error(L, at,
                        "inline assembly constraint '%s' is not supported (outputs '=r', '=h', '=l', '=f', '=d' first, "
                        "then inputs 'r', 'h', 'l', 'f', 'd', and '~{memory}')",
                        item);
        }
        s += len + (s[len] == ',');
    }
}

/* LLVM's asm text in CUDA's spelling: $N and ${N} become %N, $$ a $, % becomes %%
 * (never longer than twice the text). */
static const char *cuda_asm_text(Lower *L, const char *s, int len, int noperands, Loc at)
{
    char *b = NEW_ARRAY(L->a, char, 2 * (size_t)len + 1);
    int o = 0;
    for (int i = 0; i < len; i++) {
        char c = s[i];
        if (c == '%') {
            b[o++] = '%', b[o++] = '%';
            continue;
        }
        if (c != '$') {
            b[o++] = c;
            continue;
        }
        if (i + 1 < len && s[i + 1] == '$') {
            b[o++] = '$';
            i++;
            continue;
        }
        bool brace = i + 1 < len && s[i + 1] == '{';
        int j = i + 1 + brace, n = 0, digits = 0;
        while (j < len && isdigit((unsigned char)s[j]) && digits < 6)
            n = n * 10 + (s[j++] - '0'), digits++;
        if (!digits || (brace && (j >= len || s[j] != '}')))
            lower_error(L, at, "inline assembly operand reference '%.*s' is not supported (write $N or ${N})",
                        (int)(j + 1 < len ? j + 1 - i : len - i), s + i);
        if (n >= noperands)
            lower_error(L, at, "inline assembly refers to operand $%d, but its constraints give %d operands", n, noperands);
        o += snprintf(b + o, 2 * (size_t)len + 1 - (size_t)o, "%%%d", n); /* no longer than $N */
        i = j - 1 + brace;
    }
    b[o] = '\0';
    return b;
}

static const char *cv_string(Lower *L, CVal *c, Loc at, const char *what)
{
    if (!c || c->kind != CV_STR)
        lower_error(L, at, "tl.inline_asm_elementwise needs %s as a constant string, got %s", what,
                    c ? cv_describe(L, c) : "None");
    if (memchr(c->s, '\0', (size_t)c->slen))
        lower_error(L, at, "%s of tl.inline_asm_elementwise contains a NUL character", what);
    return c->s;
}

/* The result dtypes: one dtype, or a tuple of them (a tuple of results). */
static int result_dtypes(Lower *L, CVal *c, Loc at, DType *out, bool *multi)
{
    *multi = c->kind == CV_TUPLE;
    int n = *multi ? c->items.len : 1;
    if (!n || n > 16)
        lower_error(L, at, "tl.inline_asm_elementwise needs 1 to 16 result dtypes, got %d", n);
    for (int i = 0; i < n; i++) {
        Type t = parse_dtype_cval(L, *multi ? c->items.data[i] : c, at);
        if (t.dtype == DT_PTR || t.dtype == DT_I1 || dtype_is_fp8(t.dtype))
            lower_error(L, at, "tl.inline_asm_elementwise cannot return %s values", dtype_triton_name(t.dtype));
        out[i] = t.dtype;
    }
    return n;
}

/* Checks that each register's constraint letter holds its bits. */
static void check_sizes(Lower *L, Loc at, const char *letters, const DType *dts, int n, int pack, const char *which)
{
    int r = 0;
    for (int i = 0; i < n; i++) {
        int per, regs = asm_regs(dts[i], pack, &per);
        int bits = dtype_bits(dts[i]) * per;
        for (int k = 0; k < regs; k++, r++)
            if (constraint_bits(letters[r]) != bits)
                lower_error(L, at,
                            "inline assembly %s register %d holds %d bit%s (%d %s element%s), but its constraint '%c' "
                            "is for %d bits",
                            which, r, bits, bits == 1 ? "" : "s", per, dtype_triton_name(dts[i]), per == 1 ? "" : "s",
                            letters[r], constraint_bits(letters[r]));
    }
}

/* tl.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack) */
CVal *builtin_inline_asm_elementwise(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *asm_c = c->arg[0];
    cv_string(L, asm_c, c->at[0], "the assembly");
    const char *cons = cv_string(L, c->arg[1], c->at[1], "the constraints");
    int pack = (int)const_int(L, c->arg[5], c->at[5], "pack");
    if (pack < 1 || pack > 16)
        lower_error(L, c->at[5], "tl.inline_asm_elementwise needs pack from 1 to 16, got %d", pack);
    /* the operands, broadcast to one shape (no type promotion, as Triton) */
    CVal *args = c->arg[2];
    int nargs = args && args->kind == CV_TUPLE ? args->items.len : -1;
    if (nargs < 0)
        lower_error(L, c->at[2], "tl.inline_asm_elementwise needs its args as a list, got %s",
                    args ? cv_describe(L, args) : "None");
    Value **vals = NEW_ARRAY(L->a, Value *, (size_t)nargs + 1);
    int shape[TIR_MAX_RANK] = {0};
    for (int i = 0; i < nargs; i++) {
        vals[i] = to_value(L, args->items.data[i], c->at[2]);
        DType d = vals[i]->type.dtype;
        if (d == DT_I1 || dtype_is_fp8(d))
            lower_error(L, c->at[2], "tl.inline_asm_elementwise cannot pass %s values to assembly", dtype_triton_name(d));
    }
    int rank = broadcast_all(L, vals, nargs, NULL, c->at[2], shape);
    DType rdt[16], *adt = NEW_ARRAY(L->a, DType, (size_t)nargs + 1);
    bool multi;
    int nres = result_dtypes(L, c->arg[3], c->at[3], rdt, &multi);
    AsmOperands o = {0};
    parse_constraints(L, cons, c->at[1], &o);
    int nout = 0, nin = 0, per;
    for (int i = 0; i < nres; i++)
        nout += asm_regs(rdt[i], pack, &per);
    for (int i = 0; i < nargs; i++)
        nin += asm_regs(vals[i]->type.dtype, pack, &per);
    if (o.nouts != nout || o.nins != nin)
        lower_error(L, c->at[1],
                    "inline assembly constraints give %d output%s and %d input%s, but with pack=%d the results need %d "
                    "and the args %d",
                    o.nouts, o.nouts == 1 ? "" : "s", o.nins, o.nins == 1 ? "" : "s", pack, nout, nin);
    for (int i = 0; i < nargs; i++)
        adt[i] = vals[i]->type.dtype;
    const char *outs = o.outs, *ins = o.ins;
    check_sizes(L, c->at[1], outs, rdt, nres, pack, "output");
    check_sizes(L, c->at[1], ins, adt, nargs, pack, "input");
    Type *rt = NEW_ARRAY(L->a, Type, (size_t)nres);
    for (int i = 0; i < nres; i++)
        rt[i] = rank ? type_tensor(type_scalar(rdt[i]), rank, shape) : type_scalar(rdt[i]);
    Op *op = tir_op_new(L->a, L->f, OP_INLINE_ASM, nargs, vals, nres, rt);
    op->loc = c->loc;
    op->stmt = L->stmt;
    tir_block_append(L->a, L->cur, op);
    op->inline_asm.text = cuda_asm_text(L, asm_c->s, asm_c->slen, nout + nin, c->at[0]);
    op->inline_asm.outs = outs;
    op->inline_asm.ins = ins;
    op->inline_asm.pack = pack;
    op->inline_asm.is_pure = cv_truthy(L, c->arg[4], c->at[4]);
    op->inline_asm.clobbers_memory = o.memory;
    if (!multi)
        return cv_value(L, op->results[0]);
    CVal *t = NEW(L->a, CVal);
    t->kind = CV_TUPLE;
    for (int i = 0; i < nres; i++)
        vec_push(L->a, &t->items, cv_value(L, op->results[i]));
    return t;
}

/* ---- tl.extra.cuda: what Triton writes as inline assembly or constants -------------- */

/* One asm statement with no operands but its result, as Triton's extra.cuda writes it. */
static CVal *asm_read(const BuiltinCall *c, const char *text, const char *cons, DType d, bool pure)
{
    Lower *L = c->L;
    CVal *empty = NEW(L->a, CVal);
    empty->kind = CV_TUPLE;
    CVal *args[6] = {cv_str(L, text, (int)strlen(text)), cv_str(L, cons, (int)strlen(cons)), empty,
                     cv_dtype(L, type_scalar(d)), cv_bool(L, pure), cv_int(L, 1)};
    Loc at[6] = {c->loc, c->loc, c->loc, c->loc, c->loc, c->loc};
    BuiltinCall call = *c;
    call.arg = args;
    call.at = at;
    return builtin_inline_asm_elementwise(&call);
}

/* tl.extra.cuda.globaltimer(): the %globaltimer nanosecond clock (int64, not pure) */
CVal *builtin_cuda_globaltimer(const BuiltinCall *c) { return asm_read(c, "mov.u64 $0, %globaltimer;", "=l", DT_I64, false); }

/* tl.extra.cuda.smid(): the SM this block runs on (int32) */
CVal *builtin_cuda_smid(const BuiltinCall *c) { return asm_read(c, "mov.u32 $0, %smid;", "=r", DT_I32, true); }

/* tl.extra.cuda.num_threads() and num_warps() (data 1): constexprs of the launch */
CVal *builtin_cuda_num_threads(const BuiltinCall *c)
{
    return cv_int(c->L, c->data ? c->L->f->num_warps : c->L->f->num_warps * 32);
}

/*
 * asm.c — tl.inline_asm_elementwise: one CUDA asm statement per `pack`
 * elements of the thread, `asm` when the assembly is pure and `asm volatile`
 * when not, its operands in Triton's order (outputs, result by result, then
 * inputs, argument by argument).  Elements narrower than 32 bits share a
 * register, the first in the low bits, as Triton packs them into a vector.
 */
#include "emit_internal.h"

#include <string.h>

static const char *letter_ctype(char c)
{
    switch (c) {
    case 'h': return "uint16_t";
    case 'r': return "uint32_t";
    case 'l': return "uint64_t";
    case 'f': return "float";
    case 'd': return "double";
    default: BUG("asm constraint %c", c);
    }
}

static const char *bits_ctype(int bits)
{
    return bits == 8 ? "uint8_t" : bits == 16 ? "uint16_t" : bits == 32 ? "uint32_t" : "uint64_t";
}

/* elements of d per register, as lower_asm.c counts them */
static int per_reg(DType d, int pack)
{
    int bits = dtype_bits(d), per = bits < 32 ? 32 / bits : 1;
    return per < pack ? per : pack;
}

/* The asm text as C string literals, one per line of assembly, each escaped
 * (quotes, backslashes, control bytes, bytes beyond ASCII and "??" trigraph
 * starts), so that no text of the kernel's can end the literal. */
static void asm_literals(Emitter *E, const char *text)
{
    StrBuf sb = {0};
    const char *p = text;
    do {
        sb.len = 0;
        if (sb.data)
            sb.data[0] = '\0';
        sb_putc(&sb, '"');
        for (; *p && *p != '\n'; p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\')
                sb_printf(&sb, "\\%c", c);
            else if (c == '\t')
                sb_puts(&sb, "\\t");
            else if (c < 0x20 || c >= 0x7f)
                sb_printf(&sb, "\\%03o", c);
            else if (c == '?' && p > text && p[-1] == '?')
                sb_puts(&sb, "\\?");
            else
                sb_putc(&sb, (char)c);
        }
        if (*p == '\n')
            sb_puts(&sb, "\\n");
        sb_putc(&sb, '"');
        line(E, "    %s", sb.data);
    } while (*p && *++p);
    sb_free(&sb);
}

/* element k of the group, as C: "g * 4 + 1", or the constant when one group */
static const char *group_elem(Emitter *E, int ngroups, int pack, int k)
{
    if (ngroups == 1)
        return fmt(E, "%d", k);
    if (pack == 1)
        return "g";
    return k ? fmt(E, "g * %d + %d", pack, k) : fmt(E, "g * %d", pack);
}

void emit_inline_asm(Emitter *E, const Op *op)
{
    const Value *r0 = op->results[0];
    int P = op->inline_asm.pack, N = r0->type.rank ? nregs(r0) : 1, G = (N + P - 1) / P;
    /* the last statement is padded with zeros, its extra results dropped: elements
     * past N are left out where the index is a constant (one statement), tested
     * where it is not */
    bool ragged = N % P != 0, guard = ragged && G > 1;
    const char *outs = op->inline_asm.outs, *ins = op->inline_asm.ins;
    const char **rname = NEW_ARRAY(E->a, const char *, (size_t)op->nres);
    for (int i = 0; i < op->nres; i++) {
        const Value *r = op->results[i];
        rname[i] = vname(E, r);
        if (!info(E, r)->declared)
            line(E, "%s;%s", decl(E, type_elem(r->type), rname[i], r->type.rank ? nregs(r) : 0), shape_note(E, r));
    }
    line(E, "// inline assembly (%s), %d element%s per statement%s", op->inline_asm.is_pure ? "pure: asm" : "not pure: asm volatile",
         P, P == 1 ? "" : "s", ragged ? fmt(E, ", the last one padded with zeros") : "");
    if (G > 1) {
        line(E, "#pragma unroll");
        line(E, "for (int g = 0; g < %d; ++g) {", G);
    } else {
        line(E, "{");
    }
    E->indent++;
    /* the output registers */
    int no = (int)strlen(outs);
    bool same = true; /* one C type for every output: one array */
    for (int k = 1; k < no; k++)
        same &= letter_ctype(outs[k]) == letter_ctype(outs[0]);
    if (same)
        line(E, "%s out[%d];  // the output registers", letter_ctype(outs[0]), no);
    else
        for (int k = 0; k < no; k++)
            line(E, "%s out%d;", letter_ctype(outs[k]), k);
    const char *out_fmt = same ? "out[%d]" : "out%d";
    /* the input registers' values */
    StrBuf in_ops = {0};
    int reg = 0;
    for (int a = 0; a < op->nargs; a++) {
        const Value *x = op->args[a];
        DType d = x->type.dtype;
        int per = per_reg(d, P), bits = dtype_bits(d);
        for (int k0 = 0; k0 < P; k0 += per, reg++) {
            const char *CT = letter_ctype(ins[reg]), *val = NULL;
            for (int k = k0; k < k0 + per; k++) {
                const char *e = group_elem(E, G, P, k);
                const char *v = !guard && k >= N ? zero_of(E, d) : value_at(E, x, r0, e);
                if (guard)
                    v = fmt(E, "(%s < %d ? %s : %s)", e, N, v, zero_of(E, d));
                if (per == 1) {
                    val = !strcmp(dtype_ctype(d), CT) ? v : fmt(E, "tilec::bitcast<%s>(%s)", CT, v);
                } else {
                    const char *part = fmt(E, "(%s)tilec::bitcast<%s>(%s)", CT, bits_ctype(bits), v);
                    if (k > k0)
                        part = fmt(E, "(%s << %d)", part, bits * (k - k0));
                    val = val ? fmt(E, "%s | %s", val, part) : part;
                }
            }
            if (per > 1 && strcmp(CT, "uint32_t"))
                val = fmt(E, "(%s)(%s)", CT, val);
            sb_printf(&in_ops, "%s\"%c\"(%s)", reg ? ", " : "", ins[reg], val);
        }
    }
    line(E, "asm%s(", op->inline_asm.is_pure ? "" : " volatile");
    asm_literals(E, op->inline_asm.text);
    StrBuf out_ops = {0};
    for (int k = 0; k < no; k++)
        sb_printf(&out_ops, "%s\"=%c\"(%s)", k ? ", " : "", outs[k], fmt(E, out_fmt, k));
    const char *in_list = in_ops.data ? in_ops.data : "";
    bool mem = op->inline_asm.clobbers_memory;
    /* the outputs, the inputs (if any, or before a clobber), the clobber */
    line(E, "    : %s%s", out_ops.data ? out_ops.data : "", *in_list || mem ? "" : ");");
    if (*in_list || mem)
        line(E, "    : %s%s", in_list, mem ? "" : ");");
    if (mem)
        line(E, "    : \"memory\");");
    sb_free(&in_ops);
    sb_free(&out_ops);
    /* the results, from the output registers */
    reg = 0;
    for (int i = 0; i < op->nres; i++) {
        DType d = op->results[i]->type.dtype;
        const char *T = dtype_ctype(d);
        int per = per_reg(d, P), bits = dtype_bits(d);
        for (int k0 = 0; k0 < P; k0 += per, reg++) {
            for (int k = k0; k < k0 + per; k++) {
                const char *e = group_elem(E, G, P, k);
                const char *out = fmt(E, out_fmt, reg), *v;
                if (per == 1)
                    v = !strcmp(T, letter_ctype(outs[reg])) ? out : fmt(E, "tilec::bitcast<%s>(%s)", T, out);
                else if (k == k0)
                    v = fmt(E, "tilec::bitcast<%s>((%s)%s)", T, bits_ctype(bits), out);
                else
                    v = fmt(E, "tilec::bitcast<%s>((%s)(%s >> %d))", T, bits_ctype(bits), out, bits * (k - k0));
                const char *dst = r0->type.rank ? fmt(E, "%s[%s]", rname[i], e) : rname[i];
                if (!guard && k >= N)
                    continue;
                if (guard)
                    line(E, "if (%s < %d)", e, N);
                line(E, "%s%s = %s;", guard ? "    " : "", dst, v);
            }
        }
    }
    E->indent--;
    line(E, "}");
}

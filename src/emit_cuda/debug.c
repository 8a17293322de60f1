/*
 * debug.c — tl.device_print and tl.device_assert, in Triton's formats.
 */
#include "emit_internal.h"

#include <string.h>

/* s inside the string literal of a printf format: C escapes, and % doubled. */
static const char *printf_literal(Emitter *E, const char *s)
{
    StrBuf pct = {0};
    for (; *s; s++) {
        if (*s == '%')
            sb_putc(&pct, '%');
        sb_putc(&pct, *s);
    }
    const char *r = c_string_escape(E->a, pct.data ? pct.data : "");
    sb_free(&pct);
    return r;
}

/* tl.device_print: one line per element, "pid (x, y, z) idx (i, j) prefix value" as Triton prints */
/* Triton's device_print prefix: ends in ": " when there are values, and
 * starts with a space when longer than two characters. */
static const char *print_prefix(Emitter *E, const char *prefix, bool has_args)
{
    StrBuf p = {0};
    sb_puts(&p, prefix);
    if (has_args && (!p.len || p.data[p.len - 1] != ' '))
        sb_putc(&p, ' ');
    if (has_args && (p.len < 2 || p.data[p.len - 2] != ':')) {
        p.data[--p.len] = 0;
        sb_puts(&p, ": ");
    }
    const char *r = printf_literal(E, fmt(E, "%s%s", p.len > 2 && p.data[0] != ' ' ? " " : "", p.data ? p.data : ""));
    sb_free(&p);
    return r;
}

/* tl.device_print, in Triton's format: "pid (x, y, z) idx (i, j) prefix: value", the
 * indices padded to the width of the largest one ("idx ()" for a scalar), hex as 0x and all
 * the type's digits. */
void emit_print(Emitter *E, const Op *op)
{
    const char *pf = print_prefix(E, op->print.prefix ? op->print.prefix : "", op->nargs > 0);
    if (!op->nargs) {
        line(E, "printf(\"pid (%%u, %%u, %%u)%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z);", pf);
        return;
    }
    for (int a = 0; a < op->nargs; a++) {
        const Value *v = op->args[a];
        DType d = v->type.dtype;
        int bits = dtype_bits(d);
        const char *vf, *vv = NULL;
        const char *val = value_at(E, v, v->type.rank ? v : NULL, v->type.rank ? "e" : "0");
        if (op->print.hex && d != DT_PTR) {
            int w = bits < 8 ? 2 : bits / 4;
            vf = bits == 64 ? "0x%016llx" : fmt(E, "0x%%0%dx", w);
            if (bits == 64)
                vv = fmt(E, "(unsigned long long)tilec::bitcast<uint64_t>(%s)", val);
            else if (d == DT_FP32)
                vv = fmt(E, "__float_as_uint(%s)", val);
            else if (bits == 16)
                vv = fmt(E, "(unsigned)tilec::bitcast<uint16_t>(%s)", val);
            else if (bits <= 8)
                vv = fmt(E, "(unsigned)(uint8_t)%s", val);
            else
                vv = fmt(E, "(unsigned)%s", val);
        } else if (dtype_is_float(d)) {
            vf = "%f";
            vv = d == DT_FP16 ? fmt(E, "(double)__half2float(%s)", val) : d == DT_BF16 ? fmt(E, "(double)__bfloat162float(%s)", val)
                                                                         : fmt(E, "(double)%s", val);
        } else if (d == DT_PTR) {
            vf = "%p";
            vv = fmt(E, "(const void *)%s", val);
        } else if (bits == 64) {
            vf = dtype_is_signed(d) ? "%lld" : "%llu";
            vv = fmt(E, dtype_is_signed(d) ? "(long long)%s" : "(unsigned long long)%s", val);
        } else {
            vf = dtype_is_signed(d) || d == DT_I1 ? "%d" : "%u";
            vv = fmt(E, dtype_is_signed(d) || d == DT_I1 ? "(int)%s" : "(unsigned)%s", val);
        }
        const char *argpart = op->nargs > 1 ? fmt(E, "(operand %d) ", a) : "";
        if (!v->type.rank) {
            line(E, "printf(\"pid (%%u, %%u, %%u) idx ()%s%s%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z, %s);", pf, argpart, vf, vv);
            continue;
        }
        LayoutMap m;
        value_map(v, &m);
        const char *owner = owner_pred(E, v, &m);
        int n = nregs(v);
        line(E, "#pragma unroll");
        line(E, "for (int e = 0; e < %d; ++e)", n);
        E->indent++;
        if (owner)
            line(E, "if (%s)", owner);
        StrBuf idxf = {0}, idxv = {0};
        for (int d2 = 0; d2 < v->type.rank; d2++) {
            int width = 1;
            for (int top = v->type.shape[d2] - 1; top >= 10; top /= 10)
                width++;
            sb_printf(&idxf, "%s%%%dd", d2 ? ", " : "", width);
            sb_printf(&idxv, ", %s", elem_coord(E, v, &m, d2, "e"));
        }
        line(E, "%sprintf(\"pid (%%u, %%u, %%u) idx (%s)%s%s%s\\n\", blockIdx.x, blockIdx.y, blockIdx.z%s, %s);",
             owner ? "    " : "", idxf.data, pf, argpart, vf, idxv.data, vv);
        sb_free(&idxf);
        sb_free(&idxv);
        E->indent--;
    }
}

/* tl.device_assert (with --debug): report file, line and the failing program, then trap */
void emit_assert(Emitter *E, const Op *op)
{
    const Value *c = op->args[0];
    const Source *src = op->loc.src ? op->loc.src : E->ctx->src;
    const char *file = strrchr(src->path, '/');
    file = file ? file + 1 : src->path;
    const char *msg = printf_literal(E, op->assert_.msg ? op->assert_.msg : "");
    const char *report = fmt(E, "printf(\"%s:%d: %s: block: [%%u, %%u, %%u], thread: [%%u, 0, 0] Assertion `%s` failed.\\n\", "
                                "blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x);",
                             printf_literal(E, file), op->loc.line, E->f->name, msg);
    if (!c->type.rank) {
        line(E, "if (!%s) {", paren(E, value_at(E, c, NULL, "0")));
        line(E, "    %s", report);
        line(E, "    __trap();");
        line(E, "}");
        return;
    }
    int n = nregs(c);
    line(E, "#pragma unroll");
    line(E, "for (int e = 0; e < %d; ++e)", n);
    line(E, "    if (!%s) {", paren(E, value_at(E, c, c, "e")));
    line(E, "        %s", report);
    line(E, "        __trap();");
    line(E, "    }");
}

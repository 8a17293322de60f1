/*
 * atomics.c — tl.atomic_*: one device helper per atom instruction, and the
 * loops that call them.
 */
#include "emit_internal.h"

#include <string.h>

/* PTX operand type and constraint of an atomic on d: ".s32", "r" */
static void atom_ptx_type(DType d, const char *kind, const char **ptx, const char **cons, const char **reg_t)
{
    bool bitwise = !strcmp(kind, "and") || !strcmp(kind, "or") || !strcmp(kind, "xor") || !strcmp(kind, "exch") ||
                   !strcmp(kind, "cas");
    int bits = dtype_bits(d);
    *cons = bits == 64 ? "l" : bits == 16 ? "h" : d == DT_FP32 ? "f" : "r";
    if (d == DT_FP64 && !bitwise)
        *cons = "d";
    if (bitwise) {
        *ptx = bits == 64 ? ".b64" : ".b32";
        *cons = bits == 64 ? "l" : "r";
        *reg_t = bits == 64 ? "unsigned long long" : "unsigned";
        return;
    }
    switch (d) {
    case DT_FP32: *ptx = ".f32", *reg_t = "float"; break;
    case DT_FP64: *ptx = ".f64", *reg_t = "double"; break;
    case DT_FP16: *ptx = ".noftz.f16", *reg_t = "unsigned short"; break;
    case DT_BF16: *ptx = ".noftz.bf16", *reg_t = "unsigned short"; break;
    case DT_I32: *ptx = ".s32", *reg_t = "int"; break;
    case DT_U32: *ptx = ".u32", *reg_t = "unsigned"; break;
    case DT_I64: *ptx = !strcmp(kind, "add") ? ".u64" : ".s64", *reg_t = "long long"; break;
    default: *ptx = ".u64", *reg_t = "unsigned long long"; break;
    }
}

static const char *const sem_names[] = {"acq_rel", "acquire", "release", "relaxed"};

static const char *const scope_names[] = {"gpu", "cta", "sys"};

/* A device helper doing one `atom` instruction; returns its name. */
static const char *atom_helper(Emitter *E, const char *kind, DType d, int sem, int scope)
{
    const char *suffix = sem == SEM_ACQ_REL && scope == SCOPE_GPU ? "" : fmt(E, "_%s_%s", sem_names[sem], scope_names[scope]);
    const char *name = fmt(E, "atom_%s_%s%s", kind, dtype_name(d), suffix);
    if (helper_known(E, name))
        return name;
    const char *ptx, *cons, *rt;
    atom_ptx_type(d, kind, &ptx, &cons, &rt);
    const char *T = dtype_ctype(d);
    bool cas = !strcmp(kind, "cas");
    StrBuf *h = &E->helpers;
    const char *tn = dtype_triton_name(d);
    sb_printf(h, "// atom.%s: %s on %s %s in global memory, %s ordering at %s scope; returns the old value\n", kind,
              kind, tn[0] == 'i' ? "an" : "a", tn, sem_names[sem], scope_names[scope]);
    sb_printf(h, "static __device__ __forceinline__ %s %s(%s *p, %s%s v)\n{\n", T, name, T, cas ? fmt(E, "%s cmp, ", T) : "", T);
    bool same = !strcmp(rt, T) || (!strcmp(rt, "int") && d == DT_I32) || (!strcmp(rt, "long long") && d == DT_I64);
    const char *conv_in = "v", *conv_cmp = "cmp";
    if (!same) {
        if (d == DT_FP16)
            conv_in = "__half_as_ushort(v)";
        else if (d == DT_BF16)
            conv_in = "__bfloat16_as_ushort(v)";
        else {
            conv_in = fmt(E, "tilec::bitcast<%s>(v)", rt);
            conv_cmp = fmt(E, "tilec::bitcast<%s>(cmp)", rt);
        }
    }
    sb_printf(h, "    %s old;\n", rt);
    sb_printf(h, "    asm volatile(\"atom.%s.%s.global.%s%s %%0, [%%1], %%2%s;\"\n", sem_names[sem], scope_names[scope], kind,
              ptx, cas ? ", %3" : "");
    sb_printf(h, "                 : \"=%s\"(old) : \"l\"(p), \"%s\"(%s)%s : \"memory\");\n", cons, cons,
              cas ? conv_cmp : conv_in, cas ? fmt(E, ", \"%s\"(%s)", cons, conv_in) : "");
    if (same)
        sb_puts(h, "    return old;\n}\n\n");
    else if (d == DT_FP16)
        sb_puts(h, "    return __ushort_as_half(old);\n}\n\n");
    else if (d == DT_BF16)
        sb_puts(h, "    return __ushort_as_bfloat16(old);\n}\n\n");
    else
        sb_printf(h, "    return tilec::bitcast<%s>(old);\n}\n\n", T);
    return name;
}

/* Float max/min from integer atomics: non-negative floats order like signed
 * ints, negative ones in reverse like unsigned ints (what Triton does). */
static const char *atom_float_minmax(Emitter *E, bool mx, DType d, int sem, int scope)
{
    const char *suffix = sem == SEM_ACQ_REL && scope == SCOPE_GPU ? "" : fmt(E, "_%s_%s", sem_names[sem], scope_names[scope]);
    const char *name = fmt(E, "atom_%s_%s%s", mx ? "max" : "min", dtype_name(d), suffix);
    if (helper_known(E, name))
        return name;
    bool f64 = d == DT_FP64;
    const char *si = atom_helper(E, mx ? "max" : "min", f64 ? DT_I64 : DT_I32, sem, scope);
    const char *ui = atom_helper(E, mx ? "min" : "max", f64 ? DT_U64 : DT_U32, sem, scope);
    const char *T = dtype_ctype(d), *S = f64 ? "int64_t" : "int32_t", *U = f64 ? "uint64_t" : "uint32_t";
    StrBuf *h = &E->helpers;
    sb_printf(h, "// atomic %s of a %s through integer atomics: non-negative values compare like signed\n"
                 "// integers, negative ones in reverse like unsigned integers\n", mx ? "max" : "min", dtype_triton_name(d));
    sb_printf(h, "static __device__ __forceinline__ %s %s(%s *p, %s v)\n{\n", T, name, T, T);
    sb_printf(h, "    if (!signbit(v))\n        return tilec::bitcast<%s>(%s((%s *)p, tilec::bitcast<%s>(v)));\n", T, si, S, S);
    sb_printf(h, "    return tilec::bitcast<%s>(%s((%s *)p, tilec::bitcast<%s>(v)));\n}\n\n", T, ui, U, U);
    return name;
}

void emit_atomic(Emitter *E, const Op *op)
{
    bool cas = op->kind == OP_ATOMIC_CAS;
    const Value *ptr = op->args[0], *r = op->results[0];
    DType d = ptr->type.pointee;
    int sem = op->atomic.sem, scope = op->atomic.scope;
    static const char *const kinds[] = {
#define X(e, n) n,
        ATOMIC_LIST(X)
#undef X
    };
    const char *fn;
    if (cas)
        fn = atom_helper(E, "cas", d, sem, scope);
    else {
        int k = op->atomic.kind;
        if ((k == ATOM_MAX || k == ATOM_MIN) && dtype_is_float(d))
            fn = atom_float_minmax(E, k == ATOM_MAX, d, sem, scope);
        else
            fn = atom_helper(E, k == ATOM_XCHG ? "exch" : kinds[k], d, sem, scope);
    }
    const Value *val = cas ? op->args[2] : op->args[1];
    const Value *cmp = cas ? op->args[1] : NULL;
    const Value *mask = !cas && op->atomic.has_mask ? op->args[2] : NULL;
    bool used = r->nuses > 0;
    const char *name = used ? vname(E, r) : NULL;
    if (!ptr->type.rank) {
        /* one thread does a scalar atomic; the old value reaches the others through shared memory */
        if (used)
            line(E, "%s;", decl(E, r->type, name, 0));
        const char *pred = mask ? fmt(E, "tid == 0 && %s", paren(E, value_at(E, mask, NULL, "0"))) : "tid == 0";
        line(E, "if (%s)", pred);
        const char *call = cas ? fmt(E, "%s(%s, %s, %s)", fn, value_at(E, ptr, NULL, "0"), value_at(E, cmp, NULL, "0"),
                                     value_at(E, val, NULL, "0"))
                               : fmt(E, "%s(%s, %s)", fn, value_at(E, ptr, NULL, "0"), value_at(E, val, NULL, "0"));
        if (used) {
            const char *T = ctype(E, r->type);
            line(E, "    *reinterpret_cast<%s *>(smem + %d) = %s;", T, op->smem_offset, call);
            line(E, "%s;", block_sync(E));
            line(E, "%s = *reinterpret_cast<%s *>(smem + %d);", name, T, op->smem_offset);
            trailing_sync(E, op);
        } else {
            line(E, "    %s;", call);
        }
        return;
    }
    LayoutMap m;
    value_map(ptr, &m);
    const char *owner = owner_pred(E, ptr, &m);
    if (used) {
        if (owner)
            BUG("atomic %%%d: old values on a replicated tile, which tir_check_limits refuses", r->id);
        line(E, "%s;%s", decl(E, type_elem(r->type), name, nregs(r)), shape_note(E, r));
    }
    int n = nregs(ptr);
    const char *i = elem_loop_open(E, n, 1);
    const char *pred = mask ? value_at(E, mask, ptr, i) : NULL;
    if (owner)
        pred = pred ? fmt(E, "%s && %s", owner, paren(E, pred)) : owner;
    const char *call = cas ? fmt(E, "%s(%s, %s, %s)", fn, value_at(E, ptr, ptr, i), value_at(E, cmp, ptr, i), value_at(E, val, ptr, i))
                           : fmt(E, "%s(%s, %s)", fn, value_at(E, ptr, ptr, i), value_at(E, val, ptr, i));
    if (used)
        line(E, pred ? "%s[%s] = %s ? %s : %s;" : "%s[%s] = %s%s", name, i, pred ? pred : call, pred ? call : ";",
             pred ? zero_of(E, d) : "");
    else if (pred)
        line(E, "if (%s)\n%*s    %s;", pred, E->indent * 4, "", call);
    else
        line(E, "%s;", call);
    elem_loop_close(E, n, 1);
}

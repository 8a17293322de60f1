/*
 * lower_pointers.c — tl.pointer_type: the dtype of a pointer, for casting
 * integers (addresses loaded from memory, as a grouped GEMM's tables of
 * operand addresses) to pointers, and pointers of one type to another.
 * tilec's pointers nest two deep at most (a **fp16 parameter, whose loads
 * are pointers to fp16); the address space is global memory.
 */
#include "lower_internal.h"

/* tl.pointer_type(element_ty, address_space=1, const=False) */
CVal *builtin_pointer_type(const BuiltinCall *c)
{
    Lower *L = c->L;
    CVal *e = c->arg[0];
    if (e->kind != CV_DTYPE)
        lower_error(L, c->at[0], "tl.pointer_type needs a dtype (such as tl.float16), got %s", cv_describe(L, e));
    Type t = e->dt;
    if (t.dtype == DT_PTR && t.pointee == DT_PTR)
        lower_error(L, c->at[0], "pointers nest two deep at most in tilec (a pointer to %s)", type_str(L->a, t));
    if (c->arg[1] && const_int(L, c->arg[1], c->at[1], "address_space") != 1)
        lower_error(L, c->at[1], "tl.pointer_type with an address_space other than 1 (global memory) is not supported");
    return cv_dtype(L, type_ptr_to(t));
}

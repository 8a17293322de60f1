# Golden input: dtype predicates and attributes, constexpr .value and
# x.cast(), all folded at translation time as Triton folds them.
import triton
import triton.language as tl


@triton.jit
def scaled_copy_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    tl.static_assert(x_ptr.dtype.is_ptr() and not x_ptr.dtype.element_ty.is_ptr())
    tl.static_assert(x_ptr.dtype.element_ty.is_floating() != x_ptr.dtype.element_ty.is_int())
    tl.static_assert(y_ptr.dtype.element_ty.is_int_signed() and not y_ptr.dtype.element_ty.is_int_unsigned())
    tl.static_assert(not y_ptr.dtype.element_ty.is_bool() and tl.int1.is_bool())
    tl.static_assert(tl.constexpr(4).value == 4 and UNROLL.value == UNROLL)
    pid = tl.program_id(0)
    offs = pid * BLOCK.value + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # the accumulator a kernel would pick for its input type
    dt: tl.constexpr = x.dtype
    acc_ty: tl.constexpr = (tl.float32 if dt.is_fp8() or dt.is_fp16() or dt.is_bf16() else
                            dt if dt.is_int64() or dt.is_fp64() else
                            tl.int32 if dt.is_int() and dt.primitive_bitwidth < 32 else dt)
    acc = x.cast(acc_ty) * scale
    for _ in tl.static_range(UNROLL.value - 1):
        acc += x.cast(acc_ty)
    out_ty: tl.constexpr = y_ptr.dtype.element_ty
    tl.store(y_ptr + offs, acc.cast(out_ty), mask=mask)

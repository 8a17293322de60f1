import triton
import triton.language as tl


@triton.jit
def fp8_roundtrip_kernel(x_ptr, q_ptr, y_ptr, n, RTZ: tl.constexpr, BLOCK: tl.constexpr):
    # x (fp32, fp16 or bf16) to the fp8 type of q_ptr and back to the type of y_ptr:
    # to fp8 rounds to nearest even and saturates (or, from fp32 to fp8e5 with RTZ,
    # rounds toward zero); back is exact
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if RTZ:
        q = x.to(q_ptr.dtype.element_ty, fp_downcast_rounding="rtz")
    else:
        q = x.to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(y_ptr + offs, q.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def fp8_store_kernel(x_ptr, q_ptr, n, BLOCK: tl.constexpr):
    # tl.store converts the value to the pointer's fp8 type
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(q_ptr + offs, x, mask=mask)


@triton.jit
def fp8_upcast_kernel(q_ptr, h_ptr, b_ptr, f_ptr, n, BLOCK: tl.constexpr):
    # fp8 to fp16, bf16 and (through tl.abs, which clears the sign bit) fp32; masked-off
    # lanes read the fp8 zero
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q = tl.load(q_ptr + offs, mask=mask, other=0.0)
    tl.store(h_ptr + offs, q.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, q.to(tl.bfloat16), mask=mask)
    tl.store(f_ptr + offs, tl.abs(q).to(tl.float32), mask=mask)


@triton.jit
def fp8_mixed_kernel(a_ptr, b_ptr, x_ptr, s_ptr, t_ptr, n, BLOCK: tl.constexpr):
    # e4m3 + e5m2 computes in fp16 and fp8 + fp32 in fp32 (both sides converted); a
    # select keeps fp8, and its 0 is the fp8 zero
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    x = tl.load(x_ptr + offs, mask=mask)
    s = (a + b) * (a + x)
    tl.store(s_ptr + offs, s, mask=mask)
    tl.store(t_ptr + offs, tl.where(a > 0.0, a, 0.0), mask=mask)

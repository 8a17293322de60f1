# Bools in memory (*i1 pointers): one byte per element, as Triton keeps them.  Loads read
# bytes and give bool (nonzero is True), stores write 0 or 1; the kernel's pointers are
# int8_t * in the .cu.
import triton
import triton.language as tl


@triton.jit
def bool_memory_kernel(keep_ptr, flag_ptr, x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    keep = tl.load(keep_ptr + offs, mask=mask, other=True)
    flag = tl.load(flag_ptr)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, (x > 0) & keep | flag, mask=mask)

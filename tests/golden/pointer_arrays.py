"""Tables of pointers, as a grouped GEMM keeps its operands: each program scales one
group's fp16 array.  SRCS holds the source addresses as int64 (cast with
tl.pointer_type); DSTS is translated as **fp16, a pointer to pointers (Triton's JIT,
given an int64 tensor, sees *i64 there, and the cast is then an inttoptr)."""
import triton
import triton.language as tl


@triton.jit
def group_scale_kernel(SRCS, DSTS, SIZES, scale, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    n = tl.load(SIZES + g)
    src = tl.load(SRCS + g).to(tl.pointer_type(tl.float16))
    dst = tl.load(DSTS + g).to(tl.pointer_type(tl.float16))
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(src + offs, mask=mask, other=0.0)
        tl.store(dst + offs, (x * scale).to(tl.float16), mask=mask)

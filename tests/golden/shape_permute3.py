import triton
import triton.language as tl


@triton.jit
def permute3_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    cube = tl.reshape(x, (4, 8, BLOCK // 32))
    t = tl.permute(cube, (2, 0, 1))
    m = tl.max(cube, axis=0)
    tl.store(out_ptr + offs, tl.reshape(t, (BLOCK,)) + 1.0, mask=mask)
    mo = pid * (BLOCK // 4) + tl.arange(0, BLOCK // 4)
    tl.store(out_ptr + n + mo, tl.ravel(m), mask=mo < n)

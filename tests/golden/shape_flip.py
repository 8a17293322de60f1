import triton
import triton.language as tl


@triton.jit
def flip_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    # reversed across the whole block: through shared memory
    tl.store(out_ptr + offs, tl.flip(x, 0), mask=mask)
    # each row of 4 lies in one thread's registers: this flip only renames them
    rows = tl.reshape(x, (BLOCK // 4, 4))
    r = tl.flip(rows, dim=1)
    tl.store(out_ptr + n + offs, tl.reshape(r, (BLOCK,)), mask=mask)

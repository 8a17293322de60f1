import triton
import triton.language as tl


@triton.jit
def gather_kernel(x_ptr, key_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    key = tl.load(key_ptr + offs, mask=mask, other=0.0)
    # a lookup inside the block, at indices computed from data
    idx = (key * 1000.0).to(tl.int32) & (BLOCK - 1)
    tl.store(out_ptr + offs, tl.gather(x, idx, 0), mask=mask)
    # each row of 16 reversed through an index tile
    rows = tl.reshape(x, (BLOCK // 16, 16))
    rev = tl.broadcast_to((15 - tl.arange(0, 16))[None, :], (BLOCK // 16, 16))
    z = rows.gather(rev, 1)
    tl.store(out_ptr + n + offs, tl.ravel(z), mask=mask)

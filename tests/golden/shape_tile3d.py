import triton
import triton.language as tl


@triton.jit
def tile3d_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # 3-D pointer tiles, a reduction along the middle axis, a 3-D permute
    pid = tl.program_id(0)
    a = tl.arange(0, 4)[:, None, None]
    b = tl.arange(0, 8)[None, :, None]
    c = tl.arange(0, 16)[None, None, :]
    offs = pid * BLOCK + a * 128 + b * 16 + c
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    s = tl.sum(x, axis=1)
    o2 = pid * BLOCK + tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :]
    tl.store(y_ptr + o2, s, mask=o2 < n)
    t = tl.permute(x, (2, 0, 1))
    offs_t = pid * BLOCK + tl.arange(0, 16)[:, None, None] * 32 + tl.arange(0, 4)[None, :, None] * 8 + \
        tl.arange(0, 8)[None, None, :]
    tl.store(y_ptr + n + offs_t, t * 2.0 + tl.max(x, axis=2, keep_dims=True).reshape(1, 4, 8), mask=offs_t < n)

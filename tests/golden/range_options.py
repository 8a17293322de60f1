"""tl.range's tuning keywords (loop_unroll_factor becomes #pragma unroll; the others
change nothing in tilec) and tl.assume."""
import triton
import triton.language as tl


@triton.jit
def range_options_kernel(X, Y, n, BLOCK: tl.constexpr):
    tl.assume(n >= 0)
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.range(0, 8, loop_unroll_factor=4, num_stages=2, disallow_acc_multi_buffer=True):
        acc = acc * 0.5 + x * i
    for j in tl.range(0, n % 3, flatten=True, warp_specialize=False, disable_licm=True):
        acc += 1.0
    tl.store(Y + offs, acc, mask=mask)

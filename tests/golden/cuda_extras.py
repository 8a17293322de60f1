"""tl.extra.cuda: the global timer, the SM id, and the launch's thread and warp counts."""
import triton
import triton.language as tl


@triton.jit
def cuda_extras_kernel(X, Y, n, BLOCK: tl.constexpr):
    start = tl.extra.cuda.globaltimer()
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0)
    sm = tl.extra.cuda.smid()
    elapsed = tl.extra.cuda.globaltimer() - start
    # the clock and the SM id vary from run to run; that they are sane does not
    ok = (sm >= 0) & (elapsed >= 0)
    y = x * tl.extra.cuda.num_threads() + tl.extra.cuda.num_warps() + ok.to(tl.float32)
    tl.store(Y + offs, y, mask=mask)

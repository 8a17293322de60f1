import triton
import triton.language as tl


@triton.jit
def layer_norm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # One row per program, walked in chunks of BLOCK_SIZE columns, in the style of Triton's
    # layer-norm tutorial.  N need not be a multiple of 16: each chunk's mask `cols < N` is
    # only known at run time, while the rows (stride) are promised 16-element aligned.
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    # mean: the mask is written inside the load (folded into it)
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        partial += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(partial, axis=0) / N
    # variance, with the masked lanes dropped again
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        partial += x * x
    var = tl.sum(partial, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # normalise: one named mask for three loads and the store
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        b = tl.load(B + cols, mask=mask).to(tl.float32)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(Y + cols, y.to(Y.dtype.element_ty), mask=mask)

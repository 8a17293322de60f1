import triton
import triton.language as tl


# tl.map_elementwise runs a jit function on one element of each argument: its ifs and
# loops branch per element (printed as a __device__ function of scalars).
@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


# Each path returns tensors, and the arguments are tensors or runtime scalars: Triton 3.6
# cannot compile a constexpr passed or returned here.
@triton.jit
def compare(x, y):
    sign = (x > y).to(tl.int32) - (x < y).to(tl.int32)
    if x < y:
        return sign, x
    elif x == y:
        return sign, x + y
    return sign, y


@triton.jit
def collatz_steps(v, cap):
    n = v * 0
    while (v > 1) & (n < cap):
        if v % 2 == 0:
            v = v // 2
        else:
            v = 3 * v + 1
        n += 1
    return n


@triton.jit
def map_kernel(X, V, Y, C, S, n, alpha, cap, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0.0)
    v = tl.load(V + offs, mask=mask, other=0)
    y = tl.map_elementwise(selu_scalar, x, alpha)
    c, m = tl.map_elementwise(compare, x, y)
    s = tl.map_elementwise(collatz_steps, v, cap)
    tl.store(Y + offs, y + m, mask=mask)
    tl.store(C + offs, c, mask=mask)
    tl.store(S + offs, s, mask=mask)


@triton.jit
def clamp_between(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


# Arguments of shapes [BM, BN], [BM, 1] and [1, BN], broadcast to one shape first.
@triton.jit
def map_broadcast(X, Y, n, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    offs = tl.program_id(0) * BM * BN + rows * BN + cols
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    y = tl.map_elementwise(clamp_between, x, rows.to(tl.float32) * -0.1, cols * 0.05)
    tl.store(Y + offs, y, mask=offs < n)

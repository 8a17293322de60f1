# Golden input: one kernel that touches most of the elementwise language.
import triton
import triton.language as tl

SCALE = tl.constexpr(3)


@triton.jit
def _split(x, lo):
    # a helper with a tuple return, inlined at the call site
    return tl.maximum(x, lo), tl.minimum(x, lo)


@triton.jit
def features_kernel(x_ptr, i_ptr, out_ptr, idx_ptr, n, lo,
                    MODE: tl.constexpr, USE_HINT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if USE_HINT:
        offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    k = tl.load(i_ptr + offs, mask=mask, other=0)
    hi, low = _split(x, lo)
    if MODE == "exp":
        y = tl.exp(hi) - tl.log(tl.abs(low) + 1.0)
    elif MODE == "trig":
        y = tl.sin(hi) * tl.cos(low) + tl.erf(x)
    else:
        y = tl.sqrt(tl.abs(x)) + tl.rsqrt(tl.abs(x) + 1.0)
    y = tl.where(k % 2 == 0, y, -y)
    y = tl.fma(y, SCALE * 1.0, 0.5)
    q = k // 3 + (k % 3) * (x > 0).to(tl.int32)
    bits = y.to(tl.int32, bitcast=True) & 0x7fffffff
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for j in tl.static_range(3):
        acc += y * (j + 1)
    total = 0
    i = 0
    while i < n:
        total += i
        i += BLOCK * 4
    if lo > 0:
        acc = acc * 2.0
    else:
        acc = acc + lo
    tl.store(out_ptr + offs, acc + total.to(tl.float32) + bits.to(tl.float32, bitcast=True), mask=mask)
    tl.store(idx_ptr + offs, q.to(tl.int64), mask=mask)

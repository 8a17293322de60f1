import triton
import triton.language as tl


# Rotary embedding as lightllm writes it: Triton's LLVM fuses one multiply of
# each pair into an fma (which one: Reassociate's operand order), rounding
# the other alone.
@triton.jit
def rope_kernel(Q0, Q1, Cos, Sin, Out0, Out1, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    q0 = tl.load(Q0 + offs, mask=mask)
    q1 = tl.load(Q1 + offs, mask=mask)
    cos = tl.load(Cos + offs, mask=mask)
    sin = tl.load(Sin + offs, mask=mask)
    tl.store(Out0 + offs, q0 * cos - q1 * sin, mask=mask)
    tl.store(Out1 + offs, q0 * sin + q1 * cos, mask=mask)


# One store per contraction pattern.
@triton.jit
def patterns_kernel(A, B, C, D, O1, O2, O3, O4, O5, O6, O7, O8, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    c = tl.load(C + offs, mask=mask)
    d = tl.load(D + offs, mask=mask)
    tl.store(O1 + offs, c + a * b, mask=mask)        # fma(a, b, c)
    tl.store(O2 + offs, c - a * b, mask=mask)        # fma(-a, b, c)
    tl.store(O3 + offs, a * b - c * d, mask=mask)    # fma(a, b, -(c * d))
    p = a * d                                        # fused, and rounded alone
    tl.store(O4 + offs, p + b, mask=mask)
    tl.store(O5 + offs, p, mask=mask)
    tl.store(O6 + offs, (a * b + c) * d - b, mask=mask)  # two fmas
    tl.store(O7 + offs, -(a * b) + c, mask=mask)     # fma(-a, b, 0), then the add
    acc = c
    for _ in range(n % 4):
        acc = acc + a * b                            # hoisted multiply: no fma
    tl.store(O8 + offs, acc, mask=mask)


# Products broadcast into a 2-D tile fuse as well: broadcasts are no
# instructions in LLVM.  Each row holds two elements, so offsets stay below 2n.
@triton.jit
def outer_kernel(X, Y, Z, Out, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, 2)
    mask = (rows < n)[:, None]
    x = tl.load(X + rows, mask=rows < n)
    y = tl.load(Y + cols)
    offs = rows[:, None] * 2 + cols[None, :]
    z = tl.load(Z + offs, mask=mask)
    out = z - (y * y)[None, :] + x[:, None] * z        # fma(x, z, fma(-y, y, z))
    tl.store(Out + offs, out, mask=mask)

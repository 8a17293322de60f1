# Golden input: loops that count down (a constant negative step, which
# Triton turns into an upward loop) and tl.range with a keyword step.
import triton
import triton.language as tl


@triton.jit
def suffix_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, STEP: tl.constexpr):
    # out[c] = x[c] + x[c + 1] + ... + x[n_chunks - 1], one BLOCK-wide chunk at a time,
    # over the n // BLOCK whole chunks of x (one program)
    n_chunks = n // BLOCK
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(n_chunks - 1, -1, -1):
        x = tl.load(x_ptr + c * BLOCK + cols)
        acc += x
        tl.store(out_ptr + c * BLOCK + cols, acc)
    # every STEP-th chunk again, from the front, with a keyword step
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for c in tl.range(0, n_chunks, step=STEP, num_stages=1):
        total += tl.load(x_ptr + c * BLOCK + cols)
    # and a translation-time countdown over a few lanes
    for k in tl.static_range(3, 0, -1):
        total = total * k
    tl.store(out_ptr + cols, total + acc, mask=cols < n)

import triton
import triton.language as tl


@triton.jit
def if_carried_offsets(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # The offsets are recomputed under a runtime if and carried around the
    # loop, as a persistent kernel recomputes its tile's offsets when it moves
    # to the next tile.  Both branches keep them contiguous and aligned, so the
    # loads stay 16 bytes wide.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, 4):
        if i % 2 == 1:
            start = (pid + i) % tl.cdiv(n, BLOCK) * BLOCK
            offs = start + tl.arange(0, BLOCK)
            offs = tl.max_contiguous(tl.multiple_of(offs, BLOCK), BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        acc += x * (i + 1)
    out = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + out, acc, mask=out < n)

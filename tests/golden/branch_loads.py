import triton
import triton.language as tl


@triton.jit
def branch_loads_kernel(x_ptr, y_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Branches that only compute and load run as straight code: their loads masked by the
    # condition (the else branch's by its negation, the inner branch's by both), their
    # results selected.  The branch that stores stays a branch.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    total = 0.0
    for s in range(4):
        w = tl.load(w_ptr + s)
        if w > 0:
            acc += w * tl.load(x_ptr + offs, mask=mask, other=0.0)
            total += w
            if w > 0.5:
                total += tl.load(w_ptr + 4 + s)
        else:
            acc -= tl.load(y_ptr + offs)
    if total > 1.0:
        tl.store(out_ptr + n + offs, acc, mask=mask)
    tl.store(out_ptr + offs, acc + total, mask=mask)

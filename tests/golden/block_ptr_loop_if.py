import triton
import triton.language as tl


@triton.jit
def forward(p, BLOCK: tl.constexpr):
    return tl.advance(p, (BLOCK,))


# y[i] = x[i] + x[i + BLOCK] + x[i + 2 * BLOCK] (zero past n), a block of BLOCK per program: the
# loop carries a block pointer (its offset and its pointers) through a runtime if that advances
# it through a helper on one path and tl.advance on the other.
@triton.jit
def block_ptr_loop_if_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (start,), (BLOCK,), (0,))
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for b in range(0, 3):
        acc += tl.load(p, boundary_check=(0,), padding_option="zero")
        if (b + start) % 2 == 0:
            p = forward(p, BLOCK)
        else:
            p = tl.advance(p, (BLOCK,))
    q = tl.make_block_ptr(y_ptr, (n,), (1,), (start,), (BLOCK,), (0,))
    tl.store(q, acc, boundary_check=(0,))

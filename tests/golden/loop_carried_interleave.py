import triton
import triton.language as tl


@triton.jit
def carried_interleave_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The carried tile has the halves of each pair swapped at every step (split, then
    # interleaved the other way round): the new value reads the old one at other
    # registers, so it is computed into a tile of its own before it replaces the old.
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK // 16)
    cols = tl.arange(0, 16)
    acc = tl.zeros((BLOCK // 16, 16), dtype=tl.float32)
    for it in range(0, n % 3 + 2):
        offs = ((pid * 4 + it) * (BLOCK // 16) + rows[:, None]) * 16 + cols[None, :]
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        lo, hi = tl.split(tl.reshape(acc, (BLOCK // 16, 8, 2)))
        acc = tl.interleave(hi, lo) + x
    offs = (pid * (BLOCK // 16) + rows[:, None]) * 16 + cols[None, :]
    tl.store(out_ptr + offs, acc, mask=offs < n)

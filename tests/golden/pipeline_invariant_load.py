import triton
import triton.language as tl


@triton.jit
def invariant_load_kernel(A, B, C, Off, K, stride_a, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr):
    # A K loop whose operand address depends on a load that is the same in every step, and
    # whose body reads that value too.  The pipeline runs the load ahead with the copies; the
    # body's read must still see it in the last steps, past the copies' range.
    pid = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        off = tl.load(Off + pid)
        ks = k + rk
        a = tl.load(A + (off + rm)[:, None] * stride_a + ks[None, :], mask=ks[None, :] < K, other=0.0)
        b = tl.load(B + ks[:, None] * BLOCK_N + rn[None, :], mask=ks[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
        acc += off.to(tl.float32)
    tl.store(C + pid * BLOCK_M * BLOCK_N + rm[:, None] * BLOCK_N + rn[None, :], acc)

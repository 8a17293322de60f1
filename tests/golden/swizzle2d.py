"""tl.swizzle2d on a tile of indices and on a program's scalar id."""
import triton
import triton.language as tl


@triton.jit
def swizzle2d_kernel(out_i, out_j, out_pid, n, COLS: tl.constexpr, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # the n elements as rows of COLS (the last row ragged), walked in groups of GROUP rows
    new_i, new_j = tl.swizzle2d(offs // COLS, offs % COLS, tl.cdiv(n, COLS), COLS, GROUP)
    tl.store(out_i + offs, new_i, mask=mask)
    tl.store(out_j + offs, new_j, mask=mask)
    # the program's own id, as a grouped matmul orders its tiles (4 x 3 tiles, groups of 2)
    tile_m, tile_n = tl.swizzle2d(pid // 3, pid % 3, 4, 3, 2)
    tl.store(out_pid + pid, tile_m * 3 + tile_n)

# Parameters named like C keywords, CUDA built-ins and the generated code's own names
# (v, e, s for its loops, lane and warp for the thread's position, grid and stream in the
# launcher): each keeps its name with '_' added in the .cu, the same in the kernel, the
# launcher and the grid code.
import triton
import triton.language as tl


@triton.jit
def param_names_kernel(v, e, s, sum, max, grid, stream, int, lane, default, gx, gx_, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < grid
    x = tl.load(v + offs, mask=mask)
    y = tl.load(e + offs, mask=mask)
    t = x * sum + y * max + int + lane + default + gx + gx_
    tl.store(s + offs, t, mask=mask & (offs < stream))

# args: tests/errors/cli_embed_with_emit.py -k k -s "*fp32:16, i32, 64" --embed-cubin sm_80 --emit ptx -o /dev/null
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)

# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [x], dtype=tl.float32, is_pure=True, pack=1)

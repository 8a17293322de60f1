# flags: -k k -s "*fp32:16, *i8:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, b_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    b = tl.load(b_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("mov.b32 $0, $2;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)

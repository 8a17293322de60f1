"""tl.inline_asm_elementwise: packed bytes, several results, pure and not."""
import triton
import triton.language as tl


# Four int8 elements per asm statement, packed in one 32-bit register; two results.
@triton.jit
def asm_bytes_kernel(X, LO, FLIP, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    lo, flip = tl.inline_asm_elementwise(
        asm="""
        // each byte: "lo" keeps its low 7 bits, \\ "flip" inverts its low 4
        and.b32 $0, $2, 0x7f7f7f7f;
        xor.b32 $1, $2, 0x0f0f0f0f;
        """,
        constraints="=r,=r,r",
        args=[x],
        dtype=(tl.int8, tl.int8),
        is_pure=True,
        pack=4,
    )
    tl.store(LO + offs, lo, mask=mask)
    tl.store(FLIP + offs, flip, mask=mask)


# fp32 and fp16 operands two elements at a time (the two halves share a register),
# a scalar broadcast to the tile, not pure, clobbering memory.
@triton.jit
def asm_mixed_kernel(A, B, OUT, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask, other=0.0)
    b = tl.load(B + offs, mask=mask, other=0.0).to(tl.float16)
    y = tl.inline_asm_elementwise(
        asm="""{
        .reg .f16 h<2>;
        .reg .f32 f<2>;
        mov.b32 {h0, h1}, $4;
        cvt.f32.f16 f0, h0;
        cvt.f32.f16 f1, h1;
        fma.rn.f32 $0, $2, $5, f0;
        fma.rn.f32 $1, $3, $6, f1;
        }""",
        constraints="=r,=r,r,r,r,r,r,~{memory}",
        args=[a, b, 0.5],
        dtype=tl.float32,
        is_pure=False,
        pack=2,
    )
    tl.store(OUT + offs, y, mask=mask)

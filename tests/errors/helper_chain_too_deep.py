# flags: -k k -s "*fp32:16, i32, 64"
import triton
import triton.language as tl


@triton.jit
def h0(x):
    return h1(x)


@triton.jit
def h1(x):
    return h2(x)


@triton.jit
def h2(x):
    return h3(x)


@triton.jit
def h3(x):
    return h4(x)


@triton.jit
def h4(x):
    return h5(x)


@triton.jit
def h5(x):
    return h6(x)


@triton.jit
def h6(x):
    return h7(x)


@triton.jit
def h7(x):
    return h8(x)


@triton.jit
def h8(x):
    return h9(x)


@triton.jit
def h9(x):
    return h10(x)


@triton.jit
def h10(x):
    return h11(x)


@triton.jit
def h11(x):
    return h12(x)


@triton.jit
def h12(x):
    return h13(x)


@triton.jit
def h13(x):
    return h14(x)


@triton.jit
def h14(x):
    return h15(x)


@triton.jit
def h15(x):
    return h16(x)


@triton.jit
def h16(x):
    return h17(x)


@triton.jit
def h17(x):
    return h18(x)


@triton.jit
def h18(x):
    return h19(x)


@triton.jit
def h19(x):
    return h20(x)


@triton.jit
def h20(x):
    return h21(x)


@triton.jit
def h21(x):
    return h22(x)


@triton.jit
def h22(x):
    return h23(x)


@triton.jit
def h23(x):
    return h24(x)


@triton.jit
def h24(x):
    return h25(x)


@triton.jit
def h25(x):
    return h26(x)


@triton.jit
def h26(x):
    return h27(x)


@triton.jit
def h27(x):
    return h28(x)


@triton.jit
def h28(x):
    return h29(x)


@triton.jit
def h29(x):
    return h30(x)


@triton.jit
def h30(x):
    return h31(x)


@triton.jit
def h31(x):
    return h32(x)


@triton.jit
def h32(x):
    return h33(x)


@triton.jit
def h33(x):
    return h34(x)


@triton.jit
def h34(x):
    return h35(x)


@triton.jit
def h35(x):
    return h36(x)


@triton.jit
def h36(x):
    return h37(x)


@triton.jit
def h37(x):
    return h38(x)


@triton.jit
def h38(x):
    return h39(x)


@triton.jit
def h39(x):
    return h40(x)


@triton.jit
def h40(x):
    return h41(x)


@triton.jit
def h41(x):
    return h42(x)


@triton.jit
def h42(x):
    return h43(x)


@triton.jit
def h43(x):
    return h44(x)


@triton.jit
def h44(x):
    return h45(x)


@triton.jit
def h45(x):
    return h46(x)


@triton.jit
def h46(x):
    return h47(x)


@triton.jit
def h47(x):
    return h48(x)


@triton.jit
def h48(x):
    return h49(x)


@triton.jit
def h49(x):
    return h50(x)


@triton.jit
def h50(x):
    return h51(x)


@triton.jit
def h51(x):
    return h52(x)


@triton.jit
def h52(x):
    return h53(x)


@triton.jit
def h53(x):
    return h54(x)


@triton.jit
def h54(x):
    return h55(x)


@triton.jit
def h55(x):
    return h56(x)


@triton.jit
def h56(x):
    return h57(x)


@triton.jit
def h57(x):
    return h58(x)


@triton.jit
def h58(x):
    return h59(x)


@triton.jit
def h59(x):
    return h60(x)


@triton.jit
def h60(x):
    return h61(x)


@triton.jit
def h61(x):
    return h62(x)


@triton.jit
def h62(x):
    return h63(x)


@triton.jit
def h63(x):
    return h64(x)


@triton.jit
def h64(x):
    return h65(x)


@triton.jit
def h65(x):
    return h66(x)


@triton.jit
def h66(x):
    return h67(x)


@triton.jit
def h67(x):
    return h68(x)


@triton.jit
def h68(x):
    return h69(x)


@triton.jit
def h69(x):
    return h70(x)


@triton.jit
def h70(x):
    return x


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = h0(x)

# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def h0(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h1(x)
    return x

@triton.jit
def h1(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h2(x)
    return x

@triton.jit
def h2(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h3(x)
    return x

@triton.jit
def h3(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h4(x)
    return x

@triton.jit
def h4(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h5(x)
    return x

@triton.jit
def h5(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h6(x)
    return x

@triton.jit
def h6(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h7(x)
    return x

@triton.jit
def h7(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h8(x)
    return x

@triton.jit
def h8(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h9(x)
    return x

@triton.jit
def h9(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h10(x)
    return x

@triton.jit
def h10(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h11(x)
    return x

@triton.jit
def h11(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h12(x)
    return x

@triton.jit
def h12(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h13(x)
    return x

@triton.jit
def h13(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h14(x)
    return x

@triton.jit
def h14(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h15(x)
    return x

@triton.jit
def h15(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h16(x)
    return x

@triton.jit
def h16(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h17(x)
    return x

@triton.jit
def h17(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h18(x)
    return x

@triton.jit
def h18(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = h19(x)
    return x

@triton.jit
def h19(x):
    if x > 0:
        if x > 0:
            if x > 0:
                if x > 0:
                    if x > 0:
                        if x > 0:
                            if x > 0:
                                if x > 0:
                                    if x > 0:
                                        if x > 0:
                                            x = x + 1
    return x


@triton.jit
def k(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, h0(x))

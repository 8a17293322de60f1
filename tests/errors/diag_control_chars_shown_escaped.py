# flags: -k k -s "*fp32:16"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr):
    # the terminal must see escapes, not a clear-screen, a bell or a right-to-left override
    x = tl.load(x_ptr, cache_modifier="[2J‮")
    tl.store(x_ptr, x)

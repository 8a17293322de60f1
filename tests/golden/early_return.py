# Golden input: helpers that return early from a runtime `if`, as Triton
# allows outside loops.  Helpers are inlined, so the statements after the
# `if` become the other branch, and the `if` yields the return value.
import triton
import triton.language as tl


@triton.jit
def _safe_scale(x, denom):
    # nothing to divide by: hand the input back unscaled
    if denom == 0:
        return x, 0.0
    inv = 1.0 / denom
    return x * inv, inv


@triton.jit
def _store_rows(out_ptr, offs, y, n, SKIP_EMPTY: tl.constexpr):
    if SKIP_EMPTY:
        if n == 0:
            return
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def _first_nonzero(a, b):
    if a != 0:
        return a
    elif b != 0:
        return b
    return -1


@triton.jit
def normalize_kernel(x_ptr, out_ptr, scale_ptr, flag_ptr, n, denom, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y, inv = _safe_scale(x, denom)
    tl.store(scale_ptr + pid, inv)
    _store_rows(out_ptr, offs, y, n, True)
    tl.store(flag_ptr + pid, _first_nonzero(pid % 3, n))

# Atomic read-modify-write operations on tiles and on scalars.
#
# histogram_kernel: counts of x % NUM_BINS, many programs adding into the same bins
# (Hist must be zeroed first). Grid cdiv(n, BLOCK_SIZE):
#   bin/tilec examples/atomics.py -k histogram_kernel -s "*i32:16, *i32:16, i32, 64, 1024" --grid "cdiv(n, BLOCK_SIZE)" -w 4 -o histogram.cu
#
# bits_kernel: element i of X folded into slot i % 8 of six accumulators with atomic max, min
# (int32 and fp32), and, or, xor; the results do not depend on the order of the updates:
#   bin/tilec examples/atomics.py -k bits_kernel -s "*i32:16, *fp32:16, *i32:16, *fp32:16, i32, 512" --grid "cdiv(n, BLOCK_SIZE)" -w 4 -o bits.cu
#
# ticket_kernel: each program takes a ticket from one counter (a scalar atomic whose old
# value is used); the tickets of all programs are 0, 1, ..., in some order. Grid (programs,):
#   bin/tilec examples/atomics.py -k ticket_kernel -s "*i32, *i32" -w 1 -o ticket.cu
#
# swap_kernel / cas_kernel: tile atomics whose old values are used: exchange, and
# compare-and-swap (Slots[i] becomes Vals[i] where it held Cmp[i]):
#   bin/tilec examples/atomics.py -k swap_kernel -s "*i32:16, *i32:16, *i32:16, i32, 1024" --grid "cdiv(n, BLOCK_SIZE)" -w 4 -o swap.cu
#   bin/tilec examples/atomics.py -k cas_kernel -s "*i32:16, *i32:16, *i32:16, *i32:16, i32, 1024" --grid "cdiv(n, BLOCK_SIZE)" -w 4 -o cas.cu

import torch

import triton
import triton.language as tl


@triton.jit
def histogram_kernel(X, Hist, n, NUM_BINS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(X + offs, mask=mask, other=0)
    tl.atomic_add(Hist + x % NUM_BINS, 1, mask=mask)


@triton.jit
def bits_kernel(XI, XF, AccI, AccF, n, BLOCK_SIZE: tl.constexpr):
    # AccI holds 5 rows of 8 int32 slots (max, min, and, or, xor), AccF 2 rows of 8 fp32 (max, min).
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    slot = offs % 8
    xi = tl.load(XI + offs, mask=mask, other=0)
    xf = tl.load(XF + offs, mask=mask, other=0.)
    tl.atomic_max(AccI + slot, xi, mask=mask)
    tl.atomic_min(AccI + 8 + slot, xi, mask=mask, sem="relaxed")
    tl.atomic_and(AccI + 16 + slot, xi, mask=mask, scope="gpu")
    tl.atomic_or(AccI + 24 + slot, xi, mask=mask, sem="release")
    tl.atomic_xor(AccI + 32 + slot, xi, mask=mask, sem="acquire")
    tl.atomic_max(AccF + slot, xf, mask=mask)
    tl.atomic_min(AccF + 8 + slot, xf, mask=mask)


@triton.jit
def ticket_kernel(Counter, Tickets):
    pid = tl.program_id(axis=0)
    t = tl.atomic_add(Counter, 1)
    tl.store(Tickets + pid, t)


@triton.jit
def swap_kernel(Slots, Vals, Old, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    v = tl.load(Vals + offs, mask=mask)
    old = tl.atomic_xchg(Slots + offs, v, mask=mask)
    tl.store(Old + offs, old, mask=mask)


@triton.jit
def cas_kernel(Slots, Cmp, Vals, Old, n, BLOCK_SIZE: tl.constexpr):
    # tl.atomic_cas takes no mask, so Slots, Cmp and Vals are padded to a whole number of
    # blocks; only Old stops at n.
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    c = tl.load(Cmp + offs)
    v = tl.load(Vals + offs)
    old = tl.atomic_cas(Slots + offs, c, v)
    tl.store(Old + offs, old, mask=offs < n)


if __name__ == "__main__":
    x = torch.randint(0, 1000, (100000, ), device="cuda", dtype=torch.int32)
    hist = torch.zeros(64, device="cuda", dtype=torch.int32)
    histogram_kernel[(triton.cdiv(x.numel(), 1024), )](x, hist, x.numel(), NUM_BINS=64, BLOCK_SIZE=1024)
    assert torch.equal(hist, torch.bincount(x % 64, minlength=64).to(torch.int32))
    print("histogram ok")

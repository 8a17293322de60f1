#!/usr/bin/env python3
"""Launch-time specialisation through the library (tilec_translate_options.specialize), on the GPU.

    python3 tests/gpu/check_specialize.py [--lib build/release/libtilec.so]

A kernel made with `specialize` is translated again for the facts each launch finds, as Triton's
launcher does: an integer equal to 1 becomes the constant 1, an integer or a pointer's address
that is a multiple of 16 is declared ":16".  This runs kernels whose signatures carry no hints
with arguments that do and do not meet each fact, and checks, at every launch:

  - the output against torch (outputs poisoned with NaN before, the elements no program owns
    still NaN after);
  - the variants the kernel has compiled: exactly the fact sets met so far, in the order met
    (tilec_kernel_variant_signature), and none for the parameters @triton.jit's
    do_not_specialize lists name.

Needs torch and an NVIDIA GPU.  Exit status 0 when every check holds.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tilec_ctypes as tc  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STRIDED = """
import triton
import triton.language as tl

@triton.jit
def strided_scale(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.store(y_ptr + offs, x * 2.0 + 1.0, mask=offs < n)

@triton.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[3])
def listed(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.store(y_ptr + offs, x - 3.0, mask=offs < n)
"""

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def expected_facts(names, kinds, values, listed=()):
    """Triton's key for each argument, written as the facts the library adds."""
    facts = []
    for name, kind, v in zip(names, kinds, values):
        if kind.startswith("*"):
            if v % 16 == 0 and (name, "align") not in listed:
                facts.append(f"{name}={kind}:16")
        elif (name, "value") not in listed:
            if v == 1:
                facts.append(f"{name}=1")
            elif v % 16 == 0 and (name, "align") not in listed:
                facts.append(f"{name}={kind}:16")
    return ", ".join(facts)


def run_strided(ctx, arch, kernel, expect, listed=()):
    k = ctx.kernel_create(STRIDED, dict(filename="strided.py", kernel=kernel, signature="*fp32, *fp32, i32, i32, 256",
                                        grid="cdiv(n, BLOCK)", num_warps=4, specialize=True), arch)
    seen = [""]
    try:
        # (n, stride, x offset, y offset in elements): offsets of one element misalign a pointer
        for n, stride, xo, yo in [(4096, 1, 0, 0), (4095, 1, 0, 0), (4096, 3, 0, 0), (4096, 16, 0, 0),
                                  (4096, 1, 1, 0), (4096, 1, 0, 1), (4095, 3, 1, 1), (4096, 1, 0, 0),
                                  (1, 1, 0, 0), (333, 2, 3, 2)]:
            x = torch.randn(n * stride + 64, device="cuda")
            y = torch.full((n + 64,), float("nan"), device="cuda")
            xp, yp = x.data_ptr() + 4 * xo, y.data_ptr() + 4 * yo
            args = [tc.arg_pointer(xp), tc.arg_pointer(yp), tc.arg_int(n), tc.arg_int(stride)]
            err = k.launch(torch.cuda.current_stream().cuda_stream, None, args)
            torch.cuda.synchronize()
            facts = expected_facts(["x_ptr", "y_ptr", "n", "stride"], ["*fp32", "*fp32", "i32", "i32"],
                                   [xp, yp, n, stride], listed)
            if facts not in seen:
                seen.append(facts)
            ref = expect(x[xo:xo + n * stride:stride])
            got = y[yo:yo + n]
            outside = torch.cat([y[:yo], y[yo + n:]])
            what = f"{kernel} n={n} stride={stride} x+{xo} y+{yo} ({facts or 'as written'})"
            check(not err and torch.allclose(got, ref) and bool(torch.isnan(outside).all()),
                  f"{what}: output{(' ' + err) if err else ''}")
            got_variants = k.variants()
            check(got_variants == seen, f"{what}: {len(got_variants)} variants" +
                  ("" if got_variants == seen else f": {got_variants}, expected {seen}"))
    finally:
        k.destroy()


def run_matmul(ctx, arch):
    """examples/matmul.py's matmul_kernel, sizes and strides as plain i32: unit strides compile in."""
    src = open(os.path.join(ROOT, "examples", "matmul.py")).read()
    k = ctx.kernel_create(src, dict(filename="examples/matmul.py", kernel="matmul_kernel",
                                    signature="*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, "
                                              "64, 64, 32, 8",
                                    grid="cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", num_warps=4, num_stages=3,
                                    specialize=True), arch)
    try:
        for m, n, kk, transposed_b in [(512, 256, 384, False), (300, 257, 129, False), (512, 256, 384, True),
                                       (512, 256, 384, False)]:
            a = torch.randn(m, kk, device="cuda", dtype=torch.float16)
            b = torch.randn(kk, n, device="cuda", dtype=torch.float16)
            if transposed_b:
                b = b.t().contiguous().t()
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            args = [tc.arg_pointer(a.data_ptr()), tc.arg_pointer(b.data_ptr()), tc.arg_pointer(c.data_ptr())] + \
                [tc.arg_int(v) for v in (m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                                         c.stride(1))]
            err = k.launch(torch.cuda.current_stream().cuda_stream, None, args)
            torch.cuda.synchronize()
            ref = (a.double() @ b.double())
            rel = ((c.double() - ref).abs().max() / ref.abs().max()).item()
            check(not err and rel < 2e-3, f"matmul_kernel {m}x{n}x{kk}{' B by columns' if transposed_b else ''}: "
                                          f"rel. error {rel:.1e}{(' ' + err) if err else ''}")
        v = k.variants()
        check(len(v) == 4 and v[0] == "", f"matmul_kernel: {len(v)} variants" + ("" if len(v) == 4 else f": {v}"))
        for s in v[1:]:
            print(f"     variant: {s}")
        check(all("stride_bn=1" in s for s in (v[1], v[2])) and "stride_bk=1" in v[3],
              "matmul_kernel: the unit strides compiled in")
    finally:
        k.destroy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "release", "libtilec.so"))
    opts = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("check_specialize: no GPU")
    lib = tc.Library(opts.lib)
    problems = tc.self_test(lib)
    if problems:
        sys.exit("check_specialize: the ctypes binding does not match the library: " + "; ".join(problems))
    major, minor = torch.cuda.get_device_capability()
    arch = 10 * major + minor
    ctx = lib.context()
    try:
        run_strided(ctx, arch, "strided_scale", lambda x: x * 2.0 + 1.0)
        run_strided(ctx, arch, "listed", lambda x: x - 3.0, listed={("n", "value"), ("n", "align"),
                                                                    ("stride", "align")})
        run_matmul(ctx, arch)
    finally:
        ctx.close()
    print(f"check_specialize: {len(failures)} failed" if failures else "check_specialize: all passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

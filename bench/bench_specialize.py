#!/usr/bin/env python3
"""What launch-time specialisation is worth: kernels whose signatures give no hints, through the library.

    python3 bench/bench_specialize.py [--lib build/release/libtilec.so] [--rounds 3] [--out FILE.md]

Each kernel of examples/ is translated with a signature that only names types ("*fp16, i32"),
as a host program that does not know its sizes in advance writes it, and timed three ways on the
same inputs and config:

  - tilec as written: the library kernel without specialisation (masks kept, narrow accesses);
  - tilec specialised: the same with tilec_translate_options.specialize, which translates a
    variant for the facts the launch finds (sizes and addresses that are multiples of 16,
    unit strides), as Triton's launcher does;
  - Triton: the @triton.jit kernel launched from Python, which specialises itself.

Timing: triton.testing.do_bench (warmup 25, rep 100, median), the implementations in
alternating order for --rounds rounds, the median of the rounds; Triton is timed once more as
a control.  Each tilec output is checked against Triton's first.  Needs torch, Triton and a GPU.
"""
import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import tilec_ctypes as tc  # noqa: E402


def ptr(t):
    return tc.arg_pointer(t.data_ptr())


def cases():
    """(name, example file, kernel, signature, defines, warps, stages, grid, make) with make() ->
    (tensors, tilec args, Triton launch, output tensor, bytes or flops for the rate)."""
    import vector_add
    import layer_norm
    import softmax
    import matmul

    def add():
        n = 1 << 26
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        args = [ptr(x), ptr(y), ptr(out), tc.arg_int(n)]
        grid = (triton.cdiv(n, 1024),)
        return args, lambda: vector_add.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024, num_warps=4), out, \
            ("GB/s", 12 * n)

    def ln():
        m, n = 4096, 8192
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        w = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(m, device="cuda")
        rstd = torch.empty(m, device="cuda")
        args = [ptr(x), ptr(y), ptr(w), ptr(b), ptr(mean), ptr(rstd), tc.arg_int(n), tc.arg_int(n),
                tc.arg_float(1e-5)]
        return args, lambda: layer_norm.layer_norm_fwd[(m,)](x, y, w, b, mean, rstd, n, n, 1e-5,
                                                             BLOCK_SIZE=8192, num_warps=8), y, ("GB/s", 4 * m * n)

    def sm():
        m, n = 4096, 4096
        x = torch.randn(m, n, device="cuda")
        y = torch.empty_like(x)
        args = [ptr(y), ptr(x), tc.arg_int(n), tc.arg_int(n), tc.arg_int(n)]
        return args, lambda: softmax.softmax_kernel[(m,)](y, x, n, n, n, BLOCK_SIZE=4096, num_warps=8), y, \
            ("GB/s", 8 * m * n)

    def mm():
        m = n = k = 4096
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        ints = (m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        args = [ptr(a), ptr(b), ptr(c)] + [tc.arg_int(v) for v in ints]
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 128),)
        return args, lambda: matmul.matmul_kernel[grid](a, b, c, *ints, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                                                         GROUP_M=8, num_warps=4, num_stages=4), c, \
            ("TFLOP/s", 2 * m * n * k)

    return [
        ("vector add fp32 2^26", "vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024", 4, 3,
         "cdiv(n_elements, BLOCK_SIZE)", add),
        ("layer norm fwd fp16 4096 x 8192", "layer_norm.py", "layer_norm_fwd",
         "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 8192", 8, 3, "4096", ln),
        ("softmax fp32 4096 x 4096", "softmax.py", "softmax_kernel", "*fp32, *fp32, i32, i32, i32, 4096", 8, 3,
         "4096", sm),
        ("matmul fp16 4096^3 (128x128x32 g8 w4 s4)", "matmul.py", "matmul_kernel",
         "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 128, 128, 32, 8", 4, 4,
         "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", mm),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "release", "libtilec.so"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", help="also write the Markdown report here")
    opts = ap.parse_args()
    lib = tc.Library(opts.lib)
    major, minor = torch.cuda.get_device_capability()
    arch = 10 * major + minor
    ctx = lib.context()
    stream = torch.cuda.current_stream().cuda_stream
    rows = []
    for name, file, kernel, sig, warps, stages, grid, make in cases():
        src = open(os.path.join(ROOT, "examples", file)).read()
        base = dict(filename=f"examples/{file}", kernel=kernel, signature=sig, grid=grid, num_warps=warps,
                    num_stages=stages)
        plain = ctx.kernel_create(src, base, arch)
        spec = ctx.kernel_create(src, dict(base, specialize=True), arch)
        args, triton_run, out, (unit, amount) = make()

        def run(k):
            return lambda: k.launch(stream, None, args)

        triton_run()
        ref = out.clone()
        checks = []
        for label, k in (("as written", plain), ("specialised", spec)):
            out.fill_(float("nan"))
            err = run(k)()
            torch.cuda.synchronize()
            rel = ((out.double() - ref.double()).abs().max() / ref.double().abs().max()).item()
            checks.append(f"{label}: {err}" if err else f"{label} {rel:.1e}")
        impls = [("triton", triton_run), ("as written", run(plain)), ("specialised", run(spec))]
        times = {label: [] for label, _ in impls}
        for r in range(opts.rounds):
            for label, fn in (impls if r % 2 == 0 else impls[::-1]):
                times[label].append(triton.testing.do_bench(fn, warmup=25, rep=100))
        control = triton.testing.do_bench(triton_run, warmup=25, rep=100)
        med = {label: statistics.median(v) for label, v in times.items()}
        rate = {label: amount / (t * 1e-3) / (1e12 if unit == "TFLOP/s" else 1e9) for label, t in med.items()}
        rows.append((name, med, rate, unit, med["triton"] / control, spec.variants(), checks))
        plain.destroy()
        spec.destroy()
    ctx.close()

    try:
        nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except OSError:
        nvcc = "nvcc not found"
    lines = [
        "# Launch-time specialisation: hint-free signatures through the library",
        "",
        f"- GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; triton {triton.__version__}; "
        f"python {platform.python_version()}; libtilec {lib.version}, NVRTC {'%d.%d' % ctx_version(lib)}; {nvcc}",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- timing: triton.testing.do_bench(warmup=25, rep=100, median), {opts.rounds} rounds in alternating order, "
        "the median of the rounds; Triton/Triton: Triton timed once more after the rounds (the noise)",
        "- every column runs the same source and config (examples/); tilec through libtilec (NVRTC, cubin for this "
        "GPU), the signature naming types only; Triton specialises as it always does",
        "",
        "| kernel | Triton ms | tilec as written ms | tilec specialised ms | as written/Triton | specialised/Triton "
        "| Triton/Triton | rate (Triton, as written, specialised) | variant compiled | check vs Triton |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, med, rate, unit, control, variants, checks in rows:
        lines.append(
            f"| {name} | {med['triton']:.4f} | {med['as written']:.4f} | {med['specialised']:.4f} "
            f"| {med['triton'] / med['as written']:.3f} | {med['triton'] / med['specialised']:.3f} | {control:.3f} "
            f"| {rate['triton']:.0f}, {rate['as written']:.0f}, {rate['specialised']:.0f} {unit} "
            f"| `{variants[-1] or 'as written'}` | {'; '.join(checks)} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if opts.out:
        with open(opts.out, "w") as f:
            f.write(text)


def ctx_version(lib):
    c = lib.context()
    try:
        return c.nvrtc_version()
    finally:
        c.close()


if __name__ == "__main__":
    main()

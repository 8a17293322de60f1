#!/usr/bin/env python3
"""What launch-time specialisation is worth: kernels whose signatures give no hints, through the library.

    python3 bench/bench_specialize.py [--lib build/release/libtilec.so] [--tilec bin/tilec] [--rounds 3]
                                      [--out FILE.md]

Each kernel of examples/ is translated with a signature that only names types ("*fp16, i32"),
as a host program that does not know its sizes in advance writes it, and timed three ways on the
same inputs and config:

  - tilec as written: the library kernel without specialisation (masks kept, narrow accesses);
  - tilec specialised: the same with tilec_translate_options.specialize, which translates a
    variant for the facts the launch finds (sizes and addresses that are multiples of 16,
    unit strides), as Triton's launcher does;
  - tilec .cu with --variant: the command line's .cu, built with nvcc, with the facts the
    specialised kernel found given as a --variant; its launcher tests them and runs the variant;
  - Triton: the @triton.jit kernel launched from Python, which specialises itself.

Timing: triton.testing.do_bench (warmup 25, rep 100, median), the implementations in
alternating order for --rounds rounds, the median of the rounds; Triton is timed once more as
a control.  Each tilec output is checked against Triton's first.  Needs torch, Triton and a GPU.
"""
import argparse
import ctypes
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import tilec_ctypes as tc  # noqa: E402
import run_gpu_tests as rgt  # noqa: E402
from cases import Case  # noqa: E402


def cu_runner(kernel, values):
    """NAME_launch of an nvcc-built .cu (run_gpu_tests' ctypes launcher), unsynchronised."""
    args = [ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
    for p in kernel.runtime:
        for (_, typ), v in zip(rgt.runtime_args(p), rgt.runtime_values(p, values[p.name])):
            args.append(ctypes.c_void_p(v.data_ptr()) if typ.startswith("*") else v)
    launch = kernel.launch_fn

    def run():
        if launch(*args):
            raise RuntimeError("launch failed")
    return run


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
        values = dict(x_ptr=x, y_ptr=y, output_ptr=out, n_elements=n)
        grid = (triton.cdiv(n, 1024),)
        return values, lambda: vector_add.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024, num_warps=4), out, \
            ("GB/s", 12 * n)

    def ln():
        m, n = 4096, 8192
        x = torch.randn(m, n, device="cuda", dtype=torch.float16)
        w = torch.randn(n, device="cuda", dtype=torch.float16)
        b = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        mean = torch.empty(m, device="cuda")
        rstd = torch.empty(m, device="cuda")
        values = dict(X=x, Y=y, W=w, B=b, Mean=mean, Rstd=rstd, stride=n, N=n, eps=1e-5)
        return values, lambda: layer_norm.layer_norm_fwd[(m,)](x, y, w, b, mean, rstd, n, n, 1e-5,
                                                             BLOCK_SIZE=8192, num_warps=8), y, ("GB/s", 4 * m * n)

    def sm():
        m, n = 4096, 4096
        x = torch.randn(m, n, device="cuda")
        y = torch.empty_like(x)
        values = dict(out_ptr=y, in_ptr=x, in_row_stride=n, out_row_stride=n, n_cols=n)
        return values, lambda: softmax.softmax_kernel[(m,)](y, x, n, n, n, BLOCK_SIZE=4096, num_warps=8), y, \
            ("GB/s", 8 * m * n)

    def mm():
        m = n = k = 4096
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        ints = (m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        values = dict(zip(["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_ak", "stride_bk",
                           "stride_bn", "stride_cm", "stride_cn"], [a, b, c, *ints]))
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 128),)
        return values, lambda: matmul.matmul_kernel[grid](a, b, c, *ints, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
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
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--out", help="also write the Markdown report here")
    opts = ap.parse_args()
    rgt.load_torch()
    opts.tilec = os.path.abspath(opts.tilec)
    work = tempfile.mkdtemp(prefix="bench_specialize_")
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
        values, triton_run, out, (unit, amount) = make()
        args = [tc.arg_for(typ, values[name].data_ptr() if typ.startswith("*") else values[name])
                for name, typ in plain.runtime_params()]

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
        # the .cu flow: the variant the library compiled, given to the command line as --variant,
        # nvcc-built, launched through NAME_launch (which tests the facts)
        facts = spec.variants()[-1]
        case = Case(name=kernel, source=f"examples/{file}", kernel=kernel, sig=sig, num_warps=warps,
                    num_stages=stages, grid=grid, extra_flags=["--arch", f"sm_{arch}"] +
                    (["--variant", facts] if facts else []))
        so, err = rgt.build_case(case, opts.tilec, f"sm_{arch}", os.path.join(work, kernel))
        if so is None:
            sys.exit(f"bench_specialize: {kernel} with --variant did not build: {err}")
        cu = rgt.Kernel(case, so, use_triton=False)
        out.fill_(float("nan"))
        err = cu.launch_tilec(values, None)
        rel = ((out.double() - ref.double()).abs().max() / ref.double().abs().max()).item()
        checks.append(f".cu {err}" if err else f".cu {rel:.1e}")
        impls = [("triton", triton_run), ("as written", run(plain)), ("specialised", run(spec)),
                 (".cu --variant", cu_runner(cu, values))]
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
        "| kernel | Triton ms | tilec as written ms | tilec specialised ms | .cu --variant ms | as written/Triton "
        "| specialised/Triton | .cu --variant/Triton | Triton/Triton | rate (Triton, as written, specialised, .cu) "
        "| variant compiled (and given to --variant) | check vs Triton |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, med, rate, unit, control, variants, checks in rows:
        lines.append(
            f"| {name} | {med['triton']:.4f} | {med['as written']:.4f} | {med['specialised']:.4f} "
            f"| {med['.cu --variant']:.4f} | {med['triton'] / med['as written']:.3f} "
            f"| {med['triton'] / med['specialised']:.3f} | {med['triton'] / med['.cu --variant']:.3f} | {control:.3f} "
            f"| {rate['triton']:.0f}, {rate['as written']:.0f}, {rate['specialised']:.0f}, {rate['.cu --variant']:.0f} "
            f"{unit} | `{variants[-1] or 'as written'}` | {'; '.join(checks)} |")
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

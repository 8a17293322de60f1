#!/usr/bin/env python3
"""Elementwise kernels on the GPU: tilec vs Triton (same source) vs PyTorch, in one run.

    python3 bench/bench_elementwise.py [--tilec bin/tilec] [--log2 24,28] [--only TEXT]
                                       [--arch sm_90] [--keep DIR]

Kernels: examples/vector_add.py (fp32, fp16, bf16) and examples/fused_activation.py (each
ACTIVATION, fp32 and fp16), BLOCK_SIZE=1024 and num_warps=4 for tilec and Triton alike, with
n % 16 == 0 promised to tilec ("i32:16") as Triton's own specialisation assumes it for such n.
PyTorch: torch.add(x, y, out=...), F.gelu(x, approximate="tanh"), F.silu, F.leaky_relu.
Ceiling: dst.copy_(src) moving the same number of bytes (read + written).

Timing: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") (CUDA events,
L2 flushed before each run); without Triton, the same method written out here. Each tilec
result is checked against PyTorch before it is timed. GB/s counts bytes read + written once.
The markdown table goes to stdout and to $OUT/bench_elementwise.md when OUT is set.
"""

import argparse
import ctypes
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import concurrent.futures

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import run_gpu_tests as harness  # noqa: E402
from cases import Case  # noqa: E402

ACTIVATIONS = ["gelu_tanh", "silu", "leaky_relu"]
ALPHA = 0.01
BLOCK, WARPS = 1024, 4


def bench_configs(log2_sizes):
    """(label, dtype, n, Case) for every row of the table."""
    rows = []
    for lg in log2_sizes:
        n = 1 << lg
        for dt in ["fp32", "fp16", "bf16"]:
            rows.append(("vector add", dt, n, Case(
                f"add/{dt}", "examples/vector_add.py", "add_kernel",
                f"*{dt}:16, *{dt}:16, *{dt}:16, i32:16, {BLOCK}", num_warps=WARPS,
                grid="cdiv(n_elements, BLOCK_SIZE)", driver="vector_add", dtype=dt)))
        for act in ACTIVATIONS:
            for dt in ["fp32", "fp16"]:
                rows.append((act, dt, n, Case(
                    f"{act}/{dt}", "examples/fused_activation.py", "activation_kernel",
                    f"*{dt}:16, *{dt}:16, i32:16, fp32, \"{act}\", {BLOCK}", num_warps=WARPS,
                    grid="cdiv(n_elements, BLOCK_SIZE)", driver="activation", dtype=dt)))
    return rows


def make_timer(torch):
    try:
        import triton.testing

        def do_bench(fn):
            return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")
        return do_bench, "triton.testing.do_bench(warmup=25, rep=100, median)"
    except Exception:
        pass

    def do_bench(fn):
        cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
        fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            cache.zero_()
            fn()
        end.record()
        torch.cuda.synchronize()
        est = max(start.elapsed_time(end) / 5, 1e-3)
        warm, reps = max(1, int(25 / est)), max(1, int(100 / est))
        for _ in range(warm):
            fn()
        times = []
        for _ in range(reps):
            cache.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            times.append((s, e))
        torch.cuda.synchronize()
        ms = sorted(s.elapsed_time(e) for s, e in times)
        return ms[len(ms) // 2]
    return do_bench, "CUDA events, L2 flushed before each run, median (Triton not importable)"


def environment(torch):
    def cmd(args):
        try:
            return subprocess.run(args, capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"
    driver = cmd(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]).splitlines()
    nvcc = [ln for ln in cmd([os.environ.get("NVCC", "nvcc"), "--version"]).splitlines() if "release" in ln]
    try:
        import triton
        triton_version = triton.__version__
    except Exception as e:
        triton_version = f"not importable ({type(e).__name__})"
    return [
        f"GPU: {torch.cuda.get_device_name()} ({torch.cuda.get_device_properties(0).multi_processor_count} SMs)",
        f"driver: {driver[0] if driver else '?'}; CUDA (torch): {torch.version.cuda}; "
        f"nvcc: {nvcc[0].strip() if nvcc else '?'}",
        f"torch {torch.__version__}; triton {triton_version}; python {platform.python_version()}",
        f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


def torch_equivalent(F, torch, label, x, y, out):
    if label == "vector add":
        return lambda: torch.add(x, y, out=out)
    if label == "gelu_tanh":
        return lambda: F.gelu(x, approximate="tanh")
    if label == "silu":
        return lambda: F.silu(x)
    return lambda: F.leaky_relu(x, negative_slope=ALPHA)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--log2", default="24,28", help="log2 of the sizes (default 24,28)")
    ap.add_argument("--only", help="rows whose 'kernel/dtype' contains this")
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    opts = ap.parse_args()

    torch = harness.load_torch()
    import torch.nn.functional as F
    try:
        import triton  # noqa: F401
        have_triton = True
    except Exception as e:
        print(f"-- Triton cannot be imported ({type(e).__name__}: {e}); no Triton column")
        have_triton = False
    do_bench, timing_text = make_timer(torch)

    rows = bench_configs([int(v) for v in opts.log2.split(",")])
    if opts.only:
        rows = [r for r in rows if opts.only in f"{r[0]}/{r[1]}"]
    arch = opts.arch or "sm_%d%d" % torch.cuda.get_device_capability()
    tilec = os.path.abspath(opts.tilec)
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-bench-")

    # Translate and compile each distinct case once, in parallel.
    builds = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        for _, _, _, case in rows:
            if case.name not in builds:
                folder = os.path.join(work, case.name.replace("/", "_"))
                builds[case.name] = pool.submit(harness.build_case, case, tilec, arch, folder)
        builds = {name: fut.result() for name, fut in builds.items()}
    for name, (so, err) in builds.items():
        if err:
            print(f"-- {name}: tilec/nvcc failed:\n{harness.indent(err)}")

    triton_kernels = {}
    if have_triton:
        for _, _, _, case in rows:
            if case.source not in triton_kernels:
                try:
                    triton_kernels[case.source] = harness.load_triton_kernel(case)
                except Exception as e:
                    print(f"-- cannot load {case.source} for Triton: {e}")
                    triton_kernels[case.source] = None

    n_sm = torch.cuda.get_device_properties(0).multi_processor_count
    table = ["| kernel | dtype | n | MB moved | tilec GB/s | Triton GB/s | PyTorch GB/s | copy GB/s "
             "| tilec/Triton | tilec/copy | tilec check |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    kernels = {}
    for label, dt, n, case in rows:
        tdt = harness.torch_dtype(dt)
        esize = torch.empty((), dtype=tdt).element_size()
        n_tensors = 3 if label == "vector add" else 2
        moved = n_tensors * n * esize
        free, _ = torch.cuda.mem_get_info()
        need = 2.5 * moved + (256 << 20)      # tensors, torch's output, copy buffers, L2 flush
        if need > 0.9 * free:
            print(f"-- {label} {dt} n=2^{n.bit_length() - 1}: needs {need / 2**30:.1f} GiB, skipped")
            continue
        so, err = builds[case.name]
        gbps = {}
        check = "—"
        x = torch.randn(n, device="cuda", dtype=torch.float32).to(tdt)
        y = torch.randn(n, device="cuda", dtype=torch.float32).to(tdt) if label == "vector add" else None
        out = torch.empty_like(x)
        bufs = {"x_ptr": x, "y_ptr": y if label == "vector add" else out, "output_ptr": out,
                "n_elements": n, "alpha": ALPHA}
        ref_fn = torch_equivalent(F, torch, label, x, y, torch.empty_like(x))

        if so:
            try:
                if case.name not in kernels:
                    kernels[case.name] = harness.Kernel(case, so, use_triton=False)
                k = kernels[case.name]
                args = [ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
                for p in k.runtime:
                    v = bufs[p.name]
                    args.append(ctypes.c_void_p(v.data_ptr()) if p.kind == "ptr" else v)
                launch = k.launch_fn

                def run_tilec():
                    err = launch(*args)
                    if err:
                        raise RuntimeError(f"{case.kernel}_launch returned {err}")
                out.fill_(float("nan"))
                run_tilec()
                torch.cuda.synchronize()
                ref = ref_fn()
                if label in ("vector add", "leaky_relu"):
                    check = "bit-equal" if torch.equal(out, ref) else "MISMATCH"
                else:
                    close = torch.allclose(out.float(), ref.float(), rtol=1e-2 if dt != "fp32" else 1e-4,
                                           atol=1e-3 if dt != "fp32" else 1e-5)
                    check = "close" if close else "MISMATCH"
                del ref
                gbps["tilec"] = moved / (do_bench(run_tilec) * 1e-3) / 1e9
            except Exception as e:
                print(f"-- {label} {dt}: tilec run failed: {type(e).__name__}: {e}")
                check = "failed"
        else:
            check = "no build"

        tk = triton_kernels.get(case.source)
        if tk is not None:
            grid = ((n + BLOCK - 1) // BLOCK,)
            if label == "vector add":
                def run_triton():
                    tk[grid](x, y, out, n, BLOCK_SIZE=BLOCK, num_warps=WARPS)
            else:
                def run_triton():
                    tk[grid](x, out, n, ALPHA, ACTIVATION=label, BLOCK_SIZE=BLOCK, num_warps=WARPS)
            try:
                gbps["triton"] = moved / (do_bench(run_triton) * 1e-3) / 1e9
            except Exception as e:
                print(f"-- {label} {dt}: Triton failed: {type(e).__name__}: {e}")
        gbps["torch"] = moved / (do_bench(ref_fn) * 1e-3) / 1e9
        # Free this row's tensors (the closures above hold them) before the copy buffers.
        bufs = out = x = y = ref_fn = run_tilec = run_triton = None
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        gbps["copy"] = moved / (do_bench(lambda: dst.copy_(src)) * 1e-3) / 1e9
        src = dst = None

        def fmt(key):
            return f"{gbps[key]:.0f}" if key in gbps else "—"
        ratio = f"{gbps['tilec'] / gbps['triton']:.3f}" if "tilec" in gbps and "triton" in gbps else "—"
        frac = f"{gbps['tilec'] / gbps['copy']:.3f}" if "tilec" in gbps else "—"
        line = (f"| {label} | {dt} | 2^{n.bit_length() - 1} | {moved / 1e6:.0f} | {fmt('tilec')} | "
                f"{fmt('triton')} | {fmt('torch')} | {fmt('copy')} | {ratio} | {frac} | {check} |")
        table.append(line)
        print(line, flush=True)
        torch.cuda.empty_cache()

    header = ["# tilec elementwise benchmark", ""] + [f"- {ln}" for ln in environment(torch)] + [
        f"- timing: {timing_text}; GB/s = (bytes read + bytes written) / time",
        f"- tilec and Triton: BLOCK_SIZE={BLOCK}, num_warps={WARPS}, same source; "
        f"{n_sm} SMs; nvcc -O3 -arch={arch}",
        "- copy: dst.copy_(src) moving the same bytes (read + written); tilec/copy is the "
        "fraction of that ceiling", ""]
    text = "\n".join(header + table) + "\n"
    print()
    print(text)
    if os.environ.get("OUT"):
        path = os.path.join(os.environ["OUT"], "bench_elementwise.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"-- written to {path}")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

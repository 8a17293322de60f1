#!/usr/bin/env python3
"""Matrix multiplication on the GPU: tilec vs Triton (same source, same config) vs Triton held
to mma.sync vs cuBLAS, in one run.

    python3 bench/bench_matmul.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90] [--keep DIR]
                                  [--config DTYPE=BMxBNxBK/GROUP_M/WARPS/STAGES]...

Kernel: matmul_kernel of examples/matmul.py (grouped ordering, masked K tail, row-major A, B
and C), at fp16 1024^3, 4096^3 and 8192^3, tf32 (fp32 inputs, the default input_precision)
4096^3 and int8 (int32 result) 4096^3; the rows marked "persistent" run
matmul_persistent_kernel (132 programs walking the tiles, the K loop of each pipelined) on the
fp16 config, "persistent-flat" matmul_persistent_flat_kernel (the same as one loop over tiles
and K steps with branches, pipelined across tiles), "tma-persistent" matmul_tma_persistent_kernel
(the persistent kernel on host tensor descriptors, B given as [N, K]: TMA copies on sm_90),
"tma-ws" the same with WARP_SPECIALIZE=True (tl.range(warp_specialize=True) on its tile loop: a
producer warpgroup issues the copies on sm_90).  tilec and Triton get the same specialisation: sizes
and leading dimensions divisible by 16 promised as "i32:16", unit strides fixed to 1, as
Triton's own specialisation does at run time.

Default configs (BLOCK_M x BLOCK_N x BLOCK_K / GROUP_M / num_warps / num_stages):
  fp16  128x256x64/8/8/3  the first fp16 config of the Triton matmul tutorial, the one its
                          autotuner picks for large fp16 products on Ampere (mma.sync)
  tf32  128x128x32/8/8/3  half the K depth: 4-byte elements (96 KB of shared memory)
  int8  128x256x128/8/8/3 the tutorial's 8-bit config (same bytes per stage as fp16's)
--config fp16=128x128x32/8/4/4 (repeatable) replaces one.

Columns:
  tilec           tilec's kernel, through its ctypes launcher (nvcc -O3 -arch=sm_XY); on sm_90,
                  fp16 and bf16 are translated with --arch sm_90 and built for sm_90a
                  (-gencode arch=compute_90a,code=sm_90a): tl.dot on wgmma
  Triton          Triton as installed; on sm_90 it uses wgmma (MMA v3, Hopper's async
                  warpgroup MMA), a different instruction from tilec's mma.sync
  Triton mma.sync the same kernel compiled with DISABLE_MMA_V3=1, which Triton reads at compile
                  time (in AccelerateMatmul) and counts among the environment variables of its
                  cache key; it is set for a second worker process of its own, so the two
                  Triton builds never share a process or an in-memory kernel cache.  The PTX of
                  every Triton build is checked for the instruction the column claims.
  Triton/Triton   Triton's kernel timed once more after the rounds, over its median: the run's
                  noise, against which tilec/Triton is read
  cuBLAS          torch.matmul (fp16; tf32 with torch.backends.cuda.matmul.allow_tf32 = True),
                  torch._int_mm (int8 -> int32)

Timing: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") (CUDA events),
in ROUNDS (3) rounds that alternate the implementations (Triton, tilec, cuBLAS, then the
other way round), the median round reported; TFLOP/s = 2 M N K / time.  Before it is timed, every result is checked against a float64
product of the same inputs: int8 bit-exact, otherwise max|out - ref| / max|ref| within the
tolerance of the GPU tests (fp16 1e-2, tf32 1e-3).  A kernel tilec cannot translate gives
"n/a" and the reason, and the run goes on.  The markdown table goes to stdout and to
$OUT/bench_matmul.md when OUT is set.  Meant to finish in under 5 minutes: 5 rows x 4 columns
of ~0.15 s timings, 10 Triton compilations and 5 nvcc ones (not yet timed on a GPU).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, HERE)
import run_gpu_tests as harness  # noqa: E402
from cases import Case  # noqa: E402
import bench_elementwise as elementwise  # noqa: E402  (timer and environment lines)
import bench_rowwise as rowwise  # noqa: E402  (tilec launcher, i32 entries, lost contexts)

DEFAULT_CONFIGS = {"fp16": "128x256x64/8/8/3", "bf16": "128x256x64/8/8/3", "tf32": "128x128x32/8/8/3",
                   "int8": "128x256x64/8/8/3",
                   "fp8": "128x128x64/8/8/3"}
PROBLEMS = [("fp16", 1024, 1024, 1024), ("fp16", 4096, 4096, 4096), ("fp16", 8192, 8192, 8192),
            ("bf16", 4096, 4096, 4096), ("bf16", 8192, 8192, 8192),
            ("tf32", 4096, 4096, 4096), ("int8", 4096, 4096, 4096), ("fp8", 4096, 4096, 4096),
            ("fp16", 4096, 4096, 4096, "persistent"), ("fp16", 8192, 8192, 8192, "persistent"),
            ("fp16", 4096, 4096, 4096, "persistent-flat"),
            ("fp16", 4096, 4096, 4096, "tma-persistent"), ("fp16", 8192, 8192, 8192, "tma-persistent"),
            ("bf16", 4096, 4096, 4096, "tma-persistent"),
            ("fp16", 4096, 4096, 4096, "tma-ws"), ("fp16", 8192, 8192, 8192, "tma-ws"),
            ("bf16", 4096, 4096, 4096, "tma-ws"), ("bf16", 8192, 8192, 8192, "tma-ws")]
NUM_SMS = 132   # matmul_persistent_kernel's programs: the SMs of an H100 SXM or H200
ROUNDS = 3      # timings of each implementation per row, alternating; the median is reported
TOL = {"fp16": 1e-2, "bf16": 2e-2, "tf32": 1e-3, "fp8": 1e-2}
PTR = {"fp16": ("fp16", "fp16"), "bf16": ("bf16", "bf16"), "tf32": ("fp32", "fp32"), "int8": ("i8", "i32"), "fp8": ("fp8e4nv", "fp16")}
IMPLS = ["tilec", "triton", "triton_mma_sync", "cublas"]


def parse_config(text):
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)/(\d+)/(\d+)/(\d+)", text.strip())
    if not m:
        raise ValueError(f"config {text!r}: want BMxBNxBK/GROUP_M/WARPS/STAGES, e.g. 128x128x32/8/4/4")
    return tuple(int(v) for v in m.groups())


class Row:
    """One line of the table: a dtype and shape, and the case that tilec and Triton run."""

    def __init__(self, dtype, M, N, K, config, variant=""):
        self.dtype, self.M, self.N, self.K, self.config, self.variant = dtype, M, N, K, config, variant
        bm, bn, bk, group, warps, stages = config
        a, c = PTR[dtype]
        i32 = rowwise.i32
        sig = (f"*{a}:16, *{a}:16, *{c}:16, {i32(M)}, {i32(N)}, {i32(K)}, {i32(K)}, 1, {i32(N)}, 1, "
               f"{i32(N)}, 1, {bm}, {bn}, {bk}, {group}")
        kernel, grid = "matmul_kernel", "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"
        if variant.startswith("tma-"):  # host tensor descriptors: A [M, K], B as [N, K], C [M, N]
            kernel, grid = "matmul_tma_persistent_kernel", "min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))"
            sig = (f"tensordesc<{a}[{bm}, {bk}]>, tensordesc<{a}[{bn}, {bk}]>, tensordesc<{c}[{bm}, {bn}]>, "
                   f"{i32(M)}, {i32(N)}, {i32(K)}, {bm}, {bn}, {bk}, {group}, {NUM_SMS}, {variant == 'tma-ws'}")
        elif variant.startswith("persistent"):
            kernel = "matmul_persistent_flat_kernel" if variant.endswith("flat") else "matmul_persistent_kernel"
            grid = "min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))"
            sig += f", {NUM_SMS}"
        self.case = Case(f"matmul/{self.key}", "examples/matmul.py", kernel, sig,
                         num_warps=warps, num_stages=stages, grid=grid,
                         driver="matmul", dtype=a, feature="dot",
                         extra_flags=["--arch", "sm_90"] if dtype == "fp8" else [])

    @property
    def key(self):
        return f"{self.dtype}/{self.M}x{self.N}x{self.K}" + (f"/{self.variant}" if self.variant else "")


def bench_rows(configs):
    return [Row(p[0], p[1], p[2], p[3], configs[p[0]], *p[4:]) for p in PROBLEMS]


def make_problem(torch, row):
    """(kernel argument values, float64 reference, cuBLAS function) for one row."""
    M, N, K = row.M, row.N, row.K
    if row.dtype == "int8":
        a = torch.randint(-128, 128, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-128, 128, (K, N), device="cuda", dtype=torch.int8)
        c = torch.empty(M, N, device="cuda", dtype=torch.int32)
        # torch._int_mm (cuBLASLt) takes B by rows or, in some versions only, by columns.
        b_used = b
        try:
            torch._int_mm(a[:32, :32], b[:32, :32].contiguous())
        except RuntimeError:
            b_used = b.t().contiguous().t()

        def cublas():
            return torch._int_mm(a, b_used)
    elif row.dtype == "fp8":
        a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(K, N, device="cuda").to(torch.float8_e4m3fn)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        # cuBLASLt fp8 (torch._scaled_mm) wants B by columns
        b_cols = b.t().contiguous().t()
        one = torch.ones((), device="cuda")

        def cublas():
            return torch._scaled_mm(a, b_cols, scale_a=one, scale_b=one, out_dtype=torch.float16)
    else:
        dt = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(row.dtype, torch.float32)
        a = torch.randn(M, K, device="cuda", dtype=dt)
        b = torch.randn(K, N, device="cuda", dtype=dt)
        c = torch.empty(M, N, device="cuda", dtype=dt)

        def cublas():
            return torch.matmul(a, b)
    values = {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": M, "N": N, "K": K, "stride_am": K,
              "stride_bk": N, "stride_cm": N}
    if row.variant.startswith("tma-"):  # B stored as [N, K]; cuBLAS gets the same operands
        from triton.tools.tensor_descriptor import TensorDescriptor
        bm, bn, bk = row.config[:3]
        bt = b.t().contiguous()
        values.update(a_desc=TensorDescriptor(a, [M, K], [K, 1], [bm, bk]),
                      b_desc=TensorDescriptor(bt, [N, K], [K, 1], [bn, bk]),
                      c_desc=TensorDescriptor(c, [M, N], [N, 1], [bm, bn]))

        def cublas():
            return torch.matmul(a, bt.t())
    return values, a.double() @ b.double(), cublas


def verdict(row, out, ref):
    if row.dtype == "int8":
        return "exact" if bool((out.long() == ref.long()).all()) else "MISMATCH"
    err = (out.double() - ref).abs().max().item() / ref.abs().max().item()
    return f"{err:.1e}" if err <= TOL[row.dtype] else f"MISMATCH {err:.1e}"


def measure_row(torch, do_bench, row, so, no_tilec, triton_fn, impls):
    """Times one row for the implementations named in impls; prints @@result lines."""
    values, ref, cublas = make_problem(torch, row)
    flop = 2.0 * row.M * row.N * row.K
    out = values["c_ptr"]

    fns, notes, checks = {}, {}, {}

    def prepare(impl, fn, mma=None):
        """Runs fn once and checks its result; it is timed below."""
        out.fill_(0)
        res = fn()
        torch.cuda.synchronize()
        checks[impl] = verdict(row, res if impl == "cublas" else out, ref)
        fns[impl], notes[impl] = fn, mma

    def fail(impl, why):
        print("@@result " + json.dumps({"row": row.key, "impl": impl, "error": why}), flush=True)

    def with_tilec():
        if no_tilec:
            return fail("tilec", no_tilec)
        try:
            kernel = harness.Kernel(row.case, so, use_triton=False)
            prepare("tilec", rowwise.tilec_launcher(torch, kernel, values, None))
        except Exception as e:
            rowwise.lost_context(e)
            fail("tilec", f"{type(e).__name__}: {e}")

    def with_triton(impl):
        if triton_fn is None:
            return fail(impl, "Triton cannot be imported")
        try:
            run, compiled = triton_launcher(triton_fn, row, values)
            ptx = compiled.asm.get("ptx", "")
            prepare(impl, run, "wgmma" if "wgmma" in ptx else "mma.sync" if "mma.sync" in ptx else "no mma")
        except Exception as e:
            rowwise.lost_context(e)
            fail(impl, f"{type(e).__name__}: {str(e).strip().splitlines()[-1]}")

    def with_cublas():
        try:
            prepare("cublas", cublas)
        except Exception as e:
            rowwise.lost_context(e)
            fail("cublas", f"{type(e).__name__}: {e}")

    for impl in impls:
        if impl == "tilec":
            with_tilec()
        elif impl == "cublas":
            with_cublas()
        elif impl != "triton_control":
            with_triton(impl)
    # ROUNDS rounds, Triton, tilec, cuBLAS and back (a GPU warming up over a row favours no
    # one), each implementation's median taken; the control is one more timing of Triton's
    # kernel after them all, against that median
    times = {impl: [] for impl in fns}
    for r in range(ROUNDS):
        for impl in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
            times[impl].append(do_bench(fns[impl]))
    if "triton_control" in impls and "triton" in fns:
        fns["triton_control"], notes["triton_control"] = fns["triton"], notes["triton"]
        checks["triton_control"] = checks["triton"]
        times["triton_control"] = [do_bench(fns["triton"])]
    for impl, ts in times.items():
        ms = sorted(ts)[len(ts) // 2]
        print("@@result " + json.dumps({"row": row.key, "impl": impl, "tflops": flop / (ms * 1e-3) / 1e12,
                                        "check": checks[impl], "mma": notes[impl],
                                        "rounds": [round(flop / (t * 1e-3) / 1e12, 1) for t in ts]}), flush=True)


def triton_launcher(fn, row, values):
    """(a no-argument launch, the compiled kernel) for Triton, with the row's config."""
    case = row.case
    params = harness.kernel_signature(case)
    args = {p.name: values[p.name] for p in params if p.kind != "const"}  # by name: specialised strides sit between
    consts = {p.name: p.value for p in params if p.kind == "const"}
    grid = harness.grid_from_expression(case.grid, dict(consts, **values))
    options = {"num_warps": case.num_warps, "num_stages": case.num_stages}
    compiled = fn[grid](**args, **consts, **options)

    def run():
        fn[grid](**args, **consts, **options)
    return run, compiled


def worker_main(plan_path):
    with open(plan_path) as f:
        plan = json.load(f)
    torch = harness.load_torch()
    torch.backends.cuda.matmul.allow_tf32 = True       # cuBLAS's fp32 column is tf32 too
    try:
        import triton  # noqa: F401
        triton_fn = {r.case.kernel: harness.load_triton_kernel(r.case) for r in bench_rows(plan["configs"])}
    except Exception as e:
        print(f"-- Triton cannot be imported ({type(e).__name__}: {e})", flush=True)
        triton_fn = None
    do_bench, timing_text = elementwise.make_timer(torch)
    print("@@env " + json.dumps(elementwise.environment(torch) + [timing_text]), flush=True)
    rows = {r.key: r for r in bench_rows(plan["configs"])}
    for key in plan["rows"]:
        print(f"@@row {key}", flush=True)
        try:
            measure_row(torch, do_bench, rows[key], plan["so"].get(key), plan["no_tilec"].get(key),
                        triton_fn and triton_fn[rows[key].case.kernel], plan["impls"])
        except rowwise.ContextLost as e:
            print(f"@@lost {e}", flush=True)
            return 3
        print(f"@@done {key}", flush=True)
        torch.cuda.empty_cache()
    return 0


def run_workers(rows, impls, env_extra, work, so, no_tilec, configs, results, env_lines):
    """Runs the rows in worker processes (restarted after one that loses the CUDA context,
    which is then run again without tilec); fills results[(row, impl)]."""
    todo = [r.key for r in rows]
    env = dict(os.environ, **env_extra)
    while todo:
        plan_path = os.path.join(work, f"plan-{len(env_extra)}.json")
        with open(plan_path, "w") as f:
            json.dump({"rows": todo, "so": so, "no_tilec": no_tilec, "impls": impls,
                       "configs": configs}, f)
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", plan_path],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                cwd=ROOT, env=env)
        current, lost = None, None
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            if line.startswith("@@env "):
                env_lines.extend([] if env_lines else json.loads(line[6:]))
            elif line.startswith("@@row "):
                current = line[6:]
            elif line.startswith("@@result "):
                r = json.loads(line[9:])
                results[r["row"], r["impl"]] = r
                text = (f"{r['tflops']:.1f} TFLOP/s, check {r['check']}" + (f", {r['mma']}" if r.get("mma") else "")
                        if "tflops" in r else f"failed: {r['error']}")
                print(f"-- {r['row']:<20} {r['impl']:<16} {text}", flush=True)
            elif line.startswith("@@lost "):
                lost = line[7:]
            elif line.startswith("@@done "):
                todo.remove(line[7:])
                current = None
            else:
                print(line, flush=True)
        rc = proc.wait()
        if rc == 0 and not todo:
            break
        if current is None:
            print(f"-- the worker stopped (exit status {rc}) outside any row; giving up")
            break
        why = lost or f"worker exit status {rc}"
        if "tilec" in impls and current not in no_tilec:
            print(f"-- {current}: the CUDA context was lost ({why}); again without tilec")
            no_tilec[current] = f"tilec's run broke the CUDA context: {why}"
        else:
            print(f"-- {current}: the CUDA context was lost ({why}); row given up")
            todo.remove(current)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--only", help="rows whose 'dtype/MxNxK' contains this")
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    ap.add_argument("--config", action="append", default=[], metavar="DTYPE=BMxBNxBK/G/W/S",
                    help="the config of one dtype (fp16, tf32, int8), e.g. fp16=128x128x32/8/4/4")
    ap.add_argument("--worker", metavar="PLAN", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker_main(opts.worker)

    configs = {dt: parse_config(text) for dt, text in DEFAULT_CONFIGS.items()}
    for item in opts.config:
        dt, _, text = item.partition("=")
        if dt not in configs:
            sys.exit(f"--config {item}: the dtype must be one of {', '.join(configs)}")
        configs[dt] = parse_config(text)
    rows = bench_rows(configs)
    if opts.only:
        rows = [r for r in rows if opts.only in r.key]
    arch = opts.arch or harness.detect_arch()
    tilec = os.path.abspath(opts.tilec)
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-bench-")

    if re.fullmatch(r"(sm_)?90a?", arch):
        # Hopper: fp16/bf16 translated for sm_90 take the wgmma path (built for sm_90a by
        # harness.build_case), the kernel Triton's own column runs
        for r in rows:
            if r.dtype in ("fp16", "bf16") and "--arch" not in r.case.extra_flags:
                r.case.extra_flags += ["--arch", "sm_90"]
    so, no_tilec = rowwise.build_rows(rows, tilec, arch, work)

    results, env_lines = {}, []
    run_workers(rows, ["triton", "tilec", "cublas", "triton_control"], {}, work, so, no_tilec, configs, results,
                env_lines)
    run_workers(rows, ["triton_mma_sync"], {"DISABLE_MMA_V3": "1"}, work, so, no_tilec, configs,
                results, env_lines)

    def cell(key, impl):
        r = results.get((key, impl))
        if r is None:
            return "—"
        if "tflops" not in r:
            return "n/a (" + r["error"].replace("|", "\\|")[:100] + ")"
        flag = " **MISMATCH**" if r["check"].startswith("MISMATCH") else ""
        return f"{r['tflops']:.1f}{flag}"

    def ratio(key, a, b):
        ra, rb = results.get((key, a), {}), results.get((key, b), {})
        return f"{ra['tflops'] / rb['tflops']:.2f}" if "tflops" in ra and "tflops" in rb else "—"

    def mma(key, impl):
        return results.get((key, impl), {}).get("mma") or "?"

    table = ["| dtype | M x N x K | config | tilec | Triton | Triton mma.sync | cuBLAS | tilec/Triton "
             "| Triton/Triton | tilec/Triton mma.sync | tilec/cuBLAS | tilec check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        bm, bn, bk, group, warps, stages = r.config
        tcheck = results.get((r.key, "tilec"), {}).get("check", "—")
        shape = f"{r.M} x {r.N} x {r.K}" + (f" {r.variant}" if r.variant else "")
        table.append(
            f"| {r.dtype} | {shape} | {bm}x{bn}x{bk} g{group} w{warps} s{stages} | "
            f"{cell(r.key, 'tilec')} | {cell(r.key, 'triton')} ({mma(r.key, 'triton')}) | "
            f"{cell(r.key, 'triton_mma_sync')} ({mma(r.key, 'triton_mma_sync')}) | {cell(r.key, 'cublas')} | "
            f"{ratio(r.key, 'tilec', 'triton')} | {ratio(r.key, 'triton_control', 'triton')} | "
            f"{ratio(r.key, 'tilec', 'triton_mma_sync')} | "
            f"{ratio(r.key, 'tilec', 'cublas')} | {tcheck} |")
    env_lines = env_lines or ["environment unknown (the worker did not start)", "timing: ?"]
    header = ["# tilec matmul benchmark", ""] + [f"- {ln}" for ln in env_lines[:-1]] + [
        f"- timing: {env_lines[-1]}; TFLOP/s = 2 M N K / time",
        "- kernel: matmul_kernel of examples/matmul.py (rows marked persistent: matmul_persistent_kernel, "
        f"{NUM_SMS} programs), row-major A, B, C; tilec and both Triton "
        f"columns use the same source and config (column 3); nvcc -O3 -arch={arch}",
        f"- each cell: the median of {ROUNDS} rounds, Triton, tilec, cuBLAS and back; Triton/Triton: Triton's "
        "kernel timed once more after the rounds, over that median (the noise)",
        "- Triton: as installed (the instruction its PTX uses in brackets); Triton mma.sync: "
        "compiled with DISABLE_MMA_V3=1; cuBLAS: torch.matmul (tf32 allowed), torch._int_mm for int8",
        "- check: max|out - ref| / max|ref| against a float64 product (int8: exact); tilec's "
        "in the last column, a mismatch of any column is marked in its cell", ""]
    text = "\n".join(header + table) + "\n"
    print()
    print(text)
    if os.environ.get("OUT"):
        path = os.path.join(os.environ["OUT"], "bench_matmul.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"-- written to {path}")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

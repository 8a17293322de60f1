#!/usr/bin/env python3
"""Row-wise kernels on the GPU: tilec vs Triton (same source) vs PyTorch, in one run.

    python3 bench/bench_rowwise.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90] [--keep DIR]
                                   [--rounds N] [--norm-warps 4,16]

Kernels (examples/): softmax_kernel fp32 at 4096x{1024,4096,16384} and 32768x781,
layer_norm_fwd and rms_norm_fwd fp16 at 4096x{1024,8192}, cross_entropy_fwd fp32 at 4096x32000.
One row per program; BLOCK_SIZE is the row length rounded up to a power of two (cross-entropy
loops over the vocabulary in chunks of 4096); num_warps as the Triton tutorials choose it
(softmax: 4 up to 2048 columns, 8 up to 8192, 16 above; norms: BLOCK_SIZE / 256, at most 8),
the same for tilec and Triton.  Integer arguments divisible by 16 are promised to tilec as
"i32:16", since Triton's own specialisation assumes as much for such values.
PyTorch: torch.softmax, F.layer_norm, the usual RMS-norm expression (fp32 statistics, scaled by
the weight after the cast back), F.cross_entropy(reduction="none").

Timing, two ways, each implementation once per round over --rounds rounds (default 4; every other
round in the reverse order, so none always runs first), medians reported with the range of
tilec/Triton over the rounds.  Triton's kernel is timed twice per round, the second time as a
control: Triton/Triton is the difference the timing itself cannot resolve.  The two ways:
- single launch: triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"), which
  flushes the L2 cache before every launch; a launch's ramp-up and tail are in its time, so a
  kernel of ~100 MB cannot come near the 1 GiB copy rate (the same-size copy column shows how
  near a plain copy of as many bytes comes);
- back to back: a CUDA graph replays 48 launches, rotating over input sets of >= 256 MB in all
  so no launch reads cached inputs: the throughput of a kernel run again and again.
GB/s counts the bytes each kernel must read and write once.  Ceiling: device-to-device copies of
a 1 GiB tensor (torch), measured in the same run both ways; "/copy" columns are fractions of the
one measured like the row.  Each tilec result is checked against PyTorch before it is timed.
When tilec cannot translate a kernel the row says "n/a" and why, and the run goes on.  The
markdown tables go to stdout and to $OUT/bench_rowwise.md when OUT is set.
"""

import argparse
import dataclasses
import concurrent.futures
import ctypes
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

EPS = 1e-5
XENT_BLOCK = 4096


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def softmax_warps(block):
    return 4 if block <= 2048 else 8 if block <= 8192 else 16


def norm_warps(block):
    return min(max(block // 256, 1), 8)


def i32(v):
    """The signature entry for an int argument of value v, as Triton would specialise it."""
    return "i32:16" if v % 16 == 0 else "i32"


class Row:
    """One line of the table: a kernel specialisation, its inputs and its PyTorch twin."""

    def __init__(self, label, dtype, M, N, case, tag=""):
        self.label, self.dtype, self.M, self.N, self.case, self.tag = label, dtype, M, N, case, tag

    @property
    def key(self):
        return f"{self.label}/{self.dtype}/{self.M}x{self.N}{self.tag}"


def bench_rows(norm_warps=None):
    """The table's rows; norm_warps ("4,16"): the norm rows again with each num_warps."""
    rows = default_rows()
    for r in list(rows):
        for w in (int(v) for v in (norm_warps or "").split(",") if v):
            if "norm" in r.label and w != r.case.num_warps:
                c = dataclasses.replace(r.case, name=f"{r.case.name}/w{w}", num_warps=w)
                rows.append(Row(r.label, r.dtype, r.M, r.N, c, tag=f"/w{w}"))
    return rows


def default_rows():
    rows = []
    for M, N in [(4096, 1024), (4096, 4096), (4096, 16384), (32768, 781)]:
        block = next_pow2(N)
        rows.append(Row("softmax", "fp32", M, N, Case(
            f"softmax/{M}x{N}", "examples/softmax.py", "softmax_kernel",
            f"*fp32:16, *fp32:16, {i32(N)}, {i32(N)}, {i32(N)}, {block}",
            num_warps=softmax_warps(block), driver="softmax", dtype="fp32")))
    for M, N in [(4096, 1024), (4096, 8192)]:
        block = next_pow2(N)
        p = "*fp16:16"
        rows.append(Row("layer norm fwd", "fp16", M, N, Case(
            f"layer_norm_fwd/{M}x{N}", "examples/layer_norm.py", "layer_norm_fwd",
            f"{p}, {p}, {p}, {p}, *fp32:16, *fp32:16, {i32(N)}, {i32(N)}, fp32, {block}",
            num_warps=norm_warps(block), driver="layer_norm_fwd", dtype="fp16")))
        rows.append(Row("rms norm fwd", "fp16", M, N, Case(
            f"rms_norm_fwd/{M}x{N}", "examples/rms_norm.py", "rms_norm_fwd",
            f"{p}, {p}, {p}, {i32(N)}, {i32(N)}, fp32, {block}",
            num_warps=norm_warps(block), driver="rms_norm_fwd", dtype="fp16")))
    M, V = 4096, 32000
    rows.append(Row("cross-entropy fwd", "fp32", M, V, Case(
        f"cross_entropy/{M}x{V}", "examples/cross_entropy.py", "cross_entropy_fwd",
        f"*fp32:16, *i64:16, *fp32:16, {i32(V)}, {i32(V)}, {XENT_BLOCK}",
        num_warps=8, driver="cross_entropy", dtype="fp32")))
    return rows


def make_problem(torch, F, row):
    """(values for the kernel's parameters, output name, bytes moved, PyTorch function,
    check(out) -> text) for one row."""
    M, N, dev = row.M, row.N, "cuda"
    dt = harness.torch_dtype(row.dtype)
    if row.label == "softmax":
        x = torch.randn(M, N, device=dev, dtype=dt)
        values = {"out_ptr": torch.empty_like(x), "in_ptr": x, "in_row_stride": N,
                  "out_row_stride": N, "n_cols": N}
        ref = torch.softmax(x, dim=-1)

        def check(out):
            return "close" if torch.allclose(out, ref, rtol=1e-4, atol=1e-7) else "MISMATCH"
        return values, "out_ptr", 2 * x.numel() * x.element_size(), lambda: torch.softmax(x, dim=-1), check
    if row.label in ("layer norm fwd", "rms norm fwd"):
        x = torch.randn(M, N, device=dev, dtype=dt)
        w = torch.randn(N, device=dev, dtype=dt)
        values = {"X": x, "Y": torch.empty_like(x), "W": w, "stride": N, "N": N, "eps": EPS}
        moved = 2 * x.numel() * x.element_size() + w.numel() * w.element_size()
        if row.label == "layer norm fwd":
            b = torch.randn(N, device=dev, dtype=dt)
            values.update(B=b, Mean=torch.empty(M, device=dev), Rstd=torch.empty(M, device=dev))
            moved += b.numel() * b.element_size() + 2 * M * 4

            def torch_fn():
                return F.layer_norm(x, (N, ), w, b, EPS)
        else:
            def torch_fn():
                xf = x.float()
                return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)).to(x.dtype)
        ref = torch_fn()

        def check(out):
            return "close" if torch.allclose(out.float(), ref.float(), rtol=1e-2, atol=2e-2) else "MISMATCH"
        return values, "Y", moved, torch_fn, check
    if row.label == "cross-entropy fwd":
        logits = torch.randn(M, N, device=dev, dtype=dt) * 3
        labels = torch.randint(0, N, (M, ), device=dev)
        values = {"logits_ptr": logits, "labels_ptr": labels,
                  "loss_ptr": torch.empty(M, device=dev), "stride": N, "V": N}
        moved = logits.numel() * logits.element_size() + M * 8 + M * 4

        def torch_fn():
            return F.cross_entropy(logits, labels, reduction="none")
        ref = torch_fn()

        def check(out):
            return "close" if torch.allclose(out, ref, rtol=1e-5, atol=1e-4) else "MISMATCH"
        return values, "loss_ptr", moved, torch_fn, check
    raise ValueError(row.label)


def tilec_launcher(torch, kernel, values, grid, stream=None):
    """A no-argument function that launches tilec's kernel through its ctypes launcher, on
    `stream` (default: the stream current now)."""
    stream = stream or torch.cuda.current_stream()
    args = [ctypes.c_void_p(stream.cuda_stream)]
    if kernel.case.grid is None:
        args += list(grid) + [1] * (3 - len(grid))
    for p in kernel.runtime:  # a tensor descriptor: its base, shape and strides
        for (_, typ), v in zip(harness.runtime_args(p), harness.runtime_values(p, values[p.name])):
            args.append(ctypes.c_void_p(v.data_ptr()) if typ.startswith("*") else v)
    launch = kernel.launch_fn

    def run():
        err = launch(*args)
        if err:
            raise RuntimeError(f"{kernel.case.kernel}_launch returned {err}")
    return run


def triton_launcher(tk, case, values, grid):
    params = harness.kernel_signature(case)
    args = [values[p.name] for p in params if p.kind != "const"]
    consts = {p.name: p.value for p in params if p.kind == "const"}

    def run():
        tk[grid](*args, **consts, num_warps=case.num_warps)
    return run


# Back-to-back ("steady") timing: a CUDA graph replays STEADY_LAUNCHES launches of one kernel,
# rotating over input sets that together exceed the L2 cache, so no launch finds its inputs
# cached.  This is the kernel's throughput when it runs again and again, as in a model: no
# launch gap, no L2 flush before each launch, the ramp-up and tail of one launch next to the
# next one's.
STEADY_BYTES = 256 << 20
STEADY_LAUNCHES = 48


def steady_sets(moved):
    """How many input sets a row rotates over in the steady timing."""
    return max(2, min(16, -(-STEADY_BYTES // moved)))


def steady_time(torch, make_fns):
    """ms per launch; make_fns() -> one launch function per input set, made on the stream
    current when it is called (the capture stream)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up outside the capture, as torch asks
        for f in make_fns():
            f()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fns = make_fns()
        for i in range(STEADY_LAUNCHES):
            fns[i % len(fns)]()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / STEADY_LAUNCHES)
    return sorted(times)[len(times) // 2]


def steady_copy_gbps(torch, nbytes=1 << 30, launches=8):
    """GB/s of back-to-back device copies of nbytes, alternating two buffer pairs (launched
    directly: a copy in a graph becomes a copy-engine node, which is slower)."""
    pairs = [(torch.empty(nbytes, dtype=torch.uint8, device="cuda"),
              torch.empty(nbytes, dtype=torch.uint8, device="cuda")) for _ in range(2)]
    for src, dst in pairs:
        dst.copy_(src)
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(launches):
            src, dst = pairs[i % 2]
            dst.copy_(src)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / launches)
    return 2 * nbytes / (sorted(times)[len(times) // 2] * 1e-3) / 1e9


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def measure_row(torch, F, do_bench, r, so, no_tilec, rounds, triton_fns):
    """Times one row: {"single": {impl: [GB/s per round]}, "steady": {...}, "copy": same-size
    copy GB/s per round, "check": tilec's verdict, "mb": MB moved}."""
    case = r.case
    values, out_name, moved, torch_fn, check = make_problem(torch, F, r)
    grid = (r.M, )
    result = {"single": {}, "steady": {}, "copy": [], "check": "—", "mb": moved / 1e6}
    runners = {}        # impl -> launch function on the first input set
    makers = {}         # impl -> function(values) -> launch function on the current stream
    if no_tilec:
        result["tilec"] = "n/a (" + no_tilec.replace("|", "\\|")[:100] + ")"
        print(f"-- {r.key}: tilec: n/a ({no_tilec})", flush=True)
    else:
        try:
            kernel = harness.Kernel(case, so, use_triton=False)
            run_tilec = tilec_launcher(torch, kernel, values, grid)
            values[out_name].fill_(float("nan"))
            run_tilec()
            torch.cuda.synchronize()
            result["check"] = check(values[out_name])
            runners["tilec"] = run_tilec
            makers["tilec"] = lambda v: tilec_launcher(torch, kernel, v, grid)
        except Exception as e:
            lost_context(e)
            print(f"-- {r.key}: tilec run failed: {type(e).__name__}: {e}", flush=True)
            result["check"] = "failed"
    if triton_fns is not None:
        try:
            fns = triton_fns.setdefault(case.source, {})
            if case.kernel not in fns:
                fns[case.kernel] = harness.load_triton_kernel(case)
            run_triton = triton_launcher(fns[case.kernel], case, values, grid)
            values[out_name].fill_(float("nan"))
            run_triton()
            torch.cuda.synchronize()
            verdict = check(values[out_name])
            if verdict != "close":
                print(f"-- {r.key}: Triton's result does not match PyTorch ({verdict})", flush=True)
            runners["triton"] = run_triton
            makers["triton"] = lambda v, tk=fns[case.kernel]: triton_launcher(tk, case, v, grid)
            # the control: Triton's kernel timed a second time as if it were another
            # implementation; Triton/Triton shows what difference the timing itself resolves
            runners["triton2"] = triton_launcher(fns[case.kernel], case, values, grid)
            makers["triton2"] = makers["triton"]
        except Exception as e:
            lost_context(e)
            print(f"-- {r.key}: Triton failed: {type(e).__name__}: {e}", flush=True)
    runners["torch"] = torch_fn

    # the other input sets of the steady timing, each with its own PyTorch function
    sets = [(values, torch_fn)]
    for _ in range(steady_sets(moved) - 1):
        more_values, _, _, more_torch_fn, _ = make_problem(torch, F, r)
        sets.append((more_values, more_torch_fn))
    src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    # rounds: every implementation once per round, so drifts of the card touch all alike; every
    # other round in the reverse order, so no implementation always runs first or after another
    for rnd in range(rounds):
        order = list(runners) if rnd % 2 == 0 else list(reversed(runners))
        for impl in order:
            result["single"].setdefault(impl, []).append(moved / (do_bench(runners[impl]) * 1e-3) / 1e9)
        # the copy of as many bytes (half read, half written): launch and tail cost it too
        result["copy"].append(moved / (do_bench(lambda: dst.copy_(src)) * 1e-3) / 1e9)
        for impl in order:
            if impl == "torch":
                make = lambda: [fn for _, fn in sets]
            else:
                make = lambda m=makers[impl]: [m(v) for v, _ in sets]
            try:
                ms = steady_time(torch, make)
            except Exception as e:
                lost_context(e)
                print(f"-- {r.key}: {impl}: steady timing failed: {type(e).__name__}: {e}", flush=True)
                continue
            result["steady"].setdefault(impl, []).append(moved / (ms * 1e-3) / 1e9)
    return result


def table_line(r, res, copy, kind):
    """One markdown line of the single-launch or the steady table."""
    got = {impl: median(v) for impl, v in res[kind].items()}

    def fmt(impl):
        if impl in got:
            return f"{got[impl]:.0f}"
        return res.get(impl, "—") if impl == "tilec" else "—"

    def ratio(a, b):
        return f"{a / b:.3f}" if a is not None and b is not None else "—"

    def vs_triton(impl="tilec"):
        """the median of the rounds' impl/Triton ratios, and their range"""
        t, g = res[kind].get(impl), res[kind].get("triton")
        if not t or not g:
            return "—"
        rs = [a / b for a, b in zip(t, g)]
        return f"{median(rs):.3f}" + (f" ({min(rs):.3f}-{max(rs):.3f})" if len(rs) > 1 else "")
    tilec, triton = got.get("tilec"), got.get("triton")
    line = (f"| {r.label} | {r.dtype} | {r.M} x {r.N} | {r.case.sig.split(',')[-1].strip()} / "
            f"{r.case.num_warps} | {res['mb']:.0f} | {fmt('tilec')} | {fmt('triton')} | "
            f"{fmt('torch')} | {vs_triton()} | {vs_triton('triton2')} | {ratio(tilec, copy)} | "
            f"{ratio(triton, copy)} |")
    if kind == "single":
        same = median(res["copy"])
        line += f" {same:.0f} | {ratio(tilec, same)} | {ratio(triton, same)} |"
    return line + f" {res['check']} |"


class ContextLost(Exception):
    pass


def lost_context(e):
    """A CUDA error such as an illegal or misaligned address leaves the context unusable:
    the worker must stop, and the parent starts a new one."""
    text = str(e)
    if "CUDA error" in text or "illegal" in text or "misaligned" in text:
        raise ContextLost(text.strip().splitlines()[0]) from None


def worker_main(plan_path):
    """Runs the rows of the plan in order, printing @@ lines for the parent."""
    with open(plan_path) as f:
        plan = json.load(f)
    torch = harness.load_torch()
    import torch.nn.functional as F
    try:
        import triton  # noqa: F401
        triton_fns = {}
    except Exception as e:
        print(f"-- Triton cannot be imported ({type(e).__name__}: {e}); no Triton column", flush=True)
        triton_fns = None
    do_bench, timing_text = elementwise.make_timer(torch)
    print("@@env " + json.dumps(elementwise.environment(torch) + [timing_text]), flush=True)

    # The ceiling: device-to-device copies of 1 GiB (read + written: 2 GiB moved), timed once
    # as a single launch like every row, once back to back like the steady timing.
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_gbps = 2 * src.numel() / (do_bench(lambda: dst.copy_(src)) * 1e-3) / 1e9
    src = dst = None
    torch.cuda.empty_cache()
    steady_copy = steady_copy_gbps(torch)
    torch.cuda.empty_cache()
    print(f"@@copy {json.dumps([copy_gbps, steady_copy])}", flush=True)

    rows = {r.key: r for r in bench_rows(plan.get("norm_warps"))}
    for key in plan["rows"]:
        print(f"@@row {key}", flush=True)
        try:
            res = measure_row(torch, F, do_bench, rows[key], plan["so"].get(key),
                              plan["no_tilec"].get(key), plan["rounds"], triton_fns)
        except ContextLost as e:
            print(f"@@lost {e}", flush=True)
            return 3
        print(f"@@result {json.dumps(res)}", flush=True)
        torch.cuda.empty_cache()
    return 0


def build_rows(rows, tilec, arch, work):
    """Translates and compiles every row's case in parallel: ({key: .so path}, {key: why tilec
    has no column}).  Shared by the benchmarks."""
    so, no_tilec = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        futures = {r.key: pool.submit(harness.build_case, r.case, tilec, arch,
                                      os.path.join(work, re.sub(r"[^\w.-]+", "_", r.key)))
                   for r in rows}
        for key, fut in futures.items():
            path, err = fut.result()
            if path:
                so[key] = path
                continue
            reason = harness.untranslatable(err)
            if reason is None:
                print(f"-- {key}: tilec/nvcc failed:\n{harness.indent(err)}")
                reason = "tilec or nvcc failed: " + err.splitlines()[0]
            no_tilec[key] = reason
    return so, no_tilec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--only", help="rows whose 'kernel/dtype/MxN' contains this")
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    ap.add_argument("--norm-warps", metavar="LIST",
                    help="also run the layer- and RMS-norm rows with each of these num_warps (e.g. 4,16), "
                         "tilec and Triton alike")
    ap.add_argument("--rounds", type=int, default=4,
                    help="time every implementation this many times, in turn (every other round in the "
                         "reverse order), and report medians (default 4)")
    ap.add_argument("--worker", metavar="PLAN", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker_main(opts.worker)

    rows = bench_rows(opts.norm_warps)
    if opts.only:
        rows = [r for r in rows if opts.only in r.key]
    arch = opts.arch or harness.detect_arch()
    tilec = os.path.abspath(opts.tilec)
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-bench-")

    so, no_tilec = build_rows(rows, tilec, arch, work)

    # Run the rows in a worker process; one whose kernel breaks the CUDA context (an illegal
    # address poisons every later launch) is run again without tilec, then given up.
    env, copy, results, failed = None, None, {}, {}
    todo = [r.key for r in rows]
    while todo:
        plan_path = os.path.join(work, "plan.json")
        with open(plan_path, "w") as f:
            json.dump({"rows": todo, "so": so, "no_tilec": no_tilec, "norm_warps": opts.norm_warps,
                       "rounds": max(1, opts.rounds)}, f)
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", plan_path],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        current, lost = None, None
        for raw in proc.stdout:
            line = raw.rstrip("\n")
            if line.startswith("@@env "):
                env = env or json.loads(line[6:])
            elif line.startswith("@@copy "):
                copy = copy or json.loads(line[7:])
                print(f"-- device-to-device copy, 1 GiB: {copy[0]:.0f} GB/s single launch, "
                      f"{copy[1]:.0f} GB/s back to back (read + written)")
            elif line.startswith("@@row "):
                current = line[6:]
            elif line.startswith("@@lost "):
                lost = line[7:]
            elif line.startswith("@@result "):
                results[current] = json.loads(line[9:])
                r = next(r for r in rows if r.key == current)
                print(table_line(r, results[current], copy and copy[0], "single"), flush=True)
                todo.remove(current)
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
        if current not in no_tilec:
            print(f"-- {current}: the CUDA context was lost ({why}); again without tilec")
            no_tilec[current] = f"tilec's run broke the CUDA context: {why}"
        else:
            print(f"-- {current}: the CUDA context was lost without tilec ({why}); row given up")
            failed[current] = f"| {current} | failed: {why} |"
            todo.remove(current)

    head = ("| kernel | dtype | rows x cols | BLOCK_SIZE / warps | MB moved | tilec GB/s | Triton GB/s "
            "| PyTorch GB/s | tilec/Triton (median of the rounds, range) | Triton/Triton (control) "
            "| tilec/copy | Triton/copy |")
    copy = copy or [None, None]

    def lines(kind):
        return [failed[r.key] if r.key in failed else table_line(r, results[r.key], copy[kind == "steady"], kind)
                for r in rows if r.key in results or r.key in failed]
    table = ["## Single launch", "",
             "Each launch timed alone (do_bench: the L2 cache flushed before it, its ramp-up and "
             "tail in the time). The same-size copy moves as many bytes as the row (half read, half "
             "written), timed the same way.", "",
             head + " same-size copy GB/s | tilec/same-size copy | Triton/same-size copy | tilec check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + lines("single")
    table += ["", "## Back to back", "",
              f"A CUDA graph replays {STEADY_LAUNCHES} launches of the kernel, rotating over input "
              f"sets of at least {STEADY_BYTES >> 20} MB together (so no launch finds its inputs in "
              "L2); GB/s per launch. The copy ceiling here is 1 GiB copies launched back to back.", "",
              head + " tilec check |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + lines("steady")
    env = env or ["environment unknown (the worker did not start)", "timing: ?"]
    fmt = lambda v: f"{v:.0f}" if v else "?"
    header = ["# tilec row-wise benchmark", ""] + [f"- {ln}" for ln in env[:-1]] + [
        f"- timing: {env[-1]}, each implementation once per round, {max(1, opts.rounds)} rounds "
        "(every other one in the reverse order), the median of the rounds; GB/s = (bytes read + "
        "bytes written) / time",
        "- Triton/Triton (control): Triton's kernel timed a second time in each round as if it were "
        "another implementation; its ratio shows the difference the timing itself resolves",
        "- tilec and Triton: same source, same BLOCK_SIZE and num_warps (column 4), one program "
        f"per row; nvcc -O3 -arch={arch}",
        f"- copy: torch device-to-device copy of 1 GiB, counting bytes read and written: "
        f"{fmt(copy[0])} GB/s as a single launch, {fmt(copy[1])} GB/s back to back; the /copy "
        "columns are fractions of the one measured the same way as the row", ""]
    text = "\n".join(header + table) + "\n"
    print()
    print(text)
    if os.environ.get("OUT"):
        path = os.path.join(os.environ["OUT"], "bench_rowwise.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"-- written to {path}")
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

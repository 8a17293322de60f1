#!/usr/bin/env python3
"""A/B of hand-edited kernels: time several .cu files of one benchmark row in one process.

    python3 bench/ab.py --row fa2/fp16/d64/4x32x2048 [--bench attention] [--rounds 7] \
        base.cu edited.cu ...

Each file is the CUDA that tilec prints for the row's kernel (translate it once with the
row's flags, `--keep DIR` of the benchmark shows them, then edit a copy).  Every file is built
with nvcc as the benchmark builds tilec's kernels, checked against the row's reference, and
timed together with Triton on the same inputs: ROUNDS rounds, the order reversed every other
round so that a GPU warming up favours no one, the median of each reported with its speed
over Triton's and over the first file's.  Differences between two builds of one process are
what this is for: separate runs of a benchmark differ by a few percent by themselves.

Rows: those of bench/bench_attention.py (--bench attention) or bench/bench_lang.py
(--bench lang) made of one kernel.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_attention as driver  # noqa: E402
from bench_attention import harness  # noqa: E402
import bench_elementwise as elementwise  # noqa: E402


POISONED = ("Out", "Lse", "Mid_o", "Mid_lse", "O", "C")


def rows_of(bench):
    if bench == "lang":
        import bench_lang
        return bench_lang.bench_rows()
    return driver.bench_rows()


def build(cu, arch, folder):
    so, err = harness.compile_so(cu, os.path.join(folder, os.path.splitext(os.path.basename(cu))[0] + ".so"), arch)
    if err:
        sys.exit(f"{cu}: {err}")
    return so


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--row", required=True, help="the row's key, as the benchmark's table prints it")
    ap.add_argument("--bench", choices=["attention", "lang"], default="attention")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("files", nargs="+", metavar="FILE.cu")
    opts = ap.parse_args()
    rows = [r for r in rows_of(opts.bench) if r.key == opts.row]
    if not rows:
        sys.exit(f"no row {opts.row!r} in bench_{opts.bench}.py; its rows: "
                 + ", ".join(r.key for r in rows_of(opts.bench)))
    row = rows[0]
    if len(row.cases) != 1:
        sys.exit(f"row {row.key} launches {len(row.cases)} kernels; ab.py times rows of one")
    arch = opts.arch or harness.detect_arch()
    folder = tempfile.mkdtemp(prefix="tilec-ab-")
    names = [os.path.basename(f) for f in opts.files]
    if len(set(names)) != len(names):
        sys.exit("give the files different names: the table reads them by name")
    sos = {n: build(f, arch, folder) for n, f in zip(names, opts.files)}

    torch = harness.load_torch()
    do_bench, timing = elementwise.make_timer(torch)
    launches, check, flop, _ = row.make(torch)
    fns, errs = {}, {}
    key = f"{row.key}#{row.case.name}"
    fns["triton"], note = driver.launch_all(torch, {}, row, launches, "triton")
    for n, so in sos.items():
        plan = {"so": {key: so}, "no_tilec": {}}
        fns[n], _ = driver.launch_all(torch, plan, row, launches, "tilec")
    values = launches[0][0]
    for impl, fn in fns.items():
        for name in POISONED:     # a build that writes nothing must not pass on another's output
            if name in values:
                values[name].fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        errs[impl] = check()
    times = {impl: [] for impl in fns}
    order = list(fns)
    for r in range(opts.rounds):
        for impl in (order if r % 2 == 0 else order[::-1]):
            times[impl].append(do_bench(fns[impl]))
    med = {impl: sorted(ts)[len(ts) // 2] for impl, ts in times.items()}
    print(f"# A/B of {row.key} ({', '.join(names)})")
    print(f"- {', '.join(elementwise.environment(torch))}; {timing}; {opts.rounds} rounds, "
          f"order reversed every other round; Triton: {note}")
    print()
    print("| build | ms (median) | TFLOP/s | over Triton | over the first file | max err | rounds |")
    print("|---|---|---|---|---|---|---|")
    first = med[names[0]]
    for impl in order:
        print(f"| {impl} | {med[impl]:.4f} | {flop / (med[impl] * 1e-3) / 1e12:.0f} | "
              f"{med['triton'] / med[impl]:.3f} | {first / med[impl]:.3f} | {errs[impl]:.1e} | "
              + " ".join(f"{t:.4f}" for t in times[impl]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

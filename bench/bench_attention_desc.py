#!/usr/bin/env python3
"""Attention on host tensor descriptors: tilec vs Triton on the same source and config.

    python3 bench/bench_attention_desc.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90]
                                          [--keep DIR] [--rounds 3]

Kernel: attn_fwd_desc of examples/attention.py (FlashAttention-2 forward, Q, K and V given as
TensorDescriptors over [Z*H*N_CTX, HEAD_DIM], the output by pointers), 4 x 32 heads of 4096
tokens, BLOCK_M 128, BLOCK_N 64, 3 stages: fp16 head dim 64 (4 warps) causal and not, bf16 head
dim 128 causal (8 warps).  On sm_90 tilec translates with --arch sm_90 (built for sm_90a): both
dots on wgmma, the key and value blocks copied by TMA; N_CTX is declared a multiple of 16
(i32:16), as Triton's launcher specialises it.  Each row runs ROUNDS rounds of Triton
then tilec (and back on odd rounds), triton.testing.do_bench's median each; the cell is the
median round; Triton/Triton is Triton timed once more after the rounds, over that median (the
noise).  TFLOP/s = 4 * Z*H * N_CTX^2 * HEAD_DIM (halved when causal) / time.  Before timing,
tilec's output is compared with Triton's (max |difference| shown).  The table goes to stdout
and to $OUT/bench_attention_desc.md when OUT is set.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, HERE)

import run_gpu_tests as harness  # noqa: E402
from cases import Case  # noqa: E402
import bench_elementwise as elementwise  # noqa: E402
import bench_rowwise as rowwise  # noqa: E402

ZH, N_CTX = 128, 4096
ROWS = [("fp16", 64, 4, False), ("fp16", 64, 4, True), ("bf16", 128, 8, True)]


class Row:
    def __init__(self, dt, d, warps, causal):
        self.dt, self.d, self.causal = dt, d, causal
        self.key = f"{dt}/d{d}" + ("/causal" if causal else "")
        self.case = Case(f"attention-desc/{self.key}", "examples/attention.py", "attn_fwd_desc",
                         f"tensordesc<{dt}[128, {d}]>, tensordesc<{dt}[64, {d}]>, tensordesc<{dt}[64, {d}]>, "
                         f"*{dt}:16, fp32, {rowwise.i32(N_CTX)}, i32:16, {d}, 128, 64, {causal}",
                         num_warps=warps, num_stages=3, dtype=dt, feature="dot")


def measure(torch, do_bench, row, so, rounds):
    from triton.tools.tensor_descriptor import TensorDescriptor
    dt = harness.torch_dtype(row.dt)
    rows, d = ZH * N_CTX, row.d
    q, k, v = (torch.randn(rows, d, device="cuda", dtype=dt) for _ in range(3))
    outs = {impl: torch.empty(rows, d, device="cuda", dtype=dt) for impl in ("tilec", "triton")}
    block = {"q_desc": [128, d], "k_desc": [64, d], "v_desc": [64, d]}
    grid = (N_CTX // 128, ZH, 1)

    def values(out):
        return dict({name: TensorDescriptor(t, [rows, d], [d, 1], block[name])
                     for name, t in (("q_desc", q), ("k_desc", k), ("v_desc", v))},
                    Out=out, sm_scale=1.0 / d ** 0.5, N_CTX=N_CTX, stride_om=d)
    kernel = harness.Kernel(row.case, so, use_triton=False)
    fns = {"triton": None, "tilec": rowwise.tilec_launcher(torch, kernel, values(outs["tilec"]), grid)}
    tk = harness.load_triton_kernel(row.case)
    params = harness.kernel_signature(row.case)
    consts = {p.name: p.value for p in params if p.kind == "const"}
    targs = {p.name: values(outs["triton"])[p.name] for p in params if p.kind != "const"}

    def run_triton():
        tk[grid[:2]](**targs, **consts, num_warps=row.case.num_warps, num_stages=row.case.num_stages)
    fns["triton"] = run_triton
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    diff = (outs["tilec"].float() - outs["triton"].float()).abs().max().item()
    times = {impl: [] for impl in fns}
    for r in range(rounds):
        for impl in (["triton", "tilec"] if r % 2 == 0 else ["tilec", "triton"]):
            times[impl].append(do_bench(fns[impl]))
    control = do_bench(fns["triton"])
    flop = 4.0 * ZH * N_CTX * N_CTX * d * (0.5 if row.causal else 1.0)
    med = {impl: sorted(ts)[len(ts) // 2] for impl, ts in times.items()}
    return {"tilec": flop / (med["tilec"] * 1e-3) / 1e12, "triton": flop / (med["triton"] * 1e-3) / 1e12,
            "control": med["triton"] / control, "diff": diff}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("--only", help="rows whose 'dtype/dD[/causal]' contains this")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    torch = harness.load_torch()
    arch = opts.arch or harness.detect_arch()
    rows = [Row(*r) for r in ROWS if not opts.only or opts.only in Row(*r).key]
    if re.fullmatch(r"(sm_)?90a?", arch):
        for r in rows:
            r.case.extra_flags += ["--arch", "sm_90"]
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-bench-attn-desc-")
    so, no_tilec = rowwise.build_rows(rows, os.path.abspath(opts.tilec), arch, work)
    do_bench, timing = elementwise.make_timer(torch)
    env = elementwise.environment(torch)
    table = ["| row | tilec TFLOP/s | Triton TFLOP/s | tilec/Triton | Triton/Triton | max abs(tilec - Triton) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        if r.key in no_tilec:
            table.append(f"| {r.key} | n/a ({no_tilec[r.key][:80]}) | | | | |")
            continue
        m = measure(torch, do_bench, r, so[r.key], opts.rounds)
        print("@@result " + json.dumps(dict(m, row=r.key)), flush=True)
        table.append(f"| {r.key} | {m['tilec']:.1f} | {m['triton']:.1f} | {m['tilec'] / m['triton']:.2f} | "
                     f"{m['control']:.2f} | {m['diff']:.2g} |")
    header = ["# tilec attention on tensor descriptors", ""] + [f"- {ln}" for ln in env] + [
        f"- timing: {timing}, {opts.rounds} rounds (Triton, tilec and back), median round; Triton/Triton: "
        "Triton once more after the rounds, over that median",
        f"- kernel: attn_fwd_desc of examples/attention.py, {ZH} heads x {N_CTX} tokens, 128x64 blocks, "
        f"3 stages; nvcc for {arch} (sm_90a where tilec translated with --arch sm_90)", ""]
    text = "\n".join(header + table) + "\n"
    print(text)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "bench_attention_desc.md"), "w") as f:
            f.write(text)
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

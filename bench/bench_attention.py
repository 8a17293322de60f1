#!/usr/bin/env python3
"""Attention on the GPU: tilec vs Triton (same source, same config) vs Triton held to
mma.sync, in one run.

    python3 bench/bench_attention.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90] [--keep DIR]

Kernels of examples/attention.py:
  fa2         attn_fwd (FlashAttention-2 forward) at Z=4, H=32, N_CTX=2048, HEAD_DIM 64 fp16
              (BLOCK 128x64, 4 warps, 3 stages), causal and not, and HEAD_DIM 128 bf16 (8 warps)
  fa2-banded  attn_fwd_banded (causal keys in two passes: unmasked blocks, then the diagonal
              block), the same two causal shapes
  paged       paged_attention: 32 sequences, prefill chunks of 512 queries over contexts of
              1536, bf16, 32 query heads over 8 KV heads, head dim 128, pages of 16 tokens
  decode      decode_split + decode_merge: 64 sequences of 8192 cached tokens, fp16, 32 query
              heads over 8 KV heads (GQA 4), head dim 128, 16 splits: memory-bound, the KV
              cache read once, so the KV bytes over the time are held against a device copy

Integer arguments that are multiples of 16 at the row's size are declared so (i32:16) in
tilec's signature, as Triton's launcher specialises them when it compiles.

Columns: tilec (nvcc -O3 -arch=sm_XY, through its ctypes launcher; on Hopper translated with
--arch sm_90 and built for sm_90a, tl.dot on wgmma, except the row marked archsm_80, the
mma.sync path); Triton as installed (wgmma
on sm_90 where its compiler chooses it); Triton mma.sync: compiled with DISABLE_MMA_V3=1 in a
process of its own; Triton/Triton: Triton's kernels timed once more after the rounds, over their
median, the noise of the run against which tilec/Triton is read.  Each result is checked against
a float64 reference before it is timed.  Timing: triton.testing.do_bench(warmup=25, rep=100,
median); tilec and Triton as installed in ROUNDS (3) rounds of alternating order, the median
round reported.  TFLOP/s counts 4 N_q N_k D per
head (two products), halved for causal rows.  The markdown table goes to stdout and to
$OUT/bench_attention.md when OUT is set.
"""

import argparse
import concurrent.futures
import json
import math
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
import cases as manifest  # noqa: E402
from cases import Case  # noqa: E402
import bench_elementwise as elementwise  # noqa: E402
import bench_rowwise as rowwise  # noqa: E402

SRC = "examples/attention.py"
IMPLS = ["tilec", "triton", "triton_mma_sync", "triton_control"]
ROUNDS = 3


class Row:
    def __init__(self, key, cases, make):
        self.key, self.cases, self.make = key, cases, make

    @property
    def case(self):          # build_rows builds one case per row: the first
        return self.cases[0]


def fa2_row(dt, d, warps, causal, Z=4, H=32, N=2048, flags=(), kernel="attn_fwd"):
    c = manifest._attn(dt, d, 128, 64, warps, causal, kernel=kernel)
    # H and N_CTX as Triton's launcher specialises them (a multiple of 16 at this size)
    old = "H=i32, N_CTX=i32,"
    assert old in c.sig
    c.sig = c.sig.replace(old, f"H={rowwise.i32(H)}, N_CTX={rowwise.i32(N)},")
    c.extra_flags += list(flags)
    key = (("fa2" if kernel == "attn_fwd" else "fa2-banded") + f"/{dt}/d{d}/{Z}x{H}x{N}" +
           ("/causal" if causal else "") + "".join(flags).replace("--", "/"))

    def make(torch):
        tdt = harness.torch_dtype(dt)
        q, k, v = (torch.randn(Z, H, N, d, device="cuda", dtype=tdt) for _ in range(3))
        out = torch.empty_like(q)
        lse = torch.empty(Z * H * N, device="cuda", dtype=torch.float32)
        st = (H * N * d, N * d, d)
        scale = harness.fp32_value(1 / math.sqrt(d))
        values = {"Q": q, "K": k, "V": v, "Out": out, "Lse": lse, "sm_scale": scale, "H": H, "N_CTX": N}
        for t in "qkvo":
            for name, s in zip({"q": "zhm", "k": "zhn", "v": "zhn", "o": "zhm"}[t], st):
                values[f"stride_{t}{name}"] = s
        grid = (-(-N // 128), Z * H)

        def check():
            zq, zk, zv = q[:1, :4].double(), k[:1, :4].double(), v[:1, :4].double()
            ref, _ = harness.attention_ref(zq, zk, zv, scale, causal)
            err = (out[:1, :4].double() - ref).abs().max().item()
            return err
        flop = 4.0 * Z * H * N * N * d * (0.5 if causal else 1.0)
        return [(values, grid)], check, flop, None
    return Row(key, [c], make)


def paged_row(S=32, q_len=512, ctx=1536, KH=8, QPK=4, D=128, PAGE=16, BQ=16):
    sig = ("Q=*bf16:16, Key_cache=*bf16:16, Value_cache=*bf16:16, Out=*bf16:16, Block_tables=*i32:16, "
           "Seq_lens=*i32:16, Query_start_len=*i32:16, sm_scale=fp32, "
           f"num_seqs={rowwise.i32(S)}, "
           "stride_qt=i64:16, stride_qh=i64:16, stride_kblk=i64:16, stride_kslot=i64:16, "
           "stride_khead=i64:16, stride_vblk=i64:16, stride_vslot=i64:16, stride_vhead=i64:16, "
           f"stride_bt=i64:16, stride_ot=i64:16, stride_oh=i64:16, QUERIES_PER_KV={QPK}, "
           f"HEAD_DIM={D}, PAGE={PAGE}, BLOCK_Q={BQ}, BLOCK_M={BQ * QPK}")
    c = Case(f"paged/bench", SRC, "paged_attention", sig, num_warps=4, driver="paged", dtype="bf16",
             feature="dot")
    key = f"paged/bf16/d{D}/{S}x{q_len}q/{ctx}ctx"

    def make(torch):
        H, L = KH * QPK, q_len + ctx
        nb = -(-L // PAGE)
        nblocks = S * nb
        total = S * q_len
        q = torch.randn(total, H, D, device="cuda", dtype=torch.bfloat16)
        kc = torch.randn(nblocks, PAGE, KH, D, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(nblocks, PAGE, KH, D, device="cuda", dtype=torch.bfloat16)
        out = torch.empty_like(q)
        tables = torch.randperm(nblocks, device="cuda").to(torch.int32).view(S, nb)
        values = {"Q": q, "Key_cache": kc, "Value_cache": vc, "Out": out, "Block_tables": tables,
                  "Seq_lens": torch.full((S,), L, dtype=torch.int32, device="cuda"),
                  "Query_start_len": torch.arange(0, total + 1, q_len, dtype=torch.int32, device="cuda"),
                  "sm_scale": harness.fp32_value(1 / math.sqrt(D)), "num_seqs": S,
                  "stride_qt": H * D, "stride_qh": D, "stride_kblk": PAGE * KH * D,
                  "stride_kslot": KH * D, "stride_khead": D, "stride_vblk": PAGE * KH * D,
                  "stride_vslot": KH * D, "stride_vhead": D, "stride_bt": nb, "stride_ot": H * D,
                  "stride_oh": D}
        grid = (total // BQ + S, KH)

        def check():
            kk = kc[tables[0].long()].reshape(nb * PAGE, KH, D)[:L].repeat_interleave(QPK, dim=1)
            vv = vc[tables[0].long()].reshape(nb * PAGE, KH, D)[:L].repeat_interleave(QPK, dim=1)
            ref, _ = harness.attention_ref(q[:q_len].transpose(0, 1), kk.transpose(0, 1),
                                           vv.transpose(0, 1), values["sm_scale"], True, offset=ctx)
            return (out[:q_len].double() - ref.transpose(0, 1)).abs().max().item()
        flop = 4.0 * S * H * q_len * (ctx + q_len / 2) * D
        return [(values, grid)], check, flop, None
    return Row(key, [c], make)


def decode_row(B=64, T=8192, KH=8, G=4, D=128, S=16):
    split = [c for c in manifest.attention_cases() if c.kernel == "decode_split"][0]
    merge = [c for c in manifest.attention_cases() if c.kernel == "decode_merge"][0]
    # the strides of Mid_lse as Triton's launcher specialises them (multiples of 16 here)
    lse = {"stride_lb=i32,": f"stride_lb={rowwise.i32(KH * G * S)},", "stride_lh=i32,": f"stride_lh={rowwise.i32(S)},"}
    sig_s = split.sig.replace("GROUP=4", f"GROUP={G}").replace("NUM_SPLITS=8", f"NUM_SPLITS={S}")
    sig_m = merge.sig.replace("NUM_SPLITS=8", f"NUM_SPLITS={S}")
    for plain, specialised in lse.items():
        sig_s, sig_m = sig_s.replace(plain, specialised), sig_m.replace(plain, specialised)
    cs = Case("decode/bench/split", SRC, "decode_split", sig_s, num_warps=4, driver="decode_split",
              dtype="fp16", feature="dot")
    cm = Case("decode/bench/merge", SRC, "decode_merge", sig_m, num_warps=4, driver="decode_merge",
              dtype="fp16")
    key = f"decode/fp16/d{D}/B{B}xT{T}/gqa{G}/s{S}"

    def make(torch):
        H = KH * G
        q = torch.randn(B, H, D, device="cuda", dtype=torch.float16)
        k = torch.randn(B, T, KH, D, device="cuda", dtype=torch.float16)
        v = torch.randn(B, T, KH, D, device="cuda", dtype=torch.float16)
        mo = torch.empty(B, H, S, D, device="cuda", dtype=torch.float32)
        ml = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
        out = torch.empty(B, H, D, device="cuda", dtype=torch.float16)
        scale = harness.fp32_value(1 / math.sqrt(D))
        lens = torch.full((B,), T, dtype=torch.int32, device="cuda")
        common = {"stride_mb": H * S * D, "stride_mh": S * D, "stride_ms": D, "stride_lb": H * S,
                  "stride_lh": S}
        v1 = dict(common, Q=q, K=k, V=v, Seq_lens=lens, Mid_o=mo, Mid_lse=ml, sm_scale=scale,
                  stride_qb=H * D, stride_qh=D, stride_kb=T * KH * D, stride_kt=KH * D, stride_kh=D,
                  stride_vb=T * KH * D, stride_vt=KH * D, stride_vh=D)
        v2 = dict(common, Mid_o=mo, Mid_lse=ml, Out=out, stride_ob=H * D, stride_oh=D)

        def check():
            kk = k[0].repeat_interleave(G, dim=1).transpose(0, 1)
            vv = v[0].repeat_interleave(G, dim=1).transpose(0, 1)
            ref, _ = harness.attention_ref(q[0][:, None, :], kk, vv, scale, False)
            return (out[0].double() - ref[:, 0]).abs().max().item()
        kv_bytes = 2 * B * T * KH * D * 2
        return [(v1, (B, KH, S)), (v2, (B, H))], check, 4.0 * B * H * T * D, kv_bytes
    return Row(key, [cs, cm], make)


def bench_rows():
    return [fa2_row("fp16", 64, 4, False), fa2_row("fp16", 64, 4, True), fa2_row("bf16", 128, 8, True),
            paged_row(), decode_row(), fa2_row("fp16", 64, 4, False, flags=("--min-blocks", "3")),
            fa2_row("fp16", 64, 4, False, flags=("--arch", "sm_80")),
            fa2_row("fp16", 64, 4, True, kernel="attn_fwd_banded"),
            fa2_row("bf16", 128, 8, True, kernel="attn_fwd_banded")]


def worker_main(plan_path, rows_fn=bench_rows):
    with open(plan_path) as f:
        plan = json.load(f)
    torch = harness.load_torch()
    do_bench, timing_text = elementwise.make_timer(torch)
    print("@@env " + json.dumps(elementwise.environment(torch) + [timing_text]), flush=True)
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_ms = do_bench(lambda: dst.copy_(src))
    print("@@copy " + json.dumps({"gbs": 2 * (1 << 30) / (copy_ms * 1e-3) / 1e9}), flush=True)
    del src, dst
    for row in rows_fn():
        if row.key not in plan["rows"]:
            continue
        launches, check, flop, kv_bytes = row.make(torch)
        fns, errs, notes = {}, {}, {}
        for impl in (i for i in plan["impls"] if i != "triton_control"):
            try:
                fns[impl], notes[impl] = launch_all(torch, plan, row, launches, impl)
                fns[impl]()
                torch.cuda.synchronize()
                errs[impl] = check()
            except Exception as e:
                rowwise.lost_context(e)
                fns.pop(impl, None)
                print("@@result " + json.dumps({"row": row.key, "impl": impl,
                                                "error": f"{type(e).__name__}: {str(e)[:200]}"}), flush=True)
        # ROUNDS rounds in alternating order (a GPU warming up over a row favours no one), the
        # median of each implementation's rounds; the control is Triton's launches timed once
        # more after the rounds, read against Triton's median: the noise of the run
        times = {impl: [] for impl in fns}
        for r in range(ROUNDS):
            for impl in (list(fns) if r % 2 == 0 else list(fns)[::-1]):
                times[impl].append(do_bench(fns[impl]))
        if "triton_control" in plan["impls"] and "triton" in fns:
            times["triton_control"] = [do_bench(fns["triton"])]
            errs["triton_control"], notes["triton_control"] = errs["triton"], notes["triton"]
        for impl, ts in times.items():
            ms = sorted(ts)[len(ts) // 2]
            res = {"row": row.key, "impl": impl, "ms": ms, "err": errs[impl], "mma": notes[impl],
                   "tflops": flop / (ms * 1e-3) / 1e12, "rounds": [round(t, 4) for t in ts]}
            if kv_bytes:
                res["gbs"] = kv_bytes / (ms * 1e-3) / 1e9
            print("@@result " + json.dumps(res), flush=True)
        torch.cuda.empty_cache()
    return 0


def launch_all(torch, plan, row, launches, impl):
    """(one call that runs the row's launches in order with impl's kernels, a note on Triton's
    build: its MMA instruction and registers)."""
    runs, mma = [], None
    for case, (values, grid) in zip(row.cases, launches):
        if impl == "tilec":
            so = plan["so"].get(f"{row.key}#{case.name}")
            if not so:
                raise RuntimeError(plan["no_tilec"].get(row.key, "not built"))
            kernel = harness.Kernel(case, so, use_triton=False)
            runs.append(rowwise.tilec_launcher(torch, kernel, values, grid))
        else:
            fn = harness.load_triton_kernel(case)
            params = harness.kernel_signature(case)
            args = {p.name: values[p.name] for p in params if p.kind != "const"}
            consts = {p.name: p.value for p in params if p.kind == "const"}
            opt = {"num_warps": case.num_warps, "num_stages": case.num_stages or 3}
            compiled = fn[grid](**args, **consts, **opt)
            ptx = compiled.asm.get("ptx", "")
            if "mma" in ptx:
                mma = "wgmma" if "wgmma" in ptx else "mma.sync"
            mma = f"{mma or 'no dot'}, {getattr(compiled, 'n_regs', '?')} regs"
            runs.append(lambda fn=fn, grid=grid, args=args, consts=consts, opt=opt:
                        fn[grid](**args, **consts, **opt))

    def run_all():
        for r in runs:
            r()
    return run_all, mma


def run_worker(rows, impls, env_extra, work, so, no_tilec, results, info, script=__file__):
    plan_path = os.path.join(work, f"plan-{len(env_extra)}.json")
    with open(plan_path, "w") as f:
        json.dump({"rows": [r.key for r in rows], "impls": impls, "so": so, "no_tilec": no_tilec}, f)
    proc = subprocess.Popen([sys.executable, os.path.abspath(script), "--worker", plan_path],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                            env=dict(os.environ, **env_extra))
    for raw in proc.stdout:
        line = raw.rstrip("\n")
        if line.startswith("@@env "):
            info.setdefault("env", json.loads(line[6:]))
        elif line.startswith("@@copy "):
            info.setdefault("copy", json.loads(line[7:])["gbs"])
        elif line.startswith("@@result "):
            r = json.loads(line[9:])
            results[r["row"], r["impl"]] = r
            print(f"-- {r['row']:<40} {r['impl']:<16} "
                  + (f"{r['ms']:.3f} ms, {r['tflops']:.1f} TFLOP/s, max err {r['err']:.2e}"
                     if "ms" in r else f"failed: {r['error']}"), flush=True)
        else:
            print(line, flush=True)
    proc.wait()


def main(rows_fn=bench_rows, title="tilec attention benchmark", source=SRC, out_name="bench_attention.md",
         script=__file__, doc=__doc__, hopper=True):
    """The whole run, for this file's rows or another benchmark's (bench_lang.py): build every
    case, time each row in a worker process (Triton as installed, then held to mma.sync), and
    print the table."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--only")
    ap.add_argument("--arch")
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker_main(opts.worker, rows_fn)
    rows = [r for r in rows_fn() if not opts.only or opts.only in r.key]
    arch = opts.arch or harness.detect_arch()
    if hopper and re.fullmatch(r"(sm_)?90a?", arch):
        # Hopper: translated for sm_90 (tl.dot on wgmma, built for sm_90a by harness.build_case),
        # the kernel Triton's own column runs; a row that names its --arch keeps it
        for r in rows:
            for c in r.cases:
                if "--arch" not in c.extra_flags:
                    c.extra_flags += ["--arch", "sm_90"]
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-attn-")
    so, no_tilec = {}, {}
    jobs = [(r, c) for r in rows for c in r.cases]
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        futs = [pool.submit(harness.build_case, c, os.path.abspath(opts.tilec), arch,
                            os.path.join(work, re.sub(r"[^\w.-]+", "_", f"{r.key}#{c.name}")))
                for r, c in jobs]
        for (r, c), fut in zip(jobs, futs):
            path, err = fut.result()
            if path:
                so[f"{r.key}#{c.name}"] = path
            else:
                no_tilec[r.key] = err.splitlines()[0] if err else "build failed"
                print(f"-- {r.key}: tilec build failed: {err}", flush=True)
    results, info = {}, {}
    run_worker(rows, ["triton", "tilec", "triton_control"], {}, work, so, no_tilec, results, info, script)
    run_worker(rows, ["triton_mma_sync"], {"DISABLE_MMA_V3": "1"}, work, so, no_tilec, results, info, script)

    def ms(key, impl):
        r = results.get((key, impl))
        return "—" if r is None else ("n/a (" + r["error"][:60] + ")" if "ms" not in r else
                                      f"{r['ms']:.3f} ({r['tflops']:.0f})")

    def ratio(key, impl):
        a, b = results.get((key, "tilec"), {}), results.get((key, impl), {})
        return f"{b['ms'] / a['ms']:.2f}" if "ms" in a and "ms" in b else "—"

    def control(key):
        a, b = results.get((key, "triton"), {}), results.get((key, "triton_control"), {})
        return f"{a['ms'] / b['ms']:.2f}" if "ms" in a and "ms" in b else "—"

    table = ["| kernel | tilec ms (TFLOP/s) | Triton ms | Triton mma.sync ms | tilec/Triton | "
             "Triton/Triton | tilec/Triton mma.sync | GB/s (of copy) | max err tilec |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t = results.get((r.key, "tilec"), {})
        mma = results.get((r.key, "triton"), {}).get("mma") or "?"
        bw = (f"{t['gbs']:.0f} ({t['gbs'] / info['copy']:.2f})" if "gbs" in t and info.get("copy") else "—")
        err = f"{t['err']:.1e}" if "err" in t else "—"
        table.append(f"| {r.key} | {ms(r.key, 'tilec')} | {ms(r.key, 'triton')} [{mma}] | "
                     f"{ms(r.key, 'triton_mma_sync')} | {ratio(r.key, 'triton')} | {control(r.key)} | "
                     f"{ratio(r.key, 'triton_mma_sync')} | {bw} | {err} |")
    env = info.get("env", ["environment unknown", "timing: ?"])
    header = [f"# {title}", ""] + [f"- {ln}" for ln in env[:-1]] + [
        f"- timing: {env[-1]}; tilec and Triton as installed: the median of {ROUNDS} rounds in "
        "alternating order; Triton/Triton: Triton's launches timed once more after the rounds, over "
        "its median (the run's noise); ratios are speed-ups of tilec (Triton time / tilec time)",
        f"- device copy (1 GiB, read + written): {info.get('copy', 0):.0f} GB/s",
        f"- nvcc -O3 -arch={arch}; same source and config for all columns ({source})", ""]
    text = "\n".join(header + table) + "\n"
    print()
    print(text)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], out_name), "w") as f:
            f.write(text)
    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

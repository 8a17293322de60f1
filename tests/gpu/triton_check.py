#!/usr/bin/env python3
"""Generated kernels through Triton on the CPU, no GPU needed: through its interpreter (needs
Python with torch, the CPU build will do, and Triton 3.6), or with --compile through its
compiler for sm_90 (Triton only: it ships its own ptxas).

    python3 tests/gpu/triton_check.py --family attn --count 100
    python3 tests/gpu/triton_check.py --family attn --seeds 17,42 -v
    python3 tests/gpu/triton_check.py --family attn --count 100 --compile

--compile: triton.compile for GPUTarget("cuda", 90, 32) with the kernel's num_warps and its
signature (the :16 marks as tt.divisibility), as a launch would compile it; it fails when
Triton's compiler rejects the kernel or its shared memory exceeds an H100's 227 KB.

Otherwise, for each seed, tools/gen_kernel.py's kernel runs under TRITON_INTERPRET=1
(patched as the difftest referee patches it: see difftest.patch_interpreter) on random inputs
drawn as the differential test draws them (floats in [-2, 2], integers in [-20, 20]), with
every output poisoned with NaN (0x7f bytes for integers).  It fails when:
  - Triton rejects the source (a generator bug: the differential test would lose the kernel);
  - an output element the kernel should write (the JSON's "view" of it, or all of it) is
    still poisoned or is NaN, or is infinite where the JSON does not allow it ("inf");
  - the outputs move by more than their stated tolerance when tl.dot adds up in another
    order: the kernel runs a second time with a dot that adds exact partial products of 16
    along K into an fp32 accumulator, one rounding per step, as mma.sync does.  Two
    compilers differ by about that much (and by the rounding of p to fp16/bf16 that it
    moves), so an output that moves past its tolerance here would be a false mismatch on the
    GPU.  The worst ratio |difference| / tolerance is printed per kernel with -v, and its
    distribution over the kernels at the end.
"""

import argparse
import concurrent.futures
import importlib.util
import os
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_kernel  # noqa: E402

_state = {}
SMEM_LIMIT = 232448          # bytes of shared memory one block may have on an H100 (227 KB)


def compile_one(args):
    """Triton's compiler on kernel `seed` for sm_90."""
    seed, family, work = args
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    src, meta = gen_kernel.generate(seed, family)
    path = os.path.join(work, meta["source"])
    with open(path, "w") as f:
        f.write(src)
    sig, consts, attrs = {}, {}, {}
    for i, p in enumerate(meta["params"]):
        if p["kind"] == "const":
            sig[p["name"]], consts[p["name"]] = "constexpr", p["value"]
            continue
        if p["kind"] in ("desc_in", "desc_out"):  # the tma family: Triton's own spelling
            sig[p["name"]] = p["sig"]
        elif p["kind"] in ("in", "out"):
            sig[p["name"]] = "*" + p["dtype"]
        else:
            sig[p["name"]] = p.get("dtype", p["sig"].split(":")[0])
        if p["sig"].endswith(":16"):
            attrs[(i,)] = [["tt.divisibility", 16]]
    try:
        spec = importlib.util.spec_from_file_location(f"{meta['kernel']}_aot", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, meta["kernel"])
        k = triton.compile(ASTSource(fn, sig, consts, attrs), target=GPUTarget("cuda", 90, 32),
                           options={"num_warps": meta["num_warps"]})
    except Exception as e:
        return seed, meta, "error", f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:300]}", 0.0
    shared = k.metadata.shared
    if shared > SMEM_LIMIT:
        return seed, meta, "fail", f"{shared} bytes of shared memory", shared
    return seed, meta, "ok", f"{shared} bytes of shared memory", shared


def setup():
    import numpy as np
    import torch
    import difftest
    import run_gpu_tests as rgt
    rgt.torch = torch
    interpreter = difftest.patch_interpreter()
    patched_dot = interpreter.InterpreterBuilder.create_dot

    def chunked_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        def f64(h):
            data = h.data
            if data.dtype == np.uint16:                 # bf16 bits
                data = (data.astype(np.uint32) << 16).view(np.float32)
            return data.astype(np.float64)
        x, y = f64(a), f64(b)
        acc = d.data.astype(d.data.dtype, copy=True)
        if acc.dtype != np.float32:
            return patched_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        for k0 in range(0, x.shape[-1], 16):
            acc = (acc.astype(np.float64) + np.matmul(x[..., k0:k0 + 16], y[k0:k0 + 16, :])).astype(np.float32)
        return interpreter.TensorHandle(acc, d.dtype.scalar)

    _state.update(np=np, torch=torch, rgt=rgt, interpreter=interpreter, patched_dot=patched_dot,
                  chunked_dot=chunked_dot)


def run_kernel(fn, meta, seed, dot):
    torch, rgt = _state["torch"], _state["rgt"]
    _state["interpreter"].InterpreterBuilder.create_dot = dot
    gen = torch.Generator()
    gen.manual_seed(seed)
    args, consts, outs = {}, {}, []
    for p in meta["params"]:
        if p["kind"] == "in":
            dt = rgt.torch_dtype(p["dtype"])
            if dt.is_floating_point:
                args[p["name"]] = (torch.rand(p["numel"], generator=gen) * 4 - 2).to(dt)
            else:
                args[p["name"]] = torch.randint(-20, 21, (p["numel"],), generator=gen).to(dt)
        elif p["kind"] == "out":
            args[p["name"]] = rgt.poison_(torch.empty(p["numel"], dtype=rgt.torch_dtype(p["dtype"])))
            outs.append(p)
        elif p["kind"] in ("int", "float"):
            args[p["name"]] = p["value"]
        else:
            consts[p["name"]] = p["value"]
    fn[tuple(meta["grid"])](**args, **consts)
    return {p["name"]: args[p["name"]] for p in outs}


def logical(p, t):
    if "view" in p:
        shape, strides = p["view"]
        return t.as_strided(shape, strides).reshape(-1)
    return t


def check(args):
    seed, family, work = args
    if not _state:
        setup()
    torch = _state["torch"]
    src, meta = gen_kernel.generate(seed, family)
    path = os.path.join(work, meta["source"])
    with open(path, "w") as f:
        f.write(src)
    try:
        spec = importlib.util.spec_from_file_location(f"{meta['kernel']}_interp", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        fn = getattr(module, meta["kernel"])
        first = run_kernel(fn, meta, seed, _state["patched_dot"])
        second = run_kernel(fn, meta, seed, _state["chunked_dot"])
    except Exception as e:
        tb = traceback.format_exc().strip().splitlines()
        return seed, meta, "error", f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]} ({tb[-3].strip()[:200]})", 0.0
    problems, worst = [], 0.0
    for p in meta["params"]:
        if p["kind"] != "out":
            continue
        a = logical(p, first[p["name"]])
        b = logical(p, second[p["name"]])
        if a.dtype.is_floating_point:
            a64, b64 = a.double(), b.double()
            nan = int(torch.isnan(a64).sum())
            if nan:
                problems.append(f"{p['name']}: {nan} of {a.numel()} elements NaN or not written")
            inf = int(torch.isinf(a64).sum())
            if inf and not p.get("inf"):
                problems.append(f"{p['name']}: {inf} of {a.numel()} elements infinite")
            fin = torch.isfinite(a64) & torch.isfinite(b64)
            same = (a64 == b64) | (torch.isnan(a64) & torch.isnan(b64))
            finite = b64[torch.isfinite(b64)]
            scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
            tol = p["rtol"] * b64.abs() + p["atol"] * scale
            ratio = torch.where(fin & ~same, (a64 - b64).abs() / tol, torch.zeros_like(a64))
            if bool((~same & ~fin).any()):
                problems.append(f"{p['name']}: infinities differ between the two dots")
            r = float(ratio.max()) if ratio.numel() else 0.0
            worst = max(worst, r)
            if r > 1:
                problems.append(f"{p['name']}: moves {r:.2f}x its tolerance under another dot order")
        elif a.numel():
            unwritten = int((a.contiguous().view(torch.uint8).reshape(a.numel(), -1) == 0x7F).all(dim=1).sum())
            if unwritten:
                problems.append(f"{p['name']}: {unwritten} of {a.numel()} elements not written")
    return seed, meta, ("fail" if problems else "ok"), "; ".join(problems), worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", default="attn", choices=gen_kernel.FAMILIES)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seeds", help="comma-separated seeds (instead of --start/--count)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per kernel")
    ap.add_argument("--compile", action="store_true", help="Triton's compiler for sm_90, not its interpreter")
    opts = ap.parse_args()
    if opts.family == "tma" and not opts.compile:
        ap.error("the tma family takes host tensor descriptors, which the interpreter is not given here: "
                 "use --compile")
    if not opts.compile:
        os.environ["TRITON_INTERPRET"] = "1"      # before the workers import triton
    seeds = ([int(s) for s in opts.seeds.split(",")] if opts.seeds
             else list(range(opts.start, opts.start + opts.count)))
    work = tempfile.mkdtemp(prefix="tilec-interp-")
    counts = {"ok": 0, "fail": 0, "error": 0}
    ratios, by_variant, failing = [], {}, []
    with concurrent.futures.ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        job = compile_one if opts.compile else check
        for seed, meta, status, text, worst in pool.map(job, [(s, opts.family, work) for s in seeds]):
            counts[status] += 1
            variant = meta.get("variant", "-")
            by_variant[variant] = by_variant.get(variant, 0) + 1
            if status == "ok":
                ratios.append(worst)
            else:
                failing.append(seed)
            if opts.compile and (opts.verbose or status != "ok"):
                print(f"{status:<6} {meta['kernel']} ({variant}, {meta['num_warps']} warps): {text}", flush=True)
            elif opts.verbose or status != "ok":
                print(f"{status:<6} {meta['kernel']} ({variant}, {meta['num_warps']} warps): "
                      f"worst {worst:.3f} of tolerance" + (f"; {text}" if text else ""), flush=True)
    ratios.sort()
    if opts.compile:
        print(f"shared memory: max {int(max(ratios, default=0))} bytes")
        print("variants: " + ", ".join(f"{k} {v}" for k, v in sorted(by_variant.items())))
        print(f"triton-compile: {len(seeds)} {opts.family} kernels for sm_90: {counts['ok']} ok, "
              f"{counts['fail']} over the shared memory, {counts['error']} rejected by Triton's compiler"
              + (f"; failing seeds {','.join(map(str, sorted(failing)))}" if failing else ""))
        return 1 if failing else 0
    if ratios:
        q = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]  # noqa: E731
        print(f"dot-order movement / tolerance: median {q(0.5):.3f}, 90% {q(0.9):.3f}, "
              f"99% {q(0.99):.3f}, max {ratios[-1]:.3f}")
    print("variants: " + ", ".join(f"{k} {v}" for k, v in sorted(by_variant.items())))
    print(f"interp-check: {len(seeds)} {opts.family} kernels: {counts['ok']} ok, {counts['fail']} failed, "
          f"{counts['error']} rejected by Triton's interpreter"
          + (f"; failing seeds {','.join(map(str, sorted(failing)))}" if failing else ""))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Differential test: random kernels (tools/gen_kernel.py) through Triton and through tilec,
on the same random inputs, results compared.

    python3 tests/gpu/difftest.py --count 500                  seeds 1..500 on the GPU
    python3 tests/gpu/difftest.py --start 1000 --count 200     seeds 1000..1199
    python3 tests/gpu/difftest.py --seeds 17,42 --keep /tmp/d  some seeds, files kept
    python3 tests/gpu/difftest.py --count 200 --cpu-only       no GPU: translate and compile
    python3 tests/gpu/difftest.py --family attn --count 300    attention-class kernels
    python3 tests/gpu/difftest.py --start 101 --count 100 --time-limit 480 \
        --summary difftest-summary.txt                          one chunk of a longer run

For each seed:
  1. tools/gen_kernel.py writes kSEED.py (a @triton.jit kernel) and kSEED.json (its
     signature, warps, grid, and every parameter's kind, dtype, size and tolerance); with
     --family attn, attnSEED.py and attnSEED.json of the attention family (tools/gen_attn.py:
     chained tl.dot, softmax, masks, online-softmax loops), whose scalars may be fp32;
  2. bin/tilec translates it (in parallel over --jobs processes).  Exit status 1 with an
     error message (its first "error:" line, after any warnings) is counted as "rejected"
     (with "not supported" in it: "unsupported") and is not a failure; any other exit status
     (a crash, a signal, a timeout) is a failure.  The rejections are then counted by
     construct (the message without position and numbers), with their seeds;
  3. nvcc compiles the .cu files, --batch kernels per translation unit (each file wrapped in
     its own namespace; the kernels and launchers are extern "C" with distinct names), into
     one shared library per batch; a batch that fails is retried file by file so that the
     culprit is named.  With --cpu-only, nvcc compiles for sm_80 and sm_90 (-c) and NVRTC
     (tools/nvrtc_check) compiles every file too, and nothing runs;
  4. --workers processes on the GPU each take a share of the kernels: inputs are random
     (floats in [-2, 2], integers in [-20, 20]), outputs are poisoned (NaN, 0x7f bytes) for
     each implementation, tilec's kernel runs through its ctypes launcher and Triton's through
     triton.jit (both via tests/gpu/run_gpu_tests.py's Kernel), and the outputs are compared:
     integers bit for bit, floats within the tolerance in the JSON (|tilec - triton| <=
     rtol * |triton| + atol * max|triton|; NaN equals NaN).  A worker that loses its CUDA
     context is restarted after the kernel that broke it.

A mismatch goes to a referee: Triton's interpreter (TRITON_INTERPRET=1, in a child process) runs
the same source on the same inputs on the CPU (host tensor descriptors included).  Where tilec agrees with it on every output and
Triton does not, the kernel counts as "Triton wrong" (a bug in Triton's GPU lowering, not a tilec
failure); otherwise it stays a mismatch, with the referee's verdict for each output.  A worker
that dies inside Triton (after tilec's kernel has run: an assertion or an LLVM abort in Triton's
compiler) reports a Triton error, not a failure; so does one whose context Triton's kernel breaks
(an illegal address) after tilec's kernel ran and was synchronized without error.

One line per failing kernel with a minimal repro (the seed, and the commands that regenerate
and translate it), a progress line every 25 kernels run; then a summary: passed, mismatches,
tilec crashes, compile failures, unsupported/rejected, Triton errors, Triton wrong, not run.  The last line,
"difftest-summary: ...", says the same on one line with the date, seeds, GPU and versions;
--summary FILE appends it to FILE, so that the chunks of a long run (--start/--count) add up
in one results file.

--time-limit SECONDS keeps a chunk inside a time budget: no kernel starts on the GPU later
than SECONDS - 30 after the start (the margin covers one kernel's Triton compile and the
summary); the kernels left are "not run".  At SECONDS - 5 the workers still running are
stopped and their kernels count as not run too, so that the summary is always printed; the
seeds not run are listed ("not run seeds: ...") for a later --seeds run.
--kernel-timeout (default 180 s) fails a kernel that runs longer (a hang in tilec's kernel; in
Triton's part it is a Triton error) and restarts its worker.  Exit status 1 if any kernel failed, else 2 if some
were not run, else 0.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_kernel  # noqa: E402
import run_gpu_tests as rgt  # noqa: E402

HEADERS = ("#include <stdint.h>\n#include <stdio.h>\n#include <cuda_runtime.h>\n"
           "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n")


FAMILY = "default"      # --family: which generator the seeds are for
TARGET = None           # --target: tilec's --arch for every kernel (None: tilec's default)


def tilec_args(meta):
    return meta["tilec_args"] + (["--arch", TARGET] if TARGET else [])


def repro(seed, meta=None):
    meta = meta or gen_kernel.generate(seed, FAMILY)[1]
    family = f" --family {FAMILY}" if FAMILY != "default" else ""
    return (f"python3 tools/gen_kernel.py {seed}{family} --out /tmp/k && bin/tilec /tmp/k/{meta['source']} "
            f"{shlex.join(tilec_args(meta))} -o /tmp/k/{meta['kernel']}.cu")


# ---- 1-2: generate and translate (one process per seed) ---------------------------------

def translate(args):
    seed, work, tilec, family = args
    src, meta = gen_kernel.generate(seed, family)
    py = os.path.join(work, meta["source"])
    cu = os.path.join(work, meta["kernel"] + ".cu")
    with open(py, "w") as f:
        f.write(src)
    if "warp_specialize=True" in src:
        # a scheduling hint, which must not change a result: Triton runs the kernel without
        # it, as Triton 3.6's Hopper warp specialisation aborts its compiler (an UNREACHABLE in
        # WSDataPartition) or hangs on about half of the tma family's kernels that ask for it
        meta["triton_source"] = meta["kernel"] + "_triton.py"
        with open(os.path.join(work, meta["triton_source"]), "w") as f:
            f.write(src.replace("warp_specialize=True", "warp_specialize=False"))
    with open(os.path.join(work, meta["kernel"] + ".json"), "w") as f:
        json.dump(meta, f)
    cmd = [tilec, py] + tilec_args(meta) + ["-o", cu]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return seed, meta, "crash", "tilec timed out after 60 s"
    if r.returncode == 0:
        return seed, meta, "ok", cu
    lines = r.stderr.strip().splitlines()
    # the first error (warnings may come before it)
    first = next((ln for ln in lines if "error:" in ln), lines[0] if lines else "(no message)")
    if r.returncode == 1 and "error:" in first:
        return seed, meta, "unsupported" if "not supported" in first else "rejected", first
    return seed, meta, "crash", f"tilec exit status {r.returncode}: {r.stderr.strip()[-2000:]}"


def construct(message):
    """tilec's first error line without the file, the position and the numbers: what it
    rejected, the same words for every kernel that it rejects for the same reason."""
    head, sep, rest = message.partition(" error: ")
    return re.sub(r"\d+", "N", rest if sep else message)


# ---- 3: compile ---------------------------------------------------------------------------

def nvcc_cmd(arch, cpu_only, out, src):
    nvcc = os.environ.get("NVCC", "nvcc")
    if cpu_only:
        hopper = ["-gencode", "arch=compute_90a,code=sm_90a"] if TARGET == "sm_90" else []
        return [nvcc, "-O3", "-c", "-gencode", "arch=compute_80,code=sm_80",
                "-gencode", "arch=compute_90,code=sm_90"] + hopper + ["-o", out, src]
    # translated for sm_90 and run on an sm_90 GPU: built for sm_90a, where the wgmma paths
    # (under __CUDA_ARCH_FEAT_SM90_ALL) are compiled
    target = ("-gencode=arch=compute_90a,code=sm_90a" if TARGET == "sm_90" and arch in ("sm_90", "sm_90a")
              else f"-arch={arch}")
    return [nvcc, "-O3", "-shared", "-Xcompiler", "-fPIC", target, "-o", out, src]


def compile_batch(args):
    """Returns {seed: (path of the library or object, None) or (None, error)}."""
    index, items, work, arch, cpu_only = args
    ext = ".o" if cpu_only else ".so"
    tu = os.path.join(work, f"batch{index:04d}.cu")
    with open(tu, "w") as f:
        f.write(HEADERS)
        for seed, cu in items:
            f.write(f"namespace tilec_difftest_{seed} {{\n#include \"{cu}\"\n}}\n")
    out = tu[:-3] + ext
    r = subprocess.run(nvcc_cmd(arch, cpu_only, out, tu), capture_output=True, text=True)
    if r.returncode == 0:
        return {seed: (out, None) for seed, _ in items}
    results = {}
    for seed, cu in items:            # find the culprit(s): one file at a time
        one = cu[:-3] + ext
        r = subprocess.run(nvcc_cmd(arch, cpu_only, one, cu), capture_output=True, text=True)
        results[seed] = (one, None) if r.returncode == 0 else (None, (r.stdout + r.stderr).strip()[-3000:])
    return results


def nvrtc_check(args):
    checker, cu = args
    r = subprocess.run([checker, "sm_80", cu], capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run([checker, "sm_90", cu], capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stdout + r.stderr).strip()[-3000:]


# ---- 4: run on the GPU (worker processes) ------------------------------------------------

def desc_ld(p):
    """The row stride of a tma-family descriptor's matrix: its rows padded to 16 bytes (as TMA
    needs), and a gap of 8 elements more."""
    return p["cols"] + (-p["cols"]) % 8 + 8


def make_inputs(meta, gen):
    torch = rgt.torch
    values, outs = {}, []
    for p in meta["params"]:
        if p["kind"] == "in":
            dt = rgt.torch_dtype(p["dtype"])
            n = max(p["numel"], 1)
            if dt.is_floating_point:
                t = (torch.rand(n, generator=gen, device="cuda") * 4 - 2).to(dt)
            else:
                t = torch.randint(-20, 21, (n,), generator=gen, device="cuda").to(dt)
            values[p["name"]] = t
        elif p["kind"] == "out":
            values[p["name"]] = rgt.poison_(torch.empty(max(p["numel"], 1), dtype=rgt.torch_dtype(p["dtype"]),
                                                        device="cuda"))
            outs.append(p)
        elif p["kind"] in ("int", "float"):
            values[p["name"]] = p["value"]
        elif p["kind"] in ("desc_in", "desc_out"):  # the tma family: a descriptor over a padded matrix
            from triton.tools.tensor_descriptor import TensorDescriptor
            dt = rgt.torch_dtype(p["dtype"])
            if p["kind"] == "desc_in":
                buf = (torch.rand(p["numel"], generator=gen, device="cuda") * 4 - 2).to(dt)
            else:
                buf = rgt.poison_(torch.empty(p["numel"], dtype=dt, device="cuda"))
                outs.append(p)
            values[p["buf"]] = buf
            values[p["name"]] = TensorDescriptor(buf, [p["rows"], p["cols"]], [desc_ld(p), 1], p["block"])
    return values, outs


def out_name(p):
    """The tensor that holds output p (a descriptor's own buffer)."""
    return p.get("buf", p["name"])


def compare(p, a, b, names=("tilec", "triton")):
    """None when output `a` (tilec's) matches `b` (Triton's) within p's tolerance, else a
    description naming them by `names`."""
    torch = rgt.torch
    if not a.dtype.is_floating_point:
        bad = (a != b).nonzero().flatten()
    else:
        a64, b64 = a.double(), b.double()
        both_nan = torch.isnan(a64) & torch.isnan(b64)
        same = (a64 == b64) | both_nan
        finite = b64[torch.isfinite(b64)]
        scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
        close = (a64 - b64).abs() <= p["rtol"] * b64.abs() + p["atol"] * scale
        bad = (~(same | close)).nonzero().flatten()
    if bad.numel() == 0:
        return None
    show = ", ".join(f"[{int(i)}] {names[0]} {a[i].item()!r} {names[1]} {b[i].item()!r}" for i in bad[:4])
    return f"{p['name']}: {bad.numel()} of {a.numel()} elements differ: {show}"


class TritonContextLost(Exception):
    """Triton's kernel broke the CUDA context (an illegal address), after tilec's had run
    and been synchronized without error."""


def run_one(seed, meta, so, work, use_triton):
    torch = rgt.torch
    case = rgt.Case(meta["kernel"], os.path.join(work, meta.get("triton_source", meta["source"])), meta["kernel"],
                    meta["sig"], num_warps=meta["num_warps"], num_stages=meta.get("num_stages", 3))
    kernel = rgt.Kernel(case, so, use_triton)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    values, outs = make_inputs(meta, gen)
    grid = meta["grid"]
    err = kernel.launch_tilec(values, grid)
    if err:
        return "FAIL", f"tilec's kernel: {err}"
    if not use_triton:
        return "PASS", "tilec ran (no Triton to compare with)"
    tilec_out = {p["name"]: values[out_name(p)].clone() for p in outs}
    for p in outs:
        rgt.poison_(values[out_name(p)])
    # tilec's kernel has run and been synchronized: if the process dies from here on (an
    # assertion or an LLVM abort inside Triton's compiler), it is Triton's doing
    print(f"@@triton {seed}", flush=True)
    try:
        err = kernel.launch_triton(values, grid)
    except rgt.ContextLost as e:     # tilec's kernel was synchronized: this fault is Triton's
        raise TritonContextLost(str(e)) from None
    if err:
        return "TRITON-ERROR", err
    problems = [d for p in outs for d in [compare(p, tilec_out[p["name"]], values[out_name(p)])] if d]
    if problems:
        inputs = {p["name"]: values[out_name(p)].cpu() for p in meta["params"] if p["kind"] in ("in", "desc_in")}
        triton_out = {p["name"]: values[out_name(p)].cpu() for p in outs}
        tilec_out = {k: v.cpu() for k, v in tilec_out.items()}
        status, verdict = referee(seed, meta, work, inputs, tilec_out, triton_out)
        return status, "; ".join(problems) + " || " + verdict + " || " + ptxas_o1_check(seed, meta, work, outs,
                                                                                          triton_out)
    return "PASS", None


# ---- 4b: a mismatch built again with ptxas -O1 ---------------------------------------------
#
# The attn family's seed 7170 came out wrong from ptxas 13.0 at its default -O3 (and -O2),
# under heavy register pressure (255 registers and spills), and right at -O0 and -O1, from
# the same PTX; compute-sanitizer's racecheck, initcheck, memcheck and synccheck found
# nothing.  So a mismatch is built once more, alone, with -Xptxas -O1, and run on the same
# inputs: its line says whether that build agrees with Triton.  It stays a MISMATCH either
# way (a race or an uninitialised read can also hide at another optimisation level); the
# note is where to look first.

RUN_ARCH = None   # the worker's nvcc -arch (its plan's "arch")


def ptxas_o1_check(seed, meta, work, outs, triton_out):
    if RUN_ARCH is None or RUN_ARCH.startswith("sm_80+"):
        return "ptxas -O1: not tried"
    cu = os.path.join(work, meta["kernel"] + ".cu")
    so = os.path.join(work, meta["kernel"] + "_ptxas_O1.so")
    r = subprocess.run(nvcc_cmd(RUN_ARCH, False, so, cu) + ["-Xptxas", "-O1"], capture_output=True, text=True)
    if r.returncode != 0:
        return "ptxas -O1: the build failed"
    case = rgt.Case(meta["kernel"], os.path.join(work, meta.get("triton_source", meta["source"])), meta["kernel"],
                    meta["sig"], num_warps=meta["num_warps"], num_stages=meta.get("num_stages", 3))
    kernel = rgt.Kernel(case, so, False)
    gen = rgt.torch.Generator(device="cuda")
    gen.manual_seed(seed)
    values, _ = make_inputs(meta, gen)
    err = kernel.launch_tilec(values, meta["grid"])
    if err:
        return f"ptxas -O1: the kernel failed ({err})"
    still = [p["name"] for p in outs if compare(p, values[out_name(p)].cpu(), triton_out[p["name"]])]
    return ("ptxas -O1: still differs (" + ", ".join(still) + ")" if still
            else "ptxas -O1: agrees with Triton (look at ptxas first)")


# ---- 5: the referee for a mismatch: Triton's interpreter ---------------------------------
#
# Which of the two is right?  The kernels are generated, so no reference is known; Triton's
# interpreter (TRITON_INTERPRET=1) runs the same source on the CPU, with NumPy for the
# arithmetic and none of Triton's GPU lowering.  It must be set before triton is imported, so
# it runs in a child process.  Where tilec agrees with the interpreter and Triton does not,
# the mismatch is Triton's (TRITON-WRONG, not a tilec failure); otherwise it stays a MISMATCH.
# The interpreter of Triton 3.6 cannot run tl.map_elementwise: an output the generator marks
# "interpreter": false comes from a section between "# -- map_elementwise section" and "# --
# end of the map_elementwise section", which the referee drops; such an output counts as
# right only where tilec and Triton agree on it.

def referee(seed, meta, work, inputs, tilec_out, triton_out):
    """(status, one line) for a mismatch, from the interpreter's outputs on the same inputs."""
    path = os.path.join(work, f"referee{seed}.pt")
    rgt.torch.save({"meta": meta, "work": work, "inputs": inputs, "tilec": tilec_out,
                    "triton": triton_out}, path)
    env = dict(os.environ, TRITON_INTERPRET="1")
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--referee", path], env=env,
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "MISMATCH", "referee (Triton's interpreter): timed out after 300 s"
    line = next((ln[len("@@referee "):] for ln in r.stdout.splitlines() if ln.startswith("@@referee ")), None)
    if line is None:
        tail = (r.stdout + r.stderr).strip().splitlines()[-1:] or ["no output"]
        return "MISMATCH", f"referee (Triton's interpreter) failed: {tail[0][:300]}"
    status, _, text = line.partition(" ")
    return status, "referee (Triton's interpreter): " + text


def patch_interpreter():
    """Fixes Triton 3.6's interpreter (TRITON_INTERPRET=1) where it cannot run the generated
    kernels, or runs them wrong.  Call before the kernel's module is loaded."""
    import numpy as np
    from triton.runtime import interpreter
    import triton.language as tl
    # it keeps a scalar argument as a one-element array and reads a loop bound from it with
    # int(array), which recent NumPy (2.5 on the H200 machine) refuses for an array of one
    # dimension
    original_patch = interpreter._patch_lang_tensor

    def patch_lang_tensor(tensor, scope):
        original_patch(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))
    interpreter._patch_lang_tensor = patch_lang_tensor
    # nor does it run libdevice functions (extern_elementwise): the generated kernels use
    # libdevice.tanh, which NumPy has
    from triton.language.extra.cuda import libdevice
    numpy_twin = {"__nv_tanhf": np.tanh, "__nv_tanh": np.tanh}

    def create_extern_elementwise(self, lib_name, lib_path, symbol, args, ret_type, is_pure):
        if symbol not in numpy_twin or len(args) != 1:
            raise NotImplementedError(f"the referee has no NumPy twin of libdevice's {symbol}")
        return self.unary_op(args[0], numpy_twin[symbol])
    interpreter.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
    original_patch_lang = interpreter._patch_lang

    def patch_lang(fn):
        scope = original_patch_lang(fn)
        interpreter._patch_builtin(libdevice, interpreter.interpreter_builder, scope)
        return scope
    interpreter._patch_lang = patch_lang
    # it keeps bf16 values as their uint16 bits, and its tl.dot multiplies those bits as
    # integers (a 16x16 bf16 dot is off by 1e10): widen bf16 operands to fp32 first (exact)
    original_dot = interpreter.InterpreterBuilder.create_dot

    def widen(h):
        if h.dtype.scalar != tl.bfloat16:
            return h
        return interpreter.TensorHandle((h.data.astype(np.uint32) << 16).view(np.float32), tl.float32)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return original_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)
    interpreter.InterpreterBuilder.create_dot = create_dot

    # nor does it do bf16 arithmetic: it adds, multiplies and compares the uint16 bits, makes
    # no nonzero bf16 constant (a bf16 tensor times a Python float: no get_bf16), and casts
    # fp32 to bf16 by truncation where Triton rounds to nearest even.  bf16 operands are
    # widened to fp32 (exact), and results rounded to nearest even, as the GPU does
    Builder = interpreter.InterpreterBuilder
    TensorHandle = interpreter.TensorHandle

    def to_f32(data):
        return (data.astype(np.uint32) << 16).view(np.float32)

    def to_bf16(x):
        x = np.asarray(x, dtype=np.float32)
        bits = x.view(np.uint32)
        out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        return np.where(np.isnan(x), np.uint16(0x7FC0), out)

    def is_bf16(h):
        return h.dtype.scalar == tl.bfloat16

    def get_bf16(self, value):
        return TensorHandle(to_bf16(np.array([value], dtype=np.float32)), tl.bfloat16)
    if not hasattr(Builder, "get_bf16"):
        Builder.get_bf16 = get_bf16
    original_binary, original_unary = Builder.binary_op, Builder.unary_op
    original_fma, original_cast = Builder.create_fma, Builder.cast_impl

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) and is_bf16(rhs)):
            return original_binary(self, lhs, rhs, op)
        out = op(to_f32(lhs.data), to_f32(rhs.data))
        return TensorHandle(to_bf16(out) if out.dtype == np.float32 else out, tl.bfloat16)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return original_unary(self, arg, op)
        return TensorHandle(to_bf16(op(to_f32(arg.data))), tl.bfloat16)

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return original_fma(self, x, y, z)
        return TensorHandle(to_bf16(to_f32(x.data) * to_f32(y.data) + to_f32(z.data)), tl.bfloat16)

    def cast_impl(self, src, dst_type):
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return TensorHandle(to_bf16(src.data), tl.bfloat16)
        return original_cast(self, src, dst_type)
    Builder.binary_op, Builder.unary_op, Builder.create_fma = binary_op, unary_op, create_fma
    Builder.cast_impl = cast_impl
    # (the lambdas create_fadd... call self.binary_op, and create_fp_trunc... self.cast_impl)
    # tl.reduce(tuple, None, fn) flattens only the tuple's first tile (the axis is 0 once it
    # has) and dies on the second ("can only convert an array of size 1"): flatten them all
    original_unravel = interpreter.ReduceOps.unravel

    def unravel(self, input, axis):
        if axis is not None:
            return original_unravel(self, input, axis)
        return tuple(self.to_tensor(t.handle.data.flatten(), t.dtype) for t in input), 0
    interpreter.ReduceOps.unravel = unravel
    return interpreter


def referee_main(path):
    """The child: runs the kernel in Triton's interpreter on the saved inputs and prints
    "@@referee STATUS text", STATUS being TRITON-WRONG when tilec agrees with the interpreter on
    every output and Triton does not, else MISMATCH."""
    import importlib.util
    torch = rgt.load_torch()
    patch_interpreter()
    saved = torch.load(path)
    meta = saved["meta"]
    source = os.path.join(saved["work"], meta["source"])
    if any(p.get("interpreter") is False for p in meta["params"]):
        # a section the interpreter cannot run (tl.map_elementwise): its lines go, and its
        # outputs are judged by the comparison of tilec with Triton alone
        kept, skipping = [], False
        with open(source) as f:
            for line in f:
                if line.strip().startswith("# -- map_elementwise section"):
                    skipping = True
                if not skipping:
                    kept.append(line)
                if line.strip() == "# -- end of the map_elementwise section":
                    skipping = False
        source = os.path.join(saved["work"], "referee_" + meta["source"])
        with open(source, "w") as f:
            f.writelines(kept)
    spec = importlib.util.spec_from_file_location(meta["kernel"], source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, meta["kernel"])
    args, consts, outs, bufs = {}, {}, [], {}
    for p in meta["params"]:
        if p["kind"] == "in":
            args[p["name"]] = saved["inputs"][p["name"]].clone()
        elif p["kind"] == "out":
            args[p["name"]] = rgt.poison_(torch.empty_like(saved["tilec"][p["name"]]))
            outs.append(p)
        elif p["kind"] in ("int", "float"):
            args[p["name"]] = p["value"]
        elif p["kind"] in ("desc_in", "desc_out"):     # the interpreter takes host descriptors
            from triton.tools.tensor_descriptor import TensorDescriptor
            if p["kind"] == "desc_in":
                buf = saved["inputs"][p["name"]].clone()
            else:
                buf = rgt.poison_(torch.empty_like(saved["tilec"][p["name"]]))
                outs.append(p)
            bufs[p["name"]] = buf
            args[p["name"]] = TensorDescriptor(buf, [p["rows"], p["cols"]], [desc_ld(p), 1], p["block"])
        else:
            consts[p["name"]] = p["value"]
    fn[tuple(meta["grid"])](**args, **consts)
    verdicts, tilec_right, triton_right = [], True, True
    for p in outs:
        if p.get("interpreter") is False:
            d = compare(p, saved["tilec"][p["name"]], saved["triton"][p["name"]])
            tilec_right &= d is None
            verdicts.append(f"{p['name']}: not interpreted, " + ("tilec and Triton agree" if d is None else
                                                                   "tilec and Triton differ"))
            continue
        ref = bufs.get(p["name"], args[p["name"]])
        t = compare(p, saved["tilec"][p["name"]], ref, ("tilec", "interpreter"))
        g = compare(p, saved["triton"][p["name"]], ref, ("triton", "interpreter"))
        tilec_right &= t is None
        triton_right &= g is None
        who = ("both agree with it" if not t and not g else "tilec agrees, Triton differs" if not t
               else "Triton agrees, tilec differs" if not g else "neither agrees")
        verdicts.append(f"{p['name']}: {who}" + "".join(f" ({d.split(': ', 1)[1]})" for d in (t, g) if d))
    status = "TRITON-WRONG" if tilec_right and not triton_right else "MISMATCH"
    print(f"@@referee {status} " + "; ".join(verdicts), flush=True)
    return 0


def worker_main(plan_path):
    global RUN_ARCH, TARGET
    rgt.load_torch()
    with open(plan_path) as f:
        plan = json.load(f)
    RUN_ARCH, TARGET = plan.get("arch"), plan.get("target")
    use_triton = not plan["no_triton"]
    if use_triton:
        try:
            import triton  # noqa: F401
        except Exception as e:
            print(f"-- Triton cannot be imported ({type(e).__name__}: {e}); running tilec only", flush=True)
            use_triton = False
    if use_triton:
        import triton
        versions = f"torch {rgt.torch.__version__}, triton {triton.__version__}"
    else:
        versions = f"torch {rgt.torch.__version__}, no triton"
    print(f"@@env {rgt.torch.cuda.get_device_name()} ({versions})", flush=True)
    deadline = plan.get("deadline")
    for item in plan["items"]:
        seed = item["seed"]
        if deadline and time.time() > deadline:
            print(f"@@result {seed} NOT-RUN the --time-limit was reached", flush=True)
            continue
        print(f"@@start {seed}", flush=True)
        try:
            status, text = run_one(seed, item["meta"], item["so"], plan["work"], use_triton)
        except TritonContextLost as e:
            print(f"@@result {seed} TRITON-ERROR Triton's kernel lost the CUDA context after tilec's "
                  f"ran cleanly: {e}", flush=True)
            return 3
        except rgt.ContextLost as e:
            print(f"@@result {seed} FAIL CUDA context lost: {e}", flush=True)
            return 3
        except Exception as e:                     # a harness problem with this kernel
            status, text = "FAIL", f"harness: {type(e).__name__}: {e}"
        print(f"@@result {seed} {status} {text or ''}", flush=True)
    return 0


def visible_gpus():
    """The GPUs this process may use: CUDA_VISIBLE_DEVICES's entries if set, else one per line
    of `nvidia-smi -L` (["0"] when it cannot tell)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip()] or [visible]
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ["0"]
    n = sum(1 for ln in out.splitlines() if ln.startswith("GPU "))
    return [str(i) for i in range(max(1, n))]


def run_workers(items, work, nworkers, no_triton, report, deadline=None, env=None,
                kernel_timeout=None, hard_stop=None, arch=None):
    """Runs items [(seed, meta, so)] over nworkers worker processes, spread round-robin over
    the GPUs (each worker sees one, through CUDA_VISIBLE_DEVICES); calls report(seed,
    status, text) once per item.  `env` (a list) gets the workers' "GPU (versions)" line.
    A watchdog kills a worker whose kernel has run longer than kernel_timeout seconds (the
    kernel fails, or is a Triton error if it was inside Triton; the worker restarts), and
    every worker at hard_stop (a time.time() value; what was running counts as not run)."""
    pending = list(items)
    running = {}            # id of the drain's pair -> (proc, seed running or None, since when)
    killed = {}             # proc -> "timeout" or "stop"
    lock = threading.Lock()
    stop = threading.Event()

    def watchdog():
        while not stop.wait(1.0):
            now = time.time()
            with lock:
                for proc, seed, since in running.values():
                    if proc in killed or proc.poll() is not None:
                        continue
                    if hard_stop and now > hard_stop:
                        killed[proc] = "stop"
                    elif kernel_timeout and seed is not None and now - since > kernel_timeout:
                        killed[proc] = "timeout"
                    else:
                        continue
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)     # the worker and its compilers
                    except ProcessLookupError:
                        pass
    shares = [pending[i::nworkers] for i in range(nworkers)]
    procs = []
    gpus = visible_gpus()

    def start(share, tag, gpu):
        path = os.path.join(work, f"plan-{tag}.json")
        with open(path, "w") as f:
            json.dump({"items": [{"seed": s, "meta": m, "so": so} for s, m, so in share],
                       "work": work, "no_triton": no_triton, "deadline": deadline, "arch": arch,
                       "target": TARGET}, f)
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", path],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                             start_new_session=True, env=dict(os.environ, CUDA_VISIBLE_DEVICES=gpu))
        return p, share, gpu

    for i, share in enumerate(shares):
        if share:
            procs.append(start(share, f"{i}-0", gpus[i % len(gpus)]))
    restarts = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(procs))) as pool:
        def drain(pair):
            nonlocal restarts
            proc, share, gpu = pair
            key = id(pair)
            while True:
                done, started, in_triton = set(), None, False
                with lock:
                    running[key] = (proc, None, time.time())
                for line in proc.stdout:
                    line = line.rstrip("\n")
                    if line.startswith("@@start "):
                        started, in_triton = int(line.split()[1]), False
                        with lock:
                            running[key] = (proc, started, time.time())
                    elif line.startswith("@@triton "):
                        in_triton = True
                    elif line.startswith("@@env "):
                        if env is not None and not env:
                            env.append(line[len("@@env "):])
                    elif line.startswith("@@result "):
                        _, seed, status, *rest = line.split(" ", 3)
                        done.add(int(seed))
                        report(int(seed), status, rest[0] if rest else "")
                    elif line.strip():
                        print(line, flush=True)
                rc = proc.wait()
                with lock:
                    why = killed.get(proc)
                    running.pop(key, None)
                if why == "stop":
                    for s, _, _ in share:
                        if s not in done:
                            report(s, "NOT-RUN", "the --time-limit was reached")
                    return
                if why == "timeout" and started is not None and started not in done:
                    part = "Triton's compile or kernel" if in_triton else "tilec's kernel"
                    report(started, "TRITON-ERROR" if in_triton else "FAIL",
                           f"{part} ran longer than {kernel_timeout:.0f} s (--kernel-timeout): "
                           "a hang or a runaway loop; the worker was killed")
                    done.add(started)
                if started is not None and started not in done:
                    if in_triton:
                        report(started, "TRITON-ERROR", f"the worker died (exit status {rc}) inside "
                               "Triton, after tilec's kernel had run; Triton's compiler aborts on it")
                    else:
                        report(started, "FAIL", f"worker exited with status {rc} while running it")
                    done.add(started)
                share = [it for it in share if it[0] not in done]
                if not share:
                    return
                if (started is None and why != "timeout") or rc == 0:    # it did not get going, or stopped early
                    for s, _, _ in share:
                        report(s, "FAIL", f"worker exited with status {rc} before running it")
                    return
                restarts += 1
                proc, share, gpu = start(share, f"r{restarts}", gpu)
        dog = threading.Thread(target=watchdog, daemon=True)
        dog.start()
        try:
            list(pool.map(drain, procs))
        finally:
            stop.set()


# ---- the parent -------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--seeds", help="comma-separated seeds (instead of --start/--count)")
    ap.add_argument("--family", choices=gen_kernel.FAMILIES, default="default",
                    help="which generator: default (elementwise, reductions, scans) or attn "
                    "(attention-class: tl.dot chains, softmax, masks, online-softmax loops)")
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's)")
    ap.add_argument("--target", choices=["sm_80", "sm_90"],
                    help="tilec --arch for every kernel (sm_90 on an sm_90 GPU: built for sm_90a, wgmma)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4, help="translate/compile processes")
    ap.add_argument("--batch", type=int, default=16, help="kernels per nvcc translation unit")
    ap.add_argument("--workers", type=int, default=None,
                    help="GPU worker processes, spread over the GPUs (default jobs/2, at most 8 per GPU)")
    ap.add_argument("--cpu-only", action="store_true", help="translate and compile only (no GPU)")
    ap.add_argument("--no-triton", action="store_true", help="run tilec's kernels without comparing")
    ap.add_argument("--keep", help="keep the generated files in this folder")
    ap.add_argument("--time-limit", type=float, help="start no kernel later than this many seconds "
                    "(less 30) after the start; the rest count as not run")
    ap.add_argument("--kernel-timeout", type=float, default=180,
                    help="seconds one kernel (its Triton compile included) may take on the GPU "
                    "before its worker is killed and it counts as failed (default 180)")
    ap.add_argument("--summary", help="append the one-line summary to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--referee", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker_main(opts.worker)
    if opts.referee:
        return referee_main(opts.referee)
    global FAMILY, TARGET
    FAMILY = opts.family
    TARGET = opts.target

    seeds = ([int(s) for s in opts.seeds.split(",")] if opts.seeds
             else list(range(opts.start, opts.start + opts.count)))
    tilec = os.path.abspath(opts.tilec)
    if not os.access(tilec, os.X_OK):
        sys.exit(f"tilec not found at {tilec} (build it with make, or give --tilec)")
    arch = "sm_80+sm_90" if opts.cpu_only else (opts.arch or rgt.detect_arch())
    work = os.path.abspath(opts.keep) if opts.keep else tempfile.mkdtemp(prefix="tilec-difftest-")
    os.makedirs(work, exist_ok=True)
    family = f"{opts.family} family, " if opts.family != "default" else ""
    print(f"difftest: {len(seeds)} kernels ({family}seeds {seeds[0]}..{seeds[-1]}), tilec {tilec}, "
          f"nvcc {arch}, {opts.jobs} jobs, files in {work}", flush=True)
    t0 = time.time()
    deadline = t0 + opts.time_limit - 30 if opts.time_limit else None
    counts = {k: 0 for k in ["PASS", "MISMATCH", "TRITON-WRONG", "FAIL", "TRITON-ERROR", "crash", "compile",
                             "nvrtc", "unsupported", "rejected", "NOT-RUN"]}
    progress = {"ran": 0, "of": 0}
    failures = []
    metas = {}
    rejections = {}      # tilec's message without its position -> seeds
    env = []

    not_run = []

    def report(seed, status, text):
        counts[status] = counts.get(status, 0) + 1
        if status == "NOT-RUN":
            not_run.append(seed)
            return
        if progress["of"]:
            progress["ran"] += 1
            if progress["ran"] % 25 == 0:
                print(f"-- ran {progress['ran']} of {progress['of']} in {time.time() - t2:.0f} s", flush=True)
        if status != "PASS":
            line = f"{status:<12} {metas[seed]['kernel'] if seed in metas else f'k{seed}'}: {text}"
            print(line + f"\n             repro: {repro(seed, metas.get(seed))}", flush=True)
            if status in ("MISMATCH", "FAIL", "crash", "compile", "nvrtc"):
                failures.append(seed)

    with concurrent.futures.ProcessPoolExecutor(max_workers=opts.jobs) as pool:
        translated = list(pool.map(translate, [(s, work, tilec, opts.family) for s in seeds], chunksize=4))
    ok = []
    for seed, meta, status, text in translated:
        metas[seed] = meta
        if status == "ok":
            ok.append((seed, text))
        elif status in ("unsupported", "rejected"):
            counts[status] += 1
            print(f"{status:<12} {meta['kernel']}: {text}", flush=True)
            rejections.setdefault(construct(text), []).append(seed)
        else:
            report(seed, status, text)
    t1 = time.time()
    print(f"-- translated {len(seeds)} in {t1 - t0:.1f} s: {len(ok)} ok", flush=True)
    for what, which in sorted(rejections.items(), key=lambda kv: -len(kv[1])):
        print(f"-- rejected {len(which)}x: {what} (seeds {','.join(map(str, which[:10]))}"
              f"{', ...' if len(which) > 10 else ''})", flush=True)

    batches = [ok[i:i + opts.batch] for i in range(0, len(ok), opts.batch)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        built = {}
        for res in pool.map(compile_batch, [(i, b, work, arch, opts.cpu_only) for i, b in enumerate(batches)]):
            built.update(res)
    runnable = []
    for seed, cu in ok:
        lib, err = built[seed]
        if err:
            report(seed, "compile", err)
        else:
            runnable.append((seed, metas[seed], lib))
    t2 = time.time()
    print(f"-- compiled {len(ok)} in {len(batches)} batches in {t2 - t1:.1f} s", flush=True)

    if opts.cpu_only:
        checker = os.path.join(ROOT, "build", "release", "tools", "nvrtc_check")
        if os.access(checker, os.X_OK):
            with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
                errs = list(pool.map(nvrtc_check, [(checker, cu) for _, cu in ok]))
            for (seed, _), err in zip(ok, errs):
                if err:
                    report(seed, "nvrtc", err)
            print(f"-- NVRTC compiled {len(ok)} in {time.time() - t2:.1f} s", flush=True)
        else:
            print(f"-- NVRTC not checked: {checker} is not built (make {checker})")
        counts["PASS"] = len(runnable) - counts["nvrtc"]
    else:
        # about two CPUs per worker (Triton compiles in it), at most 8 per GPU
        nworkers = opts.workers or max(1, min(8 * len(visible_gpus()), opts.jobs // 2))
        progress["of"] = len(runnable)
        run_workers(runnable, work, min(nworkers, max(1, len(runnable))), opts.no_triton, report,
                    deadline, env, opts.kernel_timeout,
                    t0 + opts.time_limit - 5 if opts.time_limit else None, arch)
        print(f"-- ran {len(runnable) - counts['NOT-RUN']} on the GPU in {time.time() - t2:.1f} s", flush=True)

    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"-- {time.time() - t0:.1f} s in all")
    verb = "compiled" if opts.cpu_only else "passed"
    line = (f"{counts['PASS']} {verb}, {counts['MISMATCH']} mismatches, {counts['FAIL']} failed, "
            f"{counts['crash']} tilec crashes, {counts['compile']} nvcc failures, {counts['nvrtc']} NVRTC "
            f"failures, {counts['unsupported']} unsupported, {counts['rejected']} rejected, "
            f"{counts['TRITON-ERROR']} Triton errors, {counts['TRITON-WRONG']} Triton wrong, "
            f"{counts['NOT-RUN']} not run")
    print(line)
    if failures:
        print("failing seeds: " + ",".join(str(s) for s in sorted(failures)))
    if not_run:     # to run them again with --seeds
        print("not run seeds: " + ",".join(str(s) for s in sorted(not_run)))
    seeds_text = f"seeds {seeds[0]}..{seeds[-1]}" if not opts.seeds else f"seeds {opts.seeds}"
    where = "CPU only" if opts.cpu_only else (env[0] if env else arch)
    summary = (f"difftest-summary: {time.strftime('%Y-%m-%d %H:%M', time.gmtime(t0))} UTC, {family}{seeds_text} "
               f"({len(seeds)} kernels), {where}, {time.time() - t0:.0f} s: {line}"
               + (f"; failing seeds {','.join(str(s) for s in sorted(failures))}" if failures else ""))
    print(summary, flush=True)
    if opts.summary:
        with open(opts.summary, "a") as f:
            f.write(summary + "\n")
    return 1 if failures else 2 if counts["NOT-RUN"] else 0


if __name__ == "__main__":
    sys.exit(main())

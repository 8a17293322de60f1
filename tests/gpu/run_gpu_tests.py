#!/usr/bin/env python3
"""GPU tests: every example and golden kernel, translated by tilec, against a float64
reference and against Triton running the same source, on random inputs of several sizes.

    python3 tests/gpu/run_gpu_tests.py [--tilec bin/tilec] [--only SUBSTRING] [--no-triton]
                                       [--arch sm_90] [--keep DIR] [--seed N] [--list]

For each case (tests/gpu/cases.py, plus one per line of tests/golden/*.flags):
  1. tilec translates the kernel to a .cu file (in a temporary folder, or --keep DIR);
  2. nvcc compiles it into a shared library for the GPU present (sm_XY);
  3. for each size: fresh random inputs (never zeros), outputs poisoned (NaN for floats,
     0x7f bytes for integers) with a poisoned guard zone past the end, then tilec's kernel
     through its ctypes launcher and Triton's on the same inputs into a second poisoned
     output; both are compared with a float64 reference computed by torch, and with each
     other.

Results that are exactly rounded (add, mul, casts, where) must be bit-equal to the reference
rounded to the output type, and to Triton.  A multiply followed by an add may be contracted
into an fma (nvcc and Triton both do so by default), so both roundings are accepted as the
reference there, but tilec and Triton must still agree bit for bit.  Transcendental results
(tanh/sigmoid) are compared with the tolerances printed at the start of the run.

The translations and nvcc compilations run first, in parallel, in this process; the kernels
then run in a worker process, restarted after a case that breaks the CUDA context (an illegal
address poisons every later launch), so that one bad case does not hide the others.
One line is printed per (case, size), then `N passed, N failed`; the exit status is non-zero
if anything failed.
"""

import argparse
import ast
import concurrent.futures
import ctypes
import dataclasses
import glob
import importlib.util
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases as case_manifest  # noqa: E402
from cases import Case  # noqa: E402

# Tolerances for transcendental results (the kernels compute in fp32).
FP32_RTOL = 1e-5
FP32_ATOL = 1e-6
HALF_ULPS = 1          # fp16/bf16 outputs: ulps from the reference rounded to the type...
HALF_ATOL = 1e-6       # ...or this absolute difference from the float64 reference
GUARD = 256            # poisoned elements past the end of every 1-D output

TOLERANCE_TEXT = (f"tolerance for transcendental results: fp32 |out - ref| <= {FP32_ATOL:g} + "
                  f"{FP32_RTOL:g} * |ref|; fp16/bf16 within {HALF_ULPS} ulp of the reference rounded "
                  f"to the type, or |out - ref| <= {HALF_ATOL:g}; the same bounds between tilec "
                  f"and Triton. Exactly rounded results: bit-equal.")

CUDA_ERRORS = {1: "cudaErrorInvalidValue", 2: "cudaErrorMemoryAllocation",
               9: "cudaErrorInvalidConfiguration", 98: "cudaErrorInvalidDeviceFunction",
               200: "cudaErrorInvalidKernelImage", 209: "cudaErrorNoKernelImageForDevice",
               400: "cudaErrorInvalidResourceHandle", 500: "cudaErrorNotFound",
               700: "cudaErrorIllegalAddress", 701: "cudaErrorLaunchOutOfResources",
               702: "cudaErrorLaunchTimeout", 716: "cudaErrorMisalignedAddress",
               719: "cudaErrorLaunchFailure"}


# ---------------------------------------------------------------------------------------
# Kernel signatures: the jit function's parameters (from the source, with Python's ast) and
# tilec's -s / -D specialisation.
# ---------------------------------------------------------------------------------------

SCALAR_TYPES = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "fp16", "bf16",
                "fp32", "fp64"}


@dataclasses.dataclass
class Param:
    name: str
    is_constexpr: bool
    default: object = None
    kind: str = None        # "ptr", "scalar" or "const" once the signature is applied
    dtype: str = None       # element type of a pointer, type of a scalar
    value: object = None    # value of a constexpr


def _is_jit(fn):
    return any("jit" in ast.unparse(d) for d in fn.decorator_list)


def jit_functions(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    return {node.name: node for node in tree.body
            if isinstance(node, ast.FunctionDef) and _is_jit(node)}


def pick_kernel(path):
    """The one jit function that no other jit function calls (for flags without -k)."""
    fns = jit_functions(path)
    called = set()
    for fn in fns.values():
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                called.add(node.func.id)
    roots = [name for name in fns if name not in called]
    if len(roots) != 1:
        raise ValueError(f"{path}: cannot tell which kernel to test among {roots}; give -k")
    return roots[0]


def literal_value(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text      # a bare word, as in -D ACTIVATION=silu


def split_signature(sig):
    """Split at top-level commas, keeping quoted strings whole."""
    parts, cur, quote = [], "", None
    for ch in sig:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == ",":
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def apply_entry(param, entry):
    base = entry.split(":")[0].strip() if not entry[:1] in "'\"" else entry
    if base.startswith("*"):
        param.kind, param.dtype = "ptr", base[1:]
    elif base in SCALAR_TYPES and not param.is_constexpr:
        param.kind, param.dtype = "scalar", base
    else:
        param.kind, param.value = "const", literal_value(entry)


def kernel_signature(case):
    """The kernel's parameters with -s and -D applied, in source order."""
    fn = jit_functions(os.path.join(ROOT, case.source)).get(case.kernel)
    if fn is None:
        raise ValueError(f"{case.source}: no @triton.jit function named {case.kernel}")
    args = fn.args.args
    defaults = [None] * (len(args) - len(fn.args.defaults)) + list(fn.args.defaults)
    params = []
    for arg, default in zip(args, defaults):
        is_ce = arg.annotation is not None and "constexpr" in ast.unparse(arg.annotation)
        try:
            value = ast.literal_eval(default) if default is not None else None
        except ValueError:                     # e.g. a dtype such as tl.float32
            value = None
        params.append(Param(arg.arg, is_ce, value))
    by_name = {p.name: p for p in params}
    position = 0
    for entry in split_signature(case.sig):
        m = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.+)$", entry)
        if m and m.group(1) in by_name:                  # named form: x_ptr=*fp32:16
            apply_entry(by_name[m.group(1)], m.group(2).strip())
        else:
            if position >= len(params):
                raise ValueError(f"signature has more entries than {case.kernel} has parameters")
            apply_entry(params[position], entry)
        position += 1
    for name, value in case.defines.items():
        if name not in by_name:
            raise ValueError(f"-D {name}: {case.kernel} has no such parameter")
        by_name[name].kind, by_name[name].value = "const", literal_value(str(value))
    for p in params:
        if p.kind is None:
            if p.is_constexpr and p.default is not None:
                p.kind, p.value = "const", p.default
            else:
                raise ValueError(f"parameter {p.name} has no type in the signature")
    return params


def stored_pointer_params(case):
    """Pointer parameters that reach the first argument of a tl.store / tl.atomic_* call."""
    fn = jit_functions(os.path.join(ROOT, case.source))[case.kernel]
    uses = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
            for target in node.targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        uses.setdefault(t.id, set()).update(names)

    def reach(name, seen):
        if name in seen:
            return set()
        seen.add(name)
        out = {name}
        for n in uses.get(name, ()):
            out |= reach(n, seen)
        return out

    stored = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and node.args:
            callee = ast.unparse(node.func)
            if callee.endswith("store") or "atomic_" in callee:
                for n in ast.walk(node.args[0]):
                    if isinstance(n, ast.Name):
                        stored |= reach(n.id, set())
    return stored


# ---------------------------------------------------------------------------------------
# Cases: the manifest plus tests/golden/*.flags.
# ---------------------------------------------------------------------------------------

def golden_cases():
    out = []
    for flags_path in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.flags"))):
        stem = os.path.splitext(os.path.basename(flags_path))[0]
        with open(flags_path) as f:
            lines = [ln.strip() for ln in f]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
        for i, line in enumerate(lines):
            name = f"golden/{stem}" + (f":{i + 1}" if len(lines) > 1 else "")
            # The generic driver passes n for every integer argument, which only fits
            # 1-D kernels; 2-D-indexed kernels are covered by their own cases.  Autotuned
            # goldens take constexprs from a config that Triton's autotuner would choose
            # for itself, so there is no single Triton run to compare with.
            if "row_chunks_kernel" in line or "autotuned.py" in line:
                print(f"-- skipping golden/{stem} on the GPU (see run_gpu_tests.py: golden_cases)")
                continue
            out.append(parse_golden_line(name, line))
    return out


def parse_golden_line(name, line):
    words = shlex.split(line)
    case = Case(name=name, source=words[0], kernel=None, sig="", driver="generic")
    rest, i, emit = [], 1, "cuda"
    while i < len(words):
        w = words[i]
        value = words[i + 1] if i + 1 < len(words) else ""
        if w == "-k":
            case.kernel, i = value, i + 2
        elif w == "-s":
            case.sig, i = value, i + 2
        elif w == "-D":
            k, _, v = value.partition("=")
            case.defines[k], i = v, i + 2
        elif w == "-w":
            case.num_warps, i = int(value), i + 2
        elif w == "--grid":
            case.grid, i = value, i + 2
        elif w == "-o":
            i += 2
        elif w == "--emit":
            emit, i = value, i + 2
        elif w.startswith("--emit="):
            emit, i = w.split("=", 1)[1], i + 1
        elif w.startswith("--grid="):
            case.grid, i = w.split("=", 1)[1], i + 1
        else:
            rest.append(w)
            i += 1
    case.extra_flags = rest
    if emit != "cuda":
        case.driver = "skip:--emit " + emit
    elif case.kernel is None:
        try:
            case.kernel = pick_kernel(os.path.join(ROOT, case.source))
        except (OSError, SyntaxError, ValueError) as e:
            case.driver = "error:" + str(e)
    if case.kernel is not None and case.driver == "generic":
        try:
            if any(p.kind == "scalar" and p.dtype.startswith(("i", "u")) and ":16" in e
                   for p, e in zip(kernel_signature(case), split_signature(case.sig))):
                case.sizes = list(case_manifest.SIZES_DIV16)
        except (OSError, SyntaxError, ValueError):
            pass          # reported when the case runs
    return case


def all_cases():
    return case_manifest.example_cases() + golden_cases()


# ---------------------------------------------------------------------------------------
# Parent: translate and compile every case in parallel, then run the worker(s).
# ---------------------------------------------------------------------------------------

def detect_arch():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60).stdout.split()
        if out:
            major, minor = out[0].split(".")
            return f"sm_{major}{minor}"
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    code = "import torch; print('sm_%d%d' % torch.cuda.get_device_capability())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("cannot find the GPU's architecture (nvidia-smi and torch failed); use --arch")
    return out.stdout.strip()


def build_case(case, tilec, arch, folder):
    """Returns (path of the .so, None) or (None, error text)."""
    os.makedirs(folder, exist_ok=True)
    cu, so = os.path.join(folder, "kernel.cu"), os.path.join(folder, "kernel.so")
    cmd = [tilec] + case.tilec_args() + ["-o", cu]
    with open(os.path.join(folder, "command.txt"), "w") as f:
        f.write(shlex.join(cmd) + "\n")
    try:
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"tilec: {e}"
    if r.returncode != 0 or not os.path.exists(cu):
        return None, f"tilec exit {r.returncode}: {shlex.join(cmd)}\n{r.stderr.strip()}"
    nvcc = os.environ.get("NVCC", "nvcc")
    cmd = [nvcc, "-O3", "-shared", "-Xcompiler", "-fPIC", f"-arch={arch}", "-o", so, cu]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"nvcc: {e}"
    if r.returncode != 0:
        return None, f"nvcc exit {r.returncode}: {shlex.join(cmd)}\n{(r.stdout + r.stderr).strip()}"
    return so, None


def indent(text):
    return "\n".join("      | " + ln for ln in text.splitlines()[:40])


def parent_main(opts):
    cases = [c for c in all_cases() if opts.only is None or opts.only in c.name]
    if opts.list:
        for c in cases:
            print(f"{c.name:<44} tilec {shlex.join(c.tilec_args())}")
        return 0
    if not cases:
        print(f"no case matches --only {opts.only!r}")
        print("0 passed, 0 failed")
        return 1
    tilec = os.path.abspath(opts.tilec)
    if not os.access(tilec, os.X_OK):
        sys.exit(f"tilec not found at {tilec} (build it with make, or give --tilec)")
    arch = opts.arch or detect_arch()
    print(f"tilec {tilec}; nvcc -arch={arch}; {len(cases)} cases; seed {opts.seed}")
    print(TOLERANCE_TEXT)
    sys.stdout.flush()

    work = opts.keep or tempfile.mkdtemp(prefix="tilec-gpu-")
    passed = failed = skipped = 0
    plan = []
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(16, os.cpu_count() or 4)) as pool:
        futures = []
        for i, case in enumerate(cases):
            if case.driver.startswith(("skip:", "error:")):
                futures.append(None)
                continue
            folder = os.path.join(work, f"{i:03d}-" + re.sub(r"[^\w.-]+", "_", case.name))
            futures.append(pool.submit(build_case, case, tilec, arch, folder))
        for case, fut in zip(cases, futures):
            if case.driver.startswith("skip:"):
                print(f"SKIP  {case.name}  ({case.driver[5:]})")
                skipped += 1
                continue
            if case.driver.startswith("error:"):
                print(f"FAIL  {case.name}  {case.driver[6:]}")
                failed += 1
                continue
            so, err = fut.result()
            if err:
                print(f"FAIL  {case.name}  translate/compile\n{indent(err)}")
                failed += 1
            else:
                plan.append((case, so))
    print(f"-- translated and compiled in {time.time() - t0:.1f} s; running {len(plan)} cases")
    sys.stdout.flush()

    while plan:
        plan_path = os.path.join(work, "plan.json")
        with open(plan_path, "w") as f:
            json.dump({"cases": [dict(dataclasses.asdict(c), so=so) for c, so in plan],
                       "no_triton": opts.no_triton, "seed": opts.seed}, f)
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", plan_path],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                cwd=ROOT)
        started, done, case_failed = None, set(), False
        for line in proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("@@case "):
                started, case_failed = line[7:], False
            elif line.startswith("@@done "):
                done.add(line[7:])
            else:
                print(line)
                sys.stdout.flush()
                if line.startswith("PASS "):
                    passed += 1
                elif line.startswith("FAIL "):
                    failed += 1
                    case_failed = True
                elif line.startswith("SKIP "):
                    skipped += 1
        rc = proc.wait()
        if started is not None and started not in done:
            if not case_failed:
                print(f"FAIL  {started}  worker exited with status {rc} during this case")
                failed += 1
            done.add(started)
        if rc != 0 and started is None:
            print(f"FAIL  worker exited with status {rc} before running any case")
            for c, _ in plan:
                print(f"FAIL  {c.name}  not run")
            failed += 1 + len(plan)
            break
        if rc != 0:
            print(f"-- restarting the worker after {started} (exit status {rc})")
        plan = [(c, so) for c, so in plan if c.name not in done]
        if rc == 0 and plan:          # the worker stopped early without saying why
            for c, _ in plan:
                print(f"FAIL  {c.name}  not run")
                failed += 1
            break

    if not opts.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"-- generated files kept in {work}")
    print(f"-- {time.time() - t0:.1f} s in all" + (f"; {skipped} skipped" if skipped else ""))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


# ---------------------------------------------------------------------------------------
# Worker: load the libraries, make inputs, run tilec and Triton, compare.
# ---------------------------------------------------------------------------------------

class ContextLost(Exception):
    """A CUDA error that leaves the context unusable (illegal address and the like)."""


def load_torch():
    """Imports torch for the helpers below (the parent process never needs it)."""
    global torch
    import torch
    return torch


def worker_main(plan_path):
    load_torch()
    with open(plan_path) as f:
        plan = json.load(f)
    use_triton = not plan["no_triton"]
    if use_triton:
        try:
            import triton                         # noqa: F401
        except Exception as e:                    # ImportError, or a broken install
            print(f"-- Triton cannot be imported ({type(e).__name__}: {e}); "
                  "comparing with the float64 reference only")
            use_triton = False
    if not torch.cuda.is_available():
        print("FAIL  no CUDA device visible to torch")
        return 1
    for d in plan["cases"]:
        so = d.pop("so")
        d["sizes"] = [tuple(s) if isinstance(s, list) else s for s in d["sizes"]]
        case = Case(**d)
        print(f"@@case {case.name}", flush=True)
        try:
            run_case(case, so, use_triton, plan["seed"])
        except ContextLost as e:
            print(f"FAIL  {case.name}  CUDA context lost: {e}", flush=True)
            return 3
        print(f"@@done {case.name}", flush=True)
    return 0


def synchronize():
    try:
        torch.cuda.synchronize()
    except Exception as e:                        # torch raises RuntimeError (AcceleratorError)
        raise ContextLost(str(e).splitlines()[0]) from None


CTYPE_OF = {"i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
            "i64": ctypes.c_int64, "u8": ctypes.c_uint8, "u16": ctypes.c_uint16,
            "u32": ctypes.c_uint32, "u64": ctypes.c_uint64, "fp32": ctypes.c_float,
            "fp64": ctypes.c_double}


def torch_dtype(name):
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
            "fp64": torch.float64, "i1": torch.bool, "i8": torch.int8, "i16": torch.int16,
            "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8}[name]


class Kernel:
    """One case's kernel, launched through tilec's ctypes launcher or through Triton."""

    def __init__(self, case, so, use_triton):
        self.case = case
        self.params = kernel_signature(case)
        self.runtime = [p for p in self.params if p.kind != "const"]
        self.constexprs = {p.name: p.value for p in self.params if p.kind == "const"}
        lib = ctypes.CDLL(so)
        self.launch_fn = getattr(lib, f"{case.kernel}_launch")
        argtypes = [ctypes.c_void_p]
        if case.grid is None:
            argtypes += [ctypes.c_uint] * 3
        for p in self.runtime:
            if p.kind == "ptr":
                argtypes.append(ctypes.c_void_p)
            elif p.dtype in CTYPE_OF:
                argtypes.append(CTYPE_OF[p.dtype])
            else:
                raise ValueError(f"no ctypes type for scalar {p.name}: {p.dtype}")
        self.launch_fn.argtypes = argtypes
        self.launch_fn.restype = ctypes.c_int
        self._lib = lib
        self.triton_fn = load_triton_kernel(case) if use_triton else None

    def launch_tilec(self, values, grid):
        args = [ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
        if self.case.grid is None:
            args += list(grid) + [1] * (3 - len(grid))
        for p in self.runtime:
            v = values[p.name]
            args.append(ctypes.c_void_p(v.data_ptr()) if p.kind == "ptr" else v)
        err = self.launch_fn(*args)
        if err != 0:
            return f"{self.case.kernel}_launch returned {err} ({CUDA_ERRORS.get(err, 'cudaError')})"
        synchronize()
        return None

    def launch_triton(self, values, grid):
        args = [values[p.name] for p in self.runtime]
        try:
            self.triton_fn[tuple(grid)](*args, **self.constexprs, num_warps=self.case.num_warps)
        except Exception as e:
            if "illegal" in str(e) or "CUDA error" in str(e):
                raise ContextLost(str(e).splitlines()[0]) from None
            return f"Triton raised {type(e).__name__}: {str(e).strip().splitlines()[-1]}"
        synchronize()
        return None


_modules = {}


def load_triton_kernel(case):
    path = os.path.join(ROOT, case.source)
    if path not in _modules:
        name = "tilec_gpu_src_" + re.sub(r"\W", "_", case.source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[path] = module
    from triton.runtime.jit import JITFunction
    fn = getattr(_modules[path], case.kernel)
    while not isinstance(fn, JITFunction):        # unwrap @triton.autotune / @triton.heuristics
        fn = fn.fn
    return fn


def grid_from_expression(expr, values):
    env = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
    env.update(values)
    g = eval(expr, {"__builtins__": {}}, env)
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


# ---- inputs, poison, comparisons ------------------------------------------------------

def poison_(t):
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.view(torch.uint8).fill_(0x7F)
    return t


def poisoned_like(t):
    return poison_(torch.empty_like(t))


def bits(t):
    width = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return t.contiguous().view(width)


def ulp_distance(a, b):
    """Distance in representable values between two tensors of one float type."""
    def ordered(t):
        b64 = bits(t).to(torch.int64)
        mag = b64 & ((1 << (8 * t.element_size() - 1)) - 1)
        return torch.where(b64 < 0, -mag, mag)
    return (ordered(a) - ordered(b)).abs()


def fma_to_fp32(a, b, c):
    """fl32(a * b + c) rounded once, for fp32 tensors (what a fused multiply-add gives)."""
    p = a.double() * b.double()          # exact: 24 + 24 bits
    c64 = c.double()
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)      # TwoSum: s + e == p + c exactly
    t = s.float()
    d = s - t.double()
    toward = torch.where(d > 0, torch.full_like(t, float("inf")), torch.full_like(t, float("-inf")))
    nb = torch.nextafter(t, toward)
    half = (nb.double() - t.double()) / 2
    # s exactly halfway between two floats: the tail e decides the direction.
    go = (d != 0) & (d == half) & (e != 0) & ((e > 0) == (d > 0))
    return torch.where(go, nb, t)


def where_bad_exact(out, candidates):
    ok = torch.zeros(out.shape, dtype=torch.bool, device=out.device)
    for ref in candidates:
        ok |= bits(out) == bits(ref.to(out.dtype))
    return ~ok


def where_bad_approx(out, ref64):
    if out.dtype == torch.float32:
        d = (out.double() - ref64).abs()
        return ~(d <= FP32_ATOL + FP32_RTOL * ref64.abs())
    near = ulp_distance(out, ref64.to(out.dtype)) <= HALF_ULPS
    near |= (out.double() - ref64).abs() <= HALF_ATOL
    return ~near | torch.isnan(out)


def where_bad_between(a, b, exact):
    if exact or not a.dtype.is_floating_point:
        return bits(a) != bits(b)
    same = bits(a) == bits(b)                       # also NaN in the same places
    if a.dtype == torch.float32:
        d = (a.double() - b.double()).abs()
        return ~(same | (d <= FP32_ATOL + FP32_RTOL * b.double().abs()))
    near = (ulp_distance(a, b) <= HALF_ULPS) | ((a.double() - b.double()).abs() <= HALF_ATOL)
    return ~(same | (near & ~torch.isnan(a) & ~torch.isnan(b)))


def describe_bad(bad, out, expect, inputs=None):
    bad = bad.reshape(-1)
    n_bad = int(bad.sum().item())
    if n_bad == 0:
        return None
    i = int(bad.nonzero()[0].item())
    got = out.reshape(-1)[i].item()
    want = expect.reshape(-1)[i].item() if expect is not None else "?"
    text = f"{n_bad} of {bad.numel()} wrong, first [{i}]: got {got!r} want {want!r}"
    if inputs:
        text += " (" + ", ".join(f"{k}={v.reshape(-1)[i].item()!r}" for k, v in inputs.items()) + ")"
    if out.dtype.is_floating_point:
        unwritten = int(torch.isnan(out).sum().item())
        if unwritten and expect is not None and not torch.isnan(expect).any():
            text += f"; {unwritten} still NaN (unwritten?)"
    return text


def guard_intact(buf, n):
    """The poisoned zone past the first n elements is unchanged."""
    g = buf[n:]
    if g.numel() == 0:
        return True
    return bool((bits(g) == bits(poison_(torch.empty_like(g)))).all().item())


class Check:
    """Collects the verdicts of one (case, size) and prints its line."""

    def __init__(self, case, label):
        self.case, self.label, self.problems, self.notes = case, label, [], []

    def fail(self, text):
        self.problems.append(text)

    def note(self, text):
        self.notes.append(text)

    def print(self):
        ok = not self.problems
        head = f"{'PASS' if ok else 'FAIL'}  {self.case.name:<44} {self.label:>18}"
        body = "; ".join(self.problems if not ok else self.notes)
        print(f"{head}  {body}", flush=True)
        return ok


def compare_output(check, tag, out, mode, expect, inputs):
    """mode: ("exact", [candidates]) or ("approx", ref64)."""
    if mode == "exact":
        bad = where_bad_exact(out, expect)
        shown = expect[0]
    else:
        bad = where_bad_approx(out, expect)
        shown = expect
    msg = describe_bad(bad, out, shown, inputs)
    if msg:
        check.fail(f"{tag} vs reference: {msg}")


def run_impls(kernel, check, values, out_names, grid, use_triton):
    """Runs tilec (and Triton) with fresh poisoned copies of the outputs named out_names.
    Returns {"tilec": {name: tensor}, "triton": {...}}; failures are recorded in check."""
    results = {}
    impls = ["tilec"] + (["triton"] if use_triton and kernel.triton_fn is not None else [])
    for impl in impls:
        outs = {name: poisoned_like(values[name]) for name in out_names}
        args = dict(values, **outs)
        err = (kernel.launch_tilec if impl == "tilec" else kernel.launch_triton)(args, grid)
        if err:
            check.fail(f"{impl}: {err}")
            continue
        results[impl] = outs
    return results


# ---- drivers: one per example kernel, and the generic one for golden cases -------------

def rand_float(n, dtype, gen, scale=1.0, spread=0):
    x = torch.randn(n, generator=gen, device="cuda", dtype=torch.float32) * scale
    if spread:
        e = torch.randint(-spread, spread + 1, (n,), generator=gen, device="cuda")
        x = x * torch.exp2(e.float())
    return x.to(dtype)


def check_1d(kernel, case, n, use_triton, make, gen):
    """Shared flow of the 1-D drivers. make(n) -> (values, out_name, grid, mode, expect, shown)."""
    check = Check(case, f"n={n}")
    values, out_name, grid, mode, expect, shown = make(n)
    results = run_impls(kernel, check, values, [out_name], grid, use_triton)
    outs = {}
    for impl, res in results.items():
        buf = res[out_name]
        if not guard_intact(buf, n):
            check.fail(f"{impl} wrote past element {n}")
        outs[impl] = buf[:n]
        compare_output(check, impl, outs[impl], mode, expect, shown)
    if "tilec" in outs and "triton" in outs:
        bad = where_bad_between(outs["tilec"], outs["triton"], mode == "exact")
        msg = describe_bad(bad, outs["tilec"], outs["triton"], shown)
        if msg:
            check.fail(f"tilec vs Triton: {msg}")
        else:
            same = (bits(outs["tilec"]) == bits(outs["triton"])).float().mean().item()
            check.note(f"matches reference and Triton ({100 * same:.2f}% bit-identical)")
    elif "tilec" in outs:
        check.note("matches reference" + ("" if use_triton else " (no Triton)"))
    return check.print()


def drive_vector_add(kernel, case, n, use_triton, gen):
    dt = torch_dtype(case.dtype)
    block = kernel.constexprs["BLOCK_SIZE"]

    def make(n):
        x = rand_float(n + GUARD, dt, gen, spread=6)
        y = rand_float(n + GUARD, dt, gen, spread=6)
        values = {"x_ptr": x, "y_ptr": y, "output_ptr": torch.empty_like(x), "n_elements": n}
        ref = (x[:n].double() + y[:n].double()).to(dt)
        return (values, "output_ptr", (-(-n // block),), "exact", [ref],
                {"x": x[:n], "y": y[:n]})
    return check_1d(kernel, case, n, use_triton, make, gen)


def activation_reference(x64, kind, alpha32):
    if kind == "gelu_tanh":
        return 0.5 * x64 * (1 + torch.tanh(0.7978845608028654 * (x64 + 0.044715 * x64 ** 3)))
    if kind == "silu":
        return x64 / (1 + torch.exp(-x64))
    raise ValueError(kind)


def drive_activation(kernel, case, n, use_triton, gen):
    dt = torch_dtype(case.dtype)
    block, kind = kernel.constexprs["BLOCK_SIZE"], kernel.constexprs["ACTIVATION"]
    alpha = float(torch.tensor(case_manifest.ALPHA, dtype=torch.float32).item())

    def make(n):
        x = rand_float(n + GUARD, dt, gen, scale=3.0)
        values = {"x_ptr": x, "y_ptr": torch.empty_like(x), "n_elements": n, "alpha": alpha}
        xs = x[:n]
        if kind == "leaky_relu":      # one fp32 multiply and a select: exactly rounded
            xf = xs.float()
            a32 = torch.tensor(alpha, dtype=torch.float32, device="cuda")
            mode, expect = "exact", [torch.where(xf >= 0, xf, xf * a32)]
        else:
            mode, expect = "approx", activation_reference(xs.double(), kind, alpha)
        return values, "y_ptr", (-(-n // block),), mode, expect, {"x": xs}
    return check_1d(kernel, case, n, use_triton, make, gen)


def drive_scaled_add(kernel, case, n, use_triton, gen):
    dt = torch_dtype(case.dtype)
    block = kernel.constexprs["BLOCK_SIZE"]
    scale = float(torch.tensor(case_manifest.SCALE, dtype=torch.float32).item())
    programs = min(-(-n // block), 37)    # few programs: most loop several times, unevenly

    def make(n):
        x = rand_float(n + GUARD, dt, gen)
        y = rand_float(n + GUARD, dt, gen)
        values = {"x_ptr": x, "y_ptr": y, "out_ptr": torch.empty_like(x), "n_elements": n,
                  "scale": scale}
        xf, yf = x[:n].float(), y[:n].float()
        s32 = torch.full_like(xf, scale)
        expect = [fma_to_fp32(s32, yf, xf), xf + yf * s32]      # fused, or mul then add
        return values, "out_ptr", (programs,), "exact", expect, {"x": x[:n], "y": y[:n]}
    return check_1d(kernel, case, n, use_triton, make, gen)


def drive_row_chunks(kernel, case, shape, use_triton, gen):
    rows, cols, stride = shape
    dt = torch_dtype(case.dtype)
    scale = float(torch.tensor(case_manifest.SCALE, dtype=torch.float32).item())
    check = Check(case, f"{rows}x{cols} stride {stride}")
    x = rand_float(rows * stride, dt, gen).view(rows, stride)
    values = {"x_ptr": x, "y_ptr": torch.empty_like(x), "n_rows": rows, "n_cols": cols,
              "stride": stride, "scale": scale}
    xf = x[:, :cols].float()
    s32 = torch.full_like(xf, scale)
    row = torch.arange(rows, device="cuda", dtype=torch.float32)[:, None].expand(rows, cols)
    expect = [fma_to_fp32(xf, s32, row), xf * s32 + row]
    results = run_impls(kernel, check, values, ["y_ptr"], (rows,), use_triton)
    outs = {}
    for impl, res in results.items():
        y = res["y_ptr"]
        if not guard_intact(y[:, cols:].reshape(-1), 0):
            check.fail(f"{impl} wrote into the gap between rows (columns {cols}..{stride - 1})")
        outs[impl] = y[:, :cols].contiguous()
        compare_output(check, impl, outs[impl], "exact", expect, {"x": xf})
    if "tilec" in outs and "triton" in outs:
        msg = describe_bad(bits(outs["tilec"]) != bits(outs["triton"]), outs["tilec"], outs["triton"])
        if msg:
            check.fail(f"tilec vs Triton: {msg}")
        else:
            check.note("matches reference and Triton (bit-identical)")
    elif "tilec" in outs:
        check.note("matches reference" + ("" if use_triton else " (no Triton)"))
    return check.print()


def drive_generic(kernel, case, n, use_triton, gen):
    """Golden cases: no reference is known, so every int scalar is n, every float scalar
    0.75, every pointer a buffer of 2n + GUARD random elements (outputs: those that reach a
    tl.store, poisoned), the grid from --grid or cdiv(n, BLOCK*); tilec must match Triton."""
    check = Check(case, f"n={n}")
    outputs = stored_pointer_params(case) & {p.name for p in kernel.runtime if p.kind == "ptr"}
    values = dict(kernel.constexprs)
    for p in kernel.runtime:
        if p.kind == "scalar":
            values[p.name] = (True if p.dtype == "i1" else 0.75 if p.dtype.startswith(("fp", "bf"))
                              else n)
    for p in kernel.runtime:
        if p.kind == "ptr":
            dt = torch_dtype(p.dtype)
            size = 2 * n + GUARD
            if dt.is_floating_point:
                values[p.name] = rand_float(size, dt, gen)
            elif dt == torch.bool:
                values[p.name] = torch.randint(0, 2, (size,), generator=gen, device="cuda").bool()
            else:
                values[p.name] = torch.randint(-100 if dt != torch.uint8 else 0, 100, (size,),
                                               generator=gen, device="cuda", dtype=dt)
    if case.grid is not None:
        grid = grid_from_expression(case.grid, values)
    else:
        blocks = [v for k, v in kernel.constexprs.items() if "BLOCK" in k.upper() and isinstance(v, int)]
        if not blocks:
            check.fail("no --grid and no BLOCK* constexpr: cannot choose a grid")
            return check.print()
        grid = (-(-n // blocks[0]),)
    if not use_triton or kernel.triton_fn is None:
        results = run_impls(kernel, check, values, sorted(outputs), grid, False)
        if check.problems:
            return check.print()
        print(f"SKIP  {case.name:<44} {check.label:>18}  ran; no reference without Triton", flush=True)
        return None
    results = run_impls(kernel, check, values, sorted(outputs), grid, True)
    if "tilec" in results and "triton" in results:
        for name in sorted(outputs):
            a, b = results["tilec"][name], results["triton"][name]
            msg = describe_bad(where_bad_between(a, b, False), a, b)
            if msg:
                check.fail(f"{name}: tilec vs Triton: {msg}")
        if not check.problems:
            same = all(bool((bits(results["tilec"][k]) == bits(results["triton"][k])).all())
                       for k in outputs)
            check.note(f"outputs {sorted(outputs)} {'bit-identical to' if same else 'within tolerance of'} Triton")
    return check.print()


DRIVERS = {"vector_add": drive_vector_add, "activation": drive_activation,
           "scaled_add": drive_scaled_add, "row_chunks": drive_row_chunks,
           "generic": drive_generic}


def run_case(case, so, use_triton, seed):
    try:
        kernel = Kernel(case, so, use_triton)
    except ContextLost:
        raise
    except Exception as e:
        print(f"FAIL  {case.name}  setup: {type(e).__name__}: {e}", flush=True)
        return
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed ^ zlib.crc32(case.name.encode()))
    for size in case.sizes:
        try:
            DRIVERS[case.driver](kernel, case, size, use_triton, gen)
        except ContextLost:
            raise
        except Exception as e:
            synchronize()
            print(f"FAIL  {case.name:<44} {str(size):>18}  harness error: {type(e).__name__}: {e}",
                  flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--no-triton", action="store_true", help="compare with the reference only")
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's, e.g. sm_90)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--list", action="store_true", help="list the cases and their tilec flags")
    ap.add_argument("--worker", metavar="PLAN", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker_main(opts.worker)
    if opts.seed is None:
        opts.seed = random.SystemRandom().randrange(1 << 31)
    if opts.keep:
        opts.keep = os.path.abspath(opts.keep)
    return parent_main(opts)


if __name__ == "__main__":
    sys.exit(main())

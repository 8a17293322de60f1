#!/usr/bin/env python3
"""GPU tests: every example and golden kernel, translated by tilec, against a float64
reference and against Triton running the same source, on random inputs of several sizes.

    python3 tests/gpu/run_gpu_tests.py [--tilec bin/tilec] [--only SUBSTRING] [--no-triton]
                                       [--arch sm_90] [--keep DIR] [--seed N] [--list]
                                       [--triton-only] [--dot] [--via nvcc|lib] [--lib PATH]
                                       [--build-only]

For each case (tests/gpu/cases.py, plus one per line of tests/golden/*.flags):
  1. tilec translates the kernel to a .cu file (in a temporary folder, or --keep DIR);
  2. nvcc compiles it into a shared library for the GPU present (sm_XY);
  3. for each size: fresh random inputs (never zeros), outputs poisoned (NaN for floats,
     0x7f bytes for integers) with a poisoned guard zone past the end, then tilec's kernel
     through its ctypes launcher and Triton's on the same inputs into a second poisoned
     output; both are compared with a float64 reference computed by torch, and with each
     other.

--via lib runs tilec's kernels through the library instead (build/release/libtilec.so, or
--lib PATH, loaded with ctypes: tests/gpu/tilec_ctypes.py), with the same cases, inputs and
checks: steps 1 and 2 become tilec_translate_source and tilec_compile (NVRTC, a cubin for the
GPU, into an on-disk cache in the work folder), the launch arguments are checked against the
library's parameters by a tilec_launch on an empty grid, and the worker makes each kernel with
tilec_kernel_create (translate + cached compile + load into torch's CUDA context) and launches
it with tilec_launch on torch's stream, the grid from the --grid expression where there is
one.  Neither bin/tilec nor nvcc is used.

--build-only stops after steps 1 and 2 (no GPU, no torch; --arch is then needed): with
--via lib it checks the ctypes binding and every case's translation, NVRTC compilation and
launch arguments on a machine without a GPU (make lib-test does so).

Results that are exactly rounded (add, mul, casts, where) must be bit-equal to the reference
rounded to the output type, and to Triton.  A multiply followed by an add may be contracted
into an fma (nvcc and Triton both do so by default), so both roundings are accepted as the
reference there, but tilec and Triton must still agree bit for bit.  Transcendental results
(tanh/sigmoid) are compared with the tolerances printed at the start of the run.

The translations and nvcc compilations run first, in parallel, in this process; the kernels
then run in a worker process, restarted after a case that breaks the CUDA context (an illegal
address poisons every later launch), so that one bad case does not hide the others.
One line is printed per (case, size), then `N passed, N failed, N skipped`; the exit status
is non-zero if anything failed.

A case whose kernel tilec rejects as input it cannot handle (exit status 1, e.g. "2-D tiles are
not supported yet") is not a failure: it prints one `SKIP  NAME  tilec cannot translate: ...`
line and counts as skipped.  Its Triton run is still compared with the reference at every
size (when Triton is there), and a mismatch there is a FAIL, since it means the test is wrong.
--triton-only does that for every case without running tilec at all: it checks the tests
(inputs, references, tolerances) against the Triton that is installed.  The tl.dot cases
(examples/matmul.py, names starting "matmul/") follow the same rule until --dot is given: with
it, tilec rejecting one of them is a FAIL.  Their tolerances are printed with the others.
"""

import argparse
import ast
import concurrent.futures
import ctypes
import dataclasses
import glob
import importlib.util
import json
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
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
RED_RTOL = 3e-5        # reductions and scans: bound factor on the sum of the magnitudes (below)

TOLERANCE_TEXT = (f"tolerance for transcendental results: fp32 |out - ref| <= {FP32_ATOL:g} + "
                  f"{FP32_RTOL:g} * |ref|; fp16/bf16 within {HALF_ULPS} ulp of the reference rounded "
                  f"to the type, or |out - ref| <= {HALF_ATOL:g}; the same bounds between tilec "
                  f"and Triton. Exactly rounded results: bit-equal. Reductions and scans: "
                  f"|out - ref| <= {RED_RTOL:g} * (the magnitudes that went into the result), "
                  f"fp16/bf16 outputs also within {HALF_ULPS} ulp; max/min and their indices, integer "
                  f"scans and random streams: bit-equal to the reference and to Triton.")

# tl.dot on random data: ||out - ref|| / ||ref|| over the whole output (normwise relative
# error, so that entries near zero through cancellation do not need a floor of their own), for
# tilec against the float64 reference and against Triton.  By the precision of the products:
MATMUL_TOL = {"fp16": 1e-2, "bf16": 1e-2, "fp8": 1e-2, "tf32": 1e-3, "tf32x3": 1e-5, "ieee": 1e-5}
TOLERANCE_TEXT += (" tl.dot on random data: ||out - ref|| / ||ref|| <= " +
                   ", ".join(f"{v:g} {k}" for k, v in MATMUL_TOL.items()) +
                   "; on small-integer data and int8: bit-equal to the reference and to Triton.")

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
    kind: str = None        # "ptr", "scalar", "desc" or "const" once the signature is applied
    dtype: str = None       # element type of a pointer or descriptor, type of a scalar
    value: object = None    # value of a constexpr
    block: list = None      # a descriptor's block shape (tensordesc<fp16[64, 64]>)
    div16: bool = False     # a scalar declared divisible by 16 (i32:16)


def runtime_args(p):
    """tilec's runtime arguments for parameter p: [(name, "*fp32" | "i32" ...)].  A tensor
    descriptor is its base, its shape (int32) and its strides but the last (int64), as
    docs/CLI.md says."""
    if p.kind != "desc":
        return [(p.name, ("*" if p.kind == "ptr" else "") + p.dtype)]
    r = len(p.block)
    return ([(f"{p.name}_base", "*" + p.dtype)] + [(f"{p.name}_shape{k}", "i32") for k in range(r)] +
            [(f"{p.name}_stride{k}", "i64") for k in range(r - 1)])


def runtime_values(p, v):
    """The values of runtime_args(p) for the argument v (a TensorDescriptor for a descriptor)."""
    if p.kind != "desc":
        return [v]
    return [v.base] + [int(x) for x in v.shape] + [int(x) for x in v.strides[:-1]]


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
    if text == "None":
        return None
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
    parts, cur, quote, depth = [], "", None, 0
    for ch in sig:
        if ch in "[]" and not quote:       # tensordesc<fp16[64, 64]>
            depth += 1 if ch == "[" else -1
        if quote:
            cur += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            cur += ch
        elif ch == "," and not depth:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def apply_entry(param, entry):
    base = entry.split(":")[0].strip() if not entry[:1] in "'\"" else entry
    m = re.match(r"^tensordesc<(\w+)\[([\d, ]+)\]>$", base)
    if m:
        param.kind, param.dtype = "desc", m.group(1)
        param.block = [int(b) for b in m.group(2).split(",")]
    elif base.startswith("*"):
        param.kind, param.dtype = "ptr", base[1:]
    elif base in SCALAR_TYPES and not param.is_constexpr:
        param.kind, param.dtype = "scalar", base
        param.div16 = entry.strip().endswith(":16")
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
    none_default = set()  # runtime parameters that default to None: tilec specialises them as None
    for arg, default in zip(args, defaults):
        if isinstance(default, ast.Constant) and default.value is None:
            none_default.add(arg.arg)
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
    if case.config is not None:
        for name, value in autotune_config(case)[0].items():
            if name in by_name and by_name[name].kind is None:
                by_name[name].kind, by_name[name].value = "const", value
    for p in params:
        if p.kind is None:
            if p.is_constexpr and p.default is not None:
                p.kind, p.value = "const", p.default
            elif p.name in none_default:
                p.kind, p.value = "const", None
            else:
                raise ValueError(f"parameter {p.name} has no type in the signature")
    return params


def autotune_config(case):
    """({constexpr: value}, num_warps, num_stages) of config number case.config in the
    kernel's @triton.autotune(configs=[triton.Config({...}, num_warps=.., num_stages=..)])."""
    fn = jit_functions(os.path.join(ROOT, case.source))[case.kernel]
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and ast.unparse(dec.func).endswith("autotune"):
            configs = next((kw.value for kw in dec.keywords if kw.arg == "configs"),
                           dec.args[0] if dec.args else None)
            if not isinstance(configs, ast.List) or case.config >= len(configs.elts):
                raise ValueError(f"{case.kernel}: no autotune config {case.config}")
            cfg = configs.elts[case.config]
            values = ast.literal_eval(cfg.args[0]) if cfg.args else {}
            kws = {kw.arg: ast.literal_eval(kw.value) for kw in cfg.keywords}
            values.update(kws.get("kwargs", {}))
            return values, kws.get("num_warps", 4), kws.get("num_stages", 3)
    raise ValueError(f"{case.kernel} has no @triton.autotune, but the case names config {case.config}")


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
                # tl.store(ptrs, ...), and desc.store(offsets, ...) whose receiver is the target
                target = node.func.value if isinstance(node.func, ast.Attribute) and \
                    not ast.unparse(node.func.value) in ("tl", "triton.language") else node.args[0]
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        stored |= reach(n.id, set())
    return stored


# ---------------------------------------------------------------------------------------
# Cases: the manifest plus tests/golden/*.flags.
# ---------------------------------------------------------------------------------------

def golden_cases():
    out = []
    two_d = {(c.source, c.kernel) for c in case_manifest.example_cases()
             if c.driver not in case_manifest.ONE_D_DRIVERS}
    for flags_path in sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.flags"))):
        stem = os.path.splitext(os.path.basename(flags_path))[0]
        with open(flags_path) as f:
            lines = [ln.strip() for ln in f]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
        for i, line in enumerate(lines):
            name = f"golden/{stem}" + (f":{i + 1}" if len(lines) > 1 else "")
            # Autotuned goldens take constexprs from a config that Triton's autotuner would
            # choose for itself, so there is no single Triton run to compare with.
            if "autotuned.py" in line:
                print(f"-- skipping {name} on the GPU (autotuned: no single Triton config)")
                continue
            # Decorator goldens take constexprs from host Python that tilec evaluates
            # (configs from helpers, jit wrappers), which this runner's signature model
            # does not read.
            decorator_goldens = ("autotune_global_configs.py", "autotune_helper_configs.py",
                                 "decorators_host_python.py", "decorators_unevaluated.py",
                                 "jit_wrapped.py")
            if any(g in line for g in decorator_goldens):
                print(f"-- skipping {name} on the GPU (decorator values from host Python)")
                continue
            # debug_ops moves its pointers by a row stride, which the generic driver (n for
            # every integer) cannot size, and prints every element; make test compiles it.
            if "debug_ops.py" in line:
                print(f"-- skipping {name} on the GPU (row-strided pointers and device_print)")
                continue
            # debug_strings prints messages with control characters, which Triton refuses
            # (its device_print wants ASCII); make test compiles the escaped C strings.
            # annotated constexpr globals: Triton 3.6 refuses them unless an environment
            # variable allows them (tilec reads them; make test checks the CUDA)
            if "annotated_global.py" in line:
                print(f"-- skipping {name} on the GPU (Triton 3.6 refuses annotated constexpr globals)")
                continue
            if "debug_strings.py" in line:
                print(f"-- skipping {name} on the GPU (messages Triton refuses as non-ASCII)")
                continue
            case = parse_golden_line(name, line)
            # The generic driver passes n for every integer argument, which only fits
            # 1-D kernels; kernels with rows and columns are covered by their own cases.
            if (case.source, case.kernel) in two_d:
                print(f"-- skipping {name} on the GPU ({case.kernel} has its own 2-D cases)")
                continue
            with open(os.path.join(ROOT, case.source)) as f:
                uses_dot = "tl.dot(" in f.read()
            if uses_dot:     # fixed 2-D tiles that no size n fits; attention's cases run the same ops
                print(f"-- skipping {name} on the GPU (tl.dot on fixed 2-D tiles: no 1-D size fits)")
                continue
            out.append(case)
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


def nvcc_target(arch, cu):
    """nvcc's target flag: a kernel with a wgmma path (it tests __CUDA_ARCH_FEAT_SM90_ALL)
    on an sm_90 GPU is built for sm_90a, through -gencode (-arch=sm_90a also runs a plain
    sm_90 pass on some nvcc); everything else for -arch."""
    with open(cu) as f:
        wgmma = "__CUDA_ARCH_FEAT_SM90_ALL" in f.read()
    if wgmma and arch in ("sm_90", "sm_90a", "90") and not os.environ.get("TILEC_GPU_PLAIN_SM90"):
        return "-gencode=arch=compute_90a,code=sm_90a"
    return f"-arch={arch}"


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
    return compile_so(cu, so, arch)


def compile_so(cu, so, arch):
    """nvcc builds tilec's .cu into a shared library, as every GPU script loads one:
    (path of the .so, None) or (None, error text)."""
    nvcc = os.environ.get("NVCC", "nvcc")
    cmd = [nvcc, "-O3", "-shared", "-Xcompiler", "-fPIC", nvcc_target(arch, cu), "-o", so, cu]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"nvcc: {e}"
    if r.returncode != 0:
        return None, f"nvcc exit {r.returncode}: {shlex.join(cmd)}\n{(r.stdout + r.stderr).strip()}"
    return so, None


LIB_BUILT = "libtilec"     # in place of a .so path: the kernel runs through the library


def lib_arch(arch):
    """"sm_90" -> 90."""
    m = re.match(r"^(?:sm_|compute_)?(\d+)a?$", arch)
    if not m:
        raise ValueError(f"cannot read the architecture {arch!r} (expected e.g. sm_90)")
    return int(m.group(1))


def lib_options(case, arch, specialize=False):
    """The case's tilec flags as tilec_translate_options (tilec_ctypes.translate_options).
    The translation's architecture is what tilec_kernel_create picks for the compile arch
    (90 on sm_90, else 80) unless the flags name one, so that the parent's translation and
    the worker's are the same text (and the worker's compile a cache hit)."""
    o = dict(filename=case.source, kernel=case.kernel, signature=case.sig,
             defines={k: str(v) for k, v in case.defines.items()}, num_warps=case.num_warps,
             grid=case.grid, arch=90 if arch == 90 else 80, specialize=specialize)
    flags = list(case.extra_flags)
    while flags:
        flag = flags.pop(0)
        if flag == "--debug":
            o["debug"] = True
            continue
        if flag == "-I" and flags:
            o.setdefault("include_dirs", []).append(flags.pop(0))
            continue
        if flag == "--variant" and flags:
            # the library launches the kernel itself: its variants are made at launch
            flags.pop(0)
            o["specialize"] = True
            continue
        if flag not in ("--num-stages", "--config", "--arch") or not flags:
            raise ValueError(f"tilec flag {flag!r} has no library option in run_gpu_tests.py")
        value = flags.pop(0)
        if flag == "--arch":
            o["arch"] = lib_arch(value)
        else:
            o["num_stages" if flag == "--num-stages" else "config"] = int(value)
    return o


def lib_runtime_types(case):
    """The runtime parameters as this harness sees them: [(name, "*fp32" | "i32" ...)]."""
    return [a for p in kernel_signature(case) if p.kind != "const" for a in runtime_args(p)]


def probe_value(typ):
    """A value of the parameter type typ for the argument check of build_case_lib."""
    if typ.startswith("*"):
        return 0x10000
    if typ == "i1":
        return True
    return 0.5 if typ.startswith(("fp", "bf")) else 1


def build_case_lib(case, ctx, arch, folder):
    """--via lib: translate and compile through the library (ctx: a tilec_ctypes.Context
    with the run's cache), then check the launch arguments the worker will pass.  Returns
    (LIB_BUILT, None) or (None, error text); a kernel the library rejects as input gives
    "translate: TILEC_ERROR_INPUT" and the diagnostics (see untranslatable)."""
    import tilec_ctypes as tc
    os.makedirs(folder, exist_ok=True)
    try:
        options = lib_options(case, arch)
        with open(os.path.join(ROOT, case.source), "rb") as f:
            source = f.read()
        with open(os.path.join(folder, "options.txt"), "w") as f:
            f.write(repr(options) + "\n")
        tr = ctx.translate(source, **options)
        if tr.status == "TILEC_ERROR_INPUT":
            return None, f"translate: TILEC_ERROR_INPUT\n{tr.diagnostic_text or tr.error}"
        if tr.status != "TILEC_OK":
            return None, f"tilec_translate_source: {tr.status}: {tr.diagnostic_text or tr.error}"
        with open(os.path.join(folder, "kernel.cu"), "w") as f:
            f.write(tr.code)
        ours = lib_runtime_types(case)
        theirs = [(p["name"], p["type"]) for p in tr.runtime_params()]
        if ours != theirs:
            return None, (f"runtime parameters differ: the harness passes {ours}, the library "
                          f"takes {theirs}")
        ctx.compile(tr.code, arch)
        k = ctx.kernel_load_unbuilt(source, options)
        try:
            args = [tc.arg_for(t, probe_value(t)) for _, t in theirs]
            err = k.launch(None, (0, 1, 1), args)
        finally:
            k.destroy()
        if err:
            return None, f"tilec_launch refused the harness's argument kinds: {err}"
    except (OSError, ValueError, tc.LibError) as e:
        return None, f"{type(e).__name__}: {e}"
    return LIB_BUILT, None


def untranslatable(err):
    """The first line of tilec's message when the build failed because tilec rejected the
    kernel as input it cannot handle (exit status 1, or TILEC_ERROR_INPUT from the library),
    else None (a crash, a bad command line, an nvcc or NVRTC error: those are failures)."""
    if not err or not err.startswith(("tilec exit 1:", "translate: TILEC_ERROR_INPUT")):
        return None
    lines = [ln.strip() for ln in err.splitlines()[1:] if ln.strip()]
    return lines[0] if lines else "(no message)"


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
    via_lib = opts.via == "lib"
    if opts.build_only and opts.triton_only:
        sys.exit("--build-only and --triton-only leave nothing to run")
    if opts.build_only and not opts.arch:
        sys.exit("--build-only needs --arch (e.g. --arch sm_90): nothing detects a GPU then")
    if opts.triton_only:
        if opts.no_triton:
            sys.exit("--triton-only and --no-triton leave nothing to run")
        arch = "(not used)"
    elif via_lib:
        lib_path = os.path.abspath(opts.lib)
        if not os.path.exists(lib_path):
            sys.exit(f"--via lib: {lib_path} is missing (build it with make on the development "
                     f"machine and carry build/release, or give --lib)")
        arch = opts.arch or detect_arch()
    elif not os.access(tilec, os.X_OK):
        sys.exit(f"tilec not found at {tilec} (build it with make, or give --tilec)")
    else:
        arch = opts.arch or detect_arch()
    work = opts.keep or tempfile.mkdtemp(prefix="tilec-gpu-")
    lib_ctx, cache_dir = None, os.path.join(work, "libtilec-cache")
    if opts.triton_only:
        path_text = "tilec not run (--triton-only)"
    elif via_lib:
        import tilec_ctypes as tc
        try:
            lib = tc.Library(lib_path)
            problems = tc.self_test(lib)
            lib_ctx = lib.context(cache_dir=cache_dir)
            nvrtc = "NVRTC %d.%d" % lib_ctx.nvrtc_version()
            arch_num = lib_arch(arch)
        except (OSError, ValueError, tc.LibError) as e:
            sys.exit(f"--via lib: cannot use {lib_path}: {type(e).__name__}: {e}")
        if problems:
            sys.exit("--via lib: the ctypes binding (tests/gpu/tilec_ctypes.py) does not match "
                     f"{lib_path}:\n  " + "\n  ".join(problems))
        path_text = f"libtilec {lib.version} ({lib_path}), {nvrtc}, cubins for sm_{arch_num}"
    else:
        path_text = f"tilec {tilec}; nvcc -arch={arch}"
    print(f"{path_text}; {len(cases)} cases; seed {opts.seed}")
    if not opts.build_only:
        print(TOLERANCE_TEXT)
    sys.stdout.flush()

    passed = failed = skipped = 0
    plan = []
    t0 = time.time()
    workers = min(16, os.cpu_count() or 4)
    # The library path: a tilec_context is not thread-safe, so each builder thread has its
    # own, all on the run's cache (the calls into the library release the GIL).
    thread_contexts, local = [], threading.local()

    def thread_ctx():
        if not hasattr(local, "ctx"):
            local.ctx = lib.context(cache_dir=cache_dir)
            thread_contexts.append(local.ctx)
        return local.ctx

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = []
        for i, case in enumerate(cases):
            if case.driver.startswith(("skip:", "error:")) or opts.triton_only:
                futures.append(None)
                continue
            folder = os.path.join(work, f"{i:03d}-" + re.sub(r"[^\w.-]+", "_", case.name))
            if via_lib:
                futures.append(pool.submit(lambda c=case, f=folder: build_case_lib(c, thread_ctx(), arch_num, f)))
            else:
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
            if opts.triton_only:
                plan.append((case, None))
                continue
            so, err = fut.result()
            reason = untranslatable(err)
            if reason is not None and opts.dot and case.feature == "dot":
                print(f"FAIL  {case.name}  tilec cannot translate it (--dot): {reason}")
                failed += 1
            elif reason is not None:
                case.skip = reason
                if opts.no_triton or opts.build_only:   # nothing left to run for this case
                    print(f"SKIP  {case.name:<44} tilec cannot translate: {reason}")
                    skipped += 1
                else:                        # the worker still checks Triton against the reference
                    plan.append((case, None))
            elif err:
                print(f"FAIL  {case.name}  translate/compile\n{indent(err)}")
                failed += 1
            elif opts.build_only:
                print(f"PASS  {case.name:<44} translated and compiled"
                      + (", launch arguments accepted" if via_lib else ""))
                passed += 1
            else:
                plan.append((case, so))
    for ctx in thread_contexts:
        ctx.close()
    if lib_ctx is not None:
        lib_ctx.close()
    if opts.build_only:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)
        print(f"-- translated and compiled in {time.time() - t0:.1f} s (--build-only: nothing run)")
        print(f"{passed} passed, {failed} failed, {skipped} skipped")
        return 1 if failed else 0
    print(f"-- translated and compiled in {time.time() - t0:.1f} s; running {len(plan)} cases")
    sys.stdout.flush()

    while plan:
        plan_path = os.path.join(work, "plan.json")
        with open(plan_path, "w") as f:
            json.dump({"cases": [dict(dataclasses.asdict(c), so=so) for c, so in plan],
                       "no_triton": opts.no_triton, "seed": opts.seed,
                       "lib": lib_path if via_lib else None, "cache": cache_dir,
                       "arch": arch}, f)
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
    print(f"-- {time.time() - t0:.1f} s in all")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
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
    if plan["lib"]:
        try:
            open_library(plan)
        except Exception as e:
            print(f"FAIL  --via lib: cannot open {plan['lib']}: {type(e).__name__}: {e}")
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
    if _library is not None:
        hits, misses = _library.cache_stats()
        print(f"-- libtilec in this worker: {hits} kernels compiled from the cache, {misses} by NVRTC",
              flush=True)
    return 0


_library = None      # --via lib: the worker's tilec_ctypes.Context and compile arch
_library_arch = None


def open_library(plan):
    """--via lib: libtilec and one context for the worker, opened once torch has made its
    CUDA context current on this thread, so that tilec_kernel_create loads modules there and
    the kernels see torch's memory."""
    global _library, _library_arch
    import tilec_ctypes as tc
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    _library = tc.Library(plan["lib"]).context(cache_dir=plan["cache"])
    _library_arch = lib_arch(plan["arch"])


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
            "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
            "fp8e4nv": torch.float8_e4m3fn, "fp8e5": torch.float8_e5m2}[name]


def is_fp8(t):
    return t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2)


class Kernel:
    """One case's kernel, launched through tilec's ctypes launcher or through Triton.
    so=None (tilec could not translate it): only Triton runs.  so=LIB_BUILT: tilec's kernel
    runs through libtilec (tilec_kernel_create, tilec_launch)."""

    def __init__(self, case, so, use_triton, specialize=False):
        self.case = case
        self.params = kernel_signature(case)
        self.runtime = [p for p in self.params if p.kind != "const"]
        self.constexprs = {p.name: p.value for p in self.params if p.kind == "const"}
        self.num_warps, self.num_stages = case.num_warps, case.num_stages
        if case.config is not None:
            _, self.num_warps, self.num_stages = autotune_config(case)
        self.launch_fn = None
        self.lib_kernel = None
        self.triton_fn = load_triton_kernel(case) if use_triton else None
        if self.triton_fn is not None:
            self.triton_fn = specialized_as_declared(self.triton_fn, self.runtime)
        if so is None:
            return
        if so == LIB_BUILT:
            with open(os.path.join(ROOT, case.source), "rb") as f:
                source = f.read()
            self.lib_kernel = _library.kernel_create(source, lib_options(case, _library_arch, specialize),
                                                     _library_arch)
            self.lib_types = self.lib_kernel.runtime_params()
            if self.lib_types != lib_runtime_types(case):
                self.close()
                raise ValueError(f"libtilec's runtime parameters {self.lib_types} are not "
                                 f"the harness's {lib_runtime_types(case)}")
            self.launch_fn = self.lib_kernel.launch
            return
        lib = ctypes.CDLL(so)
        self.launch_fn = getattr(lib, f"{case.kernel}_launch")
        argtypes = [ctypes.c_void_p]
        if case.grid is None:
            argtypes += [ctypes.c_uint] * 3
        for name, typ in (a for p in self.runtime for a in runtime_args(p)):
            if typ.startswith("*"):
                argtypes.append(ctypes.c_void_p)
            elif typ in CTYPE_OF:
                argtypes.append(CTYPE_OF[typ])
            else:
                raise ValueError(f"no ctypes type for scalar {name}: {typ}")
        self.launch_fn.argtypes = argtypes
        self.launch_fn.restype = ctypes.c_int
        self._lib = lib

    def close(self):
        if self.lib_kernel is not None:
            self.lib_kernel.destroy()
            self.lib_kernel = None

    def launch_tilec(self, values, grid):
        if self.lib_kernel is not None:
            return self.launch_library(values, grid)
        args = [ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
        if self.case.grid is None:
            args += list(grid) + [1] * (3 - len(grid))
        for p in self.runtime:
            for (_, typ), v in zip(runtime_args(p), runtime_values(p, values[p.name])):
                args.append(ctypes.c_void_p(v.data_ptr()) if typ.startswith("*") else v)
        err = self.launch_fn(*args)
        if err != 0:
            return f"{self.case.kernel}_launch returned {err} ({CUDA_ERRORS.get(err, 'cudaError')})"
        synchronize()
        return None

    def launch_library(self, values, grid):
        """tilec_launch on torch's stream; the grid from the kernel's --grid expression when
        it has one (the library evaluates it), else the driver's."""
        import tilec_ctypes as tc
        args = []
        flat = dict(values)
        for p in self.runtime:
            flat.update(zip((n for n, _ in runtime_args(p)), runtime_values(p, values[p.name])))
        for name, typ in self.lib_types:
            v = flat[name]
            args.append(tc.arg_for(typ, v.data_ptr() if typ.startswith("*") else v))
        err = self.lib_kernel.launch(torch.cuda.current_stream().cuda_stream,
                                     None if self.case.grid is not None else grid, args)
        if err:
            return f"tilec_launch: {err}"
        synchronize()
        return None

    def library_runner(self, values, grid):
        """A function that launches the library kernel on these values (no synchronisation,
        the arguments made once), for timing."""
        import tilec_ctypes as tc
        flat = dict(values)
        for p in self.runtime:
            flat.update(zip((n for n, _ in runtime_args(p)), runtime_values(p, values[p.name])))
        args = [tc.arg_for(typ, flat[name].data_ptr() if typ.startswith("*") else flat[name])
                for name, typ in self.lib_types]
        stream = torch.cuda.current_stream().cuda_stream
        dims = None if self.case.grid is not None else grid
        kernel = self.lib_kernel

        def run():
            err = kernel.launch(stream, dims, args)
            if err:
                raise RuntimeError(f"tilec_launch: {err}")
        return run

    def launch_triton(self, values, grid):
        # by name: a parameter specialised to a value (a stride of 1) may sit
        # between runtime ones
        args = {p.name: values[p.name] for p in self.runtime}
        try:
            options = {"num_warps": self.num_warps}
            if self.num_stages is not None:
                options["num_stages"] = self.num_stages
            given = {**args, **self.constexprs}
            names = getattr(self.triton_fn, "arg_names", None) or []
            if names and all(n in given for n in names):
                # positionally when every parameter is known: a parameter may be called
                # `grid` or `warmup`, which are also keywords of Triton's launcher
                self.triton_fn[tuple(grid)](*(given[n] for n in names), **options)
            else:
                self.triton_fn[tuple(grid)](**given, **options)
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
        # what tilec searches for imports: each -I folder and the file's package root
        words = list(case.extra_flags)
        dirs = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-I"]
        dirs += [w[2:] for w in words if w.startswith("-I") and len(w) > 2]
        root = os.path.dirname(path)
        while os.path.exists(os.path.join(root, "__init__.py")):
            root = os.path.dirname(root)
        for d in [root] + [os.path.join(ROOT, d) for d in dirs]:
            if d not in sys.path:
                sys.path.insert(0, d)
        if root != os.path.dirname(path):
            # inside a package: imported by its dotted name, so that relative imports work
            dotted = os.path.relpath(os.path.splitext(path)[0], root).replace(os.sep, ".")
            _modules[path] = importlib.import_module(dotted)
        else:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            _modules[path] = module
    from triton.runtime.jit import JITFunction
    with open(path) as f:
        if "make_tensor_descriptor" in f.read():
            # Triton keeps the TMA descriptors a kernel makes (sm_90) in memory it asks for
            import triton
            triton.set_allocator(lambda size, alignment, stream:
                                 torch.empty(size, device="cuda", dtype=torch.int8))
    fn = getattr(_modules[path], case.kernel)
    while not isinstance(fn, JITFunction):        # unwrap @triton.autotune / @triton.heuristics
        fn = fn.fn
    return fn


_unspecialized = {}


def specialized_as_declared(fn, runtime):
    """Triton's kernel, specialised as tilec's signature declares its integer arguments.
    Triton's launcher makes an int argument equal to 1 a constant (and one divisible by 16
    a multiple of 16); tilec knows only what the signature says.  A plain `i32` of value 1
    then changes what Triton compiles: a loop of n % 4 steps is unrolled at n = 1 and its
    multiply-add contracted into one fma, which rounds once where tilec's loop rounds twice.
    So the integers the signature leaves plain are not specialised on the Triton side."""
    import triton
    plain = tuple(p.name for p in runtime if p.kind == "scalar" and p.dtype.startswith(("i", "u")) and not p.div16)
    if not plain:
        return fn
    key = (id(fn), plain)
    if key not in _unspecialized:
        _unspecialized[key] = triton.jit(fn.fn, do_not_specialize=list(plain), noinline=fn.noinline)
    return _unspecialized[key]


def grid_from_expression(expr, values):
    env = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
    env.update(values)
    g = eval(expr, {"__builtins__": {}}, env)
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


# ---- inputs, poison, comparisons ------------------------------------------------------

def poison_(t):
    if t.dtype.is_floating_point and not is_fp8(t):
        t.fill_(float("nan"))
    else:
        t.view(torch.uint8).fill_(0x7F)     # for fp8 types, a NaN
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


def where_bad_between(a, b, exact, scale=0.0):
    """Where two results of one fp computation differ by more than rounding.  scale: a
    magnitude typical of the terms that made each element (0: the element's own); where
    terms cancel, a contracted fma and a separate multiply and add differ by an ulp of
    the terms, not of the result."""
    if exact or not a.dtype.is_floating_point or is_fp8(a):
        return bits(a) != bits(b)
    same = bits(a) == bits(b)                       # also NaN in the same places
    if a.dtype == torch.float32:
        d = (a.double() - b.double()).abs()
        return ~(same | (d <= FP32_ATOL + FP32_RTOL * torch.clamp(b.double().abs(), min=scale)))
    near = (ulp_distance(a, b) <= HALF_ULPS) | ((a.double() - b.double()).abs() <= HALF_ATOL)
    return ~(same | (near & ~torch.isnan(a) & ~torch.isnan(b)))


def describe_bad(bad, out, expect, inputs=None):
    if is_fp8(out):                         # shown (and checked for NaN) as fp32
        out = out.float()
    if expect is not None and is_fp8(expect):
        expect = expect.float()
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
        if self.case.skip:
            # tilec did not translate it: only Triton ran.  Stay quiet when Triton matches
            # the reference (run_case prints one SKIP line for the case); say so if not.
            if not ok:
                print(f"FAIL  {self.case.name:<44} {self.label:>18}  {'; '.join(self.problems)} "
                      f"(Triton alone: tilec cannot translate this kernel)", flush=True)
            return ok
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


def implementations(kernel, use_triton):
    """The implementations a case runs: tilec's where it built, Triton's where asked for."""
    return (["tilec"] if kernel.launch_fn is not None else []) + \
        (["triton"] if use_triton and kernel.triton_fn is not None else [])


def run_impls(kernel, check, values, out_names, grid, use_triton, inits=None):
    """Runs tilec (and Triton) with fresh poisoned copies of the outputs named out_names;
    inits[name](buf), when given, then prepares that output (e.g. zeros for atomics).
    Returns {"tilec": {name: tensor}, "triton": {...}}; failures are recorded in check."""
    results = {}
    impls = implementations(kernel, use_triton)
    for impl in impls:
        outs = {name: poisoned_like(values[name]) for name in out_names}
        for name, init in (inits or {}).items():
            init(outs[name])
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
    elif "triton" in outs and not check.problems:
        check.note("Triton matches reference (tilec not run)")
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
    elif "triton" in outs and not check.problems:
        check.note("Triton matches reference (tilec not run)")
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
            # No reference here says how large each element's terms were; the output's mean
            # magnitude stands in for them (branch_loads: w*x terms near 1 cancelling to 0.03).
            scale = 0.0
            if b.dtype.is_floating_point and not is_fp8(b):   # fp8 outputs compare bit for bit
                finite = b[torch.isfinite(b)]
                scale = float(finite.double().abs().mean()) if finite.numel() else 0.0
            msg = describe_bad(where_bad_between(a, b, False, scale), a, b)
            if msg:
                check.fail(f"{name}: tilec vs Triton: {msg}")
        if not check.problems:
            same = all(bool((bits(results["tilec"][k]) == bits(results["triton"][k])).all())
                       for k in outputs)
            check.note(f"outputs {sorted(outputs)} {'bit-identical to' if same else 'within tolerance of'} Triton")
    elif "triton" in results and not check.problems:
        check.note("Triton ran (tilec not run; no reference for golden kernels)")
    return check.print()


# ---- drivers for row-wise kernels: reductions, scans, atomics, random numbers ------------
#
# Their outputs are described by Expect entries and checked by run_and_check: the elements
# the kernel must write (against a float64 or exact reference, and against Triton), and the
# elements it must leave alone (the gap between rows when the stride is larger than the row,
# and a guard zone past the end).  Results of reductions depend on the order of the additions,
# so they are compared with an absolute bound scaled by the sum of the magnitudes that went
# into them (an fp32 sum of k terms is off by at most about depth * 2**-24 * sum |term|);
# RED_RTOL is that factor, with a wide margin.  Exact results (max/min and their indices,
# integer scans, random numbers) must be bit-equal to the reference and to Triton.


@dataclasses.dataclass
class Expect:
    """One output of a kernel and how to check it."""
    name: str                   # the pointer parameter
    view: object                # buf -> the elements the kernel must write
    ref: object                 # float64 reference, or the exact result in the output's type
    exact: bool = False         # bit-equal to ref (and to Triton)
    rtol: float = 0.0           # else |out - ref| <= atol + rtol * |ref| ...
    atol: object = 0.0          # (a number, or a tensor shaped like the view)
    ulps: int = 0               # ... or, for fp16/bf16, within ulps of ref rounded to the type
    same_as_triton: bool = False  # tilec must match Triton bit for bit even so
    rest: object = None         # buf -> the elements that must keep their poison
    init: object = None         # buf -> None, run after poisoning (e.g. zeros for atomics)


def where_bad_tol(out, ref64, rtol, atol, ulps):
    o = out.double()
    ok = (o - ref64).abs() <= atol + rtol * ref64.abs()
    if ulps and out.dtype in (torch.float16, torch.bfloat16):
        ok |= ulp_distance(out, ref64.to(out.dtype)) <= ulps
    ok &= ~torch.isnan(o)
    ok |= torch.isnan(o) & torch.isnan(ref64)
    ok |= torch.isinf(o) & (o == ref64)      # an infinity of the right sign (-inf of an empty split)
    return ~ok


def matrix(buf, rows, cols, stride):
    """The [rows, cols] matrix with row stride `stride` at the start of the flat buffer."""
    return buf[:rows * stride].view(rows, stride)[:, :cols]


def outside_matrix(buf, rows, cols, stride):
    """Everything in the flat buffer that is not in matrix(buf, ...): gaps and guard zone."""
    gaps = buf[:rows * stride].view(rows, stride)[:, cols:].reshape(-1)
    return torch.cat([gaps, buf[rows * stride:]])


def grid_for(kernel, case, values, host_grid):
    """The grid Triton needs: from the case's --grid expression, or the caller's choice."""
    if case.grid is not None:
        return grid_from_expression(case.grid, dict(kernel.constexprs, **values))
    return host_grid


def run_and_check(kernel, check, values, expects, grid, use_triton, inputs=None):
    inits = {e.name: e.init for e in expects if e.init is not None}
    results = run_impls(kernel, check, values, [e.name for e in expects], grid, use_triton, inits)
    views = {}
    for impl, res in results.items():
        for e in expects:
            buf = res[e.name]
            if e.rest is not None:
                rest = e.rest(buf)
                if rest.numel() and not bool((bits(rest) == bits(poison_(torch.empty_like(rest)))).all()):
                    known = impl == "triton" and kernel.case.opts.get("triton_writes_out_of_bounds")
                    if known:   # a Triton fault the case names; tilec is still held to the bounds
                        check.note(f"Triton wrote {e.name} outside its elements ({known})")
                    else:
                        check.fail(f"{impl} wrote {e.name} outside its elements (a gap between rows, "
                                   f"or past the end)")
            v = e.view(buf)
            views[impl, e.name] = v
            if e.exact:
                bad = bits(v) != bits(e.ref.to(v.dtype))
            else:
                bad = where_bad_tol(v, e.ref, e.rtol, e.atol, e.ulps)
            msg = describe_bad(bad, v, e.ref, inputs)
            if msg:
                check.fail(f"{impl} {e.name} vs reference: {msg}")
    if "tilec" in results and "triton" in results:
        same_text = []
        for e in expects:
            a, b = views["tilec", e.name], views["triton", e.name]
            same = bits(a) == bits(b)
            if e.exact or e.same_as_triton:
                bad = ~same
            else:
                bad = where_bad_tol(a, b.double(), e.rtol, e.atol, e.ulps) & ~same
            msg = describe_bad(bad, a, b, inputs)
            if msg:
                check.fail(f"{e.name}: tilec vs Triton: {msg}")
            same_text.append(f"{e.name} {100 * same.float().mean().item():.2f}%")
        if not check.problems:
            check.note("matches reference and Triton (bit-identical: " + ", ".join(same_text) + ")")
    elif "tilec" in results and not check.problems:
        check.note("matches reference" + ("" if use_triton else " (no Triton)"))
    elif "triton" in results and not check.problems:
        check.note("Triton matches reference (tilec not run)")
    return check.print()


def fp32_value(v):
    """v rounded to fp32, as a Python float (what an fp32 kernel argument holds)."""
    return float(torch.tensor(v, dtype=torch.float32).item())


def rand_ints(n, dtype, gen, low=-100, high=100):
    return torch.randint(low, high, (n,), generator=gen, device="cuda", dtype=torch.int64).to(dtype)


def drive_softmax(kernel, case, shape, use_triton, gen):
    """softmax_kernel (one row per program) and softmax_rows_kernel (ROWS rows per program)."""
    rows, cols, s_in, s_out = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{rows}x{cols} s{s_in}/{s_out}")
    x = rand_float(rows * s_in + GUARD, dt, gen, scale=3.0)
    values = {"in_ptr": x, "out_ptr": torch.empty(rows * s_out + GUARD, dtype=dt, device="cuda"),
              "n_rows": rows, "n_cols": cols, "in_row_stride": s_in, "out_row_stride": s_out}
    xs = matrix(x, rows, cols, s_in)
    ref = torch.softmax(xs.double(), dim=1)
    out = Expect("out_ptr", lambda b: matrix(b, rows, cols, s_out), ref, rtol=RED_RTOL, ulps=1,
                 rest=lambda b: outside_matrix(b, rows, cols, s_out))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, (rows,)),
                         use_triton, {"x": xs})


def layer_norm_stats(x64, eps):
    """Mean and rstd of each row, rounded to fp32 as the forward kernel stores them."""
    mean = x64.mean(1)
    var = ((x64 - mean[:, None]) ** 2).mean(1)
    return mean.float(), (1 / torch.sqrt(var + eps)).float()


def stats_buffer(stat, gen):
    """An fp32 buffer holding stat, then random values."""
    buf = rand_float(stat.numel() + GUARD, torch.float32, gen)
    buf[:stat.numel()] = stat
    return buf


def drive_layer_norm_fwd(kernel, case, shape, use_triton, gen):
    M, N, stride = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{M}x{N} stride {stride}")
    eps = fp32_value(case_manifest.EPS)
    x = (rand_float(M * stride + GUARD, torch.float32, gen, scale=2.0) + 0.5).to(dt)
    w, b = rand_float(N + GUARD, dt, gen), rand_float(N + GUARD, dt, gen)
    f32 = dict(device="cuda", dtype=torch.float32)
    values = {"X": x, "Y": torch.empty_like(x), "W": w, "B": b, "Mean": torch.empty(M + GUARD, **f32),
              "Rstd": torch.empty(M + GUARD, **f32), "stride": stride, "N": N, "eps": eps}
    x64, w64, b64 = matrix(x, M, N, stride).double(), w[:N].double(), b[:N].double()
    mean = x64.mean(1)
    xc = x64 - mean[:, None]
    rstd = 1 / torch.sqrt((xc * xc).mean(1) + eps)
    xhat = xc * rstd[:, None]
    abs_mean = x64.abs().mean(1)
    # Errors come from the mean (shifting every xc), rstd, and the last multiply-add.
    y_atol = RED_RTOL * ((xhat * w64).abs() + b64.abs() + (rstd * abs_mean)[:, None] * w64.abs())
    expects = [
        Expect("Y", lambda t: matrix(t, M, N, stride), xhat * w64 + b64, atol=y_atol, ulps=1,
               rest=lambda t: outside_matrix(t, M, N, stride)),
        Expect("Mean", lambda t: t[:M], mean, atol=RED_RTOL * abs_mean, rest=lambda t: t[M:]),
        Expect("Rstd", lambda t: t[:M], rstd, rtol=RED_RTOL, rest=lambda t: t[M:])]
    return run_and_check(kernel, check, values, expects, grid_for(kernel, case, values, (M,)),
                         use_triton, None)


def drive_rms_norm_fwd(kernel, case, shape, use_triton, gen):
    M, N, stride = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{M}x{N} stride {stride}")
    eps = fp32_value(case_manifest.EPS)
    x = rand_float(M * stride + GUARD, dt, gen, scale=2.0)
    w = rand_float(N + GUARD, dt, gen)
    values = {"X": x, "Y": torch.empty_like(x), "W": w, "stride": stride, "N": N, "eps": eps}
    xs = matrix(x, M, N, stride)
    x64 = xs.double()
    rstd = 1 / torch.sqrt((x64 * x64).mean(1) + eps)
    y = x64 * rstd[:, None] * w[:N].double()
    out = Expect("Y", lambda t: matrix(t, M, N, stride), y, rtol=RED_RTOL, ulps=1,
                 rest=lambda t: outside_matrix(t, M, N, stride))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, (M,)),
                         use_triton, {"x": xs})


def drive_layer_norm_bwd_dx(kernel, case, shape, use_triton, gen):
    M, N, stride = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{M}x{N} stride {stride}")
    x = (rand_float(M * stride + GUARD, torch.float32, gen, scale=2.0) + 0.5).to(dt)
    dy = rand_float(M * stride + GUARD, dt, gen)
    w = rand_float(N + GUARD, dt, gen)
    x64, dy64, w64 = matrix(x, M, N, stride).double(), matrix(dy, M, N, stride).double(), w[:N].double()
    mean32, rstd32 = layer_norm_stats(x64, fp32_value(case_manifest.EPS))
    values = {"DX": torch.empty_like(x), "DY": dy, "X": x, "W": w, "Mean": stats_buffer(mean32, gen),
              "Rstd": stats_buffer(rstd32, gen), "stride": stride, "N": N}
    rstd = rstd32.double()[:, None]
    xhat = (x64 - mean32.double()[:, None]) * rstd
    g = w64 * dy64
    c1 = (xhat * g).mean(1, keepdim=True)
    c2 = g.mean(1, keepdim=True)
    dx = (g - (xhat * c1 + c2)) * rstd
    atol = RED_RTOL * rstd * (g.abs() + xhat.abs() * (xhat * g).abs().mean(1, keepdim=True)
                              + g.abs().mean(1, keepdim=True))
    out = Expect("DX", lambda t: matrix(t, M, N, stride), dx, atol=atol, ulps=1,
                 rest=lambda t: outside_matrix(t, M, N, stride))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, (M,)),
                         use_triton, None)


def drive_layer_norm_dwdb(kernel, case, shape, use_triton, gen):
    """layer_norm_bwd_dwdb (column programs) and layer_norm_bwd_dwdb_atomic (row programs
    adding into zeroed DW/DB; the order of the atomic adds varies, so Triton and tilec are
    compared within the bound, not bit for bit)."""
    M, N, stride = shape
    dt = torch_dtype(case.dtype)
    atomic = "atomic" in case.kernel
    check = Check(case, f"{M}x{N} stride {stride}")
    x = (rand_float(M * stride + GUARD, torch.float32, gen, scale=2.0) + 0.5).to(dt)
    dy = rand_float(M * stride + GUARD, dt, gen)
    x64, dy64 = matrix(x, M, N, stride).double(), matrix(dy, M, N, stride).double()
    mean32, rstd32 = layer_norm_stats(x64, fp32_value(case_manifest.EPS))
    f32 = dict(device="cuda", dtype=torch.float32)
    values = {"DW": torch.empty(N + GUARD, **f32), "DB": torch.empty(N + GUARD, **f32), "X": x, "DY": dy,
              "Mean": stats_buffer(mean32, gen), "Rstd": stats_buffer(rstd32, gen),
              "M": M, "N": N, "stride": stride}
    terms = dy64 * ((x64 - mean32.double()[:, None]) * rstd32.double()[:, None])
    # More sequential fp32 additions with atomics (one per row chunk): a wider bound.
    k = 2 * RED_RTOL if atomic else RED_RTOL
    init = (lambda t: t[:N].zero_()) if atomic else None
    expects = [
        Expect("DW", lambda t: t[:N], terms.sum(0), atol=k * terms.abs().sum(0), rest=lambda t: t[N:], init=init),
        Expect("DB", lambda t: t[:N], dy64.sum(0), atol=k * dy64.abs().sum(0), rest=lambda t: t[N:], init=init)]
    return run_and_check(kernel, check, values, expects, grid_for(kernel, case, values, None),
                         use_triton, None)


def drive_cross_entropy(kernel, case, shape, use_triton, gen):
    rows, V, stride = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{rows}x{V} stride {stride}")
    logits = rand_float(rows * stride + GUARD, dt, gen, scale=3.0)
    labels = torch.randint(0, V, (rows + GUARD,), generator=gen, device="cuda", dtype=torch.int64)
    values = {"logits_ptr": logits, "labels_ptr": labels,
              "loss_ptr": torch.empty(rows + GUARD, device="cuda", dtype=torch.float32),
              "stride": stride, "V": V}
    x64 = matrix(logits, rows, V, stride).double()
    lse = torch.logsumexp(x64, 1)
    picked = x64.gather(1, labels[:rows, None]).squeeze(1)
    out = Expect("loss_ptr", lambda t: t[:rows], lse - picked,
                 atol=RED_RTOL * (1 + lse.abs() + picked.abs()), rest=lambda t: t[rows:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, (rows,)),
                         use_triton, None)


def reduction_input(size, dtype, data, gen):
    """'ties': small integers, so that most maxima and minima occur several times."""
    if data == "ties":
        return rand_ints(size, dtype, gen, -3, 4)
    return rand_float(size, dtype, gen)


def drive_col_max(kernel, case, shape, use_triton, gen):
    M, N, stride, data = shape
    check = Check(case, f"{M}x{N} s{stride} {data}")
    x = reduction_input(M * stride + GUARD, torch_dtype(case.dtype), data, gen)
    values = {"X": x, "OutMax": torch.empty(N + GUARD, device="cuda", dtype=torch.float32),
              "OutIdx": torch.empty(N + GUARD, device="cuda", dtype=torch.int32),
              "M": M, "N": N, "stride": stride}
    xs = matrix(x, M, N, stride).float()
    best = xs.max(0).values
    rows = torch.arange(M, device="cuda")[:, None]
    first = torch.where(xs == best, rows, M).min(0).values.to(torch.int32)    # lowest row on ties
    expects = [Expect("OutMax", lambda t: t[:N], best, exact=True, rest=lambda t: t[N:]),
               Expect("OutIdx", lambda t: t[:N], first, exact=True, rest=lambda t: t[N:])]
    return run_and_check(kernel, check, values, expects, grid_for(kernel, case, values, None),
                         use_triton, None)


def drive_argmax(kernel, case, shape, use_triton, gen):
    M, N, stride, data = shape
    check = Check(case, f"{M}x{N} s{stride} {data}")
    x = reduction_input(M * stride + GUARD, torch_dtype(case.dtype), data, gen)
    values = {"X": x, "Out": torch.empty(M + GUARD, device="cuda", dtype=torch.int32),
              "M": M, "N": N, "stride": stride}
    xs = matrix(x, M, N, stride).float()
    cols = torch.arange(N, device="cuda")[None, :]
    first = torch.where(xs == xs.max(1, keepdim=True).values, cols, N).min(1).values.to(torch.int32)
    out = Expect("Out", lambda t: t[:M], first, exact=True, rest=lambda t: t[M:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton, None)


def drive_rope(kernel, case, shape, use_triton, gen):
    """In place: X's buffer is poisoned, then its heads get the input (init), so that the gaps
    between tokens (pad) and the guard must keep their poison."""
    T, H, pad = shape
    D, bh = kernel.constexprs["HEAD_DIM"], kernel.constexprs["BLOCK_H"]
    dt = torch_dtype(case.dtype)
    check = Check(case, f"T{T} H{H} pad{pad}")
    stride_t = H * D + pad
    n = T * stride_t
    x0 = rand_float(T * H * D, dt, gen, scale=2.0).view(T, H, D)
    inv = 10000.0 ** (-torch.arange(0, D, 2, device="cuda", dtype=torch.float64) / D)
    ang = torch.arange(T, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = ang.cos().float().contiguous(), ang.sin().float().contiguous()
    heads = lambda t: t[:n].view(T, stride_t)[:, :H * D].view(T, H, D)

    def init(t):
        heads(t).copy_(x0)
    rest = lambda t: torch.cat([t[:n].view(T, stride_t)[:, H * D:].reshape(-1), t[n:]])
    x64 = x0.double()
    c, s_ = cos.double()[:, None, :], sin.double()[:, None, :]
    x1, x2 = x64[..., :D // 2], x64[..., D // 2:]
    ref = torch.cat([x1 * c - x2 * s_, x2 * c + x1 * s_], -1)
    values = {"X": torch.empty(n + GUARD, device="cuda", dtype=dt), "Cos": cos, "Sin": sin,
              "stride_t": stride_t, "stride_h": D, "n_heads": H}
    out = Expect("X", heads, ref, rtol=1e-5, atol=1e-5, ulps=1, rest=rest, init=init)
    return run_and_check(kernel, check, values, [out], (T, -(-H // bh)), use_triton, None)


def drive_row_min(kernel, case, shape, use_triton, gen):
    M, N, stride, data = shape
    check = Check(case, f"{M}x{N} s{stride} {data}")
    x = reduction_input(M * stride + GUARD, torch_dtype(case.dtype), data, gen)
    values = {"X": x, "OutMin": torch.empty(M + GUARD, device="cuda", dtype=torch.float32),
              "OutIdx": torch.empty(M + GUARD, device="cuda", dtype=torch.int32),
              "M": M, "N": N, "stride": stride}
    xs = matrix(x, M, N, stride).float()
    low = xs.min(1).values
    cols = torch.arange(N, device="cuda")[None, :]
    first = torch.where(xs == low[:, None], cols, N).min(1).values.to(torch.int32)
    expects = [Expect("OutMin", lambda t: t[:M], low, exact=True, rest=lambda t: t[M:]),
               Expect("OutIdx", lambda t: t[:M], first, exact=True, rest=lambda t: t[M:])]
    return run_and_check(kernel, check, values, expects, grid_for(kernel, case, values, None),
                         use_triton, None)


# Triton's Philox4x32-10 (triton/language/random.py), re-done with int64 torch tensors that
# hold uint32 values, so that tl.rand / tl.randint have an exact reference of their own.
PHILOX_KEY_A, PHILOX_KEY_B = 0x9E3779B9, 0xBB67AE85
PHILOX_ROUND_A, PHILOX_ROUND_B = 0xD2511F53, 0xCD9E8D57
UNIFORM_SCALE = 4.6566127342e-10     # uint_to_uniform_float: largest int31 * scale < 1.0
M32 = 0xFFFFFFFF


def _mul_hi_lo(a, k):
    """The high and low 32 bits of a * k, for a tensor a of uint32 values and a constant k:
    k is split into 16-bit halves so that no product passes 2**63."""
    p_hi, p_lo = a * (k >> 16), a * (k & 0xFFFF)          # a * k = p_hi * 2**16 + p_lo
    lo = (p_lo + ((p_hi & 0xFFFF) << 16)) & M32
    hi = (p_hi + (p_lo >> 16)) >> 16
    return hi, lo


def philox_words(seed, n, rounds=10):
    """tl.randint4x(seed, offsets) for offsets 0..n-1: four tensors of uint32 values."""
    key = seed & ((1 << 64) - 1)                 # seed.to(tl.uint64)
    k0, k1 = key & M32, (key >> 32) & M32
    c0 = torch.arange(n, device="cuda", dtype=torch.int64)
    c1 = c2 = c3 = torch.zeros_like(c0)
    for _ in range(rounds):
        hi_b, lo_b = _mul_hi_lo(c2, PHILOX_ROUND_B)
        hi_a, lo_a = _mul_hi_lo(c0, PHILOX_ROUND_A)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + PHILOX_KEY_A) & M32, (k1 + PHILOX_KEY_B) & M32
    return c0, c1, c2, c3


def as_int32(words):
    return torch.where(words >= (1 << 31), words - (1 << 32), words).to(torch.int32)


def philox_uniform(seed, n):
    """tl.rand(seed, offsets) for offsets 0..n-1 (fp32, bit-exact)."""
    x = as_int32(philox_words(seed, n)[0]).to(torch.int64)
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(UNIFORM_SCALE, dtype=torch.float32, device="cuda")


def random_seed(kernel, gen):
    """A seed for the kernel's `seed` parameter: above 2**32 when it is 64-bit."""
    seed = int(torch.randint(0, (1 << 31) - 1, (1,), generator=gen, device="cuda").item())
    wide = any(p.name == "seed" and p.dtype in ("i64", "u64") for p in kernel.runtime)
    return seed + (5 << 32) if wide else seed


def drive_dropout(kernel, case, n, use_triton, gen):
    dt = torch_dtype(case.dtype)
    check = Check(case, f"n={n}")
    p = fp32_value(case_manifest.DROPOUT_P)
    seed = random_seed(kernel, gen)
    x = rand_float(n + GUARD, dt, gen)
    values = {"X": x, "Out": torch.empty_like(x), "n": n, "p": p, "seed": seed}
    keep = philox_uniform(seed, n) > p
    one_minus_p = fp32_value(1.0 - p)        # 1 - p in fp32 (p and 1 are exact there)
    ref = torch.where(keep, x[:n].double() / one_minus_p, 0.0)
    # fp32 `/` in Triton is div.full.f32 (within 2 ulp); dropped elements must be exactly 0.
    out = Expect("Out", lambda t: t[:n], ref, rtol=3e-7, ulps=1, same_as_triton=True,
                 rest=lambda t: t[n:])
    check.note(f"seed {seed}")
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None),
                         use_triton, {"x": x[:n]})


def drive_rand(kernel, case, n, use_triton, gen):
    """rand_kernel (tl.rand) and randint_kernel (tl.randint): bit-exact streams."""
    check = Check(case, f"n={n}")
    seed = random_seed(kernel, gen)
    if case.driver == "randint":
        out_buf, ref = torch.empty(n + GUARD, device="cuda", dtype=torch.int32), as_int32(philox_words(seed, n)[0])
    else:
        out_buf, ref = torch.empty(n + GUARD, device="cuda", dtype=torch.float32), philox_uniform(seed, n)
    values = {"Out": out_buf, "n": n, "seed": seed}
    out = Expect("Out", lambda t: t[:n], ref, exact=True, rest=lambda t: t[n:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None),
                         use_triton, None)


def scan_input(size, dtype, gen):
    return rand_ints(size, dtype, gen) if not dtype.is_floating_point else rand_float(size, dtype, gen)


def drive_cumsum(kernel, case, n, use_triton, gen):
    """cumsum_kernel: an independent inclusive scan in every block of BLOCK_SIZE."""
    dt = torch_dtype(case.dtype)
    block = kernel.constexprs["BLOCK_SIZE"]
    check = Check(case, f"n={n}")
    x = scan_input(n + GUARD, dt, gen)
    values = {"X": x, "Y": torch.empty_like(x), "N": n}
    wide = torch.float64 if dt.is_floating_point else torch.int64
    blocks = torch.zeros(n + (-n) % block, device="cuda", dtype=wide)
    blocks[:n] = x[:n].to(wide)
    blocks = blocks.view(-1, block)
    ref = blocks.cumsum(1).reshape(-1)[:n]
    if dt.is_floating_point:
        out = Expect("Y", lambda t: t[:n], ref, atol=RED_RTOL * blocks.abs().cumsum(1).reshape(-1)[:n],
                     rest=lambda t: t[n:])
    else:
        out = Expect("Y", lambda t: t[:n], ref.to(dt), exact=True, rest=lambda t: t[n:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None),
                         use_triton, {"x": x[:n]})


def drive_cumsum_rows(kernel, case, shape, use_triton, gen):
    M, N, stride = shape
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{M}x{N} stride {stride}")
    x = scan_input(M * stride + GUARD, dt, gen)
    values = {"X": x, "Y": torch.empty_like(x), "M": M, "N": N, "stride": stride}
    xs = matrix(x, M, N, stride)
    view, rest = (lambda t: matrix(t, M, N, stride)), (lambda t: outside_matrix(t, M, N, stride))
    if dt.is_floating_point:
        x64 = xs.double()
        out = Expect("Y", view, x64.cumsum(1), atol=RED_RTOL * x64.abs().cumsum(1), rest=rest)
    else:
        out = Expect("Y", view, xs.to(torch.int64).cumsum(1).to(dt), exact=True, rest=rest)
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None),
                         use_triton, {"x": xs})


# ---- atomics, the normal generator, reverse products, transposes ---------------------------

def drive_histogram(kernel, case, n, use_triton, gen):
    """histogram_kernel: exact counts (integer atomics with heavy contention)."""
    bins = kernel.constexprs["NUM_BINS"]
    check = Check(case, f"n={n}")
    x = torch.randint(0, 1000, (n + GUARD,), generator=gen, device="cuda", dtype=torch.int32)
    hist = torch.empty(bins + GUARD, device="cuda", dtype=torch.int32)
    values = {"X": x, "Hist": hist, "n": n}
    ref = torch.bincount((x[:n] % bins).long(), minlength=bins).to(torch.int32)
    out = Expect("Hist", lambda t: t[:bins], ref, exact=True, rest=lambda t: t[bins:],
                 init=lambda t: t[:bins].zero_())
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


def drive_group_ptrs(kernel, case, sizes, use_triton, gen):
    """group_scale_kernel: program g scales group g's fp16 array by `scale`, the arrays found
    through tables of addresses (SRCS, DSTS).  The groups lie in one buffer, 16-byte aligned,
    with gaps the kernel must not write; DSTS is filled for each run's fresh output."""
    check = Check(case, "groups " + "/".join(map(str, sizes)))
    scale = fp32_value(0.75)
    starts, at = [], 0
    for n in sizes:
        starts.append(at)
        at += n + 8 + (-(n + 8)) % 8
    total = at + GUARD
    src = rand_float(total, torch.float16, gen, scale=3.0)
    out = torch.empty(total, dtype=torch.float16, device="cuda")
    srcs = torch.tensor([src.data_ptr() + 2 * s for s in starts], dtype=torch.int64, device="cuda")
    dsts = torch.zeros(len(sizes), dtype=torch.int64, device="cuda")
    values = {"SRCS": srcs, "DSTS": dsts, "SIZES": torch.tensor(sizes, dtype=torch.int32, device="cuda"),
              "scale": scale, "OUT": out}
    idx = torch.cat([torch.arange(s, s + n, device="cuda") for s, n in zip(starts, sizes)])
    gap = torch.ones(total, dtype=torch.bool, device="cuda")
    gap[idx] = False
    ref = (src[idx].float() * scale).half()

    def point_dsts(t):
        dsts.copy_(torch.tensor([t.data_ptr() + 2 * s for s in starts], dtype=torch.int64, device="cuda"))

    expect = Expect("OUT", lambda t: t[idx], ref, exact=True, rest=lambda t: t[gap], init=point_dsts)
    return run_and_check(kernel, check, values, [expect], (len(sizes), 1, 1), use_triton)


def drive_bits(kernel, case, n, use_triton, gen):
    """bits_kernel: atomic max/min/and/or/xor (int32) and max/min (fp32) into 8 slots each;
    the results do not depend on the order of the updates, so they are exact."""
    check = Check(case, f"n={n}")
    xi = torch.randint(-(1 << 30), 1 << 30, (n + GUARD,), generator=gen, device="cuda", dtype=torch.int32)
    xf = rand_float(n + GUARD, torch.float32, gen, spread=20)
    slots = torch.arange(n, device="cuda") % 8
    init_i = torch.tensor([-(1 << 31)] * 8 + [(1 << 31) - 1] * 8 + [-1] * 8 + [0] * 16,
                          device="cuda", dtype=torch.int64).to(torch.int32)
    init_f = torch.tensor([float("-inf")] * 8 + [float("inf")] * 8, device="cuda")
    ref_i, ref_f = init_i.clone().long(), init_f.clone().double()
    v, w = xi[:n].long(), xf[:n].double()
    for k in range(8):
        sel = slots == k
        if bool(sel.any()):
            vi, vf = v[sel], w[sel]
            ref_i[k] = max(int(ref_i[k]), int(vi.max()))
            ref_i[8 + k] = min(int(ref_i[8 + k]), int(vi.min()))
            a, o, x_ = -1, 0, 0
            for b in vi.tolist():
                a, o, x_ = a & b, o | b, x_ ^ b
            ref_i[16 + k], ref_i[24 + k], ref_i[32 + k] = a, o, x_
            ref_f[k] = max(float(ref_f[k]), float(vf.max()))
            ref_f[8 + k] = min(float(ref_f[8 + k]), float(vf.min()))
    values = {"XI": xi, "XF": xf, "AccI": torch.empty(40 + GUARD, device="cuda", dtype=torch.int32),
              "AccF": torch.empty(16 + GUARD, device="cuda"), "n": n}
    outs = [Expect("AccI", lambda t: t[:40], ref_i.to(torch.int32), exact=True, rest=lambda t: t[40:],
                   init=lambda t: t[:40].copy_(init_i)),
            Expect("AccF", lambda t: t[:16], ref_f.float(), exact=True, rest=lambda t: t[16:],
                   init=lambda t: t[:16].copy_(init_f))]
    return run_and_check(kernel, check, values, outs, grid_for(kernel, case, values, None), use_triton)


def drive_ticket(kernel, case, n, use_triton, gen):
    """ticket_kernel: n programs each take a ticket (a scalar atomic_add whose old value is
    used); the tickets are a permutation of 0..n-1 and the counter ends at n."""
    check = Check(case, f"{n} programs")
    values = {"Counter": torch.empty(1 + GUARD, device="cuda", dtype=torch.int32),
              "Tickets": torch.empty(n + GUARD, device="cuda", dtype=torch.int32)}
    results = run_impls(kernel, check, values, ["Counter", "Tickets"], (n,), use_triton,
                        {"Counter": lambda t: t[:1].zero_()})
    want = torch.arange(n, device="cuda", dtype=torch.int32)
    for impl, res in results.items():
        got = res["Tickets"][:n].sort().values
        if not torch.equal(got, want):
            check.fail(f"{impl}: tickets are not a permutation of 0..{n - 1}")
        if int(res["Counter"][0]) != n:
            check.fail(f"{impl}: counter ends at {int(res['Counter'][0])}, not {n}")
        if not guard_intact(res["Tickets"], n) or not guard_intact(res["Counter"], 1):
            check.fail(f"{impl} wrote past the end")
    if not check.problems:
        check.note("tickets 0..n-1 each taken once" + (" (tilec and Triton)" if len(results) > 1 else ""))
    return check.print()


def drive_swap(kernel, case, n, use_triton, gen):
    """swap_kernel (atomic_xchg) and cas_kernel (atomic_cas): old values are returned."""
    check = Check(case, f"n={n}")
    block = kernel.constexprs["BLOCK_SIZE"]
    padded = n + (-n) % block + GUARD
    init = torch.randint(-5, 5, (padded,), generator=gen, device="cuda", dtype=torch.int32)
    vals = torch.randint(-5, 5, (padded,), generator=gen, device="cuda", dtype=torch.int32)
    values = {"Slots": torch.empty(padded, device="cuda", dtype=torch.int32), "Vals": vals, "n": n,
              "Old": torch.empty(n + GUARD, device="cuda", dtype=torch.int32)}
    if case.driver == "cas":
        cmp = torch.randint(-5, 5, (padded,), generator=gen, device="cuda", dtype=torch.int32)
        values["Cmp"] = cmp
        final = torch.where(init == cmp, vals, init)[:n]
    else:
        final = vals[:n]
    outs = [Expect("Old", lambda t: t[:n], init[:n], exact=True, rest=lambda t: t[n:]),
            Expect("Slots", lambda t: t[:n], final, exact=True, init=lambda t: t.copy_(init))]
    return run_and_check(kernel, check, values, outs, grid_for(kernel, case, values, None), use_triton)


def drive_randn(kernel, case, n, use_triton, gen):
    """randn_kernel: Box-Muller on Philox words 0 and 1, as tl.randn; bit-identical to
    Triton, and within the approximate log/sqrt/cos of a float64 evaluation."""
    check = Check(case, f"n={n}")
    seed = random_seed(kernel, gen)
    c0, c1, _, _ = philox_words(seed, n)

    def uniform(words):
        x = as_int32(words).to(torch.int64)
        x = torch.where(x < 0, -x - 1, x)
        return x.double() * UNIFORM_SCALE
    u1, u2 = uniform(c0).clamp(min=1e-7), uniform(c1)
    ref = torch.sqrt(-2.0 * torch.log(u1)) * torch.cos(2 * math.pi * u2)
    values = {"Out": torch.empty(n + GUARD, device="cuda"), "n": n, "seed": seed}
    out = Expect("Out", lambda t: t[:n], ref, rtol=1e-4, atol=1e-4, same_as_triton=True,
                 rest=lambda t: t[n:])
    check.note(f"seed {seed}")
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


def drive_cumprod_rev(kernel, case, n, use_triton, gen):
    """cumprod_rev_kernel: suffix products within each block, against float64."""
    block = kernel.constexprs["BLOCK_SIZE"]
    check = Check(case, f"n={n}")
    x = (1 + 0.01 * torch.randn(n + GUARD, generator=gen, device="cuda")).float()
    values = {"X": x, "Y": torch.empty_like(x), "N": n}
    blocks = torch.ones(n + (-n) % block, device="cuda", dtype=torch.float64)
    blocks[:n] = x[:n].double()
    blocks = blocks.view(-1, block)
    ref = blocks.flip(1).cumprod(1).flip(1).reshape(-1)[:n]
    out = Expect("Y", lambda t: t[:n], ref, rtol=block * 1.2e-7, rest=lambda t: t[n:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton,
                         {"x": x[:n]})


def drive_transpose(kernel, case, shape, use_triton, gen):
    """transpose_kernel: exact, gaps between output rows untouched."""
    M, N = shape
    check = Check(case, f"{M}x{N}")
    sx, sy = N + (-N) % 16, M + (-M) % 16 + 16
    x = rand_float(M * sx + GUARD, torch.float32, gen)
    values = {"X": x, "Y": torch.empty(N * sy + GUARD, device="cuda"), "M": M, "N": N,
              "stride_x": sx, "stride_y": sy}
    ref = matrix(x, M, N, sx).t()
    out = Expect("Y", lambda t: matrix(t, N, M, sy), ref, exact=True, rest=lambda t: outside_matrix(t, N, M, sy))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


# ---- block pointers and tensor descriptors: tests/golden/block_ptr_*.py, tensor_desc_*.py ---

def drive_colmajor_copy(kernel, case, shape, use_triton, gen):
    """colmajor_copy_kernel: y = 2x + 1 on an M x N matrix stored by columns (order=(0, 1)),
    the columns padded to a multiple of 16 plus 16 elements whose gap must keep its poison;
    exact (2x is exact in fp32, so one rounding either way)."""
    M, N = shape
    check = Check(case, f"{M}x{N}")
    ld = M + (-M) % 16 + 16
    x = rand_float(N * ld + GUARD, torch.float32, gen)
    values = {"x_ptr": x, "y_ptr": torch.empty(N * ld + GUARD, device="cuda"), "M": M, "N": N,
              "ld_x": ld, "ld_y": ld}
    ref = matrix(x, N, M, ld) * 2.0 + 1.0      # row j of this view is column j of the matrix
    out = Expect("y_ptr", lambda t: matrix(t, N, M, ld), ref, exact=True,
                 rest=lambda t: outside_matrix(t, N, M, ld))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


def drive_desc_abs(kernel, case, shape, use_triton, gen):
    """desc_abs_kernel: y = |x| through tensor descriptors made in the kernel, on an M x N fp16
    matrix with rows padded to 16 elements; exact, the padding untouched.  Triton keeps its
    TMA descriptors (sm_90) in memory from triton.set_allocator (load_triton_kernel)."""
    M, N = shape
    check = Check(case, f"{M}x{N}")
    sm = N + (-N) % 16
    x = rand_float(M * sm + GUARD, torch.float16, gen)
    values = {"x_ptr": x, "y_ptr": torch.empty(M * sm + GUARD, device="cuda", dtype=torch.float16),
              "M": M, "N": N, "stride_m": sm}
    out = Expect("y_ptr", lambda t: matrix(t, M, N, sm), matrix(x, M, N, sm).abs(), exact=True,
                 rest=lambda t: outside_matrix(t, M, N, sm))
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


def drive_desc_row_sum(kernel, case, shape, use_triton, gen):
    """desc_row_sum_kernel: the row sums of an M x N fp32 matrix (rows padded to 16 elements)
    that the kernel receives as a host TensorDescriptor; within fp32 summation error of the
    float64 sums."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    M, N = shape
    check = Check(case, f"{M}x{N}")
    sm = N + (-N) % 16
    x = rand_float(M * sm + GUARD, torch.float32, gen)
    block = next(p.block for p in kernel.params if p.kind == "desc")
    values = {"x_desc": TensorDescriptor(x, [M, N], [sm, 1], block),
              "out_ptr": torch.empty(M + GUARD, device="cuda"), "M": M, "N": N}
    X = matrix(x, M, N, sm).double()
    out = Expect("out_ptr", lambda t: t[:M], X.sum(1), atol=X.abs().sum(1) * 1e-5,
                 rest=lambda t: t[M:])
    return run_and_check(kernel, check, values, [out], grid_for(kernel, case, values, None), use_triton)


def drive_desc_axpb(kernel, case, shape, use_triton, gen):
    """desc_axpb_kernel (tests/golden/tma_store.py): y = 2x + 1 through host TensorDescriptors,
    both M x N stored by rows padded to 16 bytes and then 16 bytes more, a gap the store must
    leave poisoned (Triton's TMA store may write it where a row's length is not a multiple of
    16 bytes: case.opts triton_writes_out_of_bounds).  2x is exact and + 1 rounds once in
    fp32; 16-bit types may round twice on the way (fp32, then the type): within 1 ulp of the
    float64 value rounded to the type, and of Triton's."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    M, N = shape
    descs = {p.name: p for p in kernel.params if p.kind == "desc"}
    dt = torch_dtype(descs["x_desc"].dtype)
    check = Check(case, f"{M}x{N}")
    per16 = 16 // torch.empty(0, dtype=dt).element_size()
    ld = N + (-N) % per16 + per16
    x = rand_float(M * ld + GUARD, dt, gen)
    y0 = torch.empty(M * ld + GUARD, device="cuda", dtype=dt)
    ref = (matrix(x, M, N, ld).double() * 2 + 1).to(dt)
    grid = grid_for(kernel, case, {"M": M, "N": N, "x_desc": None, "y_desc": None}, None)
    outs = {}
    for impl in implementations(kernel, use_triton):
        y = poisoned_like(y0)
        values = {"x_desc": TensorDescriptor(x, [M, N], [ld, 1], descs["x_desc"].block),
                  "y_desc": TensorDescriptor(y, [M, N], [ld, 1], descs["y_desc"].block), "M": M, "N": N}
        err = (kernel.launch_tilec if impl == "tilec" else kernel.launch_triton)(values, grid)
        if err:
            check.fail(f"{impl}: {err}")
            continue
        rest = outside_matrix(y, M, N, ld)
        if not bool((bits(rest) == bits(poison_(torch.empty_like(rest)))).all()):
            if impl == "triton" and (N * y.element_size()) % 16:
                check.note(f"Triton wrote y outside its elements ({case.opts['triton_writes_out_of_bounds']})")
            else:
                check.fail(f"{impl} wrote y outside its [M, N] elements")
        out = matrix(y, M, N, ld)
        outs[impl] = out
        msg = describe_bad(ulp_distance(out, ref) > (0 if dt == torch.float32 else 1), out, ref)
        if msg:
            check.fail(f"{impl} y vs reference: {msg}")
    if "tilec" in outs and "triton" in outs:
        msg = describe_bad(ulp_distance(outs["tilec"], outs["triton"]) > 1, outs["tilec"], outs["triton"])
        if msg:
            check.fail(f"tilec vs Triton: {msg}")
    return check.print()


def drive_matmul_desc(kernel, case, shape, use_triton, gen):
    """matmul_tma_persistent_kernel: C = A @ B through host TensorDescriptors, A [M, K], B given
    as [N, K] (row n is column n of B) and C [M, N], each stored by rows padded to 16 bytes and
    then 16 bytes more, a gap that must keep its poison (Triton's TMA store may write it where a
    row's length is not a multiple of 16 bytes: case.opts triton_writes_out_of_bounds).  Blocks
    past the edges read zeros, so the K tail needs no mask."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    M, N, K, data = shape
    descs = {p.name: p for p in kernel.params if p.kind == "desc"}
    dt = torch_dtype(descs["a_desc"].dtype)
    check = Check(case, f"{M}x{N}x{K} {data}")
    per16 = 16 // torch.empty(0, dtype=dt).element_size()

    def place(rows, cols, make):
        ld = cols + (-cols) % per16 + per16
        return make(rows * ld + GUARD), ld

    def fill(n):
        if data == "ints":
            return rand_ints(n, torch.float32, gen, -4, 5).to(dt)
        return rand_float(n, dt, gen)
    a, lda = place(M, K, fill)
    b, ldb = place(N, K, fill)
    c0, ldc = place(M, N, lambda n: torch.empty(n, device="cuda", dtype=dt))
    A, B = matrix(a, M, K, lda).double(), matrix(b, N, K, ldb).double()
    ref = A @ B.T
    exact = data == "ints"
    tol = MATMUL_TOL["fp16" if dt == torch.float16 else "bf16"]
    bound = max(2 * tol * (ref.abs().max().item() or 1.0), 1e-6)
    base = {"M": M, "N": N, "K": K}
    grid = grid_for(kernel, case, dict(base, a_desc=None, b_desc=None, c_desc=None), None)
    outs = {}
    impls = implementations(kernel, use_triton)
    for impl in impls:
        c = poisoned_like(c0)
        values = dict(base, a_desc=TensorDescriptor(a, [M, K], [lda, 1], descs["a_desc"].block),
                      b_desc=TensorDescriptor(b, [N, K], [ldb, 1], descs["b_desc"].block),
                      c_desc=TensorDescriptor(c, [M, N], [ldc, 1], descs["c_desc"].block))
        err = (kernel.launch_tilec if impl == "tilec" else kernel.launch_triton)(values, grid)
        if err:
            check.fail(f"{impl}: {err}")
            continue
        rest = outside_matrix(c, M, N, ldc)
        if not bool((bits(rest) == bits(poison_(torch.empty_like(rest)))).all()):
            known = impl == "triton" and case.opts.get("triton_writes_out_of_bounds") and (N * c.element_size()) % 16
            if known:
                check.note(f"Triton wrote C outside its elements ({case.opts['triton_writes_out_of_bounds']})")
            else:
                check.fail(f"{impl} wrote C outside its [M, N] elements")
        out = matrix(c, M, N, ldc)
        outs[impl] = out
        if exact:
            msg = describe_bad(out != ref.to(dt), out, ref.to(dt))
        else:
            msg = describe_bad(where_bad_tol(out, ref, 0.0, bound, 0), out, ref)
            err_n = (out.double() - ref).norm().item() / (ref.norm().item() or 1.0)
            if not msg and not err_n <= tol and M * N:
                msg = f"normwise error {err_n:.3g} above {tol:g}"
        if msg:
            check.fail(f"{impl} C vs reference: {msg}")
    if "tilec" in outs and "triton" in outs:
        x, y = outs["tilec"], outs["triton"]
        same = bits(x) == bits(y)
        bad = ~same if exact else where_bad_tol(x, y.double(), 0.0, bound, 0) & ~same
        msg = describe_bad(bad, x, y)
        if msg:
            check.fail(f"C: tilec vs Triton: {msg}")
        elif not check.problems and same.numel():
            check.note(f"{100 * same.float().mean().item():.2f}% bit-identical to Triton")
    return check.print()


def drive_attn_desc(kernel, case, shape, use_triton, gen):
    """attn_fwd_desc: attention over ZH heads of N_CTX rows each, Q, K and V given as host
    TensorDescriptors over [ZH * N_CTX, HEAD_DIM] matrices, Out [ZH * N_CTX, HEAD_DIM] by
    pointers (rows padded by 8 elements, the gaps poisoned and checked); against a float64
    softmax(Q K^T * sm_scale) V per head (causal when CAUSAL), and against Triton."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    zh, n = shape
    c = kernel.constexprs
    d, bm, causal = c["HEAD_DIM"], c["BLOCK_M"], c["CAUSAL"]
    descs = {p.name: p for p in kernel.params if p.kind == "desc"}
    dt = torch_dtype(descs["q_desc"].dtype)
    check = Check(case, f"{zh} heads x {n}")
    rows = zh * n
    q, k, v = (rand_float(rows * d, dt, gen).view(rows, d) for _ in range(3))
    ld = d + 8
    out0 = torch.empty(rows * ld + GUARD, device="cuda", dtype=dt)
    scale = 1.0 / d ** 0.5
    Q, K, V = (t.double().view(zh, n, d) for t in (q, k, v))
    sc = Q @ K.transpose(1, 2) * scale
    if causal:
        sc = sc.masked_fill(torch.ones(n, n, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    ref = (torch.softmax(sc, -1) @ V).reshape(rows, d)
    grid = (-(-n // bm), zh, 1)
    outs = {}
    impls = implementations(kernel, use_triton)
    for impl in impls:
        out = poisoned_like(out0)
        values = {"q_desc": TensorDescriptor(q, [rows, d], [d, 1], descs["q_desc"].block),
                  "k_desc": TensorDescriptor(k, [rows, d], [d, 1], descs["k_desc"].block),
                  "v_desc": TensorDescriptor(v, [rows, d], [d, 1], descs["v_desc"].block),
                  "Out": out, "sm_scale": scale, "N_CTX": n, "stride_om": ld}
        err = (kernel.launch_tilec if impl == "tilec" else kernel.launch_triton)(values, grid)
        if err:
            check.fail(f"{impl}: {err}")
            continue
        rest = outside_matrix(out, rows, d, ld)
        if not bool((bits(rest) == bits(poison_(torch.empty_like(rest)))).all()):
            check.fail(f"{impl} wrote Out outside its rows")
        got = matrix(out, rows, d, ld)
        outs[impl] = got
        msg = describe_bad(where_bad_tol(got, ref, 2e-2, 2e-2, 0), got, ref)
        if msg:
            check.fail(f"{impl} Out vs reference: {msg}")
    if "tilec" in outs and "triton" in outs:
        x, y = outs["tilec"], outs["triton"]
        msg = describe_bad(where_bad_tol(x, y.double(), 1e-2, 1e-2, 0), x, y)
        if msg:
            check.fail(f"Out: tilec vs Triton: {msg}")
        elif not check.problems:
            err = (x.double() - y.double()).abs().max().item()
            check.note(f"max |tilec - Triton| {err:.2g}")
    return check.print()


# ---- fp8 conversions: tests/golden/fp8_casts.py --------------------------------------------

# Saturation (448 and 57344 with their ties, the fp16 overflow 65520, infinities), ties in
# the normal and subnormal ranges of both types and next to them (1.0625001: a tie on sm_89
# after its fp16 step, not on sm_90), subnormals of fp8 and fp32, zeros, NaNs of both signs.
FP8_SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 448.0, -448.0, 449.0, 464.0,
                465.0, 480.0, 1e4, 57344.0, 61439.0, 61440.0, 65504.0, 65520.0, 1e30, -3.4e38,
                1.0625, 1.0625001, -1.0625001, 1.125, 1.1875, 1.375, 2.0 ** -6, 1.5 * 2.0 ** -7,
                2.0 ** -9, 2.0 ** -10, 1.5 * 2.0 ** -10, 3 * 2.0 ** -10, 2.0 ** -11, 2.0 ** -14,
                2.0 ** -16, 2.0 ** -17, 1.5 * 2.0 ** -17, 3 * 2.0 ** -17, 2.0 ** -18, 1e-40, -1e-40,
                1e-45, 0.1, -0.3, 232.0, 240.0, 248.0, 3.0e-3]


def fp8_isnan(q):
    b = q.view(torch.uint8).to(torch.int32) & 0x7F
    return b == 0x7F if q.dtype == torch.float8_e4m3fn else b > 0x7C


def fp8_ties(count, fp8, gen):
    """count values halfway between neighbouring finite fp8 values of type fp8, a third of
    them moved one fp32 ulp up or down, with random signs (fp32)."""
    top = 0x7E if fp8 == torch.float8_e4m3fn else 0x7B      # the largest finite code
    codes = torch.randint(0, top, (count,), generator=gen, device="cuda").to(torch.uint8)
    mid = (codes.view(fp8).float() + (codes + 1).view(fp8).float()) / 2
    nudge = torch.randint(-1, 2, (count,), generator=gen, device="cuda")
    away = torch.where(nudge > 0, torch.full_like(mid, math.inf), torch.full_like(mid, -math.inf))
    mid = torch.where(nudge != 0, torch.nextafter(mid, away), mid)
    sign = torch.randint(0, 2, (count,), generator=gen, device="cuda") * 2 - 1
    return mid * sign


def fp8_inputs(size, dt, gen):
    """FP8_SPECIALS, then ties of both fp8 types (512 each), then random values over
    2^-20..2^20, as dt."""
    x = rand_float(size, torch.float32, gen, spread=20)
    lead = torch.cat([torch.tensor(FP8_SPECIALS, dtype=torch.float32, device="cuda"),
                      fp8_ties(512, torch.float8_e4m3fn, gen), fp8_ties(512, torch.float8_e5m2, gen)])
    k = min(size, lead.numel())
    x[:k] = lead[:k]
    return x.to(dt)


def fp16_rz_bits(x32):
    """The fp16 encoding (int32 in [0, 0xffff]) of fp32 x32 rounded toward zero, as
    cvt.rz.f16.f32: round to nearest, then one step toward zero where that went up in
    magnitude (infinity included: beyond 65504, rounding toward zero gives 65504)."""
    h = x32.to(torch.float16)
    hb = h.view(torch.int16).to(torch.int32) & 0xFFFF
    return torch.where(h.float().abs() > x32.abs(), hb - 1, hb)


def fp16_from_bits(b):
    return torch.where(b >= 0x8000, b - 0x10000, b).to(torch.int16).view(torch.float16)


def fp8_reference(x, fp8, rtz, sm89):
    """Triton 3.6's conversion of x (fp32, fp16 or bf16) to fp8 (a torch float8 type): to
    nearest even with saturation (torch rounds alike but does not saturate, hence the
    clamp; NaN stays NaN); with rtz (fp32 to e5m2 only), fp32 to fp16 toward zero, then the
    fp16's high byte; on sm_89 an fp32 source first goes to fp16 toward zero."""
    x32 = x.float()
    if rtz:
        return (fp16_rz_bits(x32) >> 8).to(torch.uint8).view(fp8)
    if sm89 and x.dtype == torch.float32:
        x32 = fp16_from_bits(fp16_rz_bits(x32)).float()
    top = 448.0 if fp8 == torch.float8_e4m3fn else 57344.0     # the largest finite values
    return x32.clamp(-top, top).to(fp8)


def fp8_upcast_reference(q, dt):
    """q (fp8) as dt: exact, except that Triton's e5m2 -> bf16 turns the infinity and NaN
    codes into +-2^16 * (1 + m/4) (templates/tilec_runtime_fp8.cuh, e5m2_to_bf16)."""
    r = q.to(dt)
    if dt == torch.bfloat16 and q.dtype == torch.float8_e5m2:
        b = q.view(torch.uint8).to(torch.int32)
        mag = 65536.0 * (1 + (b & 3).float() / 4)
        special = torch.where(b >= 0x80, -mag, mag).to(dt)
        r = torch.where((b & 0x7C) == 0x7C, special, r)
    return r


def where_bad_value(out, ref):
    """Bits differ, unless both are NaN (whose bits are the hardware's choice)."""
    def nan(t):
        return fp8_isnan(t) if is_fp8(t) else torch.isnan(t)
    return ~((bits(out) == bits(ref)) | (nan(out) & nan(ref)))


def drive_fp8(kernel, case, n, use_triton, gen):
    """tests/golden/fp8_casts.py: fp8_roundtrip_kernel (x -> fp8 q -> y of x's type),
    fp8_store_kernel (x -> q by tl.store's conversion) and fp8_upcast_kernel (the fp8 codes
    0..255 in turn -> fp16 h, bf16 b, and |q| as fp32 f)."""
    check = Check(case, f"n={n}")
    ptr = {p.name: torch_dtype(p.dtype) for p in kernel.runtime if p.kind == "ptr"}
    values = {"n": n}
    if "x_ptr" in ptr:
        x = fp8_inputs(n + GUARD, ptr["x_ptr"], gen)
        inputs = {"x": x[:n]}
        sm89 = torch.cuda.get_device_capability() == (8, 9)
        q_ref = fp8_reference(x[:n], ptr["q_ptr"], bool(kernel.constexprs.get("RTZ")), sm89)
        refs = {"q_ptr": q_ref}
        if "y_ptr" in ptr:
            refs["y_ptr"] = fp8_upcast_reference(q_ref, ptr["y_ptr"])
        values["x_ptr"] = x
    else:
        codes = (torch.arange(n + GUARD, device="cuda") % 256).to(torch.uint8)
        q = codes.view(ptr["q_ptr"])
        inputs = {"code": codes[:n]}
        values["q_ptr"] = q
        refs = {"h_ptr": fp8_upcast_reference(q[:n], torch.float16),
                "b_ptr": fp8_upcast_reference(q[:n], torch.bfloat16),
                "f_ptr": fp8_upcast_reference((codes[:n] & 0x7F).view(ptr["q_ptr"]), torch.float32)}
    for name in refs:
        values[name] = torch.empty(n + GUARD, dtype=ptr[name], device="cuda")
    grid = grid_for(kernel, case, values, (-(-n // kernel.constexprs["BLOCK"]),))
    results = run_impls(kernel, check, values, sorted(refs), grid, use_triton)
    # Triton 3.6 on sm_90 gets bf16 -> fp8e5 wrong (0.0 becomes 512.0, about half of all values
    # are off; fp8_roundtrip_kernel of tests/golden/fp8_casts.py with "*bf16:16, *fp8e5:16, ..." is
    # the reproducer): there tilec is held to the
    # reference alone, and Triton's errors are reported as a note.
    triton_wrong = case.name.startswith("fp8_roundtrip/bf16-fp8e5")
    for impl, res in results.items():
        for name, ref in sorted(refs.items()):
            buf = res[name]
            if not guard_intact(buf, n):
                check.fail(f"{impl} wrote {name} past element {n}")
            msg = describe_bad(where_bad_value(buf[:n], ref), buf[:n], ref, inputs)
            if msg and impl == "triton" and triton_wrong:
                check.note(f"Triton's known bf16 -> fp8e5 defect: {name} vs reference: {msg}")
                results = {k: v for k, v in results.items() if k != "triton"}
                break
            if msg:
                check.fail(f"{impl} {name} vs reference: {msg}")
    if "tilec" in results and "triton" in results:
        for name in sorted(refs):
            a, b = results["tilec"][name][:n], results["triton"][name][:n]
            msg = describe_bad(bits(a) != bits(b), a, b, inputs)
            if msg:
                check.fail(f"{name}: tilec vs Triton: {msg}")
        if not check.problems:
            check.note(f"outputs {sorted(refs)} match the reference and are bit-identical to Triton")
    elif "tilec" in results and not check.problems:
        check.note("matches reference" + ("" if use_triton else " (no Triton)"))
    elif "triton" in results and not check.problems:
        check.note("Triton matches reference (tilec not run)")
    return check.print()


# ---- tl.dot: examples/matmul.py ----------------------------------------------------------

def place_matrix(batch, rows, cols, order, align, pad, batch_gap, fill):
    """A flat buffer of random elements (fill(n)) holding a [batch, rows, cols] matrix stored
    by rows or by columns, with a leading dimension rounded up to `align` elements plus `pad`,
    batch_gap elements between batches and GUARD after the end.  Returns (buffer, the
    [batch, rows, cols] view into it, strides (batch, row, column) in elements)."""
    inner, outer = (cols, rows) if order == "row" else (rows, cols)
    ld = -(-inner // align) * align + pad
    sb = outer * ld + batch_gap
    strides = (sb, ld, 1) if order == "row" else (sb, 1, ld)
    buf = fill(batch * sb + GUARD)
    return buf, torch.as_strided(buf, (batch, rows, cols), strides), strides


def sig_divisible_by_16(case, kernel):
    """Names of the scalar parameters whose -s entry promises ':16'."""
    out = set()
    for i, entry in enumerate(split_signature(case.sig)):
        m = re.match(r"^([A-Za-z_]\w*)\s*=\s*(.+)$", entry)
        name, text = (m.group(1), m.group(2)) if m else (kernel.params[i].name, entry)
        if text.strip().endswith(":16") and not text.strip().startswith("*"):
            out.add(name)
    return out


def drive_matmul(kernel, case, shape, use_triton, gen):
    """examples/matmul.py: matmul_kernel, matmul_bias_act_kernel, matmul_block_scaled_kernel,
    bmm_kernel, matmul_at_kernel and matmul_autotuned_kernel.  case.opts: a, b ("row" or "col": how A [M, K] and B [K, N]
    are stored), align (leading dimensions rounded up to it: 16 for ':16' strides), batch,
    batch_gap.  C is stored by rows with a gap after each row (and between batches) that must
    keep its poison; see cases.py for the data modes."""
    M, N, K, data = shape
    o = case.opts
    batch, align, gap = o.get("batch", 1), o.get("align", 16), o.get("batch_gap", 0)
    ptrs = {p.name: p for p in kernel.params if p.kind == "ptr"}
    a_name = "at_ptr" if "at_ptr" in ptrs else "a_ptr"
    in_dt, out_dt = torch_dtype(ptrs[a_name].dtype), torch_dtype(ptrs["c_ptr"].dtype)
    b_dt = torch_dtype(ptrs["b_ptr"].dtype)
    fp8 = in_dt in (torch.float8_e4m3fn, torch.float8_e5m2)
    check = Check(case, f"{M}x{N}x{K}" + (f"x{batch}" if batch > 1 else "") + f" {data}")

    def fill(dt):
        def make(n):
            if not dt.is_floating_point:
                return rand_ints(n, dt, gen, -128, 128)
            if data == "ints":
                return rand_ints(n, torch.float32, gen, -4, 5).to(dt)
            return rand_float(n, dt, gen)
        return make
    a_buf, A, sa = place_matrix(batch, M, K, o.get("a", "row"), align, 0, gap, fill(in_dt))
    b_buf, B, sb = place_matrix(batch, K, N, o.get("b", "row"), align, 0, gap, fill(b_dt))
    c_buf, C, sc = place_matrix(batch, M, N, "row", align, align if align > 1 else 3, gap,
                                lambda n: torch.empty(n, device="cuda", dtype=out_dt))
    written = torch.zeros(c_buf.numel(), dtype=torch.bool, device="cuda")
    torch.as_strided(written, C.shape, C.stride()).fill_(True)

    values = {a_name: a_buf, "b_ptr": b_buf, "c_ptr": c_buf, "M": M, "N": N, "K": K,
              "stride_ab": sa[0], "stride_am": sa[1], "stride_ak": sa[2], "stride_atm": sa[1],
              "stride_atk": sa[2], "stride_bb": sb[0], "stride_bk": sb[1], "stride_bn": sb[2],
              "stride_cb": sc[0], "stride_cm": sc[1], "stride_cn": sc[2]}
    ref = A.double() @ B.double()
    act = kernel.constexprs.get("ACTIVATION")
    if "bias_ptr" in ptrs:
        bias = fill(torch_dtype(ptrs["bias_ptr"].dtype))(N + GUARD)
        values["bias_ptr"] = bias
        ref = ref + bias[:N].double()
    if "scale_ptr" in ptrs:  # matmul_block_scaled_kernel: scale [M, K blocks], by rows
        bk = kernel.constexprs["BLOCK_K"]
        kb = -(-K // bk)
        if data == "ints":  # powers of two keep every sum exact
            s = torch.exp2(rand_ints(M * kb, torch.float32, gen, -2, 3))
        else:
            s = torch.rand(M * kb, generator=gen, device="cuda") * 1.5 + 0.5
        scale = poison_(torch.empty(M * kb + GUARD, device="cuda", dtype=torch.float32))
        scale[:M * kb] = s
        values["scale_ptr"], values["stride_sm"] = scale, kb
        S = s.view(M, kb).double()
        ref = sum(A[..., :, j * bk:(j + 1) * bk].double() @ B[..., j * bk:(j + 1) * bk, :].double() * S[:, j:j + 1]
                  for j in range(kb)) if kb else ref
    # The layout must be the one the signature promises.
    div16 = sig_divisible_by_16(case, kernel)
    for p in kernel.params:
        if p.kind == "const" and p.name in values and values[p.name] != p.value:
            raise ValueError(f"{p.name} is fixed to {p.value} by the signature, but the layout "
                             f"gives {values[p.name]}")
        if p.name in div16 and values[p.name] % 16:
            raise ValueError(f"{p.name} = {values[p.name]} breaks the ':16' of the signature")

    exact = not in_dt.is_floating_point or (data == "ints" and act in (None, "none", "leaky_relu"))
    if act == "leaky_relu" and exact:     # acc + bias is exact: one fp32 multiply, as the kernel
        ref32 = ref.float()
        ref = torch.where(ref32 >= 0, ref32, ref32 * torch.tensor(0.01, device="cuda")).double()
    elif act == "leaky_relu":
        ref = torch.where(ref >= 0, ref, 0.01 * ref)
    elif act == "gelu":
        ref = 0.5 * ref * (1 + torch.erf(ref * 0.7071067811865476))
    if exact:
        want = ref.to(out_dt) if out_dt.is_floating_point else ref.round().to(out_dt)
        bound, tol = None, None
    else:
        precision = kernel.constexprs.get("INPUT_PRECISION", "tf32") if in_dt == torch.float32 else \
            "fp8" if fp8 else {torch.float16: "fp16", torch.bfloat16: "bf16"}[in_dt]
        tol = MATMUL_TOL[precision]
        scale = ref.abs().max().item() or 1.0
        # relative error is normwise, ||out - ref|| / ||ref|| <= tol (tf32 operands are truncated,
        # not rounded, by Triton and tilec alike: one element can be off by 2^-10 of the largest);
        # each element is also held to twice the bound, with an absolute floor (gelu of a negative
        # integer is below fp16's range)
        bound = max(2 * tol * scale, 1e-6)

    bm, bn = kernel.constexprs["BLOCK_M"], kernel.constexprs["BLOCK_N"]
    host_grid = (-(-M // bm) * -(-N // bn), batch)
    grid = grid_for(kernel, case, values, host_grid)
    results = run_impls(kernel, check, values, ["c_ptr"], grid, use_triton)
    outs, errs = {}, {}
    for impl, res in results.items():
        buf = res["c_ptr"]
        rest = buf[~written]
        if rest.numel() and not bool((bits(rest) == bits(poison_(torch.empty_like(rest)))).all()):
            check.fail(f"{impl} wrote C outside its [M, N] elements (the gap after a row, "
                       "between batches, or past the end)")
        out = torch.as_strided(buf, C.shape, C.stride())
        outs[impl] = out
        if exact:  # equal values (a sum that is exactly zero may carry either sign)
            bad = (out != want) if out.is_floating_point() else bits(out) != bits(want)
            msg = describe_bad(bad, out, want)
        else:
            norm_ref = ref.norm().item() or 1.0
            errs[impl] = ((out.double() - ref).norm().item() / norm_ref
                          if not torch.isnan(out).any() else float("nan"))
            msg = describe_bad(where_bad_tol(out, ref, 0.0, bound, 0), out, ref)
            max_abs = (out.double() - ref).abs().max().item() if out.numel() else 0.0
            if not msg and not errs[impl] <= tol and max_abs > 1e-6:
                msg = "normwise error too large"
            if msg:
                msg += f"; ||out - ref|| / ||ref|| = {errs[impl]:.3g} (tolerance {tol:g})"
        if msg:
            check.fail(f"{impl} C vs reference: {msg}")
    if "tilec" in outs and "triton" in outs:
        a, b = outs["tilec"], outs["triton"]
        same = bits(a) == bits(b)
        bad = ~same if exact else where_bad_tol(a, b.double(), 0.0, bound, 0) & ~same
        msg = describe_bad(bad, a, b)
        if msg:
            check.fail(f"C: tilec vs Triton: {msg}")
        elif not check.problems:
            how = "bit-equal to the reference" if exact else \
                f"error {errs['tilec']:.2g} (Triton {errs['triton']:.2g}, tolerance {tol:g})"
            check.note(f"{how}; {100 * same.float().mean().item():.2f}% bit-identical to Triton")
    elif not check.problems and outs:
        who = "matches reference" if "tilec" in outs else "Triton matches reference (tilec not run)"
        check.note(who + ("" if exact else f", error {max(errs.values()):.2g} (tolerance {tol:g})"))
    return check.print()


def drive_bmm3d(kernel, case, shape, use_triton, gen):
    """tests/golden/dot3d.py: bmm3d_kernel and bmm3d_acc_kernel, a 3-D (batched) tl.dot in one
    program: every program computes its BLOCK_M x BLOCK_N tile of all BATCH matrices
    C[i] = A[i] @ B[i] (grid cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)), masked at the M, N and K
    tails.  The batch is the kernel's BATCH constexpr; the rest (strides, gaps, the float64
    reference, tolerances, the poisoned gaps of C) is drive_matmul's."""
    case = dataclasses.replace(case, opts=dict(case.opts, batch=kernel.constexprs["BATCH"]))
    return drive_matmul(kernel, case, shape, use_triton, gen)


def drive_bmm3d_attn(kernel, case, L, use_triton, gen):
    """bmm3d_attn_kernel (tests/golden/dot3d.py): softmax(q k^T * scale) v for each of BATCH
    [L, D] batches in one program's 3-D tiles, L keys (L <= BLOCK_N, the rest masked), one
    program per BLOCK_M rows; against attention_ref in float64."""
    c = kernel.constexprs
    B, D = c["BATCH"], c["D"]
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{B}x{L}x{D}")
    qb, q = flat_with_guard((B, L, D), dt, "randn", gen)
    kb, k = flat_with_guard((B, L, D), dt, "randn", gen)
    vb, v = flat_with_guard((B, L, D), dt, "randn", gen)
    ob, _ = flat_with_guard((B, L, D), dt, "poison", gen)
    scale = fp32_value(1.0 / math.sqrt(D))
    values = {"q_ptr": qb, "k_ptr": kb, "v_ptr": vb, "o_ptr": ob, "L": L, "scale": scale}
    ref, _ = attention_ref(q, k, v, scale, False)
    tol = attn_tol(dt) * max(ref.abs().max().item(), 1.0)
    n = B * L * D
    out = Expect("o_ptr", lambda b: b[:n].view(B, L, D), ref, atol=tol, rtol=attn_tol(dt), rest=lambda b: b[n:])
    grid = grid_for(kernel, case, values, (-(-L // c["BLOCK_M"]),))
    return run_and_check(kernel, check, values, [out], grid, use_triton)


# Inputs of the math-edge cases: every class of fp32 value, then random bit patterns.
MATH_EDGES = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 5.9e-39, -5.9e-39, 1.1754942e-38,
              -1.1754942e-38, 1.1754944e-38, 1.2e-38, -1.2e-38, 1e-30, 0.5, 1.0, -1.0, 2.0, 3.5,
              100.0, -100.0, 1e30, -1e30, float("inf"), float("-inf"), float("nan"), 88.0, 89.0,
              -87.0, -88.0, -100.0, -103.0, -104.0, -126.0, -126.5, -127.0, -140.0, -149.0,
              -150.0, 127.9, 128.0, 1e-20, -1e-20, 3.0e38]


def drive_math_edge(kernel, case, n, use_triton, gen):
    """unary_kernel (tests/gpu/math_kernels.py): one fp32 function on MATH_EDGES and random
    bit patterns; tilec must give Triton's bits (any NaN where Triton's is NaN), or for the
    functions of cases.MATH_ULPS be within that many ulps of Triton's finite results."""
    check = Check(case, f"n={n}")
    x = torch.randint(-(1 << 31), (1 << 31) - 1, (n + GUARD,), generator=gen, device="cuda",
                      dtype=torch.int32).view(torch.float32)
    x[:len(MATH_EDGES)] = torch.tensor(MATH_EDGES, device="cuda")
    values = dict(kernel.constexprs, X=x, Y=torch.empty_like(x), n=n)
    grid = grid_from_expression(case.grid, values)
    if not use_triton or kernel.triton_fn is None:
        run_impls(kernel, check, values, ["Y"], grid, False)
        if not check.problems:
            print(f"SKIP  {case.name:<44} {check.label:>18}  ran; Triton is the reference", flush=True)
            return None
        return check.print()
    results = run_impls(kernel, check, values, ["Y"], grid, True)
    if "tilec" in results and "triton" in results:
        a, b = results["tilec"]["Y"], results["triton"]["Y"]
        if not guard_intact(a, n):
            check.fail("tilec wrote past n")
        a, b = a[:n], b[:n]
        same = (bits(a) == bits(b)) | (torch.isnan(a) & torch.isnan(b))
        ulps = case.opts.get("ulps", 0)
        bad = ~same
        if ulps:
            bad &= ~((ulp_distance(a, b) <= ulps) & torch.isfinite(a) & torch.isfinite(b))
        msg = describe_bad(bad, a, b, {"x": x[:n]})
        if msg:
            check.fail(f"tilec vs Triton: {msg}")
        elif ulps:
            check.note(f"within {ulps} ulp of Triton, {100 * same.float().mean().item():.2f}% "
                       "bit-identical, denormals and edges included")
        else:
            check.note("bit-identical to Triton (NaN payloads aside), denormals and edges included")
    return check.print()


# ---- attention: examples/attention.py ---------------------------------------------------------
#
# Q, K, V random normal; the reference is float64 softmax(Q K^T * scale) V (causal where asked).
# Outputs are fp16 or bf16 after an fp16/bf16 P: held to ATTN_TOL of the output's scale, and
# tilec to the same bound against Triton.  Lse (log2 units) in fp32 to ATTN_LSE_TOL.

ATTN_TOL = {"fp16": 1e-2, "bf16": 3e-2}
ATTN_LSE_TOL = 2e-3


def attn_tol(dt):
    return ATTN_TOL["bf16" if dt == torch.bfloat16 else "fp16"]


def flat_with_guard(shape, dtype, fill, gen):
    """A contiguous tensor of `shape` at the start of a flat buffer with GUARD poisoned
    elements after it: (buffer, view)."""
    n = 1
    for d in shape:
        n *= d
    buf = torch.empty(n + GUARD, dtype=dtype, device="cuda")
    if fill == "randn":
        buf[:n] = rand_float(n, dtype, gen)
    else:
        poison_(buf)
    return buf, buf[:n].view(*shape)


def attention_ref(q, k, v, scale, causal, offset=0):
    """softmax(q k^T * scale) v over the last two dims, float64; causal: query i (at position
    offset + i) sees keys 0..offset+i.  Returns (out, logsumexp in natural log)."""
    s = q.double() @ k.double().transpose(-1, -2) * scale
    if causal:
        i = torch.arange(s.shape[-2], device="cuda")[:, None] + offset
        j = torch.arange(s.shape[-1], device="cuda")[None, :]
        s = s.masked_fill(j > i, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    return torch.softmax(s, dim=-1) @ v.double(), lse


def drive_attn_fwd(kernel, case, shape, use_triton, gen):
    """attn_fwd: shape (Z, H, N_CTX); HEAD_DIM, CAUSAL, K_BY_COLUMNS from the signature."""
    Z, H, N = shape
    c = kernel.constexprs
    D, causal = c["HEAD_DIM"], bool(c["CAUSAL"])
    dt = torch_dtype(case.dtype)
    check = Check(case, f"{Z}x{H}x{N}x{D}" + (" causal" if causal else ""))
    qb, q = flat_with_guard((Z, H, N, D), dt, "randn", gen)
    kb, k = flat_with_guard((Z, H, N, D), dt, "randn", gen)
    vb, v = flat_with_guard((Z, H, N, D), dt, "randn", gen)
    ob, _ = flat_with_guard((Z, H, N, D), dt, "poison", gen)
    lb, _ = flat_with_guard((Z * H * N,), torch.float32, "poison", gen)
    scale = fp32_value(1.0 / math.sqrt(D))
    st = (H * N * D, N * D, D)
    values = {"Q": qb, "K": kb, "V": vb, "Out": ob, "Lse": lb, "sm_scale": scale,
              "stride_qz": st[0], "stride_qh": st[1], "stride_qm": st[2],
              "stride_kz": st[0], "stride_kh": st[1], "stride_kn": st[2],
              "stride_vz": st[0], "stride_vh": st[1], "stride_vn": st[2],
              "stride_oz": st[0], "stride_oh": st[1], "stride_om": st[2], "H": H, "N_CTX": N,
              "Z_H": Z * H}
    ref, lse = attention_ref(q, k, v, scale, causal)
    tol = attn_tol(dt) * max(ref.abs().max().item(), 1.0)
    n = Z * H * N * D
    out = Expect("Out", lambda b: b[:n].view(Z, H, N, D), ref, atol=tol, rtol=attn_tol(dt),
                 rest=lambda b: b[n:])
    lse2 = (lse * (1.0 / math.log(2))).reshape(-1)
    lse_e = Expect("Lse", lambda b: b[:Z * H * N], lse2, atol=ATTN_LSE_TOL, rtol=ATTN_LSE_TOL,
                   rest=lambda b: b[Z * H * N:])
    grid = grid_for(kernel, case, values, (-(-N // c["BLOCK_M"]), Z * H))
    return run_and_check(kernel, check, values, [out, lse_e], grid, use_triton)


def decode_inputs(kernel, case, shape, gen):
    """(B, KV_HEADS, T) with ragged lengths: the tensors of both decode stages and the
    float64 reference of each split."""
    B, KH, T = shape
    c = kernel.constexprs
    G, D, S = case.opts["group"], c["HEAD_DIM"], c["NUM_SPLITS"]
    dt = torch_dtype(case.dtype)
    H = KH * G
    lens = torch.randint(1, T + 1, (B,), generator=gen, device="cuda", dtype=torch.int32)
    lens[0] = T
    if B > 1:
        lens[1] = 1
    qb, q = flat_with_guard((B, H, D), dt, "randn", gen)
    kb, k = flat_with_guard((B, T, KH, D), dt, "randn", gen)
    vb, v = flat_with_guard((B, T, KH, D), dt, "randn", gen)
    scale = fp32_value(1.0 / math.sqrt(D))
    mid = torch.zeros(B, H, S, D, dtype=torch.float64, device="cuda")
    mid_lse = torch.full((B, H, S), float("-inf"), dtype=torch.float64, device="cuda")
    has = torch.zeros(B, H, S, dtype=torch.bool, device="cuda")
    for b in range(B):
        L = int(lens[b])
        per = -(-L // S)
        for s in range(S):
            lo, hi = s * per, min(s * per + per, L)
            if hi <= lo:
                continue
            kk = k[b, lo:hi].transpose(0, 1).repeat_interleave(G, dim=0)     # [H, n, D]
            vv = v[b, lo:hi].transpose(0, 1).repeat_interleave(G, dim=0)
            o, l = attention_ref(q[b][:, None, :], kk, vv, scale, False)
            mid[b, :, s], mid_lse[b, :, s], has[b, :, s] = o[:, 0], l[:, 0], True
    return dict(B=B, KH=KH, T=T, G=G, D=D, S=S, H=H, dt=dt, lens=lens, q=q, k=k, v=v, qb=qb,
                kb=kb, vb=vb, scale=scale, mid=mid, mid_lse=mid_lse, has=has)


def drive_decode_split(kernel, case, shape, use_triton, gen):
    x = decode_inputs(kernel, case, shape, gen)
    B, H, S, D, KH, T = x["B"], x["H"], x["S"], x["D"], x["KH"], x["T"]
    check = Check(case, f"B{B} kv{KH}x{x['G']} T{T}")
    mob, _ = flat_with_guard((B, H, S, D), torch.float32, "poison", gen)
    mlb, _ = flat_with_guard((B, H, S), torch.float32, "poison", gen)
    values = {"Q": x["qb"], "K": x["kb"], "V": x["vb"], "Seq_lens": x["lens"], "Mid_o": mob,
              "Mid_lse": mlb, "sm_scale": x["scale"], "stride_qb": H * D, "stride_qh": D,
              "stride_kb": T * KH * D, "stride_kt": KH * D, "stride_kh": D,
              "stride_vb": T * KH * D, "stride_vt": KH * D, "stride_vh": D,
              "stride_mb": H * S * D, "stride_mh": S * D, "stride_ms": D,
              "stride_lb": H * S, "stride_lh": S}
    has = x["has"]
    n = B * H * S * D
    o_view = lambda b: b[:n].view(B, H, S, D)[has]
    o_rest = lambda b: torch.cat([b[:n].view(B, H, S, D)[~has].reshape(-1), b[n:]])
    tol = attn_tol(x["dt"]) * max(x["mid"].abs().max().item(), 1.0)
    out = Expect("Mid_o", o_view, x["mid"][has], atol=tol, rtol=attn_tol(x["dt"]), rest=o_rest)
    lse = Expect("Mid_lse", lambda b: b[:B * H * S].view(B, H, S), x["mid_lse"], atol=ATTN_LSE_TOL,
                 rtol=ATTN_LSE_TOL, rest=lambda b: b[B * H * S:])
    return run_and_check(kernel, check, values, [out, lse], (B, KH, S), use_triton)


def drive_invariant_load(kernel, case, shape, use_triton, gen):
    """A [rows, stride_a] fp16 with each program's block starting `off` rows down (off in
    0..7, loaded in every step), B [K, BLOCK_N], C one [BLOCK_M, BLOCK_N] block a program:
    C = A[off:off + BLOCK_M, :K] @ B + off * steps."""
    K, programs = shape
    bm, bn, bk = (kernel.constexprs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    check = Check(case, f"K={K} programs={programs}")
    stride_a = -(-K // 16) * 16
    rows = bm + 8
    a = rand_float(rows * stride_a, torch.float16, gen)
    b = rand_float(K * bn, torch.float16, gen)
    off = torch.randint(0, 8, (programs,), generator=gen, device="cuda", dtype=torch.int32)
    steps = -(-K // bk)
    a64 = a.view(rows, stride_a)[:, :K].double()
    ref = torch.stack([a64[int(o):int(o) + bm] @ b.view(K, bn).double() + float(o) * steps for o in off])
    n = programs * bm * bn
    values = {"A": a, "B": b, "C": torch.empty(n + GUARD, device="cuda", dtype=torch.float32), "Off": off,
              "K": K, "stride_a": stride_a}
    out = Expect("C", lambda t: t[:n].view(programs, bm, bn), ref, rtol=1e-3, atol=1e-3 * max(K, 1) ** 0.5,
                 rest=lambda t: t[n:])
    return run_and_check(kernel, check, values, [out], (programs,), use_triton)


def drive_decode_pv(kernel, case, shape, use_triton, gen):
    """P [B, H, Tmax] fp32 weights (each row a softmax over the sequence's tokens), V_cache
    [slots, KH, D] with the slots of every sequence's tokens drawn at random (a permutation),
    sequence lengths "full" (Tmax) or "ragged" (0, 1, and random); Out [B, H, D]."""
    B, Tmax, KH, mode = shape
    G, D = kernel.constexprs["GROUP"], kernel.constexprs["HEAD_DIM"]
    H = KH * G
    dt = torch_dtype(case.dtype)
    check = Check(case, f"B{B} Tmax{Tmax} kv{KH}x{G} {mode}")
    if mode == "ragged":
        lens = torch.randint(0, Tmax + 1, (B,), generator=gen, device="cuda", dtype=torch.int32)
        lens[0] = 0
        if B > 1:
            lens[1] = 1
    else:
        lens = torch.full((B,), Tmax, device="cuda", dtype=torch.int32)
    slots = B * Tmax + 37
    table = torch.randperm(slots, generator=gen, device="cuda")[:B * Tmax].to(torch.int32).view(B, Tmax)
    vc = rand_float(slots * KH * D, dt, gen).view(slots, KH, D)
    p = torch.softmax(rand_float(B * H * Tmax, torch.float32, gen, scale=3.0).view(B, H, Tmax), -1)
    ref = torch.zeros(B, H, D, dtype=torch.float64, device="cuda")
    for b in range(B):
        L = int(lens[b])
        v = vc[table[b, :L].long()].double()                             # [L, KH, D]
        pb = p[b, :, :L].to(dt).double().view(KH, G, L)
        ref[b] = torch.einsum("kgt,tkd->kgd", pb, v).reshape(H, D)
    values = {"P": p, "V_cache": vc, "Req_to_token": table, "Seq_lens": lens,
              "Out": torch.empty(B * H * D + GUARD, device="cuda", dtype=dt),
              "stride_pb": H * Tmax, "stride_ph": Tmax, "stride_rb": Tmax, "stride_vt": KH * D,
              "stride_vh": D, "stride_ob": H * D, "stride_oh": D}
    n = B * H * D
    tol = ATTN_TOL[case.dtype] * max(ref.abs().max().item(), 1e-3)
    out = Expect("Out", lambda t: t[:n].view(B, H, D), ref, atol=tol, rtol=ATTN_TOL[case.dtype],
                 rest=lambda t: t[n:])
    return run_and_check(kernel, check, values, [out], (B, KH), use_triton)


def drive_decode_merge(kernel, case, shape, use_triton, gen):
    """The splits' partial results from the float64 reference (fp32); a split without keys
    holds NaN in Mid_o, which the kernel must not read."""
    x = decode_inputs(kernel, case, shape, gen)
    B, H, S, D, T = x["B"], x["H"], x["S"], x["D"], x["T"]
    check = Check(case, f"B{B} H{H} T{T}")
    mob, mo = flat_with_guard((B, H, S, D), torch.float32, "poison", gen)
    mo.copy_(torch.where(x["has"][..., None], x["mid"], float("nan")).float())
    mlb, ml = flat_with_guard((B, H, S), torch.float32, "poison", gen)
    ml.copy_(x["mid_lse"].float())
    ob, _ = flat_with_guard((B, H, D), x["dt"], "poison", gen)
    values = {"Mid_o": mob, "Mid_lse": mlb, "Out": ob, "stride_mb": H * S * D,
              "stride_mh": S * D, "stride_ms": D, "stride_lb": H * S, "stride_lh": S,
              "stride_ob": H * D, "stride_oh": D}
    kk = x["k"].repeat_interleave(x["G"], dim=2)     # [B, T, H, D]
    vv = x["v"].repeat_interleave(x["G"], dim=2)
    ref = torch.empty(B, H, D, dtype=torch.float64, device="cuda")
    for b in range(B):
        L = int(x["lens"][b])
        o, _ = attention_ref(x["q"][b][:, None, :], kk[b, :L].transpose(0, 1),
                             vv[b, :L].transpose(0, 1), x["scale"], False)
        ref[b] = o[:, 0]
    n = B * H * D
    out = Expect("Out", lambda b: b[:n].view(B, H, D), ref, atol=attn_tol(x["dt"]),
                 rtol=attn_tol(x["dt"]), rest=lambda b: b[n:])
    return run_and_check(kernel, check, values, [out], (B, H), use_triton)


def drive_paged(kernel, case, shape, use_triton, gen):
    """paged_attention: shape (query lengths, context lengths, kv heads, cache blocks); the
    cache's blocks are handed out in a random order through the block table."""
    q_lens, ctx_lens, KH, nblocks = shape
    c = kernel.constexprs
    QPK, D, PAGE, BQ = c["QUERIES_PER_KV"], c["HEAD_DIM"], c["PAGE"], c["BLOCK_Q"]
    dt = torch_dtype(case.dtype)
    S, H = len(q_lens), KH * QPK
    seq_lens = [a + b for a, b in zip(q_lens, ctx_lens)]
    max_blocks = max(-(-L // PAGE) for L in seq_lens)
    check = Check(case, f"{S} seqs q{sum(q_lens)} kv{KH}x{QPK}")
    perm = torch.randperm(nblocks, generator=gen, device="cuda").to(torch.int32)
    tables = torch.zeros(S, max_blocks, dtype=torch.int32, device="cuda")
    used = 0
    for s, L in enumerate(seq_lens):
        nb = -(-L // PAGE)
        tables[s, :nb] = perm[used:used + nb]
        used += nb
    assert used <= nblocks
    total = sum(q_lens)
    starts = [0]
    for L in q_lens:
        starts.append(starts[-1] + L)
    qsl = torch.tensor(starts, dtype=torch.int32, device="cuda")
    qb, q = flat_with_guard((total, H, D), dt, "randn", gen)
    kcb, kc = flat_with_guard((nblocks, PAGE, KH, D), dt, "randn", gen)
    vcb, vc = flat_with_guard((nblocks, PAGE, KH, D), dt, "randn", gen)
    ob, _ = flat_with_guard((total, H, D), dt, "poison", gen)
    scale = fp32_value(1.0 / math.sqrt(D))
    values = {"Q": qb, "Key_cache": kcb, "Value_cache": vcb, "Out": ob, "Block_tables": tables,
              "Seq_lens": torch.tensor(seq_lens, dtype=torch.int32, device="cuda"),
              "Query_start_len": qsl, "sm_scale": scale, "num_seqs": S,
              "stride_qt": H * D, "stride_qh": D, "stride_kblk": PAGE * KH * D,
              "stride_kslot": KH * D, "stride_khead": D, "stride_vblk": PAGE * KH * D,
              "stride_vslot": KH * D, "stride_vhead": D, "stride_bt": max_blocks,
              "stride_ot": H * D, "stride_oh": D}
    ref = torch.empty(total, H, D, dtype=torch.float64, device="cuda")
    for s in range(S):
        L, ql = seq_lens[s], q_lens[s]
        nb = -(-L // PAGE)
        kk = kc[tables[s, :nb].long()].reshape(nb * PAGE, KH, D)[:L].repeat_interleave(QPK, dim=1)
        vv = vc[tables[s, :nb].long()].reshape(nb * PAGE, KH, D)[:L].repeat_interleave(QPK, dim=1)
        o, _ = attention_ref(q[starts[s]:starts[s] + ql].transpose(0, 1), kk.transpose(0, 1),
                             vv.transpose(0, 1), scale, True, offset=L - ql)
        ref[starts[s]:starts[s] + ql] = o.transpose(0, 1)
    n = total * H * D
    tol = attn_tol(dt) * max(ref.abs().max().item(), 1.0)
    out = Expect("Out", lambda b: b[:n].view(total, H, D), ref, atol=tol, rtol=attn_tol(dt),
                 rest=lambda b: b[n:])
    grid = (total // BQ + S, KH)
    return run_and_check(kernel, check, values, [out], grid, use_triton)


DRIVERS = {"vector_add": drive_vector_add, "activation": drive_activation,
           "scaled_add": drive_scaled_add, "row_chunks": drive_row_chunks,
           "generic": drive_generic,
           "softmax": drive_softmax, "layer_norm_fwd": drive_layer_norm_fwd,
           "rms_norm_fwd": drive_rms_norm_fwd, "layer_norm_bwd_dx": drive_layer_norm_bwd_dx,
           "layer_norm_dwdb": drive_layer_norm_dwdb, "cross_entropy": drive_cross_entropy,
           "col_max": drive_col_max, "row_min": drive_row_min, "argmax": drive_argmax,
           "rope": drive_rope, "decode_pv": drive_decode_pv, "invariant_load": drive_invariant_load, "dropout": drive_dropout,
           "rand": drive_rand, "randint": drive_rand, "cumsum": drive_cumsum,
           "cumsum_rows": drive_cumsum_rows, "histogram": drive_histogram, "bits": drive_bits,
           "ticket": drive_ticket, "swap": drive_swap, "cas": drive_swap, "randn": drive_randn,
           "cumprod_rev": drive_cumprod_rev, "transpose": drive_transpose, "matmul": drive_matmul,
           "bmm3d": drive_bmm3d, "bmm3d_attn": drive_bmm3d_attn,
           "fp8": drive_fp8, "math_edge": drive_math_edge, "attn_fwd": drive_attn_fwd,
           "decode_split": drive_decode_split, "decode_merge": drive_decode_merge,
           "paged": drive_paged, "colmajor_copy": drive_colmajor_copy, "desc_abs": drive_desc_abs,
           "desc_row_sum": drive_desc_row_sum, "group_ptrs": drive_group_ptrs,
           "matmul_desc": drive_matmul_desc, "desc_axpb": drive_desc_axpb, "attn_desc": drive_attn_desc}


def run_case(case, so, use_triton, seed):
    try:
        kernel = Kernel(case, so, use_triton)
    except ContextLost:
        raise
    except Exception as e:
        print(f"FAIL  {case.name}  setup: {type(e).__name__}: {e}", flush=True)
        return
    cc = torch.cuda.get_device_capability()
    if "fp8" in case.sig and cc < (8, 9):     # no cvt for fp8 (Triton refuses fp8e4nv there)
        print(f"SKIP  {case.name:<44} fp8 conversions need sm_89 or newer (this GPU is sm_{cc[0]}{cc[1]})",
              flush=True)
        kernel.close()
        return
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed ^ zlib.crc32(case.name.encode()))
    triton_only = case.skip is not None
    if triton_only and kernel.triton_fn is None:
        print(f"SKIP  {case.name:<44} tilec cannot translate: {case.skip}", flush=True)
        return
    good = 0
    try:
        for size in case.sizes:
            try:
                good += DRIVERS[case.driver](kernel, case, size, use_triton, gen) is True
            except ContextLost:
                raise
            except Exception as e:
                synchronize()
                print(f"FAIL  {case.name:<44} {str(size):>18}  harness error: {type(e).__name__}: {e}",
                      flush=True)
    finally:
        kernel.close()
    if triton_only:
        print(f"SKIP  {case.name:<44} tilec cannot translate: {case.skip} "
              f"[Triton alone passes at {good} of {len(case.sizes)} sizes]", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--only", help="run only the cases whose name contains this")
    ap.add_argument("--no-triton", action="store_true", help="compare with the reference only")
    ap.add_argument("--arch", help="nvcc -arch (default: the GPU's, e.g. sm_90)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated .cu/.so files in DIR")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--list", action="store_true", help="list the cases and their tilec flags")
    ap.add_argument("--triton-only", action="store_true",
                    help="run Triton alone against the references (checks the tests; no tilec)")
    ap.add_argument("--dot", action="store_true",
                    help="a tl.dot case that tilec cannot translate is a failure, not a skip")
    ap.add_argument("--via", choices=["nvcc", "lib"], default="nvcc",
                    help="how tilec's kernels are built and launched: the .cu through nvcc and "
                         "its launcher (default), or libtilec (translate, NVRTC, tilec_launch)")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "release", "libtilec.so"),
                    help="libtilec.so for --via lib (default: build/release/libtilec.so)")
    ap.add_argument("--build-only", action="store_true",
                    help="translate and compile every case, run nothing (no GPU; needs --arch)")
    ap.add_argument("--plain-sm90", action="store_true",
                    help="build kernels that have a wgmma path for plain sm_90, without the sm_90a features: "
                         "they run the path the file keeps for other targets (cp.async, mma.sync, no producer "
                         "warpgroup), as a build without the 'a' would")
    ap.add_argument("--worker", metavar="PLAN", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.plain_sm90:
        os.environ["TILEC_GPU_PLAIN_SM90"] = "1"  # read by nvcc_target, in this process and its workers
    if opts.worker:
        return worker_main(opts.worker)
    if opts.seed is None:
        opts.seed = random.SystemRandom().randrange(1 << 31)
    if opts.keep:
        opts.keep = os.path.abspath(opts.keep)
    return parent_main(opts)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Run corpus kernels (bench/corpus/kernels.tsv) translated by tilec against Triton on a GPU.

    python3 tools/corpus_gpu.py --src DIR [--tsv bench/corpus/kernels.tsv] [--tilec bin/tilec]
                                [--arch sm_90] [--only TEXT] [--keep DIR] [--seed N]
                                [--cpu-only] [--list]

DIR is the corpus folder (tools/fetch_corpus.sh: the kernel files and the project modules they
import, as OWNER+NAME/PATH); no network is needed.  For each kernel of SPECS below (a row of
the TSV and the inputs its project makes for it: shapes, dtypes and strides taken from the
project's own launch code, with ragged sizes where the kernel masks them):

  1. tilec translates the file as it is, with the row's arguments, and nvcc compiles the CUDA
     into a shared library (tests/gpu/run_gpu_tests.py's build_case, whose ctypes launcher
     runs it);
  2. Triton's kernel is the same source, jitted by Triton: the corpus file is imported from
     DIR the way its project imports it, each module statement by statement, so that host
     code needing what is not installed (a project's runtime, transformers) is skipped with
     the statements it breaks; the kernel's @triton.autotune/@triton.heuristics/project
     decorators are dropped, since the row gives every constexpr, num_warps and num_stages
     that they would choose;
  3. for each size, both run on the same inputs, each on its own copy of them, with every
     output poisoned beforehand (NaN for floats, 0x7f bytes otherwise, also the outputs a
     kernel updates in place get their input copied anew); all outputs are compared:
     bit-equal where the kernel's results are exactly rounded ("exact"), else within the
     tolerances of run_gpu_tests.py for transcendental and reduced results ("close"), for
     running sums against the largest of them ("accum"), or, for tl.dot kernels, with the
     normwise relative error of the matrix ("dot").

One line is printed per kernel (PASS, FAIL, SKIP with the reason), then a summary; the exit
status is 1 if any kernel failed.  Each kernel runs in its own worker process, so that a
kernel that breaks the CUDA context does not hide the others.  --cpu-only does everything
short of launching (translation, nvcc, and loading Triton's kernel from DIR when torch and
Triton can be imported), for a machine without a GPU.
"""
import argparse
import ast
import ctypes
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
import run_gpu_tests as rgt  # noqa: E402
from cases import Case  # noqa: E402

# The harness finds a kernel's parameters among the decorated defs; a corpus kernel may also be
# a plain def made a jit function below it (f = triton.jit(f), unsloth), so every def counts.
rgt._is_jit = lambda fn: True

torch = None


def cdiv(a, b):
    return -(-a // b)


# ---------------------------------------------------------------------------------------
# The TSV rows, as Cases of tests/gpu/cases.py.
# ---------------------------------------------------------------------------------------

def read_rows(tsv):
    rows = []
    for line in open(tsv).read().splitlines():
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if cols[0] == "repo":
            continue
        rows.append(cols)
    return rows


def row_case(row, index, src, arch):
    repo, path, _commit, kernel, args = row
    words = shlex.split(args.replace("{SRC}", src.rstrip("/")))
    source, rest = words[0], words[1:]
    sig, warps, stages, defines, extra = None, 4, None, {}, []
    i = 0
    while i < len(rest):
        w = rest[i]
        if w in ("-s", "--signature"):
            sig = rest[i + 1]
        elif w in ("-w", "--num-warps"):
            warps = int(rest[i + 1])
        elif w == "--num-stages":
            stages = int(rest[i + 1])
        elif w == "-D":
            name, value = rest[i + 1].split("=", 1)
            defines[name] = value
        elif w == "--arch":
            pass                                  # the GPU's own is used
        elif w in ("-k", "--kernel"):
            pass
        else:
            extra.append(w)
            i += 1
            continue
        i += 2
    case = Case(f"{index:02d}-{kernel}", os.path.abspath(source), kernel, sig, defines=defines,
                num_warps=warps, num_stages=stages, extra_flags=extra + ["--arch", arch])
    return case


# ---------------------------------------------------------------------------------------
# Triton's kernel: the corpus file imported from DIR as its project would import it.
# ---------------------------------------------------------------------------------------

class Missing(types.ModuleType):
    """What an import that cannot be satisfied here gives (a project's runtime, transformers):
    every attribute is another such value, and calling one with a function gives the function
    back, so that a decorator from such a module leaves the function as it is."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Missing(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]
        return Missing(f"{self.__name__}()")

    def __iter__(self):
        return iter(())


def _is_jit_decorator(d):
    return ast.unparse(d.func if isinstance(d, ast.Call) else d).split(".")[-1] == "jit"


DEFINING = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign,
            ast.AugAssign, ast.If, ast.Try)


class ProjectLoader(importlib.abc.Loader):
    """Runs the statements of a corpus module that define names (imports, defs, classes,
    assignments, and the if/try blocks around them), one by one: a statement that fails (host
    code that needs something absent) is skipped.  A jit function keeps only its jit
    decorator."""

    active = 0

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path = module.__spec__.origin
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
        ProjectLoader.active += 1
        try:
            self.run(tree.body, path, module.__dict__)
        finally:
            ProjectLoader.active -= 1

    def run(self, body, path, scope):
        for stmt in body:
            if not isinstance(stmt, DEFINING):
                continue                          # a script's work: prints, benchmarks, tests
            if isinstance(stmt, ast.If):
                # a version check that cannot be decided here (its test needs what is
                # absent) takes its first branch, as tilec does
                try:
                    taken = eval(compile(ast.Expression(stmt.test), path, "eval"), scope)
                except Exception:
                    taken = True
                self.run(stmt.body if taken else stmt.orelse, path, scope)
                continue
            if isinstance(stmt, ast.FunctionDef) and any(_is_jit_decorator(d) for d in stmt.decorator_list):
                stmt.decorator_list = [d for d in stmt.decorator_list if _is_jit_decorator(d)]
            code = compile(ast.Module(body=[stmt], type_ignores=[]), path, "exec")
            try:
                exec(code, scope)
            except Exception:
                pass


class ProjectFinder(importlib.abc.MetaPathFinder):
    """Finds the project's modules under its package roots in DIR (first on sys.meta_path),
    and, last on it and only while a corpus module runs, makes a Missing module of any other
    import that nothing else can satisfy."""

    def __init__(self, fallback=False):
        self.roots, self.fallback = [], fallback

    def find_spec(self, fullname, path=None, target=None):
        if self.fallback:
            if ProjectLoader.active:
                return importlib.machinery.ModuleSpec(fullname, MissingLoader(), is_package=True)
            return None
        parts = fullname.split(".")
        for root in self.roots:
            base = os.path.join(root, *parts)
            if os.path.isfile(base + ".py"):
                return importlib.util.spec_from_file_location(fullname, base + ".py", loader=ProjectLoader())
            if os.path.isfile(os.path.join(base, "__init__.py")):
                return importlib.util.spec_from_file_location(fullname, os.path.join(base, "__init__.py"),
                                                              loader=ProjectLoader(),
                                                              submodule_search_locations=[base])
            if os.path.isdir(base) and os.path.isdir(os.path.join(root, parts[0])):
                spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
                spec.submodule_search_locations = [base]
                return spec
        return None


class MissingLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = Missing(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


_finders = None


def load_triton_kernel(case):
    """The JITFunction of case.kernel in its corpus file, as Triton compiles it."""
    global _finders
    import triton                                     # noqa: F401  (before any corpus module)
    import triton.language                            # noqa: F401
    from triton.runtime.jit import JITFunction
    if _finders is None:
        _finders = ProjectFinder(), ProjectFinder(fallback=True)
        sys.meta_path.insert(0, _finders[0])
        sys.meta_path.append(_finders[1])
    path = case.source
    root = os.path.dirname(path)
    while os.path.isfile(os.path.join(root, "__init__.py")):
        root = os.path.dirname(root)
    if root not in _finders[0].roots:
        _finders[0].roots.insert(0, root)
    if root != os.path.dirname(path):
        dotted = os.path.relpath(os.path.splitext(path)[0], root).replace(os.sep, ".")
        module = importlib.import_module(dotted)
    else:
        name = "corpus_" + "".join(c if c.isalnum() else "_" for c in os.path.relpath(path, ROOT))
        spec = importlib.util.spec_from_file_location(name, path, loader=ProjectLoader())
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    fn = getattr(module, case.kernel, None)
    while fn is not None and not isinstance(fn, JITFunction):
        fn = getattr(fn, "fn", None)
    if fn is None:
        raise ValueError(f"{path}: no jit function {case.kernel} after importing it")
    return fn


# ---------------------------------------------------------------------------------------
# Inputs as the projects make them.  Each spec: (sizes, setup); setup(size, gen) gives
# (values by parameter name, grid, output names, mode).  Outputs are poisoned before each
# run; an output that is also an input (updated in place) is listed in `inplace` instead.
# ---------------------------------------------------------------------------------------

DT = {}
DEVICE = "cuda"       # "cpu" under --cpu-only: the inputs are made there to be checked


def dtypes():
    return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "i64": torch.int64,
            "i32": torch.int32, "bool": torch.bool, "fp8": torch.float8_e4m3fn}


def randn(shape, dt, gen, scale=1.0):
    return (torch.randn(shape, generator=gen, device=DEVICE) * scale).to(DT[dt])


def rand(shape, dt, gen):
    return torch.rand(shape, generator=gen, device=DEVICE).to(DT[dt])


def empty(shape, dt):
    return torch.empty(shape, dtype=DT[dt], device=DEVICE)


class Setup:
    def __init__(self, values, grid, outs, mode, inplace=()):
        self.values, self.grid, self.outs, self.mode, self.inplace = values, grid, list(outs), mode, list(inplace)


def s_add(n, g):          # 01-vector-add.py: x, y of n elements, grid cdiv(n, BLOCK_SIZE)
    x, y = randn(n, "fp32", g), randn(n, "fp32", g)
    return Setup(dict(x_ptr=x, y_ptr=y, output_ptr=empty(n, "fp32"), n_elements=n),
                 (cdiv(n, 1024),), ["output_ptr"], "exact")


def s_softmax(shape, g):  # 02-fused-softmax.py: rows of n_cols <= BLOCK_SIZE, a persistent grid
    rows, cols = shape
    x = randn((rows, cols), "fp32", g)
    return Setup(dict(output_ptr=empty((rows, cols), "fp32"), input_ptr=x, input_row_stride=cols,
                      output_row_stride=cols, n_rows=rows, n_cols=cols),
                 (min(rows, 132 * 4),), ["output_ptr"], "close")


def s_matmul(shape, g, a="a_ptr", b="b_ptr", c="c_ptr", bm=128, bn=256, dims=("M", "N", "K"),
             strides=("stride_am", "stride_bk", "stride_cm")):
    M, N, K = shape
    A, B = randn((M, K), "fp16", g), randn((K, N), "fp16", g)
    vals = {a: A, b: B, c: empty((M, N), "fp16"), dims[0]: M, dims[1]: N, dims[2]: K,
            strides[0]: K, strides[1]: N, strides[2]: N}
    return Setup(vals, (cdiv(M, bm) * cdiv(N, bn),), [c], "dot")


def s_matmul_persistent(shape, g):  # 09-persistent-matmul.py: grid min(NUM_SMS, tiles)
    st = s_matmul(shape, g)
    M, N, _ = shape
    st.grid = (min(132, cdiv(M, 128) * cdiv(N, 256)),)
    return st


def s_seeded_dropout(n, g):  # 04-low-memory-dropout.py
    return Setup(dict(x_ptr=randn(n, "fp32", g), output_ptr=empty(n, "fp32"), n_elements=n, p=0.5,
                      seed=123), (cdiv(n, 1024),), ["output_ptr"], "exact")


def s_ln_fwd_fused(shape, g):  # 05-layer-norm.py: x (M, N) fp16, weight and bias (N,), grid (M,)
    M, N = shape
    return Setup(dict(X=randn((M, N), "fp16", g), Y=empty((M, N), "fp16"), W=rand(N, "fp16", g),
                      B=randn(N, "fp16", g), Mean=empty(M, "fp32"), Rstd=empty(M, "fp32"), stride=N, N=N,
                      eps=1e-5), (M,), ["Y", "Mean", "Rstd"], "close")


def s_asin(n, g):  # 07-extern-functions.py: torch.rand(98432)
    return Setup(dict(x_ptr=rand(n, "fp32", g), y_ptr=empty(n, "fp32"), n_elements=n), (cdiv(n, 1024),),
                 ["y_ptr"], "close")


def s_liger_ln(shape, g):  # liger layer_norm.py: X (n_rows, n_cols) bf16, grid (n_rows,)
    M, N = shape
    return Setup(dict(Y_ptr=empty((M, N), "bf16"), Y_row_stride=N, X_ptr=randn((M, N), "bf16", g), X_row_stride=N,
                      W_ptr=randn(N, "bf16", g), W_row_stride=1, B_ptr=randn(N, "bf16", g), B_row_stride=1,
                      Mean_ptr=empty(M, "fp32"), RSTD_ptr=empty(M, "fp32"), n_cols=N, eps=1e-6),
                 (M,), ["Y_ptr", "Mean_ptr", "RSTD_ptr"], "close")


def s_gated(shape, g, names=("a_ptr", "b_ptr", "c_ptr"), extra=None):  # liger swiglu/geglu: (rows, 11008)
    rows, cols = shape
    a, b, c = names
    vals = {a: randn((rows, cols), "bf16", g), b: randn((rows, cols), "bf16", g), c: empty((rows, cols), "bf16"),
            "stride": cols}
    vals.update(extra or {})
    return Setup(vals, (rows,), [c], "close")


def s_liger_rope(shape, g):  # liger rope.py: q (bs, sl, 32, 128), k (bs, sl, 8, 128), cos (1, sl, 128)
    sl = shape
    q, k = randn((1, sl, 32, 128), "bf16", g), randn((1, sl, 8, 128), "bf16", g)
    ang = torch.rand((1, sl, 128), generator=g, device=DEVICE) * 6.28
    return Setup(dict(q_ptr=q, q_row_stride=32 * 128, k_ptr=k, k_row_stride=8 * 128, cos=ang.cos().to(DT["bf16"]),
                      cos_row_stride=128, sin=ang.sin().to(DT["bf16"]), sin_row_stride=128, sl=sl),
                 (sl,), [], "close", inplace=["q_ptr", "k_ptr"])


def s_liger_ce(shape, g):  # liger cross_entropy.py: logits (BT, V) bf16, targets with ignore_index
    BT, V = shape
    y = torch.randint(0, V, (BT,), generator=g, device=DEVICE)
    y[::5] = -100
    n_non_ignore = int((y != -100).sum())
    f32 = empty(1, "fp32")
    return Setup(dict(X_ptr=randn((BT, V), "bf16", g, 3.0), X_stride=V, Y_ptr=y, weight_ptr=f32,
                      loss_ptr=empty(BT, "fp32"), z_loss_ptr=f32, token_accuracy_ptr=f32,
                      predicted_tokens_ptr=empty(1, "i64"), n_cols=V, n_non_ignore=n_non_ignore,
                      sum_non_ignore_weight=float(n_non_ignore), weight_sum=0.0, ignore_index=-100, softcap=0.0),
                 (BT,), ["loss_ptr"], "close", inplace=["X_ptr"])


def s_element_mul(shape, g):  # liger utils.py: X (BT, V) bf16 scaled in place by grad_output
    BT, V = shape
    return Setup(dict(X_ptr=randn((BT, V), "bf16", g), X_stride=V, grad_output_ptr=randn(1, "fp32", g), n_cols=V),
                 (BT,), [], "exact", inplace=["X_ptr"])


def s_kldiv(shape, g):  # liger kl_div.py: y log-probabilities, gt probabilities, loss per row
    BT, V = shape
    y = torch.log_softmax(torch.randn((BT, V), generator=g, device=DEVICE), -1)
    gt = torch.softmax(torch.randn((BT, V), generator=g, device=DEVICE), -1)
    return Setup(dict(y_ptr=y, y_stride=V, gt_ptr=gt, gt_stride=V, loss_ptr=empty(BT, "fp32"), loss_stride=1,
                      n_cols=V, eps=1e-10), (BT,), ["loss_ptr"], "close")


def s_rows(shape, g, dt, names, grid_rows=True, mode="close"):  # (M, N) rows: input, output
    M, N = shape
    inp, out = names
    return Setup({inp: randn((M, N), dt, g), out: empty((M, N), dt), "M": M, "N": N}, (M, 1, 1), [out], mode)


def s_gems_ln(shape, g):  # FlagGems layernorm.py, 128 < N <= 4096: grid (M, 1, 1)
    M, N = shape
    return Setup(dict(in_ptr=randn((M, N), "fp16", g), out_ptr=empty((M, N), "fp16"), weight_ptr=randn(N, "fp16", g),
                      bias_ptr=randn(N, "fp16", g), out_mean_ptr=empty(M, "fp32"), out_rstd_ptr=empty(M, "fp32"),
                      M=M, N=N, eps=1e-5), (M, 1, 1), ["out_ptr", "out_mean_ptr", "out_rstd_ptr"], "close")


def s_gems_sum(shape, g):  # FlagGems sum.py, sum over the last dim: out (M,), grid (cdiv(M, BLOCK_M),)
    M, N = shape
    return Setup(dict(inp=randn((M, N), "fp16", g), out=empty(M, "fp16"), M=M, N=N), (M,), ["out"], "close")


def s_gems_scan(n, g):  # FlagGems cumsum.py scan_then_fan_col, first pass: BLOCK_SIZE 1024
    parts = cdiv(n, 1024)
    return Setup(dict(inp=randn(n, "fp32", g), out=empty(n, "fp32"), partial_sum=empty(parts, "fp32"),
                      n_elements=n, part_num=parts), (parts,), ["out", "partial_sum"], "accum")


def s_gems_embedding(shape, g):  # FlagGems embedding.py: indices (M,), weight (V, 4096)
    M, V = shape
    return Setup(dict(out_ptr=empty((M, 4096), "fp16"),
                      in_ptr=torch.randint(0, V, (M,), generator=g, device=DEVICE),
                      weight_ptr=randn((V, 4096), "fp16", g)), (M,), ["out_ptr"], "exact")


def s_gems_dropout(n, g):  # FlagGems dropout.py: grid cdiv(N, BLOCK * UNROLL), philox seed and offset
    return Setup(dict(X=randn(n, "fp16", g), Y=empty(n, "fp16"), dropout_mask=empty(n, "bool"), N=n, p=0.3,
                      philox_seed=1234567, philox_offset=(1 << 32) + 16), (cdiv(n, 4096),),
                 ["Y", "dropout_mask"], "exact")


def s_gems_maxpool(shape, g):  # FlagGems max_pool2d_with_indices.py: NCHW fp16, 3x3, stride 2, pad 1
    n, c, h, w = shape
    oh, ow = (h + 2 - 3) // 2 + 1, (w + 2 - 3) // 2 + 1
    x = randn((n, c, h, w), "fp16", g)
    return Setup(dict(input_ptr=x, output_ptr=empty((n, c, oh, ow), "fp16"), indices_ptr=empty((n, c, oh, ow), "i64"),
                      in_stride_n=c * h * w, in_stride_c=h * w, in_stride_h=w, in_c=c, in_h=h, in_w=w,
                      out_h=oh, out_w=ow), (n * c, cdiv(oh, 16) * cdiv(ow, 16)),
                 ["output_ptr", "indices_ptr"], "exact")


def s_unsloth_rms(rows, g):  # unsloth rms_layernorm.py: (rows, 4096) bf16, r (rows,) fp32
    return Setup(dict(Y=empty((rows, 4096), "bf16"), X=randn((rows, 4096), "bf16", g), W=randn(4096, "bf16", g),
                      r=empty(rows, "fp32")), (rows,), ["Y", "r"], "close")


def s_unsloth_ce(rows, g):  # unsloth cross_entropy_loss.py: logits (rows, 32000) bf16, labels with -100
    labels = torch.randint(0, 32000, (rows,), generator=g, device=DEVICE)
    labels[1::3] = -100
    return Setup(dict(logits_ptr=randn((rows, 32000), "bf16", g, 3.0), logits_row_stride=32000,
                      loss_ptr=empty(rows, "fp32"), logsumexp_ptr=empty(rows, "fp32"), labels_ptr=labels),
                 (rows,), ["loss_ptr", "logsumexp_ptr"], "close")


def s_unsloth_gate(n, g):  # unsloth swiglu.py / geglu.py: e, g flattened, grid cdiv(n, BLOCK_SIZE)
    return Setup(dict(e=randn(n, "bf16", g), g=randn(n, "bf16", g), h=empty(n, "bf16"), n_elements=n),
                 (cdiv(n, 1024),), ["h"], "close")


def s_unsloth_fp8(shape, g):  # unsloth fp8.py w8a8_block_fp8_matmul: A (M, K), B (N, K), 128x128 blocks
    M, N, K = shape
    kb = cdiv(K, 128)
    A = randn((M, K), "fp32", g).to(DT["fp8"])
    B = randn((N, K), "fp32", g).to(DT["fp8"])
    return Setup(dict(A=A, B=B, C=empty((M, N), "bf16"), As=rand((M, kb), "fp32", g),
                      Bs=rand((cdiv(N, 128), kb), "fp32", g), M=M, N=N, K=K, stride_am=K, stride_bn=K,
                      stride_cm=N, stride_As_m=kb, stride_Bs_n=kb),
                 (cdiv(M, 64) * cdiv(N, 128),), ["C"], "dot")


def s_attorch_softmax(shape, g):  # attorch softmax_kernels.py: (batch, feat), feat <= BLOCK_SIZE_FEAT
    B, F = shape
    return Setup(dict(input_pointer=randn((B, F), "fp32", g), output_pointer=empty((B, F), "fp32"), batch_dim=B,
                      feat_dim=F, input_batch_stride=F, output_batch_stride=F), (B,), ["output_pointer"], "close")


def s_attorch_act(n, g):  # attorch act_kernels.py: flattened input, gelu, no dropout
    return Setup(dict(input_pointer=randn(n, "fp32", g), output_pointer=empty(n, "fp32"), size=n, drop_p=0.0,
                      seed=0, param=0.0), (cdiv(n, 1024),), ["output_pointer"], "close")


def s_attorch_linear(shape, g):  # attorch linear_kernels.py: input (B, I), weight (I, O), bias (O,)
    B, I, O = shape
    return Setup(dict(input_pointer=randn((B, I), "fp32", g), weight_pointer=randn((I, O), "fp32", g),
                      bias_pointer=randn(O, "fp32", g), pre_act_pointer=empty(1, "fp32"),
                      output_pointer=empty((B, O), "fp32"), batch_dim=B, in_feat_dim=I, out_feat_dim=O,
                      input_batch_stride=I, weight_in_feat_stride=O, pre_act_batch_stride=O,
                      output_batch_stride=O, param=0.0),
                 (cdiv(B, 32) * cdiv(O, 32),), ["output_pointer"], "dot")


def s_fp8_quant(n, g):  # applied-ai float8_groupwise_quant.py: groups of 128, no mask
    return Setup(dict(in_ptr=randn(n, "bf16", g, 10.0), out_ptr=empty(n, "fp8"), scale_ptr=empty(n // 128, "fp32")),
                 (n // 128,), ["out_ptr", "scale_ptr"], "close")


def s_kernl_linear(shape, g):  # kernl linear_layer.py: A (M, K), weight (N, K), bias (N,), SPLIT_K 1
    M, N, K = shape
    return Setup(dict(C=empty((M, N), "fp16"), ACT_INPUTS=empty(1, "fp16"), A=randn((M, K), "fp16", g),
                      B=randn((N, K), "fp16", g), bias=randn(N, "fp16", g), M=M, N=N, K=K, CACHE_KEY_M=M // 32,
                      CACHE_KEY_N=N // 32, CACHE_KEY_K=K // 32, output_m_stride=N, act_inputs_m_stride=N,
                      a_m_stride=K, b_n_stride=K), (cdiv(M, 128) * cdiv(N, 256), 1), ["C"], "dot")


def s_lightllm_rotary(T, g):  # lightllm rotary_emb.py: q (T, 32, 128), k (T, 8, 128), cos (T, 64)
    ang = torch.rand((T, 64), generator=g, device=DEVICE) * 6.28
    return Setup(dict(Q=randn((T, 32, 128), "fp16", g), K=randn((T, 8, 128), "fp16", g),
                      Cos=ang.cos().half(), Sin=ang.sin().half(), stride_qbs=32 * 128, stride_qh=128,
                      stride_kbs=8 * 128, stride_kh=128, stride_cosbs=64, stride_sinbs=64, max_total_len=T,
                      HEAD_Q=32, HEAD_K=8), (cdiv(32, 4), cdiv(T, 16)), [], "close", inplace=["Q", "K"])


def s_silu_mul(shape, g):  # lightllm silu_and_mul.py: input (M, 2N), output (M, N)
    M, N = shape
    return Setup(dict(input_ptr=randn((M, 2 * N), "fp16", g), output_ptr=empty((M, N), "fp16"),
                      stride_input_m=2 * N, stride_output_m=N, size_m=M, size_n=N),
                 (cdiv(M, 128), cdiv(N, 128)), ["output_ptr"], "close")


def s_destindex(shape, g):  # lightllm destindex_copy_kv.py: k (seq, heads, 128) into out[dest]
    seq, heads = shape
    dest = torch.randperm(2 * seq, generator=g, device=DEVICE)[:seq].to(torch.int32)
    return Setup(dict(K=randn((seq, heads, 128), "fp16", g), Dest_loc=dest, Out=empty((2 * seq, heads, 128), "fp16"),
                      stride_k_bs=heads * 128, stride_k_h=128, stride_o_bs=heads * 128, stride_o_h=128,
                      head_num=heads), (seq,), ["Out"], "exact")


def s_xformers_rms_add(M, g):  # xformers rmsnorm_kernels.py: x, y (M, 4096) fp16, x += y in place
    return Setup(dict(x_ptr=randn((M, 4096), "fp16", g), y_ptr=randn((M, 4096), "fp16", g),
                      h1_ptr=empty((M, 4096), "fp16"), w_ptr=randn(4096, "fp16", g), eps=1e-6, stride=4096),
                 (M,), ["h1_ptr"], "close", inplace=["x_ptr"])


# TSV row number -> (sizes, setup).  Sizes are ragged where the kernel masks them; a stride
# the row declares a multiple of 16 (i32:16) is one in every size.
SPECS = {
    1: ([98432, 98432 + 3, 17], s_add),
    2: ([(1823, 781), (7, 1024), (3, 1)], s_softmax),
    3: ([(1000, 512, 384), (37, 80, 48)], s_matmul),
    4: ([98432, 1003], s_seeded_dropout),
    5: ([(1151, 8192 - 16), (3, 784)], s_ln_fwd_fused),
    9: ([98432, 1001], s_asin),
    11: ([(1000, 1024, 512), (300, 272, 64)], s_matmul_persistent),
    13: ([(64, 4096), (7, 1008)], s_liger_ln),
    14: ([(4, 11008)], lambda s, g: s_gated(s, g, extra={"gate_multiplier": 1.0})),
    15: ([(4, 11008)], lambda s, g: s_gated(s, g, names=("a", "b", "c"))),
    16: ([37, 128], s_liger_rope),
    17: ([(8, 32000), (3, 1008)], s_liger_ce),
    18: ([(8, 32000), (3, 1008)], s_element_mul),
    19: ([(8, 32000), (3, 1008)], s_kldiv),
    21: ([(1000, 4096), (7, 1000)], lambda s, g: s_rows(s, g, "fp16", ("input_ptr", "output_ptr"))),
    22: ([(1000, 4096), (7, 1000)], s_gems_ln),
    23: ([(1000, 512, 384), (37, 80, 48)], lambda s, g: s_matmul(
        s, g, "A", "B", "C", 64, 64, strides=("stride_am", "stride_bk", "stride_cm"))),
    24: ([(1000, 4096), (7, 1001)], s_gems_sum),
    25: ([98432, 1001], s_gems_scan),
    27: ([(100, 1000), (3, 7)], s_gems_embedding),
    28: ([98432 + 5, 1003], s_gems_dropout),
    29: ([(2, 64, 56, 56), (1, 3, 17, 33)], s_gems_maxpool),
    31: ([64, 3], s_unsloth_rms),
    33: ([16, 3], s_unsloth_ce),
    34: ([98432 + 3, 17], s_unsloth_gate),
    35: ([98432 + 3, 17], s_unsloth_gate),
    36: ([(256, 512, 512), (37, 256, 384)], s_unsloth_fp8),
    48: ([(1000, 1008), (3, 48)], s_attorch_softmax),
    49: ([98432 + 3, 17], s_attorch_act),
    50: ([(1000, 256, 512), (37, 48, 80)], s_attorch_linear),
    54: ([128 * 1000, 128], s_fp8_quant),
    59: ([(1000, 512, 384), (37, 80, 64)], s_kernl_linear),
    62: ([100, 16], s_lightllm_rotary),
    63: ([(1000, 2816), (7, 96)], s_silu_mul),
    64: ([(1000, 8), (3, 5)], s_destindex),
    66: ([64, 3], s_xformers_rms_add),
}


# TSV row number -> the size --bench times it at: the project's own sizes scaled up until one
# launch moves a few hundred MB (memory-bound kernels) or does a 4096^3 product (matmuls), so
# that launch overhead and the L2 cache do not decide the ratio.
BENCH = {
    1: 1 << 26, 2: (65536, 781), 3: (4096, 4096, 4096), 4: 1 << 26, 5: (8192, 8192 - 16),
    9: 1 << 26, 11: (4096, 4096, 4096), 13: (16384, 4096), 14: (4096, 11008), 15: (4096, 11008),
    16: 8192, 17: (4096, 32000), 18: (4096, 32000), 19: (2048, 32000), 21: (16384, 4096),
    22: (16384, 4096), 23: (4096, 4096, 4096), 24: (16384, 4096), 25: 1 << 26, 27: (16384, 32000),
    28: 1 << 26, 29: (32, 64, 112, 112), 31: 16384, 33: 4096, 34: 1 << 26, 35: 1 << 26,
    36: (4096, 4096, 4096), 48: (32768, 1008), 49: 1 << 26, 50: (4096, 4096, 4096),
    54: 128 << 17, 59: (4096, 4096, 4096), 62: 16384, 63: (8192, 5632), 64: (65536, 8),
    66: 16384,
}
BENCH_ROUNDS = 5


def triton_specialised(case, values):
    """The row's signature with what Triton's launcher specialises at run time for these
    values: an integer entry the row leaves open ("n=i32") whose value is a multiple of 16
    becomes "n=i32:16".  None when nothing changes."""
    entries, changed = [], False
    for e in rgt.split_signature(case.sig):
        m = re.match(r"^\s*(\w+)\s*=\s*([iu](?:32|64))\s*$", e)
        v = values.get(m.group(1)) if m else None
        if m and isinstance(v, int) and not isinstance(v, bool) and v % 16 == 0:
            e, changed = f"{m.group(1)}={m.group(2)}:16", True
        entries.append(e.strip())
    return ", ".join(entries) if changed else None


def tilec_runner(kernel, vals, grid):
    args = [ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)]
    if kernel.case.grid is None:
        args += list(grid) + [1] * (3 - len(grid))
    for p in kernel.runtime:
        for (_, typ), v in zip(rgt.runtime_args(p), rgt.runtime_values(p, vals[p.name])):
            args.append(ctypes.c_void_p(v.data_ptr()) if typ.startswith("*") else v)
    launch = kernel.launch_fn

    def run():
        if launch(*args):
            raise RuntimeError(f"{kernel.case.kernel}_launch failed")
    return run


def bench_one(kernel, index, seed, plan):
    """Times tilec's and Triton's kernel at BENCH[index] on the same inputs: BENCH_ROUNDS rounds,
    each timing tilec, Triton, and Triton again as a control (what the timing itself resolves),
    in an order that alternates from round to round.  When Triton's launcher specialises an
    integer the row leaves open (a multiple of 16 at this size), tilec is also built and timed
    with that signature ("tilec_spec"), after its outputs are checked against Triton's at this
    size.  Returns {impl: median ms}, and "note" when the specialised build failed."""
    import dataclasses
    import triton.testing
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(seed)
    st = SPECS[index][1](BENCH[index], gen)
    vals = {k: (v.clone() if torch.is_tensor(v) else v) for k, v in st.values.items()}
    fns = {"tilec": tilec_runner(kernel, vals, st.grid)}
    note = None
    lib_variant = None
    bad = compare_with_triton(kernel, kernel, st)  # the test sizes passed; this one too?
    if bad:
        note = f"as written, at this size: {bad}"
    spec_sig = triton_specialised(kernel.case, st.values)
    if spec_sig:
        spec_case = dataclasses.replace(kernel.case, sig=spec_sig)
        so, err = rgt.build_case(spec_case, plan["tilec"], plan["arch"], os.path.join(plan["work"], "spec"))
        if so is None:
            note = f"{note + '; ' if note else ''}specialised build failed: {err.splitlines()[-1]}"
        else:
            spec = rgt.Kernel(spec_case, so, use_triton=False)
            bad = compare_with_triton(spec, kernel, st)
            if bad:
                note = f"{note + '; ' if note else ''}specialised build: {bad}"
            else:
                fns["tilec_spec"] = tilec_runner(spec, vals, st.grid)

    if plan.get("lib"):
        # the row's signature as written, through libtilec with specialisation at launch
        rgt.open_library(plan)
        try:
            lib_kernel = rgt.Kernel(kernel.case, rgt.LIB_BUILT, use_triton=False, specialize=True)
            bad = compare_with_triton(lib_kernel, kernel, st)
        except Exception as e:  # a library error names the kernel; the .so rows still count
            lib_kernel, bad = None, f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
        if bad:
            note = f"{note + '; ' if note else ''}library, specialised: {bad}"
        else:
            fns["tilec_lib"] = lib_kernel.library_runner(vals, st.grid)
            fns["tilec_lib"]()  # the variant for these values compiled before the timing
            rgt.synchronize()
            lib_variant = lib_kernel.lib_kernel.variants()[-1]

    names = getattr(kernel.triton_fn, "arg_names", None) or []
    given = {**{p.name: vals[p.name] for p in kernel.runtime}, **kernel.constexprs}
    options = {"num_warps": kernel.num_warps}
    if kernel.num_stages is not None:
        options["num_stages"] = kernel.num_stages
    positional = tuple(given[n] for n in names) if names and all(n in given for n in names) else None
    launcher = kernel.triton_fn[tuple(st.grid)]

    def run_triton():
        if positional is not None:
            return launcher(*positional, **options)
        return launcher(**given, **options)

    if plan.get("sass"):
        # Triton's cubin beside tilec's library, for main() to disassemble
        compiled = run_triton()
        torch.cuda.synchronize()
        with open(os.path.join(plan["work"], "triton.cubin"), "wb") as f:
            f.write(compiled.asm["cubin"])
        sass_note = f"Triton {compiled.n_regs} registers, {compiled.n_spills} spilled"

    if plan.get("profile"):
        # one launch of each implementation between cudaProfilerStart and Stop, so that a
        # profiler started with --profile-from-start off (ncu, nsys) sees these alone
        for fn in fns.values():
            fn()
        run_triton()
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for fn in list(fns.values()) + [run_triton]:
            fn()
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        return None
    fns.update({"triton": run_triton, "control": run_triton})
    times = {k: [] for k in fns}
    for r in range(BENCH_ROUNDS):
        for impl in (list(fns) if r % 2 == 0 else list(reversed(fns))):
            times[impl].append(triton.testing.do_bench(fns[impl], warmup=25, rep=100, return_mode="median"))
    rgt.synchronize()
    out = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    if spec_sig:
        out["spec_sig"] = spec_sig
    if lib_variant is not None:
        out["lib_variant"] = lib_variant
    if note:
        out["note"] = note
    if plan.get("sass"):
        out["sass_note"] = sass_note
    return out


# ---------------------------------------------------------------------------------------
# Running and comparing.
# ---------------------------------------------------------------------------------------

DOT_TOL = {torch_name: tol for torch_name, tol in
           [("float16", 1e-2), ("bfloat16", 1e-2), ("float32", 1e-3), ("float8_e4m3fn", 1e-1)]}


def where_bad(a, b, mode):
    """Positions where tilec's output a and Triton's b disagree under mode (None: none)."""
    if a.dtype.is_floating_point is False or mode == "exact":
        bad = rgt.bits(a) != rgt.bits(b)
        return bad if bool(bad.any()) else None
    both_nan = torch.isnan(a.float()) & torch.isnan(b.float())
    if mode == "dot":
        a64, b64 = a.double().nan_to_num(), b.double().nan_to_num()
        err = float(torch.linalg.vector_norm(a64 - b64) / max(float(torch.linalg.vector_norm(b64)), 1e-30))
        if err <= DOT_TOL.get(str(a.dtype).split(".")[-1], 1e-2) and bool((torch.isnan(a) == torch.isnan(b)).all()):
            return None
        return torch.ones_like(a, dtype=torch.bool)
    a64, b64 = a.double(), b.double()
    diff = (a64 - b64).abs()
    if mode == "accum":
        # running sums: an order of additions other than Triton's moves each result by the
        # rounding of the partial sums it passed through, which scale with the largest of
        # them, not with the (possibly cancelled) result itself
        scale = float(b64[torch.isfinite(b64)].abs().max()) if bool(torch.isfinite(b64).any()) else 1.0
        ok = diff <= rgt.FP32_ATOL + rgt.FP32_RTOL * max(scale, 1.0)
        bad = ~(ok | both_nan) | (torch.isnan(a.float()) != torch.isnan(b.float()))
        return bad if bool(bad.any()) else None
    if a.dtype == torch.float32:
        ok = diff <= rgt.FP32_ATOL + rgt.FP32_RTOL * b64.abs()
    else:
        ok = (rgt.ulp_distance(a, b) <= rgt.HALF_ULPS) | (diff <= rgt.HALF_ATOL)
    bad = ~(ok | both_nan) | (torch.isnan(a.float()) != torch.isnan(b.float()))
    return bad if bool(bad.any()) else None


def compare_with_triton(tk, triton_kernel, st):
    """Runs tilec's kernel (tk) and Triton's on copies of st's inputs, each output poisoned
    first, and compares every output; None, or what went wrong."""
    results = []
    for impl, launch in (("tilec", tk.launch_tilec), ("Triton", triton_kernel.launch_triton)):
        vals = {k: (v.clone() if torch.is_tensor(v) else v) for k, v in st.values.items()}
        for name in st.outs:
            rgt.poison_(vals[name])
        err = launch(vals, st.grid)
        if err:
            return f"{impl}: {err}"
        torch.cuda.synchronize()
        results.append(vals)
    for name in st.outs + st.inplace:
        a, b = results[0][name], results[1][name]
        bad = where_bad(a, b, st.mode)
        if bad is not None:
            first = int(bad.flatten().nonzero()[0])
            return (f"{name}: {int(bad.sum())} of {a.numel()} differ ({st.mode}); first at {first}: "
                    f"tilec {a.flatten()[first].item()!r}, Triton {b.flatten()[first].item()!r}")
    return None


def run_one(case, so, index, seed):
    """Runs every size of one kernel; returns (ok, text)."""
    kernel = rgt.Kernel(case, so, use_triton=False)
    kernel.triton_fn = load_triton_kernel(case)
    sizes, setup = SPECS[index]
    notes = []
    for size in sizes:
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(seed)
        st = setup(size, gen)
        missing = [p.name for p in kernel.runtime if p.name not in st.values]
        if missing:
            return False, f"the inputs lack {', '.join(missing)}"
        err = compare_with_triton(kernel, kernel, st)
        if err:
            return False, f"size {size}: {err}"
        notes.append(str(size))
    return True, f"{st.mode}, sizes {'; '.join(notes)}"


def worker(plan_path):
    global torch
    torch = rgt.load_torch()
    DT.update(dtypes())
    os.environ.setdefault("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "1")
    with open(plan_path) as f:
        plan = json.load(f)
    case = Case(**plan["case"])
    times = None
    try:
        ok, text = run_one(case, plan["so"], plan["index"], plan["seed"])
        if ok and (plan.get("bench") or plan.get("profile")) and plan["index"] in BENCH:
            kernel = rgt.Kernel(case, plan["so"], use_triton=False)
            kernel.triton_fn = load_triton_kernel(case)
            times = bench_one(kernel, plan["index"], plan["seed"], plan)
    except rgt.ContextLost as e:
        ok, text = False, f"CUDA context lost: {e}"
    except Exception as e:
        ok, text = False, f"{type(e).__name__}: {str(e).strip().splitlines()[-1] if str(e).strip() else ''}"
    print(json.dumps({"ok": ok, "text": text, "times": times}), flush=True)
    return 0


def check_cpu(case, index):
    """--cpu-only, where torch and Triton can be imported: Triton's kernel loads from DIR and
    compiles for sm_90 with the row's specialisation, and the inputs (made on the CPU) give
    every runtime parameter, pointers of the signature's element types.  (ok, text)"""
    global torch, DEVICE
    try:
        import torch as _torch
        import triton
        from triton.backends.compiler import GPUTarget
    except Exception:
        return True, "Triton not checked (no torch or Triton here)"
    torch, DEVICE = rgt.load_torch(), "cpu"
    DT.update(dtypes())
    os.environ.setdefault("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS", "1")
    try:
        params = rgt.kernel_signature(case)
        fn = load_triton_kernel(case)
        sig = {p.name: ("constexpr" if p.kind == "const" else
                        "*" + p.dtype if p.kind == "ptr" else p.dtype) for p in params}
        consts = {p.name: p.value for p in params if p.kind == "const"}
        triton.compile(triton.compiler.ASTSource(fn, signature=sig, constexprs=consts),
                       target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": case.num_warps, **({"num_stages": case.num_stages}
                                                               if case.num_stages else {})})
        div16 = [e.split("=")[0].strip() for e in rgt.split_signature(case.sig)
                 if re.match(r"^\w+\s*=\s*[iu]\d+:16$", e)]
        sizes, setup = SPECS[index]
        for size in sizes:
            gen = torch.Generator(device="cpu")
            gen.manual_seed(1)
            st = setup(size, gen)
            for p in params:
                if p.kind == "const":
                    continue
                if p.name not in st.values:
                    return False, f"size {size}: the inputs lack {p.name}"
                v = st.values[p.name]
                if p.kind == "ptr" and rgt.torch_dtype(p.dtype) != v.dtype:
                    return False, f"size {size}: {p.name} is {v.dtype}, the signature says *{p.dtype}"
                if p.name in div16 and v % 16:
                    return False, f"size {size}: {p.name} = {v}, the signature says a multiple of 16"
        return True, "Triton compiles it; inputs match the signature"
    except Exception as e:
        text = str(e).strip().splitlines()
        return False, f"Triton side: {type(e).__name__}: {text[-1] if text else ''}"


def write_sass(folder, name, so, case_work):
    """--sass: NAME-tilec.sass (the row as written, and NAME-tilec-spec.sass for Triton's
    specialisation where it was built) and NAME-triton.sass in FOLDER; returns tilec's register
    counts as cuobjdump reports them."""
    os.makedirs(folder, exist_ok=True)
    notes = []
    spec = [os.path.join(case_work, "spec", f) for f in sorted(os.listdir(os.path.join(case_work, "spec")))
            if f.endswith(".so")] if os.path.isdir(os.path.join(case_work, "spec")) else []
    for tag, path in [("tilec", so)] + [("tilec-spec", p) for p in spec[:1]] + \
                     [("triton", os.path.join(case_work, "triton.cubin"))]:
        sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True)
        with open(os.path.join(folder, f"{name}-{tag}.sass"), "w") as f:
            f.write(sass.stdout + sass.stderr)
        if tag.startswith("tilec"):
            res = subprocess.run(["cuobjdump", "-res-usage", path], capture_output=True, text=True).stdout
            m = re.search(r"REG:(\d+)", res)
            notes.append(f"{tag} {m.group(1) if m else '?'} registers")
    return ", ".join(notes)


def write_bench(path, timed, arch):
    """The --bench table: one row per kernel, tilec/Triton and the control's ratio."""
    env = subprocess.run([sys.executable, "-c", "import torch, triton; print(torch.cuda.get_device_name(), "
                          "'|', torch.__version__, '|', triton.__version__)"], capture_output=True, text=True)
    gpu, tv, trv = (env.stdout.strip().split(" | ") + ["?", "?", "?"])[:3]
    nv = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    lines = ["# Corpus kernels: tilec against Triton on the same source", "",
             f"- GPU: {gpu}; torch {tv}; triton {trv}; {nv[-1] if nv else 'nvcc ?'}; tilec --arch {arch}",
             f"- date: {subprocess.run(['date', '-u', '+%Y-%m-%d %H:%M UTC'], capture_output=True, text=True).stdout.strip()}",
             f"- timing: triton.testing.do_bench(warmup=25, rep=100, median) per implementation, {BENCH_ROUNDS} rounds "
             "in alternating order, the median of the rounds; the control is Triton's kernel timed again as "
             "if it were another implementation, so its ratio shows what the timing resolves",
             "- size: BENCH in tools/corpus_gpu.py (the project's shapes scaled up); the row's config "
             "(constexprs, num_warps, num_stages) from bench/corpus/kernels.tsv, the same for both",
             "- correctness: each kernel passed the comparison with Triton at the test sizes first", "",
             "- tilec: the row's signature as written; tilec (Triton's specialisation): the same with every "
             "integer Triton's launcher finds a multiple of 16 at this size declared so (i32:16), "
             "as Triton compiles it (checked against Triton at this size first)"]
    lib = any("tilec_lib" in t for _, _, t in timed)
    if lib:
        lines.append("- tilec (library): the row's signature as written, through libtilec (NVRTC) with "
                     "specialisation at launch (tilec_translate_options.specialize), which compiles the variant "
                     "for what these arguments show (checked against Triton at this size first); its last "
                     "column is the variant's added signature entries")
    lines += ["", "| kernel | size | tilec ms | tilec (Triton's specialisation) ms | Triton ms | tilec/Triton | "
              "tilec (specialised)/Triton | Triton/Triton (control) |" +
              (" tilec (library) ms | tilec (library)/Triton | variant |" if lib else ""),
              "|---|---|---|---|---|---|---|---|" + ("---|---|---|" if lib else "")]
    for name, size, t in timed:
        sp = t.get("tilec_spec")
        sp_ratio = f"{t['triton'] / sp:.3f}" if sp else "—"
        line = (f"| {name} | {size} | {t['tilec']:.4f} | {f'{sp:.4f}' if sp else t.get('note', 'same signature')} | "
                f"{t['triton']:.4f} | {t['triton'] / t['tilec']:.3f} | "
                f"{sp_ratio} | {t['triton'] / t['control']:.3f} |")
        if lib:
            li = t.get("tilec_lib")
            line += (f" {li:.4f} | {t['triton'] / li:.3f} | `{t.get('lib_variant') or 'as written'}` |" if li
                     else f" — | — | {t.get('note', '')} |")
        lines.append(line)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", help="the corpus folder (OWNER+NAME/PATH)")
    ap.add_argument("--tsv", default=os.path.join(ROOT, "bench", "corpus", "kernels.tsv"))
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--arch", help="default: the GPU's (sm_90 with --cpu-only)")
    ap.add_argument("--only", default="", help="run only the kernels whose row name contains TEXT (several: "
                    "TEXT,TEXT,...)")
    ap.add_argument("--keep", help="keep the .cu and .so files in this folder")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cpu-only", action="store_true", help="translate and compile only; launch nothing")
    ap.add_argument("--list", action="store_true", help="list the kernels covered and exit")
    ap.add_argument("--bench", help="also time each kernel that passes against Triton at a large size "
                    "(BENCH) and write the table as markdown to this file")
    ap.add_argument("--profile", action="store_true", help="launch tilec's kernel and Triton's once each "
                    "at the --bench size between cudaProfilerStart and cudaProfilerStop, untimed, for a "
                    "profiler run with --profile-from-start off (ncu --profile-from-start off python3 ...)")
    ap.add_argument("--lib", help="with --bench: also time the row's signature as written through this "
                    "libtilec.so, specialised at launch (tilec_translate_options.specialize)")
    ap.add_argument("--sass", help="with --bench: write each timed kernel's SASS, tilec's and Triton's, "
                    "into this folder (cuobjdump), with both register counts on the timing line")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker(opts.worker)
    rows = read_rows(opts.tsv)
    if opts.list:
        for index in sorted(SPECS):
            print(f"{index:2d} {rows[index - 1][3]} ({rows[index - 1][0]})")
        return 0
    if not opts.src:
        ap.error("--src is needed")
    arch = opts.arch or ("sm_90" if opts.cpu_only else rgt.detect_arch())
    work = opts.keep or tempfile.mkdtemp(prefix="corpus_gpu_")
    passed = failed = skipped = 0
    timed = []
    for index in sorted(SPECS):
        case = row_case(rows[index - 1], index, opts.src, arch)
        if opts.only and not any(t in case.name for t in opts.only.split(",")):
            continue
        if not os.path.isfile(case.source):
            print(f"SKIP  {case.name}  no source {case.source} (fetch the corpus first)", flush=True)
            skipped += 1
            continue
        so, err = rgt.build_case(case, os.path.abspath(opts.tilec), arch, os.path.join(work, case.name))
        if so is None:
            print(f"FAIL  {case.name}  {err.splitlines()[0]}: {err.splitlines()[-1]}", flush=True)
            failed += 1
            continue
        if opts.cpu_only:
            ok, text = check_cpu(case, index)
            print(f"{'BUILT' if ok else 'FAIL '} {case.name}  {text}", flush=True)
            passed += ok
            failed += not ok
            continue
        plan_path = os.path.join(work, case.name, "plan.json")
        with open(plan_path, "w") as f:
            json.dump({"case": case.__dict__, "so": so, "index": index, "seed": opts.seed,
                       "bench": bool(opts.bench), "profile": opts.profile, "sass": bool(opts.sass and opts.bench), "tilec": os.path.abspath(opts.tilec), "arch": arch,
                       "work": os.path.join(work, case.name),
                       "lib": os.path.abspath(opts.lib) if opts.lib else None,
                       "cache": os.path.join(work, "libtilec-cache")}, f)
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", plan_path],
                           capture_output=True, text=True, timeout=1800)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if not lines:
            tail = (r.stdout + r.stderr).strip().splitlines()
            print(f"FAIL  {case.name}  worker exit {r.returncode}: {tail[-1] if tail else ''}", flush=True)
            failed += 1
            continue
        res = json.loads(lines[-1])
        print(f"{'PASS' if res['ok'] else 'FAIL'}  {case.name}  {res['text']}", flush=True)
        if res.get("times"):
            t = res["times"]
            timed.append((case.name, BENCH[index], t))
            spec = (f"; specialised {t['tilec_spec']:.4f} ms: {t['triton'] / t['tilec_spec']:.3f}x"
                    if "tilec_spec" in t else "")
            if "tilec_lib" in t:
                spec += f"; library {t['tilec_lib']:.4f} ms: {t['triton'] / t['tilec_lib']:.3f}x"
            print(f"      time at {BENCH[index]}: tilec {t['tilec']:.4f} ms, Triton {t['triton']:.4f} ms: "
                  f"{t['triton'] / t['tilec']:.3f}x (control {t['triton'] / t['control']:.3f}x){spec}"
                  f"{'; ' + t['note'] if 'note' in t else ''}", flush=True)
            if "sass_note" in t:
                print(f"      {write_sass(opts.sass, case.name, so, os.path.join(work, case.name))}; "
                      f"{t['sass_note']}", flush=True)
        passed += res["ok"]
        failed += not res["ok"]
    if opts.bench:
        write_bench(opts.bench, timed, arch)
    what = "built" if opts.cpu_only else "passed"
    print(f"{passed} {what}, {failed} failed, {skipped} skipped (of {len(SPECS)} kernels)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Manifest of the GPU test cases: which kernel, translated how, checked how.

Each Case names a Triton source file and one specialisation of one kernel in it (the
tilec -s/-D/-w/--grid flags), the driver in run_gpu_tests.py that makes its inputs and its
float64 reference, and the sizes it runs at.  Golden cases (tests/golden/*.flags, one line
`INPUT.py flags...`) are added at run time by run_gpu_tests.py with the "generic" driver,
which compares tilec with Triton on random inputs, since no reference is known for them;
goldens of kernels whose cases use a 2-D driver (not in ONE_D_DRIVERS) are left to those.

A case whose kernel tilec rejects (exit status 1, e.g. "not supported yet") is skipped, and
its Triton run is still checked against the reference, so that the test itself is known good.
"""

from dataclasses import dataclass, field

# Sizes (number of elements) for 1-D kernels: tiny, ragged, one block, many blocks.
SIZES = [1, 17, 1000, 4096, 98432, (1 << 20) + 3]
# For signatures that promise n % 16 == 0 ("i32:16").
SIZES_DIV16 = [16, 4096, 98432, 1 << 20]
# (n_rows, n_cols, row stride) for row_chunks_kernel; strides > n_cols leave a gap that
# the kernel must not touch.
ROW_SHAPES = [(1, 1, 1), (3, 17, 20), (7, 1000, 1000), (16, 4096, 4099), (5, 98432, 98432),
              (2, (1 << 19) + 3, (1 << 19) + 3)]

# Row-wise kernels (softmax, norms, cross-entropy, scans, column reductions): shapes are
# (rows, cols, row stride[, ...]) in elements; a stride larger than cols leaves a gap that the
# kernel must not write.  They include one row, three rows of 17, 127 rows, ragged widths
# (781, 1000, 300) and many rows (4096).
SOFTMAX_1K = [(1, 1, 1, 1), (3, 17, 20, 24), (127, 781, 781, 800), (4096, 781, 781, 781),
              (64, 1000, 1024, 1000), (5, 1024, 1024, 1024)]    # (rows, cols, in stride, out stride)
NORM_1K = [(1, 1, 1), (3, 17, 24), (127, 781, 781), (4096, 1024, 1024), (64, 1000, 1008)]
NORM_8K = [(3, 5000, 5000), (127, 8192, 8192), (17, 7001, 7008)]
DWDB_SHAPES = [(1, 1, 1), (3, 17, 24), (1000, 300, 300), (127, 781, 781), (4096, 1024, 1024)]
XENT_SHAPES = [(1, 1, 1), (3, 17, 20), (127, 1000, 1000), (64, 32000, 32000),
               (1, 65536, 65536), (7, 50257, 50264)]            # (rows, V, stride)
COL_SHAPES = [(1, 1, 1, "randn"), (3, 17, 20, "ties"), (1000, 300, 300, "randn"),
              (1000, 300, 300, "ties"), (127, 781, 781, "ties"), (4096, 128, 136, "randn")]
CUMSUM_SIZES = [1, 17, 1000, 4096, 65536, 98432 + 5]
CUMSUM_ROWS = [(1, 1, 1), (3, 17, 20), (127, 781, 781), (1000, 300, 300), (1, 65536, 65536),
               (64, 1000, 1024)]

# Drivers whose kernels take 1-D tiles and one size n, which the generic driver can also run
# (for golden files of the same kernels); goldens of kernels driven otherwise are skipped.
ONE_D_DRIVERS = {"vector_add", "activation", "scaled_add", "dropout", "rand", "randint",
                 "cumsum", "generic"}

ACTIVATIONS = ["gelu_tanh", "silu", "leaky_relu"]
ALPHA = 0.01          # leaky_relu slope, passed as the fp32 runtime argument `alpha`
SCALE = 0.7071        # `scale` argument of the chunked-loop kernels
EPS = 1e-5            # `eps` argument of the norm kernels
DROPOUT_P = 0.3       # `p` argument of dropout_kernel


@dataclass
class Case:
    name: str                     # unique, printed; --only matches a substring of it
    source: str                   # Triton file, relative to the repository root
    kernel: str                   # -k
    sig: str                      # -s, positional Triton-AOT form
    defines: dict = field(default_factory=dict)   # -D NAME=VALUE
    num_warps: int = 4            # -w
    grid: str = None              # --grid; None: the launcher takes grid_x, grid_y, grid_z
    driver: str = "generic"       # a key of run_gpu_tests.DRIVERS
    dtype: str = "fp32"           # element type of the tensors
    sizes: list = field(default_factory=lambda: list(SIZES))
    extra_flags: list = field(default_factory=list)  # further tilec flags (golden cases, --arch)
    skip: str = None              # set at run time: why tilec could not translate it
    num_stages: int = None        # --num-stages, and Triton's num_stages; None: the default (3)
    config: int = None            # --config N of an @triton.autotune kernel: its constexprs,
                                  # num_warps and num_stages (num_warps above is then unused)
    feature: str = None           # "dot": under --dot, tilec rejecting it is a failure
    opts: dict = field(default_factory=dict)      # driver-specific settings (matmul layouts)

    def tilec_args(self):
        args = [self.source, "-k", self.kernel, "-s", self.sig]
        if self.config is not None:
            args += ["--config", str(self.config)]
        else:
            args += ["-w", str(self.num_warps)]
        if self.num_stages is not None:
            args += ["--num-stages", str(self.num_stages)]
        for name, value in self.defines.items():
            args += ["-D", f"{name}={value}"]
        if self.grid is not None:
            args += ["--grid", self.grid]
        return args + list(self.extra_flags)


def example_cases():
    cases = []

    # vector_add: three element types; grid from --grid or given by the caller; two block
    # sizes and warp counts; the n % 16 == 0 specialisation.
    for dt in ["fp32", "fp16", "bf16"]:
        cases.append(Case(f"vector_add/{dt}/B1024/w4", "examples/vector_add.py", "add_kernel",
                          f"*{dt}:16, *{dt}:16, *{dt}:16, i32, 1024", num_warps=4,
                          grid="cdiv(n_elements, BLOCK_SIZE)", driver="vector_add", dtype=dt))
    cases.append(Case("vector_add/fp32/B256/w2/host-grid", "examples/vector_add.py", "add_kernel",
                      "*fp32:16, *fp32:16, *fp32:16, i32, 256", num_warps=2,
                      driver="vector_add", dtype="fp32"))
    cases.append(Case("vector_add/fp16/B2048/w8", "examples/vector_add.py", "add_kernel",
                      "*fp16:16, *fp16:16, *fp16:16, i32", defines={"BLOCK_SIZE": 2048},
                      num_warps=8, grid="cdiv(n_elements, BLOCK_SIZE)",
                      driver="vector_add", dtype="fp16"))
    cases.append(Case("vector_add/bf16/B64/w1", "examples/vector_add.py", "add_kernel",
                      "*bf16, *bf16, *bf16, i32, 64", num_warps=1,
                      grid="cdiv(n_elements, BLOCK_SIZE)", driver="vector_add", dtype="bf16",
                      sizes=[1, 17, 1000, 4096, 98432]))
    for dt in ["fp32", "fp16"]:
        cases.append(Case(f"vector_add/{dt}/B1024/w4/n16", "examples/vector_add.py", "add_kernel",
                          f"*{dt}:16, *{dt}:16, *{dt}:16, i32:16, 1024", num_warps=4,
                          grid="cdiv(n_elements, BLOCK_SIZE)", driver="vector_add", dtype=dt,
                          sizes=list(SIZES_DIV16)))

    # --variant: the signature as written (no hints) and two variants with facts the launcher
    # tests (all aligned; only n); the sizes take each path (n % 16 == 0 or not)
    cases.append(Case("vector_add/fp32/B1024/w4/variants", "examples/vector_add.py", "add_kernel",
                      "*fp32, *fp32, *fp32, i32, 1024", num_warps=4, grid="cdiv(n_elements, BLOCK_SIZE)",
                      driver="vector_add", dtype="fp32",
                      extra_flags=["--variant", "x_ptr=*fp32:16, y_ptr=*fp32:16, output_ptr=*fp32:16, n_elements=i32:16",
                                   "--variant", "n_elements=i32:16"]))

    # fused_activation: every ACTIVATION in every element type; the string constexpr given
    # once in -s and once with -D.
    for act in ACTIVATIONS:
        for dt in ["fp32", "fp16", "bf16"]:
            if dt == "fp16":
                sig, defines = f"*{dt}:16, *{dt}:16, i32, fp32", {"ACTIVATION": act, "BLOCK_SIZE": 1024}
            else:
                sig, defines = f"*{dt}:16, *{dt}:16, i32, fp32, \"{act}\", 1024", {}
            cases.append(Case(f"activation/{act}/{dt}/B1024/w4", "examples/fused_activation.py",
                              "activation_kernel", sig, defines=defines, num_warps=4,
                              grid="cdiv(n_elements, BLOCK_SIZE)", driver="activation", dtype=dt))
    cases.append(Case("activation/silu/fp16/B512/w2/host-grid", "examples/fused_activation.py",
                      "activation_kernel", "*fp16:16, *fp16:16, i32, fp32, 'silu', 512",
                      num_warps=2, driver="activation", dtype="fp16"))

    # chunked_loop: persistent grid-stride loop (grid given by the caller) and a loop over
    # the chunks of one row.
    for dt in ["fp32", "fp16"]:
        cases.append(Case(f"scaled_add/{dt}/B1024/w4", "examples/chunked_loop.py", "scaled_add_kernel",
                          f"*{dt}:16, *{dt}:16, *{dt}:16, i32, fp32, 1024", num_warps=4,
                          driver="scaled_add", dtype=dt))
    cases.append(Case("scaled_add/bf16/B256/w2", "examples/chunked_loop.py", "scaled_add_kernel",
                      "*bf16:16, *bf16:16, *bf16:16, i32, fp32, 256", num_warps=2,
                      driver="scaled_add", dtype="bf16"))
    for dt in ["fp32", "fp16"]:
        cases.append(Case(f"row_chunks/{dt}/B256/w2", "examples/chunked_loop.py", "row_chunks_kernel",
                          f"*{dt}:16, *{dt}:16, i32, i32, i32, fp32, 256", num_warps=2,
                          grid="n_rows", driver="row_chunks", dtype=dt, sizes=list(ROW_SHAPES)))
    cases.append(Case("row_chunks/fp32/B1024/w4/host-grid", "examples/chunked_loop.py", "row_chunks_kernel",
                      "*fp32:16, *fp32:16, i32, i32, i32, fp32, 1024", num_warps=4,
                      driver="row_chunks", dtype="fp32", sizes=list(ROW_SHAPES)))
    return (cases + rowwise_cases() + random_and_scan_cases() + atomic_and_misc_cases()
            + matmul_cases() + fp8_cases() + math_cases() + attention_cases() + pointer_array_cases())


# Groups of fp16 arrays reached through tables of addresses (a grouped GEMM's operands); each
# size is one set of groups.  DSTS as **fp16 (a pointer to pointers) or as *i64 addresses
# cast with tl.pointer_type; Triton's JIT, given int64 tensors, always sees *i64.
GROUP_SIZES = [(1,), (17, 1000, 4096), (5000, 1, 2048, 3, 98432)]


def pointer_array_cases():
    return [Case(f"group_scale/{kind}/B1024/w4", "tests/golden/pointer_arrays.py", "group_scale_kernel",
                 f"*i64:16, {dst}, *i32:16, fp32, 1024", num_warps=4, driver="group_ptrs", dtype="fp16",
                 sizes=list(GROUP_SIZES))
            for kind, dst in [("i64", "*i64:16"), ("ptr2", "**fp16:16")]]


# ---- attention: examples/attention.py -----------------------------------------------------
#
# The chain tl.dot -> row softmax -> tl.dot.  attn_fwd at (Z, H, N_CTX): ragged lengths (77,
# 1000) leave a partial last block of queries and of keys; decode at (batch, kv heads, longest
# context) with ragged per-sequence lengths; paged at (query lengths, context lengths, kv heads,
# cache blocks): decode steps (1 query) and prefill chunks mixed in one launch.
ATTN_SHAPES = [(1, 1, 16), (2, 3, 77), (1, 2, 1000), (2, 4, 2048)]
DECODE_SHAPES = [(1, 1, 5), (3, 2, 77), (4, 2, 1000), (2, 8, 4096)]
PAGED_SHAPES = [([1, 1, 1], [15, 0, 40], 1, 16),
                ([5, 17, 1, 64], [0, 33, 100, 7], 2, 64),
                ([200, 1, 37], [300, 1000, 0], 2, 160)]
ATTN_PTRS = "Q=*{d}:16, K=*{d}:16, V=*{d}:16, Out=*{d}:16, Lse=*fp32:16"
ATTN_STRIDES = ", ".join(f"stride_{t}{x}=i32:16" for t in "qkvo" for x in
                         {"q": "zhm", "k": "zhn", "v": "zhn", "o": "zhm"}[t])


def _attn(dt, d, bm, bn, warps, causal, k_cols=False, stages=3, flags=(), kernel="attn_fwd"):
    sig = (ATTN_PTRS.format(d=dt) + ", sm_scale=fp32, " + ATTN_STRIDES + ", H=i32, N_CTX=i32, "
           f"HEAD_DIM={d}, BLOCK_M={bm}, BLOCK_N={bn}, CAUSAL={causal}")
    if kernel == "attn_fwd":
        sig += f", K_BY_COLUMNS={k_cols}"
    name = (f"{kernel}/{dt}/d{d}/{bm}x{bn}/w{warps}" + ("/causal" if causal else "")
            + ("/k-by-columns" if k_cols else "") + ("/no-pipeline" if stages == 1 else "")
            + (f"/s{stages}" if stages == 2 else "")
            + "".join("/" + f.lstrip("-") for f in flags[1:]))
    return Case(name, "examples/attention.py", kernel, sig, num_warps=warps, num_stages=stages,
                driver="attn_fwd", dtype=dt, sizes=list(ATTN_SHAPES), feature="dot",
                extra_flags=list(flags))


def attention_cases():
    split = ("Q=*{d}:16, K=*{d}:16, V=*{d}:16, Seq_lens=*i32:16, Mid_o=*fp32:16, Mid_lse=*fp32:16, "
             "sm_scale=fp32, stride_qb=i32:16, stride_qh=i32:16, stride_kb=i32:16, stride_kt=i32:16, "
             "stride_kh=i32:16, stride_vb=i32:16, stride_vt=i32:16, stride_vh=i32:16, "
             "stride_mb=i32:16, stride_mh=i32:16, stride_ms=i32:16, stride_lb=i32, stride_lh=i32, "
             "GROUP={g}, HEAD_DIM={hd}, BLOCK_H=16, BLOCK_N={bn}, NUM_SPLITS={s}")
    merge = ("Mid_o=*fp32:16, Mid_lse=*fp32:16, Out=*{d}:16, stride_mb=i32:16, stride_mh=i32:16, "
             "stride_ms=i32:16, stride_lb=i32, stride_lh=i32, stride_ob=i32:16, stride_oh=i32:16, "
             "HEAD_DIM={hd}, NUM_SPLITS={s}")
    paged = ("Q=*{d}:16, Key_cache=*{d}:16, Value_cache=*{d}:16, Out=*{d}:16, Block_tables=*i32:16, "
             "Seq_lens=*i32:16, Query_start_len=*i32:16, sm_scale=fp32, num_seqs=i32, "
             "stride_qt=i64:16, stride_qh=i64:16, stride_kblk=i64:16, stride_kslot=i64:16, "
             "stride_khead=i64:16, stride_vblk=i64:16, stride_vslot=i64:16, stride_vhead=i64:16, "
             "stride_bt=i64, stride_ot=i64:16, stride_oh=i64:16, QUERIES_PER_KV={q}, "
             "HEAD_DIM={hd}, PAGE={p}, BLOCK_Q={bq}, BLOCK_M={bm}")
    cases = [
        _attn("fp16", 64, 128, 64, 4, False),
        _attn("fp16", 64, 128, 64, 4, False, flags=("--arch", "sm_80")),
        _attn("fp16", 64, 128, 64, 8, False),
        _attn("fp16", 64, 128, 64, 4, True),
        _attn("fp16", 128, 128, 64, 8, True),
        _attn("bf16", 128, 64, 64, 4, False),
        _attn("bf16", 64, 128, 32, 4, True, flags=("--arch", "sm_80")),
        _attn("fp16", 64, 64, 32, 4, False, k_cols=True),
        _attn("bf16", 128, 128, 64, 8, True, k_cols=True),
        _attn("fp16", 32, 16, 16, 1, True, stages=2),
        # no pipeline: q's buffer (read in the loop, dot_reload.c) is freed by a barrier of
        # its own after the loop, and the epilogue's exchanges reuse its bytes
        _attn("fp16", 64, 64, 32, 4, False, stages=1),
        # causal keys in two passes (the unmasked blocks, then the diagonal one), both reading
        # q from one buffer written once (dot_reload.c, share)
        _attn("fp16", 64, 128, 64, 4, True, kernel="attn_fwd_banded"),
        _attn("bf16", 128, 128, 64, 8, True, kernel="attn_fwd_banded"),
        _attn("fp16", 64, 64, 32, 4, True, stages=1, kernel="attn_fwd_banded"),
        _attn("fp16", 64, 128, 64, 4, False, kernel="attn_fwd_banded"),
        _attn("bf16", 64, 128, 32, 4, True, flags=("--arch", "sm_80"), kernel="attn_fwd_banded"),
    ]
    # Hopper (translated for sm_90, built for sm_90a on an sm_90 GPU): both dots on wgmma, q
    # from its buffer in the NVMMA layout, k and v from NVMMA rings, p @ v with p in registers
    S90 = ("--arch", "sm_90")
    cases += [
        _attn("fp16", 64, 128, 64, 4, False, flags=S90),
        _attn("fp16", 64, 128, 64, 4, True, flags=S90),
        _attn("fp16", 64, 128, 64, 8, False, flags=S90),
        _attn("fp16", 128, 128, 64, 8, True, flags=S90),
        _attn("bf16", 128, 64, 64, 4, False, flags=S90),
        _attn("bf16", 128, 128, 64, 8, True, k_cols=True, flags=S90),
        _attn("fp16", 64, 64, 32, 4, False, k_cols=True, flags=S90),
        _attn("fp16", 64, 64, 32, 4, False, stages=2, flags=S90),
        _attn("fp16", 64, 64, 32, 4, False, stages=1, flags=S90),
        _attn("fp16", 64, 128, 64, 4, True, flags=S90, kernel="attn_fwd_banded"),
        _attn("bf16", 128, 128, 64, 8, True, flags=S90, kernel="attn_fwd_banded"),
    ]
    for dt, g, hd, bn, s, w in [("fp16", 4, 128, 64, 8, 4), ("bf16", 8, 64, 32, 4, 4),
                                ("fp16", 16, 128, 64, 16, 4), ("bf16", 1, 128, 32, 2, 2)]:
        cases.append(Case(f"decode_split/{dt}/g{g}/d{hd}/n{bn}/s{s}/w{w}", "examples/attention.py",
                          "decode_split", split.format(d=dt, g=g, hd=hd, bn=bn, s=s), num_warps=w,
                          driver="decode_split", dtype=dt, sizes=list(DECODE_SHAPES), feature="dot",
                          opts={"group": g}))
        cases.append(Case(f"decode_merge/{dt}/g{g}/d{hd}/s{s}", "examples/attention.py",
                          "decode_merge", merge.format(d=dt, hd=hd, s=s), num_warps=w,
                          driver="decode_merge", dtype=dt, sizes=list(DECODE_SHAPES),
                          opts={"group": g}))
    for dt, q, hd, p, bq, bm, w in [("bf16", 4, 128, 16, 16, 64, 4), ("fp16", 8, 64, 32, 8, 64, 4),
                                    ("bf16", 1, 128, 16, 64, 64, 4), ("fp16", 2, 64, 16, 64, 128, 8)]:
        for flags in [[], ["--arch", "sm_90"]]:
            cases.append(Case(f"paged/{dt}/q{q}/d{hd}/page{p}/{bq}x{q}/w{w}" + ("/sm_90" if flags else ""),
                              "examples/attention.py", "paged_attention",
                              paged.format(d=dt, q=q, hd=hd, p=p, bq=bq, bm=bm), num_warps=w, driver="paged",
                              dtype=dt, sizes=list(PAGED_SHAPES), feature="dot", extra_flags=flags))
    # decode_pv_gather: value rows gathered through a token-to-slot table, GQA heads as the rows
    # of one dot (mma.sync at 16 rows, also on Hopper); ragged and empty sequences
    pv = ("P=*fp32:16, V_cache=*{d}:16, Req_to_token=*i32:16, Seq_lens=*i32:16, Out=*{d}:16, "
          "stride_pb=i32:16, stride_ph=i32:16, stride_rb=i32:16, stride_vt=i32:16, stride_vh=i32:16, "
          "stride_ob=i32:16, stride_oh=i32:16, GROUP={g}, HEAD_DIM={hd}, BLOCK_N={bn}")
    for dt, g, hd, bn, w, st, flags in [("bf16", 16, 128, 128, 4, 3, ()), ("fp16", 16, 64, 64, 4, 3, ("--arch", "sm_90")),
                                        ("bf16", 16, 128, 64, 8, 2, ("--arch", "sm_90")),
                                        ("fp16", 32, 64, 32, 4, 1, ())]:
        cases.append(Case(f"decode_pv/{dt}/g{g}/d{hd}/n{bn}/w{w}/s{st}" + ("/sm_90" if flags else ""),
                          "examples/attention.py", "decode_pv_gather", pv.format(d=dt, g=g, hd=hd, bn=bn),
                          num_warps=w, num_stages=st, driver="decode_pv", dtype=dt, feature="dot",
                          sizes=[(1, 16, 1, "full"), (3, 208, 2, "ragged"), (4, 512, 4, "ragged"),
                                 (2, 1024, 8, "full")], extra_flags=list(flags)))
    return cases


def rowwise_cases():
    """Reductions along rows or columns: softmax, layer/RMS norm, cross-entropy, max/min."""
    cases = []
    F32, F16 = "*fp32:16", "*fp16:16"

    # softmax_kernel: one row per program, grid (n_rows,) from the caller; the block must
    # cover the row.  Warps as in the tutorials: 4 up to 2048 columns, 8 up to 8192, then 16.
    for dt, block, warps, shapes in [
            ("fp32", 1024, 4, SOFTMAX_1K),
            ("fp32", 4096, 8, [(1, 4096, 4096, 4096), (33, 3000, 3000, 3001), (256, 4096, 4096, 4096)]),
            ("fp32", 16384, 16, [(3, 16384, 16384, 16384), (17, 9000, 9001, 9000), (2, 12345, 12352, 12345)]),
            ("fp32", 32768, 32, [(3, 32000, 32000, 32000), (5, 20001, 20008, 20001)]),
            ("fp16", 1024, 4, [(3, 17, 20, 24), (127, 781, 781, 800), (4096, 1000, 1000, 1000)]),
            ("bf16", 256, 2, [(1, 1, 1, 1), (127, 200, 256, 200)])]:
        cases.append(Case(f"softmax/{dt}/B{block}/w{warps}", "examples/softmax.py", "softmax_kernel",
                          f"*{dt}:16, *{dt}:16, i32, i32, i32, {block}", num_warps=warps,
                          driver="softmax", dtype=dt, sizes=list(shapes)))
    # Strides promised to be multiples of 16 (vector loads along the row at any row).
    cases.append(Case("softmax/fp32/B1024/w4/stride16", "examples/softmax.py", "softmax_kernel",
                      f"{F32}, {F32}, i32:16, i32:16, i32, 1024", num_warps=4, driver="softmax",
                      sizes=[(3, 17, 32, 48), (127, 781, 784, 784), (4096, 1024, 1024, 1024)]))

    # softmax_rows_kernel: ROWS rows per program as a [ROWS, BLOCK_SIZE] tile.
    for dt, rows, block, warps, shapes in [
            ("fp32", 4, 1024, 4, SOFTMAX_1K),
            ("fp32", 16, 32, 2, [(3, 17, 20, 24), (1000, 32, 32, 32), (127, 5, 7, 5)]),
            ("fp16", 8, 128, 4, [(127, 100, 128, 100), (4096, 128, 128, 128)])]:
        cases.append(Case(f"softmax_rows/{dt}/R{rows}/B{block}/w{warps}", "examples/softmax.py",
                          "softmax_rows_kernel", f"*{dt}:16, *{dt}:16, i32, i32, i32, i32, {rows}, {block}",
                          num_warps=warps, grid="cdiv(n_rows, ROWS)", driver="softmax", dtype=dt,
                          sizes=list(shapes)))

    # layer_norm_fwd / rms_norm_fwd: one row per program, grid (M,) from the caller.
    for dt, block, warps, shapes in [("fp16", 1024, 4, NORM_1K), ("fp16", 8192, 8, NORM_8K),
                                     ("bf16", 1024, 4, [(3, 17, 24), (127, 781, 800)]),
                                     ("fp32", 256, 2, [(3, 17, 20), (127, 200, 256)])]:
        p = f"*{dt}:16"
        cases.append(Case(f"layer_norm_fwd/{dt}/B{block}/w{warps}", "examples/layer_norm.py",
                          "layer_norm_fwd", f"{p}, {p}, {p}, {p}, {F32}, {F32}, i32, i32, fp32, {block}",
                          num_warps=warps, driver="layer_norm_fwd", dtype=dt, sizes=list(shapes)))
        cases.append(Case(f"rms_norm_fwd/{dt}/B{block}/w{warps}", "examples/rms_norm.py",
                          "rms_norm_fwd", f"{p}, {p}, {p}, i32, i32, fp32, {block}",
                          num_warps=warps, driver="rms_norm_fwd", dtype=dt, sizes=list(shapes)))
    cases.append(Case("rms_norm_fwd/fp32/B16384/w16", "examples/rms_norm.py", "rms_norm_fwd",
                      f"{F32}, {F32}, {F32}, i32, i32, fp32, 16384", num_warps=16,
                      driver="rms_norm_fwd", sizes=[(2, 12345, 12345), (17, 16384, 16384)]))

    # The layer-norm tutorial's form (chunked row loops, tests/golden/maskvec_layer_norm.py): rows
    # promised 16-element aligned (i32:16 stride), N ragged, so every chunk's mask cols < N is
    # tested per vector at run time; N above BLOCK_SIZE runs several chunks.
    cases.append(Case("layer_norm_fwd/chunked/fp16/B1024/w4", "tests/golden/maskvec_layer_norm.py",
                      "layer_norm_fwd", f"*fp16:16, *fp16:16, *fp16:16, *fp16:16, {F32}, {F32}, i32:16, i32, fp32, 1024",
                      num_warps=4, driver="layer_norm_fwd", dtype="fp16",
                      sizes=[(1, 1, 16), (3, 17, 32), (127, 781, 784), (64, 1000, 1008), (17, 3001, 3008)]))

    # layer_norm_bwd_dx: one row per program.
    for dt, block, warps, shapes in [("fp16", 1024, 4, NORM_1K),
                                     ("fp32", 4096, 8, [(17, 3000, 3000), (64, 4096, 4096)])]:
        p = f"*{dt}:16"
        cases.append(Case(f"layer_norm_bwd_dx/{dt}/B{block}/w{warps}", "examples/layer_norm.py",
                          "layer_norm_bwd_dx", f"{p}, {p}, {p}, {p}, {F32}, {F32}, i32, i32, {block}",
                          num_warps=warps, driver="layer_norm_bwd_dx", dtype=dt, sizes=list(shapes)))

    # dw/db: a loop over row chunks reduced over axis 0, or atomics from row chunks.
    for dt, bm, bn, warps in [("fp16", 32, 64, 4), ("fp32", 16, 128, 4)]:
        p = f"*{dt}:16"
        cases.append(Case(f"layer_norm_bwd_dwdb/{dt}/BM{bm}/BN{bn}/w{warps}", "examples/layer_norm.py",
                          "layer_norm_bwd_dwdb", f"{F32}, {F32}, {p}, {p}, {F32}, {F32}, i32, i32, i32, {bm}, {bn}",
                          num_warps=warps, grid="cdiv(N, BLOCK_N)", driver="layer_norm_dwdb",
                          dtype=dt, sizes=list(DWDB_SHAPES)))
    for dt, bm, bn, warps in [("fp16", 32, 128, 4), ("fp32", 8, 256, 2)]:
        p = f"*{dt}:16"
        cases.append(Case(f"layer_norm_bwd_dwdb_atomic/{dt}/BM{bm}/BN{bn}/w{warps}",
                          "examples/layer_norm.py", "layer_norm_bwd_dwdb_atomic",
                          f"{F32}, {F32}, {p}, {p}, {F32}, {F32}, i32, i32, i32, {bm}, {bn}",
                          num_warps=warps, grid="cdiv(M, BLOCK_M)", driver="layer_norm_dwdb",
                          dtype=dt, sizes=list(DWDB_SHAPES)))

    # cross_entropy_fwd: a loop over the vocabulary with loop-carried scalars; labels int64.
    for dt, block, warps, shapes in [("fp32", 1024, 4, XENT_SHAPES), ("fp32", 4096, 8, XENT_SHAPES),
                                     ("fp16", 2048, 8, [(3, 17, 24), (64, 32000, 32000), (1, 65536, 65536)]),
                                     ("bf16", 32768, 32, [(3, 17, 24), (64, 32000, 32000), (5, 50257, 50264)])]:
        cases.append(Case(f"cross_entropy/{dt}/B{block}/w{warps}", "examples/cross_entropy.py",
                          "cross_entropy_fwd", f"*{dt}:16, *i64:16, {F32}, i32, i32, {block}",
                          num_warps=warps, driver="cross_entropy", dtype=dt, sizes=list(shapes)))

    # col_max_kernel (max + argmax per column, running over row chunks) and row_min_kernel
    # (min + argmin per row, keep_dims).  Values and indices must be exact.
    for dt, bm, bn, warps in [("fp32", 32, 64, 4), ("fp16", 64, 32, 4), ("fp32", 8, 256, 8)]:
        cases.append(Case(f"col_max/{dt}/BM{bm}/BN{bn}/w{warps}", "examples/col_max.py", "col_max_kernel",
                          f"*{dt}:16, {F32}, *i32:16, i32, i32, i32, {bm}, {bn}", num_warps=warps,
                          grid="cdiv(N, BLOCK_N)", driver="col_max", dtype=dt, sizes=list(COL_SHAPES)))
    for dt, bm, bn, warps, shapes in [
            ("fp32", 4, 1024, 4, [(3, 17, 20, "ties"), (127, 781, 781, "ties"), (1000, 300, 300, "randn"),
                                  (4096, 1000, 1000, "randn")]),
            ("fp32", 16, 32, 2, [(1, 1, 1, "randn"), (1000, 30, 32, "ties")])]:
        cases.append(Case(f"row_min/{dt}/BM{bm}/BN{bn}/w{warps}", "examples/col_max.py", "row_min_kernel",
                          f"*{dt}:16, {F32}, *i32:16, i32, i32, i32, {bm}, {bn}", num_warps=warps,
                          grid="cdiv(M, BLOCK_M)", driver="row_min", dtype=dt, sizes=list(shapes)))
    # argmax_rows_kernel (the first maximum of each row, looping over columns) and
    # rope_inplace_kernel (rotary embedding, in place): exact indices; rotations within 1 ulp
    for dt, rows, bn, warps in [("bf16", 8, 1024, 4), ("fp32", 4, 256, 4), ("fp16", 1, 2048, 8),
                                ("fp16", 1, 8192, 32), ("bf16", 1, 4096, 16)]:
        cases.append(Case(f"argmax/{dt}/R{rows}/BN{bn}/w{warps}", "examples/argmax.py", "argmax_rows_kernel",
                          f"*{dt}:16, *i32:16, i32, i32, i32:16, {rows}, {bn}", num_warps=warps,
                          grid="cdiv(M, ROWS)", driver="argmax", dtype=dt,
                          sizes=[(1, 1, 16, "randn"), (13, 1000, 1008, "ties"), (64, 32000, 32000, "randn"),
                                 (7, 5000, 5008, "ties")]))
    for dt, hd, bh, warps in [("bf16", 128, 32, 4), ("fp16", 64, 4, 4), ("fp32", 128, 8, 8)]:
        cases.append(Case(f"rope/{dt}/d{hd}/H{bh}/w{warps}", "examples/rope.py", "rope_inplace_kernel",
                          f"*{dt}:16, *fp32:16, *fp32:16, i32:16, i32:16, i32, {hd}, {bh}", num_warps=warps,
                          driver="rope", dtype=dt, sizes=[(1, 1, 0), (17, 5, 16), (256, 32, 0), (100, 40, 32)]))
    return cases


def random_and_scan_cases():
    """Philox streams (exact against a torch re-implementation and Triton) and prefix sums."""
    cases = []
    for dt, block, warps in [("fp32", 1024, 4), ("fp16", 2048, 8)]:
        cases.append(Case(f"dropout/{dt}/B{block}/w{warps}", "examples/dropout.py", "dropout_kernel",
                          f"*{dt}:16, *{dt}:16, i32, fp32, i32, {block}", num_warps=warps,
                          grid="cdiv(n, BLOCK_SIZE)", driver="dropout", dtype=dt))
    cases.append(Case("rand/fp32/B1024/w4", "examples/dropout.py", "rand_kernel",
                      "*fp32:16, i32, i32, 1024", num_warps=4, grid="cdiv(n, BLOCK_SIZE)",
                      driver="rand"))
    # A 64-bit seed above 2**32 also exercises the high key word.
    cases.append(Case("rand/fp32/B512/w2/seed64", "examples/dropout.py", "rand_kernel",
                      "*fp32:16, i32, i64, 512", num_warps=2, grid="cdiv(n, BLOCK_SIZE)",
                      driver="rand"))
    cases.append(Case("randint/i32/B1024/w4", "examples/dropout.py", "randint_kernel",
                      "*i32:16, i32, i32, 1024", num_warps=4, grid="cdiv(n, BLOCK_SIZE)",
                      driver="randint", dtype="i32"))
    cases.append(Case("randint/i32/B256/w1/seed64", "examples/dropout.py", "randint_kernel",
                      "*i32:16, i32, i64, 256", num_warps=1, grid="cdiv(n, BLOCK_SIZE)",
                      driver="randint", dtype="i32"))

    # cumsum_kernel: one independent scan per block.
    for dt, block, warps in [("fp32", 1024, 4), ("i32", 256, 2), ("i32", 4096, 8), ("fp32", 32, 1)]:
        cases.append(Case(f"cumsum/{dt}/B{block}/w{warps}", "examples/cumsum.py", "cumsum_kernel",
                          f"*{dt}:16, *{dt}:16, i32, {block}", num_warps=warps,
                          grid="cdiv(N, BLOCK_SIZE)", driver="cumsum", dtype=dt,
                          sizes=list(CUMSUM_SIZES)))
    # cumsum_rows_kernel: scans along axis 1 with a carry between column chunks.
    for dt, bm, bn, warps in [("fp32", 4, 256, 4), ("i32", 16, 64, 4), ("i32", 1, 1024, 4)]:
        cases.append(Case(f"cumsum_rows/{dt}/BM{bm}/BN{bn}/w{warps}", "examples/cumsum.py",
                          "cumsum_rows_kernel", f"*{dt}:16, *{dt}:16, i32, i32, i32, {bm}, {bn}",
                          num_warps=warps, grid="cdiv(M, BLOCK_M)", driver="cumsum_rows", dtype=dt,
                          sizes=list(CUMSUM_ROWS)))
    return cases


def atomic_and_misc_cases():
    """Atomics (exact results), tl.randn, reverse tl.cumprod, and a transpose through shared
    memory (64 KB of it at 128x128 fp32: dynamic shared memory above the 48 KB default)."""
    cases = []
    big = [1, 17, 1000, 98432, (1 << 20) + 3]
    cases.append(Case("histogram/i32/B1024/w4", "examples/atomics.py", "histogram_kernel",
                      "*i32:16, *i32:16, i32, 64, 1024", num_warps=4, grid="cdiv(n, BLOCK_SIZE)",
                      driver="histogram", dtype="i32", sizes=big))
    cases.append(Case("atomic_bits/B512/w4", "examples/atomics.py", "bits_kernel",
                      "*i32:16, *fp32:16, *i32:16, *fp32:16, i32, 512", num_warps=4,
                      grid="cdiv(n, BLOCK_SIZE)", driver="bits", sizes=[1, 17, 1000, 98432]))
    cases.append(Case("ticket/scalar_atomic_result/w1", "examples/atomics.py", "ticket_kernel",
                      "*i32, *i32", num_warps=1, driver="ticket", sizes=[1, 7, 1000, 65536]))
    cases.append(Case("ticket/scalar_atomic_result/w4", "examples/atomics.py", "ticket_kernel",
                      "*i32, *i32", num_warps=4, driver="ticket", sizes=[1000]))
    cases.append(Case("atomic_xchg/B1024/w4", "examples/atomics.py", "swap_kernel",
                      "*i32:16, *i32:16, *i32:16, i32, 1024", num_warps=4, grid="cdiv(n, BLOCK_SIZE)",
                      driver="swap", dtype="i32", sizes=big))
    cases.append(Case("atomic_cas/B1024/w4", "examples/atomics.py", "cas_kernel",
                      "*i32:16, *i32:16, *i32:16, *i32:16, i32, 1024", num_warps=4,
                      grid="cdiv(n, BLOCK_SIZE)", driver="cas", dtype="i32", sizes=big))
    cases.append(Case("randn/fp32/B1024/w4", "examples/dropout.py", "randn_kernel",
                      "*fp32:16, i32, i32, 1024", num_warps=4, grid="cdiv(n, BLOCK_SIZE)",
                      driver="randn", sizes=[1, 17, 1000, 98432]))
    cases.append(Case("cumprod_rev/fp32/B1024/w4", "examples/cumsum.py", "cumprod_rev_kernel",
                      "*fp32:16, *fp32:16, i32, 1024", num_warps=4, grid="cdiv(N, BLOCK_SIZE)",
                      driver="cumprod_rev", sizes=list(CUMSUM_SIZES)))
    # A pipelined K loop whose operand address and body both read a load that is the same in
    # every step (tests/golden/pipeline_invariant_load.py): the body must see it in the steps
    # past the copies' range too.  K ragged and of many steps; sm_80 and the sm_90 build.
    for flags in [[], ["--arch", "sm_90"]]:
        cases.append(Case("pipeline/invariant_load/64x64x32" + ("/sm_90" if flags else ""),
                          "tests/golden/pipeline_invariant_load.py", "invariant_load_kernel",
                          "*fp16:16, *fp16:16, *fp32:16, *i32:16, i32, i32:16, 64, 64, 32", num_warps=4,
                          num_stages=3, driver="invariant_load", dtype="fp16", feature="dot",
                          sizes=[(1, 1), (32, 3), (100, 2), (257, 5), (1000, 4)], extra_flags=flags))
    # Block pointers and tensor descriptors (tests/golden): a column-major copy
    # (order=(0, 1)), a descriptor |x|, and a matmul whose K loop carries block pointers.
    bp_shapes = [(1, 1), (3, 17), (1000, 300), (64, 64), (781, 1029)]
    cases.append(Case("block_ptr/colmajor_copy/64x32", "tests/golden/block_ptr_copy_colmajor.py",
                      "colmajor_copy_kernel", "*fp32:16, *fp32:16, i32, i32, i32:16, i32:16, 64, 32",
                      grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", driver="colmajor_copy", sizes=bp_shapes))
    cases.append(Case("tensor_desc/abs/fp16/32x64", "tests/golden/tensor_desc_copy.py", "desc_abs_kernel",
                      "*fp16:16, *fp16:16, i32, i32, i32:16, 32, 64", dtype="fp16",
                      grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", driver="desc_abs", sizes=bp_shapes,
                      # Triton 3.6 on sm_90 (TMA) stores past N when a row's bytes are not a
                      # multiple of 16 (seen on an H100: 1x1, 3x17, 1000x300, 781x1029)
                      opts=dict(triton_writes_out_of_bounds="Triton 3.6's TMA store on rows of "
                                "a byte length that is not a multiple of 16")))
    cases.append(Case("tensor_desc/param_row_sum/fp32/32x64", "tests/golden/tensor_desc_param.py",
                      "desc_row_sum_kernel", "tensordesc<fp32[32, 64]>, *fp32:16, i32, i32, 32, 64",
                      grid="cdiv(M, BLOCK_M)", driver="desc_row_sum", sizes=bp_shapes))
    # a descriptor store by TMA (sm_90: from a staging buffer in shared memory, the edges
    # dropped by the engine), against the pointer store of the same file for sm_80
    for dt, blk, flags in [("fp16", (32, 128), ["--arch", "sm_90"]), ("fp32", (32, 64), ["--arch", "sm_90"]),
                           ("bf16", (64, 64), ["--arch", "sm_90"]), ("fp16", (32, 128), [])]:
        cases.append(Case(f"tensor_desc/tma_store/{dt}/{blk[0]}x{blk[1]}" + ("/sm_90" if flags else ""),
                          "tests/golden/tma_store.py", "desc_axpb_kernel",
                          f"tensordesc<{dt}[{blk[0]}, {blk[1]}]>, tensordesc<{dt}[{blk[0]}, {blk[1]}]>, i32, i32, "
                          f"{blk[0]}, {blk[1]}", dtype=dt, grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
                          driver="desc_axpb", sizes=bp_shapes, extra_flags=flags,
                          opts=dict(triton_writes_out_of_bounds="Triton 3.6's TMA store on rows of a byte "
                                    "length that is not a multiple of 16")))
    # the persistent matmul on host tensor descriptors (B given as [N, K]): on sm_90 the K
    # loop's blocks come by TMA into the ring (mbarrier per slot) and wgmma reads them; on
    # sm_80 the same file copies them with cp.async.  Ragged sizes: blocks past the edges
    # read zeros.
    desc_sizes = [(3, 17, 40, "ints"), (1, 1, 1, "ints"), (144, 272, 48, "rand"), (1000, 1000, 1003, "rand"),
                  (333, 517, 77, "ints"), (129, 255, 4099, "rand"), (1008, 1024, 1008, "rand"),
                  (4096, 4096, 4096, "rand")]
    for dt, blk, w, flags in [("fp16", (128, 256, 64), 8, ["--arch", "sm_90"]), ("bf16", (128, 128, 64), 4, ["--arch", "sm_90"]),
                              ("fp16", (128, 128, 64), 4, [])]:
        bm, bn, bk = blk
        cases.append(Case(f"matmul/{dt}/tma-persistent/{bm}x{bn}x{bk}/w{w}s3" + ("/sm_90" if flags else ""),
                          "examples/matmul.py", "matmul_tma_persistent_kernel",
                          f"tensordesc<{dt}[{bm}, {bk}]>, tensordesc<{dt}[{bn}, {bk}]>, tensordesc<{dt}[{bm}, {bn}]>, "
                          f"i32, i32, i32, {bm}, {bn}, {bk}, 8, 132, False", num_warps=w, num_stages=3, dtype=dt,
                          grid="min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))", driver="matmul_desc",
                          sizes=desc_sizes, feature="dot", extra_flags=flags,
                          opts=dict(triton_writes_out_of_bounds="Triton 3.6's TMA store on rows of a byte "
                                    "length that is not a multiple of 16")))
    # the same with WARP_SPECIALIZE, warp specialisation asked for on the tile loop: on sm_90 a producer
    # warpgroup issues the copies and runs ahead across tiles; on sm_80 the extra warpgroup
    # leaves at once and the consumers copy with cp.async behind named barriers
    for dt, blk, w, flags in [("fp16", (128, 256, 64), 8, ["--arch", "sm_90"]), ("bf16", (128, 128, 64), 4, ["--arch", "sm_90"]),
                              ("fp16", (128, 128, 64), 8, ["--arch", "sm_90"]), ("fp16", (128, 128, 64), 4, [])]:
        bm, bn, bk = blk
        cases.append(Case(f"matmul/{dt}/tma-ws/{bm}x{bn}x{bk}/w{w}s3" + ("/sm_90" if flags else ""),
                          "examples/matmul.py", "matmul_tma_persistent_kernel",
                          f"tensordesc<{dt}[{bm}, {bk}]>, tensordesc<{dt}[{bn}, {bk}]>, tensordesc<{dt}[{bm}, {bn}]>, "
                          f"i32, i32, i32, {bm}, {bn}, {bk}, 8, 132, True", num_warps=w, num_stages=3, dtype=dt,
                          grid="min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))", driver="matmul_desc",
                          sizes=desc_sizes, feature="dot", extra_flags=flags,
                          opts=dict(triton_writes_out_of_bounds="Triton 3.6's TMA store on rows of a byte "
                                    "length that is not a multiple of 16")))
    # attention on host descriptors (the fused-attention tutorial's Hopper form): on sm_90 the
    # key and value blocks come by TMA into the rings both wgmma dots read
    attn_sizes = [(1, 1), (2, 100), (3, 257), (2, 1000), (4, 2048)]
    for dt, d, bn, w, causal, flags in [("fp16", 64, 64, 4, False, ["--arch", "sm_90"]),
                                        ("fp16", 64, 64, 4, True, ["--arch", "sm_90"]),
                                        ("bf16", 128, 64, 8, True, ["--arch", "sm_90"]),
                                        ("fp16", 64, 64, 4, False, [])]:
        cases.append(Case(f"attention/desc/{dt}/d{d}/128x{bn}/w{w}" + ("/causal" if causal else "") +
                          ("/sm_90" if flags else ""), "examples/attention.py", "attn_fwd_desc",
                          f"tensordesc<{dt}[128, {d}]>, tensordesc<{dt}[{bn}, {d}]>, tensordesc<{dt}[{bn}, {d}]>, "
                          f"*{dt}:16, fp32, i32, i32:16, {d}, 128, {bn}, {causal}", num_warps=w, num_stages=3,
                          dtype=dt, driver="attn_desc", sizes=attn_sizes, feature="dot", extra_flags=flags))
    cases.append(Case("block_ptr/matmul/fp16/64x64x32", "tests/golden/block_ptr_matmul.py",
                      "block_ptr_matmul_kernel",
                      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32",
                      grid="cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", driver="matmul", dtype="fp16",
                      sizes=[(3, 17, 40, "rand"), (1, 1, 1, "ints"), (1000, 1000, 1003, "rand"),
                             (333, 517, 77, "ints"), (129, 255, 4099, "rand")],
                      feature="dot", opts=dict(a="row", b="row", align=16)))
    # --variant: matmul_kernel with sizes and strides as plain i32, and a variant for aligned
    # row-major operands (unit strides compiled in); sizes with M, N or K not a multiple of 16
    # take the kernel as written, the others the variant
    for flags in [[], ["--arch", "sm_90"]]:
        cases.append(Case("matmul/fp16/64x64x32/variants" + ("/sm_90" if flags else ""), "examples/matmul.py",
                          "matmul_kernel",
                          "*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32, 8",
                          num_warps=4, num_stages=3, grid="cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", driver="matmul",
                          dtype="fp16", feature="dot", opts=dict(a="row", b="row", align=16),
                          sizes=[(3, 17, 40, "rand"), (64, 64, 64, "ints"), (1000, 1008, 1024, "rand"),
                                 (333, 517, 77, "ints"), (129, 256, 4096, "rand")],
                          extra_flags=flags + ["--variant", "a_ptr=*fp16:16, b_ptr=*fp16:16, c_ptr=*fp16:16, "
                                               "M=i32:16, N=i32:16, K=i32:16, stride_am=i32:16, stride_ak=1, "
                                               "stride_bk=i32:16, stride_bn=1, stride_cm=i32:16, stride_cn=1"]))
    # the bench's config (bench/bench_lang.py): pipelined through cp.async rings; for sm_90,
    # on wgmma (built for sm_90a)
    for flags in [[], ["--arch", "sm_90"]]:
        cases.append(Case("block_ptr/matmul/fp16/128x128x32/s3" + ("/sm_90" if flags else ""), "examples/lang.py",
                          "block_ptr_matmul",
                          "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, 1, i32:16, 1, i32:16, 1, "
                          "128, 128, 32, 8", num_warps=4, num_stages=3, extra_flags=flags,
                          grid="cdiv(M, 128) * cdiv(N, 128)", driver="matmul", dtype="fp16",
                          sizes=[(3, 17, 40, "rand"), (1, 1, 1, "ints"), (1000, 1000, 1003, "rand"),
                                 (333, 517, 77, "ints"), (129, 255, 4099, "rand")],
                          feature="dot", opts=dict(a="row", b="row", align=16)))
    # tensor-descriptor loads feeding tl.dot in a K loop: pipelined through cp.async rings, and
    # for sm_90 on wgmma (built for sm_90a); N and K multiples of 16 (the signature's ':16')
    for flags in [[], ["--arch", "sm_90"]]:
        cases.append(Case("tensor_desc/matmul/fp16/64x64x32" + ("/sm_90" if flags else ""),
                          "tests/golden/desc_matmul.py", "desc_matmul_kernel",
                          "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32",
                          extra_flags=flags, grid="cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", driver="matmul",
                          dtype="fp16", sizes=[(3, 16, 32, "rand"), (1, 16, 16, "ints"), (1000, 1008, 1024, "rand"),
                                               (333, 512, 80, "ints"), (129, 256, 4096, "rand")],
                          feature="dot", opts=dict(a="row", b="row", align=16)))
    shapes = [(1, 1), (3, 17), (1000, 300), (64, 64), (781, 1029)]
    for block, warps in [(64, 4), (128, 8)]:
        cases.append(Case(f"transpose/fp32/B{block}/w{warps}", "examples/transpose.py", "transpose_kernel",
                          f"*fp32:16, *fp32:16, i32, i32, i32:16, i32:16, {block}, {block}",
                          num_warps=warps, grid="cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
                          driver="transpose", sizes=list(shapes)))
    return cases


# ---- tl.dot: examples/matmul.py --------------------------------------------------------------
#
# Shapes are (M, N, K, data).  data "rand": normal floats (int8: uniform in [-128, 127]),
# checked within the tolerance of the element type (MATMUL_TOL, run_gpu_tests.drive_matmul);
# "ints": small integers in [-4, 4], whose products and sums every float type holds exactly, so
# that any correct kernel gives the reference bit for bit whatever its order of additions: a
# dropped or repeated K step, a wrong edge or a wrong swizzle cannot hide in the tolerance.
# int8 is always exact.  Sizes: tiny and single-element (3x17x40, 1x1x1), K not a multiple of
# BLOCK_K (1003, 77, 4099), M and N not multiples of the tile, the 1000^3, 4096^3 and
# 8192x256x8192.
MM_SMALL = [(3, 17, 40, "rand"), (3, 17, 40, "ints"), (1, 1, 1, "ints"), (16, 16, 16, "ints")]
MM_RAGGED = [(1000, 1000, 1000, "rand"), (1000, 1000, 1003, "rand"), (1000, 1000, 1003, "ints"),
             (333, 517, 77, "ints"), (129, 255, 4099, "rand")]
MM_4096 = (4096, 4096, 4096, "rand")
MM_TALL_K = (8192, 256, 8192, "rand")

# Strides (after the six pointer and size entries): "aligned" promises every leading dimension
# is a multiple of 16 elements (the driver pads the rows to that), "unaligned" promises nothing
# (rows exactly K or N long, so most rows start off a 16-byte boundary); the unit strides are
# fixed to 1 as Triton's own specialisation does.  Orders: A or B stored by columns instead.
MM_STRIDES = {
    ("row", "row", 16): "i32:16, 1, i32:16, 1, i32:16, 1",
    ("row", "row", 1): "i32, 1, i32, 1, i32, 1",
    ("col", "row", 16): "1, i32:16, i32:16, 1, i32:16, 1",
    ("row", "col", 16): "i32:16, 1, 1, i32:16, i32:16, 1",
}
MM_GRID = "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"
MM_PERSISTENT_GRID = "min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))"
# Sizes that are multiples of 16 (the wgmma cases promise it): tiles cut by M, N and the K
# tail, one K step, one tile, and random and integer inputs.
MM16 = [(16, 16, 16, "rand"), (144, 272, 48, "rand"), (256, 384, 1040, "ints"), (128, 128, 64, "rand"),
        (1008, 1024, 1008, "rand")]


def _mm(name, kernel, ptrs, block, warps, stages, shapes, a="row", b="row", align=16,
        consts=(), config=None, flags=(), sizes16=False, grid=None, after_strides="", **opts):
    """One tl.dot case: ptrs are the pointer element types in parameter order, block is
    (BLOCK_M, BLOCK_N, BLOCK_K) with GROUP_M 8, or None with config N of the autotuned kernel.
    sizes16 promises M, N and K multiples of 16 ("i32:16", as Triton specialises them): every
    shape must keep it."""
    ptr_sig = ", ".join(f"*{t}:16" for t in ptrs)
    if kernel == "bmm_kernel":
        s = "i32:16" if align == 16 else "i32"
        strides = f"{s}, {s}, 1, {s}, {s}, 1, {s}, {s}, 1"
    elif kernel == "matmul_at_kernel":     # (stride_atk, stride_atm): At = A by columns, by rows
        strides = MM_STRIDES["row", b, align]
    else:
        strides = MM_STRIDES[a, b, align]
    if sizes16:
        assert all(m % 16 == 0 and n % 16 == 0 and k % 16 == 0 for m, n, k, _ in shapes), name
    size = "i32:16" if sizes16 else "i32"
    sig = f"{ptr_sig}, {size}, {size}, {size}, {strides}" + (f", {after_strides}" if after_strides else "")
    if block is not None:
        sig += ", " + ", ".join(str(v) for v in list(block) + [8] + list(consts))
        label = f"matmul/{name}/{block[0]}x{block[1]}x{block[2]}/w{warps}s{stages}"
    else:
        label = f"matmul/{name}/config{config}"
    label += "" if align == 16 else "/unaligned"
    return Case(label, "examples/matmul.py", kernel, sig, num_warps=warps, num_stages=stages,
                config=config, grid=grid or (None if kernel == "bmm_kernel" else MM_GRID), driver="matmul",
                dtype=ptrs[0], sizes=list(shapes), feature="dot", extra_flags=list(flags),
                opts=dict(opts, a=a, b=b, align=align))


# Ragged (M, N, K) for the 3-D dot: masked M, N and K tails in every dimension, K below
# one BLOCK_K, and one tile exactly.
BMM3D_SIZES = [(3, 17, 40, "rand"), (3, 17, 40, "ints"), (64, 64, 32, "ints"), (100, 70, 45, "rand"),
               (333, 517, 77, "ints"), (129, 255, 1000, "rand")]
# K a multiple of 16 (K is 'i32:16'): the K mask is constant over 16 elements, so the operand
# loads are copied by cp.async into pipelined slots; M, N and the last BLOCK_K still ragged.
BMM3D_SIZES_K16 = [(3, 17, 48, "rand"), (64, 64, 32, "ints"), (100, 70, 80, "rand"),
                   (333, 517, 144, "ints"), (129, 255, 1008, "rand")]


def _bmm3d(name, kernel, ptrs, batch, block, warps, consts=(), align=16, batch_gap=0, flags=(), sizes=None,
           k16=False):
    """A 3-D tl.dot case of tests/golden/dot3d.py: BATCH = batch, block (BLOCK_M, BLOCK_N,
    BLOCK_K); strides as bmm_kernel's (':16' where align is 16); k16: K promised a multiple of
    16 (the pipelined K loop), with BMM3D_SIZES_K16."""
    s = "i32:16" if align == 16 else "i32"
    sig = (", ".join(f"*{t}:16" for t in ptrs) + f", i32, i32, {'i32:16' if k16 else 'i32'}, "
           + f"{s}, {s}, 1, {s}, {s}, 1, {s}, {s}, 1, "
           + ", ".join(str(v) for v in [batch] + list(block) + list(consts)))
    label = f"matmul/bmm3d/{name}/{batch}x{block[0]}x{block[1]}x{block[2]}/w{warps}"
    label += ("" if align == 16 else "/unaligned") + ("/k16-pipelined" if k16 else "")
    sizes = sizes or (BMM3D_SIZES_K16 if k16 else BMM3D_SIZES)
    return Case(label, "tests/golden/dot3d.py", kernel, sig, num_warps=warps, grid=MM_GRID, driver="bmm3d",
                dtype=ptrs[0], sizes=list(sizes), feature="dot", extra_flags=list(flags),
                opts=dict(a="row", b="row", align=align, batch_gap=batch_gap))


def _bmm3d_attn(dt, batch, block_m, block_n, d, warps):
    """The chain 3-D dot -> softmax -> 3-D dot of bmm3d_attn_kernel at key counts L up to
    BLOCK_N (ragged: the rows past L and the keys past L are masked)."""
    sig = f"*{dt}:16, *{dt}:16, *{dt}:16, *{dt}:16, i32, fp32, {batch}, {block_m}, {block_n}, {d}"
    sizes = [L for L in (1, 17, 45, 64, 100, 128) if L <= block_n]
    return Case(f"matmul/bmm3d/attn/{dt}/{batch}x{block_m}x{block_n}x{d}/w{warps}", "tests/golden/dot3d.py",
                "bmm3d_attn_kernel", sig, num_warps=warps, grid="cdiv(L, BLOCK_M)", driver="bmm3d_attn", dtype=dt,
                sizes=sizes, feature="dot")


def bmm3d_cases():
    """3-D (batched) tl.dot: [BATCH, M, K] @ [BATCH, K, N] in one program, in every dtype path of
    the 2-D dot, with the accumulator added after the dot or passed as acc=."""
    k, ka = "bmm3d_kernel", "bmm3d_acc_kernel"
    return [
        _bmm3d("fp16", k, ["fp16", "fp16", "fp32"], 2, (64, 64, 32), 4),
        _bmm3d("fp16", k, ["fp16"] * 3, 2, (32, 64, 32), 4, align=1, batch_gap=5),
        _bmm3d("fp16", k, ["fp16", "fp16", "fp32"], 2, (64, 64, 32), 4, k16=True),
        _bmm3d("bf16-acc", ka, ["bf16"] * 3, 2, (64, 64, 32), 4, k16=True),
        _bmm3d("tf32", k, ["fp32"] * 3, 2, (64, 64, 32), 4, consts=["'tf32'"], k16=True),
        _bmm3d("int8-acc", ka, ["i8", "i8", "i32"], 2, (64, 64, 32), 4, k16=True),
        # fp16 accumulation (out_dtype=float16): integer data whose sums stay below 2048, exact
        _bmm3d("fp16-acc16", ka, ["fp16"] * 3, 2, (64, 32, 16), 2,
               sizes=[(3, 17, 40, "ints"), (64, 64, 32, "ints"), (333, 517, 77, "ints")]),
        _bmm3d("bf16-acc", ka, ["bf16"] * 3, 2, (64, 64, 32), 4),
        _bmm3d("tf32", k, ["fp32"] * 3, 2, (64, 64, 16), 4, consts=["'tf32'"]),
        _bmm3d("tf32x3", k, ["fp32"] * 3, 2, (32, 32, 16), 4, consts=["'tf32x3'"]),
        _bmm3d("ieee", k, ["fp32"] * 3, 2, (32, 32, 16), 4, consts=["'ieee'"]),
        _bmm3d("int8-acc", ka, ["i8", "i8", "i32"], 2, (64, 64, 32), 4),
        _bmm3d("int8-acc", ka, ["i8", "i8", "i32"], 2, (32, 16, 32), 4, align=1),
        _bmm3d("fp8e4nv", k, ["fp8e4nv", "fp8e4nv", "fp32"], 2, (64, 64, 32), 4, flags=["--arch", "sm_90"]),
        # warps along the batch (as Triton's warpsPerTileV2): one warp per batch, two batches
        # per warp in registers, and warps beyond the batch splitting M and N
        _bmm3d("fp16", k, ["fp16", "fp16", "fp32"], 4, (64, 64, 32), 4),
        _bmm3d("fp16", k, ["fp16"] * 3, 4, (64, 64, 32), 4, k16=True),
        _bmm3d("bf16-acc", ka, ["bf16"] * 3, 8, (32, 32, 16), 4),
        _bmm3d("tf32", k, ["fp32"] * 3, 2, (64, 64, 16), 8, consts=["'tf32'"]),
        # two chained 3-D dots with a softmax between them (reductions and elementwise ops on
        # the batched accumulator, which feeds the second dot in registers)
        _bmm3d_attn("fp16", 2, 64, 64, 32, 4),
        _bmm3d_attn("bf16", 4, 16, 64, 16, 4),
    ]


def matmul_cases():
    """tl.dot in every element type and precision, with its epilogues, batches, transposed
    operands and an autotuned kernel, against float64 and Triton."""
    S, R = MM_SMALL, MM_RAGGED
    mk = "matmul_kernel"
    cases = [
        # fp16: the tutorial's configs (128x128x32 on 4 warps, 128x256x64 on 8), small tiles
        # on unaligned rows, an fp32 output, and A or B stored by columns.
        _mm("fp16", mk, ["fp16"] * 3, (128, 128, 32), 4, 4,
            S + R + [MM_4096, (4096, 4096, 4096, "ints"), MM_TALL_K]),
        _mm("fp16", mk, ["fp16"] * 3, (128, 256, 64), 8, 3,
            [(3, 17, 40, "rand"), (1000, 1000, 1003, "ints"), (1000, 1000, 1003, "rand"), MM_4096]),
        _mm("fp16", mk, ["fp16"] * 3, (64, 64, 32), 4, 3, S + R, align=1),
        _mm("fp16-fp32out", mk, ["fp16", "fp16", "fp32"], (128, 64, 64), 4, 3, S + R),
        _mm("fp16/a-by-columns", mk, ["fp16"] * 3, (64, 128, 32), 4, 4, S + R, a="col"),
        _mm("fp16/b-by-columns", mk, ["fp16"] * 3, (128, 64, 32), 4, 4, S + R, b="col"),
        # bf16
        _mm("bf16", mk, ["bf16"] * 3, (128, 128, 32), 4, 4, S + R + [MM_TALL_K]),
        _mm("bf16", mk, ["bf16"] * 3, (64, 64, 32), 2, 2, S + R, align=1),
        # fp32: tf32 (the default), tf32x3, ieee (no tensor cores).
        _mm("tf32", mk, ["fp32"] * 3, (128, 128, 32), 4, 3, S + R + [MM_TALL_K]),
        _mm("tf32", mk, ["fp32"] * 3, (64, 64, 16), 4, 3, S + R, align=1),
        _mm("tf32x3", mk, ["fp32"] * 3, (64, 64, 32), 4, 3, S + R, consts=["'tf32x3'"]),
        _mm("ieee", mk, ["fp32"] * 3, (64, 64, 32), 4, 3, S + R, consts=["'ieee'"]),
        _mm("ieee", mk, ["fp32"] * 3, (32, 64, 16), 2, 2, S + R, align=1, consts=["'ieee'"]),
        # int8 -> int32
        _mm("int8", mk, ["i8", "i8", "i32"], (128, 128, 64), 4, 3, S + R + [MM_4096]),
        _mm("int8", mk, ["i8", "i8", "i32"], (64, 64, 32), 4, 3, S + R, align=1),
        # M or N below 16 (no mma shape that small): multiply-adds on CUDA cores with the
        # operands widened (fp16/bf16 to fp32, tf32 cut to its 10-bit mantissa, int8 to int32)
        _mm("fp16/small-m", mk, ["fp16"] * 3, (8, 64, 32), 2, 2, S + R),
        _mm("bf16/small-n", mk, ["bf16", "bf16", "fp32"], (64, 8, 32), 2, 2, S + R),
        _mm("tf32/small-m", mk, ["fp32"] * 3, (8, 32, 16), 1, 2, S + R),
        _mm("int8/small-n", mk, ["i8", "i8", "i32"], (32, 8, 32), 1, 2, S + R, align=1),
        # fp8 (sm_90): e4m3 by e4m3 into fp16, the two formats mixed into fp32, and B stored by
        # columns (K contiguous: ldmatrix instead of element reads).
        _mm("fp8e4nv", mk, ["fp8e4nv", "fp8e4nv", "fp16"], (128, 128, 64), 8, 3, S + R + [MM_4096],
            flags=["--arch", "sm_90"]),
        _mm("fp8e4nv-e5m2", mk, ["fp8e4nv", "fp8e5", "fp32"], (64, 64, 64), 4, 3, S + R,
            flags=["--arch", "sm_90"]),
        _mm("fp8e5/b-by-columns", mk, ["fp8e5", "fp8e5", "fp16"], (64, 64, 64), 4, 4, S + R, b="col",
            flags=["--arch", "sm_90"]),
        # Hopper (translated for sm_90, built for sm_90a on an sm_90 GPU): fp16 and bf16 on wgmma
        # with both operands in NVMMA-swizzled cp.async rings (64- and 128-byte swizzles, one and
        # two warpgroups, N of 64, 128 and 256 per instruction), sizes promised multiples of 16 as
        # the bench and Triton's specialisation do (else B's columns, taken % N, are not proven
        # contiguous and the dot stays on mma.sync, as the plain-i32 cases above).  One wgmma
        # group stays in flight across K steps (a ring of num_stages + 1 slots).  B by columns
        # is K-major: tnspB = 0 for fp16, and the only B that tf32 (k8), int8 (k32, s32) and fp8
        # (k32, the two formats mixed) take on wgmma; their row-major B keeps mma.sync.  The
        # masked kernel below reaches wgmma with plain i32 sizes: its ragged K, M and N edges
        # are cp.async copies that test their mask bits at run time.
        _mm("fp16/wgmma", mk, ["fp16"] * 3, (128, 128, 32), 4, 4, MM16 + [MM_4096, (4096, 4096, 4096, "ints")],
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16/wgmma", mk, ["fp16"] * 3, (128, 128, 64), 4, 3, MM16 + [MM_4096],
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16/wgmma", mk, ["fp16"] * 3, (128, 256, 64), 8, 3, MM16 + [MM_4096],
            flags=["--arch", "sm_90"], sizes16=True),
        # the K loop's last step peeled after it (FlagGems' mm): the loop's dot on wgmma from its
        # rings, the tail's on wgmma from buffers written just before it, one accumulator layout
        # (sm_90); on sm_80 both on mma.sync, ragged sizes
        _mm("fp16/wgmma-peeled", "matmul_peeled_kernel", ["fp16"] * 3, (64, 64, 64), 4, 5, MM16 + [MM_4096],
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("bf16/wgmma-peeled", "matmul_peeled_kernel", ["bf16"] * 3, (128, 128, 64), 8, 3, MM16,
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16/peeled", "matmul_peeled_kernel", ["fp16"] * 3, (64, 64, 32), 4, 3, S + R),
        # persistent: 132 programs (or fewer, one per tile) walk the tiles; each tile's K loop
        # pipelined, on wgmma for sm_90
        _mm("fp16/persistent", "matmul_persistent_kernel", ["fp16"] * 3, (128, 256, 64), 8, 3,
            MM16 + [MM_4096], consts=[132], flags=["--arch", "sm_90"], sizes16=True, grid=MM_PERSISTENT_GRID),
        _mm("bf16/persistent", "matmul_persistent_kernel", ["bf16"] * 3, (128, 128, 32), 4, 3, S + R,
            consts=[132], grid=MM_PERSISTENT_GRID),
        # the same as one loop with branches: copies run ahead across tiles, the tile numbers of
        # the store come through queues (sm_90: wgmma; sm_80: mma.sync, ragged sizes)
        _mm("fp16/persistent-flat", "matmul_persistent_flat_kernel", ["fp16"] * 3, (128, 256, 64), 8, 3,
            MM16 + [MM_4096], consts=[132], flags=["--arch", "sm_90"], sizes16=True, grid=MM_PERSISTENT_GRID),
        _mm("fp16/persistent-flat", "matmul_persistent_flat_kernel", ["fp16"] * 3, (128, 128, 32), 4, 3,
            S + R + [MM_4096], consts=[132], grid=MM_PERSISTENT_GRID),
        _mm("bf16/persistent-flat", "matmul_persistent_flat_kernel", ["bf16"] * 3, (64, 64, 32), 4, 2,
            S + R, consts=[132], grid=MM_PERSISTENT_GRID),
        # 4 stages of 48 KB: no room for the spare slot, so each K step waits for its group
        _mm("fp16/wgmma", mk, ["fp16"] * 3, (128, 256, 64), 8, 4, MM16 + [MM_4096],
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16-fp32out/wgmma", mk, ["fp16", "fp16", "fp32"], (128, 64, 64), 4, 3, MM16,
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("bf16/wgmma", mk, ["bf16"] * 3, (128, 128, 32), 8, 4, MM16 + [(1024, 256, 8192, "rand")],
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("bf16/wgmma", mk, ["bf16"] * 3, (128, 128, 64), 4, 3, MM16, flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16/wgmma/b-by-columns", mk, ["fp16"] * 3, (128, 128, 32), 4, 4, MM16, b="col",
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp16/wgmma/b-by-columns", mk, ["fp16"] * 3, (128, 256, 64), 8, 3, MM16 + [MM_4096], b="col",
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("tf32/wgmma/b-by-columns", mk, ["fp32"] * 3, (128, 128, 32), 8, 3,
            MM16 + [MM_4096, (4096, 4096, 4096, "ints")], b="col", flags=["--arch", "sm_90"], sizes16=True),
        _mm("tf32/wgmma/b-by-columns", mk, ["fp32"] * 3, (128, 64, 16), 4, 4, MM16, b="col",
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("int8/wgmma/b-by-columns", mk, ["i8", "i8", "i32"], (128, 256, 64), 8, 3, MM16 + [MM_4096],
            b="col", flags=["--arch", "sm_90"], sizes16=True),
        _mm("int8/wgmma/b-by-columns", mk, ["i8", "i8", "i32"], (128, 128, 64), 4, 3, MM16, b="col",
            flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp8e4nv-e5m2/wgmma/b-by-columns", mk, ["fp8e4nv", "fp8e5", "fp32"], (128, 128, 64), 8, 3,
            MM16 + [MM_4096], b="col", flags=["--arch", "sm_90"], sizes16=True),
        _mm("fp8e4nv/wgmma/b-by-columns", mk, ["fp8e4nv", "fp8e4nv", "fp16"], (128, 256, 128), 8, 3, MM16,
            b="col", flags=["--arch", "sm_90"], sizes16=True),
        _mm("bias_leaky_relu/fp16/wgmma", "matmul_bias_act_kernel", ["fp16"] * 4, (64, 128, 64), 4, 3,
            S + R + [MM_4096], consts=["'leaky_relu'"], flags=["--arch", "sm_90"]),
        # Each K step's product scaled by rows before it is added (block-quantized fp8 weights):
        # the step reads its dot's result, so on wgmma the next copies go out before the wait.
        _mm("block_scaled/fp8e4nv/wgmma/b-by-columns", "matmul_block_scaled_kernel",
            ["fp8e4nv", "fp8e4nv", "bf16", "fp32"], (64, 128, 128), 4, 3, MM16 + [MM_4096], b="col",
            after_strides="i32", flags=["--arch", "sm_90"], sizes16=True),
        _mm("block_scaled/fp16/wgmma", "matmul_block_scaled_kernel", ["fp16", "fp16", "fp16", "fp32"],
            (64, 64, 32), 4, 3, MM16 + [MM_4096], after_strides="i32", flags=["--arch", "sm_90"], sizes16=True),
        _mm("block_scaled/bf16", "matmul_block_scaled_kernel", ["bf16", "bf16", "bf16", "fp32"],
            (64, 128, 32), 4, 3, S + R, after_strides="i32"),
        # Epilogues: bias and activation; the linear-layer form reads B (w.T) by columns.
        _mm("bias_leaky_relu/fp16", "matmul_bias_act_kernel", ["fp16"] * 4, (128, 64, 32), 4, 3,
            S + R, consts=["'leaky_relu'"]),
        _mm("linear_gelu/fp16", "matmul_bias_act_kernel", ["fp16"] * 4, (128, 128, 64), 8, 3,
            S + R, b="col", consts=["'gelu'"]),
        _mm("bias/bf16", "matmul_bias_act_kernel", ["bf16"] * 4, (64, 64, 32), 4, 3, S + R,
            align=1, consts=["'none'"]),
        _mm("bias_gelu/tf32", "matmul_bias_act_kernel", ["fp32"] * 4, (64, 64, 32), 4, 3, S + R,
            consts=["'gelu'"]),
        # Batches: program_id(axis=1); the grid comes from the caller.
        _mm("bmm/fp16", "bmm_kernel", ["fp16"] * 3, (64, 64, 32), 4, 3,
            S + [(1000, 1000, 1003, "rand"), (333, 517, 77, "ints")], batch=3),
        _mm("bmm/bf16", "bmm_kernel", ["bf16"] * 3, (64, 128, 32), 4, 3,
            S + [(333, 517, 77, "ints"), (129, 255, 1000, "rand")], align=1, batch=5, batch_gap=7),
        # A stored transposed ([K, M]) and turned round by tl.trans in the kernel.
        _mm("at/fp16", "matmul_at_kernel", ["fp16"] * 3, (128, 128, 32), 4, 4, S + R, a="col"),
        _mm("at/tf32", "matmul_at_kernel", ["fp32"] * 3, (64, 64, 32), 4, 3, S + R, a="col"),
    ]
    cases += bmm3d_cases()
    # The autotuned kernel, one case per config (--config N): its constexprs, warps, stages.
    for n in range(3):
        cases.append(_mm("autotuned/fp16", "matmul_autotuned_kernel", ["fp16"] * 3, None, None, None,
                         S + [(1000, 1000, 1003, "rand"), (1000, 1000, 1003, "ints")]
                         + ([MM_4096] if n == 0 else []), config=n))
    return cases


# ---- fp8 conversions: tests/golden/fp8_casts.py ------------------------------------------------
#
# Checked bit for bit against Triton, and against torch's float8_e4m3fn / float8_e5m2
# conversions adjusted to Triton's rules (run_gpu_tests.fp8_reference: saturation, the
# rounding toward zero of "rtz", the fp16 step of sm_89, e5m2 -> bf16 of infinities and NaNs);
# NaN only as NaN there, since its bits are the hardware's.  The inputs lead with special
# values (saturation, ties, subnormals, zeros, infinities, NaN), then ties of both fp8 types and
# random values over 2^-20..2^20.  They need sm_89 or newer and are skipped below it.
FP8_SIZES = [1, 17, 1000, 4099, 98432, (1 << 20) + 3]
FP8_SOURCE = "tests/golden/fp8_casts.py"


def _fp8(name, kernel, sig, block, warps, dtype):
    return Case(name, FP8_SOURCE, kernel, f"{sig}, {block}", num_warps=warps, grid="cdiv(n, BLOCK)",
                driver="fp8", dtype=dtype, sizes=list(FP8_SIZES), extra_flags=["--arch", "sm_90"])


def fp8_cases():
    """x.to(fp8) and back for every source type and both fp8 types (rtz from fp32 to fp8e5),
    the conversion of tl.store, and every fp8 code to fp16, bf16 and fp32 (through tl.abs)."""
    cases = []
    for x, q, rtz, n_sig, block, warps in [
            ("fp32", "fp8e4nv", 0, "i32", 1024, 4), ("fp32", "fp8e5", 0, "i32", 1024, 4),
            ("fp32", "fp8e5", 1, "i32", 256, 2), ("fp32", "fp8e4nv", 0, "i32:16", 2048, 8),
            ("fp16", "fp8e4nv", 0, "i32", 512, 2), ("fp16", "fp8e5", 0, "i32:16", 1024, 4),
            ("bf16", "fp8e4nv", 0, "i32", 256, 1), ("bf16", "fp8e5", 0, "i32", 1024, 4)]:
        rz = "-rtz" if rtz else ""
        sizes16 = n_sig.endswith(":16")
        c = _fp8(f"fp8_roundtrip/{x}-{q}{rz}/B{block}/w{warps}" + ("/n16" if sizes16 else ""),
                 "fp8_roundtrip_kernel", f"*{x}:16, *{q}:16, *{x}:16, {n_sig}, {rtz}", block, warps, x)
        if sizes16:
            c.sizes = list(SIZES_DIV16)
        cases.append(c)
    for x, q in [("fp32", "fp8e4nv"), ("fp16", "fp8e5"), ("bf16", "fp8e5")]:
        cases.append(_fp8(f"fp8_store/{x}-{q}/B1024/w4", "fp8_store_kernel", f"*{x}:16, *{q}:16, i32",
                          1024, 4, x))
    for q, n_sig, block, warps in [("fp8e4nv", "i32", 1024, 4), ("fp8e5", "i32", 1024, 4),
                                   ("fp8e5", "i32:16", 2048, 4)]:
        c = _fp8(f"fp8_upcast/{q}/B{block}/w{warps}" + ("/n16" if n_sig.endswith(":16") else ""),
                 "fp8_upcast_kernel", f"*{q}:16, *fp16:16, *bf16:16, *fp32:16, {n_sig}", block, warps, q)
        if n_sig.endswith(":16"):
            c.sizes = list(SIZES_DIV16)
        cases.append(c)
    return cases


# fp32 math on every kind of input (zeros, denormals, smallest normals, infinities, NaNs,
# underflowing results, and 2**20 random bit patterns): tilec must give Triton's bits, NaN
# payloads aside (run_gpu_tests.drive_math_edge).  MATH_ULPS: functions that CUDA 13's
# libdevice computes with other coefficients than the older one Triton ships, a few ulps apart
# on some ordinary arguments; they are held to that.
MATH_FNS = ["sqrt", "sqrt_rn", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "erf", "floor",
            "ceil", "abs", "sigmoid", "div", "ld_tanh", "ld_log1p", "ld_expm1", "ld_exp", "ld_rsqrt",
            "ld_sqrt", "ld_log", "ld_sin", "ld_tan", "ld_asin", "ld_acos", "ld_atan", "ld_sinh",
            "ld_cosh", "ld_trunc", "ld_round", "ld_rint", "ld_exp2", "ld_cbrt"]
MATH_ULPS = {"ld_asin": 4, "ld_acos": 4, "ld_atan": 4}


def math_cases():
    return [Case(f"math_edge/{fn}", "tests/gpu/math_kernels.py", "unary_kernel", "*fp32:16, *fp32:16, i32",
                 defines={"FN": fn, "BLOCK": 256}, num_warps=2, grid="cdiv(n, BLOCK)",
                 driver="math_edge", sizes=[(1 << 20) + 3], opts={"ulps": MATH_ULPS.get(fn, 0)})
            for fn in MATH_FNS]

"""Manifest of the GPU test cases: which kernel, translated how, checked how.

Each Case names a Triton source file and one specialisation of one kernel in it (the
tilec -s/-D/-w/--grid flags), the driver in run_gpu_tests.py that makes its inputs and its
float64 reference, and the sizes it runs at.  Golden cases (tests/golden/*.flags, one line
`INPUT.py flags...`) are added at run time by run_gpu_tests.py with the "generic" driver,
which compares tilec with Triton on random inputs, since no reference is known for them.
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

ACTIVATIONS = ["gelu_tanh", "silu", "leaky_relu"]
ALPHA = 0.01          # leaky_relu slope, passed as the fp32 runtime argument `alpha`
SCALE = 0.7071        # `scale` argument of the chunked-loop kernels


@dataclass
class Case:
    name: str                     # unique, printed; --only matches a substring of it
    source: str                   # Triton file, relative to the repository root
    kernel: str                   # -k
    sig: str                      # -s, positional Triton-AOT form
    defines: dict = field(default_factory=dict)   # -D NAME=VALUE
    num_warps: int = 4            # -w
    grid: str = None              # --grid; None: the launcher takes grid_x, grid_y, grid_z
    driver: str = "generic"       # vector_add | activation | scaled_add | row_chunks | generic
    dtype: str = "fp32"           # element type of the tensors
    sizes: list = field(default_factory=lambda: list(SIZES))
    extra_flags: list = field(default_factory=list)  # further tilec flags (golden cases)

    def tilec_args(self):
        args = [self.source, "-k", self.kernel, "-s", self.sig, "-w", str(self.num_warps)]
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
    return cases

"""The tensor-descriptor matmul family of tools/gen_kernel.py (--family tma).

Each seed is a K loop over host tensor descriptors feeding tl.dot, the kernels whose blocks
tilec copies by TMA into wgmma rings under --arch sm_90 (docs/LANGUAGE.md): A [M, K] by
rows, B either [N, K] (passed to the dot as b.T, the tutorials' form) or [K, N]; fp16 or
bf16; blocks of 64 or 128 rows, 32 to 256 columns (so swizzles of 32, 64 and 128 bytes and
one to four boxes per block); 4 or 8 warps; 2 to 4 stages; one program per tile, or a
persistent loop over tiles with few programs (each slot's barrier then runs through many
phases); K ragged, read past its end as zeros; an epilogue scaling, adding a bias vector,
clamping, and storing through a descriptor or through masked pointers (a third ask for warp
specialisation on their outermost loop); for about a third,
each K step's product scaled by rows before it is added (one fp32 scale per row and K step,
as block-quantized weights have: the step reads its dot's result, so its next copies go out
while the wgmma runs), half of those with A and B loaded through pointers instead (K a
multiple of 16, rows padded to 16 elements: cp.async rings rather than TMA), and a quarter of
the others too (half of them 128x128x64 on 4 warps and 3 stages, whose ring gives up its spare
wgmma slot to keep two blocks an SM); and, for about a third,
the accumulator reduced by rows as well (a row maximum, or the sums of each row's halves after
a tl.reshape of the dot's result); about a third of the others with the K loop's last step
peeled off after it (its dot adds onto the loop's result).  About 4 in 10 persistent kernels
walk their (tile, K step) pairs in one loop instead, with the epilogue in a branch at each
tile's last step (on wgmma the group stays in flight across that branch, which waits for it;
a descriptor store there goes out by TMA).

Parameters in the JSON: "desc_in" (a TensorDescriptor over a random [rows, cols] matrix, rows
padded to 16 bytes and a gap more), "desc_out" (the same over a poisoned matrix; "buf" names
the tensor that is compared), and the usual "in", "out", "int" and "const".
"""
import random

TL = {"fp16": "tl.float16", "bf16": "tl.bfloat16"}


class TmaGen:
    def __init__(self, seed):
        self.seed = seed
        self.rng = random.Random(seed * 7919 + 17)
        self.lines = []

    def pick(self, *xs):
        return self.rng.choice(xs)

    def emit(self, text, depth=0):
        self.lines.append("    " * (1 + depth) + text)

    def generate(self):
        r = self.rng
        dt = self.pick("fp16", "bf16")
        warps = self.pick(4, 4, 8)
        bm = 128 if warps == 8 else self.pick(64, 128)
        b_nk = r.random() < 0.6                       # B given as [N, K]
        bk = self.pick(32, 64, 64)
        bn = self.pick(32, 64, 128, 128, 256) if b_nk else self.pick(64, 128, 256)
        if bn == 256 and bm == 128 and bk == 64:
            bk = 32                                   # keep a few stages within shared memory
        stages = self.pick(2, 3, 3, 4)
        persistent = r.random() < 0.5
        desc_store = r.random() < 0.5
        M = r.choice([1, 3, 64, 100, 129, 200, 257, 384])
        K = r.choice([1, 7, 16, 40, 64, 100, 130, 257, 512])
        N = r.choice([8, 16, 64, 96, 136, 200, 264]) if desc_store else r.choice([1, 5, 17, 64, 100, 131, 260])
        bias = r.random() < 0.4
        scale = r.random() < 0.3
        clamp = r.random() < 0.3
        # drawn from a stream of its own, so that the kernels of seeds that do not draw it are
        # the ones earlier runs checked
        own = random.Random(self.seed * 15485863 + 29)
        step_scaled = own.random() < 0.3
        ptr_operands = step_scaled and own.random() < 0.5
        # a quarter of the rest load A and B through pointers too, a plain K loop whose group
        # stays in flight; half of those in the tutorial's 128x128x64 on 4 warps and 3 stages,
        # where the ring keeps num_stages slots (a fourth would leave one block an SM)
        plain = random.Random(self.seed * 32452843 + 41)
        if not step_scaled and plain.random() < 0.25:
            ptr_operands = True
            if plain.random() < 0.5:
                warps, bm, bn, bk, stages = 4, 128, 128, 64, 3
        if ptr_operands:
            K = own.choice([16, 64, 144, 512])
        # a third ask for warp specialisation on the outermost loop (tl.range(warp_specialize=True)):
        # under --arch sm_90 a producer warpgroup issues the descriptor copies where it can
        # compute their offsets, and tilec warns and leaves the loop as written where not
        ws = random.Random(self.seed * 86028121 + 53).random() < 1 / 3
        wsk = ", warp_specialize=True" if ws else ""
        self.name = f"tma{self.seed}"
        params, meta = [], []

        def desc(name, rows, cols, brows, bcols, kind):
            params.append(name)
            meta.append({"name": name, "kind": kind, "dtype": dt, "rows": rows, "cols": cols,
                         "block": [brows, bcols], "sig": f"tensordesc<{dt}[{brows}, {bcols}]>",
                         "buf": f"{name}__buf", "numel": rows * (cols + (-cols) % 8 + 8),
                         "rtol": 2e-2, "atol": 2e-2})
        def matrix(name, rows, cols):  # by rows, each padded to 16 elements
            ld = cols + (-cols) % 16
            params.append(name)
            meta.append({"name": name, "kind": "in", "dtype": dt, "numel": rows * ld, "sig": f"*{dt}:16"})
            return ld
        if ptr_operands:
            lda = matrix("a_ptr", M, K)
            ldb = matrix("b_ptr", N, K) if b_nk else matrix("b_ptr", K, N)
        else:
            desc("a_desc", M, K, bm, bk, "desc_in")
            if b_nk:
                desc("b_desc", N, K, bn, bk, "desc_in")
            else:
                desc("b_desc", K, N, bk, bn, "desc_in")
        ldc = N + 3
        if desc_store:
            desc("c_desc", M, N, bm, bn, "desc_out")
        else:
            params.append("c_ptr")
            meta.append({"name": "c_ptr", "kind": "out", "dtype": dt, "numel": M * ldc, "sig": f"*{dt}:16",
                         "rtol": 2e-2, "atol": 2e-2})
        if step_scaled:  # [M, K steps] fp32, by rows
            params.append("step_scale_ptr")
            meta.append({"name": "step_scale_ptr", "kind": "in", "dtype": "fp32", "numel": M * -(-K // bk),
                         "sig": "*fp32:16"})
        if bias:
            params.append("bias_ptr")
            meta.append({"name": "bias_ptr", "kind": "in", "dtype": "fp32", "numel": N, "sig": "*fp32:16"})
        for name, v in (("M", M), ("N", N), ("K", K)):
            params.append(name)
            meta.append({"name": name, "kind": "int", "value": v, "sig": "i32:16" if ptr_operands and name == "K" else "i32"})
        if ptr_operands:
            for name, v in (("lda", lda), ("ldb", ldb)):
                params.append(name)
                meta.append({"name": name, "kind": "int", "value": v, "sig": "i32:16"})
        if not desc_store:
            params.append("stride_cm")
            meta.append({"name": "stride_cm", "kind": "int", "value": ldc, "sig": "i32"})
        progs = self.pick(1, 2, 3, 5, 8)
        consts = [("BLOCK_M", bm), ("BLOCK_N", bn), ("BLOCK_K", bk)] + ([("PROGS", progs)] if persistent else [])
        for name, v in consts:
            params.append(f"{name}: tl.constexpr")
            meta.append({"name": name, "kind": "const", "value": v, "sig": str(v)})

        tiles = -(-M // bm) * -(-N // bn)
        self.emit("tiles_n = tl.cdiv(N, BLOCK_N)")
        # about 4 in 10 persistent kernels walk their (tile, K step) pairs in one loop, as
        # examples/matmul.py's matmul_persistent_flat_kernel: a branch moves to the next tile,
        # another runs the epilogue (its store, its reduction) and clears the accumulator;
        # drawn from a stream of its own, so that the other seeds' kernels stay as they were
        flat = persistent and random.Random(self.seed * 104729 + 5).random() < 0.4
        cols = "offs_n + tl.arange(0, BLOCK_N)"

        def loads_and_dot(koff, dot_acc, d):
            if ptr_operands:  # masked rows (A's past M, B's past N); K a multiple of 16
                self.emit("arows = offs_m + tl.arange(0, BLOCK_M)", d)
                self.emit(f"kcols = ({koff}) + tl.arange(0, BLOCK_K)", d)
                self.emit("bcols = offs_n + tl.arange(0, BLOCK_N)", d)
                self.emit("a = tl.load(a_ptr + arows[:, None] * lda + kcols[None, :], "
                          "mask=(arows < M)[:, None] & (kcols < K)[None, :], other=0.0)", d)
                if b_nk:
                    self.emit("b = tl.load(b_ptr + bcols[:, None] * ldb + kcols[None, :], "
                              "mask=(bcols < N)[:, None] & (kcols < K)[None, :], other=0.0)", d)
                    bt = "b.T"
                else:
                    self.emit("b = tl.load(b_ptr + kcols[:, None] * ldb + bcols[None, :], "
                              "mask=(kcols < K)[:, None] & (bcols < N)[None, :], other=0.0)", d)
                    bt = "b"
            else:
                self.emit(f"a = a_desc.load([offs_m, {koff}])", d)
                if b_nk:
                    self.emit(f"b = b_desc.load([offs_n, {koff}])", d)
                    bt = "b.T"
                else:
                    self.emit(f"b = b_desc.load([{koff}, offs_n])", d)
                    bt = "b"
            if step_scaled:
                self.emit("srows = offs_m + tl.arange(0, BLOCK_M)", d)
                self.emit(f"ss = tl.load(step_scale_ptr + srows * tl.cdiv(K, BLOCK_K) + ({koff}) // BLOCK_K, "
                          "mask=srows < M, other=0.0)", d)
                self.emit(f"acc += tl.dot(a, {bt}) * ss[:, None]", d)
            elif dot_acc:
                self.emit(f"acc = tl.dot(a, {bt}, acc)", d)
            else:
                self.emit(f"acc += tl.dot(a, {bt})", d)

        def epilogue_store(d):
            if scale:
                self.emit("acc = acc * 0.5", d)
            if bias:
                self.emit(f"cols = {cols}", d)
                self.emit("acc += tl.load(bias_ptr + cols, mask=cols < N, other=0.0)[None, :]", d)
            if clamp:
                self.emit("acc = tl.minimum(tl.maximum(acc, -4.0), 4.0)", d)
            if desc_store:
                self.emit(f"c_desc.store([offs_m, offs_n], acc.to({TL[dt]}))", d)
            else:
                self.emit("rows = offs_m + tl.arange(0, BLOCK_M)", d)
                if not bias:
                    self.emit(f"cols = {cols}", d)
                self.emit(f"tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to({TL[dt]}), "
                          "mask=(rows[:, None] < M) & (cols[None, :] < N))", d)

        # the accumulator reduced by rows too, as it is or after a reshape
        def epilogue_reduce(red, d):
            if red >= 0.35:
                return
            if desc_store:
                self.emit("rows = offs_m + tl.arange(0, BLOCK_M)", d)
            # one result per row and tile column: the tiles of a row of tiles each write their own
            name = "rmax_ptr" if red < 0.2 else "rsum_ptr"
            params.append(name)
            tiles_n = -(-N // bn)
            meta.append({"name": name, "kind": "out", "dtype": "fp32",
                         "numel": M * tiles_n * (1 if red < 0.2 else 2), "sig": "*fp32:16"})
            self.emit("at = rows * tiles_n + offs_n // BLOCK_N", d)
            if red < 0.2:
                self.emit("tl.store(rmax_ptr + at, tl.max(acc, 1), mask=rows < M)", d)
            else:  # the sums of each row's two halves: a reshape of the dot's result, then a reduction
                self.emit("halves = tl.sum(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)), 2)", d)
                self.emit("tl.store(rsum_ptr + at[:, None] * 2 + tl.arange(0, 2)[None, :], halves, "
                          "mask=(rows < M)[:, None])", d)

        if flat:
            self.rng.random()                        # the K loop's form (one flat loop instead)
            dot_acc = self.rng.random() < 0.5
            red = self.rng.random()
            grid = min(progs, tiles)
            self.emit("k_steps = tl.cdiv(K, BLOCK_K)")
            self.emit("mine = (tl.cdiv(M, BLOCK_M) * tiles_n - tl.program_id(0) + PROGS - 1) // PROGS")
            self.emit("tile = tl.program_id(0) - PROGS")
            self.emit("kk = -1")
            self.emit("offs_m = 0")
            self.emit("offs_n = 0")
            self.emit("acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)")
            self.emit(f"for _ in tl.range(0, k_steps * mine{wsk}):" if ws else "for _ in range(0, k_steps * mine):")
            self.emit("kk = tl.where(kk == k_steps - 1, 0, kk + 1)", 1)
            self.emit("if kk == 0:", 1)
            self.emit("tile += PROGS", 2)
            self.emit("offs_m = (tile // tiles_n) * BLOCK_M", 2)
            self.emit("offs_n = (tile % tiles_n) * BLOCK_N", 2)
            loads_and_dot("kk * BLOCK_K", dot_acc, 1)
            self.emit("if kk == k_steps - 1:", 1)
            epilogue_store(2)
            epilogue_reduce(red, 2)
            self.emit("acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)", 2)
        else:
            d = 0
            if persistent:
                self.emit(f"for tile in tl.range(tl.program_id(0), tl.cdiv(M, BLOCK_M) * tiles_n, PROGS{wsk}):")
                d = 1
                grid = min(progs, tiles)
            else:
                self.emit("tile = tl.program_id(0)")
                grid = tiles
            self.emit("offs_m = (tile // tiles_n) * BLOCK_M", d)
            self.emit("offs_n = (tile % tiles_n) * BLOCK_N", d)
            self.emit("acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)", d)
            kws = wsk if not persistent else ""
            rng = "tl.range" if kws else "range"
            # half of those asking for warp specialisation carry the K offset from step to step
            # (the producer then keeps it as a loop-carried scalar of its own)
            carried = ws and random.Random(self.seed * 49979687 + 61).random() < 0.5
            # about a third of the others peel the K loop's last step off, after the loop, as
            # FlagGems' mm does: the loop runs over whole steps, the tail's loads are masked
            # (pointers) or read past K as zeros (descriptors); on wgmma the tail's dot takes
            # the loop's accumulator layout and reads its operands from buffers written just
            # before it.  Drawn from a stream of its own (see `own`).
            peel = not carried and random.Random(self.seed * 179424673 + 71).random() < 0.35
            if carried:
                self.emit("kc = 0", d)
            form = self.rng.random() < 0.5
            if peel:
                self.emit("whole = tl.cdiv(K, BLOCK_K) * BLOCK_K - BLOCK_K", d)
                self.emit(f"for k in {rng}(0, whole, BLOCK_K{kws}):", d)
                koff = "k"
            elif form:
                self.emit(f"for k in {rng}(0, tl.cdiv(K, BLOCK_K){kws}):", d)
                koff = "k * BLOCK_K"
            elif random.Random(self.seed * 15487469 + 83).random() < 0.4:
                # the K offset counted in int64, as kernels that widen their offsets do: the
                # loop pipelines all the same; a descriptor takes int32 offsets, so the loads
                # narrow it back.  Drawn from a stream of its own (see `own`).
                self.emit(f"for k in {rng}(0, K.to(tl.int64), BLOCK_K{kws}):", d)
                koff = "k.to(tl.int32)"
            else:
                self.emit(f"for k in {rng}(0, K, BLOCK_K{kws}):", d)
                koff = "k"
            dot_acc = self.rng.random() < 0.5
            loads_and_dot("kc" if carried else koff, dot_acc, d + 1)
            if carried:
                self.emit("kc += BLOCK_K", d + 1)
            if peel:
                loads_and_dot("whole", dot_acc, d)
            epilogue_store(d)
            # drawn last, so that the kernels of seeds that do not draw it are the ones earlier
            # runs checked
            epilogue_reduce(self.rng.random(), d)

        src = [f"# Generated by tools/gen_kernel.py {self.seed} --family tma: a random tensor-descriptor "
               "matmul for differential testing.", "import triton", "import triton.language as tl", "", "",
               "@triton.jit", f"def {self.name}({', '.join(params)}):"] + self.lines
        sig = ", ".join(p["sig"] for p in meta)
        # the tolerance of a K-long fp32 sum of products of 16-bit values in [-2, 2]
        for p in meta:
            if p["kind"] in ("out", "desc_out"):
                p["rtol"], p["atol"] = 1e-2, 1e-2
        meta_all = {"seed": self.seed, "family": "tma", "kernel": self.name, "source": f"{self.name}.py",
                    "sig": sig, "num_warps": warps, "num_stages": stages, "grid": [grid, 1, 1], "params": meta,
                    "tilec_args": ["-k", self.name, "-s", sig, "-w", str(warps), "--num-stages", str(stages)]}
        return "\n".join(src) + "\n", meta_all


def generate(seed):
    return TmaGen(seed).generate()

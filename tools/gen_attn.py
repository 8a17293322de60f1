"""The attention family of tools/gen_kernel.py (--family attn): random attention-class kernels.

Every kernel multiplies a query tile by a key tile with tl.dot (fp16 or bf16 operands, fp32
accumulators) and does something with the scores s that attention kernels do:

  fwd      the flash-attention forward pass: one BLOCK_M block of queries per program, a loop
           over the keys (`for start_n in range(...)`, tl.range, a `while` loop whose bound is
           loaded from memory, or two loops through a helper function, off-diagonal then
           diagonal) carrying m_i, l_i and acc, rescaled by alpha = exp2(m_i - m_new) (or exp);
           acc = acc * alpha[:, None] + tl.dot(p.to(fp16/bf16), v); the output acc / l_i and
           sometimes the row log-sum-exp;
  block    one key block per program and no loop: s combined with loaded row and column
           vectors, and a random choice of outputs: s itself, its row and column max/min/sum,
           its full max/sum, the row softmax times v, the column softmax times q; and, drawn
           apart so that other seeds keep their kernels, the score at each row's or column's
           tl.argmax/tl.argmin (picked out with tl.where and tl.sum: the index itself could
           differ on a near tie, the score there may not);
  kvmajor  one key block per program and a loop over the queries, a column-wise online
           softmax (tl.max(s, 0), rescaling by beta[:, None]) and
           acc = acc * beta[:, None] + tl.dot(tl.trans(p).to(...), do).

Around them, chosen at random: k loaded as [BLOCK_N, HEAD_DIM] and used as tl.trans(k) or
k.T, or loaded already transposed; masks made of broadcast row and column index vectors
(causal `offs_m[:, None] >= offs_n[None, :]`, ragged `offs_n[None, :] < N`) applied as -inf
through tl.where before tl.max and exp (and again as zeros after exp, before the second
dot), or as a -inf bias added to s; a head
dimension HEAD_DIM larger than the stored one D (the dot's K tail masked with other=0.0);
grouped-query attention, with the kv head `off_h // GROUP` per program or GROUP query heads
packed into the rows of one tile; in a quarter of the forward passes, v's rows gathered through
loaded indices (`slot = (cols + |idx|) % N`, as a paged cache's slot table) (row index // GROUP is the token, % GROUP the head);
int64 offsets (`.to(tl.int64)` on program ids and strides); early returns from a grid with
programs to spare; row strides with gaps; sizes that are not multiples of the blocks; and for
about 1 in 8, the benchmark's Hopper shape (128 x 64 blocks, head dim 64, 4 warps) with every
row and stride a multiple of 16 elements, declared so, as its copies by cp.async need.

Validity: every block size is a power of two and every dot dimension at least 16; num_warps
keeps every q, k, v, s and acc tile at 64 elements per thread or fewer (bigger ones spill,
and nvcc takes half a minute over one of them); every row that a -inf mask reaches keeps at
least one finite score in the first block it sees (so no exp(-inf - -inf)); every load is
masked where it could leave its tensor, and every output element that a program owns is
written (row tails with masked stores).  Inputs are in [-2, 2], so scores stay below
4 * HEAD_DIM and exp never overflows.
"""

import random

TL = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16"}

# Tolerances (rtol, atol as a fraction of max|Triton|) per kind of output:
#   s      scores and their max/min: one fp32 dot, summed in another order;
#   ssum   sums of scores over a row, a column or the tile (more additions, cancellation);
#   soft   softmax statistics (lse, column sums of p): exp/log of those scores;
#   pv     a second dot of p rounded to fp16/bf16: a p that lies on a rounding boundary of
#          the 16-bit type rounds one way in one compiler and the other way in the other,
#          one ulp of the 16-bit type (2^-11 fp16, 2^-8 bf16) times p * |v| per flip.
# A value stored as fp16 or bf16 is rounded once more (half an ulp each side).
TOL = {
    ("s", "fp32"): (1e-3, 1e-4), ("s", "fp16"): (4e-3, 1e-3), ("s", "bf16"): (2e-2, 8e-3),
    ("ssum", "fp32"): (2e-3, 4e-4), ("ssum", "fp16"): (4e-3, 1e-3), ("ssum", "bf16"): (2e-2, 8e-3),
    ("soft", "fp32"): (1e-3, 1e-4),
    ("pv", "fp16"): (1e-2, 4e-3), ("pv", "bf16"): (4e-2, 1.5e-2),
}


def cdiv(a, b):
    return -(-a // b)


class Params:
    """The kernel's parameters and their JSON description, in source order (constexprs last)."""

    def __init__(self, rng, aligned=False, fixed=False):
        self.rng = rng
        self.aligned = aligned    # every int that is a multiple of 16 declared i32:16
        self.fixed = fixed        # every int a constant of the signature (its value)
        self.decls, self.meta, self.consts = [], [], []

    def ptr(self, name, dtype, numel, kind="in", tol=None, view=None, inf=False):
        """An output may say which of its elements the kernel writes ("view": [shape,
        strides] over the flat buffer; default all) and that they may be +-inf ("inf")."""
        self.decls.append(name)
        m = {"name": name, "kind": kind, "dtype": dtype, "numel": max(int(numel), 1),
             "sig": f"*{dtype}:16"}
        if kind == "out":
            m["rtol"], m["atol"] = tol
            if view:
                m["view"] = view
            if inf:
                m["inf"] = True
        self.meta.append(m)

    def int(self, name, value):
        div = value % 16 == 0 and (self.rng.random() < 0.7 or self.aligned)
        self.decls.append(name)
        self.meta.append({"name": name, "kind": "int", "dtype": "i32", "value": int(value),
                          "sig": str(int(value)) if self.fixed else "i32:16" if div else "i32"})

    def float(self, name, value):
        self.decls.append(name)
        self.meta.append({"name": name, "kind": "float", "dtype": "fp32", "value": value, "sig": "fp32"})

    def const(self, name, value):
        self.consts.append(({"name": name, "kind": "const", "value": value, "sig": str(value)}))

    def all_decls(self):
        return self.decls + [f"{c['name']}: tl.constexpr" for c in self.consts]

    def all_meta(self):
        return self.meta + self.consts


class AttnGen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.lines = []
        self.helpers = []
        self.gather_v = False

    # ---- small helpers ------------------------------------------------------------------

    def pick(self, *options):
        return self.rng.choice(options)

    def chance(self, p):
        return self.rng.random() < p

    def emit(self, text, depth=1):
        self.lines.append("    " * depth + text)

    def ragged(self, block, most):
        """A size of up to `most` blocks, usually not a multiple of `block`."""
        n = self.rng.randint(1, most * block)
        if self.chance(0.25):
            n = cdiv(n, block) * block
        return n

    def tensor(self, t, heads, rows, cols, dtype, kind="in", tol=None):
        """A [B, heads, rows, cols] tensor named T (cols contiguous), its strides as runtime
        parameters stride_tb, stride_th, stride_tm; returns nothing, records the sizes."""
        pad = self.pick(0, 0, 0, 3, 8, 16)
        sm = cols + pad
        if self.chance(0.3):
            sm = cdiv(sm, 16) * 16
        if self.hopper_shape:  # rows 16-aligned and said so: the loop's blocks come by cp.async
            sm = cdiv(sm, 16) * 16
        sh = rows * sm + self.pick(0, 0, 0, 16, 40)
        if self.hopper_shape:
            sh = cdiv(sh, 16) * 16
        assert cols <= sm and rows * sm <= sh, f"{t}: rows or heads would overlap"
        sb = heads * sh
        view = [[self.B, heads, rows, cols], [sb, sh, sm, 1]] if kind == "out" else None
        self.P.ptr(t, dtype, self.B * sb, kind, tol, view)
        self.strides[t] = (sb, sh, sm)

    def stride_params(self, t, with_b=True):
        sb, sh, sm = self.strides[t]
        name = t.lower()
        if with_b:
            self.P.int(f"stride_{name}b", sb)
        self.P.int(f"stride_{name}h", sh)
        self.P.int(f"stride_{name}m", sm)

    def base(self, t, b, h):
        """`T + b * stride_tb + h * stride_th`, in int64 where the kernel uses it."""
        n = t.lower()
        if self.int64:
            return f"{t} + {b}.to(tl.int64) * stride_{n}b + {h}.to(tl.int64) * stride_{n}h"
        return f"{t} + {b} * stride_{n}b + {h} * stride_{n}h"

    def exp_fn(self):
        return "tl.exp2" if self.use_exp2 else "tl.exp"

    # ---- the shared prologue: shapes, dtypes, heads -------------------------------------

    def choose_shapes(self, kind):
        self.bm = self.pick(16, 32, 64, 128)
        self.bn = self.pick(16, 32, 64)
        self.hd = self.pick(16, 32, 64, 128)
        if kind == "block" and self.bm * self.hd > 8192 and self.chance(0.5):
            self.hd //= 2
        widest = max(self.bm * self.hd, self.bm * self.bn, self.bn * self.hd)
        self.num_warps = self.rng.choice([w for w in (1, 2, 4, 8) if widest <= 2048 * w])
        # drawn apart (the other seeds keep their kernels): about 1 in 8 takes the benchmark's
        # Hopper shape, 128 queries by 64 keys of head dim 64 on 4 warps, whose two dots hold
        # 128 accumulators a thread (past the 96 under which copies go after the dots anyway)
        self.hopper_shape = random.Random(self.seed * 7919 + 13).random() < 0.125
        if self.hopper_shape:
            self.bm, self.bn, self.hd, self.num_warps = 128, 64, 64, 4
        self.dt = self.pick("fp16", "bf16")
        self.dt_v = self.dt if self.chance(0.85) else ("bf16" if self.dt == "fp16" else "fp16")
        # the stored head dimension: HEAD_DIM, or less (a masked K tail of q @ k^T)
        self.D = self.hd
        self.d_ragged = self.chance(0.25)
        if self.d_ragged:
            self.D = self.rng.randint(self.hd // 2 + 1, self.hd)
        self.B = self.pick(1, 1, 2)
        self.group = self.pick(1, 1, 2, 4)
        self.hkv = self.pick(1, 2) if self.group < 4 else 1
        self.hq = self.group * self.hkv
        self.int64 = self.chance(0.4)
        self.k_layout = self.pick("nd", "nd", "dn")     # k stored [N, D] or [D, N]
        self.trans_form = self.pick("tl.trans({})", "tl.trans({})", "{}.T")
        self.use_exp2 = self.chance(0.7)
        # 1 in 4: sizes and strides fixed in the signature, so that masks such as the head
        # dimension's (offs_d < D) are decided per register in the dots' layouts
        # (tir_cmp_decided); from its own stream, so that other kernels keep their text
        self.P = Params(self.rng, aligned=self.hopper_shape,
                        fixed=random.Random(self.seed * 104729 + 11).random() < 0.25)
        self.strides = {}

    def dmask(self, axis):
        """The head-dimension mask broadcast along `axis` (0: [None, :], 1: [:, None])."""
        if not self.d_ragged:
            return None
        return "(offs_d[None, :] < D)" if axis == 0 else "(offs_d[:, None] < D)"

    @staticmethod
    def both(a, b):
        return a if b is None else b if a is None else f"{a} & {b}"

    def load_rows(self, var, base, rows, row_ok, stride, dtype_hint=None, depth=1):
        """var = a [len(rows), HEAD_DIM] tile at base + rows * stride + d, masked."""
        mask = self.both(f"({row_ok})[:, None]" if row_ok else None, self.dmask(0))
        other = self.pick("0.0", "0.0", "0")
        text = f"tl.load({base} + {rows}[:, None] * {stride} + offs_d[None, :]"
        text += f", mask={mask}, other={other})" if mask else ")"
        self.emit(f"{var} = {text}", depth)

    def load_k(self, cols, col_ok, depth):
        """kt: the key block as the right-hand operand [HEAD_DIM, BLOCK_N] of q @ k^T."""
        if self.k_layout == "dn":
            mask = self.both(f"({col_ok})[None, :]" if col_ok else None, self.dmask(1))
            text = f"tl.load(k_base + offs_d[:, None] * stride_km + {cols}[None, :]"
            self.emit(f"kt = {text}" + (f", mask={mask}, other=0.0)" if mask else ")"), depth)
            return "kt"
        self.load_rows("k", "k_base", cols, col_ok, "stride_km", depth=depth)
        return self.trans_form.format("k")

    def scale_expr(self):
        """A multiplier for the scores: a runtime fp32 parameter, a literal, or none."""
        r = self.rng.random()
        log2e = 1.4426950408889634 if self.use_exp2 else 1.0
        sm_scale = 1.0 / self.hd ** 0.5
        if r < 0.45:
            self.P.float("qk_scale", round(sm_scale * log2e, 7))
            return "qk_scale"
        if r < 0.7:
            return repr(round(sm_scale * log2e, 6))
        if r < 0.85:
            return "0.5"
        return None

    # ---- the forward pass: a loop over the keys -----------------------------------------

    def gen_fwd(self):
        P = self.P
        self.packed = self.group > 1 and self.chance(0.35)     # GQA heads packed into rows
        M = self.ragged(self.bm, 3)
        N = self.ragged(self.bn, 5)
        rows_total = M * self.group if self.packed else M
        self.causal = self.chance(0.5)
        two_stage = (self.causal and not self.packed and self.bm % self.bn == 0 and self.chance(0.4))
        loop = "two" if two_stage else self.pick("range", "range", "tl.range", "while", "for_loaded")
        early = self.chance(0.3)
        o_dt = self.pick("fp32", self.dt_v)
        want_lse = self.chance(0.4)
        gm = cdiv(rows_total, self.bm)
        grid0 = gm + (self.rng.randint(1, 2) if early else 0)
        hgrid = self.B * (self.hkv if self.packed else self.hq)
        layout_axes = self.pick("hz", "hz", "hb")
        grid = [grid0, hgrid, 1] if layout_axes == "hz" else [grid0, hgrid // self.B, self.B]

        self.tensor("Q", self.hq, M, self.D, self.dt)
        if self.k_layout == "dn":
            self.tensor("K", self.hkv, self.D, N, self.dt)
        else:
            self.tensor("K", self.hkv, N, self.D, self.dt)
        self.tensor("V", self.hkv, N, self.D, self.dt_v)
        self.tensor("Out", self.hq, M, self.D, o_dt, "out", TOL[("pv", self.dt_v)])
        if want_lse:
            P.ptr("Lse", "fp32", self.B * self.hq * M, "out", TOL[("soft", "fp32")])
        loaded = loop in ("while", "for_loaded")
        if loaded:
            P.ptr("Lens", "i32", self.B)
        # v's rows gathered through loaded indices (a paged cache's token-to-slot table):
        # drawn from a generator of its own, so that the kernels of earlier runs stay as
        # they were unless this is drawn
        self.gather_v = loop != "two" and random.Random(self.seed * 7919 + 5).random() < 0.25
        if self.gather_v:
            P.ptr("VIdx", "i32", N)
        bias = self.pick(None, None, None, "col", "row", "alibi")
        if bias == "col":
            P.ptr("KBias", self.pick("fp32", "fp16"), self.B * N)
        elif bias == "row":
            P.ptr("QBias", self.pick("fp32", "bf16"), self.B * self.hq * M)
        P.int("M", M)
        P.int("N", N)
        if self.d_ragged:
            P.int("D", self.D)
        for t in ("Q", "K", "V", "Out"):
            self.stride_params(t)
        scale = self.scale_expr()
        P.const("H", self.hq)
        if self.group > 1:
            P.const("GROUP", self.group)
        P.const("BLOCK_M", self.bm)
        P.const("BLOCK_N", self.bn)
        P.const("HEAD_DIM", self.hd)

        # program ids, heads, bases
        pid_m = "pid_m"
        if self.int64 and self.chance(0.3):
            self.emit("pid_m = tl.program_id(0).to(tl.int64)")
        else:
            self.emit("pid_m = tl.program_id(0)")
        if layout_axes == "hz":
            self.emit("pid_hz = tl.program_id(1)")
            if self.packed:
                self.emit(f"off_b = pid_hz // {self.hkv}")
                self.emit(f"off_kvh = pid_hz % {self.hkv}")
            else:
                self.emit("off_b = pid_hz // H")
                self.emit("off_h = pid_hz % H")
        else:
            self.emit(("off_kvh" if self.packed else "off_h") + " = tl.program_id(1)")
            self.emit("off_b = tl.program_id(2)")
        if early:
            lim = f"M * {self.group}" if self.packed else "M"
            self.emit(f"if {pid_m} * BLOCK_M >= {lim}:")
            self.emit("return", 2)
        if not self.packed:
            self.emit("off_kvh = off_h // GROUP" if self.group > 1 else "off_kvh = off_h")
        self.emit(f"offs_m = {pid_m} * BLOCK_M + tl.arange(0, BLOCK_M)")
        self.emit("offs_n = tl.arange(0, BLOCK_N)")
        self.emit("offs_d = tl.arange(0, HEAD_DIM)")
        if self.packed:
            # row r of the tile is token r // GROUP of query head off_kvh * GROUP + r % GROUP
            self.emit("tok = offs_m // GROUP")
            self.emit("q_head = off_kvh * GROUP + offs_m % GROUP")
            self.emit("q_base = Q + " + ("off_b.to(tl.int64)" if self.int64 else "off_b") + " * stride_qb")
            qrow = ("q_head[:, None] * stride_qh + tok" if not self.int64 else
                    "q_head[:, None].to(tl.int64) * stride_qh + tok")
            self.emit(f"q_rows = q_base + {qrow}[:, None] * stride_qm + offs_d[None, :]")
            rows, row_ok = "tok", "tok < M"
            mask = self.both("(tok < M)[:, None]", self.dmask(0))
            self.emit(f"q = tl.load(q_rows, mask={mask}, other=0.0)")
            o_base_rows = ("Out + off_b * stride_outb + q_head[:, None] * stride_outh"
                           if not self.int64 else
                           "Out + off_b.to(tl.int64) * stride_outb + q_head[:, None].to(tl.int64) * stride_outh")
        else:
            self.emit("q_base = " + self.base("Q", "off_b", "off_h"))
            rows, row_ok = "offs_m", "offs_m < M"
            self.load_rows("q", "q_base", "offs_m", row_ok, "stride_qm")
        self.emit("k_base = " + self.base("K", "off_b", "off_kvh"))
        self.emit("v_base = " + self.base("V", "off_b", "off_kvh"))
        if self.chance(0.2):
            self.emit(f"q = tl.where(({row_ok})[:, None], q, 0.0)")   # a dot after a where
        if scale and self.chance(0.2):      # q pre-scaled, as older tutorials do
            self.emit(f"q = (q * {scale}).to({TL[self.dt]})")
            scale = None
        if bias == "row":
            if self.packed:
                self.emit("qb = tl.load(QBias + (off_b * H + q_head) * M + tok, mask=tok < M, other=0.0)")
            else:
                self.emit("qb = tl.load(QBias + (off_b * H + off_h) * M + offs_m, mask=offs_m < M, other=0.0)")
        if self.pick(0, 1):
            self.emit("m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float(\"inf\")")
        else:
            self.emit("m_i = tl.full([BLOCK_M], float(\"-inf\"), dtype=tl.float32)")
        self.emit("l_i = tl.zeros([BLOCK_M], dtype=tl.float32)" + self.pick("", " + 1.0"))
        self.emit("acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)")

        ctx = {"rows": rows, "scale": scale, "bias": bias, "causal": self.causal}
        if loaded:
            # a data-dependent number of keys: 1..N, from memory
            mult = max(1, cdiv(N, 16))
            self.emit(f"kv_len = tl.minimum(tl.abs(tl.load(Lens + off_b)) * {mult} + 1, N)")
            ctx["end"] = "kv_len"
        else:
            ctx["end"] = "N"
        hi = ctx["end"]
        if self.causal and not self.packed and self.chance(0.6) and loop != "two":
            self.emit(f"hi = tl.minimum(({pid_m} + 1) * BLOCK_M, {ctx['end']})")
            hi = "hi"
        if loop in ("range", "tl.range", "for_loaded"):
            rng_fn = "tl.range" if loop == "tl.range" else "range"
            self.emit(f"for start_n in {rng_fn}(0, {hi}, BLOCK_N):")
            if self.chance(0.2):
                self.emit("start_n = tl.multiple_of(start_n, BLOCK_N)", 2)
            self.fwd_body(ctx, 2, ragged=N % self.bn != 0 or loaded or hi == "hi")
        elif loop == "while":
            self.emit("start_n = 0")
            self.emit(f"while start_n < {hi}:")
            self.fwd_body(ctx, 2, ragged=True)
            self.emit("start_n += BLOCK_N", 2)
        else:
            self.two_stage(ctx, pid_m, N)

        # epilogue
        r = self.rng.randrange(3)
        if r == 0:
            self.emit("acc = acc / l_i[:, None]")
        elif r == 1:
            self.emit("acc = acc * (1.0 / l_i)[:, None]")
        else:
            self.emit("l_rcp = 1.0 / l_i")
            self.emit("acc = acc * l_rcp[:, None]")
        val = "acc" if o_dt == "fp32" else f"acc.to({TL[o_dt]})"
        if self.packed:
            mask = self.both("(tok < M)[:, None]", self.dmask(0))
            self.emit(f"tl.store({o_base_rows} + tok[:, None] * stride_outm + offs_d[None, :], {val}, mask={mask})")
        else:
            self.emit("o_base = " + self.base("Out", "off_b", "off_h"))
            mask = self.both("(offs_m < M)[:, None]", self.dmask(0))
            self.emit(f"tl.store(o_base + offs_m[:, None] * stride_outm + offs_d[None, :], {val}, mask={mask})")
        if want_lse:
            log = "tl.math.log2" if self.use_exp2 else "tl.log"
            self.emit(f"lse = m_i + {log}(l_i)")
            if self.packed:
                self.emit("tl.store(Lse + (off_b * H + q_head) * M + tok, lse, mask=tok < M)")
            else:
                self.emit("tl.store(Lse + (off_b * H + off_h) * M + offs_m, lse, mask=offs_m < M)")
        return grid

    def two_stage(self, ctx, pid_m, N):
        """The causal loop in two parts through a helper: the blocks left of the diagonal
        without the causal mask, then the diagonal ones with it (BLOCK_M % BLOCK_N == 0)."""
        ragged = N % self.bn != 0 or ctx["end"] != "N"
        saved = self.lines
        self.lines = []
        args = ["acc", "l_i", "m_i", "q", "k_base", "v_base", "offs_m", "offs_n", "offs_d", "lo", "hi", "kv_end"]
        extra = []
        if ctx["scale"] == "qk_scale":
            extra.append("qk_scale")
        if ctx["bias"] == "col":
            extra += ["KBias", "off_b", "N"]
        if ctx["bias"] == "row":
            extra.append("qb")
        if self.d_ragged:
            extra.append("D")
        strides = ["stride_km", "stride_vm"]
        consts = ["CAUSAL: tl.constexpr", "BLOCK_N: tl.constexpr"]
        sub = dict(ctx, causal="CAUSAL", end="kv_end")
        self.fwd_body(sub, 2, ragged=ragged)
        body = self.lines
        self.lines = saved
        head = ["@triton.jit",
                "def _attn_inner(" + ", ".join(args + extra + strides + consts) + "):",
                "    for start_n in range(lo, hi, BLOCK_N):"]
        self.helpers.append("\n".join(head + body + ["    return acc, l_i, m_i"]))
        call_args = ", ".join(["acc", "l_i", "m_i", "q", "k_base", "v_base", "offs_m", "offs_n", "offs_d"])
        tail = ", ".join(extra + strides)
        self.emit(f"lo = {pid_m} * BLOCK_M")
        self.emit(f"acc, l_i, m_i = _attn_inner({call_args}, 0, tl.minimum(lo, {ctx['end']}), {ctx['end']}, "
                  f"{tail}, False, BLOCK_N)")
        self.emit(f"acc, l_i, m_i = _attn_inner({call_args}, lo, tl.minimum(lo + BLOCK_M, {ctx['end']}), "
                  f"{ctx['end']}, {tail}, True, BLOCK_N)")

    def fwd_body(self, ctx, d, ragged):
        """One step of the online softmax over the key block at start_n."""
        rows, end = ctx["rows"], ctx["end"]
        self.emit("cols = start_n + offs_n", d)
        kt = self.load_k("cols", f"cols < {end}", d)
        self.emit(f"s = tl.dot(q, {kt})", d)
        scale = ctx["scale"]
        late_scale = scale is not None and self.chance(0.35)     # the tutorial's form
        if scale is not None and not late_scale:
            self.emit(f"s = s * {scale}", d)
        if ctx["bias"] == "col":
            self.emit(f"kb = tl.load(KBias + off_b * N + cols, mask=cols < {end}, other=0.0)", d)
            self.emit("s = s + kb[None, :]", d)
        elif ctx["bias"] == "row":
            self.emit("s = s + qb[:, None]", d)
        elif ctx["bias"] == "alibi":
            self.emit(f"s = s - 0.0625 * ({rows}[:, None] - cols[None, :]).to(tl.float32)", d)
        conds = []
        if ragged:
            conds.append(f"(cols[None, :] < {end})")
        causal = ctx["causal"]
        where_after = self.chance(0.25)
        if causal is True or causal == "CAUSAL":
            cond = f"({rows}[:, None] >= cols[None, :])"
            if causal == "CAUSAL":   # inside the two-stage helper: a constexpr branch
                self.emit("if CAUSAL:", d)
                both = self.both(" & ".join(conds) if conds else None, cond)
                self.emit(f"s = tl.where({both}, s, float(\"-inf\"))", d + 1)
                if conds:
                    self.emit("else:", d)
                    self.emit(f"s = tl.where({' & '.join(conds)}, s, float(\"-inf\"))", d + 1)
                conds = []
                where_after = False
            else:
                conds.append(cond)
        if conds:
            mask = " & ".join(conds)
            self.emit(f"valid = {mask}", d)
            if self.chance(0.3):
                self.emit("s = s + tl.where(valid, 0.0, float(\"-inf\"))", d)
            else:
                self.emit("s = tl.where(valid, s, float(\"-inf\"))", d)
        else:
            where_after = False
        e = self.exp_fn()
        if late_scale:
            self.emit(f"m_new = tl.maximum(m_i, tl.max(s, 1) * {scale})", d)
            self.emit(f"p = {e}(s * {scale} - m_new[:, None])", d)
        else:
            red = self.pick("tl.max(s, 1)", "tl.max(s, axis=1)", "s.max(axis=1)")
            self.emit(f"m_new = tl.maximum(m_i, {red})", d)
            self.emit(f"p = {e}(s - m_new[:, None])", d)
        if where_after:
            self.emit("p = tl.where(valid, p, 0.0)", d)
        self.emit(f"alpha = {e}(m_i - m_new)", d)
        self.emit(f"l_i = l_i * alpha + tl.sum(p, {self.pick('1', 'axis=1')})", d)
        if self.gather_v:   # any loaded integers make a row index below `end`
            self.emit(f"vidx = tl.load(VIdx + cols, mask=cols < {end}, other=0)", d)
            self.emit(f"slot = (cols + tl.abs(vidx)) % {end}", d)
            self.load_rows("v", "v_base", "slot", f"cols < {end}", "stride_vm", depth=d)
        else:
            self.load_rows("v", "v_base", "cols", f"cols < {end}", "stride_vm", depth=d)
        pv = f"p.to({TL[self.dt_v]})" if self.chance(0.8) else "p.to(v.dtype)"
        r = self.rng.randrange(4)
        if r == 0:
            self.emit("acc = acc * alpha[:, None]", d)
            self.emit(f"acc = tl.dot({pv}, v, acc)", d)
        elif r == 1:
            self.emit("acc = acc * alpha[:, None]", d)
            self.emit(f"acc += tl.dot({pv}, v)", d)
        elif r == 2:
            self.emit(f"acc = acc * alpha[:, None] + tl.dot({pv}, v)", d)
        else:
            self.emit("acc = acc * alpha[:, None]", d)
            self.emit(f"acc = tl.dot({pv}, v, acc=acc)", d)
        self.emit("m_i = m_new", d)

    # ---- one key block, no loop ---------------------------------------------------------

    def gen_block(self):
        P = self.P
        M = self.ragged(self.bm, 3)
        nblocks = self.pick(1, 1, 2, 3)
        N = self.rng.randint(1, self.bn) if nblocks == 1 else self.ragged(self.bn, nblocks)
        nb = cdiv(N, self.bn)
        early = self.chance(0.25)
        gm = cdiv(M, self.bm)
        grid = [gm + (self.rng.randint(1, 2) if early else 0), self.B * self.hq, nb]
        mask_kind = self.pick("none", "ragged", "ragged", "causal", "both") if nb == 1 else \
            self.pick("none", "ragged", "ragged")
        if N % self.bn and mask_kind == "none" and self.chance(0.5):
            mask_kind = "ragged"
        outs = [o for o in ("s", "rowstat", "colstat", "full", "pv", "colpv") if self.chance(0.35)]
        if not outs:
            outs = [self.pick("rowstat", "pv", "colstat", "full")]
        nslab = self.B * self.hq * gm * nb        # one slab per program that does not return

        self.tensor("Q", self.hq, M, self.D, self.dt)
        if self.k_layout == "dn":
            self.tensor("K", self.hkv, self.D, N, self.dt)
        else:
            self.tensor("K", self.hkv, N, self.D, self.dt)
        if "pv" in outs:
            self.tensor("V", self.hkv, N, self.D, self.dt_v)
        vecs = []
        for _ in range(self.pick(0, 1, 1, 2)):
            which = self.pick("row", "col")
            name = f"{which.capitalize()}Vec{len(vecs)}"
            dtype = self.pick("fp32", "fp16", "bf16")
            P.ptr(name, dtype, M if which == "row" else N)
            vecs.append((which, name, dtype))
        s_dt = self.pick("fp32", "fp32", "fp16")
        rowstats = [self.pick("max", "sum", "min")] + ([self.pick("max", "sum")] if self.chance(0.4) else [])
        colstats = [self.pick("max", "sum", "min")] + ([self.pick("max", "sum")] if self.chance(0.4) else [])
        fulls = [self.pick("max", "sum", "min")]
        arg_rng = random.Random(self.seed * 7919 + 11)   # apart: other seeds keep their kernels
        args_at = [(axis, arg_rng.choice(("argmax", "argmin"))) for axis in (1, 0) if arg_rng.random() < 0.3]
        for axis, fn in args_at:
            name = "RowArg" if axis == 1 else "ColArg"
            P.ptr(name, "fp32", self.B * self.hq * nb * M if axis == 1 else nslab * self.bn, "out",
                  TOL[("s", "fp32")], inf=mask_kind != "none")
        if "s" in outs:
            P.ptr("S", s_dt, self.B * self.hq * M * nb * self.bn, "out", TOL[("s", s_dt)],
                  inf=mask_kind != "none")
        if "rowstat" in outs:
            for i, r in enumerate(rowstats):
                P.ptr(f"Row{i}", "fp32", self.B * self.hq * nb * M, "out",
                      TOL[("ssum" if r == "sum" else "s", "fp32")])
        if "colstat" in outs:
            for i, c in enumerate(colstats):
                P.ptr(f"Col{i}", "fp32", nslab * self.bn, "out", TOL[("ssum" if c == "sum" else "s", "fp32")],
                      inf=mask_kind != "none" and c != "sum")
        if "full" in outs:
            P.ptr("Full", "fp32", nslab, "out", TOL[("ssum" if fulls[0] == "sum" else "s", "fp32")])
        o_dt = self.pick("fp32", self.dt_v)
        pv_tol = TOL[("pv", self.dt_v if o_dt == "fp32" else o_dt)]
        if "pv" in outs:
            P.ptr("Out", o_dt, self.B * self.hq * nb * M * self.hd, "out", pv_tol)
        if "colpv" in outs:
            P.ptr("ColOut", "fp32", nslab * self.bn * self.hd, "out", TOL[("pv", self.dt)])
        P.int("M", M)
        P.int("N", N)
        if self.d_ragged:
            P.int("D", self.D)
        self.stride_params("Q")
        self.stride_params("K")
        if "pv" in outs:
            self.stride_params("V")
        scale = self.scale_expr()
        P.const("H", self.hq)
        if self.group > 1:
            P.const("GROUP", self.group)
        P.const("BLOCK_M", self.bm)
        P.const("BLOCK_N", self.bn)
        P.const("HEAD_DIM", self.hd)

        self.emit("pid_m = tl.program_id(0)")
        self.emit("pid_hz = tl.program_id(1)")
        self.emit("pid_n = tl.program_id(2)")
        if early:
            self.emit("if pid_m * BLOCK_M >= M:")
            self.emit("return", 2)
        self.emit("off_b = pid_hz // H")
        self.emit("off_h = pid_hz % H")
        self.emit("off_kvh = off_h // GROUP" if self.group > 1 else "off_kvh = off_h")
        self.emit("offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)")
        self.emit("offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)")
        self.emit("offs_d = tl.arange(0, HEAD_DIM)")
        self.emit("q_base = " + self.base("Q", "off_b", "off_h"))
        self.emit("k_base = " + self.base("K", "off_b", "off_kvh"))
        self.load_rows("q", "q_base", "offs_m", "offs_m < M", "stride_qm")
        kt = self.load_k("offs_n", "offs_n < N", 1)
        if self.chance(0.15):
            self.emit(f"kt = tl.where(offs_n[None, :] < N, {kt}, 0.0)")   # a dot after a where
            kt = "kt"
        self.emit(f"s = tl.dot(q, {kt})")
        if scale is not None:
            self.emit(f"s = s * {scale}")
        for which, name, dtype in vecs:
            idx, m, bc = ("offs_m", "M", "[:, None]") if which == "row" else ("offs_n", "N", "[None, :]")
            self.emit(f"{name.lower()} = tl.load({name} + {idx}, mask={idx} < {m}, other=0.0)")
            op = self.pick("+", "-", "*")
            self.emit(f"s = s {op} {name.lower()}{bc}")
        conds = []
        if mask_kind in ("ragged", "both"):
            conds.append("(offs_n[None, :] < N)")
        if mask_kind in ("causal", "both"):
            conds.append("(offs_m[:, None] >= offs_n[None, :])")
        if conds:
            self.emit("valid = " + " & ".join(conds))
            self.emit("s = tl.where(valid, s, float(\"-inf\"))")
            fin = "tl.where(valid, s, 0.0)"
        else:
            fin = "s"
        self.emit("slab = (pid_hz * tl.cdiv(M, BLOCK_M) + pid_m) * tl.num_programs(2) + pid_n")
        rowsel = "(pid_hz * tl.num_programs(2) + pid_n) * M + offs_m"

        def red(fn, axis):
            src = fin if fn == "sum" else ("tl.where(valid, s, float(\"inf\"))" if fn == "min" and conds else "s")
            if axis is None:
                return self.pick(f"tl.{fn}({src})", f"tl.{fn}({src}, axis=None)")
            return f"tl.{fn}({src}, {axis})" if self.chance(0.6) else f"tl.{fn}({src}, axis={axis})"

        if "s" in outs:
            val = "s" if s_dt == "fp32" else f"s.to({TL[s_dt]})"
            self.emit("s_ptrs = S + ((pid_hz * M + offs_m[:, None]) * tl.num_programs(2) + pid_n) * BLOCK_N"
                      " + tl.arange(0, BLOCK_N)[None, :]")
            self.emit(f"tl.store(s_ptrs, {val}, mask=(offs_m < M)[:, None])")
        if "rowstat" in outs:
            for i, r in enumerate(rowstats):
                self.emit(f"tl.store(Row{i} + {rowsel}, {red(r, 1)}, mask=offs_m < M)")
        if "colstat" in outs:
            for i, c in enumerate(colstats):
                self.emit(f"tl.store(Col{i} + slab * BLOCK_N + tl.arange(0, BLOCK_N), {red(c, 0)})")
        if "full" in outs:
            self.emit(f"tl.store(Full + slab, {red(fulls[0], None)})")
        for axis, fn in args_at:
            # the score at the first extreme: the same in both however a near tie falls
            src = "tl.where(valid, s, float(\"inf\"))" if fn == "argmin" and conds else "s"
            idx, at = ("tl.arange(0, BLOCK_N)[None, :]", "[:, None]") if axis == 1 else \
                ("tl.arange(0, BLOCK_M)[:, None]", "[None, :]")
            self.emit(f"at_{axis} = tl.{fn}({src}, {axis})")
            self.emit(f"picked_{axis} = tl.sum(tl.where({idx} == at_{axis}{at}, {src}, 0.0), {axis})")
            if axis == 1:
                self.emit(f"tl.store(RowArg + {rowsel}, picked_1, mask=offs_m < M)")
            else:
                self.emit("tl.store(ColArg + slab * BLOCK_N + tl.arange(0, BLOCK_N), picked_0)")
        e = self.exp_fn()
        if "pv" in outs:
            # the row softmax (every row has a finite score: column 0 of the first block)
            self.emit("m = tl.max(s, 1)")
            self.emit(f"p = {e}(s - m[:, None])")
            self.emit("l = tl.sum(p, 1)")
            self.emit("v_base = " + self.base("V", "off_b", "off_kvh"))
            self.load_rows("v", "v_base", "offs_n", "offs_n < N", "stride_vm")
            if self.chance(0.5):
                self.emit(f"o = tl.dot(p.to({TL[self.dt_v]}), v) / l[:, None]")
            else:
                self.emit(f"o = tl.dot((p / l[:, None]).to({TL[self.dt_v]}), v)")
            val = "o" if o_dt == "fp32" else f"o.to({TL[o_dt]})"
            self.emit(f"tl.store(Out + ({rowsel})[:, None] * HEAD_DIM + offs_d[None, :], {val}, "
                      "mask=(offs_m < M)[:, None])")
        if "colpv" in outs:
            # the column softmax over the rows; masked scores get a finite floor so that a
            # column without a valid row stays finite
            if conds:
                self.emit("sc = tl.where(valid, s, -1.0e9)")
            else:
                self.emit("sc = s")
            self.emit("mc = tl.max(sc, 0)")
            self.emit(f"pc = {e}(sc - mc[None, :])")
            self.emit("pc = pc / tl.sum(pc, 0)[None, :]")
            tr = self.trans_form.format("pc")
            if self.chance(0.5):
                self.emit(f"oc = tl.dot({tr}.to({TL[self.dt]}), q)")
            else:
                self.emit(f"oc = tl.dot({self.trans_form.format(f'pc.to({TL[self.dt]})')}, q)")
            self.emit("tl.store(ColOut + (slab * BLOCK_N + tl.arange(0, BLOCK_N)[:, None]) * HEAD_DIM"
                      " + offs_d[None, :], oc)")
        return grid

    # ---- one key block, a loop over the queries -----------------------------------------

    def gen_kvmajor(self):
        P = self.P
        self.causal = self.chance(0.4) and self.bm % self.bn == 0
        M = self.ragged(self.bm, 4)
        N = self.ragged(self.bn, 3)
        if self.causal and N > M:
            N = self.rng.randint(1, M)
        loop = self.pick("range", "range", "while") if not self.causal else "range"
        early = self.chance(0.3)
        nb = cdiv(N, self.bn)
        grid = [nb + (self.rng.randint(1, 2) if early else 0), self.B * self.hq, 1]
        self.tensor("Q", self.hq, M, self.D, self.dt)
        if self.k_layout == "dn":
            self.tensor("K", self.hkv, self.D, N, self.dt)
        else:
            self.tensor("K", self.hkv, N, self.D, self.dt)
        self.tensor("DO", self.hq, M, self.D, self.dt_v)
        o_dt = self.pick("fp32", self.dt_v)
        self.tensor("Out", self.hq, N, self.D, o_dt, "out", TOL[("pv", self.dt_v if o_dt == "fp32" else o_dt)])
        want_lse = self.chance(0.5)
        if want_lse:
            P.ptr("Lse", "fp32", self.B * self.hq * N, "out", TOL[("soft", "fp32")])
        if loop == "while":
            P.ptr("Lens", "i32", self.B)
        P.int("M", M)
        P.int("N", N)
        if self.d_ragged:
            P.int("D", self.D)
        for t in ("Q", "K", "DO", "Out"):
            self.stride_params(t)
        scale = self.scale_expr()
        P.const("H", self.hq)
        if self.group > 1:
            P.const("GROUP", self.group)
        P.const("BLOCK_M", self.bm)
        P.const("BLOCK_N", self.bn)
        P.const("HEAD_DIM", self.hd)

        self.emit("pid_n = tl.program_id(0)")
        self.emit("pid_hz = tl.program_id(1)")
        if early:
            self.emit("if pid_n * BLOCK_N >= N:")
            self.emit("return", 2)
        self.emit("off_b = pid_hz // H")
        self.emit("off_h = pid_hz % H")
        self.emit("off_kvh = off_h // GROUP" if self.group > 1 else "off_kvh = off_h")
        self.emit("offs_m = tl.arange(0, BLOCK_M)")
        self.emit("cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)")
        self.emit("offs_d = tl.arange(0, HEAD_DIM)")
        self.emit("q_base = " + self.base("Q", "off_b", "off_h"))
        self.emit("do_base = " + self.base("DO", "off_b", "off_h"))
        self.emit("k_base = " + self.base("K", "off_b", "off_kvh"))
        kt = self.load_k("cols", "cols < N", 1)
        self.emit("m_j = tl.full([BLOCK_N], float(\"-inf\"), dtype=tl.float32)")
        self.emit("l_j = tl.zeros([BLOCK_N], dtype=tl.float32)")
        self.emit("acc = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)")
        end = "M"
        if loop == "while":
            mult = max(1, cdiv(M, 16))
            self.emit(f"q_len = tl.minimum(tl.abs(tl.load(Lens + off_b)) * {mult} + 1, M)")
            self.emit("start_m = 0")
            self.emit("while start_m < q_len:")
            end = "q_len"
        else:
            lo = "(pid_n * BLOCK_N // BLOCK_M) * BLOCK_M" if self.causal else "0"
            self.emit(f"for start_m in range({lo}, M, BLOCK_M):")
        d = 2
        self.emit("rows = start_m + offs_m", d)
        self.load_rows("q", "q_base", "rows", f"rows < {end}", "stride_qm", depth=d)
        if kt != "kt" and self.chance(0.25):
            # the scores transposed: (k @ q^T)^T
            self.emit(f"s = {self.trans_form.format('tl.dot(k, ' + self.trans_form.format('q') + ')')}", d)
        else:
            self.emit(f"s = tl.dot(q, {kt})", d)
        if scale is not None:
            self.emit(f"s = s * {scale}", d)
        if self.causal:
            # rows past M keep their (zero) scores in a column past N, so that every column
            # has a finite score in the first block it sees
            self.emit("valid = ((rows[:, None] >= cols[None, :]) & (rows[:, None] < M)) | (cols[None, :] >= N)", d)
        else:
            self.emit(f"valid = rows[:, None] < {end}", d)
        self.emit("s = tl.where(valid, s, float(\"-inf\"))", d)
        e = self.exp_fn()
        self.emit("m_new = tl.maximum(m_j, tl.max(s, 0))", d)
        self.emit(f"p = {e}(s - m_new[None, :])", d)
        self.emit(f"beta = {e}(m_j - m_new)", d)
        self.emit("l_j = l_j * beta + tl.sum(p, 0)", d)
        self.load_rows("do", "do_base", "rows", f"rows < {end}", "stride_dom", depth=d)
        if self.chance(0.5):
            pt = self.trans_form.format(f"p.to({TL[self.dt_v]})")
        else:
            pt = f"{self.trans_form.format('p')}.to({TL[self.dt_v]})"
        if self.chance(0.5):
            self.emit(f"acc = acc * beta[:, None] + tl.dot({pt}, do)", d)
        else:
            self.emit("acc = acc * beta[:, None]", d)
            self.emit(f"acc = tl.dot({pt}, do, acc)", d)
        self.emit("m_j = m_new", d)
        if loop == "while":
            self.emit("start_m += BLOCK_M", d)
        self.emit("acc = acc / l_j[:, None]")
        val = "acc" if o_dt == "fp32" else f"acc.to({TL[o_dt]})"
        self.emit("o_base = " + self.base("Out", "off_b", "off_h"))
        mask = self.both("(cols < N)[:, None]", self.dmask(0))
        self.emit(f"tl.store(o_base + cols[:, None] * stride_outm + offs_d[None, :], {val}, mask={mask})")
        if want_lse:
            log = "tl.math.log2" if self.use_exp2 else "tl.log"
            self.emit(f"tl.store(Lse + pid_hz * N + cols, m_j + {log}(l_j), mask=cols < N)")
        return grid

    # ---- the kernel ---------------------------------------------------------------------

    def generate(self):
        kind = self.pick("fwd", "fwd", "fwd", "block", "block", "kvmajor")
        self.choose_shapes(kind)
        self.name = f"attn{self.seed}"
        grid = {"fwd": self.gen_fwd, "block": self.gen_block, "kvmajor": self.gen_kvmajor}[kind]()
        src = [f"# Generated by tools/gen_kernel.py {self.seed} --family attn: a random attention-class "
               "kernel for differential testing.",
               "import triton", "import triton.language as tl", "", ""]
        for h in self.helpers:
            src += h.split("\n") + ["", ""]
        src += ["@triton.jit", f"def {self.name}({', '.join(self.P.all_decls())}):"] + self.lines
        params = self.P.all_meta()
        sig = ", ".join(p["sig"] for p in params)
        meta = {"seed": self.seed, "family": "attn", "variant": kind, "kernel": self.name,
                "source": f"{self.name}.py", "sig": sig, "num_warps": self.num_warps, "grid": grid,
                "params": params, "tilec_args": ["-k", self.name, "-s", sig, "-w", str(self.num_warps)]}
        # about one in five runs without a pipeline (num_stages 1, for both compilers): each
        # loop's dots then read the operands staged just before them one K step at a time
        # (dot_reload.c), beside the masks, row reductions and both passes over the keys.
        # Drawn apart, so that the other seeds keep their kernels.
        if random.Random(self.seed * 2750159 + 97).random() < 0.2:
            meta["num_stages"] = 1
            meta["tilec_args"] += ["--num-stages", "1"]
        return "\n".join(src) + "\n", meta


def generate(seed):
    return AttnGen(seed).generate()

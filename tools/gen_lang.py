"""The language family of tools/gen_kernel.py (--family lang): random kernels over the shape
operations, combine functions and sorting of Triton's language.

Every kernel loads one or two 1-D blocks of BLOCK elements (ragged n, masked, `other` filling
the tail), views them as a 2-D or 3-D tile with tl.reshape, and moves them through a random
chain of shape operations applied in lockstep to the data, to the element offsets and to the
mask: tl.trans / tl.permute / .T, tl.flip, tl.reshape into another factorisation, tl.ravel,
tl.split of a trailing pair and tl.join of the halves (in either order), tl.interleave,
tl.expand_dims with a broadcast back.  Because offsets and mask travel with the data, the
result can be stored at the offsets it ended up with: any element that moved to the wrong
place, or any lost element, shows as a difference.  Then, at random:

  out0     an element-wise expression of the moved data, stored where its offsets say;
  out1     tl.reduce along an axis (or all axes) with a @triton.jit combine function: a sum,
           a maximum, an argmax carried as a (value, index) tuple with ties broken to the
           lower index, or Welford's (mean, M2, count) merge;
  out2     tl.associative_scan along an axis, forward or reverse: a running sum, running
           maximum, xor (integers), or the (a, b) composition of a linear recurrence
           x = a * x + b, a tuple scan;
  out3     tl.sort of a 2-D view along its last axis, ascending or descending;
  out4     tl.gather along an axis with an index tile computed from the offsets.

Then, from a second random stream (so that everything above is what the seed gave before
these were added, and a seed that draws neither gives the same kernel as before), in about
four kernels of ten each:

  dot      a [DM, DK] block of rows (the rows past a ragged end masked, sometimes loaded
           through addresses cast with tl.pointer_type) put through zero to two of the tile
           operations (flip, sort, permute, split/join, interleave, gather, trans, cumsum,
           a combine scan, a reduction broadcast back), perhaps histogrammed, then a 2-D
           tl.dot ("ieee", with an accumulator, fp16 operands, tf32; M of 8 too) or a 3-D one whose batch is B
           joined with B reversed; its result put through the tile operations again and
           stored, reduced, argmaxed, top-k'ed or scanned;
  branch   (a third stream, three kernels in ten) a loop that branches on a scalar it
           loaded, with tile and scalar loads in the branches, a nested branch, an else
           branch, a reduction in a branch, and sometimes a branch that stores; the carried
           tile is then stored, and sometimes reshaped and reduced along its rows;
  loop     a `for` loop of a runtime trip count carrying an accumulator tile: each block
           loaded through masked pointers with a ragged end, a block pointer advanced in
           the loop, a tensor descriptor or tl.pointer_type addresses, put through a tile
           operation, and combined into the carried tile (a sum, a maximum, a tl.dot, the
           carried tile flipped or itself operated on first); stored through a masked
           pointer, a block pointer or a tensor descriptor;
  map      (a fourth stream, three kernels in ten) tl.map_elementwise with a jit function
           whose if/elif/else, early returns, `for` and per-element `while` branch per
           element, on a ragged 1-D or 2-D block, a tl.dot result, or in each step of a loop
           that sums the results; its arguments of one shape or a row and a column broadcast
           by the call; one or two results (a tuple) stored, the first perhaps through a row
           sum, tl.softmax (keep_dims) or a reshape.

Validity: every dimension is a power of two (Triton's rule for tiles) and tiles hold at most
64 elements per thread; reductions and scans see masked elements as the identity of their
combine (tl.where before them), so that the stored values do not depend on `other`; float
results that depend on the order of additions get a tolerance, exact ones (max, argmax,
integer sums, sorts, gathers, moves) none.
"""

import random

TL = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16", "i32": "tl.int32"}
TOL = {"fp32": (1e-4, 1e-5), "fp16": (1e-2, 2e-3), "bf16": (4e-2, 1e-2), "i32": (0, 0)}

COMBINES = '''

@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _max(a, b):
    return tl.maximum(a, b)


@triton.jit
def _xor(a, b):
    return a ^ b


@triton.jit
def _argmax(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def _welford(m1, s1, c1, m2, s2, c2):
    c = c1 + c2
    frac = tl.where(c == 0.0, 0.0, c2 / tl.where(c == 0.0, 1.0, c))
    d = m2 - m1
    return m1 + d * frac, s1 + s2 + d * d * c1 * frac, c


@triton.jit
def _linear(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2
'''


class Tile:
    """Data, offsets and mask moved together, with the tile's shape."""

    def __init__(self, names, shape):
        self.names, self.shape = names, list(shape)


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.lines = []
        self.n_tmp = 0
        self.n_unused = 0   # throwaway results: one name each, never loop-carried by accident
        self.extra_ins, self.extra_outs = [], []    # (name, dtype, numel[, tolerance key])
        self.defs = []      # module-level jit functions a section added (tl.map_elementwise's)
        self.not_interpreted = set()    # outputs Triton's interpreter cannot compute (difftest's referee)

    def pick(self, *options):
        return self.rng.choice(options)

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self, base):
        self.n_tmp += 1
        return f"{base}{self.n_tmp}"

    def unused(self):
        """A name for a result the kernel drops.  Not `_`: assigned before a loop and again
        in it with another shape, `_` would be a loop-carried value whose type changes,
        which Triton and tilec both reject."""
        self.n_unused += 1
        return f"unused{self.n_unused}"

    def emit(self, text):
        self.lines.append("    " + text)

    def apply(self, t, fmt, shape):
        """Apply one shape operation, written with {} for the operand, to every tile of t."""
        new = []
        for n in t.names:
            m = self.fresh(n.rstrip("0123456789") or n)
            self.emit(f"{m} = {fmt.format(n)}")
            new.append(m)
        return Tile(new, shape)

    def factor(self, total, rank):
        """A random shape of `rank` powers of two whose product is `total`."""
        dims = [1] * rank
        k = total.bit_length() - 1
        for _ in range(k):
            dims[self.rng.randrange(rank)] *= 2
        return dims

    # ---- shape operations -------------------------------------------------------------

    def move(self, t):
        r = len(t.shape)
        ops = ["trans", "flip", "reshape", "ravel", "split_join", "interleave", "expand"]
        op = self.rng.choice(ops)
        if op == "trans":
            if r == 2:
                return self.apply(t, self.pick("tl.trans({})", "{}.T", "tl.permute({}, (1, 0))"),
                                  t.shape[::-1])
            perm = list(range(r))
            self.rng.shuffle(perm)
            fmt = self.pick("tl.permute({{}}, {})", "tl.trans({{}}, {})").format(tuple(perm))
            return self.apply(t, fmt, [t.shape[p] for p in perm])
        if op == "flip":
            axis = self.rng.randrange(r)
            return self.apply(t, f"tl.flip({{}}, {axis})", t.shape)
        if op == "reshape":
            total = 1
            for d in t.shape:
                total *= d
            shape = self.factor(total, self.pick(2, 2, 3))
            return self.apply(t, f"tl.reshape({{}}, {tuple(shape)})", shape)
        if op == "ravel":
            total = 1
            for d in t.shape:
                total *= d
            t = self.apply(t, "tl.ravel({})", [total])
            shape = self.factor(total, 2)
            return self.apply(t, f"{{}}.reshape({shape[0]}, {shape[1]})", shape)
        if op == "split_join" and t.shape[-1] == 2:
            swap = self.chance(0.5)
            new = []
            for n in t.names:
                a, b = self.fresh("lo"), self.fresh("hi")
                self.emit(f"{a}, {b} = tl.split({n})")
                m = self.fresh(n.rstrip("0123456789"))
                self.emit(f"{m} = tl.join({b}, {a})" if swap else f"{m} = tl.join({a}, {b})")
                new.append(m)
            return Tile(new, t.shape)
        if op == "interleave" and t.shape[-1] == 2 and len(t.shape) >= 2:
            # split the trailing pair and interleave the halves: the same order back, with the
            # last two dimensions merged
            new = []
            for n in t.names:
                a, b = self.fresh("lo"), self.fresh("hi")
                self.emit(f"{a}, {b} = tl.split({n})")
                m = self.fresh(n.rstrip("0123456789"))
                self.emit(f"{m} = tl.interleave({a}, {b})")
                new.append(m)
            return Tile(new, t.shape[:-2] + [t.shape[-2] * 2])
        if op == "expand" and r <= 2:
            axis = self.rng.randrange(r + 1)
            shape = t.shape[:axis] + [1] + t.shape[axis:]
            return self.apply(t, f"tl.expand_dims({{}}, {axis})", shape)
        # the reshape that always applies: a trailing pair for the next split
        total = 1
        for d in t.shape:
            total *= d
        shape = self.factor(total // 2, self.pick(1, 2)) + [2]
        return self.apply(t, f"tl.reshape({{}}, {tuple(shape)})", shape)

    # ---- the kernel -------------------------------------------------------------------

    def generate(self):
        self.name = f"lang{self.seed}"
        self.num_warps = self.pick(1, 2, 4, 4, 8)
        block = self.pick(64, 128, 256, 512, 1024, 2048)
        while block > 64 * 32 * self.num_warps:
            block //= 2
        n = self.rng.randint(1, 3 * block + 5)
        grid = -(-n // block)
        dt = self.pick("fp32", "fp32", "fp16", "bf16", "i32", "i32")
        two = self.chance(0.4)
        other = "0" if dt == "i32" else "0.0"
        self.emit("pid = tl.program_id(0)")
        self.emit("offs = pid * BLOCK + tl.arange(0, BLOCK)")
        self.emit("mask = offs < n")
        self.emit(f"x = tl.load(in0_ptr + offs, mask=mask, other={other})")
        if two:
            self.emit(f"y = tl.load(in1_ptr + offs, mask=mask, other={other})")
        names = ["x", "offs", "mask"] + (["y"] if two else [])
        shape = self.factor(block, self.pick(2, 2, 3))
        t = self.apply(Tile(names, [block]), f"tl.reshape({{}}, {tuple(shape)})", shape)
        for _ in range(self.rng.randint(1, 4)):
            t = self.move(t)
        x, o, m = t.names[0], t.names[1], t.names[2]
        y = t.names[3] if two else None
        val = x
        if y:
            val = self.pick(f"{x} + {y}", f"tl.maximum({x}, {y})", f"{x} - {y}")
        self.emit(f"v = {val}")
        rank = len(t.shape)
        outs = []     # (name, dtype, numel, tolerance key)
        choices = ["store", "reduce", "scan", "sort", "gather"]
        chosen = [c for c in choices if self.chance(0.5)] or ["store"]
        acc = "fp32" if dt != "i32" else "i32"
        vacc = "v.to(tl.float32)" if dt in ("fp16", "bf16") else "v"
        ident_add = "0.0" if acc == "fp32" else "0"
        low = "float('-inf')" if acc == "fp32" else "-1000000"
        if "store" in chosen:
            outs.append(("out0_ptr", dt, n, dt))
            self.emit(f"tl.store(out0_ptr + {o}, v, mask={m})")
        if "reduce" in chosen:
            axis = self.pick(None, *range(rank))
            if axis is not None and all(d == 1 for i, d in enumerate(t.shape) if i != axis):
                axis = None     # the result would be a 1-element tile, not a scalar
            kind = self.pick("sum", "max", "argmax", "welford") if acc == "fp32" else self.pick("sum", "max", "argmax")
            count, where = self.reduced(t.shape, axis)
            idx = f"pid * {count} + {where}" if where != "0" else "pid"
            out_shape_numel = grid * count
            if kind in ("sum", "max"):
                fn, ident = ("_add", ident_add) if kind == "sum" else ("_max", low)
                self.emit(f"r = tl.reduce(tl.where({m}, {vacc}, {ident}), {axis}, {fn})")
                self.emit(f"tl.store(out1_ptr + {idx}, r)")
                outs.append(("out1_ptr", acc, out_shape_numel, acc if kind == "sum" else "i32"))
            elif kind == "argmax":
                self.emit(f"rv, ri = tl.reduce((tl.where({m}, {vacc}, {low}), {o}), {axis}, _argmax)")
                self.emit(f"tl.store(out1_ptr + {idx}, ri)")
                outs.append(("out1_ptr", "i32", out_shape_numel, "i32"))
            else:
                self.emit(f"w = tl.where({m}, 1.0, 0.0)")
                self.emit(f"mean, m2, cnt = tl.reduce((tl.where({m}, {vacc}, 0.0), tl.zeros_like(w), w), "
                          f"{axis}, _welford)")
                self.emit(f"tl.store(out1_ptr + {idx}, mean + m2 / tl.maximum(cnt, 1.0))")
                outs.append(("out1_ptr", "fp32", out_shape_numel, "fp32w"))
        if "scan" in chosen:
            axis = self.rng.randrange(rank)
            if t.shape[axis] == 1:
                axis = max(range(rank), key=lambda d: t.shape[d])
            rev = self.pick(False, False, True)
            kinds = ["sum", "max", "linear"] if acc == "fp32" else ["sum", "max", "xor"]
            kind = self.rng.choice(kinds)
            if kind == "linear":
                self.emit(f"a = tl.where({m}, 0.5 + 0.25 * tl.sin({vacc}), 1.0)")
                self.emit(f"b = tl.where({m}, {vacc}, 0.0)")
                self.emit(f"sa, sb = tl.associative_scan((a, b), {axis}, _linear, reverse={rev})")
                self.emit(f"tl.store(out2_ptr + {o}, sb, mask={m})")
                outs.append(("out2_ptr", "fp32", n, "fp32s"))
            else:
                fn = {"sum": "_add", "max": "_max", "xor": "_xor"}[kind]
                ident = {"sum": ident_add, "max": low, "xor": "0"}[kind]
                self.emit(f"s = tl.associative_scan(tl.where({m}, {vacc}, {ident}), {axis}, {fn}, reverse={rev})")
                self.emit(f"tl.store(out2_ptr + {o}, s, mask={m})")
                outs.append(("out2_ptr", acc, n, "fp32s" if kind == "sum" and acc == "fp32" else "i32"))
        if "sort" in chosen:
            total = block
            cols = self.pick(*[c for c in (16, 32, 64, 128, 256) if c <= total])
            high = "float('inf')" if dt != "i32" else "1000000"
            self.emit(f"vs = tl.reshape(tl.where({m}, v, {high}), ({total // cols}, {cols}))")
            self.emit(f"os = tl.reshape({o}, ({total // cols}, {cols}))")
            self.emit(f"ms = tl.reshape({m}, ({total // cols}, {cols}))")
            desc = self.pick(False, True)
            self.emit(f"tl.store(out3_ptr + os, tl.sort(vs, dim=1, descending={desc}), mask=ms)")
            outs.append(("out3_ptr", dt, n, "i32"))
        if "gather" in chosen:
            axis = self.rng.randrange(rank)
            size = t.shape[axis]
            self.emit(f"gi = ({o} * 7 + 3) % {size}")
            self.emit(f"tl.store(out4_ptr + {o}, tl.gather(v, gi, {axis}), mask={m})")
            outs.append(("out4_ptr", dt, n, "i32"))
        Extras(self, random.Random(self.seed * 1000003 + 21), n, block, grid).generate()
        branches = random.Random(self.seed * 1000003 + 37)     # a third stream: earlier draws stay
        if branches.random() < 0.3:
            Extras(self, branches, n, block, grid).branch_section()
        mapped = random.Random(self.seed * 1000003 + 53)        # a fourth stream
        if mapped.random() < 0.3:
            Extras(self, mapped, n, block, grid).map_section()
        return self.finish(dt, two, n, block, grid, outs)

    def reduced(self, shape, axis):
        """(elements per program, index expression) of a reduction's result."""
        if axis is None:
            return 1, "0"
        rest = [d for i, d in enumerate(shape) if i != axis]
        count = 1
        for d in rest:
            count *= d
        if count == 1:
            return 1, "0"
        # the result's own row-major position: a ravel of an arange reshaped like it
        shape_txt = tuple(rest) if len(rest) > 1 else rest[0]
        self.emit(f"ri_pos = tl.reshape(tl.arange(0, {count}), {shape_txt})" if len(rest) > 1
                  else f"ri_pos = tl.arange(0, {count})")
        return count, "ri_pos"

    def finish(self, dt, two, n, block, grid, outs):
        params, meta = [], []
        for i in range(2 if two else 1):
            params.append(f"in{i}_ptr")
            meta.append({"name": f"in{i}_ptr", "kind": "in", "dtype": dt, "numel": n, "sig": f"*{dt}:16"})
        for name, d, numel in self.extra_ins:
            params.append(name)
            meta.append({"name": name, "kind": "in", "dtype": d, "numel": numel, "sig": f"*{d}:16"})
        for name, d, numel, tol in outs + self.extra_outs:
            params.append(name)
            rtol, atol = {"i32": (0, 0), "fp32w": (1e-3, 1e-4), "fp32s": (1e-3, 1e-4), "dot": (1e-3, 1e-4),
                          "dot16": (2e-2, 5e-3)}.get(tol, TOL.get(tol, (0, 0)))
            if d != "i32" and tol == "i32":
                rtol, atol = 0, 0
            meta.append({"name": name, "kind": "out", "dtype": d, "numel": numel, "sig": f"*{d}:16",
                         "rtol": rtol, "atol": atol})
            if name in self.not_interpreted:
                meta[-1]["interpreter"] = False
        params.append("n")
        # 3 in 10: n a constant of the signature, so that masks built from aranges after
        # reshapes and permutes (br < n % BR + 1) are decided per register in those layouts
        # (tir_cmp_decided); from its own stream, so that other kernels keep their text
        fixed = random.Random(self.seed * 104729 + 17).random() < 0.3
        meta.append({"name": "n", "kind": "int", "dtype": "i32", "value": n, "sig": str(n) if fixed else "i32"})
        params.append("BLOCK: tl.constexpr")
        meta.append({"name": "BLOCK", "kind": "const", "value": block, "sig": str(block)})
        src = ["# Generated by tools/gen_kernel.py %d --family lang: a random kernel for differential testing."
               % self.seed, "import triton", "import triton.language as tl"] + COMBINES.split("\n") + self.defs + [
               "", "@triton.jit", f"def {self.name}({', '.join(params)}):"] + self.lines
        sig = ", ".join(p["sig"] for p in meta)
        desc = {"seed": self.seed, "family": "lang", "kernel": self.name, "source": f"{self.name}.py",
                "sig": sig, "num_warps": self.num_warps, "grid": [grid, 1, 1], "params": meta,
                "tilec_args": ["-k", self.name, "-s", sig, "-w", str(self.num_warps)]}
        return "\n".join(src) + "\n", desc


def generate(seed):
    return Gen(seed).generate()


class Extras:
    """Sections appended to a kernel from a second random stream (so that the sections above
    are those the seed always gave): the same tile operations in combination with a 2-D or
    3-D tl.dot feeding them or fed by them, and with a `for` loop carrying tiles, its blocks
    loaded through masked pointers with a ragged end, a block pointer, a tensor descriptor or
    addresses cast with tl.pointer_type.  Every section has its own inputs and outputs,
    indexed by the program id, fp32 throughout (fp16 operands for some dots)."""

    def __init__(self, g, rng, n, block, grid):
        self.g, self.rng, self.n, self.block, self.grid = g, rng, n, block, grid

    def pick(self, *options):
        return self.rng.choice(options)

    def emit(self, text):
        self.g.emit(text)

    def unused(self):
        return self.g.unused()

    def new_in(self, base, numel):
        name = f"{base}_ptr"
        self.g.extra_ins.append((name, "fp32", numel))
        return name

    def new_out(self, base, dtype, numel, tol):
        name = f"{base}_ptr"
        self.g.extra_outs.append((name, dtype, numel, tol))
        return name

    def generate(self):
        if self.rng.random() < 0.4:
            self.dot_section()
        if self.rng.random() < 0.4:
            self.loop_section()

    # ---- same-shape operations on an R x C fp32 tile -----------------------------------

    def tile_op(self, t, R, C, exact_only=False):
        """t replaced by an operation of the language on it, the shape kept; returns whether
        the result is exact (no rounding that another order of operations would change)."""
        ops = ["flip0", "flip1", "sort", "permute", "split_join", "interleave", "gather", "trans"]
        if not exact_only:
            ops += ["cumsum", "scan_max", "linear", "center"]
        op = self.rng.choice(ops)
        if op in ("flip0", "flip1"):
            self.emit(f"{t} = tl.flip({t}, {op[-1]})")
        elif op == "sort":
            self.emit(f"{t} = tl.sort({t}, dim=1, descending={self.pick(False, True)})")
        elif op == "permute":
            self.emit(f"{t} = tl.reshape(tl.permute(tl.reshape({t}, ({R}, {C // 2}, 2)), (0, 2, 1)), ({R}, {C}))")
        elif op == "split_join":
            self.emit(f"{t}_lo, {t}_hi = tl.split(tl.reshape({t}, ({R}, {C // 2}, 2)))")
            self.emit(f"{t} = tl.reshape(tl.join({t}_hi, {t}_lo), ({R}, {C}))")
        elif op == "interleave":
            self.emit(f"{t}_lo, {t}_hi = tl.split(tl.reshape({t}, ({R}, {C // 2}, 2)))")
            self.emit(f"{t} = tl.interleave({t}_hi, {t}_lo)")
        elif op == "gather":
            self.emit(f"{t}_gi = (tl.arange(0, {R})[:, None] * 5 + tl.arange(0, {C})[None, :] * 3 + 1) % {C}")
            self.emit(f"{t} = tl.gather({t}, {t}_gi, 1)")
        elif op == "trans":
            self.emit(f"{t} = tl.reshape(tl.trans({t}), ({R}, {C}))")
        elif op == "cumsum":
            self.emit(f"{t} = tl.cumsum({t}, {self.pick(0, 1)}, reverse={self.pick(False, True)})")
        elif op == "scan_max":
            self.emit(f"{t} = tl.associative_scan({t}, {self.pick(0, 1)}, _max, reverse={self.pick(False, True)})")
        elif op == "linear":
            self.emit(f"{self.unused()}, {t} = tl.associative_scan((0.5 + 0.25 * tl.sin({t}), {t}), {self.pick(0, 1)}, "
                      "_linear)")
        else:
            self.emit(f"{t} = {t} - tl.reduce({t}, 1, _max)[:, None]")
        return op not in ("cumsum", "linear")

    # ---- a dot fed by the tile operations and feeding them -----------------------------

    def dot_section(self):
        # M of 8: below a tensor-core tile (Triton pads it onto one, tilec multiply-adds)
        DM, DK, DN = self.pick(8, 16, 32, 64), self.pick(16, 32), self.pick(16, 32)
        grid, block = self.grid, self.block
        xa = self.new_in("da", grid * DM * DK)
        xb = self.new_in("db", DK * DN)
        self.emit(f"# a tl.dot fed by the tile operations and feeding them (rows past the end masked)")
        self.emit(f"dm = pid * {DM} + tl.arange(0, {DM})")
        self.emit(f"dk = tl.arange(0, {DK})")
        self.emit(f"dn = tl.arange(0, {DN})")
        self.emit(f"drow = dm < (n * {DM} + {block - 1}) // {block}")
        if self.rng.random() < 0.25:
            self.emit(f"da_addr = (({xa} + dm[:, None] * {DK}) + dk[None, :]).to(tl.int64)")
            self.emit(f"da = tl.load(da_addr.to(tl.pointer_type(tl.float32)), mask=drow[:, None], other=0.0)")
        else:
            self.emit(f"da = tl.load({xa} + dm[:, None] * {DK} + dk[None, :], mask=drow[:, None], other=0.0)")
        self.emit(f"db = tl.load({xb} + dk[:, None] * {DN} + dn[None, :])")
        exact = True
        for _ in range(self.rng.randint(0, 2)):
            exact &= self.tile_op("da", DM, DK)
        if self.rng.random() < 0.3:
            self.tile_op("db", DK, DN, exact_only=True)
        if exact and self.rng.random() < 0.3:
            # a histogram of the (exact) operand: bins of its scaled magnitude, rows masked
            nb = self.pick(4, 8, 16)
            ho = self.new_out("dhist", "i32", grid * nb, "i32")
            self.emit(f"dh_val = tl.reshape((tl.abs(da) * 4.0).to(tl.int32) % {nb}, ({DM * DK},))")
            self.emit(f"dh_mask = tl.reshape(drow[:, None] & (dk[None, :] >= 0), ({DM * DK},))")
            self.emit(f"tl.store({ho} + pid * {nb} + tl.arange(0, {nb}), tl.histogram(dh_val, {nb}, mask=dh_mask))")
        kind = self.pick("ieee", "ieee", "acc", "fp16", "tf32", "batched")
        tol = "dot"
        if kind == "ieee":
            self.emit(f"dc = tl.dot(da, db, input_precision=\"ieee\")")
        elif kind == "acc":
            self.emit(f"dc = tl.dot(da, db, acc=tl.full(({DM}, {DN}), 0.5, tl.float32), input_precision=\"ieee\")")
        elif kind == "fp16":
            self.emit(f"dc = tl.dot(da.to(tl.float16), db.to(tl.float16))")
            tol = "dot16"
        elif kind == "tf32":
            self.emit(f"dc = tl.dot(da, db)  # input_precision \"tf32\", the default")
            tol = "dot16"
        else:
            # [2, DM/2, DK] @ [2, DK, DN]: the batch of B is db and db reversed along N
            self.emit(f"da3 = tl.reshape(da, (2, {DM // 2}, {DK}))")
            self.emit(f"db3 = tl.permute(tl.join(db, tl.flip(db, 1)), (2, 0, 1))")
            self.emit(f"dc = tl.reshape(tl.dot(da3, db3, input_precision=\"ieee\"), ({DM}, {DN}))")
        for _ in range(self.rng.randint(0, 2)):
            self.tile_op("dc", DM, DN)
        post = self.pick("store", "store", "reduce", "argmax", "topk", "scan")
        if post == "store":
            o = self.new_out("dc", "fp32", grid * DM * DN, tol)
            self.emit(f"tl.store({o} + dm[:, None] * {DN} + dn[None, :], dc, mask=drow[:, None])")
        elif post == "reduce":
            o = self.new_out("dsum", "fp32", grid * DM, tol)
            self.emit(f"tl.store({o} + dm, tl.reduce(dc, 1, _add), mask=drow)")
        elif post == "argmax":
            o = self.new_out("dargmax", "i32", grid * DM, "i32")
            self.emit(f"{self.unused()}, dbest = tl.reduce((dc, tl.broadcast_to(dn[None, :], ({DM}, {DN}))), 1, _argmax)")
            self.emit(f"tl.store({o} + dm, dbest, mask=drow)")
        elif post == "topk":
            k = self.pick(2, 4, 8)
            o = self.new_out("dtopk", "fp32", grid * DM * k, tol)
            self.emit(f"tl.store({o} + dm[:, None] * {k} + tl.arange(0, {k})[None, :], tl.topk(dc, {k}, dim=1), "
                      f"mask=drow[:, None])")
        else:
            o = self.new_out("dscan", "fp32", grid * DM * DN, "fp32s" if tol == "dot" else tol)
            self.emit(f"dsc = tl.associative_scan(dc, 1, _add, reverse={self.pick(False, True)})")
            self.emit(f"tl.store({o} + dm[:, None] * {DN} + dn[None, :], dsc, mask=drow[:, None])")

    # ---- a loop carrying tiles -----------------------------------------------------------

    def branch_section(self):
        """A loop whose body branches on a scalar it loaded: tile and scalar loads (masked,
        ragged, or not) in the taken branch, in the else branch or in a branch nested in it,
        a carried tile and a carried scalar.  Such branches run as straight code with the
        loads masked by the condition (tir_if_convert), unless a branch also stores."""
        BR, IT = self.pick(32, 64, 128), 4      # iterations at most: n % 3 + 2
        grid = self.grid
        xw = self.new_in("bw", grid * IT * 2)
        xa = self.new_in("ba", grid * IT * BR)
        xb = self.new_in("bb", grid * IT * BR)
        self.emit("# a loop branching on loaded scalars, loads inside the branches")
        self.emit(f"br = tl.arange(0, {BR})")
        self.emit(f"bacc = tl.zeros(({BR},), dtype=tl.float32)")
        self.emit("btot = 0.0")
        self.emit("for bs in range(0, n % 3 + 2):")
        ind = "    "
        self.emit(f"{ind}bstep = pid * {IT} + bs")
        self.emit(f"{ind}bwv = tl.load({xw} + bstep * 2)")
        self.emit(f"{ind}boff = bstep * {BR} + br")
        self.emit(f"{ind}bok = br < n % {BR} + 1")
        self.emit(f"{ind}if {self.pick('bwv > 0', 'bwv < 0.5', 'bwv * bwv > 0.25')}:")
        then = [f"bacc += bwv * tl.load({xa} + boff, mask=bok, other=0.0)",
                f"bacc = tl.maximum(bacc, tl.load({xa} + boff))",
                f"btot += tl.load({xw} + bstep * 2 + 1)",
                # a reduction keeps its branch (it exchanges through shared memory)
                f"btot += tl.sum(tl.load({xb} + boff, mask=bok, other=0.0))"]
        for line in self.rng.sample(then, self.rng.choice((1, 2))):
            self.emit(f"{ind}    {line}")
        if self.rng.random() < 0.4:
            self.emit(f"{ind}    if bwv > 1.0:")
            self.emit(f"{ind}        bacc += tl.load({xb} + boff, mask=bok, other=2.0)")
        if self.rng.random() < 0.6:
            self.emit(f"{ind}else:")
            self.emit(f"{ind}    " + self.pick(f"bacc -= tl.load({xb} + boff, mask=bok, other=1.0)",
                                                f"btot -= tl.load({xw} + bstep * 2 + 1)", "btot -= bwv"))
        if self.rng.random() < 0.3:           # a branch that stores stays a branch
            o2 = self.new_out("bside", "fp32", grid * IT * BR, "fp32s")
            self.emit(f"{ind}if bwv > 0.75:")
            self.emit(f"{ind}    tl.store({o2} + boff, bacc)")
        o = self.new_out("bacc", "fp32", grid * BR, "fp32s")
        self.emit(f"tl.store({o} + pid * {BR} + br, bacc + btot)")
        if self.rng.random() < 0.5:           # the selected tile through a reshape and a reduction
            rows = BR // 16
            o3 = self.new_out("brow", "fp32", grid * rows, "fp32s")
            self.emit(f"tl.store({o3} + pid * {rows} + tl.arange(0, {rows}), "
                      f"tl.{self.pick('sum', 'max')}(tl.reshape(bacc, ({rows}, 16)), 1))")

    # ---- a jit function run on each element (tl.map_elementwise) -------------------------

    MAP_FNS = {
        # name: (source, arguments, results: dtype and tolerance key each)
        "_m_selu": ("""
@triton.jit
def _m_selu(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)
""", ["x", "alpha"], [("fp32", "fp32w")]),
        "_m_piece": ("""
@triton.jit
def _m_piece(x, y):
    sign = (x > y).to(tl.int32) - (x < y).to(tl.int32)
    if x < y:
        return sign, x * 2.0
    elif x == y:
        return sign, x + y
    return sign, y - x
""", ["x", "y"], [("i32", "i32"), ("fp32", "fp32")]),
        "_m_halvings": ("""
@triton.jit
def _m_halvings(v):
    k = v * 0
    while v > 1:
        v = v // 2
        k += 1
    return k
""", ["v"], [("i32", "i32")]),
        "_m_clamp": ("""
@triton.jit
def _m_clamp(x, lo, hi):
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x
""", ["x", "lo", "hi"], [("fp32", "fp32")]),
        "_m_steps": ("""
@triton.jit
def _m_steps(x, y):
    acc = x * 0.0
    for i in range(4):
        if x > i * 0.5 - 1.0:
            acc += x * y
        else:
            acc -= y
    return acc
""", ["x", "y"], [("fp32", "fp32w")]),
    }

    def map_section(self):
        """tl.map_elementwise with a jit function whose ifs, elifs, early returns and loops
        branch per element, on a ragged block (its masked elements are computed and not
        stored), with arguments of one shape or broadcast from a row and a column.  Its
        operand is a loaded block, a tl.dot result, or a block it maps in each step of a loop
        that sums the results; its first result may go on through a row sum, tl.softmax or a
        reshape before it is stored."""
        two_d = self.rng.random() < 0.5
        source = self.pick("load", "dot", "loop") if two_d else "load"
        # a dot's rounding or a loop's sum changes an operand slightly: only functions that
        # are continuous in it, so that the results stay within a tolerance
        names = sorted(self.MAP_FNS) if source == "load" else ["_m_clamp", "_m_selu"]
        name = self.pick(*names)
        src, args, res = self.MAP_FNS[name]
        if src not in self.g.defs:
            self.g.defs.extend(src.split("\n"))
        R, C = (self.pick(8, 16), self.pick(16, 32)) if two_d else (1, self.pick(64, 128, 256))
        grid = self.grid
        xa = self.new_in("ma", grid * R * C)
        xb = self.new_in("mb", grid * R * C)
        # Triton 3.6's interpreter cannot run tl.map_elementwise: difftest's referee drops the
        # lines between these markers and leaves the section's outputs to the comparison
        self.emit(f"# -- map_elementwise section: {name} run on each element of a {source}")
        if two_d:
            self.emit(f"mr = tl.arange(0, {R})[:, None]")
            self.emit(f"mc = tl.arange(0, {C})[None, :]")
            self.emit(f"mo = pid * {R * C} + mr * {C} + mc")
        else:
            self.emit(f"mo = pid * {C} + tl.arange(0, {C})")
        self.emit(f"mok = mo < pid * {R * C} + n % {R * C} + 1")
        self.emit(f"mx = tl.load({xa} + mo, mask=mok, other=0.0)")
        self.emit(f"my = tl.load({xb} + mo, mask=mok, other=1.0)")
        if source == "dot":       # the operand a product: rows past the ragged end masked
            xd = self.new_in("mw", 16 * C)
            self.emit(f"mk = tl.arange(0, 16)")
            self.emit(f"ma = tl.load({xa} + pid * {R * C} + mr * {C} + mk[None, :], mask=mr < n % {R} + 1, other=0.0)")
            self.emit(f"mw = tl.load({xd} + mk[:, None] * {C} + mc)")
            self.emit(f"mx = tl.dot(ma, mw, input_precision=\"ieee\") * 0.25")
        vals = {"x": "mx", "y": "my", "alpha": "my * 0.5 + 1.0", "v": "(tl.abs(mx) * 100.0).to(tl.int32)"}
        if two_d and self.rng.random() < 0.6:     # a column and a row, broadcast by map_elementwise
            vals["lo"] = "mr.to(tl.float32) * -0.1"
            vals["hi"] = "(mc * 2).to(tl.float32) * 0.05"
            vals["y"] = self.pick("my", "tl.max(my, 1)[:, None]", "tl.sum(my, 0)[None, :]")
        else:
            vals["lo"] = "my * -0.5"
            vals["hi"] = "my * 0.5 + 0.25"
        outs = [f"m{self.g.fresh('r')}" for _ in res]
        call = f"tl.map_elementwise({name}, {', '.join(vals[a] for a in args)})"
        if source == "loop":      # mapped in each step, the results summed (one fp32 result)
            self.emit(f"{outs[0]} = tl.zeros(({R}, {C}), dtype=tl.float32)")
            self.emit("for mit in range(0, n % 3 + 2):")
            self.emit(f"    mx = mx * 0.75 + my * 0.25")
            self.emit(f"    {outs[0]} += {call}")
        else:
            self.emit(f"{', '.join(outs)} = {call}")
        for o, (d, tol) in zip(outs, res):
            p = self.new_out(f"mout{o}", d, grid * R * C, tol)
            self.g.not_interpreted.add(p)
            self.emit(f"tl.store({p} + mo, {o}, mask=mok)")
        o, (d, _) = outs[0], res[0]
        after = self.pick("none", "sum", "softmax", "reshape") if d == "fp32" else "none"
        if after == "sum":        # the mapped tile reduced by rows (masked elements as 0)
            n_out = grid * R
            p = self.new_out(f"msum{o}", "fp32", n_out, "fp32s")
            if two_d:
                self.emit(f"tl.store({p} + pid * {R} + tl.arange(0, {R}), tl.sum(tl.where(mok, {o}, 0.0), 1))")
            else:
                self.emit(f"tl.store({p} + pid, tl.sum(tl.where(mok, {o}, 0.0)))")
            self.g.not_interpreted.add(p)
        elif after == "softmax":  # along the rows, masked elements out of it
            p = self.new_out(f"msm{o}", "fp32", grid * R * C, "fp32s")
            keep = ", keep_dims=True" if two_d else ""
            self.emit(f"tl.store({p} + mo, tl.softmax(tl.where(mok, {o}, float(\"-inf\")), {1 if two_d else 0}{keep}), "
                      f"mask=mok)")
            self.g.not_interpreted.add(p)
        elif after == "reshape" and two_d:   # flattened, as is its offset and mask
            p = self.new_out(f"mflat{o}", "fp32", grid * R * C, "fp32s")
            self.emit(f"tl.store({p} + tl.reshape(mo, ({R * C},)), tl.reshape({o} * 2.0, ({R * C},)), "
                      f"mask=tl.reshape(mok, ({R * C},)))")
            self.g.not_interpreted.add(p)
        self.emit("# -- end of the map_elementwise section")

    def loop_section(self):
        LR, LC = self.pick(16, 32, 64), self.pick(16, 32)
        IT = 4      # iterations at most: n % 3 + 2
        grid, block = self.grid, self.block
        xl = self.new_in("lp", grid * IT * LR * LC)
        self.emit(f"# a loop carrying tiles through the tile operations; its blocks end raggedly")
        self.emit(f"lr = tl.arange(0, {LR})")
        self.emit(f"lc = tl.arange(0, {LC})")
        self.emit(f"lrows = (n * {IT * LR}) // {block}")
        src = self.pick("ptr", "ptr", "blockptr", "desc", "pointer_type")
        comb = self.pick("add", "max", "dot", "flip_add", "op_add")
        if comb == "dot" and LR < 16:
            comb = "add"
        if comb == "dot":
            xw = self.new_in("lw", LC * LC)
            self.emit(f"lw = tl.load({xw} + lc[:, None] * {LC} + lc[None, :])")
        if src == "blockptr":
            self.emit(f"lbp = tl.make_block_ptr({xl}, shape=(lrows, {LC}), strides=({LC}, 1), "
                      f"offsets=(pid * {IT * LR}, 0), block_shape=({LR}, {LC}), order=(1, 0))")
        elif src == "desc":
            self.emit(f"ldesc = tl.make_tensor_descriptor({xl}, shape=[lrows, {LC}], strides=[{LC}, 1], "
                      f"block_shape=[{LR}, {LC}])")
        self.emit(f"lacc = tl.zeros(({LR}, {LC}), dtype=tl.float32)")
        self.emit(f"for it in range(0, n % 3 + 2):")
        ind = "    "
        self.emit(f"{ind}lrow = (pid * {IT} + it) * {LR} + lr")
        if src == "blockptr":
            self.emit(f"{ind}lt = tl.load(lbp, boundary_check=(0,), padding_option=\"zero\")")
            self.emit(f"{ind}lbp = tl.advance(lbp, ({LR}, 0))")
        elif src == "desc":
            self.emit(f"{ind}lt = ldesc.load([(pid * {IT} + it) * {LR}, 0])")
        elif src == "pointer_type":
            self.emit(f"{ind}laddr = ({xl} + lrow[:, None] * {LC} + lc[None, :]).to(tl.int64)")
            self.emit(f"{ind}lt = tl.load(laddr.to(tl.pointer_type(tl.float32)), mask=lrow[:, None] < lrows, other=0.0)")
        else:
            self.emit(f"{ind}lt = tl.load({xl} + lrow[:, None] * {LC} + lc[None, :], mask=lrow[:, None] < lrows, "
                      f"other=0.0)")
        lines = len(self.g.lines)
        self.tile_op("lt", LR, LC)
        if comb == "op_add":
            self.tile_op("lacc", LR, LC)
        for i in range(lines, len(self.g.lines)):      # into the loop's body
            self.g.lines[i] = "    " + self.g.lines[i]
        if comb == "add":
            self.emit(f"{ind}lacc = lacc + lt")
        elif comb == "max":
            self.emit(f"{ind}lacc = tl.maximum(lacc, lt)")
        elif comb == "dot":
            self.emit(f"{ind}lacc = tl.dot(lt, lw, lacc, input_precision=\"ieee\")")
        elif comb == "flip_add":
            self.emit(f"{ind}lacc = tl.flip(lacc, {self.pick(0, 1)}) + lt")
        else:
            self.emit(f"{ind}lacc = lacc + lt")
        o = self.new_out("lacc", "fp32", grid * LR * LC, "fp32s")
        dst = self.pick("ptr", "ptr", "blockptr", "desc")
        if dst == "blockptr":
            self.emit(f"lobp = tl.make_block_ptr({o}, shape=(lrows // {IT}, {LC}), strides=({LC}, 1), "
                      f"offsets=(pid * {LR}, 0), block_shape=({LR}, {LC}), order=(1, 0))")
            self.emit(f"tl.store(lobp, lacc, boundary_check=(0, 1))")
        elif dst == "desc":
            self.emit(f"lodesc = tl.make_tensor_descriptor({o}, shape=[lrows // {IT}, {LC}], strides=[{LC}, 1], "
                      f"block_shape=[{LR}, {LC}])")
            self.emit(f"lodesc.store([pid * {LR}, 0], lacc)")
        else:
            self.emit(f"lorow = pid * {LR} + lr")
            self.emit(f"tl.store({o} + lorow[:, None] * {LC} + lc[None, :], lacc, mask=lorow[:, None] < lrows // {IT})")

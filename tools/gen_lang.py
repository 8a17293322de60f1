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

    def pick(self, *options):
        return self.rng.choice(options)

    def chance(self, p):
        return self.rng.random() < p

    def fresh(self, base):
        self.n_tmp += 1
        return f"{base}{self.n_tmp}"

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
        for name, d, numel, tol in outs:
            params.append(name)
            rtol, atol = {"i32": (0, 0), "fp32w": (1e-3, 1e-4), "fp32s": (1e-3, 1e-4)}.get(tol, TOL.get(tol, (0, 0)))
            if d != "i32" and tol == "i32":
                rtol, atol = 0, 0
            meta.append({"name": name, "kind": "out", "dtype": d, "numel": numel, "sig": f"*{d}:16",
                         "rtol": rtol, "atol": atol})
        params.append("n")
        meta.append({"name": "n", "kind": "int", "dtype": "i32", "value": n, "sig": "i32"})
        params.append("BLOCK: tl.constexpr")
        meta.append({"name": "BLOCK", "kind": "const", "value": block, "sig": str(block)})
        src = ["# Generated by tools/gen_kernel.py %d --family lang: a random kernel for differential testing."
               % self.seed, "import triton", "import triton.language as tl"] + COMBINES.split("\n") + [
               "", "@triton.jit", f"def {self.name}({', '.join(params)}):"] + self.lines
        sig = ", ".join(p["sig"] for p in meta)
        desc = {"seed": self.seed, "family": "lang", "kernel": self.name, "source": f"{self.name}.py",
                "sig": sig, "num_warps": self.num_warps, "grid": [grid, 1, 1], "params": meta,
                "tilec_args": ["-k", self.name, "-s", sig, "-w", str(self.num_warps)]}
        return "\n".join(src) + "\n", desc


def generate(seed):
    return Gen(seed).generate()

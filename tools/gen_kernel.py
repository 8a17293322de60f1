#!/usr/bin/env python3
"""Random valid Triton kernels over the language tilec supports, for differential testing.

    python3 tools/gen_kernel.py SEED                 print kernel SEED's source
    python3 tools/gen_kernel.py SEED --out DIR       write DIR/kSEED.py and DIR/kSEED.json
    python3 tools/gen_kernel.py SEED --meta          print its JSON description
    python3 tools/gen_kernel.py SEED --flags-line    the source under a "# flags: ..." line
    python3 tools/gen_kernel.py SEED --family attn   an attention-class kernel (tools/gen_attn.py)
    python3 tools/gen_kernel.py SEED --family tma    a K loop over host tensor descriptors into tl.dot
                                                     (tools/gen_tma.py: the TMA path of --arch sm_90)
    python3 tools/gen_kernel.py SEED --family lang   shape ops, combine functions, sort, gather,
                                                     with dots and loops (tools/gen_lang.py)

The same seed gives the same kernel on every machine (random.Random(seed), no other source of
randomness); a seed names one kernel per family.  The default family is described here; the
attention family (--family attn: tl.dot chains, softmax, masks, online-softmax loops) is
described in tools/gen_attn.py and writes attnSEED.py instead of kSEED.py.  A kernel loads one to three inputs of random dtypes (fp32, fp16, bf16, i32, i64)
as 1-D or 2-D tiles (ragged sizes, masks, row strides with gaps, row and column vectors that
broadcast), combines them in a random expression tree (arithmetic with Triton's promotion
rules, // and % on integers, bit operations, comparisons and tl.where, tl.maximum/tl.minimum
and Python's max/min (whose scalars take part in the promotion), tl.clamp, abs,
exp/exp2/log/sqrt/sigmoid, casts, reductions tl.sum/max/min along an axis broadcast back),
possibly inside a loop (range or tl.static_range, loop-carried accumulators) or under a
runtime `if`, and stores the tile plus one or two reductions of it.

The JSON description says what a harness needs to run the same source through Triton and
through tilec: the kernel name, tilec's -s signature and -w, the grid, and for every parameter
its kind ("in", "out", "int", "const"), dtype, element count, value range (inputs) and
comparison tolerance (outputs).  Values are kept in ranges where fp16/bf16 do not overflow and
integer arithmetic does not wrap, and comparisons (tl.where conditions) only look at values
that both compilers compute exactly, so any difference between the two is a bug.
"""

import argparse
import json
import os
import random
import shlex
import sys

FLOATS = ["fp32", "fp16", "bf16"]
INTS = ["i32", "i64"]
TL = {"fp32": "tl.float32", "fp16": "tl.float16", "bf16": "tl.bfloat16", "i32": "tl.int32",
      "i64": "tl.int64", "i1": "tl.int1"}
RANK = {"i1": 0, "i32": 1, "i64": 2, "fp16": 3, "bf16": 3, "fp32": 4}
# STEPS: floor, ceil and float -> int casts jump by a whole unit where their input crosses an
# integer, so they only take values both compilers compute exactly (Expr.exact).  A float sum
# is added in a different order, and a*b+c may or may not become an fma; fed to a step
# function, a last-bit difference becomes an integer one, which no tolerance covers (integer
# outputs are compared bit for bit).
TOL = {"fp32": (1e-4, 1e-5), "fp16": (1e-2, 2e-3), "bf16": (4e-2, 1e-2)}   # rtol, atol * max|ref|


def is_float(d):
    return d in FLOATS


def promote(a, b):
    """Triton's result type of a binary op on two tensors."""
    if a == b:
        return a
    if is_float(a) and is_float(b):
        if {a, b} == {"fp16", "bf16"}:
            return "fp32"
        return a if RANK[a] > RANK[b] else b
    if is_float(a):
        return a
    if is_float(b):
        return b
    if "i1" in (a, b):
        return b if a == "i1" else a
    return "i64" if "i64" in (a, b) else "i32"


class Expr:
    """A generated expression: its text, dtype, a bound on its magnitude, and whether both
    compilers compute it bit-exactly (then comparisons on it are safe)."""

    def __init__(self, text, dtype, mag, exact, scalar=False):
        self.text, self.dtype, self.mag, self.exact = text, dtype, mag, exact
        self.scalar = scalar


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.lines = []
        self.tmp = 0

    def pick(self, *options):
        return self.rng.choice(options)

    def chance(self, p):
        return self.rng.random() < p

    # ---- leaves -------------------------------------------------------------------------

    def leaf(self):
        r = self.rng.random()
        if r < 0.65 or not self.extra_leaves:
            return self.rng.choice(self.tiles)
        return self.rng.choice(self.extra_leaves)

    def const(self, dtype):
        if is_float(dtype):
            v = self.pick(0.5, 1.5, 2.0, 0.25, 3.0, -1.0)
            return Expr(repr(v), dtype, abs(v), True)
        v = self.pick(1, 2, 3, 5, 7, -3)
        return Expr(str(v), dtype, abs(v), True)

    # ---- operations ---------------------------------------------------------------------

    def bound(self, e):
        """Keep magnitudes small: clamp floats, reduce integers modulo 1000."""
        return self.shrink(e, 200 if is_float(e.dtype) else 10 ** 6)

    def to_f32(self, e):
        """fp32 for the math library (a no-op cast when it already is; the dtype model
        above is Triton's promotion in the common cases only)."""
        return f"({e.text}).to(tl.float32)"

    def unary(self, e):
        if self.chance(0.15):   # more of the math library, in fp32
            fn = self.pick("tl.erf({})", "tl.rsqrt(tl.abs({}) + 1.0)", "tl.cos({})", "tl.sin({})",
                           "tl.floor({})", "tl.ceil({})", "tl.math.erf({})", "libdevice.tanh({})")
            fn = fn.replace("libdevice.", "tl.extra.cuda.libdevice.")   # (tl.math has no tanh in Triton 3.6)
            if not e.exact and fn in ("tl.floor({})", "tl.ceil({})"):
                fn = "tl.sin({})"   # a step function of a rounded value: see STEPS above
            return Expr(fn.format(self.to_f32(e)), "fp32", max(e.mag, 1) + 1, False)
        k = self.rng.randrange(9)
        if k == 0:
            return Expr(f"(-{e.text})", e.dtype, e.mag, e.exact)
        if k == 1:
            if is_float(e.dtype) and self.chance(0.3):   # scalar bounds: an fp32 result
                c = self.pick(0.5, 2.0, 8.0)
                return Expr(f"tl.clamp({e.text}, -{c}, {c})", "fp32", min(e.mag, c), e.exact)
            return Expr(f"tl.abs({e.text})", e.dtype, e.mag, e.exact)
        if k == 2:
            return Expr(f"tl.exp(tl.minimum({self.to_f32(e)}, 4.0))", "fp32", 60, False)
        if k == 3:
            return Expr(f"tl.sigmoid({self.to_f32(e)})", "fp32", 1, False)
        if k == 4:
            return Expr(f"tl.sqrt(tl.abs({self.to_f32(e)}) + 1.0)", "fp32", e.mag ** 0.5 + 1, False)
        if k == 5:
            return Expr(f"tl.log(tl.abs({self.to_f32(e)}) + 1.0)", "fp32", 20, False)
        if k == 6:
            return Expr(f"tl.exp2(tl.minimum({self.to_f32(e)}, 5.0))", "fp32", 32, False)
        if k == 7:   # a cast
            to = self.pick("fp32", "fp16", "bf16", "i32", "i64")
            if is_float(e.dtype) and not is_float(to) and not e.exact:
                to = "fp32"         # float -> int truncates: see STEPS above
            if is_float(to) == is_float(e.dtype) or is_float(to):
                exact = e.exact and (RANK[to] >= RANK[e.dtype] or not is_float(e.dtype))
                return Expr(f"({e.text}).to({TL[to]})", to, e.mag, exact)
            return Expr(f"tl.minimum(tl.maximum({e.text}, -1000.0), 1000.0).to({TL[to]})", to,
                        min(e.mag, 1000), e.exact)
        if not is_float(e.dtype):   # integer-only: bit operations with constants
            op = self.pick("&", "|", "^", ">>")
            c = self.pick(1, 3, 7, 255) if op != ">>" else self.pick(1, 2, 3)
            return Expr(f"({e.text} {op} {c})", e.dtype, max(e.mag, 255), True)
        return Expr(f"(-{e.text})", e.dtype, e.mag, e.exact)

    def shrink(self, e, limit):
        """`e` itself when its magnitude is below `limit`, else a bounded version of it."""
        if e.mag <= limit:
            return e
        if is_float(e.dtype):
            return Expr(f"tl.minimum(tl.maximum({e.text}, -100.0), 100.0)", e.dtype, 100, e.exact, e.scalar)
        m = 1000 if limit >= 1000 else 64
        return Expr(f"(({e.text}) % {m})", e.dtype, m - 1, e.exact, e.scalar)

    def binary(self, a, b):
        # no operation may overflow: fp16 stays below 65504, integers below 2^31
        limit = 150 if is_float(promote(a.dtype, b.dtype)) else 30000
        a, b = self.shrink(a, limit), self.shrink(b, limit)
        e = self.binary_op(a, b)
        e.scalar = a.scalar and b.scalar
        return e

    def binary_op(self, a, b):
        d = promote(a.dtype, b.dtype)
        both_exact = a.exact and b.exact
        ops = ["+", "-", "*", "max", "min", "where"]
        ops += ["/"] if is_float(d) else ["//", "%", "&", "^"]
        op = self.rng.choice(ops)
        if op in ("+", "-"):
            return Expr(f"({a.text} {op} {b.text})", d, a.mag + b.mag, both_exact and not is_float(d))
        if op == "*":
            return Expr(f"({a.text} * {b.text})", d, a.mag * b.mag, both_exact and not is_float(d))
        if op in ("max", "min"):
            fn = ("tl.maximum" if op == "max" else "tl.minimum") if self.chance(0.75) else op  # or Python's
            return Expr(f"{fn}({a.text}, {b.text})", d, max(a.mag, b.mag), both_exact)
        if op == "/":
            denom = b.dtype if is_float(b.dtype) else "fp32"
            return Expr(f"({a.text} / (tl.abs({b.text}) + 1.0))", promote(a.dtype, denom), a.mag, False)
        if op in ("//", "%"):
            div = f"(tl.abs({b.text}) % 7 + 1)"
            mag = a.mag if op == "//" else 7
            return Expr(f"({a.text} {op} {div})", d, mag, both_exact)
        if op in ("&", "^"):
            return Expr(f"({a.text} {op} {b.text})", d, max(a.mag, b.mag) * 2, both_exact)
        return self.where(a, b)

    def condition(self):
        """A comparison on values both compilers compute exactly."""
        exact = [t for t in self.tiles + self.extra_leaves if t.exact]
        a = self.rng.choice(exact)
        if self.chance(0.5):
            b = self.const(a.dtype)
        else:
            b = self.rng.choice(exact)
        op = self.pick("<", ">", "<=", ">=", "!=")
        cond = f"({a.text} {op} {b.text})"
        if self.chance(0.2):
            c2 = self.rng.choice(exact)
            cond = f"({cond} & ({c2.text} > {self.const(c2.dtype).text}))"
        return cond

    def where(self, a, b):
        d = promote(a.dtype, b.dtype)
        return Expr(f"tl.where({self.condition()}, {a.text}, {b.text})", d, max(a.mag, b.mag),
                    a.exact and b.exact)

    def reduce_back(self, e):
        """A reduction along an axis, broadcast back to the tile's shape."""
        fn = self.pick("sum", "max", "min", "max")
        if e.scalar:
            return e
        if fn == "sum":
            e = self.shrink(e, 100 if is_float(e.dtype) else 10 ** 5)
            if e.dtype in ("fp16", "bf16"):
                e = Expr(f"({e.text}).to(tl.float32)", "fp32", e.mag, e.exact)
        if self.rank == 1:
            text = f"tl.{fn}({e.text}, axis=0)"
            mag = e.mag * self.block if fn == "sum" else e.mag
        else:
            axis = self.pick(0, 1)
            idx = "[None, :]" if axis == 0 else "[:, None]"
            text = f"tl.{fn}({e.text}, axis={axis}){idx}"
            mag = e.mag * (self.bm if axis == 0 else self.bn) if fn == "sum" else e.mag
        d = e.dtype
        if fn == "sum" and d in ("fp16", "bf16"):
            mag = e.mag   # keep fp16 sums small below
        out = Expr(text, d, mag, e.exact and not (fn == "sum" and is_float(d)), self.rank == 1)
        return out

    def expr(self, depth):
        if depth <= 0 or self.chance(0.2):
            e = self.leaf()
            if self.chance(0.15):
                e = self.binary(e, self.const(e.dtype))
            return self.bound(e)
        r = self.rng.random()
        if r < 0.3:
            inner = self.expr(depth - 1)
            e = self.unary(inner)
            e.scalar = inner.scalar
        elif r < 0.85:
            e = self.binary(self.expr(depth - 1), self.expr(depth - 1))
        elif r < 0.92 and self.rank == 2:
            inner = self.shrink(self.expr(depth - 1), 100 if True else 0)
            if not inner.scalar:     # a prefix sum along an axis: the same shape
                inner = Expr(f"tl.minimum(tl.maximum({inner.text}, -8.0), 8.0)", inner.dtype, 8,
                             inner.exact) if is_float(inner.dtype) else inner
                if inner.dtype in ("fp16", "bf16"):
                    inner = Expr(f"({inner.text}).to(tl.float32)", "fp32", inner.mag, inner.exact)
                axis = self.pick(0, 1)
                n = self.bm if axis == 0 else self.bn
                e = Expr(f"tl.cumsum({inner.text}, axis={axis})", inner.dtype, inner.mag * n,
                         inner.exact and not is_float(inner.dtype))
            else:
                e = inner
        else:
            inner = self.expr(depth - 1)
            if is_float(inner.dtype) and inner.dtype != "fp32":
                inner = Expr(f"tl.minimum(tl.maximum({inner.text}, -8.0), 8.0)", inner.dtype, 8, inner.exact,
                             inner.scalar)
            e = self.reduce_back(inner)
        e = self.bound(e)
        if len(e.text) > 300:          # name long subexpressions
            name = f"t{self.tmp}"
            self.tmp += 1
            self.lines.append(f"    {name} = {e.text}")
            e = Expr(name, e.dtype, e.mag, e.exact, e.scalar)
        return e

    # ---- the kernel ---------------------------------------------------------------------

    def generate(self):
        rng = self.rng
        self.name = f"k{self.seed}"
        self.rank = self.pick(1, 2, 2)
        self.num_warps = self.pick(1, 2, 4, 4, 8)
        params, meta_params, body = [], [], []
        self.tiles, self.extra_leaves = [], []
        n_in = rng.randint(1, 3)
        in_dtypes = [self.pick("fp32", "fp32", "fp16", "bf16", "i32", "i32", "i64") for _ in range(n_in)]

        if self.rank == 1:
            self.block = self.pick(16, 32, 64, 128, 256, 512, 1024)
            # now and then 16 or 32 warps on a long block, where a whole-block reduction's warp
            # partials are combined by a butterfly; from its own stream, so that other seeds
            # keep their kernels
            wide = random.Random(self.seed * 7919 + 13)
            if self.block >= 512 and wide.random() < 0.3:
                self.num_warps = 16 if self.block == 512 else wide.choice((16, 32))
            n = rng.randint(1, 3 * self.block + 7)
            grid = -(-n // self.block)
            div16 = n % 16 == 0 and self.chance(0.5)
            body += ["    pid = tl.program_id(0)",
                     "    offs = pid * BLOCK + tl.arange(0, BLOCK)",
                     "    mask = offs < n"]
            for i, d in enumerate(in_dtypes):
                params.append(f"in{i}_ptr")
                meta_params.append({"name": f"in{i}_ptr", "kind": "in", "dtype": d, "numel": n,
                                    "sig": f"*{d}:16"})
                other = self.pick("0", "1", "-1") if not is_float(d) else self.pick("0.0", "1.0", "-2.0")
                body.append(f"    a{i} = tl.load(in{i}_ptr + offs, mask=mask, other={other})")
                self.tiles.append(Expr(f"a{i}", d, 2 if is_float(d) else 20, True))
            self.extra_leaves.append(Expr("offs", "i32", n + self.block, True))
            sizes = [("n", n, div16)]
            out_numel = {"tile": n, "red": grid}
        else:
            self.bm = self.pick(1, 2, 4, 8, 16, 32)
            self.bn = self.pick(16, 32, 64, 128)
            while self.bm * self.bn > 4096:
                self.bm //= 2
            M = rng.randint(1, 4 * self.bm + 3)
            N = rng.randint(1, self.bn)
            stride = N + self.pick(0, 0, 3, 16)
            if self.chance(0.4):
                stride = -(-stride // 16) * 16
            grid = -(-M // self.bm)
            body += ["    pid = tl.program_id(0)",
                     "    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)",
                     "    cols = tl.arange(0, BLOCK_N)",
                     "    rmask = rows < M",
                     "    cmask = cols < N",
                     "    mask = rmask[:, None] & cmask[None, :]"]
            for i, d in enumerate(in_dtypes):
                params.append(f"in{i}_ptr")
                other = self.pick("0", "1") if not is_float(d) else self.pick("0.0", "1.0", "-2.0")
                kind = self.pick("tile", "tile", "tile", "row", "col") if i > 0 else "tile"
                if kind == "tile":
                    meta_params.append({"name": f"in{i}_ptr", "kind": "in", "dtype": d,
                                        "numel": M * stride, "sig": f"*{d}:16"})
                    body.append(f"    a{i} = tl.load(in{i}_ptr + rows[:, None] * stride + cols[None, :], "
                                f"mask=mask, other={other})")
                elif kind == "row":     # one value per row, broadcast along the columns
                    meta_params.append({"name": f"in{i}_ptr", "kind": "in", "dtype": d, "numel": M,
                                        "sig": f"*{d}:16"})
                    body.append(f"    a{i} = tl.load(in{i}_ptr + rows, mask=rmask, other={other})[:, None]")
                else:                   # one value per column, broadcast along the rows
                    meta_params.append({"name": f"in{i}_ptr", "kind": "in", "dtype": d, "numel": N,
                                        "sig": f"*{d}:16"})
                    body.append(f"    a{i} = tl.load(in{i}_ptr + cols, mask=cmask, other={other})[None, :]")
                self.tiles.append(Expr(f"a{i}", d, 2 if is_float(d) else 20, True))
            self.extra_leaves.append(Expr("rows[:, None]", "i32", M + self.bm, True))
            self.extra_leaves.append(Expr("cols[None, :]", "i32", self.bn, True))
            sizes = [("M", M, False), ("N", N, False), ("stride", stride, stride % 16 == 0 and self.chance(0.6))]
            out_numel = {"tile": M * stride, "rows": M, "cols": grid * self.bn}

        self.lines = body
        loop = self.pick(None, None, "range", "static_range", "carried", "while")
        if loop in ("range", "while"):
            sizes.append(("iters", rng.randint(0, 4), False))
        depth = rng.randint(1, 4)
        e = self.expr(depth)
        if loop in ("range", "static_range", "while"):
            it = "tl.static_range(3)" if loop == "static_range" else "range(0, iters)"
            acc_dtype = "fp32" if is_float(e.dtype) else e.dtype
            shape = "[BLOCK]" if self.rank == 1 else "[BLOCK_M, BLOCK_N]"
            self.lines.append(f"    acc = tl.zeros({shape}, dtype={TL[acc_dtype]})")
            if loop == "while":
                self.lines.append("    it = 0")
                self.lines.append("    while it < iters:")
            else:
                self.lines.append(f"    for it in {it}:")
            step = f"({e.text})" if self.chance(0.5) else f"({e.text}) * (it + 1)"
            self.lines.append(f"        acc += {step}")
            if loop == "while":
                self.lines.append("        it += 1")
            mag = e.mag * 4 * (4 if "it + 1" in step else 1)
            e = self.bound(Expr("acc", acc_dtype, mag, not is_float(acc_dtype)))
        elif loop == "carried":
            self.lines.append(f"    x = {e.text}")
            self.lines.append("    for it in range(0, 3):")
            self.lines.append("        x = tl.maximum(x - 1, x // 2)" if not is_float(e.dtype)
                              else "        x = x * 0.5 + 1.0")
            e = Expr("x", e.dtype, e.mag + 3, e.exact and not is_float(e.dtype))
        if self.chance(0.25):
            self.lines.append(f"    res = {e.text}")
            self.lines.append("    if pid % 2 == 0:")
            self.lines.append("        res = res + 1")
            e = Expr("res", e.dtype, e.mag + 1, e.exact)
        e = self.shrink(e, 10 ** 5 if not is_float(e.dtype) else 10 ** 4)
        res_dtype = e.dtype
        self.lines.append(f"    res = {e.text}")

        outs = [("out0_ptr", res_dtype, out_numel["tile"])]
        if self.rank == 1:
            self.lines.append("    tl.store(out0_ptr + offs, res, mask=mask)")
        else:
            self.lines.append("    tl.store(out0_ptr + rows[:, None] * stride + cols[None, :], res, mask=mask)")
        red = self.pick(None, "sum", "max", "min", "argmax" if e.exact else "max", "argmin" if e.exact else "min")
        if red:   # masked lanes must not count; tl.where also makes a tile of a scalar result
            rd = res_dtype
            big = red in ("max", "argmax")
            if red == "sum" and is_float(res_dtype):
                src, rd = "tl.where(mask, res.to(tl.float32), 0.0)", "fp32"
            elif red == "sum":
                src = "tl.where(mask, res, 0)"
            elif is_float(res_dtype):
                src = f"tl.where(mask, res, float('{'-' if big else ''}inf'))"
            else:
                src = f"tl.where(mask, res, {'-' if big else ''}1000000)"
            if red in ("argmax", "argmin"):
                rd = "i32"
            if self.rank == 1:
                self.lines.append(f"    tl.store(out1_ptr + pid, tl.{red}({src}, axis=0))")
                outs.append(("out1_ptr", rd, out_numel["red"]))
            else:
                axis = self.pick(0, 1)
                if axis == 1:
                    self.lines.append(f"    tl.store(out1_ptr + rows, tl.{red}({src}, axis=1), mask=rmask)")
                    outs.append(("out1_ptr", rd, out_numel["rows"]))
                else:
                    self.lines.append(f"    tl.store(out1_ptr + pid * BLOCK_N + cols, tl.{red}({src}, axis=0))")
                    outs.append(("out1_ptr", rd, out_numel["cols"]))
        if not is_float(res_dtype) and self.chance(0.3):
            fn = self.pick("atomic_add", "atomic_min", "atomic_xor")
            red2 = {"atomic_add": "sum", "atomic_min": "min", "atomic_xor": "xor_sum"}[fn]
            fill = "1000000" if red2 == "min" else "0"
            self.lines.append(f"    tl.{fn}(out2_ptr, tl.{red2}(tl.where(mask, res, {fill}).to(tl.int32)))")
            outs.append(("out2_ptr", "i32", 1))
        for name, d, numel in outs:
            params.append(name)
            rtol, atol = TOL.get(d, (0, 0))
            if red == "sum" and name == "out1_ptr":
                rtol, atol = rtol * 4, atol * 4
            meta_params.append({"name": name, "kind": "out", "dtype": d, "numel": numel,
                                "sig": f"*{d}:16", "rtol": rtol, "atol": atol})
        # now and then every size is a constant of the signature, as a caller specialising
        # n_cols would make it: tilec then decides the masks of arange-built tiles per
        # register (emit_cuda/expr.c, cmp_decided); from its own stream, as above
        fixed = random.Random(self.seed * 104729 + 7).random() < 0.3
        for name, value, div in sizes:
            params.append(name)
            meta_params.append({"name": name, "kind": "int", "dtype": "i32", "value": value,
                                "sig": str(value) if fixed else "i32:16" if div else "i32"})
        consts = [("BLOCK", self.block)] if self.rank == 1 else [("BLOCK_M", self.bm), ("BLOCK_N", self.bn)]
        for name, value in consts:
            params.append(f"{name}: tl.constexpr")
            meta_params.append({"name": name, "kind": "const", "value": value, "sig": str(value)})

        # and now and then (of the rest) no pointer or size promises ":16" and the .cu gets
        # --variant auto: its launcher runs the aligned variant when every size is a multiple
        # of 16, the kernel as written otherwise (tests/gpu/difftest.py draws both kinds of size)
        variant = not fixed and random.Random(self.seed * 7919 + 3).random() < 0.25
        if variant:
            for p in meta_params:
                if p["kind"] in ("in", "out", "int") and p["sig"].endswith(":16"):
                    p["sig"] = p["sig"][:-3]
        src = ["# Generated by tools/gen_kernel.py %d: a random kernel for differential testing." % self.seed,
               "import triton", "import triton.language as tl", "", "",
               "@triton.jit", f"def {self.name}({', '.join(params)}):"] + self.lines
        sig = ", ".join(p["sig"] for p in meta_params)
        meta = {"seed": self.seed, "kernel": self.name, "source": f"{self.name}.py", "sig": sig,
                "num_warps": self.num_warps, "grid": [grid, 1, 1], "params": meta_params,
                "tilec_args": ["-k", self.name, "-s", sig, "-w", str(self.num_warps)] +
                              (["--variant", "auto"] if variant else [])}
        return "\n".join(src) + "\n", meta


FAMILIES = ("default", "attn", "lang", "tma")


def generate(seed, family="default"):
    """(source text, description) of kernel `seed` of `family`."""
    if family == "attn":
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        import gen_attn
        return gen_attn.generate(seed)
    if family == "lang":
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        import gen_lang
        return gen_lang.generate(seed)
    if family == "tma":
        here = os.path.dirname(os.path.abspath(__file__))
        if here not in sys.path:
            sys.path.insert(0, here)
        import gen_tma
        return gen_tma.generate(seed)
    if family != "default":
        raise ValueError(f"no kernel family {family!r} (families: {', '.join(FAMILIES)})")
    return Gen(seed).generate()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--out", help="write OUT/kSEED.py and OUT/kSEED.json")
    ap.add_argument("--meta", action="store_true", help="print the JSON description")
    ap.add_argument("--flags-line", action="store_true",
                    help="print the source under a '# flags: ...' line (a tests/errors-style fuzz seed)")
    ap.add_argument("--family", choices=FAMILIES, default="default",
                    help="which kind of kernel (default: the elementwise/reduction one)")
    opts = ap.parse_args()
    src, meta = generate(opts.seed, opts.family)
    if opts.out:
        os.makedirs(opts.out, exist_ok=True)
        with open(os.path.join(opts.out, meta["source"]), "w") as f:
            f.write(src)
        with open(os.path.join(opts.out, f"{meta['kernel']}.json"), "w") as f:
            json.dump(meta, f, indent=1)
    elif opts.flags_line:
        sys.stdout.write("# flags: " + shlex.join(meta["tilec_args"]).replace("'", '"') + "\n" + src)
    elif opts.meta:
        json.dump(meta, sys.stdout, indent=1)
        print()
    else:
        sys.stdout.write(src)


if __name__ == "__main__":
    main()

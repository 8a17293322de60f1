#!/usr/bin/env python3
"""The newer parts of Triton's language on the GPU: tilec vs Triton (same source), in one run.

    python3 bench/bench_lang.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90] [--keep DIR]

Kernels (examples/lang.py):
  sort        sort_rows: tl.sort of one fp32 row per program, rows of 1024 and 4096 values
  welford     welford_layer_norm: a layer norm whose mean and variance come from tl.reduce with
              a Welford merge, fp16 rows of 8192
  gather      gather_rows: tl.gather along the rows of a [4, 1024] fp32 tile per program
  bmm         bmm: 3-D tl.dot, 4 batched fp16 64x64 products per program over 64 K
  blockptr    block_ptr_matmul: fp16 4096^3 through tl.make_block_ptr / tl.advance with
              boundary checks, 128x128x32 tiles, 4 warps, 3 stages; translated for sm_80
              (mma.sync) and again with --arch sm_90 (wgmma on Hopper, built for sm_90a)

Same timing, checks and table as bench/bench_attention.py (whose driver this reuses): every
implementation checked against PyTorch before it is timed, Triton as installed and Triton held
to mma.sync (DISABLE_MMA_V3=1) side by side; GB/s counts the bytes each kernel must read and
write once, against a 1 GiB device copy measured in the same run.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_attention as driver  # noqa: E402
from bench_attention import Row, harness  # noqa: E402
from cases import Case  # noqa: E402

SRC = "examples/lang.py"


def sort_row(n, M=4096):
    c = Case(f"lang/sort/{n}", SRC, "sort_rows", f"*fp32:16, *fp32:16, i32:16, i32:16, {n}, False",
             num_warps=4 if n <= 1024 else 8, driver="bench")

    def make(torch):
        x = torch.randn(M, n, device="cuda")
        y = torch.empty_like(x)
        values = {"X": x, "Y": y, "stride": n, "N": n}

        def check():
            return (y - torch.sort(x, dim=1).values).abs().max().item()
        return [(values, (M,))], check, 0.0, 2 * x.numel() * 4
    return Row(f"sort/fp32/{M}x{n}", [c], make)


def welford_row(M=4096, N=8192):
    c = Case("lang/welford", SRC, "welford_layer_norm",
             "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, fp32, 8192", num_warps=8,
             driver="bench", dtype="fp16")

    def make(torch):
        x = torch.randn(M, N, device="cuda", dtype=torch.float16)
        w = torch.randn(N, device="cuda", dtype=torch.float16)
        b = torch.randn(N, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        values = {"X": x, "Y": y, "W": w, "B": b, "stride": N, "N": N, "eps": 1e-5}

        def check():
            ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
            return (y.float() - ref).abs().max().item()
        return [(values, (M,))], check, 0.0, 2 * x.numel() * 2 + 2 * N * 2
    return Row(f"welford-layernorm/fp16/{M}x{N}", [c], make)


def gather_row(M=4096, N=1024, ROWS=4):
    c = Case("lang/gather", SRC, "gather_rows", f"*fp32:16, *i32:16, *fp32:16, i32:16, i32:16, {ROWS}, {N}",
             num_warps=4, driver="bench")

    def make(torch):
        x = torch.randn(M, N, device="cuda")
        idx = torch.randint(0, N, (M, N), device="cuda", dtype=torch.int32)
        y = torch.empty_like(x)
        values = {"X": x, "Idx": idx, "Y": y, "stride": N, "N": N}

        def check():
            return (y - torch.gather(x, 1, idx.long())).abs().max().item()
        return [(values, (M // ROWS,))], check, 0.0, 3 * x.numel() * 4
    return Row(f"gather/fp32/{M}x{N}", [c], make)


def bmm_row(BATCH=16384, S=64, BT=4):
    c = Case("lang/bmm", SRC, "bmm", f"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, "
             f"{BT}, {S}, {S}, 32", num_warps=4, driver="bench", dtype="fp16", feature="dot")

    def make(torch):
        a = torch.randn(BATCH, S, S, device="cuda", dtype=torch.float16)
        b = torch.randn(BATCH, S, S, device="cuda", dtype=torch.float16)
        out = torch.empty_like(a)
        values = {"A": a, "B": b, "C": out, "BATCH": BATCH, "M": S, "N": S, "K": S}

        def check():
            return (out.float() - torch.bmm(a.float(), b.float())).abs().max().item()
        return [(values, (BATCH // BT, 1, 1))], check, 2.0 * BATCH * S ** 3, 3 * a.numel() * 2
    return Row(f"bmm3d/fp16/{BATCH}x{S}x{S}x{S}", [c], make)


def blockptr_row(S=4096, sm90=False):
    """sm90: translated with --arch sm_90, so that on Hopper (built for sm_90a) tl.dot runs on
    wgmma as Triton's installed column does; elsewhere the same mma.sync code."""
    sig = ", ".join(["*fp16:16"] * 3 + ["i32:16"] * 3 + ["i32:16", "1", "i32:16", "1", "i32:16", "1"]
                    + ["128", "128", "32", "8"])
    c = Case("lang/blockptr" + ("-sm90" if sm90 else ""), SRC, "block_ptr_matmul", sig, num_warps=4, num_stages=3,
             driver="bench", dtype="fp16", feature="dot", grid="cdiv(M, 128) * cdiv(N, 128)",
             extra_flags=["--arch", "sm_90"] if sm90 else [])

    def make(torch):
        a = torch.randn(S, S, device="cuda", dtype=torch.float16)
        b = torch.randn(S, S, device="cuda", dtype=torch.float16)
        out = torch.empty(S, S, device="cuda", dtype=torch.float16)
        values = {"a_ptr": a, "b_ptr": b, "c_ptr": out, "M": S, "N": S, "K": S, "stride_am": S,
                  "stride_ak": 1, "stride_bk": S, "stride_bn": 1, "stride_cm": S, "stride_cn": 1}
        grid = ((S // 128) * (S // 128),)

        def check():
            return (out.float() - (a.float() @ b.float())).abs().max().item() / S ** 0.5
        return [(values, grid)], check, 2.0 * S ** 3, 3 * S * S * 2
    return Row(f"blockptr-matmul{'-sm90' if sm90 else ''}/fp16/{S}^3", [c], make)


def bench_rows():
    return [sort_row(1024), sort_row(4096), welford_row(), gather_row(), bmm_row(), blockptr_row(),
            blockptr_row(sm90=True)]


if __name__ == "__main__":
    sys.exit(driver.main(bench_rows, "tilec language benchmark", SRC, "bench_lang.md", __file__, __doc__,
                         hopper=False))

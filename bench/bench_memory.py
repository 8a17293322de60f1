#!/usr/bin/env python3
"""Memory-bound kernels of the kinds real projects run: tilec vs Triton (same source and
config), in one run.

    python3 bench/bench_memory.py [--tilec bin/tilec] [--only TEXT] [--arch sm_90] [--keep DIR]

Kernels (each reads its data once; GB/s counts those bytes and the bytes written):
  colmax      col_max_kernel (examples/col_max.py): the max of every column and its row, 32x64
              tiles walking down 8191 rows of a 8191x16384 fp32 matrix
  rope        rope_inplace_kernel (examples/rope.py): rotary embedding in place on bf16
              queries, 8192 tokens x 32 heads x 128, fp32 cos/sin tables
  argmax      argmax_rows_kernel (examples/argmax.py): the first maximum of 4096 bf16 rows of
              32000, 8 rows per program, 1024 columns per step
  gelu        activation_kernel (examples/fused_activation.py), gelu_tanh, fp16, 2^28 elements
  xent        cross_entropy_fwd (examples/cross_entropy.py): 4096 bf16 rows of 32000 logits,
              one program per row looping over the vocabulary, a single launch
  decode-pv   decode_pv_gather (examples/attention.py): a paged decode step's weights times
              values: 64 sequences of 4096 tokens, value rows gathered through a token-to-slot
              table (a random permutation), 8 KV heads x 16 query heads each as the rows of one
              tl.dot, 128 tokens of 128-wide bf16 rows per step

Every integer argument that is a multiple of 16 at these sizes is declared so (i32:16) to tilec,
as Triton's launcher specialises it on its own (the sizes are chosen as real ones are, mostly
multiples of 16; the colmax rows, 8191, are not).  Same driver as bench/bench_attention.py: on Hopper translated with --arch sm_90 (built for
sm_90a); every implementation checked against PyTorch before it is timed; tilec and Triton as
installed timed in 3 rounds of alternating order, the median reported, and Triton timed once
more as the control column (the run's noise); Triton held to mma.sync (DISABLE_MMA_V3=1) in a
process of its own.  "GB/s (of copy)" is tilec's rate against a 1 GiB device copy measured in
the same run.  The markdown table goes to stdout and to $OUT/bench_memory.md when OUT is set.
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_attention as driver  # noqa: E402
from bench_attention import Row  # noqa: E402
from cases import Case  # noqa: E402


def colmax_row(M=8191, N=16384):
    c = Case("mem/colmax", "examples/col_max.py", "col_max_kernel",
             "*fp32:16, *fp32:16, *i32:16, i32, i32:16, i32:16, 32, 64", num_warps=4, driver="bench")

    def make(torch):
        x = torch.randn(M, N, device="cuda")
        vmax = torch.empty(N, device="cuda")
        vidx = torch.empty(N, device="cuda", dtype=torch.int32)
        values = {"X": x, "OutMax": vmax, "OutIdx": vidx, "M": M, "N": N, "stride": N}

        def check():
            ref = x.max(0)
            bad = (vidx.long() != ref.indices).sum().item()
            return (vmax - ref.values).abs().max().item() + bad
        return [(values, (math.ceil(N / 64),))], check, 0.0, M * N * 4 + N * 8
    return Row(f"colmax/fp32/{M}x{N}", [c], make)


def rope_row(T=8192, H=32, D=128):
    c = Case("mem/rope", "examples/rope.py", "rope_inplace_kernel",
             f"*bf16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, {D}, 32", num_warps=4, driver="bench",
             dtype="bf16")

    def make(torch):
        x = torch.randn(T, H, D, device="cuda", dtype=torch.bfloat16)
        inv = 10000.0 ** (-torch.arange(0, D, 2, device="cuda", dtype=torch.float64) / D)
        ang = torch.arange(T, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
        cos, sin = ang.cos().float().contiguous(), ang.sin().float().contiguous()
        values = {"X": x, "Cos": cos, "Sin": sin, "stride_t": H * D, "stride_h": D, "n_heads": H}
        before = [x.clone()]

        def check():
            # in place: each implementation's first launch rotates what the previous one left
            x0 = before[0].double()
            x1, x2 = x0[..., :D // 2], x0[..., D // 2:]
            cs, sn = cos.double()[:, None, :], sin.double()[:, None, :]
            ref = torch.cat([x1 * cs - x2 * sn, x2 * cs + x1 * sn], -1)
            before[0] = x.clone()
            return (x.double() - ref).abs().max().item()
        return [(values, (T, 1))], check, 0.0, 2 * x.numel() * 2 + 2 * T * D // 2 * 4
    return Row(f"rope/bf16/{T}x{H}x{D}", [c], make)


def argmax_row(M=4096, N=32000, ROWS=8):
    c = Case("mem/argmax", "examples/argmax.py", "argmax_rows_kernel",
             f"*bf16:16, *i32:16, i32:16, i32:16, i32:16, {ROWS}, 1024", num_warps=4, driver="bench", dtype="bf16")

    def make(torch):
        x = torch.randn(M, N, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(M, device="cuda", dtype=torch.int32)
        values = {"X": x, "Out": out, "M": M, "N": N, "stride": N}
        cols = torch.arange(N, device="cuda")[None, :]
        first = torch.where(x == x.max(1, keepdim=True).values, cols, N).min(1).values

        def check():
            return float((out.long() != first).sum().item())
        return [(values, (math.ceil(M / ROWS),))], check, 0.0, M * N * 2
    return Row(f"argmax/bf16/{M}x{N}/rows{ROWS}", [c], make)


def gelu_row(log2=28):
    n = 1 << log2
    c = Case("mem/gelu", "examples/fused_activation.py", "activation_kernel",
             "*fp16:16, *fp16:16, i32:16, fp32, 'gelu_tanh', 1024", num_warps=4, driver="bench",
             dtype="fp16")

    def make(torch):
        x = torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        values = {"x_ptr": x, "y_ptr": y, "n_elements": n, "alpha": 0.0}

        def check():
            ref = torch.nn.functional.gelu(x.float(), approximate="tanh")
            return (y.float() - ref).abs().max().item()
        return [(values, (n // 1024,))], check, 0.0, 2 * n * 2
    return Row(f"gelu-tanh/fp16/2^{log2}", [c], make)


def xent_row(M=4096, V=32000):
    c = Case("mem/xent", "examples/cross_entropy.py", "cross_entropy_fwd",
             "*bf16:16, *i64:16, *fp32:16, i32:16, i32:16, 4096", num_warps=8, driver="bench", dtype="bf16")

    def make(torch):
        logits = torch.randn(M, V, device="cuda", dtype=torch.bfloat16) * 3
        labels = torch.randint(0, V, (M,), device="cuda")
        loss = torch.empty(M, device="cuda")
        values = {"logits_ptr": logits, "labels_ptr": labels, "loss_ptr": loss, "stride": V, "V": V}

        def check():
            ref = torch.nn.functional.cross_entropy(logits.double(), labels, reduction="none")
            return (loss.double() - ref).abs().max().item()
        return [(values, (M,))], check, 0.0, M * V * 2 + M * 12
    return Row(f"cross-entropy/bf16/{M}x{V}", [c], make)


def decode_pv_row(B=64, T=4096, KH=8, G=16, D=128, BLOCK_N=128):
    H = KH * G
    sig = ", ".join(["*fp32:16", "*bf16:16", "*i32:16", "*i32:16", "*bf16:16"] + ["i32:16"] * 7
                    + [str(G), str(D), str(BLOCK_N)])
    c = Case("mem/decode-pv", "examples/attention.py", "decode_pv_gather", sig, num_warps=4, num_stages=3,
             driver="bench", dtype="bf16", feature="dot")

    def make(torch):
        p = torch.softmax(torch.randn(B, H, T, device="cuda"), -1)
        vc = torch.randn(B * T, KH, D, device="cuda", dtype=torch.bfloat16)
        table = torch.randperm(B * T, device="cuda").to(torch.int32).view(B, T)
        lens = torch.full((B,), T, device="cuda", dtype=torch.int32)
        out = torch.empty(B, H, D, device="cuda", dtype=torch.bfloat16)
        values = {"P": p, "V_cache": vc, "Req_to_token": table, "Seq_lens": lens, "Out": out,
                  "stride_pb": H * T, "stride_ph": T, "stride_rb": T, "stride_vt": KH * D, "stride_vh": D,
                  "stride_ob": H * D, "stride_oh": D}

        def check():          # four sequences, in float64
            err = 0.0
            for b in (0, 1, B // 2, B - 1):
                v = vc[table[b].long()].double()                         # [T, KH, D]
                pb = p[b].to(torch.bfloat16).double().view(KH, G, T)
                ref = torch.einsum("kgt,tkd->kgd", pb, v).reshape(H, D)
                err = max(err, (out[b].double() - ref).abs().max().item())
            return err
        nbytes = vc.numel() * 2 + p.numel() * 4 + table.numel() * 4 + out.numel() * 2
        return [(values, (B, KH))], check, 2.0 * B * H * T * D, nbytes
    return Row(f"decode-pv/bf16/B{B}xT{T}/kv{KH}x{G}/d{D}", [c], make)


def bench_rows():
    return [colmax_row(), rope_row(), argmax_row(), gelu_row(), xent_row(), decode_pv_row()]


if __name__ == "__main__":
    sys.exit(driver.main(bench_rows, "tilec memory-bound benchmark", "examples/", "bench_memory.md",
                         __file__, __doc__))

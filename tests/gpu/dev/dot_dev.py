"""Development check of tl.dot through tilec: correctness on several dtypes and shapes, and a timing."""
import ctypes, os, subprocess, sys, time
import torch, triton
sys.path.insert(0, os.path.dirname(__file__))
import mm_dev

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
OUT = os.environ.get("OUT", "/tmp/dotdev")
os.makedirs(OUT, exist_ok=True)
TD = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "i8": torch.int8, "i32": torch.int32}

def build(name, args):
    cu, so = f"{OUT}/{name}.cu", f"{OUT}/{name}.so"
    r = subprocess.run([f"{ROOT}/bin/tilec", f"{ROOT}/tests/gpu/dev/mm_dev.py"] + args + ["-o", cu], capture_output=True, text=True)
    if r.returncode:
        print("TILEC FAIL", name, r.stderr); return None
    r = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", "-o", so, cu, "-Xptxas", "-v"], capture_output=True, text=True)
    if r.returncode:
        print("NVCC FAIL", name, r.stderr[-3000:]); return None
    regs = [l for l in r.stderr.splitlines() if "registers" in l or "spill" in l]
    print(name, " | ".join(x.strip() for x in regs[-2:]))
    return ctypes.CDLL(so)

def mm_args(dt, cdt, acc, prec, bm, bn, bk, w, st):
    return ["-k", "matmul_kernel", "-s", f"*{dt}:16, *{dt}:16, *{cdt}:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
            "-D", f"BLOCK_M={bm}", "-D", f"BLOCK_N={bn}", "-D", f"BLOCK_K={bk}", "-D", "GROUP_M=8", "-D", f"ACC={acc}",
            "-D", f'PREC="{prec}"', "-w", str(w), "--num-stages", str(st), "--grid", f"cdiv(M,{bm})*cdiv(N,{bn})"]

def run_mm(lib, fn, a, b, c, M, N, K):
    f = getattr(lib, fn)
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int] * 6
    return f(None, a.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, a.stride(0), b.stride(0), c.stride(0))

def rand(shape, dt):
    if dt == "i8":
        return torch.randint(-8, 8, shape, dtype=torch.int8, device="cuda")
    return torch.randn(shape, device="cuda").to(TD[dt])

def check(name, out, ref, tol):
    ref = ref.double(); out = out.double()
    err = ((out - ref).abs().max() / max(ref.abs().max().item(), 1e-30)).item()
    ok = err <= tol
    print(f"{'ok  ' if ok else 'FAIL'} {name}: rel err {err:.2e} (tol {tol:g})")
    return ok

def main():
    fails = 0
    cfgs = [("fp16", "fp16", "tl.float32", "tf32", 1e-2), ("bf16", "bf16", "tl.float32", "tf32", 1e-2),
            ("fp32", "fp32", "tl.float32", "tf32", 1e-3), ("fp32", "fp32", "tl.float32", "ieee", 1e-5),
            ("fp32", "fp32", "tl.float32", "tf32x3", 1e-5), ("i8", "i32", "tl.int32", "tf32", 0)]
    blocks = [(64, 64, 32, 4, 1), (128, 128, 32, 4, 3), (128, 256, 64, 8, 3)]
    for dt, cdt, acc, prec, tol in cfgs:
        for bm, bn, bk, w, st in blocks:
            if (dt == "fp32" or prec != "tf32") and bn == 256:
                continue
            name = f"mm_{dt}_{prec}_{bm}x{bn}x{bk}_w{w}_s{st}"
            lib = build(name, mm_args(dt, cdt, acc, prec, bm, bn, bk, w, st))
            if not lib:
                fails += 1; continue
            for M, N, K in [(64, 64, 32), (1000, 1000, 1000), (3, 17, 40), (257, 129, 1003), (512, 256, 2048)]:
                if K % 16 and dt != "fp32":
                    pass
                a, b = rand((M, K), dt), rand((K, N), dt)
                c = torch.full((M, N), float("nan") if cdt != "i32" else -7, device="cuda").to(TD[cdt])
                # strides must be multiples of 16 elements for the :16 signature: pad
                Kp, Np = (K + 15) // 16 * 16, (N + 15) // 16 * 16
                a2 = torch.zeros((M, Kp), device="cuda", dtype=a.dtype); a2[:, :K] = a
                b2 = torch.zeros((K, Np), device="cuda", dtype=b.dtype); b2[:, :N] = b
                c2 = torch.full((M, Np), -7, device="cuda").to(TD[cdt])
                Kx = K if K % 16 == 0 else K  # K itself must be :16 in the signature
                if K % 16:
                    continue
                run_mm(lib, "matmul_kernel_launch", a2, b2, c2, M, N, K)
                torch.cuda.synchronize()
                ref = a.double() @ b.double()
                if not check(f"{name} {M}x{N}x{K}", c2[:, :N], ref, tol if dt != "i8" else 0):
                    fails += 1
    # transposed A
    lib = build("mm_at", ["-k", "matmul_at_kernel", "-s", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1",
                          "-D", "BLOCK_M=64", "-D", "BLOCK_N=64", "-D", "BLOCK_K=32", "-w", "4", "--grid", "cdiv(M,64), cdiv(N,64)"])
    if lib:
        for M, N, K in [(64, 64, 32), (1000, 1008, 992)]:
            at = rand((K, M + (16 - M % 16) % 16), "fp16"); b = rand((K, N), "fp16")
            c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
            f = lib.matmul_at_kernel_launch; f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int] * 6
            f(None, at.data_ptr(), b.data_ptr(), c.data_ptr(), M, N, K, at.stride(0), b.stride(0), c.stride(0))
            torch.cuda.synchronize()
            if not check(f"mm_at {M}x{N}x{K}", c, at[:, :M].double().t() @ b.double(), 1e-2):
                fails += 1
    # timing fp16 4096^3
    for bm, bn, bk, w, st in [(128, 128, 32, 4, 3), (128, 256, 64, 8, 3), (128, 128, 64, 4, 4)]:
        name = f"time_{bm}x{bn}x{bk}_w{w}_s{st}"
        lib = build(name, mm_args("fp16", "fp16", "tl.float32", "tf32", bm, bn, bk, w, st))
        if not lib:
            continue
        n = 4096
        a, b = rand((n, n), "fp16"), rand((n, n), "fp16")
        c = torch.empty((n, n), device="cuda", dtype=torch.float16)
        fn = lambda: run_mm(lib, "matmul_kernel_launch", a, b, c, n, n, n)
        ms = triton.testing.do_bench(fn, warmup=25, rep=200)
        grid = lambda META: (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        ct = torch.empty_like(c)
        tfn = lambda: mm_dev.matmul_kernel[grid](a, b, ct, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), ct.stride(0), ct.stride(1),
                                                 BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, ACC=triton.language.float32, PREC="tf32", num_warps=w, num_stages=st)
        tms = triton.testing.do_bench(tfn, warmup=25, rep=200)
        bms = triton.testing.do_bench(lambda: torch.matmul(a, b), warmup=25, rep=200)
        fl = 2 * n ** 3
        print(f"{name}: tilec {fl/ms/1e9:.1f} TFLOP/s, triton {fl/tms/1e9:.1f}, cublas {fl/bms/1e9:.1f}; max diff vs triton {(c.float()-ct.float()).abs().max().item():.3g}")
    if os.environ.get("DISABLE_MMA_V3") != "1":
        code = ("import sys, torch, triton; sys.path.insert(0, '.'); import mm_dev; n = 4096; "
                "a = torch.randn((n, n), device='cuda').half(); b = torch.randn((n, n), device='cuda').half(); c = torch.empty_like(a)\n"
                "for bm, bn, bk, w, st in [(128, 128, 32, 4, 3), (128, 256, 64, 8, 3), (128, 128, 64, 4, 4)]:\n"
                "    g = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)\n"
                "    f = lambda: mm_dev.matmul_kernel[g](a, b, c, n, n, n, n, 1, n, 1, n, 1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, ACC=triton.language.float32, PREC='tf32', num_warps=w, num_stages=st)\n"
                "    ms = triton.testing.do_bench(f, warmup=25, rep=200); print('triton mma.sync (DISABLE_MMA_V3=1)', bm, bn, bk, w, st, round(2 * n ** 3 / ms / 1e9, 1), 'TFLOP/s')\n")
        env = dict(os.environ, DISABLE_MMA_V3="1")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
        print(r.stdout, r.stderr[-2000:])
    print("FAILS", fails)

main()

#!/usr/bin/env python3
"""tl.device_print and tl.device_assert on the GPU, tilec against Triton.

Each run happens in a child process (printf output and a device-side assertion both
belong to the process): the child translates tests/gpu/debug_kernels.py with bin/tilec,
compiles it with nvcc, launches it through its ctypes launcher, or runs it through Triton,
and the parent compares what they print.

  python3 tests/gpu/check_debug_ops.py [--tilec bin/tilec]

Checks: the lines printed by device_print are the same set for both (how often a replicated
element is repeated depends on each compiler's layout and is only noted) (Triton's format:
"pid (x, y, z) idx (i) prefix value"); with --debug (tilec) and TRITON_DEBUG=1 (Triton) an
assertion that fails stops the kernel with the message in the output and an error status,
and one that holds prints nothing."""
import argparse
import ctypes
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "tests", "gpu", "debug_kernels.py")
N, BLOCK = 19, 16


def child(impl, what, tilec, arch):
    import torch
    sys.path.insert(0, os.path.dirname(SRC))
    import debug_kernels as dk
    x = torch.arange(N, device="cuda", dtype=torch.float32) * 1.5 - 3
    ids = torch.arange(N, device="cuda", dtype=torch.int32) * 977
    if what == "assert_fails":
        x[N - 2] = 1000
    grid = ((N + BLOCK - 1) // BLOCK,)
    if impl == "triton":
        if what == "print":
            dk.print_kernel[grid](x, ids, N, BLOCK=BLOCK)
        else:
            dk.assert_kernel[grid](x, N, BLOCK=BLOCK)
        torch.cuda.synchronize()
        return
    kernel = "print_kernel" if what == "print" else "assert_kernel"
    sig = "*fp32, *i32, i32, %d" % BLOCK if what == "print" else "*fp32, i32, %d" % BLOCK
    tmp = tempfile.mkdtemp()
    cu, so = os.path.join(tmp, "k.cu"), os.path.join(tmp, "k.so")
    cmd = [tilec, SRC, "-k", kernel, "-s", sig, "-o", cu] + ([] if what == "print" else ["--debug"])
    subprocess.run(cmd, check=True)
    subprocess.run(["nvcc", "-O3", "-shared", "-Xcompiler", "-fPIC", f"-arch={arch}", "-o", so, cu], check=True)
    lib = ctypes.CDLL(so)
    fn = getattr(lib, kernel + "_launch")
    fn.restype = ctypes.c_int
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    grid3 = [ctypes.c_uint(grid[0]), ctypes.c_uint(1), ctypes.c_uint(1)]
    if what == "print":
        err = fn(stream, *grid3, ctypes.c_void_p(x.data_ptr()), ctypes.c_void_p(ids.data_ptr()), ctypes.c_int32(N))
    else:
        err = fn(stream, *grid3, ctypes.c_void_p(x.data_ptr()), ctypes.c_int32(N))
    if err:
        raise SystemExit(f"launch error {err}")
    torch.cuda.synchronize()


def run(impl, what, tilec, arch):
    env = dict(os.environ)
    if impl == "triton" and what != "print":
        env["TRITON_DEBUG"] = "1"
    r = subprocess.run([sys.executable, __file__, "--child", impl, what, "--tilec", tilec, "--arch", arch],
                       capture_output=True, text=True, env=env, timeout=300)
    return r.returncode, r.stdout, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.path.join(ROOT, "bin", "tilec"))
    ap.add_argument("--arch", default=None)
    ap.add_argument("--child", nargs=2)
    opts = ap.parse_args()
    if opts.child:
        child(opts.child[0], opts.child[1], opts.tilec, opts.arch)
        return 0
    import torch
    major, minor = torch.cuda.get_device_capability()
    arch = opts.arch or f"sm_{major}{minor}"
    failures = 0

    def report(ok, name, detail=""):
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'}  {name}" + (f": {detail}" if detail else ""), flush=True)

    outs = {impl: run(impl, "print", opts.tilec, arch) for impl in ("tilec", "triton")}
    lines = {}
    for impl, (rc, out, err) in outs.items():
        report(rc == 0, f"device_print/{impl} runs", err.strip()[-500:] if rc else "")
        lines[impl] = sorted(ln for ln in out.splitlines() if ln.startswith("pid"))
    # The same distinct lines; how many threads print each replicated element depends on
    # the layout each compiler picked for the tile, so only the counts are noted.
    same = set(lines["tilec"]) == set(lines["triton"])
    if same and lines["tilec"] != lines["triton"]:
        print(f"note  device_print: the same lines, repeated differently for replicated elements "
              f"({len(lines['tilec'])} vs {len(lines['triton'])} lines)")
    detail = ""
    if not same:
        a, b = set(lines["tilec"]), set(lines["triton"])
        detail = (f"{len(a - b)} lines only from tilec (e.g. {sorted(a - b)[:3]}), "
                  f"{len(b - a)} only from Triton (e.g. {sorted(b - a)[:3]})")
    report(same and len(lines["tilec"]) > 0, f"device_print: the same {len(lines['tilec'])} lines as Triton", detail)
    if lines["tilec"]:
        print("      e.g. " + "\n           ".join(lines["tilec"][:1] + [ln for ln in lines["tilec"] if " i " in ln][:1]
                                                  + [ln for ln in lines["tilec"] if " n" in ln][:1]))

    for impl in ("tilec", "triton"):
        rc, out, err = run(impl, "assert_fails", opts.tilec, arch)
        text = out + err
        report(rc != 0 and "x must stay below 100" in text, f"device_assert/{impl} fires",
               f"status {rc}; output: {text.strip()[-300:]}" if rc == 0 or "x must stay below 100" not in text else
               next((ln for ln in text.splitlines() if "x must stay below 100" in ln), "")[:200])
        rc, out, err = run(impl, "assert_holds", opts.tilec, arch)
        report(rc == 0 and "x must stay below 100" not in out + err, f"device_assert/{impl} silent when it holds",
               (out + err).strip()[-300:])
    print(f"debug ops: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

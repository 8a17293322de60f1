#!/bin/sh
# What the matmul kernels become in SASS, for sm_90 (no GPU needed).  Called by `make sass-check`:
#
#   TILEC=bin/tilec NVCC=nvcc sh tests/run_sass_check.sh
#
# 1. The fp16 matmul_kernel of examples/matmul.py, 128x128x32, 4 warps, 4 stages, sizes and
#    leading dimensions divisible by 16 (as the bench specialises them), compiled to a cubin: its
#    SASS must contain HMMA (mma.sync), LDSM (ldmatrix) and LDGSTS (cp.async).  With M, N and
#    K left plain i32, A's K tail is still copied by cp.async, its mask tested per 16-byte
#    vector at run time, but B's columns (taken % N) are not proven contiguous and B stays
#    plain loads (LDG and STS).
# 2. Every matmul configuration the examples name: each `bin/tilec` command line in the comment
#    at the top of examples/matmul.py, every config of matmul_autotuned_kernel (--config N), and
#    the default configs of bench/bench_matmul.py (DEFAULT_CONFIGS, with its signature: sizes
#    and leading dimensions "i32:16", unit strides 1), each through nvcc -O3 -arch=sm_90
#    -Xptxas -v: ptxas must report no spill stores or loads.
# 3. The TMA persistent matmul (tests/golden/matmul_tma_persistent.flags) built for sm_90a: its
#    SASS must hold UTMALDG (TMA copies), UTMASTG (its epilogue's TMA store), HGMMA (wgmma)
#    and SYNCS (mbarriers) and no LDGSTS (no cp.async left), and ptxas must report no spills.
#
# cuobjdump (and the nvdisasm it runs) come from $CUOBJDUMP, PATH, $CUDA_HOME/bin, or the PyPI
# packages nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm.  JOBS nvcc at a time (default: the
# number of processors).

TILEC=${TILEC:-bin/tilec}
NVCC=${NVCC:-nvcc}
ARCH=sm_90
EXAMPLE=examples/matmul.py
BENCH=bench/bench_matmul.py
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "sass-check: nvcc not found (NVCC=$NVCC)" >&2
    exit 1
fi
if [ -z "${CUDA_HOME:-}" ]; then
    CUDA_HOME=$(dirname "$(dirname "$(command -v "$NVCC")")")
fi

find_cuobjdump() {
    if [ -n "${CUOBJDUMP:-}" ]; then
        echo "$CUOBJDUMP"
    elif command -v cuobjdump >/dev/null 2>&1; then
        command -v cuobjdump
    elif [ -x "$CUDA_HOME/bin/cuobjdump" ]; then
        echo "$CUDA_HOME/bin/cuobjdump"
    else
        python3 -c 'import glob, nvidia, os
for d in nvidia.__path__:
    for p in sorted(glob.glob(os.path.join(d, "*", "bin", "cuobjdump"))):
        print(p)' 2>/dev/null | head -n 1
    fi
}
CUOBJDUMP=$(find_cuobjdump)
if [ -z "$CUOBJDUMP" ] || [ ! -x "$CUOBJDUMP" ]; then
    # without cuobjdump the instructions are checked one level up, in the PTX ptxas reads
    echo "sass-check: cuobjdump not found (set CUOBJDUMP, or: pip install nvidia-cuda-cuobjdump" \
         "nvidia-cuda-nvdisasm); checking the PTX for mma.sync, ldmatrix and cp.async instead"
    CUOBJDUMP=
else
    PATH="$(dirname "$CUOBJDUMP"):$PATH"   # where a PyPI cuobjdump finds its nvdisasm
    export PATH
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sass-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0
failures=""
fail() {
    failed=$((failed + 1))
    failures="$failures
  $1"
}

# ---- 1. HMMA, LDSM and LDGSTS in the fp16 kernel's SASS -----------------------------------
fp16_sig="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 128, 128, 32, 8"
if [ -z "$CUOBJDUMP" ]; then
    if "$TILEC" "$EXAMPLE" -k matmul_kernel -s "$fp16_sig" -w 4 --num-stages 4 -o "$tmp/fp16.cu" 2>"$tmp/log" &&
            "$NVCC" -ptx -arch="$ARCH" -o "$tmp/fp16.ptx" "$tmp/fp16.cu" >>"$tmp/log" 2>&1; then
        counts=""
        missing=""
        for insn in mma.sync ldmatrix cp.async.cg; do
            n=$(grep -c "^[[:space:]]*$insn" "$tmp/fp16.ptx")
            counts="$counts $insn $n,"
            [ "$n" -gt 0 ] || missing="$missing $insn"
        done
        if [ -z "$missing" ]; then
            passed=$((passed + 1))
            echo "ok   fp16 matmul 128x128x32 sm_90 PTX:${counts%,}"
        else
            echo "FAIL fp16 matmul 128x128x32 sm_90 PTX:${counts%,} (no$missing)"
            fail "PTX of the fp16 matmul: no$missing"
        fi
    else
        echo "FAIL fp16 matmul 128x128x32: tilec or nvcc -ptx failed"
        sed 's/^/    /' "$tmp/log"
        fail "PTX of the fp16 matmul: not built"
    fi
elif "$TILEC" "$EXAMPLE" -k matmul_kernel -s "$fp16_sig" -w 4 --num-stages 4 -o "$tmp/fp16.cu" 2>"$tmp/log" &&
        "$NVCC" -cubin -arch="$ARCH" -o "$tmp/fp16.cubin" "$tmp/fp16.cu" >>"$tmp/log" 2>&1 &&
        "$CUOBJDUMP" -sass "$tmp/fp16.cubin" >"$tmp/fp16.sass" 2>>"$tmp/log"; then
    counts=""
    missing=""
    for insn in HMMA LDSM LDGSTS; do
        n=$(grep -c "[[:space:]]$insn[[:space:].]" "$tmp/fp16.sass")
        counts="$counts $insn $n,"
        [ "$n" -gt 0 ] || missing="$missing $insn"
    done
    counts=${counts%,}
    if [ -z "$missing" ]; then
        passed=$((passed + 1))
        echo "ok   fp16 matmul 128x128x32 sm_90 SASS:$counts"
    else
        echo "FAIL fp16 matmul 128x128x32 sm_90 SASS:$counts (no$missing)"
        fail "SASS of the fp16 matmul: no$missing"
    fi
else
    echo "FAIL fp16 matmul 128x128x32: tilec, nvcc -cubin or cuobjdump failed"
    sed 's/^/    /' "$tmp/log"
    fail "SASS of the fp16 matmul: not built"
fi

# ---- 2. no spills in any matmul configuration the examples name ---------------------------
# One configuration a line: a label, then tilec's arguments, separated by tabs.
python3 - "$EXAMPLE" "$BENCH" >"$tmp/configs" <<'EOF' || { echo "sass-check: cannot list the configurations" >&2; exit 1; }
import ast, re, shlex, sys

example, bench = sys.argv[1], sys.argv[2]
text = open(example).read()

def label(args):
    kernel, sig, flags = "", "", []
    for i, a in enumerate(args):
        if a == "-k":
            kernel = args[i + 1]
        elif a == "-s":
            sig = args[i + 1]
        elif a in ("-w", "--num-stages", "--config"):
            flags.append({"-w": "w", "--num-stages": "s", "--config": "config "}[a] + args[i + 1])
    fields = [f.strip() for f in sig.split(",")]
    dtype = fields[0].lstrip("*").split(":")[0]
    tail = []   # the constexprs: BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M and any strings
    for f in reversed(fields):
        if not re.fullmatch(r"\d+|'\w+'", f) or f == "1":
            break
        tail.insert(0, f.strip("'"))
    sizes = "x".join(tail[:3]) + "".join("/" + t for t in tail[3:])
    return " ".join(w for w in [kernel, dtype, sizes] + flags if w)

configs = []
for line in text.splitlines():
    m = re.match(r"#\s+bin/tilec (.*)$", line)
    if not m:
        continue
    args = shlex.split(m.group(1))
    if "-o" in args:
        del args[args.index("-o"):args.index("-o") + 2]
    if "--config" in args:
        n = len(re.findall(r"triton\.Config\(", text))
        at = args.index("--config") + 1
        for c in range(n):
            args[at] = str(c)
            configs.append((label(args), list(args)))
    else:
        configs.append((label(args), args))

btext = open(bench).read()
defaults = ast.literal_eval(re.search(r"^DEFAULT_CONFIGS = (\{.*?\})$", btext, re.M | re.S).group(1))
ptr = ast.literal_eval(re.search(r"^PTR = (\{.*\})$", btext, re.M).group(1))
for dt, cfg in defaults.items():
    bm, bn, bk, group, warps, stages = re.fullmatch(r"(\d+)x(\d+)x(\d+)/(\d+)/(\d+)/(\d+)", cfg).groups()
    a, c = ptr[dt]
    sig = (f"*{a}:16, *{a}:16, *{c}:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, "
           f"{bm}, {bn}, {bk}, {group}")
    args = [example, "-k", "matmul_kernel", "-s", sig, "-w", warps, "--num-stages", stages]
    if dt == "fp8":
        args += ["--arch", "sm_90"]
    configs.append(("bench " + label(args), args))

for name, args in configs:
    print("\t".join([name] + args))
EOF

# compile_one N ARGS...: tilec then nvcc for configuration N; the log in $tmp/N.log, and
# $tmp/N.ok when it is spill-free
compile_one() {
    n=$1
    shift
    if "$TILEC" "$@" -o "$tmp/$n.cu" >"$tmp/$n.log" 2>&1 &&
            "$NVCC" -O3 -arch="$ARCH" -Xptxas -v -c -o "$tmp/$n.o" "$tmp/$n.cu" >>"$tmp/$n.log" 2>&1 &&
            ! grep -q '[1-9][0-9]* bytes spill' "$tmp/$n.log"; then
        touch "$tmp/$n.ok"
    fi
}

set -f   # signatures hold '*'
tab=$(printf '\t')
n=0
while IFS= read -r line; do
    n=$((n + 1))
    IFS=$tab
    # shellcheck disable=SC2086
    set -- $line
    unset IFS
    echo "$1" >"$tmp/$n.label"
    shift
    compile_one "$n" "$@" &
    if [ $((n % JOBS)) -eq 0 ]; then
        wait
    fi
done <"$tmp/configs"
wait
set +f

i=0
while [ "$i" -lt "$n" ]; do
    i=$((i + 1))
    name=$(cat "$tmp/$i.label")
    regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1 registers/p' "$tmp/$i.log" | head -n 1)
    if [ -e "$tmp/$i.ok" ]; then
        passed=$((passed + 1))
        echo "ok   $name: ${regs:-?}, no spills"
    else
        spill=$(grep -o '[0-9]* bytes spill stores, [0-9]* bytes spill loads' "$tmp/$i.log" | head -n 1)
        echo "FAIL $name: ${spill:-tilec or nvcc failed}${regs:+ ($regs)}"
        grep -v '^ptxas info' "$tmp/$i.log" | sed 's/^/    /' | head -n 20
        fail "$name: ${spill:-not built}"
    fi
done

# ---- 3. the TMA matmul: copies by TMA, products on wgmma, no cp.async, no spills ----------
# the golden's command line (tests/golden/matmul_tma_persistent.flags), built for sm_90a
tma_sass() { # FLAG EXT: nvcc -ptx or -cubin, into $tmp/tma.EXT
    flag=$1
    ext=$2
    set -f
    eval "set -- $(cat tests/golden/matmul_tma_persistent.flags)"
    set +f
    "$TILEC" "$@" -o "$tmp/tma.cu" >"$tmp/tma.log" 2>&1 &&
        "$NVCC" -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v "$flag" -o "$tmp/tma.$ext" "$tmp/tma.cu" \
            >>"$tmp/tma.log" 2>&1
}
if [ -z "$CUOBJDUMP" ]; then
    set -- -ptx ptx
    want="cp.async.bulk.tensor.2d.shared cp.async.bulk.tensor.2d.global wgmma.mma_async mbarrier.try_wait"
    banned="cp.async.cg"
else
    set -- -cubin cubin
    want="UTMALDG UTMASTG HGMMA SYNCS"
    banned="LDGSTS"
fi
kind=$2
if ( tma_sass "$@" ) && { [ "$kind" = ptx ] || "$CUOBJDUMP" -sass "$tmp/tma.cubin" >"$tmp/tma.ptx" 2>>"$tmp/tma.log"; }; then
    counts=""
    bad=""
    for insn in $want $banned; do
        n3=$(grep -c "$insn" "$tmp/tma.ptx")
        counts="$counts $insn $n3,"
        case " $banned " in
        *" $insn "*) [ "$n3" -eq 0 ] || bad="$bad $insn present" ;;
        *) [ "$n3" -gt 0 ] || bad="$bad no $insn" ;;
        esac
    done
    grep -q '[1-9][0-9]* bytes spill' "$tmp/tma.log" && bad="$bad spills"
    if [ -z "$bad" ]; then
        passed=$((passed + 1))
        echo "ok   TMA persistent matmul sm_90a $kind:${counts%,}, no spills"
    else
        echo "FAIL TMA persistent matmul sm_90a $kind:${counts%,} ($bad)"
        fail "TMA matmul:$bad"
    fi
else
    echo "FAIL TMA persistent matmul: tilec, nvcc or cuobjdump failed"
    sed 's/^/    /' "$tmp/tma.log"
    fail "TMA matmul: not built"
fi

echo "sass-check: the fp16 SASS, $n matmul configurations (nvcc -arch=$ARCH) and the TMA matmul (sm_90a)"
if [ "$failed" -ne 0 ]; then
    echo "failed:$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# Every golden .cu through nvcc (sm_80 and sm_90, and sm_90a for wgmma kernels; warnings are
# errors, and ptxas must report no stack frame and no spills: per-thread register arrays stay in
# registers) and through NVRTC (tools/nvrtc_check, sm_80 and sm_90, any warning fails).  On
# sm_90a a ptxas message about wgmma (C7510-C7519: serialized groups, waits it inserted) fails
# too.  Called by `make cuda-check`:
#
#   NVCC=nvcc NVRTC_CHECK=build/release/tools/nvrtc_check sh tests/run_cuda_check.sh [FILE.cu...]
#
# With no FILE arguments it checks tests/golden/*.cu.  CUDA_HOME (for the NVRTC include
# path) defaults to the toolkit that holds $NVCC.  Needs no GPU.  One nvcc run per file
# compiles every architecture (one front end and host compilation, one device pass each);
# JOBS files at a time (default: the number of processors).

NVCC=${NVCC:-nvcc}
NVRTC_CHECK=${NVRTC_CHECK:-build/release/tools/nvrtc_check}
ARCHS="sm_80 sm_90"

# check_one N FILE: the checks of one file; its report in $tmp/N.log, and in $tmp/N.count
# "PASSED FAILED" and the failures, one a line
check_one() {
    n=$1
    f=$2
    passed=0
    failed=0
    : >"$tmp/$n.log"
    : >"$tmp/$n.fail"
    archs=$ARCHS
    # a golden translated for sm_90 (fp8 tensor cores, bf16 atomics) is built for sm_90 only
    if [ -f "${f%.cu}.flags" ] && grep -q -- '--arch sm_90' "${f%.cu}.flags"; then
        archs=sm_90
    fi
    # a dot on wgmma (sm_90a) keeps its mma.sync path for sm_80 and plain sm_90 in the #else
    if grep -q '__CUDA_ARCH_FEAT_SM90_ALL' "$f"; then
        archs="sm_80 sm_90 sm_90a"
        # fp8 has no mma.sync below sm_89
        grep -q 'compile it for sm_89 or later' "$f" && archs="sm_90 sm_90a"
    fi
    # sm_90a through -gencode: -arch=sm_90a also runs a plain sm_90 pass on some nvcc
    targets=""
    for arch in $archs; do
        targets="$targets -gencode=arch=compute_${arch#sm_},code=$arch"
    done
    # shellcheck disable=SC2086
    if "$NVCC" -std=c++17 -Werror all-warnings -O3 -Xptxas -v $targets -c -o "$tmp/$n.o" "$f" \
            >"$tmp/$n.nvcc" 2>&1 && ! grep -q '[1-9][0-9]* bytes spill' "$tmp/$n.nvcc" &&
            ! grep -q '(C751[0-9])' "$tmp/$n.nvcc" &&
            { grep -q 'sinf(\|cosf(\|tanf(\|printf(' "$f" || ! grep -q '[1-9][0-9]* bytes stack frame' "$tmp/$n.nvcc"; }; then
        # on sm_90a, ptxas must not serialize the wgmma groups (C7514: an instruction reads the
        # accumulators of a group in flight) nor insert waits of its own (C7517);
        # register arrays must stay in registers: a stack frame means local memory
        # (except the slow range reduction of full-precision sinf/cosf/tanf, as in Triton,
        # and printf's argument buffer)
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "  nvcc $(echo $archs | tr ' ' +)  $f" >>"$tmp/$n.fail"
        echo "FAIL nvcc$targets $f" >>"$tmp/$n.log"
        sed 's/^/    /' "$tmp/$n.nvcc" >>"$tmp/$n.log"
    fi
    rm -f "$tmp/$n.o"
    for arch in $archs; do
        [ "$arch" = sm_90a ] && continue  # NVRTC: the two plain architectures
        if "$NVRTC_CHECK" "$arch" "$f" >"$tmp/$n.nvrtc" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            echo "  nvrtc $arch $f" >>"$tmp/$n.fail"
            echo "FAIL nvrtc $arch $f" >>"$tmp/$n.log"
            sed 's/^/    /' "$tmp/$n.nvrtc" >>"$tmp/$n.log"
        fi
    done
    echo "$passed $failed" >"$tmp/$n.count"
}

if [ "${1:-}" = --one ]; then  # one file, as xargs below runs it
    check_one "$2" "$3"
    exit 0
fi

if [ -z "${CUDA_HOME:-}" ]; then
    nvcc_path=$(command -v "$NVCC" 2>/dev/null)
    if [ -n "$nvcc_path" ]; then
        CUDA_HOME=$(dirname "$(dirname "$nvcc_path")")
    fi
fi

if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "cuda-check: nvcc not found (NVCC=$NVCC)" >&2
    exit 1
fi
if [ ! -x "$NVRTC_CHECK" ]; then
    echo "cuda-check: $NVRTC_CHECK not built (make $NVRTC_CHECK)" >&2
    exit 1
fi

if [ $# -eq 0 ]; then
    set -- tests/golden/*.cu
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cuda-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export tmp NVCC NVRTC_CHECK ARCHS CUDA_HOME
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

files=0
for f in "$@"; do
    [ -e "$f" ] || continue
    files=$((files + 1))
    printf '%s %s\n' "$files" "$f"
done >"$tmp/list"

if [ "$files" -eq 0 ]; then
    echo "cuda-check: no .cu files to check"
    echo "0 passed, 0 failed"
    exit 0
fi

xargs -P "$JOBS" -n 2 sh "$0" --one <"$tmp/list"

passed=0
failed=0
failures=""
i=0
while [ "$i" -lt "$files" ]; do
    i=$((i + 1))
    if [ ! -f "$tmp/$i.count" ]; then
        failed=$((failed + 1))
        failures="$failures
  $(sed -n "${i}p" "$tmp/list"): not checked"
        continue
    fi
    cat "$tmp/$i.log"
    read -r p q <"$tmp/$i.count"
    passed=$((passed + p))
    failed=$((failed + q))
    [ -s "$tmp/$i.fail" ] && failures="$failures
$(cat "$tmp/$i.fail")"
done

echo "cuda-check: $files files x (nvcc: $ARCHS in one run, sm_90a too for wgmma kernels; nvrtc: each of $ARCHS)"
if [ "$failed" -ne 0 ]; then
    echo "failed:$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

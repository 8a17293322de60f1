#!/bin/sh
# Every golden .cu through nvcc (sm_80 and sm_90, and sm_90a for wgmma kernels; warnings are errors, and ptxas must report
# no stack frame and no spills: per-thread register arrays stay in registers) and through NVRTC
# (tools/nvrtc_check, sm_80 and sm_90, any warning fails).  On sm_90a a ptxas message about
# wgmma (C7510-C7519: serialized groups, waits it inserted) fails too.  Called by `make cuda-check`:
#
#   NVCC=nvcc NVRTC_CHECK=build/release/tools/nvrtc_check sh tests/run_cuda_check.sh [FILE.cu...]
#
# With no FILE arguments it checks tests/golden/*.cu.  CUDA_HOME (for the NVRTC include
# path) defaults to the toolkit that holds $NVCC.  Needs no GPU.

NVCC=${NVCC:-nvcc}
NVRTC_CHECK=${NVRTC_CHECK:-build/release/tools/nvrtc_check}
ARCHS="sm_80 sm_90"

if [ -z "${CUDA_HOME:-}" ]; then
    nvcc_path=$(command -v "$NVCC" 2>/dev/null)
    if [ -n "$nvcc_path" ]; then
        CUDA_HOME=$(dirname "$(dirname "$nvcc_path")")
        export CUDA_HOME
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

files=0
passed=0
failed=0
failures=""

for f in "$@"; do
    [ -e "$f" ] || continue
    files=$((files + 1))
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
    for arch in $archs; do
        # sm_90a through -gencode: -arch=sm_90a also runs a plain sm_90 pass on some nvcc
        target="-arch=$arch"
        [ "$arch" = sm_90a ] && target="-gencode=arch=compute_90a,code=sm_90a"
        # on sm_90a, ptxas must not serialize the wgmma groups (C7514: an instruction reads the
        # accumulators of a group in flight) nor insert waits of its own (C7517)
        if "$NVCC" -std=c++17 -Werror all-warnings -O3 -Xptxas -v "$target" -c -o "$tmp/out.o" "$f" \
                >"$tmp/log" 2>&1 && ! grep -q '[1-9][0-9]* bytes spill' "$tmp/log" &&
                ! grep -q '(C751[0-9])' "$tmp/log" &&
                { grep -q 'sinf(\|cosf(\|tanf(\|printf(' "$f" || ! grep -q '[1-9][0-9]* bytes stack frame' "$tmp/log"; }; then
            # register arrays must stay in registers: a stack frame means local memory
            # (except the slow range reduction of full-precision sinf/cosf/tanf, as in Triton,
            # and printf's argument buffer)
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            failures="$failures
  nvcc $arch  $f"
            echo "FAIL nvcc $target $f"
            sed 's/^/    /' "$tmp/log"
        fi
        if "$NVRTC_CHECK" "$arch" "$f" >"$tmp/log" 2>&1; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
            failures="$failures
  nvrtc $arch $f"
            echo "FAIL nvrtc $arch $f"
            sed 's/^/    /' "$tmp/log"
        fi
    done
done

if [ "$files" -eq 0 ]; then
    echo "cuda-check: no .cu files to check"
    echo "0 passed, 0 failed"
    exit 0
fi

echo "cuda-check: $files files x ($ARCHS; sm_90a too for wgmma kernels) x (nvcc, nvrtc)"
if [ "$failed" -ne 0 ]; then
    echo "failed:$failures"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

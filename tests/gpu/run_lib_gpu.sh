#!/bin/sh
# make gpu-lib-test: the library path on a machine with an NVIDIA GPU.  Needs cc (and nvcc for
# the example Makefile's nvcc flow) and Python with torch (Triton optional), not re2c or
# Criterion: what is missing is built with cc from the carried $B/libtilec.a.
#   1. examples/host: vector add and softmax translated, compiled and launched through
#      libtilec, results checked;
#   2. every example and golden kernel of the GPU tests through libtilec.so, outputs checked:
#      tests/gpu/run_gpu_tests.py --via lib (translate -> NVRTC for this GPU -> tilec_launch
#      on torch's stream), the same random poisoned inputs and the same checks against the
#      float64 reference and Triton as make gpu-test's nvcc path;
#   2b. launch-time specialisation (tests/gpu/check_specialize.py): kernels with hint-free
#      signatures launched with arguments that do and do not meet each fact, outputs and the
#      variants compiled checked;
#   3. every golden kernel through the C API (lib_golden --run: translate -> NVRTC -> load ->
#      launch on small inputs -> synchronize), also those step 2 leaves to their own cases,
#      except debug_ops (asserts on its data);
#   4. the --embed-cubin flow: tests/lib/embed_run (prebuilt by make lib-test), results checked;
#   5. examples/host/Makefile's three flows built and run.
# Any failure makes the exit status non-zero.
# Environment: TILEC (bin/tilec), B (build/release), CC, CUDA_HOME, PYTHON (python3).
set -u
TILEC=${TILEC:-bin/tilec}
B=${B:-build/release}
CC=${CC:-cc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PYTHON=${PYTHON:-python3}
export CUDA_HOME
FLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iinclude -Itests/lib"
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-lib.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

run() { # NAME COMMAND...
    name=$1
    shift
    echo "== $name"
    if "$@"; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name"
    fi
}

if [ ! -f "$B/libtilec.a" ]; then
    echo "gpu-lib-test: $B/libtilec.a is missing: build it with make on the development machine and carry $B" >&2
    exit 1
fi
build() { # OUTPUT SOURCE: with cc, when missing
    if [ ! -x "$1" ]; then
        mkdir -p "$(dirname "$1")"
        # shellcheck disable=SC2086
        $CC $FLAGS -o "$1" "$2" "$B/libtilec.a" -ldl -lm || exit 1
    fi
}
build "$B/examples/host/host_example" examples/host/host.c
build "$B/tests/lib/lib_golden" tests/lib/lib_golden.c
build "$B/bench/bench_library" bench/bench_library.c

run "host example (vector add, softmax)" "$B/examples/host/host_example"
if [ ! -f "$B/libtilec.so" ]; then
    echo "FAIL GPU tests through the library: $B/libtilec.so is missing (carry $B after make)"
    fail=$((fail + 1))
elif ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "FAIL GPU tests through the library: $PYTHON not found (set PYTHON)"
    fail=$((fail + 1))
else
    run "GPU tests through the library (run_gpu_tests.py --via lib: outputs checked)" \
        "$PYTHON" tests/gpu/run_gpu_tests.py --via lib --lib "$B/libtilec.so"
fi
if command -v "$PYTHON" >/dev/null 2>&1 && [ -f "$B/libtilec.so" ]; then
    run "launch-time specialisation (check_specialize.py: variants and outputs)" \
        "$PYTHON" tests/gpu/check_specialize.py --lib "$B/libtilec.so"
fi
run "every golden kernel through the C API (launched, synchronized)" "$B/tests/lib/lib_golden" --run --skip debug_ops tests/golden/*.flags
if [ -x "$B/tests/lib/embed_run" ]; then
    run "--embed-cubin flow (embed_run)" "$B/tests/lib/embed_run"
else
    echo "FAIL --embed-cubin flow: $B/tests/lib/embed_run was not built (run make lib-test before carrying $B)"
    fail=$((fail + 1))
fi
if [ -x "$TILEC" ] && command -v nvcc >/dev/null 2>&1; then
    if make --no-print-directory -C examples/host TILEC_TREE="$(pwd)" TILEC="$(pwd)/$TILEC" O="$tmp" \
            CUDA_HOME="$CUDA_HOME" all >"$tmp/make.log" 2>&1; then
        run "example Makefile: library flow" "$tmp/host_example"
        run "example Makefile: nvcc flow" "$tmp/nvcc_example"
        run "example Makefile: embed flow" "$tmp/embed_example"
    else
        cat "$tmp/make.log"
        echo "FAIL example Makefile flows did not build"
        fail=$((fail + 1))
    fi
fi
echo "gpu-lib-test: $pass passed, $fail failed"
echo "(timings: $B/bench/bench_library tests/golden/*.flags)"
[ "$fail" -eq 0 ]

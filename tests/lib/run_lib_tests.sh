#!/bin/sh
# The library's tests that need no GPU (make lib-test, part of make test):
#   1. tests/lib/api_errors: every API error path, plain and under valgrind (when installed);
#      tests/lib/explorer_api: the explorer's page and picture through the API;
#   2. tests/lib/lib_golden: every golden kernel translated and NVRTC-compiled in-process
#      (sm_80 and sm_90 cubins), then again from the cache;
#   3. the CLI's --emit ptx / --emit cubin / --report / --header;
#   4. --embed-cubin: the generated C compiles with cc against cuda.h and links with -lcuda
#      (the driver stub), with tests/lib/embed_run.c (run by make gpu-lib-test);
#   5. the host example runs up to the GPU (translate + compile), and the example Makefile's
#      three flows build;
#   6. make install into a scratch PREFIX, then the host example built with pkg-config
#      against libtilec.so;
#   7. the GPU harness's library path up to the GPU (tests/gpu/run_gpu_tests.py --via lib
#      --build-only, when python3 is installed): its ctypes binding checked against
#      libtilec.so, and every GPU case translated, NVRTC-compiled and its launch arguments
#      accepted by tilec_launch.
# Environment: TILEC, B (build dir), CC, NVCC, CUDA_HOME, as the Makefile passes them.
set -u
TILEC=${TILEC:-bin/tilec}
B=${B:-build/release}
CC=${CC:-cc}
NVCC=${NVCC:-nvcc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export CUDA_HOME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lib-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() { # NAME COMMAND...: runs it, output to $tmp/log
    name=$1
    shift
    if "$@" >"$tmp/log" 2>&1; then
        pass=$((pass + 1))
        echo "ok   $name"
    else
        fail=$((fail + 1))
        echo "FAIL $name"
        sed 's/^/    /' "$tmp/log" | tail -40
    fi
}

# finished NAME PID LOG: check's report for a command started in the background
finished() {
    if wait "$2"; then
        pass=$((pass + 1))
        echo "ok   $1"
    else
        fail=$((fail + 1))
        echo "FAIL $1"
        sed 's/^/    /' "$3" | tail -40
    fi
}

# 2. (started first, in the background: each takes a while on one core) every golden kernel
# through NVRTC, in-process, for both architectures at once
"$B/tests/lib/lib_golden" --arch 80 tests/golden/*.flags >"$tmp/golden80.log" 2>&1 &
golden80=$!
"$B/tests/lib/lib_golden" --arch 90 tests/golden/*.flags >"$tmp/golden90.log" 2>&1 &
golden90=$!

# 1. error paths
check "api_errors" "$B/tests/lib/api_errors"
if command -v valgrind >/dev/null 2>&1; then
    check "api_errors under valgrind (no errors, no leaks)" valgrind -q --leak-check=full \
        --errors-for-leak-kinds=definite,indirect --error-exitcode=3 "$B/tests/lib/api_errors"
else
    echo "skip api_errors under valgrind (valgrind not installed)"
fi

# the explorer's page and picture through the API
check "explorer_api (TILEC_OUTPUT_HTML, TILEC_OUTPUT_SVG, report)" "$B/tests/lib/explorer_api"

# 2. every golden kernel through NVRTC, in-process (started above)
finished "lib_golden sm_80 (every golden kernel, NVRTC in-process, then cached)" "$golden80" "$tmp/golden80.log"
finished "lib_golden sm_90" "$golden90" "$tmp/golden90.log"

# 3. the CLI's compile flags
ADD="examples/vector_add.py -k add_kernel -s *fp32:16,*fp32:16,*fp32:16,i32,1024"
# shellcheck disable=SC2086
check "--emit ptx" sh -c "$TILEC $ADD --emit ptx | grep -q '.entry add_kernel'"
# shellcheck disable=SC2086
check "--emit cubin" sh -c "$TILEC $ADD --emit cubin -o $tmp/add.cubin && head -c 4 $tmp/add.cubin | od -c | grep -q 'E   L   F'"
# shellcheck disable=SC2086
check "--report" sh -c "$TILEC $ADD -o $tmp/add.cu --report 2>&1 | grep -q 'registers .* per thread' &&
                        $TILEC $ADD --report -o $tmp/add.cu 2>&1 | grep -q 'threads per block    128'"
check "--report with --dump is a usage error" sh -c "$TILEC $ADD --report --dump ast >/dev/null 2>&1; [ \$? -eq 2 ]"
check "--header without -o is a usage error" sh -c "$TILEC $ADD --header >/dev/null 2>&1; [ \$? -eq 2 ]"
check "--embed-cubin with a bad list is a usage error" \
    sh -c "$TILEC $ADD --embed-cubin sm_x -o $tmp/x.c >/dev/null 2>&1; [ \$? -eq 2 ]"
for t in fp32 fp16 bf16; do
    check "--header ($t): C sees the launcher" sh -c "
        $TILEC examples/vector_add.py -k add_kernel -s '*$t:16, *$t:16, *$t:16, i32, 1024' \
            --grid 'cdiv(n_elements, BLOCK_SIZE)' -o $tmp/add_$t.cu --header &&
        printf '#include \"add_$t.h\"\nint main(void) { return add_kernel_launch(0, 0, 0, 0, 1) != cudaSuccess; }\n' > $tmp/use_$t.c &&
        $CC -std=c11 -Wall -Wextra -Werror -I$CUDA_HOME/include -c -o $tmp/use_$t.o $tmp/use_$t.c"
done
if command -v "$NVCC" >/dev/null 2>&1; then
    check "--header: nvcc compiles the .cu with its .h" sh -c "
        printf '#include \"add_fp16.h\"\n#include \"add_fp16.cu\"\n' > $tmp/both.cu &&
        $NVCC -std=c++17 -Werror all-warnings -arch=sm_80 -I$tmp -c -o $tmp/both.o $tmp/both.cu"
fi

# 4. --embed-cubin: C with embedded cubins and PTX, compiled by cc, linked against the driver stub
E=$B/tests/lib/embed
mkdir -p "$E"
check "--embed-cubin activation (fp32 scalar, grid)" "$TILEC" examples/fused_activation.py -k activation_kernel \
    -s "*fp32:16, *fp32:16, i32:16, fp32, 'leaky_relu', 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" \
    --embed-cubin sm_80,sm_90,compute_80 -o "$E/activation_kernel_embed.c" --header
check "--embed-cubin softmax (caller's grid)" "$TILEC" examples/softmax.py -k softmax_kernel \
    -s "*fp32:16, *fp32:16, i32, i32, i32, 1024" -w 4 --embed-cubin sm_80,sm_90,compute_80 \
    -o "$E/softmax_kernel_embed.c" --header
check "embed C compiles with cc -std=c99 and links with -lcuda (stub)" \
    "$CC" -std=c99 -O1 -Wall -Wextra -Werror -I"$CUDA_HOME/include" -I"$E" -o "$B/tests/lib/embed_run" \
    tests/lib/embed_run.c "$E/activation_kernel_embed.c" "$E/softmax_kernel_embed.c" \
    -L"$CUDA_HOME/lib64/stubs" -lcuda -lm
# a kernel whose K loop copies tensor-descriptor blocks by TMA and whose epilogue stores its
# block by TMA: its launcher encodes the three maps
check "--embed-cubin TMA matmul (tensor maps encoded by the launcher)" "$TILEC" examples/matmul.py \
    -k matmul_tma_persistent_kernel -s "tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, i32, i32, 128, 128, 64, 8, 132, False" \
    -w 4 --num-stages 3 --arch sm_90 --grid "min(NUM_SMS, cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N))" \
    --embed-cubin sm_90 -o "$E/matmul_tma_embed.c"
check "TMA embed C encodes three tensor maps and compiles with cc -std=c99 -Werror" sh -c "
    [ \$(grep -c 'cuTensorMapEncodeTiled(&tilec_tma' $E/matmul_tma_embed.c) -eq 3 ] &&
    $CC -std=c99 -O1 -Wall -Wextra -Werror -I$CUDA_HOME/include -c -o $tmp/tma_embed.o $E/matmul_tma_embed.c"

# 5. the host example (runs fully on a GPU machine; here up to the missing driver)
check "host example: translate + compile (no GPU needed)" "$B/examples/host/host_example" --allow-no-gpu
if command -v "$NVCC" >/dev/null 2>&1; then
    check "examples/host/Makefile: library, nvcc and embed flows build" \
        make --no-print-directory -C examples/host TILEC_TREE="$(pwd)" TILEC="$(pwd)/$TILEC" O="$tmp" \
        CUDA_HOME="$CUDA_HOME" NVCC="$NVCC" all
fi

# 6. make install + pkg-config + the shared library
if command -v pkg-config >/dev/null 2>&1; then
    check "make install to a scratch PREFIX" make --no-print-directory install BUILD="${BUILD:-release}" \
        PREFIX="$tmp/prefix"
    check "host example via pkg-config against libtilec.so" sh -c "
        PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig &&  export PKG_CONFIG_PATH &&
        $CC -std=c11 -Wall -Werror -o $tmp/host_so examples/host/host.c \$(pkg-config --cflags --libs tilec) -lm \
            -Wl,-rpath,$tmp/prefix/lib &&
        ldd $tmp/host_so | grep -q 'libtilec.so.0.2 => $tmp/prefix/lib' && $tmp/host_so --allow-no-gpu &&
        [ -x $tmp/prefix/bin/tilec ] && [ -f $tmp/prefix/include/tilec.h ] && [ -f $tmp/prefix/lib/libtilec.a ]"
    # An application may use any name tilec uses inside: the installed archive exports only
    # the tilec_* API (mk/lib.mk makes the rest local).
    cat > $tmp/clash.c <<'EOF'
#include <stdio.h>
#include <tilec.h>
int line(void) { return 1; }
int fmt(void) { return 2; }
int fill(void) { return 3; }
int decl(void) { return 4; }
int main(void) { printf("%s %d\n", tilec_version(), line() + fmt() + fill() + decl()); return 0; }
EOF
    check "installed libtilec.a: only tilec_* is global; an app defining line, fmt, fill links" sh -c "
        [ -z \"\$(nm -g --defined-only $tmp/prefix/lib/libtilec.a | awk 'NF == 3 && \$3 !~ /^tilec_/')\" ] &&
        $CC -std=c11 -Wall -Werror -I$tmp/prefix/include -o $tmp/clash $tmp/clash.c \
            $tmp/prefix/lib/libtilec.a -ldl -lm &&
        $tmp/clash | grep -q ' 10\$'"
else
    echo "skip make install + pkg-config (pkg-config not installed)"
fi

# 7. the GPU harness's ctypes path to the library, as far as it goes without a GPU
if command -v python3 >/dev/null 2>&1; then
    check "run_gpu_tests.py --via lib --build-only (every GPU case through libtilec.so up to the GPU)" \
        python3 tests/gpu/run_gpu_tests.py --via lib --lib "$B/libtilec.so" --build-only --arch sm_90
else
    echo "skip run_gpu_tests.py --via lib --build-only (python3 not installed)"
fi

echo "lib-test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

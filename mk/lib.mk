# mk/lib.mk — libtilec (include/tilec.h): the runtime objects, the shared library,
# pkg-config, install, and the library's tests.  Included by the Makefile.
#
#   make lib-test          API unit programs, every golden kernel through NVRTC in-process,
#                          --emit ptx/cubin/--report, --header, --embed-cubin, the host example
#                          (builds and links; no GPU needed).  Part of `make test`.
#   make gpu-lib-test      on a GPU machine: every GPU test case through libtilec.so with its
#                          outputs checked (run_gpu_tests.py --via lib), the host example, the
#                          embed-cubin program and every golden kernel launched through the C API
#                          (needs cc and Python with torch there; no re2c, no Criterion).
#   make bench-lib         translate/compile timings (and launch overhead on a GPU).

RT_SRCS  := $(wildcard src/runtime/*.c)
RT_OBJS  := $(RT_SRCS:%.c=$(B)/%.o)
# The soname carries the major and minor version while the major is 0: a minor release may
# change the API's structs (docs/LIBRARY.md, "Versions"), so an application built against one
# must not load another.
LIB_VERSION := 0.2.0
LIB_SOVERSION := 0.2

# Position-independent objects so the same ones make libtilec.a and libtilec.so; only the
# functions marked TILEC_API in include/tilec.h are exported from the .so.
CFLAGS += -Iinclude -fPIC -fvisibility=hidden
LDLIBS += -ldl

.PHONY: lib lib-test gpu-lib-test install-lib bench-lib

all: lib
lib: $(B)/libtilec.a $(B)/libtilec.so $(B)/dist/libtilec.a

$(RT_OBJS): include/tilec.h src/runtime/runtime.h
$(B)/src/main.o: include/tilec.h
$(B)/libtilec.a: $(RT_OBJS)

$(B)/libtilec.so: $(LIB_OBJS) $(RT_OBJS)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libtilec.so.$(LIB_SOVERSION) -o $@ $^ -ldl -lm

# The archive users get from `make install`: every object linked into one, and every symbol
# not marked TILEC_API (hidden by -fvisibility=hidden) made local, so that tilec's internal
# names (line, fmt, fill, ...) can never clash with an application's.  build/*/libtilec.a
# keeps the internal symbols for tilec's own tests.
$(B)/dist/libtilec.a: $(LIB_OBJS) $(RT_OBJS)
	@mkdir -p $(dir $@)
	$(LD) -r -o $(B)/dist/tilec.o $^
	objcopy --localize-hidden $(B)/dist/tilec.o
	rm -f $@ && ar rcs $@ $(B)/dist/tilec.o

# ---- test programs (plain C: they also run on the GPU machine) ------------------------------

LIBTEST_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(OPT) -Iinclude -Itests/lib

$(B)/tests/lib/%: tests/lib/%.c tests/lib/golden_flags.h include/tilec.h $(B)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(LIBTEST_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtilec.a $(LDLIBS)

$(B)/examples/host/host_example: examples/host/host.c include/tilec.h $(B)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(LIBTEST_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtilec.a $(LDLIBS)

$(B)/bench/bench_library: bench/bench_library.c tests/lib/golden_flags.h include/tilec.h $(B)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(LIBTEST_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtilec.a $(LDLIBS)

LIB_TEST_PROGS := $(B)/tests/lib/api_errors $(B)/tests/lib/lib_golden $(B)/tests/lib/explorer_api \
                  $(B)/examples/host/host_example \
                  $(B)/bench/bench_library

lib-test: $(TILEC) $(LIB_TEST_PROGS) $(B)/libtilec.so
	TILEC=$(TILEC) B=$(B) BUILD=$(BUILD) CC="$(CC)" NVCC=$(NVCC) CUDA_HOME=$(CUDA_HOME) sh tests/lib/run_lib_tests.sh
	$(MAKE) --no-print-directory $(PAR) BUILD=asan build/asan/tests/lib/api_errors
	build/asan/tests/lib/api_errors >/dev/null
	@echo "ok   api_errors under ASan+UBSan (no errors, no leaks)"

# Runs on the GPU machine without make's dependency checks (no re2c there): the script
# builds what is missing from the carried libtilec.a with cc alone.
gpu-lib-test:
	TILEC=$(TILEC) B=$(B) CC="$(CC)" CUDA_HOME=$(CUDA_HOME) sh tests/gpu/run_lib_gpu.sh

bench-lib: $(B)/bench/bench_library
	$(B)/bench/bench_library tests/golden/*.flags

# ---- install -------------------------------------------------------------------------------

install-lib: $(B)/dist/libtilec.a $(B)/libtilec.so $(B)/dist/libtilec.a
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/tilec.h $(DESTDIR)$(PREFIX)/include/tilec.h
	install -m 755 $(B)/libtilec.so $(DESTDIR)$(PREFIX)/lib/libtilec.so.$(LIB_VERSION)
	ln -sf libtilec.so.$(LIB_VERSION) $(DESTDIR)$(PREFIX)/lib/libtilec.so.$(LIB_SOVERSION)
	ln -sf libtilec.so.$(LIB_SOVERSION) $(DESTDIR)$(PREFIX)/lib/libtilec.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIB_VERSION)|' mk/tilec.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tilec.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/tilec.pc

# `make gpu-test` also runs the library path.
gpu-test: gpu-lib-test

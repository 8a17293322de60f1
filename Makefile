# tilec — build, test and install.
#
#   make                    release build of bin/tilec
#   make example            bin/tilec, then the bundled vector-add kernel translated into
#                           build/example/add_kernel.cu (the README's first command)
#   make BUILD=debug        -O0 -g, IR verifier after every pass
#   make BUILD=asan         AddressSanitizer + UndefinedBehaviorSanitizer
#   make test               everything CI runs (no GPU needed)
#   make explorer-test      the explorer's pages in headless chromium (skipped without it)
#   make fuzz FUZZ_SECONDS=600   libFuzzer on the lexer, parser, translation (mk/fuzz.mk)
#   make gpu-test           on a machine with an NVIDIA GPU (and Triton, optional)
#   make install PREFIX=/usr/local
#
# Builds go to build/$(BUILD)/; bin/tilec is the release binary (or the
# build named by BUILD when that is not release: bin/tilec-$(BUILD)).

BUILD   ?= release
B       := build/$(BUILD)
PREFIX  ?= /usr/local
CC      ?= cc
RE2C    ?= re2c
NVCC    ?= nvcc
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
# How many builds and test cases the suites run at once (the test scripts read it too).
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
export JOBS
# -j for a sub-make that builds, unless it shares make's own jobs (make -jN)
PAR      = $(if $(filter --jobserver%,$(MAKEFLAGS)),,-j$(JOBS))

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASEFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) -Isrc -I$(B)/gen
ifeq ($(BUILD),release)
  OPT := -O2 -g
else ifeq ($(BUILD),debug)
  OPT := -O0 -g -DTILEC_DEBUG
else ifeq ($(BUILD),asan)
  OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DTILEC_DEBUG
else
  $(error BUILD must be release, debug or asan)
endif

CFLAGS  += $(BASEFLAGS) $(OPT)
LDFLAGS += $(filter -fsanitize%,$(OPT))
LDLIBS  += -lm

ifeq ($(BUILD),release)
  TILEC := bin/tilec
else
  TILEC := bin/tilec-$(BUILD)
endif

LIB_SRCS := src/common.c $(wildcard src/parser/*.c) $(wildcard src/tileir/*.c) \
            $(wildcard src/emit_cuda/*.c) $(wildcard src/emit_html/*.c) src/driver.c src/options.c
GEN_SRCS := $(B)/gen/lexer.c $(B)/gen/templates.c $(B)/gen/page_templates.c
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o) $(GEN_SRCS:.c=.o)
TEMPLATES := $(sort $(wildcard templates/*.cuh))
PAGE_TEMPLATES := $(sort $(wildcard templates/explorer/*))
UNIT_SRCS := $(wildcard tests/unit/*.c)

.PHONY: all clean example test unit golden errors cuda-check sass-check asan-check valgrind-check gpu-test install regen-golden \
        explorer-test
all: $(TILEC) $(B)/libtilec.a

$(TILEC): $(B)/src/main.o $(B)/libtilec.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/libtilec.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/%.o: %.c $(wildcard src/*.h src/*/*.h) $(B)/gen/templates.h $(B)/gen/page_templates.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/gen/%.o: $(B)/gen/%.c $(wildcard src/*.h)
	$(CC) $(CFLAGS) -Wno-unused-function -c -o $@ $<

$(B)/gen/lexer.c: src/lexer.re
	@mkdir -p $(dir $@)
	$(RE2C) -W -Werror --no-generation-date --no-version -o $@ $<

# templates/*.cuh are embedded as C strings by a tiny host tool.
$(B)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O1 -o $@ $<

$(B)/gen/templates.c $(B)/gen/templates.h: $(TEMPLATES) $(B)/tools/embed
	@mkdir -p $(B)/gen
	$(B)/tools/embed $(B)/gen/templates $(TEMPLATES)

# templates/explorer/ (the page, its style and its script) are the explorer's (--emit html).
$(B)/gen/page_templates.c $(B)/gen/page_templates.h: $(PAGE_TEMPLATES) $(B)/tools/embed
	@mkdir -p $(B)/gen
	$(B)/tools/embed -t tilec_page_templates $(B)/gen/page_templates $(PAGE_TEMPLATES)

# ---- the bundled example --------------------------------------------------

# What the README's first command shows: tilec built and one kernel translated, with its
# launcher's header, into a .cu that nvcc compiles.  Needs no CUDA.
EXAMPLE_CU := build/example/add_kernel.cu

example: $(TILEC)
	@mkdir -p $(dir $(EXAMPLE_CU))
	$(TILEC) examples/vector_add.py -k add_kernel -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
	    --grid "cdiv(n_elements, BLOCK_SIZE)" -o $(EXAMPLE_CU) --header
	@echo "wrote $(EXAMPLE_CU) and $(EXAMPLE_CU:.cu=.h); compile with: nvcc -O3 -arch=sm_80 -c $(EXAMPLE_CU)"

# ---- tests ---------------------------------------------------------------

$(B)/unit_tests: $(UNIT_SRCS:%.c=$(B)/%.o) $(B)/libtilec.a
	$(CC) $(LDFLAGS) -o $@ $^ -lcriterion $(LDLIBS)

unit: $(B)/unit_tests
	$(B)/unit_tests --jobs $(JOBS)

golden: $(TILEC)
	TILEC=$(TILEC) sh tests/run_golden.sh

errors: $(TILEC)
	TILEC=$(TILEC) sh tests/run_errors.sh
	python3 tools/diag_coverage.py --check

# Every golden .cu through nvcc (sm_80, sm_90) and NVRTC.
$(B)/tools/nvrtc_check: tools/nvrtc_check.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O1 -I$(CUDA_HOME)/include -o $@ $< -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnvrtc

cuda-check: $(B)/tools/nvrtc_check
	NVCC=$(NVCC) NVRTC_CHECK=$(B)/tools/nvrtc_check sh tests/run_cuda_check.sh

# The fp16 matmul's SASS holds HMMA, LDSM and LDGSTS; no matmul configuration the examples
# and the bench name spills (tests/run_sass_check.sh).
sass-check: $(TILEC)
	TILEC=$(TILEC) NVCC=$(NVCC) sh tests/run_sass_check.sh

# The front end and the whole pipeline under ASan/UBSan on every test input.
asan-check:
	$(MAKE) $(PAR) BUILD=asan bin/tilec-asan build/asan/unit_tests
	build/asan/unit_tests --jobs $(JOBS)
	TILEC=bin/tilec-asan sh tests/run_golden.sh
	TILEC=bin/tilec-asan sh tests/run_errors.sh

# Memcheck (invalid accesses, uninitialised reads, leaks) on every example translation.
valgrind-check: $(TILEC)
	TILEC=$(TILEC) sh tests/run_valgrind.sh

# The explorer's pages (--emit html) driven in headless chromium: links, grids against tilec's
# layout maps, thread choice, console, load time.  Skipped, saying so, without chromium.
explorer-test: $(TILEC)
	TILEC=$(TILEC) python3 tests/explorer/run_explorer_tests.py

# Everything the suites need is built first, JOBS at a time (the release and the ASan
# builds, the test programs); then the suites run one after another, each running its
# own cases JOBS at a time.
TEST_SUITES := unit golden errors cuda-check asan-check valgrind-check fuzz-check lib-test sass-check explorer-test
test:
	$(MAKE) --no-print-directory $(PAR) all $(B)/unit_tests $(B)/tools/nvrtc_check $(LIB_TEST_PROGS)
	$(MAKE) --no-print-directory $(PAR) BUILD=asan bin/tilec-asan build/asan/unit_tests build/asan/tests/lib/api_errors
	@for t in $(TEST_SUITES); do $(MAKE) --no-print-directory $$t || exit 1; done
	@echo "make test: all suites passed"

regen-golden: $(TILEC)
	TILEC=$(TILEC) REGEN=1 sh tests/run_golden.sh

gpu-test: $(TILEC)
	python3 tests/gpu/run_gpu_tests.py --tilec $(TILEC)
	python3 tests/gpu/check_debug_ops.py --tilec $(TILEC)

# ---- install ---------------------------------------------------------------

install: $(TILEC) install-lib
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(TILEC) $(DESTDIR)$(PREFIX)/bin/tilec
	install -m 644 $(B)/dist/libtilec.a $(DESTDIR)$(PREFIX)/lib/libtilec.a

include mk/lib.mk

clean:
	rm -rf build bin/tilec bin/tilec-debug bin/tilec-asan
include mk/fuzz.mk

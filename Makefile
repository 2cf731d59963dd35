# Entry points: `make sample` (set up, then run the bundled sample day offline on a real local model),
# `make sample-sim` (the same day on the engine simulator, in seconds) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup llama model sample sample-sim test lint bench

$(BIN)/papers: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/papers

# llama-cpp-python builds llama.cpp from source (about 6 minutes on 2 cores); done once per venv.
llama: setup
	@$(BIN)/python -c 'import llama_cpp' 2>/dev/null || { \
	  echo "installing llama-cpp-python (builds llama.cpp from source, about 6 minutes on 2 cores) ..."; \
	  $(BIN)/pip install --quiet -e '.[dev,llama]'; }

# The offline GGUF (DESIGN.md §5) in models/, checked against its sha256; kept when it is already there.
model: setup
	$(BIN)/papers model fetch

sample: llama model
	$(BIN)/papers sample --engine llama-cpp

sample-sim: setup
	$(BIN)/papers sample --engine sim

# The real-engine test needs llama-cpp-python and the model; if either cannot be had, the suite still
# runs and that test is skipped with the reason.
test: setup
	@$(MAKE) -k --no-print-directory llama model || echo "warning: llama-cpp-python or the offline model is missing; the real-engine test will be skipped" >&2
	$(BIN)/ruff check .
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check .

bench: setup
	TQDM_DISABLE=1 $(BIN)/python bench/run.py  # tqdm reads this when it is imported

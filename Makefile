# Two entry points: `make sample` (set up, then run the bundled sample day offline) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup sample test lint bench

$(BIN)/papers: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/papers

sample: setup
	$(BIN)/papers sample

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check .

bench: setup
	$(BIN)/python bench/run.py

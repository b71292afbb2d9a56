# `make demo`: set up on a fresh machine and run the demo (embedded, no servers).
# `make test`: set up, start Redis if needed, lint, type-check and run every test.
# `make reliability`: the fault suite against real processes (10-20 min); writes docs/reliability.md.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup setup-dev demo test lint reliability

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install -q -e .

setup-dev: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev,minilm]'

demo: setup
	$(BIN)/sediment demo

lint: setup-dev
	$(BIN)/ruff check contracts telemetry readmodel worker sediment tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

test: setup-dev lint
	./scripts/ensure-redis
	$(BIN)/python -m pytest -q -p no:cacheprovider

reliability: setup-dev
	$(BIN)/python -m bench.reliability --baseline

# `make demo`: set up on a fresh machine and run the demo (embedded, no servers).
# `make test`: set up, start Redis if needed, lint, type-check and run every test.
# `make reliability`: the fault suite against real processes (10-20 min); writes docs/reliability.md.
# `make docs`: the documentation site (MkDocs, Material) into site/; `make docs-serve` serves it.
#   Both install the package with its `docs` extra only (no torch), once: a stamp in the venv
#   (DOCS_VENV, by default the same venv) says it is done, until pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DOCS_VENV ?= $(VENV)
DOCS_BIN := $(DOCS_VENV)/bin
DOCS_STAMP := $(DOCS_VENV)/.docs-installed

.PHONY: setup setup-dev setup-docs demo test lint reliability docs docs-serve

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
	$(BIN)/ruff check contracts telemetry readmodel worker sediment tests bench docs/hooks
	$(BIN)/mypy
	$(BIN)/lint-imports

test: setup-dev lint
	./scripts/ensure-redis
	$(BIN)/python -m pytest -q -p no:cacheprovider

reliability: setup-dev
	$(BIN)/python -m bench.reliability --baseline

$(DOCS_STAMP): pyproject.toml
	test -x $(DOCS_BIN)/python || $(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_BIN)/pip install -q -e '.[docs]'
	touch $@

setup-docs: $(DOCS_STAMP)

docs: setup-docs
	NO_MKDOCS_2_WARNING=1 $(DOCS_BIN)/mkdocs build --strict

docs-serve: setup-docs
	NO_MKDOCS_2_WARNING=1 $(DOCS_BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

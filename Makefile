# Two commands for a fresh machine with Python 3.11+ and make:
#   make demo   set up .venv, install, play a whole demo game of Sultan
#   make test   set up .venv with the test extras, run ruff, mypy and the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo-game
SEED ?= 2026

.PHONY: demo test lint typecheck pytest install install-test dev golden bench crash clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# A real (non-editable) install: what users get from `pip install .`.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet '.[test]'

# An editable install for working on the code.
dev: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

demo: install
	rm -rf $(DEMO_DIR)
	$(BIN)/adjudicator demo sultan --players 4 --seed $(SEED) --dir $(DEMO_DIR)

test: install-test lint typecheck pytest

lint:
	$(BIN)/ruff check adjudicator games tests benchmarks
	$(BIN)/ruff format --check adjudicator games tests benchmarks

typecheck:
	$(BIN)/mypy adjudicator games

pytest:
	$(BIN)/pytest

# Rewrite the golden report files from the current templates (review the diff before committing).
golden:
	ADJUDICATOR_REGENERATE_GOLDEN=1 $(BIN)/pytest tests/test_golden_reports.py

bench: install-test
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/submit.py
	$(BIN)/python benchmarks/headers.py

# The long run of the kill test: every failpoint of every command (some 800 kills).
crash: install-test
	ADJUDICATOR_CRASH_RUNS=1000 $(BIN)/pytest tests/test_crash.py

clean:
	rm -rf $(VENV) build dist *.egg-info $(DEMO_DIR)

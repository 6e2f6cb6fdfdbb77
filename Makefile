# Two commands for a fresh machine with Python 3.11+ and make:
#   make demo   set up .venv, install, play a whole demo game of Sultan
#   make test   set up .venv with the test extras, run ruff, mypy and the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_DIR ?= demo-game
SEED ?= 2026

.PHONY: demo test quick lint typecheck pytest install install-test dev golden bench crash mutate clean catalogs

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

# The tests run on every core (pytest-xdist), with one worker more than the cores
# (tests/conftest.py; PYTEST_XDIST_AUTO_NUM_WORKERS sets another count); a worker that is free
# takes work from a busy one.
# Where Debian's eatmydata is installed they run under it: the fsyncs the program asks for are
# made (the tests that check their order record the calls) but the disk is not waited on, which,
# for the files and folders the program syncs, only a power cut could tell apart (a killed
# process loses nothing that reached the kernel; an fsync of a pipe or a device, which fails
# without eatmydata, succeeds under it, and the program syncs none).
# The suite then takes about a fifth less. `make test EATMYDATA=` runs it with every fsync.
# Its files go to a folder in memory where the machine has one to spare (tests/scratch.py), and
# a test's files are removed as it passes; a TMPDIR set in the environment is kept.
# pytest keeps each test module with its assertions rewritten in __pycache__, so that the next
# run does not rewrite them all again (about 8 s of CPU per worker): an environment that sets
# PYTHONDONTWRITEBYTECODE forbids that, so the tests run without it.
EATMYDATA ?= $(shell command -v eatmydata 2>/dev/null)
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(EATMYDATA) $(BIN)/pytest -n auto --dist worksteal

pytest:
	$(PYTEST)

# The suite without the tests marked slow (the kill tests, Chromium, whole games by mail, every
# option's bot game) or seconds (each of the others that takes about a second or more: `pytest
# --durations=0 -m "not slow and not seconds"` finds one to mark): for a quick run while
# working. CI and `make test` run everything.
quick: install-test lint typecheck
	$(PYTEST) -m "not slow and not seconds"

# Rewrite the golden report files from the current templates (review the diff before committing).
golden:
	ADJUDICATOR_REGENERATE_GOLDEN=1 $(BIN)/pytest tests/test_golden_reports.py

# The message catalogs (docs/presentation.md): extract every text and template string of each
# folder of words, bring each language's .po up to date, compile the .mo files the program reads.
WORD_FOLDERS := templates/common templates/sultan templates/sultans_court
LANGUAGES := de nl fr
catalogs:
	for folder in $(WORD_FOLDERS); do mkdir -p $$folder/locale; \
	  $(BIN)/pybabel --quiet extract -F babel.cfg --no-wrap --sort-by-file \
	    -c TRANSLATORS: -o $$folder/locale/messages.pot $$folder || exit 1; \
	  for lang in $(LANGUAGES); do \
	    if [ -f $$folder/locale/$$lang/LC_MESSAGES/messages.po ]; then \
	      $(BIN)/pybabel --quiet update --no-wrap -i $$folder/locale/messages.pot \
	        -d $$folder/locale -l $$lang || exit 1; \
	    else \
	      $(BIN)/pybabel --quiet init --no-wrap -i $$folder/locale/messages.pot \
	        -d $$folder/locale -l $$lang || exit 1; \
	    fi; \
	  done; \
	  $(BIN)/pybabel --quiet compile -d $$folder/locale || exit 1; \
	  rm -f $$folder/locale/messages.pot; \
	done

# Every benchmark runs, whatever the one before it found; the exit is 1 when any target is missed.
BENCHMARKS := startup submit headers verify read commands long_game tick send demo engine
bench: install-test
	@missed=0; for name in $(BENCHMARKS); do \
	  $(BIN)/python benchmarks/$$name.py || missed=1; done; exit $$missed

# The long run of the kill tests: every failpoint of every command (some 800 kills); the suite
# kills each command at the first failpoint of each kind, and its last (tests/test_crash.py).
crash: install-test
	ADJUDICATOR_CRASH_RUNS=1000 $(EATMYDATA) $(BIN)/pytest tests/test_crash.py \
	  tests/test_clock_waits_for_mail_crash.py

# The mutation check (docs/reliability.md, "Mutation check"): a fixed sample of mutants of the
# engine, the views, the answer limit and verify, each against the tests that guard its module
# (some 20 minutes). It changes the repository's files one at a time, so it needs the editable
# install, and it always puts each file back.
mutate: dev
	$(BIN)/python benchmarks/mutate.py

clean:
	rm -rf $(VENV) build dist *.egg-info $(DEMO_DIR)

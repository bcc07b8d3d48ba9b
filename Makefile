# Every target sets itself up on a fresh machine: a local venv, torch's CPU build
# installed before anything that pulls torch (a plain `pip install torch` would
# fetch a multi-GB CUDA build), then the project with its extras.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TORCH_PIN := torch==2.13.0
# Test threads: numba's parallel loops are erratic on a busy 2-core machine.
export NUMBA_NUM_THREADS ?= 2

.PHONY: help install browser demo test test-fast lint bench models clean

help:
	@echo "make demo   - the main job (set-up included)"
	@echo "make test   - the test suite (set-up included)"
	@echo "make lint   - ruff, mypy --strict, import-linter"
	@echo "make bench  - speed against the installed peers (SUITES=user-path, evaluator, copies, ...)"
	@echo "make models - train, ship and evaluate the six computer opponents (hours)"
	@echo "make install   - the virtualenv .venv with every extra (what the others run first)"
	@echo "make test-fast - the tests less the slow ones and the wheel's"
	@echo "make browser   - Debian's chromium for the browser tests (as root)"
	@echo "make clean     - remove .venv and the caches"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet $(TORCH_PIN)
	$(PIP) install --quiet -e '.[train,multiagent,export,play,notebooks,dev,rllib]'
	touch $@

install: $(VENV)/.installed

# The browser test (tests/play/test_browser.py) drives Debian's chromium through
# Playwright (never a browser download of Playwright's own). Installed here when
# missing, as root with apt-get; elsewhere the test skips and says why.
browser:
	@if command -v chromium >/dev/null 2>&1 || [ -x /usr/lib/chromium/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; \
	else echo "chromium is missing (apt-get install chromium as root): the browser test will skip"; fi

$(VENV)/.bench-installed: $(VENV)/.installed
	# Peers measured in the same run; a peer that fails to install shows as n/a.
	-$(PIP) install --quiet pokerkit==0.7.7 treys phevaluator eval7 pokerfast==0.2.0
	-$(PIP) install --quiet rlcard==1.2.0 pygame==2.6.1
	-$(PIP) install --quiet open_spiel==2.0.2
	touch $@

demo: install
	$(PY) scripts/demo.py

# agents/models/: each from agents/configs/<name>.toml, resumed where a run stopped.
MODELS := draw52 draw32 draw_match52 red_dog holdem_hu holdem_6max
models: install
	for m in $(MODELS); do $(PY) scripts/ship_model.py $$m || exit 1; done

test: install browser
	$(PY) -m pytest -q -n 2 --dist loadfile

test-fast: install
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not slow and not wheel"

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check poker_env agents scripts tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) scripts/check_notebooks.py

bench: $(VENV)/.bench-installed
	NUMBA_NUM_THREADS=$$(nproc) $(PY) bench/run.py $(SUITES)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info
	find . -name __pycache__ -prune -exec rm -rf {} +

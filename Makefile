# dagrad: developer entry points.
#
#   make demo    create .venv, install dagrad[notebooks], run the demo
#   make test    create .venv, install dagrad[test] (+ torch for parity tests), run pytest
#   make bench   run the benchmarks (same environment as `make test`)
#   make venv    only create .venv
#   make clean   remove build artefacts, caches and demo output (keeps .venv)
#   make distclean   clean, and remove .venv too
#
# Installation is recorded by stamp files inside .venv that depend on pyproject.toml,
# so repeating a target with nothing changed does no pip work.
# `make test` runs two pytest workers with one BLAS/OpenMP thread each: on two cores, threaded
# BLAS in both workers oversubscribes the CPU and small training loops slow down 10-80x.
# Benchmarks set their own thread counts (2 per framework, see benchmarks/common.py).

SHELL := /bin/bash

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
TORCH_REQ := torch==2.13.0

TEST_THREADS := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# Extra arguments for pytest, e.g. `make test PYTEST_ARGS="-k linear -x"`.
PYTEST_ARGS ?=

export PIP_DISABLE_PIP_VERSION_CHECK := 1

# Printed (inside double quotes in the shell) when `dot` is missing and cannot be installed.
DOT_MISSING := Graphviz's \`dot\` program is missing: install it with \`sudo apt-get install graphviz\` (Debian/Ubuntu), \`brew install graphviz\` (macOS) or \`conda install graphviz\`; DOT text output works without it

.PHONY: demo test bench venv clean distclean ensure-dot

# ---------------------------------------------------------------- environment

$(PY):
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

$(VENV)/.installed-demo: pyproject.toml | $(PY)
	$(PIP) install -e '.[notebooks]'
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install -e '.[test]'
	@# Parity tests need PyTorch; without it they are skipped locally, but CI must run them.
	$(PIP) install $(TORCH_REQ) || { \
	  if [ -n "$$CI" ]; then echo "error: could not install $(TORCH_REQ) for the parity tests" >&2; exit 1; fi; \
	  echo "warning: could not install $(TORCH_REQ); PyTorch parity tests will be skipped" >&2; }
	@touch $@

# Graphviz's `dot` renders SVG. Install it when we can; never fail without it.
ensure-dot:
	@if command -v dot >/dev/null 2>&1; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo -n"; fi; \
	  echo "Installing Graphviz (dot) with apt-get ..."; \
	  if ! { $$SUDO apt-get update -qq && \
	         $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz; }; then \
	    echo "warning: apt-get could not install graphviz." >&2; \
	    echo "$(DOT_MISSING)" >&2; \
	  fi; \
	else \
	  echo "$(DOT_MISSING)" >&2; \
	fi

# ---------------------------------------------------------------- targets

demo: ensure-dot $(VENV)/.installed-demo
	@if [ -f viz/__main__.py ]; then \
	  echo "$(PY) -m viz demo --out demo_output"; \
	  $(PY) -m viz demo --out demo_output; \
	else \
	  echo "$(PY) examples/train_mlp_digits.py"; \
	  $(PY) examples/train_mlp_digits.py; \
	fi

# pytest exits with 5 when it collects no tests; that is a failure here.
test: ensure-dot $(VENV)/.installed-test
	@echo "$(TEST_THREADS) $(PY) -m pytest -n 2 tests $(PYTEST_ARGS)"; \
	status=0; $(TEST_THREADS) $(PY) -m pytest -n 2 tests $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ]; then \
	  echo "error: pytest collected no tests (exit code 5)" >&2; \
	fi; \
	exit $$status

bench: $(VENV)/.installed-test
	$(PY) -m benchmarks

clean:
	rm -rf demo_output build .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name '*.egg-info' -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

# dagrad: developer entry points. `make` or `make help` lists them.
#
# Installation is recorded by stamp files inside .venv that depend on pyproject.toml,
# so repeating a target with nothing changed does no pip work.
# `make test` runs two pytest workers with one BLAS/OpenMP thread each: on two cores, threaded
# BLAS in both workers oversubscribes the CPU and small training loops slow down 10-80x.
# Benchmarks set their own thread counts (2 per framework, see benchmarks/common.py).

.DEFAULT_GOAL := help

SHELL := /bin/bash

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
TORCH_REQ := torch==2.13.0
# Notebook 14's run on PyTorch with the book's own library (tests/notebooks/test_exit_door_14.py):
# the torchvision of that torch, and d2l without its dependencies (they pin NumPy 1.x; the ones
# it imports are in the test extra).
BOOK_REQ := torchvision==0.28.0
D2L_REQ := d2l==1.0.3

TEST_THREADS := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# The test run keeps compiled bytecode (in __pycache__, which git ignores and `make clean`
# removes) even where PYTHONDONTWRITEBYTECODE is set: otherwise each of its processes (both
# workers, every lesson kernel, every example and program run in a fresh interpreter) compiles
# the library again, and each worker rewrites every test module's asserts (collection: 25 s
# against 15 s; importing dagrad: 0.65 s against 0.20 s).
TEST_ENV := $(TEST_THREADS) PYTHONDONTWRITEBYTECODE=

# Extra arguments for pytest, e.g. `make test PYTEST_ARGS="-k linear -x"`.
PYTEST_ARGS ?=

export PIP_DISABLE_PIP_VERSION_CHECK := 1

# JupyterLab's news pop-up, the plugin that asks and then shows the news (`make notebooks`).
LAB_NEWS := @jupyterlab/apputils-extension:announcements

# Printed (inside double quotes in the shell) when `dot` is missing and cannot be installed.
DOT_MISSING := Graphviz's \`dot\` program is missing: install it with \`sudo apt-get install graphviz\` (Debian/Ubuntu), \`brew install graphviz\` (macOS) or \`conda install graphviz\`; DOT text output works without it

.PHONY: help demo test quick notebooks course site bench bench-results docs-images venv clean distclean ensure-dot ensure-chromium

# ---------------------------------------------------------------- help

help:   ## list the targets
	@echo "dagrad: make TARGET"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  \1\t/' | expand -t 16

# ---------------------------------------------------------------- environment

$(PY):
	$(PYTHON) -m venv $(VENV)

venv: $(PY)   ## only create .venv

# Each installation says what it installs in one line; pip itself speaks only of a failure.
$(VENV)/.installed-demo: pyproject.toml | $(PY)
	@echo "Installing dagrad and the notebooks extra into $(VENV) (pip) ..."
	@$(PIP) install -q -e '.[notebooks]'
	@touch $@

$(VENV)/.installed-site: pyproject.toml | $(PY)
	@echo "Installing dagrad with the notebooks and site extras into $(VENV) (pip) ..."
	@$(PIP) install -q -e '.[notebooks,site]'
	@touch $@

$(VENV)/.installed-course: pyproject.toml | $(PY)
	@echo "Installing dagrad with the notebooks and course extras into $(VENV) (pip) ..."
	@$(PIP) install -q -e '.[notebooks,course]'
	@touch $@

# Parity tests need PyTorch; without it they are skipped locally, but CI must run them.
# The course extra too: tests/exercises/test_course.py grades the lessons through nbgrader.
$(VENV)/.installed-test: pyproject.toml | $(PY)
	@echo "Installing dagrad with the test, site and course extras into $(VENV) (pip) ..."
	@$(PIP) install -q -e '.[test,site,course]'
	@echo "Installing $(TORCH_REQ), the reference of the parity tests (a large download the first time) ..."
	@$(PIP) install -q $(TORCH_REQ) || { \
	  if [ -n "$$CI" ]; then echo "error: could not install $(TORCH_REQ) for the parity tests" >&2; exit 1; fi; \
	  echo "warning: could not install $(TORCH_REQ); PyTorch parity tests will be skipped" >&2; }
	@echo "Installing $(BOOK_REQ) and $(D2L_REQ), for notebook 14's run on PyTorch ..."
	@$(PIP) install -q $(BOOK_REQ) && $(PIP) install -q --no-deps $(D2L_REQ) || { \
	  if [ -n "$$CI" ]; then echo "error: could not install $(BOOK_REQ) $(D2L_REQ) for notebook 14's PyTorch run" >&2; exit 1; fi; \
	  echo "warning: could not install $(BOOK_REQ) $(D2L_REQ); notebook 14's PyTorch run will be skipped" >&2; }
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

# Debian's Chromium for the browser tests (Playwright drives the system browser; it cannot
# download its own here). Without it those tests are skipped with the reason shown, except under
# CI, where tests/viz/browser.py fails them.
ensure-chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1 && { [ "$$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; }; then \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo -n"; fi; \
	  echo "Installing Chromium with apt-get (for the browser tests) ..."; \
	  $$SUDO apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium || \
	  echo "warning: apt-get could not install chromium; browser tests will be skipped" >&2; \
	else \
	  echo "warning: chromium is missing; browser tests will be skipped" >&2; \
	fi

# ---------------------------------------------------------------- targets

demo: ensure-dot $(VENV)/.installed-demo   ## set up .venv, train an MLP on the digits, write pictures to demo_output/
	$(PY) -m dagrad.viz demo --out demo_output

# pytest exits with 5 when it collects no tests; that is a failure here. Besides pytest's dots,
# each lesson run, the site and each browser test print a line as they finish, and a summary
# gives the time of each stage (tests/conftest.py). A worker that runs out of tests takes half
# of the other's remaining ones (--dist worksteal): with xdist's default the run ended on one
# worker running the last seven lessons alone for 1 min 30 s. (Handing the long tests out
# first put lessons in both workers at once, or beside Chromium: 5-8 s longer each in its run.)
test: ensure-dot ensure-chromium $(VENV)/.installed-test   ## set up .venv with the test extras and run every test, notebooks included (about 11 min on two idle cores, measured: 8,452 tests in 10 min 27 s to 11 min 49 s over four runs; far longer on a busy machine)
	@echo "make test: every test on 2 workers ($(TEST_THREADS)): the library's as dots, then a line for each lesson run, the site and each browser test as it finishes"
	@status=0; $(TEST_ENV) $(PY) -m pytest -n 2 --dist worksteal tests $(PYTEST_ARGS) || status=$$?; \
	if [ $$status -eq 5 ]; then \
	  echo "make test: pytest collected no tests (exit code 5)" >&2; \
	fi; \
	exit $$status

# A check in about a minute for someone changing the code: the library's tests (the engine,
# the modules, the optimizers, the file formats, the error messages), every operation of the op
# table once (first and second order, the reference engine, PyTorch). DAGRAD_QUICK_TESTS=1 is
# the one switch, read in tests/stages.py, which says what a quick run leaves out and why: the
# lessons, the site and the browser, the folders of the PyTorch programs, the exercises, the
# pictures and the docs' blocks, and the tests marked slow (the op table's further shapes, the
# convolution and pooling grids, the models trained to a target, the estimates over many
# draws, the times at n and 10n, the graphs of 10^5 and more operations). make test runs them.
quick: ensure-dot $(VENV)/.installed-test   ## the library's tests, each operation once: for changing the code; no lessons, site, browser, programs, pictures, sweeps or training runs (3,312 tests: 71 s on two idle cores, measured)
	@echo "make quick: the library's tests without the slow ones, on 2 workers (make test runs everything)"
	@$(TEST_ENV) DAGRAD_QUICK_TESTS=1 $(PY) -m pytest -n 2 --dist worksteal -q tests $(PYTEST_ARGS)

# JupyterLab refuses to run as root ("Running as root is not recommended") unless told to:
# containers and cloud machines often are root. Its news pop-up ("Would you like to get notified
# about official Jupyter news?") covers a corner of every screen until answered: it is turned
# off in .venv's own Jupyter settings (the user's are left alone).
notebooks: $(VENV)/.installed-demo   ## start JupyterLab on notebooks/ (prints the URL; no browser is opened)
	@$(PY) -m jupyter labextension disable --level=sys_prefix $(LAB_NEWS) >/dev/null 2>&1
	$(PY) -m jupyter lab --no-browser --notebook-dir=notebooks $$([ "$$(id -u)" -eq 0 ] && echo --allow-root)

# The lessons as an nbgrader course in $(COURSE)/ (docs/teaching.md): `make course LESSONS="01 02"`.
COURSE ?= course
LESSONS ?=
course: $(VENV)/.installed-course   ## write the lessons as nbgrader assignments in course/source/ (docs/teaching.md)
	$(PY) -m dagrad.exercises.course --course $(COURSE) $(LESSONS)

site: ensure-dot $(VENV)/.installed-site   ## execute every lesson and build the static site in build/site/ (4.5 CPU-minutes; 13 min on a busy machine)
	$(PY) -m website.build --out build/site

bench: $(VENV)/.installed-test   ## time W1-W6 against PyTorch, NumPy, MyGrad, HIPS autograd -> benchmarks/results-latest.md (7-12 min; BEFORE=rev also times that commit's dagrad)
	@echo "Benchmarks: W1-W6 (and the other NumPy engines), 7 alternated rounds per framework; 7 to 12 minutes on 2 cores."
	$(PY) -m benchmarks --malloc $(if $(BEFORE),--before $(BEFORE))

bench-results: $(VENV)/.installed-test   ## as bench, but rewrite the committed benchmarks/RESULTS.md
	@echo "Benchmarks: W1-W6 (and the other NumPy engines), 7 alternated rounds per framework; 7 to 12 minutes on 2 cores."
	$(PY) -m benchmarks --malloc $(if $(BEFORE),--before $(BEFORE)) --out benchmarks/RESULTS.md

docs-images: ensure-dot $(VENV)/.installed-demo   ## redraw the README's picture, docs/images/readme_graph.svg
	$(PY) docs/make_images.py

clean:   ## remove build artefacts, caches and demo output (keeps .venv)
	rm -rf demo_output build .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name '*.egg-info' -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean   ## clean, and remove .venv too
	rm -rf $(VENV)

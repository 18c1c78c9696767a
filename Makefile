# Set-up is self-contained: every target creates or refreshes the virtualenv it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= 0

.PHONY: test compile venv clean

$(VENV)/.stamp-test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[test,adapters]'
	touch $@

venv: $(VENV)/.stamp-test

test: $(VENV)/.stamp-test
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache
	find artifacts -mindepth 1 ! -name .gitkeep -delete

# The main job: every constraint x tokenizer of schemas/indexc.toml -> artifacts/<tokenizer>/<name>.idx
# (incremental through artifacts/manifest.json: an unchanged pair is not recompiled; docs/build.md).
compile: $(VENV)/.stamp-test
	$(VENV)/bin/indexc build schemas/indexc.toml -o artifacts/ --jobs $(JOBS)

# Benchmark against outlines-core, llguidance and xgrammar (bench/README.md), in its own venv.
# xgrammar needs torch: the CPU wheel torch==2.13.0 (on disk) goes in first, as any other torch
# spec downloads gigabytes; xgrammar gets 10 minutes, and without it the bench still runs and
# says "xgrammar: not installed".
BENCH_VENV ?= .venv-bench
BENCH_PY := $(BENCH_VENV)/bin/python
BENCH_ARGS ?=

.PHONY: bench

$(BENCH_VENV)/.stamp-bench: pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_PY) -m pip install -q --upgrade pip
	$(BENCH_PY) -m pip install -q torch==2.13.0
	timeout 600 $(BENCH_PY) -m pip install -q xgrammar || echo "xgrammar: not installed; the bench runs without it"
	if $(BENCH_PY) -c "import xgrammar" 2>/dev/null; then $(BENCH_PY) -m pip install -q -e '.[bench]'; \
	else $(BENCH_PY) -m pip install -q -e '.[test]'; fi
	touch $@

bench: $(BENCH_VENV)/.stamp-bench
	$(BENCH_PY) -m bench.bench_regex $(BENCH_ARGS)

# MaskBench protocol on real JSON Schemas (bench/maskbench/README.md). Runs in the main venv;
# xgrammar's workers use $(BENCH_PY) when that venv exists (make bench builds it), else xgrammar
# is reported as not run. Examples: make bench-maskbench MASKBENCH_ARGS="--expected --limit 200"
#   make bench-maskbench MASKBENCH_ENGINES=indexc,llguidance,outlines-core,xgrammar MASKBENCH_ARGS="--every 23"
MASKBENCH_DIR ?= ../shared/maskbench
MASKBENCH_ENGINES ?= indexc,llguidance
MASKBENCH_ARGS ?=

.PHONY: bench-maskbench

bench-maskbench: $(VENV)/.stamp-test
	$(PY) -m bench.maskbench $(MASKBENCH_DIR) --engines $(MASKBENCH_ENGINES) --xgrammar-python $(BENCH_PY) \
		--compare-llguidance $(MASKBENCH_ARGS)

# Grammars (issue 5): the bundled grammars and sample documents with indexc, llguidance and
# xgrammar (bench/bench_grammar.py, in the bench venv for xgrammar), then the recursive MaskBench
# schemas (bench/data/recursive_maskbench.txt) through the MaskBench protocol with the same engines.
GRAMMAR_ARGS ?=

.PHONY: bench-grammar

bench-grammar: $(BENCH_VENV)/.stamp-bench $(VENV)/.stamp-test
	$(BENCH_PY) -m bench.bench_grammar $(GRAMMAR_ARGS)
	$(PY) -m bench.maskbench $(MASKBENCH_DIR) --files @bench/data/recursive_maskbench.txt \
		--engines indexc,llguidance,xgrammar --xgrammar-python $(BENCH_PY)

# Fuzz the artifact loader and matcher (never in CI; tests/data/fuzz_corpus/README.md): the
# hypothesis fuzz test with many more, fresh examples, then atheris for FUZZ_SECONDS when it installs.
FUZZ_EXAMPLES ?= 20000
FUZZ_SECONDS ?= 300

.PHONY: fuzz

fuzz: $(VENV)/.stamp-test
	INDEXC_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) HYPOTHESIS_PROFILE=dev $(PY) -m pytest -q tests/runtime/test_runtime_fuzz.py
	$(PY) -m pip install -q atheris || echo "atheris: not installed; hypothesis only"
	mkdir -p build/fuzz-corpus build/fuzz-crashes
	if $(PY) -c "import atheris" 2>/dev/null; then $(PY) fuzz/fuzz_loader.py -max_total_time=$(FUZZ_SECONDS) \
		-rss_limit_mb=2048 -artifact_prefix=build/fuzz-crashes/ build/fuzz-corpus; fi

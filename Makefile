# Set-up is self-contained: every target creates or refreshes the virtualenv it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= 0

.PHONY: test compile venv clean

$(VENV)/.stamp-test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

venv: $(VENV)/.stamp-test

test: $(VENV)/.stamp-test
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) artifacts/*.idx artifacts/*.zst .pytest_cache

# The main job: every example constraint in schemas/ -> artifacts/ (incremental through make).
TOKENIZER ?= tests/data/tokenizers/llama3.json.zst
REGEXES := $(wildcard schemas/*.regex)
ARTIFACTS := $(patsubst schemas/%.regex,artifacts/%.idx,$(REGEXES))

compile: $(VENV)/.stamp-test $(ARTIFACTS)
	@echo "compiled $(words $(ARTIFACTS)) constraints into artifacts/"

artifacts/%.idx: schemas/%.regex $(TOKENIZER) $(VENV)/.stamp-test
	$(VENV)/bin/indexc compile --tokenizer $(TOKENIZER) --regex-file $< -o $@ --jobs $(JOBS)

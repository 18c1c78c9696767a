# Set-up is self-contained: every target creates or refreshes the virtualenv it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
JOBS ?= 0

.PHONY: test compile bench venv clean

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

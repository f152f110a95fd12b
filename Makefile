# The two commands of README.md. Everything else they need is set up here.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: run test worker lint format bench-deps
QUEUES ?= engine-pyfunc engine-diff-c engine-diff-python

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

run: $(VENV)/.installed
	$(PY) -m fuzzweb.devstack

# A worker for another machine: same DATABASE_URL and REDIS_URL as the dashboard.
worker: $(VENV)/.installed
	$(PY) manage.py rqworker $(QUEUES)

test: $(VENV)/.installed
	bash scripts/test.sh

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench-deps: $(VENV)/.installed
	$(PY) -m pip install --quiet -r bench/requirements.txt

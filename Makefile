# The two commands of README.md. Everything else they need is set up here.
# The system's python3.11 where there is one: a Python under a user's home (pyenv in
# /root, say) is out of reach of the account workers run as (fuzzweb/worker_account.py).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3.11) python3.11)
VENV := .venv
PY := $(VENV)/bin/python
CF_VENV := .venv-clusterfuzz
CLUSTERFUZZ_VERSION := 2.6.0

.PHONY: run test worker lint format bench-deps kotlin
QUEUES ?= engine-pyfunc engine-diff-c engine-diff-python engine-diff-kotlin reduce
# The Kotlin compiler for the K1-against-K2 campaigns, from the npm registry
# (keep in step with engines/differential/kotlin.py).
KOTLIN_VERSION := 2.1.21
KOTLIN := .tools/kotlin-compiler

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(KOTLIN)/.installed:
	rm -rf $(KOTLIN) && mkdir -p $(KOTLIN)
	cd .tools && npm pack --silent kotlin-compiler@$(KOTLIN_VERSION) >/dev/null
	tar xzf .tools/kotlin-compiler-$(KOTLIN_VERSION).tgz -C $(KOTLIN) --strip-components=1
	rm .tools/kotlin-compiler-$(KOTLIN_VERSION).tgz
	touch $@

kotlin: $(KOTLIN)/.installed

# Without npm or java the Kotlin target is simply not offered; the rest runs.
# Silent recipes: fuzzweb.devstack prints the three lines a user needs (URL, login, status).
run: $(VENV)/.installed
	@bash scripts/ensure_bubblewrap.sh
	-@$(MAKE) -s --no-print-directory kotlin
	@$(PY) -m fuzzweb.devstack

# A worker for another machine: same DATABASE_URL and REDIS_URL as the dashboard.
# Started as root, it runs as the unprivileged account fuzzweb-worker (fuzzweb/worker_account.py).
worker: $(VENV)/.installed
	bash scripts/ensure_bubblewrap.sh
	$(PY) -m fuzzweb.worker_account rqworker $(QUEUES)

test: $(VENV)/.installed
	bash scripts/test.sh

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench-deps: $(VENV)/.installed $(CF_VENV)/.installed-$(CLUSTERFUZZ_VERSION)
	$(PY) -m pip install --quiet -r bench/requirements.txt

# ClusterFuzz's own grouping (bench/clusterfuzz_grouping.py) in a venv of its
# own: clusterfuzz pins redis<5, the project needs redis 8.
$(CF_VENV)/.installed-$(CLUSTERFUZZ_VERSION):
	test -x $(CF_VENV)/bin/python || $(PYTHON) -m venv $(CF_VENV)
	$(CF_VENV)/bin/python -m pip install --quiet clusterfuzz==$(CLUSTERFUZZ_VERSION)
	touch $@

# The two commands of README.md. Everything else they need is set up here.
# The system's python3.11 where there is one: a Python under a user's home (pyenv in
# /root, say) is out of reach of the account workers run as (fuzzweb/worker_account.py).
PYTHON ?= $(firstword $(wildcard /usr/bin/python3.11) python3.11)
VENV := .venv
PY := $(VENV)/bin/python
CF_VENV := .venv-clusterfuzz
CLUSTERFUZZ_VERSION := 2.6.0

.PHONY: run test worker lint format bench-deps kotlin
# Every engine's queue (engines/registry.py), and the reductions'.
QUEUES ?= $(shell $(PY) -m engines.registry queues) reduce
# The Kotlin compilers for the K1-against-K2 campaigns, from the npm registry, each
# unpacked into .tools/kotlin-compiler-<version>/; engines/differential/kotlin.py
# offers K1 and K2 of every one there. KOTLIN_VERSION is the default (keep it in
# step with kotlin.py), linked as .tools/kotlin-compiler; to compare versions,
# list more: make kotlin KOTLIN_VERSIONS="2.1.21 2.2.21".
KOTLIN_VERSION := 2.1.21
KOTLIN_VERSIONS ?= $(KOTLIN_VERSION)
KOTLIN_TOOLS ?= .tools
KOTLIN := $(KOTLIN_TOOLS)/kotlin-compiler

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# A .tools/kotlin-compiler unpacked before versions sat side by side is moved
# into place when it holds the version wanted, instead of fetched again.
$(KOTLIN_TOOLS)/kotlin-compiler-%/.installed:
	rm -rf $(@D)
	if [ -d $(KOTLIN) ] && [ ! -L $(KOTLIN) ] && grep -qs '"version": "$*"' $(KOTLIN)/package.json; then \
		mv $(KOTLIN) $(@D); \
	else \
		mkdir -p $(@D) && (cd $(KOTLIN_TOOLS) && npm pack --silent kotlin-compiler@$* >/dev/null) \
		&& tar xzf $(KOTLIN_TOOLS)/kotlin-compiler-$*.tgz -C $(@D) --strip-components=1 \
		&& rm $(KOTLIN_TOOLS)/kotlin-compiler-$*.tgz; \
	fi
	touch $@

# Then the default's link, and the warm compile server (engines/differential/kotlin_server.py),
# built here because workers may not write .tools.
kotlin: $(foreach version,$(KOTLIN_VERSIONS) $(KOTLIN_VERSION),$(KOTLIN_TOOLS)/kotlin-compiler-$(version)/.installed)
	@if [ "$$(readlink $(KOTLIN))" != kotlin-compiler-$(KOTLIN_VERSION) ]; then \
		rm -rf $(KOTLIN) && ln -s kotlin-compiler-$(KOTLIN_VERSION) $(KOTLIN); fi
	@$(PYTHON) -m engines.differential.kotlin_server build $(KOTLIN)/bin/kotlinc >/dev/null

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

# Plain entry points. `make run` and `make test` each install what they need first.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install system run test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[all,dev]'  # the core, every extra (pyproject.toml) and the test tools
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/tablegames serve

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks conftest.py
	$(BIN)/ruff format --check src tests benchmarks conftest.py

typecheck: $(STAMP)
	$(BIN)/mypy

# Debian packages for the browser and PostgreSQL tests (chromium, postgresql); needs root to install them.
system:
	bash .ci/system-deps

# The server tests run on SQLite and, with TABLEGAMES_TEST_POSTGRES_URL set, on PostgreSQL too:
# start the local cluster for them unless a URL is given.
unit: $(STAMP)
	@if [ -z "$$TABLEGAMES_TEST_POSTGRES_URL" ] && command -v pg_lsclusters >/dev/null 2>&1; then \
	  bash -c 'source .ci/start-postgres && exec $(BIN)/pytest -q'; \
	else \
	  $(BIN)/pytest -q; \
	fi

test: system lint typecheck unit

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build *.egg-info

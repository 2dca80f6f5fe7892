# The two commands of the README: `make serve` and `make test`. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint pytest bench clean graphiql-assets schema

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# GraphiQL's scripts, fetched from the npm registry at pinned versions and never committed,
# so that the page works without internet access (a no-op once they are present).
graphiql-assets: $(STAMP)
	$(BIN)/python -m gateway.http.graphiql_assets

# dynalite, the second DynamoDB implementation the loader tests run against, at the versions
# of its committed package-lock.json (node_modules is never committed).
DYNALITE := tests/dynalite/node_modules/.package-lock.json
$(DYNALITE): tests/dynalite/package-lock.json
	npm ci --prefix tests/dynalite --no-audit --no-fund --loglevel=error
	touch $(DYNALITE)

# schema.graphql is the printed SDL; a test fails until it is regenerated after a schema change.
schema: $(STAMP)
	$(BIN)/insight-gateway schema > schema.graphql

serve: $(STAMP) graphiql-assets
	$(BIN)/insight-gateway serve --embedded

test: lint pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

pytest: $(STAMP) graphiql-assets $(DYNALITE)
	$(BIN)/pytest

# The performance benchmark (bench/): dynalite from npm, the gateway under uvicorn, one table.
bench: $(STAMP) $(DYNALITE)
	$(BIN)/python -m bench

# The image (Dockerfile) built with podman on Debian bases that mmdebstrap makes from Debian's
# mirror, as insight-gateway:local, saved to build/insight-gateway.tar (image/, README "The
# image"). Cached: bases by recipe, layers by podman. The image tests run it (make test).
.PHONY: image
image:
	image/build

clean:
	rm -rf $(VENV) build dist *.egg-info .mypy_cache .ruff_cache .pytest_cache

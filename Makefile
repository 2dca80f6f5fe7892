# The two commands of the README: `make serve` and `make test`. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# uv (from PyPI, installed into the venv by pip) installs exactly what uv.lock says
# (docs/development.md). The Dockerfile installs the same version; tests/test_dependency_lock.py
# holds the two together.
UV_VERSION := 0.13.9
UV := $(BIN)/uv
# The extras this machine needs: dev (which brings otel and embedded) for the tests and serve.
EXTRAS := --extra dev

.PHONY: serve test lint pytest bench clean graphiql-assets schema fuzz lock docs docs-check

# A changed pyproject.toml or uv.lock syncs the venv again: exactly the locked versions, the
# project editable, anything else removed. --locked fails when uv.lock is stale (`make lock`).
# --compile-bytecode writes every package's .pyc once: where PYTHONDONTWRITEBYTECODE is set,
# every process would otherwise compile them again (3 s of CPU a gateway start, 1.3 with them).
$(STAMP): pyproject.toml uv.lock $(UV)
	$(UV) sync --quiet --locked --compile-bytecode $(EXTRAS)
	touch $(STAMP)

# The venv (python3's own venv module, so a machine with only python3 will do) and uv in it.
$(UV): Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==$(UV_VERSION)
	touch $(UV)

# Every dependency at the newest version its range in pyproject.toml allows, then the venv
# synced to it. Run `make test` on the refreshed lock before committing it.
lock: $(UV)
	$(UV) lock --upgrade
	$(MAKE) $(STAMP)

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

# Apollo's composition and gateway and a second subgraph, for the federation composition
# test (tests/federation), at the versions of its committed package-lock.json.
FEDERATION := tests/federation/node_modules/.package-lock.json
$(FEDERATION): tests/federation/package-lock.json
	npm ci --prefix tests/federation --no-audit --no-fund --loglevel=error
	touch $(FEDERATION)

# Apollo Client (its BatchHttpLink), the GraphQL client the batching test drives against a
# running gateway (tests/clients), at the versions of its committed package-lock.json.
CLIENTS := tests/clients/node_modules/.package-lock.json
$(CLIENTS): tests/clients/package-lock.json
	npm ci --prefix tests/clients --no-audit --no-fund --loglevel=error
	touch $(CLIENTS)

# Real subscription clients (npm graphql-ws, Apollo Client's GraphQLWsLink) for
# tests/gateway/subscriptions/test_real_clients.py, at the versions of its package-lock.json.
WS_CLIENTS := tests/ws_clients/node_modules/.package-lock.json
$(WS_CLIENTS): tests/ws_clients/package-lock.json
	npm ci --prefix tests/ws_clients --no-audit --no-fund --loglevel=error
	touch $(WS_CLIENTS)

# The bench's Node peer (bench/peers/apollo: Apollo Server, DataLoader, the AWS SDK v3), which
# `python -m bench peer` and tests/bench/test_peer.py run, at its package-lock.json's versions.
APOLLO_PEER := bench/peers/apollo/node_modules/.package-lock.json
$(APOLLO_PEER): bench/peers/apollo/package-lock.json
	npm ci --prefix bench/peers/apollo --no-audit --no-fund --loglevel=error
	touch $(APOLLO_PEER)

# schema.graphql is the printed SDL; a test fails until it is regenerated after a schema change.
schema: $(STAMP)
	$(BIN)/insight-gateway schema > schema.graphql

# `make serve PORT=8001` when 8000 is taken. Without npm (or a network) GraphiQL's assets are
# skipped with a warning, and the page loads its scripts from the public CDN.
PORT ?= 8000
serve: $(STAMP)
	$(BIN)/python -m gateway.http.graphiql_assets --optional
	$(BIN)/insight-gateway serve --embedded --port $(PORT)

# What the machine lacks for a target (support/bootstrap): installed as root on Debian, else
# named in one line with the command that installs it. Runs first, before anything is built.
BOOTSTRAPS := bootstrap-test bootstrap-bench bootstrap-load bootstrap-image
.PHONY: $(BOOTSTRAPS)
$(BOOTSTRAPS):
	support/bootstrap $(@:bootstrap-%=%)

test: bootstrap-test lint docs-check pytest

# The documentation site (mkdocs.yml, docs/). docs-check builds it with --strict into a
# throwaway folder, so a broken link or a missing page fails `make test`; `make docs` writes the
# settings table of docs/configuration.md again from gateway/settings/, then builds site/.
MKDOCS := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs
docs-check: $(STAMP)
	rm -rf build/docs-check
	$(MKDOCS) build --strict --quiet --site-dir build/docs-check

docs: $(STAMP)
	$(BIN)/python -m gateway.configuration.page docs/configuration.md
	$(MKDOCS) build --strict --quiet

lint: $(STAMP)
	$(UV) lock --check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The project's own .pyc too (only what changed is compiled again), for the processes the
# tests start: replicas, serve, the CLI.
pytest: $(STAMP) graphiql-assets $(DYNALITE) $(FEDERATION) $(CLIENTS) $(WS_CLIENTS) $(APOLLO_PEER)
	$(BIN)/python -m compileall -q gateway schema loaders support
	$(BIN)/pytest

# The performance benchmark (bench/): dynalite from npm, the gateway under uvicorn, one table;
# then the mutations' rows over moto's server (`python -m bench writes` runs them alone), and
# the gateway beside the Node peer (`python -m bench peer`).
bench: bootstrap-bench $(STAMP) $(DYNALITE) $(APOLLO_PEER)
	$(BIN)/python -m bench
	$(BIN)/python -m bench peer
	$(BIN)/python -m bench completion

# The load test on the production topology (bench/load): Debian's nginx with deploy/nginx.conf
# in front of two replicas over dynalite, an open-loop mix with a rolling restart, then 10% of
# DynamoDB calls throttled; then the live and the writes phases over moto's server
# (`python -m bench.load writes` runs the last alone). Minutes long, so not part of
# `make test` (tests/deploy smokes it).
.PHONY: load
load: bootstrap-load $(STAMP) $(DYNALITE)
	$(BIN)/python -m bench.load

# The compiled execution path against graphql-core's, on thousands of generated selections
# (make test runs a few hundred); and thousands of hostile requests, frames and documents
# (make test runs a few dozen).
fuzz: $(STAMP) $(DYNALITE)
	INSIGHT_FUZZ_EXAMPLES=5000 $(BIN)/pytest tests/schema/test_compiled_execution.py -q
	INSIGHT_HOSTILE_EXAMPLES=2000 $(BIN)/pytest -q tests/gateway/http/test_hostile_fuzz.py \
		tests/gateway/subscriptions/test_frame_fuzz.py tests/schema/test_compact_validation.py

# The image (Dockerfile) built with podman on Debian bases that mmdebstrap makes from Debian's
# mirror, as insight-gateway:local, saved to build/insight-gateway.tar (image/, docs/operations.md
# "The image"). Cached: bases by recipe, layers by podman. The image tests run it (make test).
.PHONY: image
image: bootstrap-image
	image/build

clean:
	rm -rf $(VENV) build dist site *.egg-info .mypy_cache .ruff_cache .pytest_cache

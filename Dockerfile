# The Insight gateway's image. Configuration comes only from the environment of the contract
# (INSIGHT_*, AWS_REGION and the AWS credential chain); nothing here sets it.

# The base images, production's by default. `make image` passes local Debian-built ones instead
# (image/, docs/operations.md "The image").
ARG PYTHON_IMAGE=python:3.11.7-slim-bookworm
ARG NODE_IMAGE=node:20.20-bookworm-slim
# The build stage's base: the runtime's, unless one is given that also carries node's libraries.
ARG BUILD_IMAGE=${PYTHON_IMAGE}

# npm only, to fetch GraphiQL's pinned browser assets in the build stage.
FROM ${NODE_IMAGE} AS node

FROM ${BUILD_IMAGE} AS build
# Only for a build behind an intercepting HTTPS proxy: the host's CA bundle, which `make image`
# mounts for the RUN steps (never into a layer). Unset, pip and node use their own.
ARG PIP_CERT
ARG NODE_EXTRA_CA_CERTS
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
RUN ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
WORKDIR /src
COPY pyproject.toml uv.lock README.md ./
COPY gateway ./gateway
COPY loaders ./loaders
COPY schema ./schema
# Fetched and checked against their pinned hashes, then shipped inside the wheel.
RUN python -m gateway.http.graphiql_assets
# The locked versions and nothing else: uv (in a venv of its own, left behind with this stage)
# exports uv.lock's runtime packages with the otel extra, so that INSIGHT_OTEL_ENABLED=true works
# in the image as it is, each with its hashes; pip installs exactly those (--require-hashes,
# --no-deps: nothing resolved here), then the wheel without dependencies, and `pip check` proves
# the set complete. Then the venv's own pip and setuptools go: the runtime installs nothing.
# uv's version is the Makefile's UV_VERSION (tests/test_dependency_lock.py).
RUN python -m venv /opt/uv \
    && /opt/uv/bin/pip install --no-cache-dir --quiet uv==0.13.9 \
    && /opt/uv/bin/uv export --frozen --no-dev --no-emit-project --extra otel \
        --format requirements-txt --output-file /tmp/requirements.txt \
    && python -m venv /opt/venv \
    && /opt/venv/bin/pip install --no-cache-dir --upgrade pip \
    && /opt/venv/bin/pip install --no-cache-dir --require-hashes --no-deps -r /tmp/requirements.txt \
    && /opt/venv/bin/pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
    && wheel="$(ls /wheels/insight_gateway-*.whl)" \
    && /opt/venv/bin/pip install --no-cache-dir --no-deps "${wheel}" \
    && /opt/venv/bin/pip check \
    && /opt/venv/bin/python -m pip uninstall --yes --quiet pip setuptools

FROM ${PYTHON_IMAGE} AS runtime
# No pip in the runtime: the official python image ships one (and setuptools, wheel); a Debian
# base has none, and nothing is done.
RUN if python -m pip --version >/dev/null 2>&1; then \
        python -m pip uninstall --yes --quiet pip setuptools wheel; \
    fi \
    && groupadd --system --gid 10001 gateway \
    && useradd --system --uid 10001 --gid gateway --no-create-home --shell /usr/sbin/nologin gateway
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UVICORN_HOST=0.0.0.0 \
    UVICORN_PORT=8000 \
    UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN=20
USER gateway:gateway
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('UVICORN_PORT', '8000') + '/healthz', timeout=2)"]
# uvicorn calls the factory, which reads the settings from the environment and logs JSON
# lines. uvicorn's own variables: FORWARDED_ALLOW_IPS names the load balancer's addresses to
# trust, UVICORN_TIMEOUT_GRACEFUL_SHUTDOWN bounds how long SIGTERM waits for requests in flight
# (what INSIGHT_SHUTDOWN_GRACE_SECONDS is to `insight-gateway serve`), WEB_CONCURRENCY workers.
# `--ws`: uvicorn's WebSocket protocol with per-message compression as
# INSIGHT_SUBSCRIPTIONS_COMPRESSION says (off by default), and, at SIGTERM, the sockets closed
# with 1012 spread over the grace period (gateway/subscriptions/server_protocol.py).
# `--http`: uvicorn's httptools protocol with the request head bounded (431 over
# INSIGHT_MAX_HEAD_BYTES, closed past INSIGHT_HEAD_TIMEOUT_SECONDS), and at SIGTERM the live
# SSE and multipart streams ended with a `retry:` within a second
# (gateway/live_http/server_protocol.py).
# Open files: each socket is one. An image cannot set ulimits; the factory raises the soft
# RLIMIT_NOFILE to the hard one the runtime gives (containerd, Docker: 1,048,576 or 524,288),
# and warns when it is below INSIGHT_SUBSCRIPTIONS_MAX_SOCKETS plus 1,024. Under a runtime with
# a low hard limit: `docker run --ulimit nofile=65536:65536`.
CMD ["uvicorn", "--factory", "gateway.asgi:create_app_from_environ", "--no-server-header", "--ws", "gateway.subscriptions.server_protocol:GatewayWebSocketProtocol", "--http", "gateway.live_http.server_protocol:GatewayHttpProtocol"]

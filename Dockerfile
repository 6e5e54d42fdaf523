# gbmj-server in a container: docs/hosting.md "Docker".
#   docker build -t gbmj .
#   docker run -d --name gbmj -v gbmj-data:/data -p 7415:7415 -p 2222:2222 \
#       -p 127.0.0.1:9415:9415 gbmj

# -- build: the locked dependencies and gbmj itself, installed into /app/.venv by uv --
FROM python:3.11-slim AS build
RUN pip install --no-cache-dir uv==0.13.9
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never
WORKDIR /app
# The dependencies first, in a layer of their own: it is rebuilt only when uv.lock changes.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --locked --no-dev --no-install-project
COPY protocol protocol
COPY gbmj gbmj
COPY gbmj_server gbmj_server
COPY gbmj_tui gbmj_tui
# Not editable: the environment holds gbmj itself, so the sources stay in this stage.
RUN uv sync --locked --no-dev --no-editable

# -- run: Python, the environment and a user; no compiler, no uv, no sources ------------
FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin gbmj \
    && mkdir /data && chown gbmj:gbmj /data && chmod 700 /data
COPY --from=build /app/.venv /app/.venv
COPY deploy/docker-server.toml /etc/gbmj/server.toml
ENV PATH=/app/.venv/bin:$PATH PYTHONUNBUFFERED=1
USER gbmj
WORKDIR /data
# The database, its backups, the TLS certificate and the SSH host key live here.
VOLUME /data
# game (TLS), SSH play, play in a browser, metrics and health (HTTP)
EXPOSE 7415 2222 8080 9415
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9415/healthz', timeout=4)"]
# SIGTERM (docker stop): players are told, the database is closed.
STOPSIGNAL SIGTERM
ENTRYPOINT ["gbmj-server"]
CMD ["--config", "/etc/gbmj/server.toml"]

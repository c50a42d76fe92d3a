# failref: the web app and JSON API with the shipped references baked in.
# Build: docker build -t failref .   Run: docker run -p 8000:8000 -v failref-data:/data failref
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    FAILREF_DATABASE_URL=sqlite:////data/failref.db \
    FAILREF_REFERENCES_DIR=/app/references \
    FAILREF_STATIC_DIR=/app/static \
    FAILREF_MIGRATIONS_DIR=/app/migrations

WORKDIR /app
# Pinned versions first, so the layer is cached until the lock file changes.
COPY requirements.lock ./
RUN pip install -r requirements.lock
COPY pyproject.toml README.md ./
COPY app ./app
COPY migrations ./migrations
COPY static ./static
COPY references ./references
RUN pip install --no-deps . \
    && useradd --system --uid 10001 --home-dir /app failref \
    && mkdir -p /data && chown failref /data

# The build's name (docker build --build-arg FAILREF_RELEASE=$(git rev-parse HEAD) .), set
# last so the layers above stay cached: with replicas sharing one database, a replica of an
# older image never imports its files over a newer one's (README, "Rolling a deploy").
ARG FAILREF_RELEASE=""
ENV FAILREF_RELEASE=${FAILREF_RELEASE}

USER failref
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"
CMD ["failref", "serve", "--host", "0.0.0.0", "--port", "8000"]

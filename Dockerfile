# The one image every replica runs: API + web app + bot (`svara serve`).
# Stage 1 builds the wheel with the game core compiled by mypyc (setup.py, SVARA_COMPILE=1):
# the full python image has the C compiler the slim one lacks.
FROM python:3.11 AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY events ./events
COPY service ./service
# mypyc type-checks the compiled modules against what they import (redis, aiohttp,
# prometheus_client ...), so the build stage installs the package's dependencies first (the
# plain `pip install .`); without them the build stops at "Cannot find implementation".
# deploy/dockerfile_dry_run.py runs these steps in CI.
RUN pip install --no-cache-dir mypy setuptools wheel \
 && pip install --no-cache-dir . \
 && SVARA_COMPILE=1 pip wheel --no-cache-dir --no-build-isolation --no-deps -w /wheels .

FROM python:3.11-slim
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl uvloop && rm -rf /wheels
EXPOSE 8080
# Stateless: all state lives in Redis (REDIS_URL). SIGTERM drains connections and exits.
CMD ["svara", "serve", "--host", "0.0.0.0", "--port", "8080"]

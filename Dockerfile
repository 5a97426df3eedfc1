# The one image every replica runs: API + web app + bot (`svara serve`).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY events ./events
COPY service ./service
RUN pip install --no-cache-dir . uvloop
EXPOSE 8080
# Stateless: all state lives in Redis (REDIS_URL). SIGTERM drains connections and exits.
CMD ["svara", "serve", "--host", "0.0.0.0", "--port", "8080"]

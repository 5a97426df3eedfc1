"""`docker compose config` accepts docker-compose.yml and resolves it to the topology the nginx
topology test runs (no engine needed: `config` only reads and validates).

Uses the Docker CLI's compose plugin when it is installed, else Debian's `docker-compose`
(which .ci/run installs with apt, like nginx and chromium).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def compose_command() -> list[str]:
    docker = shutil.which("docker")
    if docker is not None:
        plugin = subprocess.run([docker, "compose", "version"], capture_output=True, check=False)
        if plugin.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    assert legacy is not None, (
        "neither `docker compose` nor `docker-compose` is installed; "
        "apt-get install docker-compose (as .ci/run does)"
    )
    return [legacy]


def compose(*args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [*compose_command(), "-f", str(REPO / "docker-compose.yml"), *args],
        cwd=REPO, capture_output=True, text=True, check=False,
        env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(REPO), **(env or {})},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_compose_config_resolves_the_topology() -> None:
    assert sorted(compose("config", "--services").split()) == ["api1", "api2", "proxy", "redis"]
    assert compose("config", "--volumes").split() == ["redis-data"]
    resolved = compose("config", env={"BOT_TOKEN": "123:abc",
                                      "PUBLIC_URL": "https://svara.example"})
    # nginx: the template mounted where the image looks for templates, and filled in from
    # the SVARA_ variables only (nginx's own $variables stay as they are).
    assert f"{REPO}/deploy/nginx.conf:/etc/nginx/templates/default.conf.template:ro" in resolved
    assert "NGINX_ENVSUBST_FILTER: ^SVARA_" in resolved
    assert "SVARA_UPSTREAMS: server api1:8080; server api2:8080;" in resolved
    # Redis with the shipped config on a volume; replicas get the environment through.
    assert f"{REPO}/deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro" in resolved
    assert "redis-data:/data" in resolved
    assert resolved.count("REDIS_URL: redis://redis:6379/0") == 2
    assert resolved.count("BOT_TOKEN: 123:abc") == 2
    assert resolved.count("PUBLIC_URL: https://svara.example") == 2
    assert resolved.count("LOG_FORMAT: json") == 2
    # Both replicas serve the webhook: the proxy sends Telegram's calls to either of them.
    assert resolved.count("BOT_MODE: webhook") == 2


def test_compose_config_refuses_a_broken_file(tmp_path: Path) -> None:
    """The check can fail: a file with an unknown key is refused."""
    broken = tmp_path / "docker-compose.yml"
    broken.write_text((REPO / "docker-compose.yml").read_text().replace(
        "  proxy:\n", "  proxy:\n    no_such_key: 1\n", 1))
    result = subprocess.run(
        [*compose_command(), "-f", str(broken), "config"], cwd=tmp_path,
        capture_output=True, text=True, check=False,
    )
    assert result.returncode != 0
    assert "no_such_key" in result.stderr

"""Debian's nginx running `deploy/nginx.conf` the way the official nginx image does.

The image runs `/docker-entrypoint.d/20-envsubst-on-templates.sh`: every
`/etc/nginx/templates/*.template` goes through `envsubst` with the names of the defined
environment variables that match `NGINX_ENVSUBST_FILTER`, into `/etc/nginx/conf.d/`, which
the image's `nginx.conf` includes inside `http {}`. `render` does that with the real envsubst;
`Nginx` writes a main config shaped like the image's (paths in a temp dir) and runs the binary.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
ENVSUBST_FILTER = "^SVARA_"  # docker-compose.yml sets NGINX_ENVSUBST_FILTER to this

MAIN_CONF = """\
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
daemon off;
events {{ worker_connections 4096; }}
http {{
    log_format upstream '$status $upstream_addr "$request"';
    access_log {dir}/access.log upstream;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/conf.d/*.conf;
}}
"""


def render(template: Path, env: dict[str, str], out: Path) -> None:
    """envsubst over the defined variables matching the filter, as the image's script does."""
    names = sorted(name for name in env if re.search(ENVSUBST_FILTER, name))
    shell_format = " ".join(f"${{{name}}}" for name in names)
    text = subprocess.run(
        ["envsubst", shell_format], input=template.read_bytes(), env=env,
        capture_output=True, check=True,
    ).stdout
    out.write_bytes(text)


class Nginx:
    """One nginx master (one worker) in `directory`, listening on 127.0.0.1:`port`."""

    def __init__(self, directory: Path, port: int, upstreams: list[str]) -> None:
        self.dir = directory
        self.port = port
        self.env = {
            **os.environ,
            "SVARA_UPSTREAMS": " ".join(f"server {u};" for u in upstreams),
            "SVARA_LISTEN": f"127.0.0.1:{port}",
        }
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Nginx:
        (self.dir / "conf.d").mkdir(parents=True, exist_ok=True)
        render(TEMPLATE, self.env, self.dir / "conf.d" / "default.conf")
        (self.dir / "nginx.conf").write_text(MAIN_CONF.format(dir=self.dir))
        args = [NGINX, "-p", str(self.dir), "-e", str(self.dir / "error.log"),
                "-c", str(self.dir / "nginx.conf")]
        check = subprocess.run([*args, "-t"], capture_output=True, check=False)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused the config: {check.stderr.decode()}")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {self.errors()}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError(f"nginx did not listen: {self.errors()}")

    def access(self) -> list[tuple[int, list[str], str]]:
        """(status, the upstreams tried in order, request line) of every request so far."""
        out = []
        for line in (self.dir / "access.log").read_text().splitlines():
            status, rest = line.split(" ", 1)
            upstreams, _, request = rest.partition(' "')
            out.append((int(status), [u.strip() for u in upstreams.split(",")],
                        request.rstrip('"')))
        return out

    def errors(self) -> str:
        log = self.dir / "error.log"
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: workers finish and exit
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

"""fair.js run under node (the browser's module as it is served, imported from a data: URL so
node reads it as an ES module): for tests that need its answers on many files at once without
starting Chromium. node has WebCrypto, TextEncoder and atob as the browser does."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

FAIR_JS = Path(__file__).resolve().parents[2] / "service" / "api" / "static" / "js" / "fair.js"
NODE = shutil.which("node") or "node"


def run(body: str, arg: Any = None) -> Any:
    """Run `body` (an async function body with `fair` the module and `arg`); its return value
    (JSON) comes back."""
    module = base64.b64encode(FAIR_JS.read_bytes()).decode()
    script = (
        f'const fair = await import("data:text/javascript;base64,{module}");\n'
        'let text = ""; for await (const chunk of process.stdin) text += chunk;\n'
        "const arg = JSON.parse(text);\n"
        f"const out = await (async (arg) => {{ {body} }})(arg);\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.mjs"
        path.write_text(script)
        done = subprocess.run(
            [NODE, str(path)],
            input=json.dumps(arg),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)

"""Logging for `svara serve`: plain text (default) or one JSON object a line (`LOG_FORMAT=json`).

A JSON line has `time` (ISO 8601, UTC), `level`, `logger`, `message`, and `table`, `version`,
`action_id` where the code that logs knows them (passed as logging `extra`), plus `exception`
with the traceback when there is one. Nothing else from `extra` is copied, so a stray
attribute never smuggles a payload into the logs.

What must never reach a log, in either format: initData (it is a bearer credential for a day),
the bot token and the dev signing token, hidden cards. The code logs none of them; as a second
line of defence `Redactor` blanks the configured secrets and anything shaped like initData or a
bot token in every formatted line (message and traceback), whoever logged it (aiogram and
aiohttp name URLs in their errors, and a Bot API URL carries the token).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from typing import Any

import msgspec

LOG_FORMATS = ("text", "json")
CONTEXT_FIELDS = ("table", "version", "action_id")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
REDACTED = "[redacted]"

# initData is a query string carrying auth_date and a 64-hex-digit hash (and the user's JSON);
# a bot token is `<digits>:<35 url-safe characters>`.
_INIT_DATA = re.compile(r"[^\s\"']*hash=[0-9a-fA-F]{64}[^\s\"']*")
_BOT_TOKEN = re.compile(r"(?<!\d)\d{5,}:[A-Za-z0-9_-]{30,}")
_encode = msgspec.json.Encoder().encode


class Redactor:
    """Blanks known secrets and credential-shaped strings from formatted log text."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.secrets = sorted({s for s in secrets if s and len(s) >= 8}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if "hash=" in text:
            text = _INIT_DATA.sub(REDACTED, text)
        if ":" in text:
            text = _BOT_TOKEN.sub(REDACTED, text)
        return text


class TextFormatter(logging.Formatter):
    """The classic one-line format, redacted; `[table=… version=… action_id=…]` when known."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__(TEXT_FORMAT)
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        context = " ".join(
            f"{name}={getattr(record, name)}"
            for name in CONTEXT_FIELDS
            if getattr(record, name, None) is not None
        )
        return self.redact(f"{text} [{context}]" if context else text)


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module docstring for the fields)."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": self.redact(record.getMessage()),
        }
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value if isinstance(value, int | str) else str(value)
        if record.exc_info:
            line["exception"] = self.redact(self.formatException(record.exc_info))
        elif record.stack_info:
            line["stack"] = self.redact(self.formatStack(record.stack_info))
        return _encode(line).decode()


def _iso(created: float) -> str:
    seconds = int(created)
    millis = int((created - seconds) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def configure(level: str, fmt: str, *, secrets: Iterable[str | None] = ()) -> None:
    """Send every logger's records to stderr in `fmt` ("text" or "json") at `level`."""
    redact = Redactor(secrets)
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter(redact) if fmt == "json" else TextFormatter(redact))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())

"""The web app's message catalogs (service/api/static/i18n/*.json), its six languages and their
plural categories."""

from __future__ import annotations

import json
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "service" / "api" / "static"
LANGUAGES = ("en", "ru", "bg", "tr", "de", "ar")
# CLDR plural categories (cardinal) of each language.
PLURALS = {
    "en": {"one", "other"},
    "ru": {"one", "few", "many", "other"},
    "bg": {"one", "other"},
    "tr": {"one", "other"},
    "de": {"one", "other"},
    "ar": {"zero", "one", "two", "few", "many", "other"},
}


def catalog(lang: str) -> dict[str, str | dict[str, str]]:
    data = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data

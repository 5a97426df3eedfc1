"""The web app's string catalogs (service/api/static/i18n/<lang>.json), no browser needed:
every key in every language, no key the code does not use, the same placeholders in every
language, and every plural form each language needs (CLDR's categories; test_i18n.py checks
them against Chromium's own Intl.PluralRules)."""

from __future__ import annotations

import re

import pytest

from tests.webapp.catalogs import LANGUAGES, PLURALS, STATIC, catalog

PLACEHOLDER = re.compile(r"\{(\w+)\}")
# The same text as English on purpose: the game's name in Latin script, a sign (digits are
# Latin in every language here, as Intl.NumberFormat writes them), and the few
# words these languages share with English at the card table (Turkish and German "pot",
# German "blind"; the rules texts use the same words).
SAME_AS_ENGLISH = {
    "ru": {"amount.double"},
    "bg": {"amount.double"},
    "tr": {"amount.double", "app.name", "svara.title", "phase.svara", "result.svara_deal",
           "felt.pot", "amount.pot", "seat.dealer_badge", "chat.phrase_svara"},
    "de": {"amount.double", "app.name", "svara.title", "phase.svara", "result.svara_deal",
           "seat.blind", "act.blind", "felt.pot", "amount.pot", "chat.phrase_svara",
           "chat.phrase_bluff"},
    "ar": {"amount.double"},
}


def used_keys() -> set[str]:
    """Every catalog key the code names: keys are written whole, as string literals, in the
    JS modules (never put together from parts, so this finds them all)."""
    namespaces = {key.split(".")[0] for key in catalog("en")}
    alternatives = "|".join(sorted(namespaces))
    pattern = re.compile(r"[\"'`]((?:" + alternatives + r")\.[a-z0-9_.]+)[\"'`]")
    found: set[str] = set()
    for module in (STATIC / "js").glob("*.js"):
        found |= set(pattern.findall(module.read_text(encoding="utf-8")))
    return found


def placeholders(value: str | dict[str, str]) -> list[set[str]]:
    forms = value.values() if isinstance(value, dict) else [value]
    return [set(PLACEHOLDER.findall(form)) for form in forms]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_key_in_every_language(lang: str) -> None:
    english, other = catalog("en"), catalog(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang} lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{lang} has keys English does not"
    for key, value in other.items():
        forms = value.values() if isinstance(value, dict) else [value]
        assert all(isinstance(f, str) and f.strip() == f and f for f in forms), (lang, key)
        assert isinstance(value, dict) == isinstance(english[key], dict), (lang, key)


def test_no_key_the_code_does_not_use_and_none_missing() -> None:
    keys = set(catalog("en"))
    used = used_keys()
    assert sorted(keys - used) == [], "catalog keys no module uses"
    assert sorted(used - keys) == [], "keys the code uses that the catalog lacks"


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_placeholders_match_english(lang: str) -> None:
    english, other = catalog("en"), catalog(lang)
    for key, value in other.items():
        want = set().union(*placeholders(english[key]))
        if isinstance(value, dict):
            # a plural form may leave the number out ("one chip" written as a word)
            for form in placeholders(value):
                assert want - {"count"} <= form <= want, (lang, key, value)
        else:
            assert placeholders(value) == [want], (lang, key, value)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plural_forms_are_complete(lang: str) -> None:
    entries = {k: v for k, v in catalog(lang).items() if isinstance(v, dict)}
    assert entries, "the catalogs have plural entries (chips, hands)"
    for key, forms in entries.items():
        assert set(forms) == PLURALS[lang], (lang, key, sorted(forms))


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_nothing_left_in_english(lang: str) -> None:
    english, other = catalog("en"), catalog(lang)
    same = {k for k, v in other.items() if v == english[k]}
    assert same == SAME_AS_ENGLISH[lang], f"{lang}: entries identical to English"


FAIR = STATIC / "js" / "fair.js"
WORDS = STATIC / "js" / "fairwords.js"


def fair_codes() -> tuple[list[str], set[str]]:
    """fair.js's REASON_CODES, and every code its failures are given in its source: a literal
    at a `fail(check, version, "code", ...)` call, or one a helper hands to such a call."""
    source = FAIR.read_text(encoding="utf-8")
    listed = re.search(r"export const REASON_CODES = Object\.freeze\(\[(.*?)\]\);", source, re.S)
    assert listed
    declared = re.findall(r'"([a-z0-9_]+)"', listed.group(1))
    calls = source.count(".fail(")
    literal = re.findall(r'\.fail\(\s*"[a-z]+",\s*[^"`;]*?,\s*"([a-z0-9_]+)",', source, re.S)
    # the two calls that pass a code on: a chain link's (badLink) and a card check's (seen)
    handed = re.findall(r'bad\("([a-z0-9_]+)"', source) + re.findall(
        r'this\.seen\([^;]*?"([a-z0-9_]+)"\);', source)
    assert len(literal) == calls - 2, "a fail() call whose code this test cannot read"
    assert len(handed) >= 6
    return declared, set(literal) | set(handed)


def test_every_failure_code_has_words_in_every_language() -> None:
    declared, emitted = fair_codes()
    assert len(declared) == len(set(declared)) >= 40
    assert sorted(emitted - set(declared)) == [], "codes fair.js emits but does not list"
    assert sorted(set(declared) - emitted) == [], "codes fair.js lists but never emits"
    worded = set(re.findall(r'([a-z0-9_]+): "fair\.reason\.\1"', WORDS.read_text(encoding="utf-8")))
    assert worded == set(declared), "fairwords.js words other codes than fair.js lists"
    for lang in LANGUAGES:
        words = catalog(lang)
        missing = [c for c in declared if f"fair.reason.{c}" not in words]
        assert missing == [] and "fair.reason.unknown" in words, (lang, missing)


def test_every_refusal_code_has_words_in_every_language() -> None:
    """A file fair.js refuses says why by a code too (MALFORMED_CODES, each one given)."""
    source = FAIR.read_text(encoding="utf-8")
    listed = re.search(r"export const MALFORMED_CODES = Object\.freeze\(\[(.*?)\]\);", source,
                       re.S)
    assert listed
    declared = re.findall(r'"([a-z0-9_]+)"', listed.group(1))
    # refused(err, "code") or refused(new Error(...), "code", ...)
    given = set(re.findall(r'(?:refused\(err, |\),\s*)"([a-z0-9_]+)"', source))
    assert set(declared) == given and len(declared) >= 5
    worded = set(re.findall(r'([a-z0-9_]+): "fair\.malformed\.\1"',
                            WORDS.read_text(encoding="utf-8")))
    assert worded == set(declared)
    for lang in LANGUAGES:
        words = catalog(lang)
        missing = [c for c in [*declared, "unknown"] if f"fair.malformed.{c}" not in words]
        assert missing == [], (lang, missing)

"""Catalog hygiene: every text the bot's code marks for translation is in every language's
catalog and nothing else is; placeholders match; plural forms are the language's own (CLDR,
as Babel knows them) and all filled in; nothing fuzzy or empty; the catalogs load."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from service.bot.i18n import LOCALES, make_i18n
from service.tables.profiles import DEFAULT_LANGUAGE, LANGUAGES

TRANSLATED = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]
BOT = Path(__file__).resolve().parents[2] / "service" / "bot"
CYRILLIC = re.compile("[\u0400-\u04ff]")
ARABIC = re.compile("[\u0600-\u06ff]")
LATIN_WORD = re.compile(r"\b[A-Za-z]{4,}\b")


def extracted() -> dict[str, str | tuple[str, str]]:
    """What the code marks for translation, as Babel's extractor (pybabel) finds it."""
    found: dict[str, str | tuple[str, str]] = {}
    for _, _, message, _, _ in extract_from_dir(str(BOT), method_map=[("**.py", "python")]):
        key = message[0] if isinstance(message, tuple) else message
        found[key] = message
    return found


def catalog(language: str) -> Catalog:
    with (LOCALES / language / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return read_po(source, locale=language)


def entries(language: str) -> dict[str, Message]:
    return {m.id[0] if isinstance(m.id, tuple) else m.id: m for m in catalog(language) if m.id}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_code_marks_texts_for_translation() -> None:
    marked = extracted()
    assert len(marked) > 40
    assert any(isinstance(m, tuple) for m in marked.values())  # plurals are marked as such


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_text_is_translated_and_no_other(language: str) -> None:
    marked, have = extracted(), entries(language)
    assert sorted(set(marked) - set(have)) == [], "missing from the catalog"
    assert sorted(set(have) - set(marked)) == [], "in the catalog, used nowhere"
    for key, message in have.items():
        assert message.id == marked[key], f"singular/plural differs: {key!r}"
        assert not message.fuzzy, key
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(form.strip() for form in forms), f"empty translation: {key!r}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_placeholders_match(language: str) -> None:
    for key, message in entries(language).items():
        source = message.id[-1] if isinstance(message.id, tuple) else message.id
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        for form in forms:
            assert fields(form) == fields(source), (key, form)
            form.format(**{name: 1 for name in fields(form)})  # and it formats


@pytest.mark.parametrize("language", TRANSLATED)
def test_plural_forms_are_the_languages_own(language: str) -> None:
    cat = catalog(language)
    cldr = Catalog(locale=language)
    assert (cat.num_plurals, cat.plural_expr) == (cldr.num_plurals, cldr.plural_expr)
    plurals = [m for m in cat if m.id and isinstance(m.id, tuple)]
    assert plurals
    for message in plurals:
        assert isinstance(message.string, tuple) and len(message.string) == cat.num_plurals


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_are_in_the_languages_script(language: str) -> None:
    for key, message in entries(language).items():
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        for form in forms:
            assert form != key, f"left in English: {key!r}"
            if language in ("ru", "bg"):
                assert CYRILLIC.search(form), (language, form)
            if language == "ar":
                assert ARABIC.search(form), form
            if language in ("ru", "bg", "ar"):  # no Latin word left, commands and fields aside
                prose = re.sub(r"\{\w+\}|/\w+", "", form)
                assert set(LATIN_WORD.findall(prose)) <= {"hash"}, (language, form)


def test_the_catalogs_load_and_translate_plurals_by_number() -> None:
    i18n = make_i18n()
    assert sorted(i18n.available_locales) == sorted(TRANSLATED)
    turn = "Your turn at table {table}: pot {pot}, {seconds} second left."
    turns = "Your turn at table {table}: pot {pot}, {seconds} seconds left."
    forms = {n: i18n.gettext(turn, turns, n, locale="ru") for n in (1, 3, 5, 21, 11)}
    assert "секунда" in forms[1] and "секунда" in forms[21]
    assert "секунды" in forms[3] and "секунд." in forms[5] and "секунд." in forms[11]
    arabic = {n: i18n.gettext(turn, turns, n, locale="ar") for n in (1, 2, 3, 11)}
    assert len(set(arabic.values())) >= 3  # dual and the 3-10 plural differ from the rest
    assert i18n.gettext(turn, turns, 1, locale="en") == turn
    assert i18n.gettext(turn, turns, 2, locale="xx") == turns  # unknown: English


def test_outside_any_locale_the_texts_are_the_english_source() -> None:
    from service.bot import texts

    assert texts.sat_in() == "You are back in: you will be dealt into the next hand."
    assert texts.your_turn("abcdef12", 5, 1).endswith("1 second left.")
    assert texts.your_turn("abcdef12", 5, 2).endswith("2 seconds left.")

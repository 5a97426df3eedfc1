"""The rules screen's texts, one per language (`service/api/static/rules/<lang>.html`).

No browser needed: each file is parsed as the allowed HTML subset (`rules_html.py`), and the
languages are held to one another and to docs/RULES.md ("Hand score", "A hand, step by step"):
the same sections and structure, the same facts as numbers, every example hand scored as the
rules score it, each language in its own words and script, and nothing copied from the seed rule
sheets.

The seeds themselves are not in this repository; `seed_shingles.txt` holds a hash of every run
of 8 words in them. Regenerate it with
`python -m tests.webapp.test_rules_content ../shared/seeds > tests/webapp/seed_shingles.txt`.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import AsyncIterator, Iterable
from functools import cache
from itertools import product
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from service.api.app import STATIC_DIR, make_app
from service.api.config import Config
from service.game.scoring import compute_score
from service.game.settings import ScoringOptions
from tests.support.fake_tables import FakeTables
from tests.support.rules_html import (
    SECTIONS,
    SHINGLE_WORDS,
    Node,
    RulesHtmlError,
    hands,
    numbers,
    parse,
    sections,
    seed_shingles,
    shingles,
    skeleton,
    words,
)

LANGS = ("en", "ru", "bg", "tr", "de", "ar")
RULES_DIR = STATIC_DIR / "rules"

# The score table (docs/RULES.md "Hand score"), row by row, with each language's example.
ROW_EXAMPLES = (
    ("7h", "7d", "7s"),  # 1 three 7s: 34
    ("8s", "8h", "8d"),  # 2 three of a kind: 24
    ("7c", "Kh", "Kd"),  # 3 joker + a pair: 31
    ("As", "Ad", "Tc"),  # 4 two aces: 22
    ("7h", "7d", "Ks"),  # 5 two 7s: 23
    ("7c", "9s", "Js"),  # 6 joker + two of a suit: 30
    ("8s", "Ad", "7c"),  # 7 joker + any card: 22
    ("Kh", "9h", "Qc"),  # 8 one suit: 19
)
# Every value the score table names (34, AAA 33, QQQ 30, 888 24, 31, 22, 23, 19).
TABLE_VALUES = {34, 33, 31, 30, 24, 23, 22, 19}
VARIANTS = tuple(
    ScoringOptions(joker_pair=pair, natural_777=sevens)
    for pair, sevens in product(("sum", "substitute"), (34, 30, 33))
)

# English words a translation must not leave behind (matched as whole words, any case). Words
# that are also the language's own are let through for it: German has "blind", "Hand",
# "Joker", "Chip(s)", "Pot" and "fair" (Duden), Turkish "joker" and poker's "pot"; German and
# Turkish write the game's name "Svara" in Latin letters, as their seeds do.
ENGLISH = frozenset("""
    the and or of to you your with for are is this that when after before each every not
    player players card cards deal dealer dealt call calls raise raises fold folds check look
    blind blinds bet bets betting pot ante chip chips wallet showdown join skip svara svarka
    turn time table score scores joker seed seeds deck hand hands round fair win wins winner
    tie split sit sat out pass buy leave ace aces king queen jack clubs diamonds hearts
    spades suit suits seven sevens pair
""".split())
OWN_WORDS = {
    "de": frozenset({"blind", "hand", "joker", "chip", "chips", "pot", "fair", "svara"}),
    "tr": frozenset({"joker", "pot", "svara"}),
}
LETTERS_ON_CARDS = frozenset({"J", "Q", "K", "A"})  # the faces show them in every language
SCRIPT = {"ru": "CYRILLIC", "bg": "CYRILLIC", "ar": "ARABIC"}


def load(lang: str) -> str:
    return (RULES_DIR / f"{lang}.html").read_text(encoding="utf-8")


@cache
def tree(lang: str) -> Node:
    return parse(load(lang))


def prose(lang: str) -> str:
    """The file's own text, cards in notation left out."""
    return tree(lang).text(cards=False)


def letter_words(text: str) -> list[str]:
    """Words of letters in any script (Turkish "satır" is one word, not "sat" and "r")."""
    return re.findall(r"[^\W\d_]+", text)


def script_of(char: str) -> str:
    return unicodedata.name(char, "?").split(" ")[0]


# --- the checker itself refuses what it must ----------------------------------------------

GOOD = '<section class="cards"><h2>Cards</h2><p>The <span class="card">7c</span></p></section>'


def test_the_checker_accepts_the_subset() -> None:
    root = parse(GOOD)
    assert skeleton(root) == [(0, "fragment"), (1, "section.cards"), (2, "h2"), (2, "p")]
    assert [h.cards for h in hands(root)] == [("7c",)]


@pytest.mark.parametrize("bad", [
    '<section class="cards"><h2>x</h2><script>alert(1)</script></section>',
    '<section class="cards"><h2>x</h2><p style="color:red">x</p></section>',
    '<section class="cards"><h2>x</h2><p><a href="https://x">x</a></p></section>',
    '<section class="cards"><h2>x</h2><p id="x">x</p></section>',
    '<section class="cards"><h2>x</h2><p><span class="red">x</span></p></section>',
    '<section class="cards"><h2>x</h2><p><span>x</span></p></section>',
    '<section class="cards"><h2>x</h2><p><span class="card">7x</span></p></section>',
    '<section class="cards"><h2>x</h2><p><span class="suit-h">♠</span></p></section>',
    '<section class="cards"><h2>x</h2><p><span class="card" data-x="1">7c</span></p></section>',
    '<section class="cards"><h2>x</h2><p onclick="f()">x</p></section>',
    '<section class="cards"><h2>x</h2><!-- note --></section>',
    '<section class="cards"><h2>x</h2><p>x<br/>y</p></section>',
    '<section class="cards"><h2>x</h2><p>unclosed</section>',
    '<section class="cards"><h2>x</h2></section><p>outside</p>',
    'loose text<section class="cards"><h2>x</h2></section>',
    '<section class="rules"><h2>x</h2></section>',
    '<section><h2>x</h2></section>',
    '<section class="cards"><p>no heading first</p><h2>x</h2></section>',
    '<section class="cards"><h2>x</h2><section class="time"><h2>y</h2></section></section>',
    '<section class="cards"><h2>x</h2><p><strong><p>x</p></strong></p></section>',
    '<!doctype html><section class="cards"><h2>x</h2></section>',
])
def test_the_checker_refuses_anything_else(bad: str) -> None:
    with pytest.raises(RulesHtmlError):
        parse(bad)


# --- every language ----------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_every_section_in_order(lang: str) -> None:
    assert tuple(sections(tree(lang))) == SECTIONS


@pytest.mark.parametrize("lang", LANGS[1:])
def test_each_language_has_the_same_structure_as_english(lang: str) -> None:
    """Same sections, headings, paragraphs, list items and table cells: no language leaves a
    rule out, and the web app can style all six alike."""
    assert skeleton(tree(lang)) == skeleton(tree("en"))


@pytest.mark.parametrize("lang", LANGS[1:])
def test_each_section_states_the_same_numbers_as_english(lang: str) -> None:
    """Facts written as numbers (32 cards, 2 to 10 players, 3 raises, 30 seconds, every score)
    agree across languages. One and two are left out: languages write them as words
    (Arabic's dual form, "twice")."""
    for name in SECTIONS:
        mine = set(numbers(sections(tree(lang))[name].text(cards=False))) - {1, 2}
        english = set(numbers(sections(tree("en"))[name].text(cards=False))) - {1, 2}
        assert mine == english, (name, sorted(mine ^ english))


@pytest.mark.parametrize("lang", LANGS)
def test_the_score_table_is_rules_md_with_its_worked_examples(lang: str) -> None:
    table = sections(tree(lang))["scores"].find_all("table")
    assert len(table) == 1
    rows = table[0].find_all("tbody")[0].find_all("tr")
    assert len(rows) == len(ROW_EXAMPLES)
    for row, example in zip(rows, ROW_EXAMPLES, strict=True):
        cells = row.find_all("td")
        assert len(cells) == 3
        shown = tuple(n.text() for n in cells[1].walk() if n.is_card())
        assert shown == example
        assert numbers(cells[2].text()) == [compute_score(example)]
    assert set(numbers(table[0].text(cards=False))) >= TABLE_VALUES


@pytest.mark.parametrize("lang", LANGS)
def test_every_hand_written_out_scores_what_the_text_says(lang: str) -> None:
    """Three cards side by side are a hand: in the table its score is the next cell, in the
    text it is followed by "= N", and N is its score under the default rules or a variant."""
    found = hands(tree(lang))
    assert len(found) >= len(ROW_EXAMPLES) + 5
    for hand in found:
        assert len(hand.cards) in (1, 3), hand.cards
        assert len(set(hand.cards)) == len(hand.cards), hand.cards
        if len(hand.cards) == 1:
            continue
        if hand.parent.tag == "td":
            continue  # the score table: checked row by row above
        claimed = re.match(r"\s*=\s*([0-9٠-٩]+)", hand.after)
        assert claimed, f"{hand.cards} is not followed by '= score'"
        value = numbers(claimed.group(1))[0]
        assert value in {compute_score(hand.cards, v) for v in VARIANTS}, (hand.cards, value)


@pytest.mark.parametrize("lang", LANGS)
def test_digits_are_of_one_system(lang: str) -> None:
    text = prose(lang)
    western = bool(re.search(r"[0-9]", text))
    eastern = bool(re.search(r"[٠-٩۰-۹]", text))
    assert not (western and eastern)
    if lang != "ar":
        assert not eastern


@pytest.mark.parametrize("lang", ("tr", "de"))
def test_latin_script_languages_leave_no_english_words(lang: str) -> None:
    tokens = {w.casefold() for w in letter_words(prose(lang))}
    left = tokens & (ENGLISH - OWN_WORDS[lang])
    assert not left, sorted(left)


@pytest.mark.parametrize("lang", ("ru", "bg", "ar"))
def test_cyrillic_and_arabic_files_have_no_latin_words(lang: str) -> None:
    """Outside cards in notation, the only Latin letters are J, Q, K and A, as on the faces
    (so no "svara", "blind", "call" … spelled in Latin, and no Latin look-alike letter
    inside a Cyrillic word)."""
    latin = {w for w in letter_words(prose(lang)) if re.search("[A-Za-z]", w)}
    assert latin <= LETTERS_ON_CARDS, sorted(latin - LETTERS_ON_CARDS)


@pytest.mark.parametrize("lang", ("ru", "bg", "ar"))
def test_text_is_in_the_languages_own_script(lang: str) -> None:
    letters = [c for c in prose(lang) if c.isalpha()]
    own = sum(script_of(c) == SCRIPT[lang] for c in letters)
    assert own / len(letters) > 0.99


def test_each_language_is_itself() -> None:
    """Cheap guards against a file holding the wrong language: Bulgarian has no ы, э or ё;
    Russian has no ѝ; Turkish has its dotless ı and ş; German its umlauts; English no
    letter outside ASCII but the suit symbols and typographic marks."""
    assert not re.search("[ыэёЫЭЁ]", prose("bg"))
    assert "ѝ" not in prose("ru")
    assert "ı" in prose("tr") and "ş" in prose("tr")
    assert re.search("[äöüß]", prose("de"))
    assert all(c.isascii() or not c.isalpha() for c in prose("en"))


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_is_copied_from_the_seeds(lang: str) -> None:
    """No run of 8 words of any seed rule sheet appears in any file: the texts are written
    fresh, not translated from the seeds."""
    copied = shingles(words(tree(lang).text())) & seed_shingles()
    assert not copied


@pytest.mark.parametrize("phrase", [
    "Her oyuncuya üç kart verilir. Saat yönünde tek tek dağıtılırlar.",
    "Jeder Spieler erhält drei Karten im Uhrzeigersinn. Jede Kartenkombination hat",
    "يتم توزيع ثلاث بطاقات لكل لاعب في اتجاه عقارب الساعة",
    "Каждому игроку сдают по три карты по часовой стрелке.",
])
def test_the_seed_fingerprints_catch_a_copied_sentence(phrase: str) -> None:
    """A sentence from each seed (Turkish, German, Arabic, Russian) is recognised: the check
    above would fail on a copy, and the fingerprints cover all four sheets."""
    assert shingles(words(phrase)) & seed_shingles()


# --- served as the web app loads it --------------------------------------------------------

@pytest.fixture
async def client() -> AsyncIterator[TestClient[web.Request, web.Application]]:
    config = Config(bot_token="4242:rules-test", bot_mode="off")
    async with TestClient(TestServer(make_app(config, tables=FakeTables()))) as c:
        yield c


async def test_each_file_is_served_where_the_web_app_loads_it(
    client: TestClient[web.Request, web.Application],
) -> None:
    for lang in LANGS:
        response = await client.get(f"/rules/{lang}.html")
        assert response.status == 200
        assert response.content_type == "text/html"
        assert (await response.read()).decode("utf-8") == load(lang)


# --- regenerating the fingerprints ---------------------------------------------------------

def fingerprint(seed_files: Iterable[Path]) -> list[str]:
    found: set[str] = set()
    for path in seed_files:
        found |= shingles(words(path.read_text(encoding="utf-8")))
    return sorted(found)


if __name__ == "__main__":
    seeds_dir = Path(sys.argv[1])
    print(f"# sha256[:16] of every run of {SHINGLE_WORDS} words (rules_html.words) of the seeds")
    print(f"# in {seeds_dir.name}/; test_rules_content.py checks that no rules text has one")
    print("\n".join(fingerprint(sorted(seeds_dir.glob("*.txt")))))

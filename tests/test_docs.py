"""The repository explains itself: its documentation stands alone, and stays true.

- The README stays short (under 250 lines) and starts with the two commands a newcomer runs;
  CI runs its test command verbatim (`.ci/run`).
- Code, tests, benchmarks and deploy files cite the repository's own documents as `docs/…`,
  each citation with a section that exists in the document it names; none cites a document
  the repository does not have.
- No comment or docstring names an issue number: a tracker the repository does not carry
  tells a reader nothing; the text says why instead.
- Every relative link in README.md, docs/ and deploy/README.md reaches a file that exists.
- The worked examples of docs/RULES.md score as written, and include every example the
  scoring tests hold the code to; the page is in the project's own words (no run of 8 words
  in common with the seed rule sheets or with the rule sheet the project was given, kept here
  as hashes: `tests/rules_sheet_shingles.txt`, made by `python -m tests.test_docs SHEET`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from service.game.scoring import compute_score
from tests.support.oracle import WORKED_EXAMPLES
from tests.support.rules_html import seed_shingles, shingles, words

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
RULES = ROOT / "docs/RULES.md"
SHEET_SHINGLES = Path(__file__).with_name("rules_sheet_shingles.txt")
README_LIMIT = 250
RUN = "pip install -e . && svara serve"
TEST = "pip install -e '.[test]' && pytest -q"

SCANNED = ("service", "events", "tests", "bench", "deploy")
TEXT_SUFFIXES = {".py", ".js", ".html", ".css", ".json", ".md", ".conf", ".lua", ".toml",
                 ".txt", ".po", ".cfg", ".yml", ".yaml", ".sh"}
SKIPPED = {"seed_shingles.txt", SHEET_SHINGLES.name}  # hashes, not prose
# The three documents the project was steered by, which live outside the repository. Named in
# pieces so that this file does not cite them itself.
OUTSIDE = ("RULES", "DESIGN", "API")
BARE_CITATION = re.compile(r"(?<![\w/.-])(?:" + "|".join(OUTSIDE) + r")\.md")
DOCS_CITATION = re.compile(
    r"""docs/([\w./-]+\.md)[,:]?\s+(?:(?:\#|//)\s*)?\(?\\?"([^"\\]+)\\?\"""")
ISSUE = re.compile(r"issue[ #]*[0-9]+|\(#[0-9]+\)", re.IGNORECASE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def scanned_files() -> Iterator[Path]:
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if (path.is_file() and path.suffix in TEXT_SUFFIXES and path.name not in SKIPPED
                    and "__pycache__" not in path.parts):
                yield path


def lines_matching(pattern: re.Pattern[str]) -> list[str]:
    found = []
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


@cache
def headings(doc: Path) -> list[str]:
    return [line.lstrip("#").strip().casefold()
            for line in doc.read_text(encoding="utf-8").splitlines() if line.startswith("#")]


def test_the_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_LIMIT, f"README.md has {len(lines)} lines; keep it under 250"
    commands = [i for i, line in enumerate(lines) if line.strip() in (RUN, TEST)]
    assert [lines[i].strip() for i in commands[:2]] == [RUN, TEST], commands
    assert commands[1] < 30, "the test command belongs near the top (CI runs it verbatim)"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST in ci, "`.ci/run` runs the README's test command verbatim"


def test_nothing_cites_a_document_outside_the_repository() -> None:
    assert lines_matching(BARE_CITATION) == []


def test_every_docs_citation_names_a_document_and_a_section_that_exist() -> None:
    wrong = []
    seen = 0
    for path in scanned_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in re.findall(r"docs/([\w./-]+\.md)", text):
            if not (DOCS / name).is_file():
                wrong.append(f"{path.relative_to(ROOT)}: docs/{name} does not exist")
        for name, section in DOCS_CITATION.findall(text):
            doc = DOCS / name
            seen += 1
            wanted = " ".join(re.sub(r"\n\s*(?:#|//)?", " ", section).split()).casefold()
            if doc.is_file() and not any(wanted in heading for heading in headings(doc)):
                wrong.append(f'{path.relative_to(ROOT)}: docs/{name} has no section "{section}"')
    assert wrong == []
    assert seen > 50  # the citations were found (the pattern is not silently blind)


def test_the_citation_pattern_recognises_each_form_used() -> None:
    rules, api = OUTSIDE[0] + ".md", OUTSIDE[2] + ".md"
    forms = {
        f'docs/{rules} "Hand score"': (rules, "Hand score"),
        f'docs/{api}, "Errors"': (api, "Errors"),
        f'docs/{api} ("Endpoints")': (api, "Endpoints"),
        'docs/FAIRNESS.md \\"Decks\\"': ("FAIRNESS.md", "Decks"),
        'docs/ARCHITECTURE.md, "The event\n# log"': ("ARCHITECTURE.md", "The event\n# log"),
    }
    for text, expected in forms.items():
        assert DOCS_CITATION.findall(text) == [expected], text
    assert BARE_CITATION.search("see " + OUTSIDE[0] + ".md")
    assert not BARE_CITATION.search("see docs/" + OUTSIDE[0] + ".md")


def test_no_comment_names_an_issue_number() -> None:
    assert lines_matching(ISSUE) == []


def test_the_issue_pattern_catches_what_it_must() -> None:
    word, number = "issue", 12  # built here, so that this file names no issue itself
    for text in (f"({word} {number})", f"{word.title()} {number}.6:", f"{word} #{number}",
                 f"fixed (#{number})"):
        assert ISSUE.search(text), text
    for text in ("an issue of the day", "color: #0005;", "table #3f2a9c"):
        assert not ISSUE.search(text), text


def documentation() -> list[Path]:
    return [README, ROOT / "deploy" / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("doc", documentation(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file(doc: Path) -> None:
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if not path.exists():
            broken.append(target)
    assert broken == [], f"{doc.relative_to(ROOT)}: {broken}"


def rules_examples() -> list[tuple[str, int]]:
    text = RULES.read_text(encoding="utf-8")
    section = text.split("### Worked examples", 1)[1].split("\n#", 1)[0]
    return [(hand, int(value)) for hand, value in
            re.findall(r"^\| `([2-9TJQKA][cdhs](?: [2-9TJQKA][cdhs]){2})` \| (\d+)", section, re.M)]


def test_the_worked_examples_score_as_written() -> None:
    examples = rules_examples()
    assert len(examples) >= 19
    for hand, value in examples:
        assert compute_score(hand.split()) == value, hand


def test_the_worked_examples_include_every_example_the_scoring_tests_hold() -> None:
    written = set(rules_examples())
    fixture = set(WORKED_EXAMPLES[:19])  # the worked examples, in the order the rules give them
    assert fixture <= written, sorted(fixture - written)


def prose_words(text: str) -> list[str]:
    """Words without cards and numbers: example hands are facts, and facts may coincide."""
    return [w for w in words(text) if not re.fullmatch(r"\d+|[2-9tjqka][cdhs]", w)]


def sheet_shingles() -> set[str]:
    lines = SHEET_SHINGLES.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}


def test_the_rules_page_is_in_our_own_words() -> None:
    ours = RULES.read_text(encoding="utf-8")
    assert shingles(words(ours)) & seed_shingles() == set()
    assert shingles(prose_words(ours)) & sheet_shingles() == set()


def test_a_copied_phrase_would_be_caught() -> None:
    """The fingerprints are live: a phrase of the sheet itself is among them."""
    assert len(sheet_shingles()) > 500
    copied = "The tied players are in for free. Every other player dealt into the hand"
    assert shingles(prose_words(copied)) & sheet_shingles()


def fingerprint(sheet: Path) -> list[str]:
    return sorted(shingles(prose_words(sheet.read_text(encoding="utf-8"))))


if __name__ == "__main__":  # python -m tests.test_docs SHEET > tests/rules_sheet_shingles.txt
    sheet = Path(sys.argv[1])
    print("# sha256[:16] of every run of 8 words (cards and numbers left out) of the rule sheet")
    print(f"# {sheet.name} the project was given; tests/test_docs.py checks docs/RULES.md has none")
    print("\n".join(fingerprint(sheet)))

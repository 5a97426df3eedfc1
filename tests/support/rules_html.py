"""The rules screen's HTML subset, parsed strictly into a small tree.

`service/api/static/rules/<lang>.html` is inserted into the web app as it is, so it may hold
only plain structure: `<section>` blocks with h2/h3/p/ul/ol/li/table/thead/tbody/tr/th/td/
strong/em/span, no other tag, no attribute but `class` on `<section>` (the topic) and on
`<span>` (`card` for a card in notation, `suit-c|d|h|s` for a suit symbol). Anything else is
a `RulesHtmlError`, so the web app never renders a script, a link or a style from these files.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

# The topics, in the order every language presents them (the web app may style by them).
SECTIONS = ("cards", "scores", "hand", "svara", "time", "chips", "fairness")
TAGS = frozenset({"section", "h2", "h3", "p", "ul", "ol", "li", "table", "thead", "tbody",
                  "tr", "th", "td", "strong", "em", "span"})
INLINE = frozenset({"strong", "em", "span"})
SUIT_SYMBOLS = {"suit-c": "♣", "suit-d": "♦", "suit-h": "♥", "suit-s": "♠"}
SPAN_CLASSES = frozenset({"card", *SUIT_SYMBOLS})
CARD = re.compile(r"[789TJQKA][cdhs]")
# Digits in either system a reader may expect; scores compare as numbers.
ARABIC_INDIC = str.maketrans("٠١٢٣٤٥٦٧٨٩۰۱۲۳۴۵۶۷۸۹", "01234567890123456789")
NUMBER = re.compile(r"[0-9٠-٩۰-۹]+")


class RulesHtmlError(ValueError):
    """The file is outside the allowed subset (the message says where and why)."""


@dataclass
class Node:
    tag: str
    cls: str | None = None
    children: list[Node | str] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find_all(self, tag: str) -> list[Node]:
        return [n for n in self.walk() if n.tag == tag]

    def text(self, *, cards: bool = True) -> str:
        """The text inside; with `cards=False` a card in notation becomes a space, so what
        remains is the language's own prose."""
        if self.cls == "card" and not cards:
            return " "
        return "".join(c if isinstance(c, str) else c.text(cards=cards) for c in self.children)

    def is_card(self) -> bool:
        return self.tag == "span" and self.cls == "card"


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("fragment")
        self.stack = [self.root]

    def _where(self) -> str:
        line, column = self.getpos()
        return f"line {line}, column {column + 1}"

    def fail(self, why: str) -> None:
        raise RulesHtmlError(f"{why} at {self._where()}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        parent = self.stack[-1]
        if tag not in TAGS:
            self.fail(f"<{tag}> is not allowed")
        cls = self._class(tag, attrs)
        if (tag == "section") != (parent is self.root):
            self.fail("sections are the top level, and only sections")
        if parent.tag in INLINE and tag not in INLINE:
            self.fail(f"<{tag}> inside <{parent.tag}>")
        if parent.tag == "span":
            self.fail("a span holds text only")
        node = Node(tag, cls)
        parent.children.append(node)
        self.stack.append(node)

    def _class(self, tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
        allowed = {"section": frozenset(SECTIONS), "span": SPAN_CLASSES}.get(tag)
        cls: str | None = None
        for name, value in attrs:
            if name != "class" or allowed is None:
                self.fail(f"attribute {name!r} on <{tag}>")
            assert allowed is not None
            if value not in allowed:
                self.fail(f"class {value!r} on <{tag}> (allowed: {sorted(allowed)})")
            cls = value
        if allowed is not None and cls is None:
            self.fail(f"<{tag}> without its class")
        return cls

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.fail(f"self-closing <{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        if len(self.stack) == 1 or self.stack[-1].tag != tag:
            self.fail(f"</{tag}> does not close <{self.stack[-1].tag}>")
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if len(self.stack) == 1:
            if data.strip():
                self.fail(f"text outside a section: {data.strip()[:30]!r}")
            return
        self.stack[-1].children.append(data)

    def handle_comment(self, data: str) -> None:
        self.fail("a comment")

    def handle_decl(self, decl: str) -> None:
        self.fail(f"a declaration <!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.fail("a processing instruction")

    def unknown_decl(self, data: str) -> None:
        self.fail(f"a declaration {data!r}")


def parse(html: str) -> Node:
    """The fragment as a tree of sections, or `RulesHtmlError`."""
    parser = _Parser()
    parser.feed(html)
    parser.close()
    if len(parser.stack) != 1:
        raise RulesHtmlError(f"<{parser.stack[-1].tag}> is never closed")
    root = parser.root
    for span in root.find_all("span"):
        content = span.text()
        if span.cls == "card" and not CARD.fullmatch(content):
            raise RulesHtmlError(f"{content!r} is not a card in notation (e.g. 7c, Td, Ah)")
        if span.cls in SUIT_SYMBOLS and content != SUIT_SYMBOLS[span.cls]:
            raise RulesHtmlError(f"a {span.cls} span holds {content!r}")
    for section in root.children:
        assert isinstance(section, Node)
        heads = [c for c in section.children if isinstance(c, Node)]
        if not heads or heads[0].tag != "h2" or len(section.find_all("h2")) != 1:
            raise RulesHtmlError(f"section {section.cls!r} must open with its one <h2>")
    return root


def sections(root: Node) -> dict[str, Node]:
    return {n.cls or "": n for n in root.children if isinstance(n, Node)}


def skeleton(node: Node, depth: int = 0) -> list[tuple[int, str]]:
    """The block structure (every tag but the inline ones), to compare languages."""
    out: list[tuple[int, str]] = []
    if node.tag not in INLINE:
        out.append((depth, node.tag if node.cls is None else f"{node.tag}.{node.cls}"))
    for child in node.children:
        if isinstance(child, Node):
            out.extend(skeleton(child, depth + 1))
    return out


@dataclass(frozen=True)
class Hand:
    """Three cards written side by side, and what follows them in the same element."""

    cards: tuple[str, ...]
    parent: Node
    after: str


def hands(root: Node) -> list[Hand]:
    """Every run of adjacent card spans (only whitespace between them)."""
    found: list[Hand] = []
    for node in root.walk():
        run: list[str] = []
        for child in node.children:
            if isinstance(child, Node) and child.is_card():
                run.append(child.text())
                continue
            if isinstance(child, str) and not child.strip() and run:
                continue
            if run:
                found.append(Hand(tuple(run), node, child if isinstance(child, str) else ""))
                run = []
        if run:
            found.append(Hand(tuple(run), node, ""))
    return found


def numbers(text: str) -> list[int]:
    return [int(n.translate(ARABIC_INDIC)) for n in NUMBER.findall(text)]


def words(text: str) -> list[str]:
    """Words for comparing texts: case, accents and Arabic vowel marks ignored."""
    flat = "".join(c for c in unicodedata.normalize("NFKD", text)
                   if unicodedata.category(c) != "Mn")
    return re.findall(r"\w+", flat.casefold())


# Runs of this many words, hashed: how the rules' prose is compared with the seed documents
# without the seeds in the repo (tests/webapp/seed_shingles.txt).
SHINGLES = Path(__file__).resolve().parents[1] / "webapp" / "seed_shingles.txt"
SHINGLE_WORDS = 8


def shingles(text_words: list[str]) -> set[str]:
    runs = (" ".join(text_words[i:i + SHINGLE_WORDS])
            for i in range(len(text_words) - SHINGLE_WORDS + 1))
    return {hashlib.sha256(run.encode()).hexdigest()[:16] for run in runs}


def seed_shingles() -> set[str]:
    lines = SHINGLES.read_text(encoding="utf-8").splitlines()
    return {line for line in lines if line and not line.startswith("#")}

"""Is a screen in its language? The text a player reads on a page, and the checks that no
English (or, for Cyrillic and Arabic, no Latin script) was left on it."""

from __future__ import annotations

import re

from tests.webapp.catalogs import catalog

# Everything a player reads: text, and the words in titles, labels and placeholders. Their own
# content (names), card faces and hex strings are not UI words.
VISIBLE_TEXT_JS = """() => {
  const skip = '.user, .card, [translate=no], code, script, style, noscript, [hidden]';
  const words = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest(skip)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    words.push(node.textContent);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (el.closest(skip)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) {
      if (el.getAttribute(a)) words.push(el.getAttribute(a));
    }
  }
  return words.join(' \\n ');
}"""

WORD = re.compile(r"[^\W\d_]+")  # a word in any script ("satılır" is one word, not "sat")
LATIN = re.compile(r"[A-Za-z]{2,}")
# Latin words that may stand in any language: a product's name and a hash's.
ANYWHERE = {"Telegram", "SHA"}
# Words of the English UI that Turkish or German also use at the card table.
# (German "was" is German: a word, not English left behind.)
SHARED = {"tr": {"svara", "pot", "joker"},
          "de": {"svara", "blind", "joker", "server", "bot", "pot", "chip", "chips", "was"}}
COMMON_ENGLISH = {"the", "and", "you", "your", "table", "tables", "hand", "chips", "wait",
                  "waiting", "join", "watch", "seat", "seats", "fold", "call", "raise", "bet",
                  "look", "pass", "next", "players", "free", "rules", "back", "settings",
                  "history", "leave", "open", "new", "create", "ante", "turn", "win", "wins",
                  "score", "stack", "deal", "dealer", "skip", "sit", "out", "time"}


def english_words(lang: str) -> set[str]:
    """Words of the English catalog (and common English UI words) that the language's own
    catalog never uses: seeing one on its screens means something was left in English."""
    def words(cat: dict[str, str | dict[str, str]]) -> set[str]:
        found: set[str] = set()
        for value in cat.values():
            for text in value.values() if isinstance(value, dict) else [value]:
                found |= {w.lower() for w in WORD.findall(text) if len(w) >= 3}
        return found

    return (words(catalog("en")) | COMMON_ENGLISH) - words(catalog(lang)) - SHARED.get(lang, set())


def check_language(lang: str, text: str, screen: str) -> None:
    letters = [c for c in text if c.isalpha()]
    assert letters, f"{screen}: no text"
    if lang in ("ru", "bg", "ar"):
        latin = {w for w in WORD.findall(text) if LATIN.fullmatch(w)} - ANYWHERE
        assert not latin, f"{lang} {screen}: Latin-script words left: {sorted(latin)}"
        script = "\u0400-\u04FF" if lang != "ar" else "\u0600-\u06FF"
        share = len(re.findall(f"[{script}]", text)) / len(letters)
        assert share > 0.9, f"{lang} {screen}: only {share:.0%} of the letters in its script"
    if lang in ("tr", "de"):
        english = english_words(lang)
        left = {w for w in WORD.findall(text) if w.lower() in english}
        assert not left, f"{lang} {screen}: English words left: {sorted(left)}"

"""Cards in the project's notation: rank `7 8 9 T J Q K A` + suit `c d h s` (`7c`, `Td`, `Ah`).

Cards are also numbered 0..31 in the canonical deck order (docs/FAIRNESS.md "Decks"), which lets
hands be bitmasks for constant-time score lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "789TJQKA"
SUITS = "cdhs"
CANONICAL_DECK: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_INDEX: dict[str, int] = {card: i for i, card in enumerate(CANONICAL_DECK)}
JOKER = "7c"

# Card values (docs/RULES.md "Cards"): 7, 8, 9 their number; T J Q K ten; A eleven (joker apart).
RANK_VALUE: dict[str, int] = {"7": 7, "8": 8, "9": 9, "T": 10, "J": 10, "Q": 10, "K": 10, "A": 11}

_SUIT_ALIASES = {"♣": "c", "♦": "d", "♥": "h", "♠": "s"}
_NOTATION = "a card is a rank (7 8 9 T J Q K A) and a suit (c d h s)"


class CardError(ValueError):
    """A card or hand that is not in the notation, with a message naming the bad input."""


def parse_card(text: str) -> str:
    """Normalise one card (`7C`, `10d`, `A♠` are accepted) or raise CardError."""
    raw = text.strip()
    if len(raw) < 2:
        raise CardError(f"bad card {text!r}: {_NOTATION}")
    rank, suit = raw[:-1].upper(), raw[-1]
    suit = _SUIT_ALIASES.get(suit, suit.lower())
    if rank == "10":
        rank = "T"
    if rank not in RANK_VALUE or suit not in SUITS:
        raise CardError(f"bad card {text!r}: {_NOTATION}")
    return rank + suit


def parse_hand(cards: Iterable[str]) -> tuple[str, str, str]:
    """Exactly three distinct cards, normalised, or CardError naming the problem."""
    parsed = [parse_card(c) for c in cards]
    if len(parsed) != 3:
        raise CardError(f"a hand has exactly 3 cards, got {len(parsed)}")
    seen: set[str] = set()
    for card in parsed:
        if card in seen:
            raise CardError(f"duplicate card {card!r}")
        seen.add(card)
    return parsed[0], parsed[1], parsed[2]


def hand_mask(cards: Sequence[str]) -> int:
    """The bitmask of a hand's cards (bit i = canonical card i)."""
    mask = 0
    for card in cards:
        mask |= 1 << CARD_INDEX[card]
    return mask

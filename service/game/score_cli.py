"""`svara score`: score hands given as arguments or one per line on stdin.

Each hand prints as `<hand>\t<score>`. A bad hand is reported on stderr naming the input, the
others are still scored, and the exit status is 2 if any hand was bad.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from service.game.cards import CardError, parse_hand
from service.game.scoring import score
from service.game.settings import ScoringOptions

EXIT_BAD_INPUT = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svara score",
        description="Score Svara hands. Cards: rank 7 8 9 T J Q K A + suit c d h s (7c Td Ah). "
        "Give hands as arguments (three cards each, or one quoted hand per argument), "
        "or one hand per line on stdin.",
    )
    parser.add_argument("cards", nargs="*", help="cards, three per hand")
    parser.add_argument("--joker-pair", choices=["sum", "substitute"], default="sum")
    parser.add_argument("--natural-777", type=int, choices=[34, 30, 33], default=34)
    return parser


def _hands_from_args(args: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(label, cards) per hand: quoted hands stay whole, loose cards group in threes."""
    if any(len(arg.split()) > 1 for arg in args):
        for arg in args:
            yield arg, arg.replace(",", " ").split()
        return
    for start in range(0, len(args), 3):
        group = args[start : start + 3]
        yield " ".join(group), group


def _hands_from_lines(lines: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text:
            yield f"line {number}: {text}", text.replace(",", " ").split()


def score_hands(
    hands: Iterable[tuple[str, list[str]]], options: ScoringOptions, out: TextIO, err: TextIO
) -> int:
    """Score each hand; return the exit status (0, or 2 if any hand was bad)."""
    status = 0
    for label, cards in hands:
        try:
            hand = parse_hand(cards)
        except CardError as exc:
            print(f"svara score: {label!r}: {exc}", file=err)
            status = EXIT_BAD_INPUT
            continue
        print(f"{' '.join(hand)}\t{score(hand, options)}", file=out)
    return status


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    options = ScoringOptions(joker_pair=args.joker_pair, natural_777=args.natural_777)
    hands = _hands_from_args(args.cards) if args.cards else _hands_from_lines(sys.stdin)
    return score_hands(hands, options, sys.stdout, sys.stderr)

"""The audit's checks of one settled hand, on the table's stored log alone: pure (no store,
no I/O), so the same checks run on a log read from Redis (`service.tables.audit`) or on one
loaded from a file (the verifier corpus, tests/fair/test_corpus.py).

The hand is checked event by event on the server's own fold of the log (the rules engine's
states); every failure names the check, the event version and the reason. The check names
and what each covers: `service.tables.audit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from events import table as ev
from events.store.base import StoredEvent
from events.store.chain import find_break
from events.table import TableEvent
from service.game import payouts
from service.game.deck import (
    ALGORITHM_V2,
    mix_of,
)
from service.game.evolve import evolve
from service.game.scoring import score
from service.game.settings import TableSettings
from service.game.state import Hand, TableState
from service.tables.audit_deals import Deal, DealChecks
from service.tables.export import first_index, hand_range, readable
from service.tables.facade import JSON, ServiceError
from service.tables.repo import fold_onto

CHECKS = (
    "chain", "commitment", "seeds", "deck", "cards", "scores", "winner", "chips", "replay"
)  # fmt: skip
SUMMARY = {
    "chain": ("chain",),
    "deck": ("commitment", "seeds", "deck", "cards"),
    "chips": ("chips",),
    "replay": ("scores", "winner", "replay"),
}


class Findings:
    def __init__(self) -> None:
        self.failures: list[JSON] = []

    def fail(self, check: str, version: int, reason: str, chain: int | None = None) -> None:
        failure: JSON = {"check": check, "version": version, "reason": reason}
        if chain is not None:
            failure["chain_version"] = chain
        self.failures.append(failure)

    def results(self) -> list[JSON]:
        """One result per check: ok, or its earliest failure."""
        out: list[JSON] = []
        for check in CHECKS:
            mine = [f for f in self.failures if f["check"] == check]
            if not mine:
                out.append({"check": check, "ok": True})
            else:
                first = min(mine, key=lambda f: f["version"])
                out.append({"ok": False, **first})
        return out


@dataclass
class Checked:
    """What the checks found on a log: the failures, the deals as rebuilt, the state the
    hand's events fold to, and where the hand lies in the log."""

    findings: Findings
    deals: list[JSON]
    after: TableState | None
    start: int  # index of the hand's hand_started
    end: int  # index of its hand_settled


def check_log(
    table_id: str,
    hand: int,
    stored: Sequence[StoredEvent],
    events: Sequence[TableEvent | None],
    table_break: tuple[int, str] | None = None,
) -> Checked:
    """Every check of settled hand `hand` that needs nothing but the stored log (the table's
    events from version 1, decoded leniently: None for bytes that are no event).
    `table_break`: where the store's own verification found the table's chain broken, if it
    did (what removed newest events leave, which no link shows); it fails `chain` when it lies
    within the hand and no link is broken before it."""
    start, end = hand_range(events, hand)
    first = first_index(events, start)
    findings = Findings()
    broken = find_break(stored[: end + 1])
    if broken is not None:
        version, reason = broken[0], broken[1]
        bad = next((s for s in stored if s.version == version), None)
        findings.fail("chain", version, reason, bad.chain if bad is not None else None)
    elif table_break is not None and table_break[0] <= stored[end].version:
        findings.fail("chain", *table_break)
    replay = _Replay(table_id, hand, stored, events, first, end, findings)
    replay.run()
    after = replay.state
    if after is not None and (after.hand is None or after.hand.phase != "settled"):
        findings.fail("replay", stored[end].version, "the log does not fold to a settled hand")
    return Checked(findings, replay.deal_reports, after, start, end)


class _Replay:
    """The exported range folded event by event with the rules engine, checking each event
    against the state before it."""

    def __init__(
        self,
        table_id: str,
        hand: int,
        stored: Sequence[StoredEvent],
        events: Sequence[TableEvent | None],
        first: int,
        end: int,
        findings: Findings,
    ) -> None:
        self.table_id = table_id
        self.hand = hand
        self.stored = stored
        self.events = events
        self.first = first
        self.end = end
        self.f = findings
        self.state: TableState | None = None
        self.ready = True  # False: the log before the hand does not fold; nothing to replay
        try:
            self.state = fold_onto(None, readable(events, stored, first))
        except ServiceError as exc:
            findings.fail("chain", _version_in(exc.message), exc.message)
            self.ready = False
        self.deals: dict[int, Deal] = {}
        self.published: int | None = None
        self.drawn: int | None = None
        self.deal_reports: list[JSON] = []

    def version(self, i: int) -> int:
        return self.stored[i].version

    def run(self) -> None:
        if not self.ready:
            return
        for i in range(self.first, self.end + 1):
            event = self.events[i]
            before = self.state
            if event is None:
                self.f.fail("chain", self.version(i), "the stored bytes are not an event")
                self.state = None
                return
            self.track(i, event)
            if before is not None:
                self.check(i, before, event)
            try:
                self.state = evolve(before, event)
            except (AssertionError, KeyError, IndexError, ValueError, TypeError) as exc:
                self.f.fail("replay", self.version(i), f"the event does not apply: {exc!r}")
                self.state = None
                return
            self.after(i, self.state)
        self.deal_reports = DealChecks(
            self.table_id, self.hand, self.stored, self.events, self.end, self.f.fail
        ).run(self.deals)

    # -- each event against the state before it ------------------------------------------------

    def track(self, i: int, e: TableEvent) -> None:
        """Which event published each deal's commitment, drew its seed, started and dealt it."""
        if isinstance(e, ev.TableCreated | ev.HandSettled | ev.SvaraStarted):
            if e.next_commitment:
                self.published, self.drawn = i, None
        elif isinstance(e, ev.SeedDrawn):
            self.drawn = i
        elif isinstance(e, ev.HandStarted):
            self._new_deal(1, i)
        elif isinstance(e, ev.SvaraDealStarted):
            self._new_deal(e.deal, i)

    def check(self, i: int, state: TableState, e: TableEvent) -> None:
        v = self.version(i)
        hand = state.hand
        settings = state.settings
        if isinstance(e, ev.AntesPaid):
            ante = state.pending_ante or settings.ante  # a tournament's level, from this hand
            if e.ante != ante:
                self.f.fail("chips", v, f"an ante of {e.ante}; the table's is {ante}")
            short = e.short or {}
            if (short and not state.tournament_id) or any(
                not 0 < paid < e.ante or _stack(state, n) != paid for n, paid in short.items()
            ):
                self.f.fail("chips", v, "a short ante is a tournament stack's all, below the ante")
            pot = (hand.pot if hand is not None else 0) + e.ante * len(e.seats)
            pot -= sum(e.ante - paid for paid in short.values())
            if e.pot != pot:
                self.f.fail("chips", v, f"the pot after the antes is {pot}, not {e.pot}")
        elif isinstance(e, ev.CardsDealt):
            self._dealt(i, state, e)
        elif isinstance(e, ev.BlindPlaced) and hand is not None:
            p = hand.player(e.seat)
            if p is None or p.put_in != 0 or (hand.level > 0 and e.amount <= hand.level):
                self.f.fail("chips", v, f"a blind of {e.amount} from seat {e.seat} does not "
                            "follow the bets before it")  # fmt: skip
        elif isinstance(e, ev.Called) and hand is not None:
            p = hand.player(e.seat)
            put_in = p.put_in if p is not None else 0
            if e.level != hand.level or put_in + e.amount != hand.level:
                due = hand.level - put_in
                self.f.fail("chips", v, f"seat {e.seat} calls {e.amount}: with {put_in} in and "
                            f"the level at {hand.level} a call is {due}")  # fmt: skip
        elif isinstance(e, ev.Raised) and hand is not None:
            p = hand.player(e.seat)
            put_in = p.put_in if p is not None else 0
            if e.level <= hand.level or put_in + e.amount != e.level:
                self.f.fail("chips", v, f"seat {e.seat} raises to {e.level} paying {e.amount} "
                            f"with {put_in} in and the level at {hand.level}")  # fmt: skip
        elif isinstance(e, ev.Looked) and hand is not None:
            self._seen(v, hand, e.seat, e.cards, "looks at")
        elif isinstance(e, ev.ShowdownHappened) and hand is not None:
            for seat, shown in e.hands.items():
                self._seen(v, hand, seat, shown.cards, "shows")
                right = score(shown.cards, settings.scoring)
                if shown.score != right:
                    self.f.fail("scores", v, f"seat {seat} shows {' '.join(shown.cards)} scored "
                                f"{shown.score}; the rules give {right}")  # fmt: skip
        elif isinstance(e, ev.SvaraStarted) and hand is not None:
            self._svara(v, hand, settings, e)
        elif isinstance(e, ev.SvaraJoined) and hand is not None:
            if e.fee != hand.svara_fee:
                self.f.fail("chips", v, f"seat {e.seat} joins for {e.fee}; the fee is "
                            f"{hand.svara_fee}")  # fmt: skip
        elif isinstance(e, ev.PlayerLeft):
            s = state.seats[e.seat] if 0 <= e.seat < len(state.seats) else None
            if s is not None and s.stack != e.cashed_out:
                self.f.fail("chips", v, f"seat {e.seat} cashes out {e.cashed_out} but holds "
                            f"{s.stack}")  # fmt: skip
        elif isinstance(e, ev.HandSettled) and e.number == self.hand and hand is not None:
            self._settled(v, hand, settings, e)

    def after(self, i: int, state: TableState) -> None:
        v = self.version(i)
        if state.chips_in_play() != state.bought_in - state.cashed_out:
            self.f.fail("chips", v, "chips are not conserved: stacks, pot and rake differ from "
                        "what was bought in minus what was cashed out")  # fmt: skip
        for s in state.seats:
            if s is not None and s.stack < 0:
                self.f.fail("chips", v, f"seat {s.seat}'s stack goes below zero ({s.stack})")

    def _new_deal(self, deal: int, i: int) -> None:
        self.deals[deal] = Deal(deal, i, self.published, self.drawn)
        self.published = self.drawn = None

    def _dealt(self, i: int, state: TableState, e: ev.CardsDealt) -> None:
        deal = self.deals.get(e.deal)
        if deal is None:
            self.f.fail("deck", self.version(i), f"cards for deal {e.deal}, which never started")
            return
        deal.dealt = i
        if e.algorithm != ALGORITHM_V2:
            return
        start = self.events[deal.start]
        assert isinstance(start, ev.HandStarted | ev.SvaraDealStarted)
        recorded = {}
        for seat in start.participants:
            s = state.seats[seat]
            if s is not None and s.client_seed:
                recorded[seat] = s.client_seed
        named = dict(e.client_seeds or {})
        if named != recorded:
            self.f.fail("seeds", self.version(i), f"the players' seeds named at the deal {named}"
                        f" are not those recorded before it {recorded}")  # fmt: skip
        elif e.mix != mix_of(named):
            self.f.fail("seeds", self.version(i), "mix is not the digest of the players' seeds")

    def _seen(self, v: int, hand: Hand, seat: int, cards: Sequence[str], verb: str) -> None:
        p = hand.player(seat)
        if p is None or p.cards is None or tuple(cards) != tuple(p.cards):
            dealt = " ".join(p.cards) if p is not None and p.cards else "nothing"
            self.f.fail("cards", v, f"seat {seat} {verb} {' '.join(cards)} but was dealt "
                        f"{dealt}")  # fmt: skip

    @staticmethod
    def _best(hand: Hand, settings: TableSettings) -> list[int]:
        scores = {s: score(h.cards, settings.scoring) for s, h in hand.shown.items()}
        if not scores:
            return []
        top = max(scores.values())
        return [s for s, x in scores.items() if x == top]

    def _svara(self, v: int, hand: Hand, settings: TableSettings, e: ev.SvaraStarted) -> None:
        best = self._best(hand, settings)
        if sorted(best) != sorted(e.tied) or len(best) < 2 or settings.svara != "play":
            self.f.fail("winner", v, f"a svara between {list(e.tied)}; the showdown's best are "
                        f"{best} (svara rule {settings.svara})")  # fmt: skip
        if e.pot != hand.pot:
            self.f.fail("chips", v, f"the svara's pot is {e.pot}, not {hand.pot}")
        fee = payouts.svara_fee(settings.svara_join_fee, settings.ante, hand.pot, len(e.tied))
        if e.fee != fee:
            self.f.fail("chips", v, f"a join fee of {e.fee}; the rule gives {fee}")

    def _settled(self, v: int, hand: Hand, settings: TableSettings, e: ev.HandSettled) -> None:
        expected: list[int] | None
        if e.reason == "last_player":
            expected = [p.seat for p in hand.players if not p.folded]
        elif e.reason in ("showdown", "split"):
            best = self._best(hand, settings)
            single = e.reason == "showdown"
            fits = len(best) == 1 if single else len(best) >= 2 and settings.svara == "split"
            expected = best if fits else None
        elif e.reason == "svara_walkover":
            expected = sorted({*hand.tied, *hand.joined})
        else:
            expected = None
        if expected is None or sorted(expected) != sorted(e.winners):
            self.f.fail("winner", v, f"winners {list(e.winners)} ({e.reason}) do not follow "
                        f"from the hand (the rules give {expected})")  # fmt: skip
        if e.pot != hand.pot:
            self.f.fail("chips", v, f"the settled pot is {e.pot}; the bets add up to {hand.pot}")
        rake, right = payouts.payout(hand.pot, settings.rake_percent, e.winners)
        if e.rake != rake or dict(e.amounts) != right:
            self.f.fail("chips", v, f"paid {dict(e.amounts)} with rake {e.rake}; a pot of "
                        f"{hand.pot} pays {right} with rake {rake}")  # fmt: skip


def _version_in(message: str) -> int:
    """The version named in an `unreadable_log` message."""
    digits = "".join(c if c.isdigit() else " " for c in message).split()
    return int(digits[0]) if digits else 0


def _stack(state: TableState, seat: int) -> int:
    s = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return s.stack if s is not None else -1

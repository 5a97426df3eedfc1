"""The readable history of one settled hand (`GET /api/tables/{id}/hands/{n}/transcript`), in
one of the six languages; the format is docs/TRANSCRIPT.md.

Everything in it was public once the hand settled (cards only where they were shown, the
seeds the settlement revealed), so it is the same for every reader but for the language. The
pots and stacks are the rules engine's fold; `svara verify --text FILE` prints the English
text from an export file with its own, independent bookkeeping.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from events import table as ev
from events.codec import event_type
from events.table import TableEvent
from service.game.state import TableState
from service.tables.hand_log import HandLog
from service.tables.replay import states
from service.texts.transcript import SEPARATOR, texts


def time_text(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S")


class _Writer:
    def __init__(self, language: str, start: TableState) -> None:
        self.t = texts(language)
        self.sep = SEPARATOR.get(language, ", ")
        self.names = {s.seat: s.name for s in start.seats if s is not None}

    def say(self, key: str, **fields: Any) -> str:
        return self.t[key].format(**fields)

    def who(self, seat: int) -> str:
        return self.say("who", name=self.names.get(seat, "?"), seat=seat)

    def whos(self, seats: Any) -> str:
        return self.sep.join(self.who(s) for s in seats)

    def line(self, event: TableEvent, pot: int) -> str | None:
        handler = _LINES.get(type(event))
        if handler is None:
            if isinstance(event, ev.TurnDeadlineSet | ev.AnteChanged):  # (the next hand's ante)
                return None
            return self.say("other", type=event_type(event))
        return handler(self, event, pot)


def _seated(w: _Writer, e: Any, pot: int) -> str:
    w.names[e.seat] = e.name
    return w.say("player_seated", who=w.who(e.seat), amount=e.buy_in)


def _shown(w: _Writer, e: Any, pot: int) -> str:
    hands = w.sep.join(
        w.say("shown", who=w.who(s), cards=" ".join(h.cards), score=h.score)
        for s, h in sorted(e.hands.items())
    )
    return w.say("showdown_capped" if e.capped else "showdown", hands=hands)


def _timed_out(w: _Writer, e: Any, pot: int) -> str:
    action = w.t.get(f"action_{e.action}", e.action)
    return w.say("timed_out", who=w.who(e.seat), action=action, pot=pot)


_Line = Callable[[_Writer, Any, int], str]
_LINES: dict[type, _Line] = {
    ev.HandStarted: lambda w, e, p: w.say(
        "hand_started", hand=e.number, who=w.who(e.dealer), commitment=e.commitment),
    ev.AntesPaid: lambda w, e, p: w.say("antes_paid", ante=e.ante, count=len(e.seats), pot=p),
    ev.CardsDealt: lambda w, e, p: w.say("cards_dealt", deal=e.deal),
    ev.BlindPlaced: lambda w, e, p: w.say(
        "blind_placed", who=w.who(e.seat), amount=e.amount, pot=p),
    ev.Passed: lambda w, e, p: w.say("passed", who=w.who(e.seat), pot=p),
    ev.Looked: lambda w, e, p: w.say("looked", who=w.who(e.seat), pot=p),
    ev.Called: lambda w, e, p: w.say("called", who=w.who(e.seat), amount=e.amount, pot=p),
    ev.Raised: lambda w, e, p: w.say(
        "raised", who=w.who(e.seat), level=e.level, amount=e.amount, pot=p),
    ev.Folded: lambda w, e, p: w.say(
        "folded_left" if e.left else "folded", who=w.who(e.seat), pot=p),
    ev.TimedOut: _timed_out,
    ev.ShowdownHappened: _shown,
    ev.SvaraStarted: lambda w, e, p: w.say(
        "svara_started", players=w.whos(e.tied), fee=e.fee, pot=p),
    ev.SvaraJoined: lambda w, e, p: w.say("svara_joined", who=w.who(e.seat), fee=e.fee, pot=p),
    ev.SvaraSkipped: lambda w, e, p: w.say("svara_skipped", who=w.who(e.seat), pot=p),
    ev.SvaraDealStarted: lambda w, e, p: w.say(
        "svara_deal_started", deal=e.deal, players=w.whos(e.participants),
        commitment=e.commitment),
    ev.SeedDrawn: lambda w, e, p: w.say("seed_drawn", commitment=e.commitment),
    ev.PlayerSeated: _seated,
    ev.PlayerLeft: lambda w, e, p: w.say("player_left", who=w.who(e.seat), amount=e.cashed_out),
    ev.PlayerSatOut: lambda w, e, p: w.say("sat_out", who=w.who(e.seat)),
    ev.PlayerReturned: lambda w, e, p: w.say("returned", who=w.who(e.seat)),
    ev.ClientSeedSet: lambda w, e, p: w.say(
        "client_seed_set", who=w.who(e.seat), seed=e.client_seed),
    ev.HandSettled: lambda w, e, p: w.say("hand_settled", hand=e.number),
}


def transcript(table_id: str, hand: HandLog, language: str) -> str:
    """The text of settled `hand` (its `start` must be known: the state before it)."""
    start = hand.start
    assert start is not None and hand.settled
    w = _Writer(language, start)
    started = hand.events[0]
    assert isinstance(started, ev.HandStarted)
    name = getattr(start.settings, "name", "") or ""
    players = w.sep.join(
        w.say("player", who=w.who(seat), stack=s.stack)
        for seat in started.participants
        if (s := start.seats[seat]) is not None
    )
    out = [
        w.say("title"),
        w.say("table", table=f"{name} ({table_id})" if name else table_id),
        w.say("hand", hand=hand.number),
        w.say("stakes", ante=start.pending_ante or start.settings.ante),  # a new level's
        w.say("time", time=time_text(hand.stored[0].at)),
        w.say("players", players=players),
        "",
    ]
    for stored, event, state in zip(hand.stored, hand.events, states(hand), strict=True):
        pot = state.hand.pot if state.hand is not None else 0
        text = w.line(event, pot)
        if text is not None:
            out.append(f"#{stored.version} {text}")
    settled = hand.events[-1]
    assert isinstance(settled, ev.HandSettled)
    paid = w.sep.join(
        w.say("paid", who=w.who(s), amount=a) for s, a in sorted(settled.amounts.items())
    )
    reason = w.t.get(f"reason_{settled.reason}", settled.reason)
    out += [
        "",
        w.say("result", reason=reason, paid=paid, pot=settled.pot, rake=settled.rake),
        *(
            w.say("seed", deal=s.deal, commitment=s.commitment, seed=s.seed)
            for s in sorted(settled.seeds, key=lambda s: s.deal)
        ),
        w.say("chain", hash=hand.stored[-1].hash, version=hand.stored[-1].version),
    ]
    return "\n".join(out) + "\n"

"""Where each hand lives in its table's stream, and each player's settled hands.

Two indexes beside the streams (`IndexOp`s, written in the same atomic Redis Function call
as the append that starts or settles a hand, so they can never disagree with the log and
are written exactly once however many replicas race):

- `<ns>hands:<table>`: per hand n two members, `<n:010d>:a` → `<first version>\\n<the state
  just before its hand_started, msgpack>` and, once settled, `<n:010d>:b` → `<last version>`.
  A replay reads this entry and the hand's own events (one XRANGE of that range), never the
  table's whole log; the stored state is what it folds from.
- `<ns>myhands:<user>`: one member per hand the player was dealt into,
  `<inverted settle time in ms>:<table>:<n>` (so member order is newest first) → the JSON of
  the entry `GET /api/me/hands` lists (`{table_id, hand, settled_at, pot, won, result}`).

Every entry has the score 0: both are read in member order (`index_page`). `HandTracker`
follows a fold event by event and says which entries it implies; the live append path feeds
it the batch (`changes_for_batch`) and `svara reindex` the whole log (`rebuild_changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import msgspec

from events import table as ev
from events.store.base import IndexOp
from events.table import TableEvent
from service.game.decider import evolve
from service.game.state import TableState, encode_state

DIGITS = 10
# Settle times are inverted against this (ms since the epoch; year 2286) so that the member
# order of a player's index is newest first.
_TIME_CEILING = 10**13
_json = msgspec.json.Encoder()


def hands_index(namespace: str, table_id: str) -> str:
    return f"{namespace}hands:{table_id}"


def user_hands_index(namespace: str, user_id: int) -> str:
    return f"{namespace}myhands:{user_id}"


def hand_prefix(number: int) -> str:
    return f"{number:0{DIGITS}d}:"


def start_member(number: int) -> str:
    return hand_prefix(number) + "a"


def settled_member(number: int) -> str:
    return hand_prefix(number) + "b"


def user_member(settled_at: float, table_id: str, number: int) -> str:
    inverted = max(0, _TIME_CEILING - int(settled_at * 1000))
    return f"{inverted:014d}:{table_id}:{number}"


class HandEntry(NamedTuple):
    """One hand's entry: where it starts, where it ends (None: not settled yet) and the
    table's state just before its first event (None: unreadable, fold from elsewhere)."""

    number: int
    first: int
    last: int | None
    start: bytes


def start_value(first: int, state: TableState | None) -> bytes:
    return b"%d\n" % first + (encode_state(state) if state is not None else b"")


def parse_entry(number: int, start: bytes | None, settled: bytes | None) -> HandEntry | None:
    """The entry from the two stored values; None when the start is missing or malformed."""
    if start is None:
        return None
    head, _, state = start.partition(b"\n")
    try:
        first = int(head)
        last = int(settled) if settled is not None else None
    except ValueError:
        return None
    return HandEntry(number, first, last, state)


class _Open(NamedTuple):
    number: int
    users: dict[int, int]  # user id -> seat at the deal
    nets: dict[int, int]  # user id -> chips won minus chips put in so far
    folded: set[int]


class HandTracker:
    """Follows a table's fold and says which index entries each event implies."""

    def __init__(self, namespace: str, table_id: str) -> None:
        self.namespace = namespace
        self.table_id = table_id
        self.open: _Open | None = None

    def step(
        self,
        before: TableState | None,
        event: TableEvent,
        after: TableState,
        version: int,
        at: float,
    ) -> list[IndexOp]:
        kind = type(event)
        if kind is ev.HandStarted:
            assert isinstance(event, ev.HandStarted)
            users = {
                s.user_id: s.seat
                for seat in event.participants
                if before is not None and (s := before.seats[seat]) is not None
            }
            self.open = _Open(event.number, users, dict.fromkeys(users, 0), set())
            index = hands_index(self.namespace, self.table_id)
            return [IndexOp(index, start_member(event.number), 0.0, start_value(version, before))]
        hand = self.open
        if hand is None or before is None:
            return []
        for user in hand.nets:
            was, now = before.seat_by_user(user), after.seat_by_user(user)
            if was is not None and now is not None and was.seat == now.seat:
                hand.nets[user] += now.stack - was.stack
        if isinstance(event, ev.Folded | ev.PlayerLeft):
            hand.folded.add(event.user_id)
        elif isinstance(event, ev.TimedOut):
            if event.action == "fold":
                hand.folded.add(event.user_id)
        elif kind is ev.HandSettled:
            assert isinstance(event, ev.HandSettled)
            self.open = None
            if event.number == hand.number:
                return self._settled(hand, event, version, at)
        return []

    def _settled(
        self, hand: _Open, event: ev.HandSettled, version: int, at: float
    ) -> list[IndexOp]:
        ops = [
            IndexOp(
                hands_index(self.namespace, self.table_id),
                settled_member(event.number),
                0.0,
                b"%d" % version,
            )
        ]
        winners = set(event.winners)
        for user, seat in hand.users.items():
            if seat in winners:
                result = "won" if len(winners) == 1 else "split"
            else:
                result = "folded" if user in hand.folded else "lost"
            entry = {
                "table_id": self.table_id,
                "hand": event.number,
                "settled_at": at,
                "pot": event.pot,
                "won": hand.nets[user],
                "result": result,
                "reason": event.reason,
                "version": version,
            }
            ops.append(
                IndexOp(
                    user_hands_index(self.namespace, user),
                    user_member(at, self.table_id, event.number),
                    0.0,
                    _json.encode(entry),
                )
            )
        return ops


def fold_tracked(
    tracker: HandTracker,
    state: TableState | None,
    events: Sequence[TableEvent],
    first_version: int,
    at: Sequence[float] | float,
) -> tuple[TableState | None, list[IndexOp]]:
    """Fold `events` (versions from `first_version`) onto `state`, collecting the entries."""
    ops: list[IndexOp] = []
    for i, event in enumerate(events):
        after = evolve(state, event)
        when = at if isinstance(at, float) else at[i]
        ops += tracker.step(state, event, after, first_version + i, when)
        state = after
    return state, ops

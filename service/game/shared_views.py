"""Several viewers' views of one state, JSON-encoded, sharing what does not depend on the viewer.

`service.game.view.view(state, viewer, version)` builds everything afresh for each viewer. A
live event goes to every player at the table, and each of their frames carries that player's
view at the same version: the settings, the hand and every seat but the viewer's own are the
same for all of them. `SharedViews` encodes those parts once and adds each viewer's own (their
seat's cards once they looked, and `you` with its legal actions).

The result is byte-for-byte JSON of the same value as `view()` (key order included):
tests/service/test_live.py compares the two for every viewer (each player, an outsider, a
spectator) at every version of played hands, so a change to `view()` that this does not
follow fails there.
"""

from __future__ import annotations

from typing import Any

import msgspec

from service.game.legal import legal_actions
from service.game.scoring import score
from service.game.settings import TableSettings
from service.game.state import TableState
from service.game.view import _hand_view, seat_entry, seat_player, table_host, tournament_part

_encode = msgspec.json.Encoder().encode
_NOBODY = _encode(
    {"seat": None, "cards": None, "score": None, "legal": [], "client_seed": None}
)
# A table's settings rarely change and every state of it shares the object: encoded once.
_SETTINGS_CACHE_SIZE = 4096
_settings_json: dict[int, tuple[TableSettings, bytes]] = {}


def settings_json(settings: TableSettings) -> bytes:
    cached = _settings_json.get(id(settings))
    if cached is not None and cached[0] is settings:
        return cached[1]
    if len(_settings_json) >= _SETTINGS_CACHE_SIZE:
        _settings_json.clear()
    encoded = _encode(settings)
    _settings_json[id(settings)] = (settings, encoded)  # holds it: the id stays its own
    return encoded


class SharedViews:
    __slots__ = ("_entries", "_head", "_private", "_state", "_version")

    def __init__(self, state: TableState, version: int) -> None:
        self._state = state
        self._version = version
        self._head: bytes | None = None
        # per seated seat: (user_id, the public entry as JSON and as a dict, the entry its
        # owner sees when that is more than everyone else sees: their own looked cards, and
        # the owner's client seed)
        self._entries: (
            list[tuple[int, bytes, dict[str, Any], dict[str, Any] | None, str]] | None
        ) = None
        self._private: dict[int, tuple[bytes, bytes]] = {}

    def _build(self) -> None:
        state = self._state
        hand = state.hand
        options = state.settings.scoring
        entries: list[tuple[int, bytes, dict[str, Any], dict[str, Any] | None, str]] = []
        for s in state.seats:
            if s is None:
                continue
            p = seat_player(hand, s)
            cards = None
            own = False
            if hand is not None and p is not None:
                shown = hand.shown.get(p.seat)
                if shown is not None:
                    cards = shown.cards
                elif p.looked:
                    own = True  # its owner sees them; everyone else sees null
            entry = seat_entry(s, p, cards, options)
            private = None
            if own and p is not None and p.cards is not None:
                private = {**entry, "cards": list(p.cards), "score": score(p.cards, options)}
            entries.append((s.user_id, _encode(entry), entry, private, s.client_seed))
        self._entries = entries
        # the closing brace comes after "seats" and "you"
        self._head = (
            b'{"table_id":%b,"version":%d,"settings":%b,"phase":%b,"host":%b,"name":%b,'
            b'"private":%b,"created_by":%d,"hand":%b,'
            b'"next_commitment":%b'
            % (
                _encode(state.table_id),
                self._version,
                settings_json(state.settings),
                _encode(state.phase),
                _encode(table_host(state)),
                _encode(state.name or None),
                b"true" if state.private else b"false",
                state.created_by,
                _encode(_hand_view(state, hand)) if hand is not None else b"null",
                _encode(state.next_commitment or None),
            )
        )
        extra = tournament_part(state)
        if extra:
            self._head += b',"tournament":%b' % _encode(extra["tournament"])

    def encoded(self, viewer: int | None) -> bytes:
        """`view(state, viewer, version)` as JSON."""
        if self._entries is None:
            self._build()
        assert self._entries is not None and self._head is not None
        seats = []
        you = _NOBODY
        for user_id, public, entry, private, client_seed in self._entries:
            if viewer is not None and user_id == viewer:
                mine = entry
                if private is not None:
                    mine = private
                    public = _encode(private)
                seats.append(public)
                you = _encode({
                    "seat": mine["seat"],
                    "cards": mine["cards"],
                    "score": mine["score"],
                    # to_dict(), not the Struct: compiled by mypyc it loses omit_defaults
                    "legal": [a.to_dict() for a in legal_actions(self._state, viewer)],
                    "client_seed": client_seed or None,
                })
            else:
                seats.append(public)
        return b'%b,"seats":[%b],"you":%b}' % (self._head, b",".join(seats), you)

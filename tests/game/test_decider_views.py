"""Views and projected events: docs/API.md "The caller's view", and what each viewer sees."""

from __future__ import annotations

import hashlib

import msgspec

from events import table as ev
from service.game import commands as cmd
from service.game.view import project_event, view
from tests.support.privacy import check_projected_event, check_view
from tests.support.tablekit import Table, seed_where, table_with

A, B, C = 11, 12, 13

SEAT_KEYS = {
    "seat", "user_id", "name", "stack", "in_hand", "folded", "blind", "looked", "put_in",
    "cards", "score",
}  # fmt: skip
HAND_KEYS = {"number", "deal", "phase", "dealer", "pot", "level", "turn", "deadline", "commitment"}


def test_view_has_the_shape_of_api_md() -> None:
    t = table_with([A, B, C])
    v = view(t.s, B, 17)
    assert {"table_id", "version", "settings", "hand", "seats", "you"} <= set(v)
    assert v["version"] == 17 and v["table_id"] == "t1" and v["settings"]["ante"] == 1
    assert set(v["hand"]) >= HAND_KEYS
    assert v["hand"]["phase"] == "blind" and v["hand"]["turn"] == 1
    assert v["hand"]["deadline"] == t.s.deadline and v["hand"]["pot"] == 3
    assert all(set(seat) >= SEAT_KEYS for seat in v["seats"])
    assert [seat["seat"] for seat in v["seats"]] == [0, 1, 2]
    assert set(v["you"]) == {"seat", "cards", "score", "legal", "client_seed"}
    assert v["next_commitment"] is None  # hand 2's is published when hand 1 settles
    assert v["you"]["legal"] == [
        {"type": "blind", "min": 1, "max": 98},
        {"type": "pass"},
        {"type": "look"},
    ]


def test_view_own_cards_only_after_looking() -> None:
    t = table_with([A, B, C])
    assert view(t.s, B, 1)["you"]["cards"] is None
    t.act(B, "look")
    mine = view(t.s, B, 1)
    cards = t.s.hand.player(1).cards  # type: ignore[union-attr]
    assert mine["you"]["cards"] == list(cards) and mine["you"]["score"] is not None  # type: ignore[arg-type]
    assert mine["seats"][1]["cards"] == list(cards)  # type: ignore[arg-type]
    assert all(view(t.s, other, 1)["seats"][1]["cards"] is None for other in (A, C, None))
    assert mine["seats"][2]["cards"] is None  # others stay hidden


def test_view_spectators_see_no_cards_until_showdown() -> None:
    seed = seed_where("t1", 2, 1, 3, lambda s: len(set(s)) == 3)
    t = table_with([A, B, C], seed=seed)
    t.act(B, "look")
    t.act(C, "look")
    assert all(seat["cards"] is None for seat in view(t.s, None, 1)["seats"])
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(A, "fold")
    public = view(t.s, None, 1)
    assert public["hand"]["phase"] == "settled"
    shown = {seat["seat"]: seat["cards"] for seat in public["seats"]}
    assert shown[0] is None and shown[1] is not None and shown[2] is not None
    assert public["you"] == {
        "seat": None, "cards": None, "score": None, "legal": [], "client_seed": None
    }
    assert public["hand"]["seeds"][0]["seed"] == seed.hex()  # revealed after the hand


def test_projected_hand_started_hides_the_seed_until_settled() -> None:
    t = table_with([A, B])
    started = t.last(ev.HandStarted)
    for viewer in (A, B, None):
        data = project_event(started, viewer)
        assert data["type"] == "hand_started"
        assert "seed" not in data["data"] and data["data"]["commitment"] == started.commitment
    t.act(B, "pass")
    t.act(B, "fold")
    settled = project_event(t.last(ev.HandSettled), None)
    assert settled["data"]["seeds"][0]["seed"] == started.seed


def test_projected_cards_dealt_shows_no_cards_to_anyone() -> None:
    t = table_with([A, B])
    dealt = t.last(ev.CardsDealt)
    for viewer in (A, B, None):
        assert project_event(dealt, viewer)["data"] == {
            "deal": 1,
            "cards": {"0": None, "1": None},
            "turn": 1,  # the deal also hands the first blind turn on (public)
            "deadline": dealt.deadline,
            "phase": "blind",
            "algorithm": "hmac-sha256-fy-v2",
            "client_seeds": {},  # the players' seeds are public
            "mix": hashlib.sha256(b"").hexdigest(),
        }


def test_view_shows_the_players_own_seed_and_the_next_commitment_in_full() -> None:
    t = table_with([A, B])
    t.do(cmd.SetClientSeed(user_id=A, client_seed="mine", now=t.now))
    assert view(t.s, A, 1)["you"]["client_seed"] == "mine"
    assert view(t.s, B, 1)["you"]["client_seed"] is None
    assert view(t.s, A, 1)["hand"]["commitment"] == t.last(ev.HandStarted).commitment
    t.act(B, "pass")
    t.act(B, "fold")
    published = t.last(ev.HandSettled).next_commitment
    assert len(published) == 64 and view(t.s, None, 1)["next_commitment"] == published


def test_projected_seed_drawn_never_shows_the_seed() -> None:
    """A seed drawn in advance belongs to a deal still to come: no viewer ever sees it in
    `seed_drawn` (the settlement of its own hand reveals it)."""
    t = table_with([A, B])
    t.act(B, "pass")
    t.act(B, "fold")
    drawn = t.last(ev.SeedDrawn)
    for viewer in (A, B, None):
        assert project_event(drawn, viewer)["data"] == {"commitment": drawn.commitment}
        assert project_event(t.log[0], viewer)["data"]["next_commitment"]  # public


def test_projected_looked_shows_cards_to_the_looker_only() -> None:
    t = table_with([A, B])
    t.act(A, "look")
    looked = t.last(ev.Looked)
    assert project_event(looked, A)["data"]["cards"] == list(looked.cards)
    assert project_event(looked, B)["data"]["cards"] is None
    assert project_event(looked, None)["data"] == {"seat": 0, "user_id": A, "cards": None}


def test_projected_showdown_shows_every_hand_still_in() -> None:
    t = table_with([A, B])
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(A, "call")
    shown = project_event(t.last(ev.ShowdownHappened), None)
    assert set(shown["data"]["hands"]) == {"0", "1"}
    assert all(len(h["cards"]) == 3 for h in shown["data"]["hands"].values())


def test_view_explains_a_fold_by_the_clock_and_no_other() -> None:
    """`timed_out` tells a player folded by the server (docs/RULES.md "Time") from a fold."""
    t = table_with([A, B, C])
    t.act(B, "pass")
    t.tick()  # B's betting turn runs out: the server folds for B
    t.act(C, "fold")  # C folds on their own
    for viewer in (A, B, C, None):
        seats = {s["seat"]: s for s in view(t.s, viewer, 1)["seats"]}
        assert seats[1]["folded"] and seats[1]["timed_out"]
        assert seats[2]["folded"] and not seats[2]["timed_out"]
        assert not seats[0]["timed_out"]
    # A missed turn then a fold of one's own: that fold is the player's, not the clock's.
    t = table_with([A, B, C])
    t.tick()  # B's blind turn runs out: passed for B (one missed turn)
    assert t.turn_user == B
    t.act(B, "fold")
    assert not {s["seat"]: s for s in view(t.s, None, 1)["seats"]}[1]["timed_out"]


def test_view_says_who_must_double_after_a_blind() -> None:
    t = table_with([A, B, C])
    assert not view(t.s, C, 1)["hand"]["must_double"]
    t.act(B, "blind", 5)
    t.act(C, "pass")  # the blind round ends: C must raise to at least 10
    hand = view(t.s, None, 1)["hand"]
    assert hand["must_double"] and hand["last_blind"] == 5 and hand["last_blind_seat"] == 1
    assert hand["turn"] == 2
    t.act(C, "raise", 10)
    assert not view(t.s, None, 1)["hand"]["must_double"]


def test_view_names_the_table_after_its_host() -> None:
    t = Table(ante=1)  # created by user 1
    assert view(t.s, None, 1)["host"] is None  # nobody seated
    t.sit(A, 100, seat=0)
    t.sit(B, 100, seat=1)
    assert view(t.s, None, 1)["host"] == "u11"  # the creator is not seated: the longest seated
    t.sit(1, 100, seat=2)
    assert view(t.s, B, 1)["host"] == "u1"  # the creator, once seated


def test_projected_svara_events_never_show_the_svara_deals_seed_before_the_settlement() -> None:
    """A svara's deal has a seed of its own, drawn when the svara is declared: no viewer (the
    tied, the one who skipped, a spectator) finds it in any projected event -- `svara_started`,
    `seed_drawn`, `svara_deal_started`, `cards_dealt` or any other -- nor in a view, until the
    hand's settlement reveals it."""
    t = table_with([A, B, C], seed=seed_where("t1", 2, 1, 3, lambda s: s[0] == s[1]))
    t.act(B, "pass")
    t.act(B, "raise", 1)
    t.act(C, "call")
    t.act(A, "fold")
    declared = len(t.log)
    t.act(A, "skip_svara")
    deal = t.last(ev.SvaraDealStarted)
    assert deal.deal == 2 and deal.commitment == t.last(ev.SvaraStarted).next_commitment
    secret = {deal.seed}
    svara_events = t.log[declared - 2 :]
    assert {"svara_started", "seed_drawn", "svara_deal_started", "cards_dealt"} <= set(
        t.types(svara_events)
    )
    for viewer in (A, B, C, None):
        for event in t.log:
            data = project_event(event, viewer)
            assert deal.seed not in msgspec.json.encode(data).decode().lower(), (viewer, data)
            check_projected_event(event, viewer, secret, t.s.settings)
        check_view(t.s, viewer, secret)
    t.act(t.turn_user, "pass")  # the svara deal's blind round ends; the same player folds
    t.act(t.turn_user, "fold")
    settled = t.last(ev.HandSettled)
    assert deal.seed in {s["seed"] for s in project_event(settled, None)["data"]["seeds"]}

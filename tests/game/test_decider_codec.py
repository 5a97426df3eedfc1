"""Event and state codecs: every event type round-trips; old events (without newer fields)
still decode; tags are stable snake_case; snapshots round-trip and bad bytes are refused."""

from __future__ import annotations

import re

import msgspec
import pytest

from events import table as ev
from events.codec import decode_table_event, encode_table_event, event_type
from service.game.settings import TableSettings
from service.game.state import decode_state, encode_state
from tests.support.tablekit import table_with

SAMPLES: list[ev.TableEvent] = [
    ev.TableCreated(table_id="t", settings=TableSettings(ante=2), created_by=1, created_at=5.0),
    ev.PlayerSeated(user_id=1, name="Ann", seat=0, buy_in=50, transfer_id="x"),
    ev.PlayerLeft(user_id=1, seat=0, cashed_out=40, transfer_id="y", at=7.5),
    ev.HandStarted(number=1, dealer=0, participants=(1, 0), commitment="c" * 64, seed="0" * 64),
    ev.AntesPaid(ante=2, seats=(1, 0), pot=4),
    ev.CardsDealt(deal=1, cards={1: ("7c", "8d", "9h"), 0: ("Ts", "Jc", "Qd")}),
    ev.BlindPlaced(seat=1, user_id=2, amount=2),
    ev.Passed(seat=0, user_id=1),
    ev.Looked(seat=0, user_id=1, cards=("Ts", "Jc", "Qd")),
    ev.Called(seat=0, user_id=1, amount=2, level=4),
    ev.Raised(seat=1, user_id=2, amount=4, level=6),
    ev.Folded(seat=1, user_id=2, left=True),
    ev.TurnDeadlineSet(seat=1, deadline=12.5, phase="blind"),
    ev.TimedOut(seat=1, user_id=2, action="fold"),
    ev.ShowdownHappened(deal=1, hands={0: ev.ShownHand(cards=("Ts", "Jc", "Qd"), score=10)}),
    ev.SvaraStarted(tied=(0, 1), fee=3, eligible=(2,), join_deadline=40.0, pot=7),
    ev.SvaraJoined(seat=2, user_id=3, fee=3),
    ev.SvaraSkipped(seat=2, user_id=3),
    ev.SvaraDealStarted(deal=2, participants=(1, 0), commitment="d" * 64, seed="1" * 64),
    ev.HandSettled(
        number=1,
        winners=(0,),
        amounts={0: 7},
        pot=7,
        rake=0,
        reason="showdown",
        seeds=(ev.DealSeed(deal=1, commitment="c" * 64, seed="0" * 64),),
        next_hand_at=50.0,
        next_dealer=0,
    ),
    ev.PlayerSatOut(seat=1, user_id=2),
    ev.PlayerReturned(seat=1, user_id=2),
    ev.TableClosed(reason="idle", idle_seconds=86400.0),
    ev.AnteChanged(ante=5, level=2),
    ev.SeedDrawn(commitment="e" * 64, seed="2" * 64),
    ev.ClientSeedSet(seat=1, user_id=2, client_seed="my-seed_01"),
    ev.CardsDealt(
        deal=2,
        cards={1: ("7c", "8d", "9h"), 0: ("Ts", "Jc", "Qd")},
        algorithm="hmac-sha256-fy-v2",
        client_seeds={0: "alice", 1: "b0b"},
        mix="f" * 64,
    ),
]


def test_codec_every_event_type_round_trips() -> None:
    assert {type(e) for e in SAMPLES} == set(ev.EVENT_TYPES)
    for event in SAMPLES:
        data = encode_table_event(event)
        assert decode_table_event(data) == event
        assert msgspec.json.decode(data)["type"] == event_type(event)


def test_codec_tags_are_explicit_snake_case_and_unique() -> None:
    tags = [event_type(e) for e in SAMPLES[:-1]]  # the last is a second cards_dealt
    assert len(set(tags)) == len(tags)
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", tag) for tag in tags)


def test_codec_events_stored_before_a_field_existed_still_decode() -> None:
    old = b'{"type":"folded","seat":1,"user_id":2}'
    assert decode_table_event(old) == ev.Folded(seat=1, user_id=2, left=False)
    old_turn = b'{"type":"turn_deadline_set","seat":1,"deadline":3.0}'
    assert decode_table_event(old_turn) == ev.TurnDeadlineSet(seat=1, deadline=3.0)


def test_codec_v1_events_keep_their_bytes_and_read_as_v1() -> None:
    """The v2 fields of `cards_dealt` are left out when they hold their v1 defaults, so an
    event written before v2 encodes to its old bytes again; old settle, svara and create
    events read with no commitment published in advance."""
    old = b'{"type":"cards_dealt","deal":1,"cards":{"0":["7c","8d","9h"],"1":["Ts","Jc","Qd"]}}'
    dealt = decode_table_event(old)
    assert isinstance(dealt, ev.CardsDealt)
    assert (dealt.algorithm, dealt.client_seeds, dealt.mix) == ("hmac-sha256-fy-v1", None, "")
    assert encode_table_event(dealt) == old
    created = decode_table_event(
        b'{"type":"table_created","table_id":"t","settings":{"ante":1},"created_by":1}'
    )
    assert isinstance(created, ev.TableCreated) and created.next_commitment == ""
    svara = decode_table_event(
        b'{"type":"svara_started","tied":[0,1],"fee":1,"eligible":[],"join_deadline":1.0,'
        b'"pot":2}'
    )
    assert isinstance(svara, ev.SvaraStarted) and svara.next_commitment == ""


def test_codec_unknown_or_broken_events_are_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_table_event(b'{"type":"meteor_struck"}')
    with pytest.raises(msgspec.DecodeError):
        decode_table_event(b"{not json")


def test_state_snapshot_round_trips_and_bad_bytes_are_refused() -> None:
    t = table_with([11, 12, 13])
    t.act(12, "blind", 1)
    data = encode_state(t.s)
    assert decode_state(data) == t.s
    with pytest.raises(msgspec.DecodeError):
        decode_state(b"\xc1garbage")

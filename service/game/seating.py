"""Creating a table, sitting down, standing up, coming back from sitting out, and a seated
player's own seed for the deck (`client_seed_set`, docs/FAIRNESS.md "Decks").

Choices where the rules are silent (docs/RULES.md "Where the rules leave a choice"):
- Seats are numbered 0 .. max_seats-1; without a requested seat the lowest free one is taken.
- Someone seated mid-hand waits for the next hand (and is not offered its svara).
- Standing up mid-hand folds first (the fold may end the hand); the whole stack goes back.
- A hand starts at once when a sit-down or sit-in leaves 2+ eligible players between hands
  and the pause after the last hand is over; otherwise the next Tick starts it.
- A closed table (`table_closed`, after its idle limit with nobody seated: the deployment's
  setting recorded at creation, else a day) refuses seats: `table_closed`.
- A rebuy stands the player up with `Leave(rebuy=<the new buy-in>)`, and that stand-up is
  refused unless the whole rebuy is allowed (`legal.verify_rebuy`): a refused rebuy leaves the
  player seated, as they were.
"""

from __future__ import annotations

from events import table as ev
from service.game import commands as cmd
from service.game import flow
from service.game.deck import SEED_BYTES, commitment
from service.game.errors import GameError
from service.game.legal import (
    seated,
    verify_client_seed,
    verify_rebuy,
    verify_sit_down,
    verify_sit_in,
)
from service.game.settings import validated
from service.game.state import TableState
from service.game.tx import Tx


def create_table(state: TableState | None, c: cmd.CreateTable) -> list[ev.TableEvent]:
    if state is not None:
        raise GameError("table_exists", f"table {c.table_id!r} already exists")
    if not c.table_id:
        raise GameError("invalid_settings", "a table needs an id")
    settings = validated(c.settings)
    idle = c.idle_close_seconds  # a number of seconds, 0 or more: `cmd.check_numbers`
    # Only what differs from the event's defaults is passed: msgspec's omit_defaults leaves out
    # a default by identity, so an equal 0.0 made elsewhere would add bytes to old tables' kind.
    extras: dict[str, float | str | bool | int] = {}
    if c.group_chat_id is not None:
        extras["group_chat_id"] = c.group_chat_id
    if idle:
        extras["idle_close_seconds"] = float(idle)
    if c.name:
        extras["name"] = c.name
    if c.private:
        extras["private"] = True
    if c.tournament_id:
        extras["tournament_id"] = c.tournament_id
    if len(c.seed) != SEED_BYTES:  # no seed (some tests): hand 1 is dealt v1
        return [
            ev.TableCreated(
                table_id=c.table_id, settings=settings, created_by=c.created_by, created_at=c.now,
                **extras,  # type: ignore[arg-type]
            )
        ]
    committed = commitment(c.seed)  # hand 1's server seed, committed to from the start
    return [
        ev.TableCreated(
            table_id=c.table_id,
            settings=settings,
            created_by=c.created_by,
            created_at=c.now,
            next_commitment=committed,
            **extras,  # type: ignore[arg-type]
        ),
        ev.SeedDrawn(commitment=committed, seed=c.seed.hex()),
    ]


def sit_down(tx: Tx, c: cmd.SitDown) -> None:
    # (buy_in and seat are whole numbers: `cmd.check_numbers` ran before this handler)
    number = verify_sit_down(tx.state, c.user_id, c.buy_in, c.seat)
    name = c.name.strip()[:64] or f"player {c.user_id}"
    tx.emit(
        ev.PlayerSeated(
            user_id=c.user_id, name=name, seat=number, buy_in=c.buy_in, transfer_id=c.transfer_id
        )
    )
    flow.maybe_start_hand(tx)


def leave(tx: Tx, c: cmd.Leave) -> None:
    if c.rebuy is not None:  # the first step of a rebuy: the whole rebuy is checked here
        s = verify_rebuy(tx.state, c.user_id, c.rebuy)
    else:
        s = seated(tx.state, c.user_id)
    hand = tx.state.hand
    if hand is not None and hand.active:
        p = hand.player(s.seat)
        if p is not None and not p.folded and p.user_id == s.user_id:
            on_turn = hand.turn == s.seat
            phase = hand.phase
            tx.emit(ev.Folded(seat=s.seat, user_id=s.user_id, left=True))
            if on_turn and phase == "blind":
                flow.blind_round_over(tx)
            elif on_turn:
                flow.after_bet(tx, s.seat)
            else:
                flow.won_by_folds(tx)
    stack = tx.state.seats[s.seat]
    assert stack is not None
    tx.emit(
        ev.PlayerLeft(
            user_id=s.user_id,
            seat=s.seat,
            cashed_out=stack.stack,
            transfer_id=c.transfer_id,
            at=tx.now,
        )
    )
    hand = tx.state.hand
    if hand is not None and hand.phase == "svara_join":
        flow.svara_answered(tx)


def sit_in(tx: Tx, c: cmd.SitIn) -> None:
    s = verify_sit_in(tx.state, c.user_id)
    tx.emit(ev.PlayerReturned(seat=s.seat, user_id=s.user_id))
    flow.maybe_start_hand(tx)


def set_client_seed(tx: Tx, c: cmd.SetClientSeed) -> None:
    """Record the player's seed; the same seed again changes nothing (no event)."""
    verify_client_seed(c.client_seed)
    s = seated(tx.state, c.user_id)
    if s.client_seed != c.client_seed:
        tx.emit(ev.ClientSeedSet(seat=s.seat, user_id=s.user_id, client_seed=c.client_seed))

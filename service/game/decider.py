"""The table decider: `decide(state, command) -> events`, plus `evolve` and `fold`.

Pure and synchronous: time and seeds come in with the command. A refused command raises
GameError and emits nothing. `step` returns the events and the state they lead to, for callers
that would otherwise evolve the same events again.

Error codes: table_not_found, table_exists, invalid_settings, not_seated, already_seated,
seat_taken, table_full, invalid_seat, buy_in_out_of_range, invalid_amount, no_hand,
wrong_phase, not_your_turn, not_in_hand, already_looked, cannot_blind_after_look,
amount_too_small, amount_too_large, raise_limit, cannot_call_blind, no_check, not_eligible,
already_answered, insufficient_chips, not_sat_out, not_due, invalid_seed, invalid_client_seed,
unknown_command, table_closed, not_busted, hand_in_progress.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.table import TableEvent
from service.game import actions, flow, seating, timers, tournament_table
from service.game import commands as cmd
from service.game.errors import GameError
from service.game.evolve import evolve, fold
from service.game.state import TableState
from service.game.tx import Tx

__all__ = ["decide", "evolve", "fold", "step"]

# Commands carrying numbers (or a client seed) from outside: checked by `cmd.check_numbers`
# before dispatch.
_NUMBERED: frozenset[type] = frozenset(
    {cmd.PlaceBlind, cmd.Raise, cmd.SitDown, cmd.SetClientSeed, cmd.Leave}
)

_HANDLERS: dict[type, Callable[[Tx, Any], None]] = {
    cmd.SitDown: seating.sit_down,
    cmd.Leave: tournament_table.leave,
    cmd.SitIn: seating.sit_in,
    cmd.PlaceBlind: actions.place_blind,
    cmd.Pass: actions.pass_blind,
    cmd.Look: actions.look,
    cmd.Call: actions.call,
    cmd.Raise: actions.raise_to,
    cmd.Fold: actions.fold,
    cmd.JoinSvara: actions.join_svara,
    cmd.SkipSvara: actions.skip_svara,
    cmd.SetClientSeed: seating.set_client_seed,
    cmd.Tick: timers.tick,
    cmd.SeatPlayers: tournament_table.seat_players,
    cmd.ChangeAnte: tournament_table.change_ante,
}


def _run(state: TableState, command: cmd.TableCommand) -> Tx:
    kind = type(command)
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise GameError("unknown_command", f"unknown command {kind.__name__}")
    if kind in _NUMBERED:
        cmd.check_numbers(command)
    tx = Tx(state, command.now, command.seed)
    handler(tx, command)
    flow.next_hand_without_pause(tx)
    return tx


def step(
    state: TableState | None, command: cmd.TableCommand
) -> tuple[list[TableEvent], TableState]:
    """The events `command` produces and the state after them (refusal: GameError)."""
    if isinstance(command, cmd.CreateTable):
        cmd.check_numbers(command)
        events = seating.create_table(state, command)
        return events, fold(events)
    if state is None:
        raise GameError("table_not_found", "no such table")
    tx = _run(state, command)
    return tx.events, tx.state


def decide(state: TableState | None, command: cmd.TableCommand) -> list[TableEvent]:
    """What happens when `command` meets `state`: the events to append, in order."""
    if isinstance(command, cmd.CreateTable):
        cmd.check_numbers(command)
        return seating.create_table(state, command)
    if state is None:
        raise GameError("table_not_found", "no such table")
    return _run(state, command).events

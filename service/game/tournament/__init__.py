"""The Sit & Go tournament aggregate: a pure decider over `events.tournament`.

`decide(state, command) -> events`, `evolve(state, event) -> state`, `fold(events)`; the
verifiers (`verify_register` raises a precise GameError, `can_register` asks it) follow the
PokerKit shape of the table's `legal` module. No clock, no I/O: time comes in the command.
"""

from service.game.tournament.decider import decide
from service.game.tournament.state import TournamentState, evolve, fold

__all__ = ["TournamentState", "decide", "evolve", "fold"]

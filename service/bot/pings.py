""""Your turn" pings: a private message when a player's turn starts and they do not have the
table open, deleted again when the turn is over.

Who gets one: a human (practice bots have negative ids) who started the bot and has not
blocked it, has pings on (web app setting or /settings), and has no WebSocket open to that
table on any replica (`Presence`). At most one per turn across replicas: the turn's mark is
claimed in the key-value store. The replica that sent a ping deletes it when the turn is
over: it is told at once of the turns this process sees change, and looks at the table every
`poll` seconds for changes made elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import NamedTuple

from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError

from service import metrics
from service.bot import texts
from service.bot.keyboards import table_keyboard
from service.bot.reach import Reach
from service.game.state import TableState
from service.tables.bots import is_bot

log = logging.getLogger(__name__)

TOO_LATE = 1.0  # seconds: a turn about to time out is not worth a message


class Turn(NamedTuple):
    """One player's turn: the same values for the same turn on every replica, and different
    for two turns of one player: each turn's deadline is set from the clock of the command
    that hands it out, and two commands never share a clock reading. (The pot is no part of
    it: a bet changes the pot one event before the turn moves on, and a replica's feed sees
    that state in between.) tests/bot/test_turns.py checks this on random hands."""

    table_id: str
    hand: int
    deal: int
    phase: str
    seat: int
    user_id: int
    deadline: float

    @property
    def mark(self) -> str:
        return (
            f"turn:{self.table_id}:{self.hand}.{self.deal}.{self.phase}.{self.seat}"
            f".{self.deadline!r}"
        )


def current_turn(table_id: str, state: TableState | None) -> Turn | None:
    """Whose move it is (blind or betting round), or None between moves."""
    hand = state.hand if state is not None else None
    if state is None or hand is None or not hand.active:
        return None
    seat, deadline = hand.turn, hand.turn_deadline
    if seat is None or deadline is None:
        return None
    occupant = state.seats[seat]
    if occupant is None:
        return None
    return Turn(table_id, hand.number, hand.deal, hand.phase, seat, occupant.user_id, deadline)


class Pings:
    def __init__(self, reach: Reach, *, poll: float = 2.0) -> None:
        self.reach = reach
        self.poll = poll
        self._changed: dict[str, set[asyncio.Event]] = {}  # table -> its pings' wake-ups
        self._stopping = False
        listeners = getattr(reach.tables.presence, "listeners", None)
        if isinstance(listeners, list):  # a socket here closed or went away: look again
            listeners.append(lambda table_id, _user: self.table_changed(table_id))

    def stop(self) -> None:
        """Shutting down: pings still waiting for their turn to end stop waiting (their
        messages stay: whether the turn is over is not known here any more)."""
        self._stopping = True
        for waiting in self._changed.values():
            for wake in waiting:
                wake.set()

    def wanted(self, turn: Turn | None) -> bool:
        """Worth a look at all (the rest needs the store)."""
        return turn is not None and not is_bot(turn.user_id)

    def table_changed(self, table_id: str) -> None:
        """This process saw the table move: pings waiting there look again now."""
        for event in self._changed.get(table_id, ()):
            event.set()

    async def turn_started(self, turn: Turn, pot: int) -> None:
        reach = self.reach
        profile = await reach.reachable(turn.user_id)
        if profile is None or not profile.pings:
            log.debug("no ping for %s: the bot may not write or pings are off", turn.mark)
            metrics.bot_ping("unreachable")
            return
        if await reach.tables.presence.watching(turn.table_id, turn.user_id):
            log.debug("no ping for %s yet: the player has the table open", turn.mark)
            metrics.bot_ping("watching")
            if not await self._until_away(turn):
                return
        left = turn.deadline - reach.clock()
        if left < TOO_LATE:
            metrics.bot_ping("too_late")
            return
        if not await reach.once(turn.mark, ttl=left + 3600):
            log.info("ping for %s: another replica sends it", turn.mark)
            metrics.bot_ping("elsewhere")
            return
        log.info("ping for %s: sending it", turn.mark)
        metrics.bot_ping("sent")
        with reach.i18n.speaking(reach.language(profile)):
            text = texts.your_turn(turn.table_id, pot, int(left))
            markup = table_keyboard(reach.config, turn.table_id)
        try:
            message = await reach.bot.send_message(turn.user_id, text, reply_markup=markup)
        except TelegramForbiddenError:  # blocked: the sender has recorded it
            log.info("ping for %s: the player blocked the bot", turn.mark)
            return
        if not await self._until_over(turn):
            return
        try:
            await reach.bot.delete_message(turn.user_id, message.message_id)
        except TelegramAPIError as exc:  # deleted by the player already, or too old
            log.info("could not delete the ping to %s: %s", turn.user_id, exc)

    async def _until_away(self, turn: Turn) -> bool:
        """Wait while the player has the table open: True once they minimise the app or close
        its socket with the turn still theirs (then the ping goes out at once), False when
        the turn is over first. Looks again whenever this process's presence or the table
        changes, and every `poll` seconds for what other replicas see."""
        wake = asyncio.Event()
        waiting = self._changed.setdefault(turn.table_id, set())
        waiting.add(wake)
        try:
            while not self._stopping:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll):
                        await wake.wait()
                wake.clear()
                try:
                    _, state = await self.reach.tables.state(turn.table_id)
                    if current_turn(turn.table_id, state) != turn:
                        return False
                    if not await self.reach.tables.presence.watching(turn.table_id,
                                                                     turn.user_id):
                        return True
                except Exception:  # the store briefly away: look again later
                    log.warning("could not look at table %s", turn.table_id, exc_info=True)
            return False
        finally:
            waiting.discard(wake)
            if not waiting:
                self._changed.pop(turn.table_id, None)

    async def _until_over(self, turn: Turn) -> bool:
        """True once the turn is over; False when the process is stopping first. Looks at
        once (the turn may have ended while the ping was on its way), then whenever this
        process sees the table move, and every `poll` seconds for moves made elsewhere."""
        wake = asyncio.Event()
        waiting = self._changed.setdefault(turn.table_id, set())
        waiting.add(wake)
        try:
            while not self._stopping:
                try:
                    _, state = await self.reach.tables.state(turn.table_id)
                except Exception:  # the store briefly away: look again later
                    log.warning("could not read table %s", turn.table_id, exc_info=True)
                else:
                    if current_turn(turn.table_id, state) != turn:
                        return True
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll):
                        await wake.wait()
                wake.clear()
            return False
        finally:
            waiting.discard(wake)
            if not waiting:
                self._changed.pop(turn.table_id, None)

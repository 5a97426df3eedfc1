"""A hand's result, posted to the group a table was opened in (/newtable).

One message per hand: who won, the pot, the hands shown at the showdown, a button to the
table (join or watch it; the invitation's link) and one to watch that hand again (its
`hand_<table>_<n>` link). When hands come fast
-- the table's last result message is younger than `window` seconds -- that message is edited
to show the new hand, with the few hands before it as one line each, instead of piling up
messages in the group. Once per hand across replicas (the mark names the hand); the message id
to edit is kept in the key-value store, so any replica can edit it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import NamedTuple

import msgspec
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError

from events.table import HandSettled, ShowdownHappened, ShownHand
from service.bot import texts
from service.bot.groups import GroupTables
from service.bot.keyboards import result_keyboard
from service.bot.reach import Reach
from service.game.state import TableState

log = logging.getLogger(__name__)

DAY = 86_400.0
SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


class Shown(NamedTuple):
    name: str
    cards: tuple[str, ...]
    score: int


class Outcome(NamedTuple):
    """What the group is told of a settled hand."""

    table_id: str
    number: int
    reason: str
    pot: int
    winners: tuple[str, ...]  # names, in the order the chips were shared
    won: int  # chips paid out to the winners together
    shown: tuple[Shown, ...]


def name_at(state: TableState, seat: int) -> str:
    occupant = state.seats[seat] if 0 <= seat < len(state.seats) else None
    return occupant.name if occupant is not None else f"#{seat + 1}"


def outcome_of(
    table_id: str,
    settled: HandSettled,
    showdown: ShowdownHappened | None,
    state: TableState,
) -> Outcome:
    """`showdown`: the one in the same batch of events, if any; otherwise the state's own
    (when the state is still at that hand: a feed folds one event at a time)."""
    shown: dict[int, ShownHand] = {}
    if showdown is not None:
        shown = showdown.hands
    elif state.hand is not None and state.hand.number == settled.number:
        shown = state.hand.shown
    return Outcome(
        table_id=table_id,
        number=settled.number,
        reason=settled.reason,
        pot=settled.pot,
        winners=tuple(name_at(state, seat) for seat in settled.winners),
        won=sum(settled.amounts.values()),
        shown=tuple(
            Shown(name_at(state, seat), hand.cards, hand.score)
            for seat, hand in sorted(shown.items())
        ),
    )


def card(code: str) -> str:
    rank = "10" if code[0] == "T" else code[0]
    return rank + SUITS.get(code[1], code[1])


def render(outcome: Outcome) -> str:
    """The result in the current locale."""
    winners = ", ".join(outcome.winners)
    pot = outcome.pot
    if outcome.reason == "last_player":
        line = texts.result_last_player(winners, pot)
    elif outcome.reason == "split":
        line = texts.result_split(winners, pot)
    elif outcome.reason == "svara_walkover":
        line = texts.result_walkover(winners, pot)
    else:
        line = texts.result_showdown(winners, pot)
    lines = [texts.result_header(outcome.table_id, outcome.number), line]
    lines += [f"{s.name}: {' '.join(card(c) for c in s.cards)} ({s.score})" for s in outcome.shown]
    return "\n".join(lines)


class Posted(msgspec.Struct, frozen=True):
    """The table's latest result message in its group: what it shows, to edit it again."""

    chat_id: int
    message_id: int
    sent_at: float
    newest: Outcome  # shown in full
    earlier: tuple[Outcome, ...]  # one line each, the newest first


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Posted).decode


def render_posted(newest: Outcome, earlier: Sequence[Outcome]) -> str:
    """The message for a run of fast hands, in the current locale."""
    text = render(newest)
    if not earlier:
        return text
    lines = [texts.result_earlier(o.number, ", ".join(o.winners), o.won) for o in earlier]
    return text + "\n\n" + "\n".join(lines)


class GroupResults:
    def __init__(
        self,
        reach: Reach,
        groups: GroupTables,
        *,
        window: float = 60.0,
        earlier: int = 3,
        lock_seconds: float = 30.0,
    ) -> None:
        self.reach = reach
        self.groups = groups
        self.window = window
        self.earlier = earlier
        self.lock_seconds = lock_seconds

    async def settled(self, outcome: Outcome) -> None:
        reach = self.reach
        binding = await self.groups.group_of(outcome.table_id)
        if binding is None:
            return
        if not await reach.once(f"result:{outcome.table_id}:{outcome.number}", ttl=DAY):
            return
        # One table's results one at a time, across replicas: the next hand's result must see
        # the message the last one posted (hands come fastest exactly when posting is slowest,
        # the group's 20 messages a minute).
        lock = f"{reach.namespace}bot:result-lock:{outcome.table_id}"
        waited = 0.0
        while not await reach.tables.kv.claim(lock, ttl=self.lock_seconds):
            if waited > self.lock_seconds:  # its holder died: the lock has expired by now
                break
            await asyncio.sleep(0.1)
            waited += 0.1
        try:
            await self._post(outcome, binding.chat_id, binding.language)
        except TelegramForbiddenError:  # the bot was removed from the group: stop posting
            log.info("group %s refuses the bot; unbinding %s", binding.chat_id, outcome.table_id)
            await self.groups.unbind(binding.chat_id, outcome.table_id)
        finally:
            await reach.tables.kv.delete(lock)

    async def _post(self, outcome: Outcome, chat_id: int, language: str) -> None:
        reach = self.reach
        key = f"{reach.namespace}bot:result-message:{outcome.table_id}"
        raw = await reach.tables.kv.get(key)
        last = _decode(raw) if raw is not None else None
        now = reach.clock()
        me = await reach.bot.me()  # aiogram asks Telegram once, then remembers
        with reach.i18n.speaking(language):
            if last is not None and last.chat_id == chat_id and now - last.sent_at < self.window:
                hands = sorted(
                    {o.number: o for o in (last.newest, *last.earlier, outcome)}.values(),
                    key=lambda o: -o.number,
                )
                newest, earlier = hands[0], tuple(hands[1 : 1 + self.earlier])
                markup = result_keyboard(reach.config, me.username, newest.table_id, newest.number)
                try:
                    await reach.bot.edit_message_text(  # an edit without it drops it
                        render_posted(newest, earlier), chat_id=chat_id,
                        message_id=last.message_id, reply_markup=markup,
                    )
                except TelegramBadRequest as exc:  # deleted by an admin, say: post anew
                    log.info("could not edit the result in %s: %s", chat_id, exc)
                else:
                    posted = Posted(chat_id, last.message_id, last.sent_at, newest, earlier)
                    await reach.tables.kv.put(key, _encode(posted), ttl=self.window)
                    return
            markup = result_keyboard(reach.config, me.username, outcome.table_id, outcome.number)
            message = await reach.bot.send_message(chat_id, render(outcome), reply_markup=markup)
        posted = Posted(chat_id, message.message_id, now, outcome, ())
        await reach.tables.kv.put(key, _encode(posted), ttl=self.window)


def settled_in(events: Sequence[object]) -> list[tuple[int, HandSettled, ShowdownHappened | None]]:
    """Each `hand_settled` of a batch with its index and the showdown just before it, if any."""
    found = []
    showdown: ShowdownHappened | None = None
    for index, event in enumerate(events):
        if isinstance(event, ShowdownHappened):
            showdown = event
        elif isinstance(event, HandSettled):
            found.append((index, event, showdown))
            showdown = None
    return found


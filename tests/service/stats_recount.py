"""The stats recounted from a table's events alone, by a different road than the projection
(no state fold: who sits where from `player_seated`/`player_left`, what each paid from the
betting events, what each got from `hand_settled`), for the stats tests to compare with."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from events import table as ev
from events.codec import decode_table_event
from events.store.base import StoredEvent

UNIT = 2520


@dataclass
class Figures:
    hands: int = 0
    won: int = 0  # in 1/UNIT
    net: int = 0
    pot: int = 0
    svaras: int = 0
    svaras_won: int = 0
    best: int = 0


@dataclass
class Recount:
    all: dict[int, Figures] = field(default_factory=lambda: defaultdict(Figures))
    days: dict[tuple[dt.date, int], Figures] = field(default_factory=lambda: defaultdict(Figures))
    # (period, group or None) -> user -> (net, ms when it was reached, whether a hand moved it)
    boards: dict[tuple[str, int | None], dict[int, tuple[int, int, bool]]] = field(
        default_factory=lambda: defaultdict(dict))
    names: dict[int, str] = field(default_factory=dict)


def week_of(at: float) -> str:
    year, week, _ = dt.datetime.fromtimestamp(at, dt.UTC).isocalendar()
    return f"{year}-W{week:02d}"


def last_7_days(out: Recount, user: int, now: float) -> Figures:
    """The user's figures of the UTC days from 6 days before `now`'s to `now`'s."""
    today = dt.datetime.fromtimestamp(now, dt.UTC).date()
    total = Figures()
    for (day, who), fig in out.days.items():
        if who == user and 0 <= (today - day).days < 7:
            _add(total, fig)
    return total


def _add(into: Figures, line: Figures) -> None:
    into.hands += line.hands
    into.won += line.won
    into.net += line.net
    into.pot = max(into.pot, line.pot)
    into.svaras += line.svaras
    into.svaras_won += line.svaras_won
    into.best = max(into.best, line.best)


def recount(tables: list[list[StoredEvent]], into: Recount | None = None) -> Recount:
    """Add the hands of `tables` (each a table's whole log) to `into`, in settle-time order."""
    out = into or Recount()
    hands: list[tuple[float, str, dict[int, Figures], dict[int, str], int | None, bool]] = []
    for log in tables:
        created = decode_table_event(log[0].data)
        assert isinstance(created, ev.TableCreated)
        group, tournament = created.group_chat_id, bool(created.tournament_id)
        seats: dict[int, tuple[int, str]] = {}
        lines: dict[int, Figures] = {}
        dealt: dict[int, tuple[int, str]] = {}
        paid: dict[int, int] = {}
        svara: set[int] = set()
        for stored in log:
            e = decode_table_event(stored.data)
            if isinstance(e, ev.PlayerSeated):
                seats[e.seat] = (e.user_id, e.name)
            elif isinstance(e, ev.PlayerLeft):
                seats.pop(e.seat, None)
            elif isinstance(e, ev.HandStarted):
                dealt = {s: seats[s] for s in e.participants if s in seats}
                paid, svara, lines = dict.fromkeys(dealt, 0), set(), {s: Figures() for s in dealt}
            elif isinstance(e, ev.AntesPaid):
                for s in e.seats:
                    paid[s] += (e.short or {}).get(s, e.ante)
            elif isinstance(e, ev.BlindPlaced | ev.Called | ev.Raised):
                paid[e.seat] += e.amount
            elif isinstance(e, ev.SvaraJoined):
                paid[e.seat] += e.fee
            elif isinstance(e, ev.SvaraDealStarted):
                svara.update(e.participants)
            elif isinstance(e, ev.ShowdownHappened):
                for s, shown in e.hands.items():
                    if s in lines:
                        lines[s].best = max(lines[s].best, shown.score)
            elif isinstance(e, ev.HandSettled):
                if any(u < 0 for u, _ in dealt.values()):
                    continue  # a practice hand
                for s, line in lines.items():
                    won = s in e.winners
                    line.hands = 1
                    line.won = UNIT // len(e.winners) if won else 0
                    if not tournament:
                        line.net = e.amounts.get(s, 0) - paid[s]
                        line.pot = e.amounts.get(s, 0) if won else 0
                    line.svaras = 1 if s in svara else 0
                    line.svaras_won = 1 if s in svara and won else 0
                by_user = {dealt[s][0]: line for s, line in lines.items()}
                names = {u: n for u, n in dealt.values()}
                hands.append((stored.at, created.table_id, by_user, names, group, tournament))
    for at, _, by_user, names, group, tournament in sorted(hands, key=lambda h: h[0]):
        week, day = week_of(at), dt.datetime.fromtimestamp(at, dt.UTC).date()
        out.names.update(names)  # in time order: the latest hand's name
        for user, line in by_user.items():
            for fig in (out.all[user], out.days[(day, user)]):
                _add(fig, line)
            if tournament:
                continue
            for period in ("all", week):
                for scope in {None, group}:
                    board = out.boards[(period, scope)]
                    net, ms, moved = board.get(user, (0, 0, False))
                    when = int(at * 1000)
                    # the latest hand that moved the net; with none, the earliest hand
                    if line.net != 0:
                        ms = max(ms, when) if moved else when
                    elif not moved:
                        ms = min(ms, when) if user in board else when
                    board[user] = (net + line.net, ms, moved or line.net != 0)
    return out


def ranking(board: dict[int, tuple[int, int, bool]]) -> list[tuple[int, int]]:
    """(user, net), best first; equal nets: who reached theirs first."""
    # the board's member ends in the user id: same net, same ms -> the greater id as text
    by_id = sorted(board.items(), key=lambda kv: str(kv[0]), reverse=True)
    order = sorted(by_id, key=lambda kv: (-kv[1][0], kv[1][1]))
    return [(user, net) for user, (net, _, _) in order]


def figures_json(fig: Figures) -> dict[str, object]:
    return {
        "hands": fig.hands, "won": round(fig.won / UNIT, 3), "net": fig.net,
        "biggest_pot": fig.pot, "svaras": fig.svaras, "svaras_won": fig.svaras_won,
        "best_score": fig.best,
        "win_rate": round(fig.won / UNIT / fig.hands, 4) if fig.hands else 0.0,
    }

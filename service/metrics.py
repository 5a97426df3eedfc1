"""Every Prometheus metric family of `svara serve`, in one registry (`GET /metrics`).

All families are named `svara_...` (deploy/README.md says what each means and which alerts are
worth having). The hot path (an action: request -> decide -> append -> fan-out) only calls
`inc()`/`observe()` on children bound to their labels in advance: a `.labels(...)` lookup
takes a lock and builds a key on every call, a pre-bound child does neither.

The registry is per process (replicas are scraped one by one, see deploy/README.md); it also
carries the standard `process_*` and `python_gc_*` families (memory, CPU, open files).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from typing import Final

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from events.store.connection import TOTALS as STORE
from service.game.commands import ACTION_TYPES as GAME_ACTIONS

REGISTRY: Final = CollectorRegistry()
ProcessCollector(registry=REGISTRY)
GCCollector(registry=REGISTRY)

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"

# Latency buckets (seconds): an action takes ~0.5 ms of CPU and a Redis round trip; a p99
# target is 50 ms; anything past a second is an outage.
_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Timer lag: a deadline fires on the driver's next look (it sleeps at most 0.25 s).
_LAG = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# Player (and practice bot) actions, the labels bounded: unknown types count as "other".
ACTION_TYPES: Final = (*GAME_ACTIONS, "other")
ACTION_OUTCOMES: Final = (
    "appended",  # the action's events were written
    "duplicate",  # a retried action_id: the first answer again
    "noop",  # accepted, nothing to write
    "refused",  # a 4xx (not your turn, bad amount, rate limit...)
    "conflict",  # 409: a stale expected_version, or a seat already taken
    "unavailable",  # 503: the store could not be reached or the table stayed busy
    "error",  # anything else (a bug: logged with its trace)
)

actions: Final = Counter(
    "svara_actions_total",
    "Table actions by type and outcome (HTTP, WebSocket and practice bots alike).",
    ["type", "outcome"],
    registry=REGISTRY,
)
action_seconds: Final = Histogram(
    "svara_action_duration_seconds",
    "Time to decide and append one action, by outcome (service side, without HTTP).",
    ["outcome"],
    buckets=_FAST,
    registry=REGISTRY,
)
http_seconds: Final = Histogram(
    "svara_http_request_duration_seconds",
    "API request handling time by handler (WebSocket sessions excluded).",
    ["handler"],
    buckets=_FAST,
    registry=REGISTRY,
)
http_responses: Final = Counter(
    "svara_http_responses_total",
    "API responses by handler and status code.",
    ["handler", "status"],
    registry=REGISTRY,
)
appends: Final = Counter(
    "svara_appends_total",
    "Appends to table streams by result: appended, duplicate (a known action_id), conflict "
    "(another writer got there first: the command is decided again on the newer state).",
    ["result"],
    registry=REGISTRY,
)
events_appended: Final = Counter(
    "svara_events_appended_total", "Table events written by this process.", registry=REGISTRY
)
version_conflicts: Final = Counter(
    "svara_version_conflicts_total",
    "Appends refused because the table had moved on (optimistic concurrency).",
    registry=REGISTRY,
)
gc_pauses: Final = Histogram(
    "svara_gc_pause_seconds",
    "Collections of the cyclic garbage collector by generation (0 young, 1 middle, 2 full): "
    "the event loop waits for each (service/api/gcpolicy.py).",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
_gc_pause_of = [gc_pauses.labels(str(g)) for g in range(3)]
worker: Final = Gauge(
    "svara_worker_info",
    "Which of `svara serve --workers N` answered this scrape: its index and pid (1).",
    ["worker", "pid"],
    registry=REGISTRY,
)
open_websockets: Final = Gauge(
    "svara_open_websockets", "WebSockets open on this process.", registry=REGISTRY
)
websocket_closes: Final = Counter(
    "svara_websocket_closes_total",
    "WebSockets this process closed with an error code (4401, 4404, 4408, 4429, 1011).",
    ["code"],
    registry=REGISTRY,
)
timer_lag: Final = Histogram(
    "svara_timer_lag_seconds",
    "How late a deadline (turn timeout, svara window, next hand) fired: firing time minus "
    "state.deadline.",
    buckets=_LAG,
    registry=REGISTRY,
)
loop_lag: Final = Histogram(
    "svara_event_loop_lag_seconds",
    "How much later than asked the event loop woke a task that sleeps 0.1 s (every request, "
    "frame and timer waits as long).",
    buckets=_FAST,
    registry=REGISTRY,
)
timer_fired: Final = Counter(
    "svara_timer_ticks_total", "Deadlines this process fired (Tick appended).", registry=REGISTRY
)
bot_messages: Final = Counter(
    "svara_bot_messages_total", "Bot API messages sent successfully.", ["method"],
    registry=REGISTRY,
)
bot_rate_limited: Final = Counter(
    "svara_bot_rate_limited_total",
    "Bot API calls answered 429 Too Many Requests (flood control).",
    ["method"],
    registry=REGISTRY,
)
# What became of each turn this process considered pinging (service.bot.pings).
PING_OUTCOMES: Final = (
    "sent",  # this process sent the ping
    "unreachable",  # never started the bot, blocked it, or switched pings off
    "watching",  # has the table open (a WebSocket to it on some replica)
    "too_late",  # the turn was about to time out
    "elsewhere",  # another replica claimed the turn first
)
bot_pings: Final = Counter(
    "svara_bot_pings_total",
    "Turns the bot considered pinging, by what it decided.",
    ["outcome"],
    registry=REGISTRY,
)



class Load:
    """What this process holds open right now (plain integers on the hot path, read at
    scrape time): how many HTTP requests are in a handler."""

    http_in_flight = 0


LOAD: Final = Load()


def _tasks() -> int:
    try:
        return len(asyncio.all_tasks())
    except RuntimeError:  # scraped outside the event loop (a test's registry dump)
        return 0


class _StoreCollector(Collector):
    """The event store's own counts (`events.store.connection.TOTALS`), read at scrape time:
    the store sits below the service and keeps plain integers, not metric objects."""

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "svara_store_full_refusals",
            "Writes Redis refused at its memory limit (maxmemory, noeviction): each one a 503 "
            "store_full or a timer that waits.",
            value=STORE.full_refusals,
        )
        yield GaugeMetricFamily(
            "svara_store_full",
            "1 while the last write this process tried was refused for memory (an alert: "
            "nothing can be played until memory is freed or maxmemory raised).",
            value=1 if STORE.full_stores > 0 else 0,
        )
        yield CounterMetricFamily(
            "svara_store_stalls",
            "Times Redis did not answer a command in time (the store then probes it and drops "
            "the stuck connections once it answers).",
            value=STORE.stalls,
        )
        yield CounterMetricFamily(
            "svara_store_stalled_connections_dropped",
            "Connections to Redis dropped as stalled (idle ones at a stall, stuck ones once "
            "Redis answers a fresh one).",
            value=STORE.dropped,
        )
        yield GaugeMetricFamily(
            "svara_http_requests_in_flight",
            "HTTP requests inside a handler now. Bounded while Redis is slow or silent: every "
            "store call has a deadline, so waiting requests end in 503s instead of piling up.",
            value=LOAD.http_in_flight,
        )
        yield GaugeMetricFamily(
            "svara_asyncio_tasks",
            "Tasks alive on the event loop (requests, sockets, workers): a count that keeps "
            "growing while load stays level is a leak or a pile-up.",
            value=_tasks(),
        )


REGISTRY.register(_StoreCollector())

# Pre-bound children: what the hot path touches.
_ACTION_CHILDREN: Final = {
    (t, o): actions.labels(t, o) for t in ACTION_TYPES for o in ACTION_OUTCOMES
}
_ACTION_SECONDS: Final = {o: action_seconds.labels(o) for o in ACTION_OUTCOMES}
_APPEND_RESULTS: Final = {r: appends.labels(r) for r in ("appended", "duplicate", "conflict")}
_OTHER: Final = "other"


def observe_action(type_: object, outcome: str, seconds: float) -> None:
    """One action: its type (bounded to the known ones), outcome and service time."""
    key = (type_ if isinstance(type_, str) and type_ in _KNOWN_TYPES else _OTHER, outcome)
    _ACTION_CHILDREN[key].inc()
    _ACTION_SECONDS[outcome].observe(seconds)


_KNOWN_TYPES: Final = frozenset(ACTION_TYPES)


def outcome_of_status(status: int) -> str:
    """The action outcome label of a refusal's HTTP status."""
    if status == 409:
        return "conflict"
    if status == 503:
        return "unavailable"
    if 400 <= status < 500:
        return "refused"
    return "error"


def observe_append(result: str, events: int = 0) -> None:
    """One table append's result (and, when appended, how many events it wrote)."""
    _APPEND_RESULTS[result].inc()
    if result == "conflict":
        version_conflicts.inc()
    elif events:
        events_appended.inc(events)


def request_observer(handler: str) -> Callable[[int, float], None]:
    """A per-handler recorder of (status, seconds), bound once when the route is made."""
    seconds = http_seconds.labels(handler)
    by_status: dict[int, Callable[[], None]] = {}

    def record(status: int, elapsed: float) -> None:
        seconds.observe(elapsed)
        inc = by_status.get(status)
        if inc is None:
            inc = by_status[status] = http_responses.labels(handler, str(status)).inc
        inc()

    return record


def bot_message_sent(method: str = "sendMessage") -> None:
    """The bot's sender calls this after each Bot API call that succeeded.

    `method` is the Bot API method (`sendMessage`, `editMessageText`, ...); keep it to that
    bounded set, never a chat id or text."""
    bot_messages.labels(method).inc()


def bot_ping(outcome: str) -> None:
    """The bot decided about a turn's ping (`PING_OUTCOMES`)."""
    bot_pings.labels(outcome).inc()


def bot_message_rate_limited(method: str = "sendMessage") -> None:
    """The bot's sender calls this for each 429 (TelegramRetryAfter) it gets, before it waits
    `retry_after` and tries again."""
    bot_rate_limited.labels(method).inc()


def exposition() -> bytes:
    """The registry in the Prometheus text format (what `GET /metrics` answers)."""
    return generate_latest(REGISTRY)


def gc_pause(generation: int, seconds: float) -> None:
    _gc_pause_of[generation].observe(seconds)


def worker_started(index: int) -> None:
    """Name this process in its scrapes: with several workers on one port a scrape reaches
    any one of them (deploy/README.md, "6. Scaling out")."""
    worker.clear()
    worker.labels(str(index), str(os.getpid())).set(1)

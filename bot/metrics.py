"""What the bot counts for its operator, all in one place: the figures of the optional
Prometheus endpoint (``METRICS_PORT``; ``bot.health`` serves them).

With the endpoint off (the default) the bot holds a plain :class:`Metrics`: every method does
nothing, so a counted event costs one call. With it on it holds :class:`PrometheusMetrics`,
over a ``CollectorRegistry`` of its own rather than ``prometheus_client``'s global one: the
tests run several bots in one process, and each must count only its own.

Every figure is labelled at most by the shard its server is on and by small fixed sets (the
kind of action or table, a REST route's template, a status code). No label or value ever
holds a user, server, table or hand id, and nothing secret: no card, deck, seed or token
(interaction tokens are cut out of the routes).

The metrics, by what they watch:

===========================================  ==============================================
``poker_live_tables{shard,kind}``            open tables, cash or tournament (gauge)
``poker_live_tournaments{shard}``            open tournaments (gauge)
``poker_leases_held{shard}``                 servers whose lease this process holds (gauge)
``poker_hands_dealt_total{shard,kind}``      hands dealt
``poker_actions_total{shard,kind}``          actions stored, by kind (fold, call, timeout…)
``poker_bot_decisions_late_total{shard}``    computer players' decisions given up past
                                             the hard limit (the bot checked or folded)
``poker_action_answer_seconds{shard}``       a player's action: its interaction's arrival
                                             to the answer that confirms it (histogram)
``poker_interaction_answer_seconds{shard}``  every interaction: arrival to its answer
``poker_interactions_late_total{shard}``     answers sent after Discord's 3 s deadline
``poker_interactions_unanswered_total``      never answered in time: ``reason``
``{shard,reason}``                           arrived_late (dropped at the door), refused
                                             (Discord refused the answer) or no_answer
``poker_discord_requests_total``             REST requests by ``route`` template, ``method``,
``{kind,method,route,status}``               ``status``; ``kind`` bot (spends the bot's 50 a
                                             second) or interaction (answers, free)
``poker_discord_rate_limited_total``         429 answers, by route and Discord's scope
``{route,scope}``
``poker_request_budget_wait_seconds``        what each request waited for the bot's budget
``poker_message_faults_total{kind}``         table messages (``table``) and results or
                                             notices (``post``) Discord failed, kept owed
``poker_message_retries_total{kind}``        owed messages tried again
``poker_messages_owed``                      messages owed now (gauge): a stale table
``poker_message_owed_oldest_seconds``        how long the oldest owed message has waited
``poker_interaction_answer_faults_total``    answers Discord failed, by ``outcome``: retried
``{outcome}``                                (went out on a later try), acknowledged (a lost
                                             answer had gone through), gave_up
``poker_gateway_disconnects_total{shard}``   gateway connections dropped
``poker_discord_unreachable``                1 while Discord cannot be reached (an outage)
``poker_storage_transaction_seconds``        a write transaction, asked to committed
``poker_storage_commit_transactions``        transactions stored by each commit (group commit)
``poker_storage_up``                         1 while the database takes writes, 0 while it
                                             does not (``Database.health``)
``poker_storage_faults_total{kind}``         transactions that met a fault of the
                                             database's, by kind (``StorageUnavailable``)
``poker_storage_reconnects_total``           the writer's connection opened again
``poker_lease_changes_total{shard,change}``  acquired, taken_over, lost, released
``poker_chip_invariant_holds``               1 when the last check of the chips held
``poker_chip_invariant_checked_seconds``     when it was made (Unix time)
``poker_event_loop_lag_seconds``             how late the event loop's heartbeat woke
``poker_ops_requests_refused_total``         requests to the operator's endpoint refused, by
                                             ``reason``: malformed (answered 400), timeout,
                                             accept_failed
                                             (histogram)
===========================================  ==============================================

plus the process's own (``process_resident_memory_bytes``, CPU, open files) and Python's.
"""

from __future__ import annotations

import re
import time
from collections import Counter as Tally
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import aiohttp
import discord.http
import yarl
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
)
from prometheus_client.exposition import choose_encoder

from bot.settings import shard_of

# Discord refuses an answer to an interaction after this long.
INTERACTION_DEADLINE = 3.0
# An interaction admitted this long ago with no answer attempted is counted as never
# answered (well past the deadline, so that a slow answer is counted as late, not both).
UNANSWERED_AFTER = 15.0

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
WAIT_BUCKETS = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
STORAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)
LAG_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

_INTERACTION_CALLBACK = re.compile(r"/interactions/(\d+)/[^/]+/callback")
_LITERAL = re.compile(r"@?[a-z][a-z0-9_-]*")
# Routes whose segment after the id is a token: an interaction's or a webhook's.
_TOKEN_AFTER = ("interactions", "webhooks")


def route_of(url: yarl.URL, base: str | None = None) -> str:
    """The template of a REST URL, as a label: ids become ``{id}``, tokens ``{token}``, any
    other variable part ``{}``; a URL outside the API is ``other``.

    >>> route_of(yarl.URL("https://d.test/api/v10/channels/123/messages/456"),
    ...          "https://d.test/api/v10")
    '/channels/{id}/messages/{id}'
    >>> route_of(yarl.URL("https://d.test/api/v10/interactions/9/aW50ZXJh/callback"),
    ...          "https://d.test/api/v10")
    '/interactions/{id}/{token}/callback'
    >>> route_of(yarl.URL("https://cdn.test/attachments/1/2/a.png"), "https://d.test/api/v10")
    'other'
    """
    prefix = yarl.URL(base if base is not None else discord.http.Route.BASE)
    path = url.path
    root = prefix.path.rstrip("/")
    if url.host != prefix.host or not path.startswith(root + "/"):
        return "other"
    parts: list[str] = []
    for segment in path[len(root) + 1 :].split("/"):
        if len(parts) >= 2 and parts[-2] in _TOKEN_AFTER and parts[-1] == "{id}":
            parts.append("{token}")
        elif segment.isdigit():
            parts.append("{id}")
        elif _LITERAL.fullmatch(segment):
            parts.append(segment)
        else:
            parts.append("{}")
    return "/" + "/".join(parts)


@dataclass(frozen=True, slots=True)
class LinkState:
    """How the process's link to Discord stands, read at each scrape: the messages owed (Discord
    failed them; they are tried again), how long the oldest has waited, and whether Discord
    cannot be reached at all."""

    owed: int = 0
    oldest_owed: float = 0.0
    unreachable: bool = False


@dataclass(frozen=True, slots=True)
class Live:
    """What is open right now, read from the runtime when the endpoint is scraped: each
    table's server and kind, each tournament's server, each server whose lease is held."""

    tables: Sequence[tuple[int, str]] = ()
    tournaments: Sequence[int] = ()
    leases: Sequence[int] = ()


class Metrics:
    """The metrics switched off: every method does nothing (the bot's default)."""

    enabled = False

    def http_trace(self) -> aiohttp.TraceConfig | None:
        """What discord.py's HTTP session reports its requests to (None: nothing)."""
        return None

    def watch(self, source: Callable[[], Live]) -> None:
        """Read the gauges of what is open from ``source`` at each scrape."""

    def refresh(self) -> None:
        """Bring the gauges up to date (on the event loop, before a scrape)."""

    def render(self, accept: str = "") -> tuple[bytes, str]:
        """The exposition, in the format the scraper accepts, and its content type."""
        return b"", "text/plain"

    def hand_dealt(self, guild_id: int, kind: str) -> None:
        pass

    def action(self, guild_id: int, kind: str) -> None:
        pass

    def action_answered(self, guild_id: int | None, seconds: float) -> None:
        pass

    def bot_decision_late(self, guild_id: int) -> None:
        """A computer player thought past the hard limit: it checked or folded."""

    def interaction_admitted(
        self, interaction_id: int, guild_id: int | None, arrived: float
    ) -> None:
        """An interaction will be answered here; it reached its handler at ``arrived``
        (monotonic seconds)."""

    def interaction_dropped(self, guild_id: int | None) -> None:
        pass

    def budget_waited(self, seconds: float) -> None:
        pass

    def transaction(self, seconds: float) -> None:
        pass

    def commit(self, transactions: int) -> None:
        pass

    def storage_up(self, up: bool) -> None:
        """Whether the database takes writes now (``Database.health``)."""

    def storage_fault(self, kind: str) -> None:
        """A transaction met a fault of the database's (``StorageUnavailable.kind``)."""

    def storage_reconnected(self) -> None:
        """The writer's connection was opened again."""

    def lease_changed(self, guild_id: int, change: str) -> None:
        pass

    def invariant_checked(self, holds: bool) -> None:
        pass

    def loop_lag(self, seconds: float) -> None:
        pass

    def ops_refused(self, reason: str) -> None:
        """The operator's endpoint refused a request (``reason``: malformed, timeout, ...)."""

    # -- Discord's faults -------------------------------------------------------------------

    def watch_link(self, source: Callable[[], LinkState]) -> None:
        """Read the gauges of the link to Discord from ``source`` at each scrape."""

    def message_owed(self, kind: str) -> None:
        """Discord failed a message (``kind`` table or post); it is owed."""

    def message_retried(self, kind: str) -> None:
        pass

    def answer_fault(self, outcome: str) -> None:
        """An interaction's answer met a fault of Discord's: ``outcome`` retried,
        acknowledged or gave_up."""

    def gateway_lost(self, shard_id: int) -> None:
        pass


NO_METRICS = Metrics()


class PrometheusMetrics(Metrics):
    """The metrics counted, over their own registry. ``shard_count`` tells how many shards
    the bot has (discord.py learns it at connection when ``SHARD_COUNT`` is unset)."""

    enabled = True

    def __init__(
        self,
        shard_count: Callable[[], int | None] = lambda: None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = CollectorRegistry()
        self._shard_count = shard_count
        self._monotonic = monotonic
        self._sources: list[Callable[[], Live]] = []
        self._links: list[Callable[[], LinkState]] = []
        # Interactions admitted and not answered yet: id -> (arrival, shard).
        self._waiting: dict[int, tuple[float, str]] = {}
        self._live_labels: dict[str, set[tuple[str, ...]]] = {}
        r = self.registry
        ProcessCollector(registry=r)
        PlatformCollector(registry=r)
        self.live_tables = Gauge("poker_live_tables", "Open tables.", ["shard", "kind"], registry=r)
        self.live_tournaments = Gauge(
            "poker_live_tournaments", "Open tournaments.", ["shard"], registry=r
        )
        self.leases_held = Gauge(
            "poker_leases_held", "Servers whose lease this process holds.", ["shard"], registry=r
        )
        self.hands_dealt = Counter(
            "poker_hands_dealt", "Hands dealt.", ["shard", "kind"], registry=r
        )
        self.actions = Counter(
            "poker_actions", "Actions stored, by kind.", ["shard", "kind"], registry=r
        )
        self.bots_late = Counter(
            "poker_bot_decisions_late",
            "Computer players' decisions given up past the hard limit (they checked or folded).",
            ["shard"],
            registry=r,
        )
        self.action_answer = Histogram(
            "poker_action_answer_seconds",
            "From an action's interaction arriving to the answer confirming it.",
            ["shard"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.interaction_answer = Histogram(
            "poker_interaction_answer_seconds",
            "From an interaction arriving to its answer.",
            ["shard"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.interactions_late = Counter(
            "poker_interactions_late",
            "Answers sent after Discord's 3 s deadline (Discord refuses them).",
            ["shard"],
            registry=r,
        )
        self.interactions_unanswered = Counter(
            "poker_interactions_unanswered",
            "Interactions not answered in time, other than late (arrived_late: dropped on"
            " arrival; refused: Discord refused the answer; no_answer).",
            ["shard", "reason"],
            registry=r,
        )
        self.requests = Counter(
            "poker_discord_requests",
            "REST requests to Discord (kind bot: spends the bot's budget; interaction: free).",
            ["kind", "method", "route", "status"],
            registry=r,
        )
        self.rate_limited = Counter(
            "poker_discord_rate_limited",
            "429 answers from Discord, by route and Discord's scope.",
            ["route", "scope"],
            registry=r,
        )
        self.budget_wait = Histogram(
            "poker_request_budget_wait_seconds",
            "What each request waited for the bot's request budget.",
            buckets=WAIT_BUCKETS,
            registry=r,
        )
        self.transactions = Histogram(
            "poker_storage_transaction_seconds",
            "A write transaction, from asked to committed.",
            buckets=STORAGE_BUCKETS,
            registry=r,
        )
        self.commits = Histogram(
            "poker_storage_commit_transactions",
            "Transactions stored by each commit (group commit).",
            buckets=BATCH_BUCKETS,
            registry=r,
        )
        self.storage_available = Gauge(
            "poker_storage_up", "1 while the database takes writes, 0 while it does not.",
            registry=r,
        )
        self.storage_faults = Counter(
            "poker_storage_faults",
            "Transactions that met a fault of the database's, by kind (unreachable,"
            " connection_lost, timeout, read_only, disk_full, io_error, cannot_open, busy,"
            " overloaded).",
            ["kind"],
            registry=r,
        )
        self.storage_reconnects = Counter(
            "poker_storage_reconnects",
            "Times the writer's connection to the database was opened again.",
            registry=r,
        )
        self.lease_changes = Counter(
            "poker_lease_changes",
            "Changes of the servers' leases.",
            ["shard", "change"],
            registry=r,
        )
        self.invariant = Gauge(
            "poker_chip_invariant_holds", "1 when the last check of the chips held.", registry=r
        )
        self.invariant_checked_at = Gauge(
            "poker_chip_invariant_checked_seconds",
            "When the chips were checked last.",
            registry=r,
        )
        self.lag = Histogram(
            "poker_event_loop_lag_seconds",
            "How late the event loop's heartbeat woke.",
            buckets=LAG_BUCKETS,
            registry=r,
        )
        self.owed = Counter(
            "poker_message_faults",
            "Messages Discord failed, kept owed and tried again (table: the table message;"
            " post: a result or a notice).",
            ["kind"],
            registry=r,
        )
        self.retries = Counter(
            "poker_message_retries", "Owed messages tried again.", ["kind"], registry=r
        )
        self.owed_now = Gauge("poker_messages_owed", "Messages owed now.", registry=r)
        self.oldest_owed = Gauge(
            "poker_message_owed_oldest_seconds",
            "How long the oldest message owed has waited (a table shown stale that long).",
            registry=r,
        )
        self.answer_faults = Counter(
            "poker_interaction_answer_faults",
            "Interaction answers Discord failed (retried: went out on a later try;"
            " acknowledged: a lost answer had gone through; gave_up).",
            ["outcome"],
            registry=r,
        )
        self.gateway_disconnects = Counter(
            "poker_gateway_disconnects", "Gateway connections dropped.", ["shard"], registry=r
        )
        self.unreachable = Gauge(
            "poker_discord_unreachable", "1 while Discord cannot be reached.", registry=r
        )
        self.refused = Counter(
            "poker_ops_requests_refused",
            "Requests to the operator's endpoint refused (malformed: answered 400; timeout: no"
            " request within the deadline; accept_failed: the process could not take the"
            " connection).",
            ["reason"],
            registry=r,
        )

    def shard(self, guild_id: int | None) -> str:
        return str(0 if guild_id is None else shard_of(guild_id, self._shard_count()))

    # -- read at each scrape ----------------------------------------------------------------

    def watch(self, source: Callable[[], Live]) -> None:
        self._sources.append(source)

    def refresh(self) -> None:
        tables: Tally[tuple[str, ...]] = Tally()
        tournaments: Tally[tuple[str, ...]] = Tally()
        leases: Tally[tuple[str, ...]] = Tally()
        for source in self._sources:
            live = source()
            tables.update((self.shard(guild), kind) for guild, kind in live.tables)
            tournaments.update((self.shard(guild),) for guild in live.tournaments)
            leases.update((self.shard(guild),) for guild in live.leases)
        self._set("tables", self.live_tables, tables)
        self._set("tournaments", self.live_tournaments, tournaments)
        self._set("leases", self.leases_held, leases)
        states = [source() for source in self._links]
        self.owed_now.set(sum(state.owed for state in states))
        self.oldest_owed.set(max((state.oldest_owed for state in states), default=0.0))
        self.unreachable.set(1 if any(state.unreachable for state in states) else 0)
        self._sweep()

    def _set(self, name: str, gauge: Gauge, counts: Tally[tuple[str, ...]]) -> None:
        # A label set seen before and gone now reads 0, not its last value.
        seen = self._live_labels.setdefault(name, set())
        seen.update(counts)
        for labels in seen:
            gauge.labels(*labels).set(counts.get(labels, 0))

    def render(self, accept: str = "") -> tuple[bytes, str]:
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type

    # -- the game ---------------------------------------------------------------------------

    def hand_dealt(self, guild_id: int, kind: str) -> None:
        self.hands_dealt.labels(self.shard(guild_id), kind).inc()

    def action(self, guild_id: int, kind: str) -> None:
        self.actions.labels(self.shard(guild_id), kind).inc()

    def bot_decision_late(self, guild_id: int) -> None:
        self.bots_late.labels(self.shard(guild_id)).inc()

    def action_answered(self, guild_id: int | None, seconds: float) -> None:
        self.action_answer.labels(self.shard(guild_id)).observe(seconds)

    # -- interactions -----------------------------------------------------------------------

    def interaction_admitted(
        self, interaction_id: int, guild_id: int | None, arrived: float
    ) -> None:
        self._waiting.setdefault(interaction_id, (arrived, self.shard(guild_id)))
        self._sweep()

    def interaction_dropped(self, guild_id: int | None) -> None:
        self.interactions_unanswered.labels(self.shard(guild_id), "arrived_late").inc()

    def _answered(self, interaction_id: int, *, accepted: bool) -> None:
        waiting = self._waiting.pop(interaction_id, None)
        if waiting is None:
            return  # not admitted here (an orphan answered as out of date), or swept
        arrived, shard = waiting
        seconds = self._monotonic() - arrived
        self.interaction_answer.labels(shard).observe(seconds)
        if seconds > INTERACTION_DEADLINE:
            self.interactions_late.labels(shard).inc()
        elif not accepted:
            self.interactions_unanswered.labels(shard, "refused").inc()

    def _sweep(self) -> None:
        cutoff = self._monotonic() - UNANSWERED_AFTER
        # Oldest first (dicts keep insertion order): stop at the first young one.
        for interaction_id, (arrived, shard) in list(self._waiting.items()):
            if arrived > cutoff:
                break
            del self._waiting[interaction_id]
            self.interactions_unanswered.labels(shard, "no_answer").inc()

    # -- Discord's REST API -----------------------------------------------------------------

    def http_trace(self) -> aiohttp.TraceConfig:
        trace = aiohttp.TraceConfig()
        trace.on_request_end.append(self._request_end)
        trace.on_request_exception.append(self._request_failed)
        return trace

    async def _request_end(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        if params.headers.get("Upgrade", "").lower() == "websocket":
            return  # the gateway: not a REST request
        route = route_of(params.url)
        status = params.response.status
        self.requests.labels(request_kind(route), params.method, route, str(status)).inc()
        if status == 429:
            scope = params.response.headers.get("X-RateLimit-Scope", "unknown")
            self.rate_limited.labels(route, scope if scope.isalpha() else "unknown").inc()
        match = _INTERACTION_CALLBACK.search(params.url.path)
        # A 429 is retried by discord.py: only the attempt that settles it counts.
        if match is not None and status != 429:
            self._answered(int(match[1]), accepted=status < 400)

    async def _request_failed(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestExceptionParams,
    ) -> None:
        route = route_of(params.url)
        self.requests.labels(request_kind(route), params.method, route, "error").inc()

    def budget_waited(self, seconds: float) -> None:
        self.budget_wait.observe(seconds)

    # -- storage, leases, the chips ---------------------------------------------------------

    def transaction(self, seconds: float) -> None:
        self.transactions.observe(seconds)

    def commit(self, transactions: int) -> None:
        self.commits.observe(transactions)

    def storage_up(self, up: bool) -> None:
        self.storage_available.set(1 if up else 0)

    def storage_fault(self, kind: str) -> None:
        self.storage_faults.labels(kind).inc()

    def storage_reconnected(self) -> None:
        self.storage_reconnects.inc()

    def lease_changed(self, guild_id: int, change: str) -> None:
        self.lease_changes.labels(self.shard(guild_id), change).inc()

    def invariant_checked(self, holds: bool) -> None:
        self.invariant.set(1 if holds else 0)
        self.invariant_checked_at.set(time.time())

    def loop_lag(self, seconds: float) -> None:
        self.lag.observe(seconds)

    def ops_refused(self, reason: str) -> None:
        self.refused.labels(reason).inc()

    # -- Discord's faults -------------------------------------------------------------------

    def watch_link(self, source: Callable[[], LinkState]) -> None:
        self._links.append(source)

    def message_owed(self, kind: str) -> None:
        self.owed.labels(kind).inc()

    def message_retried(self, kind: str) -> None:
        self.retries.labels(kind).inc()

    def answer_fault(self, outcome: str) -> None:
        self.answer_faults.labels(outcome).inc()

    def gateway_lost(self, shard_id: int) -> None:
        self.gateway_disconnects.labels(str(shard_id)).inc()


def request_kind(route: str) -> str:
    """Whether a request spends the bot's budget: answers to interactions (their callback and
    the follow-ups on their token) do not."""
    free = route.startswith(("/interactions/", "/webhooks/{id}/{token}"))
    return "interaction" if free else "bot"


__all__ = [
    "INTERACTION_DEADLINE",
    "NO_METRICS",
    "LinkState",
    "Live",
    "Metrics",
    "PrometheusMetrics",
    "request_kind",
    "route_of",
]

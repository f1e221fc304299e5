"""The operator's pieces on their own: the settings, the metrics (off and on), the routes'
labels, the heartbeat's bound, the endpoint's answers, JSON log lines and the lease trouble a
readiness probe reports (the whole bot over HTTP is ``tests/e2e/test_operations.py``)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
import yarl
from prometheus_client.parser import text_string_to_metric_families

from bot.health import Heartbeat, OpsServer
from bot.logs import JsonFormatter, TaggedLock, context_fields
from bot.metrics import NO_METRICS, Live, Metrics, PrometheusMetrics, route_of
from bot.runtime.ownership import Ownership, ShardPlan
from bot.settings import Settings, SettingsError
from bot.storage import Database, StorageError, leases

BASE = "https://discord.test/api/v10"


# -- settings --------------------------------------------------------------------------------


def read(**environ: str) -> Settings:
    return Settings.from_env(environ, dotenv_path=None, require_token=False)


def test_the_operators_settings_from_the_environment() -> None:
    plain = read()
    assert (plain.metrics_port, plain.log_format, plain.health_max_lag) == (None, "text", 10.0)
    on = read(
        METRICS_PORT="9464", METRICS_HOST="127.0.0.1", LOG_FORMAT="JSON", HEALTH_MAX_LAG="2.5"
    )
    assert (on.metrics_port, on.metrics_host, on.log_format, on.health_max_lag) == (
        9464,
        "127.0.0.1",
        "json",
        2.5,
    )
    assert read(METRICS_PORT="0").metrics_port == 0  # any free port


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        ({"METRICS_PORT": "65536"}, "METRICS_PORT must be a port"),
        ({"METRICS_PORT": "http"}, "METRICS_PORT must be a port"),
        ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be one of text, json"),
        ({"HEALTH_MAX_LAG": "0"}, "HEALTH_MAX_LAG must be"),
        ({"HEALTH_MAX_LAG": "soon"}, "HEALTH_MAX_LAG must be"),
    ],
)
def test_bad_operator_settings_name_the_variable(environ: dict[str, str], words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        read(**environ)


# -- routes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "route"),
    [
        ("/channels/123/messages", "/channels/{id}/messages"),
        (
            "/channels/1/messages/2/reactions/%F0%9F%82%A1/@me",
            "/channels/{id}/messages/{id}/reactions/{}/@me",
        ),
        (
            "/webhooks/77/lowercasetoken/messages/@original",
            "/webhooks/{id}/{token}/messages/@original",
        ),
        ("/interactions/9/aW50ZXJhY3Rpb246/callback", "/interactions/{id}/{token}/callback"),
        ("/applications/5/guilds/6/commands", "/applications/{id}/guilds/{id}/commands"),
        ("/users/@me/channels", "/users/@me/channels"),
    ],
)
def test_a_route_is_labelled_by_its_template(path: str, route: str) -> None:
    assert route_of(yarl.URL(BASE + path + "?wait=true"), BASE) == route


def test_a_token_never_reaches_a_label_even_one_that_looks_like_a_word() -> None:
    url = yarl.URL(BASE + "/webhooks/77/callback/messages/@original")
    assert route_of(url, BASE) == "/webhooks/{id}/{token}/messages/@original"
    assert route_of(yarl.URL("https://elsewhere.test/api/v10/users/@me"), BASE) == "other"


# -- the metrics -----------------------------------------------------------------------------


def test_the_metrics_switched_off_do_nothing() -> None:
    metrics = Metrics()
    assert not metrics.enabled and NO_METRICS.http_trace() is None
    metrics.watch(lambda: Live(tables=[(1, "cash")]))
    metrics.refresh()
    metrics.hand_dealt(1, "cash")
    metrics.action(1, "fold")
    metrics.action_answered(1, 0.1)
    metrics.interaction_admitted(1, 1, 0.0)
    metrics.interaction_dropped(1)
    metrics.budget_waited(0.0)
    metrics.transaction(0.01)
    metrics.commit(3)
    metrics.lease_changed(1, "acquired")
    metrics.invariant_checked(True)
    metrics.loop_lag(0.0)
    assert metrics.render() == (b"", "text/plain")


def values(metrics: PrometheusMetrics) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = metrics.render()[0].decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_two_bots_in_one_process_count_apart() -> None:
    one, two = PrometheusMetrics(), PrometheusMetrics()
    one.hand_dealt(5, "cash")
    assert (
        values(one)[("poker_hands_dealt_total", frozenset({("shard", "0"), ("kind", "cash")}))] == 1
    )
    assert not any(name == "poker_hands_dealt_total" for name, _ in values(two))


def test_a_servers_shard_is_its_label() -> None:
    metrics = PrometheusMetrics(lambda: 4)
    metrics.action(5 << 22, "call")  # shard 1 of 4
    metrics.watch(
        lambda: Live(
            tables=[(5 << 22, "cash"), (6 << 22, "tournament")],
            tournaments=[6 << 22],
            leases=[5 << 22, 6 << 22],
        )
    )
    metrics.refresh()
    found = values(metrics)
    assert found[("poker_actions_total", frozenset({("shard", "1"), ("kind", "call")}))] == 1
    assert found[("poker_live_tables", frozenset({("shard", "2"), ("kind", "tournament")}))] == 1
    assert found[("poker_live_tournaments", frozenset({("shard", "2")}))] == 1


def test_a_table_gone_reads_zero_not_its_last_count() -> None:
    open_now = [(1, "cash")]
    metrics = PrometheusMetrics()
    metrics.watch(lambda: Live(tables=list(open_now)))
    metrics.refresh()
    open_now.clear()
    metrics.refresh()
    assert (
        values(metrics)[("poker_live_tables", frozenset({("shard", "0"), ("kind", "cash")}))] == 0
    )


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_interactions_answered_late_or_not_at_all_are_counted() -> None:
    clock = Clock()
    metrics = PrometheusMetrics(monotonic=clock)
    for interaction_id in (1, 2, 3, 4):
        metrics.interaction_admitted(interaction_id, 1, clock.now)
    clock.now += 0.2
    metrics._answered(1, accepted=True)
    metrics._answered(4, accepted=False)  # in time, but Discord refused the answer
    clock.now += 3.0
    metrics._answered(2, accepted=False)  # 3.2 s after it arrived: Discord had given up
    metrics._answered(2, accepted=True)  # a second answer to one counts nothing more
    metrics.interaction_dropped(1)
    clock.now += 20.0
    metrics.refresh()  # 3 never had an answer
    found = values(metrics)
    shard = ("shard", "0")
    assert found[("poker_interaction_answer_seconds_count", frozenset({shard}))] == 3
    assert found[("poker_interactions_late_total", frozenset({shard}))] == 1
    unanswered = "poker_interactions_unanswered_total"
    for reason in ("no_answer", "arrived_late", "refused"):
        assert found[(unanswered, frozenset({shard, ("reason", reason)}))] == 1, reason


# -- the heartbeat and the endpoint ----------------------------------------------------------


def test_the_heartbeat_is_late_only_past_its_interval() -> None:
    clock = Clock()
    beat = Heartbeat(1.0, monotonic=clock)
    clock.now += 0.9
    assert beat.silent_for() == 0
    clock.now += 5.1
    assert beat.silent_for() == pytest.approx(5.0)


@pytest.fixture
async def endpoint() -> AsyncIterator[tuple[OpsServer, list[list[str]]]]:
    answers: list[list[str]] = [[]]

    async def readiness() -> list[str]:
        if answers[0] == ["slow"]:
            await asyncio.sleep(10)
        return answers[0]

    metrics = PrometheusMetrics()
    server = OpsServer(metrics, readiness, host="127.0.0.1", port=0, max_lag=5.0)
    await server.start()
    try:
        yield server, answers
    finally:
        await server.stop()


async def fetch(server: OpsServer, path: str) -> tuple[int, str, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{server.port}{path}") as response,
    ):
        return response.status, response.headers["Content-Type"], await response.text()


async def test_the_endpoint_answers_each_probe(
    endpoint: tuple[OpsServer, list[list[str]]],
) -> None:
    server, answers = endpoint
    assert (await fetch(server, "/healthz"))[::2] == (200, "ok\n")
    assert (await fetch(server, "/readyz"))[::2] == (200, "ready\n")
    answers[0] = ["gateway: not connected yet", "leases: the last renewal failed"]
    assert (await fetch(server, "/readyz"))[::2] == (
        503,
        "gateway: not connected yet\nleases: the last renewal failed\n",
    )
    # Checks that do not finish in time are a reason too; the probe still answers.
    answers[0] = ["slow"]
    status, _, text = await fetch(server, "/readyz")
    assert status == 503 and text == "event loop: the checks took over 2 s\n"
    status, content_type, text = await fetch(server, "/metrics")
    assert status == 200 and content_type.startswith("text/plain")
    assert "poker_event_loop_lag_seconds_count" in text
    assert (await fetch(server, "/nothing"))[0] == 404


async def test_a_port_taken_stops_the_start(
    endpoint: tuple[OpsServer, list[list[str]]],
) -> None:
    taken = endpoint[0].port

    async def ready() -> list[str]:
        return []

    second = OpsServer(PrometheusMetrics(), ready, host="127.0.0.1", port=taken, max_lag=5.0)
    with pytest.raises(OSError):
        await second.start()


# -- JSON log lines --------------------------------------------------------------------------


def record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    found = logging.LogRecord(
        "bot.runtime.table", logging.WARNING, __file__, 1, message, args, None
    )
    for name, value in extra.items():
        setattr(found, name, value)
    return found


def test_a_json_line_is_one_object_with_its_exception() -> None:
    try:
        raise StorageError("database_unavailable")
    except StorageError:
        failed = record("table %d: could not store", 7)
        failed.exc_info = sys.exc_info()
    line = JsonFormatter().format(failed)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "WARNING" and entry["logger"] == "bot.runtime.table"
    assert entry["message"] == "table 7: could not store"
    assert entry["time"].endswith("Z") and "StorageError" in entry["exception"]
    assert "table" not in entry  # written outside any table's lock
    assert json.loads(JsonFormatter().format(record("x", table=3, hand=9)))["hand"] == 9


async def test_a_tables_lock_names_it_in_every_line_written_under_it() -> None:
    hand = [4]
    lock = TaggedLock(asyncio.Lock(), lambda: {"table": 12, "hand": hand[0], "shard": 0})
    formatter = JsonFormatter()
    seen: list[dict[str, object]] = []

    async def in_a_task_it_starts() -> None:
        seen.append(json.loads(formatter.format(record("child"))))

    async with lock:
        assert lock.locked()
        hand[0] = 5  # a deal under the lock: later lines name the new hand
        seen.append(json.loads(formatter.format(record("inside"))))
        child = asyncio.create_task(in_a_task_it_starts())
    await child
    assert not lock.locked() and context_fields() == {}
    seen.append(json.loads(formatter.format(record("after"))))
    assert [(e.get("table"), e.get("hand"), e.get("shard")) for e in seen] == [
        (12, 5, 0),
        (12, 5, 0),
        (None, None, None),
    ]


def test_a_table_that_cannot_say_where_it_is_costs_the_line_nothing() -> None:
    def broken() -> dict[str, int | None]:
        raise AttributeError("torn down")

    async def run() -> str:
        async with TaggedLock(asyncio.Lock(), broken):
            return JsonFormatter().format(record("still written"))

    assert json.loads(asyncio.run(run()))["message"] == "still written"


# -- the leases a readiness probe reports ----------------------------------------------------


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        yield database
    finally:
        await database.close()


async def test_a_server_run_elsewhere_is_trouble_until_this_process_takes_it(
    database: Database,
) -> None:
    clock = Clock()
    metrics = PrometheusMetrics()
    mine = Ownership(
        database, ShardPlan(), lease_seconds=30, owner="far:1:x", monotonic=clock, metrics=metrics
    )
    await leases.acquire(database, 1 << 22, "far:2:y", 30)
    assert mine.trouble() == []
    assert not await mine.serves(1 << 22)
    assert mine.trouble() == [
        "leases: 1 server(s) of this process's shards are run by another process"
    ]
    await leases.release(database, "far:2:y")
    clock.now += 11  # past the refusal's margin: asked again, and taken
    assert await mine.serves(1 << 22)
    assert mine.trouble() == []
    await mine.release()
    changes = {
        dict(labels)["change"]: value
        for (name, labels), value in values(metrics).items()
        if name == "poker_lease_changes_total"
    }
    assert changes == {"acquired": 1, "released": 1}


async def test_a_failed_renewal_is_trouble_until_one_works(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = Ownership(database, ShardPlan(), lease_seconds=30, owner="far:1:x")
    assert await mine.serves(1 << 22)

    async def down(*args: object, **kwargs: object) -> set[int]:
        raise StorageError("database_unavailable")

    monkeypatch.setattr(leases, "renew", down)
    await mine.renew()
    assert mine.trouble() == ["leases: the last renewal failed"]
    monkeypatch.undo()
    await mine.renew()
    assert mine.trouble() == []

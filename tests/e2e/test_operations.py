"""Running it for real: the operator's endpoint of the real bot, over HTTP, while it plays
against the fake Discord (``/metrics``, ``/healthz``, ``/readyz``; ``docs/operations.md``)."""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.client import PokerBot
from bot.settings import Settings
from bot.storage import Database, StorageError, leases
from tests.e2e.game_kit import Game, StackedDeck, quick_options, running_game, until
from tests.e2e.harness import World, running_bot, settings_for
from tests.e2e.ops_kit import Samples, get, scrape, total
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(120)


async def test_the_metrics_follow_the_game(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    alice, bob = world.alice, world.bob
    async with running_game(fake, world, tmp_path, metrics=True) as game:
        bot = game.bot
        before = await scrape(bot)
        assert total(before, "poker_live_tables") == 0
        assert total(before, "poker_hands_dealt_total") == 0
        # The start-up check of the chips is the gauge's first reading.
        assert total(before, "poker_chip_invariant_holds") == 1

        await game.ok(alice, "poker", "create")
        opened = await scrape(bot)
        assert total(opened, "poker_live_tables", kind="cash", shard="0") == 1
        assert total(opened, "poker_leases_held", shard="0") == 1
        assert total(opened, "poker_lease_changes_total", change="acquired") == 1

        await game.ok(alice, "poker", "join", buy_in=1000)
        await game.ok(bob, "poker", "join", buy_in=1000)
        await game.ok(alice, "poker", "start")
        await game.wait_hand(1)
        # Hand 1 plays out and hand 2 waits: the count below is exact.
        await game.ok(alice, "poker", "pause")
        assert total(await scrape(bot), "poker_hands_dealt_total", kind="cash") == 1

        raiser = await game.wait_turn()
        await game.ok(raiser, "raise", to=40)
        await game.ok(await game.wait_turn(), "fold")
        await game.wait_result(1)
        await game.wait_idle()
        played = await scrape(bot)
        assert total(played, "poker_hands_dealt_total", shard="0") == 1
        assert total(played, "poker_actions_total", kind="raise") == 1
        assert total(played, "poker_actions_total", kind="fold") == 1
        assert total(played, "poker_actions_total") == 2
        # Both actions were answered, each timed from its arrival.
        assert total(played, "poker_action_answer_seconds_count") == 2
        assert 0 < total(played, "poker_action_answer_seconds_sum") < 2 * 3.0
        # Every command was answered, in time.
        answered = total(played, "poker_interaction_answer_seconds_count")
        assert answered >= 7
        assert total(played, "poker_interactions_late_total") == 0
        assert total(played, "poker_interactions_unanswered_total") == 0
        # REST requests by route: the answers (free) and the table's messages (the budget's).
        callbacks = total(
            played,
            "poker_discord_requests_total",
            kind="interaction",
            route="/interactions/{id}/{token}/callback",
            method="POST",
        )
        assert callbacks >= answered
        assert (
            total(
                played,
                "poker_discord_requests_total",
                kind="bot",
                route="/channels/{id}/messages",
                method="POST",
            )
            >= 2
        )
        assert total(played, "poker_discord_rate_limited_total") == 0
        spent = total(played, "poker_request_budget_wait_seconds_count")
        assert spent >= 2
        # Storage: every transaction timed, every commit's size noted.
        transactions = total(played, "poker_storage_transaction_seconds_count")
        commits = total(played, "poker_storage_commit_transactions_count")
        assert transactions >= 10 and 0 < commits <= transactions
        # A caller gone before his batch committed is in the batch, not in the timings.
        assert total(played, "poker_storage_commit_transactions_sum") >= transactions
        # The process itself.
        assert total(played, "process_resident_memory_bytes") > 0

        await game.ok(alice, "poker", "close")
        closed = await scrape(bot)
        assert total(closed, "poker_live_tables", kind="cash") == 0
        assert total(closed, "poker_hands_dealt_total") == 1

        # An interaction that reaches the bot past its lateness limit is dropped unanswered.
        bot.interaction_clock.limit = -1.0
        await fake.slash(bob, game.channel, "chips", subcommand="balance")
        await eventually(
            bot,
            lambda found: (
                total(found, "poker_interactions_unanswered_total", reason="arrived_late") == 1
            ),
            "the late interaction counted",
        )


async def test_the_chips_are_checked_now_and_then(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """With the metrics on, the chips are checked against each server's count in circulation
    every ``invariant_interval``: a chip that appears from nowhere turns the gauge to 0."""
    options = replace(quick_options(StackedDeck()), invariant_interval=0.1)
    async with running_game(fake, world, tmp_path, metrics=True, options=options) as game:
        await game.ok(world.alice, "poker", "create")
        await game.ok(world.alice, "poker", "join", buy_in=1000)
        first = total(await scrape(game.bot), "poker_chip_invariant_checked_seconds")
        await eventually(
            game.bot,
            lambda found: total(found, "poker_chip_invariant_checked_seconds") > first,
            "a later check",
        )
        assert total(await scrape(game.bot), "poker_chip_invariant_holds") == 1
        await _move_one_chip(game, +1)
        await eventually(
            game.bot,
            lambda found: total(found, "poker_chip_invariant_holds") == 0,
            "the extra chip seen",
        )
        await _move_one_chip(game, -1)
        await eventually(
            game.bot,
            lambda found: total(found, "poker_chip_invariant_holds") == 1,
            "the chips right again",
        )


async def _move_one_chip(game: Game, chips: int) -> None:
    async with game.db.write() as tx:
        await tx.execute(
            "UPDATE wallets SET balance = balance + ? WHERE user_id = ?",
            (chips, game.world.alice.id),
        )


async def eventually(
    bot: PokerBot, check: Callable[[Samples], bool], what: str, timeout: float = 5.0
) -> Samples:
    """Scrape until ``check`` holds."""
    deadline = time.monotonic() + timeout
    while True:
        found = await scrape(bot)
        if check(found):
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout}s")
        await asyncio.sleep(0.05)


# -- health and readiness ----------------------------------------------------------------------


def _ops_settings(fake: FakeDiscord, data_dir: Path, **changes: Any) -> Settings:
    return replace(
        settings_for(fake, data_dir), metrics_port=0, metrics_host="127.0.0.1", **changes
    )


async def test_ready_only_once_connected_with_the_database_answering(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gateway session is held at IDENTIFY: the bot is up, but not connected.
    identify = fake.gateway._identify
    connect = asyncio.Event()

    async def held(*args: Any) -> None:
        await connect.wait()
        await identify(*args)

    monkeypatch.setattr(fake.gateway, "_identify", held)
    bot = PokerBot(
        _ops_settings(fake, tmp_path), extensions=(), dynamic_items=(), guild_ready_timeout=0.01
    )
    starting = asyncio.create_task(bot.start(fake.token))
    try:
        await until(
            lambda: bot.ops is not None and bot.runtime is not None,
            timeout=20,
            what="the endpoint and the runtime",
        )
        await until(lambda: fake.gateway._sockets, timeout=10, what="a gateway socket")
        assert await get(bot, "/healthz") == (200, "ok\n")
        status, text = await get(bot, "/readyz")
        assert status == 503 and "gateway: not connected yet" in text, text
        connect.set()
        await _wait_ready(bot)

        # The database stops answering: not ready; back: ready.
        assert bot.runtime is not None
        db = bot.runtime.db

        async def failing(*args: Any, **kwargs: Any) -> Any:
            raise StorageError("database_unavailable")

        monkeypatch.setattr(db, "fetchall", failing)
        status, text = await get(bot, "/readyz")
        assert status == 503 and text == "database: does not answer (StorageError)\n", text
        assert (await get(bot, "/healthz"))[0] == 200  # alive all the same
        monkeypatch.undo()
        await _wait_ready(bot)
    finally:
        connect.set()
        await bot.close()
        await asyncio.wait({starting}, timeout=5)
        from bot.settings import apply_proxies

        apply_proxies(Settings())
    # Stopped: nothing listens any more.
    assert bot.ops is None


async def _wait_ready(bot: PokerBot, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        status, text = await get(bot, "/readyz")
        if status == 200:
            assert text == "ready\n"
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"not ready within {timeout}s: {text}")
        await asyncio.sleep(0.05)


async def test_not_ready_while_another_process_runs_one_of_its_servers(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """A server of this process's shards whose lease another live process holds: its table
    is not run here, and the process says it is not ready, until the lease is given back."""
    async with running_game(fake, world, tmp_path) as game:
        await game.ok(world.alice, "poker", "create")
    # Stopped, the bot gave its lease back; a process on another machine takes it.
    url = settings_for(fake, tmp_path).database_url
    async with await Database.open(url) as db:
        assert await leases.acquire(db, world.guild.id, "elsewhere:4242:0badcafe", 3600) is None
    options = replace(quick_options(StackedDeck()), lease_seconds=3.0)
    settings = _ops_settings(fake, tmp_path)
    async with running_bot(
        fake, tmp_path, settings=settings, runtime_options=options, extensions=()
    ) as bot:
        status, text = await get(bot, "/readyz")
        assert status == 503, text
        assert text == "leases: 1 server(s) of this process's shards are run by another process\n"
        assert bot.runtime is not None and not bot.runtime.registry.cash_tables()
        # The other process stops and gives the lease back: this one takes the table over.
        async with bot.runtime.db.write() as tx:
            await tx.execute("DELETE FROM guild_leases WHERE guild_id = ?", (world.guild.id,))
        await _wait_ready(bot)
        # Ready once the lease is taken; the table is adopted right after (a moment that a
        # loaded machine made long enough to see).
        runtime = bot.runtime
        await until(lambda: len(runtime.registry.cash_tables()) == 1, timeout=10,
                    what="the table adopted")
        found = await scrape(bot)
        assert total(found, "poker_leases_held") == 1
        assert total(found, "poker_live_tables", kind="cash") == 1


async def test_healthz_fails_while_the_event_loop_is_blocked(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    settings = _ops_settings(fake, tmp_path, health_max_lag=0.5)
    async with running_bot(fake, tmp_path, settings=settings) as bot:
        assert bot.ops is not None
        port = bot.ops.port
        await _wait_ready(bot)
        answers: dict[str, tuple[int, str]] = {}

        def probe() -> None:
            time.sleep(1.0)  # while the loop is blocked, past the bound
            for path in ("/healthz", "/readyz"):
                try:
                    url = f"http://127.0.0.1:{port}{path}"
                    with urllib.request.urlopen(url, timeout=5) as response:
                        answers[path] = (response.status, response.read().decode())
                except urllib.error.HTTPError as error:
                    answers[path] = (error.code, error.read().decode())

        prober = threading.Thread(target=probe)
        prober.start()
        time.sleep(2.0)  # the bot's event loop does nothing else meanwhile
        await asyncio.to_thread(prober.join, 10)
        for path in ("/healthz", "/readyz"):
            status, text = answers[path]
            assert status == 503 and text.startswith("event loop: no heartbeat for"), answers
        # The loop is free again: alive, and the lag it went through is on record.
        await until(
            lambda: bot.ops is not None and bot.ops.heartbeat.silent_for() == 0,
            timeout=5,
            what="the next heartbeat",
        )
        assert (await get(bot, "/healthz"))[0] == 200
        await _wait_ready(bot)
        # The stall is on record: one heartbeat woke well over a second late.
        found = await scrape(bot)
        late = total(found, "poker_event_loop_lag_seconds_count") - total(
            found, "poker_event_loop_lag_seconds_bucket", le="1.0"
        )
        assert late >= 1

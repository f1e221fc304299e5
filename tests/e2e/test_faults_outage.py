"""Discord down for a while: every connection refused or reset, the gateway gone, then back on
the same address.

- Twenty seconds in the middle of a hand, the issue's own trigger: a ``/call`` reaches the bot
  and is stored, and Discord goes down while its answer is on the way. Afterwards the player
  is told: by an answer or a follow-up while his interaction's token lives, or, when Discord
  never got the answer (it takes no follow-up for an interaction never answered), by the
  table showing what he did within seconds; the hands go on, and every other promise of the
  suite holds (``fault_kit``); while Discord is down the process says it is not ready.
- SIGTERM during an outage, to a real process with two tables: it stops within its drain time
  instead of waiting on its message queue for ever, logs no traceback, and the next start
  shows both tables as storage has them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from pathlib import Path

import pytest

from bot.runtime.config import RuntimeOptions
from bot.storage import Database, tables
from tests.e2e.fault_kit import (
    STALE_LIMIT,
    TAKEN,
    Place,
    cash_scene,
    disagreement,
    shown_turn,
    stored_turn,
    table_messages,
)
from tests.e2e.game_kit import running_game, settled
from tests.e2e.harness import World
from tests.e2e.ops_kit import get
from tests.e2e.processes import bot_process
from tests.fakediscord import FakeDiscord
from tests.fakediscord.faults import CALLBACK
from tests.timing import scaled

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

OUTAGE = 20.0  # seconds: the shortest outage the suite must ride out


async def test_a_twenty_second_outage_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with cash_scene(fake, world, tmp_path, metrics=True) as scene:
        hand = await scene.mid_hand()
        place = scene.places[0]
        async with scene.crowd.holding():
            turn = await scene.shown_as_stored()
            assert turn.user_id is not None
            player = fake.users[turn.user_id]
            # The answer and the table's edit are held on their way; Discord goes down
            # meanwhile.
            fake.delay(CALLBACK, by=(1.0, 1.0), count=1, answering="command")
            fake.delay(place.edits, by=(1.0, 1.0), count=1)
            shown = table_messages(fake, place)[-1].custom_ids()
            command = "check" if any(":check@" in c for c in shown) else "call"
            handle = await fake.slash(player, place.channel, command)
            deadline = time.monotonic() + scaled(10)
            while await stored_turn(scene.watcher.db, place.table_id) == turn:
                assert time.monotonic() < deadline, (
                    f"the /{command} was not stored before Discord went down")
                await asyncio.sleep(0.02)
            await fake.go_down()
            await asyncio.sleep(2)
            status, why = await get(scene.game.bot, "/readyz")
            await asyncio.sleep(OUTAGE - 2)
            await fake.come_back()
            scene.back_now()
            # His interaction's token lives 15 minutes: he is told, or followed up, soon; when
            # Discord never got the answer (the player saw "interaction failed", and Discord
            # takes no follow-up for an interaction never answered), the table shows what he
            # did: it moves past his decision.
            deadline = time.monotonic() + scaled(STALE_LIMIT)
            answer, told = "", False
            while not told and time.monotonic() < deadline:
                if handle.callback is not None or handle.followup_ids:
                    answer = (handle.callback.content if handle.callback is not None
                              else handle.followups[0].content)
                    told = answer.startswith(TAKEN)
                    break
                now_shown = shown_turn(table_messages(fake, place)[-1])
                if now_shown.hand is not None and turn.hand is not None and (
                    now_shown.hand, now_shown.decision or 0) > (turn.hand, turn.decision or 0):
                    answer, told = "the table showed it", True
                await asyncio.sleep(0.1)
            scene.crowd.record(place, player, turn, command, "slash", answer, told)
        if status != 503 or "gateway" not in why:
            scene.broken.append(f"/readyz during the outage answered {status}: {why!r}")
        if not told:
            scene.broken.append(
                f"{player.name}'s /{command} was stored as Discord went down, and the player"
                f" was never told it was taken within {STALE_LIMIT:.0f}s of Discord's return"
                f" (answered: {answer or 'nothing, no follow-up'!r})")
        await scene.finish(hand, within=60)


async def test_sigterm_during_an_outage_stops_in_time_and_the_next_start_shows_every_table(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    drain = RuntimeOptions().drain_timeout
    log = tmp_path / "bot.log"
    alice, bob = world.alice, world.bob
    channels = [world.guild.channel("poker"), world.guild.channel("lobby")]
    async with bot_process(fake, tmp_path, log, environ={"LOG_FORMAT": "json"}) as process:
        await fake.wait_for_session(timeout=scaled(30))
        for channel in channels:
            for user, command, options in (
                (alice, "create", {"small_blind": 5, "big_blind": 10}),
                (alice, "join", {"buy_in": 1000}),
                (bob, "join", {"buy_in": 1000}),
                (alice, "start", {}),
            ):
                handle = await fake.slash(user, channel, "poker", subcommand=command,
                                          options=options)
                reply = await settled(handle, timeout=scaled(20))
                assert reply.ephemeral and not reply.content.startswith("Something"), reply
        places = [Place(0, channel) for channel in channels]

        def named(place: Place) -> int | None:
            messages = table_messages(fake, place)
            return shown_turn(messages[-1]).user_id if messages else None

        await fake.wait_for(lambda: all(named(p) for p in places), timeout=scaled(30),
                            what="both tables to name a player to act")
        await fake.go_down()
        await asyncio.sleep(1)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), timeout=scaled(drain + 20))
        stopped_in = time.monotonic() - started
        still_running = process.returncode is None
    await fake.come_back()
    problems = []
    if still_running:
        problems.append(f"still running {stopped_in:.0f}s after SIGTERM (its drain time is"
                        f" {drain:.0f}s): killed")
    elif stopped_in > scaled(drain + 5):
        problems.append(f"took {stopped_in:.1f}s to stop after SIGTERM (drain time"
                        f" {drain:.0f}s)")
    elif process.returncode != 0:
        problems.append(f"ended with status {process.returncode}")
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    errors = [f"{e['level']} {e['logger']}: {e['message']}"[:200] for e in lines
              if e["level"] in ("ERROR", "CRITICAL") or "exception" in e]
    if errors:
        problems.append(f"{len(errors)} ERROR line(s) or traceback(s) logged:\n    "
                        + "\n    ".join(errors[:8]))

    async with running_game(fake, world, tmp_path) as game:
        db: Database = game.db
        stored = {info.channel_id: info.table_id for info in await tables.open_tables(db)}
        assert set(stored) == {c.id for c in channels}, stored
        places = [Place(stored[c.id], c) for c in channels]
        deadline = time.monotonic() + scaled(STALE_LIMIT)
        found: dict[int, str | None] = {}
        while time.monotonic() < deadline:
            found = {p.table_id: await disagreement(fake, db, p) for p in places}
            if not any(found.values()):
                break
            await asyncio.sleep(0.1)
    problems.extend(f"after the restart, table {table} is not shown as stored: {why}"
                    for table, why in found.items() if why)
    assert not problems, "SIGTERM during an outage:\n  - " + "\n  - ".join(problems)

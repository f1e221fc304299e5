"""Recovery from crashes right after a transition was stored, and from a hand that cannot be
rebuilt. Each test stops every write at the worst moment (the transition stored, nothing after
it), then starts a new bot on the same database and checks that play resumes with every chip
accounted for."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.runtime.cash import CashTable
from bot.storage import Database, economy, hands, invariant, tournaments
from bot.storage.db import Tx
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    StackedDeck,
    quick_options,
    running_game,
    total_chips,
    until,
)
from tests.e2e.harness import World
from tests.e2e.tournament_kit import tournament
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(60)

Freeze = Callable[[CashTable], bool]


def restarted(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> contextlib.AbstractAsyncContextManager[Game]:
    """The bot started again on the same database, its next deal held back long enough for a
    test to look at the table as it was restored (start-up itself takes a moment under load)."""
    deck = StackedDeck()
    return running_game(fake, world, tmp_path, deck=deck,
                        options=quick_options(deck, next_hand_delay=2.0))


def freeze_writes_when(monkeypatch: pytest.MonkeyPatch, game: Game, when: Freeze) -> asyncio.Event:
    """From the first write that finds ``when(live_table)`` true, no write ever completes again:
    the process "died" right before it. The event is set when that moment comes."""
    original_write = Database.write
    original_one = Database.write_one
    frozen = asyncio.Event()

    async def crash_if_due() -> None:
        if frozen.is_set() or when(game.live_table()):
            frozen.set()
            await asyncio.Event().wait()  # never returns: the "crash"

    @contextlib.asynccontextmanager
    async def write(self: Database) -> AsyncIterator[Tx]:
        await crash_if_due()
        async with original_write(self) as tx:
            yield tx

    async def write_one(self: Database, sql: str, params: Sequence[object] = ()) -> Any:
        await crash_if_due()
        return await original_one(self, sql, params)

    monkeypatch.setattr(Database, "write", write)
    monkeypatch.setattr(Database, "write_one", write_one)
    return frozen


async def first_of(*waits: Awaitable[object]) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    await asyncio.wait(tasks, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()


async def seat_three(game: Game) -> None:
    world = game.world
    await game.ok(world.alice, "poker", "create")
    for user in (world.alice, world.bob, world.carol):
        await game.ok(user, "poker", "join", buy_in=1000)


async def test_a_crash_right_after_a_hand_was_stored_as_started(
    fake: FakeDiscord, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_game(fake, world, tmp_path) as game:
        await seat_three(game)
        frozen = freeze_writes_when(monkeypatch, game, lambda r: r.hand_id is not None)
        await fake.slash(world.alice, game.channel, "poker", subcommand="start")
        await asyncio.wait_for(frozen.wait(), 10)
        (stored,) = await hands.unfinished_hands(game.db)
    monkeypatch.undo()
    await fake.wait_for(lambda: not fake.sessions, what="the bot to stop")

    async with running_game(fake, world, tmp_path) as game:
        live_table = game.live_table()
        hand = live_table.hand
        assert hand is not None and live_table.hand_id == stored.hand_id
        assert hand.deck == tuple(stored.deck)
        assert list(live_table.table.hand_players) == [p.user_id for p in stored.players]
        assert live_table.table.button_seat == stored.button_seat
        await game.passive_round(1)
        await game.wait_result(1)
        wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats + in_hands == 3 * STARTING_BALANCE


async def test_a_crash_right_after_a_hand_was_stored_as_finished(
    fake: FakeDiscord, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_game(fake, world, tmp_path) as game:
        await seat_three(game)
        await game.ok(world.alice, "poker", "start")
        await game.wait_hand(1)
        live_table = game.live_table()
        first_button = live_table.table.button_seat
        # Carol leaves during the hand: she goes when it ends, with her chips.
        reply = await game.ok(world.carol, "poker", "leave")
        assert reply == t("reply.leaving_after_hand")
        frozen = freeze_writes_when(monkeypatch, game, lambda r: r.hand_id is None)
        while not frozen.is_set():
            turn = game.to_act()
            if turn is None:
                await asyncio.sleep(0.01)
                continue
            legal = game.hand.legal()  # type: ignore[union-attr]
            command = "check" if legal is not None and legal.can_check else "call"
            handle = await fake.slash(turn, game.channel, command)
            # The last action never gets its answer: the bot "dies" while finishing the hand.
            await first_of(handle.response(timeout=10), frozen.wait())
        assert not await hands.unfinished_hands(game.db)
    monkeypatch.undo()
    await fake.wait_for(lambda: not fake.sessions, what="the bot to stop")

    async with restarted(fake, world, tmp_path) as game:
        live_table = game.live_table()
        assert live_table.table.seat_of(world.carol.id) is None  # her leave happened
        assert live_table.table.hand_number == 1 and live_table.hand is None
        await game.wait_hand(2)  # still dealing: the next hand comes by itself
        # The button moved on from hand 1, as if nothing had happened.
        assert live_table.table.button_seat != first_button
        await game.passive_round(2)
        await game.wait_result(2)
        assert await game.balance(world.carol) > STARTING_BALANCE - 1000
        wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats + in_hands == 3 * STARTING_BALANCE


async def test_a_hand_that_cannot_be_rebuilt_is_voided_and_refunded(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_game(fake, world, tmp_path) as game:
        await seat_three(game)
        await game.ok(world.alice, "poker", "start")
        await game.wait_hand(1)
        await game.ok(await game.wait_turn(), "call")
        hand_id = game.live_table().hand_id
    await fake.wait_for(lambda: not fake.sessions, what="the bot to stop")

    # Damage the stored hand while the bot is down: its one action no longer replays.
    db = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    async with db.write() as tx:
        await tx.execute(
            "UPDATE hand_actions SET action = ? WHERE hand_id = ?",
            ('{"kind": "raise", "player": 0, "amount": 999999}', hand_id),
        )
    await db.close()

    mark = fake.mark()
    async with restarted(fake, world, tmp_path) as game:
        notice = t("notice.hand_voided_restart", hand=1)
        await fake.wait_for_message(
            lambda m: m.content == notice, channel=game.channel, after=mark, timeout=20
        )
        stored = await hands.load_hand(game.db, hand_id)  # type: ignore[arg-type]
        assert stored.status == "voided"
        live_table = game.live_table()
        assert {v.player_id: v.stack for v in live_table.table.seats()} == {
            u.id: 1000 for u in (world.alice, world.bob, world.carol)
        }
        assert await total_chips(game.db, world.guild.id) == (
            3 * STARTING_BALANCE - 3000, 3000, 0
        )
        # The table plays on with the next hand.
        await until(lambda: live_table.table.hand_number == 2, what="hand 2")


async def test_a_stored_tournament_no_table_can_play_is_cancelled_with_refunds_at_start(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """A tournament stored by an older version with a level no table can play (the engine now
    refuses it) cannot be restored: at the start its buy-ins go back to the wallets instead of
    staying locked in its pool, and the chips still add up."""
    alice, bob = world.alice, world.bob
    async with running_game(fake, world, tmp_path) as game:
        created = await tournament(game, alice, "create", name="Old", kind="freeze_out",
                                   buy_in=100, starting_stack=1000, structure="10/20 10")
        assert created.startswith("Tournament **"), created
        for user in (alice, bob):
            reply = await game.slash(user, "tournament", "register")
            assert reply.content.startswith("You're registered"), reply.content
        live = game.runtime.registry.tournament_in(game.channel.id)
        assert live is not None
        tournament_id, guild = live.tournament_id, world.guild.id
        paid = {u.id: await economy.balance(game.db, guild, u.id) for u in (alice, bob)}
    db = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        info = await tournaments.get_tournament(db, tournament_id)
        state = dict(info.state)
        state["config"] = {**state["config"],
                           "levels": [[1, 2, 0, 0.1], [10**10, 2 * 10**10, 0, 30]]}
        async with db.write() as tx:
            await tx.execute("UPDATE tournaments SET state = ? WHERE tournament_id = ?",
                             (json.dumps(state), tournament_id))
    finally:
        await db.close()
    async with running_game(fake, world, tmp_path) as game:
        info = await tournaments.get_tournament(game.db, tournament_id)
        assert info.status == "cancelled"
        assert game.runtime.registry.tournament_in(game.channel.id) is None
        for user in (alice, bob):
            assert await economy.balance(game.db, guild, user.id) == paid[user.id] + 100
        await invariant.verify_invariant(game.db)

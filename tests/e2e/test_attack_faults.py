"""Every transition survives a storage failure at each of its writes (issue 10, defect 3).

Each transition — deal, action, settle, void, leave, kick, close, join, rebuy — is one
transaction (the deal and the last action of a hand make two: the action, then the result).
Here each of those writes fails in turn, either before its transaction starts or right after it
committed (the caller never hears it did: the process died at that instant), then the bot is
restarted on the same database. After every restart the chip invariant holds, no hand is left
running on a table that is not open, and the table plays a whole hand again.

The same with a real process killed by SIGKILL after each commit is in
``test_attack_sigkill.py``.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.storage import Database, hands, locales, tables
from bot.storage.db import Tx
from tests.e2e.game_kit import STARTING_BALANCE, Game, running_game, total_chips, until
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(90)

_background = contextvars.ContextVar("background_write", default=False)


class InjectedFault(RuntimeError):
    """The storage failure this test injects."""


class Faults:
    """Counts the writes of an armed window and makes the ``fail_at``-th one fail.

    ``mode`` "before": it raises before its transaction starts (nothing written);
    "after": it raises once its transaction committed (written, but nobody is told).
    The table message id the messenger stores in the background is not counted, nor is a
    user's client locale (stored in the background when it changes, for his DMs).
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.armed = False
        self.count = 0
        self.fail_at: int | None = None
        self.mode = "before"
        self.fired = False
        write, write_one = Database.write, Database.write_one
        set_message = tables.set_table_message
        set_locale = locales.set_user_locale
        faults = self

        @contextlib.asynccontextmanager
        async def patched_write(db: Database) -> AsyncIterator[Tx]:
            index = faults._tick()
            faults._maybe_fail(index, "before")
            async with write(db) as tx:
                yield tx
            faults._maybe_fail(index, "after")

        async def patched_write_one(db: Database, sql: str, params: Sequence[object] = ()) -> Any:
            index = faults._tick()
            faults._maybe_fail(index, "before")
            rows = await write_one(db, sql, params)
            faults._maybe_fail(index, "after")
            return rows

        async def background_message(*args: Any, **kwargs: Any) -> None:
            token = _background.set(True)
            try:
                await set_message(*args, **kwargs)
            finally:
                _background.reset(token)

        monkeypatch.setattr(Database, "write", patched_write)
        monkeypatch.setattr(Database, "write_one", patched_write_one)
        async def background_locale(*args: Any, **kwargs: Any) -> bool:
            token = _background.set(True)
            try:
                return await set_locale(*args, **kwargs)
            finally:
                _background.reset(token)

        monkeypatch.setattr(tables, "set_table_message", background_message)
        monkeypatch.setattr(locales, "set_user_locale", background_locale)

    def _tick(self) -> int | None:
        if not self.armed or _background.get():
            return None
        self.count += 1
        return self.count - 1

    def _maybe_fail(self, index: int | None, moment: str) -> None:
        if index is not None and index == self.fail_at and moment == self.mode:
            self.fired = True
            raise InjectedFault(f"write {index} failed {moment}")

    @contextlib.asynccontextmanager
    async def window(self, fail_at: int | None = None, mode: str = "before") -> AsyncIterator[
        None
    ]:
        self.count, self.fail_at, self.mode, self.fired = 0, fail_at, mode, False
        self.armed = True
        try:
            yield
        finally:
            self.armed = False


# -- the transitions ---------------------------------------------------------------------


async def seated(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    # Room above the stacks, so a top-up of 10 is always within the buy-in range.
    await game.open_table(alice, bob, small_blind=5, big_blind=10, max_buy_in=3000)
    await game.wait_idle()


async def in_hand(game: Game) -> None:
    await seated(game)
    await game.ok(game.world.alice, "poker", "start")
    await game.wait_hand(1)
    await game.wait_turn()
    await game.wait_idle()


async def after_one_hand(game: Game) -> None:
    await in_hand(game)
    await game.ok(game.world.alice, "poker", "pause")
    await game.passive_round(1)
    await game.wait_result(1)
    await until(lambda: game.live_table().hand is None, what="hand 1 settled")
    await game.wait_idle()


async def to_act(game: Game) -> str:
    user = await game.wait_turn()
    return (await game.slash(user, "call")).content


async def last_action(game: Game) -> str:
    # Heads-up pre-flop the button acts first: his fold ends the hand (action, then result).
    return (await game.slash(await game.wait_turn(), "fold")).content


async def waiting_leaves(game: Game) -> str:
    hand = game.hand
    assert hand is not None and hand.to_act is not None
    waiting = next(
        u for u in (game.world.alice, game.world.bob) if game.to_act() is not u
    )
    return (await game.slash(waiting, "poker", "leave")).content


@dataclass(frozen=True)
class Transition:
    setup: Callable[[Game], Awaitable[None]]
    run: Callable[[Game], Awaitable[str]]
    writes: int  # transactions it makes: one, or two for the deal and a hand's last action


TRANSITIONS: dict[str, Transition] = {
    "join": Transition(
        seated, lambda g: _text(g.slash(g.world.carol, "poker", "join", buy_in=1000)), 1
    ),
    "deal": Transition(seated, lambda g: _text(g.slash(g.world.alice, "poker", "start")), 2),
    "action": Transition(in_hand, to_act, 1),
    "settle": Transition(in_hand, last_action, 2),
    "void": Transition(in_hand, lambda g: _text(g.slash(g.world.alice, "poker", "void")), 1),
    "leave": Transition(seated, lambda g: _text(g.slash(g.world.bob, "poker", "leave")), 1),
    "leave_in_hand": Transition(in_hand, waiting_leaves, 1),
    "kick": Transition(
        seated, lambda g: _text(g.slash(g.world.alice, "poker", "kick", user=g.world.bob)), 1
    ),
    "kick_in_hand": Transition(
        in_hand, lambda g: _text(g.slash(g.world.alice, "poker", "kick", user=g.world.bob)), 1
    ),
    "rebuy": Transition(
        after_one_hand, lambda g: _text(g.slash(g.world.bob, "poker", "rebuy", amount=10)), 1
    ),
    "close": Transition(in_hand, lambda g: _text(g.slash(g.world.alice, "poker", "close")), 1),
}


async def _text(reply: Awaitable[Any]) -> str:
    return str((await reply).content)


CASES = [
    (name, k, mode)
    for name, transition in TRANSITIONS.items()
    for k in range(transition.writes)
    for mode in ("before", "after")
]


# -- the checks --------------------------------------------------------------------------


async def check_storage(game: Game) -> None:
    """The invariant holds (every chip is where the ledger says), and no hand runs on a table
    that is not open."""
    wallets, seats, in_hands = await total_chips(game.db, game.world.guild.id)
    assert (wallets + seats + in_hands) % STARTING_BALANCE == 0  # only starting balances minted
    open_ids = {info.table_id for info in await tables.open_tables(game.db)}
    for running in await hands.unfinished_hands(game.db):
        assert running.table_id in open_ids, running.hand_id


async def plays_a_hand(game: Game) -> None:
    """Whatever state the table came back in, two players can play a whole hand on it."""
    alice, bob = game.world.alice, game.world.bob
    if not game.runtime.registry.cash_tables():
        await game.ok(alice, "poker", "create", small_blind=5, big_blind=10, max_buy_in=3000)
    live_table = game.live_table()
    if live_table.hand is not None:  # the hand the restart brought back is played out first
        await game.passive_round(live_table.table.hand_number)
        await until(lambda: live_table.hand is None, what="the resumed hand to end")
    if live_table.table.paused:
        await game.ok(alice, "poker", "resume")
    for user in (alice, bob):
        seat = live_table.table.player(user.id)
        if seat is None:
            await game.ok(user, "poker", "join", buy_in=1000)
        elif seat.stack + seat.pending_chips == 0:
            await game.ok(user, "poker", "rebuy", amount=1000)
        elif seat.state.value == "sitting_out":
            await game.ok(user, "poker", "sitin")
    target = live_table.table.hand_number + 1
    if not live_table.config.dealing:
        await game.ok(alice, "poker", "start")
    await game.wait_hand(target, timeout=10)
    await game.passive_round(target)
    await game.wait_result(target)


# -- the test ----------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "fail_at", "mode"), CASES)
async def test_a_storage_failure_at_any_write_of_a_transition_loses_nothing(
    fake: FakeDiscord,
    world: World,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    fail_at: int,
    mode: str,
) -> None:
    transition = TRANSITIONS[name]
    faults = Faults(monkeypatch)
    async with running_game(fake, world, tmp_path) as game:
        await transition.setup(game)
        async with faults.window(fail_at, mode):
            await transition.run(game)
        assert faults.fired, f"{name} made {faults.count} write(s); write {fail_at} never came"
        await check_storage(game)
    monkeypatch.undo()
    await fake.wait_for(lambda: not fake.sessions, what="the bot to stop")

    async with running_game(fake, world, tmp_path) as game:
        await check_storage(game)
        await plays_a_hand(game)
        await check_storage(game)


@pytest.mark.parametrize("name", list(TRANSITIONS))
async def test_each_transition_is_the_writes_it_claims(
    fake: FakeDiscord, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """One transaction per transition (two where a second transition follows from the first):
    the count the fault cases above rely on, and the promise that nothing is half-written."""
    transition = TRANSITIONS[name]
    faults = Faults(monkeypatch)
    async with running_game(fake, world, tmp_path) as game:
        await transition.setup(game)
        async with faults.window():
            reply = await transition.run(game)
        assert not reply.startswith("Something went wrong"), reply
        assert faults.count == transition.writes, (name, faults.count)
        await check_storage(game)

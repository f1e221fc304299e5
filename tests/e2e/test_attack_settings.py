"""``/poker settings`` cannot freeze a table or its chips: every option is checked against the
engine's and storage's limits (derived buy-ins included) before anything changes, and a change
that storage refuses leaves the table exactly as it was (issue 10, defect 2)."""

from __future__ import annotations

import pytest

from bot.i18n import t
from bot.storage import StorageError, tables
from tests.e2e.game_kit import STARTING_BALANCE, Game, total_chips

pytestmark = pytest.mark.timeout(60)

HUGE = 100_000_000_000  # 10**11: the default max buy-in (100 big blinds) would be 10**13
LARGEST_BIG_BLIND = "10,000,000,000"  # 100 big blinds must fit the 10**12 chip ceiling


async def _seated(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, small_blind=5, big_blind=10)


async def test_settings_beyond_storage_limits_change_nothing_between_hands(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await _seated(game)
    live_table = game.live_table()
    before = live_table.table.to_json(), live_table.config.to_json()
    refused = await game.slash(alice, "poker", "settings", small_blind=HUGE, big_blind=HUGE)
    # What the refusal protects first, then what it says.
    assert (live_table.table.to_json(), live_table.config.to_json()) == before
    assert refused.ephemeral and refused.content == t(
        "error.amount_too_large", option=t("label.big_blind"), maximum=LARGEST_BIG_BLIND
    )
    stored = await tables.get_table(game.db, live_table.table_id)
    assert (stored.min_buy_in, stored.max_buy_in) == (200, 1000)
    # The table works as before: players come and go, and the game starts on the old blinds.
    assert await game.ok(bob, "poker", "sitout") == t("reply.sat_out")
    assert await game.ok(bob, "poker", "sitin") == t("reply.sat_in")
    assert await game.ok(alice, "poker", "start") == t("reply.started")
    hand = await game.wait_hand(1)
    assert hand.config.big_blind == 10


async def test_settings_beyond_storage_limits_are_refused_during_a_hand(game: Game) -> None:
    alice = game.world.alice
    await _seated(game)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    live_table = game.live_table()
    refused = await game.slash(alice, "poker", "settings", small_blind=HUGE, big_blind=HUGE)
    assert refused.ephemeral and refused.content == t(
        "error.amount_too_large", option=t("label.big_blind"), maximum=LARGEST_BIG_BLIND
    )
    assert live_table.config.pending is None
    # The hand plays out and the next one is dealt (and stored) on the old blinds.
    await game.passive_round(1)
    await game.wait_result(1)
    hand = await game.wait_hand(2)
    assert hand.config.big_blind == 10
    assert live_table.hand_id is not None
    wallets, seats, in_hands = await total_chips(game.db, game.world.guild.id)
    assert wallets + seats + in_hands == 2 * STARTING_BALANCE


async def test_a_settings_change_storage_refuses_leaves_the_table_as_it_was(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = game.world.alice
    await _seated(game)
    live_table = game.live_table()
    before = live_table.table.to_json(), live_table.config.to_json()

    async def refuse(*args: object, **kwargs: object) -> None:
        raise StorageError("bad_json", field="config", detail="the disk is full")

    monkeypatch.setattr(tables, "update_table", refuse)
    reply = await game.slash(alice, "poker", "settings", small_blind=10, big_blind=20, timer=60)
    assert reply.ephemeral and reply.content.startswith("Something went wrong")
    assert (live_table.table.to_json(), live_table.config.to_json()) == before
    monkeypatch.undo()
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    assert hand.config.big_blind == 10


async def test_settings_made_during_a_hand_start_with_the_next_deal(game: Game) -> None:
    alice = game.world.alice
    await _seated(game)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    live_table = game.live_table()
    reply = await game.ok(alice, "poker", "settings", small_blind=10, big_blind=20)
    assert reply == t("reply.settings_next_hand")
    await game.passive_round(1)
    await game.wait_result(1)
    hand = await game.wait_hand(2)
    assert hand.config.big_blind == 20 and live_table.config.pending is None
    # The new options were stored with the deal that first used them.
    stored = await tables.get_table(game.db, live_table.table_id)
    assert stored.config["options"]["big_blind"] == 20 and stored.config["pending"] is None
    assert (stored.min_buy_in, stored.max_buy_in) == (400, 2000)

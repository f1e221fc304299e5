"""Wallets, daily bonus, grants, removals, transfers and settings, each with its ledger rows."""

from __future__ import annotations

import pytest

from bot.storage import Database, StorageError, economy
from bot.storage.economy import DEFAULT_STARTING_BALANCE

from .conftest import GUILD, assert_invariant, snapshot


async def test_wallet_created_on_first_use_with_starting_balance(db: Database) -> None:
    assert await economy.balance(db, GUILD, 7) == DEFAULT_STARTING_BALANCE
    entries = await economy.ledger_entries(db, GUILD, user_id=7)
    assert [(e.reason, e.source, e.dest, e.amount) for e in entries] == [
        ("wallet_open", "mint", "wallet:7", DEFAULT_STARTING_BALANCE)
    ]
    # Second use: same wallet, nothing minted again.
    assert await economy.open_wallet(db, GUILD, 7) == DEFAULT_STARTING_BALANCE
    assert len(await economy.ledger_entries(db, GUILD)) == 1
    await assert_invariant(db)


async def test_balance_without_create_is_unknown_user(db: Database) -> None:
    with pytest.raises(StorageError) as info:
        await economy.balance(db, GUILD, 7, create=False)
    assert info.value.code == "unknown_user"


async def test_settings_per_guild(db: Database) -> None:
    settings = await economy.update_settings(
        db, GUILD, starting_balance=500, daily_amount=50, daily_cooldown=3600
    )
    assert (settings.starting_balance, settings.daily_amount, settings.daily_cooldown) == (
        500,
        50,
        3600,
    )
    assert await economy.balance(db, GUILD, 8) == 500
    other = await economy.ensure_guild(db, 2)
    assert other.starting_balance == DEFAULT_STARTING_BALANCE
    # ensure_guild on a known guild keeps its settings.
    assert (await economy.ensure_guild(db, GUILD)).starting_balance == 500
    # A zero starting balance opens an empty wallet and mints nothing.
    await economy.update_settings(db, GUILD, starting_balance=0)
    assert await economy.balance(db, GUILD, 9) == 0
    assert await economy.ledger_entries(db, GUILD, user_id=9) == []
    await assert_invariant(db)


async def test_daily_bonus_and_cooldown(db: Database) -> None:
    await economy.update_settings(db, GUILD, daily_amount=250, daily_cooldown=1000)
    claim = await economy.claim_daily(db, GUILD, 7, now=10_000)
    assert claim.amount == 250
    assert claim.balance == DEFAULT_STARTING_BALANCE + 250
    assert claim.next_claim_at == 11_000
    with pytest.raises(StorageError) as info:
        await economy.claim_daily(db, GUILD, 7, now=10_999)
    assert info.value.code == "daily_cooldown"
    assert info.value.params["retry_at"] == 11_000
    again = await economy.claim_daily(db, GUILD, 7, now=11_000)
    assert again.balance == DEFAULT_STARTING_BALANCE + 500
    reasons = [e.reason for e in await economy.ledger_entries(db, GUILD, user_id=7)]
    assert reasons == ["daily", "daily", "wallet_open"]
    await assert_invariant(db)


async def test_daily_disabled(db: Database) -> None:
    await economy.update_settings(db, GUILD, daily_amount=0)
    with pytest.raises(StorageError) as info:
        await economy.claim_daily(db, GUILD, 7)
    assert info.value.code == "daily_disabled"


async def test_grant_and_remove(db: Database) -> None:
    assert await economy.grant(db, GUILD, 7, 500, actor_id=99, note="prize") == 10_500
    assert await economy.remove(db, GUILD, 7, 10_000, actor_id=99) == 500
    with pytest.raises(StorageError) as info:
        await economy.remove(db, GUILD, 7, 501, actor_id=99)
    assert info.value.code == "insufficient_funds"
    assert info.value.params == {"balance": 500, "amount": 501}
    entries = await economy.ledger_entries(db, GUILD, user_id=7)
    assert [(e.reason, e.source, e.dest, e.actor_id) for e in entries] == [
        ("removal", "wallet:7", "burn", 99),
        ("grant", "mint", "wallet:7", 99),
        ("wallet_open", "mint", "wallet:7", None),
    ]
    assert entries[1].note == "prize"
    await assert_invariant(db)


async def test_remove_from_unknown_user_creates_nothing(db: Database) -> None:
    before = await snapshot(db)
    with pytest.raises(StorageError) as info:
        await economy.remove(db, GUILD, 7, 1, actor_id=99)
    assert info.value.code == "unknown_user"
    assert await snapshot(db) == before


async def test_transfer(db: Database) -> None:
    result = await economy.transfer(db, GUILD, 7, 8, 1_234)
    assert (result.from_balance, result.to_balance) == (10_000 - 1_234, 10_000 + 1_234)
    received = await economy.ledger_entries(db, GUILD, user_id=8)
    assert received[0].entry_id == result.entry_id
    assert (received[0].source, received[0].dest) == ("wallet:7", "wallet:8")
    with pytest.raises(StorageError) as info:
        await economy.transfer(db, GUILD, 7, 8, 10_000)
    assert info.value.code == "insufficient_funds"
    await assert_invariant(db)


async def test_circulation_cap(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real cap (10**15) takes 1,000 maximal grants to reach; a lower one shows the same.
    monkeypatch.setattr("bot.storage.ledger.MAX_CIRCULATION", 3 * 10**12)
    for _ in range(10):
        try:
            await economy.grant(db, GUILD, 7, 10**12, actor_id=99)
        except StorageError as exc:
            assert exc.code == "circulation_full"
            break
    else:  # pragma: no cover
        pytest.fail("no cap")
    await assert_invariant(db)


async def test_a_wallet_spends_exactly_its_whole_balance_never_more(db: Database) -> None:
    # Removal, transfer and buy-in all debit through one conditional update: the whole balance
    # may go, one chip more is refused and changes nothing.
    await economy.open_wallet(db, GUILD, 7)
    assert await economy.remove(db, GUILD, 7, DEFAULT_STARTING_BALANCE, actor_id=99) == 0
    done = await economy.transfer(db, GUILD, 8, 9, DEFAULT_STARTING_BALANCE)
    assert (done.from_balance, done.to_balance) == (0, 2 * DEFAULT_STARTING_BALANCE)
    before = await snapshot(db)
    for attempt in (
        economy.remove(db, GUILD, 7, 1, actor_id=99),
        economy.transfer(db, GUILD, 9, 8, 2 * DEFAULT_STARTING_BALANCE + 1),
    ):
        with pytest.raises(StorageError) as info:
            await attempt
        assert info.value.code == "insufficient_funds"
    assert await snapshot(db) == before
    await assert_invariant(db)


async def test_chips_are_minted_up_to_exactly_the_cap_never_past(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    cap = 50_000  # the real one (10**15) behaves the same, only slower to reach
    monkeypatch.setattr("bot.storage.ledger.MAX_CIRCULATION", cap)
    await economy.open_wallet(db, GUILD, 8)
    room = cap - 2 * DEFAULT_STARTING_BALANCE
    assert await economy.grant(db, GUILD, 7, room, actor_id=99) == cap - DEFAULT_STARTING_BALANCE
    before = await snapshot(db)
    with pytest.raises(StorageError) as info:
        await economy.grant(db, GUILD, 7, 1, actor_id=99)
    assert info.value.code == "circulation_full"
    assert info.value.params["maximum"] == cap
    assert await snapshot(db) == before
    # Chips that already exist move freely: a wallet may hold all of them.
    done = await economy.transfer(db, GUILD, 8, 7, DEFAULT_STARTING_BALANCE)
    assert (done.from_balance, done.to_balance) == (0, cap)
    # One chip of room again: exactly that chip may be minted.
    await economy.remove(db, GUILD, 7, 1, actor_id=99)
    assert await economy.grant(db, GUILD, 8, 1, actor_id=99) == 1
    await assert_invariant(db)


async def test_guilds_are_separate(db: Database) -> None:
    await economy.ensure_guild(db, 2)
    await economy.transfer(db, GUILD, 7, 8, 100)
    assert await economy.balance(db, 2, 7) == DEFAULT_STARTING_BALANCE
    with pytest.raises(StorageError) as info:
        await economy.transfer(db, 3, 7, 8, 100)
    assert info.value.code == "unknown_guild"
    await assert_invariant(db)

"""The invariant check: holds through every kind of move, and catches chips that appear,
vanish or move without their ledger row."""

from __future__ import annotations

import logging

import pytest

from bot.storage import Database, StorageError, economy, invariant, tables

from .conftest import GUILD, HOST, make_table, start_simple_hand, tamper


async def _busy_guild(db: Database) -> int:
    await economy.ensure_guild(db, 2)
    await economy.transfer(db, GUILD, 101, 102, 500)
    await economy.grant(db, GUILD, 103, 70, actor_id=HOST)
    await economy.remove(db, GUILD, 103, 10, actor_id=HOST)
    await economy.transfer(db, 2, 101, 102, 1)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, 101, 1_000)
    await tables.buy_in(db, table_id, 102, 2_000)
    await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 2_000)])
    return table_id


async def test_invariant_holds_with_a_hand_running(db: Database) -> None:
    await _busy_guild(db)
    report = await invariant.verify_invariant(db)
    by_guild = {g.guild_id: g for g in report.guilds}
    g = by_guild[GUILD]
    assert (g.hands, g.seats) == (3_000, 0)
    assert g.minted == 3 * 10_000 + 70 and g.burned == 10
    assert g.held == g.ledger_total
    assert by_guild[2].ok and report.accounts == ()
    single = await invariant.check_invariant(db, guild_id=2)
    assert [x.guild_id for x in single.guilds] == [2]


@pytest.mark.parametrize(
    ("sql", "account"),
    [
        ("UPDATE wallets SET balance = balance + 1 WHERE user_id = 101", "wallet:101"),
        ("UPDATE hands SET chips = chips - 5", "hand:1"),
        ("DELETE FROM ledger WHERE reason = 'removal'", "wallet:103"),
    ],
)
async def test_broken_invariant_is_found_and_logged(
    db: Database, sql: str, account: str, caplog: pytest.LogCaptureFixture
) -> None:
    await _busy_guild(db)
    await tamper(db, sql)
    report = await invariant.check_invariant(db)
    assert not report.ok
    assert account in {a.account for a in report.accounts}
    with caplog.at_level(logging.CRITICAL), pytest.raises(StorageError) as info:
        await invariant.verify_invariant(db)
    assert info.value.code == "invariant_broken"
    assert GUILD in info.value.params["guilds"]  # type: ignore[operator]
    assert "CHIP INVARIANT BROKEN" in caplog.text


async def test_chips_moved_without_ledger_row_are_found(db: Database) -> None:
    """Totals still agree, only the per-account check sees it."""
    await _busy_guild(db)
    await tamper(db, "UPDATE wallets SET balance = balance - 7 WHERE user_id = 101")
    await tamper(db, "UPDATE wallets SET balance = balance + 7 WHERE user_id = 102")
    totals_only = await invariant.check_invariant(db, per_account=False)
    assert totals_only.ok
    report = await invariant.check_invariant(db)
    assert {a.account for a in report.accounts if a.guild_id == GUILD} == {
        "wallet:101",
        "wallet:102",
    }

"""Tournaments count against the server's table limits (``/chips settings``: tables open in
all, tables per host), checked in the transaction that creates, starts or grows one; and a
registration nobody started within the idle time is closed with every buy-in back."""

from __future__ import annotations

import pytest

from bot.storage import Database, StorageError, economy, tables, tournaments
from bot.storage.tournaments import TableOpening

from .conftest import CHANNEL, GUILD, HOST, USERS, assert_invariant, snapshot

OTHER_HOSTS = (601, 602, 603, 604)


async def create(db: Database, host: int = HOST, channel: int = CHANNEL, name: str = "Friday",
                 buy_in: int = 100, now: int = 1_000) -> int:
    info = await tournaments.create_tournament(
        db, GUILD, channel, host, name=name, kind="freeze_out", buy_in=buy_in, max_players=30,
        config={}, now=now,
    )
    return info.tournament_id


async def refused(db: Database, code: str, call: object) -> StorageError:
    before = await snapshot(db)
    with pytest.raises(StorageError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, caught.value
    assert await snapshot(db) == before
    return caught.value


def threads(first: int, count: int, table_no: int = 1) -> list[TableOpening]:
    return [TableOpening(table_no + k, first + k, 9) for k in range(count)]


async def test_one_member_cannot_open_a_tournament_in_every_channel(db: Database) -> None:
    # The issue: one member created and started 12 tournaments in 12 channels, on a server
    # allowing 10 tables in all and 2 per host (the defaults).
    opened = []
    for k in range(12):
        try:
            opened.append(await create(db, channel=CHANNEL + k, name=f"T{k}"))
        except StorageError as exc:
            assert exc.code == "too_many_hosted" and exc.params == {"maximum": 2}
    assert len(opened) == 2
    # A cash table of his counts the same way, both ways round.
    await refused(db, "too_many_hosted", tables.create_table(
        db, GUILD, CHANNEL + 50, HOST, config={}, min_buy_in=100, max_buy_in=1000,
        enforce_limits=True))
    await tournaments.cancel_tournament(db, opened[0], actor_id=HOST)
    await tables.create_table(db, GUILD, CHANNEL + 50, HOST, config={}, min_buy_in=100,
                              max_buy_in=1000, enforce_limits=True)
    await refused(db, "too_many_hosted", create(db, channel=CHANNEL + 51, name="Again"))
    await assert_invariant(db)


async def test_a_running_tournament_counts_its_tables_against_the_servers_total(
    db: Database,
) -> None:
    await economy.update_settings(db, GUILD, max_tables=4, max_tables_per_host=4)
    big = await create(db, name="Big")
    for user in USERS:
        await tournaments.register(db, big, user)
    await create(db, host=OTHER_HOSTS[0], channel=CHANNEL + 1, name="Waiting")
    # In use: one for each registering tournament. Starting gives up its own place, so four
    # tables would need 1 + 4 > 4; three fit.
    error = await refused(db, "tournament_needs_tables", tournaments.start_tournament(
        db, big, state={}, tables=threads(CHANNEL + 100, 4)))
    assert error.params == {"tables": 4, "maximum": 4, "taken": 1}
    await tournaments.start_tournament(db, big, state={}, tables=threads(CHANNEL + 100, 3))
    # Now 3 tables + 1 registering = 4: nothing more, cash table or tournament.
    await refused(db, "too_many_tables", create(db, host=OTHER_HOSTS[1], channel=CHANNEL + 2,
                                                name="Third"))
    await refused(db, "too_many_tables", tables.create_table(
        db, GUILD, CHANNEL + 3, OTHER_HOSTS[1], config={}, min_buy_in=100, max_buy_in=1000,
        enforce_limits=True))
    # A late registrant who needs a new table is refused too; one who fits is not.
    await refused(db, "too_many_tables", tournaments.register(
        db, big, 700, late=True, state={}, tables=threads(CHANNEL + 200, 1, table_no=4)))
    await tournaments.register(db, big, 700, late=True, state={})
    # A table the tournament breaks frees its place.
    await tournaments.store(db, big, tournaments.TournamentSave(state={}, closed=(3,)))
    await create(db, host=OTHER_HOSTS[1], channel=CHANNEL + 2, name="Third")
    await assert_invariant(db)


async def test_a_start_that_needs_more_tables_than_the_server_allows(db: Database) -> None:
    await economy.update_settings(db, GUILD, max_tables=2)
    tid = await create(db)
    for user in USERS[:3]:
        await tournaments.register(db, tid, user)
    await refused(db, "tournament_needs_tables", tournaments.start_tournament(
        db, tid, state={}, tables=threads(CHANNEL + 100, 3)))
    # One table at most: its own channel (no thread).
    await tournaments.start_tournament(db, tid, state={}, tables=[TableOpening(1, CHANNEL, 9)])


async def test_a_registration_nobody_starts_is_closed_after_the_idle_time(
    db: Database,
) -> None:
    old = await create(db, name="Old", now=1_000)
    await tournaments.register(db, old, USERS[0], now=1_100)
    joined = await create(db, channel=CHANNEL + 1, name="Joined", now=1_000)
    await tournaments.register(db, joined, USERS[1], now=5_000)  # somebody came lately
    scheduled = await create(db, host=OTHER_HOSTS[0], channel=CHANNEL + 2, name="Later",
                             now=1_000)
    async with db.write() as tx:
        await tx.execute("UPDATE tournaments SET starts_at = 9000 WHERE tournament_id = ?",
                         (scheduled,))
    before = await economy.balance(db, GUILD, USERS[0])
    assert await tournaments.stale_registrations(db, GUILD, 4_000) == [old]
    assert await tournaments.stale_registrations(db, GUILD, 6_000) == [old, joined]
    # Re-checked when it closes: someone registering meanwhile keeps it open.
    assert await tournaments.close_stale_registration(db, joined, 4_000) is None
    refunds = await tournaments.close_stale_registration(db, old, 4_000, now=4_000)
    assert refunds == {USERS[0]: 100}
    info = await tournaments.get_tournament(db, old)
    assert info.status == "cancelled" and info.pool == 0
    assert await economy.balance(db, GUILD, USERS[0]) == before + 100
    assert await tournaments.close_stale_registration(db, old, 4_000) is None
    # A running one is never stale.
    for user in USERS[2:]:
        await tournaments.register(db, joined, user, now=5_000)
    await tournaments.start_tournament(db, joined, state={})
    assert await tournaments.stale_registrations(db, GUILD, 10**9) == [scheduled]
    # It frees the host's place.
    await create(db, channel=CHANNEL + 3, name="Fresh")
    await assert_invariant(db)

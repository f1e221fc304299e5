"""Leases: one process per server's tables, even when several processes race for it."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import Database, StorageError, leases

GUILD = 1_000_000_001
OTHER = 1_000_000_002


async def test_a_live_lease_is_refused_to_another_owner_and_kept_by_its_own(db: Database) -> None:
    assert await leases.acquire(db, GUILD, "a", 30, now=100) is None
    assert await leases.acquire(db, GUILD, "b", 30, now=110) == "a"
    assert await leases.acquire(db, GUILD, "a", 30, now=120) is None
    assert await leases.holders(db) == {GUILD: ("a", 150)}


async def test_a_lease_that_ran_out_goes_to_whoever_asks(db: Database) -> None:
    assert await leases.acquire(db, GUILD, "a", 30, now=100) is None
    assert await leases.acquire(db, GUILD, "b", 30, now=129) == "a"
    assert await leases.acquire(db, GUILD, "b", 30, now=130) is None
    assert await leases.holders(db) == {GUILD: ("b", 160)}
    # the old owner's renewal no longer covers the server it lost
    assert await leases.renew(db, "a", 30, now=131) == set()
    assert await leases.acquire(db, GUILD, "a", 30, now=131) == "b"


async def test_renew_extends_only_the_owners_leases(db: Database) -> None:
    await leases.acquire(db, GUILD, "a", 30, now=100)
    await leases.acquire(db, OTHER, "b", 30, now=100)
    assert await leases.renew(db, "a", 30, now=120) == {GUILD}
    assert await leases.holders(db) == {GUILD: ("a", 150), OTHER: ("b", 130)}


async def test_release_gives_back_all_or_some(db: Database) -> None:
    await leases.acquire(db, GUILD, "a", 30, now=100)
    await leases.acquire(db, OTHER, "a", 30, now=100)
    await leases.release(db, "b")  # another owner's release touches nothing
    assert set(await leases.holders(db)) == {GUILD, OTHER}
    await leases.release(db, "a", [OTHER])
    assert set(await leases.holders(db)) == {GUILD}
    await leases.release(db, "a")
    assert await leases.holders(db) == {}
    assert await leases.acquire(db, GUILD, "b", 30, now=101) is None


async def test_racing_owners_never_both_win(db: Database) -> None:
    owners = [f"p{i}" for i in range(12)]
    for now in (100, 200, 300):  # each round starts after the last lease ran out
        results = await asyncio.gather(
            *(leases.acquire(db, GUILD, owner, 50, now=now) for owner in owners)
        )
        winners = [o for o, r in zip(owners, results, strict=True) if r is None]
        assert len(winners) == 1, results
        held = await leases.holders(db)
        assert held[GUILD][0] == winners[0]
        assert all(r in (None, winners[0]) for r in results)


async def test_a_lease_taken_over_by_the_asker_between_write_and_read_is_granted(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refused write and the read of the holder are two statements: another task of the
    same owner may take the lease over in between, and the asker then holds it."""
    assert await leases.acquire(db, GUILD, "dead", 30, now=100) is None
    fetchone = db.fetchone
    reads = 0

    async def read_after_a_take_over(sql: str, params: tuple[object, ...] = ()) -> object:
        nonlocal reads
        reads += 1
        if reads == 1:
            assert await leases.take_over(db, GUILD, "me", "dead", 30, now=110)
        return await fetchone(sql, params)

    monkeypatch.setattr(db, "fetchone", read_after_a_take_over)
    assert await leases.acquire(db, GUILD, "me", 30, now=110) is None
    assert reads == 1
    assert await leases.holders(db) == {GUILD: ("me", 140)}


@pytest.mark.parametrize("owner", ["", "x" * 201, None, 5])
async def test_a_bad_owner_is_refused(db: Database, owner: object) -> None:
    with pytest.raises(StorageError):
        await leases.acquire(db, GUILD, owner, 30, now=100)  # type: ignore[arg-type]
    assert await leases.holders(db) == {}

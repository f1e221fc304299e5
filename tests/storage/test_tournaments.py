"""Tournaments in storage, on both backends: buy-ins into the prize pool and back, a cancel that
refunds everyone at once, prizes paid in one transaction that must match the pool, the engine's
state kept across a restart, and every refusal leaving the database as it was."""

from __future__ import annotations

import random

import pytest

from bot.storage import Database, StorageError, economy, tournaments
from bot.storage.economy import DEFAULT_STARTING_BALANCE
from bot.storage.tournaments import Placing
from engine.tournament import BlindLevel, Tournament, TournamentConfig
from tests.engine.tournament_sim import finish_hands, play_tables

from .conftest import CHANNEL, GUILD, HOST, USERS, assert_invariant, make_table, snapshot

START = DEFAULT_STARTING_BALANCE


async def create(db: Database, *, buy_in: int = 100, channel: int = CHANNEL,
                 name: str = "Friday", max_players: int = 9) -> int:
    info = await tournaments.create_tournament(
        db, GUILD, channel, HOST, name=name, kind="freeze_out", buy_in=buy_in,
        max_players=max_players, config={"buy_in": buy_in}, now=1_000,
    )
    return info.tournament_id


async def wallet(db: Database, user: int) -> int:
    return await economy.balance(db, GUILD, user)


async def refused(db: Database, code: str, call: object) -> StorageError:
    """``call`` (an awaitable) must raise ``code`` and change nothing at all."""
    before = await snapshot(db)
    with pytest.raises(StorageError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, caught.value
    assert await snapshot(db) == before
    return caught.value


async def test_create_one_per_channel_and_per_name(db: Database) -> None:
    tid = await create(db)
    info = await tournaments.get_tournament(db, tid)
    assert (info.name, info.status, info.pool, info.entrants, info.host_id) == (
        "Friday", "registering", 0, 0, HOST
    )
    assert (await tournaments.tournament_in_channel(db, CHANNEL)) == info
    await refused(db, "channel_has_tournament", create(db, name="Other"))
    await refused(db, "tournament_name_taken", create(db, channel=CHANNEL + 1))
    await make_table(db, channel=CHANNEL + 2)
    await refused(db, "channel_has_table", create(db, channel=CHANNEL + 2, name="Cash"))
    for kwargs in (dict(name=""), dict(name="x" * 101), dict(buy_in=-1), dict(max_players=1),
                   dict(max_players=1001)):
        await refused(db, "bad_setting", create(db, channel=CHANNEL + 3, **kwargs))  # type: ignore[arg-type]
    with pytest.raises(StorageError, match="bad_setting"):
        await tournaments.create_tournament(
            db, GUILD, CHANNEL + 3, HOST, name="K", kind="sit_and_go", buy_in=1, max_players=2,
            config={},
        )
    with pytest.raises(StorageError, match="unknown_guild"):
        await tournaments.create_tournament(
            db, 77, CHANNEL + 3, HOST, name="K", kind="freeze_out", buy_in=1, max_players=2,
            config={},
        )
    # Once it is over, the channel and the name are free again.
    await tournaments.cancel_tournament(db, tid, actor_id=HOST)
    again = await create(db)
    assert (await tournaments.find_tournament(db, GUILD, "Friday")).tournament_id == again
    listed = await tournaments.list_tournaments(db, GUILD)
    assert [t.tournament_id for t in listed] == [again, tid]
    assert [t.tournament_id for t in await tournaments.list_tournaments(db, GUILD,
                                                                         open_only=True)] == [again]


async def test_buy_ins_go_to_the_prize_pool_and_back(db: Database) -> None:
    tid = await create(db, buy_in=250)
    for user in USERS[:3]:
        reg = await tournaments.register(db, tid, user, now=1_001)
        assert reg.balance == START - 250
    assert (reg.entrants, reg.pool) == (3, 750)
    await assert_invariant(db)
    await refused(db, "already_registered", tournaments.register(db, tid, USERS[0]))
    balance = await tournaments.unregister(db, tid, USERS[2], now=1_002)
    assert balance == START == await wallet(db, USERS[2])
    await refused(db, "not_registered", tournaments.unregister(db, tid, USERS[2]))
    info = await tournaments.get_tournament(db, tid)
    assert (info.entrants, info.pool) == (2, 500)
    assert [e.user_id for e in info.entries] == list(USERS[:2])
    await assert_invariant(db)
    entries = await economy.ledger_entries(db, GUILD, user_id=USERS[2])
    assert [(e.reason, e.amount, e.source, e.dest) for e in entries[:2]] == [
        ("tournament_refund", 250, f"tournament:{tid}", f"wallet:{USERS[2]}"),
        ("tournament_buy_in", 250, f"wallet:{USERS[2]}", f"tournament:{tid}"),
    ]


async def test_a_buy_in_above_the_wallet_or_past_the_last_seat_is_refused(db: Database) -> None:
    tid = await create(db, buy_in=START + 1, max_players=2)
    await economy.open_wallet(db, GUILD, USERS[0])
    error = await refused(db, "insufficient_funds", tournaments.register(db, tid, USERS[0]))
    assert error.params == {"balance": START, "amount": START + 1}
    await economy.grant(db, GUILD, USERS[0], 1, actor_id=HOST)
    await economy.grant(db, GUILD, USERS[1], 1, actor_id=HOST)
    await economy.grant(db, GUILD, USERS[2], 1, actor_id=HOST)
    await tournaments.register(db, tid, USERS[0])
    await tournaments.register(db, tid, USERS[1])
    await refused(db, "tournament_full", tournaments.register(db, tid, USERS[2]))
    await assert_invariant(db)


async def test_a_freeroll_takes_nothing(db: Database) -> None:
    tid = await create(db, buy_in=0)
    reg = await tournaments.register(db, tid, USERS[0])
    assert (reg.balance, reg.pool) == (START, 0)
    await assert_invariant(db)


async def test_start_late_registration_and_unregistering_after_the_start(db: Database) -> None:
    tid = await create(db)
    await tournaments.register(db, tid, USERS[0])
    await refused(db, "not_enough_players", tournaments.start_tournament(db, tid, state={}))
    await tournaments.register(db, tid, USERS[1])
    info = await tournaments.start_tournament(db, tid, state={"clock": 1}, now=1_100)
    assert (info.status, info.started_at, info.state) == ("running", 1_100, {"clock": 1})
    await refused(db, "already_started", tournaments.start_tournament(db, tid, state={}))
    await refused(db, "registration_closed", tournaments.register(db, tid, USERS[2]))
    await refused(db, "registration_closed", tournaments.unregister(db, tid, USERS[0]))
    reg = await tournaments.register(db, tid, USERS[2], late=True, state={"clock": 2})
    assert reg.entrants == 3
    info = await tournaments.get_tournament(db, tid)
    assert info.state == {"clock": 2} and info.entry_of(USERS[2]).late  # type: ignore[union-attr]


async def test_cancel_refunds_every_buy_in_at_any_stage(db: Database) -> None:
    for stage in ("registering", "running"):
        tid = await create(db, buy_in=300, name=stage)
        for user in USERS:
            await tournaments.register(db, tid, user)
        if stage == "running":
            await tournaments.start_tournament(db, tid, state={})
        refunds = await tournaments.cancel_tournament(db, tid, actor_id=HOST, now=1_200)
        assert refunds == {user: 300 for user in USERS}
        info = await tournaments.get_tournament(db, tid)
        assert (info.status, info.pool, info.ended_at) == ("cancelled", 0, 1_200)
        assert [await wallet(db, user) for user in USERS] == [START] * 4
        await assert_invariant(db)
        await refused(db, "tournament_over",
                      tournaments.cancel_tournament(db, tid, actor_id=HOST))
        await refused(db, "registration_closed", tournaments.register(db, tid, 999, late=True))
        await refused(db, "tournament_over", tournaments.save_state(db, tid, {}))


async def test_prizes_are_paid_in_one_transaction_and_must_match_the_pool(db: Database) -> None:
    tid = await create(db, buy_in=101)
    for user in USERS[:3]:
        await tournaments.register(db, tid, user)
    await refused(db, "not_running", tournaments.finish_tournament(db, tid, [], state={}))
    await tournaments.start_tournament(db, tid, state={})
    good = [Placing(USERS[0], 1, 1, 152), Placing(USERS[2], 2, 2, 76),
            Placing(USERS[1], 2, 2, 75)]
    await refused(db, "results_mismatch", tournaments.finish_tournament(db, tid, good[:2],
                                                                         state={}))
    twice = [*good[:2], Placing(USERS[0], 3, 1, 75)]
    await refused(db, "results_mismatch", tournaments.finish_tournament(db, tid, twice,
                                                                         state={}))
    stranger = [*good[:2], Placing(999, 3, 1, 75)]
    await refused(db, "results_mismatch", tournaments.finish_tournament(db, tid, stranger,
                                                                         state={}))
    short = [*good[:2], Placing(USERS[1], 2, 2, 74)]
    await refused(db, "prizes_mismatch", tournaments.finish_tournament(db, tid, short,
                                                                        state={}))
    info = await tournaments.finish_tournament(db, tid, good, state={"done": True}, now=2_000)
    assert (info.status, info.pool, info.state, info.ended_at) == (
        "finished", 0, {"done": True}, 2_000
    )
    assert [(e.user_id, e.place, e.tied, e.prize) for e in info.entries] == [
        (USERS[0], 1, 1, 152), (USERS[1], 2, 2, 75), (USERS[2], 2, 2, 76)
    ]
    assert [await wallet(db, u) for u in USERS[:3]] == [
        START - 101 + 152, START - 101 + 75, START - 101 + 76
    ]
    await assert_invariant(db)
    await refused(db, "tournament_over", tournaments.finish_tournament(db, tid, good, state={}))


async def test_a_whole_tournament_survives_a_restart_and_pays_what_the_engine_says(
    db_url: str,
) -> None:
    db = await Database.open(db_url)
    await economy.ensure_guild(db, GUILD, now=1_000)
    players = [200 + k for k in range(23)]
    config = TournamentConfig(
        buy_in=37, starting_stack=1_000, max_players=30, seats=9,
        levels=tuple(BlindLevel(5 * 2**k, 10 * 2**k, 10 * 2**k, minutes=3) for k in range(14)),
    )
    tid = (await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Big", kind="freeze_out", buy_in=37, max_players=30,
        config=config,
    )).tournament_id
    engine = Tournament(config, rng=11)
    for user in players:
        engine.register(user, now=0)
        await tournaments.register(db, tid, user, state=engine.to_json())
    engine.start(now=0)
    await tournaments.start_tournament(db, tid, state=engine.to_json())
    rng = random.Random(11)
    _, _, now = play_tables(engine, rng, stop_after=40)
    # Hands in progress are stored apart (as hands); here the tables are brought to rest.
    finish_hands(engine, rng, now)
    assert not engine.is_over
    engine.checkpoint(now)
    await tournaments.save_state(db, tid, engine.to_json())
    await db.close()

    # The bot comes back: the tournament is found and goes on from its saved state.
    db = await Database.open(db_url)
    try:
        (info,) = await tournaments.open_tournaments(db)
        assert info.tournament_id == tid and info.pool == 37 * 23
        engine = Tournament.from_json(info.state, rng=12)
        at_the_crash = engine.elapsed(now)
        engine.recover(now + 10_000)  # ten thousand seconds down: not charged
        assert engine.elapsed(now + 10_000) == pytest.approx(at_the_crash)
        play_tables(engine, rng, now + 10_000)
        placings = [Placing(int(s.player_id), s.place, s.tied, s.prize) for s in engine.standings]
        info = await tournaments.finish_tournament(db, tid, placings, state=engine.to_json())
        assert sum(e.prize or 0 for e in info.entries) == 37 * 23
        assert sorted(e.place or 0 for e in info.entries)[0] == 1
        assert len({e.user_id for e in info.entries}) == 23
        await assert_invariant(db)
        total = sum([await wallet(db, u) for u in players])
        assert total == START * 23
    finally:
        await db.close()

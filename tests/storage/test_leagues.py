"""Leagues in storage, on both backends: a server's own leagues, tournaments that join one at
creation, points stored with the results in one transaction (and never with a refused one),
a player's best entry, practice tournaments scoring nothing, and the standings' tie-breaks."""

from __future__ import annotations

import asyncio
import math

import pytest

from bot.storage import Database, StorageError, calendar, economy, leagues, tournaments
from bot.storage.leagues import MAX_OPEN_LEAGUES
from bot.storage.tournaments import LeagueEntry, Placing
from engine.bots.ids import bot_id

from .conftest import CHANNEL, GUILD, HOST, USERS, snapshot

OTHER_GUILD = GUILD + 1


async def refused(db: Database, code: str, call: object) -> StorageError:
    before = await snapshot(db)
    with pytest.raises(StorageError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, caught.value
    assert await snapshot(db) == before
    return caught.value


async def play(db: Database, league_id: int | None, order: list[int], *, buy_in: int = 100,
               big_blind: int = 20, name: str = "Night", now: int = 2_000,
               channel: int = CHANNEL) -> int:
    """A tournament of ``order``'s players, finished in that order (the winner first), its
    whole pool to the winner."""
    info = await tournaments.create_tournament(
        db, GUILD, channel, HOST, name=name, kind="freeze_out", buy_in=buy_in,
        max_players=9, config={}, now=now,
        league=None if league_id is None else LeagueEntry(league_id, big_blind),
    )
    tid = info.tournament_id
    for user in order:
        await tournaments.register(db, tid, user, now=now)
    await tournaments.start_tournament(db, tid, state={}, now=now)
    placings = [Placing(user, place, 1, buy_in * len(order) if place == 1 else 0)
                for place, user in enumerate(order, start=1)]
    await tournaments.finish_tournament(db, tid, placings, state={}, now=now + 100)
    return tid


def formula(n: int, k: int, b: float) -> int:
    """The standard rule written out independently (as hundredths)."""
    return round(100 * 10 * math.sqrt(n / k) * (1 + math.log10(b + 0.25)))


async def test_a_league_over_three_tournaments_scores_the_formula(db: Database) -> None:
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", now=1_000)
    a, b, c, d = USERS
    await play(db, league.league_id, [a, b, c, d], now=2_000)                  # b = 5
    await play(db, league.league_id, [b, a, c], buy_in=0, now=3_000)           # b = 0
    await play(db, league.league_id, [c, b, d, a], buy_in=300, big_blind=50, now=4_000)  # 6
    standings = await leagues.league_standings(db, league.league_id)
    expected = {
        a: formula(4, 1, 5) + formula(3, 2, 0) + formula(4, 4, 6),
        b: formula(4, 2, 5) + formula(3, 1, 0) + formula(4, 2, 6),
        c: formula(4, 3, 5) + formula(3, 3, 0) + formula(4, 1, 6),
        d: formula(4, 4, 5) + formula(4, 3, 6),
    }
    assert {s.user_id: s.points for s in standings.rows} == expected
    assert [s.user_id for s in standings.rows] == sorted(expected, key=lambda u: -expected[u])
    assert [s.rank for s in standings.rows] == [1, 2, 3, 4]
    assert standings.tournaments == 3
    assert {s.user_id: (s.played, s.best, s.wins) for s in standings.rows}[d] == (2, 3, 0)


async def test_points_are_stored_with_the_results_or_not_at_all(db: Database) -> None:
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", points="10, 5")
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Night", kind="freeze_out", buy_in=100, max_players=9,
        config={}, league=LeagueEntry(league.league_id, 20),
    )
    tid = info.tournament_id
    for user in USERS[:2]:
        await tournaments.register(db, tid, user)
    await tournaments.start_tournament(db, tid, state={})
    short = [Placing(USERS[0], 1, 1, 150), Placing(USERS[1], 2, 1, 49)]
    await refused(db, "prizes_mismatch", tournaments.finish_tournament(db, tid, short, state={}))
    assert (await leagues.league_standings(db, league.league_id)).rows == ()
    good = [Placing(USERS[0], 1, 1, 150), Placing(USERS[1], 2, 1, 50)]
    await tournaments.finish_tournament(db, tid, good, state={})
    rows = (await leagues.league_standings(db, league.league_id)).rows
    assert [(s.user_id, s.points) for s in rows] == [(USERS[0], 1000), (USERS[1], 500)]
    assert await leagues.league_of(db, tid) == league


async def test_a_players_best_entry_counts_among_all_entries(db: Database) -> None:
    """Re-entry: places are per entry; n is the entries, a player scores his best one."""
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", points="flat")
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Night", kind="freeze_out", buy_in=0, max_players=9,
        config={}, league=LeagueEntry(league.league_id, 20),
    )
    a, b, c, _ = USERS
    async with db.write() as tx:
        await leagues.award_points(tx, info.tournament_id, 0,
                                   [(a, 1, 1), (b, 2, 1), (a, 3, 1), (c, 4, 1), (b, 5, 1)], 9)
    rows = (await leagues.league_standings(db, league.league_id)).rows
    assert [(s.user_id, s.points) for s in rows] == [(a, 400), (b, 300), (c, 100)]


async def test_practice_and_unleagued_tournaments_score_nothing(db: Database) -> None:
    league = await leagues.create_league(db, GUILD, HOST, name="Spring")
    await play(db, None, list(USERS[:3]), now=2_000)
    await play(db, league.league_id, [USERS[0], bot_id(0, "regular")], buy_in=0, now=3_000,
               name="Practice")
    standings = await leagues.league_standings(db, league.league_id)
    assert standings.rows == () and standings.tournaments == 0


async def test_ties_go_to_the_best_finish_then_the_most_recent(db: Database) -> None:
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", points="10, 6, 4, 0")
    a, b, c, d = USERS
    # a: 10 + 0 = 10 (best 1st); b: 6 + 4 = 10 (best 2nd): a ahead on the best finish.
    await play(db, league.league_id, [a, c, b, d], now=2_000)
    await play(db, league.league_id, [c, b, d, a], now=3_000)
    # c: 6 + 10 = 16 and, after the third, d: 0 + 4 + 10 = 14 ...
    rows = (await leagues.league_standings(db, league.league_id)).rows
    assert [(s.user_id, s.points) for s in rows] == [(c, 1600), (a, 1000), (b, 1000), (d, 400)]
    # Equal points and best finishes (a and b both 1st once): the latest finish decides.
    league2 = await leagues.create_league(db, GUILD, HOST, name="Summer", points="5, 3")
    await play(db, league2.league_id, [a, b], now=5_000, name="N1")
    await play(db, league2.league_id, [b, a], now=6_000, name="N2")
    rows = (await leagues.league_standings(db, league2.league_id)).rows
    assert [(s.user_id, s.rank) for s in rows] == [(b, 1), (a, 2)]
    # Identical records (a shared first place) share the rank.
    league3 = await leagues.create_league(db, GUILD, HOST, name="Autumn", points="5, 3")
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="N3", kind="freeze_out", buy_in=0, max_players=9,
        config={}, league=LeagueEntry(league3.league_id, 20))
    async with db.write() as tx:
        await leagues.award_points(tx, info.tournament_id, 0, [(a, 1, 2), (b, 1, 2)], 7_000)
    rows = (await leagues.league_standings(db, league3.league_id)).rows
    assert [(s.rank, s.points) for s in rows] == [(1, 400), (1, 400)]


async def test_another_servers_league_is_nowhere_to_be_found(db: Database) -> None:
    await economy.ensure_guild(db, OTHER_GUILD, now=1_000)
    theirs = await leagues.create_league(db, OTHER_GUILD, HOST, name="Spring")
    await refused(db, "unknown_league", leagues.find_league(db, GUILD, "Spring"))
    await refused(db, "unknown_league", leagues.close_league(db, GUILD, theirs.league_id))
    await refused(db, "unknown_league", tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Night", kind="freeze_out", buy_in=0, max_players=9,
        config={}, league=LeagueEntry(theirs.league_id, 20)))
    assert await leagues.list_leagues(db, GUILD) == []
    # The same name is free here: names are each server's own.
    mine = await leagues.create_league(db, GUILD, HOST, name="Spring")
    assert (await leagues.find_league(db, GUILD, "Spring")) == mine != theirs


async def test_bad_leagues_are_refused_and_change_nothing(db: Database) -> None:
    await leagues.create_league(db, GUILD, HOST, name="Spring")
    await refused(db, "league_name_taken", leagues.create_league(db, GUILD, HOST, name="Spring"))
    for kwargs, code in [
        ({"name": ""}, "bad_league_name"),
        ({"name": "x" * 51}, "bad_league_name"),
        ({"points": "10, -5"}, "league_points_negative"),
        ({"points": "5, 10"}, "league_points_rising"),
        ({"points": ", ".join(["1"] * 1001)}, "league_too_many_places"),
        ({"starts_at": 5_000, "ends_at": 5_000}, "league_ends_before_start"),
    ]:
        args = {"name": "Other", **kwargs}
        await refused(db, code, leagues.create_league(db, GUILD, HOST, **args))  # type: ignore[arg-type]
    await refused(db, "unknown_guild", leagues.create_league(db, 77, HOST, name="X"))
    for n in range(MAX_OPEN_LEAGUES - 1):
        await leagues.create_league(db, GUILD, HOST, name=f"L{n}")
    await refused(db, "too_many_leagues", leagues.create_league(db, GUILD, HOST, name="More"))


async def test_closing_a_league(db: Database) -> None:
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", starts_at=1_500,
                                         ends_at=10_000, now=1_000)

    def night(now: int, starts: int | None = None, name: str = "Night") -> object:
        return tournaments.create_tournament(
            db, GUILD, CHANNEL, HOST, name=name, kind="freeze_out", buy_in=0, max_players=9,
            config={}, starts_at=starts, league=LeagueEntry(league.league_id, 20), now=now)

    await refused(db, "league_not_begun", night(1_200))
    await refused(db, "league_over", night(2_000, starts=10_000))
    info = await night(1_200, starts=1_600)
    await refused(db, "league_has_open_tournaments",
                  leagues.close_league(db, GUILD, league.league_id))
    await tournaments.cancel_tournament(db, info.tournament_id, actor_id=HOST)
    closed = await leagues.close_league(db, GUILD, league.league_id, now=3_000)
    assert closed.closed and closed.closed_at == 3_000
    await refused(db, "league_closed", leagues.close_league(db, GUILD, league.league_id))
    await refused(db, "league_closed", night(3_000, name="Late"))
    assert [lg.name for lg in await leagues.list_leagues(db, GUILD)] == ["Spring"]


async def test_a_reminder_and_the_missing_permission_are_told_once(db: Database) -> None:
    """The calendar's claims: a reminder goes out once per tournament, the missing Manage
    Events is told once per server, whatever runs them twice (a restart, two tasks)."""
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Night", kind="freeze_out", buy_in=0, max_players=9,
        config={})
    tid = info.tournament_id
    assert await calendar.event_of(db, tid) is None
    assert not await calendar.claim_reminder(db, tid)  # no event, nothing to remind of
    await calendar.remember_event(db, tid, 77)
    await calendar.remember_event(db, tid, 78)  # a second post is not remembered over it
    assert await calendar.event_of(db, tid) == calendar.StoredEvent(tid, 77, calendar.SCHEDULED,
                                                                    False)
    assert [await calendar.claim_reminder(db, tid) for _ in range(3)] == [True, False, False]
    await calendar.set_status(db, tid, calendar.GONE)
    assert await calendar.event_of(db, tid) == calendar.StoredEvent(tid, 77, calendar.GONE,
                                                                    True)
    assert [await calendar.claim_refusal_notice(db, GUILD, 5) for _ in range(2)] == [True, False]


async def test_a_close_racing_a_new_tournament_never_strands_it(db: Database) -> None:
    """Closing a league and opening a tournament in it at the same moment: either the
    tournament is refused, or the close is; never a closed league with an open tournament."""
    for round_no in range(6):
        league = await leagues.create_league(db, GUILD, HOST, name=f"Race {round_no}")
        opened, closed = await asyncio.gather(
            tournaments.create_tournament(
                db, GUILD, CHANNEL + 10 + round_no, HOST, name=f"Night {round_no}",
                kind="freeze_out", buy_in=0, max_players=9, config={},
                league=LeagueEntry(league.league_id, 20), enforce_limits=False),
            leagues.close_league(db, GUILD, league.league_id),
            return_exceptions=True,
        )
        outcomes = {type(opened).__name__, type(closed).__name__}
        assert outcomes in ({"TournamentInfo", "StorageError"}, {"StorageError", "League"}), (
            opened, closed)
        now_closed = (await leagues.find_league(db, GUILD, f"Race {round_no}")).closed
        assert now_closed != isinstance(closed, StorageError)
        if now_closed:
            assert isinstance(opened, StorageError) and opened.code == "league_closed"


async def test_a_tournament_ended_by_a_deal_is_kept_as_one_in_the_league(db: Database) -> None:
    """A deal's places score as places do, and the league keeps that they were a deal's."""
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", points="10, 5, 2")
    await play(db, league.league_id, list(USERS[:3]), now=2_000)
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Dealt", kind="freeze_out", buy_in=100, max_players=9,
        config={}, league=LeagueEntry(league.league_id, 20), now=3_000,
    )
    tid = info.tournament_id
    for user in USERS[:3]:
        await tournaments.register(db, tid, user, now=3_000)
    await tournaments.start_tournament(db, tid, state={}, now=3_000)
    agreed = (Placing(USERS[2], 1, 1, 140), Placing(USERS[1], 2, 1, 100),
              Placing(USERS[0], 3, 1, 60))
    await tournaments.store(db, tid, tournaments.TournamentSave(
        state={}, config={"deal": "icm"}, placings=agreed, deal=True), now=3_100)
    standings = await leagues.league_standings(db, league.league_id)
    assert (standings.tournaments, standings.deals) == (2, 1)
    assert {s.user_id: s.points for s in standings.rows} == {
        USERS[0]: 1000 + 200, USERS[1]: 500 + 500, USERS[2]: 200 + 1000}
    async with db.read() as tx:
        kept = await tx.fetchall(
            "SELECT tournament_id, deal FROM league_points ORDER BY tournament_id, user_id")
    assert {(int(t), int(d)) for t, d in kept} == {(tid - 1, 0), (tid, 1)}


async def test_places_among_re_entries_score_among_every_entry(db: Database) -> None:
    """Three players, two of whom entered again: five entries. The one who never re-entered
    went out first, fifth of five; n is five for everybody, as the rules count entries."""
    league = await leagues.create_league(db, GUILD, HOST, name="Spring", now=1_000)
    a, b, c = USERS[:3]
    info = await tournaments.create_tournament(
        db, GUILD, CHANNEL, HOST, name="Re-entry", kind="freeze_out", buy_in=100,
        max_players=9, config={}, league=LeagueEntry(league.league_id, 20), now=2_000,
    )
    tid = info.tournament_id
    for user in (a, b, c):
        await tournaments.register(db, tid, user, now=2_000)
    await tournaments.start_tournament(db, tid, state={}, now=2_000)
    for user in (a, b):
        await tournaments.register(db, tid, user, late=True, reentry=True, state={}, now=2_050)
    placings = [Placing(a, 1, 1, 500), Placing(b, 2, 1, 0), Placing(c, 5, 1, 0)]
    await tournaments.finish_tournament(db, tid, placings, state={}, now=2_100)
    rows = (await leagues.league_standings(db, league.league_id)).rows
    assert {s.user_id: s.points for s in rows} == {
        a: formula(5, 1, 5), b: formula(5, 2, 5), c: formula(5, 5, 5)}

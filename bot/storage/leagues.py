"""Leagues: a server's season of tournaments, and the points each player earned in them.

A league belongs to one server: every look-up is by server and name, so nothing of another
server's league can be read or joined. A tournament counts toward a league when it is created
with it (:func:`join_league`, in the transaction that creates the tournament: the league must be
the server's, open, and begun by the tournament's start). Its points are computed once, by the
league's rule (``engine.league``), in the transaction that records the tournament's places and
prizes (:func:`award_points`, from ``tournaments``' finish) and are never computed again.

Places are per entry; a player with several entries scores his best one, counted among all the
entries (``n`` is the entries). A tournament with a computer player in it is a practice one and
scores nothing. A league cannot close while a tournament of it is still open (it would leave
that tournament's points nowhere), and a closed league takes no new tournament.

Standings: the most points first; then the best finish; then the most recent finish, read
tournament by tournament from the latest back, the first where two players placed differently
deciding (not playing is behind every place). Players equal on all three share the rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.db import Database, Row, Tx, unix_now
from bot.storage.errors import StorageError, check_id, check_setting, from_json_text
from bot.storage.ledger import require_guild
from engine.bots.ids import is_house_or_bot
from engine.errors import EngineError
from engine.league import PointsRule, points_of, read_points

MAX_LEAGUE_NAME = 50  # heads an image and a podium: shorter than a tournament's
MAX_OPEN_LEAGUES = 25  # per server: a list and a picker a person can read
_COLUMNS = ("league_id, guild_id, host_id, title, points, starts_at, ends_at, closed,"
            " created_at, closed_at")
_BEHIND = 2**31  # a tournament he did not play: behind every place


@dataclass(frozen=True, slots=True)
class League:
    league_id: int
    guild_id: int
    host_id: int
    name: str
    points: str  # the rule's text (engine.league.PointsRule.text)
    starts_at: int | None
    ends_at: int | None
    closed: bool
    created_at: int
    closed_at: int | None

    @property
    def rule(self) -> PointsRule:
        return read_points(self.points)


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's line: ``points`` in hundredths, over ``played`` tournaments."""

    rank: int
    user_id: int
    points: int
    played: int
    best: int  # his best place
    wins: int


@dataclass(frozen=True, slots=True)
class Standings:
    league: League
    tournaments: int  # finished tournaments that scored
    rows: tuple[Standing, ...]
    deals: int = 0  # of those, how many ended by a deal among the players left


def _league(row: Row) -> League:
    return League(int(row[0]), int(row[1]), int(row[2]), str(row[3]), str(row[4]), row[5],
                  row[6], bool(row[7]), int(row[8]), row[9])


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_LEAGUE_NAME:
        raise StorageError("bad_league_name", maximum=MAX_LEAGUE_NAME)
    return name


def _rule(points: object) -> PointsRule:
    try:
        return read_points(points)
    except EngineError as exc:
        raise StorageError(exc.code, **exc.params) from None


async def create_league(
    db: Database,
    guild_id: int,
    host_id: int,
    *,
    name: str,
    points: str = "standard",
    starts_at: int | None = None,
    ends_at: int | None = None,
    now: int | None = None,
) -> League:
    """Open a league: a name the server has never used, a rule that computes, and an end
    after its start; at most ``MAX_OPEN_LEAGUES`` open at once (``too_many_leagues``)."""
    check_id(guild_id, "guild_id")
    check_id(host_id, "host_id")
    name = _check_name(name)
    rule = _rule(points)
    for moment, label in ((starts_at, "starts_at"), (ends_at, "ends_at")):
        if moment is not None:
            check_setting(moment, label, 0, 2**62)
    if starts_at is not None and ends_at is not None and ends_at <= starts_at:
        raise StorageError("league_ends_before_start", ends_at=ends_at, starts_at=starts_at)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        await require_guild(tx, guild_id)
        if await tx.scalar("SELECT 1 FROM leagues WHERE guild_id = ? AND title = ?",
                           (guild_id, name)):
            raise StorageError("league_name_taken")
        open_now = await tx.scalar(
            "SELECT COUNT(*) FROM leagues WHERE guild_id = ? AND closed = 0", (guild_id,))
        if int(open_now or 0) >= MAX_OPEN_LEAGUES:
            raise StorageError("too_many_leagues", maximum=MAX_OPEN_LEAGUES)
        league_id = await tx.insert(
            "INSERT INTO leagues (guild_id, host_id, title, points, starts_at, ends_at,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING league_id",
            (guild_id, host_id, name, rule.text, starts_at, ends_at, now),
        )
        return await _get(tx, league_id)


async def _get(tx: Tx, league_id: int) -> League:
    row = await tx.fetchone(f"SELECT {_COLUMNS} FROM leagues WHERE league_id = ?", (league_id,))
    if row is None:
        raise StorageError("unknown_league")
    return _league(row)


async def find_league(db: Database, guild_id: int, name: str) -> League:
    """The server's league of that name (``unknown_league``: none here, whatever another
    server has)."""
    check_id(guild_id, "guild_id")
    name = _check_name(name)
    row = await db.fetchone(
        f"SELECT {_COLUMNS} FROM leagues WHERE guild_id = ? AND title = ?", (guild_id, name))
    if row is None:
        raise StorageError("unknown_league")
    return _league(row)


async def list_leagues(db: Database, guild_id: int, *, limit: int = 25) -> list[League]:
    """A server's leagues: the open ones first, then the latest."""
    check_id(guild_id, "guild_id")
    check_setting(limit, "limit", 1, 100)
    rows = await db.fetchall(
        f"SELECT {_COLUMNS} FROM leagues WHERE guild_id = ?"
        " ORDER BY closed, league_id DESC LIMIT ?",
        (guild_id, limit),
    )
    return [_league(r) for r in rows]


async def close_league(
    db: Database, guild_id: int, league_id: int, *, now: int | None = None
) -> League:
    """Close a league for good: its standings stand as they are."""
    check_id(guild_id, "guild_id")
    check_id(league_id, "league_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        league = await _get(tx, league_id)
        if league.guild_id != guild_id:
            raise StorageError("unknown_league")
        # The row is written (and so locked) before the tournaments are counted: a tournament
        # joining at the same moment either committed first and is counted, or waits and
        # finds the league closed (``join_league`` writes the same row).
        if not await tx.execute(
            "UPDATE leagues SET closed = 1, closed_at = ? WHERE league_id = ? AND closed = 0",
            (now, league_id),
        ):
            raise StorageError("league_closed")
        still = await tx.scalar(
            "SELECT COUNT(*) FROM league_tournaments l JOIN tournaments t"
            " ON t.tournament_id = l.tournament_id WHERE l.league_id = ?"
            " AND t.status IN ('registering', 'running')",
            (league_id,),
        )
        if still:
            raise StorageError("league_has_open_tournaments", tournaments=int(still))
        return await _get(tx, league_id)


async def join_league(
    tx: Tx,
    guild_id: int,
    tournament_id: int,
    league_id: int,
    big_blind: int,
    starts_at: int,
) -> None:
    """In the transaction creating tournament ``tournament_id`` (of server ``guild_id``,
    starting at ``starts_at``): it counts toward the league."""
    check_id(league_id, "league_id")
    check_setting(big_blind, "big_blind", 1, 2**62)
    league = await _get(tx, league_id)
    if league.guild_id != guild_id:
        raise StorageError("unknown_league")
    if league.closed:
        raise StorageError("league_closed")
    if league.ends_at is not None and starts_at >= league.ends_at:
        raise StorageError("league_over", ends_at=league.ends_at)
    if league.starts_at is not None and starts_at < league.starts_at:
        raise StorageError("league_not_begun", starts_at=league.starts_at)
    # Written (and so locked) while still open: a close at the same moment waits for this
    # transaction and then counts this tournament (``close_league``).
    if not await tx.execute(
        "UPDATE leagues SET closed = 0 WHERE league_id = ? AND closed = 0", (league_id,)
    ):
        raise StorageError("league_closed")
    await tx.execute(
        "INSERT INTO league_tournaments (tournament_id, league_id, big_blind) VALUES (?, ?, ?)",
        (tournament_id, league_id, big_blind),
    )


async def league_of(db: Database, tournament_id: int) -> League | None:
    """The league a tournament counts toward, if any."""
    check_id(tournament_id, "tournament_id")
    row = await db.fetchone(
        f"SELECT {', '.join('l.' + c.strip() for c in _COLUMNS.split(','))}"
        " FROM leagues l JOIN league_tournaments t ON t.league_id = l.league_id"
        " WHERE t.tournament_id = ?",
        (tournament_id,),
    )
    return None if row is None else _league(row)


async def league_configs(db: Database, league_id: int, *, limit: int = 50) -> list[Any]:
    """The runtime's settings of a league's latest tournaments (the names players had)."""
    check_id(league_id, "league_id")
    check_setting(limit, "limit", 1, 1000)
    rows = await db.fetchall(
        "SELECT t.config FROM tournaments t JOIN league_tournaments l"
        " ON l.tournament_id = t.tournament_id WHERE l.league_id = ?"
        " ORDER BY t.tournament_id DESC LIMIT ?",
        (league_id, limit),
    )
    return [from_json_text(r[0]) for r in rows]


async def award_points(
    tx: Tx,
    tournament_id: int,
    buy_in: int,
    finishes: Sequence[tuple[int, int, int]],
    now: int,
    *,
    deal: bool = False,
    entries: int = 0,
) -> None:
    """In the transaction that records a tournament's results: each player's points for his
    best entry (``finishes``: one ``(user id, place, tied)`` per entry), if the tournament
    counts toward a league and no computer player played it. ``deal``: the places are those
    of a deal the players left agreed, and the league keeps that with them. ``entries``: how
    many entries the places were counted among (re-entries count; 0: one per finish)."""
    link = await tx.fetchone(
        "SELECT league_id, big_blind FROM league_tournaments WHERE tournament_id = ?",
        (tournament_id,),
    )
    if link is None or not finishes:
        return
    if any(is_house_or_bot(user) for user, _, _ in finishes):
        return  # a practice tournament: play chips, no season
    league = await _get(tx, int(link[0]))
    rule = league.rule
    entrants = max(entries, len(finishes))
    best: dict[int, tuple[int, int]] = {}
    for user, place, tied in finishes:
        if user not in best or place < best[user][0]:
            best[user] = (place, tied)
    for user, (place, tied) in sorted(best.items()):
        try:
            points = points_of(rule, entrants=entrants, place=place, tied=tied, buy_in=buy_in,
                               big_blind=int(link[1]))
        except EngineError as exc:
            raise StorageError("results_mismatch", tournament_id=tournament_id,
                               detail=exc.code) from None
        await tx.execute(
            "INSERT INTO league_points (tournament_id, user_id, league_id, place, tied,"
            " entrants, points, finished_at, deal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (tournament_id, user, league.league_id, place, tied, entrants, points, now,
             int(deal)),
        )


async def league_standings(db: Database, league_id: int) -> Standings:
    """A league's standings, best first (the ranking rules are the module's)."""
    check_id(league_id, "league_id")
    async with db.read() as tx:
        league = await _get(tx, league_id)
        rows = await tx.fetchall(
            "SELECT user_id, tournament_id, place, points, deal FROM league_points"
            " WHERE league_id = ? ORDER BY finished_at DESC, tournament_id DESC",
            (league_id,),
        )
    latest_first: list[int] = []
    by_user: dict[int, dict[int, tuple[int, int]]] = {}
    dealt: set[int] = set()
    for user, tournament, place, points, deal in rows:
        if tournament not in latest_first:
            latest_first.append(tournament)
        if deal:
            dealt.add(int(tournament))
        by_user.setdefault(int(user), {})[int(tournament)] = (int(place), int(points))

    def key(user: int) -> tuple[int, int, tuple[int, ...]]:
        finishes = by_user[user]
        total = sum(p for _, p in finishes.values())
        best = min(place for place, _ in finishes.values())
        recent = tuple(finishes.get(t, (_BEHIND, 0))[0] for t in latest_first)
        return (-total, best, recent)

    ordered = sorted(by_user, key=lambda u: (key(u), u))
    out: list[Standing] = []
    for index, user in enumerate(ordered):
        finishes = by_user[user]
        shared = index and key(ordered[index - 1]) == key(user)
        out.append(Standing(
            rank=out[-1].rank if shared else index + 1,
            user_id=user,
            points=sum(p for _, p in finishes.values()),
            played=len(finishes),
            best=min(place for place, _ in finishes.values()),
            wins=sum(1 for place, _ in finishes.values() if place == 1),
        ))
    return Standings(league, len(latest_first), tuple(out), len(dealt))


__all__ = [
    "MAX_LEAGUE_NAME",
    "MAX_OPEN_LEAGUES",
    "League",
    "Standing",
    "Standings",
    "award_points",
    "close_league",
    "create_league",
    "find_league",
    "join_league",
    "league_configs",
    "league_of",
    "league_standings",
    "list_leagues",
]

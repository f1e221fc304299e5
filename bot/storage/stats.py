"""What the bot shows about play: leaderboards, a player's statistics, a table's last hands.

All-time totals per player are kept in ``player_totals`` by the transaction that finishes each
hand, so the all-time leaderboard reads a handful of rows. A period (the last 7 or 30 days), a
player's percentages and his net over time are counted from his hands (``hand_players`` joined
with ``hands.ended_at``, both indexed for it). Only finished hands count; voided hands never do.

Only cash hands count, for every figure and every period. A tournament hand's stacks are
tournament chips, which never mix with wallet chips (its result is the tournament's places and
prizes, paid through the ledger): counted, they would show a tournament's chips as chips won or
lost, and a week would disagree with all time, whose running totals never include them. A
practice table's hands are left out for the same reason: their stacks are play chips.

The figures are about people: the house and its bots (``engine.bots.ids``) are on no
leaderboard and have no statistics (a bot's hands still count for the people he played against,
whose chips they were).

Each percentage comes with its count (a :class:`Ratio`), so "3-bet 50%" from 1 chance in 2 is
seen for the small sample it is. Hands stored before migration 0006 have no 3-bet or showdown
flags: they are unknown, left out of those denominators, never counted as "no".

All-in EV (``engine.allin_ev``, migration 0010) gives a player's all-in EV net and his luck
(:class:`AllInFigures`): over the hands whose all-in EV was counted (every hand since migration
0010); hands stored before have none and are left out of those figures, never guessed. In a
counted hand without the all-in moment, or one he folded before it, his all-in EV net is his
net (no luck), as PokerTracker counts it. The same figures in tournament chips are counted
apart (:attr:`PlayerStats.tournament_all_in`): they never mix with wallet chips.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.storage.db import Database, Tx, unix_now
from bot.storage.errors import StorageError, check_id, check_setting
from engine.bots.ids import HOUSE_ID, is_house_or_bot

DAY = 86_400


class LeaderboardKey(StrEnum):
    NET = "net"  # chips won minus chips lost over all hands
    BIGGEST_POT = "biggest_pot"  # most chips taken from pots in one hand
    HANDS_WON = "hands_won"


class Period(StrEnum):
    """How far back figures reach: a rolling window ending now, so "week" means the same to
    players in every time zone."""

    WEEK = "week"  # the last 7 days
    MONTH = "month"  # the last 30 days
    ALL = "all"

    def since(self, now: int) -> int | None:
        """The earliest end time a hand may have to count (None: every hand)."""
        days = {Period.WEEK: 7, Period.MONTH: 30}.get(self)
        return None if days is None else now - days * DAY


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int  # 1, 2, 2, 4: equal values share a rank
    user_id: int
    value: int
    hands_played: int


@dataclass(frozen=True, slots=True)
class Ratio:
    """``part`` out of ``whole`` as counted; the percentage is None when nothing was counted."""

    part: int
    whole: int

    @property
    def pct(self) -> float | None:
        """Percent to one decimal.

        >>> Ratio(1, 3).pct, Ratio(0, 0).pct
        (33.3, None)
        """
        return round(100.0 * self.part / self.whole, 1) if self.whole else None


@dataclass(frozen=True, slots=True)
class AllInFigures:
    """A player's net, all-in EV net and luck over some hands (see the module doc).

    ``hands``: his hands, ``net`` his net over them; ``counted``: those whose all-in EV was
    counted, ``counted_net`` his net over them; ``all_in_hands``: those where he was in at the
    all-in moment; ``luck``: his net minus his all-in EV net, summed over those.

    >>> figures = AllInFigures(hands=12, net=500, counted=10, counted_net=300, all_in_hands=2,
    ...                        luck=-200)
    >>> figures.ev_net, figures.unknown
    (500, 2)
    """

    hands: int = 0
    net: int = 0
    counted: int = 0
    counted_net: int = 0
    all_in_hands: int = 0
    luck: int = 0

    @property
    def ev_net(self) -> int | None:
        """All-in EV net over the counted hands (None when none was counted: unknown)."""
        return self.counted_net - self.luck if self.counted else None

    @property
    def unknown(self) -> int:
        """Hands whose all-in EV is unknown (stored before it was counted)."""
        return self.hands - self.counted


# A player's luck in one hand (on ``hp``, his row of hand_players): his net minus his all-in
# EV net when he had one, else 0.
LUCK = (
    "CASE WHEN hp.all_in_ev_net IS NULL THEN 0"
    " ELSE hp.final_stack - hp.starting_stack - hp.all_in_ev_net END"
)
# The columns of :class:`AllInFigures`, in order, summed over a player's rows (``h`` his hands).
ALL_IN_FIGURES = (
    "COUNT(*), SUM(hp.final_stack - hp.starting_stack), SUM(h.all_in_counted),"
    " SUM(CASE WHEN h.all_in_counted = 1 THEN hp.final_stack - hp.starting_stack ELSE 0 END),"
    f" COUNT(hp.all_in_ev_net), SUM({LUCK})"
)


def all_in_figures(row: Sequence[object]) -> AllInFigures:
    """:class:`AllInFigures` from the columns of :data:`ALL_IN_FIGURES`."""
    hands, net, counted, counted_net, all_in, luck = (_int(v) for v in row)
    return AllInFigures(hands, net, counted, counted_net, all_in, luck)


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's figures over a period.

    ``vpip``, ``pfr``: over his hands. ``three_bet``: 3-bets over 3-bet chances (a pre-flop turn
    facing exactly one raise). ``wtsd``: showdowns over hands in which he saw the flop.
    ``wsd``: showdowns where he took chips over showdowns. ``tracked``: his hands that carry the
    last three (every hand since migration 0006). ``net_series``: (end time, net so far) after
    each hand, oldest first, when asked for; ``ev_series``: with it, his all-in EV net so far
    after each of those hands (his net so far minus his luck so far; None where the hand's
    all-in EV is unknown). ``all_in``: his all-in EV figures over the period's cash hands;
    ``tournament_all_in``: the same over his tournament hands, in tournament chips.
    """

    guild_id: int
    user_id: int
    hands_played: int
    hands_won: int
    net: int
    biggest_pot: int
    vpip: Ratio
    pfr: Ratio
    three_bet: Ratio
    wtsd: Ratio
    wsd: Ratio
    tracked: int
    period: Period = Period.ALL
    net_series: tuple[tuple[int, int], ...] = ()
    all_in: AllInFigures = AllInFigures()
    tournament_all_in: AllInFigures = AllInFigures()
    ev_series: tuple[int | None, ...] = ()

    @property
    def vpip_pct(self) -> float:
        return self.vpip.pct or 0.0

    @property
    def pfr_pct(self) -> float:
        return self.pfr.pct or 0.0


@dataclass(frozen=True, slots=True)
class HandSummary:
    hand_id: int
    hand_no: int
    status: str
    pot: int | None
    started_at: int
    ended_at: int | None
    players: tuple[int, ...]  # user ids, by player index
    winners: tuple[int, ...]  # user ids that took chips from a pot
    biggest_win: int  # most chips one player took from the pots


def _int(value: object) -> int:
    # PostgreSQL sums BIGINTs into NUMERIC (asyncpg: Decimal); an empty sum is NULL.
    return 0 if value is None else int(value)  # type: ignore[call-overload]


def _key(by: str) -> LeaderboardKey:
    try:
        return LeaderboardKey(by)
    except ValueError:
        raise StorageError(
            "bad_setting", name="by", value=repr(by), allowed=[k.value for k in LeaderboardKey]
        ) from None


def _period(period: str) -> Period:
    try:
        return Period(period)
    except ValueError:
        raise StorageError(
            "bad_setting", name="period", value=repr(period), allowed=[p.value for p in Period]
        ) from None


# The hands statistics count: finished (never voided) cash hands. Tournament and practice
# hands are left out: their chips are tournament or play chips (``player_totals`` never counts
# them either).
_CASH_FINISHED = "h.status = 'finished' AND h.tournament_id IS NULL AND h.practice = 0"
# Rows of people: every id from the house's up is the house or one of its bots.
_PEOPLE = f"user_id < {HOUSE_ID}"

# A period's value per player, from his hands; chosen by the enum, never from the caller's text.
_PERIOD_VALUE = {
    LeaderboardKey.NET: "SUM(hp.final_stack - hp.starting_stack)",
    LeaderboardKey.BIGGEST_POT: "MAX(hp.won)",
    LeaderboardKey.HANDS_WON: "SUM(CASE WHEN hp.won > 0 THEN 1 ELSE 0 END)",
}


async def leaderboard(
    db: Database,
    guild_id: int,
    *,
    by: str = LeaderboardKey.NET,
    limit: int = 10,
    period: str = Period.ALL,
    now: int | None = None,
) -> list[LeaderboardRow]:
    """The best players of a guild by ``by`` (net, biggest_pot or hands_won) over ``period``
    (the last week, the last month, or all time)."""
    check_id(guild_id, "guild_id")
    limit = check_setting(limit, "limit", 1, 100)
    key = _key(by)
    since = _period(period).since(unix_now() if now is None else now)
    if since is None:
        rows = await db.fetchall(
            f"SELECT user_id, {key.value}, hands_played FROM player_totals WHERE guild_id = ?"
            f" AND {_PEOPLE} ORDER BY {key.value} DESC, hands_played DESC, user_id LIMIT ?",
            (guild_id, limit),
        )
    else:
        rows = await db.fetchall(
            f"SELECT hp.user_id, {_PERIOD_VALUE[key]} AS score, COUNT(*) AS played"
            " FROM hands h JOIN hand_players hp ON hp.hand_id = h.hand_id"
            f" WHERE h.guild_id = ? AND {_CASH_FINISHED} AND h.ended_at >= ? AND hp.{_PEOPLE}"
            " GROUP BY hp.user_id ORDER BY score DESC, played DESC, hp.user_id LIMIT ?",
            (guild_id, since, limit),
        )
    board: list[LeaderboardRow] = []
    for position, (user_id, raw, played) in enumerate(rows, start=1):
        value = _int(raw)
        rank = board[-1].rank if board and board[-1].value == value else position
        board.append(LeaderboardRow(rank, int(user_id), value, _int(played)))
    return board


async def player_stats(
    db: Database,
    guild_id: int,
    user_id: int,
    *,
    period: str = Period.ALL,
    series: bool = False,
    now: int | None = None,
) -> PlayerStats:
    """A player's statistics in a guild over ``period`` (zeros before his first hand), and with
    ``series`` his net after each of those hands, all from one snapshot. The house and its bots
    are ``unknown_user``: they have no statistics."""
    check_id(guild_id, "guild_id")
    check_id(user_id, "user_id")
    chosen = _period(period)
    since = chosen.since(unix_now() if now is None else now)
    async with db.read() as tx:
        # The house has a wallet, but no statistics any more than its bots.
        known = not is_house_or_bot(user_id) and (
            await tx.scalar(
                "SELECT 1 FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            ) is not None
            or await tx.scalar(
                "SELECT 1 FROM player_totals WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id),
            ) is not None
        )
        if not known:
            if await tx.scalar("SELECT 1 FROM guilds WHERE guild_id = ?", (guild_id,)) is None:
                raise StorageError("unknown_guild", guild_id=guild_id)
            raise StorageError("unknown_user", guild_id=guild_id, user_id=user_id)
        row = await tx.fetchone(
            "SELECT COUNT(*), SUM(CASE WHEN hp.won > 0 THEN 1 ELSE 0 END),"
            " SUM(hp.final_stack - hp.starting_stack), MAX(hp.won), SUM(hp.vpip), SUM(hp.pfr),"
            " COUNT(hp.three_bet_chance), SUM(hp.three_bet), SUM(hp.three_bet_chance),"
            " SUM(hp.went_to_showdown), SUM(hp.saw_flop), SUM(hp.won_at_showdown)"
            f" {_HANDS_OF_PLAYER}",
            (guild_id, user_id, since or 0),
        )
        assert row is not None  # an aggregate always gives its row
        cash = await tx.fetchone(f"SELECT {ALL_IN_FIGURES} {_HANDS_OF_PLAYER}",
                                 (guild_id, user_id, since or 0))
        played_out = await tx.fetchone(f"SELECT {ALL_IN_FIGURES} {_TOURNAMENT_HANDS_OF_PLAYER}",
                                       (guild_id, user_id, since or 0))
        assert cash is not None and played_out is not None
        points, ev_points = (
            await _net_series(tx, guild_id, user_id, since or 0) if series else ((), ())
        )
    played, won, net, biggest, vpip, pfr, tracked, three, chances, sd, flops, sd_won = (
        _int(v) for v in row
    )
    return PlayerStats(
        guild_id=guild_id,
        user_id=user_id,
        hands_played=played,
        hands_won=won,
        net=net,
        biggest_pot=biggest,
        vpip=Ratio(vpip, played),
        pfr=Ratio(pfr, played),
        three_bet=Ratio(three, chances),
        wtsd=Ratio(sd, flops),
        wsd=Ratio(sd_won, sd),
        tracked=tracked,
        period=chosen,
        net_series=points,
        all_in=all_in_figures(cash),
        tournament_all_in=all_in_figures(played_out),
        ev_series=ev_points,
    )


# A player's finished cash hands that ended at or after a time (parameters: guild, user, since).
_HANDS_OF_PLAYER = (
    "FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id"
    f" WHERE hp.guild_id = ? AND hp.user_id = ? AND {_CASH_FINISHED} AND h.ended_at >= ?"
)
# The same, of tournaments: tournament chips, only ever counted apart.
_TOURNAMENT_HANDS_OF_PLAYER = (
    "FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id"
    " WHERE hp.guild_id = ? AND hp.user_id = ? AND h.status = 'finished'"
    " AND h.tournament_id IS NOT NULL AND h.ended_at >= ?"
)


async def _net_series(
    tx: Tx, guild_id: int, user_id: int, since: int
) -> tuple[tuple[tuple[int, int], ...], tuple[int | None, ...]]:
    """His net so far after each hand, and his all-in EV net so far (None where unknown)."""
    rows = await tx.fetchall(
        f"SELECT h.ended_at, hp.final_stack - hp.starting_stack, h.all_in_counted, {LUCK}"
        f" {_HANDS_OF_PLAYER} ORDER BY h.ended_at, h.hand_id",
        (guild_id, user_id, since),
    )
    points: list[tuple[int, int]] = []
    evs: list[int | None] = []
    total = luck = 0
    for ended_at, net, counted, lucky in rows:
        total += int(net)
        luck += int(lucky)
        points.append((int(ended_at), total))
        evs.append(total - luck if counted else None)
    return tuple(points), tuple(evs)


async def recent_hands(db: Database, table_id: int, *, limit: int = 10) -> list[HandSummary]:
    """The table's latest hands, newest first (running and voided ones included)."""
    check_id(table_id, "table_id")
    limit = check_setting(limit, "limit", 1, 100)
    async with db.read() as tx:
        if await tx.scalar("SELECT 1 FROM poker_tables WHERE table_id = ?", (table_id,)) is None:
            raise StorageError("unknown_table", table_id=table_id)
        hands = await tx.fetchall(
            "SELECT hand_id, hand_no, status, pot, started_at, ended_at FROM hands"
            " WHERE table_id = ? ORDER BY hand_no DESC LIMIT ?",
            (table_id, limit),
        )
        summaries: list[HandSummary] = []
        for hand_id, hand_no, status, pot, started_at, ended_at in hands:
            players = await tx.fetchall(
                "SELECT user_id, COALESCE(won, 0) FROM hand_players WHERE hand_id = ?"
                " ORDER BY player",
                (hand_id,),
            )
            summaries.append(
                HandSummary(
                    hand_id=hand_id,
                    hand_no=hand_no,
                    status=status,
                    pot=pot,
                    started_at=started_at,
                    ended_at=ended_at,
                    players=tuple(p[0] for p in players),
                    winners=tuple(p[0] for p in players if p[1] > 0),
                    biggest_win=max((p[1] for p in players), default=0),
                )
            )
        return summaries

"""What the bot shows about play: leaderboards, a player's statistics, a table's last hands.

Totals per player are kept in ``player_totals`` by the transaction that finishes each hand, so
these queries read a handful of rows. Only finished hands count; voided hands never do.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.storage.db import Database
from bot.storage.errors import StorageError, check_id, check_setting


class LeaderboardKey(StrEnum):
    NET = "net"  # chips won minus chips lost over all hands
    BIGGEST_POT = "biggest_pot"  # most chips taken from pots in one hand
    HANDS_WON = "hands_won"


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int  # 1, 2, 2, 4: equal values share a rank
    user_id: int
    value: int
    hands_played: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    guild_id: int
    user_id: int
    hands_played: int
    hands_won: int
    net: int
    biggest_pot: int
    vpip_pct: float  # share of hands where he put chips in voluntarily pre-flop, 0..100
    pfr_pct: float  # share of hands where he raised pre-flop, 0..100


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


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


async def leaderboard(
    db: Database, guild_id: int, *, by: str = LeaderboardKey.NET, limit: int = 10
) -> list[LeaderboardRow]:
    """The best players of a guild by ``by`` (net, biggest_pot or hands_won)."""
    check_id(guild_id, "guild_id")
    limit = check_setting(limit, "limit", 1, 100)
    try:
        key = LeaderboardKey(by)
    except ValueError:
        raise StorageError(
            "bad_setting", name="by", value=repr(by), allowed=[k.value for k in LeaderboardKey]
        ) from None
    # The column name comes from the enum above, never from the caller's text.
    rows = await db.fetchall(
        f"SELECT user_id, {key.value}, hands_played FROM player_totals WHERE guild_id = ?"
        f" ORDER BY {key.value} DESC, hands_played DESC, user_id LIMIT ?",
        (guild_id, limit),
    )
    board: list[LeaderboardRow] = []
    for position, (user_id, value, played) in enumerate(rows, start=1):
        rank = board[-1].rank if board and board[-1].value == value else position
        board.append(LeaderboardRow(rank, user_id, value, played))
    return board


async def player_stats(db: Database, guild_id: int, user_id: int) -> PlayerStats:
    """A player's statistics in a guild (zeros before his first hand)."""
    check_id(guild_id, "guild_id")
    check_id(user_id, "user_id")
    async with db.read() as tx:
        row = await tx.fetchone(
            "SELECT hands_played, hands_won, net, biggest_pot, vpip_hands, pfr_hands"
            " FROM player_totals WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        if row is None:
            if await tx.scalar("SELECT 1 FROM guilds WHERE guild_id = ?", (guild_id,)) is None:
                raise StorageError("unknown_guild", guild_id=guild_id)
            known = await tx.scalar(
                "SELECT 1 FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
            )
            if known is None:
                raise StorageError("unknown_user", guild_id=guild_id, user_id=user_id)
            return PlayerStats(guild_id, user_id, 0, 0, 0, 0, 0.0, 0.0)
    played, won, net, biggest, vpip, pfr = row
    return PlayerStats(
        guild_id, user_id, played, won, net, biggest, _pct(vpip, played), _pct(pfr, played)
    )


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

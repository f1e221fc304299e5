"""Tournament chips never show in the statistics.

Tournament chips are the engine's and never mix with wallet chips, so every statistic
(``/chips stats``, the leaderboards, the chart of net over time) counts cash hands only, in
every period: the all-time figures (``player_totals``) never counted tournament hands, and a
week or a month must say the same as all time when every hand is within it.
"""

from __future__ import annotations

from bot.storage import Database, hands, stats, tables
from bot.storage.hands import PlayerResult
from bot.storage.stats import LeaderboardKey, Period

from .conftest import GUILD, USERS, make_table, start_simple_hand
from .test_tournament_hands import running


async def play_a_tournament(db: Database) -> None:
    """Four entrants at one table, all in every hand until it is over."""
    r = await running(db, seats=4)
    while not r.engine.is_over:
        hand_id, results, summary, placings = await r.all_in_hand(1)
        await hands.record_tournament_hand(db, hand_id, summary, results,
                                           save=r.save(placings=placings))


async def figures(db: Database, period: Period) -> dict[str, object]:
    """Every figure the bot shows about play over ``period``."""
    shown: dict[str, object] = {}
    for user in USERS:
        s = await stats.player_stats(db, GUILD, user, period=period, series=True)
        shown[f"stats {user}"] = (s.hands_played, s.hands_won, s.net, s.biggest_pot, s.vpip,
                                  s.pfr, s.three_bet, s.wtsd, s.wsd, s.tracked)
        shown[f"chart {user}"] = [net for _, net in s.net_series]
    for key in LeaderboardKey:
        shown[f"board {key}"] = await stats.leaderboard(db, GUILD, by=key, period=period)
    return shown


async def test_tournament_only_play_shows_no_net_chips_in_any_period(db: Database) -> None:
    await play_a_tournament(db)
    for period in Period:
        shown = await figures(db, period)
        for user in USERS:
            assert shown[f"stats {user}"][:4] == (0, 0, 0, 0), (period, user)  # type: ignore[index]
            assert shown[f"chart {user}"] == [], (period, user)
        for key in LeaderboardKey:
            assert shown[f"board {key}"] == [], (period, key)


async def test_the_periods_agree_when_every_hand_is_within_the_week(db: Database) -> None:
    await play_a_tournament(db)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, USERS[0], 1_000)
    await tables.buy_in(db, table_id, USERS[1], 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, USERS[0], 1_000), (2, USERS[1], 1_000)])
    await hands.record_hand_result(
        db, hand_id, {},
        [PlayerResult(0, 1_100, 100, 200, vpip=True, pfr=True),
         PlayerResult(1, 900, 100, 0, vpip=True, pfr=False)],
    )
    week = await figures(db, Period.WEEK)
    assert await figures(db, Period.MONTH) == week
    assert await figures(db, Period.ALL) == week
    assert week[f"chart {USERS[0]}"] == [100] and week[f"chart {USERS[1]}"] == [-100]
    board = week[f"board {LeaderboardKey.NET}"]
    assert [(row.user_id, row.value, row.hands_played) for row in board] == [  # type: ignore[attr-defined]
        (USERS[0], 100, 1), (USERS[1], -100, 1)
    ]

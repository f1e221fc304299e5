"""The standings as text: each player's line, and the tournaments a deal ended said as such."""

from __future__ import annotations

import pytest

from bot.leagues import standings_text
from bot.storage.leagues import League, Standing, Standings

LEAGUE = League(league_id=1, guild_id=2, host_id=3, name="Spring", points="standard",
                starts_at=None, ends_at=None, closed=False, created_at=0, closed_at=None)
ROWS = (Standing(rank=1, user_id=11, points=2345, played=2, best=1, wins=1),
        Standing(rank=2, user_id=12, points=1200, played=2, best=2, wins=0))


@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
def test_tournaments_ended_by_a_deal_are_said(locale: str) -> None:
    dealt = standings_text(Standings(LEAGUE, 2, ROWS, deals=1), locale)
    plain = standings_text(Standings(LEAGUE, 2, ROWS), locale)
    assert "1" in dealt.splitlines()[1] and len(dealt.splitlines()) == len(plain.splitlines()) + 1
    assert dealt.splitlines()[0] == plain.splitlines()[0]
    assert "<@11>" in plain and "23.45" in plain

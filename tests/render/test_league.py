"""The league standings image: a podium for the first three and the table below, as tall as
its rows (the rest counted), in each catalog's words, with alt text that says the same within
Discord's limit and keeps a right-to-left name from turning the sentence round."""

from __future__ import annotations

import pytest

from bot.leagues import league_labels
from bot.render import render_league
from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.league import MAX_ROWS, LeagueLine, LeagueView, draw_league, league_alt_text


def view(players: int, **changes: object) -> LeagueView:
    lines = tuple(LeagueLine(k + 1, f"Player {k + 1}", f"{100 - k}.5", 3, k + 1, int(k == 0))
                  for k in range(players))
    return LeagueView(**{"name": "Spring", "rule": "standard", "tournaments": 3,
                         "lines": lines, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [0, 1, 3, MAX_ROWS, MAX_ROWS + 1, 500])
def test_the_table_is_as_tall_as_its_rows_and_counts_the_rest(players: int) -> None:
    image = draw_league(view(players))
    rows = max(1, min(players, MAX_ROWS) + (players > MAX_ROWS))
    assert image.width == 1280
    assert image.height == draw_league(view(0)).height + (rows - 1) * 34
    text = league_alt_text(view(players))
    assert len(text) <= ALT_TEXT_LIMIT
    if players:
        assert "1. Player 1 100.5 points." in text
    else:
        assert text.endswith("No points yet.")


@pytest.mark.parametrize("tag", ["en", "zh-TW", "zh-CN"])
def test_each_language_draws_its_own_words(tag: str) -> None:
    labels = league_labels(tag)
    image = render_league(view(4), labels)
    assert image.png.startswith(b"\x89PNG") and image.filename == "league.png"
    assert labels.title.format(name="Spring") in image.alt_text
    if tag != "en":
        assert image.png != render_league(view(4)).png


def test_a_right_to_left_name_is_isolated_in_the_alt_text() -> None:
    tricky = "\u202eevil"
    text = league_alt_text(view(1, lines=(LeagueLine(1, tricky, "5", 1, 1, 1),)))
    assert f"\u2068{tricky}" in text and text.endswith("\u2069 5 points.")
    draw_league(view(1, lines=(LeagueLine(1, tricky * 20, "5", 1, 1, 1),), closed=True))

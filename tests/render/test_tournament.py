"""The tournament status board: PNGs that open at every stage and size of field, alt text that
says the same within Discord's limit, every word replaceable, and a real engine's status drawn."""

from __future__ import annotations

import dataclasses
import io
import random

import pytest
from PIL import Image

from bot.render import render_tournament, samples
from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.tournament import (
    Phase,
    PlayerLine,
    TablePanel,
    TournamentLabels,
    TournamentView,
    draw_tournament,
    tournament_alt_text,
)
from engine.structures import payouts, structure
from engine.tournament import Tournament, TournamentConfig
from tests.engine.tournament_sim import play_tables
from tests.render.tournament_views import view_from_status

BOARDS = [samples.tournament_registering, samples.tournament_running,
          samples.tournament_finished]


def crowded(tables: int, seats: int = 10, name: str = "Ｐｌａｙｅｒ with a long name 长名字") -> (
        TournamentView):
    panels = tuple(
        TablePanel(t + 1, tuple(PlayerLine(f"{name} {t}-{s}", 1_234_567 * (s + 1), s + 1)
                                for s in range(seats)), in_hand=t % 2 == 0)
        for t in range(tables)
    )
    return dataclasses.replace(
        samples.tournament_running(), tables=panels, entrants=tables * seats + 40,
        players_left=tables * seats, payouts=tuple(range(100_000, 1_000, -1_000)),
        seconds_left=5_400,
    )


def opened(png: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(png)) as img:
        img.load()
        return img.size


@pytest.mark.parametrize("factory", BOARDS)
def test_each_stage_renders_a_small_png_with_its_description(factory) -> None:  # type: ignore[no-untyped-def]
    image = render_tournament(factory())
    assert image.png.startswith(b"\x89PNG\r\n\x1a\n") and image.filename == "tournament.png"
    assert opened(image.png) == (image.width, image.height) == (1280, 640)
    assert len(image.png) <= 100 * 1024
    assert 0 < len(image.alt_text) <= ALT_TEXT_LIMIT
    assert render_tournament(factory()).png == image.png  # the same board, the same bytes


@pytest.mark.parametrize("tables", [1, 2, 4, 12, 13, 40])
def test_many_tables_fit_and_the_rest_fold_into_one_panel(tables: int) -> None:
    view = crowded(tables)
    image = render_tournament(view)
    width, height = opened(image.png)
    assert width == 1280 and 640 <= height <= 2000
    assert len(image.png) <= 250 * 1024
    assert len(image.alt_text) <= ALT_TEXT_LIMIT
    if tables >= 13:
        assert draw_tournament(view).height == draw_tournament(crowded(12)).height


def test_alt_text_names_players_when_it_can_and_counts_them_when_it_cannot() -> None:
    text = tournament_alt_text(samples.tournament_running())
    assert text.startswith("Tournament Friday Night Deepstack. Level 7: blinds 200/400, big"
                           " blind ante 400. Next level in 12 min 34 s.")
    assert "26 of 30 players left; average stack 11,538, largest 30,100 (Gustavo)." in text
    assert "Prize pool 3,000: 1. 1,050, 2. 660, 3. 450, 4. 330, 5. 270, 6. 240." in text
    assert "Table 3: Sven 8,800, Tariq 12,050" in text
    counted = tournament_alt_text(crowded(4))
    assert "Table 4: 10 players." in counted and "long name" not in counted
    bare = tournament_alt_text(crowded(40))
    assert len(bare) <= ALT_TEXT_LIMIT and "Table 1" not in bare
    assert "Ends in 1 h 30 min." in counted


def test_the_clock_states_are_drawn_and_said() -> None:
    running = samples.tournament_running()
    for changes, words in [
        (dict(paused=True), "The clock is paused."),
        (dict(on_break=True, seconds_to_next_level=300), "On a break: level 8 in 5 min 0 s."),
        (dict(time_up=True, seconds_left=0), "Time is up: the hands in progress are the last."),
        (dict(next_level=None, seconds_to_next_level=None), "26 of 30"),
        (dict(phase=Phase.CANCELLED), "Cancelled."),
    ]:
        view = dataclasses.replace(running, **changes)  # type: ignore[arg-type]
        assert words in tournament_alt_text(view)
        assert draw_tournament(view).width == 1280
    empty = dataclasses.replace(samples.tournament_registering(), registered=(), entrants=0)
    assert draw_tournament(empty).size == (1280, 640)


def test_every_word_comes_from_the_labels() -> None:
    labels = TournamentLabels(alt_title="Turnier {name}.", alt_players="{left} von {entered}",
                              thousands_separator=".", registering="Anmeldung offen")
    text = tournament_alt_text(samples.tournament_registering(), labels)
    assert text.startswith("Turnier Sunday Turbo.") and "7 von 7" in text
    assert "Anmeldung offen." in text
    drawn = draw_tournament(samples.tournament_registering(), labels)
    assert drawn.tobytes() != draw_tournament(samples.tournament_registering()).tobytes()


def test_a_running_engine_tournament_is_drawn_from_its_status() -> None:
    config = TournamentConfig(buy_in=50, starting_stack=10_000, max_players=60, seats=9,
                              levels=structure("turbo"), payouts=payouts("standard",
                                                                          max_players=60),
                              time_limit=7_200)
    t = Tournament(config, rng=5)
    names = {k: f"Player {k}" for k in range(47)}
    before = t.status(now=0)
    for k in names:
        t.register(k, now=0)
    assert view_from_status(t.status(0), names, name="Big", config=config).registered[0] == (
        "Player 0")
    t.start(now=0)
    play_tables(t, random.Random(5), stop_after=30)
    view = view_from_status(t.status(600), names, name="Big", config=config, away={3})
    assert view.phase is Phase.RUNNING and len(view.tables) in (5, 6) and before.entrants == 0
    assert sum(len(panel.players) for panel in view.tables) == view.players_left
    assert sum(view.payouts) == view.prize_pool == 47 * 50
    image = render_tournament(view)
    assert opened(image.png)[0] == 1280 and "of 47 players left" in image.alt_text
    play_tables(t, random.Random(6))
    final = view_from_status(t.status(99_999), names, name="Big", config=config)
    assert final.phase is Phase.FINISHED and len(final.standings) == 47
    assert final.standings[0].place == 1 and "Results: 1. Player" in render_tournament(
        final).alt_text

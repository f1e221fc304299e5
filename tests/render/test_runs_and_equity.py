"""A board run twice and the all-in chances: both boards fit every table size, the model
refuses what cannot have been dealt, and the chances drawn are the engine's."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from PIL import ImageChops

from bot.render import PotView, SeatState, SeatView, TableView, draw_table, render_table, samples
from bot.render.alttext import ALT_TEXT_LIMIT, table_alt_text
from bot.render.layout import BADGE_HEIGHT, CANVAS, Box, table_layout, two_runs
from bot.render.model import HOLE_COUNTS, SeatEquity
from engine.cards import parse_cards
from engine.equity import equity


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("seats", range(2, 11))
def test_two_boards_miss_every_seat(seats: int) -> None:
    """Whatever the hand's cards, no bet is out once the board is run twice, so the rows need
    only miss the seats' cards, plates, badges and markers; a results panel of three lines
    stays under the top seats. The badges keep to one line: a low hand, the first board's, is
    not drawn under a board run twice."""
    runs = two_runs()
    panel: Box = (CANVAS[0] // 2 - 220, runs.results_bottom - (12 + 3 * 32), CANVAS[0] // 2 + 220,
                  runs.results_bottom)
    pots: Box = (CANVAS[0] // 2 - 210, runs.pot_row[1] - 2 * 38 - 16, CANVAS[0] // 2 + 210,
                 runs.pot_row[1] + 16)
    for i, seat in enumerate(table_layout(seats).seats):
        for holes in HOLE_COUNTS:
            cards, plate, badge, button, blind, _bet = seat.footprint(holes, badge_lines=1)
            for mine in (cards, plate, badge, button, blind):
                for box in (*runs.footprint(), panel, pots):
                    assert not _overlap(mine, box), f"seat {i}: {mine} overlaps {box}"


def test_the_two_rows_stay_apart_and_on_the_felt() -> None:
    runs = two_runs()
    for a, b in itertools.combinations(runs.footprint(), 2):
        assert not _overlap(a, b), (a, b)
    for x0, y0, x1, y1 in runs.footprint():
        assert x0 >= 0 and x1 <= CANVAS[0] and y0 >= 0 and y1 <= CANVAS[1]
    assert runs.labels[0][1] + BADGE_HEIGHT < runs.labels[1][1]


def test_the_second_board_must_be_a_second_run_of_the_first() -> None:
    seats = (SeatView("a", 1, cards=("As", "Ah")), SeatView("b", 1))
    TableView(seats=seats, board=("2c", "3d", "4h", "5s", "6c"),
              second_board=("2c", "3d", "4h", "9s", "Tc"))
    TableView(seats=seats, board=("2c", "3d", "4h", "5s", "6c"), second_board=("2c", "3d", "4h"))
    for second in (("2c", "3d", "4h", "5s", "6c"),  # the same board is no second run
                   ("2c", "3d", "4h", "6c", "9s"),  # the first run's river again
                   ("2c", "3d", "4h", "As", "9s"),  # a hole card
                   ("2c", "3d", "4h", "9s", "9s"),
                   ("2c", "3d", "4h", "9s", "Tc", "Jc"),
                   ("2c", "3d", "4h", "9s", "1c")):
        with pytest.raises(ValueError):
            TableView(seats=seats, board=("2c", "3d", "4h", "5s", "6c"), second_board=second)


@pytest.mark.parametrize(("win", "tie"), [(-0.1, 0.0), (1.1, 0.0), (0.0, 1.2), (0.7, 0.4)])
def test_chances_must_be_chances(win: float, tie: float) -> None:
    with pytest.raises(ValueError):
        SeatEquity(win, tie)


def test_a_pot_is_settled_whole_or_on_one_run() -> None:
    with pytest.raises(ValueError):
        PotView(10, run=3)


def test_halves_of_a_pot_count_as_one_pot() -> None:
    view = samples.run_twice_showdown()
    assert view.pot_numbers == (0, 0, 1, 1)
    whole = view.whole_pots
    assert [(p.amount, p.winners) for p in whole] == [(1_800, (1, 3)), (1_800, (1, 2))]
    assert sum(p.amount for p in whole) == sum(p.amount for p in view.pots) == view.pot_total


def _figures(holes: list[str], board: str, dead: str = "") -> list[tuple[float, float, bool]]:
    found = equity([parse_cards(h) for h in holes], parse_cards(board), parse_cards(dead))
    return [(h.win, h.tie, found.exact) for h in found.hands]


def _drawn(view: TableView) -> list[tuple[float, float, bool]]:
    return [(s.equity.win, s.equity.tie, s.equity.exact)
            for s in view.seats if s is not None and s.equity is not None]


def test_the_samples_chances_are_the_engines() -> None:
    assert _drawn(samples.all_in_flop_equity()) == _figures(["AhKh", "AdKc", "JsJd"], "Th7h2c")
    assert _drawn(samples.all_in_preflop_estimate()) == _figures(["AsQs", "JhJc"], "")
    # The second run's river: the first run's own turn and river are out of the deck.
    assert _drawn(samples.run_twice_second_run()) == _figures(
        ["AsQs", "JhJc", "7c7d"], "Ks8h3d7h", dead="9cQd")


def test_the_chances_replace_the_all_in_badge_and_say_how_they_were_found() -> None:
    view = samples.all_in_flop_equity()
    plain = dataclasses.replace(view, seats=tuple(
        dataclasses.replace(s, equity=None) if s is not None else None for s in view.seats))
    assert ImageChops.difference(draw_table(view), draw_table(plain)).getbbox() is not None
    text = table_alt_text(view)
    assert "36.4% to win, 13.8% to tie" in text and "0% to win, 13.8% to tie" in text
    assert "49.7% to win;" in text and "Odds counted over every board" in text
    assert "≈" not in text and "Odds" not in table_alt_text(plain)
    estimate = table_alt_text(samples.all_in_preflop_estimate())
    assert "≈46% to win" in estimate and "Odds estimated from a sample" in estimate


def test_folded_seats_never_show_chances() -> None:
    view = samples.all_in_flop_equity()
    seats = list(view.seats)
    seats[0] = dataclasses.replace(seats[0], equity=SeatEquity(0.5, 0.0))  # type: ignore[arg-type]
    assert seats[0] is not None and seats[0].state is SeatState.FOLDED
    folded = dataclasses.replace(view, seats=tuple(seats))
    assert ImageChops.difference(draw_table(view), draw_table(folded)).getbbox() is None
    assert table_alt_text(folded).count("to win") == table_alt_text(view).count("to win")


@pytest.mark.parametrize("factory", [samples.run_twice_second_run, samples.run_twice_showdown,
                                     samples.all_in_flop_equity, samples.all_in_preflop_estimate])
@pytest.mark.parametrize("locale", ["en", "zh-TW", "zh-CN"])
def test_run_twice_and_chances_fit_the_image_and_alt_text_budgets(factory, locale: str) -> None:  # type: ignore[no-untyped-def]
    from bot.render.labels import catalog_labels

    try:
        view = factory(locale)
    except TypeError:
        view = factory()
    image = render_table(view, catalog_labels(locale))
    assert len(image.png) <= 100 * 1024
    assert 0 < len(image.alt_text) <= ALT_TEXT_LIMIT


def test_each_run_names_its_own_pots_and_hands() -> None:
    text = table_alt_text(samples.run_twice_showdown())
    assert "Run 1 board: king of spades, eight of hearts, three of diamonds, nine of clubs" in text
    assert "Run 2, Main pot 900 won by Carol." in text
    assert "Run 2, Side pot 1 900 won by Bob." in text
    assert "Run 1: Pair of sevens, king kicker, Run 2: Three of a kind, sevens" in text

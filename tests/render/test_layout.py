"""Nothing overlaps, at any table size, even with every badge, marker and bet at its widest."""

from __future__ import annotations

import itertools

import pytest

from bot.render.layout import CANVAS, Box, table_layout

# Parts of the table that are not a seat's: the header texts, and the middle of the felt
# (board, up to three rows of pots or the results panel above it).
HEADER: Box = (16, 10, 282, 104)  # up to three lines of 258 px from x = 22
STREET: Box = (950, 10, 1262, 48)


def _middle(seat_count: int) -> Box:
    layout = table_layout(seat_count)
    board = layout.board
    pots_top = layout.pot_row[1] - 2 * 38 - 16
    return (board[0][0], pots_top, board[-1][2], board[-1][3])


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("seats", range(2, 11))
def test_seats_never_overlap_each_other(seats: int) -> None:
    layout = table_layout(seats)
    for (i, a), (j, b) in itertools.combinations(enumerate(layout.seats), 2):
        for box_a in a.footprint():
            for box_b in b.footprint():
                assert not _overlap(box_a, box_b), f"seats {i} and {j}: {box_a} / {box_b}"


@pytest.mark.parametrize("seats", range(2, 11))
def test_seats_stay_clear_of_the_middle_and_the_header(seats: int) -> None:
    layout = table_layout(seats)
    for i, seat in enumerate(layout.seats):
        for box in seat.footprint():
            for other in (_middle(seats), HEADER, STREET):
                assert not _overlap(box, other), f"seat {i}: {box} overlaps {other}"


@pytest.mark.parametrize("seats", range(2, 11))
def test_everything_is_inside_the_canvas(seats: int) -> None:
    w, h = CANVAS
    for seat in table_layout(seats).seats:
        for x0, y0, x1, y1 in seat.footprint():
            assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, (x0, y0, x1, y1)


@pytest.mark.parametrize("seats", range(2, 11))
def test_a_seats_own_parts_do_not_cover_its_cards(seats: int) -> None:
    """Markers and bets stay off the visible part of the cards (the privacy tests rely on
    it), the plate covers only their lower edge."""
    for seat in table_layout(seats).seats:
        _, _, badge, button, blind, bet = seat.footprint()
        for card in seat.cards_visible:
            for box in (badge, button, blind, bet):
                assert not _overlap(card, box)


def test_unknown_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        table_layout(11)

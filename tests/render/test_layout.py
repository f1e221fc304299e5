"""Nothing overlaps, at any table size and with any hand (2, 4 or 5 cards a seat), even with
every badge, marker and bet at its widest; every card's rank and suit stay in view."""

from __future__ import annotations

import itertools

import pytest

from bot.render.layout import CANVAS, SEAT_CARD, Box, card_row, table_layout
from bot.render.model import HOLE_COUNTS
from bot.render.table import HEADER_WIDTH

# Parts of the table that are not a seat's: the header texts, and the middle of the felt
# (board, up to three rows of pots or the results panel above it).
HEADER: Box = (16, 10, 282, 104)  # up to three lines of 258 px from x = 22
# The street and the odds note under it: right-aligned at 22 px from the edge, 258 px at most.
STREET: Box = (CANVAS[0] - 22 - HEADER_WIDTH - 4, 10, CANVAS[0] - 18, 76)
SIZES = [(seats, holes) for seats in range(2, 11) for holes in HOLE_COUNTS]


def _middle(seat_count: int) -> Box:
    layout = table_layout(seat_count)
    board = layout.board
    pots_top = layout.pot_row[1] - 2 * 38 - 16
    return (board[0][0], pots_top, board[-1][2], board[-1][3])


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(("seats", "holes"), SIZES)
def test_seats_never_overlap_each_other(seats: int, holes: int) -> None:
    layout = table_layout(seats)
    for (i, a), (j, b) in itertools.combinations(enumerate(layout.seats), 2):
        for box_a in a.footprint(holes):
            for box_b in b.footprint(holes):
                assert not _overlap(box_a, box_b), f"seats {i} and {j}: {box_a} / {box_b}"


@pytest.mark.parametrize(("seats", "holes"), SIZES)
def test_seats_stay_clear_of_the_middle_and_the_header(seats: int, holes: int) -> None:
    layout = table_layout(seats)
    for i, seat in enumerate(layout.seats):
        for box in seat.footprint(holes):
            for other in (_middle(seats), HEADER, STREET):
                assert not _overlap(box, other), f"seat {i}: {box} overlaps {other}"


@pytest.mark.parametrize(("seats", "holes"), SIZES)
def test_everything_is_inside_the_canvas(seats: int, holes: int) -> None:
    w, h = CANVAS
    for seat in table_layout(seats).seats:
        for x0, y0, x1, y1 in seat.footprint(holes):
            assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, (x0, y0, x1, y1)


@pytest.mark.parametrize(("seats", "holes"), SIZES)
def test_a_seats_own_parts_do_not_cover_its_cards(seats: int, holes: int) -> None:
    """Markers and bets stay off the visible part of the cards (the privacy tests rely on
    it), the plate covers only their lower edge."""
    for seat in table_layout(seats).seats:
        _, _, badge, button, blind, bet = seat.footprint(holes)
        row = seat.cards(holes)
        assert len(row.boxes) == len(row.visible) == holes
        for card in row.visible:
            for box in (badge, button, blind, bet):
                assert not _overlap(card, box)


def _inside(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] \
        and inner[3] <= outer[3]


@pytest.mark.parametrize(("seats", "holes"), SIZES)
def test_every_cards_rank_and_suit_show(seats: int, holes: int) -> None:
    """The corner where a card's rank and suit are printed lies in its visible part: not
    under the next card, the plate, or anything else of the seat (above)."""
    for seat in table_layout(seats).seats:
        row = seat.cards(holes)
        for index, visible in zip(row.indexes, row.visible, strict=True):
            assert _inside(index, visible), (index, visible)


def test_two_cards_stand_apart_at_full_size_and_more_overlap() -> None:
    """Hold'em is drawn as it always was; Omaha's four overlap at full size, five a little
    smaller; the winning cards of an overlapping row rise instead of being ringed."""
    seat = table_layout(9).seats[0]
    two, four, five = (seat.cards(n) for n in HOLE_COUNTS)
    assert two.size == four.size == SEAT_CARD and two.lift == 0
    assert two.boxes[1][0] - two.boxes[0][2] == 4
    assert four.boxes[1][0] < four.boxes[0][2] and four.lift > 0
    assert five.size[0] < SEAT_CARD[0] and five.size[0] >= 0.8 * SEAT_CARD[0]
    for row in (two, four, five):
        assert row.boxes[0][3] == row.boxes[-1][3] == seat.plate[1] + 26  # tucked alike


@pytest.mark.parametrize("count", range(1, 8))
@pytest.mark.parametrize("width", [148, 336, 480])
def test_a_row_never_exceeds_its_width(count: int, width: int) -> None:
    row = card_row(count, (160, 224), 16, width, 500, 0)
    x0, _, x1, _ = row.extent()
    assert x1 - x0 <= max(width, 160)
    assert len(row.boxes) == count
    for index, visible in zip(row.indexes, row.visible, strict=True):
        assert _inside(index, visible)


def test_unknown_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        table_layout(11)

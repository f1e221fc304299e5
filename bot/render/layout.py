"""Where things go on the table image. Pure geometry, no drawing.

Seats sit on the rail of a racetrack table, clockwise from the top left. Each table size (2 to
10) uses hand-placed spots chosen so that no seat, its cards, its bet row or its badge overlaps
another at 10 seats; tests check that property for every size and every hand (2, 4 or 5 cards).

A seat's cards stand between its dealer button and blind marker. Two sit side by side; four or
five overlap, each over the right side of the one before, so that every card's rank and suit
(printed in its top-left corner) stays in view; five are drawn a little smaller to keep that
room. The private hole-card image lays out its cards by the same rule (:func:`card_row`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

__all__ = [
    "BOARD_CARD",
    "CANVAS",
    "RUN_CARD",
    "SEAT_CARD",
    "Box",
    "CardRow",
    "SeatGeometry",
    "TableLayout",
    "TwoRuns",
    "card_row",
    "table_layout",
    "two_runs",
]

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive)

CANVAS = (1280, 800)
CENTER = (640, 420)
RAIL: Box = (190, 140, 1090, 700)
RAIL_WIDTH = 26
BOARD_CARD = (80, 112)
BOARD_GAP = 10
SEAT_CARD = (64, 90)
SEAT_CARD_GAP = 4
PLATE = (204, 72)
CARD_TUCK = 26  # how far the cards slide under the top of the name plate
BADGE_HEIGHT = 25
BADGE_LINE = 19  # a second line in the badge: the low hand under the high one
# Where cardart prints a card's rank and suit: within its left 64 and top 120 of 160 x 224 px.
# An overlapping card leaves at least that much of the one below it in view.
INDEX_WIDTH = 0.4
INDEX_HEIGHT = 0.54
LIFT = 8  # how far a winning card rises out of an overlapping row (there is no room to ring it)

_TOP, _BOTTOM, _LEFT, _RIGHT = 130, 712, 140, 1140
_SLOTS: dict[str, tuple[int, int]] = {
    "top_left": (400, _TOP),
    "top": (640, _TOP),
    "top_right": (880, _TOP),
    "right_upper": (_RIGHT, 300),
    "right": (_RIGHT, 420),
    "right_lower": (_RIGHT, 540),
    "bottom_right": (880, _BOTTOM),
    "bottom": (640, _BOTTOM),
    "bottom_left": (400, _BOTTOM),
    "left_lower": (_LEFT, 540),
    "left": (_LEFT, 420),
    "left_upper": (_LEFT, 300),
}
# Clockwise from the top left, per table size.
_SEATINGS: dict[int, tuple[str, ...]] = {
    2: ("top", "bottom"),
    3: ("top", "right_lower", "left_lower"),
    4: ("top_left", "top_right", "bottom_right", "bottom_left"),
    5: ("top_left", "top_right", "right_lower", "bottom", "left_lower"),
    6: ("top_left", "top_right", "right", "bottom_right", "bottom_left", "left"),
    7: ("top_left", "top_right", "right_upper", "right_lower", "bottom", "left_lower",
        "left_upper"),
    8: ("top_left", "top_right", "right_upper", "right_lower", "bottom_right", "bottom_left",
        "left_lower", "left_upper"),
    9: ("top_left", "top", "top_right", "right_upper", "right_lower", "bottom_right",
        "bottom_left", "left_lower", "left_upper"),
    10: ("top_left", "top", "top_right", "right_upper", "right_lower", "bottom_right", "bottom",
         "bottom_left", "left_lower", "left_upper"),
}
# Each seat's bet (chips and amount) sits on the felt in front of it: centred under the top
# and over the bottom seats, starting beside the side seats so it never reaches the board.
_BETS: dict[str, tuple[int, int, str]] = {
    "top_left": (400, 218, "center"),
    "top": (640, 218, "center"),
    "top_right": (880, 218, "center"),
    "right_upper": (1024, 300, "right"),
    "right": (1024, 420, "right"),
    "right_lower": (1024, 540, "right"),
    "bottom_right": (880, 578, "center"),
    "bottom": (640, 578, "center"),
    "bottom_left": (400, 578, "center"),
    "left_lower": (256, 540, "left"),
    "left": (256, 420, "left"),
    "left_upper": (256, 300, "left"),
}
BET_MAX_WIDTH = 150  # chips + "9,999,999"; the overlap test reserves this much per seat
BET_HEIGHT = 30
BADGE_MAX_WIDTH = 232
MARKER = 32  # dealer button and blind marker discs
# A seat's cards stay between its markers, which sit 12 px in from the plate's ends.
SEAT_ROW_WIDTH = PLATE[0] - 2 * (12 + MARKER // 2)


@dataclass(frozen=True, slots=True)
class CardRow:
    """A hand's cards in a row.

    ``visible`` is each card's part in view: left of the next card, and above whatever covers
    the row's foot (a seat's name plate). ``lift`` is how far a highlighted card may rise when
    the cards overlap (0 when they do not: a ring round a card then marks it).
    """

    size: tuple[int, int]
    boxes: tuple[Box, ...]
    visible: tuple[Box, ...]
    lift: int

    @property
    def indexes(self) -> tuple[Box, ...]:
        """Each card's rank and suit: the corner that must stay in view."""
        w, h = self.size
        return tuple((x0, y0, x0 + math.ceil(w * INDEX_WIDTH), y0 + math.ceil(h * INDEX_HEIGHT))
                     for x0, y0, _, _ in self.boxes)

    def extent(self) -> Box:
        """The box round every card, a lifted one included (``()`` cards: an empty box)."""
        if not self.boxes:
            return (0, 0, 0, 0)
        return (self.boxes[0][0], self.boxes[0][1] - self.lift, self.boxes[-1][2],
                self.boxes[-1][3])


def _fitted(count: int, size: tuple[int, int], gap: int,
            width: int) -> tuple[tuple[int, int], int]:
    """The card size and the step from one card's left edge to the next's (see card_row)."""
    w, h = size
    if count < 2:
        return size, w + gap
    while True:
        step = min(w + gap, (width - w) // (count - 1))
        if step > math.ceil(w * INDEX_WIDTH) or w <= 8:
            return (w, round(w * h / size[0])), step
        w -= 2


def card_row(count: int, size: tuple[int, int], gap: int, width: int, center_x: int, top: int,
             covered_from: int | None = None) -> CardRow:
    """``count`` cards centred on ``center_x`` from ``top``, at most ``width`` wide in all.

    They stand ``gap`` apart when that fits. Otherwise they overlap evenly, each over the right
    side of the one before; if even then a card's rank and suit would not show, the cards are
    made smaller until they do. ``covered_from``: where something drawn over the row's foot
    begins (a name plate), which bounds the visible parts.
    """
    (w, h), step = _fitted(count, size, gap, width)
    total = w + step * (count - 1)
    x0 = center_x - total // 2
    boxes = tuple((x0 + i * step, top, x0 + i * step + w, top + h) for i in range(count))
    bottom = top + h if covered_from is None else covered_from
    # A card shows up to the left edge of the next one; the last shows whole.
    ends = [box[0] for box in boxes[1:]] + [box[2] for box in boxes[-1:]]
    visible = tuple((box[0], top, min(box[2], end), bottom)
                    for box, end in zip(boxes, ends, strict=True))
    return CardRow(size=(w, h), boxes=boxes, visible=visible, lift=LIFT if step < w else 0)


@dataclass(frozen=True, slots=True)
class SeatGeometry:
    """One seat's boxes; its cards, for any hand, come from :meth:`cards`."""

    center: tuple[int, int]
    plate: Box
    badge_center: tuple[int, int]
    bet_anchor: tuple[int, int]
    bet_align: str  # "center", "left" or "right": which end of the bet sits on the anchor
    button: tuple[int, int]  # centre of the dealer button, on the plate's top-right corner
    blind: tuple[int, int]  # centre of the blind marker, on the plate's top-left corner

    def bet_box(self, width: int = BET_MAX_WIDTH) -> Box:
        """Where a bet ``width`` pixels wide is drawn."""
        x, y = self.bet_anchor
        if self.bet_align == "left":
            x0 = x
        elif self.bet_align == "right":
            x0 = x - width
        else:
            x0 = x - width // 2
        return (x0, y - BET_HEIGHT // 2, x0 + width, y + BET_HEIGHT // 2)

    def cards(self, count: int) -> CardRow:
        """Where a hand of ``count`` cards goes: standing on the plate, its foot under it."""
        return _seat_cards(self.center[0], self.plate[1], count)

    def footprint(self, holes: int, badge_lines: int = 2) -> tuple[Box, ...]:
        """Every box this seat may draw in with a hand of ``holes`` cards, at the largest
        sizes: the cards, plate and glow, the badge (its second line holds a low hand), the
        markers and the bet."""
        half = MARKER // 2
        bx, by = self.badge_center
        return (
            self.cards(holes).extent(),
            (self.plate[0] - 14, self.plate[1] - 14, self.plate[2] + 14, self.plate[3] + 14),
            (bx - BADGE_MAX_WIDTH // 2, by - BADGE_HEIGHT // 2, bx + BADGE_MAX_WIDTH // 2,
             by + BADGE_HEIGHT // 2 + BADGE_LINE * (badge_lines - 1)),
            (self.button[0] - half, self.button[1] - half, self.button[0] + half,
             self.button[1] + half),
            (self.blind[0] - half, self.blind[1] - half, self.blind[0] + half,
             self.blind[1] + half),
            self.bet_box(),
        )


RUN_CARD = SEAT_CARD  # a run's board card: two rows of full-size cards would crowd the seats
RUN_GAP = 8  # between the cards of a row
RUN_ROW_GAP = 16  # between the two rows
RUN_LABEL = (120, 28)  # the "Run 1" pill left of each row
RUN_RESULT_WIDTH = 190  # each row's winners, right of it: clear of the side seats' plates


@dataclass(frozen=True, slots=True)
class TwoRuns:
    """The middle of the felt when the board was run twice: two rows of smaller cards, each
    with its label on the left and, once awarded, its winners on the right.

    The rows sit where the single board sits, between the side seats' bet rows; no bet is out
    when a board is run twice (betting is over), so the rows only need to miss the seats'
    plates, cards, badges and markers (the layout tests check it).
    """

    rows: tuple[tuple[Box, ...], tuple[Box, ...]]
    labels: tuple[tuple[int, int], tuple[int, int]]  # centre of each row's label pill
    results: tuple[tuple[int, int], tuple[int, int]]  # left end, baseline centre of each result
    pot_row: tuple[int, int]
    results_bottom: int

    def footprint(self) -> tuple[Box, ...]:
        """Every box the two runs may draw in: the rows, their labels and their results."""
        w, h = RUN_LABEL
        boxes: list[Box] = [(row[0][0], row[0][1], row[-1][2], row[-1][3]) for row in self.rows]
        for cx, cy in self.labels:
            boxes.append((cx - w // 2, cy - h // 2, cx + w // 2, cy + h // 2))
        for x, y in self.results:
            boxes.append((x, y - h // 2, x + RUN_RESULT_WIDTH, y + h // 2))
        return tuple(boxes)


@functools.cache
def two_runs() -> TwoRuns:
    """Where the two boards go (the same at every table size)."""
    cw, ch = RUN_CARD
    width = 5 * cw + 4 * RUN_GAP
    x0 = CENTER[0] - width // 2
    top = CENTER[1] - (2 * ch + RUN_ROW_GAP) // 2
    rows = tuple(
        tuple((x0 + i * (cw + RUN_GAP), y, x0 + i * (cw + RUN_GAP) + cw, y + ch) for i in range(5))
        for y in (top, top + ch + RUN_ROW_GAP)
    )
    middles = tuple(row[0][1] + ch // 2 for row in rows)
    label_x = x0 - 14 - RUN_LABEL[0] // 2
    result_x = x0 + width + 14
    return TwoRuns(
        rows=(rows[0], rows[1]),
        labels=((label_x, middles[0]), (label_x, middles[1])),
        results=((result_x, middles[0]), (result_x, middles[1])),
        pot_row=(CENTER[0], top - 34),
        results_bottom=top - 12,
    )


@dataclass(frozen=True, slots=True)
class TableLayout:
    seats: tuple[SeatGeometry, ...]
    board: tuple[Box, ...]
    pot_row: tuple[int, int]  # centre of the (last) pot row, just above the board
    results_bottom: int  # bottom of the results banner, which replaces the pots at the end


@functools.cache
def _seat_cards(center_x: int, plate_top: int, count: int) -> CardRow:
    # Whatever their size, the cards' foot slides CARD_TUCK under the plate.
    (_, height), _ = _fitted(count, SEAT_CARD, SEAT_CARD_GAP, SEAT_ROW_WIDTH)
    top = plate_top - (height - CARD_TUCK)
    return card_row(count, SEAT_CARD, SEAT_CARD_GAP, SEAT_ROW_WIDTH, center_x, top, plate_top)


def _seat(center: tuple[int, int], bet: tuple[int, int, str]) -> SeatGeometry:
    cx, cy = center
    pw, ph = PLATE
    plate = (cx - pw // 2, cy - ph // 2, cx + pw // 2, cy + ph // 2)
    return SeatGeometry(
        center=center,
        plate=plate,
        badge_center=(cx, plate[3] + 4),
        bet_anchor=(bet[0], bet[1]),
        bet_align=bet[2],
        button=(plate[2] - 12, plate[1] - 4),
        blind=(plate[0] + 12, plate[1] - 4),
    )


@functools.cache
def table_layout(seat_count: int) -> TableLayout:
    """The geometry for a table of ``seat_count`` seats (2..10)."""
    if seat_count not in _SEATINGS:
        raise ValueError(f"no layout for {seat_count} seats")
    seats = tuple(_seat(_SLOTS[name], _BETS[name]) for name in _SEATINGS[seat_count])
    cw, ch = BOARD_CARD
    total = 5 * cw + 4 * BOARD_GAP
    x0 = CENTER[0] - total // 2
    y0 = CENTER[1] - ch // 2
    board = tuple(
        (x0 + i * (cw + BOARD_GAP), y0, x0 + i * (cw + BOARD_GAP) + cw, y0 + ch) for i in range(5)
    )
    return TableLayout(seats=seats, board=board, pot_row=(CENTER[0], y0 - 34),
                       results_bottom=y0 - 12)

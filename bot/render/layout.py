"""Where things go on the table image. Pure geometry, no drawing.

Seats sit on the rail of a racetrack table, clockwise from the top left. Each table size (2 to
10) uses hand-placed spots chosen so that no seat, its cards, its bet row or its badge overlaps
another at 10 seats; tests check that property for every size.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

__all__ = [
    "BOARD_CARD",
    "CANVAS",
    "RUN_CARD",
    "SEAT_CARD",
    "Box",
    "SeatGeometry",
    "TableLayout",
    "TwoRuns",
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


@dataclass(frozen=True, slots=True)
class SeatGeometry:
    """One seat's boxes. ``cards_visible`` are the parts of the cards not under the plate."""

    center: tuple[int, int]
    plate: Box
    cards: tuple[Box, Box]
    cards_visible: tuple[Box, Box]
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

    def footprint(self) -> tuple[Box, ...]:
        """Every box this seat may draw in, at the largest sizes: for overlap checks."""
        half = MARKER // 2
        bx, by = self.badge_center
        return (
            (self.cards[0][0], self.cards[0][1], self.cards[1][2], self.cards[1][3]),
            (self.plate[0] - 14, self.plate[1] - 14, self.plate[2] + 14, self.plate[3] + 14),
            (bx - BADGE_MAX_WIDTH // 2, by - BADGE_HEIGHT // 2, bx + BADGE_MAX_WIDTH // 2,
             by + BADGE_HEIGHT // 2),
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


def _seat(center: tuple[int, int], bet: tuple[int, int, str]) -> SeatGeometry:
    cx, cy = center
    pw, ph = PLATE
    plate = (cx - pw // 2, cy - ph // 2, cx + pw // 2, cy + ph // 2)
    cw, ch = SEAT_CARD
    top = plate[1] - (ch - CARD_TUCK)
    left = cx - cw - SEAT_CARD_GAP // 2
    right = cx + SEAT_CARD_GAP // 2
    cards = ((left, top, left + cw, top + ch), (right, top, right + cw, top + ch))
    visible = tuple((b[0], b[1], b[2], plate[1]) for b in cards)
    return SeatGeometry(
        center=center,
        plate=plate,
        cards=cards,
        cards_visible=(visible[0], visible[1]),
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

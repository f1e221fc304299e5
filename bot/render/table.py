"""The public table image.

Drawing is mostly pasting: the felt, name plates, pills, discs and cards are sprites made once
(anti-aliased by drawing at 4x and scaling down), and text comes from the cached masks of
:mod:`bot.render.fonts`. That is what keeps a 9-seat table under its time budget.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from bot.render import assets
from bot.render.fonts import TextSprite, Weight, draw_text, text_sprite
from bot.render.labels import DEFAULT_LABELS, Labels, format_percent, format_tie, short_chips
from bot.render.layout import (
    BADGE_HEIGHT,
    BADGE_LINE,
    BADGE_MAX_WIDTH,
    BET_MAX_WIDTH,
    BOARD_CARD,
    CANVAS,
    MARKER,
    PLATE,
    RAIL,
    RAIL_WIDTH,
    RUN_CARD,
    RUN_LABEL,
    RUN_RESULT_WIDTH,
    Box,
    SeatGeometry,
    table_layout,
    two_runs,
)
from bot.render.model import Blind, SeatEquity, SeatState, SeatView, Street, TableView
from bot.render.theme import FELT_RAMP, RAIL_RAMP, RGB, ROOM_RAMP, through_ramp

__all__ = ["draw_table"]

RGBA = tuple[int, int, int, int]
SS = 4  # supersampling factor for sprites

WHITE: RGB = (244, 244, 240)
SOFT: RGB = (200, 206, 212)
DIM: RGB = (132, 138, 146)
GOLD: RGB = (255, 204, 77)
INK: RGB = (24, 20, 12)

PILL_DARK: RGBA = (10, 14, 18, 200)
BADGE_COLORS: dict[str, tuple[RGBA, RGB]] = {
    "all_in": ((200, 36, 50, 255), WHITE),
    "folded": ((86, 92, 100, 255), WHITE),
    "sitting_out": ((86, 92, 100, 255), WHITE),
    "away": ((214, 138, 20, 255), INK),
    "to_act": ((44, 178, 236, 255), INK),
    "winner": ((240, 188, 52, 255), INK),
    "shown": ((54, 66, 86, 255), WHITE),
    "mucked": ((86, 92, 100, 255), WHITE),
    "equity": ((54, 66, 86, 255), GOLD),
}
TO_ACT_RING: RGB = (64, 196, 255)
WINNER_RING: RGB = (255, 200, 60)

NAME_SIZE = 24
STACK_SIZE = 24
BADGE_SIZE = 17
BET_SIZE = 20
POT_SIZE = 22
HEADER_SIZE = 22
RESULT_SIZE = 22
HEADER_WIDTH = 258  # clear of the top-left seat's blind marker
POTS_WIDTH = 420  # pots stay between the side seats' bets
POT_ROWS = 3
POT_ROW_STEP = 38
POT_PILL_HEIGHT = 32
RESULT_WIDTH = 440  # the board's width: the panel stays clear of the side seats' bets
RUN_SIZE = 18  # a run's label and its winners, beside its row of cards


# --- sprites ---------------------------------------------------------------------------------


def _supersampled(size: tuple[int, int],
                  paint: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    big = Image.new("RGBA", (size[0] * SS, size[1] * SS), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), SS)
    return big.resize(size, Image.Resampling.LANCZOS)


@functools.lru_cache(maxsize=512)
def rounded_sprite(width: int, height: int, radius: int, fill: RGBA,
                   outline: RGBA | None = None, line: int = 0) -> Image.Image:
    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        d.rounded_rectangle((0, 0, width * s - 1, height * s - 1), radius=radius * s, fill=fill,
                            outline=outline, width=line * s)

    return _supersampled((width, height), paint)


def _pill(canvas: Image.Image, center: tuple[float, float], width: int, height: int,
          color: RGBA, radius: int | None = None) -> Box:
    """A rounded box, its ends fully round unless ``radius`` says otherwise."""
    width = -(-width // 4) * 4  # widths in steps of 4 px keep the sprite cache small
    sprite = rounded_sprite(width, height, height // 2 if radius is None else radius, color)
    x0 = round(center[0] - width / 2)
    y0 = round(center[1] - height / 2)
    canvas.paste(sprite, (x0, y0), sprite)
    return (x0, y0, x0 + width, y0 + height)


GLOW = 14  # how far the glow of a highlighted plate reaches past it


@functools.cache
def _glow(color: RGB) -> tuple[tuple[Image.Image, tuple[int, int]], ...]:
    """The glow round a plate, as the four strips that show (the opaque plate hides the rest:
    blending those pixels would be wasted work)."""
    m = GLOW
    w, h = PLATE[0] + 2 * m, PLATE[1] + 2 * m
    img = Image.new("RGBA", (w, h), (*color, 0))
    ImageDraw.Draw(img).rounded_rectangle((m - 3, m - 3, w - m + 2, h - m + 2), radius=16,
                                          fill=(*color, 230))
    img = img.filter(ImageFilter.GaussianBlur(6))
    # The plate's rounded corners let some glow through: strips overlap the plate by its radius.
    r = 14
    boxes = ((0, 0, w, m + r), (0, h - m - r, w, h), (0, m + r, m + r, h - m - r),
             (w - m - r, m + r, w, h - m - r))
    return tuple((img.crop(b), (b[0] - m, b[1] - m)) for b in boxes)


@functools.cache
def _plate(kind: str) -> Image.Image:
    w, h = PLATE
    fills = {
        "normal": ((16, 20, 26, 255), (84, 96, 110, 255), 2),
        "dim": ((24, 27, 32, 255), (56, 62, 70, 255), 2),
        "to_act": ((14, 26, 36, 255), (*TO_ACT_RING, 255), 4),
        "winner": ((34, 27, 10, 255), (*WINNER_RING, 255), 4),
        "empty": ((0, 0, 0, 70), (255, 255, 255, 50), 2),
    }
    fill, outline, line = fills[kind]
    return rounded_sprite(w, h, 14, fill, outline, line)


@functools.cache
def _chip_icon() -> Image.Image:
    # A short stack of casino chips: red, then white-edged dark rims, viewed slightly from above.
    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        for i, (body, edge) in enumerate((((30, 30, 36), (230, 230, 230)),
                                          ((190, 30, 40), (250, 236, 236)),
                                          ((30, 90, 180), (236, 240, 250)))):
            y = (14 - i * 5) * s
            d.ellipse((1 * s, y, 23 * s, y + 10 * s), fill=(*body, 255), outline=(*edge, 255),
                      width=2 * s)
    return _supersampled((24, 26), paint)


@functools.lru_cache(maxsize=32)
def _disc(text: str, fill: RGB, ink: RGB, diameter: int = 32) -> Image.Image:
    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        d.ellipse((0, 2 * s, (diameter - 2) * s, diameter * s), fill=(0, 0, 0, 110))
        d.ellipse((0, 0, (diameter - 2) * s, (diameter - 2) * s), fill=(*fill, 255),
                  outline=(*_shade(fill, 0.7), 255), width=2 * s)

    img = _supersampled((diameter, diameter), paint)
    size = 18 if len(text) == 1 else 13
    draw_text(img, ((diameter - 2) / 2, (diameter - 2) / 2 + size * 0.36), text, size, ink,
              align="center", max_width=diameter - 6)
    return img


def _shade(color: RGB, factor: float) -> RGB:
    return (round(color[0] * factor), round(color[1] * factor), round(color[2] * factor))


@functools.lru_cache(maxsize=8)
def _card_ring(size: tuple[int, int]) -> Image.Image:
    w, h = size[0] + 8, size[1] + 8
    return rounded_sprite(w, h, max(6, size[0] // 10), (0, 0, 0, 0), (*WINNER_RING, 255), 3)


def _stadium(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float],
             outline: int = 0) -> None:
    """A racetrack: a rectangle with fully rounded ends, filled, or outlined ``outline`` px."""
    radius = (box[3] - box[1]) / 2
    if outline:
        draw.rounded_rectangle(box, radius=radius, outline=255, width=outline)
    else:
        draw.rounded_rectangle(box, radius=radius, fill=255)


def _scaled(img: Image.Image, factor: float) -> Image.Image:
    return img.point(lambda v: round(v * factor))


@functools.cache
def _background(runs: int = 1) -> Image.Image:
    """Room, rail, felt and the empty board slots: the same for every table, drawn once (and
    once more with two rows of slots, for a board run twice).

    Each surface is a brightness map sent through its ramp, so shadows, the betting line and
    the board slots are all drawn in the ramp's own shades.
    """
    w, h = CANVAS

    def stadium_mask(box: tuple[float, float, float, float], outline: int = 0) -> Image.Image:
        m = Image.new("L", (w * 2, h * 2), 0)
        big = (box[0] * 2, box[1] * 2, box[2] * 2, box[3] * 2)
        _stadium(ImageDraw.Draw(m), big, outline * 2)
        return m.resize((w, h), Image.Resampling.LANCZOS)

    x0, y0, x1, y1 = RAIL
    # Room: lit from above, the table casting a soft shadow.
    room = ImageChops.invert(Image.linear_gradient("L").resize((w, h)))
    room = _scaled(room, 0.85).point(lambda v: v + 38)
    shadow = stadium_mask((x0 - 8, y0 + 6, x1 + 8, y1 + 18)).filter(ImageFilter.GaussianBlur(7))
    room = ImageChops.subtract(room, _scaled(shadow, 0.75))
    bg = through_ramp(room, ROOM_RAMP)
    # Rail: darker toward the bottom, a lit bevel along its top edge.
    rail = _scaled(ImageChops.invert(Image.linear_gradient("L").resize((w, h))), 0.7)
    bevel = ImageChops.subtract(stadium_mask((x0 + 2, y0 + 2, x1 - 2, y1 - 2)),
                                stadium_mask((x0 + 6, y0 + 6, x1 - 6, y1 - 6)))
    rail = ImageChops.add(rail, _scaled(bevel, 0.3))
    bg.paste(through_ramp(rail, RAIL_RAMP), (0, 0), stadium_mask(RAIL))
    # Felt: brightest in the middle, shaded under the rail, a printed betting line, board slots.
    inner = (x0 + RAIL_WIDTH, y0 + RAIL_WIDTH, x1 - RAIL_WIDTH, y1 - RAIL_WIDTH)
    fw, fh = inner[2] - inner[0], inner[3] - inner[1]
    radial = Image.radial_gradient("L").resize((fw, fh), Image.Resampling.BILINEAR)
    felt = Image.new("L", (w, h), 0)
    felt.paste(ImageChops.invert(radial), (inner[0], inner[1]))
    felt = _scaled(felt, 0.62).point(lambda v: v + 70)
    felt_mask = stadium_mask(inner)
    depth = ImageChops.multiply(ImageChops.invert(felt_mask.filter(ImageFilter.GaussianBlur(6))),
                                felt_mask)
    felt = ImageChops.subtract(felt, _scaled(depth, 0.7))
    line = (inner[0] + 34, inner[1] + 30, inner[2] - 34, inner[3] - 30)
    felt = ImageChops.add(felt, _scaled(stadium_mask(line, outline=2), 0.22))
    slots = Image.new("L", (w, h), 0)
    size, boxes = (BOARD_CARD, table_layout(2).board) if runs == 1 else (
        RUN_CARD, two_runs().rows[0] + two_runs().rows[1])
    slot = rounded_sprite(size[0], size[1], 8, (255, 255, 255, 20), (255, 255, 255, 70), 2)
    for box in boxes:
        slots.paste(slot.getchannel("A"), box[:2])
    felt = ImageChops.add(felt, slots)
    bg.paste(through_ramp(felt, FELT_RAMP), (0, 0), felt_mask)
    return bg


# --- pieces ----------------------------------------------------------------------------------


def _header(canvas: Image.Image, view: TableView, labels: Labels) -> None:
    """Hand number and stakes in the top-left corner, the street in the top-right one."""
    lines: list[tuple[str, int, RGB, Weight]] = []
    if view.hand_number is not None:
        lines.append((labels.hand.format(n=view.hand_number), HEADER_SIZE, WHITE, Weight.BOLD))
    if view.big_blind:
        lines.append((labels.blinds.format(sb=labels.chips(view.small_blind),
                                           bb=labels.chips(view.big_blind)),
                      HEADER_SIZE - 2, SOFT, Weight.REGULAR))
    if view.ante:
        lines.append((labels.ante.format(ante=labels.chips(view.ante)), HEADER_SIZE - 2, SOFT,
                      Weight.REGULAR))
    for i, (text, size, colour, weight) in enumerate(lines):
        draw_text(canvas, (22, 38 + 27 * i), text, size, colour, weight=weight,
                  max_width=HEADER_WIDTH)
    draw_text(canvas, (CANVAS[0] - 22, 38), labels.street(view.street), HEADER_SIZE + 4, WHITE,
              align="right", max_width=HEADER_WIDTH)
    exact = equity_exact(view)
    if exact is not None:
        # Under the street: whether the seats' chances were counted or estimated.
        note = labels.equity_exact if exact else labels.equity_estimate
        draw_text(canvas, (CANVAS[0] - 22, 67), note, HEADER_SIZE - 2, GOLD,
                  weight=Weight.REGULAR, align="right", max_width=HEADER_WIDTH)


def equity_exact(view: TableView) -> bool | None:
    """Whether the chances drawn were all counted exactly (``None``: no chances drawn)."""
    shown = [seat.equity for seat in view.seats if seat is not None and seat.equity is not None]
    if not shown:
        return None
    return all(equity.exact for equity in shown)


def equity_words(equity: SeatEquity, labels: Labels) -> str:
    """A seat's chances in the badge's few words: "Win 45.2% · Tie 1.3%" (no tie: none said)."""
    win = format_percent(equity.win, equity.exact)
    tie = format_tie(equity.tie, equity.exact)
    if tie is None:
        return labels.equity.format(win=win)
    return labels.equity_tie.format(win=win, tie=tie)


def _highlight_set(view: TableView, run: int = 1) -> frozenset[str]:
    """Cards in some winner's best five: ringed in gold; the rest of the board is dimmed.

    Run twice, each row rings the best fives of the players who won on that run.
    """
    cards: set[str] = set()
    for i in range(view.seat_count):
        cards.update(winning_cards(view, i, run))
    return frozenset(cards)


def winning_cards(view: TableView, index: int, run: int = 1) -> frozenset[str]:
    """The cards of seat ``index``'s hands that won on ``run``'s board: its best five, and
    its low five where it took a low half; its best five alone where no pot names it."""
    seat = view.seats[index]
    if seat is None or not seat.is_winner or not seat.shows_faces:
        return frozenset()
    if view.runs == 2 and index not in run_winners(view, run):
        return frozenset()
    halves = {pot.half for pot in view.pots if index in pot.winners and pot.run in (0, run)}
    cards = set(seat.second_best_five if run == 2 else seat.best_five)
    if halves == {"low"}:
        cards.clear()  # he won with his low only: his high hand took nothing
    if "low" in halves and view.runs == 1:
        cards.update(seat.low_five)
    return frozenset(cards)


def run_winners(view: TableView, run: int) -> tuple[int, ...]:
    """The seats that won (a share of) some pot on ``run``, in seat order; a pot only one
    player could win is not halved and counts for both runs."""
    found = {w for pot in view.pots if pot.run in (0, run) for w in pot.winners}
    return tuple(sorted(found))


def _paste_card(canvas: Image.Image, card: str | None, box: Box, view: TableView,
                size: tuple[int, int], highlight: frozenset[str], dim_others: bool,
                lift: int = 0) -> None:
    """One card; one in ``highlight`` is ringed in gold, or raised by ``lift`` in a row of
    overlapping cards (where a ring would cross the corner of the card before it), and with
    ``dim_others`` the cards not in it are dimmed."""
    raised = lift if card is not None and card in highlight else 0
    assets.blit(canvas, assets.card_image(card, view.deck, size), (box[0], box[1] - raised))
    if card is None or not highlight:
        return
    if card in highlight:
        if not lift:
            ring = _card_ring(size)
            canvas.paste(ring, (box[0] - 4, box[1] - 4), ring)
    elif dim_others:
        canvas.paste((0, 0, 0), box[:2], assets.card_alpha(size, 120))


def _board(canvas: Image.Image, view: TableView, boxes: tuple[Box, ...],
           highlight: frozenset[str]) -> None:
    for card, box in zip(view.board, boxes, strict=False):
        _paste_card(canvas, card, box, view, BOARD_CARD, highlight, dim_others=True)


def _two_boards(canvas: Image.Image, view: TableView, labels: Labels, highlight: bool) -> None:
    """Both runs' boards, one row each, labelled on the left; once the pots are awarded, each
    row names its winners on the right (and their hand, when one player took the run)."""
    geometry = two_runs()
    for run, (board, boxes) in enumerate(zip((view.board, view.second_board), geometry.rows,
                                             strict=True), start=1):
        rings = _highlight_set(view, run) if highlight else frozenset()
        for card, box in zip(board, boxes, strict=False):
            _paste_card(canvas, card, box, view, RUN_CARD, rings, dim_others=True)
        lx, ly = geometry.labels[run - 1]
        _pill(canvas, (lx, ly), RUN_LABEL[0], RUN_LABEL[1], PILL_DARK)
        draw_text(canvas, (lx, ly + 6), labels.run.format(n=run), RUN_SIZE, SOFT,
                  align="center", max_width=RUN_LABEL[0] - 12)
        names, hand = _run_result(view, run, labels)
        rx, ry = geometry.results[run - 1]
        if hand:
            # Two lines, the names over the hand: one line of 190 px holds neither a long
            # name nor a long hand next to the other.
            draw_text(canvas, (rx, ry - 4), names, RUN_SIZE + 2, GOLD, max_width=RUN_RESULT_WIDTH)
            draw_text(canvas, (rx, ry + 20), hand, RUN_SIZE - 1, SOFT, weight=Weight.REGULAR,
                      max_width=RUN_RESULT_WIDTH)
        elif names:
            draw_text(canvas, (rx, ry + 7), names, RUN_SIZE + 2, GOLD, max_width=RUN_RESULT_WIDTH)


def _run_result(view: TableView, run: int, labels: Labels) -> tuple[str, str]:
    """The names of a run's winners, and the hand that won it when one player did."""
    winners = [seat for w in run_winners(view, run) if (seat := view.seats[w]) is not None]
    names = labels.name_separator.join(seat.name for seat in winners)
    if len(winners) != 1 or not winners[0].shows_faces:
        return names, ""
    seat = winners[0]
    hand = (seat.second_hand_label or seat.second_hand_name) if run == 2 else seat.drawn_hand
    return names, hand


PotPill = tuple[TextSprite, TextSprite, int]  # label, amount, width


def _pack(entries: list[tuple[str, int]], labels: Labels) -> list[list[PotPill]]:
    rows: list[list[PotPill]] = [[]]
    width = 0
    for name, amount in entries:
        label = text_sprite(name, POT_SIZE - 2, Weight.REGULAR, 150)
        value = text_sprite(short_chips(amount, labels.thousands_separator), POT_SIZE)
        pill = (label, value, 24 + 6 + label.width + 8 + value.width + 22)
        if rows[-1] and width + 10 + pill[2] > POTS_WIDTH:
            rows.append([])
            width = 0
        width += pill[2] + (10 if rows[-1] else 0)
        rows[-1].append(pill)
    return rows


def _pot_rows(entries: list[tuple[str, int]], labels: Labels) -> list[list[PotPill]]:
    """Pot pills in at most POT_ROWS centred rows; the last side pots fold into one "+N more"
    pill when they do not fit (the alt text still lists every pot)."""
    shown = len(entries)
    while True:
        rest = entries[shown:]
        head = entries[:shown]
        if rest:
            head = [*head, (labels.more_pots.format(n=len(rest)), sum(a for _, a in rest))]
        rows = _pack(head, labels)
        if len(rows) <= POT_ROWS or shown <= 1:
            return rows[:POT_ROWS]
        shown -= 1


def _pots(canvas: Image.Image, view: TableView, center: tuple[int, int], labels: Labels) -> None:
    pots = view.whole_pots
    count = len(pots)
    entries = [(labels.pot_label(i, count, pot.label), pot.amount)
               for i, pot in enumerate(pots) if pot.amount > 0]
    if not entries:
        return
    rows = _pot_rows(entries, labels)
    cx, cy = center
    chip = _chip_icon()
    for r, row in enumerate(rows):
        y = cy - (len(rows) - 1 - r) * POT_ROW_STEP
        x = cx - (sum(p[2] for p in row) + 10 * (len(row) - 1)) / 2
        for label, value, width in row:
            _pill(canvas, (x + width / 2, y), width, POT_PILL_HEIGHT, PILL_DARK)
            canvas.paste(chip, (round(x + 8), round(y - 14)), chip)
            nx = x + 8 + 24 + 6
            draw_text(canvas, (nx, y + 7), label.text, POT_SIZE - 2, SOFT, weight=Weight.REGULAR)
            draw_text(canvas, (nx + label.width + 8, y + 8), value.text, POT_SIZE, GOLD)
            x += width + 10


def _badge(canvas: Image.Image, seat: SeatView, geo: SeatGeometry, labels: Labels,
           view: TableView) -> None:
    """One pill under the plate, the most useful fact first: mucked, the shown hand (gold for
    a winner), the hand's chances while cards are to come, the seat's state, or that it is his
    turn; a shown low hand adds a second line under the high one. When the board was run
    twice, a hand differs from run to run: the rows of cards name each run's winning hand, and
    a winner's badge says only that he won (and no low, which is the first board's)."""
    two_runs_result = view.runs == 2 and view.has_results
    text, kind = "", ""
    hand = seat.drawn_hand if seat.shows_faces and not two_runs_result else ""
    low = labels.low_hand.format(hand=seat.low_hand) if seat.shown_low(view.runs) else ""
    if seat.mucked:
        text, kind = labels.mucked, "mucked"
    elif seat.is_winner or hand or low:
        text = hand or ("" if low else labels.winner)
        kind = "winner" if seat.is_winner else "shown"
    elif seat.equity is not None and seat.shows_faces:
        text, kind = equity_words(seat.equity, labels), "equity"
    elif seat.state is not SeatState.ACTIVE:
        text, kind = labels.state(seat.state), seat.state.value
    elif seat.to_act:
        text, kind = labels.to_act, "to_act"
    lines = [line for line in (text, low) if line]
    if not lines:
        return
    fill, ink = BADGE_COLORS[kind]
    sprites = [text_sprite(line, BADGE_SIZE, Weight.BOLD, BADGE_MAX_WIDTH - 24) for line in lines]
    width = max(max(sprite.width for sprite in sprites) + 22, 70)
    extra = BADGE_LINE * (len(lines) - 1)
    cx, cy = geo.badge_center
    _pill(canvas, (cx, cy + extra / 2), width, BADGE_HEIGHT + extra, fill,
          radius=BADGE_HEIGHT // 2)
    for i, sprite in enumerate(sprites):
        draw_text(canvas, (cx, cy + 6 + BADGE_LINE * i), sprite.text, BADGE_SIZE, ink,
                  align="center")


def _markers(canvas: Image.Image, seat: SeatView, geo: SeatGeometry, labels: Labels) -> None:
    discs = []
    if seat.is_button:
        discs.append((_disc(labels.dealer_marker, (250, 250, 246), (20, 20, 20)), geo.button))
    if seat.blind is Blind.SMALL:
        discs.append((_disc(labels.small_blind_marker, (70, 140, 230), WHITE), geo.blind))
    elif seat.blind is Blind.BIG:
        discs.append((_disc(labels.big_blind_marker, (240, 170, 40), INK), geo.blind))
    for disc, (cx, cy) in discs:
        canvas.paste(disc, (cx - MARKER // 2, cy - MARKER // 2), disc)


def _bet(canvas: Image.Image, seat: SeatView, geo: SeatGeometry, labels: Labels) -> None:
    if seat.bet <= 0:
        return
    amount = text_sprite(short_chips(seat.bet, labels.thousands_separator), BET_SIZE)
    width = min(BET_MAX_WIDTH, 26 + 6 + amount.width + 14)
    x0, y0, x1, y1 = geo.bet_box(width)
    cy = (y0 + y1) / 2
    _pill(canvas, ((x0 + 8 + x1) / 2, cy), x1 - x0 - 8, y1 - y0, PILL_DARK)
    chip = _chip_icon()
    canvas.paste(chip, (x0, round(cy - 14)), chip)
    draw_text(canvas, (x0 + 30, cy + 7), amount.text, BET_SIZE, WHITE,
              max_width=BET_MAX_WIDTH - 44)


def _seat(canvas: Image.Image, index: int, geo: SeatGeometry, view: TableView,
          labels: Labels, run: int = 1) -> None:
    """One seat; ``run``: the board whose best five his cards are ringed for (run twice, the
    run he won on, the first when he won on both)."""
    seat = view.seats[index]
    cx = geo.center[0]
    px, py = geo.plate[0], geo.plate[1]
    if seat is None:
        plate = _plate("empty")
        canvas.paste(plate, (px, py), plate)
        draw_text(canvas, (cx, py + 44), labels.empty_seat, 20, DIM, align="center",
                  weight=Weight.REGULAR, max_width=PLATE[0] - 20)
        return
    inactive = seat.state in (SeatState.FOLDED, SeatState.SITTING_OUT, SeatState.AWAY)
    if seat.is_winner:
        kind = "winner"
    elif seat.to_act:
        kind = "to_act"
    elif inactive or seat.mucked:
        kind = "dim"
    else:
        kind = "normal"
    if kind in ("winner", "to_act"):
        # Under the cards: the glow frames the plate without veiling the cards' corners.
        for strip, (dx, dy) in _glow(WINNER_RING if kind == "winner" else TO_ACT_RING):
            canvas.paste(strip, (px + dx, py + dy), strip)
    cards = seat.visible_cards
    row = geo.cards(len(cards))
    won = winning_cards(view, index, run)
    for card, box in zip(cards, row.boxes, strict=True):
        _paste_card(canvas, card, box, view, row.size, won, dim_others=bool(won), lift=row.lift)
    assets.blit(canvas, _plate(kind), (px, py))
    faded = kind == "dim"
    draw_text(canvas, (cx, py + 29), seat.name, NAME_SIZE, DIM if faded else WHITE,
              align="center", max_width=PLATE[0] - 22)
    draw_text(canvas, (cx, py + 57), short_chips(seat.stack, labels.thousands_separator),
              STACK_SIZE, _shade(GOLD, 0.62) if faded else GOLD, align="center",
              max_width=PLATE[0] - 22)
    _markers(canvas, seat, geo, labels)
    _badge(canvas, seat, geo, labels, view)


def _results(canvas: Image.Image, view: TableView, bottom: int, labels: Labels) -> None:
    """Who won which pot, in a gold-framed panel above the board (it replaces the pots row;
    a pot not yet awarded is listed with its amount alone)."""
    lines = []
    pots = view.whole_pots
    count = len(pots)

    def names(winners: tuple[int, ...]) -> str:
        return labels.name_separator.join(
            s.name for w in winners if (s := view.seats[w]) is not None)

    for i, (pot, (high, low)) in enumerate(zip(pots, view.whole_pot_halves, strict=True)):
        name = labels.pot_label(i, count, pot.label)
        amount = short_chips(pot.amount, labels.thousands_separator)
        if low:
            lines.append(labels.won_by_hi_lo.format(pot=name, amount=amount, high=names(high),
                                                    low=names(low)))
        elif pot.winners:
            lines.append(labels.won_by.format(pot=name, amount=amount, names=names(pot.winners)))
        elif pot.amount:
            lines.append(labels.pot_amount.format(pot=name, amount=amount))
    if len(lines) > 3:
        lines = [*lines[:2], labels.more_pots.format(n=len(lines) - 2)]
    sprites = [text_sprite(line, RESULT_SIZE, Weight.BOLD, RESULT_WIDTH - 32) for line in lines]
    width = max(s.width for s in sprites) + 32
    height = 12 + 32 * len(lines)
    panel = rounded_sprite(-(-width // 4) * 4, height, 14, (10, 14, 18, 215),
                           (*WINNER_RING, 170), 2)
    top = bottom - height
    canvas.paste(panel, (round(CANVAS[0] / 2 - panel.width / 2), top), panel)
    for i, sprite in enumerate(sprites):
        draw_text(canvas, (CANVAS[0] / 2, top + 29 + 32 * i), sprite.text, RESULT_SIZE, GOLD,
                  align="center")


def draw_table(view: TableView, labels: Labels = DEFAULT_LABELS) -> Image.Image:
    """The table as an RGB image of :data:`bot.render.layout.CANVAS` size."""
    layout = table_layout(view.seat_count)
    canvas = _background(view.runs).copy()
    _header(canvas, view, labels)
    results = view.has_results
    highlight = results or view.street in (Street.SHOWDOWN, Street.COMPLETE)
    if view.runs == 2:
        _two_boards(canvas, view, labels, highlight)
        first = set(run_winners(view, 1))
        runs = [2 if i not in first else 1 for i in range(view.seat_count)]
        pot_row, results_bottom = two_runs().pot_row, two_runs().results_bottom
    else:
        _board(canvas, view, layout.board, _highlight_set(view) if highlight else frozenset())
        runs = [1] * view.seat_count
        pot_row, results_bottom = layout.pot_row, layout.results_bottom
    for index, (geo, run) in enumerate(zip(layout.seats, runs, strict=True)):
        _seat(canvas, index, geo, view, labels, run)
    for seat, geo in zip(view.seats, layout.seats, strict=True):
        if seat is not None:
            _bet(canvas, seat, geo, labels)
    if results:
        _results(canvas, view, results_bottom, labels)
    else:
        _pots(canvas, view, pot_row, labels)
    return canvas

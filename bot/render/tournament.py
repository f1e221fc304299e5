"""The tournament status board: one image and the same facts as text for screen readers.

The board shows what players ask a tournament director: the level, blinds and ante, the time to
the next level (and to the end of a time-limited tournament), how many players are left of how
many entered, the average and largest stack, the prize pool and what each place pays, and who
sits at which table. Before the start it lists the players registered; at the end, the places.

Like the table image it takes a plain, frozen snapshot (the bot maps the engine's
``TournamentStatus`` and the players' names into :class:`TournamentView`) and knows nothing of the
engine or Discord. It draws with the table image's colours, so it is encoded against the same
fixed palette (see :mod:`bot.render.encode`).

>>> view = TournamentView(name="Friday", phase=Phase.RUNNING, level=3, small_blind=50,
...                       big_blind=100, ante=100, seconds_to_next_level=125, entrants=12,
...                       players_left=9, average_stack=13_333, largest_stack=30_100,
...                       prize_pool=1_200, payouts=(600, 360, 240))
>>> tournament_alt_text(view)[:96]
'Tournament Friday. Level 3: blinds 50/100, big blind ante 100. Next level in 2 min 5 s. 9 of 12 '
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from PIL import Image

from bot.i18n import isolate
from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.fonts import Weight, draw_text
from bot.render.labels import format_chips, short_chips
from bot.render.table import DIM, GOLD, SOFT, TO_ACT_RING, WHITE, WINNER_RING, rounded_sprite
from bot.render.theme import RGB, ROOM_RAMP, through_ramp

__all__ = [
    "DEFAULT_TOURNAMENT_LABELS",
    "Phase",
    "PlaceLine",
    "PlayerLine",
    "TablePanel",
    "TournamentLabels",
    "TournamentView",
    "draw_tournament",
    "tournament_alt_text",
]

RGBA = tuple[int, int, int, int]


class Phase(StrEnum):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class PlayerLine:
    name: str
    stack: int
    seat: int = 0
    away: bool = False


@dataclass(frozen=True, slots=True)
class TablePanel:
    number: int
    players: tuple[PlayerLine, ...]  # in seat order
    in_hand: bool = False


@dataclass(frozen=True, slots=True)
class PlaceLine:
    place: int
    name: str
    prize: int
    tied: int = 1


@dataclass(frozen=True, slots=True)
class TournamentView:
    name: str
    phase: Phase
    level: int = 1
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    big_blind_ante: bool = True  # the ante is the big blind's alone (else each player's)
    next_level: tuple[int, int, int] | None = None  # (small blind, big blind, ante)
    seconds_to_next_level: float | None = None
    seconds_left: float | None = None  # a time-limited tournament's remaining play
    on_break: bool = False
    paused: bool = False
    time_up: bool = False
    entrants: int = 0
    max_players: int = 0
    players_left: int = 0
    starting_stack: int = 0
    buy_in: int = 0
    average_stack: int = 0
    largest_stack: int = 0
    chip_leader: str | None = None
    prize_pool: int = 0
    payouts: tuple[int, ...] = ()  # prize by place, best first
    late_registration_level: int = 0  # registration open through this level (0: none)
    registration_open: bool = False
    tables: tuple[TablePanel, ...] = ()
    registered: tuple[str, ...] = ()  # before the start
    standings: tuple[PlaceLine, ...] = ()  # at the end


@dataclass(frozen=True, slots=True)
class TournamentLabels:
    """Every word the board writes; English by default (build one from the bot's catalog)."""

    title: str = "Tournament {name}"
    level: str = "Level {n}"
    blinds: str = "Blinds {sb}/{bb}"
    big_blind_ante: str = "Big blind ante {ante}"
    ante: str = "Ante {ante}"
    next_level: str = "Next: {sb}/{bb}"
    next_level_ante: str = "Next: {sb}/{bb}, ante {ante}"
    last_level: str = "Last level"
    to_next_level: str = "to level {n}"
    on_break: str = "Break"
    paused: str = "Paused"
    registering: str = "Registration open"
    finished: str = "Finished"
    cancelled: str = "Cancelled"
    time_up: str = "Time is up: last hands"
    ends_in: str = "Ends in {time}"
    freeze_out: str = "Freeze-out: until one player has every chip"
    late_registration: str = "Late registration through level {n}"
    players: str = "Players"
    players_value: str = "{left} / {entered}"
    registered_tile: str = "Registered"
    registered_value: str = "{n} of {most}"
    starting_stack: str = "Starting stack"
    buy_in: str = "Buy-in"
    entered: str = "Entered"
    places_paid: str = "Places paid"
    winner_prize: str = "First prize"
    average: str = "Average stack"
    largest: str = "Largest stack"
    prize_pool: str = "Prize pool"
    payouts: str = "Payouts"
    place: str = "{n}."
    more_places: str = "+{n} more places"
    table: str = "Table {n}"
    final_table: str = "Final table"
    table_players: str = "{n} players"
    more_tables: str = "+{n} more tables"
    registered: str = "Registered ({n})"
    results: str = "Results"
    more_players: str = "+{n} more"
    away: str = "away"
    nobody: str = "Nobody yet"
    thousands_separator: str = ","
    # Alt text only
    alt_title: str = "Tournament {name}."
    alt_level: str = "Level {n}: blinds {sb}/{bb}"
    alt_big_blind_ante: str = "big blind ante {ante}"
    alt_ante: str = "ante {ante} each"
    alt_next_level: str = "Next level in {time}."
    alt_break: str = "On a break: level {n} in {time}."
    alt_paused: str = "The clock is paused."
    alt_ends_in: str = "Ends in {time}."
    alt_time_up: str = "Time is up: the hands in progress are the last."
    alt_players: str = "{left} of {entered} players left"
    alt_stacks: str = "average stack {average}, largest {largest}"
    alt_leader: str = "largest {largest} ({name})"
    alt_pool: str = "Prize pool {pool}:"
    alt_place: str = "{n}. {amount}"
    alt_table: str = "Table {n}: {players}"
    alt_table_count: str = "Table {n}: {count} players"
    alt_registered: str = "Registered: {names}"
    alt_results: str = "Results: {places}"
    alt_result: str = "{n}. {name} {amount}"
    alt_hours: str = "{h} h {m} min"
    alt_minutes: str = "{m} min {s} s"
    alt_seconds: str = "{s} s"
    # The catalog's language these words are in (set by ``catalog_words``): Chinese characters
    # are drawn in its region's shapes (``fonts.faces_for``).
    locale: str = "en"

    def chips(self, amount: int) -> str:
        return format_chips(amount, self.thousands_separator)

    def short(self, amount: int) -> str:
        return short_chips(amount, self.thousands_separator)

    def spoken_time(self, seconds: float) -> str:
        total = max(0, int(seconds))
        h, rest = divmod(total, 3600)
        m, s = divmod(rest, 60)
        if h:
            return self.alt_hours.format(h=h, m=m)
        if m:
            return self.alt_minutes.format(m=m, s=s)
        return self.alt_seconds.format(s=s)


DEFAULT_TOURNAMENT_LABELS = TournamentLabels()


def clock(seconds: float) -> str:
    """``75`` -> ``"1:15"``, ``3725`` -> ``"1:02:05"`` (what a tournament clock shows).

    >>> clock(75), clock(3725), clock(-3)
    ('1:15', '1:02:05', '0:00')
    """
    total = max(0, int(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


# --- drawing ------------------------------------------------------------------------------

WIDTH = 1280
MARGIN = 28
HEADER = 176
TILES_TOP = 186
TILE_HEIGHT = 86
BODY_TOP = 298
SIDE_WIDTH = 300
GAP = 16
COLUMNS = 3
ROW = 27
PANEL_HEAD = 46
MAX_TABLE_ROWS = 4  # rows of table panels; more tables fold into "+N more"
MIN_HEIGHT = 640

PANEL: RGBA = (16, 20, 26, 235)
PANEL_EDGE: RGBA = (84, 96, 110, 255)
CLOCK_FILL: RGBA = (14, 26, 36, 255)
STRIPE: RGBA = (255, 255, 255, 10)


@functools.lru_cache(maxsize=8)
def background(height: int) -> Image.Image:
    """The room's dark gradient, lighter at the top, in the room ramp's own shades."""
    level = Image.linear_gradient("L").resize((WIDTH, height)).point(lambda v: 70 - v * 60 // 255)
    return through_ramp(level, ROOM_RAMP)


def _panel(canvas: Image.Image, box: tuple[int, int, int, int], fill: RGBA = PANEL,
           edge: RGBA = PANEL_EDGE, line: int = 2, radius: int = 14) -> None:
    x0, y0, x1, y1 = box
    sprite = rounded_sprite(x1 - x0, y1 - y0, radius, fill, edge, line)
    canvas.paste(sprite, (x0, y0), sprite)


def _status_words(view: TournamentView, labels: TournamentLabels) -> tuple[str, RGB]:
    """The clock panel's caption and its colour."""
    if view.phase is Phase.REGISTERING:
        return labels.registering, TO_ACT_RING
    if view.phase is Phase.FINISHED:
        return labels.finished, WINNER_RING
    if view.phase is Phase.CANCELLED:
        return labels.cancelled, DIM
    if view.time_up:
        return labels.time_up, (240, 120, 90)
    if view.paused:
        return labels.paused, (214, 138, 20)
    if view.on_break:
        return labels.on_break, TO_ACT_RING
    return labels.level.format(n=view.level), SOFT


def _header(canvas: Image.Image, view: TournamentView, labels: TournamentLabels) -> None:
    clock_w = 330
    left_w = WIDTH - 2 * MARGIN - clock_w - GAP
    draw_text(canvas, (MARGIN, 64), view.name, 40, WHITE, max_width=left_w)
    running = view.phase is Phase.RUNNING
    if view.big_blind and view.phase is not Phase.FINISHED:
        stakes = [labels.blinds.format(sb=labels.chips(view.small_blind),
                                       bb=labels.chips(view.big_blind))]
        if view.ante:
            template = labels.big_blind_ante if view.big_blind_ante else labels.ante
            stakes.append(template.format(ante=labels.chips(view.ante)))
        sprite = draw_text(canvas, (MARGIN, 112), stakes[0], 30, GOLD, max_width=left_w)
        if len(stakes) > 1:
            draw_text(canvas, (MARGIN + sprite.width + 22, 112), stakes[1], 26, WHITE,
                      weight=Weight.REGULAR, max_width=max(10, left_w - sprite.width - 22))
    facts = []
    if view.seconds_left is not None and view.phase in (Phase.RUNNING, Phase.REGISTERING):
        facts.append(labels.ends_in.format(time=clock(view.seconds_left)))
    elif view.phase in (Phase.RUNNING, Phase.REGISTERING):
        facts.append(labels.freeze_out)
    if view.registration_open and view.late_registration_level and running:
        facts.append(labels.late_registration.format(n=view.late_registration_level))
    draw_text(canvas, (MARGIN, 150), "  ·  ".join(facts), 21, SOFT, weight=Weight.REGULAR,
              max_width=left_w)

    # The clock, top right: what the room looks at.
    x0 = WIDTH - MARGIN - clock_w
    caption, colour = _status_words(view, labels)
    _panel(canvas, (x0, 22, WIDTH - MARGIN, 164), CLOCK_FILL, (*colour, 255), 3, 18)
    cx = x0 + clock_w // 2
    draw_text(canvas, (cx, 56), caption, 24, colour, align="center", max_width=clock_w - 30)
    if running and view.seconds_to_next_level is not None:
        tint = DIM if view.paused else WHITE
        draw_text(canvas, (cx, 118), clock(view.seconds_to_next_level), 58, tint,
                  align="center", max_width=clock_w - 30)
        if view.next_level is not None:
            sb, bb, ante = view.next_level
            words = (labels.next_level_ante.format(sb=labels.short(sb), bb=labels.short(bb),
                                                   ante=labels.short(ante))
                     if ante else labels.next_level.format(sb=labels.short(sb),
                                                           bb=labels.short(bb)))
            draw_text(canvas, (cx, 148), words, 19, SOFT, align="center",
                      weight=Weight.REGULAR, max_width=clock_w - 30)
    elif running:
        draw_text(canvas, (cx, 118), labels.last_level, 40, WHITE, align="center",
                  max_width=clock_w - 30)
    else:
        big = {Phase.REGISTERING: str(view.entrants), Phase.FINISHED: "🏆"}.get(view.phase, "")
        if view.phase is Phase.FINISHED and view.standings:
            big = view.standings[0].name
        draw_text(canvas, (cx, 122), big, 46, WHITE, align="center", max_width=clock_w - 30)


def _tiles(canvas: Image.Image, view: TournamentView, labels: TournamentLabels) -> None:
    """Four figures across the board: the field and its stacks while it runs, the entry before
    it, the prizes after it."""
    pool = (labels.prize_pool, labels.chips(view.prize_pool), GOLD, None)
    paid = [p for p in view.payouts if p]
    tiles: list[tuple[str, str, RGB, str | None]]
    if view.phase is Phase.REGISTERING:
        count = (labels.registered_value.format(n=view.entrants, most=view.max_players)
                 if view.max_players else str(view.entrants))
        tiles = [
            (labels.registered_tile, count, WHITE, None),
            (labels.starting_stack, labels.chips(view.starting_stack), WHITE, None),
            (labels.buy_in, labels.chips(view.buy_in), WHITE, None),
            pool,
        ]
    elif view.phase is Phase.RUNNING:
        tiles = [
            (labels.players, labels.players_value.format(left=view.players_left,
                                                         entered=view.entrants), WHITE, None),
            (labels.average, labels.chips(view.average_stack), WHITE, None),
            (labels.largest, labels.chips(view.largest_stack), WHITE, view.chip_leader),
            pool,
        ]
    else:
        tiles = [
            (labels.entered, str(view.entrants), WHITE, None),
            (labels.places_paid, str(len(paid)), WHITE, None),
            (labels.winner_prize, labels.chips(paid[0]) if paid else "0", GOLD, None),
            pool,
        ]
    width = (WIDTH - 2 * MARGIN - 3 * GAP) // 4
    for k, (title, value, colour, note) in enumerate(tiles):
        x0 = MARGIN + k * (width + GAP)
        _panel(canvas, (x0, TILES_TOP, x0 + width, TILES_TOP + TILE_HEIGHT))
        draw_text(canvas, (x0 + 18, TILES_TOP + 30), title, 19, SOFT, weight=Weight.REGULAR,
                  max_width=width - 36)
        sprite = draw_text(canvas, (x0 + 18, TILES_TOP + 70), value, 32, colour,
                           max_width=width - 36)
        if note:
            room = width - 36 - sprite.width - 12
            if room > 40:
                draw_text(canvas, (x0 + 18 + sprite.width + 12, TILES_TOP + 69), note, 18, DIM,
                          weight=Weight.REGULAR, max_width=room)


def _ordinal(n: int, labels: TournamentLabels) -> str:
    return labels.place.format(n=n)


def _payouts(canvas: Image.Image, view: TournamentView, labels: TournamentLabels,
             bottom: int) -> None:
    x0, x1 = MARGIN, MARGIN + SIDE_WIDTH
    _panel(canvas, (x0, BODY_TOP, x1, bottom))
    draw_text(canvas, (x0 + 18, BODY_TOP + 32), labels.payouts, 22, WHITE)
    room = (bottom - BODY_TOP - PANEL_HEAD - 12) // ROW
    prizes = [p for p in view.payouts if p > 0]
    shown = prizes if len(prizes) <= room else prizes[: max(0, room - 1)]
    y = BODY_TOP + PANEL_HEAD + 20
    for k, prize in enumerate(shown, start=1):
        if k % 2:
            stripe = rounded_sprite(SIDE_WIDTH - 20, ROW, 6, STRIPE)
            canvas.paste(stripe, (x0 + 10, y - 19), stripe)
        colour = GOLD if k == 1 else WHITE
        draw_text(canvas, (x0 + 20, y), _ordinal(k, labels), 20, SOFT, weight=Weight.REGULAR)
        draw_text(canvas, (x1 - 20, y), labels.chips(prize), 20, colour, align="right",
                  max_width=SIDE_WIDTH - 90)
        y += ROW
    if len(shown) < len(prizes):
        draw_text(canvas, (x0 + 20, y), labels.more_places.format(n=len(prizes) - len(shown)),
                  18, DIM, weight=Weight.REGULAR)


def _column_width() -> int:
    area = WIDTH - 2 * MARGIN - SIDE_WIDTH - GAP
    return (area - (COLUMNS - 1) * GAP) // COLUMNS


def _table_panel(canvas: Image.Image, panel: TablePanel, box: tuple[int, int, int, int],
                 final: bool, labels: TournamentLabels) -> None:
    x0, y0, x1, _ = box
    edge = (*WINNER_RING, 255) if final else PANEL_EDGE
    _panel(canvas, box, PANEL, edge, 3 if final else 2)
    title = labels.final_table if final else labels.table.format(n=panel.number)
    draw_text(canvas, (x0 + 16, y0 + 31), title, 21, GOLD if final else WHITE,
              max_width=x1 - x0 - 120)
    count = draw_text(canvas, (x1 - 16, y0 + 31),
                      labels.table_players.format(n=len(panel.players)), 17, DIM,
                      align="right", weight=Weight.REGULAR)
    if panel.in_hand:  # a hand is being dealt there
        dot = rounded_sprite(10, 10, 5, (*TO_ACT_RING, 255))
        canvas.paste(dot, (x1 - 16 - count.width - 18, y0 + 20), dot)
    y = y0 + PANEL_HEAD + 18
    for k, player in enumerate(panel.players):
        if k % 2 == 0:
            stripe = rounded_sprite(x1 - x0 - 16, ROW, 6, STRIPE)
            canvas.paste(stripe, (x0 + 8, y - 19), stripe)
        name_colour = DIM if player.away else WHITE
        draw_text(canvas, (x0 + 16, y), player.name, 19, name_colour, weight=Weight.REGULAR,
                  max_width=x1 - x0 - 130)
        draw_text(canvas, (x1 - 16, y), labels.short(player.stack), 19, GOLD, align="right",
                  max_width=100)
        y += ROW


def _grid_shape(view: TournamentView) -> tuple[int, int]:
    """(rows of table panels, player rows per panel)."""
    shown = min(len(view.tables), COLUMNS * MAX_TABLE_ROWS)
    rows = -(-shown // COLUMNS)
    seats = max((len(t.players) for t in view.tables), default=0)
    return rows, seats


def _panel_height(seats: int) -> int:
    return PANEL_HEAD + seats * ROW + 12


def _tables(canvas: Image.Image, view: TournamentView, labels: TournamentLabels,
            bottom: int) -> None:
    """The tables in a grid of up to three columns; past four rows the last panel says how
    many tables (and players) are not shown. Panels stretch to the payouts' height."""
    rows, _ = _grid_shape(view)
    col_w = _column_width()
    left = MARGIN + SIDE_WIDTH + GAP
    height = (bottom - BODY_TOP - (rows - 1) * GAP) // rows
    capacity = COLUMNS * MAX_TABLE_ROWS
    tables = list(view.tables)
    shown = tables[: capacity - 1] if len(tables) > capacity else tables
    # Everyone left at one table, after others were broken: the final table.
    final = len(tables) == 1 and view.players_left < view.entrants
    for k, panel in enumerate(shown):
        r, c = divmod(k, COLUMNS)
        x0 = left + c * (col_w + GAP)
        y0 = BODY_TOP + r * (height + GAP)
        _table_panel(canvas, panel, (x0, y0, x0 + col_w, y0 + height), final, labels)
    rest = tables[len(shown):]
    if rest:
        r, c = divmod(len(shown), COLUMNS)
        x0 = left + c * (col_w + GAP)
        y0 = BODY_TOP + r * (height + GAP)
        _panel(canvas, (x0, y0, x0 + col_w, y0 + height))
        draw_text(canvas, (x0 + col_w / 2, y0 + height / 2),
                  labels.more_tables.format(n=len(rest)), 22, SOFT, align="center")
        draw_text(canvas, (x0 + col_w / 2, y0 + height / 2 + 30),
                  labels.table_players.format(n=sum(len(t.players) for t in rest)), 18, DIM,
                  align="center", weight=Weight.REGULAR)


def _name_columns(canvas: Image.Image, title: str, lines: list[tuple[str, str, RGB]],
                  bottom: int, labels: TournamentLabels) -> None:
    """A panel of (left text, right text, colour) rows in columns: the registered players, or
    the results."""
    left = MARGIN + SIDE_WIDTH + GAP
    right = WIDTH - MARGIN
    _panel(canvas, (left, BODY_TOP, right, bottom))
    draw_text(canvas, (left + 18, BODY_TOP + 32), title, 22, WHITE)
    per_column = max(1, (bottom - BODY_TOP - PANEL_HEAD - 12) // ROW)
    capacity = per_column * COLUMNS
    if not lines:
        draw_text(canvas, (left + 18, BODY_TOP + PANEL_HEAD + 20), labels.nobody, 20, DIM,
                  weight=Weight.REGULAR)
        return
    if len(lines) > capacity:
        extra = len(lines) - capacity + 1
        lines = [*lines[: capacity - 1], (labels.more_players.format(n=extra), "", DIM)]
    col_w = (right - left - 20) // COLUMNS
    for k, (text, value, colour) in enumerate(lines):
        c, r = divmod(k, per_column)
        x0 = left + 10 + c * col_w
        y = BODY_TOP + PANEL_HEAD + 20 + r * ROW
        if r % 2 == 0:
            stripe = rounded_sprite(col_w - 8, ROW, 6, STRIPE)
            canvas.paste(stripe, (x0, y - 19), stripe)
        draw_text(canvas, (x0 + 10, y), text, 19, colour, weight=Weight.REGULAR,
                  max_width=col_w - (110 if value else 24))
        if value:
            draw_text(canvas, (x0 + col_w - 18, y), value, 19, GOLD, align="right",
                      max_width=96)


def _body_height(view: TournamentView) -> int:
    if view.phase is Phase.RUNNING and view.tables:
        rows, seats = _grid_shape(view)
        grid = rows * _panel_height(seats) + (rows - 1) * GAP
    else:
        count = len(view.standings) if view.phase is Phase.FINISHED else len(view.registered)
        grid = PANEL_HEAD + 12 + ROW * min(max(1, -(-count // COLUMNS)), 20)
    places = PANEL_HEAD + 12 + ROW * min(max(1, len([p for p in view.payouts if p])), 20)
    return max(grid, places, MIN_HEIGHT - BODY_TOP - MARGIN)


def draw_tournament(view: TournamentView,
                    labels: TournamentLabels = DEFAULT_TOURNAMENT_LABELS) -> Image.Image:
    """The status board as an RGB image, 1280 px wide, as tall as its tables need."""
    bottom = BODY_TOP + _body_height(view)
    canvas = background(bottom + MARGIN).copy()
    _header(canvas, view, labels)
    _tiles(canvas, view, labels)
    _payouts(canvas, view, labels, bottom)
    if view.phase is Phase.FINISHED:
        lines = [(f"{_ordinal(p.place, labels)} {p.name}", labels.short(p.prize) if p.prize else "",
                  GOLD if p.place == 1 else WHITE) for p in view.standings]
        _name_columns(canvas, labels.results, lines, bottom, labels)
    elif view.phase is Phase.RUNNING and view.tables:
        _tables(canvas, view, labels, bottom)
    else:
        lines = [(name, "", WHITE) for name in view.registered]
        _name_columns(canvas, labels.registered.format(n=len(view.registered)), lines, bottom,
                      labels)
    return canvas


# --- alt text -----------------------------------------------------------------------------

ALT_PLACES = 10  # prizes spelled out; the rest are counted


def _alt_parts(view: TournamentView, labels: TournamentLabels, detail: int) -> list[str]:
    """The description, most important first; ``detail`` 2 names every player at every table,
    1 counts them, 0 leaves the tables out."""
    parts = [labels.alt_title.format(name=isolate(view.name))]
    if view.phase is Phase.RUNNING or (view.phase is Phase.REGISTERING and view.big_blind):
        stakes = labels.alt_level.format(n=view.level, sb=labels.chips(view.small_blind),
                                         bb=labels.chips(view.big_blind))
        if view.ante:
            template = labels.alt_big_blind_ante if view.big_blind_ante else labels.alt_ante
            stakes += ", " + template.format(ante=labels.chips(view.ante))
        parts.append(stakes + ".")
    if view.phase is Phase.RUNNING:
        if view.time_up:
            parts.append(labels.alt_time_up)
        elif view.on_break and view.seconds_to_next_level is not None:
            parts.append(labels.alt_break.format(
                n=view.level + 1, time=labels.spoken_time(view.seconds_to_next_level)))
        elif view.seconds_to_next_level is not None:
            parts.append(labels.alt_next_level.format(
                time=labels.spoken_time(view.seconds_to_next_level)))
        if view.paused:
            parts.append(labels.alt_paused)
        if view.seconds_left is not None and not view.time_up:
            parts.append(labels.alt_ends_in.format(time=labels.spoken_time(view.seconds_left)))
    elif view.phase is Phase.REGISTERING:
        parts.append(labels.registering + ".")
    else:
        parts.append((labels.finished if view.phase is Phase.FINISHED else labels.cancelled)
                     + ".")
    field = labels.alt_players.format(left=view.players_left, entered=view.entrants)
    if view.phase is Phase.RUNNING:
        largest = (labels.alt_leader.format(largest=labels.chips(view.largest_stack),
                                            name=isolate(view.chip_leader))
                   if view.chip_leader else None)
        stacks = labels.alt_stacks.format(average=labels.chips(view.average_stack),
                                          largest=labels.chips(view.largest_stack))
        if largest:
            stacks = stacks.rsplit(", ", 1)[0] + ", " + largest
        field += "; " + stacks
    parts.append(field + ".")
    paid = [p for p in view.payouts if p]
    prizes = [labels.alt_place.format(n=k, amount=labels.chips(p))
              for k, p in enumerate(paid[:ALT_PLACES], start=1)]
    if len(paid) > ALT_PLACES:
        prizes.append(labels.more_places.format(n=len(paid) - ALT_PLACES))
    parts.append(" ".join([labels.alt_pool.format(pool=labels.chips(view.prize_pool)),
                           ", ".join(prizes) + "." if prizes else ""]).strip())
    if view.phase is Phase.FINISHED and view.standings:
        places = ", ".join(
            labels.alt_result.format(n=p.place, name=isolate(p.name), amount=labels.chips(p.prize))
            for p in view.standings
        )
        parts.append(labels.alt_results.format(places=places) + ".")
    elif view.phase is Phase.RUNNING and detail:
        for t in view.tables:
            if detail == 2:
                who = ", ".join(f"{isolate(p.name)} {labels.chips(p.stack)}" for p in t.players)
                parts.append(labels.alt_table.format(n=t.number, players=who) + ".")
            else:
                parts.append(labels.alt_table_count.format(n=t.number, count=len(t.players))
                             + ".")
    elif view.phase is Phase.REGISTERING and view.registered and detail:
        names = ", ".join(isolate(n) for n in view.registered)
        parts.append(labels.alt_registered.format(names=names) + ".")
    return parts


def tournament_alt_text(view: TournamentView,
                        labels: TournamentLabels = DEFAULT_TOURNAMENT_LABELS,
                        limit: int = ALT_TEXT_LIMIT) -> str:
    """The board in words, in at most ``limit`` characters: every player at every table when
    that fits, else the number at each table, else the field and the prizes alone."""
    text = ""
    for detail in (2, 1, 0):
        text = " ".join(_alt_parts(view, labels, detail))
        if len(text) <= limit:
            return text
    return text[: limit - 1].rstrip() + "…"

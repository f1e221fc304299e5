"""A league's standings: a podium for the first three and the table below, as one image and the
same facts as text for screen readers.

It takes a plain snapshot (:class:`LeagueView`: names raw, points already written as the reader
writes them) and knows nothing of storage or Discord. It draws with the tournament board's
colours and panels, so it is encoded against the same fixed palette.

>>> view = LeagueView(name="Spring", rule="standard", tournaments=3,
...                   lines=(LeagueLine(1, "Ann", "54.4", 3, 1, 1),
...                          LeagueLine(2, "Bo", "38.46", 2, 2, 0)))
>>> print(league_alt_text(view))
League Spring (points: standard), 3 tournaments. 1. Ann 54.4 points. 2. Bo 38.46 points.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from bot.i18n import isolate
from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.fonts import Weight, draw_text
from bot.render.table import DIM, GOLD, SOFT, WHITE, rounded_sprite
from bot.render.tournament import MARGIN, PANEL, PANEL_EDGE, STRIPE, WIDTH, background

__all__ = [
    "DEFAULT_LEAGUE_LABELS",
    "LeagueLabels",
    "LeagueLine",
    "LeagueView",
    "draw_league",
    "league_alt_text",
]

MAX_ROWS = 20  # the table's rows; more are counted
PODIUM = ((1, 0, 150), (0, 1, 105), (2, 2, 70))  # (column, rank index, step height)
SILVER = (200, 206, 220)
BRONZE = (214, 150, 96)


@dataclass(frozen=True, slots=True)
class LeagueLine:
    rank: int
    name: str
    points: str  # written as the reader writes points (``engine.league.hundredths_text``)
    played: int
    best: int
    wins: int


@dataclass(frozen=True, slots=True)
class LeagueView:
    name: str
    rule: str  # the points rule, as shown: "standard", "flat", "25, 18, 15"
    tournaments: int
    lines: tuple[LeagueLine, ...]
    closed: bool = False


@dataclass(frozen=True, slots=True)
class LeagueLabels:
    """Every word the standings write; English by default (build one from the catalog)."""

    title: str = "League {name}"
    subtitle: str = "{tournaments} tournaments · points: {rule}"
    closed: str = "Closed"
    rank: str = "#"
    player: str = "Player"
    points: str = "Points"
    played: str = "Played"
    best: str = "Best"
    wins: str = "Wins"
    nobody: str = "No points yet"
    more_players: str = "+{n} more"
    alt_title: str = "League {name} (points: {rule}), {tournaments} tournaments."
    alt_closed: str = "Closed."
    alt_line: str = "{rank}. {name} {points} points."
    alt_nobody: str = "No points yet."
    locale: str = "en"


DEFAULT_LEAGUE_LABELS = LeagueLabels()

HEADER = 120
PODIUM_TOP = 140
PODIUM_HEIGHT = 260
TABLE_TOP = PODIUM_TOP + PODIUM_HEIGHT + 20
ROW = 34
HEAD = 46


def _medal(index: int) -> tuple[int, int, int]:
    return (GOLD, SILVER, BRONZE)[index]


def _panel(canvas: Image.Image, box: tuple[int, int, int, int],
           fill: tuple[int, int, int, int] = PANEL) -> None:
    x0, y0, x1, y1 = box
    sprite = rounded_sprite(x1 - x0, y1 - y0, 14, fill, PANEL_EDGE, 2)
    canvas.paste(sprite, (x0, y0), sprite)


def _podium(canvas: Image.Image, view: LeagueView, labels: LeagueLabels) -> None:
    step_w = 300
    left = (WIDTH - 3 * step_w - 2 * 24) // 2
    floor = PODIUM_TOP + PODIUM_HEIGHT
    for column, index, height in PODIUM:
        if index >= len(view.lines):
            continue
        line = view.lines[index]
        x0 = left + column * (step_w + 24)
        colour = _medal(min(index, line.rank - 1))
        _panel(canvas, (x0, floor - height, x0 + step_w, floor), (*colour, 60))
        cx = x0 + step_w // 2
        draw_text(canvas, (cx, floor - height + 48), str(line.rank), 40, colour,
                  align="center")
        draw_text(canvas, (cx, floor - height - 50), line.name, 26, WHITE, align="center",
                  max_width=step_w - 10)
        draw_text(canvas, (cx, floor - height - 16), f"{line.points} {labels.points}", 22,
                  colour, align="center", weight=Weight.REGULAR, max_width=step_w - 10)


def _columns() -> list[tuple[int, str]]:
    """(x, alignment) of the rank, name, points, played, best and wins columns."""
    right = WIDTH - MARGIN - 20
    return [(MARGIN + 40, "right"), (MARGIN + 64, "left"), (right - 390, "right"),
            (right - 250, "right"), (right - 130, "right"), (right, "right")]


def _table(canvas: Image.Image, view: LeagueView, labels: LeagueLabels, bottom: int) -> None:
    _panel(canvas, (MARGIN, TABLE_TOP, WIDTH - MARGIN, bottom))
    cols = _columns()
    heads = (labels.rank, labels.player, labels.points, labels.played, labels.best, labels.wins)
    for (x, align), word in zip(cols, heads, strict=True):
        draw_text(canvas, (x, TABLE_TOP + 32), word, 20, SOFT, align=align, max_width=200)
    if not view.lines:
        draw_text(canvas, (MARGIN + 64, TABLE_TOP + HEAD + 26), labels.nobody, 22, DIM,
                  weight=Weight.REGULAR)
        return
    shown = list(view.lines[:MAX_ROWS])
    name_room = cols[2][0] - cols[1][0] - 130
    for r, line in enumerate(shown):
        y = TABLE_TOP + HEAD + 26 + r * ROW
        if r % 2 == 0:
            stripe = rounded_sprite(WIDTH - 2 * MARGIN - 20, ROW, 6, STRIPE)
            canvas.paste(stripe, (MARGIN + 10, y - 23), stripe)
        colour = _medal(line.rank - 1) if line.rank <= 3 else WHITE
        values = (str(line.rank), line.name, line.points, str(line.played), str(line.best),
                  str(line.wins))
        for (x, align), value in zip(cols, values, strict=True):
            draw_text(canvas, (x, y), value, 21, colour if value is line.points else WHITE,
                      align=align, weight=Weight.REGULAR,
                      max_width=name_room if value is line.name else 160)
    if len(view.lines) > MAX_ROWS:
        y = TABLE_TOP + HEAD + 26 + MAX_ROWS * ROW
        draw_text(canvas, (MARGIN + 64, y), labels.more_players.format(
            n=len(view.lines) - MAX_ROWS), 20, DIM, weight=Weight.REGULAR)


def draw_league(view: LeagueView, labels: LeagueLabels = DEFAULT_LEAGUE_LABELS) -> Image.Image:
    """The standings as an RGB image, 1280 px wide, as tall as its table needs."""
    rows = max(1, min(len(view.lines), MAX_ROWS) + (len(view.lines) > MAX_ROWS))
    bottom = TABLE_TOP + HEAD + rows * ROW + 16
    canvas = background(bottom + MARGIN).copy()
    draw_text(canvas, (MARGIN, 62), labels.title.format(name=view.name), 40, WHITE,
              max_width=WIDTH - 2 * MARGIN - 220)
    sub = labels.subtitle.format(tournaments=view.tournaments, rule=view.rule)
    draw_text(canvas, (MARGIN, 102), sub, 22, SOFT, weight=Weight.REGULAR,
              max_width=WIDTH - 2 * MARGIN - 220)
    if view.closed:
        draw_text(canvas, (WIDTH - MARGIN, 62), labels.closed, 28, DIM, align="right",
                  max_width=200)
    _podium(canvas, view, labels)
    _table(canvas, view, labels, bottom)
    return canvas


def league_alt_text(view: LeagueView, labels: LeagueLabels = DEFAULT_LEAGUE_LABELS) -> str:
    """The standings in words, within Discord's alt text limit (the top of the table first)."""
    head = [labels.alt_title.format(name=isolate(view.name), rule=view.rule,
                                    tournaments=view.tournaments)]
    if view.closed:
        head.append(labels.alt_closed)
    if not view.lines:
        head.append(labels.alt_nobody)
    text = " ".join(head)
    for line in view.lines:
        more = " " + labels.alt_line.format(rank=line.rank, name=isolate(line.name),
                                                 points=line.points)
        if len(text) + len(more) > ALT_TEXT_LIMIT:
            break
        text += more
    return text

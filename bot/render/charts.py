"""Line charts: every player's stack over a session's hands, a player's net over his hands
(with his all-in EV net beside it, as PokerTracker's all-in equity graph draws them).

The chart speaks the table image's language (:mod:`bot.render.table`): the same dark room,
a plate for the plot, white and gold text from the cached masks of :mod:`bot.render.fonts`, so
names in any script draw without boxes. Lines are drawn at three times the size and scaled down,
which is how the table's sprites get their smooth edges.

Colours follow Okabe and Ito's palette, chosen to stay apart for the common kinds of colour
blindness; its black becomes a light grey on the dark background and its blue is lightened to
read there. Colour is never the only cue: past eight players the lines turn dashed, then
dotted, and the legend shows each line's pattern next to the name and its last value.

A chart of thousands of hands keeps its shape: when there are more points than pixels, each
pixel column draws its first, lowest, highest and last values, so no spike is lost.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageChops, ImageDraw

from bot.i18n import isolate
from bot.render.alttext import ALT_TEXT_LIMIT
from bot.render.fonts import Weight, draw_text, text_sprite
from bot.render.labels import short_chips
from bot.render.theme import RGB, ROOM_RAMP, through_ramp

__all__ = [
    "DEFAULT_CHART_LABELS",
    "PALETTE",
    "ChartLabels",
    "ChartSeries",
    "ChartView",
    "chart_alt_text",
    "draw_chart",
]

WIDTH = 1200
PLOT_HEIGHT = 420
SS = 3  # supersampling factor for the lines
JOINED_POINTS = 300  # up to this many points a line gets round joins

WHITE: RGB = (244, 244, 240)
SOFT: RGB = (200, 206, 212)
DIM: RGB = (132, 138, 146)
GOLD: RGB = (255, 204, 77)
PANEL = (16, 20, 26, 255)
PANEL_EDGE = (56, 62, 70, 255)
GRID: RGB = (40, 46, 54)
ZERO: RGB = (150, 156, 164)

# Okabe & Ito, ordered so that the first few players get the most distinct hues.
PALETTE: tuple[RGB, ...] = (
    (230, 159, 0),  # orange
    (86, 180, 233),  # sky blue
    (0, 158, 115),  # bluish green
    (240, 228, 66),  # yellow
    (213, 94, 0),  # vermillion
    (204, 121, 167),  # reddish purple
    (64, 148, 224),  # blue, lightened for the dark background
    (214, 214, 214),  # light grey in place of black
)
# On and off lengths (pixels) of each line pattern: solid, dashed, dotted.
PATTERNS: tuple[tuple[int, int] | None, ...] = (None, (16, 9), (4, 7))
GAIN: RGB = PALETTE[1]  # the net chart: above zero in sky blue, below in orange
LOSS: RGB = PALETTE[0]
# The net chart's lines: the net itself, solid; then what it is compared with (the all-in EV
# net), dashed in gold, so the two differ in more than colour.
NET_STYLES: tuple[tuple[RGB, tuple[int, int] | None], ...] = ((SOFT, None), (GOLD, (16, 9)))

TITLE_SIZE = 30
SUBTITLE_SIZE = 20
TICK_SIZE = 17
LEGEND_SIZE = 18
LEGEND_COLUMNS = 3
LEGEND_ROW = 34
LEGEND_MAX = 24  # more players than this: "+N more" (the file lists everyone)
MARGIN = 24
PLOT_LEFT = MARGIN + 96  # room for the value labels
PLOT_RIGHT = WIDTH - MARGIN - 28
PLOT_TOP = 150

# Where lines may fall (the plot, and room for the dots at their ends): only this much is
# drawn at three times the size.
LINES_BOX = (PLOT_LEFT - 12, PLOT_TOP - 12, PLOT_RIGHT + 12, PLOT_TOP + PLOT_HEIGHT + 12)

Scale = Callable[[float], float]  # a value to its y on the canvas


@dataclass(frozen=True, slots=True)
class ChartSeries:
    """One line: a name and one value per point of the chart (None: no value there)."""

    name: str
    values: tuple[int | None, ...]

    @property
    def known(self) -> list[int]:
        return [v for v in self.values if v is not None]


@dataclass(frozen=True, slots=True)
class ChartView:
    """What a chart shows. The caller words everything in the reader's language.

    ``x_labels`` names every point (the chart picks the few that fit under the axis); the
    axis titles sit at the start of each axis;
    ``net``: a line of won and lost chips, drawn with its zero line and the area above and
    below it shaded; a second line (the all-in EV net) is drawn over it, with a legend.
    """

    title: str
    subtitle: str
    x_title: str
    y_title: str
    x_labels: tuple[str, ...]
    series: tuple[ChartSeries, ...]
    net: bool = False
    filename: str = "chart.png"


@dataclass(frozen=True, slots=True)
class ChartLabels:
    """The chart's own words (English by default; the bot passes them from its catalog)."""

    no_data: str = "No hands yet"
    legend_more: str = "+{n} more"
    alt_chart: str = "Line chart: {title}. {subtitle}."
    alt_series: str = "{name}: from {first} to {last}, highest {high}, lowest {low}."
    alt_more: str = "And {n} more."
    alt_empty: str = "No hands yet."
    thousands_separator: str = ","
    # The catalog's language these words are in (set by ``catalog_words``): Chinese characters
    # are drawn in its region's shapes (``fonts.faces_for``).
    locale: str = "en"

    def amount(self, value: int, signed: bool = False) -> str:
        """``short_chips`` with a sign: "-1,200", and "+300" when ``signed``."""
        text = short_chips(abs(value), self.thousands_separator)
        if value < 0:
            return "-" + text
        return "+" + text if signed and value > 0 else text


DEFAULT_CHART_LABELS = ChartLabels()


# --- scales ----------------------------------------------------------------------------------


def nice_step(span: float, ticks: int = 5) -> int:
    """A round step (1, 2 or 5 times a power of ten, at least 1) giving about ``ticks`` steps.

    >>> nice_step(1000), nice_step(7), nice_step(0), nice_step(23_000)
    (200, 2, 1, 5000)
    """
    if span <= 0:
        return 1
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return max(1, int(factor * power))
    return max(1, int(10 * power))  # pragma: no cover - the loop always returns


def value_range(view: ChartView) -> tuple[int, int, int]:
    """The axis's bottom, top and step: round numbers around every value. A net chart always
    shows its zero (won or lost is the point); a stack chart fits its values, so a swing of a
    few big blinds in stacks of thousands is still seen, and never goes below zero.

    >>> stacks = ChartView("", "", "", "", ("a", "b"), (ChartSeries("x", (960, 1030)),))
    >>> value_range(stacks)
    (960, 1040, 20)
    """
    values = [v for s in view.series for v in s.known] or [0]
    if view.net:
        values.append(0)
    low, high = min(values), max(values)
    if low == high:
        pad = max(1, abs(low) // 10)
        low, high = low - pad, high + pad
    step = nice_step(high - low)
    bottom = math.floor(low / step) * step
    top = math.ceil(high / step) * step
    if not view.net:
        bottom = max(0, bottom)
    return bottom, top, step


def x_positions(count: int) -> list[float]:
    if count == 1:
        return [(PLOT_LEFT + PLOT_RIGHT) / 2]
    step = (PLOT_RIGHT - PLOT_LEFT) / (count - 1)
    return [PLOT_LEFT + i * step for i in range(count)]


def _runs(values: Sequence[int | None]) -> list[list[tuple[int, int]]]:
    """The unbroken stretches of a series as (index, value) lists."""
    runs: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] = []
    for i, value in enumerate(values):
        if value is None:
            if current:
                runs.append(current)
            current = []
        else:
            current.append((i, value))
    if current:
        runs.append(current)
    return runs


def _decimate(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """At most four points per pixel column (first, lowest, highest, last, in that order of
    appearance), so a long line draws fast and keeps every extreme."""
    if len(points) <= PLOT_RIGHT - PLOT_LEFT:
        return points
    out: list[tuple[float, float]] = []
    column: list[tuple[float, float]] = []
    for point in points:
        if column and int(point[0]) != int(column[0][0]):
            out.extend(_column_shape(column))
            column = []
        column.append(point)
    out.extend(_column_shape(column))
    return out


def _column_shape(column: list[tuple[float, float]]) -> list[tuple[float, float]]:
    if len(column) <= 4:
        return column
    ys = [y for _, y in column]
    keep = sorted({0, ys.index(min(ys)), ys.index(max(ys)), len(column) - 1})
    return [column[i] for i in keep]


# --- drawing ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _background(height: int) -> Image.Image:
    """The table image's room: lit from above, darker toward the bottom."""
    room = ImageChops.invert(Image.linear_gradient("L").resize((WIDTH, height)))
    return through_ramp(room.point(lambda v: int(v * 0.8) + 30), ROOM_RAMP)


def _dashed(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], fill: RGB,
            width: int, pattern: tuple[int, int]) -> None:
    """A polyline drawn in dashes that run on across its corners."""
    on, off = pattern[0] * SS, pattern[1] * SS
    period = on + off
    walked = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while done < length:
            phase = walked % period
            if phase < on:
                step = min(on - phase, length - done)
                a, b = done / length, (done + step) / length
                draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                           (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)], fill=fill, width=width)
            else:
                step = min(period - phase, length - done)
            done += step
            walked += step


def _line(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], fill: RGB, width: int,
          pattern: tuple[int, int] | None) -> None:
    big = [(x * SS, y * SS) for x, y in points]
    w = width * SS
    if len(big) == 1:
        x, y = big[0]
        draw.ellipse((x - w, y - w, x + w, y + w), fill=fill)
        return
    if pattern is None:
        # Round joins hide the notches at sharp corners, but Pillow draws them one by one in
        # Python; when points are dense the segments overlap anyway and need none.
        joint = "curve" if len(big) <= JOINED_POINTS else None
        draw.line(big, fill=fill, width=w, joint=joint)
    else:
        _dashed(draw, big, fill, w, pattern)


def series_style(index: int, net: bool = False) -> tuple[RGB, tuple[int, int] | None]:
    """The colour and the line pattern of the ``index``-th series (of a net chart's, with
    ``net``)."""
    if net:
        return NET_STYLES[min(index, len(NET_STYLES) - 1)]
    colour = PALETTE[index % len(PALETTE)]
    return colour, PATTERNS[(index // len(PALETTE)) % len(PATTERNS)]


def _legend_rows(view: ChartView) -> int:
    # A net chart's single line is named by its title; two lines need their names.
    if (view.net and len(view.series) < 2) or not view.series:
        return 0
    shown = min(len(view.series), LEGEND_MAX) + (len(view.series) > LEGEND_MAX)
    return -(-shown // LEGEND_COLUMNS)


def chart_height(view: ChartView) -> int:
    rows = _legend_rows(view)
    legend = rows * LEGEND_ROW + (16 if rows else 0)
    return PLOT_TOP + PLOT_HEIGHT + 64 + legend + MARGIN


def draw_chart(view: ChartView, labels: ChartLabels = DEFAULT_CHART_LABELS) -> Image.Image:
    """The chart as an RGB image, :data:`WIDTH` wide, as tall as its legend needs."""
    height = chart_height(view)
    canvas = _background(height).copy()
    draw_text(canvas, (MARGIN + 8, 50), view.title, TITLE_SIZE, WHITE,
              max_width=WIDTH - 2 * MARGIN - 16)
    draw_text(canvas, (MARGIN + 8, 84), view.subtitle, SUBTITLE_SIZE, SOFT,
              weight=Weight.REGULAR, max_width=WIDTH - 2 * MARGIN - 16)
    panel_bottom = PLOT_TOP + PLOT_HEIGHT + 56
    ImageDraw.Draw(canvas).rounded_rectangle(
        (MARGIN, PLOT_TOP - 32, WIDTH - MARGIN, panel_bottom), radius=14, fill=PANEL[:3],
        outline=PANEL_EDGE[:3], width=2)
    count = len(view.x_labels)
    if count == 0 or not any(s.known for s in view.series):
        draw_text(canvas, (WIDTH / 2, PLOT_TOP + PLOT_HEIGHT / 2), labels.no_data, 26, DIM,
                  align="center")
        return canvas
    bottom, top, step = value_range(view)

    def y_of(value: float) -> float:
        return PLOT_TOP + PLOT_HEIGHT * (top - value) / (top - bottom)

    _grid(canvas, bottom, top, step, y_of, labels, view.net)
    xs = x_positions(count)
    _x_axis(canvas, view, xs)
    if view.net:
        _net_area(canvas, view.series[0], xs, y_of)
    ox, oy = LINES_BOX[:2]
    size = (LINES_BOX[2] - ox, LINES_BOX[3] - oy)
    # The plot as it stands, blown up: lines drawn onto it and scaled back blend with what is
    # under them, with no transparent layer to darken their edges.
    big = canvas.crop(LINES_BOX).resize((size[0] * SS, size[1] * SS), Image.Resampling.NEAREST)
    draw = ImageDraw.Draw(big)
    ends: list[tuple[float, float, RGB]] = []
    # The first series is drawn last, on top: the biggest winner, the net, or the only line.
    for index in reversed(range(len(view.series))):
        series = view.series[index]
        colour, pattern = series_style(index, view.net)
        width = 4 if view.net and index == 0 else 3
        for run in _runs(series.values):
            points = _decimate([(xs[i] - ox, y_of(v) - oy) for i, v in run])
            _line(draw, points, colour, width, pattern)
        last = next(((i, v) for i, v in reversed(list(enumerate(series.values)))
                     if v is not None), None)
        if last is not None:
            ends.append((xs[last[0]] - ox, y_of(last[1]) - oy, colour))
    for x, y, colour in ends:
        r = 6 * SS
        draw.ellipse((x * SS - r, y * SS - r, x * SS + r, y * SS + r), fill=colour,
                     outline=PANEL[:3], width=2 * SS)
    canvas.paste(big.reduce(SS), (ox, oy))  # each 3x3 block averaged: smooth, and fast
    if _legend_rows(view):
        _legend(canvas, view, panel_bottom + 16, labels)
    return canvas


def _grid(canvas: Image.Image, bottom: int, top: int, step: int, y_of: Scale,
          labels: ChartLabels, net: bool) -> None:
    draw = ImageDraw.Draw(canvas)
    value = bottom
    while value <= top:
        y = round(y_of(value))
        is_zero = net and value == 0
        draw.line([(PLOT_LEFT, y), (PLOT_RIGHT, y)], fill=ZERO if is_zero else GRID,
                  width=2 if is_zero else 1)
        draw_text(canvas, (PLOT_LEFT - 12, y + 6), labels.amount(value, signed=net), TICK_SIZE,
                  SOFT if is_zero or value == 0 else DIM, weight=Weight.REGULAR, align="right")
        value += step


def _x_axis(canvas: Image.Image, view: ChartView, xs: list[float]) -> None:
    """As many point names as fit without touching, evenly spread, the first and the last
    always among them; each axis's title where it starts."""
    base = PLOT_TOP + PLOT_HEIGHT + 30
    sprites = [text_sprite(label, TICK_SIZE, Weight.REGULAR) for label in view.x_labels]
    widest = max(s.width for s in sprites)
    room = max(2, int((PLOT_RIGHT - PLOT_LEFT) // (widest + 36)) + 1)
    count = len(xs)
    if count <= room:
        picks = list(range(count))
    else:
        picks = sorted({round(k * (count - 1) / (room - 1)) for k in range(room)})
    draw = ImageDraw.Draw(canvas)
    for i in picks:
        draw.line([(round(xs[i]), PLOT_TOP + PLOT_HEIGHT + 2),
                   (round(xs[i]), PLOT_TOP + PLOT_HEIGHT + 8)], fill=DIM, width=1)
        align = "center"
        x = xs[i]
        if count > 1 and i == 0:
            align, x = "left", xs[i] - 4
        elif count > 1 and i == count - 1:
            align, x = "right", xs[i] + 4
        draw_text(canvas, (x, base), view.x_labels[i], TICK_SIZE, DIM, weight=Weight.REGULAR,
                  align=align)
    draw_text(canvas, (PLOT_LEFT - 12, base), view.x_title, TICK_SIZE, SOFT,
              weight=Weight.REGULAR, align="right")
    draw_text(canvas, (PLOT_LEFT - 12, PLOT_TOP - 14), view.y_title, TICK_SIZE, SOFT,
              weight=Weight.REGULAR, align="right")


def _net_area(canvas: Image.Image, series: ChartSeries, xs: list[float], y_of: Scale) -> None:
    """Shade between the line and zero: sky blue where he was up, orange where he was down
    (two hues, not red and green, and the zero line says which side is which)."""
    ox, oy = LINES_BOX[:2]
    size = (LINES_BOX[2] - ox, LINES_BOX[3] - oy)
    zero = y_of(0) - oy
    for run in _runs(series.values):
        points = _decimate([(xs[i] - ox, y_of(v) - oy) for i, v in run])
        if len(points) < 2:
            continue
        shape = Image.new("L", (size[0] * SS, size[1] * SS), 0)
        ImageDraw.Draw(shape).polygon(
            [(x * SS, y * SS) for x, y in
             [(points[0][0], zero), *points, (points[-1][0], zero)]], fill=255)
        above = Image.new("L", shape.size, 0)
        ImageDraw.Draw(above).rectangle((0, 0, shape.width, zero * SS), fill=255)
        for colour, side in ((GAIN, above), (LOSS, ImageChops.invert(above))):
            mask = ImageChops.multiply(shape, side).resize(size, Image.Resampling.BOX)
            canvas.paste(colour, (ox, oy), mask.point(lambda v: v * 80 // 255))


def _legend(canvas: Image.Image, view: ChartView, top: int, labels: ChartLabels) -> None:
    """Each line's sample, its player and where he ended, in columns under the plot."""
    column_width = (WIDTH - 2 * MARGIN) // LEGEND_COLUMNS
    shown = view.series[:LEGEND_MAX]
    for index, series in enumerate(shown):
        row, col = divmod(index, LEGEND_COLUMNS)
        x = MARGIN + 8 + col * column_width
        y = top + row * LEGEND_ROW + 22
        colour, pattern = series_style(index, view.net)
        sample = Image.new("RGBA", (40 * SS, 12 * SS), (0, 0, 0, 0))
        _line(ImageDraw.Draw(sample), [(2, 6), (38, 6)], colour, 4, pattern)
        sample = sample.reduce(SS)
        canvas.paste(sample, (x, y - 12), sample)
        known = series.known
        value = labels.amount(known[-1], signed=view.net) if known else "—"
        value_sprite = text_sprite(value, LEGEND_SIZE)
        draw_text(canvas, (x + column_width - 24, y), value, LEGEND_SIZE, GOLD, align="right")
        draw_text(canvas, (x + 50, y), series.name, LEGEND_SIZE, WHITE,
                  max_width=column_width - 50 - 24 - value_sprite.width - 12)
    hidden = len(view.series) - len(shown)
    if hidden > 0:
        row, col = divmod(len(shown), LEGEND_COLUMNS)
        draw_text(canvas, (MARGIN + 8 + col * column_width + 50, top + row * LEGEND_ROW + 22),
                  labels.legend_more.format(n=hidden), LEGEND_SIZE, SOFT, weight=Weight.REGULAR)


# --- alt text --------------------------------------------------------------------------------

def chart_alt_text(view: ChartView, labels: ChartLabels = DEFAULT_CHART_LABELS,
                   limit: int = ALT_TEXT_LIMIT) -> str:
    """The chart in words for a screen reader, within Discord's ``limit``: its title, then each
    line from its first value to its last with its highest and lowest; lines that do not fit
    are counted at the end rather than cut in the middle."""
    head = labels.alt_chart.format(title=view.title, subtitle=view.subtitle)
    lines = []
    for series in view.series:
        known = series.known
        if not known:
            continue
        lines.append(labels.alt_series.format(
            name=isolate(series.name),
            first=labels.amount(known[0], signed=view.net),
            last=labels.amount(known[-1], signed=view.net),
            high=labels.amount(max(known), signed=view.net),
            low=labels.amount(min(known), signed=view.net),
        ))
    if not lines:
        return _cut(f"{head} {labels.alt_empty}", limit)
    text = head
    for done, line in enumerate(lines):
        rest = len(lines) - done - 1
        tail = f" {labels.alt_more.format(n=rest)}" if rest else ""
        more = f" {labels.alt_more.format(n=len(lines) - done)}"
        if len(text) + 1 + len(line) + len(tail) > limit:
            return _cut(text + more, limit)
        text += " " + line
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


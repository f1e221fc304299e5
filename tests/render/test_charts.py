"""Line charts (``bot.render.charts``): PNGs that open at their size, lines where their values
are (a spike among thousands of hands included), colours that read on the dark plate and stay
apart for colour-blind readers, and alt text within Discord's limit."""

from __future__ import annotations

import dataclasses
import io
import itertools

from PIL import Image

from bot.render import ChartLabels, ChartSeries, ChartView, render_chart, samples
from bot.render.charts import (
    ALT_TEXT_LIMIT,
    LEGEND_MAX,
    PALETTE,
    PANEL,
    PLOT_HEIGHT,
    PLOT_LEFT,
    PLOT_RIGHT,
    PLOT_TOP,
    WIDTH,
    chart_alt_text,
    chart_height,
    draw_chart,
    series_style,
    value_range,
)

CHARTS = [samples.session_chart, samples.crowded_session_chart, samples.net_chart,
          samples.empty_chart]


def test_every_sample_is_a_png_of_its_size_with_alt_text() -> None:
    for make in CHARTS:
        view = make()
        image = render_chart(view)
        with Image.open(io.BytesIO(image.png)) as png:
            assert png.format == "PNG" and png.size == (WIDTH, chart_height(view))
        assert (image.width, image.height, image.filename) == (*png.size, "chart.png")
        assert 0 < len(image.alt_text) <= ALT_TEXT_LIMIT
        assert len(image.png) < 1024 * 1024


def relative_luminance(colour: tuple[int, ...]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_every_line_colour_stands_out_from_the_plot() -> None:
    """WCAG asks 3:1 of graphics against what surrounds them."""
    panel = relative_luminance(PANEL)
    for colour in PALETTE:
        assert (relative_luminance(colour) + 0.05) / (panel + 0.05) >= 3, colour


def deuteranope(colour: tuple[int, int, int]) -> tuple[float, float, float]:
    """How a colour looks without green cones (Viénot, Brettel and Mollon's 1999 projection,
    in linear RGB)."""
    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in colour)
    return (0.29275 * r + 0.70725 * g, 0.29275 * r + 0.70725 * g,
            -0.02234 * r + 0.02234 * g + b)


def test_the_palette_stays_apart_without_green_cones() -> None:
    """The eight hues remain distinguishable for the commonest colour blindness: once red and
    green are merged, every two stay several times further apart than a plain red and green
    (which end up about 0.04 apart)."""

    def apart(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
        return sum((x - y) ** 2 for x, y in zip(deuteranope(a), deuteranope(b), strict=True)) ** 0.5

    assert apart((200, 60, 60), (60, 150, 60)) < 0.05
    for a, b in itertools.combinations(PALETTE, 2):
        assert apart(a, b) > 0.15, (a, b)


def test_past_eight_players_lines_change_pattern_not_just_colour() -> None:
    styles = [series_style(i) for i in range(24)]
    assert len(set(styles)) == 24
    assert {pattern for _, pattern in styles[:8]} == {None}
    assert styles[8][0] == styles[0][0] and styles[8][1] is not None


def test_a_spike_among_thousands_of_hands_is_still_drawn() -> None:
    values = [1_000] * 5_000
    values[2_345] = 9_000
    view = ChartView("t", "s", "Hand", "Chips", tuple(str(i) for i in range(5_000)),
                     (ChartSeries("a", tuple(values)),))
    image = draw_chart(view)
    bottom, top, _ = value_range(view)
    y_spike = PLOT_TOP + PLOT_HEIGHT * (top - 9_000) / (top - bottom)
    x_spike = PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * 2_345 / 4_999
    near = [image.getpixel((round(x_spike) + dx, round(y_spike) + dy))
            for dx in range(-2, 3) for dy in range(0, 4)]
    orange = PALETTE[0]
    assert any(sum(abs(a - b) for a, b in zip(p, orange, strict=True)) < 60 for p in near)


def test_gaps_are_left_open_and_a_lone_value_is_a_dot() -> None:
    values: tuple[int | None, ...] = (500, 600, None, None, 700, None, 800)
    view = ChartView("t", "s", "Hand", "Chips", tuple("abcdefg"),
                     (ChartSeries("a", values),))
    image = draw_chart(view)
    bottom, top, _ = value_range(view)
    xs = [PLOT_LEFT + (PLOT_RIGHT - PLOT_LEFT) * i / 6 for i in range(7)]

    def y(v: int) -> int:
        return round(PLOT_TOP + PLOT_HEIGHT * (top - v) / (top - bottom))

    # Halfway between 600 (index 1) and 700 (index 4) nothing is drawn.
    middle = ((xs[2] + xs[3]) / 2, (y(600) + y(700)) / 2)
    assert image.getpixel((round(middle[0]), round(middle[1])))[:3] == PANEL[:3]
    assert image.getpixel((round(xs[4]), y(700)))[:3] != PANEL[:3]


def test_alt_text_names_each_line_and_counts_what_does_not_fit() -> None:
    view = samples.crowded_session_chart()
    text = chart_alt_text(view)
    assert len(text) <= ALT_TEXT_LIMIT and text.startswith("Line chart: Ledger: #high-stakes.")
    assert "Player 1: from 2,000 to" in text and text.rstrip(".").split()[-1] == "more"
    named = text.count(": from ")
    assert f"And {len(view.series) - named} more." in text
    net = chart_alt_text(samples.net_chart())
    assert "Alice: from 0 to +" in net
    labels = ChartLabels(alt_chart="Graphique : {title}.", alt_series="{name} {last}.",
                         thousands_separator=" ")
    assert chart_alt_text(samples.session_chart(), labels).startswith(
        "Graphique : Ledger: #poker-night. 陈伟 Chen 1 435.")
    assert chart_alt_text(samples.empty_chart()).endswith("No hands yet.")


def test_a_long_legend_ends_with_how_many_more() -> None:
    view = samples.crowded_session_chart()
    assert len(view.series) > LEGEND_MAX
    fewer = dataclasses.replace(view, series=view.series[:LEGEND_MAX])
    assert chart_height(view) > chart_height(fewer) > chart_height(samples.net_chart())

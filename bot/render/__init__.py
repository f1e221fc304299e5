"""Table, hole-card and chart images for the poker bot: a plain snapshot in, PNG bytes and alt
text out.

Usage::

    from bot.render import render_table, render_hole_cards
    from bot.render.model import TableView, SeatView, HoleCardsView

    image = render_table(view)            # RenderedImage(png=b"...", alt_text="Poker table, ...")
    file = discord.File(io.BytesIO(image.png), filename=image.filename,
                        description=image.alt_text)

Rendering is synchronous CPU work (a few milliseconds) and thread-safe: the bot runs it with
``asyncio.to_thread``. Call :func:`warm_up` once at start-up (also in a thread) so the first
table of the day does not pay for loading fonts, cards and the palette (about a second).

The model is documented in :mod:`bot.render.model`; every word drawn can be translated through
:class:`bot.render.labels.Labels`. Each image is drawn in the faces of its words' language
(``labels.locale``): Traditional Chinese shapes for zh-TW (:func:`bot.render.fonts.faces_for`).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.render.alttext import hole_cards_alt_text, table_alt_text
from bot.render.charts import (
    DEFAULT_CHART_LABELS,
    ChartLabels,
    ChartSeries,
    ChartView,
    chart_alt_text,
    draw_chart,
)
from bot.render.encode import encode_palette_png, encode_png
from bot.render.fonts import faces_for
from bot.render.holecards import draw_hole_cards
from bot.render.labels import DEFAULT_LABELS, Labels
from bot.render.league import (
    DEFAULT_LEAGUE_LABELS,
    LeagueLabels,
    LeagueView,
    draw_league,
    league_alt_text,
)
from bot.render.model import (
    Blind,
    DeckStyle,
    HoleCardsView,
    PotView,
    SeatState,
    SeatView,
    Street,
    TableView,
)
from bot.render.palettes import hole_palette, table_palette
from bot.render.table import draw_table
from bot.render.tournament import (
    DEFAULT_TOURNAMENT_LABELS,
    TournamentLabels,
    TournamentView,
    draw_tournament,
    tournament_alt_text,
)

__all__ = [
    "DEFAULT_CHART_LABELS",
    "DEFAULT_LABELS",
    "Blind",
    "ChartLabels",
    "ChartSeries",
    "ChartView",
    "DeckStyle",
    "HoleCardsView",
    "Labels",
    "PotView",
    "RenderedImage",
    "SeatState",
    "SeatView",
    "Street",
    "TableView",
    "draw_chart",
    "draw_hole_cards",
    "draw_table",
    "render_chart",
    "render_hole_cards",
    "render_league",
    "render_table",
    "render_tournament",
    "warm_up",
]


@dataclass(frozen=True, slots=True)
class RenderedImage:
    """A finished image: PNG bytes, the alt text to attach, its size and a file name."""

    png: bytes
    alt_text: str
    width: int
    height: int
    filename: str


def render_table(view: TableView, labels: Labels = DEFAULT_LABELS) -> RenderedImage:
    """The public table image (1280x800 palette PNG, well under 100 KB) and its alt text."""
    with faces_for(labels.locale):
        image = draw_table(view, labels)
    return RenderedImage(encode_palette_png(image, table_palette()), table_alt_text(view, labels),
                         image.width, image.height, "table.png")


def render_hole_cards(view: HoleCardsView, labels: Labels = DEFAULT_LABELS) -> RenderedImage:
    """The private hole-card image (palette PNG, 376 px wide for two cards, about 520 for an
    Omaha hand's four or five) and its alt text."""
    with faces_for(labels.locale):
        image = draw_hole_cards(view)
    return RenderedImage(encode_palette_png(image, hole_palette()),
                         hole_cards_alt_text(view, labels),
                         image.width, image.height, "cards.png")


def render_tournament(
    view: TournamentView, labels: TournamentLabels = DEFAULT_TOURNAMENT_LABELS
) -> RenderedImage:
    """The tournament status board (1280 px wide palette PNG) and its alt text."""
    with faces_for(labels.locale):
        image = draw_tournament(view, labels)
    return RenderedImage(encode_palette_png(image, table_palette()),
                         tournament_alt_text(view, labels), image.width, image.height,
                         "tournament.png")


def render_league(view: LeagueView,
                  labels: LeagueLabels = DEFAULT_LEAGUE_LABELS) -> RenderedImage:
    """A league's standings (a podium and the table, 1280 px wide palette PNG) and its alt
    text."""
    with faces_for(labels.locale):
        image = draw_league(view, labels)
    return RenderedImage(encode_palette_png(image, table_palette()),
                         league_alt_text(view, labels), image.width, image.height,
                         "league.png")


def render_chart(view: ChartView, labels: ChartLabels = DEFAULT_CHART_LABELS) -> RenderedImage:
    """A line chart (1200 px wide, true-colour PNG: its smooth lines and shaded areas would band
    in a fixed palette, and a chart is drawn once per request, not once per action) and its
    alt text."""
    with faces_for(labels.locale):
        image = draw_chart(view, labels)
    return RenderedImage(encode_png(image), chart_alt_text(view, labels), image.width,
                         image.height, view.filename)


def warm_up() -> None:
    """Load fonts and card art and build the palette now rather than on the first image."""
    from bot.render import samples

    table_palette()
    hole_palette()
    # One busy table of the default deck loads the fonts and sprites nearly every image uses;
    # drawing every sample would hold sprites for art a server may never pick.
    draw_table(samples.nine_seat_river())
    draw_hole_cards(samples.hole_cards(DeckStyle.CLASSIC))

"""What the bot says and draws about a league: its name as members may type it, its points
rule in the reader's words, and its standings as an image (``bot.render.league``) and as the
same facts in text.

A league's name heads messages, images and a command's option: it is refused rather than
escaped when it could ping (``@everyone``, ``<@id>``), format (markdown), link a channel
(``#``) or upset a line (control and direction characters, combining marks piled on a letter):
letters, digits, spaces and a few marks of punctuation only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

import discord

from bot.errors import BotError
from bot.i18n import t
from bot.interact import is_admin
from bot.presenter import mention, safe_text
from bot.render.labels import catalog_words
from bot.render.league import LeagueLabels, LeagueLine, LeagueView
from bot.storage.leagues import MAX_LEAGUE_NAME, League, Standings
from engine.league import PointsRule, hundredths_text, read_points

PUNCTUATION = frozenset(" -.,'!?&()+/:")
TEXT_LIMIT = 2000  # one Discord message


def league_name(value: object) -> str:
    """A league's name as typed, its spaces tidied, or ``bad_league_name``.

    >>> league_name("  Spring   2026 ")
    'Spring 2026'
    >>> league_name("@everyone")
    Traceback (most recent call last):
    ...
    bot.errors.BotError: bad_league_name: maximum=50
    """
    if not isinstance(value, str):
        raise BotError("bad_league_name", maximum=MAX_LEAGUE_NAME)
    text = " ".join(unicodedata.normalize("NFC", value).split())
    if not text or len(text) > MAX_LEAGUE_NAME or not all(
        unicodedata.category(c)[0] in "LN" or c in PUNCTUATION for c in text
    ):
        raise BotError("bad_league_name", maximum=MAX_LEAGUE_NAME)
    return text


def may_run(interaction: discord.Interaction[Any], league: League) -> bool:
    """The league's host, or a member who manages the server."""
    return interaction.user.id == league.host_id or is_admin(interaction)


def rule_text(points: str | PointsRule, locale: object = None) -> str:
    """A points rule in the reader's words (a list by place stays as written)."""
    rule = read_points(points) if isinstance(points, str) else points
    if rule.kind == "places":
        return rule.text
    return t(f"league.rule.{rule.kind}", locale)


def league_labels(locale: object = None) -> LeagueLabels:
    """The standings image's words from the catalog (``league_board.<field>``)."""
    return catalog_words(LeagueLabels, "league_board", locale)


def league_view(standings: Standings, names: Mapping[int, str],
                locale: object = None) -> LeagueView:
    """Standings as the image draws them: names raw (images render no markdown)."""
    league = standings.league
    return LeagueView(
        name=league.name,
        rule=rule_text(league.points, locale),
        tournaments=standings.tournaments,
        lines=tuple(
            LeagueLine(s.rank, names.get(s.user_id) or str(s.user_id), hundredths_text(s.points),
                       s.played, s.best, s.wins)
            for s in standings.rows
        ),
        closed=league.closed,
    )


def standings_text(standings: Standings, locale: object = None) -> str:
    """The standings as one message: each player by mention, as many as fit."""
    league = standings.league
    lines = [t("reply.league_standings_title", locale, league=safe_text(league.name),
               tournaments=standings.tournaments, points=rule_text(league.points, locale))]
    if standings.deals:
        lines.append(t("reply.league_standings_deals", locale, deals=standings.deals))
    if not standings.rows:
        lines.append(t("reply.league_standings_empty", locale))
    for index, row in enumerate(standings.rows):
        line = t("reply.league_standings_line", locale, rank=row.rank,
                 player=mention(row.user_id), points=hundredths_text(row.points),
                 played=row.played, best=row.best, wins=row.wins)
        more = t("reply.league_standings_more", locale, n=len(standings.rows) - index)
        if len("\n".join([*lines, line, more])) > TEXT_LIMIT:
            lines.append(more)
            break
        lines.append(line)
    return "\n".join(lines)


__all__ = ["league_labels", "league_name", "league_view", "may_run", "rule_text",
           "standings_text"]

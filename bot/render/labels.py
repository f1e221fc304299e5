"""Every word the renderer writes, in one replaceable object.

The renderer is not told the language. It draws and describes with a :class:`Labels`,
English by default: :func:`catalog_labels` builds one from the bot's catalog (``render.<field>``
keys) for any locale; pass it to ``render_table(view, labels=...)``. Templates use
``str.format`` fields named in each default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar, cast

from bot.i18n import has_message, resolve_locale, t
from bot.render.model import RANKS, SUITS, SeatState, Street

_Words = TypeVar("_Words")

__all__ = [
    "DEFAULT_LABELS",
    "Labels",
    "catalog_labels",
    "catalog_words",
    "format_chips",
    "format_percent",
    "format_tie",
    "hand_words",
]


@dataclass(frozen=True, slots=True)
class Labels:
    # On the image
    pot: str = "Pot"
    main_pot: str = "Main pot"
    side_pot: str = "Side pot {n}"
    hand: str = "Hand #{n}"
    blinds: str = "Blinds {sb}/{bb}"
    ante: str = "Ante {ante}"
    waiting: str = "Waiting for players"
    preflop: str = "Pre-flop"
    flop: str = "Flop"
    turn: str = "Turn"
    river: str = "River"
    showdown: str = "Showdown"
    complete: str = "Hand over"
    folded: str = "Folded"
    all_in: str = "All-in"
    sitting_out: str = "Sitting out"
    away: str = "Away"
    to_act: str = "To act"
    mucked: str = "Mucked"
    winner: str = "Winner"
    empty_seat: str = "Empty seat"
    dealer_marker: str = "D"
    small_blind_marker: str = "SB"
    big_blind_marker: str = "BB"
    more_pots: str = "+{n} more"
    pot_amount: str = "{pot} {amount}"
    won_by: str = "{pot} {amount}: {names}"
    name_separator: str = ", "
    thousands_separator: str = ","
    your_hand: str = "Your hand"
    run: str = "Run {n}"
    equity: str = "Win {win}"
    equity_tie: str = "Win {win} · Tie {tie}"
    equity_exact: str = "Odds: exact"
    equity_estimate: str = "Odds: ≈ estimated"
    # High-low games: a seat's low under its high hand (badge and alt text), and a pot split
    # between the best high ({high}: names) and the best low ({low}: names).
    low_hand: str = "Low: {hand}"
    won_by_hi_lo: str = "{pot} {amount}: {high} · Low: {low}"
    # Alt text only
    alt_table: str = "Poker table"
    alt_board: str = "Board: {cards}."
    alt_no_board: str = "No board cards yet."
    alt_pots: str = "{pots}."
    alt_pot_total: str = "Pot: {amount}."
    alt_no_pot: str = "No pot yet."
    alt_seat: str = "Seat {n}, {name}"
    alt_empty_seat: str = "Seat {n} empty"
    alt_dealer: str = "dealer"
    alt_small_blind: str = "small blind"
    alt_big_blind: str = "big blind"
    alt_stack: str = "{amount} chips"
    alt_bet: str = "bet {amount}"
    alt_face_down: str = "{count} cards face down"
    alt_shows: str = "shows {cards}"
    alt_best_five: str = "best five {cards}"
    alt_winner: str = "winner"
    alt_to_act: str = "{name} to act."
    alt_pot_won: str = "{pot} {amount} won by {names}."
    alt_pot_split: str = "{pot} {amount} split between {names}."
    alt_and: str = " and "
    alt_card: str = "{rank} of {suit}"
    alt_hole_cards: str = "Your cards: {cards}."
    alt_current_hand: str = "Current hand: {hand}."
    alt_run_board: str = "{run} board: {cards}."
    alt_run_pot: str = "{run}, {pot}"
    alt_on_run: str = "{run}: {hand}"
    # A high-low pot's halves, each said with its winners: "Pot, low half 600 won by Bob."
    alt_high_half: str = "{pot}, high half"
    alt_low_half: str = "{pot}, low half"
    alt_equity: str = "{win} to win"
    alt_equity_tie: str = "{win} to win, {tie} to tie"
    alt_equity_exact: str = "Odds counted over every board still possible."
    alt_equity_estimate: str = "Odds estimated from a sample of boards (≈, within half a point)."
    # How the alt text joins its pieces: the items of a list (cards, names), the facts of one
    # seat, the seats, a sentence's end and the gap before the next sentence.
    alt_list: str = ", "
    alt_comma: str = ", "
    alt_semicolon: str = "; "
    alt_period: str = "."
    alt_space: str = " "
    rank_names: tuple[str, ...] = (
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "jack", "queen", "king", "ace",
    )
    suit_names: tuple[str, ...] = ("clubs", "diamonds", "hearts", "spades")
    # The catalog's language these words are in (set by ``catalog_words``): Chinese characters
    # are drawn in its region's shapes (``fonts.faces_for``).
    locale: str = "en"

    def street(self, street: Street) -> str:
        return {
            Street.WAITING: self.waiting,
            Street.PREFLOP: self.preflop,
            Street.FLOP: self.flop,
            Street.TURN: self.turn,
            Street.RIVER: self.river,
            Street.SHOWDOWN: self.showdown,
            Street.COMPLETE: self.complete,
        }[street]

    def state(self, state: SeatState) -> str:
        return {
            SeatState.ACTIVE: "",
            SeatState.FOLDED: self.folded,
            SeatState.ALL_IN: self.all_in,
            SeatState.SITTING_OUT: self.sitting_out,
            SeatState.AWAY: self.away,
        }[state]

    def pot_label(self, index: int, count: int, given: str = "") -> str:
        """"Pot" when there is one, else "Main pot", "Side pot 1"…, unless the bot named it."""
        if given:
            return given
        if count == 1:
            return self.pot
        return self.main_pot if index == 0 else self.side_pot.format(n=index)

    def card_words(self, card: str) -> str:
        return self.alt_card.format(
            rank=self.rank_names[RANKS.index(card[0])], suit=self.suit_names[SUITS.index(card[1])]
        )

    def chips(self, amount: int) -> str:
        return format_chips(amount, self.thousands_separator)


def format_percent(share: float, exact: bool = True) -> str:
    """A chance as players read it: ``"45.2%"`` counted exactly, ``"≈45%"`` when estimated
    (a sampled figure is good to half a point, so a decimal would claim more than it knows).
    An exact figure reads 0% or 100% only for a certainty: a hand with one board left to win
    on is not "0.0%".

    >>> format_percent(0.4517), format_percent(0.4517, exact=False), format_percent(0.99999)
    ('45.2%', '≈45%', '99.9%')
    >>> format_percent(0.0), format_percent(1.0), format_percent(0.0004)
    ('0%', '100%', '0.1%')
    """
    if exact and share <= 0.0:
        return "0%"
    if exact and share >= 1.0:
        return "100%"
    if not exact:
        return f"≈{round(share * 100):d}%"
    value = min(max(round(share * 100, 1), 0.1), 99.9)
    return f"{value:.1f}%"


def format_tie(share: float, exact: bool = True) -> str | None:
    """The chance of a tie as it is said beside the chance to win, or None when it goes
    unsaid: no board ties, or too few for an estimate to tell from none.

    >>> format_tie(0.0138), format_tie(0.0), format_tie(0.0036, exact=False)
    ('1.4%', None, None)
    """
    if share <= 0.0:
        return None
    text = format_percent(share, exact)
    return None if text == "≈0%" else text


def format_chips(amount: int, separator: str = ",") -> str:
    """``12500`` -> ``"12,500"``."""
    return f"{amount:,}".replace(",", separator)


def short_chips(amount: int, separator: str = ",") -> str:
    """Up to 7 digits in full; beyond, ``"12.5M"`` / ``"3.25B"`` so it fits a name plate."""
    if amount < 10_000_000:
        return format_chips(amount, separator)
    for div, suffix in ((1_000_000_000_000, "T"), (1_000_000_000, "B"), (1_000_000, "M")):
        if amount >= div:
            value = amount / div
            digits = 2 if value < 10 else 1 if value < 100 else 0
            text = f"{value:.{digits}f}"
            if "." in text:
                text = text.rstrip("0").rstrip(".")
            return text + suffix
    return format_chips(amount, separator)


DEFAULT_LABELS = Labels()


def catalog_labels(locale: object = None) -> Labels:
    """The renderer's words in ``locale`` from the message catalog (``render.<field>``; the
    number format is the one every message uses)."""
    return catalog_words(Labels, "render", locale)


def catalog_words(kind: type[_Words], prefix: str, locale: object = None) -> _Words:
    """A drawing's words (``Labels``, ``TournamentLabels``, ``ChartLabels``) in ``locale``:
    each field from ``<prefix>.<field>`` where the catalog has it (the drawing's own English
    otherwise), comma-separated lists as tuples, the number format every message uses, and
    the language itself (``locale``: the faces the words and names are drawn in)."""
    key = (kind, prefix, resolve_locale(locale))
    words = _WORDS.get(key)
    if words is None:
        words = _WORDS[key] = _read_words(kind, prefix, key[2])
    return cast(_Words, words)


def _read_words(kind: type[Any], prefix: str, tag: str) -> object:
    values: dict[str, object] = {}
    for f in fields(kind):
        if f.name == "locale":
            values["locale"] = tag
            continue
        key = "number.thousands_separator" if f.name == "thousands_separator" else (
            f"{prefix}.{f.name}")
        if not has_message(key, tag):
            continue
        text = t(key, tag)
        if f.name in _LISTS:
            values[f.name] = tuple(part.strip() for part in text.split(","))
        else:
            values[f.name] = text
    return kind(**values)


# Drawn once per kind and language: every image of a table asks for them.
_WORDS: dict[tuple[type[Any], str, str], object] = {}
_LISTS = ("rank_names", "suit_names")  # fields the catalog writes as "a, b, c"


def hand_words(code: str, ranks: Sequence[str], locale: object = None, *,
               short: bool = False) -> str:
    """A hand's name in the catalog's words from its code and naming ranks (the engine's
    ``HandRank.describe_parts()``): ``hand.<code>`` says it whole ("Two pair, jacks and fours,
    ace kicker"), ``hand_short.<code>`` in the few words an image's badge holds ("Jacks and
    fours"). Templates take ``{sN}`` / ``{pN}``, the N-th rank as one card or as several, and
    ``{SN}`` / ``{PN}`` the same capitalized.

    >>> hand_words("full_house", ("K", "4"), "en"), hand_words("two_pair", ("J", "4", "A"), "zh-TW")
    ('Full house, kings over fours', '兩對 J 和 4，踢腳 A')
    """
    words: dict[str, str] = {}
    for k, rank in enumerate(ranks):
        one, many = t(f"rank.one.{rank}", locale), t(f"rank.many.{rank}", locale)
        words[f"s{k}"], words[f"p{k}"] = one, many
        words[f"S{k}"], words[f"P{k}"] = one[:1].upper() + one[1:], many[:1].upper() + many[1:]
    prefix = "hand_short" if short else "hand"
    return t(f"{prefix}.{code}", locale, **words)

"""Every word the renderer writes, in one replaceable object.

The renderer is not told the language. It draws and describes with a :class:`Labels`,
English by default: :func:`catalog_labels` builds one from the bot's catalog (``render.<field>``
keys) for any locale; pass it to ``render_table(view, labels=...)``. Templates use
``str.format`` fields named in each default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache

from bot.i18n import has_message, resolve_locale, t
from bot.render.model import RANKS, SUITS, SeatState, Street

__all__ = ["DEFAULT_LABELS", "Labels", "catalog_labels", "format_chips", "hand_words"]


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
    return _catalog_labels(resolve_locale(locale))


@cache
def _catalog_labels(tag: str) -> Labels:
    values: dict[str, object] = {}
    for f in fields(Labels):
        key = "number.thousands_separator" if f.name == "thousands_separator" else (
            f"render.{f.name}")
        if not has_message(key, tag):
            continue  # the renderer's own English stays
        text = t(key, tag)
        if f.name in ("rank_names", "suit_names"):
            values[f.name] = tuple(part.strip() for part in text.split(","))
        else:
            values[f.name] = text
    return Labels(**values)  # type: ignore[arg-type]


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

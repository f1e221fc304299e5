"""Cards as small ints, their text forms and a secure shuffle.

A card is an int 0..51 equal to ``rank * 4 + suit``: ranks 0..12 stand for 2..A and suits 0..3 for
clubs, diamonds, hearts, spades. Plain ints keep hands cheap to copy, hash and store, and the same
numbering is the one the native evaluator reads, so evaluation needs no conversion.

>>> c = parse_card("As")
>>> c, rank_of(c), suit_of(c), format_card(c), pretty_card(c)
(51, 12, 3, 'As', 'A♠')
>>> format_cards(parse_cards("10h J♦ qc"))
'ThJdQc'

The shuffle's commitment (posted before a deal, opened card by card after it) is in
:mod:`engine.commitment`.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import NewType

from engine.errors import EngineError

__all__ = [
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "Card",
    "check_deck",
    "format_card",
    "format_cards",
    "make_card",
    "parse_card",
    "parse_cards",
    "pretty_card",
    "pretty_cards",
    "rank_of",
    "shuffled_deck",
    "suit_of",
]

Card = NewType("Card", int)

RANKS = "23456789TJQKA"
"""Rank characters, index = rank (``RANKS[12] == "A"``)."""
SUITS = "cdhs"
"""Suit letters, index = suit."""
SUIT_SYMBOLS = "♣♦♥♠"
"""Suit symbols, index = suit."""

FULL_DECK: tuple[Card, ...] = tuple(Card(i) for i in range(52))
"""The 52 cards in numeric order: 2c 2d 2h 2s 3c ... As."""

# Everything parse_card accepts, folded to one lookup so parsing is a dict hit, not a branch tree.
_RANK_OF_TEXT: dict[str, int] = {ch: i for i, ch in enumerate(RANKS)}
_RANK_OF_TEXT.update({ch.lower(): i for i, ch in enumerate(RANKS)})
_RANK_OF_TEXT["10"] = RANKS.index("T")
# The outlined symbols (♤♡♢♧) are accepted because players paste them too.
_SUIT_OF_TEXT: dict[str, int] = {
    text: suit
    for suit in range(4)
    for text in (SUITS[suit], SUITS[suit].upper(), SUIT_SYMBOLS[suit], "♧♢♡♤"[suit])
}

# Discord and phone keyboards append U+FE0F (emoji presentation) to suit symbols: "♠️".
_VARIATION_SELECTOR = "\ufe0f"

_NAMES: tuple[str, ...] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(52))
_PRETTY: tuple[str, ...] = tuple(
    ("10" if c >> 2 == 8 else RANKS[c >> 2]) + SUIT_SYMBOLS[c & 3] for c in range(52)
)


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c, d, h, s).

    >>> make_card(12, 3) == parse_card("As")
    True
    """
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise EngineError("bad_card", text=f"rank={rank}, suit={suit}")
    return Card(rank * 4 + suit)


def rank_of(card: Card) -> int:
    """Rank 0..12 (2..A) of ``card``.

    >>> rank_of(parse_card("Td"))
    8
    """
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit 0..3 (c, d, h, s) of ``card``.

    >>> suit_of(parse_card("Td"))
    1
    """
    return card & 3


def parse_card(text: str) -> Card:
    """Parse one card: ``"As"``, ``"as"``, ``"AS"``, ``"A♠"``, ``"A♠️"``, ``"10s"``, ``"Ts"``.

    Surrounding whitespace is ignored; anything else raises ``EngineError("bad_card", text=...)``.

    >>> parse_card("10♥") == parse_card("th")
    True
    >>> parse_card("1s")
    Traceback (most recent call last):
    ...
    engine.errors.EngineError: bad_card: text='1s'
    """
    if not isinstance(text, str):
        raise EngineError("bad_card", text=repr(text))
    body = text.strip().replace(_VARIATION_SELECTOR, "")
    rank = _RANK_OF_TEXT.get(body[:-1])
    suit = _SUIT_OF_TEXT.get(body[-1:])
    if rank is None or suit is None:
        raise EngineError("bad_card", text=text)
    return Card(rank * 4 + suit)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse several cards; whitespace and commas between them are optional.

    Duplicates are returned as given: whether they are allowed is the caller's rule.

    >>> format_cards(parse_cards("AsKd Th"))
    'AsKdTh'
    >>> format_cards(parse_cards("10♠,9♠ 8♠️"))
    'Ts9s8s'
    """
    if not isinstance(text, str):
        raise EngineError("bad_card", text=repr(text))
    cards: list[Card] = []
    body = text.replace(_VARIATION_SELECTOR, "")
    i, end = 0, len(body)
    while i < end:
        if body[i].isspace() or body[i] == ",":
            i += 1
            continue
        # "10" is the only two-character rank; every suit is one character.
        width = 3 if body.startswith("10", i) else 2
        token = body[i : i + width]
        rank = _RANK_OF_TEXT.get(token[:-1])
        suit = _SUIT_OF_TEXT.get(token[-1:]) if len(token) == width else None
        if rank is None or suit is None:
            raise EngineError("bad_card", text=_token_at(body, i))
        cards.append(Card(rank * 4 + suit))
        i += width
    return tuple(cards)


def _token_at(body: str, start: int) -> str:
    """The whitespace-delimited chunk starting at ``start``, to name what failed to parse."""
    stop = start
    while stop < len(body) and not body[stop].isspace() and body[stop] != ",":
        stop += 1
    return body[start:stop]


def _check(card: int) -> None:
    # Tuple indexing would quietly accept -1..-52, so the range is checked explicitly.
    if not (isinstance(card, int) and 0 <= card < 52):
        raise EngineError("bad_card", text=repr(card))


def check_deck(cards: Iterable[object]) -> tuple[Card, ...]:
    """``cards`` as a deck order: 1 to 52 distinct cards, or ``EngineError("bad_deck")``.

    >>> check_deck([51, 45]) == (Card(51), Card(45))
    True
    """
    if isinstance(cards, str | bytes):
        raise EngineError("bad_deck", reason="not_a_list")
    deck = tuple(cards)
    for card in deck:
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise EngineError("bad_deck", reason="bad_card", card=repr(card)[:20])
    if not 1 <= len(deck) <= 52 or len(set(deck)) != len(deck):
        raise EngineError("bad_deck", reason="size_or_duplicates", size=len(deck))
    return tuple(Card(c) for c in deck)  # type: ignore[arg-type]


def format_card(card: Card) -> str:
    """Two-character text: rank in ``23456789TJQKA``, suit in ``cdhs``.

    >>> format_card(Card(0)), format_card(Card(34))
    ('2c', 'Th')
    """
    _check(card)
    return _NAMES[card]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as one string without separators, as hand histories write them.

    >>> format_cards([Card(51), Card(45)])
    'AsKd'
    """
    return "".join(map(format_card, cards))


def pretty_card(card: Card) -> str:
    """Text for people: suit symbol, and ``10`` rather than ``T``.

    >>> pretty_card(Card(51)), pretty_card(Card(34))
    ('A♠', '10♥')
    """
    _check(card)
    return _PRETTY[card]


def pretty_cards(cards: Iterable[Card], sep: str = " ") -> str:
    """Several cards for people, separated by ``sep``.

    >>> pretty_cards(parse_cards("AsKd"))
    'A♠ K♦'
    """
    return sep.join(map(pretty_card, cards))


def shuffled_deck() -> tuple[Card, ...]:
    """A fresh deck in random order from the operating system's secure generator.

    >>> sorted(shuffled_deck()) == list(FULL_DECK)
    True
    """
    # SystemRandom reads os.urandom and keeps no state, so a new one per deck costs nothing and
    # leaves the engine without module-level state.
    deck = list(FULL_DECK)
    secrets.SystemRandom().shuffle(deck)
    return tuple(deck)

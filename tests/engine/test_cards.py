"""Cards: numbering, parsing and formatting, the shuffle (commitments: test_commitment.py)."""

from __future__ import annotations

import doctest
import random
import secrets

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine.cards
from engine.cards import (
    FULL_DECK,
    RANKS,
    SUITS,
    Card,
    format_card,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    pretty_card,
    pretty_cards,
    rank_of,
    shuffled_deck,
    suit_of,
)
from engine.errors import EngineError

card_st = st.sampled_from(FULL_DECK)


def test_docstring_examples() -> None:
    assert doctest.testmod(engine.cards).failed == 0


# --- numbering -------------------------------------------------------------------------------


def test_numbering_is_rank_times_four_plus_suit() -> None:
    assert parse_card("2c") == 0
    assert parse_card("2s") == 3
    assert parse_card("3c") == 4
    assert parse_card("Td") == 8 * 4 + 1
    assert parse_card("As") == 51
    for card in FULL_DECK:
        assert card == rank_of(card) * 4 + suit_of(card)
        assert make_card(rank_of(card), suit_of(card)) == card


def test_full_deck_is_ordered_and_complete() -> None:
    assert len(FULL_DECK) == 52
    assert list(FULL_DECK) == list(range(52))
    assert format_cards(FULL_DECK[:5]) == "2c2d2h2s3c"
    assert format_card(FULL_DECK[-1]) == "As"


@pytest.mark.parametrize(("rank", "suit"), [(-1, 0), (13, 0), (0, -1), (0, 4)])
def test_make_card_rejects_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(EngineError) as info:
        make_card(rank, suit)
    assert info.value.code == "bad_card"


# --- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["As", "as", "AS", "aS", "A♠", "a♠", "A♤", "A♠\ufe0f", " As ", "\tA♠\n"],
)
def test_parse_card_accepts_every_spelling_of_the_ace_of_spades(text: str) -> None:
    assert parse_card(text) == 51


@pytest.mark.parametrize("text", ["Th", "th", "TH", "10h", "10H", "10♥", "10♡", "T♥\ufe0f"])
def test_parse_card_accepts_every_spelling_of_ten(text: str) -> None:
    assert parse_card(text) == make_card(8, 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2♣", 0), ("3♦", 5), ("4♥", 10), ("5♠", 15), ("Jc", 36), ("qD", 41), ("kh", 46)],
)
def test_parse_card_symbols_and_letters(text: str, expected: int) -> None:
    assert parse_card(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", " ", "A", "s", "1s", "11s", "01s", "Ax", "AsK", "Zs", "A s", "♠A", "10", "As\ufe0fs"],
)
def test_parse_card_rejects_bad_text(text: str) -> None:
    with pytest.raises(EngineError) as info:
        parse_card(text)
    assert info.value.code == "bad_card"
    assert info.value.params == {"text": text}


def test_parse_card_rejects_non_text() -> None:
    with pytest.raises(EngineError) as info:
        parse_card(51)  # type: ignore[arg-type]
    assert info.value.code == "bad_card"


def test_parse_cards_separators_are_optional() -> None:
    expected = (parse_card("As"), parse_card("Kd"), parse_card("Th"))
    for text in ["AsKd Th", "AsKdTh", "As Kd Th", " as,kd, 10h ", "A♠K♦10♥", "A♠️ K♦️ T♥️"]:
        assert parse_cards(text) == expected, text


def test_parse_cards_ten_next_to_ten() -> None:
    assert format_cards(parse_cards("10s10h")) == "TsTh"


def test_parse_cards_empty_and_duplicates() -> None:
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()
    assert parse_cards("AsAs") == (51, 51)


@pytest.mark.parametrize(
    ("text", "bad"), [("AsK", "K"), ("As Xx Kd", "Xx"), ("As1", "1"), ("AsKd,Q", "Q")]
)
def test_parse_cards_names_the_bad_piece(text: str, bad: str) -> None:
    with pytest.raises(EngineError) as info:
        parse_cards(text)
    assert info.value.code == "bad_card"
    assert info.value.params == {"text": bad}


# --- formatting ------------------------------------------------------------------------------


def test_format_and_pretty_every_card() -> None:
    for card in FULL_DECK:
        text = format_card(card)
        assert text == RANKS[rank_of(card)] + SUITS[suit_of(card)]
        assert parse_card(text) == card
        assert parse_card(pretty_card(card)) == card
    assert pretty_card(parse_card("Ts")) == "10♠"
    assert pretty_card(parse_card("2c")) == "2♣"
    assert pretty_card(parse_card("Qd")) == "Q♦"
    assert pretty_card(parse_card("Jh")) == "J♥"
    assert pretty_cards(parse_cards("AsKd")) == "A♠ K♦"
    assert pretty_cards(parse_cards("AsKd"), sep="") == "A♠K♦"


@pytest.mark.parametrize("card", [-1, 52, 1000])
def test_format_rejects_out_of_range(card: int) -> None:
    with pytest.raises(EngineError) as info:
        format_card(Card(card))
    assert info.value.code == "bad_card"
    with pytest.raises(EngineError):
        pretty_card(Card(card))


@given(st.lists(card_st, max_size=60))
def test_format_cards_round_trip(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == tuple(cards)
    assert parse_cards(pretty_cards(cards)) == tuple(cards)
    assert parse_cards(pretty_cards(cards, sep="")) == tuple(cards)


_SPELLINGS = (
    format_card,
    pretty_card,
    lambda c: format_card(c).lower(),
    lambda c: format_card(c).upper(),
    lambda c: pretty_card(c) + "\ufe0f",
)


@given(
    st.lists(
        st.tuples(
            card_st,
            st.sampled_from(range(len(_SPELLINGS))),
            st.sampled_from(["", " ", ", ", "\n", "  \t"]),
        ),
        max_size=20,
    )
)
def test_parse_cards_mixed_spellings(items: list[tuple[Card, int, str]]) -> None:
    text = "".join(_SPELLINGS[spelling](card) + sep for card, spelling, sep in items)
    assert parse_cards(text) == tuple(card for card, _, _ in items)


@given(card_st)
def test_parse_card_round_trip(card: Card) -> None:
    assert parse_card(format_card(card)) == card
    assert parse_card(pretty_card(card)) == card


# --- shuffle ---------------------------------------------------------------------------------


def test_shuffled_deck_is_a_permutation() -> None:
    deck = shuffled_deck()
    assert isinstance(deck, tuple)
    assert sorted(deck) == list(FULL_DECK)
    # Two equal orders in a row would have odds of 1 in 52!, so this never fails by chance.
    assert shuffled_deck() != deck


def test_shuffled_deck_uses_system_random(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []

    class RecordingRandom(random.Random):
        def __init__(self) -> None:
            super().__init__(7)
            made.append(self)

    monkeypatch.setattr(secrets, "SystemRandom", RecordingRandom)
    deck = shuffled_deck()
    assert len(made) == 1
    expected = list(FULL_DECK)
    random.Random(7).shuffle(expected)
    assert deck == tuple(expected)

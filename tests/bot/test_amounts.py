"""Amounts typed by users are read exactly, or refused with the reason a user can act on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.amounts import read_chips, read_count, read_optional_chips
from bot.errors import BotError
from engine.limits import MAX_CHIPS


@pytest.mark.parametrize(
    ("text", "chips"),
    [
        ("40", 40),
        (" 40 ", 40),
        ("1,000", 1_000),
        ("1 000 000", 1_000_000),
        ("1_000", 1_000),
        ("2k", 2_000),
        ("2.5k", 2_500),
        ("2.5K", 2_500),
        ("1.25m", 1_250_000),
        ("1,000.5k", 1_000_500),
        ("１２００", 1_200),  # full-width digits from a Chinese input method
        ("１，２００", 1_200),
        ("０.５ｍ", 500_000),
    ],
)
def test_what_players_type_is_read_exactly(text: str, chips: int) -> None:
    assert read_chips(text, "amount") == chips


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("²", "amount_not_whole"),  # a superscript int() would once have crashed on
        ("①", "amount_not_whole"),
        ("--5", "amount_not_whole"),
        ("0.99999999999999999", "amount_not_whole"),  # a float would round it to 1
        ("1.0", "amount_not_whole"),
        ("1e3", "amount_not_whole"),
        ("10,00", "amount_not_whole"),
        ("1,0000", "amount_not_whole"),
        ("1,000 000", "amount_not_whole"),  # mixed separators
        ("1.0001k", "amount_not_whole"),  # a fraction of a chip
        ("١٢", "amount_not_whole"),  # other scripts' digits
        ("", "amount_not_whole"),
        ("k", "amount_not_whole"),
        ("9" * 41, "amount_not_whole"),
        (5.0, "amount_not_whole"),  # a float is never an integer option
        (True, "amount_not_whole"),
        (None, "amount_not_whole"),
        ("-5", "amount_not_positive"),
        ("0", "amount_not_positive"),
        (0, "amount_not_positive"),
        (-1, "amount_not_positive"),
        (MAX_CHIPS + 1, "amount_too_large"),
        (10**30, "amount_too_large"),
        ("1,000,001m", "amount_too_large"),
    ],
)
def test_anything_else_is_refused_with_its_reason(value: object, code: str) -> None:
    with pytest.raises(BotError) as refused:
        read_chips(value, "amount")
    assert refused.value.code == code
    assert refused.value.params["option"] == "amount"


def test_zero_only_where_allowed_and_optional_options() -> None:
    assert read_chips("0", "ante_amount", allow_zero=True) == 0
    assert read_optional_chips(None, "min_buy_in") is None
    assert read_optional_chips(7, "min_buy_in") == 7


@given(st.integers(min_value=1, max_value=MAX_CHIPS))
def test_every_amount_reads_back_in_every_spelling(chips: int) -> None:
    assert read_chips(str(chips), "amount") == chips
    assert read_chips(f"{chips:,}", "amount") == chips
    assert read_chips(f"{chips:_}", "amount") == chips
    if chips % 1000 == 0:
        assert read_chips(f"{chips // 1000}k", "amount") == chips
    if chips % 100 == 0 and chips >= 1000:
        whole, tenths = divmod(chips // 100, 10)
        assert read_chips(f"{whole}.{tenths}k", "amount") == chips


@given(st.text(max_size=60))
def test_no_text_crashes_the_reader(text: str) -> None:
    try:
        chips = read_chips(text, "amount")
    except BotError as refused:
        assert refused.code in {"amount_not_whole", "amount_not_positive", "amount_too_large"}
    else:
        assert 0 < chips <= MAX_CHIPS


def test_counts_are_whole_numbers_in_range() -> None:
    assert read_count(9, "seats", 2, 10) == 9
    for bad in (1, 11, 9.0, True, "9", None):
        with pytest.raises(BotError) as refused:
            read_count(bad, "seats", 2, 10)
        assert refused.value.code == "out_of_range"

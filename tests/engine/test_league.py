"""League points (engine.league): the three rules, every text nobody can compute refused with
its reason, and the properties a season relies on: a better place is never worth less, and
every value is an exact hundredth of the formula."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.league import (
    PointsRule,
    hundredths_text,
    points_of,
    read_points,
)
from engine.limits import MAX_TOURNAMENT_PLAYERS

STANDARD = read_points("standard")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("25, -18, 15", "league_points_negative"),
        ("-1", "league_points_negative"),
        ("25, 18, 20", "league_points_rising"),
        (", ".join(["1"] * (MAX_TOURNAMENT_PLAYERS + 1)), "league_too_many_places"),
        ("25, 18.123", "bad_league_points"),
        ("25,,18", "bad_league_points"),
        ("nan", "bad_league_points"),
        ("inf, 3", "bad_league_points"),
        ("1e3", "bad_league_points"),
        ("0, 0", "bad_league_points"),
        ("", "bad_league_points"),
        ("standard, 5", "bad_league_points"),
        ("2000000", "league_points_too_large"),
        ("<@123>", "bad_league_points"),
    ],
)
def test_points_nobody_can_compute_are_refused(text: str, code: str) -> None:
    with pytest.raises(EngineError) as caught:
        read_points(text)
    assert caught.value.code == code


def test_the_three_rules_read_and_written_back() -> None:
    assert read_points(" Standard ") == PointsRule("standard")
    assert read_points("flat").text == "flat"
    rule = read_points("25, 18, 15.5，12,")
    assert rule.places == (2500, 1800, 1550, 1200)
    assert rule.text == "25, 18, 15.5, 12"
    assert read_points(rule.text) == rule


@pytest.mark.parametrize(
    ("entrants", "place", "tied"),
    [(5, 6, 1), (5, 4, 3), (0, 1, 1), (5, 0, 1), (5, 1, 0), (5, -1, 1)],
)
def test_a_finish_that_cannot_exist_scores_nothing_but_a_refusal(
    entrants: int, place: int, tied: int
) -> None:
    for rule in (STANDARD, read_points("flat"), read_points("3, 2, 1")):
        with pytest.raises(EngineError) as caught:
            points_of(rule, entrants=entrants, place=place, tied=tied)
        assert caught.value.code == "bad_league_finish"
    with pytest.raises(EngineError):
        points_of(STANDARD, entrants=5, place=1, buy_in=-1)


def test_the_worked_examples_of_the_rule_book() -> None:
    """docs/rules.md, "League points", examples L1 to L3."""
    # L1: 10 entries, buy-in 100 with a first big blind of 20 (b = 5).
    assert [points_of(STANDARD, entrants=10, place=k, buy_in=100, big_blind=20)
            for k in (1, 2, 10)] == [5440, 3846, 1720]
    # L2: a freeroll of 9: b = 0, the factor 1 + log10(0.25) = 0.398.
    assert points_of(STANDARD, entrants=9, place=1, buy_in=0, big_blind=20) == 1194
    # L3: two players out in the same hand, sharing 3rd and 4th of 8 by 25, 18, 15, 12.
    assert points_of(read_points("25, 18, 15, 12"), entrants=8, place=3, tied=2) == 1350
    assert points_of(read_points("flat"), entrants=8, place=3, tied=2) == 450


def test_places_past_the_list_score_zero() -> None:
    rule = read_points("3, 2, 1")
    assert [points_of(rule, entrants=6, place=k) for k in range(1, 7)] == [300, 200, 100, 0, 0,
                                                                              0]


def test_hundredths_are_written_as_people_write_points() -> None:
    assert [hundredths_text(v) for v in (0, 5, 50, 1234, 100_00)] == ["0", "0.05", "0.5",
                                                                      "12.34", "100"]


finishes = st.integers(1, 2000).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(1, n)))
rules = st.one_of(
    st.just("standard"), st.just("flat"),
    st.lists(st.integers(0, 10_000), min_size=1, max_size=30).map(
        lambda v: ", ".join(hundredths_text(x) for x in sorted(v, reverse=True))
    ).filter(lambda text: any(c not in "0, " for c in text)),
)


@given(rules, finishes, st.integers(0, 10**9), st.integers(1, 10**6))
def test_a_better_place_is_never_worth_less(text: str, finish: tuple[int, int], buy_in: int,
                                            big_blind: int) -> None:
    rule = read_points(text)
    entrants, place = finish
    mine = points_of(rule, entrants=entrants, place=place, buy_in=buy_in, big_blind=big_blind)
    assert isinstance(mine, int) and mine >= 0
    if place < entrants:
        worse = points_of(rule, entrants=entrants, place=place + 1, buy_in=buy_in,
                          big_blind=big_blind)
        assert mine >= worse
        # Sharing two places is worth their mean, between the two.
        shared = points_of(rule, entrants=entrants, place=place, tied=2, buy_in=buy_in,
                           big_blind=big_blind)
        assert worse <= shared <= mine


@given(finishes, st.integers(0, 10**9), st.integers(1, 10**6))
def test_standard_points_are_the_formula_to_the_hundredth(
    finish: tuple[int, int], buy_in: int, big_blind: int
) -> None:
    entrants, place = finish
    stored = points_of(STANDARD, entrants=entrants, place=place, buy_in=buy_in,
                       big_blind=big_blind)
    exact = 10 * math.sqrt(entrants / place) * (1 + math.log10(buy_in / big_blind + 0.25))
    # Rounded once, to the nearest hundredth (the float formula may sit a hair either side).
    assert abs(stored - exact * 100) <= 0.5 + 1e-6

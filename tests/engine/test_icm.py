"""A deal's prizes by ICM (Malmuth–Harville over sets of players) and by chip chop: against
PokerKit's ``calculate_icm`` (every finishing order enumerated) and figures worked by hand, and
the properties a fair deal has."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit.analysis import calculate_icm

from engine.errors import EngineError
from engine.icm import chip_chop, icm_shares, icm_values, place_chances


def test_the_worked_example() -> None:
    """5,000 / 3,000 / 2,000 chips with prizes 50 / 30 / 20 are worth 38.39 / 32.75 / 28.86:
    first place's 50 by chip share (25 / 15 / 10), then second and third by who is left."""
    values = icm_values([5_000, 3_000, 2_000], [50, 30, 20])
    assert [round(v, 2) for v in values] == [38.39, 32.75, 28.86]


def test_the_chances_of_each_place_add_up_for_every_player_and_every_place() -> None:
    chances = place_chances([7, 3, 5, 1])
    for row in chances:
        assert sum(row) == pytest.approx(1.0)
    for place in range(4):
        assert sum(row[place] for row in chances) == pytest.approx(1.0)


stacks_st = st.lists(st.integers(1, 10**7), min_size=2, max_size=8)


@settings(max_examples=200, deadline=None)
@given(stacks_st, st.data())
def test_the_same_as_every_order_enumerated(stacks: list[int], data: st.DataObject) -> None:
    prizes = data.draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=len(stacks)))
    ours = icm_values(stacks, prizes)
    theirs = calculate_icm(prizes, stacks)
    assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-6)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 10**12), min_size=1, max_size=10), st.data())
def test_shares_add_up_and_follow_the_stacks(stacks: list[int], data: st.DataObject) -> None:
    prizes = sorted(data.draw(st.lists(st.integers(0, 10**12), min_size=1,
                                       max_size=len(stacks))), reverse=True)
    for deal in (icm_shares, chip_chop):
        shares = deal(stacks, prizes)
        assert sum(shares) == sum(prizes) and min(shares) >= 0
        for i in range(len(stacks)):
            for j in range(len(stacks)):
                if stacks[i] > stacks[j]:
                    assert shares[i] >= shares[j], (deal.__name__, stacks, prizes, shares)
                if stacks[i] == stacks[j]:
                    assert abs(shares[i] - shares[j]) <= 1  # an odd chip, at most


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**9), st.integers(2, 10), st.data())
def test_equal_stacks_are_worth_the_same(stack: int, players: int, data: st.DataObject) -> None:
    prizes = data.draw(st.lists(st.integers(0, 10**9), min_size=1, max_size=players))
    values = icm_values([stack] * players, prizes)
    assert max(values) - min(values) <= 1e-6 * max(1.0, max(values))
    assert sum(values) == pytest.approx(sum(prizes))


def test_odd_chips_go_to_the_larger_stacks() -> None:
    assert icm_shares([5_000, 3_000, 2_000], [5_000, 3_000, 2_000]) == (3840, 3275, 2885)
    assert icm_shares([100, 100, 100], [100]) == (34, 33, 33)  # the lower seat between equals


def test_a_chip_chop_keeps_the_smallest_prize_and_shares_the_rest_by_chips() -> None:
    # Three players, prizes 5,000 / 3,000 / 2,000: each sure of 2,000, the 4,000 left by chips.
    assert chip_chop([5_000, 3_000, 2_000], [5_000, 3_000, 2_000]) == (4000, 3200, 2800)
    # Fewer prizes than players: the unpaid places pay nothing, so the whole is by chips.
    assert chip_chop([3, 1], [100]) == (75, 25)


@pytest.mark.parametrize(("stacks", "prizes"), [
    ([], [1]), ([0, 5], [1]), ([-3, 5], [1]), ([5, 5], [-1]), ([5], [1, 2]),
    ([5, True], [1]), ([1] * 13, [1]), ([5, 5.5], [1]),
])
def test_a_deal_nobody_can_compute_is_refused(stacks: list[int], prizes: list[int]) -> None:
    with pytest.raises(EngineError) as refused:
        icm_shares(stacks, prizes)
    assert refused.value.code == "bad_deal"

"""Who takes a busted player's bounty and how it is split (engine.bounty): the winners of the
pot holding his last chips, split as that pot was split, whatever split it: a tie, a high and
a low half, two runs of the board."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bounty import bounty_shares, last_chips_pot, progressive_halves
from engine.games import PLO8
from engine.hand import HandConfig, HandResult, PotAwarded, split_chips
from tests.engine.helpers import rigged
from tests.engine.test_omaha_hand import all_in_pre_flop
from tests.engine.test_omaha_rules_examples import BOARD as O_BOARD
from tests.engine.test_omaha_rules_examples import rigged as rigged_omaha


def test_t3_a_tie_splits_the_bounty_as_the_pot_odd_unit_first_left_of_the_button() -> None:
    """RULES 7, T4: A (first left of the button) and C tie with A-K; B busts."""
    hand = rigged(HandConfig.standard((1000, 1000, 1000), 10, 20),
                  ["AhKd", "2c3d", "AsKc"], "9h9d4c7sQd")
    all_in_pre_flop(hand)
    assert hand.stacks == [1500, 0, 1500]
    assert bounty_shares(25, hand.result, 1, 1) == [(0, 13), (2, 12)]  # type: ignore[arg-type]


def test_t3_the_bounty_follows_the_side_pot_holding_the_last_chips() -> None:
    """RULES 7, T4: A (200 chips) wins the main pot with aces, C's kings beat B's queens for the
    side pot; B's last chips were in the side pot: C takes all of B's bounty."""
    hand = rigged(HandConfig.standard((200, 500, 1000), 10, 20),
                  ["AsAh", "QsQh", "KsKh"], "2c7d9h5s3c")
    all_in_pre_flop(hand)
    result = hand.result
    assert result is not None and hand.stacks == [600, 0, 1100]
    assert last_chips_pot(result, 1) == 1
    assert bounty_shares(25, result, 1, 1) == [(2, 25)]


def test_a_high_low_pot_splits_the_bounty_into_the_same_halves() -> None:
    """O7's pot: A's high takes the high half, A and C tie the low half; B busts. B's bounty of
    25 is cut 13 (high, A) and 12 (low, 6 to A and 6 to C)."""
    holes = ("Ad3hKdKc", "QdQhJsTs", "Ac3sJdJh")
    hand = rigged_omaha(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), holes, O_BOARD)
    all_in_pre_flop(hand)
    assert hand.stacks == [225, 0, 75]
    assert bounty_shares(25, hand.result, 1, 1) == [(0, 19), (2, 6)]  # type: ignore[arg-type]


def test_a_board_run_twice_splits_the_bounty_by_run() -> None:
    """Each run's half of the pot has its own winner: the bounty is halved the same way, the
    first run's half taking the odd unit, then split within each run."""
    awards = (
        PotAwarded(0, 1500, (0, 1, 2), ((0, 750), (2, 750)), True, run=1),
        PotAwarded(0, 1500, (0, 1, 2), ((2, 1500),), True, run=2),
    )
    result = HandResult(stacks=(750, 0, 2250), net=(-250, -1000, 1250), pots=awards, shown=(),
                        showdown=True, voided=False)
    # 25: 13 for the first run (7 to A, 6 to C), 12 for the second (C).
    assert bounty_shares(25, result, 1, 1) == [(0, 7), (2, 18)]
    # With a unit of 5 the halves are 15 and 10, the first split 10 and 5.
    assert bounty_shares(25, result, 1, 5) == [(0, 10), (2, 15)]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 4), st.sampled_from([1, 2, 5, 25]))
def test_shares_add_up_and_follow_the_rule_book(amount: int, ways: int, unit: int) -> None:
    # A tie of ``ways`` players with a player busting: the bounty is split as split_chips
    # splits a pot, to the unit.
    players = ways + 1
    stacks = (1000,) * players
    holes = [*["AhKd", "AsKc", "AdKh", "AcKs"][:ways], "2c3d"]
    hand = rigged(HandConfig.standard(stacks, 10, 20), holes, "9h9d4c7sQd")
    all_in_pre_flop(hand)
    loser = players - 1
    assert hand.stacks[loser] == 0
    shares = bounty_shares(amount, hand.result, loser, unit)  # type: ignore[arg-type]
    assert sum(s for _, s in shares) == amount
    assert shares == split_chips(amount, list(range(ways)), unit)
    paid, onto = progressive_halves(amount, unit)
    assert paid + onto == amount and paid >= onto

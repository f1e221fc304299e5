"""The numbered examples of RULES.md that concern betting, pots and odd chips (E5-E9).

E1-E4 and E10 (hand ranking) are in test_evaluator.py; they are also checked here through a
whole hand so the showdown applies them.
"""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.hand import HandConfig, Pot, PotAwarded, ReopenMode, Street
from tests.engine.helpers import rigged


def test_e5_side_pot_three_players() -> None:
    # A all-in 100, B and C 300 each: main 300 (A, B, C), side 400 (B, C).
    cfg = HandConfig.standard((100, 1000, 1000), 5, 10)  # 0=A (SB), 1=B (BB), 2=C (button)
    hand = rigged(cfg, ["2c3d", "4h5s", "7c8d"], "9hTdJcQdKs")
    hand.raise_to(2, 300)
    hand.call(0)  # all-in for 100
    hand.call(1)
    assert hand.street is Street.FLOP
    assert hand.pots() == [Pot(300, (0, 1, 2)), Pot(400, (1, 2))]


def test_e6_six_players_dead_money_in_side_pots() -> None:
    # Index order: 0=D (SB), 1=E (BB), 2=F, 3=A, 4=B, 5=C (button).
    stacks = (800, 2000, 2000, 50, 250, 350)
    cfg = HandConfig.standard(stacks, 5, 10)
    # Ranks F > A > B > D > E > C on a dry board.
    holes = ["TsTd", "8s8d", "AsAd", "KsKd", "QsQd", "5c4c"]
    hand = rigged(cfg, holes, "2c7d9hJs3s")
    hand.raise_to(2, 500)  # F
    hand.call(3)  # A all-in 50
    hand.call(4)  # B all-in 250
    hand.call(5)  # C all-in 350
    hand.go_all_in(0)  # D all-in 800
    hand.call(1)  # E calls 800
    hand.fold(2)  # F folds with 500 in
    assert hand.is_over
    assert sum(hand.contributions) == 2750
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert [a.amount for a in awards] == [300, 1000, 400, 1050]
    won = {0: 0, 1: 0, 3: 0, 4: 0, 5: 0}
    for award in awards:
        for player, chips in award.shares:
            won[player] += chips
    assert won == {3: 300, 4: 1000, 0: 1450, 1: 0, 5: 0}
    assert hand.stacks == [1450, 1200, 1500, 300, 1000, 0]


def test_e7_odd_chips_by_chip_unit_from_the_button() -> None:
    # Seats A B C D E clockwise, A the button: index order B, C, D, E, A. Unit 10.
    cfg = HandConfig.standard((1000,) * 5, 10, 20, chip_unit=10)
    hand = rigged(cfg, ["2c3d", "4h5c", "6d7h", "8c9d", "2h3c"], "AsKsQsJsTs")
    hand.raise_to(2, 330)  # D
    hand.call(3)  # E
    hand.fold(4)  # A
    hand.fold(0)  # B, the small blind, leaves 10 behind
    hand.call(1)  # C
    for _ in range(3):
        for player in (1, 2, 3):
            hand.check(player)
    assert hand.is_over
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert len(awards) == 1 and awards[0].amount == 1000
    assert dict(awards[0].shares) == {1: 340, 2: 330, 3: 330}


def test_e8_minimum_raise_is_the_largest_increment() -> None:
    cfg = HandConfig.standard((5000,) * 4, 10, 20)
    hand = rigged(cfg, [None] * 4, "2c7d9hJs3s")
    legal = hand.legal()
    assert legal is not None and legal.min_raise_to == 40
    hand.raise_to(2, 60)
    legal = hand.legal()
    assert legal is not None and legal.min_raise_to == 100
    with pytest.raises(EngineError) as err:
        hand.raise_to(3, 99)
    assert err.value.code == "amount_below_minimum" and err.value.params["minimum"] == 100
    hand.call(3)
    hand.call(0)
    hand.call(1)
    # Flop: the first bet of 10 (half a big blind is below the minimum bet of one BB).
    with pytest.raises(EngineError) as err:
        hand.bet(0, 10)
    assert err.value.code == "amount_below_minimum"
    cfg10 = HandConfig.standard((5000,) * 3, 5, 10)
    hand10 = rigged(cfg10, [None] * 3, "2c7d9hJs3s")
    hand10.call(2)
    hand10.call(0)
    hand10.check(1)
    hand10.bet(0, 10)
    legal = hand10.legal()
    assert legal is not None and legal.min_raise_to == 20


def _e9_hand(mode: ReopenMode, d_stack: int = 1400, e_stack: int = 1800):
    # A=0 (SB), B=1 (BB), C=2, D=3, E=4 (button); everyone limps, the flop is checked to A.
    stacks = (10000, 10000, 10000, d_stack, e_stack)
    cfg = HandConfig.standard(stacks, 50, 100, reopen=mode)
    hand = rigged(cfg, [None] * 5, "2c7d9hJs3s")
    hand.call(2)
    hand.call(3)
    hand.call(4)
    hand.call(0)
    hand.check(1)
    assert hand.street is Street.FLOP
    hand.bet(0, 500)
    hand.raise_to(1, 1000)
    hand.call(2)
    return hand


@pytest.mark.parametrize("mode", list(ReopenMode))
def test_e9_short_all_ins_and_reopening(mode: ReopenMode) -> None:
    hand = _e9_hand(mode)
    hand.go_all_in(3)  # D to 1300
    hand.go_all_in(4)  # E to 1700
    legal = hand.legal()
    assert legal is not None and legal.player == 0
    assert legal.can_raise and legal.min_raise_to == 2200  # A has not faced B's raise yet
    hand.call(0)
    for player in (1, 2):
        legal = hand.legal()
        assert legal is not None and legal.player == player and legal.to_call == 700
        if mode is ReopenMode.STRICT:
            assert not legal.can_raise and legal.raise_closed
            with pytest.raises(EngineError) as err:
                hand.raise_to(player, 2200)
            assert err.value.code == "raise_not_reopened"
        else:
            assert legal.can_raise and legal.min_raise_to == 2200
        hand.call(player)


@pytest.mark.parametrize(
    ("mode", "reopened"),
    [(ReopenMode.TDA, False), (ReopenMode.STRICT, False), (ReopenMode.HALF, True)],
)
def test_e9_variant_one_short_all_in_of_more_than_half(mode: ReopenMode, reopened: bool) -> None:
    # Only D goes all-in, for 300 more: at least half a raise of 500, less than a full one.
    hand = _e9_hand(mode, e_stack=10000)
    hand.go_all_in(3)
    hand.call(4)
    hand.call(0)
    legal = hand.legal()
    assert legal is not None and legal.player == 1
    assert legal.can_raise is reopened


def test_board_plays_for_everyone_e3_through_a_hand() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["2c3d", "4h5s", "7c8d"], "AhKdQcJsTh")
    hand.call(2)
    hand.call(0)
    hand.check(1)
    for _ in range(3):
        for player in (0, 1, 2):
            hand.check(player)
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert dict(awards[0].shares) == {0: 10, 1: 10, 2: 10}

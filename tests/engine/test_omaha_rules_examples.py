"""The numbered Omaha examples of docs/rules.md section 10 (O1-O8), figure for figure.

Each test plays or evaluates exactly what the example says, so every hand name, limit and
share written there is one the engine produces.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.cards import FULL_DECK, parse_cards
from engine.errors import EngineError
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import (
    AnteKind,
    Hand,
    HandConfig,
    PotAwarded,
    StraddleMode,
    Street,
    board_positions,
    deck_from_cards,
    second_run_positions,
)
from engine.low import evaluate_low
from tests.engine.test_omaha_hand import all_in_pre_flop


def rigged(config: HandConfig, holes: Sequence[str], board: str) -> Hand:
    deck = deck_from_cards(
        config.players,
        [parse_cards(h) for h in holes],
        parse_cards(board),
        hole_count=config.game.hole_count,
    )
    return Hand(config, deck)


def high(game: Game, hole: str, board: str) -> str:
    return game.high_rank(parse_cards(hole), parse_cards(board)).describe()


def low(hole: str, board: str) -> str | None:
    rank = evaluate_low(parse_cards(hole), parse_cards(board))
    return None if rank is None else rank.describe()


def limits(hand: Hand) -> tuple[int, int, int, int]:
    """(player to act, to call, minimum raise-to, maximum raise-to)."""
    legal = hand.legal()
    assert legal is not None and legal.can_raise
    assert hand.pot_raise_to() == legal.max_raise_to
    return legal.player, legal.to_call, legal.min_raise_to, legal.max_raise_to


def shares(hand: Hand) -> list[tuple[int, str, int, tuple[tuple[int, int], ...]]]:
    return [(e.index, e.half, e.amount, e.shares) for e in hand.events if isinstance(e, PotAwarded)]


# --- seats -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "most", "runs_twice"),
    [(PLO, 11, (9, 10, 10)), (PLO8, 11, (9, 10, 10)), (PLO5, 9, (7, 8, 9))],
)
def test_seats_and_second_boards(game: Game, most: int, runs_twice: tuple[int, ...]) -> None:
    assert game.max_players == most
    h = game.hole_count
    if game is PLO5:
        assert board_positions(9, h) == (45, 46, 47, 48, 49)  # no burns
        assert board_positions(8, h) == (41, 42, 43, 45, 47)
    else:
        assert board_positions(11, h) == (45, 46, 47, 49, 51)  # all 52 cards
    for dealt, players in zip((0, 3, 4), runs_twice, strict=True):
        second_run_positions(players, dealt, h)
        with pytest.raises(EngineError):
            second_run_positions(players + 1, dealt, h)


# --- making a hand ---------------------------------------------------------------------------


def test_o1_four_hearts_in_the_hand_and_one_on_the_board_are_no_flush() -> None:
    board = "QhJc8d3s2c"
    assert high(PLO, "AhKh7h4h", board) == "High card, ace"
    assert high(PLO5, "AhKh7h4h3h", board) == "Pair of threes, ace kicker"


def test_o2_four_of_a_suit_on_the_board_needs_two_of_it_in_the_hand() -> None:
    board = "Kc9c6c3c8d"  # E2's board
    assert high(NLHE, "Ac5h", board) == "Flush, ace high"
    assert high(PLO, "Ac5h5dQs", board) == "Pair of fives, king kicker"
    assert high(PLO, "Ac7c5h2s", board) == "Flush, ace high"


def test_o3_the_board_does_not_play_by_itself() -> None:
    straight = "AsKdQcJhTd"
    assert high(NLHE, "2c2d", straight) == "Straight, ace high"
    assert high(PLO, "2c2d3s4h", straight) == "Pair of twos, ace kicker"
    assert high(PLO, "Ts9s3c3d", straight) == "Straight, king high"
    quads = "7s7d7c7hKs"
    assert high(PLO, "AdKc3s2h", quads) == "Three of a kind, sevens"
    assert high(PLO, "QdQc3s2h", quads) == "Full house, sevens over queens"
    full_house = "KsKhKd4c4d"
    assert high(PLO, "AsAhQcJd", full_house) == "Full house, kings over aces"
    assert high(PLO, "QsJs9c8d", full_house) == "Three of a kind, kings"


# --- pot limit --------------------------------------------------------------------------------


def test_o4_pot_limit_before_and_after_the_flop() -> None:
    # Six players at 1/2: index 0 the small blind, 1 the big blind, 2 UTG ... 5 the button.
    config = HandConfig.standard((200,) * 6, 1, 2, game=PLO)
    hand = Hand(config, FULL_DECK)
    assert limits(hand) == (2, 2, 4, 7)
    hand.call(2)
    assert limits(hand) == (3, 2, 4, 9)

    hand = Hand(config, FULL_DECK)
    hand.raise_to(2, 7)
    assert limits(hand) == (3, 7, 12, 24)
    hand.fold(3)
    hand.fold(4)
    hand.call(5)
    assert limits(hand) == (0, 6, 12, 30)
    hand.fold(0)
    hand.fold(1)
    assert hand.street is Street.FLOP and hand.total_pot() == 17
    assert limits(hand) == (2, 0, 2, 17)
    hand.bet(2, 10)
    assert limits(hand) == (5, 10, 20, 47)
    hand.raise_to(5, 47)
    assert limits(hand) == (2, 37, 84, 158)

    heads_up = Hand(HandConfig.standard((200, 200), 1, 2, game=PLO), FULL_DECK)
    assert limits(heads_up) == (1, 1, 4, 6)
    heads_up.raise_to(1, 6)
    assert limits(heads_up) == (0, 4, 10, 18)


def test_o5_straddle_antes_and_short_stacks_under_pot_limit() -> None:
    straddle = HandConfig.standard((200,) * 6, 1, 2, straddle=StraddleMode.UTG, game=PLO)
    assert straddle.blinds == (1, 2, 4, 0, 0, 0)
    assert limits(Hand(straddle, FULL_DECK)) == (3, 4, 8, 15)

    bba = HandConfig.standard((200,) * 6, 1, 2, ante_kind=AnteKind.BIG_BLIND, ante=2, game=PLO)
    assert limits(Hand(bba, FULL_DECK)) == (2, 2, 4, 9)
    antes = HandConfig.standard((200,) * 6, 1, 2, ante_kind=AnteKind.PER_PLAYER, ante=1, game=PLO)
    assert limits(Hand(antes, FULL_DECK)) == (2, 2, 4, 13)

    # Four players; the button has 5 chips and cannot call the raise to 7 in full.
    hand = Hand(HandConfig.standard((200, 200, 200, 5), 1, 2, game=PLO), FULL_DECK)
    hand.raise_to(2, 7)
    legal = hand.legal()
    assert legal is not None and (legal.to_call, legal.can_raise) == (5, False)
    hand.call(3)
    assert hand.all_in[3]
    assert limits(hand) == (0, 6, 12, 28)

    # The button has 6: below the pot raise of 9, so his largest raise is all-in.
    hand = Hand(HandConfig.standard((200, 200, 200, 6), 1, 2, game=PLO), FULL_DECK)
    hand.call(2)
    legal = hand.legal()
    assert legal is not None and (legal.max_raise_to, legal.pot_limited) == (6, False)
    hand.go_all_in(3)
    assert limits(hand) == (0, 5, 10, 22)

    # All-in with more than the pot raises the pot; the rest stays behind.
    hand = Hand(HandConfig.standard((200,) * 6, 1, 2, game=PLO), FULL_DECK)
    hand.go_all_in(2)
    assert (hand.bets[2], hand.stacks[2], hand.all_in[2]) == (7, 193, False)


# --- high-low ---------------------------------------------------------------------------------

BOARD = "2c4d7hKsQc"


def test_o6_a_low_and_how_lows_compare() -> None:
    # One hand, two different pairs of hole cards: kings for the high, A-3 for the low.
    assert high(PLO8, "Ad3hKdKc", BOARD) == "Three of a kind, kings"
    assert low("Ad3hKdKc", BOARD) == "7-4-3-2-A"
    # One low hole card is not two.
    assert low("AhKdQsJs", BOARD) is None
    assert low("AhKdQsJs", "2c3d4h5s9c") is None
    # A-2 on a board of 2 3 4: the board holds only two other low ranks.
    assert low("Ah2sKdKc", "2c3d4h9s9c") is None
    # Straights and flushes do not count against a low.
    assert low("Ah2h9s9d", "3h4h5hKsQc") == "5-4-3-2-A"
    assert high(PLO8, "Ah2h9s9d", "3h4h5hKsQc") == "Straight flush, five high"
    # Highest card first.
    board = "Ac2d8hKsQc"
    better, worse = "6s4dJhJc", "7s3dJdTc"
    assert (low(better, board), low(worse, board)) == ("8-6-4-2-A", "8-7-3-2-A")
    assert PLO8.low_value(parse_cards(better), parse_cards(board)) > PLO8.low_value(
        parse_cards(worse), parse_cards(board)
    )
    seven = PLO8.low_value(parse_cards("7s6dJhJc"), parse_cards("5c4d3hKsQc"))
    eight = PLO8.low_value(parse_cards("8s4dJhJc"), parse_cards("Ac2d3hKsQc"))
    assert low("7s6dJhJc", "5c4d3hKsQc") == "7-6-5-4-3" and seven > eight


def test_o7_a_high_and_a_tied_low_quarter_the_pot() -> None:
    # 0 = A (first left of the button), 1 = B, 2 = C (the button).
    holes = ("Ad3hKdKc", "QdQhJsTs", "Ac3sJdJh")
    assert high(PLO8, holes[1], BOARD) == "Three of a kind, queens"
    assert high(PLO8, holes[2], BOARD) == "Pair of jacks, king kicker"
    assert low(holes[1], BOARD) is None and low(holes[2], BOARD) == "7-4-3-2-A"
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), holes, BOARD)
    all_in_pre_flop(hand)
    assert shares(hand) == [(0, "high", 150, ((0, 150),)), (0, "low", 150, ((0, 75), (2, 75)))]
    assert hand.stacks == [225, 0, 75]
    hand = rigged(HandConfig.standard((101, 101, 101), 1, 2, game=PLO8), holes, BOARD)
    all_in_pre_flop(hand)
    assert shares(hand) == [(0, "high", 152, ((0, 152),)), (0, "low", 151, ((0, 76), (2, 75)))]
    assert hand.stacks == [228, 0, 75]


def test_o8_each_pot_is_split_on_its_own_and_no_low_gives_the_high_everything() -> None:
    holes = ("Ad3h9s9c", "KdKhJsTs", "QdQhJdJc")
    hand = rigged(HandConfig.standard((50, 100, 100), 1, 2, game=PLO8), holes, BOARD)
    all_in_pre_flop(hand)
    assert shares(hand) == [
        (0, "high", 75, ((1, 75),)),
        (0, "low", 75, ((0, 75),)),
        (1, "", 100, ((1, 100),)),
    ]
    assert hand.stacks == [75, 175, 0]
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), holes, "2c9dJhKsQc")
    all_in_pre_flop(hand)
    assert shares(hand) == [(0, "", 300, ((1, 300),))]

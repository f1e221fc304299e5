"""The Omaha family in one hand: dealing four or five cards, pot-limit betting, and high-low
pots, each rule checked on scripted hands (RULES.md's Hold'em rules hold unless the game says
otherwise: engine.games)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.cards import FULL_DECK, format_cards, parse_cards
from engine.commitment import DeckCommitment, hole_positions, seen_positions
from engine.errors import EngineError
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import (
    ActionTaken,
    AnteKind,
    Hand,
    HandConfig,
    HandMucked,
    HandShown,
    PotAwarded,
    RunItTwice,
    StraddleMode,
    board_positions,
    deck_from_cards,
    second_run_positions,
)
from engine.rabbit import rabbit_hunt
from engine.table import Table, TableOptions


def rigged(config: HandConfig, holes: Sequence[str | None], board: str, second: str = "") -> Hand:
    cards = [parse_cards(h) if h else None for h in holes]
    deck = deck_from_cards(
        config.players,
        cards,
        parse_cards(board),
        second_run=parse_cards(second) if second else (),
        hole_count=config.game.hole_count,
    )
    return Hand(config, deck)


def awards(hand: Hand) -> list[tuple[int, int, str, tuple[tuple[int, int], ...]]]:
    return [(e.index, e.run, e.half, e.shares) for e in hand.events if isinstance(e, PotAwarded)]


# --- the game in the config -----------------------------------------------------------------


def test_a_plain_hands_json_is_unchanged_and_a_game_is_stored_by_code() -> None:
    plain = HandConfig.standard((100, 100), 1, 2)
    assert "game" not in plain.to_json()
    assert plain.to_json() == HandConfig.standard((100, 100), 1, 2, game=NLHE).to_json()
    for game in (PLO, PLO5, PLO8):
        config = HandConfig.standard((100, 100, 100), 1, 2, game=game)
        assert config.to_json()["game"] == game.code
        assert HandConfig.from_json(config.to_json()) == config
    with pytest.raises(EngineError) as err:
        HandConfig.from_json({**plain.to_json(), "game": "stud"})
    assert err.value.code == "bad_config"


def test_a_game_that_is_not_registered_is_refused() -> None:
    odd = Game("plo6", "Six", 6, PLO.hand_making, PLO.betting, PLO.split, "PO6")
    for game in (odd, "plo"):
        with pytest.raises(EngineError) as err:
            HandConfig.standard((100, 100), 1, 2, game=game)  # type: ignore[arg-type]
        assert err.value.params["field"] == "game"


@pytest.mark.parametrize(("game", "most"), [(NLHE, 23), (PLO, 11), (PLO8, 11), (PLO5, 9)])
def test_one_deck_deals_the_players_it_can(game: Game, most: int) -> None:
    hand = Hand(HandConfig.standard((100,) * most, 1, 2, game=game), FULL_DECK)
    dealt = {c for i in range(most) for c in hand.hole_cards(i)}
    assert len(dealt) == most * game.hole_count
    with pytest.raises(EngineError) as err:
        HandConfig.standard((100,) * (most + 1), 1, 2, game=game)
    assert err.value.params["field"] == "players" and err.value.params["value"] == most + 1


def test_hole_card_k_of_player_p_is_at_p_plus_k_n_and_the_board_follows() -> None:
    for game in (PLO, PLO5):
        n, h = 4, game.hole_count
        hand = Hand(HandConfig.standard((100,) * n, 1, 2, game=game), FULL_DECK)
        for p in range(n):
            assert hand.hole_cards(p) == tuple(FULL_DECK[p + k * n] for k in range(h))
            assert hole_positions(n, p, hole_count=h) == tuple(p + k * n for k in range(h))
        assert board_positions(n, h) == (h * n + 1, h * n + 2, h * n + 3, h * n + 5, h * n + 7)
    # Nine five-card hands leave 7 cards: the board comes without burns, as at 23 in Hold'em.
    assert board_positions(9, 5) == (45, 46, 47, 48, 49)


def test_a_table_deals_omaha_and_stores_the_game_only_when_it_is_not_holdem() -> None:
    assert "game" not in TableOptions(small_blind=1, big_blind=2).to_json()
    options = TableOptions(small_blind=1, big_blind=2, game=PLO8, seats=9)
    assert options.to_json()["game"] == "plo8"
    assert TableOptions.from_json(options.to_json()) == options
    with pytest.raises(EngineError) as err:
        TableOptions(small_blind=1, big_blind=2, game=PLO5)  # ten seats, nine at most
    assert err.value.code == "seats_for_game"
    assert err.value.params == {"seats": 10, "maximum": 9, "game": "plo5"}
    with pytest.raises(EngineError) as err:
        TableOptions.from_json({**options.to_json(), "game": "razz"})
    assert err.value.code == "bad_option"
    table = Table(options, rng=1)
    for seat, who in enumerate("abc", start=1):
        table.join(who, 200, seat=seat)
    table.start_hand(FULL_DECK)
    assert table.hand is not None and table.hand.config.game is PLO8
    assert len(table.hand.hole_cards(0)) == 4


# --- pot limit --------------------------------------------------------------------------------


def test_pot_limit_pre_flop_counts_the_blinds_and_the_call() -> None:
    hand = Hand(HandConfig.standard((1000,) * 4, 5, 10, game=PLO), FULL_DECK)
    legal = hand.legal()
    assert legal is not None and legal.player == 2
    # Call 10, then the pot after the call: 5 + 10 + 10 = 25; raise to 10 + 25.
    assert (legal.min_raise_to, legal.max_raise_to, legal.pot_limited) == (20, 35, True)
    assert hand.pot_raise_to() == 35
    with pytest.raises(EngineError) as err:
        hand.raise_to(2, 36)
    assert err.value.code == "above_pot_limit"
    assert err.value.params == {"amount": 36, "maximum": 35}
    hand.raise_to(2, 35)  # the limit itself is accepted
    legal = hand.legal()
    # Next: call 35, pot after it 5 + 10 + 35 + 35 = 85, raise to 35 + 85.
    assert legal is not None and (legal.player, legal.max_raise_to) == (3, 120)
    hand.call(3)
    hand.fold(0)
    legal = hand.legal()
    # The big blind: call 25, pot 5 + 10 + 35 + 35 + 25 = 110; raise to 35 + 110.
    assert legal is not None and (legal.player, legal.to_call, legal.max_raise_to) == (1, 25, 145)


def test_pot_limit_after_the_flop_and_against_a_bet() -> None:
    hand = Hand(HandConfig.standard((1000,) * 3, 5, 10, game=PLO), FULL_DECK)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    legal = hand.legal()
    assert (
        legal is not None
        and legal.is_bet
        and (legal.min_raise_to, legal.max_raise_to)
        == (
            10,
            30,
        )
    )
    hand.bet(0, 30)
    legal = hand.legal()
    # Call 30 into 60: pot after the call 90, raise to 30 + 90.
    assert legal is not None and legal.max_raise_to == 120
    hand.raise_to(1, 100)
    legal = hand.legal()
    # Call 100 into 30 + 30 + 100 + 0 (player 2 has not bet): 160 + 100 = 260 -> to 360.
    assert legal is not None and (legal.player, legal.max_raise_to) == (2, 360)


def test_dead_money_counts_in_the_pot() -> None:
    antes = HandConfig.standard((1000,) * 3, 5, 10, ante_kind=AnteKind.PER_PLAYER, ante=2, game=PLO)
    legal = Hand(antes, FULL_DECK).legal()
    # Pot 6 + 15, call 10: raise to 10 + 31.
    assert legal is not None and legal.max_raise_to == 41
    bba = HandConfig.standard((1000,) * 3, 5, 10, ante_kind=AnteKind.BIG_BLIND, ante=10, game=PLO)
    legal = Hand(bba, FULL_DECK).legal()
    assert legal is not None and legal.max_raise_to == 45


def test_pot_limit_with_a_straddle() -> None:
    config = HandConfig.standard((1000,) * 4, 5, 10, straddle=StraddleMode.UTG, game=PLO)
    legal = Hand(config, FULL_DECK).legal()
    # Blinds 5, 10 and a straddle of 20: call 20, pot after it 55, raise to 20 + 55.
    assert legal is not None and (legal.player, legal.min_raise_to, legal.max_raise_to) == (
        3,
        40,
        75,
    )


def test_a_short_stack_is_all_in_below_the_pot_and_all_in_for_less_counts_in_the_pot() -> None:
    hand = Hand(HandConfig.standard((1000, 1000, 1000, 25), 5, 10, game=PLO), FULL_DECK)
    hand.call(2)
    legal = hand.legal()
    # Player 3 has 25 behind, less than the pot raise (10 + 35 = 45): his maximum is all-in.
    assert legal is not None and (legal.max_raise_to, legal.pot_limited) == (25, False)
    assert hand.pot_raise_to() == 25
    hand.go_all_in(3)  # a short all-in raise to 25
    legal = hand.legal()
    # The small blind owes 20; the pot holds 5 + 10 + 10 + 25 = 50: raise to 25 + 70.
    assert legal is not None and (legal.player, legal.to_call, legal.max_raise_to) == (0, 20, 95)


def test_all_in_under_pot_limit_raises_the_pot_when_the_stack_is_bigger() -> None:
    hand = Hand(HandConfig.standard((1000,) * 3, 5, 10, game=PLO), FULL_DECK)
    hand.go_all_in(2)
    raised = [e for e in hand.events if isinstance(e, ActionTaken)][-1]
    assert (raised.amount, raised.all_in, hand.stacks[2]) == (35, False, 965)


def test_pot_limit_bomb_pot_starts_with_the_bomb_in_the_pot() -> None:
    hand = Hand(HandConfig.bomb((1000, 1000, 1000, 30), 50, 10, game=PLO), FULL_DECK)
    legal = hand.legal()
    # 30 + 50 * 3 in the middle: the first bet may be the pot, 180.
    assert legal is not None and legal.is_bet and legal.max_raise_to == 180


def test_pot_button_in_no_limit_is_a_pot_sized_raise_below_all_in() -> None:
    hand = Hand(HandConfig.standard((1000,) * 3, 5, 10), FULL_DECK)
    legal = hand.legal()
    assert legal is not None and (legal.max_raise_to, legal.pot_limited) == (1000, False)
    assert hand.pot_raise_to() == 35
    hand.fold(2)
    hand.fold(0)
    assert hand.pot_raise_to() is None


# --- high-low pots ----------------------------------------------------------------------------

# Board with a low: 2 4 7 (and K Q). Player 0: A-3 for 7-4-3-2-A, no high. Player 1: K-K for
# trip kings and no low. Player 2: A-5 for 7-5-4-2-A and a pair of queens.
LOW_BOARD = "2c4d7hKsQc"
HOLES = ("Ad3h9s9c", "KdKhJsTs", "As5h6sQd")


def all_in_pre_flop(hand: Hand) -> None:
    """Everybody in for his stack: pot-sized raises until the stacks are in, then calls."""
    while (legal := hand.legal()) is not None:
        if legal.can_raise:
            hand.go_all_in(legal.player)
        elif legal.to_call:
            hand.call(legal.player)
        else:
            hand.check(legal.player)
    assert hand.is_over and len(hand.board) == 5


def test_high_low_halves_the_pot_between_the_best_high_and_the_best_low() -> None:
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), HOLES, LOW_BOARD)
    all_in_pre_flop(hand)
    assert awards(hand) == [(0, 0, "high", ((1, 150),)), (0, 0, "low", ((0, 150),))]
    rank, low = hand.rank(1), hand.low_rank(0)
    assert rank is not None and rank.describe() == "Three of a kind, kings"
    assert low is not None and low.describe() == "7-4-3-2-A"
    assert hand.low_rank(1) is None


def test_the_odd_chip_goes_to_the_high_half_then_left_of_the_button() -> None:
    # 301 chips: high 151, low 150.
    hand = rigged(HandConfig.standard((101, 100, 100), 1, 2, game=PLO8), HOLES, LOW_BOARD)
    all_in_pre_flop(hand)
    assert sum(e.amount for e in hand.events if isinstance(e, PotAwarded)) == 300
    hand = rigged(HandConfig.standard((101, 101, 101), 1, 2, game=PLO8), HOLES, LOW_BOARD)
    all_in_pre_flop(hand)
    assert awards(hand) == [(0, 0, "high", ((1, 152),)), (0, 0, "low", ((0, 151),))]
    # Chip unit 5: 3 units of 5 cannot halve, the high half takes the odd unit.
    unit = HandConfig.standard((5, 5, 5), 5, 5, chip_unit=5, game=PLO8)
    hand = rigged(unit, HOLES, LOW_BOARD)
    all_in_pre_flop(hand)
    assert awards(hand) == [(0, 0, "high", ((1, 10),)), (0, 0, "low", ((0, 5),))]


def test_tied_lows_quarter_the_pot() -> None:
    # Players 0 and 2 both hold A-3: 7-4-3-2-A each; player 1 has the high.
    holes = ("Ad3h9s9c", "KdKhJsTs", "Ac3sJdJh")
    hand = rigged(HandConfig.standard((101, 101, 101), 1, 2, game=PLO8), holes, LOW_BOARD)
    all_in_pre_flop(hand)
    # 303: high 152, low 151 split 76 / 75, the odd chip to the first left of the button.
    assert awards(hand) == [(0, 0, "high", ((1, 152),)), (0, 0, "low", ((0, 76), (2, 75)))]


def test_no_qualifying_low_gives_the_whole_pot_to_the_high_hand() -> None:
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), HOLES, "2c9dJhKsQc")
    all_in_pre_flop(hand)
    assert awards(hand) == [(0, 0, "", ((1, 300),))]


def test_one_hand_can_scoop_both_halves() -> None:
    # Player 2: 5-3 with A-2-4 is a wheel, the best high here and the best low.
    holes = ("Ad3h9s9c", "KdKhJsTs", "5s3sQdQh")
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), holes, "Ac2d4hKsTc")
    all_in_pre_flop(hand)
    assert awards(hand) == [(0, 0, "high", ((2, 150),)), (0, 0, "low", ((2, 150),))]
    assert hand.stacks == [0, 0, 300]


def test_a_side_pot_without_a_low_among_its_players_goes_to_the_high_hand() -> None:
    # Player 0 (the only low) is all-in for 50: the main pot splits; the side pot between
    # players 1 and 2 has no low and goes whole to the high hand.
    holes = ("Ad3h9s9c", "KdKhJsTs", "QdQhJdJc")
    hand = rigged(HandConfig.standard((50, 100, 100), 1, 2, game=PLO8), holes, LOW_BOARD)
    all_in_pre_flop(hand)
    assert awards(hand) == [
        (0, 0, "high", ((1, 75),)),
        (0, 0, "low", ((0, 75),)),
        (1, 0, "", ((1, 100),)),
    ]


def test_a_hand_that_can_win_only_the_low_is_shown_and_one_that_wins_nothing_is_mucked() -> None:
    holes = ("Ad3h9s9c", "KdKhJsTs", "8s8hJdJh")
    hand = rigged(HandConfig.standard((100, 100, 100), 1, 2, game=PLO8), holes, LOW_BOARD)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    while hand.to_act is not None:
        hand.check(hand.to_act)
    shown = [e.player for e in hand.events if isinstance(e, HandShown)]
    mucked = [e.player for e in hand.events if isinstance(e, HandMucked)]
    # Order from the first seat left of the button: 0 shows (a low), 1 shows (the high), 2
    # has neither a better high nor any low, and mucks.
    assert shown == [0, 1] and mucked == [2]


def test_each_run_of_a_board_run_twice_has_its_own_high_and_low() -> None:
    config = HandConfig.standard((100, 100, 100), 1, 2, game=PLO8, run_it_twice=RunItTwice.ALWAYS)
    # Second run 9 J 8 3 5: player 0's nines make trips (the high), his A-3 finds no three
    # other low ranks, and player 2's A-6 makes 8-6-5-3-A (the low).
    hand = rigged(config, HOLES, LOW_BOARD, second="9dJh8s3c5c")
    all_in_pre_flop(hand)
    assert hand.second_board is not None and format_cards(hand.second_board) == "9dJh8s3c5c"
    low = hand.low_rank(2, run=2)
    assert low is not None and low.describe() == "8-6-5-3-A" and hand.low_rank(0, run=2) is None
    assert awards(hand) == [
        (0, 1, "high", ((1, 75),)),
        (0, 1, "low", ((0, 75),)),
        (0, 2, "high", ((0, 75),)),
        (0, 2, "low", ((2, 75),)),
    ]
    assert hand.stacks == [150, 75, 75]


def test_the_deck_positions_of_a_five_card_omaha_hand_prove_what_was_seen() -> None:
    config = HandConfig.standard((100, 100, 100), 1, 2, game=PLO5)
    hand = Hand(config, FULL_DECK)
    all_in_pre_flop(hand)
    assert hand.result is not None and len(hand.board) == 5
    commitment = DeckCommitment.commit(FULL_DECK, bytes(32))
    positions = seen_positions(3, 5, hand.result.shown, hole_count=5)
    openings = commitment.open_many(FULL_DECK, positions)
    assert all(o.verify(commitment.root_hex) for o in openings)
    opened = {o.position: o.card for o in openings}
    for player in hand.result.shown:
        assert tuple(opened[p] for p in hole_positions(3, player, 5)) == hand.hole_cards(player)
    assert tuple(opened[p] for p in board_positions(3, 5)) == hand.board


def test_rabbit_hunt_and_second_run_positions_follow_the_hole_count() -> None:
    hand = Hand(HandConfig.standard((100, 100, 100), 1, 2, game=PLO), FULL_DECK)
    hand.fold(2)
    hand.fold(0)
    rabbit = rabbit_hunt(hand)
    assert rabbit.positions == board_positions(3, 4) == (13, 14, 15, 17, 19)
    assert second_run_positions(3, 0, 4) == (21, 22, 23, 25, 27)
    with pytest.raises(EngineError):
        second_run_positions(10, 0, 4)

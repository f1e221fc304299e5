"""All-in chances in Omaha: the bulk values against the one-hand evaluators, exact equities
against a reference that deals every board and settles it with PokerKit's own Omaha hands (high,
and high-low with its eight-or-better low), and the sampled pre-flop figures against the exact
count within the stated half point."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import pytest
from pokerkit import Card as PokerKitCard
from pokerkit import OmahaEightOrBetterLowHand, OmahaHoldemHand

from engine.bulk_eval import boards_array, low_values_on_boards, omaha_values_on_boards
from engine.cards import FULL_DECK, Card, format_cards, parse_cards
from engine.equity import SAMPLES, equity, run_out_equities
from engine.errors import EngineError
from engine.evaluator import omaha_rank_value
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import Hand, HandConfig, deck_from_cards
from engine.low import low_value


def _deal(rng: random.Random, hands: int, size: int) -> list[tuple[Card, ...]]:
    cards = [Card(c) for c in rng.sample(range(52), hands * size)]
    return [tuple(cards[k * size : (k + 1) * size]) for k in range(hands)]


@pytest.mark.parametrize("size", [2, 4, 5])
def test_bulk_values_are_the_one_hand_values(size: int) -> None:
    rng = random.Random(size)
    for _ in range(60):
        holes = _deal(rng, 3, size)
        used = {c for hole in holes for c in hole}
        rest = [c for c in FULL_DECK if c not in used]
        boards = [tuple(rng.sample(rest, 5)) for _ in range(50)]
        highs = omaha_values_on_boards(holes, boards_array(boards))
        lows = low_values_on_boards(holes, boards_array(boards))
        for i, hole in enumerate(holes):
            assert highs[i].tolist() == [omaha_rank_value(hole, b) for b in boards]
            assert lows[i].tolist() == [low_value(hole, b) for b in boards]


def test_bulk_values_refuse_bad_batches() -> None:
    boards = boards_array([parse_cards("2c3d4h5s6c")])
    for holes in ([parse_cards("AsKsQsJsTs9s")], [(Card(60), Card(1))], [parse_cards("As")]):
        with pytest.raises(EngineError):
            omaha_values_on_boards(holes, boards)
        with pytest.raises(EngineError):
            low_values_on_boards(holes, boards)


def _pk(cards: tuple[Card, ...]) -> list[PokerKitCard]:
    return list(PokerKitCard.parse(format_cards(cards)))


def reference(holes: list[tuple[Card, ...]], board: tuple[Card, ...], game: Game) -> list[Fraction]:
    """Every rest of the board, each settled with PokerKit's hand types: each type that some
    hand qualifies for takes an equal part of the pot, split among its best hands."""
    types = (OmahaHoldemHand, OmahaEightOrBetterLowHand) if game.has_low else (OmahaHoldemHand,)
    used = set(board) | {c for hole in holes for c in hole}
    rest = [c for c in FULL_DECK if c not in used]
    totals = [Fraction(0)] * len(holes)
    count = 0
    for tail in combinations(rest, 5 - len(board)):
        full = _pk(board + tail)
        count += 1
        hands_by_type = [[t.from_game_or_none(_pk(h), full) for h in holes] for t in types]
        qualifying = [hands for hands in hands_by_type if any(h is not None for h in hands)]
        for hands in qualifying:
            best = max(h for h in hands if h is not None)
            winners = [i for i, h in enumerate(hands) if h is not None and h == best]
            for i in winners:
                totals[i] += Fraction(1, len(winners) * len(qualifying))
    return [t / count for t in totals]


@pytest.mark.parametrize(
    ("game", "holes", "board"),
    [
        (PLO, ["AsAhKsKh", "QdJdTc9c", "8h7h6s5s"], "2c8dQh4s"),
        (PLO8, ["As2sKhQh", "KsKdJcTc", "3h4h5c6c"], "7c8d9hTd"),
        (PLO8, ["As2sKhQh", "KsKdJcTc"], "3c8d9h"),
        (PLO5, ["AsAhKsKh2c", "QdJdTc9c3c"], "2d8dQh4s"),
    ],
)
def test_exact_equity_matches_pokerkit_board_by_board(
    game: Game, holes: list[str], board: str
) -> None:
    hands = [parse_cards(h) for h in holes]
    figures = equity(hands, parse_cards(board), game=game)
    assert figures.exact and figures.high_low == game.has_low
    assert [h.share for h in figures.hands] == reference(hands, parse_cards(board), game)
    assert sum(h.share for h in figures.hands) == 1


def test_high_low_figures_add_up() -> None:
    hands = [parse_cards("As2sKhQh"), parse_cards("KsKdJcTc"), parse_cards("3h4h5c6c")]
    figures = equity(hands, parse_cards("7c8d9h"), game=PLO8)
    # The low halves hold half of every board with a low: what the lows win in all.
    boards_with_low = figures.boards - sum(
        1
        for tail in combinations(
            [c for c in FULL_DECK if c not in set(parse_cards("7c8d9h")) | {*sum(hands, ())}], 2
        )
        if not any(low_value(h, parse_cards("7c8d9h") + tail) for h in hands)
    )
    assert sum(h.low_share for h in figures.hands) == Fraction(boards_with_low, 2 * figures.boards)
    for h in figures.hands:
        assert 0 <= h.low_share <= h.share and h.low_wins + h.low_ties <= boards_with_low
    json = figures.to_json()
    assert set(json["hands"][0]) == {"win", "tie", "equity", "low_win", "low_tie", "low_equity"}
    assert "low_win" not in equity(hands, parse_cards("7c8d9h"), game=PLO).to_json()["hands"][0]


@pytest.mark.parametrize("game", [PLO, PLO8])
def test_four_way_pre_flop_is_sampled_within_half_a_point(game: Game) -> None:
    hands = _deal(random.Random(7), 4, 4)
    sampled = equity(hands, game=game)
    assert not sampled.exact and sampled.boards == SAMPLES
    exact = equity(hands, game=game, samples=400_000)  # C(36, 5) = 376,992 boards
    assert exact.exact and exact.boards == 376_992
    for s, e in zip(sampled.hands, exact.hands, strict=True):
        assert abs(s.equity - e.equity) <= 0.005
        assert abs(s.win - e.win) <= 0.005 and abs(s.low_win - e.low_win) <= 0.005
    assert equity(hands, game=game).hands == sampled.hands  # the same seed, the same figures


def test_hole_cards_must_fit_the_game() -> None:
    with pytest.raises(EngineError) as err:
        equity([parse_cards("AsKs"), parse_cards("QdQc")], game=PLO)
    assert err.value.params["reason"] == "hole_card_count"
    with pytest.raises(EngineError) as err:
        equity([parse_cards("AsKsQsJs"), parse_cards("2d2c3c3d")], game=NLHE)
    assert err.value.params["reason"] == "hole_not_two_cards"


def test_a_hand_run_out_gives_omaha_equities() -> None:
    holes = [parse_cards("As2sKhQh"), parse_cards("KsKdJcTc")]
    deck = deck_from_cards(2, holes, parse_cards("3c8d9h 4s 5d"), hole_count=4)
    hand = Hand(HandConfig.standard((100, 100), 1, 2, game=PLO8), deck)
    while (legal := hand.legal()) is not None:
        if legal.can_raise:
            hand.go_all_in(legal.player)
        else:
            hand.call(legal.player)
    stages = run_out_equities(hand)
    assert [len(s.board) for s in stages] == [0, 3, 4]
    flop = stages[1].equity
    assert flop.high_low and flop == equity(holes, parse_cards("3c8d9h"), game=PLO8)

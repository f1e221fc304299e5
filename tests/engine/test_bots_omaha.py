"""The computer players in the Omaha games: starting hands, equity by Omaha's rules, and a
legal answer within the pot limit at every turn of every game."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bots import Bot, beginner, omaha, regular, strong, to_action, view_of
from engine.bots.view import HandViews, Move
from engine.bulk_eval import (
    low_values_of_hands,
    low_values_on_boards,
    omaha_values_of_hands,
    omaha_values_on_boards,
)
from engine.cards import FULL_DECK, Card, parse_cards
from engine.games import GAMES, NLHE, PLO, PLO5, PLO8, Game
from engine.hand import Action, ActionKind, Hand, HandConfig, Street, deck_from_cards
from tests.engine.bot_charts import WidthChart

OMAHA = (PLO, PLO5, PLO8)
LEVELS: dict[str, Callable[[], Bot]] = {
    "beginner": beginner,
    "regular": regular,
    "strong": lambda: strong(WidthChart()),
}


def test_what_makes_an_omaha_hand() -> None:
    def at(text: str, game: Game = PLO) -> float:
        return omaha.place(parse_cards(text), game)

    assert at("As Ah Ks Kh") < 0.005  # double-suited aces and kings: the best there is
    assert at("Js Th 9s 8h") < at("Js Th 9c 8d")  # double suited beats rainbow
    assert at("Js Th 9c 8d") < at("Js Th 5c 2d")  # connected beats ragged
    assert at("Ks Kh Qd Jc") < at("Ks Kh Kd Jc")  # three of a rank is a dead card
    assert at("7c 2d 2h 2s") > 0.95
    assert at("As 2s 3h Kh", PLO8) < 0.05 < at("As 2s 3h Kh", PLO)  # low potential in Hi-Lo
    assert at("Ts Jh Qd 9c", PLO8) > at("Ts Jh Qd 9c", PLO)  # middle cards count against it
    assert omaha.place(parse_cards("As Ah Ks Kh 9c"), PLO5) < 0.005


def _river_view(hole: str, board: str, game: Game) -> tuple[Hand, int]:
    """A heads-up hand at the river, checked to the seat that holds ``hole`` (index 0)."""
    deck = deck_from_cards(
        2, [parse_cards(hole), None], parse_cards(board), hole_count=game.hole_count
    )
    hand = Hand(HandConfig.standard((200, 200), 1, 2, game=game), deck)
    while hand.street is not Street.RIVER or hand.to_act != 0:
        legal = hand.legal()
        assert legal is not None
        kind = ActionKind.CALL if legal.to_call else ActionKind.CHECK
        hand.apply(Action(kind, hand.to_act))
    return hand, 0


def test_equity_follows_exactly_two_and_three() -> None:
    # Four hearts in the hand and two on the board make no flush in Omaha: the hand is
    # nine-high at best and loses to nearly everything.
    hand, seat = _river_view("2h 3h 4h 5h", "Ah Kh 9c 8d Ts", PLO)
    guess = omaha.estimate(
        view_of(hand, seat), random.Random(1), omaha.anybody(view_of(hand, seat))
    )
    assert guess.equity < 0.2
    # The nut straight with two hole cards is nearly always best.
    hand, seat = _river_view("Js Qd 2c 2d", "Ah Kh 9c 8d Ts", PLO)
    view = view_of(hand, seat)
    assert omaha.estimate(view, random.Random(1), omaha.anybody(view)).equity > 0.9


def test_hi_lo_halves_the_pot() -> None:
    # The nut low with no high: about half the pot at best, never all of it.
    hand, seat = _river_view("As 2d Kc Kh", "3h 4s 8c Jd Qs", PLO8)
    view = view_of(hand, seat)
    equity = omaha.estimate(view, random.Random(2), omaha.anybody(view)).equity
    assert 0.35 < equity < 0.75
    # The same cards in high-only Omaha: a pair of kings, far from the nuts.
    hand, seat = _river_view("As 2d Kc Kh", "3h 4s 8c Jd Qs", PLO)
    view = view_of(hand, seat)
    assert omaha.estimate(view, random.Random(2), omaha.anybody(view)).equity < equity


@settings(max_examples=60, deadline=None)
@given(
    count=st.sampled_from((2, 3, 4, 5)),
    seed=st.integers(0, 2**32 - 1),
)
def test_many_hands_at_once_value_as_one_at_a_time(count: int, seed: int) -> None:
    rng = random.Random(seed)
    rows = []
    for _ in range(6):
        cards = rng.sample(range(52), 5 + count)
        rows.append(cards)
    boards = np.array([r[:5] for r in rows], dtype=np.uint8)
    holes = np.array([r[5:] for r in rows], dtype=np.uint8)
    listed = [tuple(Card(int(c)) for c in h) for h in holes]
    high = omaha_values_on_boards(listed, boards)
    low = low_values_on_boards(listed, boards)
    # Only each hand with its own board is a real deal; the others may share cards.
    assert (np.diag(omaha_values_of_hands(holes, boards)) == np.diag(high)).all()
    assert (np.diag(low_values_of_hands(holes, boards)) == np.diag(low)).all()


@st.composite
def omaha_tables(draw: st.DrawFn) -> tuple[HandConfig, tuple[Card, ...], list[str]]:
    game = draw(st.sampled_from(list(GAMES.values())))
    players = draw(st.integers(2, min(9, game.max_players)))
    depths = st.sampled_from((2, 5, 12, 30, 100, 250))
    stacks = [2 * draw(depths) + draw(st.integers(0, 3)) for _ in range(players)]
    config = HandConfig.standard(stacks, 1, 2, game=game)
    deck = tuple(draw(st.permutations(FULL_DECK)))
    seats = draw(st.lists(st.sampled_from(sorted(LEVELS)), min_size=players, max_size=players))
    return config, deck, seats


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(table=omaha_tables(), seed=st.integers(0, 2**32 - 1))
def test_every_answer_is_legal_and_within_the_pot_limit(
    table: tuple[HandConfig, tuple[Card, ...], list[str]], seed: int
) -> None:
    config, deck, seats = table
    hand = Hand(config, deck)
    views = HandViews(hand)
    bots: list[Bot] = [LEVELS[name]() for name in seats]
    rng = random.Random(seed)
    while (player := hand.to_act) is not None:
        view = views.of(player)
        decision = bots[player].decide(view, rng)
        if decision.move is Move.RAISE and view.can_raise and config.game.pot_limit:
            # The level's own size, before to_action clamps anything: a pot at most.
            assert decision.to is not None and decision.to <= view.max_raise_to
        action = to_action(decision, view)
        if action.amount is not None:
            assert view.min_raise_to <= action.amount <= view.max_raise_to
        hand.apply(action)  # refused (EngineError) if it were not legal
    assert hand.result is not None and sum(hand.result.net) == 0


@pytest.mark.parametrize("game", OMAHA, ids=lambda g: g.code)
def test_the_levels_fold_trash_and_raise_the_best_the_pot(game: Game) -> None:
    best = {PLO: "As Ah Ks Kh", PLO5: "As Ah Ks Kh Qd", PLO8: "As Ah 2s 3h"}[game]
    trash = {PLO: "7c 2d 2h 2s", PLO5: "7c 2d 2h 2s 2c", PLO8: "Kc Kd Kh 9s"}[game]
    for text, good in ((best, True), (trash, False)):
        deck = deck_from_cards(6, [None, None, parse_cards(text)], (), hole_count=game.hole_count)
        hand = Hand(HandConfig.standard((200,) * 6, 1, 2, game=game), deck)
        view = view_of(hand, 2)
        for make in (regular, strong):
            decision = make().decide(view, random.Random(3))
            if good:
                assert decision.move is Move.RAISE and decision.to == view.max_raise_to
            else:
                assert decision.move is Move.FOLD


def test_hold_em_views_still_play_hold_em() -> None:
    hand = Hand(HandConfig.standard((200,) * 2, 1, 2), FULL_DECK)
    assert hand.to_act is not None and view_of(hand, hand.to_act).game is NLHE

"""Rabbit hunting: the rest of the board of a hand that ended early, from its own deck order."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings

from engine.cards import FULL_DECK
from engine.commitment import DeckCommitment, hole_positions, seen_positions
from engine.errors import EngineError
from engine.hand import Hand, HandConfig, board_positions
from engine.rabbit import rabbit_hunt
from tests.engine.test_hand_properties import random_action, tables


def shuffled(seed: int) -> list[int]:
    deck = list(FULL_DECK)
    random.Random(seed).shuffle(deck)
    return deck


@pytest.mark.parametrize(("street", "left"), [(0, 5), (3, 2), (4, 1)])
def test_the_rabbit_is_the_board_that_would_have_come(street: int, left: int) -> None:
    deck = shuffled(street)
    hand = Hand(HandConfig.standard((100, 100, 100), 1, 2), deck)
    while len(hand.board) < street:
        legal = hand.legal()
        assert legal is not None
        (hand.call if legal.to_call else hand.check)(legal.player)
    hand.bet(hand.to_act, 10)  # type: ignore[arg-type]
    while not hand.is_over:
        hand.fold(hand.to_act)  # type: ignore[arg-type]
    rabbit = rabbit_hunt(hand)
    assert rabbit.board_count == street and len(rabbit.cards) == left
    assert rabbit.positions == board_positions(3)[street:]
    assert hand.board + rabbit.cards == tuple(deck[p] for p in board_positions(3))
    assert hand.result is not None and hand.result.stacks  # the hand itself is untouched
    assert len(hand.board) == street


def test_no_rabbit_before_the_end_after_a_void_or_with_a_full_board() -> None:
    hand = Hand(HandConfig.standard((100, 100), 1, 2), FULL_DECK)
    with pytest.raises(EngineError) as refused:
        rabbit_hunt(hand)
    assert refused.value.code == "hand_not_over"
    hand.void()
    with pytest.raises(EngineError) as refused:
        rabbit_hunt(hand)
    assert refused.value.params["reason"] == "voided"
    shown = Hand(HandConfig.standard((100, 100), 1, 2), FULL_DECK)
    shown.go_all_in(1)
    shown.call(0)
    with pytest.raises(EngineError) as refused:
        rabbit_hunt(shown)
    assert refused.value.params["reason"] == "board_complete"


def test_the_rabbit_opens_against_the_commitment_and_reveals_no_hand() -> None:
    deck = shuffled(7)
    commitment = DeckCommitment.commit(deck)
    hand = Hand(HandConfig.standard((100,) * 6, 1, 2), deck)
    for player in (2, 3, 4, 5, 0):
        hand.fold(player)
    rabbit = rabbit_hunt(hand)
    openings = commitment.open_many(deck, rabbit.positions)
    assert all(o.verify(commitment.root_hex) for o in openings)
    assert tuple(o.card for o in openings) == rabbit.cards
    holes = {p for i in range(6) for p in hole_positions(6, i)}
    assert not holes & set(rabbit.positions)
    assert set(rabbit.positions) <= set(seen_positions(6, 5, ()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_any_hand_over_before_the_river_hunts_its_own_board(table) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    while not hand.is_over:
        hand.apply(random_action(hand, rng))
    if len(hand.board) == 5:
        with pytest.raises(EngineError):
            rabbit_hunt(hand)
        return
    before = hand.state_key()
    rabbit = rabbit_hunt(hand)
    assert hand.state_key() == before
    assert hand.board + rabbit.cards == tuple(deck[p] for p in board_positions(hand.n))
    assert min(rabbit.positions) >= 2 * hand.n

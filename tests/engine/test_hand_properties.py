"""Invariants of one hand over random tables (hypothesis)."""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import (
    Action,
    ActionKind,
    AnteKind,
    Hand,
    HandConfig,
    HandEnded,
    HandVoided,
    PotAwarded,
    ReopenMode,
)


@st.composite
def tables(draw: st.DrawFn) -> tuple[HandConfig, tuple[int, ...], int]:
    n = draw(st.integers(2, 10))
    unit = draw(st.sampled_from([1, 1, 5, 25]))
    sb = unit * draw(st.integers(1, 10))
    bb = draw(st.integers(sb // unit, 3 * sb // unit)) * unit
    bb = max(bb, unit)
    stacks = tuple(unit * draw(st.integers(1, 400)) for _ in range(n))
    ante_kind = draw(st.sampled_from(list(AnteKind)))
    ante = 0 if ante_kind is AnteKind.NONE else unit * draw(st.integers(1, 5))
    reopen = draw(st.sampled_from(list(ReopenMode)))
    cfg = HandConfig.standard(
        stacks, sb, bb, ante_kind=ante_kind, ante=ante, chip_unit=unit, reopen=reopen
    )
    deck = tuple(draw(st.permutations(FULL_DECK)))
    seed = draw(st.integers(0, 2**32 - 1))
    return cfg, deck, seed


def random_action(hand: Hand, rng: random.Random) -> Action:
    legal = hand.legal()
    assert legal is not None
    p = legal.player
    choices: list[Action] = [Action(ActionKind.FOLD, p)]
    if legal.to_call:
        choices += [Action(ActionKind.CALL, p)] * 3
    else:
        choices += [Action(ActionKind.CHECK, p)] * 3
    if legal.can_raise:
        lo, hi = legal.min_raise_to, legal.max_raise_to
        choices.append(Action(ActionKind.RAISE, p, lo))
        choices.append(Action(ActionKind.ALL_IN, p))
        unit = hand.config.chip_unit
        mid = rng.randint(lo, hi) // unit * unit
        if lo <= mid <= hi:
            choices.append(Action(ActionKind.RAISE, p, mid))
    return rng.choice(choices)


def play_out(hand: Hand, rng: random.Random) -> None:
    steps = 0
    while not hand.is_over:
        hand.apply(random_action(hand, rng))
        steps += 1
        assert steps < 500


def play_some(hand: Hand, rng: random.Random, steps: int) -> None:
    """Up to ``steps`` random legal decisions (fewer if the hand ends first)."""
    for _ in range(steps):
        if hand.is_over:
            return
        hand.apply(random_action(hand, rng))


def chips_in_play(hand: Hand) -> int:
    return sum(hand.stacks) + hand.total_pot()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_chips_conserved_pots_paid_stacks_never_negative(table) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    total = sum(cfg.stacks)
    while not hand.is_over:
        assert chips_in_play(hand) == total
        assert min(hand.stacks) >= 0
        hand.apply(random_action(hand, rng))
    assert sum(hand.stacks) == total
    assert min(hand.stacks) >= 0
    assert hand.result is not None
    awarded = sum(e.amount for e in hand.events if isinstance(e, PotAwarded))
    shares = sum(c for e in hand.events if isinstance(e, PotAwarded) for _, c in e.shares)
    assert awarded == shares
    assert sum(hand.result.net) == 0
    assert isinstance(hand.events[-1], HandEnded)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_chip_put_in_is_paid_out(table) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    play_out(hand, rng)
    awarded = sum(e.amount for e in hand.events if isinstance(e, PotAwarded))
    put_in = sum(hand.contributions) + sum(hand.pooled)
    assert awarded == put_in
    for e in hand.events:
        if isinstance(e, PotAwarded):
            assert all(p in e.eligible for p, _ in e.shares)
            assert not any(hand.folded[p] for p, _ in e.shares)


def candidate_actions(hand: Hand, rng: random.Random) -> list[Action]:
    legal = hand.legal()
    assert legal is not None
    out: list[Action] = []
    everyone = list(range(hand.n))
    for p in everyone:
        for kind in (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.ALL_IN):
            out.append(Action(kind, p))
    p = legal.player
    probes = {0, -5, 1, hand.high_bet, hand.high_bet + 1, 10**18}
    if legal.can_raise:
        probes |= {
            legal.min_raise_to - 1,
            legal.min_raise_to,
            legal.max_raise_to,
            legal.max_raise_to + 1,
            rng.randint(legal.min_raise_to, legal.max_raise_to),
        }
    else:
        probes |= {hand.high_bet + hand.min_increment, hand.stacks[p] + hand.bets[p]}
    for amount in probes:
        out.append(Action(ActionKind.RAISE, p, amount))
        out.append(Action(ActionKind.BET, p, amount))
    out.append(Action(ActionKind.RAISE, p, 2.5))  # type: ignore[arg-type]
    out.append(Action(ActionKind.RAISE, p, True))  # type: ignore[arg-type]
    out.append(Action(ActionKind.RAISE, p, "100"))  # type: ignore[arg-type]
    out.append(Action(ActionKind.CALL, p, 10))
    out.append(Action(ActionKind.FOLD, 99))
    return out


def is_legal(hand: Hand, action: Action) -> bool:
    legal = hand.legal()
    if legal is None or action.player != legal.player:
        return False
    kind, amount = action.kind, action.amount
    if kind in (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.ALL_IN):
        if amount is not None:
            return False
        if kind is ActionKind.FOLD:
            return True
        if kind is ActionKind.CHECK:
            return legal.to_call == 0
        if kind is ActionKind.CALL:
            return legal.to_call > 0
        return legal.can_raise or hand.stacks[legal.player] <= legal.to_call
    if type(amount) is not int or not legal.can_raise:
        return False
    if amount == legal.max_raise_to:
        return True
    return (
        legal.min_raise_to <= amount <= legal.max_raise_to and amount % hand.config.chip_unit == 0
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_legal_actions_are_exactly_the_accepted_ones(table) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    while not hand.is_over:
        for action in candidate_actions(hand, rng):
            before = hand.state_key()
            trial = copy.deepcopy(hand)
            try:
                trial.apply(action)
                accepted = True
            except EngineError:
                accepted = False
                # A refused action leaves the hand exactly as it was.
                assert trial.state_key() == before
            assert accepted == is_legal(hand, action), (action, hand.legal())
        hand.apply(random_action(hand, rng))
    # After the end, every betting action is refused with the same code.
    for action in (Action(ActionKind.FOLD, 0), Action(ActionKind.CALL, 1)):
        try:
            hand.apply(action)
        except EngineError as err:
            assert err.code == "hand_over"
        else:
            raise AssertionError("an action after the end was accepted")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(0, 60))
def test_replay_reproduces_the_state(table, cut: int) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    play_some(hand, rng, cut)
    again = Hand.replay(
        HandConfig.from_json(cfg.to_json()),
        deck,
        [Action.from_json(a.to_json()) for a in hand.actions],
    )
    assert again.state_key() == hand.state_key()
    assert again.snapshot() == hand.snapshot()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(0, 30))
def test_void_refunds_every_contribution(table, cut: int) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    play_some(hand, rng, cut)
    if hand.is_over:
        return
    events = hand.void()
    assert isinstance(events[-1], HandVoided)
    assert tuple(hand.stacks) == cfg.stacks
    assert hand.result is not None and hand.result.voided


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_snapshot_never_leaks_hidden_cards(table) -> None:
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    while True:
        public = hand.snapshot()
        for p in public["players"]:
            assert (p["cards"] is not None) == p["shown"]
        mine = hand.snapshot(viewer=0)
        assert mine["players"][0]["cards"] is not None
        if hand.is_over:
            break
        hand.apply(random_action(hand, rng))
    for p in hand.snapshot()["players"]:
        if hand.folded[p["index"]]:
            assert p["cards"] is None

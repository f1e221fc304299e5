"""Bomb pots: everybody dealt in puts the same amount in, nobody bets pre-flop, the flop comes at
once and the betting starts there. A short stack is all-in for less and wins only what he
matched. Checked by hand, on random hands (hypothesis), through PHH (antes and a checked
pre-flop round, which PokerKit replays to the same stacks) and at the table."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pokerkit import HandHistory

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import (
    ActionTaken,
    AnteKind,
    BetReturned,
    ForcedBet,
    Hand,
    HandConfig,
    PotAwarded,
    RunItTwice,
    StreetDealt,
)
from engine.phh import dump_played_hand, load_hand, replay
from engine.table import HandStarted, Table, TableOptions
from tests.engine.test_hand_properties import random_action


def test_everybody_puts_the_bomb_in_and_the_flop_comes_at_once() -> None:
    hand = Hand(HandConfig.bomb((1000, 1000, 1000, 1000), 50, 10), FULL_DECK)
    posts = [(e.player, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)]
    assert posts == [(i, "bomb_pot", 50) for i in range(4)]
    assert not any(isinstance(e, ActionTaken) for e in hand.events)
    assert [type(e) for e in hand.events][-1] is StreetDealt
    assert len(hand.board) == 3 and hand.total_pot() == 200
    legal = hand.legal()
    assert legal is not None
    # The first seat left of the button opens the flop, and the big blind is the minimum bet.
    assert (legal.player, legal.to_call, legal.min_raise_to) == (0, 0, 10)
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(200, (0, 1, 2, 3))]


def test_short_stacks_are_all_in_on_the_bomb_and_side_pots_follow() -> None:
    hand = Hand(HandConfig.bomb((30, 1000, 1000, 45), 50, 10), FULL_DECK)
    assert hand.all_in == [True, False, False, True]
    assert [(p.amount, p.eligible) for p in hand.pots()] == [
        (120, (0, 1, 2, 3)),  # 30 from each
        (45, (1, 2, 3)),  # 15 more from the three who put in 45 or more
        (10, (1, 2)),
    ]
    hand.check(1)
    hand.check(2)
    assert hand.result is None and len(hand.board) == 4


def test_heads_up_short_bomb_is_returned_in_part_and_runs_out() -> None:
    hand = Hand(HandConfig.bomb((20, 500), 50, 10), FULL_DECK)
    returned = [(e.player, e.amount) for e in hand.events if isinstance(e, BetReturned)]
    assert returned == [(1, 30)]
    # Nobody can bet: the hands are tabled and the board is run out.
    assert hand.result is not None and len(hand.board) == 5
    assert sum(hand.result.stacks) == 520


def test_everyone_all_in_on_the_bomb_goes_to_showdown() -> None:
    hand = Hand(HandConfig.bomb((10, 20, 30), 50, 10), FULL_DECK)
    assert hand.result is not None and hand.result.showdown
    awarded = sum(e.amount for e in hand.events if isinstance(e, PotAwarded))
    assert awarded == 50  # 10 + 20 + 20; the 10 nobody matched went back
    assert sum(hand.result.stacks) == 60


@pytest.mark.parametrize(
    "blinds",
    [(10, 10, 0), (10, 20, 10), (0, 0, 0)],
)
def test_a_bomb_is_one_amount_from_everybody(blinds: tuple[int, ...]) -> None:
    with pytest.raises(EngineError) as refused:
        HandConfig((100, 100, 100), blinds, (0, 0, 0), 10, 1, bomb_pot=True)
    assert refused.value.params["field"] == "bomb_pot"
    with pytest.raises(EngineError):
        HandConfig((100, 100, 100), (10, 10, 10), (1, 1, 1), 10, 1, bomb_pot=True)
    config = HandConfig.bomb((100, 100, 100), 10, 2)
    assert HandConfig.from_json(config.to_json()) == config


@st.composite
def bomb_tables(draw: st.DrawFn) -> tuple[HandConfig, tuple[int, ...], int]:
    n = draw(st.integers(2, 9))
    unit = draw(st.sampled_from([1, 1, 5]))
    bomb = unit * draw(st.integers(1, 40))
    bb = unit * draw(st.integers(1, 10))
    stacks = tuple(unit * draw(st.integers(1, 120)) for _ in range(n))
    runs = draw(st.sampled_from(list(RunItTwice)))
    config = HandConfig.bomb(stacks, bomb, bb, chip_unit=unit, run_it_twice=runs)
    return config, tuple(draw(st.permutations(FULL_DECK))), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bomb_tables())
def test_bomb_pots_conserve_chips_and_never_bet_pre_flop(table) -> None:
    config, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(config, deck)
    total = sum(config.stacks)
    # What each put in: the bomb or his stack, less what nobody matched.
    posted = sorted(min(s, config.blinds[0]) for s in config.stacks)
    assert hand.total_pot() == sum(posted[:-1]) + min(posted[-1], posted[-2])
    while not hand.is_over:
        assert sum(hand.stacks) + hand.total_pot() == total
        if hand.run_choice_pending:
            hand.choose_run_count(rng.choice((1, 2)))
            continue
        hand.apply(random_action(hand, rng))
    assert hand.result is not None and sum(hand.result.stacks) == total
    first_street = next(i for i, e in enumerate(hand.events) if isinstance(e, StreetDealt))
    assert not any(isinstance(e, ActionTaken) for e in hand.events[:first_street])
    awarded = sum(e.amount for e in hand.events if isinstance(e, PotAwarded))
    assert awarded == sum(hand.contributions)
    again = replay(load_hand(dump_played_hand(hand, reveal_all=True)))
    assert again.stacks == hand.stacks and again.boards == hand.boards


@pytest.mark.filterwarnings("ignore:There is no reason for this player to fold")
def test_pokerkit_replays_our_bomb_pots_to_the_same_stacks() -> None:
    compared = 0
    for seed in range(150):
        rng = random.Random(seed)
        n = rng.randint(2, 7)
        stacks = [rng.choice((rng.randint(1, 60), rng.randint(60, 600))) for _ in range(n)]
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(HandConfig.bomb(stacks, rng.randint(5, 60), 10), deck)
        while not hand.is_over:
            hand.apply(random_action(hand, rng))
        text = dump_played_hand(hand, reveal_all=True)
        assert "_bomb_pot = true" in text and "ante_trimming_status = true" in text
        state = list(HandHistory.loads(text))[-1]
        assert state.status is False
        assert hand.result is not None
        if any(len(award.shares) > 1 for award in hand.result.pots):
            continue  # a split pot's odd chips are handed out differently (see the diff test)
        assert list(state.stacks) == hand.stacks, text
        compared += 1
    assert compared >= 120


def test_phh_writes_the_pre_flop_round_pokerkit_needs() -> None:
    hand = Hand(HandConfig.bomb((5, 100, 100, 100), 20, 10), FULL_DECK)
    text = dump_played_hand(hand)
    actions = load_hand(text).fields["actions"]
    assert isinstance(actions, list)
    before_flop = actions[: next(i for i, a in enumerate(actions) if a.startswith("d db"))]
    assert [a for a in before_flop if not a.startswith("d dh")] == ["p2 cc", "p3 cc", "p4 cc"]
    assert "antes = [20, 20, 20, 20]" in text and "blinds_or_straddles = [0, 0, 0, 0]" in text
    # Betting before the flop contradicts the bomb.
    with pytest.raises(EngineError) as refused:
        load_hand(text.replace("'p2 cc'", "'p2 cbr 40'"))
    assert refused.value.code == "phh_bad_action"


# --- at the table -----------------------------------------------------------------------------


def test_table_deals_a_bomb_pot_and_moves_on() -> None:
    options = TableOptions(small_blind=5, big_blind=10, ante=1, ante_kind=AnteKind.PER_PLAYER)
    table = Table(options, rng=3)
    for seat in (1, 2, 3):
        table.join(f"p{seat}", 1000, seat=seat)
    started = table.start_hand(FULL_DECK, button=1, bomb_pot=40, straddlers={"p1"})[0]
    assert isinstance(started, HandStarted) and started.bomb_pot == 40
    hand = table.hand
    assert hand is not None and hand.config.bomb_pot
    assert hand.config.blinds == (40, 40, 40) and not any(hand.config.antes)
    assert hand.total_pot() == 120 and len(hand.board) == 3
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        hand.check(legal.player)
    table.finish_hand()
    assert table.chips_on_table == 3000
    # The button moved as after any hand; the next hand has blinds again.
    table.start_hand(FULL_DECK)
    assert table.button_seat == 2
    assert table.hand is not None and not table.hand.config.bomb_pot


@pytest.mark.parametrize("amount", [-10, 7, True, 2.5])
def test_table_refuses_a_bad_bomb(amount: object) -> None:
    table = Table(TableOptions(small_blind=5, big_blind=10, chip_unit=5), rng=3)
    for seat in (1, 2):
        table.join(f"p{seat}", 1000, seat=seat)
    with pytest.raises(EngineError):
        table.start_hand(FULL_DECK, button=1, bomb_pot=amount)  # type: ignore[arg-type]
    assert table.hand is None

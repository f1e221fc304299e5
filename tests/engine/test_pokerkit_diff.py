"""Differential test of engine.hand against PokerKit 0.7.7 (CI requirement).

At least 2,000 random hands per run, from a seed that changes every run and is printed (replay a
run with ``POKERKIT_DIFF_SEED=<seed>``, one hand with ``run_hand(seed, DiffStats())``; the seed
of a failing hand is in its message). The tables have 2-10 players, unequal stacks, per-player
antes and big blind antes, a dead small blind now and then, chip units above 1, and each
``reopen`` mode; the players now and then time out, pre-select their action, or fold when they
could check. Before every decision both engines must agree on who acts, the call amount, the
right to raise and the raise bounds, and the right to raise must follow RULES.md 4 as kept from
the actions (``StreetBook``); every input must carry out the same actions in both (timeouts and
pre-selections resolved by RULES.md 4 in the oracle); every pot's odd chips must follow RULES.md
5; and every hand must end with the same stacks.

Where PokerKit disagrees with RULES.md by design, RULES.md wins. Each such difference has a name
and is recognised only in exactly the situation it names (see tests/engine/pokerkit_oracle.py
for the exact rule on each side); anything else fails:

- ``bba_short_big_blind``: PokerKit posts a big blind ante before the blind, RULES.md 2 fills the
  blind first; a big blind too short for both is left out of the comparison.
- ``opener_after_largest_blind``: PokerKit opens pre-flop left of the largest blind posted (ties
  to the later index), RULES.md 3 left of the big blind; they differ heads-up with equal blinds
  and when no blind is posted at all. Left out (the random tables never have such blinds; the
  property test does).
- ``short_opening_allin_reopens``: PokerKit's full-raise yardstick starts each street at 0, so an
  all-in raise below one big blind re-opens the betting for limpers; RULES.md 4 does not. Only
  when someone went all-in for less than a big blind on this street, PokerKit's yardstick is
  still below one big blind, and the player we refuse had already acted on this street.
- ``reopen_short_allin_sum_restarts``: PokerKit restarts its sum of short all-ins once it
  reaches a full raise, refusing a raise RULES.md 4 (tda) allows. Only under ``tda``, when our
  own sum since the player's action reaches a full raise and PokerKit's refusal is its restarted
  sum.
- ``short_allins_added_up``: PokerKit adds short all-ins up; ``strict`` never does, ``half``
  counts only one of half a raise. Only under those modes, when none since the player's action
  counts there and they add up to a full raise.
- ``half_raise_reopens``: ``half`` re-opens on one short all-in of half a raise; PokerKit does
  not. Only under ``half``, when such an all-in and no full raise came since the player acted.
- ``lone_matched_player_asked``: PokerKit asks the last player able to bet to check; RULES.md 3
  runs the board out. PokerKit's check is played and the hand is still compared.
- ``odd_chips_one_unit_each`` and ``odd_chips_merged_pots``: PokerKit gives a split pot's whole
  remainder to the first winner, after merging pots whose surviving players coincide; RULES.md 5
  hands odd chips out one chip unit each, pot by pot. Our split is checked against RULES.md 5,
  then re-split PokerKit's way before the stacks are compared, so the hand is still compared.

The first six stop the comparison of a hand at the point of disagreement (the rest is played by
our engine alone and must still conserve chips and split pots by RULES.md 5); each is tested
against RULES.md below, with PokerKit's contrary answer pinned so a PokerKit upgrade that
changes it is noticed, and two planted bugs that the earlier, wider cases swallowed are shown
to fail. The rate of each case is capped in both the seeded run and the property test, so a
case that starts swallowing hands is noticed even where it still names them correctly.

PokerKit cannot play at all, so these are never compared (``UNMODELLED`` in the oracle): a live
blind posted out of position to come in, a dead small blind beside per-player antes, a player
all-in from his dead blind, a voided hand, 23 players (dealt without burns). The rules tests
cover them instead.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

import hypothesis
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.hand
from engine.cards import Card, parse_cards
from engine.hand import (
    Action,
    ActionKind,
    AnteKind,
    ForcedBet,
    Hand,
    HandConfig,
    PotAwarded,
    PreAction,
    ReopenMode,
    deck_from_cards,
)
from tests.engine.pokerkit_oracle import (
    CASE_BBA_SHORT_BIG_BLIND,
    CASE_HALF_RAISE_REOPENS,
    CASE_LONE_MATCHED_PLAYER_ASKED,
    CASE_ODD_CHIPS_MERGED_POTS,
    CASE_ODD_CHIPS_ONE_UNIT_EACH,
    CASE_OPENER_AFTER_LARGEST_BLIND,
    CASE_REOPEN_SUM_RESTARTS,
    CASE_SHORT_ALLINS_ADDED_UP,
    CASE_SHORT_OPENING_ALLIN_REOPENS,
    UNMODELLED_DEAD_BLIND_ALL_IN,
    UNMODELLED_DEAD_BLIND_WITH_ANTES,
    UNMODELLED_NO_BURNS,
    UNMODELLED_POSTED_BLIND,
    UNMODELLED_VOID,
    DiffStats,
    Duel,
    Mismatch,
    fresh_seed,
    pokerkit_state,
    run_hand,
)

# CI runs this many; POKERKIT_DIFF_HANDS / POKERKIT_DIFF_SEED explore further without editing.
HANDS = int(os.environ.get("POKERKIT_DIFF_HANDS", "2500"))
SEED = int(os.environ.get("POKERKIT_DIFF_SEED") or fresh_seed())
MIN_COMPARED = 2000

# The most each by-design case may account for. Rates measured over 40,000 random hands: the
# short big blind ~3.5% (a third of the tables have a BBA and an eighth of the stacks are
# tiny), the short opening all-in ~1.2% (one short all-in after a limp is common), the half
# raise ~0.5% (a fifth of the tables), short all-ins added up ~0.04%, the restarted sum ~0.02%
# (it takes three short all-ins in a row), the lone matched player ~1.1%, odd chips ~1.3% and
# ~0.5% (a third of the tables have a chip unit above 1). Much more would mean a named case is
# swallowing real differences.
RATE_CAPS = {
    CASE_BBA_SHORT_BIG_BLIND: 0.08,
    CASE_OPENER_AFTER_LARGEST_BLIND: 0.0,
    CASE_SHORT_OPENING_ALLIN_REOPENS: 0.04,
    CASE_REOPEN_SUM_RESTARTS: 0.01,
    CASE_SHORT_ALLINS_ADDED_UP: 0.01,
    CASE_HALF_RAISE_REOPENS: 0.02,
    CASE_LONE_MATCHED_PLAYER_ASKED: 0.04,
    CASE_ODD_CHIPS_ONE_UNIT_EACH: 0.04,
    CASE_ODD_CHIPS_MERGED_POTS: 0.02,
}


def assert_rates(stats: DiffStats, caps: dict[str, float], replay: str) -> None:
    for case, cap in caps.items():
        assert stats.rate(case) <= cap, f"{case} above {cap:.0%} ({replay}): {stats.summary()}"


def test_random_hands_match_pokerkit(
    record_property: Callable[[str, object], None], capsys: pytest.CaptureFixture[str]
) -> None:
    replay = f"replay with POKERKIT_DIFF_SEED={SEED}"
    with capsys.disabled():
        print(f"\npokerkit diff: {HANDS} hands from seed {SEED} ({replay})")
    stats = DiffStats()
    for seed in range(SEED, SEED + HANDS):
        run_hand(seed, stats)  # raises Mismatch, with the seed, on any unexplained difference
    summary = stats.summary()
    record_property("pokerkit_diff", f"seed={SEED}, {summary}")
    with capsys.disabled():
        print(f"pokerkit diff: {summary}")
    assert stats.hands == HANDS, summary
    if HANDS >= MIN_COMPARED + 500:
        assert stats.hands_compared >= MIN_COMPARED, f"{replay}: {summary}"
        # Every kind of input and table was compared to the end, not only dealt.
        for feature in (
            "reopen_tda", "reopen_strict", "reopen_half", "chip_unit_above_1", "dead_blind",
            "auto_preselect", "auto_timeout",
        ):  # fmt: skip
            assert stats.features[feature] >= 50, f"{feature} ({replay}): {summary}"
    assert_rates(stats, RATE_CAPS, replay)


@st.composite
def configs(draw: st.DrawFn) -> HandConfig:
    n = draw(st.integers(2, 10))
    unit = draw(st.sampled_from([1, 1, 1, 5, 25]))
    bb = draw(st.integers(2, 200))
    sb = draw(st.integers(0, bb))  # a dead small blind (0) and sb == bb are legal tables too
    kind = draw(st.sampled_from(list(AnteKind)))
    ante = 0 if kind is AnteKind.NONE else draw(st.integers(1, 2 * bb))
    stacks = draw(st.lists(st.integers(1, 300 * bb), min_size=n, max_size=n))
    config = HandConfig.standard(
        [s * unit for s in stacks],
        sb * unit,
        bb * unit,
        ante_kind=kind,
        ante=ante * unit,
        chip_unit=unit,
        reopen=draw(st.sampled_from(list(ReopenMode))),
    )
    if n >= 3 and sb and kind is not AnteKind.PER_PLAYER and draw(st.integers(0, 3)) == 0:
        dead = [0] * n
        dead[draw(st.integers(2, n - 1))] = sb * unit
        config = dataclasses.replace(config, dead_blinds=tuple(dead))
    return config


PROPERTY_EXAMPLES = 300
# The same caps for Hypothesis's tables, set from its own rates (20 runs of 300 examples: mean
# and highest): Hypothesis favours tiny stacks, so the short big blind is 8% (14% at most);
# it draws equal blinds heads-up and no small blind, where PokerKit opens elsewhere, 2% (5%);
# the short opening all-in 2% (5%), the half raise 0.5% (3%), the lone matched player 2% (4%),
# odd chips 1.3% (3%) and 0.4% (2%); the other two never came up.
PROPERTY_RATE_CAPS = {
    CASE_BBA_SHORT_BIG_BLIND: 0.25,
    CASE_OPENER_AFTER_LARGEST_BLIND: 0.12,
    CASE_SHORT_OPENING_ALLIN_REOPENS: 0.12,
    CASE_REOPEN_SUM_RESTARTS: 0.02,
    CASE_SHORT_ALLINS_ADDED_UP: 0.02,
    CASE_HALF_RAISE_REOPENS: 0.08,
    CASE_LONE_MATCHED_PLAYER_ASKED: 0.1,
    CASE_ODD_CHIPS_ONE_UNIT_EACH: 0.1,
    CASE_ODD_CHIPS_MERGED_POTS: 0.06,
}


def test_property_hands_match_pokerkit(capsys: pytest.CaptureFixture[str]) -> None:
    # Hypothesis shrinks the table (players, blinds, stacks, antes, chip unit, mode, dead
    # blind); the seed drives the cards and the decisions, so a failure reproduces with
    # run_hand(seed, DiffStats(), config). The run's own seed rotates like the random test's.
    stats = DiffStats()
    replay = f"replay with POKERKIT_DIFF_SEED={SEED}"
    with capsys.disabled():
        print(f"\npokerkit property diff: {PROPERTY_EXAMPLES} examples, seed {SEED} ({replay})")

    @hypothesis.seed(SEED)
    @settings(max_examples=PROPERTY_EXAMPLES, deadline=None)
    @given(config=configs(), seed=st.integers(0, 2**32 - 1))
    def one_hand(config: HandConfig, seed: int) -> None:
        run_hand(seed, stats, config)

    one_hand()
    with capsys.disabled():
        print(f"pokerkit property diff: {stats.summary()}")
    assert stats.hands_compared >= PROPERTY_EXAMPLES // 2, f"{replay}: {stats.summary()}"
    assert_rates(stats, PROPERTY_RATE_CAPS, replay)


# --- scripted hands: each named case, ours against RULES.md and PokerKit's contrary answer ----


def _deck(n: int, holes: Sequence[str | None], board: str = "2c3d7h9sJc") -> tuple[Card, ...]:
    return deck_from_cards(n, [parse_cards(h) if h else None for h in holes], parse_cards(board))


def _play(duel: Duel, actions: Sequence[tuple[str, int, int | None]]) -> None:
    for kind, player, amount in actions:
        legal = duel.decision()
        assert legal is not None and legal.player == player
        duel.apply(Action(ActionKind(kind), player, amount))


@pytest.mark.parametrize(
    ("bb_stack", "blind", "ante"),
    [(12, 10, 2), (7, 7, 0), (10, 10, 0), (19, 10, 9), (20, 10, 10)],
)
def test_bba_short_big_blind_fills_the_blind_first(bb_stack: int, blind: int, ante: int) -> None:
    # RULES.md 2 (TDA RP-11): the big blind fills the blind first, the ante takes what is left.
    cfg = HandConfig.standard((500, bb_stack, 500), 5, 10, ante_kind=AnteKind.BIG_BLIND, ante=10)
    duel = Duel(cfg, _deck(3, []))
    posted = {e.kind: e.amount for e in duel.hand.events if isinstance(e, ForcedBet) and e.player}
    assert posted.get("big_blind", 0) == blind and posted.get("ante", 0) == ante
    assert duel.hand.bets == [5, blind, 0]
    assert duel.hand.total_pot() == 5 + blind + ante
    legal = duel.hand.legal()
    assert legal is not None and legal.player == 2 and legal.to_call == max(5, blind)
    if bb_stack < 20:
        assert duel.case == CASE_BBA_SHORT_BIG_BLIND and duel.state is None
        # PokerKit takes the ante first: the blind gets what the ante leaves.
        state = pokerkit_state(cfg)
        assert state.bets[1] == max(0, bb_stack - 10)
    else:
        assert duel.case is None


def test_bba_short_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    # The big blind (14) posts 10 and 4 of his ante and is all-in; the button calls, the small
    # blind folds. The aces win 5 (the folded small blind) + 10 + 10 + 4 (the ante, dead money
    # that nobody had to match).
    cfg = HandConfig.standard((500, 14, 500), 5, 10, ante_kind=AnteKind.BIG_BLIND, ante=10)
    duel = Duel(cfg, _deck(3, ["2h2d", "AsAd", "KsKd"]))
    _play(duel, [("call", 2, None), ("fold", 0, None)])
    assert duel.hand.is_over and duel.decision() is None
    assert duel.hand.stacks == [495, 29, 490]
    assert not duel.finish()


@pytest.mark.parametrize(
    ("stacks", "blinds", "ante_kind", "first"),
    [
        # Heads-up 10/10: the button (index 1) acts first (RULES.md 2); PokerKit, breaking the
        # tie of the two blinds towards the later index, takes him for the big blind.
        ((1000, 1000), (10, 10), AnteKind.NONE, 1),
        # No small blind, the big blind all-in from his ante: UTG (index 2) acts first, not the
        # player in the small blind seat that PokerKit finds after the "largest" blind of 0.
        ((1000, 5, 1000, 1000), (0, 10), AnteKind.PER_PLAYER, 2),
    ],
)
def test_pre_flop_opens_left_of_the_big_blind(
    stacks: tuple[int, ...], blinds: tuple[int, int], ante_kind: AnteKind, first: int
) -> None:
    cfg = HandConfig.standard(stacks, *blinds, ante_kind=ante_kind, ante=5)
    duel = Duel(cfg, _deck(len(stacks), []))
    legal = duel.decision()
    assert legal is not None and legal.player == first
    assert duel.case == CASE_OPENER_AFTER_LARGEST_BLIND
    assert duel.state is not None and duel.state.actor_index != first


def test_short_opening_allin_does_not_reopen_for_a_limper() -> None:
    # 5/10: UTG limps, the next player is all-in for 14 (+4, short of a full raise of 10), the
    # button calls, the blinds fold. RULES.md 4 (tda): UTG has acted and the bet rose 4 < 10
    # since: call or fold. PokerKit's yardstick started at 0, so it took the +4 as a full raise.
    cfg = HandConfig.standard((1000, 1000, 1000, 14, 1000), 5, 10)
    duel = Duel(cfg, _deck(5, []))
    _play(
        duel,
        [("call", 2, None), ("raise", 3, 14), ("call", 4, None), ("fold", 0, None),
         ("fold", 1, None)],
    )  # fmt: skip
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.to_call == 4
    assert not legal.can_raise and legal.raise_closed
    assert duel.case == CASE_SHORT_OPENING_ALLIN_REOPENS
    assert duel.state is not None and duel.state.can_complete_bet_or_raise_to()


def test_short_opening_allin_bet_post_flop_then_a_short_raise() -> None:
    # 50/100, on the flop: the small blind checks, the big blind bets all-in 60 (below one big
    # blind), UTG calls, the button is all-in for 120 (+60, short of the minimum raise of 100),
    # the small blind calls. UTG acted at 60 and the bet rose 60 < 100: call or fold. PokerKit
    # took the 60 as the street's full bet, so the +60 counts as full and re-opens for UTG.
    cfg = HandConfig.standard((1000, 160, 1000, 220), 50, 100)
    duel = Duel(cfg, _deck(4, []))
    _play(duel, [("call", 2, None), ("call", 3, None), ("call", 0, None), ("check", 1, None)])
    _play(
        duel,
        [("check", 0, None), ("bet", 1, 60), ("call", 2, None), ("raise", 3, 120),
         ("call", 0, None)],
    )  # fmt: skip
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.to_call == 60
    assert not legal.can_raise and legal.raise_closed
    assert duel.case == CASE_SHORT_OPENING_ALLIN_REOPENS
    assert duel.state is not None and duel.state.can_complete_bet_or_raise_to()


def test_short_all_ins_adding_up_since_his_action_reopen_after_a_completed_sum() -> None:
    # 5/10: UTG raises to 30 (+20, full), then three all-ins of +10 each (40, 50, 60), the button
    # calls, the blinds fold. UTG acted at 30 and the bet rose 30 >= 20 since: RULES.md 4 (tda)
    # re-opens. PokerKit's sum of short all-ins reached 20 at 50 and started again: +10 < 20.
    cfg = HandConfig.standard((1000, 1000, 1000, 40, 50, 60, 1000), 5, 10)
    duel = Duel(cfg, _deck(7, []))
    _play(
        duel,
        [("raise", 2, 30), ("raise", 3, 40), ("raise", 4, 50), ("raise", 5, 60),
         ("call", 6, None), ("fold", 0, None), ("fold", 1, None)],
    )  # fmt: skip
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.to_call == 30
    assert legal.can_raise and legal.min_raise_to == 80
    assert duel.case == CASE_REOPEN_SUM_RESTARTS
    assert duel.state is not None and not duel.state.can_complete_bet_or_raise_to()


def test_a_call_inside_a_run_of_short_all_ins_is_refused_a_raise_by_both() -> None:
    # Not a named case, though it looks like one: UTG raises to 30, an all-in to 40, player 4
    # calls 40, an all-in to 50 (the two +10 add up to a full raise), the button calls, the
    # blinds fold. UTG (acted at 30, rose 20) may re-raise in both engines. Player 4 (acted at
    # 40, rose 10) may not: ours by RULES.md 4, PokerKit because his call amount is below its
    # full raise, although its sum of short all-ins was complete.
    cfg = HandConfig.standard((1000, 1000, 1000, 40, 1000, 50, 1000), 5, 10)
    duel = Duel(cfg, _deck(7, []))
    _play(
        duel,
        [("raise", 2, 30), ("raise", 3, 40), ("call", 4, None), ("raise", 5, 50),
         ("call", 6, None), ("fold", 0, None), ("fold", 1, None)],
    )  # fmt: skip
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.can_raise
    duel.apply(Action(ActionKind.CALL, 2))
    legal = duel.decision()
    assert legal is not None and legal.player == 4 and legal.to_call == 10
    assert not legal.can_raise and legal.raise_closed
    assert duel.case is None
    assert duel.state is not None and not duel.state.can_complete_bet_or_raise_to()


def test_lone_matched_big_blind_gets_no_decision() -> None:
    # 5/10: the button calls all-in for 8, the small blind folds. RULES.md 3: nobody can answer
    # the big blind, so the board is run out; PokerKit asks him to check first.
    cfg = HandConfig.standard((1000, 1000, 8), 5, 10)
    duel = Duel(cfg, _deck(3, ["2h2d", "AsAd", "KsKd"]))
    _play(duel, [("call", 2, None), ("fold", 0, None)])
    assert duel.hand.is_over and len(duel.hand.board) == 5
    assert duel.decision() is None
    assert duel.normalised == [CASE_LONE_MATCHED_PLAYER_ASKED]
    assert duel.finish()
    assert duel.hand.stacks == [995, 1013, 0]


def _check_down(duel: Duel) -> None:
    while (legal := duel.decision()) is not None:
        duel.apply(Action(ActionKind.CHECK, legal.player))


def test_odd_chips_one_unit_each_from_the_button() -> None:
    # 5/10, four players, the small blind folds, three see a board that plays for everyone:
    # 35 split three ways. RULES.md 5 (TDA 20-A, E7): 12, 12, 11 from the first winner left of
    # the button; PokerKit gives the whole remainder of 2 to the first winner (13, 11, 11).
    cfg = HandConfig.standard((1000,) * 4, 5, 10)
    duel = Duel(cfg, _deck(4, ["2c3c", "2d3d", "2h3h", "2s3s"], "AsKsQsJsTs"))
    _play(duel, [("call", 2, None), ("call", 3, None), ("fold", 0, None), ("check", 1, None)])
    _check_down(duel)
    assert duel.hand.stacks == [995, 1002, 1002, 1001]
    assert duel.finish()
    assert duel.normalised == [CASE_ODD_CHIPS_ONE_UNIT_EACH]
    assert duel.state is not None and list(duel.state.stacks) == [995, 1003, 1001, 1001]


def test_odd_chips_settled_pot_by_pot() -> None:
    # 5/10: UTG calls all-in for 9, the cutoff raises to 30, the button calls, both blinds fold;
    # the cutoff and the button tie, UTG loses. The main pot (41: 5 + 10 folded blinds' chips up
    # to 9, 9 x 3) and the side pot (43) are split each on its own (RULES.md 5, TDA 21): the
    # cutoff, first left of the button, gets the odd chip of both. PokerKit kills UTG's hand
    # first, so the two pots have the same players, merge into 84 and split 42 / 42.
    cfg = HandConfig.standard((1000, 1000, 9, 1000, 1000), 5, 10)
    duel = Duel(cfg, _deck(5, [None, None, "4s5s", "AhKh", "AdKd"]))
    _play(
        duel,
        [("call", 2, None), ("raise", 3, 30), ("call", 4, None), ("fold", 0, None),
         ("fold", 1, None)],
    )  # fmt: skip
    _check_down(duel)
    awards = [e for e in duel.hand.events if isinstance(e, PotAwarded)]
    assert [(a.amount, a.eligible, a.shares) for a in awards] == [
        (41, (2, 3, 4), ((3, 21), (4, 20))),
        (43, (3, 4), ((3, 22), (4, 21))),
    ]
    assert duel.finish()
    assert duel.normalised == [CASE_ODD_CHIPS_MERGED_POTS]
    assert duel.state is not None and list(duel.state.stacks)[3:] == [1012, 1012]


def test_a_random_hand_replays_from_its_seed() -> None:
    first, again = run_hand(12345, DiffStats()), run_hand(12345, DiffStats())
    assert first.hand.actions == again.hand.actions
    assert first.hand.stacks == again.hand.stacks


# --- the cases added with the other modes, pre-selections, timeouts, dead blinds, chip units ---


def _shoves(mode: ReopenMode, shoves: Sequence[int]) -> Duel:
    # 5/10: UTG raises to 30 (a full raise of 20), each stack in ``shoves`` goes all-in in turn,
    # the button calls, the blinds fold; the action is back on UTG, who acted at 30.
    stacks = (1000, 1000, 1000, *shoves, 1000)
    n = len(stacks)
    duel = Duel(HandConfig.standard(stacks, 5, 10, reopen=mode), _deck(n, []))
    _play(duel, [("raise", 2, 30)])
    for player in range(3, n - 1):
        _play(duel, [("raise", player, stacks[player])])
    _play(duel, [("call", n - 1, None), ("fold", 0, None), ("fold", 1, None)])
    return duel


@pytest.mark.parametrize(
    ("mode", "shoves"), [(ReopenMode.STRICT, [40, 50]), (ReopenMode.HALF, [37, 44, 51])]
)
def test_short_all_ins_adding_up_do_not_reopen_under_strict_or_half(
    mode: ReopenMode, shoves: list[int]
) -> None:
    # 10 + 10 (strict) or 7 + 7 + 7 (half, none of them half a raise) since UTG acted: RULES.md 4
    # adds short all-ins up only under tda. PokerKit adds them up and re-opens.
    duel = _shoves(mode, shoves)
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.raise_closed
    assert duel.case == CASE_SHORT_ALLINS_ADDED_UP
    assert duel.state is not None and duel.state.can_complete_bet_or_raise_to()


def test_half_a_raise_reopens_under_half() -> None:
    # One all-in of +10, half the last full raise of 20: ``half`` re-opens for UTG (to 60 or
    # more); PokerKit refuses, his call of 10 being below its yardstick of 20.
    duel = _shoves(ReopenMode.HALF, [40])
    legal = duel.decision()
    assert legal is not None and legal.player == 2 and legal.can_raise
    assert legal.min_raise_to == 60
    assert duel.case == CASE_HALF_RAISE_REOPENS
    assert duel.state is not None and not duel.state.can_complete_bet_or_raise_to()


# Two bugs the cases used to swallow: with the exclusions as wide as they were, 2,500 random
# hands gave no mismatch for either. Each now fails the comparison, on a hand that is exactly
# the situation the case it used to hide behind describes.


def _yet_to_act_loses_his_option(hand: Hand, i: int) -> bool:
    mode = hand.config.reopen
    if mode is ReopenMode.TDA:
        return hand.high_bet - hand.acted_high[i] >= hand.min_increment
    return hand.full_raises > hand.acted_raises[i]


def _tda_reopens_on_half_a_raise(hand: Hand, i: int) -> bool:
    if not hand.acted[i]:
        return True
    return 2 * (hand.high_bet - hand.acted_high[i]) >= hand.min_increment


def test_a_player_yet_to_act_refused_is_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    # Everyone limps. On the flop the small blind, first to act, is refused a bet: the bug
    # measures him against his pre-flop action. PokerKit's yardstick is 0, below one big
    # blind, which the old ``short_opening_allin_reopens`` took as enough of an explanation.
    monkeypatch.setattr(Hand, "_reopened_for", _yet_to_act_loses_his_option)
    duel = Duel(HandConfig.standard((1000, 1000, 1000, 1000), 5, 10), _deck(4, []))
    _play(duel, [("call", 2, None), ("call", 3, None), ("call", 0, None), ("check", 1, None)])
    assert duel.hand.board and duel.state is not None
    with pytest.raises(Mismatch, match=r"right to raise breaks RULES\.md 4"):
        duel.decision()
    assert duel.state.completion_betting_or_raising_amount < 10


def test_tda_reopening_on_half_a_raise_is_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    # UTG raised to 30, one all-in of +10 followed: under tda UTG may only call or fold.
    # Letting him raise is a bug, not ``reopen_short_allin_sum_restarts``.
    monkeypatch.setattr(Hand, "_reopened_for", _tda_reopens_on_half_a_raise)
    duel = _shoves(ReopenMode.TDA, [40])
    with pytest.raises(Mismatch, match=r"right to raise breaks RULES\.md 4"):
        duel.decision()


def test_pre_selections_and_timeouts_play_the_same_in_both() -> None:
    # 5/10, five players. UTG pre-selected nothing; the cutoff pre-selects "call" (10), the
    # button "call any", the small blind "check/fold", the big blind "fold". UTG raises to 30:
    # the cutoff's call is dropped (the bet changed), he decides again and times out (a fold);
    # the button calls 30 by "call any", the small blind folds by "check/fold", the big blind
    # folds. Then the flop: the button pre-selects "check", UTG checks, the button's check is
    # carried out; on the turn UTG times out, which checks.
    cfg = HandConfig.standard((1000,) * 5, 5, 10)
    duel = Duel(cfg, _deck(5, []))
    duel.decision()
    for player, pre in (
        (3, PreAction.CALL), (4, PreAction.CALL_ANY), (0, PreAction.CHECK_FOLD),
        (1, PreAction.FOLD),
    ):  # fmt: skip
        duel.apply(Action(ActionKind.PRESELECT, player, pre=pre))
    _play(duel, [("raise", 2, 30)])
    legal = duel.decision()
    assert legal is not None and legal.player == 3
    _play(duel, [("timeout", 3, None)])
    assert duel.hand.folded == [True, True, False, True, False]
    assert duel.hand.bets == [0, 0, 0, 0, 0] and duel.hand.board  # on the flop
    duel.decision()
    duel.apply(Action(ActionKind.PRESELECT, 4, pre=PreAction.CHECK))
    _play(duel, [("check", 2, None)])
    assert len(duel.hand.board) == 4
    _play(duel, [("timeout", 2, None), ("check", 4, None)])
    assert len(duel.hand.board) == 5 and duel.case is None


def test_a_pre_selection_carried_out_wrongly_is_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    # A "call" chosen at 10 must be dropped once the bet is 30 (TDA 53). Carrying it out anyway
    # is a difference in the actions played, not something either engine would accept.
    original = Hand._run_preselections

    def ignore_changed_bets(hand: Hand) -> None:
        for player, (pre, _) in list(hand.preselected.items()):
            hand.preselected[player] = (pre, hand.high_bet)
        original(hand)

    monkeypatch.setattr(Hand, "_run_preselections", ignore_changed_bets)
    duel = Duel(HandConfig.standard((1000,) * 5, 5, 10), _deck(5, []))
    duel.decision()
    duel.apply(Action(ActionKind.PRESELECT, 3, pre=PreAction.CALL))
    duel.decision()
    with pytest.raises(Mismatch, match="actions carried out differ"):
        duel.apply(Action(ActionKind.RAISE, 2, 30))


def test_dead_small_blind_in_the_main_pot_is_compared_with_pokerkit() -> None:
    # The dead small blind (5) is PokerKit's untrimmed ante of its poster: UTG all-in for 40,
    # the returning player raises to 100, the small blind folds, the big blind calls; UTG's
    # aces win the main pot of 130 (dead blind included), the kings the side pot of 120.
    cfg = dataclasses.replace(
        HandConfig.standard((1000, 1000, 40, 1000), 5, 10), dead_blinds=(0, 0, 0, 5)
    )
    duel = Duel(cfg, _deck(4, ["7c2d", "KsKh", "AsAh", "QsQh"]))
    _play(duel, [("raise", 2, 40), ("raise", 3, 100), ("fold", 0, None), ("call", 1, None)])
    _check_down(duel)
    awards = [(a.amount, a.shares) for a in duel.hand.events if isinstance(a, PotAwarded)]
    assert awards == [(130, ((2, 130),)), (120, ((1, 120),))]
    assert duel.finish()


def test_big_blind_ante_in_the_main_pot_is_compared_with_pokerkit() -> None:
    # BBA 10 at 5/10: UTG all-in for 50, the button raises to 200, the small blind folds, the
    # big blind calls. Main pot 5 + 3 x 50 + the ante = 165 to UTG, side pot 300 to the kings.
    cfg = HandConfig.standard((1000, 1000, 50, 1000), 5, 10, ante_kind=AnteKind.BIG_BLIND, ante=10)
    duel = Duel(cfg, _deck(4, ["7c2d", "KsKh", "AsAh", "QsQh"]))
    _play(duel, [("raise", 2, 50), ("raise", 3, 200), ("fold", 0, None), ("call", 1, None)])
    _check_down(duel)
    awards = [(a.amount, a.shares) for a in duel.hand.events if isinstance(a, PotAwarded)]
    assert awards == [(165, ((2, 165),)), (300, ((1, 300),))]
    assert duel.finish()


def test_odd_chips_by_chip_unit_are_checked_against_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # E7 with PokerKit: unit 10, three players split 1,000 as 340 / 330 / 330 from the first
    # winner left of the button. PokerKit's own split (1,000 / 3: 334 / 333 / 333) is what the
    # stacks are compared with; a split that breaks RULES.md 5 fails before that.
    cfg = HandConfig.standard((1000,) * 5, 10, 20, chip_unit=10)
    holes = ["2c3d", "4h5c", "6d7h", "8c9d", "2h3c"]

    def play() -> Duel:
        duel = Duel(cfg, _deck(5, holes, "AsKsQsJsTs"))
        _play(
            duel,
            [("raise", 2, 330), ("call", 3, None), ("fold", 4, None), ("fold", 0, None),
             ("call", 1, None)],
        )  # fmt: skip
        _check_down(duel)
        return duel

    duel = play()
    awards = [a for a in duel.hand.events if isinstance(a, PotAwarded)]
    assert [a.shares for a in awards] == [((1, 340), (2, 330), (3, 330))]
    assert duel.finish() and duel.normalised == [CASE_ODD_CHIPS_ONE_UNIT_EACH]
    assert duel.state is not None and list(duel.state.stacks)[1:4] == [1004, 1003, 1003]

    def odd_chip_to_the_last(amount: int, winners: Sequence[int], unit: int) -> list[Any]:
        shares = split(amount, winners, unit)
        return [*shares[1:], shares[0]] if len(shares) > 1 else shares

    split = engine.hand.split_chips
    monkeypatch.setattr(engine.hand, "split_chips", odd_chip_to_the_last)
    with pytest.raises(Mismatch, match=r"RULES\.md 5"):
        play().finish()


@pytest.mark.parametrize(
    ("config", "name"),
    [
        # A live big blind posted by a player coming in (index 3): PokerKit opens after him.
        (HandConfig((100,) * 5, (5, 10, 0, 10, 0), (0,) * 5, 10, 1), UNMODELLED_POSTED_BLIND),
        (
            HandConfig(
                (100,) * 4, (5, 10, 0, 0), (1,) * 4, 10, 1, AnteKind.PER_PLAYER, (0, 0, 5, 0)
            ),
            UNMODELLED_DEAD_BLIND_WITH_ANTES,
        ),
        (
            HandConfig(
                (100, 100, 5, 100), (5, 10, 0, 0), (0,) * 4, 10, 1, dead_blinds=(0, 0, 5, 0)
            ),
            UNMODELLED_DEAD_BLIND_ALL_IN,
        ),
        (HandConfig.standard((100,) * 23, 5, 10), UNMODELLED_NO_BURNS),
    ],
)
def test_what_pokerkit_cannot_model_is_named_and_left_out(config: HandConfig, name: str) -> None:
    duel = Duel(config, _deck(config.players, []))
    assert duel.case == name and duel.state is None
    while (legal := duel.decision()) is not None:
        duel.apply(Action(ActionKind.CHECK if legal.can_check else ActionKind.CALL, legal.player))
    assert not duel.finish()


def test_a_voided_hand_is_left_out() -> None:
    duel = Duel(HandConfig.standard((100,) * 3, 5, 10), _deck(3, []))
    _play(duel, [("call", 2, None)])
    duel.apply(Action(ActionKind.VOID))
    assert duel.case == UNMODELLED_VOID and not duel.finish()

"""Run it twice: when nobody can bet any more before the river, the rest of the board is dealt
twice from the same deck and every pot contested by two or more is halved between the runs.

The second run takes the next undealt deck positions after the first run's river, with a burn
before each street (engine.hand.second_run_positions). A pot of an odd number of chip units
gives its odd unit to the first run; each half is split by RULES 5 among that run's winners.
PokerKit deals runouts the same way (one runout after the other, a burn per street) and halves
pots the same way, so random all-in hands are compared with it to the end.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pokerkit import Automation, HandHistory, Mode

from engine.cards import FULL_DECK, Card, parse_cards
from engine.commitment import DeckCommitment, seen_positions
from engine.errors import EngineError
from engine.hand import (
    Action,
    ActionKind,
    Hand,
    HandConfig,
    HandShown,
    PotAwarded,
    RunCountChosen,
    RunItTwice,
    RunTwiceOffered,
    SecondRunDealt,
    StreetDealt,
    board_positions,
    deck_from_cards,
    second_run_positions,
)
from engine.phh import dump_played_hand, load_hand, replay
from engine.table import Table, TableOptions
from tests.engine.pokerkit_oracle import AUTOMATIONS, choose_action, deal_holes, pokerkit_state
from tests.engine.test_hand_properties import random_action, tables

ALWAYS = RunItTwice.ALWAYS


def rigged(config: HandConfig, holes: list[str], board: str, second_run: str = "") -> Hand:
    deck = deck_from_cards(
        config.players,
        [parse_cards(h) for h in holes],
        parse_cards(board),
        second_run=parse_cards(second_run),
    )
    return Hand(config, deck)


def test_all_in_pre_flop_runs_twice_from_the_next_undealt_positions() -> None:
    rng = random.Random(4)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = Hand(HandConfig.standard((500, 500, 500), 5, 10, run_it_twice=ALWAYS), deck)
    hand.go_all_in(2)
    hand.call(0)
    hand.call(1)
    kinds = [type(e) for e in hand.events]
    tabled = kinds.index(HandShown)
    assert kinds[tabled : tabled + 3] == [HandShown] * 3
    assert kinds[tabled + 3 : tabled + 10] == [
        RunCountChosen,
        StreetDealt,
        StreetDealt,
        StreetDealt,
        SecondRunDealt,
        SecondRunDealt,
        SecondRunDealt,
    ]
    # First run: burn, flop, burn, turn, burn, river from position 6; second run from 14.
    assert hand.board == tuple(deck[p] for p in (7, 8, 9, 11, 13))
    assert hand.second_board == tuple(deck[p] for p in (15, 16, 17, 19, 21))
    assert second_run_positions(3, 0) == (15, 16, 17, 19, 21)
    assert hand.second_run_from == 0 and hand.boards == (hand.board, hand.second_board)
    result = hand.result
    assert result is not None and result.boards == hand.boards
    assert [(a.index, a.amount, a.run) for a in result.pots] == [(0, 750, 1), (0, 750, 2)]
    assert sum(result.stacks) == 1500
    assert hand.rank(0, run=2) is not None and hand.rank(0, run=3) is None


def test_the_odd_chip_of_the_halving_goes_to_the_first_run() -> None:
    # Seats 0 SB, 1 BB, 2 UTG, 3 button; the small blind folds, so the pot is 301.
    config = HandConfig.standard((100, 100, 100, 100), 1, 2, run_it_twice=ALWAYS)
    hand = rigged(config, ["2c4d", "Td5c", "Th6c", "3s3d"], "AcKdQhJs8c", second_run="3h3c7d9s2d")
    hand.go_all_in(2)
    hand.call(3)
    hand.fold(0)
    hand.call(1)
    assert hand.result is not None
    pots = [(a.amount, a.run, a.shares) for a in hand.result.pots]
    # Run 1 (151): players 1 and 2 split with straights, the odd chip to the first clockwise
    # from the button; run 2 (150): player 3's quads.
    assert pots == [(151, 1, ((1, 76), (2, 75))), (150, 2, ((3, 150),))]
    assert hand.result.stacks == (99, 76, 75, 150)


def test_a_pot_only_one_player_can_win_is_not_halved() -> None:
    hand = Hand(HandConfig.standard((50, 1000, 1000), 1, 2, run_it_twice=ALWAYS), FULL_DECK)
    hand.raise_to(2, 100)
    hand.call(0)  # all-in for 50
    hand.raise_to(1, 300)
    hand.fold(2)
    assert hand.result is not None
    awards = [(a.index, a.amount, a.eligible, a.run) for a in hand.result.pots]
    assert awards == [(0, 75, (0, 1), 1), (0, 75, (0, 1), 2), (1, 100, (1,), 0)]


def test_ask_waits_for_the_players_and_records_their_answer() -> None:
    config = HandConfig.standard((300, 300, 300), 5, 10, run_it_twice=RunItTwice.ASK)
    for runs in (1, 2):
        hand = Hand(config, FULL_DECK)
        hand.raise_to(2, 100)
        hand.fold(0)
        hand.go_all_in(1)
        hand.call(2)
        offer = hand.events[-1]
        assert isinstance(offer, RunTwiceOffered)
        assert (offer.players, offer.board_count) == ((1, 2), 0)
        assert hand.run_choice_pending and hand.run_choice_players == (1, 2)
        assert hand.to_act is None and hand.legal() is None and not hand.is_over
        snapshot = hand.snapshot()
        assert snapshot["run_choice_pending"] and snapshot["run_choice_players"] == [1, 2]
        before = hand.state_key()
        for bad in (
            Action(ActionKind.RUN_COUNT, amount=3),
            Action(ActionKind.RUN_COUNT, amount=0),
            Action(ActionKind.RUN_COUNT, amount=True),
            Action(ActionKind.RUN_COUNT, 1, 2),
            Action(ActionKind.RUN_COUNT),
        ):
            with pytest.raises(EngineError):
                hand.apply(bad)
        with pytest.raises(EngineError) as refused:
            hand.check(2)
        assert refused.value.code == "not_your_turn"
        assert hand.state_key() == before
        hand.choose_run_count(runs)
        assert hand.result is not None
        assert len(hand.result.boards) == runs
        assert (hand.second_board is not None) == (runs == 2)
        with pytest.raises(EngineError):
            hand.choose_run_count(runs)
        again = Hand.replay(
            config, FULL_DECK, [Action.from_json(a.to_json()) for a in hand.actions]
        )
        assert again.state_key() == hand.state_key()


def test_a_run_choice_is_refused_when_none_is_asked() -> None:
    hand = Hand(HandConfig.standard((300, 300), 5, 10, run_it_twice=RunItTwice.ASK), FULL_DECK)
    with pytest.raises(EngineError) as refused:
        hand.choose_run_count(2)
    assert refused.value.params["reason"] == "no_run_choice"


def test_a_hand_waiting_for_the_vote_can_be_voided() -> None:
    hand = Hand(HandConfig.standard((300, 300), 5, 10, run_it_twice=RunItTwice.ASK), FULL_DECK)
    hand.go_all_in(1)
    hand.call(0)
    assert hand.run_choice_pending
    hand.void()
    assert not hand.run_choice_pending and hand.result is not None and hand.result.voided
    assert hand.stacks == [300, 300]


def test_off_runs_once_and_writes_what_it_always_wrote() -> None:
    hand = Hand(HandConfig.standard((300, 300), 5, 10), FULL_DECK)
    hand.go_all_in(1)
    hand.call(0)
    assert hand.result is not None and hand.second_board is None
    assert not any(isinstance(e, RunCountChosen | SecondRunDealt) for e in hand.events)
    assert all(a.run == 0 for a in hand.result.pots)
    assert "run_it_twice" not in hand.config.to_json()


@pytest.mark.parametrize(
    ("players", "street", "twice"),
    [(18, 0, True), (19, 0, False), (20, 3, True), (21, 3, False), (21, 4, True), (22, 4, False)],
)
def test_a_deck_too_short_for_a_second_run_runs_once(
    players: int, street: int, twice: bool
) -> None:
    config = HandConfig.standard((1000,) * players, 5, 10, run_it_twice=RunItTwice.ASK)
    hand = Hand(config, FULL_DECK)
    while len(hand.board) < street:
        legal = hand.legal()
        assert legal is not None
        hand.apply(Action(ActionKind.CALL if legal.to_call else ActionKind.CHECK, legal.player))
    for _ in range(players):
        legal = hand.legal()
        if legal is None:
            break
        hand.apply(Action(ActionKind.ALL_IN if legal.can_raise else ActionKind.CALL, legal.player))
    assert hand.run_choice_pending == twice
    assert hand.is_over != twice


def test_second_run_positions_never_touch_holes_burns_or_the_first_run() -> None:
    for players in range(2, 22):
        first = set(board_positions(players))
        # Everything the first run dealt or burned, and the hole cards.
        used = set(range(2 * players)) | set(range(2 * players, max(first) + 1))
        for dealt in (0, 3, 4):
            try:
                second = second_run_positions(players, dealt)
            except EngineError:
                continue
            assert len(second) == 5 - dealt
            assert not used & set(second) and max(second) < 52


def test_the_commitment_opens_both_runs() -> None:
    rng = random.Random(9)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = Hand(HandConfig.standard((500, 500, 500), 5, 10, run_it_twice=ALWAYS), deck)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    hand.go_all_in(0)
    hand.call(1)
    hand.call(2)
    assert hand.second_run_from == 3
    commitment = DeckCommitment.commit(deck)
    positions = seen_positions(3, 5, hand.shown, second_run_from=hand.second_run_from)
    opened = {
        o.card for o in commitment.open_many(deck, positions) if o.verify(commitment.root_hex)
    }
    assert opened == set(hand.board) | set(hand.second_board or ()) | {
        c for j in range(3) for c in hand.hole_cards(j)
    }
    with pytest.raises(EngineError):
        seen_positions(3, 4, (), second_run_from=3)


# --- random hands -----------------------------------------------------------------------------


def play_out(hand: Hand, rng: random.Random) -> None:
    steps = 0
    while not hand.is_over:
        if hand.run_choice_pending:
            hand.choose_run_count(rng.choice((1, 2)))
        else:
            hand.apply(random_action(hand, rng))
        steps += 1
        assert steps < 500


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from([RunItTwice.ASK, RunItTwice.ALWAYS]))
def test_chips_are_conserved_and_each_pot_is_paid_once_over_both_runs(table, mode) -> None:
    cfg, deck, seed = table
    cfg = dataclasses.replace(cfg, run_it_twice=mode)
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    total = sum(cfg.stacks)
    play_out(hand, rng)
    assert hand.result is not None
    assert sum(hand.stacks) == total and min(hand.stacks) >= 0
    paid: dict[int, int] = {}
    for award in hand.result.pots:
        assert sum(chips for _, chips in award.shares) == award.amount
        paid[award.index] = paid.get(award.index, 0) + award.amount
        assert award.run in ((1, 2) if hand.second_board is not None else (0,)) or (
            award.run == 0 and len(award.eligible) == 1
        )
    assert sum(paid.values()) == sum(hand.contributions) + sum(hand.pooled)
    if hand.second_board is not None:
        k = hand.second_run_from
        assert k is not None
        assert hand.second_board[:k] == hand.board[:k]
        assert hand.second_board[k:] == tuple(deck[p] for p in second_run_positions(hand.n, k))
        for index in paid:
            halves = sorted(a.amount for a in hand.result.pots if a.index == index)
            if len(halves) == 2:
                # The first run's half is the larger by at most one chip unit.
                first = next(a.amount for a in hand.result.pots if a.index == index and a.run == 1)
                assert (
                    0
                    <= first - (paid[index] - first)
                    <= cfg.chip_unit + paid[index] % cfg.chip_unit
                )
    again = Hand.replay(cfg, deck, hand.actions)
    assert again.state_key() == hand.state_key()
    phh = replay(load_hand(dump_played_hand(hand, reveal_all=True)))
    assert phh.stacks == hand.stacks and phh.boards == hand.boards


# --- against PokerKit ---------------------------------------------------------------------


def _chunks(board: tuple[Card, ...], start: int) -> list[tuple[Card, ...]]:
    cuts = [(0, 3), (3, 4), (4, 5)]
    return [board[a:b] for a, b in cuts if a >= start and b <= len(board)]


def pokerkit_run_twice_duel(seed: int) -> str:
    """Play a random all-in-prone hand in both engines, running it twice; compare stacks."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    bb = rng.choice((2, 10, 20))
    stacks = [rng.choice((rng.randint(bb, 8 * bb), rng.randint(8 * bb, 50 * bb))) for _ in range(n)]
    config = HandConfig.standard(stacks, bb // 2, bb, run_it_twice=ALWAYS)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = Hand(config, deck)
    # PokerKit asks for the number of runs, as our players are asked.
    asked = tuple(a for a in AUTOMATIONS if a is not Automation.RUNOUT_COUNT_SELECTION)
    state = pokerkit_state(config, asked, mode=Mode.CASH_GAME)
    deal_holes(state, deck, n)
    fed = 0

    def pump() -> None:
        nonlocal fed
        while state.status:
            if state.can_select_runout_count():
                state.select_runout_count(2 if hand.second_board is not None else 1)
            elif state.can_burn_card():
                state.burn_card("??")
            elif state.can_deal_board():
                chunks = _chunks(hand.board, 0)
                if hand.second_board is not None:
                    chunks += _chunks(hand.second_board, hand.second_run_from or 0)
                state.deal_board("".join(map(repr, _pk(chunks[fed]))))
                fed += 1
            elif state.actor_index is not None and hand.legal() is None:
                state.check_or_call()  # PokerKit asks the lone player with chips to check
            else:
                return

    while (legal := hand.legal()) is not None:
        pump()
        if state.actor_index != legal.player:
            return "out_of_step"
        action = choose_action(legal, rng)
        hand.apply(action)
        try:
            if action.kind is ActionKind.FOLD:
                state.fold()
            elif action.kind in (ActionKind.CHECK, ActionKind.CALL):
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(action.amount)
        except ValueError:
            return "pokerkit_refused"  # a by-design re-open difference (test_pokerkit_diff)
    pump()
    assert hand.result is not None and not state.status
    expected = pokerkit_style_stacks(hand)
    assert list(state.stacks) == expected, f"seed={seed}: ours {hand.stacks}"
    if expected != hand.stacks:
        return "odd_chips"
    return "twice" if hand.second_board is not None else "once"


def pokerkit_style_stacks(hand: Hand) -> list[int]:
    """Our final stacks with the pots paid PokerKit's way (test_pokerkit_diff names the cases).

    PokerKit first kills the hands that win nothing and merges adjacent pots whose surviving
    players are then the same; it halves each pot per board with the odd chip to the first, as
    we do, but gives a split half's whole remainder to its first winner. RULES 5 settles each
    pot's odd chips on its own, one unit at a time.
    """
    assert hand.result is not None
    stacks = list(hand.stacks)
    if not hand.result.showdown:
        return stacks
    amounts: dict[int, int] = {}
    eligible: dict[int, tuple[int, ...]] = {}
    for award in hand.result.pots:
        for player, chips in award.shares:
            stacks[player] -= chips
        amounts[award.index] = amounts.get(award.index, 0) + award.amount
        eligible[award.index] = award.eligible
    winners = {p for a in hand.result.pots for p, chips in a.shares if chips}
    groups: list[tuple[tuple[int, ...], int]] = []
    for index in sorted(amounts):
        key = tuple(j for j in eligible[index] if j in winners)
        if groups and groups[-1][0] == key:
            groups[-1] = (key, groups[-1][1] + amounts[index])
        else:
            groups.append((key, amounts[index]))
    runs = len(hand.boards)
    for key, amount in groups:
        each, odd = divmod(amount, runs)
        for run in range(1, runs + 1):
            values = {j: hand.rank(j, run).value for j in key}  # type: ignore[union-attr]
            best = [j for j in key if values[j] == max(values.values())]
            share, rest = divmod(each + (odd if run == 1 else 0), len(best))
            for j in best:
                stacks[j] += share + (rest if j == best[0] else 0)
    return stacks


def _pk(cards: tuple[Card, ...]) -> list[object]:
    from tests.engine.pokerkit_oracle import PK_CARDS

    return [PK_CARDS[c] for c in cards]


def test_random_hands_run_twice_match_pokerkit() -> None:
    outcomes: dict[str, int] = {}
    for seed in range(500):
        outcome = pokerkit_run_twice_duel(seed)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("out_of_step", 0) == 0, outcomes
    assert outcomes.get("twice", 0) + outcomes.get("odd_chips", 0) >= 100, outcomes


# --- PHH and the table ----------------------------------------------------------------------


def test_phh_keeps_the_second_run_and_pokerkit_reads_the_first() -> None:
    hand = rigged(
        HandConfig.standard((100, 100), 1, 2, run_it_twice=ALWAYS),
        ["AsAh", "KsKh"],
        "2c7d9h4s5d",
        second_run="Kd3c",
    )
    hand.call(1)
    hand.check(0)
    hand.go_all_in(0)
    hand.call(1)
    text = dump_played_hand(hand)
    assert "_second_run = 'Kd3c'" in text and "_run_it_twice = 'always'" in text
    assert "finishing_stacks = [100, 100]" in text  # AA won the first run, KK the second
    again = replay(load_hand(text))
    assert again.boards == hand.boards and again.stacks == [100, 100]
    # A reader that knows nothing of our field plays the board once: AA wins it all.
    assert list(list(HandHistory.loads(text))[-1].stacks) == [200, 0]


def test_phh_of_a_refused_run_twice_replays_once() -> None:
    config = HandConfig.standard((100, 100), 1, 2, run_it_twice=RunItTwice.ASK)
    hand = Hand(config, FULL_DECK)
    hand.go_all_in(1)
    hand.call(0)
    hand.choose_run_count(1)
    text = dump_played_hand(hand)
    assert "_second_run" not in text and "_run_it_twice = 'ask'" in text
    again = replay(load_hand(text))
    assert again.is_over and again.stacks == hand.stacks and again.second_board is None


def test_table_option_reaches_the_hand_and_survives_json() -> None:
    options = TableOptions(small_blind=1, big_blind=2, run_it_twice=RunItTwice.ASK)
    assert TableOptions.from_json(options.to_json()) == options
    assert TableOptions.from_json({"small_blind": 1, "big_blind": 2}).run_it_twice is RunItTwice.OFF
    table = Table(options, rng=1)
    table.join("a", 100, seat=1)
    table.join("b", 100, seat=2)
    table.start_hand(FULL_DECK, button=1)
    assert table.hand is not None and table.hand.config.run_it_twice is RunItTwice.ASK


def test_pot_awards_of_both_runs_name_their_run() -> None:
    hand = Hand(HandConfig.standard((100, 100), 1, 2, run_it_twice=ALWAYS), FULL_DECK)
    hand.go_all_in(1)
    hand.call(0)
    runs = [e.run for e in hand.events if isinstance(e, PotAwarded)]
    assert runs == [1, 2]
    assert hand.events[-1].to_json()["stacks"] == list(hand.stacks)

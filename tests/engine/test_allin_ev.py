"""All-in EV (engine.allin_ev) against a slow count written only for this test: every board the
rest of the deck can give, dealt by the engine into a deck of its own, the hand replayed on it
to the end and the players' actual nets averaged. Then what must hold of any all-in: the figures
add up to the pots, a locked hand gets every pot it is in, and luck averages out over many
hands, by a statistical test that a wrong EV fails."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.allin_ev import AllInEV, all_in_ev, expected_chips
from engine.cards import FULL_DECK, Card, parse_cards
from engine.equity import count_boards
from engine.errors import EngineError
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import (
    Action,
    ActionKind,
    AnteKind,
    Hand,
    HandConfig,
    RunItTwice,
    deck_from_cards,
)

GAMES = (NLHE, PLO, PLO5, PLO8)
BETTING = frozenset(
    {
        ActionKind.FOLD,
        ActionKind.CHECK,
        ActionKind.CALL,
        ActionKind.BET,
        ActionKind.RAISE,
        ActionKind.ALL_IN,
        ActionKind.TIMEOUT,
    }
)


# --- random all-in hands ------------------------------------------------------------------


def drive(hand: Hand, street: int, rng: random.Random, runs: int, folds: bool = True) -> None:
    """Play the hand out: checks and calls until ``street`` board cards are out, then mostly
    all-ins and calls (some raises, and folds unless ``folds`` is False), answering a vote on
    running it twice with ``runs``."""
    steps = 0
    while not hand.is_over:
        steps += 1
        assert steps < 300
        if hand.run_choice_pending:
            hand.choose_run_count(runs)
            continue
        legal = hand.legal()
        assert legal is not None
        p = legal.player
        if len(hand.board) < street:
            if folds and legal.to_call and rng.random() < 0.1:
                hand.fold(p)
            else:
                hand.apply(Action(ActionKind.CALL if legal.to_call else ActionKind.CHECK, p))
            continue
        choices = [Action(ActionKind.FOLD, p)] if folds else []
        choices += [Action(ActionKind.CALL if legal.to_call else ActionKind.CHECK, p)] * 3
        if legal.can_raise:
            choices += [Action(ActionKind.ALL_IN, p)] * 4
            choices.append(Action(ActionKind.RAISE, p, legal.min_raise_to))
        hand.apply(rng.choice(choices))


def random_all_in(
    rng: random.Random,
    game: Game,
    players: int,
    street: int,
    *,
    run_it_twice: RunItTwice = RunItTwice.OFF,
    runs: int = 1,
    deck: tuple[Card, ...] | None = None,
    folds: bool = True,
) -> Hand:
    """A random hand of short, uneven stacks (side pots, players all-in for less, dead money
    from antes and folds), played by :func:`drive`."""
    unit = rng.choice([1, 1, 5])
    stacks = tuple(unit * rng.randint(3, 60) for _ in range(players))
    ante_kind = rng.choice(list(AnteKind))
    config = HandConfig.standard(
        stacks,
        unit,
        2 * unit,
        ante_kind=ante_kind,
        ante=0 if ante_kind is AnteKind.NONE else unit * rng.randint(1, 3),
        chip_unit=unit,
        run_it_twice=run_it_twice,
        game=game,
    )
    if deck is None:
        shuffled = list(FULL_DECK)
        rng.shuffle(shuffled)
        deck = tuple(shuffled)
    hand = Hand(config, deck)
    drive(hand, street, rng, runs, folds)
    return hand


@st.composite
def all_ins(
    draw: st.DrawFn,
    streets: tuple[int, ...] = (0, 3, 4),
    modes: tuple[RunItTwice, ...] = (RunItTwice.OFF, RunItTwice.ASK, RunItTwice.ALWAYS),
    players: tuple[int, int] = (2, 6),
) -> Hand:
    game = draw(st.sampled_from(GAMES))
    n = draw(st.integers(players[0], min(players[1], game.max_players)))
    deck = tuple(draw(st.permutations(FULL_DECK)))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    return random_all_in(
        rng,
        game,
        n,
        draw(st.sampled_from(streets)),
        run_it_twice=draw(st.sampled_from(modes)),
        runs=draw(st.sampled_from((1, 2))),
        deck=deck,
    )


# --- the slow count -----------------------------------------------------------------------


def moment_board(hand: Hand) -> int | None:
    """Board cards out when the betting stopped for good with cards to come, found by
    replaying the hand's inputs one at a time: the board before its last betting input (the
    engine runs the board out within that input), or 0 when nobody ever bet (all-in on the
    forced bets). None when the hand did not end in a showdown or its betting ended on the
    river."""
    assert hand.result is not None
    if hand.result.voided or not hand.result.showdown:
        return None
    replay = Hand(hand.config, hand.deck)
    board = 0
    for action in hand.actions:
        if action.kind in BETTING:
            board = len(replay.board)
        replay.apply(action)
    return board if board < 5 else None


def slow_ev_net(hand: Hand) -> tuple[Fraction, ...]:
    """Every board (and every pair of boards, run twice) from the cards not seen at the moment,
    the hand replayed by the engine on a deck dealing it, actual nets averaged."""
    start = moment_board(hand)
    assert start is not None
    n, game = hand.n, hand.game
    live = [j for j in range(n) if not hand.folded[j]]
    holes: list[tuple[Card, ...] | None] = [
        hand.hole_cards(j) if j in live else None for j in range(n)
    ]
    prefix = hand.board[:start]
    seen = {c for j in live for c in hand.hole_cards(j)} | set(prefix)
    unseen = [Card(c) for c in range(52) if c not in seen]
    missing = 5 - start
    totals = [0] * n
    count = 0
    for first in combinations(unseen, missing):
        seconds: list[tuple[Card, ...]] = [()]
        if hand.second_board is not None:
            seconds = list(combinations([c for c in unseen if c not in first], missing))
        for second in seconds:
            deck = deck_from_cards(
                n, holes, prefix + first, second_run=second, hole_count=game.hole_count
            )
            replayed = Hand.replay(hand.config, deck, hand.actions)
            assert replayed.result is not None
            for j, net in enumerate(replayed.result.net):
                totals[j] += net
            count += 1
    return tuple(Fraction(t, count) for t in totals)


def check_sums(hand: Hand, ev: AllInEV) -> None:
    """What holds of every all-in EV."""
    pots = hand.pots()
    assert [(p.amount, p.eligible) for p in ev.pots] == [(p.amount, p.eligible) for p in pots]
    for pot in ev.pots:
        assert sum(pot.chips) == pot.amount
        assert all(0 <= c <= pot.amount for c in pot.chips)
        assert sum(pot.share(j) for j in pot.eligible) == 1
    assert sum(ev.won) == sum(p.amount for p in pots) == sum(ev.invested)
    assert sum(ev.ev_net) == 0 and sum(ev.luck) == 0
    chips = ev.ev_net_chips()
    assert sum(chips) == 0 and sum(ev.luck_chips()) == 0
    assert all(abs(c - e) < 1 for c, e in zip(chips, ev.ev_net, strict=True))
    for j in range(hand.n):
        if hand.folded[j]:
            assert ev.won[j] == 0 and ev.luck[j] == 0
    assert hand.result is not None and ev.net == hand.result.net
    assert ev.runs == len(hand.boards)
    assert AllInEV.from_json(ev.to_json()) == ev


# --- equal to the slow count --------------------------------------------------------------


SLOW = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@SLOW
@given(all_ins(streets=(3, 4), modes=(RunItTwice.OFF,), players=(2, 4)))
def test_one_run_from_the_flop_or_turn_equals_the_slow_count(hand: Hand) -> None:
    start = moment_board(hand)
    assume(start is not None and start >= 3)
    ev = all_in_ev(hand)
    assert ev is not None and ev.runs == 1 and len(ev.board) == start
    assert ev.ev_net == slow_ev_net(hand)
    check_sums(hand, ev)


@SLOW
@given(all_ins(streets=(4,), modes=(RunItTwice.ALWAYS,), players=(2, 4)))
def test_run_twice_from_the_turn_equals_the_slow_count_of_every_pair_of_rivers(
    hand: Hand,
) -> None:
    assume(moment_board(hand) == 4 and hand.second_board is not None)
    ev = all_in_ev(hand)
    assert ev is not None and ev.runs == 2
    assert ev.ev_net == slow_ev_net(hand)
    check_sums(hand, ev)


# Before the flop the slow count can deal every board only when few cards are left: a full
# table all-in, nobody folding (folded hands are unseen cards). The counting by rank classes is
# checked against every board one by one below.
FULL = {NLHE: 21, PLO: 11, PLO5: 9, PLO8: 11}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.code)
def test_a_full_table_all_in_before_the_flop_equals_the_slow_count(game: Game) -> None:
    rng = random.Random(f"full {game.code}")
    checked = 0
    for _ in range(30):
        hand = random_all_in(rng, game, FULL[game], 0, folds=False)
        if moment_board(hand) != 0:
            continue
        ev = all_in_ev(hand)
        assert ev is not None and ev.board == ()
        assert ev.boards == math.comb(52 - FULL[game] * game.hole_count, 5)
        assert ev.ev_net == slow_ev_net(hand)
        check_sums(hand, ev)
        checked += 1
        if checked == 2:
            return
    pytest.fail(f"only {checked} full-table all-ins before the flop")


# --- counting before the flop in classes --------------------------------------------------


def outcome_counts(holes: list[tuple[Card, ...]], game: Game, by_ranks: bool) -> dict[bytes, int]:
    """On how many boards the hands have each list of values (high, then low)."""
    count = count_boards(holes, game=game, by_ranks=by_ranks)
    values = count.highs if count.lows is None else np.concatenate([count.highs, count.lows])
    found, inverse = np.unique(np.ascontiguousarray(values.T), axis=0, return_inverse=True)
    totals = np.bincount(inverse.ravel(), weights=count.counts)
    assert count.boards == math.comb(52 - sum(map(len, holes)), 5) == count.counts.sum()
    return {row.tobytes(): int(total) for row, total in zip(found, totals, strict=True)}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.code)
@pytest.mark.parametrize("players", [2, 4])
def test_classes_before_the_flop_give_every_board_its_values(game: Game, players: int) -> None:
    """The values of the hands on every board, with how many boards give each: the same from
    the classes as from listing every board (up to 1.7 million)."""
    rng = random.Random(f"{game.code} {players}")
    cards = rng.sample(FULL_DECK, players * game.hole_count)
    holes = [tuple(cards[i::players]) for i in range(players)]
    assert outcome_counts(holes, game, True) == outcome_counts(holes, game, False)


@pytest.mark.parametrize(
    "hands",
    [
        ["AsKs", "QsJs", "2s3s"],  # nine spades left: flush classes of every size
        ["AhAd", "KhKd", "QhQd"],  # pairs: fewer cards of those ranks left
        ["7c7d8c8d", "9c9dTcTd", "2s3s4h5h"],  # Omaha: suited pairs in every hand
    ],
)
def test_classes_cover_suited_and_paired_hands(hands: list[str]) -> None:
    holes = [parse_cards(h) for h in hands]
    for game in (NLHE,) if len(holes[0]) == 2 else (PLO, PLO8):
        assert outcome_counts(holes, game, True) == outcome_counts(holes, game, False)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(all_ins(streets=(0,), players=(2, 4)))
def test_the_all_in_ev_before_the_flop_is_the_same_from_every_board(hand: Hand) -> None:
    """Pots, side pots, run twice and Hi-Lo paid from the classes and from every board."""
    assume(moment_board(hand) == 0)
    ev = all_in_ev(hand)
    assert ev is not None
    live = [j for j in range(hand.n) if not hand.folded[j]]
    listed = count_boards([hand.hole_cards(j) for j in live], game=hand.game, by_ranks=False)
    for pot, figures in zip(hand.pots(), ev.pots, strict=True):
        assert expected_chips(pot, live, listed, ev.runs, hand.config.chip_unit) == figures.chips
    check_sums(hand, ev)


# --- what holds of every all-in -----------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(all_ins())
def test_the_figures_add_up_to_the_pots(hand: Hand) -> None:
    ev = all_in_ev(hand)
    assert (ev is None) == (moment_board(hand) is None)
    if ev is not None:
        check_sums(hand, ev)


NUTS = {
    # A royal flush on the flop: no board beats or ties it, and (Hi-Lo) the two cards to come
    # cannot make a low with a board of T J Q.
    NLHE: ["AsKs", "AhAd", "8c9c", "7h7d"],
    PLO: ["AsKs2c3d", "AhAdKhKd", "8c9cTcJc", "7h7d6h6d"],
    PLO5: ["AsKs2c3d4h", "AhAdKhKdQd", "8c9cTcJc2h", "7h7d6h6d5d"],
    PLO8: ["AsKs2c3d", "AhAdKhKd", "8c9cTcJc", "7h7d6h6d"],
}


@pytest.mark.parametrize("runs", [1, 2])
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.code)
def test_a_locked_hand_gets_every_pot_it_is_in(game: Game, runs: int) -> None:
    holes = [parse_cards(h) for h in NUTS[game]]
    deck = deck_from_cards(4, holes, parse_cards("TsJsQs 9d 8d"), hole_count=game.hole_count)
    mode = RunItTwice.ALWAYS if runs == 2 else RunItTwice.OFF
    # The royal flush is the shortest stack: the side pots above it go to the others.
    config = HandConfig.standard((40, 100, 100, 70), 1, 2, run_it_twice=mode, game=game)
    hand = Hand(config, deck)
    hand.call(2), hand.call(3), hand.call(0), hand.check(1)  # to the flop
    hand.check(0), hand.bet(1, 6), hand.apply(Action(ActionKind.ALL_IN, 2))
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        hand.apply(Action(ActionKind.ALL_IN if legal.can_raise else ActionKind.CALL, legal.player))
    ev = all_in_ev(hand)
    assert ev is not None and ev.board == parse_cards("TsJsQs") and ev.runs == runs
    mine = [p for p in ev.pots if 0 in p.eligible]
    others = [p for p in ev.pots if 0 not in p.eligible]
    assert mine and others
    assert ev.won[0] == sum(p.amount for p in mine) == 160
    assert all(p.share(0) == 1 for p in mine)
    assert sum(ev.won[1:]) == sum(p.amount for p in others)
    assert ev.luck[0] == 0
    check_sums(hand, ev)


# --- the moment ---------------------------------------------------------------------------


def rigged(game: Game = NLHE, run_it_twice: RunItTwice = RunItTwice.OFF) -> Hand:
    holes = [parse_cards("AsAh"), parse_cards("KsKh"), parse_cards("7c2d")]
    deck = deck_from_cards(3, holes, parse_cards("2c7d9h 4s 5d"))
    return Hand(HandConfig.standard((100, 100, 100), 1, 2, run_it_twice=run_it_twice), deck)


def test_no_moment_no_all_in_ev() -> None:
    folded = rigged()
    folded.fold(2), folded.fold(0)
    assert all_in_ev(folded) is None
    river = rigged()
    river.call(2), river.call(0), river.check(1)
    for _ in range(2):
        river.check(0), river.check(1), river.check(2)
    river.bet(0, 10), river.go_all_in(1), river.fold(2), river.call(0)
    assert river.result is not None and river.result.showdown
    assert all_in_ev(river) is None  # the last call came on the river: nothing to come
    in_progress = rigged()
    in_progress.go_all_in(2)
    assert all_in_ev(in_progress) is None
    voided = rigged(run_it_twice=RunItTwice.ASK)
    voided.go_all_in(2), voided.call(0), voided.fold(1)
    assert voided.run_choice_pending and all_in_ev(voided) is None
    voided.void()
    assert all_in_ev(voided) is None


@pytest.mark.parametrize("runs", [1, 2])
def test_the_moment_waits_for_the_vote_and_counts_the_runs_chosen(runs: int) -> None:
    hand = rigged(run_it_twice=RunItTwice.ASK)
    hand.call(2), hand.call(0), hand.check(1)
    hand.go_all_in(0), hand.call(1), hand.fold(2)  # on the flop
    assert hand.run_choice_pending and all_in_ev(hand) is None
    hand.choose_run_count(runs)
    ev = all_in_ev(hand)
    assert ev is not None and ev.runs == runs and ev.board == parse_cards("2c7d9h")
    assert ev.boards == math.comb(52 - 4 - 3, 2)
    # The folded 7c2d is among the cards nobody saw: counted as possible, never as known.
    assert ev.invested == (100, 100, 2)
    check_sums(hand, ev)


def test_run_twice_pays_the_odd_chip_of_each_half_as_the_rule_book_says() -> None:
    # Heads-up all-in on the turn for a pot of 26 that a spade river wins for the first player
    # and any other river ties. Dealt once a tie pays 13 and 13; run twice, each half of 13
    # pays 7 and 6, the odd chip to the first player left of the button, who is the first.
    holes = [parse_cards("AsKd"), parse_cards("AhKc")]
    figures = {}
    for runs in (1, 2):
        deck = deck_from_cards(2, holes, parse_cards("2s7s9s4c 5d"), second_run=parse_cards("6h"))
        mode = RunItTwice.ALWAYS if runs == 2 else RunItTwice.OFF
        hand = Hand(HandConfig.standard((13, 13), 1, 2, run_it_twice=mode), deck)
        hand.call(1), hand.check(0)
        hand.check(0), hand.check(1)
        hand.go_all_in(0), hand.call(1)
        ev = all_in_ev(hand)
        assert ev is not None and ev.runs == runs and ev.boards == 44
        assert ev.ev_net == slow_ev_net(hand)
        check_sums(hand, ev)
        figures[runs] = ev.won
    spade, other = Fraction(9, 44), Fraction(35, 44)
    assert figures[1] == (26 * spade + 13 * other, 13 * other)
    assert figures[2] == (2 * (13 * spade + 7 * other), 2 * 6 * other)


def test_bad_json_is_refused() -> None:
    with pytest.raises(EngineError) as caught:
        AllInEV.from_json({"board": [], "runs": 1})
    assert caught.value.code == "bad_all_in_ev"


# --- luck averages out --------------------------------------------------------------------


def test_luck_over_many_all_ins_averages_out_and_a_wrong_ev_does_not() -> None:
    """The luck of the player with the best all-in EV in each of many random all-ins: its mean
    is zero, so its sum over ``sqrt`` of its sum of squares (a z score) stays small. Giving the
    live players equal shares instead of their equities (a wrong EV) fails the same test."""
    rng = random.Random(2026)
    lucky: list[float] = []
    naive: list[float] = []
    while len(lucky) < 600:
        game = GAMES[len(lucky) % 4]
        hand = random_all_in(rng, game, rng.randint(2, 4), rng.choice([0, 3, 3, 4, 4]))
        ev = all_in_ev(hand)
        if ev is None:
            continue
        best = max(range(hand.n), key=lambda j: (ev.ev_net[j], -j))
        lucky.append(float(ev.luck[best]))
        even = Fraction(0)
        for pot in ev.pots:
            if best in pot.eligible:
                even += Fraction(pot.amount, len(pot.eligible))
        naive.append(float(ev.net[best] - (even - ev.invested[best])))

    def z(values: list[float]) -> float:
        return sum(values) / math.sqrt(sum(v * v for v in values))

    assert abs(z(lucky)) < 4
    assert z(naive) > 5

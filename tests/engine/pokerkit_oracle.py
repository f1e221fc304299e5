"""PokerKit 0.7.7 as an oracle for engine.hand: the same hand, the same cards, the same decisions.

The differential test and the benchmark share this module. Our player index ``i`` is PokerKit's
player index ``i`` (both follow PHH: index 0 is first left of the button). PokerKit reverses the
blinds and antes tuples heads-up (player 0, our big blind, posts ``blinds[1]``), so heads-up we
hand it our tuples reversed.

Where PokerKit and RULES.md disagree by design, the difference is recognised and counted under a
name (the ``CASE_*`` constants) instead of failing; RULES.md is what the engine follows and the
named cases are tested against RULES.md directly in test_pokerkit_diff.py. Anything else is a
:class:`Mismatch`, which carries the seed that reproduces it.

``python -m tests.engine.pokerkit_oracle --hands 5000 --seed 1`` runs the comparison outside
pytest and prints the counts.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from pokerkit import (
    Automation,
    Card,
    CardsLike,
    Mode,
    NoLimitTexasHoldem,
    StandardHighHand,
    State,
)

from engine.cards import FULL_DECK, format_card
from engine.cards import Card as OurCard
from engine.hand import (
    Action,
    ActionKind,
    AnteKind,
    Hand,
    HandConfig,
    Legal,
    Street,
    board_positions,
)

# PokerKit posts the big blind ante before the blind; RULES.md 2 (TDA RP-11) fills the blind
# first. Only a big blind too short for both is affected, so such hands are left out.
CASE_BBA_SHORT_BIG_BLIND = "bba_short_big_blind"
# PokerKit has no big blind index: pre-flop it opens left of the largest blind posted, a tie
# going to the later index. RULES.md 3 opens left of the big blind (heads-up: the button). They
# differ only when the big blind's post does not stand out and that moves the first actor:
# heads-up with equal blinds (PokerKit takes the button for the big blind), or no blind posted at
# all (no small blind, the big blind all-in from his ante). Such hands are left out.
CASE_OPENER_AFTER_LARGEST_BLIND = "opener_after_largest_blind"
# PokerKit starts each street's "completion amount" (its full-raise yardstick) at 0, not at one
# big blind, so the street's first bet or raise counts as full even when it is an all-in below
# one big blind: betting re-opens for everyone who had acted (pre-flop: the limpers), and later
# all-ins as big as that one count as full too. RULES.md 4: a full raise is at least one big
# blind and a short all-in never changes the yardstick, so a limper facing one short all-in may
# only call or fold.
CASE_SHORT_OPENING_ALLIN_REOPENS = "short_opening_allin_reopens"
# PokerKit sums the short all-ins since the last full raise for everybody and starts the sum
# again once it reaches a full raise; a player who acted before the first of three such all-ins
# then faces a fresh sum that is too small and may not raise, although the high bet rose by
# more than a full raise since his action, which RULES.md 4 (tda) counts.
# (The converse, PokerKit re-opening for a player who called in the middle of a run that adds
# up, does not happen: PokerKit also refuses a raise when the call amount, i.e. the rise since
# his action, is below the yardstick, which is our test whenever the yardsticks agree.)
CASE_REOPEN_SUM_RESTARTS = "reopen_short_allin_sum_restarts"
# PokerKit may ask the last player who is not all-in, with the high bet matched, to act; only a
# check is possible. RULES.md 3 runs the board out with no more betting. Normalised by checking
# in PokerKit; the hand is still compared to the end.
CASE_LONE_MATCHED_PLAYER_ASKED = "lone_matched_player_asked"
# A pot split n ways with a remainder of two or more chips: RULES.md 5 (TDA 20-A) hands the odd
# chips out one unit at a time from the first winner clockwise from the button; PokerKit gives
# the whole remainder to the first winner. Normalised by re-splitting our awards PokerKit's way
# before the stacks are compared; the hand is still compared to the end.
CASE_ODD_CHIPS_ONE_UNIT_EACH = "odd_chips_one_unit_each"
# PokerKit kills the hands that win nothing before it splits the pots, and merges adjacent pots
# whose remaining players are then the same; their odd chips are then settled together. RULES.md
# 5 (TDA 21) settles each pot's odd chips on its own, pots being built from who has not folded.
# Normalised like the case above.
CASE_ODD_CHIPS_MERGED_POTS = "odd_chips_merged_pots"
NORMALISED_CASES = (
    CASE_LONE_MATCHED_PLAYER_ASKED,
    CASE_ODD_CHIPS_ONE_UNIT_EACH,
    CASE_ODD_CHIPS_MERGED_POTS,
)

EXCLUDING_CASES = (
    CASE_BBA_SHORT_BIG_BLIND,
    CASE_OPENER_AFTER_LARGEST_BLIND,
    CASE_SHORT_OPENING_ALLIN_REOPENS,
    CASE_REOPEN_SUM_RESTARTS,
)

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
FULLY_AUTOMATED = (
    *AUTOMATIONS,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
)

PK_CARDS: tuple[Card, ...] = tuple(next(iter(Card.parse(format_card(c)))) for c in FULL_DECK)

BLIND_PAIRS = ((1, 2), (5, 10), (10, 15), (10, 20), (25, 50), (50, 100), (2, 5), (3, 6), (40, 60))


class Mismatch(AssertionError):
    """An unexplained difference between the engine and PokerKit."""


@dataclass
class DiffStats:
    hands: int = 0
    hands_compared: int = 0  # played to the end in both and final stacks compared
    decisions: int = 0
    cases: Counter[str] = field(default_factory=Counter)
    case_seeds: dict[str, list[int]] = field(default_factory=dict)

    def count(self, case: str, seed: int) -> None:
        self.cases[case] += 1
        self.case_seeds.setdefault(case, []).append(seed)

    def summary(self) -> str:
        parts = [
            f"hands={self.hands}",
            f"compared_to_the_end={self.hands_compared}",
            f"decisions_compared={self.decisions}",
        ]
        for case in (*EXCLUDING_CASES, *NORMALISED_CASES):
            parts.append(f"{case}={self.cases[case]}")
        return ", ".join(parts)


class _MemoHighHand(StandardHighHand):
    """PokerKit's own high hand, remembered: its showdown re-evaluates every hand per pot.

    PokerKit spends ~85% of a hand in evaluation (each player's 21 five-card combinations,
    again for every pot and every show-or-muck decision), which would make the required 2,000
    hands too slow for CI. The ranking itself stays PokerKit's, so the oracle stays independent
    of engine.evaluator.
    """

    _memo: ClassVar[dict[tuple[Card | None, ...], Any]] = {}

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Any:
        hole, board = Card.clean(hole_cards), Card.clean(board_cards)
        key = (*hole, None, *board)
        hand = cls._memo.get(key)
        if hand is None:
            if len(cls._memo) > 100_000:
                cls._memo.clear()
            hand = super().from_game(hole, board)
            cls._memo[key] = hand
        return hand

    @cached_property
    def entry(self) -> Any:
        return self.lookup.get_entry(self.cards)


class _OracleHoldem(NoLimitTexasHoldem):
    hand_types = (_MemoHighHand,)


# --- building both sides --------------------------------------------------------------------


def pokerkit_state(
    config: HandConfig,
    automations: Sequence[Automation] = AUTOMATIONS,
    mode: Mode = Mode.TOURNAMENT,
) -> State:
    """A PokerKit state with our forced bets; only betting (and dealing, unless automated) left.

    The default mode has one runout and no run-it-twice vote, as our engine by default. A
    straddle is one of PokerKit's ``blinds_or_straddles``; our minimum raise counts from it,
    which PokerKit plays when its pre-flop street's minimum completion is the straddle.
    """
    n = config.players
    blinds, antes = config.blinds, config.antes
    if n == 2:
        blinds, antes = blinds[::-1], antes[::-1]
    game = _OracleHoldem(
        tuple(automations),
        config.ante_kind is not AnteKind.BIG_BLIND,
        antes,
        blinds,
        config.big_blind,
        mode=mode,
    )
    if config.straddle_index is not None:
        first, *later = game.streets
        straddle = config.blinds[config.straddle_index]
        game.streets = (
            dataclasses.replace(first, min_completion_betting_or_raising_amount=straddle),
            *later,
        )
    return game(config.stacks, n)


def deal_holes(state: State, deck: Sequence[OurCard], n: int) -> None:
    for i in range(n):
        state.deal_hole((PK_CARDS[deck[i]], PK_CARDS[deck[i + n]]), i)


def deal_board(state: State, deck: Sequence[OurCard], n: int) -> None:
    """Burn and deal whatever PokerKit waits for, from our deck order (burn cards included)."""
    pos = board_positions(n)
    while True:
        dealt = len(state.board_cards)
        if state.card_burning_status:
            state.burn_card(PK_CARDS[deck[pos[dealt] - 1]])
        elif any(state.board_dealing_counts):
            count = state.board_dealing_count
            assert count is not None
            state.deal_board(tuple(PK_CARDS[deck[p]] for p in pos[dealt : dealt + count]))
        else:
            return


def bba_short(config: HandConfig) -> bool:
    if config.ante_kind is not AnteKind.BIG_BLIND:
        return False
    bb = config.big_blind_index
    return config.stacks[bb] < config.blinds[bb] + config.antes[bb]


# --- random hands -----------------------------------------------------------------------------


def random_config(rng: random.Random) -> HandConfig:
    n = rng.randint(2, 9)
    sb, bb = rng.choice(BLIND_PAIRS)
    kind = rng.choice((AnteKind.NONE, AnteKind.PER_PLAYER, AnteKind.BIG_BLIND))
    if kind is AnteKind.PER_PLAYER:
        ante = rng.randint(1, bb)
    elif kind is AnteKind.BIG_BLIND:
        ante = rng.choice((bb, bb, sb, rng.randint(1, 2 * bb)))
    else:
        ante = 0
    if rng.random() < 0.25:
        return HandConfig.standard(_ladder(rng, n, bb), sb, bb, ante_kind=kind, ante=ante)
    stacks = []
    for _ in range(n):
        # Mostly short and medium stacks: all-ins, short all-ins and side pots need them.
        tier = rng.random()
        if tier < 0.12:
            stack = rng.randint(1, bb + ante)
        elif tier < 0.45:
            stack = rng.randint(bb, 12 * bb)
        elif tier < 0.8:
            stack = rng.randint(12 * bb, 60 * bb)
        else:
            stack = rng.randint(60 * bb, 300 * bb)
        stacks.append(stack)
    return HandConfig.standard(stacks, sb, bb, ante_kind=kind, ante=ante)


def _ladder(rng: random.Random, n: int, bb: int) -> list[int]:
    """Stacks a fraction of a big blind apart, so all-ins in a row are short all-ins.

    Short all-ins one after another are where the re-open rules differ; random stacks seldom
    line up that way.
    """
    stack = rng.randint(2 * bb, 20 * bb)
    stacks = []
    for _ in range(n):
        stacks.append(stack)
        stack += rng.randint(1, max(1, bb - 1))
    rng.shuffle(stacks)
    stacks[rng.randrange(n)] = rng.randint(60 * bb, 300 * bb)
    return stacks


def random_deck(rng: random.Random) -> tuple[OurCard, ...]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return tuple(deck)


def choose_action(legal: Legal, rng: random.Random) -> Action:
    """A random legal decision; never a fold when checking is free (PokerKit refuses it)."""
    i = legal.player
    r = rng.random()
    if legal.can_raise and legal.min_raise_to == legal.max_raise_to:
        # Only an all-in is left, often a short one: shove more often to meet the re-open rules.
        aggressive = r < 0.6 if legal.to_call == 0 else 0.15 <= r < 0.75
    else:
        aggressive = legal.can_raise and (r < 0.4 if legal.to_call == 0 else 0.2 <= r < 0.5)
    if aggressive:
        s = rng.random()
        if s < 0.4:
            amount = legal.min_raise_to
        elif s < 0.65:
            amount = legal.max_raise_to
        else:
            amount = rng.randint(legal.min_raise_to, legal.max_raise_to)
        return Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, i, amount)
    if legal.to_call == 0:
        return Action(ActionKind.CHECK, i)
    if r < 0.2:
        return Action(ActionKind.FOLD, i)
    return Action(ActionKind.CALL, i)


def apply_to_pokerkit(state: State, action: Action) -> None:
    if action.kind is ActionKind.FOLD:
        state.fold()
    elif action.kind in (ActionKind.CHECK, ActionKind.CALL):
        state.check_or_call()
    else:
        state.complete_bet_or_raise_to(action.amount)


# --- the comparison -----------------------------------------------------------------------


def _describe(hand: Hand, state: State, legal: Legal | None) -> str:
    pk_actor = state.actor_index
    pk = (
        None
        if pk_actor is None
        else (
            pk_actor,
            state.checking_or_calling_amount,
            state.can_complete_bet_or_raise_to(),
            state.min_completion_betting_or_raising_to_amount,
            state.max_completion_betting_or_raising_to_amount,
        )
    )
    ours = (
        None
        if legal is None
        else (legal.player, legal.to_call, legal.can_raise, legal.min_raise_to, legal.max_raise_to)
    )
    return (
        f"ours(player, to_call, can_raise, min_to, max_to)={ours} pokerkit={pk} "
        f"street={hand.street.value} bets={hand.bets} stacks={hand.stacks} "
        f"actions={[a.to_json() for a in hand.actions]}"
    )


def classify_raise_right(legal: Legal, state: State, full_raise: int) -> str | None:
    """The named case behind a disagreement on the right to raise, or None if unexplained.

    Every other condition of the right to raise is the same in both (he is not covered, someone
    can still answer), so only the re-open rule can differ. Ours: a player who has acted may
    raise if the high bet rose by a full raise (at least ``full_raise``: one big blind, or a
    straddle pre-flop) since his last action.
    PokerKit refuses if his call amount is below its completion amount (the same per-player
    test whenever that amount equals our minimum increment, which it does once it reaches one
    big blind) or if he has acted since the last full raise and the short all-ins since the last
    full raise or completed sum add up to less.
    """
    completion = state.completion_betting_or_raising_amount
    if legal.raise_closed:
        # Only a yardstick below one big blind lets PokerKit re-open where we do not.
        return CASE_SHORT_OPENING_ALLIN_REOPENS if completion < full_raise else None
    shorts = state.consecutive_short_all_in_amounts
    if legal.player in state.acted_player_indices and shorts and sum(shorts) < completion:
        return CASE_REOPEN_SUM_RESTARTS
    return None


def pokerkit_style_stacks(hand: Hand, *, merge: bool) -> list[int]:
    """Our final stacks with every pot split the PokerKit way.

    PokerKit gives a split pot's whole remainder to the first winner and, with ``merge``, first
    kills the hands that win nothing and merges adjacent pots whose remaining players are the
    same, so their odd chips are settled together.
    """
    assert hand.result is not None
    awards = hand.result.pots
    winners = {player for award in awards for player, _ in award.shares}
    stacks = list(hand.stacks)
    groups: list[tuple[tuple[int, ...], int, list[int]]] = []
    for award in awards:
        for player, chips in award.shares:
            stacks[player] -= chips
        key = tuple(j for j in award.eligible if j in winners) if merge else award.eligible
        if groups and merge and groups[-1][0] == key:
            groups[-1] = (key, groups[-1][1] + award.amount, groups[-1][2])
        else:
            groups.append((key, award.amount, sorted(p for p, _ in award.shares)))
    for _, amount, players in groups:
        each, remainder = divmod(amount, len(players))
        for k, player in enumerate(players):
            stacks[player] += each + (remainder if k == 0 else 0)
    return stacks


class Duel:
    """One hand played in both engines, compared before every decision.

    Drive it with :meth:`decision` (compare, get our Legal) and :meth:`apply`; after the hand,
    :meth:`finish` compares the stacks. A by-design difference stops the comparison and is kept
    in :attr:`case`; from then on only our engine is played.
    """

    def __init__(self, config: HandConfig, deck: Sequence[OurCard], label: object = "-") -> None:
        self.label = label  # printed with every mismatch: the seed of a random hand
        self.config = config
        self.deck = tuple(deck)
        self.hand = Hand(config, self.deck)
        self.case: str | None = None
        self.normalised: list[str] = []
        self.decisions = 0
        self.state: State | None = None
        if bba_short(config):
            self.case = CASE_BBA_SHORT_BIG_BLIND
            return
        self.state = pokerkit_state(config)
        deal_holes(self.state, self.deck, config.players)
        hand = self.hand
        pk_big_blind = max(range(hand.n), key=lambda i: (hand.bets[i], i))
        if pk_big_blind != config.big_blind_index and self.state.actor_index != hand.to_act:
            self.case = CASE_OPENER_AFTER_LARGEST_BLIND

    def _full_raise(self) -> int:
        """The smallest full raise of the street: the big blind, or pre-flop a straddle."""
        straddle = self.config.straddle_index
        if straddle is not None and self.hand.street is Street.PREFLOP:
            return self.config.blinds[straddle]
        return self.config.big_blind

    def _fail(self, what: str, legal: Legal | None) -> Mismatch:
        assert self.state is not None
        return Mismatch(f"seed={self.label}: {what}: " + _describe(self.hand, self.state, legal))

    def decision(self) -> Legal | None:
        """Our Legal for the next decision, after checking PokerKit agrees with it."""
        legal = self.hand.legal()
        state = self.state
        if self.case is not None or state is None:
            return legal
        while True:
            deal_board(state, self.deck, self.config.players)
            if legal is not None or state.actor_index is None:
                break
            if state.checking_or_calling_amount == 0 and not state.can_complete_bet_or_raise_to():
                self.normalised.append(CASE_LONE_MATCHED_PLAYER_ASKED)
                state.check_or_call()
                continue
            raise self._fail("PokerKit has an actor, we do not", legal)
        if legal is None:
            return None
        self.decisions += 1
        if state.actor_index != legal.player or state.checking_or_calling_amount != legal.to_call:
            raise self._fail("actor or call amount differs", legal)
        if state.can_complete_bet_or_raise_to() != legal.can_raise:
            case = classify_raise_right(legal, state, self._full_raise())
            if case is None:
                raise self._fail("right to raise differs", legal)
            self.case = case
            return legal
        if legal.can_raise and (
            state.min_completion_betting_or_raising_to_amount != legal.min_raise_to
            or state.max_completion_betting_or_raising_to_amount != legal.max_raise_to
        ):
            raise self._fail("raise bounds differ", legal)
        return legal

    def apply(self, action: Action) -> None:
        self.hand.apply(action)
        if self.case is None and self.state is not None:
            apply_to_pokerkit(self.state, action)

    def finish(self) -> bool:
        """Compare the final stacks; False if a by-design case stopped the comparison earlier."""
        assert self.hand.is_over
        assert sum(self.hand.stacks) == sum(self.config.stacks), f"seed={self.label}: chips"
        state = self.state
        if self.case is not None or state is None:
            return False
        deal_board(state, self.deck, self.config.players)
        if state.status:
            raise self._fail("PokerKit hand not over", None)
        per_pot = pokerkit_style_stacks(self.hand, merge=False)
        expected = pokerkit_style_stacks(self.hand, merge=True)
        if per_pot != self.hand.stacks:
            self.normalised.append(CASE_ODD_CHIPS_ONE_UNIT_EACH)
        if expected != per_pot:
            self.normalised.append(CASE_ODD_CHIPS_MERGED_POTS)
        if list(state.stacks) != expected:
            raise self._fail(
                f"final stacks differ: ours={self.hand.stacks} (with PokerKit's odd chips "
                f"{expected}) pokerkit={list(state.stacks)}",
                None,
            )
        return True


def run_hand(seed: int, stats: DiffStats, config: HandConfig | None = None) -> Duel:
    """Play one random hand in both engines; raise Mismatch on an unexplained difference.

    The hand is fully determined by ``seed`` (and ``config`` if given), which a failure prints.
    """
    rng = random.Random(seed)
    if config is None:
        config = random_config(rng)
    duel = Duel(config, random_deck(rng), label=seed)
    while (legal := duel.decision()) is not None:
        duel.apply(choose_action(legal, rng))
    compared = duel.finish()
    stats.hands += 1
    stats.decisions += duel.decisions
    stats.hands_compared += compared
    for case in {*duel.normalised, *([duel.case] if duel.case else [])}:
        stats.count(case, seed)
    return duel


def run_many(first_seed: int, count: int, stats: DiffStats) -> None:
    for seed in range(first_seed, first_seed + count):
        run_hand(seed, stats)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first hand")
    args = parser.parse_args(argv)
    stats = DiffStats()
    start = time.perf_counter()
    run_many(args.seed, args.hands, stats)
    elapsed = time.perf_counter() - start
    print(f"{stats.summary()} in {elapsed:.2f}s")
    for case, seeds in sorted(stats.case_seeds.items()):
        print(f"  {case}: seeds {seeds[:10]}{' ...' if len(seeds) > 10 else ''}")


if __name__ == "__main__":
    main()

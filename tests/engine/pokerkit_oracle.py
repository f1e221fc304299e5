"""PokerKit 0.7.7 as an oracle for engine.hand: the same hand, the same cards, the same decisions.

The differential test and the benchmark share this module. Our player index ``i`` is PokerKit's
player index ``i`` (both follow PHH: index 0 is first left of the button). PokerKit reverses the
blinds and antes tuples heads-up (player 0, our big blind, posts ``blinds[1]``), so heads-up we
hand it our tuples reversed.

What is compared, before every decision: who acts, the call amount, the right to raise and the
raise bounds; after every input: the actions it carried out (a pre-selected action or a timeout
is resolved here by RULES.md 4, independently of the engine, and played in PokerKit); after the
hand: each pot's odd chips against RULES.md 5, then the final stacks. Besides PokerKit, the right
to raise is checked against :class:`StreetBook`, RULES.md 4's re-opening rule kept here from the
actions alone, in each ``reopen`` mode.

Where PokerKit and RULES.md disagree by design, the difference is recognised and counted under a
name (the ``CASE_*`` constants) instead of failing, but only in exactly the situation the name
describes; RULES.md is what the engine follows and the named cases are tested against RULES.md
directly in test_pokerkit_diff.py. Anything else is a :class:`Mismatch`, which carries the seed
that reproduces it.

What PokerKit cannot model at all is named in ``UNMODELLED`` and never compared: a live blind
posted out of position by a player coming in (PokerKit opens after the largest blind), a dead
small blind beside per-player antes (PokerKit trims all its antes or none), a player all-in from
his dead blind (PokerKit lets him win the antes' layer), a voided hand, and 23 players (no burns;
PokerKit always burns). The random tables never have them.

``python -m tests.engine.pokerkit_oracle --hands 5000 --seed 1 [--game plo8]`` runs the
comparison outside pytest and prints the counts (without ``--seed``, a fresh seed, printed).

The Omaha family (engine.games: PLO, PLO5, PLO8) is compared the same way against PokerKit's
pot-limit Omaha, given five hole cards for PLO5 and PokerKit's eight-or-better low beside its
Omaha high for PLO8; those random tables are also straddled or bomb pots now and then (a bomb
as PHH writes it: trimmed antes and a pre-flop round checked through). One more by-design
difference is named for high-low pots (``CASE_LOW_HALF_WITHOUT_A_LOW``).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import secrets
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

from pokerkit import (
    Automation,
    Card,
    CardsLike,
    ChipsPushing,
    Mode,
    NoLimitTexasHoldem,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    PotLimitOmahaHoldem,
    StandardHighHand,
    State,
)
from pokerkit.games import OmahaHoldemMixin, PotLimitPokerMixin, UnfixedLimitHoldem

from engine.cards import FULL_DECK, format_card
from engine.cards import Card as OurCard
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import (
    Action,
    ActionKind,
    ActionTaken,
    AnteKind,
    Hand,
    HandConfig,
    Legal,
    PotAwarded,
    PreAction,
    ReopenMode,
    StraddleMode,
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
# only call or fold. Recognised only when someone went all-in for less than a big blind on this
# street, PokerKit's yardstick is still below one big blind, the player we refuse had already
# acted on this street, and RULES.md refuses him too.
CASE_SHORT_OPENING_ALLIN_REOPENS = "short_opening_allin_reopens"
# PokerKit sums the short all-ins since the last full raise for everybody and starts the sum
# again once it reaches a full raise; a player who acted before the first of three such all-ins
# then faces a fresh sum that is too small and may not raise, although the high bet rose by
# more than a full raise since his action, which RULES.md 4 (tda) counts. Recognised only under
# ``tda``, when our own sum since his action reaches a full raise and PokerKit's refusal is its
# restarted sum.
# (The converse, PokerKit re-opening for a player who called in the middle of a run that adds
# up, does not happen: PokerKit also refuses a raise when the call amount, i.e. the rise since
# his action, is below the yardstick, which is our test whenever the yardsticks agree.)
CASE_REOPEN_SUM_RESTARTS = "reopen_short_allin_sum_restarts"
# PokerKit adds short all-ins up (as RULES.md 4 does under ``tda``); ``strict`` never does and
# ``half`` counts only a single all-in of half a raise or more. Recognised only under those two
# modes, when no raise since the player's action counts in that mode and the short all-ins since
# add up to a full raise.
CASE_SHORT_ALLINS_ADDED_UP = "short_allins_added_up"
# ``half``: one short all-in of at least half a raise re-opens; PokerKit has no such rule and
# refuses while its sum of short all-ins is below a full raise. Recognised only under ``half``,
# when a half raise and no full raise came since the player's action.
CASE_HALF_RAISE_REOPENS = "half_raise_reopens"
# PokerKit may ask the last player who is not all-in, with the high bet matched, to act; only a
# check is possible. RULES.md 3 runs the board out with no more betting. Normalised by checking
# in PokerKit; the hand is still compared to the end.
CASE_LONE_MATCHED_PLAYER_ASKED = "lone_matched_player_asked"
# A pot split n ways with a remainder of two or more chips (or any remainder with a chip unit
# above 1): RULES.md 5 (TDA 20-A) hands the odd chips out one unit at a time from the first
# winner clockwise from the button; PokerKit gives the whole remainder to the first winner. Our
# split is first checked against RULES.md 5 here, then re-split PokerKit's way before the stacks
# are compared; the hand is still compared to the end.
CASE_ODD_CHIPS_ONE_UNIT_EACH = "odd_chips_one_unit_each"
# PokerKit kills the hands that win nothing before it splits the pots, and merges adjacent pots
# whose remaining players are then the same; their odd chips are then settled together. RULES.md
# 5 (TDA 21) settles each pot's odd chips on its own, pots being built from who has not folded.
# Normalised like the case above.
CASE_ODD_CHIPS_MERGED_POTS = "odd_chips_merged_pots"
# High-low: PokerKit halves every pot between high and low as soon as any hand still in at the
# showdown has a low, including a side pot none of whose players has one; it then splits that
# pot's low half among all its players, as a tie of hands without a low. engine.games gives such
# a pot whole to its high hand. Our award is checked against that rule (with PokerKit's own low
# evaluation), then the pot is re-split PokerKit's way before the stacks are compared; the hand
# is still compared to the end.
CASE_LOW_HALF_WITHOUT_A_LOW = "low_half_without_a_low"
NORMALISED_CASES = (
    CASE_LONE_MATCHED_PLAYER_ASKED,
    CASE_ODD_CHIPS_ONE_UNIT_EACH,
    CASE_ODD_CHIPS_MERGED_POTS,
    CASE_LOW_HALF_WITHOUT_A_LOW,
)

EXCLUDING_CASES = (
    CASE_BBA_SHORT_BIG_BLIND,
    CASE_OPENER_AFTER_LARGEST_BLIND,
    CASE_SHORT_OPENING_ALLIN_REOPENS,
    CASE_REOPEN_SUM_RESTARTS,
    CASE_SHORT_ALLINS_ADDED_UP,
    CASE_HALF_RAISE_REOPENS,
)

# Tables PokerKit cannot play at all (see the module's docstring); never compared.
UNMODELLED_POSTED_BLIND = "unmodelled_posted_blind"
UNMODELLED_DEAD_BLIND_WITH_ANTES = "unmodelled_dead_blind_with_per_player_antes"
UNMODELLED_DEAD_BLIND_ALL_IN = "unmodelled_dead_blind_all_in"
UNMODELLED_NO_BURNS = "unmodelled_no_burns"
UNMODELLED_VOID = "unmodelled_void"
UNMODELLED = (
    UNMODELLED_POSTED_BLIND,
    UNMODELLED_DEAD_BLIND_WITH_ANTES,
    UNMODELLED_DEAD_BLIND_ALL_IN,
    UNMODELLED_NO_BURNS,
    UNMODELLED_VOID,
)

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
    # Only outside tournament mode, which a fold when checking is free needs for a moment: no
    # run-it-twice vote, one runout as in our engine.
    Automation.RUNOUT_COUNT_SELECTION,
)
FULLY_AUTOMATED = (
    *AUTOMATIONS,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
)

PK_CARDS: tuple[Card, ...] = tuple(next(iter(Card.parse(format_card(c)))) for c in FULL_DECK)

BLIND_PAIRS = ((1, 2), (5, 10), (10, 15), (10, 20), (25, 50), (50, 100), (2, 5), (3, 6), (40, 60))
CHIP_UNITS = (1, 1, 1, 1, 1, 1, 5, 10, 25)
REOPEN_MODES = (ReopenMode.TDA,) * 3 + (ReopenMode.STRICT, ReopenMode.HALF)


class Mismatch(AssertionError):
    """An unexplained difference between the engine and PokerKit (or RULES.md)."""


@dataclass
class DiffStats:
    hands: int = 0
    hands_compared: int = 0  # played to the end in both and final stacks compared
    decisions: int = 0
    cases: Counter[str] = field(default_factory=Counter)
    case_seeds: dict[str, list[int]] = field(default_factory=dict)
    features: Counter[str] = field(default_factory=Counter)  # what the compared hands used

    def count(self, case: str, seed: int) -> None:
        self.cases[case] += 1
        self.case_seeds.setdefault(case, []).append(seed)

    def rate(self, case: str) -> float:
        return self.cases[case] / self.hands if self.hands else 0.0

    def summary(self) -> str:
        parts = [
            f"hands={self.hands}",
            f"compared_to_the_end={self.hands_compared}",
            f"decisions_compared={self.decisions}",
        ]
        for case in (*EXCLUDING_CASES, *NORMALISED_CASES):
            parts.append(f"{case}={self.cases[case]}")
        parts.extend(f"{case}={self.cases[case]}" for case in UNMODELLED if self.cases[case])
        parts.extend(f"{name}={count}" for name, count in sorted(self.features.items()))
        return ", ".join(parts)


class _MemoHand:
    """PokerKit's own hand types, remembered: its showdown re-evaluates every hand per pot.

    PokerKit spends ~85% of a hand in evaluation (each player's 21 five-card combinations, 60
    in Omaha, again for every pot and every show-or-muck decision), which would make the
    required 2,000 hands too slow for CI. The ranking itself stays PokerKit's, so the oracle
    stays independent of engine.evaluator and engine.low.
    """

    _memo: ClassVar[dict[tuple[Card | None, ...], Any]]
    lookup: Any
    cards: Any

    @classmethod
    def from_game(cls, hole_cards: CardsLike, board_cards: CardsLike = ()) -> Any:
        hole, board = Card.clean(hole_cards), Card.clean(board_cards)
        key = (*hole, None, *board)
        hand = cls._memo.get(key)
        if hand is None:
            if len(cls._memo) > 100_000:
                cls._memo.clear()
            hand = super().from_game(hole, board)  # type: ignore[misc]
            cls._memo[key] = hand
        return hand

    @cached_property
    def entry(self) -> Any:
        return self.lookup.get_entry(self.cards)


class _MemoHighHand(_MemoHand, StandardHighHand):
    _memo: ClassVar[dict[tuple[Card | None, ...], Any]] = {}


class _MemoOmahaHand(_MemoHand, OmahaHoldemHand):
    _memo: ClassVar[dict[tuple[Card | None, ...], Any]] = {}


class _MemoOmahaLowHand(_MemoHand, OmahaEightOrBetterLowHand):
    _memo: ClassVar[dict[tuple[Card | None, ...], Any]] = {}


class _OracleHoldem(NoLimitTexasHoldem):
    hand_types = (_MemoHighHand,)


class _OracleOmaha(PotLimitOmahaHoldem):
    hand_types = (_MemoOmahaHand,)


class _OracleOmaha5(PotLimitOmahaHoldem):
    hand_types = (_MemoOmahaHand,)
    hole_dealing_count = 5


class _OracleOmahaHiLo(PotLimitPokerMixin, OmahaHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit Omaha built as PokerKit builds its own, with its two Omaha hand types."""

    hand_types = (_MemoOmahaHand, _MemoOmahaLowHand)


# Each of our games as PokerKit plays it: the same hole cards, hand types and betting.
ORACLE_GAMES: dict[Game, type[UnfixedLimitHoldem]] = {
    NLHE: _OracleHoldem,
    PLO: _OracleOmaha,
    PLO5: _OracleOmaha5,
    PLO8: _OracleOmahaHiLo,
}
ORACLE_GAMES_BY_CODE = {game.code: game for game in ORACLE_GAMES}


# --- building both sides --------------------------------------------------------------------


def pokerkit_state(
    config: HandConfig,
    automations: Sequence[Automation] = AUTOMATIONS,
    mode: Mode = Mode.TOURNAMENT,
) -> State:
    """A PokerKit state with our forced bets; only betting (and dealing, unless automated) left.

    A dead small blind is dead money nobody matches, like a big blind ante: PokerKit takes it as
    an untrimmed ante of the player who posts it. The default mode has one runout and no
    run-it-twice vote, as our engine by default. A straddle is one of PokerKit's
    ``blinds_or_straddles``; our minimum raise counts from it, which PokerKit plays when its
    pre-flop street's minimum completion is the straddle. A bomb pot is what engine.phh writes
    for it: trimmed antes of the bomb and no blinds, the pre-flop round checked through (by
    :class:`Duel`). The game is PokerKit's own of the same rules (``ORACLE_GAMES``).
    """
    n = config.players
    blinds = config.blinds
    antes = config.antes
    if config.dead_blinds:
        antes = tuple(a + d for a, d in zip(antes, config.dead_blinds, strict=True))
    trimmed = config.ante_kind is AnteKind.PER_PLAYER or not any(antes)
    if config.bomb_pot:
        antes, blinds, trimmed = blinds, (0,) * n, True
    if n == 2:
        blinds, antes = blinds[::-1], antes[::-1]
    game = ORACLE_GAMES[config.game](
        tuple(automations),
        trimmed,
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


def deal_holes(state: State, deck: Sequence[OurCard], n: int, hole_count: int = 2) -> None:
    for i in range(n):
        state.deal_hole(tuple(PK_CARDS[deck[i + k * n]] for k in range(hole_count)), i)


def deal_board(state: State, deck: Sequence[OurCard], n: int, hole_count: int = 2) -> None:
    """Burn and deal whatever PokerKit waits for, from our deck order (burn cards included)."""
    pos = board_positions(n, hole_count)
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


def unmodelled(config: HandConfig) -> str | None:
    """Why PokerKit cannot play this table at all, or None."""
    n = config.players
    small = (config.big_blind_index - 1) % n
    forced = (config.big_blind_index, small, config.straddle_index)
    if not config.bomb_pot and any(b and i not in forced for i, b in enumerate(config.blinds)):
        return UNMODELLED_POSTED_BLIND
    if any(config.dead_blinds):
        if config.ante_kind is AnteKind.PER_PLAYER and any(config.antes):
            return UNMODELLED_DEAD_BLIND_WITH_ANTES
        posted = zip(config.stacks, config.blinds, config.antes, config.dead_blinds, strict=True)
        if any(d and s <= b + a + d for s, b, a, d in posted):
            return UNMODELLED_DEAD_BLIND_ALL_IN
    positions = board_positions(n, config.game.hole_count)
    if positions[-1] - positions[0] == 4:
        return UNMODELLED_NO_BURNS
    return None


# --- RULES.md 4, kept from the actions ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BookRaise:
    player: int
    increment: int
    full: bool  # at least the street's last full raise (never less than one big blind)
    half: bool  # short of that, but at least half of it (an all-in: nothing else is that short)


@dataclass
class StreetBook:
    """One street's betting as RULES.md 4 reads it, written from the actions played.

    Kept apart from the engine (which has its own counters) so that a wrong counter there is a
    difference here.
    """

    big_blind: int
    yardstick: int = 0  # the last full raise; one big blind until someone raises fully
    raises: list[BookRaise] = field(default_factory=list)
    # player: (the high bet once he acted, how many raises had been made then)
    acted: dict[int, tuple[int, int]] = field(default_factory=dict)
    sub_big_blind_all_in: bool = False  # someone went all-in raising by less than a big blind

    def __post_init__(self) -> None:
        self.yardstick = self.yardstick or self.big_blind

    def record(self, player: int, high_before: int, high_after: int, all_in: bool) -> None:
        if high_after > high_before:
            increment = high_after - high_before
            full = increment >= self.yardstick
            if full:
                self.yardstick = increment
            if all_in and increment < self.big_blind:
                self.sub_big_blind_all_in = True
            half = not full and 2 * increment >= self.yardstick
            self.raises.append(BookRaise(player, increment, full, half))
        self.acted[player] = (high_after, len(self.raises))

    def since(self, player: int) -> list[BookRaise]:
        return self.raises[self.acted[player][1] :]

    def rise_since(self, player: int, high: int) -> int:
        return high - self.acted[player][0]

    def reopened(self, player: int, high: int, mode: ReopenMode) -> bool:
        """Whether re-opening lets ``player`` raise (RULES.md 4, each mode)."""
        if player not in self.acted:
            return True  # a player who has not acted on this street keeps every option
        if mode is ReopenMode.TDA:
            return self.rise_since(player, high) >= self.yardstick
        if mode is ReopenMode.STRICT:
            return any(r.full for r in self.since(player))
        return any(r.full or r.half for r in self.since(player))


def rules_split(amount: int, winners: Sequence[int], unit: int) -> list[tuple[int, int]]:
    """RULES.md 5: equal shares in chip units, odd units one each from the first winner left
    of the button (the lowest index), anything below one unit to that first winner too."""
    ordered = sorted(winners)
    units, loose = divmod(amount, unit)
    each, odd = divmod(units, len(ordered))
    return [
        (w, each * unit + (unit if k < odd else 0) + (loose if k == 0 else 0))
        for k, w in enumerate(ordered)
    ]


def rules_halves(amount: int, unit: int) -> tuple[int, int]:
    """engine.games: a high-low pot halves, the odd chip unit (and anything below one unit)
    going to the high half."""
    units, loose = divmod(amount, unit)
    high = (units - units // 2) * unit + loose
    return high, amount - high


def _low_in_play(awards: Sequence[PotAwarded]) -> bool:
    """Whether a hand at the showdown had a low: then the main pot, which every live hand is
    in, was halved."""
    return any(award.half == "low" for award in awards)


def _has_low(hole: str, board: str) -> bool:
    try:
        _MemoOmahaLowHand.from_game(hole, board)
    except ValueError:
        return False
    return True


def _someone_can_answer(state: State, player: int) -> bool:
    high = max(state.bets)
    return any(
        j != player and state.statuses[j] and state.stacks[j] + state.bets[j] > high
        for j in range(state.player_count)
    )


def _lone_matched(state: State, player: int) -> bool:
    """The only player with chips, nothing owed: RULES.md 3 runs the board out instead."""
    return state.checking_or_calling_amount == 0 and not any(
        j != player and state.statuses[j] and state.stacks[j] for j in range(state.player_count)
    )


# --- random hands -----------------------------------------------------------------------------


def random_config(rng: random.Random, game: Game = NLHE) -> HandConfig:
    """A random table of ``game``. Hold'em tables are drawn exactly as before other games
    existed (the same seed, the same table); the others may also be straddled or bomb pots.
    Never more players than one deck deals with burns (PokerKit always burns)."""
    n = rng.randint(2, min(10, (len(FULL_DECK) - 8) // game.hole_count))
    sb, bb = rng.choice(BLIND_PAIRS)
    unit = rng.choice(CHIP_UNITS)
    reopen = rng.choice(REOPEN_MODES)
    kind = rng.choice((AnteKind.NONE, AnteKind.PER_PLAYER, AnteKind.BIG_BLIND))
    if kind is AnteKind.PER_PLAYER:
        ante = rng.randint(1, bb)
    elif kind is AnteKind.BIG_BLIND:
        ante = rng.choice((bb, bb, sb, rng.randint(1, 2 * bb)))
    else:
        ante = 0
    if rng.random() < 0.25:
        stacks = _ladder(rng, n, bb)
    else:
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
    dead = [0] * n
    if n >= 3 and kind is not AnteKind.PER_PLAYER and rng.random() < 0.1:
        # A player coming back owing only the small blind posts it dead (engine.table).
        j = rng.randrange(2, n)
        dead[j] = sb
        stacks[j] = max(stacks[j], sb + rng.randint(1, 12 * bb))
    straddle = StraddleMode.OFF
    bomb = 0
    if game != NLHE and not any(dead):
        extra = rng.random()
        if extra < 0.1:
            bomb = rng.choice((bb, 2 * bb, 5 * bb))
        elif extra < 0.22 and n >= 3:
            straddle = rng.choice((StraddleMode.UTG, StraddleMode.BUTTON))
            index = 2 if straddle is StraddleMode.UTG else n - 1
            stacks[index] = max(stacks[index], 2 * bb + rng.choice((0, bb, 50 * bb)))
    # Every amount is a whole number of chip units, as the table requires.
    if bomb:
        return HandConfig.bomb(
            [s * unit for s in stacks],
            bomb * unit,
            bb * unit,
            chip_unit=unit,
            reopen=reopen,
            game=game,
        )
    config = HandConfig.standard(
        [s * unit for s in stacks],
        sb * unit,
        bb * unit,
        ante_kind=kind,
        ante=ante * unit,
        chip_unit=unit,
        reopen=reopen,
        straddle=straddle,
        game=game,
    )
    if any(dead):
        config = dataclasses.replace(config, dead_blinds=tuple(d * unit for d in dead))
    return config


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


def choose_action(
    legal: Legal, rng: random.Random, chip_unit: int = 1, *, odd_inputs: bool = False
) -> Action:
    """A random legal decision; with ``odd_inputs``, now and then a timeout or a fold when
    checking is free (a PokerKit replay outside the oracle cannot play those)."""
    i = legal.player
    r = rng.random()
    if odd_inputs and r < 0.04:
        return Action(ActionKind.TIMEOUT, i)
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
            amount = max(legal.min_raise_to, amount // chip_unit * chip_unit)
        return Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, i, amount)
    if legal.to_call == 0:
        return Action(ActionKind.FOLD if odd_inputs and r > 0.98 else ActionKind.CHECK, i)
    if r < 0.2:
        return Action(ActionKind.FOLD, i)
    return Action(ActionKind.CALL, i)


def choose_preselection(hand: Hand, rng: random.Random) -> Action | None:
    """A pre-selected action the engine accepts, for a random player waiting for his turn."""
    waiting = [
        j for j in range(hand.n) if j != hand.to_act and not hand.folded[j] and not hand.all_in[j]
    ]
    if not waiting:
        return None
    player = rng.choice(waiting)
    owed = hand.high_bet > hand.bets[player]
    choices = [PreAction.FOLD, PreAction.CHECK_FOLD, PreAction.CALL_ANY, PreAction.NONE]
    choices.append(PreAction.CALL if owed else PreAction.CHECK)
    return Action(ActionKind.PRESELECT, player, pre=rng.choice(choices))


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
        f"reopen={hand.config.reopen.value} actions={[a.to_json() for a in hand.actions]}"
    )


def classify_raise_right(
    legal: Legal, state: State, book: StreetBook, mode: ReopenMode
) -> str | None:
    """The named case behind a disagreement on the right to raise, or None if unexplained.

    Called once our answer is known to follow RULES.md 4 (:meth:`StreetBook.reopened`) and every
    other condition of the right to raise (he is not covered, someone can still answer) holds in
    both, so only PokerKit's re-open rule is left to explain the difference. PokerKit refuses if
    his call amount is below its completion amount (its yardstick, the largest increment of the
    street, starting at 0) or if he is in its set of players who acted since its last full raise
    while its sum of short all-ins since then (restarted whenever it completes) is below it.
    """
    i = legal.player
    if i not in book.acted:
        return None  # a player yet to act: PokerKit has no reason to refuse him, nor we
    high = max(state.bets)
    completion = state.completion_betting_or_raising_amount
    since = book.since(i)
    if not legal.can_raise:
        # PokerKit re-opens where RULES.md does not.
        if book.sub_big_blind_all_in and completion < book.big_blind:
            return CASE_SHORT_OPENING_ALLIN_REOPENS
        if mode is not ReopenMode.TDA and book.rise_since(i, high) >= book.yardstick:
            return CASE_SHORT_ALLINS_ADDED_UP
        return None
    # RULES.md re-opens where PokerKit does not.
    shorts = state.consecutive_short_all_in_amounts
    restarted = i in state.acted_player_indices and shorts and sum(shorts) < completion
    if mode is ReopenMode.TDA and restarted and not any(r.full for r in since):
        return CASE_REOPEN_SUM_RESTARTS
    if mode is ReopenMode.HALF and any(r.half for r in since) and not any(r.full for r in since):
        return CASE_HALF_RAISE_REOPENS
    return None


def pokerkit_style_stacks(hand: Hand, *, merge: bool, halve_lowless: bool = False) -> list[int]:
    """Our final stacks with every pot split the PokerKit way.

    PokerKit gives a split pot's whole remainder to the first winner and, with ``merge``, first
    kills the hands that win nothing and merges adjacent pots whose remaining players are the
    same, so their odd chips are settled together. A high-low pot is halved first, the high
    half taking the remainder (the same halves as ours when the chip unit is 1); with
    ``halve_lowless``, as PokerKit does, also a pot none of whose players has a low when some
    other pot has one (``CASE_LOW_HALF_WITHOUT_A_LOW``).
    """
    assert hand.result is not None
    awards = hand.result.pots
    winners = {player for award in awards for player, _ in award.shares}
    stacks = list(hand.stacks)
    # Per pot: its eligible players, amount, high (or only) winners and low winners.
    pots: dict[int, tuple[tuple[int, ...], int, list[int], list[int]]] = {}
    for award in awards:
        for player, chips in award.shares:
            stacks[player] -= chips
        eligible, amount, high, low = pots.get(award.index, (award.eligible, 0, [], []))
        players = sorted(p for p, _ in award.shares)
        if award.half == "low":
            low = players
        else:
            high = players
        pots[award.index] = (eligible, amount + award.amount, high, low)
    groups: list[tuple[tuple[int, ...], int, list[int], list[int]]] = []
    for eligible, amount, high, low in pots.values():
        key = tuple(j for j in eligible if j in winners) if merge else eligible
        if groups and merge and groups[-1][0] == key:
            groups[-1] = (key, groups[-1][1] + amount, groups[-1][2], groups[-1][3])
        else:
            groups.append((key, amount, high, low))
    low_in_play = halve_lowless and _low_in_play(awards)
    for key, amount, high, low in groups:
        if low_in_play and not low:
            # No low among this pot's players: PokerKit still halves it, the low half to all
            # of them (those it did not kill: the players who win something somewhere).
            low = [j for j in key if j in winners]
        halves = ((amount - amount // 2, high), (amount // 2, low)) if low else ((amount, high),)
        for part, players in halves:
            each, remainder = divmod(part, len(players))
            for k, player in enumerate(players):
                stacks[player] += each + (remainder if k == 0 else 0)
    return stacks


Played = tuple[int, ActionKind, int]  # (player, kind, chips put in or raise-to total)


class Duel:
    """One hand played in both engines, compared before every decision.

    Drive it with :meth:`decision` (compare, get our Legal) and :meth:`apply` (any input:
    decisions, timeouts, pre-selections, show requests); after the hand, :meth:`finish`
    compares the stacks. A by-design difference stops the comparison and is kept in
    :attr:`case`; from then on only our engine is played.
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
        self.book = StreetBook(self._full_raise(0))
        self._street: int | None = None
        # Pending pre-selections as RULES.md 4 keeps them: player -> (choice, high bet then).
        self.preselected: dict[int, tuple[PreAction, int]] = {}
        self.case = unmodelled(config)
        if self.case is None and bba_short(config):
            self.case = CASE_BBA_SHORT_BIG_BLIND
        if self.case is not None:
            return
        self.state = pokerkit_state(config)
        deal_holes(self.state, self.deck, config.players, config.game.hole_count)
        hand = self.hand
        if config.bomb_pot:
            # PHH's bomb pot: the antes, then a pre-flop round everybody checks through.
            while self.state.street_index == 0 and self.state.actor_index is not None:
                self.state.check_or_call()
            return
        pk_big_blind = max(range(hand.n), key=lambda i: (hand.bets[i], i))
        if pk_big_blind != config.big_blind_index and self.state.actor_index != hand.to_act:
            self.case = CASE_OPENER_AFTER_LARGEST_BLIND

    def _full_raise(self, street_index: int | None) -> int:
        """The smallest full raise of a street: the big blind, or pre-flop a straddle."""
        straddle = self.config.straddle_index
        if straddle is not None and street_index == 0:
            return self.config.blinds[straddle]
        return self.config.big_blind

    def _fail(self, what: str, legal: Legal | None) -> Mismatch:
        assert self.state is not None
        return Mismatch(f"seed={self.label}: {what}: " + _describe(self.hand, self.state, legal))

    @property
    def comparing(self) -> bool:
        return self.case is None and self.state is not None

    def _advance(self, state: State) -> None:
        """Deal what PokerKit waits for, start a new book on a new street, and check for the
        lone player PokerKit asks where RULES.md 3 runs the board out."""
        while True:
            deal_board(state, self.deck, self.config.players, self.config.game.hole_count)
            if state.street_index != self._street:
                self._street = state.street_index
                self.book = StreetBook(self._full_raise(state.street_index))
                self.preselected.clear()  # RULES.md 4: a pre-selection lasts one street
            actor = state.actor_index
            if actor is None or not _lone_matched(state, actor):
                return
            if state.can_complete_bet_or_raise_to():
                raise self._fail("PokerKit lets the lone player bet", None)
            self.normalised.append(CASE_LONE_MATCHED_PLAYER_ASKED)
            state.check_or_call()

    def decision(self) -> Legal | None:
        """Our Legal for the next decision, after checking PokerKit and RULES.md agree with it."""
        legal = self.hand.legal()
        state = self.state
        if not self.comparing or state is None:
            return legal
        self._advance(state)
        if legal is None:
            if state.actor_index is not None:
                raise self._fail("PokerKit has an actor, we do not", legal)
            return None
        self.decisions += 1
        i = legal.player
        if state.actor_index != i or state.checking_or_calling_amount != legal.to_call:
            raise self._fail("actor or call amount differs", legal)
        high = max(state.bets)
        basic = state.stacks[i] > legal.to_call and _someone_can_answer(state, i)
        if legal.can_raise != (basic and self.book.reopened(i, high, self.config.reopen)):
            raise self._fail("right to raise breaks RULES.md 4", legal)
        if legal.raise_closed != (basic and not legal.can_raise):
            raise self._fail("raise_closed is not 'refused only for re-opening'", legal)
        if state.can_complete_bet_or_raise_to() != legal.can_raise:
            case = (
                classify_raise_right(legal, state, self.book, self.config.reopen) if basic else None
            )
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
        """Apply ``action`` to our engine (which may refuse it) and, resolved by RULES.md, to
        PokerKit; the actions our engine carried out must be the ones PokerKit played."""
        mark = len(self.hand.events)
        self.hand.apply(action)
        state = self.state
        if action.kind is ActionKind.VOID:
            self.case = self.case or UNMODELLED_VOID
        if not self.comparing or state is None or action.kind is ActionKind.SHOW:
            return
        if action.kind is ActionKind.PRESELECT:
            assert action.player is not None and action.pre is not None
            if action.pre is PreAction.NONE:
                self.preselected.pop(action.player, None)
            else:
                self.preselected[action.player] = (action.pre, max(state.bets))
            return
        assert action.player is not None
        played: list[Played] = []
        kind = action.kind
        if kind is ActionKind.TIMEOUT:
            # RULES.md 4 (TDA 29): a check when it is free, else a fold.
            kind = ActionKind.CHECK if state.checking_or_calling_amount == 0 else ActionKind.FOLD
        self._play(state, action.player, kind, action.amount, played)
        self._run_preselections(state, played)
        ours = [
            (e.player, e.kind, e.amount)
            for e in self.hand.events[mark:]
            if isinstance(e, ActionTaken)
        ]
        if ours != played:
            raise self._fail(f"actions carried out differ: ours={ours} expected={played}", None)

    def _play(
        self, state: State, player: int, kind: ActionKind, amount: int | None, played: list[Played]
    ) -> None:
        if state.actor_index != player:
            raise self._fail(f"PokerKit's actor is {state.actor_index}, not {player}", None)
        self.preselected.pop(player, None)  # acting drops his own pre-selection
        high = max(state.bets)
        stack, bet = state.stacks[player], state.bets[player]
        if kind is ActionKind.ALL_IN:
            if stack <= high - bet:
                kind = ActionKind.CALL
            else:
                # The largest raise allowed: the whole stack, or under pot limit the pot when
                # the stack is bigger (engine.hand; PokerKit's own pot-limit maximum).
                most = state.max_completion_betting_or_raising_to_amount
                kind, amount = ActionKind.RAISE, stack + bet if most is None else most
        if kind is ActionKind.FOLD and high == bet:
            with warnings.catch_warnings():
                # RULES.md 4 lets a player fold when he could check (a pre-selected fold, TDA
                # 53); PokerKit allows it only outside tournament mode, and warns.
                warnings.simplefilter("ignore")
                state.mode = Mode.CASH_GAME
                try:
                    state.fold()
                finally:
                    state.mode = Mode.TOURNAMENT
            played.append((player, ActionKind.FOLD, 0))
            after = high
        elif kind is ActionKind.FOLD:
            state.fold()
            played.append((player, ActionKind.FOLD, 0))
            after = high
        elif kind in (ActionKind.CHECK, ActionKind.CALL):
            put = state.check_or_call().amount
            played.append((player, ActionKind.CALL if put else ActionKind.CHECK, put))
            after = high
        else:
            assert amount is not None
            state.complete_bet_or_raise_to(amount)
            played.append((player, ActionKind.BET if high == 0 else ActionKind.RAISE, amount))
            after = amount
        self.book.record(player, high, after, all_in=after == stack + bet and after > high)

    def _run_preselections(self, state: State, played: list[Played]) -> None:
        """Carry out the pre-selections whose turn has come (RULES.md 4, TDA 53)."""
        while True:
            self._advance(state)
            i = state.actor_index
            if i is None or i not in self.preselected:
                return
            pre, high_then = self.preselected.pop(i)
            owed = state.checking_or_calling_amount
            if pre is PreAction.FOLD:
                kind = ActionKind.FOLD
            elif pre is PreAction.CHECK_FOLD:
                kind = ActionKind.CHECK if owed == 0 else ActionKind.FOLD
            elif pre is PreAction.CALL_ANY:
                kind = ActionKind.CALL
            elif max(state.bets) != high_then:
                return  # the bet changed since he chose: he decides again
            else:
                kind = ActionKind.CALL  # his check or call, on the bet he saw
            self._play(state, i, kind, None, played)

    def finish(self) -> bool:
        """Compare the final stacks; False if a by-design case stopped the comparison earlier."""
        assert self.hand.is_over
        assert sum(self.hand.stacks) == sum(self.config.stacks), f"seed={self.label}: chips"
        result = self.hand.result
        assert result is not None
        unit = self.config.chip_unit
        for award in result.pots:
            split = rules_split(award.amount, [p for p, _ in award.shares], unit)
            if list(award.shares) != split:
                raise Mismatch(
                    f"seed={self.label}: pot {award.index} split {award.shares}, RULES.md 5 "
                    f"gives {split}: actions={[a.to_json() for a in self.hand.actions]}"
                )
        self._check_halves(result.pots)
        state = self.state
        if not self.comparing or state is None:
            return False
        self._advance(state)
        if state.status:
            raise self._fail("PokerKit hand not over", None)
        if result.showdown:
            # Every bet is matched or its excess handed back before a showdown, in both; so the
            # pots hold the same chips (when all but one fold, PokerKit hands back the winner's
            # whole last bet rather than its unmatched part: the stacks agree, the pots do not).
            pushed = sum(sum(op.amounts) for op in state.operations if isinstance(op, ChipsPushing))
            awarded = sum(award.amount for award in result.pots)
            if pushed != awarded:
                raise self._fail(f"pots hold {awarded}, PokerKit's {pushed}", None)
        per_pot = pokerkit_style_stacks(self.hand, merge=False)
        merged = pokerkit_style_stacks(self.hand, merge=True)
        expected = pokerkit_style_stacks(self.hand, merge=True, halve_lowless=True)
        if per_pot != self.hand.stacks:
            self.normalised.append(CASE_ODD_CHIPS_ONE_UNIT_EACH)
        if merged != per_pot:
            self.normalised.append(CASE_ODD_CHIPS_MERGED_POTS)
        if expected != merged:
            self.normalised.append(CASE_LOW_HALF_WITHOUT_A_LOW)
        if list(state.stacks) != expected:
            raise self._fail(
                f"final stacks differ: ours={self.hand.stacks} (with PokerKit's odd chips "
                f"{expected}) pokerkit={list(state.stacks)}",
                None,
            )
        return True

    def _check_halves(self, awards: Sequence[PotAwarded]) -> None:
        """engine.games: in a high-low game a pot is halved exactly when one of its players
        has a low (by PokerKit's own low evaluation), the high half taking the odd chip unit;
        a pot only one player can win is never cut."""
        if not self.config.game.has_low:
            return
        hand = self.hand
        board = "".join(format_card(c) for c in hand.board)
        totals: dict[tuple[int, int], dict[str, int]] = {}
        eligible: dict[int, tuple[int, ...]] = {}
        for award in awards:
            totals.setdefault((award.index, award.run), {})[award.half] = award.amount
            eligible[award.index] = award.eligible
        for (index, _), halves in totals.items():
            players = eligible[index]
            held = [
                _has_low("".join(format_card(c) for c in hand.hole_cards(j)), board)
                for j in players
            ]
            if "" in halves:
                if len(players) > 1 and any(held) and hand.result and hand.result.showdown:
                    raise Mismatch(f"seed={self.label}: pot {index} has a low but is not halved")
                continue
            if not any(held) or "high" not in halves:
                raise Mismatch(f"seed={self.label}: pot {index} halved without a low: {halves}")
            if "low" not in halves:
                continue  # a pot of one chip unit: the low half is empty
            high, low = rules_halves(halves["high"] + halves["low"], self.config.chip_unit)
            if (halves["high"], halves["low"]) != (high, low):
                raise Mismatch(f"seed={self.label}: pot {index} halves {halves}, not {high, low}")

    def features(self) -> list[str]:
        """What this hand put to the test, for the summary."""
        cfg = self.config
        used = [f"game_{cfg.game.code}", f"reopen_{cfg.reopen.value}"]
        if cfg.straddle_index is not None:
            used.append("straddle")
        if cfg.bomb_pot:
            used.append("bomb_pot")
        result = self.hand.result
        if result is not None and any(award.half for award in result.pots):
            used.append("high_low_split")
        if cfg.chip_unit > 1:
            used.append("chip_unit_above_1")
        if any(cfg.dead_blinds):
            used.append("dead_blind")
        autos = {e.auto for e in self.hand.events if isinstance(e, ActionTaken) and e.auto}
        used.extend(f"auto_{auto}" for auto in sorted(autos))
        return used


def run_hand(
    seed: int, stats: DiffStats, config: HandConfig | None = None, game: Game = NLHE
) -> Duel:
    """Play one random hand in both engines; raise Mismatch on an unexplained difference.

    The hand is fully determined by ``seed`` and ``game`` (or ``config`` if given), which a
    failure prints.
    """
    # Each game its own stream, so PLO and PLO8 do not deal the same tables from one seed.
    rng = random.Random(seed if game == NLHE else f"{game.code}-{seed}")
    if config is None:
        config = random_config(rng, game)
    label = seed if config.game == NLHE else f"{seed} (game {config.game.code})"
    duel = Duel(config, random_deck(rng), label=label)
    while (legal := duel.decision()) is not None:
        if rng.random() < 0.12:
            preselection = choose_preselection(duel.hand, rng)
            if preselection is not None:
                duel.apply(preselection)
                continue
        duel.apply(choose_action(legal, rng, config.chip_unit, odd_inputs=True))
    compared = duel.finish()
    stats.hands += 1
    stats.decisions += duel.decisions
    stats.hands_compared += compared
    for case in {*duel.normalised, *([duel.case] if duel.case else [])}:
        stats.count(case, seed)
    if compared:
        stats.features.update(duel.features())
    return duel


def run_many(first_seed: int, count: int, stats: DiffStats, game: Game = NLHE) -> None:
    for seed in range(first_seed, first_seed + count):
        run_hand(seed, stats, game=game)


def fresh_seed() -> int:
    return secrets.randbelow(10**9)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=None, help="seed of the first hand")
    parser.add_argument("--game", default=NLHE.code, choices=sorted(ORACLE_GAMES_BY_CODE))
    args = parser.parse_args(argv)
    first = fresh_seed() if args.seed is None else args.seed
    print(f"first seed {first}, game {args.game}", flush=True)
    stats = DiffStats()
    start = time.perf_counter()
    run_many(first, args.hands, stats, ORACLE_GAMES_BY_CODE[args.game])
    elapsed = time.perf_counter() - start
    print(f"{stats.summary()} in {elapsed:.2f}s")
    for case, seeds in sorted(stats.case_seeds.items()):
        print(f"  {case}: seeds {seeds[:10]}{' ...' if len(seeds) > 10 else ''}")


if __name__ == "__main__":
    main()

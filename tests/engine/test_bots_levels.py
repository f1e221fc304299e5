"""The three computer players: every answer is legal, and the levels play as described.

Spots come from play (seeded hands the levels play out among themselves) or are set up by hand
with chosen cards. Frequencies are measured over many spots or seeds with margins far wider
than their sampling error, so a failure means the play changed, not bad luck.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import pytest

import engine.bots
from engine.bots import (
    ALL_IN,
    CALL,
    FOLD,
    Beginner,
    Bot,
    BotView,
    Decision,
    Move,
    Regular,
    Strong,
    beginner,
    pushfold,
    regular,
    strong,
    to_action,
    view_of,
)
from engine.bots.levels import PUSH_FOLD_DEPTH
from engine.bots.preflop import CLASSES, class_combos
from engine.bots.ranges import open_width, preflop_range
from engine.bots.reading import betting
from engine.bots.strength import class_hole
from engine.cards import FULL_DECK, Card, format_cards, parse_cards
from engine.hand import (
    ActionKind,
    AnteKind,
    Hand,
    HandConfig,
    ReopenMode,
    RunItTwice,
    StraddleMode,
    Street,
    deck_from_cards,
)
from tests.engine.bot_charts import FixedChart, WidthChart

LEVELS: dict[str, Callable[[], Bot]] = {
    "beginner": beginner,
    "regular": regular,
    "strong": lambda: strong(WidthChart()),
}


def random_config(rng: random.Random) -> HandConfig:
    """Any table the engine allows: 2 to 9 seats, chip units, antes, straddles, bomb pots,
    stacks from a chip to hundreds of big blinds, each reopening rule."""
    players = rng.randint(2, 9)
    unit = rng.choice((1, 1, 1, 5, 25))
    small = unit * rng.randint(1, 3)
    big = 2 * small
    stacks = [
        unit * max(1, rng.choice((0, 1, 3, 8, 14, 15, 16, 30, 100, 400)) * big // unit)
        + unit * rng.randint(0, 3)
        for _ in range(players)
    ]
    reopen = rng.choice(list(ReopenMode))
    run_it_twice = rng.choice((RunItTwice.OFF, RunItTwice.ALWAYS))
    if rng.random() < 0.1:
        return HandConfig.bomb(
            stacks, big, big, chip_unit=unit, reopen=reopen, run_it_twice=run_it_twice
        )
    ante_kind = rng.choice(list(AnteKind))
    straddle = StraddleMode.OFF
    if players >= 4 and rng.random() < 0.2:
        straddle = rng.choice((StraddleMode.UTG, StraddleMode.BUTTON))
        for i in range(players):
            stacks[i] = max(stacks[i], 4 * big)
    return HandConfig.standard(
        stacks,
        small,
        big,
        ante_kind=ante_kind,
        ante=0 if ante_kind is AnteKind.NONE else unit,
        chip_unit=unit,
        reopen=reopen,
        straddle=straddle,
        run_it_twice=run_it_twice,
    )


def play(
    hand: Hand, bots: Sequence[Bot], rng: random.Random
) -> Iterator[tuple[int, BotView, Decision]]:
    """Play ``hand`` out with ``bots``, yielding each decision before it is applied."""
    while not hand.is_over:
        if hand.to_act is None:
            hand.choose_run_count(1)  # the players' vote on running it twice
            continue
        seat = hand.to_act
        view = view_of(hand, seat)
        decision = bots[seat].decide(view, rng)
        yield seat, view, decision
        hand.apply(to_action(decision, view))


def test_every_answer_of_every_level_is_accepted_by_the_engine() -> None:
    rng = random.Random(2026)
    decided: Counter[str] = Counter()
    streets: Counter[Street] = Counter()
    while min(decided[name] for name in LEVELS) < 2500:
        config = random_config(rng)
        names = [rng.choice(list(LEVELS)) for _ in range(config.players)]
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(config, deck)
        for seat, view, decision in play(hand, [LEVELS[n]() for n in names], rng):
            decided[names[seat]] += 1
            streets[view.street] += 1
            # The engine raising here (EngineError) is the failure this test looks for.
            assert decision.move is not Move.FOLD or view.to_call > 0, "folded a free check"
    assert min(streets.values()) > 300  # every street was reached often


def test_a_raise_lands_on_the_chip_unit() -> None:
    config = HandConfig.standard((1000, 1000, 975), 25, 50, chip_unit=25)
    hand = Hand(config, FULL_DECK)
    view = view_of(hand, hand.to_act or 0)
    action = to_action(Decision.raise_to(137), view)
    assert (action.kind, action.amount) == (ActionKind.RAISE, 125)
    hand.apply(action)


# --- how the levels differ ------------------------------------------------------------------


def table_stats(name: str, hands: int = 250, seed: int = 7) -> dict[str, float]:
    """VPIP and pre-flop raises by seat, and post-flop aggression, of six players of one level
    at 100 big blinds."""
    rng = random.Random(seed)
    voluntary: Counter[int] = Counter()
    raised = 0
    aggressive = calls = 0
    for _ in range(hands):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(HandConfig.standard((200,) * 6, 1, 2), deck)
        put_in: set[int] = set()
        for seat, view, decision in play(hand, [LEVELS[name]() for _ in range(6)], rng):
            kind = to_action(decision, view).kind
            if view.street is Street.PREFLOP:
                if kind in (ActionKind.CALL, ActionKind.RAISE, ActionKind.ALL_IN):
                    put_in.add(seat)
                raised += kind in (ActionKind.RAISE, ActionKind.ALL_IN)
            else:
                aggressive += kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.ALL_IN)
                calls += kind is ActionKind.CALL
        voluntary.update(put_in)
    return {
        "vpip": sum(voluntary.values()) / (6 * hands),
        "raise_share": raised / max(1, sum(voluntary.values())),
        "aggression": aggressive / max(1, calls),
    }


@pytest.fixture(scope="module")
def stats() -> dict[str, dict[str, float]]:
    return {name: table_stats(name) for name in LEVELS}


def test_the_beginner_plays_far_more_hands_and_raises_far_less(
    stats: dict[str, dict[str, float]],
) -> None:
    loose, tight = stats["beginner"], stats["regular"]
    assert loose["vpip"] > 0.45 > 0.35 > tight["vpip"] > 0.15
    assert loose["vpip"] > tight["vpip"] + 0.2
    assert loose["raise_share"] < 0.25 < 0.5 < tight["raise_share"]
    assert loose["aggression"] < tight["aggression"] - 0.4


def first_in(bot: Bot, seat: int, deals: int = 600) -> float:
    """How often ``bot`` plays a hand at ``seat`` of six when everybody before has folded.

    Every seat is dealt the same hands in the same order, so seats differ by position alone.
    """
    rng = random.Random(8)
    played = 0
    for number in range(deals):
        hole = rng.sample(FULL_DECK, 2)
        cards: list[Sequence[Card] | None] = [None] * 6
        cards[seat] = hole
        hand = Hand(HandConfig.standard((200,) * 6, 1, 2), deck_from_cards(6, cards, ()))
        while hand.to_act != seat:
            hand.fold(hand.to_act or 0)
        played += bot.decide(view_of(hand, seat), random.Random(number)).move is not Move.FOLD
    return played / deals


def test_position_matters_to_the_regular_and_the_strong_not_to_the_beginner() -> None:
    under_the_gun, button = 2, 5
    for bot in (Regular(), Strong(WidthChart())):
        first, last = first_in(bot, under_the_gun), first_in(bot, button)
        assert 0.1 < first < 0.25 and 0.35 < last < 0.55, (bot, first, last)
    first, last = first_in(Beginner(), under_the_gun), first_in(Beginner(), button)
    assert abs(first - last) < 0.03 and first > 0.5, (first, last)


def facing_bets(count: int, seed: int) -> list[BotView]:
    """Post-flop spots where a bet is to be called, from play among the levels."""
    rng = random.Random(seed)
    spots: list[BotView] = []
    while len(spots) < count:
        players = rng.randint(2, 6)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(HandConfig.standard((200,) * players, 1, 2), deck)
        bots = [rng.choice(list(LEVELS.values()))() for _ in range(players)]
        for _, view, _ in play(hand, bots, rng):
            if view.street is not Street.PREFLOP and view.to_call > 0:
                spots.append(view)
    return spots[:count]


def test_on_the_same_bets_the_beginner_calls_more_and_raises_less() -> None:
    spots = facing_bets(600, seed=11)

    def shares(bot: Bot) -> tuple[float, float]:
        moves = Counter(bot.decide(v, random.Random(i)).move for i, v in enumerate(spots))
        return moves[Move.FOLD] / len(spots), (moves[Move.RAISE] + moves[Move.ALL_IN]) / len(spots)

    loose_folds, loose_raises = shares(beginner())
    tight_folds, tight_raises = shares(regular())
    assert loose_folds < tight_folds - 0.08
    assert loose_raises < tight_raises


# --- set-up spots ---------------------------------------------------------------------------


def dealt(
    players: int, stacks: int | Sequence[int], holes: dict[int, str], board: str = ""
) -> Hand:
    """A hand with the given seats' cards and board, blinds 1 and 2."""
    cards: list[Sequence[Card] | None] = [None] * players
    for seat, text in holes.items():
        cards[seat] = parse_cards(text)
    deck = deck_from_cards(players, cards, parse_cards(board))
    sizes = (stacks,) * players if isinstance(stacks, int) else tuple(stacks)
    return Hand(HandConfig.standard(sizes, 1, 2), deck)


def moves(bot: Bot, hand: Hand, seeds: int = 40) -> Counter[Move]:
    assert hand.to_act is not None
    view = view_of(hand, hand.to_act)
    return Counter(bot.decide(view, random.Random(seed)).move for seed in range(seeds))


@pytest.mark.parametrize("players", [6, 9])
@pytest.mark.parametrize("depth", [10, 20, 40, 100, 250])
def test_the_strong_level_folds_seven_deuce_under_the_gun(players: int, depth: int) -> None:
    hand = dealt(players, 2 * depth, {2: "7c2d"})
    assert moves(Strong(WidthChart()), hand) == {Move.FOLD: 40}
    assert moves(Regular(), hand) == {Move.FOLD: 40}


def test_no_level_folds_aces_before_the_flop() -> None:
    rng = random.Random(3)
    others = (FOLD, CALL, ALL_IN, Decision.raise_to(6), Decision.raise_to(20))
    tried = 0
    for _ in range(80):
        players = rng.randint(2, 9)
        seat = rng.randrange(players)
        hand = dealt(players, 2 * rng.choice((8, 15, 40, 100)), {seat: "AsAh"})
        while hand.to_act is not None and hand.to_act != seat:
            hand.apply(to_action(rng.choice(others), view_of(hand, hand.to_act)))
        if hand.to_act is None or hand.street is not Street.PREFLOP:
            continue
        tried += 1
        for bot in (Beginner(), Regular(), Strong(WidthChart())):
            assert Move.FOLD not in moves(bot, hand, seeds=5), view_of(hand, seat)
    assert tried > 40


def preflop_spots(count: int, seed: int) -> list[BotView]:
    """Pre-flop spots of the strong level from play at 2 to 9 seats, 5 to 60 big blinds."""
    rng = random.Random(seed)
    spots: list[BotView] = []
    while len(spots) < count:
        players = rng.randint(2, 9)
        stacks = [2 * rng.choice((5, 9, 12, 15, 16, 20, 30, 60)) for _ in range(players)]
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(HandConfig.standard(stacks, 1, 2), deck)
        bots = [rng.choice(list(LEVELS.values()))() for _ in range(players)]
        for _, view, _ in play(hand, bots, rng):
            if view.street is Street.PREFLOP:
                spots.append(view)
    return spots


def test_the_strong_level_pushes_or_folds_at_fifteen_big_blinds_and_below() -> None:
    bot = Strong(WidthChart())
    short = deep = 0
    for number, view in enumerate(preflop_spots(1500, seed=5)):
        decision = bot.decide(view, random.Random(number))
        depth = view.effective_stack() / view.big_blind
        if depth <= PUSH_FOLD_DEPTH:
            short += 1
            allowed = {Move.ALL_IN, Move.FOLD} | ({Move.CHECK} if view.to_call == 0 else set())
            assert decision.move in allowed, (depth, view)
        elif view.high_bet <= view.big_blind:
            deep += 1
            # Deeper, an open is a raise the size of a few blinds, never a shove.
            assert decision.move is not Move.ALL_IN, (depth, view)
            if decision.move is Move.RAISE:
                limpers = betting(view).limpers
                assert decision.to is not None
                assert decision.to <= (3.5 + limpers) * view.big_blind, view
    assert short > 300 and deep > 300


def test_heads_up_the_strong_level_plays_the_chart() -> None:
    # The small blind (the button, seat 1) at 10 big blinds, folded to.
    hand = dealt(2, 20, {1: "7c2d"})
    assert moves(Strong(FixedChart(True)), hand) == {Move.ALL_IN: 40}
    hand = dealt(2, 20, {1: "AsAh"})
    assert moves(Strong(FixedChart(False)), hand) == {Move.FOLD: 40}
    # The big blind facing the small blind's shove.
    hand = dealt(2, 20, {0: "7c2d"})
    hand.go_all_in(1)
    assert moves(Strong(FixedChart(True)), hand) == {Move.ALL_IN: 40}
    assert to_action(ALL_IN, view_of(hand, 0)).kind is ActionKind.ALL_IN
    hand = dealt(2, 20, {0: "AsAh"})
    hand.go_all_in(1)
    assert moves(Strong(FixedChart(False)), hand) == {Move.FOLD: 40}


def test_the_strong_level_asks_the_chart_its_depth_and_only_when_short() -> None:
    chart = WidthChart()
    bot = Strong(chart)
    for depth in (4, 9.5, 15):
        hand = dealt(3, int(2 * depth), {0: "Ks9d"})
        hand.fold(2)
        bot.decide(view_of(hand, 0), random.Random(1))
        assert chart.asked[-1] == ("push", depth)
    chart.asked.clear()
    for depth in (16, 40, 100):
        hand = dealt(3, 2 * depth, {0: "Ks9d"})
        hand.fold(2)
        bot.decide(view_of(hand, 0), random.Random(1))
    assert chart.asked == []


def test_the_project_chart_is_imported_only_when_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes any import of that name fail, once the package no longer
    # holds the module it imported before.
    monkeypatch.delattr(engine.bots, "pushfold", raising=False)
    monkeypatch.setitem(sys.modules, "engine.bots.pushfold", None)
    bot = strong()
    deep = dealt(3, 200, {0: "Ks9d"})
    deep.fold(2)
    bot.decide(view_of(deep, 0), random.Random(1))
    short = dealt(3, 20, {0: "Ks9d"})
    short.fold(2)
    with pytest.raises(ImportError):
        bot.decide(view_of(short, 0), random.Random(1))
    monkeypatch.setitem(sys.modules, "engine.bots.pushfold", FixedChart(True))
    assert strong().decide(view_of(short, 0), random.Random(1)).move is Move.ALL_IN


# --- after the flop -----------------------------------------------------------------------

BOARD = "AsKsQs 7d 2c"


def river(hero: str, *, hero_acts_last: bool, bet: int | None) -> Hand:
    """Heads-up at 100 big blinds: the button raised, the big blind called, checks to the river.
    The hero is the button (who acts last) or the big blind; ``bet`` is the other's river bet,
    or None for a check to the hero."""
    hero_seat = 1 if hero_acts_last else 0
    hand = dealt(2, 200, {hero_seat: hero, 1 - hero_seat: "9h8h"}, BOARD)
    hand.raise_to(1, 5)
    hand.call(0)
    for _ in range(2):
        hand.check(0)
        hand.check(1)
    if hero_acts_last:
        if bet is None:
            hand.check(0)
        else:
            hand.bet(0, bet)
    elif bet is not None:
        hand.check(0)
        hand.bet(1, bet)
    return hand


def test_the_strong_level_values_the_nuts_and_never_folds_them() -> None:
    bot = Strong(WidthChart())
    checked_to = moves(bot, river("JsTs", hero_acts_last=True, bet=None), seeds=50)
    assert checked_to[Move.RAISE] + checked_to[Move.ALL_IN] >= 45
    facing = moves(bot, river("JsTs", hero_acts_last=True, bet=10), seeds=50)
    assert facing[Move.FOLD] == 0
    assert facing[Move.RAISE] + facing[Move.ALL_IN] >= 45


def test_the_strong_level_folds_nothing_to_a_pot_bet_and_bluffs_it_sometimes() -> None:
    bot = Strong(WidthChart())
    facing = moves(bot, river("6h4h", hero_acts_last=False, bet=10), seeds=50)
    assert facing[Move.FOLD] >= 48
    # Checked to with nothing, it bluffs some of the time, not always and not never.
    checked_to = moves(bot, river("6h4h", hero_acts_last=True, bet=None), seeds=200)
    assert 10 <= checked_to[Move.RAISE] + checked_to[Move.ALL_IN] <= 100


def flop(hero: str, board: str) -> Hand:
    """Heads-up at 100 big blinds: the hero raised on the button, the big blind called."""
    hand = dealt(2, 200, {1: hero, 0: "9h8d"}, board)
    hand.raise_to(1, 5)
    hand.call(0)
    return hand


def test_the_regular_continuation_bets_often_but_not_always() -> None:
    hand = flop("6c5d", "Kd9s2c")
    hand.check(0)
    bets = moves(Regular(), hand, seeds=200)
    assert 100 <= bets[Move.RAISE] <= 180


def test_the_regular_calls_a_flush_draw_at_a_good_price_and_folds_air_to_a_big_river_bet() -> None:
    hand = flop("AhTh", "Kh7h2c")
    hand.bet(0, 4)  # a third of the pot
    assert moves(Regular(), hand)[Move.FOLD] == 0
    assert moves(Regular(), river("6h4h", hero_acts_last=False, bet=10)) == {Move.FOLD: 40}


def test_the_beginner_bets_only_sometimes_even_with_the_nuts() -> None:
    checked_to = moves(Beginner(), river("JsTs", hero_acts_last=True, bet=None), seeds=200)
    assert 40 <= checked_to[Move.RAISE] <= 160
    assert checked_to[Move.CHECK] >= 40


def test_the_factories_make_new_players() -> None:
    for make in (beginner, regular, strong):
        assert make() is not make()
    assert isinstance(beginner(), Beginner)
    assert isinstance(regular(), Regular)
    assert isinstance(strong(), Strong)


def test_an_open_is_read_by_the_players_behind_it_then_not_by_who_folded_since() -> None:
    hand = Hand(HandConfig.standard((200,) * 6, 1, 2), FULL_DECK)
    hand.raise_to(2, 5)  # under the gun: five players behind him
    before = preflop_range(view_of(hand, 3), 2)
    for seat in (3, 4, 5, 0):
        hand.fold(seat)
    assert (preflop_range(view_of(hand, 1), 2) == before).all()
    widths = [float((before[c] > 0.5) * class_combos(c)) for c in range(CLASSES)]
    assert sum(widths) / 1326 == pytest.approx(open_width(5), abs=0.02)


@pytest.mark.parametrize("depth", [3, 7.5, 10, 15])
def test_heads_up_the_default_strong_level_plays_the_projects_equilibrium(depth: float) -> None:
    bot = strong()
    chips = int(2 * depth)
    for c in range(CLASSES):
        cards = format_cards(class_hole(c))
        hand = dealt(2, chips, {1: cards})
        shoves = bot.decide(view_of(hand, 1), random.Random(c)).move is Move.ALL_IN
        assert shoves == pushfold.push(class_hole(c), depth), (cards, depth)
        hand = dealt(2, chips, {0: cards})
        hand.go_all_in(1)
        calls = bot.decide(view_of(hand, 0), random.Random(c)).move is Move.ALL_IN
        assert calls == pushfold.call(class_hole(c), depth), (cards, depth)


def kept_against_a_pot_re_raise(bot: Bot) -> tuple[float, float]:
    """Heads-up at 100 big blinds, the button opens every hand it would and the big blind
    re-raises the pot: the share of deals opened, and of those the share not folded."""
    opened = kept = 0
    for c in range(CLASSES):
        hand = dealt(2, 200, {1: format_cards(class_hole(c))})
        first = bot.decide(view_of(hand, 1), random.Random(c))
        if first.move is not Move.RAISE or first.to is None:
            continue
        opened += class_combos(c)
        hand.raise_to(1, first.to)
        hand.raise_to(0, 2 * hand.bets[1] + hand.total_pot() - hand.bets[0])
        kept += class_combos(c) * (
            bot.decide(view_of(hand, 1), random.Random(c)).move is not Move.FOLD
        )
    return opened / 1326, kept / opened


def test_the_strong_level_is_not_pushed_off_its_opens_by_re_raises() -> None:
    # Folding more than half to a pot-sized re-raise lets a player who re-raises with any two
    # cards win; the regular does, the strong level does not.
    opened, kept = kept_against_a_pot_re_raise(Strong(WidthChart()))
    assert opened > 0.7 and kept > 0.5
    opened, kept = kept_against_a_pot_re_raise(Regular())
    assert opened < 0.5 and kept < 0.25

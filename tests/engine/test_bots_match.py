"""Bot matches over the engine: chips, the duplicate format, the scores, and the baselines.

The properties here hold exactly or by wide margins at a fixed seed; none of them is a claim
about a bot's strength that a change of sampling could flip.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from itertools import combinations

import pytest

from engine.bots.baselines import (
    Honest,
    equity_vs_random,
    honest,
    maniac,
    premium,
    random_bot,
    rock,
    station,
    strong_made_hand,
)
from engine.bots.match import (
    BIG_BLIND,
    STACK,
    BotLoadError,
    Tally,
    deal,
    load_bot,
    play_deals,
    play_hand,
    play_match,
    score,
)
from engine.bots.view import CALL, FOLD, Bot, BotView, Decision, HandViews, Move, to_action, view_of
from engine.cards import FULL_DECK, parse_cards
from engine.equity import equity
from engine.hand import ActionKind, Hand, HandConfig, deck_from_cards


class Folder:
    """Folds whenever it is asked (which is a check when checking is free)."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        return FOLD


def test_no_hand_creates_or_loses_a_chip() -> None:
    bots: list[Bot] = [random_bot(), station(), maniac(), rock(), honest(), random_bot()]
    rng = random.Random(11)
    showdowns = 0
    for players in (2, 3, 6):
        for k in range(150):
            # Unequal stacks, so that side pots and short all-ins come up too.
            stacks = tuple(rng.randint(1, 300) for _ in range(players))
            config = HandConfig.standard(stacks, 1, 2)
            seated = rng.sample(bots, players)
            result = play_hand(config, deal(5, k, players), seated, [rng] * players)
            assert sum(result.stacks) == sum(stacks)
            assert sum(result.net) == 0
            assert min(result.stacks) >= 0
            showdowns += result.showdown
    assert showdowns > 50


@pytest.mark.parametrize("players", [2, 6])
@pytest.mark.parametrize("bot", [station, rock, maniac])
def test_a_deterministic_bot_against_itself_nets_zero_in_every_pair(
    players: int, bot: Callable[[], Bot]
) -> None:
    tally_a, tally_b = play_deals(bot(), bot(), players=players, seed=3, start=0, stop=150)
    # A zero sum of squares: not one pair away from zero, not merely a zero mean.
    assert tally_a == tally_b == Tally(150, 0, 0)


def test_when_only_the_cards_decide_the_duplicate_cancels_them() -> None:
    # The maniac raises the pot and the station calls: every hand is all-in, whoever sits where.
    result = play_match(maniac(), station(), players=2, hands=300, seed=4)
    assert result.a.bb_per_100 == 0 and result.a.ci95 == (0.0, 0.0)


@pytest.mark.parametrize(("players", "per_100"), [(2, -75.0), (6, -25.0)])
def test_a_folder_loses_exactly_the_blinds_it_posts(players: int, per_100: float) -> None:
    # Against the maniac every blind of the folder faces a raise. Over a pair the folder's seats
    # post the small and the big blind once each: 3 chips, spread over its seats, in 2 hands.
    seats = players // 2
    assert per_100 == -3 / seats / BIG_BLIND / 2 * 100
    result = play_match(Folder(), maniac(), players=players, hands=400, seed=5)
    assert result.a.bb_per_100 == per_100
    assert result.a.ci95 == (per_100, per_100)
    assert result.b.bb_per_100 == -per_100


def test_a_folder_hand_by_hand() -> None:
    config = HandConfig.standard((STACK,) * 6, 1, 2)
    for k in range(30):
        bots: list[Bot] = [Folder(), Folder(), maniac(), maniac(), Folder(), maniac()]
        result = play_hand(config, deal(9, k, 6), bots, [random.Random(k)] * 6)
        assert result.net[0] == -1 and result.net[1] == -2 and result.net[4] == 0


def test_the_rock_beats_the_random_bot() -> None:
    result = play_match(rock(), random_bot(), players=2, hands=4000, seed=1)
    assert result.a.ci95[0] > 0
    assert result.b.ci95[1] < 0


def test_the_honest_bot_beats_the_calling_station() -> None:
    result = play_match(honest(), station(), players=6, hands=200, seed=2)
    assert result.a.ci95[0] > 0


def test_a_match_is_its_seed() -> None:
    first = play_match(random_bot(), honest(), players=6, hands=60, seed=8)
    again = play_match(random_bot(), honest(), players=6, hands=60, seed=8)
    other = play_match(random_bot(), honest(), players=6, hands=60, seed=9)
    assert first == again
    assert first != other


def test_ranges_of_deals_add_up_to_the_whole_match() -> None:
    whole = play_deals(random_bot(), maniac(), players=2, seed=6, start=0, stop=40)
    parts = [
        play_deals(random_bot(), maniac(), players=2, seed=6, start=start, stop=stop)
        for start, stop in ((0, 13), (13, 14), (14, 40))
    ]
    assert whole[0] == parts[0][0] + parts[1][0] + parts[2][0]
    assert whole[1] == parts[0][1] + parts[1][1] + parts[2][1]


def test_the_second_play_swaps_the_bots_and_keeps_the_cards_in_the_seats() -> None:
    # Calling stations that note, at each seat's first turn, the hand index and its cards.
    noted: list[tuple[str, int, tuple[int, ...]]] = []

    class Noting:
        def __init__(self, name: str) -> None:
            self.name = name

        def decide(self, view: BotView, rng: random.Random) -> Decision:
            if not any(seen.player == view.me for seen in view.actions):
                noted.append((self.name, view.me, tuple(view.hole)))
            return CALL

    play_deals(Noting("a"), Noting("b"), players=6, seed=7, start=0, stop=1)
    assert len(noted) == 12  # every seat acts once pre-flop, in each of the two plays
    first, second = noted[:6], noted[6:]
    deck = deal(7, 0, 6)
    for play in (first, second):
        assert sorted(index for _, index, _ in play) == list(range(6))
        for _, index, cards in play:
            assert cards == (deck[index], deck[index + 6])
    # Deal 0 has the button on seat 0, so hand index i is seat i + 1: A holds the even seats.
    assert {i for name, i, _ in first if name == "a"} == {1, 3, 5}
    assert {i for name, i, _ in second if name == "a"} == {0, 2, 4}


def test_the_interval_is_the_normal_one_over_pairs() -> None:
    # Pairs of +4, 0, -2 and +6 chips for a heads-up bot: mean 2; squared deviations 4, 4, 16
    # and 16, over 3 degrees of freedom.
    values = [4, 0, -2, 6]
    tally = Tally(4, sum(values), sum(v * v for v in values))
    result = score(tally, seats=1)
    per_100 = 100 / 2 / BIG_BLIND
    half = 1.959963984540054 * math.sqrt(40 / 3) / 2
    assert result.bb_per_100 == 2 * per_100
    assert result.ci95 == pytest.approx(((2 - half) * per_100, (2 + half) * per_100), abs=1e-4)
    with pytest.raises(ValueError):
        score(Tally(1, 4, 16), seats=1)


def test_hands_must_make_whole_pairs() -> None:
    with pytest.raises(ValueError):
        play_match(station(), station(), players=2, hands=7, seed=0)
    with pytest.raises(ValueError):
        play_deals(station(), station(), players=3, seed=0, start=0, stop=1)


def test_loading_a_bot_names_what_is_wrong() -> None:
    assert isinstance(load_bot("engine.bots.baselines:station"), type(station()))
    for spec, words in (
        ("engine.bots.baselines", "MODULE:FACTORY"),
        ("no_such_module_here:bot", "cannot import module 'no_such_module_here'"),
        ("engine.bots.baselines:nobody", "has no attribute 'nobody'"),
        ("engine.bots.baselines:SAMPLES", "not callable"),
        ("engine.bots.baselines:pot_raise", "failed"),
        ("engine.bots.match:Tally", "Tally, which has no decide"),
    ):
        with pytest.raises(BotLoadError, match=words):
            load_bot(spec)


# --- the views the driver builds --------------------------------------------------------


def test_views_built_turn_after_turn_equal_views_built_afresh() -> None:
    bot = random_bot()
    rng = random.Random(12)
    for players in (2, 3, 6, 9):
        for k in range(60):
            stacks = tuple(rng.randint(3, 300) for _ in range(players))
            hand = Hand(HandConfig.standard(stacks, 1, 2), deal(13, k, players))
            views = HandViews(hand)
            while (player := hand.to_act) is not None:
                view = views.of(player)
                assert view == view_of(hand, player)
                hand.apply(to_action(bot.decide(view, rng), view))


# --- the baselines ----------------------------------------------------------------------


def _first_view(players: int = 2) -> BotView:
    hand = Hand(HandConfig.standard((STACK,) * players, 1, 2), FULL_DECK)
    assert hand.to_act is not None
    return view_of(hand, hand.to_act)


def test_the_station_and_the_maniac() -> None:
    view = _first_view()
    rng = random.Random(0)
    assert station().decide(view, rng).move is Move.CALL
    # Pot raise: call 1 (pot 4), then raise 4 more than the 2 to call: to 6.
    assert maniac().decide(view, rng) == Decision.raise_to(6)


def test_the_random_bot_uses_every_move_and_only_legal_sizes() -> None:
    view = _first_view()
    rng = random.Random(0)
    moves = [random_bot().decide(view, rng) for _ in range(300)]
    assert {d.move for d in moves} == {Move.FOLD, Move.CALL, Move.RAISE}
    sizes = [d.to for d in moves if d.move is Move.RAISE]
    assert all(view.min_raise_to <= s <= view.max_raise_to for s in sizes if s is not None)
    assert len(set(sizes)) > 20


def test_the_rocks_hands() -> None:
    assert [premium(parse_cards(h)) for h in ("QsQd", "AsKd", "KhAh", "JsJd", "AsQs")] == [
        True,
        True,
        True,
        False,
        False,
    ]
    board = parse_cards("Ts7d2c")
    assert strong_made_hand(parse_cards("QsQd"), board)  # overpair
    assert strong_made_hand(parse_cards("Tc7c"), board)  # two pair
    assert not strong_made_hand(parse_cards("AsTd"), board)  # top pair
    assert not strong_made_hand(parse_cards("9s9d"), board)  # underpair
    # Two pair on the board: an ace kicker does not make the hand the rock's own.
    assert not strong_made_hand(parse_cards("AsKd"), parse_cards("Ts Td 7c 7d 2c"))
    assert strong_made_hand(parse_cards("Th2d"), parse_cards("Ts Td 7c 7d 3c"))
    # A straight on the board is nobody's own; a higher one is.
    assert not strong_made_hand(parse_cards("2s2d"), parse_cards("9c Td Jh Qs Kc"))
    assert strong_made_hand(parse_cards("As2d"), parse_cards("9c Td Jh Qs Kc"))


def test_the_rock_folds_what_it_does_not_play() -> None:
    view = _first_view()
    assert rock().decide(view, random.Random(0)) is FOLD  # 2h3d, the first cards of the deck
    assert to_action(FOLD, view).kind is ActionKind.FOLD


@pytest.mark.parametrize(
    ("hole", "board"), [("AsKd", "Qh7c2d"), ("2c7d", "AhKhQh9c"), ("JhJd", "Ts9s8s2d3c")]
)
def test_equity_against_a_random_hand_matches_a_full_count(hole: str, board: str) -> None:
    mine, shown = parse_cards(hole), parse_cards(board)
    rest = [c for c in FULL_DECK if c not in mine and c not in shown]
    hands = list(combinations(rest, 2))
    exact = sum(equity([mine, other], shown).hands[0].equity for other in hands) / len(hands)
    estimates = [equity_vs_random(mine, shown, 1, random.Random(i)) for i in range(8)]
    # Eight estimates of 256 deals each: their mean has a standard error near 1.1 points.
    assert sum(estimates) / len(estimates) == pytest.approx(exact, abs=0.04)


def test_equity_against_several_random_hands_before_the_flop() -> None:
    # Aces against five random hands win about 49% (a long count); 72o against one about 35%.
    aces = equity_vs_random(parse_cards("AsAh"), (), 5, random.Random(1), 2048)
    worst = equity_vs_random(parse_cards("7c2d"), (), 1, random.Random(1), 2048)
    assert aces == pytest.approx(0.49, abs=0.05)
    assert worst == pytest.approx(0.346, abs=0.05)


def _facing_all_in(hole: str) -> BotView:
    """Heads-up, the button shoves and the big blind holds ``hole``."""
    deck = deck_from_cards(2, [parse_cards(hole), None], ())
    hand = Hand(HandConfig.standard((STACK,) * 2, 1, 2), deck)
    hand.go_all_in(1)
    return view_of(hand, 0)


def test_the_honest_bot_against_the_pot_odds() -> None:
    rng = random.Random(0)
    # 198 to call for a pot of 400: 49.5% needed. 72o has about 35%, aces about 85%.
    assert Honest().decide(_facing_all_in("7c2d"), rng) is FOLD
    assert Honest().decide(_facing_all_in("AsAh"), rng).move is Move.CALL
    # 1 to call for 4 on the button: 2h3d's third of the pot is plenty; aces raise.
    assert Honest().decide(_first_view(), rng).move is Move.CALL
    aces = Hand(
        HandConfig.standard((STACK,) * 2, 1, 2), deck_from_cards(2, [None, parse_cards("AsAh")], ())
    )
    assert aces.to_act == 1
    assert Honest().decide(view_of(aces, 1), rng).move is Move.RAISE

"""A computer player cannot see a card it is not entitled to (hypothesis).

Two decks that agree on the seat's own hole cards and on the board dealt so far, and differ
everywhere else (other players' hole cards, burns, cards still to come), are played with the same
actions up to the seat's turn. Whatever a level does, its decision from the same generator state
must then be the same on both: nothing it reads can tell the decks apart.
"""

from __future__ import annotations

import random
import typing
from dataclasses import fields, is_dataclass

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.bots import Bot, BotView, SeatInfo, Seen, beginner, regular, strong, view_of
from engine.bots.view import Decision, HandSeen, HandViews, tell_hand, to_action
from engine.cards import FULL_DECK, Card
from engine.games import GAMES, Game
from engine.hand import AnteKind, Hand, HandConfig, StraddleMode, Street, board_positions
from tests.engine.bot_charts import WidthChart

LEVELS = ("beginner", "regular", "strong")


def make(level: str) -> Bot:
    return {"beginner": beginner, "regular": regular, "strong": lambda: strong(WidthChart())}[
        level
    ]()


@st.composite
def tables(draw: st.DrawFn) -> tuple[HandConfig, tuple[Card, ...]]:
    game = draw(st.sampled_from(list(GAMES.values())))
    players = draw(st.integers(2, min(8, game.max_players)))
    depths = st.sampled_from((3, 8, 12, 15, 16, 25, 40, 100, 300))
    stacks = [2 * draw(depths) + draw(st.integers(0, 3)) for _ in range(players)]
    ante = draw(st.sampled_from(list(AnteKind)))
    straddle = StraddleMode.UTG if players >= 4 and draw(st.booleans()) else StraddleMode.OFF
    if straddle is not StraddleMode.OFF:
        stacks[2] = max(stacks[2], 4)
    config = HandConfig.standard(
        stacks,
        1,
        2,
        ante_kind=ante,
        ante=0 if ante is AnteKind.NONE else 1,
        straddle=straddle,
        game=game,
    )
    return config, tuple(draw(st.permutations(FULL_DECK)))


def other_deck(hand: Hand, seat: int) -> tuple[Card, ...]:
    """The hand's deck with every card moved but the seat's own and the board dealt so far."""
    n, count = hand.n, hand.game.hole_count
    holes = {seat + k * n for k in range(count)}
    kept = {*holes, *board_positions(n, count)[: len(hand.board)]}
    moving = [i for i in range(len(hand.deck)) if i not in kept]
    cards = [hand.deck[i] for i in moving]
    deck = list(hand.deck)
    # A rotation puts a different card in every moving place.
    for place, card in zip(moving, cards[1:] + cards[:1], strict=True):
        deck[place] = card
    return tuple(deck)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    table=tables(),
    seats=st.lists(st.sampled_from(LEVELS), min_size=8, max_size=8),
    level=st.sampled_from(LEVELS),
    point=st.integers(0, 10_000),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_decision_does_not_depend_on_hidden_cards(
    table: tuple[HandConfig, tuple[Card, ...]],
    seats: list[str],
    level: str,
    point: int,
    seed: int,
) -> None:
    config, deck = table
    # Play the hand out, then go back to one of its decisions: any street, any seat.
    played = Hand(config, deck)
    play = random.Random(seed)
    players = [make(name) for name in seats[: played.n]]
    while played.to_act is not None:
        view = view_of(played, played.to_act)
        played.apply(to_action(players[played.to_act].decide(view, play), view))
    if not played.actions:
        return  # every seat was all-in on the blinds and antes: nobody decided anything
    hand = Hand.replay(config, deck, played.actions[: point % len(played.actions)])
    assert hand.to_act is not None
    seat = hand.to_act
    event(f"{level} decides on the {hand.street.value} of {config.game.code}")
    other = Hand.replay(config, other_deck(hand, seat), hand.actions)
    assert other.hole_cards(seat) == hand.hole_cards(seat)
    assert other.board == hand.board
    count = config.game.hole_count
    differ = [i for i in range(count * hand.n) if i % hand.n != seat]
    assert all(other.deck[i] != hand.deck[i] for i in differ)
    mine, theirs = view_of(hand, seat), view_of(other, seat)
    assert mine == theirs
    bot = make(level)
    first, second = random.Random(seed), random.Random(seed)
    decided = bot.decide(mine, first)
    assert bot.decide(theirs, second) == decided
    assert make(level).decide(theirs, random.Random(seed)) == decided
    # The same draws were taken from the generator: no hidden card steered them either.
    assert first.getstate() == second.getstate()


# Every field of a view and what it may hold. A new field fails this test on purpose: whoever
# adds one must say here why it cannot carry a card the seat may not see.
VIEW_FIELDS = {
    "me": int,
    "hole": tuple[Card, ...],
    "board": tuple[Card, ...],
    "street": Street,
    "big_blind": int,
    "seats": tuple[SeatInfo, ...],
    "pot": int,
    "to_call": int,
    "can_raise": bool,
    "min_raise_to": int,
    "max_raise_to": int,
    "actions": tuple[Seen, ...],
    # The table's rules, set before any card is dealt.
    "game": Game,
    # Who sits where: what everybody at the table sees (ids, never cards).
    "who": tuple[int, ...],
    # The hand's number at its table, shown on its messages.
    "number": int,
}


def holds_cards(annotation: object) -> bool:
    if annotation is Card:
        return True
    if is_dataclass(annotation):
        hints = typing.get_type_hints(annotation)
        return any(holds_cards(hints[f.name]) for f in fields(annotation))
    return any(holds_cards(arg) for arg in typing.get_args(annotation))


def test_a_view_has_no_field_for_another_players_cards_or_the_deck() -> None:
    hints = typing.get_type_hints(BotView)
    assert {f.name: hints[f.name] for f in fields(BotView)} == VIEW_FIELDS
    assert [f.name for f in fields(BotView) if holds_cards(hints[f.name])] == ["hole", "board"]
    # What a seat and an action carry is chips, flags and names: never a card.
    for kind in (SeatInfo, Seen):
        nested = typing.get_type_hints(kind)
        assert not any(holds_cards(nested[f.name]) for f in fields(kind)), kind
    assert holds_cards(tuple[SeatInfo, Card])  # the check itself finds a card where there is one
    # A finished hand as the table saw it holds the board and the hands shown, nothing else.
    seen = typing.get_type_hints(HandSeen)
    assert [f.name for f in fields(HandSeen) if holds_cards(seen[f.name])] == ["board", "shown"]


def test_the_cards_a_view_holds_are_the_seats_own_and_the_boards() -> None:
    rng = random.Random(5)
    for _ in range(50):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(HandConfig.standard((200,) * 4, 1, 2), deck)
        while hand.to_act is not None:
            view = view_of(hand, hand.to_act)
            assert view.hole == hand.hole_cards(hand.to_act)
            assert view.board == hand.board
            hand.apply(to_action(make("regular").decide(view, rng), view))


# -- memory: what the strong level remembers is public by construction --------------------------


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    game=st.sampled_from(list(GAMES.values())),
    players=st.integers(2, 6),
    hands=st.integers(2, 6),
    levels=st.lists(st.sampled_from(LEVELS), min_size=6, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_two_sessions_with_equal_public_actions_decide_alike(
    game: Game, players: int, hands: int, levels: list[str], seed: int
) -> None:
    """A session of several hands, then a second one with a fresh strong player whose hands
    are the same in everything the table saw (actions, boards, the hands shown) but whose every
    other card differs: every decision of the second equals the first's, memory and all."""
    config = HandConfig.standard((200,) * players, 1, 2, game=game)
    deals = random.Random(seed)
    ids = list(range(100, 100 + players))  # the strong player is id 100
    first, second = make("strong"), make("strong")
    others = {who: make(level) for who, level in zip(ids[1:], levels, strict=False)}
    for number in range(hands):
        who = ids[number % players :] + ids[: number % players]  # the button moves round
        me = who.index(100)
        deck = tuple(deals.sample(FULL_DECK, 52))
        played = Hand(config, deck)
        views = HandViews(played, who, number)
        decided: list[tuple[int, Decision]] = []
        while (seat := played.to_act) is not None:
            view = views.of(seat)
            bot = first if seat == me else others[who[seat]]
            decision = bot.decide(view, random.Random(f"{seed}:{number}:{len(played.actions)}"))
            if seat == me:
                decided.append((len(played.actions), decision))
            played.apply(to_action(decision, view))
        tell_hand(first, views.ended())
        # The same hand with every card nobody saw moved: folded hands, burns, undealt cards.
        count = game.hole_count
        showing = [i for i in range(players) if not played.folded[i]]
        kept = {i + k * players for i in {me, *showing} for k in range(count)}
        kept |= set(board_positions(players, count)[: len(played.board)])
        moving = [i for i in range(len(deck)) if i not in kept]
        other = list(deck)
        for place, card in zip(moving, [deck[i] for i in moving[1:] + moving[:1]], strict=True):
            other[place] = card
        again = Hand(config, tuple(other))
        views_again = HandViews(again, who, number)
        answers = iter(decided)
        for action in played.actions:
            if again.to_act == me:
                at, decision = next(answers)
                assert at == len(again.actions)
                rng = random.Random(f"{seed}:{number}:{at}")
                assert second.decide(views_again.of(me), rng) == decision
            again.apply(action)
        seen, seen_again = views.ended(), views_again.ended()
        assert seen == seen_again  # the table saw the same hand
        tell_hand(second, seen_again)

"""Named rules of a cash table across hands: RULES.md sections 1, 2 and 8 (dead button, missed
blinds, new players, heads-up transitions, the floor)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TypeVar

import pytest

from engine.cards import FULL_DECK, parse_cards
from engine.errors import EngineError
from engine.hand import Action, ActionKind, AnteKind, ForcedBet, Hand, HandVoided, deck_from_cards
from engine.limits import MAX_CHIPS
from engine.seating import NewPlayerPolicy, PlanKind, PlayerId
from engine.table import (
    BlindMissed,
    BlindsChanged,
    ChipsAdded,
    ChipsReturned,
    HandFinished,
    HandStarted,
    HandVoidedByFloor,
    PlayerBusted,
    PlayerJoined,
    PlayerLeaving,
    PlayerLeft,
    PlayerRemoved,
    PlayerSatIn,
    PlayerState,
    Table,
    TableEvent,
    TableOptions,
    TablePaused,
    TableResumed,
)
from tests.engine.shoving import shove_out

OPTIONS = TableOptions(small_blind=5, big_blind=10)  # buy-in 200 to 1000
T = TypeVar("T")


# --- helpers ------------------------------------------------------------------------------


def make(
    players: Sequence[tuple[int, PlayerId]] | Sequence[tuple[int, PlayerId, int]],
    options: TableOptions = OPTIONS,
    seed: int = 1,
) -> Table:
    table = Table(options, rng=seed)
    for entry in players:
        seat, pid = entry[0], entry[1]
        stack = entry[2] if len(entry) == 3 else 1000  # type: ignore[misc]
        table.join(pid, stack, seat=seat)
    return table


def deal(table: Table, button: int | None = None) -> Hand:
    table.start_hand(FULL_DECK, button=button)
    assert table.hand is not None
    return table.hand


def fold_round(table: Table, button: int | None = None) -> list[TableEvent]:
    """Deal a hand in which everybody folds to the big blind (timeouts); settle it."""
    hand = deal(table, button) if table.hand is None else table.hand
    while not hand.is_over:
        assert hand.to_act is not None
        hand.timeout(hand.to_act)
    return table.finish_hand()


def places(table: Table) -> tuple[int, int | None, int, tuple[int, ...]]:
    """(button, small blind or None, big blind, seats dealt in hand order) of the last hand."""
    plan = table.plan
    assert plan is not None
    return plan.button_seat, plan.small_blind_seat, plan.big_blind_seat, plan.seats


WINNER = "AsAh"
LOSERS = ["2c7d", "2d7h", "2h7s", "2s7c", "8c6d", "8d6h", "8h6s", "8s6c", "4cJd", "4dJh", "4hJs"]
BOARD = "KcQd9h5s3c"  # aces win; nobody else pairs, straightens or flushes


def showdown(
    table: Table,
    winner: PlayerId,
    all_in: Iterable[PlayerId],
    button: int | None = None,
) -> list[TableEvent]:
    """Deal a hand that ``winner`` wins with aces; the ``all_in`` players shove, he calls,
    everybody else folds. Settle it."""
    plan = table.next_plan(button)
    order = [table.seat(s).player_id for s in plan.seats]  # type: ignore[union-attr]
    losers = iter(LOSERS)
    holes = [parse_cards(WINNER if pid == winner else next(losers)) for pid in order]
    deck = deck_from_cards(len(order), holes, parse_cards(BOARD))
    table.start_hand(deck, button=button)
    hand = table.hand
    assert hand is not None
    shovers = set(all_in) | {winner}
    shove_out(hand, order, shovers)
    return table.finish_hand()


def of_type(events: Iterable[object], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def forced(hand: Hand) -> list[tuple[int, str, int]]:
    return [(e.player, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)]


# --- options and joining ------------------------------------------------------------------


def test_options_defaults_and_validation() -> None:
    assert OPTIONS.buy_in_range == (200, 1000)
    assert OPTIONS.seats == 10 and OPTIONS.new_player is NewPlayerPolicy.WAIT_FOR_BB
    assert TableOptions(10, 15).small_blind == 10  # 10/15 is legal
    assert TableOptions.from_json(json.loads(json.dumps(OPTIONS.to_json()))) == OPTIONS
    assert TableOptions(5, 10, seats=23).seats == 23
    bad = [
        (dict(small_blind=10, big_blind=5), "blinds_out_of_order"),
        (dict(small_blind=0, big_blind=10), "bad_option"),
        (dict(small_blind=5, big_blind=10, seats=1), "bad_option"),
        (dict(small_blind=5, big_blind=10, seats=24), "seats_for_game"),  # 24 × 2 + 5 > 52
        (dict(small_blind=5, big_blind=10, ante=1), "bad_option"),  # an ante needs a kind
        (dict(small_blind=5, big_blind=10, chip_unit=2), "amount_not_multiple"),
        (dict(small_blind=5, big_blind=10, min_buy_in=500, max_buy_in=400), "bad_option"),
        (dict(small_blind=True, big_blind=10), "bad_option"),
        # The derived maximum buy-in (100 big blinds) is checked like a given one.
        (dict(small_blind=10**11, big_blind=10**11), "amount_too_large"),
        (dict(small_blind=5, big_blind=10, max_buy_in=10**12 + 1), "amount_too_large"),
    ]
    for kwargs, code in bad:
        with pytest.raises(EngineError) as err:
            TableOptions(**kwargs)  # type: ignore[arg-type]
        assert err.value.code == code, kwargs


def test_join_rules() -> None:
    table = make([(1, "a")])
    for pid, stack, seat, code in [
        ("a", 500, 2, "already_seated"),
        ("b", 500, 1, "seat_taken"),
        ("b", 500, 11, "bad_seat"),
        ("b", 500, 0, "bad_seat"),
        ("b", 100, 2, "buy_in_out_of_range"),
        ("b", 1001, 2, "buy_in_out_of_range"),
        ("b", 500.0, 2, "bad_amount"),
    ]:
        with pytest.raises(EngineError) as err:
            table.join(pid, stack, seat=seat)  # type: ignore[arg-type]
        assert err.value.code == code
    unit = make([], TableOptions(50, 100, chip_unit=25))
    with pytest.raises(EngineError, match="amount_not_multiple"):
        unit.join("a", 2010, seat=1)
    (joined,) = table.join("b", 500, seat=None)
    assert isinstance(joined, PlayerJoined) and joined.seat in range(2, 11)
    assert joined.state is PlayerState.PLAYING  # no hand yet: everybody is dealt in
    full = make([(s, f"p{s}") for s in range(1, 11)])
    with pytest.raises(EngineError, match="table_full"):
        full.join("x", 500)


def test_not_enough_players_and_one_hand_at_a_time() -> None:
    table = make([(1, "a")])
    with pytest.raises(EngineError, match="not_enough_players"):
        table.start_hand(FULL_DECK)
    table.join("b", 1000, seat=2)
    deal(table)
    with pytest.raises(EngineError, match="hand_in_progress"):
        table.start_hand(FULL_DECK)
    with pytest.raises(EngineError, match="hand_not_over"):
        table.finish_hand()
    fold_round(table)
    with pytest.raises(EngineError, match="button_already_placed"):
        table.next_plan(button=1)


def test_first_button_is_drawn_from_the_rng() -> None:
    def first_button(seed: int) -> int:
        table = make([(2, "a"), (4, "b"), (7, "c"), (9, "d")], seed=seed)
        deal(table)
        return table.button_seat or 0

    buttons = [first_button(seed) for seed in range(40)]
    assert buttons == [first_button(seed) for seed in range(40)]  # same seed, same button
    assert set(buttons) == {2, 4, 7, 9}


# --- the button and the blinds ------------------------------------------------------------


def test_button_and_blinds_move_one_seat_each_hand() -> None:
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], TableOptions(5, 10, seats=9))
    fold_round(table, button=1)
    assert places(table) == (1, 3, 5, (3, 5, 7, 1))
    for expected in [(3, 5, 7), (5, 7, 1), (7, 1, 3), (1, 3, 5), (3, 5, 7)]:
        fold_round(table)
        assert places(table)[:3] == expected


def test_positions_map_to_hand_indices() -> None:
    table = make([(2, "a"), (5, "b"), (6, "c"), (9, "d")])
    events = table.start_hand(FULL_DECK, button=5)
    (started,) = of_type(events, HandStarted)
    assert started.seats == (6, 9, 2, 5) and started.players == ("c", "d", "a", "b")
    assert started.small_blind_seat == 6 and started.big_blind_seat == 9
    hand = table.hand
    assert hand is not None
    assert forced(hand) == [(0, "small_blind", 5), (1, "big_blind", 10)]
    assert table.hand_index("a") == 2 and table.hand_index("zz") is None
    assert hand.to_act == 2  # under the gun: left of the big blind


def test_heads_up_button_posts_small_blind_and_acts_first_preflop() -> None:
    table = make([(2, "a"), (6, "b")])
    hand = deal(table, button=2)
    assert places(table) == (2, 2, 6, (6, 2))
    assert hand.config.blinds == (10, 5) and hand.config.big_blind_index == 0
    assert hand.to_act == 1  # the button
    fold_round(table)
    fold_round(table)
    assert places(table) == (6, 6, 2, (2, 6))
    fold_round(table)
    assert places(table) == (2, 2, 6, (6, 2))


def test_three_handed_to_heads_up_when_the_button_leaves() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    fold_round(table, button=1)
    assert places(table) == (1, 2, 3, (2, 3, 1))
    table.leave("a")
    fold_round(table)
    # c had the big blind: now he is the button and posts the small blind, b gets the big blind
    assert places(table) == (3, 3, 2, (2, 3))
    assert table.plan is not None and table.plan.kind is PlanKind.HEADS_UP
    fold_round(table)
    assert places(table) == (2, 2, 3, (3, 2))


def test_three_handed_to_heads_up_when_the_big_blind_busts() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c", 300)])
    events = showdown(table, winner="a", all_in=["c"], button=1)
    assert [e.player_id for e in of_type(events, PlayerBusted)] == ["c"]
    assert table.player("c").state is PlayerState.SITTING_OUT  # type: ignore[union-attr]
    fold_round(table)
    # The big blind moves on to a; b, who had the small blind, is the button and posts it again.
    assert places(table) == (2, 2, 1, (1, 2))


def test_player_busts_in_the_small_blind_three_handed() -> None:
    table = make([(1, "a"), (2, "b", 300), (3, "c")])
    events = showdown(table, winner="c", all_in=["b"], button=1)
    assert [e.player_id for e in of_type(events, PlayerBusted)] == ["b"]
    fold_round(table)
    # c had the big blind and now has the button and the small blind; a gets the big blind.
    assert places(table) == (3, 3, 1, (1, 3))


def test_player_busts_in_the_small_blind_dead_button() -> None:
    table = make([(1, "a"), (2, "b", 300), (3, "c"), (4, "d")])
    showdown(table, winner="c", all_in=["b"], button=1)
    fold_round(table)
    # The button stays on b's empty seat (dead); c posts the small blind, d the big blind,
    # and a, last to act after the flop, does not get to skip anything.
    assert places(table) == (2, 3, 4, (3, 4, 1))
    fold_round(table)
    assert places(table) == (3, 4, 1, (4, 1, 3))


def test_dead_small_blind_when_the_big_blind_leaves() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d")])
    fold_round(table, button=1)
    table.leave("c")
    fold_round(table)
    assert places(table) == (2, None, 4, (4, 1, 2))  # nobody posts a small blind
    fold_round(table)
    assert places(table) == (3, 4, 1, (4, 1, 2))  # dead button on c's empty seat


def test_dead_small_blind_posts_nothing() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d")])
    fold_round(table, button=1)
    table.leave("c")
    hand = deal(table)
    assert forced(hand) == [(0, "big_blind", 10)]
    assert hand.config.big_blind_index == 0 and hand.to_act == 1


def test_heads_up_to_three_handed() -> None:
    table = make([(1, "a"), (5, "b")])
    fold_round(table, button=1)  # a: button and small blind, b: big blind
    table.join("c", 1000, seat=3)  # between b and a, clockwise after the big blind
    table.join("d", 1000, seat=9)  # waits for his big blind
    fold_round(table)
    # The big blind moves from b to the first player sitting in after him: d at seat 9.
    assert places(table) == (1, 5, 9, (5, 9, 1))
    fold_round(table)
    assert places(table) == (5, 9, 1, (9, 1, 5))
    fold_round(table)
    assert places(table) == (9, 1, 3, (1, 3, 5, 9))


def test_nobody_posts_the_big_blind_twice_after_leaving_and_sitting_down_again() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    fold_round(table, button=1)  # c big blind
    table.leave("c")
    table.join("c", 1000, seat=4)  # right after his old seat
    fold_round(table)
    assert table.plan is not None
    assert table.hand_players[table.plan.big_blind_index] != "c"
    assert places(table)[2] == 1


# --- sitting out, missed blinds and new players -----------------------------------------


def test_sitting_out_and_back_between_hands_owes_nothing() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    fold_round(table, button=1)
    table.sit_out("a")
    (back,) = table.sit_in("a")
    assert isinstance(back, PlayerSatIn) and back.state is PlayerState.PLAYING
    assert not back.owes_big_blind and not back.owes_small_blind
    fold_round(table)
    assert "a" in table.hand_players


def test_sitting_out_player_is_skipped_and_owes_the_big_blind() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d")])
    fold_round(table, button=1)
    table.sit_out("d")
    events = fold_round(table)
    assert places(table) == (2, 3, 1, (3, 1, 2))  # the big blind skipped d
    assert [(e.player_id, e.blind) for e in of_type(events, BlindMissed)] == [("d", "big_blind")]
    view = table.player("d")
    assert view is not None and view.owes_big_blind and view.state is PlayerState.SITTING_OUT


def test_back_from_sitting_out_waits_for_the_big_blind() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d")])
    fold_round(table, button=1)
    table.sit_out("d")
    fold_round(table)  # d misses the big blind
    (back,) = table.sit_in("d")
    assert isinstance(back, PlayerSatIn) and back.state is PlayerState.WAITING_FOR_BB
    fold_round(table)
    assert places(table) == (3, 1, 2, (1, 2, 3))
    fold_round(table)
    assert places(table) == (1, 2, 3, (2, 3, 1))
    fold_round(table)  # the big blind reaches him: he is dealt in, owing nothing more
    assert places(table) == (2, 3, 4, (3, 4, 1, 2))
    view = table.player("d")
    assert view is not None and not view.owes_big_blind and view.state is PlayerState.PLAYING


def test_back_from_sitting_out_posts_a_big_blind() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e"), (6, "f")], opts)
    fold_round(table, button=1)  # big blind on c
    table.sit_out("d")
    events = fold_round(table)  # the big blind skips d for e
    assert places(table)[2] == 5
    assert [e.player_id for e in of_type(events, BlindMissed)] == ["d"]
    (back,) = table.sit_in("d")
    assert isinstance(back, PlayerSatIn) and back.state is PlayerState.PLAYING
    fold_round(table)
    # d sits between the button (c) and the big blind (f): he may not come in there.
    assert places(table) == (3, 5, 6, (5, 6, 1, 2, 3))
    hand = deal(table)
    assert places(table) == (5, 6, 1, (6, 1, 2, 3, 4, 5))
    d = table.hand_index("d")
    assert d == 4 and hand.config.blinds[d] == 10 and not hand.config.dead_blinds
    assert (d, "blind", 10) in forced(hand)
    fold_round(table)
    assert not table.player("f").owes_big_blind  # type: ignore[union-attr]


def test_back_from_sitting_out_owing_both_blinds_posts_small_blind_dead() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")], opts)
    fold_round(table, button=1)
    fold_round(table)  # d has the big blind
    assert places(table)[2] == 4
    table.sit_out("d")
    missed: list[tuple[PlayerId, str]] = []
    for _ in range(5):  # his small blind is dead, then the big blind passes him
        missed += [(e.player_id, e.blind) for e in of_type(fold_round(table), BlindMissed)]
    assert missed == [("d", "small_blind"), ("d", "big_blind")]
    assert places(table)[2] == 5
    table.sit_in("d")
    fold_round(table)
    assert "d" not in table.hand_players  # between the button and the big blind
    hand = deal(table)
    d = table.hand_index("d")
    assert d is not None
    assert hand.config.blinds[d] == 10 and hand.config.dead_blinds[d] == 5
    assert (d, "dead_blind", 5) in forced(hand)


def test_back_after_missing_only_the_small_blind_posts_it_dead() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(s, n) for s, n in zip(range(1, 7), "abcdef", strict=True)], opts)
    fold_round(table, button=1)
    fold_round(table)
    assert places(table)[2] == 4  # d
    table.sit_out("d")
    events = fold_round(table)
    assert places(table) == (3, None, 5, (5, 6, 1, 2, 3))
    assert [(e.player_id, e.blind) for e in of_type(events, BlindMissed)] == [("d", "small_blind")]
    table.sit_in("d")
    fold_round(table)
    assert "d" not in table.hand_players  # on the button seat
    hand = deal(table)
    d = table.hand_index("d")
    assert d is not None and hand.config.blinds[d] == 0 and hand.config.dead_blinds[d] == 5


def test_new_player_waits_for_the_big_blind() -> None:
    table = make([(1, "a"), (3, "b"), (5, "c")])
    fold_round(table, button=1)  # big blind on c
    (joined,) = table.join("d", 500, seat=2)
    assert isinstance(joined, PlayerJoined) and joined.state is PlayerState.WAITING_FOR_BB
    events = fold_round(table)  # the big blind goes from c to a
    assert places(table)[2] == 1 and "d" not in table.hand_players
    assert not of_type(events, BlindMissed)  # waiting is not missing
    fold_round(table)  # then to d, next clockwise
    assert places(table)[2] == 2 and "d" in table.hand_players
    assert table.player("d").state is PlayerState.PLAYING  # type: ignore[union-attr]


def test_new_player_posts_a_big_blind_to_play_at_once() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], opts)
    fold_round(table, button=1)  # button a, blinds b and c
    table.join("e", 500, seat=2)  # behind the coming button (b)
    hand = deal(table)
    assert places(table) == (3, 5, 7, (5, 7, 1, 2, 3))
    assert hand.config.blinds == (5, 10, 0, 10, 0) and hand.config.big_blind_index == 1
    hand.call(2)
    legal = hand.legal()  # his posted blind is live: nothing to call, and he may raise
    assert legal is not None and legal.player == 3 and legal.to_call == 0 and legal.can_raise


def test_new_player_cannot_post_on_the_button_or_in_the_blinds() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], opts)
    fold_round(table, button=1)
    table.join("e", 500, seat=4)  # between the coming button (b) and small blind (c)
    table.join("f", 500, seat=2)  # behind the coming button: may post
    table.join("g", 500, seat=6)  # between c and d: gets the big blind by turn
    fold_round(table)
    assert places(table) == (3, 5, 6, (5, 6, 7, 1, 2, 3))
    assert "e" not in table.hand_players
    fold_round(table)
    # button c (5), small blind g (6), big blind d (7); e is behind the button now
    assert places(table) == (5, 6, 7, (6, 7, 1, 2, 3, 4, 5))
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], opts)
    fold_round(table, button=1)
    table.leave("b")
    table.join("h", 500, seat=3)  # on the coming (dead) button seat
    fold_round(table)
    assert places(table) == (3, 5, 7, (5, 7, 1)) and "h" not in table.hand_players


def test_post_policy_waits_instead_of_paying_the_big_blind_twice_running() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (3, "b"), (5, "c")], opts)
    fold_round(table, button=1)  # big blind on c
    table.join("d", 500, seat=2)  # the big blind goes a then d: he would post twice running
    fold_round(table)
    assert places(table)[2] == 1 and "d" not in table.hand_players
    fold_round(table)
    assert places(table)[2] == 2 and "d" in table.hand_players


def test_restart_when_only_one_player_could_be_dealt_in() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    fold_round(table, button=1)
    table.sit_out("a")
    table.sit_out("b")
    with pytest.raises(EngineError, match="not_enough_players"):
        deal(table)
    table.sit_out("c")
    table.join("e", 500, seat=4)
    table.join("f", 500, seat=6)
    # e gets the big blind by turn; f would have to wait for it, but nobody else plays: the
    # game starts again with everyone sitting in.
    fold_round(table)
    assert table.plan is not None and table.plan.kind is PlanKind.RESTART
    assert places(table) == (6, 6, 4, (4, 6))
    assert not table.player("f").owes_big_blind  # type: ignore[union-attr]


def test_sit_out_in_hand_plays_it_out_and_is_skipped_after() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    hand = deal(table, button=1)
    table.sit_out("a")
    assert table.hand_index("a") is not None  # still in this hand
    while not hand.is_over:
        assert hand.to_act is not None
        hand.timeout(hand.to_act)
    table.finish_hand()
    fold_round(table)
    assert "a" not in table.hand_players


# --- chips: top-ups, leaving, busting ----------------------------------------------------


def test_leave_between_hands_returns_the_stack_at_once() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    (left,) = table.leave("b")
    assert isinstance(left, PlayerLeft) and left.chips == 1000 and left.reason == "left"
    assert table.seat(2) is None and table.chips_out == 1000


def test_leave_during_a_hand_happens_when_it_ends() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    hand = deal(table, button=1)
    (leaving,) = table.leave("b")
    assert isinstance(leaving, PlayerLeaving)
    assert table.player("b").state is PlayerState.LEAVING  # type: ignore[union-attr]
    with pytest.raises(EngineError, match="leaving"):
        table.leave("b")
    while not hand.is_over:  # b keeps playing: he wins the blinds when the others fold
        assert hand.to_act is not None
        if hand.to_act == table.hand_index("b"):
            hand.apply(
                Action(
                    ActionKind.CALL if hand.legal().to_call else ActionKind.CHECK,  # type: ignore[union-attr]
                    hand.to_act,
                )
            )
        else:
            hand.timeout(hand.to_act)
    events = table.finish_hand()
    (left,) = of_type(events, PlayerLeft)
    assert left.player_id == "b" and left.chips == hand.stacks[table.hand_players.index("b")]
    assert table.seat_of("b") is None
    assert table.chips_on_table + table.chips_out == table.chips_in == 3000


def test_leave_by_a_player_not_in_the_hand_is_immediate() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    table.sit_out("c")
    deal(table, button=1)
    (left,) = table.leave("c")
    assert isinstance(left, PlayerLeft) and left.chips == 1000


def test_top_up_between_hands_and_limits() -> None:
    table = make([(1, "a", 400), (2, "b")])
    (added,) = table.top_up("a", 300)
    assert isinstance(added, ChipsAdded) and added.stack == 700 and not added.pending
    with pytest.raises(EngineError, match="above_max_buy_in"):
        table.top_up("a", 400)
    with pytest.raises(EngineError, match="bad_amount"):
        table.top_up("a", 0)
    with pytest.raises(EngineError, match="not_seated"):
        table.top_up("zz", 10)
    assert table.chips_in == 1700


def test_a_table_never_holds_more_than_max_chips() -> None:
    """Chips are limited where they come to a table: two full buy-ins of 10**12 would let the
    winner of an all-in hold 2 * 10**12, a stack no hand can be dealt or stored with."""
    huge = TableOptions(small_blind=5 * 10**9, big_blind=10**10)  # buy-in up to 10**12
    table = make([(1, "a", 6 * 10**11)], options=huge)
    before = table.to_json()
    with pytest.raises(EngineError, match="table_chips_full") as refused:
        table.join("b", 6 * 10**11, seat=2)
    assert refused.value.params == {"amount": 6 * 10**11, "maximum": MAX_CHIPS,
                                    "room": 4 * 10**11}
    assert table.to_json() == before
    with pytest.raises(EngineError, match="table_chips_full"):  # one chip past the room
        table.join("b", 4 * 10**11 + 1, seat=2)
    table.join("b", 4 * 10**11, seat=2)  # exactly the room
    with pytest.raises(EngineError, match="table_chips_full"):
        table.top_up("a", 10**10)
    with pytest.raises(EngineError, match="table_chips_full"):
        table.join("c", 2 * 10**11, seat=3)
    assert table.chips_on_table == MAX_CHIPS
    # Everything in: the winner holds every chip of the table, and the next hand deals.
    hand = deal(table, button=1)
    hand.go_all_in(hand.to_act or 0)
    hand.call(hand.to_act or 0)
    assert hand.is_over
    table.finish_hand()
    assert max(v.stack for v in table.seats()) <= MAX_CHIPS
    assert table.chips_on_table == MAX_CHIPS
    if table.can_start():
        deal(table)


def test_top_up_during_a_hand_lands_when_it_ends() -> None:
    table = make([(1, "a", 400), (2, "b", 1000)])
    hand = deal(table, button=1)
    (added,) = table.top_up("a", 600)
    assert isinstance(added, ChipsAdded) and added.pending and added.stack == 1000
    assert hand.config.stacks[table.hand_index("a") or 0] == 400  # the hand is unaffected
    hand.fold(hand.to_act or 0)  # a, the button, folds his small blind
    events = table.finish_hand()
    assert table.player("a").stack == 995  # type: ignore[union-attr]
    assert not of_type(events, ChipsReturned)


def test_top_up_above_the_maximum_after_a_win_is_given_back() -> None:
    table = make([(1, "a", 900), (2, "b", 1000)])
    hand = deal(table, button=1)
    table.top_up("a", 100)  # 900 + 100 = 1000, the maximum
    hand.call(1)  # a, the button, completes his small blind
    hand.raise_to(0, 50)
    hand.call(1)
    hand.check(0)  # flop
    hand.bet(1, 100)
    hand.fold(0)  # a wins 50: 950 behind, and the 100 pending would make 1050
    events = table.finish_hand()
    (back,) = of_type(events, ChipsReturned)
    assert back.amount == 50 and table.player("a").stack == 1000  # type: ignore[union-attr]
    assert table.chips_on_table + table.chips_out == table.chips_in


def test_busted_cash_player_sits_out_and_may_top_up() -> None:
    table = make([(1, "a"), (2, "b", 300), (3, "c")])
    events = showdown(table, winner="a", all_in=["b"], button=1)
    (busted,) = of_type(events, PlayerBusted)
    assert busted.player_id == "b" and busted.starting_stack == 300
    view = table.player("b")
    assert view is not None and view.stack == 0 and view.state is PlayerState.SITTING_OUT
    with pytest.raises(EngineError, match="no_chips"):
        table.sit_in("b")
    with pytest.raises(EngineError, match="below_min_buy_in"):
        table.top_up("b", 100)
    table.top_up("b", 500)
    table.sit_in("b")  # no hand passed: he owes nothing
    fold_round(table)
    assert "b" in table.hand_players


def test_chips_are_conserved_through_a_session() -> None:
    table = make([(1, "a"), (2, "b", 300), (3, "c")])
    showdown(table, winner="c", all_in=["b"], button=1)
    table.top_up("b", 400)
    table.join("d", 800, seat=5)
    fold_round(table)
    table.leave("a")
    fold_round(table)
    total_in = 3 * 1000 - 700 + 400 + 800
    assert table.chips_in == total_in
    assert table.chips_on_table + table.chips_out == total_in


# --- antes, seats, events -----------------------------------------------------------------


def test_antes_per_player_and_big_blind_ante() -> None:
    per = make([(1, "a"), (2, "b"), (3, "c")], TableOptions(5, 10, 2, AnteKind.PER_PLAYER))
    assert deal(per, button=1).config.antes == (2, 2, 2)
    bba = make([(1, "a"), (2, "b"), (3, "c")], TableOptions(5, 10, 10, AnteKind.BIG_BLIND))
    hand = deal(bba, button=1)
    assert hand.config.antes == (0, 10, 0) and hand.config.ante_kind is AnteKind.BIG_BLIND


def test_big_tables() -> None:
    # 23 seats is the ceiling; with a burn before every street a hand deals at most 22 players.
    table = make([(s, s) for s in range(1, 23)], TableOptions(5, 10, seats=23))
    hand = deal(table, button=22)
    assert len(hand.config.stacks) == 22 and places(table)[1:3] == (1, 2)
    fold_round(table)
    fold_round(table)
    assert places(table)[:3] == (1, 2, 3)


def test_every_event_is_json() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c", 300)])
    events: list[TableEvent] = []
    events += showdown(table, winner="a", all_in=["c"], button=1)
    events += table.pause(by="host")
    events += table.resume(by="host")
    events += table.change_blinds(10, 20, by="host")
    events += table.join("d", 500, seat=4)
    events += table.start_hand(FULL_DECK)
    events += table.top_up("a", 10)
    events += table.void_hand(by="host")
    events += table.sit_out("b")
    events += table.sit_in("b")
    events += table.remove("d", by="host")
    types = {e.to_json()["type"] for e in events}
    assert {
        "hand_started",
        "hand_finished",
        "player_busted",
        "table_paused",
        "table_resumed",
        "blinds_changed",
        "player_joined",
        "chips_added",
        "hand_voided_by_floor",
        "player_sat_out",
        "player_sat_in",
        "player_removed",
        "player_left",
    } <= types
    for e in events:
        data = json.loads(json.dumps(e.to_json()))
        assert data["type"] == e.type


# --- the floor ----------------------------------------------------------------------------


def test_floor_pause_and_resume() -> None:
    table = make([(1, "a"), (2, "b")])
    (paused,) = table.pause(by="host")
    assert isinstance(paused, TablePaused) and paused.by == "host" and table.paused
    with pytest.raises(EngineError, match="table_paused"):
        table.start_hand(FULL_DECK)
    with pytest.raises(EngineError, match="already_paused"):
        table.pause()
    (resumed,) = table.resume()
    assert isinstance(resumed, TableResumed) and not table.paused
    deal(table)


def test_floor_pause_during_a_hand_lets_it_finish() -> None:
    table = make([(1, "a"), (2, "b")])
    hand = deal(table, button=1)
    table.pause()
    fold_round(table)
    assert hand.is_over and table.hand is None
    assert not table.can_start()


def test_floor_changes_blinds_from_the_next_hand() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    hand = deal(table, button=1)
    (changed,) = table.change_blinds(25, 50, by="host")
    assert isinstance(changed, BlindsChanged) and changed.from_hand == 2
    assert hand.config.big_blind == 10
    fold_round(table)
    hand = deal(table)
    assert hand.config.big_blind == 50 and sorted(hand.config.blinds) == [0, 25, 50]
    with pytest.raises(EngineError, match="blinds_out_of_order"):
        table.change_blinds(60, 50)


def test_floor_removes_a_player_after_the_hand() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c")])
    deal(table, button=1)
    removed = table.remove("b", by="host")
    assert [type(e) for e in removed] == [PlayerRemoved, PlayerLeaving]
    assert isinstance(removed[0], PlayerRemoved) and removed[0].deferred
    events = fold_round(table)
    (left,) = of_type(events, PlayerLeft)
    assert left.player_id == "b" and left.reason == "removed" and left.chips > 0
    removed = table.remove("c")
    assert [type(e) for e in removed] == [PlayerRemoved, PlayerLeft]


def test_floor_voids_the_hand_in_progress() -> None:
    table = make([(1, "a"), (2, "b"), (3, "c"), (4, "d")])
    fold_round(table, button=1)
    before = {v.player_id: v.stack for v in table.seats()}
    hand = deal(table)
    assert places(table)[:3] == (2, 3, 4)
    hand.call(hand.to_act or 0)
    hand.raise_to(hand.to_act or 0, 40)
    events = table.void_hand(by="host")
    (voided,) = of_type(events, HandVoidedByFloor)
    assert (
        voided.by == "host" and voided.hand_number == 2 and sum(voided.refunds) == 5 + 10 + 10 + 40
    )
    assert of_type(hand.events, HandVoided)
    (finished,) = of_type(events, HandFinished)
    assert finished.voided and table.hand is None
    assert {v.player_id: v.stack for v in table.seats()} == before
    # The button does not move after a voided hand: the same hand is dealt again.
    deal(table)
    assert places(table)[:3] == (2, 3, 4) and table.hand_number == 3
    with pytest.raises(EngineError, match="no_hand"):
        Table(OPTIONS).void_hand()


def test_void_keeps_missed_blinds_and_debts_as_they_were() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], opts)
    fold_round(table, button=1)
    table.join("e", 500, seat=8)
    table.sit_out("d")
    deal(table)
    assert "e" in table.hand_players
    events = table.void_hand()
    assert not of_type(events, BlindMissed)
    e, d = table.player("e"), table.player("d")
    assert e is not None and e.owes_big_blind
    assert d is not None and not d.owes_big_blind


# --- persistence --------------------------------------------------------------------------


def test_table_state_round_trips_through_json_between_and_during_hands() -> None:
    opts = TableOptions(5, 10, new_player=NewPlayerPolicy.POST_BB)
    table = make([(1, "a"), (3, "b"), (5, "c"), (7, "d")], opts)
    fold_round(table, button=1)
    table.sit_out("d")
    fold_round(table)
    table.join("e", 500, seat=8)
    data = json.loads(json.dumps(table.to_json()))
    copy = Table.from_json(data, rng=9)
    assert copy.to_json() == data and copy.seats() == table.seats()
    assert copy.next_plan() == table.next_plan()
    # In the middle of a hand: the hand comes back replayed from its config, deck and actions.
    hand = deal(table)
    hand.call(hand.to_act or 0)
    table.leave("a")
    table.top_up("e", 100)
    data = json.loads(json.dumps(table.to_json()))
    with pytest.raises(EngineError, match="bad_table_state"):
        Table.from_json(data)
    replayed = Hand.replay(hand.config, hand.deck, hand.actions)
    copy = Table.from_json(data, hand=replayed)
    assert copy.hand is replayed and copy.hand_players == table.hand_players
    for h in (hand, replayed):
        while not h.is_over:
            h.timeout(h.to_act or 0)
    assert [e.to_json() for e in copy.finish_hand()] == [e.to_json() for e in table.finish_hand()]
    assert copy.to_json() == table.to_json()
    with pytest.raises(EngineError, match="bad_table_state"):
        Table.from_json({})
    with pytest.raises(EngineError, match="bad_option"):
        Table.from_json({"options": {}})

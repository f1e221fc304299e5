"""Named rules of RULES.md sections 2-6 on single hands."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.errors import EngineError
from engine.hand import (
    Action,
    ActionKind,
    ActionTaken,
    AnteKind,
    BetReturned,
    ForcedBet,
    Hand,
    HandConfig,
    HandMucked,
    HandShown,
    PotAwarded,
    PreAction,
    ReopenMode,
    Street,
    StreetDealt,
)
from tests.engine.helpers import rigged

DRY = "8h7d9cJs3s"


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    cfg = HandConfig.standard((1000, 1000), 5, 10)
    hand = rigged(cfg, [None, None], DRY)
    posts = [e for e in hand.events if isinstance(e, ForcedBet)]
    assert [(e.player, e.kind, e.amount) for e in posts] == [
        (0, "big_blind", 10),
        (1, "small_blind", 5),
    ]
    assert hand.to_act == 1
    hand.call(1)
    assert hand.to_act == 0  # big blind option
    hand.check(0)
    assert hand.street is Street.FLOP and hand.to_act == 0


def test_unequal_blinds_ten_fifteen() -> None:
    cfg = HandConfig.standard((1000,) * 3, 10, 15)
    hand = rigged(cfg, [None] * 3, DRY)
    legal = hand.legal()
    assert legal is not None and legal.to_call == 15 and legal.min_raise_to == 30


def test_big_blind_option_to_raise_when_limped() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    hand.call(2)
    hand.call(0)
    legal = hand.legal()
    assert legal is not None and legal.player == 1 and legal.to_call == 0 and legal.can_raise
    hand.raise_to(1, 40)
    assert hand.street is Street.PREFLOP and hand.to_act == 2


def test_big_blind_ante_fills_blind_first() -> None:
    # BB has 150: blind 100 first, then 50 of the 100 ante.
    cfg = HandConfig.standard((1000, 150, 1000), 50, 100, ante_kind=AnteKind.BIG_BLIND, ante=100)
    hand = rigged(cfg, [None] * 3, DRY)
    posts = [(e.player, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)]
    assert posts == [(0, "small_blind", 50), (1, "big_blind", 100), (1, "ante", 50)]
    assert hand.all_in[1]


def test_per_player_ante_posted_before_blind() -> None:
    cfg = HandConfig.standard((1000, 30, 1000), 10, 20, ante_kind=AnteKind.PER_PLAYER, ante=15)
    hand = rigged(cfg, [None] * 3, DRY)
    posts = [(e.player, e.kind, e.amount) for e in hand.events if isinstance(e, ForcedBet)]
    assert (1, "ante", 15) in posts and (1, "big_blind", 15) in posts


def test_short_blind_posts_what_he_has_and_is_all_in() -> None:
    cfg = HandConfig.standard((3, 1000, 1000), 5, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    assert hand.all_in[0] and hand.bets[0] == 3


def test_uncalled_bet_returned() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    hand.raise_to(2, 300)
    hand.fold(0)
    hand.fold(1)
    returned = [e for e in hand.events if isinstance(e, BetReturned)]
    assert returned == [BetReturned(2, 290)]
    assert hand.stacks == [995, 990, 1015]


def test_all_in_for_less_than_a_call() -> None:
    cfg = HandConfig.standard((1000, 1000, 40), 5, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    hand.raise_to(2, 40)  # all-in
    hand.raise_to(0, 200)
    hand.call(1)
    assert hand.street is Street.FLOP
    assert [p.amount for p in hand.pots()] == [120, 320]


def test_run_out_when_no_one_can_bet_and_hands_tabled_first() -> None:
    cfg = HandConfig.standard((500, 1000, 1000), 5, 10)
    hand = rigged(cfg, ["AsAd", "KsKd", "2c3d"], DRY)
    hand.fold(2)
    hand.go_all_in(0)
    hand.call(1)
    assert hand.is_over
    kinds = [type(e).__name__ for e in hand.events]
    first_street = kinds.index("StreetDealt")
    shown_at = [i for i, k in enumerate(kinds) if k == "HandShown"]
    assert len(shown_at) == 2 and max(shown_at) < first_street
    assert hand.stacks == [1000, 500, 1000]


def test_lone_player_with_chips_gets_no_pointless_decision() -> None:
    # UTG all-in below the big blind, the small blind folds: BB has matched, nobody can respond.
    cfg = HandConfig.standard((1000, 1000, 60), 50, 100)
    hand = rigged(cfg, [None] * 3, DRY)
    hand.go_all_in(2)
    hand.fold(0)
    assert hand.is_over


def test_showdown_order_last_river_aggressor_first_and_losers_muck() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["2c4d", "AsAh", "KsKh"], DRY)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    for _ in range(2):
        for p in (0, 1, 2):
            hand.check(p)
    hand.check(0)
    hand.check(1)
    hand.bet(2, 50)
    hand.call(0)
    hand.call(1)
    shows = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    # Player 2 bet last and shows first; 0 cannot beat kings and mucks; 1 shows aces.
    assert [(type(e).__name__, e.player) for e in shows] == [
        ("HandShown", 2),
        ("HandMucked", 0),
        ("HandShown", 1),
    ]
    assert hand.result is not None and hand.result.shown == (1, 2)


def test_checked_river_shows_from_left_of_button() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["KsKh", "AsAh", "2c4d"], DRY)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    for _ in range(3):
        for p in (0, 1, 2):
            hand.check(p)
    shows = [
        (type(e).__name__, e.player) for e in hand.events if isinstance(e, HandShown | HandMucked)
    ]
    assert shows == [("HandShown", 0), ("HandShown", 1), ("HandMucked", 2)]


def test_player_who_asked_to_show_is_not_mucked() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["KsKh", "AsAh", "2c4d"], DRY)
    hand.show(2)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    for _ in range(3):
        for p in (0, 1, 2):
            hand.check(p)
    assert hand.result is not None and 2 in hand.result.shown


def test_win_without_showdown_shows_nothing_unless_chosen() -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["KsKh", "AsAh", "2c4d"], DRY)
    hand.raise_to(2, 100)
    hand.fold(0)
    hand.fold(1)
    assert hand.result is not None and hand.result.shown == ()
    assert all(p["cards"] is None for p in hand.snapshot()["players"])
    with pytest.raises(EngineError) as err:
        hand.show(0)
    assert err.value.code == "cannot_show_folded"
    events = hand.show(2)
    assert isinstance(events[0], HandShown) and events[0].player == 2
    assert hand.snapshot()["players"][2]["cards"] == ["2c", "4d"]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Action(ActionKind.FOLD, 0), "not_your_turn"),
        (Action(ActionKind.CHECK, 2), "cannot_check"),
        (Action(ActionKind.RAISE, 2, -20), "amount_not_positive"),
        (Action(ActionKind.RAISE, 2, 0), "amount_not_positive"),
        (Action(ActionKind.RAISE, 2, 25.5), "amount_not_integer"),  # type: ignore[arg-type]
        (Action(ActionKind.RAISE, 2, 40.0), "amount_not_integer"),  # type: ignore[arg-type]
        (Action(ActionKind.RAISE, 2, True), "amount_not_integer"),  # type: ignore[arg-type]
        (Action(ActionKind.RAISE, 2, 10**30), "amount_above_stack"),
        (Action(ActionKind.RAISE, 2, 15), "amount_below_minimum"),
        (Action(ActionKind.RAISE, 2), "amount_missing"),
        (Action(ActionKind.CALL, 2, 10), "amount_not_expected"),
        (Action(ActionKind.CALL, True), "bad_player"),  # type: ignore[arg-type]
        (Action(ActionKind.CALL, 7), "bad_player"),
    ],
)
def test_illegal_input_is_refused_with_a_code_and_changes_nothing(
    action: Action, code: str
) -> None:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    before = hand.state_key()
    with pytest.raises(EngineError) as err:
        hand.apply(action)
    assert err.value.code == code
    assert hand.state_key() == before


def test_amount_must_be_a_multiple_of_the_chip_unit() -> None:
    cfg = HandConfig.standard((1000,) * 3, 25, 50, chip_unit=25)
    hand = rigged(cfg, [None] * 3, DRY)
    with pytest.raises(EngineError) as err:
        hand.raise_to(2, 110)
    assert err.value.code == "amount_not_multiple"
    hand.raise_to(2, 125)


def test_act_after_the_end_is_refused() -> None:
    cfg = HandConfig.standard((1000, 1000), 5, 10)
    hand = rigged(cfg, [None] * 2, DRY)
    hand.fold(1)
    for action in (
        Action(ActionKind.CHECK, 0),
        Action(ActionKind.VOID),
        Action(ActionKind.PRESELECT, 0, pre=PreAction.FOLD),
    ):
        with pytest.raises(EngineError) as err:
            hand.apply(action)
        assert err.value.code == "hand_over"


# --- pre-selected actions (TDA 53) -------------------------------------------------------


def _three_way():
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    return rigged(cfg, [None] * 3, DRY)


def test_preselected_call_dropped_when_the_bet_changes() -> None:
    hand = _three_way()
    hand.preselect(1, PreAction.CALL_ANY)
    hand.preselect(0, PreAction.CALL)  # calls 10 if nothing changes
    hand.raise_to(2, 40)
    # SB's "call" was for 10; the bet changed, so he decides again.
    assert hand.to_act == 0
    hand.call(0)
    # BB's call-any has already been carried out? No: it is his turn only now.
    autos = [e for e in hand.events if isinstance(e, ActionTaken) and e.auto == "preselect"]
    assert [(e.player, e.kind) for e in autos] == [(1, ActionKind.CALL)]
    assert hand.street is Street.FLOP


def test_preselected_check_fold_checks_when_free_and_folds_otherwise() -> None:
    hand = _three_way()
    hand.call(2)
    hand.call(0)
    hand.check(1)
    hand.preselect(1, PreAction.CHECK_FOLD)
    hand.preselect(2, PreAction.CHECK_FOLD)
    events = hand.check(0)
    autos = [(e.player, e.kind) for e in events if isinstance(e, ActionTaken) and e.auto]
    assert autos == [(1, ActionKind.CHECK), (2, ActionKind.CHECK)]
    assert hand.street is Street.TURN
    hand.preselect(1, PreAction.CHECK_FOLD)
    events = hand.bet(0, 20)
    autos = [(e.player, e.kind) for e in events if isinstance(e, ActionTaken) and e.auto]
    assert autos == [(1, ActionKind.FOLD)]


def test_preselected_fold_stands_even_when_checking_is_free() -> None:
    hand = _three_way()
    hand.call(2)
    hand.preselect(1, PreAction.FOLD)
    events = hand.call(0)
    assert any(
        isinstance(e, ActionTaken) and e.player == 1 and e.kind is ActionKind.FOLD for e in events
    )


def test_preselected_check_is_carried_out_only_if_nothing_changed() -> None:
    hand = _three_way()
    hand.call(2)
    hand.call(0)
    hand.check(1)
    hand.preselect(2, PreAction.CHECK)
    hand.bet(0, 10)
    hand.call(1)
    assert hand.to_act == 2  # his check was dropped: he faces a bet now


def test_preselect_rules() -> None:
    hand = _three_way()
    with pytest.raises(EngineError) as err:
        hand.preselect(2, PreAction.FOLD)
    assert err.value.code == "preselect_on_turn"
    with pytest.raises(EngineError) as err:
        hand.preselect(0, PreAction.CHECK)
    assert err.value.code == "cannot_check"
    hand.preselect(0, PreAction.FOLD)
    hand.clear_preselect(0)
    hand.call(2)
    assert hand.to_act == 0


def test_timeout_checks_when_free_else_folds() -> None:
    hand = _three_way()
    events = hand.timeout(2)
    assert isinstance(events[0], ActionTaken) and events[0].kind is ActionKind.FOLD
    assert events[0].auto == "timeout"
    hand.call(0)
    events = hand.timeout(1)
    assert isinstance(events[0], ActionTaken) and events[0].kind is ActionKind.CHECK


def test_dead_small_blind_is_pooled_into_main_pot() -> None:
    cfg = HandConfig(
        stacks=(1000, 1000, 1000),
        blinds=(10, 0, 0),
        antes=(0, 0, 0),
        big_blind=10,
        big_blind_index=0,
        dead_blinds=(0, 0, 5),
    )
    hand = rigged(cfg, [None] * 3, DRY)
    assert hand.to_act == 1
    hand.fold(1)
    hand.fold(2)
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert sum(a.amount for a in awards) == 5  # his own blind came back uncalled
    assert hand.stacks == [1005, 1000, 995]
    assert not any(isinstance(e, StreetDealt) for e in hand.events)


def test_bad_config_is_refused() -> None:
    for kwargs in (
        {"stacks": (1000,)},
        {"stacks": (0, 100)},
        {"stacks": (100, -1)},
        {"big_blind": 0},
        {"big_blind_index": 5},
    ):
        base = {
            "stacks": (1000, 1000),
            "blinds": (10, 5),
            "antes": (0, 0),
            "big_blind": 10,
            "big_blind_index": 0,
        }
        base.update(kwargs)
        if len(base["stacks"]) != 2:  # type: ignore[arg-type]
            base["blinds"] = (0,) * len(base["stacks"])  # type: ignore[arg-type]
            base["antes"] = base["blinds"]
        with pytest.raises(EngineError) as err:
            HandConfig(**base)  # type: ignore[arg-type]
        assert err.value.code == "bad_config"


def test_twenty_three_players_are_dealt_without_burns() -> None:
    from engine.cards import FULL_DECK
    from engine.hand import Hand

    hand = Hand(HandConfig.standard((1000,) * 23, 5, 10), FULL_DECK)
    for p in range(2, 23):
        hand.call(p)
    hand.call(0)
    hand.check(1)
    assert hand.board == FULL_DECK[46:49]
    holes = {c for i in range(23) for c in hand.hole_cards(i)}
    assert len(holes) == 46 and not holes & set(hand.board)


def test_small_blind_equal_to_big_blind_is_still_the_small_blind() -> None:
    cfg = HandConfig.standard((1000,) * 3, 10, 10)
    hand = rigged(cfg, [None] * 3, DRY)
    posts = [(e.player, e.kind) for e in hand.events if isinstance(e, ForcedBet)]
    assert posts == [(0, "small_blind"), (1, "big_blind")]


# --- RULES 6, order of showing, on every street pattern ------------------------------------
# Three players: index 0 is the small blind (first left of the button), 1 the big blind and 2
# the button. Everyone sees the flop for 10; one player bets 20 on ``street`` and the others
# call; every other decision is a check. Hands: 1 holds aces, 0 kings, 2 deuce-four (no pair on
# this board), so 2 can never win and is mucked unless he must show first.


def _play_to_showdown(bet_street: str | None, bettor: int) -> list[tuple[str, int]]:
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["KsKh", "AsAh", "2c4d"], DRY)
    if bet_street == "preflop":
        # Pre-flop the bet is a raise to 30 by ``bettor``; the others call.
        order = [2, 0, 1]
        for p in order:
            if p == bettor:
                hand.raise_to(p, 30)
            else:
                hand.call(p) if hand.legal().to_call else hand.check(p)  # type: ignore[union-attr]
        while hand.street is Street.PREFLOP:
            p = hand.to_act
            assert p is not None
            hand.call(p)
    else:
        hand.call(2)
        hand.call(0)
        hand.check(1)
    for street in ("flop", "turn", "river"):
        assert hand.street.value == street
        betting = bet_street == street
        for p in (0, 1, 2):
            if betting and p == bettor:
                hand.bet(p, 20)
            elif betting and hand.legal() is not None and hand.legal().to_call:  # type: ignore[union-attr]
                hand.call(p)
            else:
                hand.check(p)
        # Players before the bettor were asked again: they call.
        while hand.street.value == street and hand.to_act is not None:
            hand.call(hand.to_act)
    assert hand.is_over
    return _shows(hand)


def _shows(hand: Hand) -> list[tuple[str, int]]:
    return [
        (type(e).__name__, e.player) for e in hand.events if isinstance(e, HandShown | HandMucked)
    ]


@pytest.mark.parametrize("bettor", [0, 1, 2])
@pytest.mark.parametrize("bet_street", [None, "preflop", "flop", "turn"])
def test_a_checked_river_shows_from_the_left_of_the_button(
    bet_street: str | None, bettor: int
) -> None:
    """Whoever bet on an earlier street, a river checked through shows from seat left of the
    button (the small blind here): his kings, then the aces; the deuce-four is mucked."""
    shows = _play_to_showdown(bet_street, bettor)
    assert shows == [("HandShown", 0), ("HandShown", 1), ("HandMucked", 2)]


@pytest.mark.parametrize("bettor", [0, 1, 2])
def test_a_river_bet_shows_first(bettor: int) -> None:
    shows = _play_to_showdown("river", bettor)
    first = shows[0]
    assert first == ("HandShown", bettor)
    # Then clockwise; a hand that cannot win any more is mucked, aces are always shown.
    assert ("HandShown", 1) in shows
    if bettor != 2:
        assert ("HandMucked", 2) in shows


def test_the_flop_bettor_does_not_show_first_after_checked_streets() -> None:
    """The reported case: the button raises pre-flop, both blinds call; on the flop the button
    bets and the big blind calls (the small blind folds); turn and river are checked. The big
    blind shows first; the button shows only if he can win."""
    cfg = HandConfig.standard((1000,) * 3, 5, 10)
    hand = rigged(cfg, ["7c2d", "QsQh", "4c4h"], DRY)  # the big blind's queens beat fours
    hand.raise_to(2, 30)
    hand.call(0)
    hand.call(1)
    hand.check(0)
    hand.check(1)
    hand.bet(2, 20)
    hand.fold(0)
    hand.call(1)
    for _ in range(2):
        hand.check(1)
        hand.check(2)
    assert _shows(hand) == [("HandShown", 1), ("HandMucked", 2)]
    assert hand.result is not None and hand.result.shown == (1,)


def test_all_in_before_the_river_tables_every_hand_at_once() -> None:
    cfg = HandConfig.standard((1000, 1000, 1000), 5, 10)
    hand = rigged(cfg, ["KsKh", "AsAh", "2c4d"], DRY)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    hand.bet(0, 990)  # all-in on the flop
    hand.call(1)
    hand.call(2)
    kinds = [type(e).__name__ for e in hand.events]
    turn = max(i for i, k in enumerate(kinds) if k == "StreetDealt")
    shown = [i for i, k in enumerate(kinds) if k == "HandShown"]
    # Every live hand is face up before the turn and river are dealt; nobody mucks.
    assert len(shown) == 3 and "HandMucked" not in kinds
    assert all(i < turn for i in shown)


# --- dead money belongs to the main pot, not to a side pot (RULES 5) ------------------------
# Each hand below has a main pot and a side pot with different winners, so chips put into the
# wrong pot change who gets them.


def test_dead_small_blind_goes_to_the_main_pot_beside_a_side_pot() -> None:
    # Player 3 comes back owing the small blind and posts it dead (5). UTG is all-in for 40,
    # player 3 raises to 100, the small blind folds, the big blind calls; then checked down.
    cfg = HandConfig(
        stacks=(1000, 1000, 40, 1000),
        blinds=(5, 10, 0, 0),
        antes=(0, 0, 0, 0),
        big_blind=10,
        big_blind_index=1,
        dead_blinds=(0, 0, 0, 5),
    )
    hand = rigged(cfg, ["7c2d", "KsKh", "AsAh", "QsQh"], DRY)
    hand.go_all_in(2)
    hand.raise_to(3, 100)
    hand.fold(0)
    hand.call(1)
    while hand.to_act is not None:
        hand.check(hand.to_act)
    awards = [(a.amount, a.eligible, a.shares) for a in hand.events if isinstance(a, PotAwarded)]
    # Main: 5 (the folded small blind) + 3 x 40 + the dead 5; side: 2 x 60, which UTG's chips
    # never reached.
    assert awards == [(130, (1, 2, 3), ((2, 130),)), (120, (1, 3), ((1, 120),))]
    assert hand.stacks == [995, 1020, 130, 895]


def test_big_blind_ante_goes_to_the_main_pot_beside_a_side_pot() -> None:
    # 5/10 with a big blind ante of 10. UTG is all-in for 50, the button raises to 200, the
    # small blind folds, the big blind calls; then checked down.
    cfg = HandConfig.standard(
        (1000, 1000, 50, 1000), 5, 10, ante_kind=AnteKind.BIG_BLIND, ante=10
    )
    hand = rigged(cfg, ["7c2d", "KsKh", "AsAh", "QsQh"], DRY)
    hand.go_all_in(2)
    hand.raise_to(3, 200)
    hand.fold(0)
    hand.call(1)
    while hand.to_act is not None:
        hand.check(hand.to_act)
    awards = [(a.amount, a.eligible, a.shares) for a in hand.events if isinstance(a, PotAwarded)]
    # Main: 5 + 3 x 50 + the ante 10; side: 2 x 150.
    assert awards == [(165, (1, 2, 3), ((2, 165),)), (300, (1, 3), ((1, 300),))]
    assert hand.stacks == [995, 1090, 165, 800]


def test_per_player_antes_are_layered_like_bets_beside_a_side_pot() -> None:
    # Per-player antes of 10 count in each contribution: UTG, all-in for 30 with his ante,
    # can win 4 x 10 of antes + what he matched, never the antes beyond.
    cfg = HandConfig.standard(
        (1000, 1000, 30, 1000), 5, 10, ante_kind=AnteKind.PER_PLAYER, ante=10
    )
    hand = rigged(cfg, ["7c2d", "KsKh", "AsAh", "QsQh"], DRY)
    assert hand.all_in[2] is False and hand.bets[2] == 0
    hand.go_all_in(2)  # 20 more after his ante
    hand.raise_to(3, 100)
    hand.fold(0)
    hand.call(1)
    while hand.to_act is not None:
        hand.check(hand.to_act)
    awards = [(a.amount, a.eligible, a.shares) for a in hand.events if isinstance(a, PotAwarded)]
    # Contributions 15, 110, 30, 110: main 15 x 4 + 15 x 3 = 105, side 80 x 2 = 160.
    assert awards == [(105, (1, 2, 3), ((2, 105),)), (160, (1, 3), ((1, 160),))]


# --- re-opening the betting (RULES 4, beyond E9) --------------------------------------------
# 5/10; index 0 small blind, 1 big blind, 2 UTG, then one player per stack in ``shoves``, then
# the button. UTG raises to 30 (a full raise of 20), each of ``shoves`` goes all-in in turn,
# the button calls, the blinds fold: the action is back on UTG, who acted at 30.


def _after_shoves(mode: ReopenMode, shoves: Sequence[int]) -> Hand:
    stacks = (1000, 1000, 1000, *shoves, 1000)
    cfg = HandConfig.standard(stacks, 5, 10, reopen=mode)
    hand = rigged(cfg, [None] * len(stacks), DRY)
    hand.raise_to(2, 30)
    for player in range(3, 3 + len(shoves)):
        hand.go_all_in(player)
    hand.call(len(stacks) - 1)
    hand.fold(0)
    hand.fold(1)
    return hand


def _reopened_for_utg(hand: Hand) -> bool:
    legal = hand.legal()
    assert legal is not None and legal.player == 2 and legal.to_call == max(hand.bets) - 30
    assert legal.raise_closed is not legal.can_raise
    if legal.can_raise:
        # The minimum raise is still the last full raise (20), whatever re-opened it.
        assert legal.min_raise_to == max(hand.bets) + 20
    else:
        with pytest.raises(EngineError) as err:
            hand.raise_to(2, max(hand.bets) + 20)
        assert err.value.code == "raise_not_reopened"
    return legal.can_raise


@pytest.mark.parametrize("mode", list(ReopenMode))
def test_an_exact_minimum_raise_reopens_in_every_mode(mode: ReopenMode) -> None:
    # An all-in to 50 raises by 20, exactly the last full raise: it is a full raise itself.
    assert _reopened_for_utg(_after_shoves(mode, [50]))


@pytest.mark.parametrize(
    ("mode", "reopened"),
    [(ReopenMode.TDA, False), (ReopenMode.STRICT, False), (ReopenMode.HALF, True)],
)
def test_one_chip_short_of_a_full_raise(mode: ReopenMode, reopened: bool) -> None:
    # All-in to 49: 19, one chip short of 20. Only ``half`` (at least half a raise) re-opens.
    assert _reopened_for_utg(_after_shoves(mode, [49])) is reopened


@pytest.mark.parametrize(
    ("mode", "shoves", "reopened"),
    [
        # Two short all-ins of 10 add up to exactly a full raise since UTG acted: tda re-opens,
        # strict never adds them up, and each is half a raise for ``half``.
        (ReopenMode.TDA, [40, 50], True),
        (ReopenMode.STRICT, [40, 50], False),
        (ReopenMode.HALF, [40, 50], True),
        # 10 + 9: one chip short of a full raise in total.
        (ReopenMode.TDA, [40, 49], False),
        (ReopenMode.STRICT, [40, 49], False),
        # Three of 7 (21 in all): tda adds them up; ``half`` does not, none is half a raise.
        (ReopenMode.TDA, [37, 44, 51], True),
        (ReopenMode.STRICT, [37, 44, 51], False),
        (ReopenMode.HALF, [37, 44, 51], False),
    ],
)
def test_short_all_ins_adding_up(mode: ReopenMode, shoves: list[int], reopened: bool) -> None:
    assert _reopened_for_utg(_after_shoves(mode, shoves)) is reopened


@pytest.mark.parametrize(
    ("mode", "reopened"),
    [(ReopenMode.TDA, False), (ReopenMode.STRICT, False), (ReopenMode.HALF, True)],
)
def test_half_a_raise_exactly(mode: ReopenMode, reopened: bool) -> None:
    # All-in to 40: 10, exactly half the last full raise; 9 is less than half in every mode.
    assert _reopened_for_utg(_after_shoves(mode, [40])) is reopened
    assert not _reopened_for_utg(_after_shoves(mode, [39]))


@pytest.mark.parametrize("mode", list(ReopenMode))
def test_a_full_raise_after_short_all_ins_reopens_in_every_mode(mode: ReopenMode) -> None:
    # 7, then a full raise of 25 (to 62): whatever came before, one full raise re-opens, and
    # the minimum raise becomes 25.
    hand = _after_shoves(mode, [37, 62])
    legal = hand.legal()
    assert legal is not None and legal.player == 2 and legal.can_raise
    assert legal.min_raise_to == 62 + 25


@pytest.mark.parametrize("mode", list(ReopenMode))
def test_a_short_all_in_is_closed_to_whoever_acted_after_the_last_raise(mode: ReopenMode) -> None:
    # UTG raises to 30, player 3 calls 30, player 4 is all-in to 40 (+10), the button calls,
    # the blinds fold. UTG and player 3 both acted at 30; the +10 is half a raise: it re-opens
    # for both under ``half`` only. A player who has not acted keeps every option: the button
    # (first to act after the all-in) may raise in every mode.
    stacks = (1000, 1000, 1000, 1000, 40, 1000)
    cfg = HandConfig.standard(stacks, 5, 10, reopen=mode)
    hand = rigged(cfg, [None] * 6, DRY)
    hand.raise_to(2, 30)
    hand.call(3)
    hand.go_all_in(4)
    legal = hand.legal()
    assert legal is not None and legal.player == 5 and legal.can_raise
    assert legal.min_raise_to == 60
    hand.call(5)
    hand.fold(0)
    hand.fold(1)
    for player in (2, 3):
        legal = hand.legal()
        assert legal is not None and legal.player == player and legal.to_call == 10
        assert legal.can_raise is (mode is ReopenMode.HALF)
        hand.call(player)
    assert hand.street is Street.FLOP


@pytest.mark.parametrize("mode", list(ReopenMode))
def test_a_player_who_has_not_acted_on_this_street_keeps_every_option(mode: ReopenMode) -> None:
    # Everyone limps for 10. On the flop the small blind bets 10 and the big blind is all-in to
    # 15 (+5, short). Players 2 and 3 have not acted on the flop: each may call or raise (to 25),
    # whatever they did pre-flop. Back on the small blind, who acted at 10: closed, except for
    # ``half`` (5 is half a raise of 10).
    cfg = HandConfig.standard((1000, 25, 1000, 1000), 5, 10, reopen=mode)
    hand = rigged(cfg, [None] * 4, DRY)
    hand.call(2)
    hand.call(3)
    hand.call(0)
    hand.check(1)
    assert hand.street is Street.FLOP
    hand.bet(0, 10)
    hand.go_all_in(1)
    for player in (2, 3):
        legal = hand.legal()
        assert legal is not None and legal.player == player and legal.to_call == 15
        assert legal.can_raise and legal.min_raise_to == 25
        hand.call(player)
    legal = hand.legal()
    assert legal is not None and legal.player == 0 and legal.to_call == 5
    assert legal.can_raise is (mode is ReopenMode.HALF)


def test_an_unmatched_ante_goes_back_like_an_uncalled_bet() -> None:
    # Heads-up, antes of 2: the button has 1 chip and is all-in from his ante. The big blind's
    # 2 + 2 are matched by that 1 chip only; the other 3 nobody matched, so they go back to him
    # and are never a pot of his own that he "wins" (RULES 5).
    cfg = HandConfig.standard((36, 1), 1, 2, ante_kind=AnteKind.PER_PLAYER, ante=2)
    hand = rigged(cfg, ["7c2d", "AsAh"], DRY)
    assert hand.is_over
    returned = [e for e in hand.events if isinstance(e, BetReturned)]
    assert returned == [BetReturned(0, 3)]
    awards = [(a.amount, a.eligible, a.shares) for a in hand.events if isinstance(a, PotAwarded)]
    assert awards == [(2, (0, 1), ((1, 2),))]
    assert hand.result is not None and hand.result.won == (0, 2)
    assert hand.stacks == [35, 2]

"""What the presenter makes of a board run twice and of all-in hands waiting for their cards:
both boards and each run's pots on the image, the chances at every street of the run-out, and
never a folded hand's cards, in the view, the alt text or the figures."""

from __future__ import annotations

import random

from bot.presenter import Scene, equity_view, live_equity, result_content, table_view
from bot.render.alttext import table_alt_text
from bot.render.model import SeatState, Street
from engine.cards import format_card, parse_cards
from engine.equity import equity, run_out_equities
from engine.hand import RunItTwice, deck_from_cards
from engine.table import Table, TableOptions

# Seats 1..4 (player id = seat); Dana (seat 4) folds pre-flop, the others go all-in.
NAMES = {1: "Alice", 2: "Bob", 3: "Carol", 4: "Dana"}
HOLES = {1: "AsQs", 2: "JhJc", 3: "7c7d", 4: "KhKd"}


def _table(run_it_twice: RunItTwice, stacks: dict[int, int] | None = None) -> Table:
    options = TableOptions(small_blind=50, big_blind=100, run_it_twice=run_it_twice, seats=6,
                           min_buy_in=500, max_buy_in=5_000)
    table = Table(options, random.Random(1))
    for seat in (1, 2, 3, 4):
        table.join(seat, (stacks or {}).get(seat, 2_000), seat=seat)
    return table


def _deal(table: Table, board: str, second: str = "") -> None:
    order = [int(p) for p in _order(table)]
    deck = deck_from_cards(len(order), [parse_cards(HOLES[p]) for p in order],
                           parse_cards(board), second_run=parse_cards(second))
    table.start_hand(deck, button=4)


def _order(table: Table) -> tuple[int, ...]:
    probe = Table(table.options, random.Random(1))
    for seat in (1, 2, 3, 4):
        probe.join(seat, 2_000, seat=seat)
    probe.start_hand(tuple(range(52)), button=4)
    return tuple(int(p) for p in probe.hand_players)


def _all_in(table: Table) -> None:
    """Everybody but Dana puts his whole stack in (a call when nobody is left to raise);
    Dana folds."""
    hand = table.hand
    assert hand is not None
    while hand.to_act is not None:
        legal = hand.legal()
        assert legal is not None
        if int(table.hand_players[legal.player]) == 4:
            hand.fold(legal.player)
        elif legal.can_raise:
            hand.go_all_in(legal.player)
        else:
            hand.call(legal.player)


def _scene(table: Table) -> Scene:
    return Scene(table=table, names=NAMES, hand_number=table.hand_number)


def _texts(scene: Scene) -> str:
    view = table_view(scene)
    return table_alt_text(view) + repr(view) + result_content(scene)


def test_a_board_run_twice_is_drawn_with_both_runs_and_each_runs_pots() -> None:
    table = _table(RunItTwice.ALWAYS, {1: 1_000, 2: 2_000, 3: 600})
    _deal(table, "Ks8h3d9cQd", second="2h5c7h4s2c")
    _all_in(table)
    hand = table.hand
    assert hand is not None and hand.result is not None and hand.second_board is not None
    view = table_view(_scene(table))
    assert view.board == tuple(format_card(c) for c in hand.board)
    assert view.second_board == tuple(format_card(c) for c in hand.second_board)
    assert view.runs == 2 and view.street is Street.SHOWDOWN
    assert [p.run for p in view.pots] == [p.run for p in hand.result.pots]
    assert {p.run for p in view.pots} == {1, 2}
    assert sum(p.amount for p in view.pots) == sum(p.amount for p in hand.result.pots)
    carol = view.seats[2]
    assert carol is not None and carol.second_hand_name and carol.hand_name
    text = result_content(_scene(table))
    assert "Board, run 1:" in text and "Board, run 2:" in text and "on run 2" in text
    alt = table_alt_text(view)
    assert "Run 2 board:" in alt and "Run 1, Main pot" in alt
    # Dana folded: her kings are nowhere.
    for card in ("K♥", "K♦", "king of hearts", "king of diamonds", "'Kh'", "'Kd'"):
        assert card not in _texts(_scene(table))


def test_each_stage_of_the_run_out_shows_the_hand_before_the_pots_were_pushed() -> None:
    table = _table(RunItTwice.ALWAYS)
    _deal(table, "Ks8h3d9cQd", second="2h5c7h4s2c")
    _all_in(table)
    hand = table.hand
    assert hand is not None and hand.result is not None
    scene = _scene(table)
    stages = run_out_equities(hand)
    assert [(s.run, len(s.board)) for s in stages] == [(1, 0), (1, 3), (1, 4), (2, 3), (2, 4)]
    total = sum(hand.config.stacks)
    for stage in stages:
        frame = equity_view(scene, stage)
        view = frame.view
        shown = tuple(format_card(c) for c in stage.board)
        assert (view.board if stage.run == 1 else view.second_board) == shown
        if stage.run == 2:
            assert view.board == tuple(format_card(c) for c in hand.board)
        assert not view.has_results and not any(s.is_winner for s in view.seats if s)
        assert not any(s.hand_name for s in view.seats if s)
        # Stacks before the pots were pushed, and every chip still in the pot.
        assert sum(s.stack for s in view.seats if s) + view.pot_total == total
        live = [s for s in view.seats if s is not None and s.equity is not None]
        assert len(live) == 3 and all(s.state is not SeatState.FOLDED for s in live)
        for player, figures in zip(stage.players, stage.equity.hands, strict=True):
            seat = view.seats[table.hand_seats[player] - 1]
            assert seat is not None and seat.equity is not None
            assert (seat.equity.win, seat.equity.tie) == (figures.win, figures.tie)
        assert frame.lines[0].startswith(f"All-in, run {stage.run} of the board to come")
        assert len(frame.lines) == 4 and all("to win" in line for line in frame.lines[1:])
        assert "Odds" in table_alt_text(view)
    assert not stages[0].equity.exact and equity_view(scene, stages[0]).view.street is (
        Street.PREFLOP)
    assert "≈" in equity_view(scene, stages[0]).text


def test_the_figures_count_only_the_tabled_hands() -> None:
    """Dana's folded kings are not dead cards: counting them out would give them away."""
    table = _table(RunItTwice.OFF)
    _deal(table, "Ks8h3d9cQd")
    hand = table.hand
    assert hand is not None
    # To the flop with everyone, then all-in there; Dana folds to the shove.
    while not hand.board:
        legal = hand.legal()
        assert legal is not None
        (hand.call if legal.to_call else hand.check)(legal.player)
    _all_in(table)
    (stage,) = run_out_equities(hand)[:1]
    live = [parse_cards(HOLES[int(table.hand_players[j])]) for j in stage.players]
    assert stage.equity == equity(live, hand.board[:3])
    frame = equity_view(_scene(table), stage)
    assert frame.view.street is Street.FLOP
    for text in (frame.text, table_alt_text(frame.view), repr(frame.view)):
        assert "K♥" not in text and "king of hearts" not in text and "'Kh'" not in text


def test_a_hand_waiting_for_the_run_twice_vote_has_live_chances() -> None:
    table = _table(RunItTwice.ASK)
    _deal(table, "Ks8h3d9cQd", second="2h5c7h4s2c")
    hand = table.hand
    assert hand is not None
    assert live_equity(hand) is None  # betting is open
    _all_in(table)
    assert hand.run_choice_pending and not hand.is_over
    stage = live_equity(hand)
    assert stage is not None and stage.board == () and not stage.equity.exact
    assert live_equity(hand) == stage  # counted once, then remembered
    frame = equity_view(_scene(table), stage)
    assert frame.view.street is Street.PREFLOP
    assert [s.equity is not None for s in frame.view.seats if s] == [True, True, True, False]
    assert frame.lines[0].startswith("All-in, the rest of the board to come (≈ estimated")
    hand.choose_run_count(2)
    assert live_equity(hand) is None  # over


def test_no_chances_while_a_live_hand_is_still_face_down() -> None:
    """Should the hand ever wait with a live hand unshown, its figures would say what it
    holds: none are given."""
    table = _table(RunItTwice.ASK)
    _deal(table, "Ks8h3d9cQd")
    _all_in(table)
    hand = table.hand
    assert hand is not None and hand.run_choice_pending
    hand.shown.discard(min(hand.shown))
    assert live_equity(hand) is None

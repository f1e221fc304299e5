"""The tournament formats (RULES.md 7): rebuys and the add-on, re-entry, knockout and
progressive bounties, the sit-and-go, the deal; each refusal with its code, and the state kept
across a restart."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping

import pytest

from engine.bounty import BountyKind
from engine.cards import FULL_DECK, parse_cards
from engine.errors import EngineError
from engine.hand import Hand, deck_from_cards
from engine.icm import chip_chop, icm_shares
from engine.seating import PlayerId
from engine.table import TableEvent
from engine.tournament import (
    AddOnClosed,
    AddOnOpened,
    BlindLevel,
    BountyWon,
    FinalTable,
    PayoutTable,
    PlayerAddedOn,
    PlayerEliminated,
    PlayerRebought,
    RebuyDeclined,
    RebuyOffered,
    RebuysClosed,
    TableBroken,
    Tournament,
    TournamentConfig,
    TournamentFinished,
    TournamentStarted,
)
from tests.engine.shoving import shove_out
from tests.engine.test_table import of_type
from tests.engine.test_tournament import config, fold_round, shootout
from tests.engine.tournament_sim import play_tables

# Level 1 and its break are the rebuy period in most tests here; the add-on comes at the break.
LEVELS = (
    BlindLevel(10, 20, 0, minutes=10, break_minutes=5),
    BlindLevel(20, 40, 40, minutes=10),
    BlindLevel(50, 100, 100, minutes=10),
)
BREAK = 600  # the break after level 1 starts
LEVEL_2 = 900  # ... and ends


def started(names: str, seed: int = 1, **kwargs: object) -> Tournament:
    base: dict[str, object] = dict(levels=LEVELS)
    base.update(kwargs)
    t = Tournament(config(**base), rng=seed)
    for name in names:
        t.register(name, now=0)
    t.start(now=0)
    return t


def rebuy_tournament(names: str = "abcd", **kwargs: object) -> Tournament:
    base: dict[str, object] = dict(rebuys=2, rebuy_levels=1)
    base.update(kwargs)
    return started(names, **base)


def all_in(
    t: Tournament, now: float, holes: Mapping[PlayerId, str], board: str,
    button: int | None = None,
) -> tuple[list[TableEvent], tuple[PlayerId, ...]]:
    """A hand with the given hole cards and board: the players given shove or call, the others
    fold. The events and the players in hand order (index 0 first left of the button)."""
    at = t.table
    plan = at.next_plan(button)
    order = tuple(at.seat(s).player_id for s in plan.seats)  # type: ignore[union-attr]
    cards = [parse_cards(holes[p]) if p in holes else None for p in order]
    t.start_hand(deck_from_cards(len(order), cards, parse_cards(board)), now, button=button)
    hand = at.hand
    assert hand is not None
    shove_out(hand, order, holes)
    return t.finish_hand(now), order


def code(exc: pytest.ExceptionInfo[EngineError]) -> tuple[str, dict[str, object]]:
    return exc.value.code, exc.value.params


def assert_books(t: Tournament) -> None:
    """Money and chips: nothing created, nothing destroyed."""
    assert t.paid_in == t.prize_pool + t.bounties_paid + t.bounties_on_heads
    if not t.is_over:
        assert sum(v.stack for table in t.tables.values() for v in table.seats()) \
            == t.chips_issued


# --- every option checked at creation ------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (dict(bounty=101), ("bounty_too_large", dict(bounty=101, option="buy_in", price=100))),
        (dict(buy_in=0, bounty=10), ("bounty_without_buy_in", dict(bounty=10))),
        (dict(bounty=50, rebuys=1, rebuy_levels=1, rebuy_price=40),
         ("bounty_too_large", dict(bounty=50, option="rebuy_price", price=40))),
        (dict(rebuys=1), ("rebuy_levels_missing", {})),
        (dict(add_on=1000), ("rebuy_levels_missing", {})),
        (dict(rebuys=1, rebuy_levels=3),
         ("rebuy_levels_too_many", dict(rebuy_levels=3, maximum=2))),
        (dict(rebuy_levels=1), ("format_option_unused", dict(option="rebuy_levels",
                                                             needs="rebuys"))),
        (dict(add_on=500, rebuy_levels=1, rebuy_price=100),
         ("format_option_unused", dict(option="rebuy_price", needs="rebuys"))),
        (dict(add_on=500, rebuy_levels=1, rebuy_chips=500),
         ("format_option_unused", dict(option="rebuy_chips", needs="rebuys"))),
        (dict(rebuys=1, rebuy_levels=1, add_on_price=50),
         ("format_option_unused", dict(option="add_on_price", needs="add_on"))),
        (dict(reentries=1), ("format_option_unused", dict(option="reentries",
                                                          needs="late_registration_level"))),
        (dict(bounty_kind=BountyKind.PROGRESSIVE),
         ("format_option_unused", dict(option="bounty_kind", needs="bounty"))),
        (dict(rebuys=101, rebuy_levels=1),
         ("format_limit", dict(option="rebuys", value=101, maximum=100))),
        (dict(reentries=101, late_registration_level=1),
         ("format_limit", dict(option="reentries", value=101, maximum=100))),
        (dict(chip_unit=10, starting_stack=1000, rebuys=1, rebuy_levels=1, rebuy_chips=1005),
         ("format_not_multiple", dict(option="rebuy_chips", value=1005, chip_unit=10))),
        (dict(chip_unit=10, starting_stack=1000, add_on=1505, rebuy_levels=1),
         ("format_not_multiple", dict(option="add_on", value=1505, chip_unit=10))),
        (dict(max_players=1000, starting_stack=10**8, rebuys=10, rebuy_levels=1),
         ("tournament_rebuy_chips_too_large",
          dict(amount=11 * 10**8, players=1000, maximum=10**12))),
        (dict(max_players=1000, buy_in=4 * 10**8, rebuys=1, rebuy_levels=1, add_on=1000),
         ("tournament_rebuy_pool_too_large",
          dict(amount=12 * 10**8, players=1000, maximum=10**12))),
        (dict(rebuys=-1), ("bad_tournament", dict(field="rebuys", value="-1"))),
        (dict(bounty=True), ("bad_tournament", dict(field="bounty", value="True"))),
        (dict(bounty_kind="progressive", bounty=10),
         ("bad_tournament", dict(field="bounty_kind", value="'progressive'"))),
        (dict(start_when_full=1), ("bad_tournament", dict(field="start_when_full",
                                                           value="1"))),
        (dict(rebuys=1, rebuy_levels=1, rebuy_chips=0),
         ("bad_tournament", dict(field="rebuy_chips", value="0"))),
    ],
)
def test_every_format_option_is_checked_at_creation(
    options: dict[str, object], expected: tuple[str, dict[str, object]]
) -> None:
    with pytest.raises(EngineError) as exc:
        config(levels=LEVELS, **options)
    assert code(exc) == expected


def test_a_bounty_may_be_the_whole_buy_in_and_formats_are_stored_only_when_used() -> None:
    assert config(bounty=100).bounty == 100  # everything on heads: a prize pool of 0
    freeze_out = config(levels=LEVELS)
    assert set(freeze_out.to_json()) == {
        "buy_in", "starting_stack", "levels", "ante_kind", "time_limit", "payouts",
        "late_registration_level", "max_players", "seats", "chip_unit", "prize_unit", "reopen"}
    every = config(levels=LEVELS, rebuys=3, rebuy_levels=2, rebuy_chips=500, rebuy_price=50,
                   add_on=1500, add_on_price=80, reentries=2, late_registration_level=2,
                   bounty=20, bounty_kind=BountyKind.PROGRESSIVE, start_when_full=True)
    data = json.loads(json.dumps(every.to_json()))
    assert data["bounty_kind"] == "progressive" and data["rebuy_chips"] == 500
    assert TournamentConfig.from_json(data) == every
    assert (every.rebuy_stack, every.rebuy_cost, every.add_on_cost) == (500, 50, 80)
    defaults = config(levels=LEVELS, rebuys=1, rebuy_levels=1, add_on=1500, buy_in=70)
    assert (defaults.rebuy_stack, defaults.rebuy_cost, defaults.add_on_cost) == (1000, 70, 70)


# --- rebuys --------------------------------------------------------------------------------


def test_a_busted_player_is_offered_a_rebuy_and_is_not_out_until_he_answers() -> None:
    t = rebuy_tournament()
    events = shootout(t, now=1, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    (offer,) = of_type(events, RebuyOffered)
    assert (offer.player_id, offer.price, offer.chips, offer.rebuys_left) == ("d", 100, 1000, 2)
    assert not of_type(events, PlayerEliminated)
    assert t.pending() == ("d",) and "d" in t.players_left() and t.table_of("d") is None
    seat = offer.table, t.status(1).pending
    assert seat == (1, ("d",))
    # His seat waits for him while nobody else needs it.
    events = t.rebuy("d", now=2)
    (bought,) = of_type(events, PlayerRebought)
    assert (bought.price, bought.to_prize_pool, bought.to_bounty, bought.chips, bought.stack,
            bought.rebuys, bought.prize_pool) == (100, 100, 0, 1000, 1000, 1, 500)
    assert t.pending() == () and t.table_of("d") == 1 and t.rebuys_of("d") == 1
    assert_books(t)


def test_a_rebuy_with_chips_left_needs_the_starting_stack_or_less_and_no_hand() -> None:
    t = rebuy_tournament("abc")
    (bought,) = of_type(t.rebuy("a", now=1), PlayerRebought)  # 1,000: at the starting stack
    assert bought.stack == 2000 and t.prize_pool == 400
    with pytest.raises(EngineError) as exc:
        t.rebuy("a", now=1)
    assert code(exc) == ("rebuy_stack_too_large", dict(stack=2000, maximum=1000))
    t.start_hand(FULL_DECK, now=2)
    in_hand = t.table.hand_players[0]
    with pytest.raises(EngineError) as exc:
        t.rebuy(in_hand, now=2)
    assert code(exc) == ("hand_in_progress", dict(hand_number=1))
    assert t.prize_pool == 400 and t.rebuys_of(in_hand) == (1 if in_hand == "a" else 0)
    assert_books(t)


def test_rebuy_refusals() -> None:
    t = rebuy_tournament("abcd", rebuys=1)
    with pytest.raises(EngineError) as exc:
        t.rebuy("zed", now=1)
    assert code(exc) == ("not_registered", dict(player="zed"))
    shootout(t, now=1, winner="a", shovers=["b"], button=t.table.seat_of("a"))
    assert t.pending() == ("b",)
    t.rebuy("b", now=2, count=0)
    with pytest.raises(EngineError) as exc:
        t.rebuy("b", now=2, count=0)  # the same offer pressed twice buys once
    assert code(exc) == ("rebuy_stale", dict(rebuys=1))
    with pytest.raises(EngineError) as exc:
        t.rebuy("b", now=2)
    assert code(exc) == ("rebuy_limit", dict(rebuys=1))
    shootout(t, now=3, winner="a", shovers=["b", "c"])
    # b has used his one rebuy: out at once; c is offered one.
    assert t.pending() == ("c",) and "b" not in t.players_left()
    with pytest.raises(EngineError) as exc:
        t.rebuy("b", now=4)
    assert code(exc) == ("not_playing", dict(player="b"))
    with pytest.raises(EngineError) as exc:
        t.decline_rebuy("a", now=4)
    assert code(exc) == ("rebuy_not_pending", dict(player="a"))
    assert t.prize_pool == 500 and t.paid_in == 500
    freeze_out = started("ab")
    with pytest.raises(EngineError) as exc:
        freeze_out.rebuy("a", now=1)
    assert code(exc) == ("no_rebuys", {})
    waiting = Tournament(config(levels=LEVELS, rebuys=1, rebuy_levels=1), rng=1)
    waiting.register("a", now=0)
    with pytest.raises(EngineError) as exc:
        waiting.rebuy("a", now=0)
    assert code(exc) == ("not_running", {})


def test_rebuys_are_open_through_the_break_after_their_last_level_and_close_with_it() -> None:
    t = rebuy_tournament("abc", rebuys=1)
    shootout(t, now=1, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    assert t.pending() == ("c",)
    assert t.can_rebuy("c", now=BREAK + 1) and t.can_rebuy("b", now=BREAK + 1)
    assert not t.can_rebuy("c", now=LEVEL_2) and not t.can_rebuy("a", now=1)
    with pytest.raises(EngineError) as exc:
        t.rebuy("c", now=LEVEL_2)
    assert code(exc) == ("rebuy_closed", {})
    # Judged at ``now`` without the clock moving: he is out when the clock closes rebuys.
    assert t.pending() == ("c",) and t.rebuys_open
    events = t.tick(now=LEVEL_2)
    (closed,) = of_type(events, RebuysClosed)
    assert closed.eliminated == ("c",) and not t.rebuys_open
    assert [(e.player_id, e.reason) for e in of_type(events, RebuyDeclined)] == [("c", "closed")]
    assert [(e.player_id, e.place) for e in of_type(events, PlayerEliminated)] == [("c", 3)]
    with pytest.raises(EngineError) as exc:
        t.rebuy("b", now=LEVEL_2)
    assert code(exc) == ("rebuy_closed", {})
    assert_books(t)


def test_a_busted_player_is_out_when_he_declines_or_his_time_runs_out() -> None:
    t = rebuy_tournament("abcd")
    shootout(t, now=1, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    events = t.expire_rebuy("d", now=30)
    assert [(e.player_id, e.reason) for e in of_type(events, RebuyDeclined)] == [("d", "expired")]
    (out,) = of_type(events, PlayerEliminated)
    assert (out.player_id, out.place, out.hand_number, out.starting_stack) == ("d", 4, 1, 1000)
    shootout(t, now=31, winner="a", shovers=["c"])
    events = t.decline_rebuy("c", now=32)
    assert [(e.player_id, e.reason) for e in of_type(events, RebuyDeclined)] == [("c", "declined")]
    assert [(e.player_id, e.place) for e in of_type(events, PlayerEliminated)] == [("c", 3)]
    with pytest.raises(EngineError) as exc:
        t.decline_rebuy("c", now=33)
    assert code(exc) == ("not_playing", dict(player="c"))
    assert t.pending() == () and set(t.players_left()) == {"a", "b"}


def test_heads_up_the_tournament_waits_for_the_last_answer() -> None:
    t = rebuy_tournament("ab")
    events = shootout(t, now=1, winner="a", shovers=["b"], button=t.table.seat_of("a"))
    assert of_type(events, RebuyOffered) and not t.is_over
    assert not t.can_start() and t.players_left() == ("a", "b")
    events = t.decline_rebuy("b", now=5)
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "last_player"
    assert [(s.player_id, s.place, s.prize) for s in t.standings] == [("a", 1, 200),
                                                                      ("b", 2, 0)]


def test_a_table_is_not_broken_while_a_busted_player_may_come_back_to_it() -> None:
    t = Tournament(config(levels=LEVELS, rebuys=1, rebuy_levels=1, max_players=7, seats=6),
                   rng=3)
    for k in range(7):
        t.register(f"p{k}", now=0)
    t.start(now=0)
    short = min(t.tables, key=lambda n: len(t.tables[n].seats()))
    players = [v.player_id for v in t.tables[short].seats()]
    assert len(players) == 3
    # Six players would fit at one table, but the seventh may still rebuy: no table breaks.
    _bust_at(t, short, players[0], players[1])
    assert t.pending() == (players[1],) and len(t.tables) == 2
    assert not of_type(t.balance(), TableBroken)
    events = t.decline_rebuy(players[1], now=5)
    assert of_type(events, TableBroken) and len(t.tables) == 1
    assert of_type(events, FinalTable)
    assert_books(t)


def _bust_at(t: Tournament, table: int, winner: PlayerId, victim: PlayerId) -> None:
    at = t.tables[table]
    button = at.seats()[0].seat if at.rotation is None else None  # the first button: placed
    plan = at.next_plan(button)
    order = [at.seat(s).player_id for s in plan.seats]  # type: ignore[union-attr]
    cards = [parse_cards("AsAh") if p == winner else parse_cards("2c7d") if p == victim
             else None for p in order]
    t.start_hand(deck_from_cards(len(order), cards, parse_cards("KcQd9h5s3c")), 3,
                 button=button, table=table)
    hand = at.hand
    assert hand is not None
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        who = order[legal.player]
        if who in (winner, victim):
            if legal.can_raise:
                hand.go_all_in(legal.player)
            elif legal.to_call:
                hand.call(legal.player)
            else:
                hand.check(legal.player)
        elif legal.to_call:
            hand.fold(legal.player)
        else:
            hand.check(legal.player)
    t.finish_hand(4, table=table)


# --- the add-on ----------------------------------------------------------------------------


def test_the_add_on_opens_at_the_break_that_ends_rebuys_once_for_each_player() -> None:
    t = rebuy_tournament("abc", add_on=1500, add_on_price=50)
    with pytest.raises(EngineError) as exc:
        t.add_on("a", now=1)
    assert code(exc) == ("add_on_not_open", {})
    shootout(t, now=2, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    events = t.tick(now=BREAK)
    (opened,) = of_type(events, AddOnOpened)
    assert (opened.players, opened.chips, opened.price) == (("a", "b"), 1500, 50)
    assert t.add_on_open and t.rebuys_open  # the break belongs to the rebuy period too
    with pytest.raises(EngineError) as exc:
        t.add_on("c", now=BREAK + 1)
    assert code(exc) == ("add_on_needs_chips", {})
    stack = t.table.player("b").stack  # type: ignore[union-attr]
    (taken,) = of_type(t.add_on("b", now=BREAK + 1), PlayerAddedOn)
    assert (taken.price, taken.chips, taken.stack, taken.prize_pool) == (50, 1500, stack + 1500,
                                                                         350)
    with pytest.raises(EngineError) as exc:
        t.add_on("b", now=BREAK + 2)
    assert code(exc) == ("add_on_taken", {})
    t.rebuy("c", now=BREAK + 3)  # back in, and the add-on is his to take too
    assert t.can_add_on("c")
    (closed,) = t.close_add_on(now=BREAK + 60)
    assert isinstance(closed, AddOnClosed) and (closed.taken, closed.prize_pool) == (1, 450)
    with pytest.raises(EngineError) as exc:
        t.add_on("a", now=BREAK + 61)
    assert code(exc) == ("add_on_closed", {})
    with pytest.raises(EngineError) as exc:
        t.close_add_on(now=BREAK + 62)
    assert code(exc) == ("add_on_closed", {})
    assert_books(t)


def test_without_a_break_the_add_on_opens_with_the_next_level_and_rebuys_close() -> None:
    levels = (BlindLevel(10, 20, minutes=10), BlindLevel(20, 40, minutes=10))
    t = started("abc", levels=levels, rebuys=1, rebuy_levels=1, add_on=1000)
    events = t.tick(now=599)
    assert not of_type(events, AddOnOpened)
    events = t.tick(now=600)
    assert [e.type for e in events] == ["level_started", "rebuys_closed", "add_on_opened"]
    t.start_hand(FULL_DECK, now=601)
    with pytest.raises(EngineError) as exc:
        t.add_on(t.table.hand_players[0], now=602)
    assert code(exc) == ("hand_in_progress", dict(hand_number=1))
    no_add_on = rebuy_tournament("ab")
    with pytest.raises(EngineError) as exc:
        no_add_on.add_on("a", now=1)
    assert code(exc) == ("no_add_on", {})


def test_the_add_on_closes_with_the_tournament_and_with_time() -> None:
    t = rebuy_tournament("ab", add_on=1000, time_limit=BREAK + 30)
    t.tick(now=BREAK)
    assert t.add_on_open
    events = t.tick(now=BREAK + 30)
    types = [e.type for e in events]
    assert types[types.index("time_up"):] == ["time_up", "add_on_closed", "tournament_finished"]
    assert t.is_over and not t.add_on_open
    with pytest.raises(EngineError) as exc:
        t.add_on("a", now=BREAK + 31)
    assert code(exc) == ("not_running", {})


# --- re-entry ------------------------------------------------------------------------------


def test_re_entry_after_late_registration_is_refused() -> None:
    t = started("abc", late_registration_level=1, reentries=2)
    t.tick(now=LEVEL_2)
    shootout(t, now=LEVEL_2, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    with pytest.raises(EngineError) as exc:
        t.register("c", now=LEVEL_2 + 1)
    assert code(exc) == ("registration_closed", {})


# --- bounties ------------------------------------------------------------------------------


def test_a_rebuy_in_a_bounty_tournament_adds_the_bounty_to_his_head() -> None:
    t = rebuy_tournament("abc", rebuys=2, bounty=25, rebuy_chips=200)
    for pid in "abc":
        t.rebuy(pid, now=1)
    with pytest.raises(EngineError):
        t.rebuy("a", now=1)  # 1,200 chips: above the starting stack
    assert t.bounty_on("a") == 50 and t.prize_pool == 3 * 75 + 3 * 75
    # a on the button posts nothing: b, in a blind, covers him exactly and takes his head.
    events = shootout(t, now=2, winner="b", shovers=["a"], button=t.table.seat_of("a"))
    (won,) = of_type(events, BountyWon)
    assert (won.player_id, won.from_player, won.amount) == ("b", "a", 50)
    assert t.pending() == ("a",) and t.bounty_on("a") == 0
    t.rebuy("a", now=3)  # his second: a new head
    assert t.bounty_on("a") == 25
    assert_books(t)


def test_13_players_progressive_knockout_to_the_end_pays_every_bounty() -> None:
    """Two tables to a final table: every bounty is paid to somebody, the winner's own
    included, and the prizes are the pool."""
    bounty = 33  # odd: halves and splits leave odd chips
    cfg = config(buy_in=110, bounty=bounty, bounty_kind=BountyKind.PROGRESSIVE,
                 max_players=13, seats=9,
                 levels=tuple(BlindLevel(10 * 2**k, 20 * 2**k, minutes=5) for k in range(8)))
    for seed in range(6):
        t = Tournament(cfg, rng=seed)
        for k in range(13):
            t.register(f"p{k:02}", now=0)
        events = t.start(now=0)
        assert of_type(events, TournamentStarted)[0].tables == 2

        def books(t: Tournament, table: int, settled: list[TableEvent]) -> None:
            assert_books(t)

        played, _, _ = play_tables(t, random.Random(seed), settled=books)
        events += played
        won = of_type(events, BountyWon)
        out = of_type(events, PlayerEliminated)
        assert len(out) == 12 and t.is_over
        assert {e.from_player for e in won if e.reason == "knockout"} == {e.player_id
                                                                          for e in out}
        (own,) = [e for e in won if e.reason == "own"]
        assert own.player_id == t.standings[0].player_id and own.amount >= bounty
        assert sum(e.amount for e in won) == 13 * bounty == t.bounties_paid
        assert t.bounties_on_heads == 0
        assert sum(s.bounties for s in t.standings) == 13 * bounty
        assert sum(s.prize for s in t.standings) == t.prize_pool == 13 * (110 - bounty)
        # Each share was cut in two halves, the one paid at once taking the odd chip.
        assert all(e.amount - e.onto_head in (0, 1) for e in won if e.reason == "knockout")


# --- the sit-and-go ------------------------------------------------------------------------


def test_a_sit_and_go_starts_the_moment_its_last_seat_is_taken() -> None:
    t = Tournament(config(levels=LEVELS, max_players=6, seats=6, start_when_full=True), rng=2)
    for name in "abcd":
        assert not of_type(t.register(name, now=0), TournamentStarted)
    t.unregister("d")
    t.register("d", now=1)
    assert not t.is_full
    events = t.register("e", now=2)
    assert not of_type(events, TournamentStarted) and t.state.value == "registering"
    events = t.register("f", now=3)
    assert [e.type for e in events][:3] == ["player_registered", "tournament_started",
                                            "level_started"]
    assert t.is_full and t.state.value == "running" and t.elapsed(3 + 60) == 60
    with pytest.raises(EngineError) as exc:
        t.register("g", now=4)
    assert code(exc) == ("registration_closed", {})


# --- the deal ------------------------------------------------------------------------------


def test_a_deal_is_refused_unless_it_pays_exactly_the_players_still_in() -> None:
    t = started("abcd", buy_in=25, payouts=PayoutTable(((None, (50, 30, 20)),)))
    shootout(t, now=1, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    stacks = {v.player_id: v.stack for v in t.table.seats()}
    good = dict(zip(stacks, chip_chop(list(stacks.values()), [50, 30, 20]), strict=True))
    refusals: list[tuple[dict[PlayerId, object], tuple[str, dict[str, object]]]] = [
        ({**good, "a": good["a"] + 1}, ("deal_prizes_total", dict(total=101, expected=100))),
        ({**good, "zed": 0}, ("not_registered", dict(player="zed"))),  # a bystander
        ({**good, "d": 0}, ("not_playing", dict(player="d"))),  # busted
        ({p: v for p, v in good.items() if p != "b"}, ("deal_player_missing", dict(player="b"))),
        ({**good, "a": -1}, ("bad_amount", dict(amount="-1"))),
        ({**good, "a": 1.5}, ("bad_amount", dict(amount="1.5"))),
    ]
    for prizes, expected in refusals:
        with pytest.raises(EngineError) as exc:
            t.deal(prizes, now=2)  # type: ignore[arg-type]
        assert code(exc) == expected
    t.start_hand(FULL_DECK, now=3)
    with pytest.raises(EngineError) as exc:
        t.deal(good, now=3)
    assert code(exc) == ("hand_in_progress", dict(hand_number=2))
    fold_round(t, now=4)
    stacks = {v.player_id: v.stack for v in t.table.seats()}
    good = dict(zip(stacks, icm_shares(list(stacks.values()), [50, 30, 20]), strict=True))
    t.deal(good, now=5)
    assert t.is_over and t.finish_reason == "deal"
    with pytest.raises(EngineError) as exc:
        t.deal(good, now=6)
    assert code(exc) == ("not_running", {})


def test_no_deal_while_the_prize_pool_may_still_change() -> None:
    t = rebuy_tournament("abc", rebuys=1, add_on=1000)
    with pytest.raises(EngineError) as exc:
        t.deal({"a": 300}, now=1)
    assert code(exc) == ("deal_pool_open", {})
    t.tick(now=LEVEL_2)  # rebuys closed, the add-on open
    with pytest.raises(EngineError) as exc:
        t.deal({"a": 300}, now=LEVEL_2)
    assert code(exc) == ("deal_pool_open", {})
    t.close_add_on(now=LEVEL_2 + 60)
    late = started("abc", late_registration_level=1)
    with pytest.raises(EngineError) as exc:
        late.deal({"a": 300}, now=1)
    assert code(exc) == ("deal_pool_open", {})
    unpaid = t.unpaid_prizes()
    assert sum(unpaid) == t.prize_pool == 300
    prizes = dict(zip(t.players_left(), (300, 0, 0), strict=True))
    assert of_type(t.deal(prizes, now=LEVEL_2 + 61), TournamentFinished)


# --- across a restart ----------------------------------------------------------------------


def reload(t: Tournament) -> Tournament:
    data = json.loads(json.dumps(t.to_json()))
    hand = t.hand
    replayed = Hand.replay(hand.config, hand.deck, hand.actions) if hand is not None else None
    copy = Tournament.from_json(data, rng=7, hand=replayed)
    assert copy.to_json() == data
    return copy


def test_every_format_survives_a_restart() -> None:
    t = started("abcd", rebuys=1, rebuy_levels=1, add_on=1500, reentries=1,
                late_registration_level=1, bounty=20, bounty_kind=BountyKind.PROGRESSIVE)
    t.rebuy("b", now=1)
    shootout(t, now=2, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    t.decline_rebuy("d", now=3)
    t.register("d", now=4)  # his re-entry
    shootout(t, now=5, winner="a", shovers=["c"])
    t.tick(now=BREAK)
    t.add_on("a", now=BREAK + 1)
    assert t.pending() == ("c",) and t.add_on_open
    copy = reload(t)
    assert copy.status(BREAK + 2) == t.status(BREAK + 2)
    for tour in (t, copy):
        assert tour.pending() == ("c",) and tour.add_on_open and tour.took_add_on("a")
        assert tour.rebuys_of("b") == 1 and tour.entries_of("d") == 2
        assert tour.bounty_on("a") > 20 and tour.bounties_paid == 20
        tour.rebuy("c", now=BREAK + 2)
        tour.add_on("c", now=BREAK + 3)
        tour.close_add_on(now=BREAK + 60)
        tour.tick(now=LEVEL_2)
        assert_books(tour)
    assert copy.to_json() == t.to_json()


def test_a_tournament_stored_before_the_formats_reads_back() -> None:
    t = started("abc")
    shootout(t, now=1, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    data = json.loads(json.dumps(t.to_json()))
    # What a freeze-out stored before: seven fields an entry, groups by player, no formats.
    data["entries"] = [row[:7] for row in data["entries"]]
    data["eliminations"] = [["c"]]
    del data["formats"]
    old = Tournament.from_json(data, rng=1)
    assert old.players_left() == ("a", "b") and old.entrants == 3
    shootout(old, now=2, winner="a", shovers=["b"])
    assert [(s.player_id, s.place, s.entry) for s in old.standings] == [
        ("a", 1, 1), ("b", 2, 1), ("c", 3, 1)]

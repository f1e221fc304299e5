"""The numbered tournament-format examples of docs/rules.md section 7 (T1-T6), figure for figure:
rebuys and the add-on in a bounty tournament, late answers to a rebuy offer, re-entry, a
knockout bounty split as its pot, a progressive knockout's odd chips, and a deal."""

from __future__ import annotations

import pytest

from engine.bounty import BountyKind
from engine.errors import EngineError
from engine.icm import chip_chop, icm_shares, icm_values
from engine.tournament import (
    AddOnOpened,
    BountyWon,
    PayoutTable,
    PlayerAddedOn,
    PlayerEliminated,
    PlayerRebought,
    PlayerRegistered,
    RebuyOffered,
    RebuysClosed,
    TournamentFinished,
)
from tests.engine.test_table import of_type
from tests.engine.test_tournament import shootout
from tests.engine.test_tournament_formats import (
    BREAK,
    LEVEL_2,
    all_in,
    assert_books,
    code,
    rebuy_tournament,
    started,
)


def test_t1_rebuys_and_the_add_on_in_a_bounty_tournament() -> None:
    t = rebuy_tournament("abcdef", rebuys=1, bounty=25, add_on=1500)
    assert (t.prize_pool, t.bounties_on_heads) == (450, 150)
    (a,) = of_type(t.rebuy("a", now=1), PlayerRebought)
    assert (a.price, a.to_prize_pool, a.to_bounty, a.stack) == (100, 75, 25, 2000)
    assert t.bounty_on("a") == 50
    events = shootout(t, now=2, winner="c", shovers=["b"], button=t.table.seat_of("a"))
    (won,) = of_type(events, BountyWon)
    assert (won.player_id, won.from_player, won.amount, won.onto_head) == ("c", "b", 25, 0)
    assert of_type(events, RebuyOffered) and t.bounty_on("b") == 0
    (b,) = of_type(t.rebuy("b", now=3), PlayerRebought)
    assert (b.to_prize_pool, b.to_bounty, b.stack) == (75, 25, 1000) and t.bounty_on("b") == 25
    assert of_type(t.tick(now=BREAK), AddOnOpened)
    for pid in "abcd":
        (added,) = of_type(t.add_on(pid, now=BREAK + 1), PlayerAddedOn)
        assert (added.price, added.chips) == (100, 1500)
    assert t.paid_in == 600 + 200 + 400 == 1200
    assert (t.prize_pool, t.bounties_paid, t.bounties_on_heads) == (1000, 25, 175)
    assert_books(t)


def test_t2_players_still_answering_when_rebuys_close_rank_by_when_they_busted() -> None:
    t = rebuy_tournament("abcd", rebuys=1)
    shootout(t, now=1, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    shootout(t, now=2, winner="a", shovers=["c"])
    assert t.pending() == ("d", "c")  # in the order they busted
    events = t.tick(now=LEVEL_2)
    assert of_type(events, RebuysClosed)[0].eliminated == ("d", "c")
    places = {e.player_id: (e.place, e.hand_number) for e in of_type(events, PlayerEliminated)}
    assert places == {"c": (3, 2), "d": (4, 1)}
    assert_books(t)


def test_t3_re_entry_is_a_new_entry_with_a_fresh_stack_and_a_place_of_its_own() -> None:
    t = started("abc", late_registration_level=1, reentries=1, bounty=20)
    shootout(t, now=1, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    assert t.knocked_out() == ("c",)
    (again,) = of_type(t.register("c", now=2), PlayerRegistered)
    assert (again.entry, again.entrants, again.prize_pool, again.late) == (2, 4, 320, True)
    assert t.table.player("c").stack == 1000 and t.bounty_on("c") == 20  # type: ignore[union-attr]
    assert t.entries_of("c") == 2 and t.knocked_out() == ()
    with pytest.raises(EngineError) as exc:
        t.register("c", now=3)
    assert code(exc) == ("already_registered", dict(player="c"))  # his entry is still in
    shootout(t, now=3, winner="a", shovers=["c"])
    with pytest.raises(EngineError) as exc:
        t.register("c", now=4)
    assert code(exc) == ("reentry_limit", dict(reentries=1))
    t.tick(now=LEVEL_2)  # registration closes
    with pytest.raises(EngineError) as exc:
        t.register("d", now=LEVEL_2)
    assert code(exc) == ("registration_closed", {})
    shootout(t, now=LEVEL_2, winner="a", shovers=["b"])
    assert t.is_over
    rows = [(s.player_id, s.entry, s.place) for s in t.standings]
    assert rows == [("a", 1, 1), ("b", 1, 2), ("c", 2, 3), ("c", 1, 4)]
    assert sum(s.prize for s in t.standings) == t.prize_pool == 4 * 80
    assert_books(t)


def test_t4_a_knockout_bounty_split_as_the_pot() -> None:
    """The tie of T4 played at a tournament: the bounty events pay 13 and 12."""
    t = started("abc", bounty=25)
    button = t.table.seat_of("c")
    order = [t.table.seat(s).player_id for s in t.table.next_plan(button).seats]  # type: ignore[union-attr]
    first, busted, third = order
    events, _ = all_in(t, 1, {first: "AhKd", busted: "2c3d", third: "AsKc"}, "9h9d4c7sQd",
                       button=button)
    paid = {(e.player_id, e.from_player): e.amount for e in of_type(events, BountyWon)
            if e.reason == "knockout"}
    assert paid == {(first, busted): 13, (third, busted): 12}
    assert_books(t)


def test_t5_a_progressive_knockout_odd_chips_and_the_winners_own_bounty() -> None:
    t = started("abc", bounty=25, bounty_kind=BountyKind.PROGRESSIVE)
    won: list[BountyWon] = []
    won += of_type(shootout(t, now=1, winner="a", shovers=["b"], button=t.table.seat_of("a")),
                   BountyWon)
    assert t.bounty_on("a") == 37
    won += of_type(shootout(t, now=2, winner="c", shovers=["a"]), BountyWon)  # a doubles c up
    assert "a" in t.players_left()
    events = shootout(t, now=3, winner="c", shovers=["a"])
    won += of_type(events, BountyWon)
    assert of_type(events, TournamentFinished)
    rows = [(e.player_id, e.from_player, e.amount, e.onto_head, e.reason) for e in won]
    assert rows == [("a", "b", 13, 12, "knockout"), ("c", "a", 19, 18, "knockout"),
                    ("c", "c", 43, 0, "own")]
    assert sum(e.amount for e in won) == 75 == t.bounties_paid
    assert {s.player_id: s.bounties for s in t.standings} == {"c": 62, "a": 13, "b": 0}
    assert_books(t)


def test_t6_a_deal_by_icm_or_by_chips() -> None:
    stacks, prizes = [5_000, 3_000, 2_000], [50, 30, 20]
    assert [round(v, 2) for v in icm_values(stacks, prizes)] == [38.39, 32.75, 28.86]
    assert icm_shares(stacks, prizes) == (39, 33, 28)
    assert chip_chop(stacks, prizes) == (40, 32, 28)
    # The deal ends a tournament: four entered at 30 (5 of it a bounty), one is out.
    t = started("abcd", buy_in=30, bounty=5, payouts=PayoutTable(((None, (50, 30, 20)),)))
    shootout(t, now=1, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    assert t.unpaid_prizes() == (50, 30, 20) and t.bounty_on("a") == 5
    left = {v.player_id: v.stack for v in t.table.seats()}
    names = sorted(left, key=lambda p: -left[p])
    agreed = dict(zip(names, icm_shares([left[p] for p in names], [50, 30, 20]), strict=True))
    events = t.deal(agreed, now=2)
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "deal" and t.is_over
    own = {e.player_id: e.amount for e in of_type(events, BountyWon) if e.reason == "own"}
    assert own == {"a": 5, "b": 5, "c": 5}
    by = {s.player_id: s for s in t.standings}
    assert (by["a"].bounties, by["d"].bounties) == (10, 0)  # d's, won in play, and his own
    assert {p: (by[p].prize, by[p].deal) for p in agreed} == {p: (agreed[p], True)
                                                             for p in agreed}
    assert (by["d"].place, by["d"].prize, by["d"].deal) == (4, 0, False)
    assert [by[p].place for p in names] == [1, 2, 3]
    assert sum(s.prize for s in t.standings) == t.prize_pool == 100
    assert_books(t)

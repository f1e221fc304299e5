"""Tournaments (RULES.md section 7): registration, seat draw, levels on the clock, eliminations
and places, time-limited ends, prizes; and whole tournaments played out by random players."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable

import pytest

from engine.cards import FULL_DECK, parse_cards
from engine.errors import EngineError
from engine.games import PLO5, PLO8
from engine.hand import ActionTaken, AnteKind, Hand, deck_from_cards
from engine.seating import PlayerId
from engine.table import TableEvent
from engine.tournament import (
    DEFAULT_PAYOUTS,
    BlindLevel,
    LevelStarted,
    PayoutTable,
    PlayerEliminated,
    PlayerRegistered,
    RegistrationClosed,
    Standing,
    TimeUp,
    Tournament,
    TournamentConfig,
    TournamentFinished,
    TournamentStarted,
    TournamentState,
)
from tests.engine.shoving import shove_out
from tests.engine.test_table import BOARD, LOSERS, WINNER, of_type
from tests.engine.test_table_sim import random_action

LEVELS = (
    BlindLevel(10, 20, 0, minutes=10),
    BlindLevel(20, 40, 40, minutes=10),
    BlindLevel(50, 100, 100, minutes=10),
)


def config(**kwargs: object) -> TournamentConfig:
    base: dict[str, object] = dict(buy_in=100, starting_stack=1000, levels=LEVELS)
    base.update(kwargs)
    return TournamentConfig(**base)  # type: ignore[arg-type]


def started(names: Iterable[PlayerId], seed: int = 1, **kwargs: object) -> Tournament:
    t = Tournament(config(**kwargs), rng=seed)
    for name in names:
        t.register(name, now=0)
    t.start(now=0)
    return t


def first_seat(t: Tournament) -> int:
    return t.table.seats()[0].seat


def fold_round(
    t: Tournament, now: float, button: int | None = None, table: int | None = None
) -> list[TableEvent]:
    at = t.tables[table] if table is not None else t.table
    if at.hand is None:
        t.start_hand(FULL_DECK, now, button=button, table=table)
    hand = at.hand
    assert hand is not None
    while not hand.is_over:
        assert hand.to_act is not None
        hand.timeout(hand.to_act)
    return t.finish_hand(now, table=table)


def shootout(
    t: Tournament,
    now: float,
    winner: PlayerId,
    shovers: Iterable[PlayerId],
    button: int | None = None,
    table: int | None = None,
) -> list[TableEvent]:
    """A hand ``winner`` wins with aces: the shovers go all-in, he calls, the rest fold."""
    at = t.tables[table] if table is not None else t.table
    plan = at.next_plan(button)
    order = [at.seat(s).player_id for s in plan.seats]  # type: ignore[union-attr]
    losers = iter(LOSERS)
    holes = [parse_cards(WINNER if p == winner else next(losers)) for p in order]
    t.start_hand(deck_from_cards(len(order), holes, parse_cards(BOARD)), now, button=button,
                 table=table)
    hand = at.hand
    assert hand is not None
    assert list(at.hand_players) == order
    all_in = set(shovers) | {winner}
    shove_out(hand, order, all_in)
    return t.finish_hand(now, table=table)


def stacks(t: Tournament) -> dict[PlayerId, int]:
    return {v.player_id: v.stack for v in t.table.seats()}


def by_player(standings: Iterable[Standing]) -> dict[PlayerId, tuple[int, int, int]]:
    return {s.player_id: (s.place, s.tied, s.prize) for s in standings}


# --- payouts ------------------------------------------------------------------------------


def test_payout_table_by_number_of_entrants() -> None:
    assert [DEFAULT_PAYOUTS.shares(n) for n in (2, 4, 5, 7, 8, 30)] == [
        (100,),
        (100,),
        (65, 35),
        (65, 35),
        (50, 30, 20),
        (50, 30, 20),
    ]
    # Never more paid places than entrants.
    assert PayoutTable(((None, (50, 30, 20)),)).shares(2) == (50, 30)


def test_prizes_that_do_not_divide_evenly_go_to_the_higher_places() -> None:
    assert DEFAULT_PAYOUTS.prizes(800, 8) == (400, 240, 160)
    assert DEFAULT_PAYOUTS.prizes(1001, 8) == (501, 300, 200)
    assert DEFAULT_PAYOUTS.prizes(13, 8) == (7, 4, 2)  # 6.5, 3.9, 2.6
    assert DEFAULT_PAYOUTS.prizes(7, 5) == (5, 2)  # 4.55, 2.45
    assert DEFAULT_PAYOUTS.prizes(1003, 8, unit=5) == (503, 300, 200)
    for pool in range(0, 400, 7):
        for entrants in range(2, 12):
            prizes = DEFAULT_PAYOUTS.prizes(pool, entrants)
            assert sum(prizes) == pool
            assert list(prizes) == sorted(prizes, reverse=True)


def test_payout_table_validation() -> None:
    for tiers in [
        (),
        ((None, (50, 50)), (4, (100,))),
        ((4, (100,)), (3, (60, 40))),
        ((None, (30, 70)),),
        ((None, ()),),
        ((None, (100, 0)),),
    ]:
        with pytest.raises(EngineError, match="bad_tournament"):
            PayoutTable(tiers)  # type: ignore[arg-type]


def test_config_validation() -> None:
    for kwargs, code in [
        (dict(levels=()), "structure_empty"),
        (dict(starting_stack=0), "bad_tournament"),
        (dict(max_players=1001, seats=10), "bad_tournament"),
        (dict(seats=11), "bad_tournament"),  # ten to a table at most
        (dict(levels=(BlindLevel(10, 20, 20), BlindLevel(20, 40, 0))), "structure_ante_lower"),
        (dict(levels=(BlindLevel(10, 20), BlindLevel(5, 10))), "structure_big_blind_lower"),
        (dict(ante_kind=AnteKind.NONE, levels=(BlindLevel(10, 20, 20),)), "ante_without_kind"),
        (dict(levels=(BlindLevel(10, 20, break_minutes=5),)), "structure_break_position"),
        (dict(late_registration_level=4), "late_levels_too_many"),
        (dict(time_limit=0), "bad_tournament"),
        (dict(chip_unit=25), "structure_not_multiple"),
    ]:
        with pytest.raises(EngineError, match=code):
            config(**kwargs)
    # More players than seats play at several tables.
    assert config(max_players=30, seats=9).tables_for(30) == 4
    with pytest.raises(EngineError, match="bad_tournament"):
        BlindLevel(20, 10)
    with pytest.raises(EngineError, match="bad_tournament"):
        BlindLevel(10, 20, minutes=0)


def test_an_omaha_tournament_deals_its_game_at_every_table_and_level() -> None:
    """The game is part of the config: stored with it (only when it is not Hold'em), checked
    against the seats a table has, and given to every table of every level."""
    assert "game" not in config().to_json()
    five = config(game=PLO5, seats=9, max_players=20)
    assert five.to_json()["game"] == "plo5"
    assert TournamentConfig.from_json(json.loads(json.dumps(five.to_json()))) == five
    with pytest.raises(EngineError) as err:
        config(game=PLO5, seats=10)  # 10 × 5 hole cards and a board: more than a deck
    assert (err.value.code, err.value.params) == (
        "seats_for_game", {"seats": 10, "maximum": 9, "game": "plo5"})
    with pytest.raises(EngineError, match="bad_tournament"):
        config(game="plo")
    t = started([f"p{i}" for i in range(12)], game=PLO8, seats=6, max_players=12)
    assert len(t.tables) == 2
    for level in range(1, len(LEVELS) + 1):
        assert t.config.table_options(level).game is PLO8
    for number, table in t.tables.items():
        assert table.options.game is PLO8
        t.start_hand(FULL_DECK, 0, table=number)
        assert table.hand is not None and table.hand.game is PLO8
        assert all(len(table.hand.hole_cards(i)) == 4 for i in range(table.hand.n))
        fold_round(t, 0, table=number)


# --- registration and the seat draw -------------------------------------------------------


def test_registration() -> None:
    t = Tournament(config(max_players=3), rng=1)
    (reg,) = t.register("a", now=0)
    assert isinstance(reg, PlayerRegistered) and reg.entrants == 1 and reg.prize_pool == 100
    with pytest.raises(EngineError, match="already_registered"):
        t.register("a", now=0)
    with pytest.raises(EngineError, match="not_enough_players"):
        t.start(now=0)
    t.register("b", now=0)
    t.register("c", now=0)
    with pytest.raises(EngineError, match="tournament_full"):
        t.register("d", now=0)
    t.unregister("c")
    assert t.entrants == 2 and t.prize_pool == 200
    events = t.start(now=0)
    assert t.state is TournamentState.RUNNING
    assert [e.type for e in events] == [
        "tournament_started",
        "level_started",
        "registration_closed",
    ]
    with pytest.raises(EngineError, match="registration_closed"):
        t.register("d", now=1)  # late registration is off by default
    with pytest.raises(EngineError, match="registration_closed"):
        t.unregister("a")
    with pytest.raises(EngineError, match="already_started"):
        t.start(now=1)


def test_seats_are_drawn_at_random() -> None:
    def draw(seed: int) -> tuple[tuple[int, PlayerId], ...]:
        t = Tournament(config(), rng=seed)
        for name in "abcdef":
            t.register(name, now=0)
        (start, *_) = t.start(now=0)
        assert isinstance(start, TournamentStarted)
        assert {v.seat for v in t.table.seats()} == {s for _, s, _ in start.seats}
        assert {table for table, _, _ in start.seats} == {1} and start.tables == 1
        return tuple((seat, player) for _, seat, player in start.seats)

    draws = [draw(seed) for seed in range(20)]
    assert draws[3] == draw(3)
    assert len(set(draws)) > 15
    assert all(1 <= seat <= 10 for d in draws for seat, _ in d)


def test_tournament_table_deals_everyone_without_sitting_out_or_top_ups() -> None:
    t = started("abc")
    with pytest.raises(EngineError, match="not_in_tournament"):
        t.table.sit_out("a")
    with pytest.raises(EngineError, match="not_in_tournament"):
        t.table.top_up("a", 100)
    with pytest.raises(EngineError, match="not_in_tournament"):
        t.table.leave("a")
    with pytest.raises(EngineError, match="not_in_tournament"):
        t.table.remove("a")
    t.set_absent("a")
    t.start_hand(FULL_DECK, now=1)
    assert set(t.table.hand_players) == {"a", "b", "c"}


# --- levels and the clock -----------------------------------------------------------------


def test_levels_advance_on_the_clock_from_the_next_hand() -> None:
    t = started("abc")
    t.start_hand(FULL_DECK, now=590)
    hand = t.hand
    assert hand is not None and hand.config.big_blind == 20 and t.level == 1
    events = t.tick(now=601)  # the level changes during the hand
    (level,) = of_type(events, LevelStarted)
    assert (level.level, level.big_blind, level.ante, level.from_hands) == (2, 40, 40, ((1, 2),))
    assert hand.config.big_blind == 20  # the hand in progress keeps its blinds
    assert t.tick(now=602) == []
    fold_round(t, now=610)
    t.start_hand(FULL_DECK, now=615)
    hand = t.hand
    assert hand is not None and hand.config.big_blind == 40
    assert hand.config.ante_kind is AnteKind.BIG_BLIND
    assert hand.config.antes[hand.config.big_blind_index] == 40 and sum(hand.config.antes) == 40
    fold_round(t, now=620)
    # Levels the clock skipped over while no hand was dealt are announced once, at the latest.
    events = t.start_hand(FULL_DECK, now=10_000)
    assert [(e.level, e.big_blind) for e in of_type(events, LevelStarted)] == [(3, 100)]
    assert t.level_at(10**9) == 3  # the last level lasts


def test_pause_stops_the_clock() -> None:
    t = started("ab", time_limit=1200)
    t.pause(now=100, by="host")
    with pytest.raises(EngineError, match="tournament_paused"):
        t.start_hand(FULL_DECK, now=200)
    assert t.level_at(5000) == 1 and t.tick(now=5000) == []
    t.resume(now=5000)
    assert t.elapsed(5100) == 200
    assert t.level_at(5000 + 499) == 1 and t.level_at(5000 + 501) == 2
    events = t.tick(now=5000 + 1101)
    assert of_type(events, TimeUp) and t.is_over


# --- eliminations and places --------------------------------------------------------------


def test_two_eliminated_in_the_same_hand_with_different_stacks() -> None:
    t = started("abcd", payouts=PayoutTable(((None, (50, 30, 20)),)))
    button = first_seat(t)
    fold_round(t, now=1, button=button)  # the small blind loses 10 to the big blind
    plan = t.table.plan
    assert plan is not None and plan.small_blind_seat is not None
    sb = t.table.seat(plan.small_blind_seat).player_id  # type: ignore[union-attr]
    bb = t.table.seat(plan.big_blind_seat).player_id  # type: ignore[union-attr]
    other = next(p for p in "abcd" if p not in (sb, bb) and t.table.seat_of(p) != button)
    before = stacks(t)
    assert (before[sb], before[bb], before[other]) == (990, 1010, 1000)
    events = shootout(t, now=2, winner=bb, shovers=[sb, other])
    gone = {
        e.player_id: (e.place, e.tied, e.starting_stack) for e in of_type(events, PlayerEliminated)
    }
    assert gone == {other: (3, 1, 1000), sb: (4, 1, 990)}  # the bigger stack places higher
    assert t.players_left() and len(t.players_left()) == 2


def test_two_eliminated_in_the_same_hand_with_equal_stacks_share_places_and_prizes() -> None:
    payouts = PayoutTable(((None, (50, 30, 20)),))
    t = started("abc", buy_in=101, payouts=payouts)
    assert payouts.prizes(303, 3) == (152, 91, 60)
    events = shootout(t, now=1, winner="a", shovers=["b", "c"], button=t.table.seat_of("a"))
    gone = of_type(events, PlayerEliminated)
    assert {(e.player_id, e.place, e.tied) for e in gone} == {("b", 2, 2), ("c", 2, 2)}
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "last_player" and t.is_over
    result = by_player(t.standings)
    assert result["a"] == (1, 1, 152)
    # Places 2 and 3 pay 91 + 60 = 151, shared; the odd chip goes to the first of them
    # clockwise from the button.
    first = next(p for p in t.table.hand_players if p in "bc")
    second = "c" if first == "b" else "b"
    assert result[first] == (2, 2, 76) and result[second] == (2, 2, 75)
    assert sum(s.prize for s in t.standings) == t.prize_pool == 303


def test_freeze_out_places_are_the_reverse_order_of_elimination() -> None:
    t = started("abcd")
    button = t.table.seat_of("a")
    for loser in ("d", "b", "c"):
        shootout(t, now=2, winner="a", shovers=[loser], button=button)
        button = None
    assert t.is_over and t.finish_reason == "last_player"
    assert [(s.player_id, s.place) for s in t.standings] == [
        ("a", 1),
        ("c", 2),
        ("b", 3),
        ("d", 4),
    ]
    assert t.standings[0].prize == 400 and t.standings[0].chips == 4000
    with pytest.raises(EngineError, match="not_running"):
        t.start_hand(FULL_DECK, now=3)


# --- time-limited -------------------------------------------------------------------------


def test_time_limited_tournament_ends_after_the_hand_in_progress() -> None:
    t = started("abcd", time_limit=600)
    shootout(t, now=10, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    t.start_hand(FULL_DECK, now=590)
    hand = t.hand
    assert hand is not None
    events = t.tick(now=601)
    assert [e.type for e in events] == ["level_started", "time_up"]
    assert of_type(events, TimeUp)[0].hands_in_progress == ((1, t.table.hand_number),)
    assert not t.is_over  # the hand in progress is played out
    with pytest.raises(EngineError, match="hand_in_progress"):
        t.start_hand(FULL_DECK, now=602)
    while not hand.is_over:
        random_action(hand, random.Random(5))
    events = t.finish_hand(now=650)
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "time" and t.is_over
    chips = {p: s.chips for p, s in ((s.player_id, s) for s in t.standings)}
    assert sum(chips.values()) == 4000 and chips["d"] == 0
    survivors = [s for s in t.standings if s.eliminated_in_hand is None]
    assert [s.chips for s in survivors] == sorted((s.chips for s in survivors), reverse=True)
    assert t.standings[-1].player_id == "d" and t.standings[-1].place == 4
    assert sum(s.prize for s in t.standings) == t.prize_pool
    with pytest.raises(EngineError, match="not_running"):
        t.start_hand(FULL_DECK, now=700)


def test_time_limited_tournament_ending_between_hands_with_equal_stacks() -> None:
    t = started("abc", buy_in=100, time_limit=60)
    events = t.tick(now=61)
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "time"
    # Nobody has played a hand: all three share first place and the pool.
    assert {(s.place, s.tied, s.prize) for s in t.standings} == {(1, 3, 100)}


def test_time_limited_survivors_rank_above_eliminated_players() -> None:
    payouts = PayoutTable(((None, (50, 30, 20)),))
    t = started("abcd", buy_in=25, time_limit=600, payouts=payouts)
    shootout(t, now=10, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    shootout(t, now=20, winner="b", shovers=["c"])
    events = t.tick(now=700)
    assert of_type(events, TournamentFinished) and t.is_over
    chips = stacks(t)
    top = max(chips, key=lambda p: chips[p])
    result = by_player(t.standings)
    assert result[top][0] == 1 and result["c"][0] == 3 and result["d"][0] == 4
    assert sum(p for _, _, p in result.values()) == 100


# --- late registration and absent players -------------------------------------------------


def test_late_registration_until_a_level() -> None:
    t = started("ab", late_registration_level=2)
    fold_round(t, now=10, button=first_seat(t))
    events = t.register("c", now=300)
    (reg,) = of_type(events, PlayerRegistered)
    assert reg.late and reg.seat is not None and reg.prize_pool == 300
    assert t.table.player("c").stack == 1000  # type: ignore[union-attr]
    for now in (310, 320, 330):
        fold_round(t, now=now)
    assert "c" in t.table.hand_players
    t.register("d", now=1100)  # level 2
    events = t.tick(now=1201)  # level 3: closed
    assert of_type(events, RegistrationClosed)
    with pytest.raises(EngineError, match="registration_closed"):
        t.register("e", now=1202)
    assert t.entrants == 4


def test_eliminated_place_is_given_once_late_registration_closes() -> None:
    t = started("abc", late_registration_level=1)
    events = shootout(t, now=1, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    (gone,) = of_type(events, PlayerEliminated)
    assert gone.place is None  # more players may still register below him
    with pytest.raises(EngineError, match="already_registered"):
        t.register("c", now=2)  # no re-entry
    t.register("d", now=3)
    t.tick(now=601)
    events = shootout(t, now=602, winner="a", shovers=["b"])
    (gone,) = of_type(events, PlayerEliminated)
    assert gone.place == 3


def test_absent_player_is_dealt_in_and_timed_out() -> None:
    t = started("abc")
    t.set_absent("b")
    assert t.is_absent("b")
    t.start_hand(FULL_DECK, now=1, button=first_seat(t))
    hand = t.hand
    assert hand is not None
    b = t.table.hand_index("b")
    assert b is not None
    while not hand.is_over:
        t.act_for_absent()
        legal = hand.legal()
        if legal is None:
            break
        assert t.table.hand_players[legal.player] != "b"
        if legal.to_call:
            hand.call(legal.player)
        else:
            hand.check(legal.player)
    auto = [e for e in hand.events if isinstance(e, ActionTaken) and e.player == b]
    assert auto and all(e.auto == "timeout" for e in auto)
    t.finish_hand(now=2)
    t.set_absent("b", False)
    assert not t.is_absent("b")


def test_tournament_events_are_json() -> None:
    t = started("abc", time_limit=100)
    events: list[TableEvent] = []
    events += shootout(t, now=1, winner="a", shovers=["c"], button=t.table.seat_of("a"))
    events += t.set_absent("b")
    events += t.tick(now=101)
    types = set()
    for e in events:
        data = json.loads(json.dumps(e.to_json()))
        types.add(data["type"])
    assert {"player_eliminated", "time_up", "tournament_finished", "player_absent"} <= types


def test_tournament_round_trips_through_json() -> None:
    t = started("abcd", time_limit=900, late_registration_level=2, buy_in=33)
    shootout(t, now=5, winner="a", shovers=["d"], button=t.table.seat_of("a"))
    t.set_absent("b")
    t.start_hand(FULL_DECK, now=700)
    t.tick(now=701)  # level 2 announced during the hand
    data = json.loads(json.dumps(t.to_json()))
    hand = t.hand
    assert hand is not None
    copy = Tournament.from_json(data, hand=Hand.replay(hand.config, hand.deck, hand.actions))
    assert copy.to_json() == data and copy.level == 2 and copy.is_absent("b")
    for tour in (t, copy):
        tour.act_for_absent()
        h = tour.hand
        assert h is not None
        while not h.is_over:
            h.timeout(h.to_act or 0)
            tour.act_for_absent()
        tour.finish_hand(now=720)
        tour.tick(now=1000)
    assert copy.to_json() == t.to_json() and copy.is_over and t.is_over
    assert copy.standings == t.standings
    assert TournamentConfig.from_json(t.config.to_json()) == t.config


# --- whole tournaments by random players --------------------------------------------------


def reload(t: Tournament, rng: random.Random) -> Tournament:
    """Persist the tournament as JSON and go on with a copy rebuilt from it."""
    data = json.loads(json.dumps(t.to_json()))
    hand = t.hand
    replayed = Hand.replay(hand.config, hand.deck, hand.actions) if hand is not None else None
    copy = Tournament.from_json(data, rng=rng.randrange(1 << 30), hand=replayed)
    assert copy.to_json() == data
    return copy


def play_tournament(seed: int, time_limited: bool) -> Tournament:
    rng = random.Random(seed)
    n = rng.randint(2, 10)
    levels = (
        BlindLevel(10, 20, 0, minutes=5),
        BlindLevel(15, 30, 30, minutes=5),
        BlindLevel(25, 50, 50, minutes=5),
        BlindLevel(50, 100, 100, minutes=5),
        BlindLevel(100, 200, 200, minutes=5),
        BlindLevel(200, 400, 400, minutes=5),
    )
    late = rng.choice((0, 0, 1, 2))
    t = Tournament(
        config(
            buy_in=rng.choice((7, 10, 33, 100)),
            starting_stack=rng.choice((500, 1000, 1500)),
            levels=levels,
            time_limit=rng.randint(120, 1200) if time_limited else None,
            late_registration_level=late,
        ),
        rng=seed,
    )
    names = [f"p{k}" for k in range(12)]
    for name in names[:n]:
        t.register(name, now=0)
    now = 0.0
    events = t.start(now)
    total = t.config.starting_stack * t.entrants
    while not t.is_over:
        now += rng.uniform(5, 40)
        if rng.random() < 0.1 and t.registration_open:
            waiting = [p for p in names if p not in {v.player_id for v in t.table.seats()}]
            try:
                events += t.register(rng.choice(waiting), now)
                total += t.config.starting_stack
            except EngineError as exc:
                assert exc.code in ("registration_closed", "already_registered", "tournament_full")
        left = t.players_left()
        if left and rng.random() < 0.1:
            events += t.set_absent(rng.choice(left), rng.random() < 0.6)
        if rng.random() < 0.02:
            events += t.pause(now)
            if t.is_over:  # time ran out before the pause
                break
            now += 1000
            events += t.resume(now)
        if rng.random() < 0.05:
            t = reload(t, rng)
        events += t.start_hand(rng.sample(FULL_DECK, 52), now)
        if t.is_over:
            break
        hand = t.hand
        assert hand is not None
        check_hand(t, hand)
        while not hand.is_over:
            if rng.random() < 0.02:
                t = reload(t, rng)
                hand = t.hand
                assert hand is not None
            t.act_for_absent()
            if hand.is_over:
                break
            random_action(hand, rng)
            if rng.random() < 0.05:
                now += 1
                events += t.tick(now)
        events += t.finish_hand(now + 1)
        assert sum(v.stack for v in t.table.seats()) == total
    check_result(t, events)
    return t


def check_hand(t: Tournament, hand: Hand) -> None:
    # Every player with chips is dealt in, except a late registrant waiting off the button.
    dealt = set(t.table.hand_players)
    for v in t.table.seats():
        assert v.player_id in dealt or v.owes_big_blind
    _, bb, _, kind = t.config.level_options(t.level)
    assert hand.config.big_blind == bb and hand.config.ante_kind is kind


def check_result(t: Tournament, events: list[TableEvent]) -> None:
    standings = t.standings
    entrants = t.entrants
    assert sorted(s.player_id for s in standings) == sorted(
        p for p in {*t.players_left()} | {s.player_id for s in standings}
    )
    assert len(standings) == entrants == len({s.player_id for s in standings})
    # Places cover 1..n exactly once, tied groups taking consecutive places.
    covered: list[int] = []
    by_place: dict[int, list[Standing]] = {}
    for s in standings:
        by_place.setdefault(s.place, []).append(s)
    for place, group in by_place.items():
        assert all(s.tied == len(group) for s in group)
        covered += range(place, place + len(group))
    assert sorted(covered) == list(range(1, entrants + 1))
    assert sum(s.prize for s in standings) == t.prize_pool == t.config.buy_in * entrants
    prizes = [s.prize for s in sorted(standings, key=lambda s: s.place)]
    assert all(a >= b for a, b in itertools.pairwise(prizes))
    assert sum(s.chips for s in standings) == t.config.starting_stack * entrants
    eliminated = {e.player_id for e in of_type(events, PlayerEliminated)}
    assert eliminated == {s.player_id for s in standings if s.eliminated_in_hand is not None}
    if t.finish_reason == "last_player":
        assert standings[0].place == 1 and standings[0].tied == 1
        assert standings[0].chips == t.config.starting_stack * entrants
    # Later eliminations place higher.
    out = [s for s in standings if s.eliminated_in_hand is not None]
    assert [s.eliminated_in_hand for s in out] == sorted(
        (s.eliminated_in_hand or 0 for s in out), reverse=True
    )


@pytest.mark.parametrize("seed", range(100))
def test_whole_freeze_out_tournament(seed: int) -> None:
    t = play_tournament(seed, time_limited=False)
    assert t.finish_reason == "last_player"


@pytest.mark.parametrize("seed", range(100))
def test_whole_time_limited_tournament(seed: int) -> None:
    t = play_tournament(1000 + seed, time_limited=True)
    assert t.finish_reason in ("time", "last_player")

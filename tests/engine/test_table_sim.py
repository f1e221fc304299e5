"""Long random sessions at a cash table: thousands of hands with players joining, leaving,
sitting out and in, busting, topping up, and the floor pausing, changing blinds, removing players
and voiding hands. After every hand the dead-button invariants are checked against a model kept
by the test itself, and chips are counted to the chip.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field

import pytest

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import Action, ActionKind, AnteKind, ForcedBet, Hand, HandConfig
from engine.seating import NewPlayerPolicy, PlanKind, PlayerId, clockwise
from engine.table import (
    ChipsReturned,
    PlayerBusted,
    PlayerLeft,
    PlayerState,
    SeatView,
    Table,
    TableEvent,
    TableOptions,
)


def random_action(hand: Hand, rng: random.Random) -> None:
    """One legal decision for the player to act, chosen at random."""
    legal = hand.legal()
    assert legal is not None
    i, unit = legal.player, hand.config.chip_unit
    roll = rng.random()
    if roll < 0.04:
        hand.timeout(i)
    elif legal.to_call and roll < 0.30:
        hand.fold(i)
    elif legal.can_raise and roll > 0.80:
        if roll > 0.97:
            hand.go_all_in(i)
            return
        low = -(-legal.min_raise_to // unit) * unit
        top = max(low, min(legal.max_raise_to, low + 6 * hand.config.big_blind))
        amount = min(low + unit * rng.randint(0, (top - low) // unit), legal.max_raise_to)
        hand.apply(Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, i, amount))
    elif legal.to_call:
        hand.call(i)
    else:
        hand.check(i)


@dataclass
class Stats:
    hands: int = 0
    voided: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    transitions: Counter[str] = field(default_factory=Counter)
    busts: int = 0
    entering_posts: int = 0
    dead_small_blinds: int = 0
    dead_buttons: int = 0
    waited_inside: int = 0
    missed_marked: int = 0
    dealt: Counter[int] = field(default_factory=Counter)
    reloads: int = 0


@dataclass
class Session:
    """The table under test plus the test's own model of what must be true."""

    table: Table
    rng: random.Random
    pool: list[PlayerId]
    stats: Stats = field(default_factory=Stats)
    brought: int = 0  # chips the test handed to the table
    taken: int = 0  # chips the test saw leave it
    sitting_out: set[PlayerId] = field(default_factory=set)
    last_bb: tuple[int, PlayerId] | None = None  # seat and player of the last played hand
    last_sb_due: int | None = None  # where its small blind was due, posted or dead
    last_dealt: int = 0
    calm: float = 0.0  # share of leaves and sit-outs skipped: fuller tables

    # -- bookkeeping of events --------------------------------------------------------------

    def absorb(self, events: list[TableEvent]) -> None:
        for e in events:
            if isinstance(e, PlayerLeft):
                self.taken += e.chips
                self.sitting_out.discard(e.player_id)
            elif isinstance(e, ChipsReturned):
                self.taken += e.amount
            elif isinstance(e, PlayerBusted):
                self.stats.busts += 1
                self.sitting_out.add(e.player_id)

    def check_chips(self) -> None:
        t = self.table
        on_table = sum(v.stack + v.pending_chips for v in t.seats())
        assert on_table == t.chips_on_table
        assert on_table + self.taken == self.brought
        assert t.chips_in == self.brought and t.chips_out == self.taken
        for v in t.seats():
            assert (v.state is PlayerState.SITTING_OUT) == (
                v.player_id in self.sitting_out or (v.stack == 0 and not v.in_hand)
            ) or v.state is PlayerState.LEAVING

    # -- random changes ---------------------------------------------------------------------

    def try_(self, fn: object, *args: object) -> None:
        try:
            events = fn(*args)  # type: ignore[operator]
        except EngineError:
            return
        self.absorb(events)

    def random_changes(self, in_hand: bool) -> None:
        t, rng = self.table, self.rng
        opts = t.options
        low, high = opts.buy_in_range
        unit = opts.chip_unit
        if not in_hand and self.calm:
            self.refill()
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            seated = [v.player_id for v in t.seats()]
            roll = rng.random()
            if 0.20 <= roll < 0.40 and rng.random() < self.calm:
                continue
            if roll < 0.20:
                outside = [p for p in self.pool if p not in seated]
                if outside and t.free_seats():
                    stack = rng.randint(low // unit, high // unit) * unit
                    seat = rng.choice([None, *t.free_seats()])
                    events = t.join(rng.choice(outside), stack, seat)
                    self.brought += stack
                    self.absorb(events)
            elif not seated:
                continue
            elif roll < 0.28:
                self.try_(t.leave, rng.choice(seated))
            elif roll < 0.40:
                pid = rng.choice(seated)
                try:
                    self.absorb(t.sit_out(pid))
                    self.sitting_out.add(pid)
                except EngineError:
                    pass
            elif roll < 0.68:
                pid = rng.choice(seated)
                try:
                    self.absorb(t.sit_in(pid))
                    self.sitting_out.discard(pid)
                except EngineError:
                    pass
            elif roll < 0.82:
                pid = rng.choice(seated)
                view = t.player(pid)
                assert view is not None
                room = high - view.stack - view.pending_chips
                if room >= unit:
                    amount = rng.randint(1, room // unit) * unit
                    try:
                        self.absorb(t.top_up(pid, amount))
                        self.brought += amount
                    except EngineError as exc:
                        assert exc.code in ("below_min_buy_in", "leaving")
            elif roll < 0.84:
                self.try_(t.remove, rng.choice(seated), "floor")
            elif roll < 0.90:
                sb = rng.randint(1, 6) * unit
                bb = sb * rng.choice((1, 2, 2, 3))
                if bb * 20 <= high and bb <= low:
                    kind = rng.choice((opts.ante_kind, AnteKind.NONE))
                    ante = 0 if kind is AnteKind.NONE else unit * rng.randint(1, 3)
                    self.absorb(t.change_blinds(sb, bb, ante, kind, by="floor"))
            elif roll < 0.93 and not in_hand:
                self.absorb(t.pause(by="floor"))
                self.absorb(t.resume(by="floor"))

    def refill(self) -> None:
        """Busted players rebuy, absent ones come back, newcomers take free seats."""
        t, rng = self.table, self.rng
        low, high = t.options.buy_in_range
        unit = t.options.chip_unit
        for view in t.seats():
            if view.player_id in self.sitting_out and rng.random() < self.calm / 3:
                if view.stack == 0:
                    amount = rng.randint(low // unit, high // unit) * unit
                    self.absorb(t.top_up(view.player_id, amount))
                    self.brought += amount
                self.absorb(t.sit_in(view.player_id))
                self.sitting_out.discard(view.player_id)
        seated = {v.player_id for v in t.seats()}
        outside = [p for p in self.pool if p not in seated]
        if outside and t.free_seats() and rng.random() < self.calm:
            stack = rng.randint(low // unit, high // unit) * unit
            self.absorb(t.join(rng.choice(outside), stack))
            self.brought += stack

    # -- one hand ---------------------------------------------------------------------------

    def reload(self) -> Hand:
        """Persist the table as JSON and carry on with a copy rebuilt from it (crash recovery):
        the hand in progress comes back by replaying its actions."""
        t = self.table
        data = json.loads(json.dumps(t.to_json()))
        hand = t.hand
        replayed = None
        if hand is not None:
            config = HandConfig.from_json(json.loads(json.dumps(hand.config.to_json())))
            replayed = Hand.replay(config, hand.deck, hand.actions)
            assert replayed.state_key() == hand.state_key()
        self.table = Table.from_json(data, self.rng.randrange(1 << 30), replayed)
        assert self.table.to_json() == data
        self.stats.reloads += 1
        return replayed if replayed is not None else hand  # type: ignore[return-value]

    def play_hand(self) -> None:
        if self.rng.random() < 0.02:
            self.reload()
        t, rng, stats = self.table, self.rng, self.stats
        self.random_changes(in_hand=False)
        before = {v.seat: v for v in t.seats()}
        sitting_in = {
            s for s, v in before.items() if v.player_id not in self.sitting_out and v.stack > 0
        }
        try:
            events = t.start_hand(rng.sample(FULL_DECK, 52))
        except EngineError as exc:
            assert exc.code == "not_enough_players"
            assert len(sitting_in) < 2
            # Somebody has to come back for the game to go on.
            for pid in sorted(self.sitting_out, key=str):
                if rng.random() < 0.5 and pid in {v.player_id for v in before.values()}:
                    view = t.player(pid)
                    assert view is not None
                    if view.stack == 0:
                        amount = t.options.buy_in_range[0]
                        self.absorb(t.top_up(pid, amount))
                        self.brought += amount
                    self.absorb(t.sit_in(pid))
                    self.sitting_out.discard(pid)
            return
        self.absorb(events)
        hand, plan = t.hand, t.plan
        assert hand is not None and plan is not None
        assert set(plan.seats) <= sitting_in
        self.check_placement(before, sitting_in)
        start_total = sum(hand.config.stacks)
        voided = False
        while not hand.is_over:
            if rng.random() < 0.08:
                self.random_changes(in_hand=True)
            if rng.random() < 0.01:
                hand = self.reload()
            assert sum(hand.stacks) + hand.total_pot() == start_total
            if rng.random() < 0.004:
                self.absorb(self.table.void_hand(by="floor"))
                voided = True
                break
            random_action(hand, rng)
        if not voided:
            assert hand.result is not None and sum(hand.result.stacks) == start_total
            self.absorb(self.table.finish_hand())
        stats.hands += 1
        if voided:
            stats.voided += 1
        else:
            self.after_played(before, sitting_in)
        self.check_chips()

    def check_placement(self, before: dict[int, SeatView], sitting_in: set[int]) -> None:
        t, stats = self.table, self.stats
        hand, plan = t.hand, t.plan
        assert hand is not None and plan is not None
        cfg = hand.config
        opts = t.options
        seats, bb_seat = plan.seats, plan.big_blind_seat
        players = t.hand_players
        stats.kinds[plan.kind.value] += 1
        stats.dealt[len(plan.seats)] += 1
        n_seats = opts.seats
        # The designated big blind posts the big blind (and nobody else is the designated one).
        assert seats[cfg.big_blind_index] == bb_seat
        bb_posts = [e for e in hand.events if isinstance(e, ForcedBet) and e.kind == "big_blind"]
        bb = cfg.big_blind_index
        # A per-player ante is posted first, so a big blind whose stack it takes posts no blind.
        ante_took_all = (
            cfg.ante_kind is AnteKind.PER_PLAYER and cfg.stacks[bb] <= cfg.antes[bb]
        )
        assert [e.player for e in bb_posts] == ([] if ante_took_all else [bb])
        if self.last_bb is not None:
            last_seat, last_player = self.last_bb
            # It moves to the first seat clockwise whose player is sitting in: nobody sitting in
            # skips it, and the same player never gets it twice running.
            expected = next(
                s
                for s in clockwise(last_seat, n_seats)
                if s in sitting_in and before[s].player_id != last_player
            )
            assert bb_seat == expected
            assert players[cfg.big_blind_index] != last_player
        if len(seats) == 2:
            # Heads-up: index 1 is the button and posts the small blind; index 0 the big blind.
            assert plan.button_seat == seats[1] == plan.small_blind_seat
            assert cfg.big_blind_index == 0
            assert cfg.blinds == (opts.big_blind, opts.small_blind)
            assert hand.to_act in (1, None) or hand.all_in[1] or hand.all_in[0]
            if self.last_dealt >= 3:
                stats.transitions["to_heads_up"] += 1
        elif self.last_dealt == 2:
            stats.transitions["from_heads_up"] += 1
        self.last_dealt = len(seats)
        if plan.kind is PlanKind.NORMAL:
            assert self.last_bb is not None and self.last_sb_due is not None
            assert plan.button_seat == self.last_sb_due
            assert plan.small_blind_seat in (None, self.last_bb[0])
            if plan.small_blind_seat is None:
                stats.dead_small_blinds += 1
            if plan.button_seat not in seats:
                stats.dead_buttons += 1
            # Clockwise order from the first seat left of the (possibly dead) button.
            ring = [s for s in clockwise(plan.button_seat, n_seats) if s in seats]
            assert list(seats) == ring
            inside = set()
            for s in clockwise(plan.button_seat, n_seats):
                if s == bb_seat:
                    break
                inside.add(s)
            for s in sitting_in - set(seats):
                view = before[s]
                owes = view.owes_big_blind or view.owes_small_blind
                if not owes:
                    # Someone owing nothing sits out a hand only between the button and the
                    # big blind, where he would otherwise play without paying.
                    assert s in inside and s != plan.small_blind_seat
                    stats.waited_inside += 1
        for s in seats:
            i = seats.index(s)
            view = before[s]
            owes_bb = view.owes_big_blind
            owes_sb = view.owes_small_blind
            if s in plan.entering:
                assert plan.kind is PlanKind.NORMAL
                assert opts.new_player is not NewPlayerPolicy.WAIT_FOR_BB
                if opts.new_player is NewPlayerPolicy.POST_BB:
                    assert cfg.blinds[i] == (opts.big_blind if owes_bb else 0)
                    dead = cfg.dead_blinds[i] if cfg.dead_blinds else 0
                    assert dead == (opts.small_blind if owes_sb else 0)
                    stats.entering_posts += 1
            elif plan.kind is PlanKind.NORMAL and s != bb_seat:
                assert not (owes_bb or owes_sb)  # nobody comes in owing without paying
                expected_blind = opts.small_blind if s == plan.small_blind_seat else 0
                assert cfg.blinds[i] == expected_blind

    def after_played(self, before: dict[int, SeatView], sitting_in: set[int]) -> None:
        t = self.table
        plan = t.plan
        assert plan is not None
        if self.last_bb is not None:
            last_seat = self.last_bb[0]
            passed = []
            for s in clockwise(last_seat, t.options.seats):
                if s == plan.big_blind_seat:
                    break
                passed.append(s)
            # Whoever the big blind passed while he was not sitting in now owes it.
            for s in passed:
                if s in before and s not in sitting_in:
                    pid = before[s].player_id
                    view = t.player(pid)
                    if view is not None:
                        assert view.owes_big_blind
                        self.stats.missed_marked += 1
        # Dealt in: everything owed is settled.
        for pid in t.hand_players:
            view = t.player(pid)
            if view is not None:
                assert not view.owes_big_blind and not view.owes_small_blind
        sb_due = plan.small_blind_seat
        if sb_due is None:
            assert self.last_bb is not None
            sb_due = self.last_bb[0]
        self.last_sb_due = sb_due
        bb_index = plan.seats.index(plan.big_blind_seat)
        self.last_bb = (plan.big_blind_seat, t.hand_players[bb_index])


WAIT, POST, DEAL_IN = NewPlayerPolicy
CASES = [
    # seed, seats, policy, ante kind, chip unit, calm, hands
    (1, 6, WAIT, AnteKind.NONE, 1, 0.0, 3000),
    (2, 9, POST, AnteKind.NONE, 1, 0.0, 3000),
    (3, 10, POST, AnteKind.BIG_BLIND, 5, 0.6, 3000),
    (4, 10, WAIT, AnteKind.NONE, 1, 0.6, 3000),
    (5, 4, WAIT, AnteKind.PER_PLAYER, 1, 0.0, 2000),
    (6, 3, POST, AnteKind.NONE, 1, 0.0, 2000),
    (7, 10, DEAL_IN, AnteKind.NONE, 1, 0.3, 2000),
    (8, 23, POST, AnteKind.BIG_BLIND, 25, 0.9, 1000),
]


@pytest.mark.parametrize(("seed", "seats", "policy", "ante_kind", "unit", "calm", "hands"), CASES)
def test_random_cash_session(
    seed: int,
    seats: int,
    policy: NewPlayerPolicy,
    ante_kind: AnteKind,
    unit: int,
    calm: float,
    hands: int,
) -> None:
    rng = random.Random(seed)
    ante = 0 if ante_kind is AnteKind.NONE else 2 * unit
    options = TableOptions(
        small_blind=5 * unit,
        big_blind=10 * unit,
        ante=ante,
        ante_kind=ante_kind,
        chip_unit=unit,
        seats=seats,
        new_player=policy,
        min_buy_in=200 * unit,
        max_buy_in=1000 * unit,
    )
    pool: list[PlayerId] = [f"p{k}" for k in range(seats + 5)]
    if seats > 20:
        pool = pool[:22]  # a hand deals at most 22 players (a burn card before each street)
    session = Session(Table(options, rng=seed), rng, pool, calm=calm)
    while session.stats.hands < hands:
        session.play_hand()
    stats = session.stats
    # The session really went through the situations the rules are about.
    assert stats.busts > 50 and stats.voided > 5 and stats.missed_marked > 100
    assert stats.reloads > 20
    if calm < 0.8:
        assert stats.transitions["to_heads_up"] > 0 and stats.transitions["from_heads_up"] > 0
    if calm == 0:
        assert stats.kinds["heads_up"] > 100 and stats.kinds["restart"] > 5
        assert stats.transitions["to_heads_up"] > 20
    if seats > 3:
        assert stats.dead_small_blinds > 10 and stats.dead_buttons > 20
    if policy is NewPlayerPolicy.POST_BB and seats > 3:
        assert stats.entering_posts > 100
    if seats > 20:
        assert max(stats.dealt) >= 20

"""Invariants of a cash table across many hands (hypothesis state machine).

Hypothesis drives the table through joins, top-ups, sitting out and in, leaving, the floor's
pause, blind changes, removals and voids, and hands dealt from drawn decks and played by random
legal actions, with any of it allowed in the middle of a hand. After every step: chips are
counted to the chip, nothing is negative, and the table survives a JSON round trip (the hand in
progress through ``Hand.replay``). At every deal the big blind is checked to move exactly one
sitting-in seat, never to the same player twice running, with heads-up placed by the rules; the
dead-button model of ``tests/engine/test_table_sim.py`` checks the rest of the placement. Every
refused call must leave the table exactly as it was.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import Action, AnteKind, ForcedBet, Hand, HandConfig
from engine.seating import NewPlayerPolicy, PlayerId, clockwise
from engine.table import PlayerState, SeatView, Table, TableEvent, TableOptions
from tests.engine.test_table_sim import Session, random_action

# Mixed id types: the JSON round trip must keep ints ints and strings strings.
POOL: tuple[PlayerId, ...] = ("ann", 2, "cy", 4, "dee", 6, "eve", 8, "fay", 10, "gus", 12)


def table_key(table: Table) -> tuple[object, ...]:
    """Everything a refused call could have changed: the persisted state plus the live hand."""
    hand = table.hand
    return (
        json.dumps(table.to_json(), sort_keys=True),
        hand.state_key() if hand is not None else None,
        table.can_start(),
    )


class TableMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.table: Table
        self.model: Session
        self.last_bb: tuple[int, PlayerId] | None = None  # seat and player of the last played hand
        self.before: dict[int, SeatView] = {}
        self.sitting_in: set[int] = set()
        self.hands = 0

    # -- set-up ----------------------------------------------------------------------------

    @initialize(
        seats=st.integers(2, 10),
        policy=st.sampled_from(list(NewPlayerPolicy)),
        ante_kind=st.sampled_from(list(AnteKind)),
        unit=st.sampled_from([1, 1, 5, 25]),
        seed=st.integers(0, 2**32 - 1),
        players=st.integers(0, 10),
        low=st.sampled_from([100, 20, 1]),
    )
    def setup(
        self,
        seats: int,
        policy: NewPlayerPolicy,
        ante_kind: AnteKind,
        unit: int,
        seed: int,
        players: int,
        low: int,
    ) -> None:
        # Buy-ins down to one chip give stacks that blinds and antes put all-in at once.
        options = TableOptions(
            small_blind=5 * unit,
            big_blind=10 * unit,
            ante=0 if ante_kind is AnteKind.NONE else 2 * unit,
            ante_kind=ante_kind,
            chip_unit=unit,
            seats=seats,
            new_player=policy,
            min_buy_in=low * unit,
            max_buy_in=1000 * unit,
        )
        self.table = Table(options, rng=seed)
        self.model = Session(self.table, random.Random(seed), list(POOL))
        rng = random.Random(seed)
        for pid in POOL[: min(players, seats)]:
            stack = unit * rng.randint(low, 1000)
            self.model.absorb(self.table.join(pid, stack))
            self.model.brought += stack

    # -- helpers ---------------------------------------------------------------------------

    def attempt(
        self, fn: Callable[..., list[TableEvent]], *args: object
    ) -> list[TableEvent] | None:
        """Call ``fn``; a refusal must leave the table untouched. None when refused."""
        before = table_key(self.table)
        try:
            events = fn(*args)
        except EngineError:
            assert table_key(self.table) == before
            return None
        self.model.absorb(events)
        return events

    def seated(self) -> list[PlayerId]:
        return [v.player_id for v in self.table.seats()]

    # -- players ---------------------------------------------------------------------------

    @rule(data=st.data())
    def join(self, data: st.DataObject) -> None:
        t = self.table
        outside = [p for p in POOL if p not in self.seated()]
        if not outside or not t.free_seats():
            return
        low, high = t.options.buy_in_range
        unit = t.options.chip_unit
        pid = data.draw(st.sampled_from(outside), label="player")
        seat = data.draw(st.sampled_from([None, *t.free_seats()]), label="seat")
        stack = unit * data.draw(st.integers(low // unit, high // unit), label="stack")
        events = t.join(pid, stack, seat)
        self.model.brought += stack
        self.model.absorb(events)
        view = t.player(pid)
        assert view is not None and view.stack == stack and (seat is None or view.seat == seat)

    @rule(data=st.data())
    def top_up(self, data: st.DataObject) -> None:
        if not self.seated():
            return
        pid = data.draw(st.sampled_from(self.seated()), label="player")
        unit = self.table.options.chip_unit
        amount = unit * data.draw(st.integers(1, 1000), label="units")
        if self.attempt(self.table.top_up, pid, amount) is not None:
            self.model.brought += amount

    @rule(data=st.data())
    def sit_out(self, data: st.DataObject) -> None:
        if not self.seated():
            return
        pid = data.draw(st.sampled_from(self.seated()), label="player")
        if self.attempt(self.table.sit_out, pid) is not None:
            self.model.sitting_out.add(pid)

    @rule(data=st.data())
    def sit_in(self, data: st.DataObject) -> None:
        if not self.seated():
            return
        pid = data.draw(st.sampled_from(self.seated()), label="player")
        if self.attempt(self.table.sit_in, pid) is not None:
            self.model.sitting_out.discard(pid)

    @rule(data=st.data())
    def leave(self, data: st.DataObject) -> None:
        if not self.seated():
            return
        pid = data.draw(st.sampled_from(self.seated()), label="player")
        events = self.attempt(self.table.leave, pid)
        if events is not None and self.table.hand_index(pid) is None:
            assert self.table.seat_of(pid) is None

    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        if not self.seated():
            return
        pid = data.draw(st.sampled_from(self.seated()), label="player")
        self.attempt(self.table.remove, pid, "floor")

    @rule(data=st.data())
    def refused(self, data: st.DataObject) -> None:
        """Calls that must be refused in any state; ``attempt`` checks they change nothing."""
        t = self.table
        low, high = t.options.buy_in_range
        unit = t.options.chip_unit
        seated = self.seated()
        outside = [p for p in POOL if p not in seated]
        calls: list[tuple[Callable[..., list[TableEvent]], tuple[object, ...]]] = [
            (t.join, ("ghost", low - unit)),
            (t.join, ("ghost", high + unit)),
            (t.join, ("ghost", True)),
            (t.join, (True, low)),
            (t.join, ("ghost", low, t.options.seats + 1)),
            (t.top_up, ("ghost", unit)),
            (t.leave, ("ghost",)),
            (t.sit_in, ("ghost",)),
            (t.finish_hand, ()),
        ]
        if unit > 1:
            calls.append((t.join, ("ghost", low + 1)))
        if seated:
            calls += [(t.join, (seated[0], low)), (t.top_up, (seated[0], 0))]
            calls += [(t.top_up, (seated[0], -unit)), (t.top_up, (seated[0], high + unit))]
        if outside and seated:
            calls.append((t.join, (outside[0], low, t.seat_of(seated[0]))))
        if t.hand is not None:
            calls.append((t.start_hand, (FULL_DECK,)))
        else:
            calls.append((t.void_hand, ()))
        if not t.paused:
            calls.append((t.resume, ()))
        fn, args = data.draw(st.sampled_from(calls), label="call")
        before = table_key(t)
        if fn == t.finish_hand and t.hand is not None and t.hand.is_over:
            return  # the one call in the list that is legal in this state
        try:
            fn(*args)
        except EngineError:
            pass
        else:
            raise AssertionError(f"{fn.__name__}{args} was accepted")
        assert table_key(t) == before

    # -- the floor -------------------------------------------------------------------------

    @rule()
    def pause_or_resume(self) -> None:
        t = self.table
        self.model.absorb(t.resume("floor") if t.paused else t.pause("floor"))

    @rule(
        sb=st.integers(1, 6),
        times=st.sampled_from([1, 2, 2, 3]),
        kind=st.sampled_from(list(AnteKind)),
        ante=st.integers(1, 3),
    )
    def change_blinds(self, sb: int, times: int, kind: AnteKind, ante: int) -> None:
        t = self.table
        unit = t.options.chip_unit
        in_play = t.hand.config if t.hand is not None else None
        self.model.absorb(
            t.change_blinds(
                sb * unit,
                sb * times * unit,
                0 if kind is AnteKind.NONE else ante * unit,
                kind,
                by="floor",
            )
        )
        # A hand in progress keeps the blinds it was dealt with.
        assert t.hand is None or t.hand.config is in_play

    @precondition(lambda self: self.table.hand is not None and not self.table.hand.is_over)
    @rule()
    def void_hand(self) -> None:
        t = self.table
        hand = t.hand
        assert hand is not None
        starting = hand.config.stacks
        players = t.hand_players
        rotation, number = t.rotation, t.hand_number
        self.model.absorb(t.void_hand(by="floor"))
        assert t.hand is None and t.rotation == rotation and t.hand_number == number
        # Every chip goes back: stacks are as dealt, plus any top-up that was waiting.
        for pid, stack in zip(players, starting, strict=True):
            view = t.player(pid)
            if view is not None:
                assert view.stack >= stack
        self.hands += 1

    # -- hands -----------------------------------------------------------------------------

    @precondition(lambda self: self.table.hand is None)
    @rule(seed=st.integers(0, 2**32 - 1), pick_button=st.booleans())
    def start_hand(self, seed: int, pick_button: bool) -> None:
        t = self.table
        deck = random.Random(seed).sample(FULL_DECK, 52)
        if not t.can_start():
            key = table_key(t)
            try:
                t.start_hand(deck)
            except EngineError as exc:
                expected = "table_paused" if t.paused else "not_enough_players"
                assert exc.code == expected
            else:
                raise AssertionError("a hand started that could not start")
            assert table_key(t) == key
            # The floor gets the game going again, so that hands keep being dealt.
            self.revive()
        before = {v.seat: v for v in t.seats()}
        sitting_in = {
            s
            for s, v in before.items()
            if v.stack > 0 and v.player_id not in self.model.sitting_out
        }
        assert set(t.sitting_in()) == sitting_in and len(sitting_in) >= 2
        button = None
        if pick_button and t.rotation is None:
            button = sorted(sitting_in)[seed % len(sitting_in)]
        # What the table says the next hand would be is what it deals (the first button aside,
        # which is drawn).
        predicted = t.next_plan(button) if t.rotation is not None or button else None
        self.model.absorb(t.start_hand(deck, button))
        assert predicted is None or t.plan == predicted
        assert set(t.hand_seats) <= sitting_in
        self.before, self.sitting_in = before, sitting_in
        if self.check_big_blind(before, sitting_in):
            # The simulation's checker expects a big-blind post in every hand, which a per-player
            # ante that takes the big blind's last chip rules out (checked above instead).
            self.model.check_placement(before, sitting_in)

    def revive(self) -> None:
        """Resume, bring players back (rebuying if broke) and seat newcomers until two are in."""
        t, m = self.table, self.model
        if t.paused:
            m.absorb(t.resume("floor"))
        low = t.options.buy_in_range[0]
        for view in t.seats():
            if len(t.sitting_in()) >= 2:
                return
            if view.stack + view.pending_chips == 0:
                m.absorb(t.top_up(view.player_id, low))
                m.brought += low
            if view.player_id in m.sitting_out:
                m.absorb(t.sit_in(view.player_id))
                m.sitting_out.discard(view.player_id)
        for pid in POOL:
            if len(t.sitting_in()) >= 2:
                return
            if t.seat_of(pid) is None:
                m.absorb(t.join(pid, low))
                m.brought += low

    def check_big_blind(self, before: dict[int, SeatView], sitting_in: set[int]) -> bool:
        """Checks the big blind's placement; False when he could not post it (ante all-in)."""
        t = self.table
        hand, plan = t.hand, t.plan
        assert hand is not None and plan is not None
        cfg = hand.config
        players = t.hand_players
        # Exactly the designated big blind posts it, unless his ante already took his last chip.
        bb = cfg.big_blind_index
        posted = [
            e.player for e in hand.events if isinstance(e, ForcedBet) and e.kind == "big_blind"
        ]
        ante_all_in = cfg.ante_kind is AnteKind.PER_PLAYER and cfg.stacks[bb] <= cfg.antes[bb]
        assert posted == ([] if ante_all_in else [bb])
        assert t.hand_seats[cfg.big_blind_index] == plan.big_blind_seat
        if self.last_bb is not None:
            last_seat, last_player = self.last_bb
            # One step: the first seat clockwise from the last big blind whose player is
            # sitting in (the last big blind's player himself never twice running).
            expected = next(
                s
                for s in clockwise(last_seat, t.options.seats)
                if s in sitting_in and before[s].player_id != last_player
            )
            assert plan.big_blind_seat == expected
            assert players[cfg.big_blind_index] != last_player
        if len(players) == 2:
            # Heads-up the button posts the small blind and acts first before the flop.
            assert plan.button_seat == plan.small_blind_seat == t.hand_seats[1]
            assert cfg.big_blind_index == 0
            assert cfg.blinds == (t.options.big_blind, t.options.small_blind)
            assert hand.to_act in (1, None) or hand.all_in[0] or hand.all_in[1]
        return not ante_all_in

    @precondition(lambda self: self.table.hand is not None and not self.table.hand.is_over)
    @rule(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 60))
    def act(self, seed: int, steps: int) -> None:
        hand = self.table.hand
        assert hand is not None
        rng = random.Random(seed)
        total = sum(hand.config.stacks)
        for _ in range(steps):
            if hand.is_over:
                break
            street = hand.street
            random_action(hand, rng)
            assert sum(hand.stacks) + (0 if hand.is_over else hand.total_pot()) == total
            if hand.street != street and hand.to_act is not None:
                # After the flop the first player left of the button still in it acts first
                # (heads-up: the big blind, index 0).
                live = [i for i in range(hand.n) if not hand.folded[i] and not hand.all_in[i]]
                assert hand.to_act == live[0]

    @precondition(lambda self: self.table.hand is not None and self.table.hand.is_over)
    @rule()
    def finish_hand(self) -> None:
        t = self.table
        hand, plan = t.hand, t.plan
        assert hand is not None and hand.result is not None and plan is not None
        players = t.hand_players
        final = hand.result.stacks
        self.model.absorb(t.finish_hand())
        assert t.hand is None and t.rotation == plan.rotation
        for pid, stack in zip(players, final, strict=True):
            view = t.player(pid)
            if view is not None:
                assert view.stack >= stack and not view.owes_big_blind
                if stack == 0 and view.pending_chips == 0 and view.stack == 0:
                    assert view.state is PlayerState.SITTING_OUT
        self.model.after_played(self.before, self.sitting_in)
        self.last_bb = (plan.big_blind_seat, players[plan.big_blind_index])
        self.hands += 1

    @rule(seed=st.integers(0, 2**32 - 1))
    def play_hand(self, seed: int) -> None:
        """A whole hand in one step (the hand in progress, or a new one), so that sessions get
        far enough for busts, missed blinds and dead buttons; the rules above interleave."""
        if self.table.hand is None:
            self.start_hand(seed, pick_button=False)
        hand = self.table.hand
        assert hand is not None
        while not hand.is_over:
            self.act(seed, 60)
        self.finish_hand()

    @rule(seed=st.integers(0, 2**30))
    def reload(self, seed: int) -> None:
        """Carry on with a copy rebuilt from JSON, as after a restart."""
        self.table = self.model.table = rebuilt(self.table, seed)

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def chips_are_conserved(self) -> None:
        t, m = self.table, self.model
        assert t.chips_in == m.brought and t.chips_out == m.taken
        assert t.chips_on_table + t.chips_out == t.chips_in
        # Counted independently: stacks off the hand, plus the hand's own chips (stacks and
        # pot), plus top-ups waiting for it to end, plus what left.
        hand = t.hand
        counted = 0
        for v in t.seats():
            assert v.stack >= 0 and v.pending_chips >= 0
            counted += v.pending_chips
            if hand is None or t.hand_index(v.player_id) is None:
                counted += v.stack
        if hand is not None:
            assert min(hand.stacks) >= 0
            # Once the hand is over the pot has been paid into the stacks.
            counted += sum(hand.stacks) + (0 if hand.is_over else hand.total_pot())
            # Nobody in the hand leaves the table before it is settled.
            assert all(t.seat_of(p) is not None for p in t.hand_players)
        assert counted + m.taken == m.brought
        m.check_chips()

    @invariant()
    def json_round_trip(self) -> None:
        rebuilt(self.table, 0)


def rebuilt(table: Table, seed: int) -> Table:
    """The table rebuilt from its JSON (the hand in progress replayed); must be the same."""
    data = json.loads(json.dumps(table.to_json()))
    hand = table.hand
    replayed = None
    if hand is not None:
        config = HandConfig.from_json(json.loads(json.dumps(hand.config.to_json())))
        actions = [Action.from_json(json.loads(json.dumps(a.to_json()))) for a in hand.actions]
        replayed = Hand.replay(config, hand.deck, actions)
        assert replayed.state_key() == hand.state_key()
    copy = Table.from_json(data, seed, replayed)
    assert copy.to_json() == data
    assert copy.seats() == table.seats() and copy.snapshot() == table.snapshot()
    assert copy.chips_on_table == table.chips_on_table
    assert copy.can_start() == table.can_start()
    if len(table.sitting_in()) >= 2:
        assert copy.next_plan() == table.next_plan()
    return copy


TableMachine.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_table_state_machine = TableMachine.TestCase

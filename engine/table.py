"""A table of seats that lives across many hands: cash games, and the layer tournaments run on.

Players come and go between hands: joining, topping up, sitting out and in, and leaving take
effect for the next hand, while a player who is in the hand keeps playing it (his leave and his
top-up wait for it to end). The button and blinds follow the dead-button rule in
:mod:`engine.seating`; players who skipped blinds owe them by the table's new-player policy.

Time and randomness come from outside (the first button is drawn from the ``rng`` given), and
every change returns the events it caused, so the runtime can persist them and tests can check
every rule without a clock.

>>> from engine.cards import FULL_DECK
>>> table = Table(TableOptions(small_blind=5, big_blind=10), rng=7)
>>> _ = table.join("ann", 1000, seat=1)
>>> _ = table.join("bob", 1000, seat=4)
>>> events = table.start_hand(FULL_DECK)
>>> table.hand_players, table.big_blind_seat
(('ann', 'bob'), 1)
>>> _ = table.hand.fold(table.hand.to_act)
>>> [e.type for e in table.finish_hand()]
['hand_finished']
>>> table.chips_on_table == table.chips_in - table.chips_out == 2000
True
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from engine.cards import Card
from engine.errors import EngineError
from engine.games import NLHE, Game, game_by_code
from engine.hand import (
    AnteKind,
    Event,
    Hand,
    HandConfig,
    HandVoided,
    ReopenMode,
    RunItTwice,
    StraddleMode,
    json_value,
)
from engine.limits import MAX_CHIPS, MAX_SEATS
from engine.seating import (
    HandPlan,
    NewPlayerPolicy,
    PlanKind,
    PlayerId,
    Rotation,
    SeatStatus,
    plan_hand,
)

__all__ = [
    "MAX_SEATS",
    "BlindMissed",
    "BlindsChanged",
    "ChipsAdded",
    "ChipsReturned",
    "HandFinished",
    "HandStarted",
    "HandVoidedByFloor",
    "NewPlayerPolicy",
    "PlayerBusted",
    "PlayerId",
    "PlayerJoined",
    "PlayerLeaving",
    "PlayerLeft",
    "PlayerRemoved",
    "PlayerSatIn",
    "PlayerSatOut",
    "PlayerState",
    "RunItTwice",
    "SeatView",
    "StraddleMode",
    "Table",
    "TableEvent",
    "TableOptions",
    "TablePaused",
    "TableResumed",
]


def _require_int(name: str, value: object, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EngineError("bad_option", option=name, value=repr(value))
    return value


def _game_option(code: object) -> Game:
    try:
        return game_by_code(code)
    except EngineError:
        raise EngineError("bad_option", option="game", value=repr(code)) from None


class PlayerState(StrEnum):
    PLAYING = "playing"  # dealt in every hand (a player owing blinds under ``post_bb`` posts first)
    SITTING_OUT = "sitting_out"  # skipped; owes the blinds that pass him (busted players too)
    WAITING_FOR_BB = "waiting_for_bb"  # dealt in when the big blind reaches his seat
    LEAVING = "leaving"  # asked to leave (or was removed) during a hand he is playing


@dataclass(frozen=True, slots=True)
class TableOptions:
    """How a table plays. Buy-ins default to 20 and 100 big blinds.

    ``run_it_twice`` applies to every hand (see :class:`~engine.hand.RunItTwice`); ``straddle``
    says which position may straddle, the players who want to being named to
    :meth:`Table.start_hand` hand by hand. ``game`` is the game every hand is dealt in
    (:mod:`engine.games`; Hold'em by default); ``seats`` may not exceed what one deck deals in
    it (:attr:`~engine.games.Game.max_players`: 11 for Omaha, 9 for five-card Omaha).
    """

    small_blind: int
    big_blind: int
    ante: int = 0
    ante_kind: AnteKind = AnteKind.NONE
    chip_unit: int = 1
    reopen: ReopenMode = ReopenMode.TDA
    min_buy_in: int | None = None
    max_buy_in: int | None = None
    seats: int = 10
    new_player: NewPlayerPolicy = NewPlayerPolicy.WAIT_FOR_BB
    run_it_twice: RunItTwice = RunItTwice.OFF
    straddle: StraddleMode = StraddleMode.OFF
    game: Game = NLHE

    def __post_init__(self) -> None:
        unit = _require_int("chip_unit", self.chip_unit, minimum=1)
        sb = _require_int("small_blind", self.small_blind, minimum=1)
        bb = _require_int("big_blind", self.big_blind, minimum=1)
        ante = _require_int("ante", self.ante)
        if sb > bb:
            raise EngineError("blinds_out_of_order", small_blind=sb, big_blind=bb)
        if not isinstance(self.ante_kind, AnteKind):
            raise EngineError("bad_option", option="ante_kind", value=repr(self.ante_kind))
        if self.ante_kind is AnteKind.NONE and ante:
            raise EngineError("bad_option", option="ante", value=ante, ante_kind="none")
        if not isinstance(self.reopen, ReopenMode):
            raise EngineError("bad_option", option="reopen", value=repr(self.reopen))
        if not isinstance(self.new_player, NewPlayerPolicy):
            raise EngineError("bad_option", option="new_player", value=repr(self.new_player))
        if not isinstance(self.run_it_twice, RunItTwice):
            raise EngineError("bad_option", option="run_it_twice", value=repr(self.run_it_twice))
        if not isinstance(self.straddle, StraddleMode):
            raise EngineError("bad_option", option="straddle", value=repr(self.straddle))
        if not isinstance(self.game, Game) or game_by_code(self.game.code) != self.game:
            raise EngineError("bad_option", option="game", value=repr(self.game))
        seats = _require_int("seats", self.seats, minimum=2)
        if seats > self.game.max_players:
            # One deck deals every hole card and a board: name the game, not just the number.
            raise EngineError(
                "seats_for_game", seats=seats, maximum=self.game.max_players, game=self.game.code
            )
        # Buy-ins left to their defaults (20 and 100 big blinds) must fit too: name the blind
        # that makes them too large, since that is what the host typed.
        for given, blinds in ((self.max_buy_in, 100), (self.min_buy_in, 20)):
            if given is None and bb * blinds > MAX_CHIPS:
                raise EngineError(
                    "amount_too_large", option="big_blind", value=bb, maximum=MAX_CHIPS // blinds
                )
        low, high = self.buy_in_range
        _require_int("min_buy_in", low, minimum=1)
        _require_int("max_buy_in", high, minimum=low)
        for name, value in (
            ("chip_unit", unit),
            ("small_blind", sb),
            ("big_blind", bb),
            ("ante", ante),
            ("min_buy_in", low),
            ("max_buy_in", high),
        ):
            # Derived buy-ins count too: 100 big blinds of a huge blind must not slip past.
            if value > MAX_CHIPS:
                raise EngineError("amount_too_large", option=name, value=value, maximum=MAX_CHIPS)
            if value % unit:
                raise EngineError("amount_not_multiple", option=name, value=value, chip_unit=unit)

    @property
    def buy_in_range(self) -> tuple[int, int]:
        low = self.min_buy_in if self.min_buy_in is not None else 20 * self.big_blind
        high = self.max_buy_in if self.max_buy_in is not None else 100 * self.big_blind
        return low, high

    def with_blinds(
        self,
        small_blind: int,
        big_blind: int,
        ante: int | None = None,
        ante_kind: AnteKind | None = None,
    ) -> TableOptions:
        """The same table with other blinds; buy-ins given in big blinds keep their multiple."""
        return dataclasses.replace(
            self,
            small_blind=small_blind,
            big_blind=big_blind,
            ante=self.ante if ante is None else ante,
            ante_kind=self.ante_kind if ante_kind is None else ante_kind,
        )

    def to_json(self) -> dict[str, Any]:
        data = {f.name: json_value(getattr(self, f.name)) for f in fields(self) if f.name != "game"}
        # Written only for another game, so a Hold'em table's stored options stay as they were.
        if self.game != NLHE:
            data["game"] = self.game.code
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableOptions:
        try:
            return cls(
                small_blind=data["small_blind"],
                big_blind=data["big_blind"],
                ante=data.get("ante", 0),
                ante_kind=AnteKind(data.get("ante_kind", "none")),
                chip_unit=data.get("chip_unit", 1),
                reopen=ReopenMode(data.get("reopen", "tda")),
                min_buy_in=data.get("min_buy_in"),
                max_buy_in=data.get("max_buy_in"),
                seats=data.get("seats", 10),
                new_player=NewPlayerPolicy(data.get("new_player", "wait_for_bb")),
                run_it_twice=RunItTwice(data.get("run_it_twice", "off")),
                straddle=StraddleMode(data.get("straddle", "off")),
                game=_game_option(data.get("game", NLHE.code)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_option", option="json", value=str(exc)) from None


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    player_id: PlayerId
    stack: int  # behind, as of the start of the hand in progress
    state: PlayerState
    owes_small_blind: bool
    owes_big_blind: bool
    pending_chips: int  # a top-up that lands when the hand in progress ends
    in_hand: bool
    leaving: str | None = None  # why he leaves when his hand ends: "left" or "removed"

    def to_json(self) -> dict[str, Any]:
        return {f.name: json_value(getattr(self, f.name)) for f in fields(self)}


# --- events -------------------------------------------------------------------------------


class TableEvent(Event):
    """Something that happened at the table; ``to_json`` gives a dict with a ``type`` key."""

    type: ClassVar[str] = "table_event"
    __slots__ = ()


@dataclass(frozen=True, slots=True)
class PlayerJoined(TableEvent):
    type: ClassVar[str] = "player_joined"
    player_id: PlayerId
    seat: int
    stack: int  # chips brought to the table (taken from the wallet)
    state: PlayerState


@dataclass(frozen=True, slots=True)
class ChipsAdded(TableEvent):
    type: ClassVar[str] = "chips_added"
    player_id: PlayerId
    amount: int  # taken from the wallet now
    stack: int  # his stack afterwards, counting chips still pending
    pending: bool  # True: he is in a hand; the chips land when it ends


@dataclass(frozen=True, slots=True)
class ChipsReturned(TableEvent):
    """Part of a pending top-up that would take him over the maximum buy-in goes back."""

    type: ClassVar[str] = "chips_returned"
    player_id: PlayerId
    amount: int
    reason: str


@dataclass(frozen=True, slots=True)
class PlayerSatOut(TableEvent):
    type: ClassVar[str] = "player_sat_out"
    player_id: PlayerId
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatIn(TableEvent):
    type: ClassVar[str] = "player_sat_in"
    player_id: PlayerId
    seat: int
    state: PlayerState
    owes_small_blind: bool
    owes_big_blind: bool


@dataclass(frozen=True, slots=True)
class PlayerLeaving(TableEvent):
    """He is in the hand: he plays it out and leaves when it ends."""

    type: ClassVar[str] = "player_leaving"
    player_id: PlayerId
    seat: int
    reason: str  # "left" or "removed"


@dataclass(frozen=True, slots=True)
class PlayerLeft(TableEvent):
    """He is gone; ``chips`` leave the table (to his wallet)."""

    type: ClassVar[str] = "player_left"
    player_id: PlayerId
    seat: int
    chips: int
    reason: str  # "left", "removed" or "eliminated"


@dataclass(frozen=True, slots=True)
class PlayerBusted(TableEvent):
    type: ClassVar[str] = "player_busted"
    player_id: PlayerId
    seat: int
    hand_number: int
    starting_stack: int  # his stack when the hand began (ranks same-hand eliminations)


@dataclass(frozen=True, slots=True)
class BlindMissed(TableEvent):
    type: ClassVar[str] = "blind_missed"
    player_id: PlayerId
    seat: int
    blind: str  # "small_blind" or "big_blind"
    hand_number: int


@dataclass(frozen=True, slots=True)
class HandStarted(TableEvent):
    type: ClassVar[str] = "hand_started"
    hand_number: int
    kind: PlanKind
    button_seat: int
    small_blind_seat: int | None  # None: dead small blind
    big_blind_seat: int
    seats: tuple[int, ...]  # hand index -> seat
    players: tuple[PlayerId, ...]  # hand index -> player
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    entering: tuple[int, ...]  # seats dealt in out of turn (posting what they owe, by policy)
    straddle_seat: int | None = None  # who straddled this hand
    bomb_pot: int = 0  # the bomb everybody put in (0: not a bomb pot; no blinds, no antes)


@dataclass(frozen=True, slots=True)
class HandFinished(TableEvent):
    type: ClassVar[str] = "hand_finished"
    hand_number: int
    voided: bool
    players: tuple[PlayerId, ...]
    stacks: tuple[int, ...]  # hand index -> stack after the hand


@dataclass(frozen=True, slots=True)
class TablePaused(TableEvent):
    type: ClassVar[str] = "table_paused"
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class TableResumed(TableEvent):
    type: ClassVar[str] = "table_resumed"
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class BlindsChanged(TableEvent):
    type: ClassVar[str] = "blinds_changed"
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    from_hand: int
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class PlayerRemoved(TableEvent):
    type: ClassVar[str] = "player_removed"
    player_id: PlayerId
    seat: int
    deferred: bool  # in the hand: removed when it ends
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class HandVoidedByFloor(TableEvent):
    type: ClassVar[str] = "hand_voided_by_floor"
    hand_number: int
    refunds: tuple[int, ...]  # hand index -> chips given back
    by: PlayerId | None


# --- the table ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Seat:
    player_id: PlayerId
    stack: int
    sitting_out: bool = False
    leaving: str | None = None  # reason, when he leaves at the end of the hand he plays
    owes_sb: bool = False
    owes_bb: bool = False
    pending: int = 0


class Table:
    """Seats, stacks and the button across hands. One hand at a time: ``start_hand`` deals it,
    the caller plays ``table.hand`` to its end, then ``finish_hand`` settles it.

    ``tournament=True`` makes a tournament table: nobody sits out or tops up, and a player who
    runs out of chips is eliminated (unseated) instead of sitting out to rebuy.
    """

    def __init__(
        self,
        options: TableOptions,
        rng: random.Random | int | None = None,
        *,
        tournament: bool = False,
    ) -> None:
        if not isinstance(options, TableOptions):
            raise EngineError("bad_option", option="options", value=repr(options))
        self._options = options
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._tournament = tournament
        self._seats: dict[int, _Seat] = {}
        self._paused = False
        self._rotation: Rotation | None = None
        self._hand: Hand | None = None
        self._plan: HandPlan | None = None
        self._hand_players: tuple[PlayerId, ...] = ()
        self._marks: tuple[tuple[str, PlayerId, int], ...] = ()
        self._hand_number = 0
        self._chips_in = 0
        self._chips_out = 0

    # -- queries ---------------------------------------------------------------------------

    @property
    def options(self) -> TableOptions:
        """The options the next hand will be dealt with."""
        return self._options

    @property
    def tournament(self) -> bool:
        return self._tournament

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def hand(self) -> Hand | None:
        """The hand in progress (also once it is over, until ``finish_hand``)."""
        return self._hand

    @property
    def live_hand(self) -> Hand | None:
        """The hand while it is being played (None between hands or once it is over)."""
        hand = self._hand
        return hand if hand is not None and not hand.is_over else None

    @property
    def hand_number(self) -> int:
        """Number of the hand in progress or last dealt (the first hand is 1)."""
        return self._hand_number

    @property
    def plan(self) -> HandPlan | None:
        """Placement of the hand in progress or last dealt."""
        return self._plan

    @property
    def hand_seats(self) -> tuple[int, ...]:
        """Seat of each hand index, for the hand in progress or last dealt."""
        return self._plan.seats if self._plan else ()

    @property
    def hand_players(self) -> tuple[PlayerId, ...]:
        """Player of each hand index, for the hand in progress or last dealt."""
        return self._hand_players

    @property
    def button_seat(self) -> int | None:
        return self._plan.button_seat if self._plan else None

    @property
    def small_blind_seat(self) -> int | None:
        return self._plan.small_blind_seat if self._plan else None

    @property
    def big_blind_seat(self) -> int | None:
        return self._plan.big_blind_seat if self._plan else None

    @property
    def rotation(self) -> Rotation | None:
        """What the next hand is placed from (None before the first hand)."""
        return self._rotation

    @property
    def chips_in(self) -> int:
        """Every chip ever brought to the table (buy-ins and top-ups)."""
        return self._chips_in

    @property
    def chips_out(self) -> int:
        """Every chip that left the table (players leaving, top-ups given back)."""
        return self._chips_out

    @property
    def chips_on_table(self) -> int:
        """Stacks (as of the start of the hand in progress, whose chips are in play) + pending."""
        return sum(s.stack + s.pending for s in self._seats.values())

    def hand_index(self, player_id: PlayerId) -> int | None:
        """His index in the hand in progress, None when he is not in it."""
        if self._hand is None:
            return None
        try:
            return self._hand_players.index(player_id)
        except ValueError:
            return None

    def seat_of(self, player_id: PlayerId) -> int | None:
        for seat, occupant in self._seats.items():
            if occupant.player_id == player_id:
                return seat
        return None

    def player(self, player_id: PlayerId) -> SeatView | None:
        seat = self.seat_of(player_id)
        return self._view(seat) if seat is not None else None

    def seat(self, seat: int) -> SeatView | None:
        return self._view(seat) if seat in self._seats else None

    def seats(self) -> tuple[SeatView, ...]:
        """Occupied seats in seat order."""
        return tuple(self._view(seat) for seat in sorted(self._seats))

    def free_seats(self) -> tuple[int, ...]:
        return tuple(s for s in range(1, self._options.seats + 1) if s not in self._seats)

    def sitting_in(self) -> tuple[int, ...]:
        """Seats whose player would be dealt in somewhere in the rotation (chips, not out)."""
        return tuple(s for s in sorted(self._seats) if self._is_sitting_in(self._seats[s]))

    def can_start(self) -> bool:
        return self._hand is None and not self._paused and len(self.sitting_in()) >= 2

    def snapshot(self) -> dict[str, Any]:
        """A JSON-safe view for rendering."""
        return {
            "options": self._options.to_json(),
            "paused": self._paused,
            "hand_number": self._hand_number,
            "in_hand": self._hand is not None,
            "button_seat": self.button_seat,
            "small_blind_seat": self.small_blind_seat,
            "big_blind_seat": self.big_blind_seat,
            "seats": [v.to_json() for v in self.seats()],
        }

    # -- persistence -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole table state, JSON-safe. The hand in progress is not in it: store its
        config, deck and actions, and give it back replayed to :meth:`from_json`."""
        return {
            "options": self._options.to_json(),
            "tournament": self._tournament,
            "paused": self._paused,
            "hand_number": self._hand_number,
            "chips_in": self._chips_in,
            "chips_out": self._chips_out,
            "rotation": self._rotation.to_json() if self._rotation else None,
            "seats": [
                {
                    "seat": seat,
                    "player_id": s.player_id,
                    "stack": s.stack,
                    "sitting_out": s.sitting_out,
                    "leaving": s.leaving,
                    "owes_sb": s.owes_sb,
                    "owes_bb": s.owes_bb,
                    "pending": s.pending,
                }
                for seat, s in sorted(self._seats.items())
            ],
            "plan": self._plan.to_json() if self._plan else None,
            "hand_players": list(self._hand_players),
            "marks": [list(m) for m in self._marks],
            "in_hand": self._hand is not None,
        }

    @classmethod
    def from_json(
        cls,
        data: dict[str, Any],
        rng: random.Random | int | None = None,
        hand: Hand | None = None,
    ) -> Table:
        """A table from :meth:`to_json`; ``hand`` is the hand that was in progress, replayed
        (``Hand.replay(config, deck, actions)``), if there was one."""
        try:
            table = cls(TableOptions.from_json(data["options"]), rng, tournament=data["tournament"])
            table._paused = bool(data["paused"])
            table._hand_number = int(data["hand_number"])
            table._chips_in = int(data["chips_in"])
            table._chips_out = int(data["chips_out"])
            rotation = data["rotation"]
            table._rotation = Rotation.from_json(rotation) if rotation else None
            for s in data["seats"]:
                table._seats[int(s["seat"])] = _Seat(
                    s["player_id"],
                    int(s["stack"]),
                    bool(s["sitting_out"]),
                    s["leaving"],
                    bool(s["owes_sb"]),
                    bool(s["owes_bb"]),
                    int(s["pending"]),
                )
            plan = data["plan"]
            table._plan = HandPlan.from_json(plan) if plan else None
            table._hand_players = tuple(data["hand_players"])
            table._marks = tuple((m[0], m[1], int(m[2])) for m in data["marks"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_table_state", value=str(exc)) from None
        if bool(data["in_hand"]) != (hand is not None):
            raise EngineError("bad_table_state", value="hand in progress missing or unexpected")
        if hand is not None:
            stacks = tuple(table._seats[s].stack for s in table.hand_seats)
            if hand.config.stacks != stacks:
                raise EngineError("bad_table_state", value="hand does not match the seats")
            table._hand = hand
        return table

    # -- players ---------------------------------------------------------------------------

    def join(self, player_id: PlayerId, stack: int, seat: int | None = None) -> list[TableEvent]:
        """Sit a player down with ``stack`` chips (a random free seat when ``seat`` is None).

        He is dealt in from the next hand by the new-player policy; joining during a hand takes
        the seat at once.
        """
        if isinstance(player_id, bool) or not isinstance(player_id, str | int):
            raise EngineError("bad_player", player=repr(player_id))
        if self.seat_of(player_id) is not None:
            raise EngineError("already_seated", player=player_id)
        free = self.free_seats()
        if not free:
            raise EngineError("table_full")
        if seat is None:
            seat = self._rng.choice(free)
        elif isinstance(seat, bool) or not isinstance(seat, int):
            raise EngineError("bad_seat", seat=repr(seat))
        elif not 1 <= seat <= self._options.seats:
            raise EngineError("bad_seat", seat=seat, seats=self._options.seats)
        elif seat in self._seats:
            raise EngineError("seat_taken", seat=seat)
        self._check_chips(stack)
        if self._tournament:
            if stack <= 0:
                raise EngineError("bad_amount", amount=stack)
        else:
            low, high = self._options.buy_in_range
            if not low <= stack <= high:
                raise EngineError("buy_in_out_of_range", amount=stack, minimum=low, maximum=high)
        self._check_room(stack)
        # A newcomer owes a big blind, except before the first hand, when everybody is dealt in
        # (and when the game has to start again for lack of players, which clears it anyway).
        fresh = self._rotation is None and self._hand is None
        self._seats[seat] = _Seat(player_id, stack, owes_bb=not fresh)
        self._chips_in += stack
        return [PlayerJoined(player_id, seat, stack, self._state(seat))]

    def top_up(self, player_id: PlayerId, amount: int) -> list[TableEvent]:
        """Add chips; in a hand they land when it ends. The stack may not exceed the maximum
        buy-in, and a stack below the minimum must be brought up to it."""
        if self._tournament:
            raise EngineError("not_in_tournament", action="top_up")
        _, occupant = self._find(player_id)
        if occupant.leaving:
            raise EngineError("leaving", player=player_id)
        self._check_chips(amount)
        if amount <= 0:
            raise EngineError("bad_amount", amount=amount)
        low, high = self._options.buy_in_range
        total = occupant.stack + occupant.pending + amount
        if total > high:
            raise EngineError(
                "above_max_buy_in", amount=amount, maximum=high - occupant.stack - occupant.pending
            )
        if total < low:
            raise EngineError(
                "below_min_buy_in", amount=amount, minimum=low - occupant.stack - occupant.pending
            )
        self._check_room(amount)
        self._chips_in += amount
        if self._in_hand(player_id):
            occupant.pending += amount
            return [ChipsAdded(player_id, amount, total, True)]
        occupant.stack += amount
        return [ChipsAdded(player_id, amount, occupant.stack, False)]

    def sit_out(self, player_id: PlayerId) -> list[TableEvent]:
        """Stop being dealt in from the next hand (he plays out a hand he is in)."""
        if self._tournament:
            raise EngineError("not_in_tournament", action="sit_out")
        seat, occupant = self._find(player_id)
        if occupant.leaving:
            raise EngineError("leaving", player=player_id)
        if occupant.sitting_out:
            raise EngineError("already_sitting_out", player=player_id)
        occupant.sitting_out = True
        return [PlayerSatOut(player_id, seat)]

    def sit_in(self, player_id: PlayerId) -> list[TableEvent]:
        """Come back: at once if he owes nothing, else by the new-player policy."""
        seat, occupant = self._find(player_id)
        if occupant.leaving:
            raise EngineError("leaving", player=player_id)
        if not occupant.sitting_out:
            raise EngineError("not_sitting_out", player=player_id)
        if occupant.stack + occupant.pending <= 0:
            raise EngineError("no_chips", player=player_id)
        occupant.sitting_out = False
        return [PlayerSatIn(player_id, seat, self._state(seat), occupant.owes_sb, occupant.owes_bb)]

    def leave(self, player_id: PlayerId) -> list[TableEvent]:
        """Leave with all his chips: now, or when the hand he is in ends."""
        if self._tournament:
            raise EngineError("not_in_tournament", action="leave")
        seat, occupant = self._find(player_id)
        if occupant.leaving:
            raise EngineError("leaving", player=player_id)
        if self._in_hand(player_id):
            occupant.leaving = "left"
            return [PlayerLeaving(player_id, seat, "left")]
        return [self._unseat(seat, "left")]

    # -- the floor -------------------------------------------------------------------------

    def pause(self, by: PlayerId | None = None) -> list[TableEvent]:
        """No new hand starts until ``resume`` (the hand in progress may be played out)."""
        if self._paused:
            raise EngineError("already_paused")
        self._paused = True
        return [TablePaused(by)]

    def resume(self, by: PlayerId | None = None) -> list[TableEvent]:
        if not self._paused:
            raise EngineError("not_paused")
        self._paused = False
        return [TableResumed(by)]

    def change_blinds(
        self,
        small_blind: int,
        big_blind: int,
        ante: int | None = None,
        ante_kind: AnteKind | None = None,
        by: PlayerId | None = None,
    ) -> list[TableEvent]:
        """New blinds (and ante) from the next hand on; a hand in progress keeps its own."""
        options = self._options.with_blinds(small_blind, big_blind, ante, ante_kind)
        self._options = options
        return [
            BlindsChanged(
                options.small_blind,
                options.big_blind,
                options.ante,
                options.ante_kind,
                self._hand_number + 1,
                by,
            )
        ]

    def remove(self, player_id: PlayerId, by: PlayerId | None = None) -> list[TableEvent]:
        """Take a player off the table with his chips: now, or after the hand he is in."""
        if self._tournament:
            raise EngineError("not_in_tournament", action="remove")
        seat, occupant = self._find(player_id)
        if self._in_hand(player_id):
            occupant.leaving = "removed"
            return [
                PlayerRemoved(player_id, seat, True, by),
                PlayerLeaving(player_id, seat, "removed"),
            ]
        return [PlayerRemoved(player_id, seat, False, by), self._unseat(seat, "removed")]

    def void_hand(self, by: PlayerId | None = None) -> list[TableEvent]:
        """Call the hand in progress off: every chip goes back and the button does not move.

        The hand records its own ``HandVoided``; this also settles it (no ``finish_hand``).
        """
        hand = self._hand
        if hand is None:
            raise EngineError("no_hand")
        refunds: tuple[int, ...] = ()
        for event in hand.void():
            if isinstance(event, HandVoided):
                refunds = event.refunds
        events: list[TableEvent] = [HandVoidedByFloor(self._hand_number, refunds, by)]
        events.extend(self.finish_hand())
        return events

    # -- hands -----------------------------------------------------------------------------

    def next_plan(self, button: int | None = None) -> HandPlan:
        """Where the next hand would be placed if it started now (changes nothing).

        Before the first hand the button is drawn at random; this shows it on the lowest seat
        (or on ``button``) instead.
        """
        return self._plan_next(button, lambda seats: seats[0])

    def straddle_candidate(self) -> PlayerId | None:
        """Who may straddle the next hand, if it started now (None: nobody, or not known yet).

        The straddle position is the table option's (UTG: left of the big blind; button: the
        button when it is live and not a blind), with three or more players dealt in and a
        stack that covers twice the big blind. Ask between hands: during a hand the placement
        of the next one is not known yet (this names the current hand's position), and before
        the first hand the button is not drawn, so nobody is named.
        """
        if self._rotation is None or self._options.straddle is StraddleMode.OFF:
            return None
        plan = self.next_plan()
        stacks = [self._seats[s].stack for s in plan.seats]
        index = self._straddle_index(plan, stacks)
        return None if index is None else self._seats[plan.seats[index]].player_id

    def start_hand(
        self,
        deck: Sequence[Card],
        button: int | None = None,
        *,
        straddlers: Collection[PlayerId] = (),
        bomb_pot: int = 0,
    ) -> list[TableEvent]:
        """Deal the next hand from ``deck``; play it through ``table.hand``.

        The first hand's button is drawn from the table's ``rng`` among the players dealt in,
        unless ``button`` names the seat (a high-card draw done elsewhere, or a test).

        ``straddlers`` are the players who want to straddle this hand; the one on the straddle
        position (see :meth:`straddle_candidate`), if any, posts twice the big blind.
        ``bomb_pot`` > 0 makes the hand a bomb pot: everybody dealt in puts that amount in
        instead of blinds and antes (and no straddle), and the hand starts on the flop. The
        button and the blinds move on as after any hand; a player coming in by posting pays
        the bomb and nothing he owed.
        """
        if self._hand is not None:
            raise EngineError("hand_in_progress", hand_number=self._hand_number)
        if self._paused:
            raise EngineError("table_paused")
        if bomb_pot:
            self._check_chips(bomb_pot)
            if bomb_pot < 0 or bomb_pot > MAX_CHIPS:
                raise EngineError("bad_amount", amount=bomb_pot)
        opts = self._options
        plan = self._plan_next(button, self._rng.choice)
        n = len(plan.seats)
        stacks = tuple(self._seats[s].stack for s in plan.seats)
        blinds = [0] * n
        dead = [0] * n
        antes = [0] * n
        posting = opts.new_player is NewPlayerPolicy.POST_BB
        for i, seat in enumerate(plan.seats):
            occupant = self._seats[seat]
            if seat == plan.big_blind_seat:
                blinds[i] = opts.big_blind
            elif seat == plan.small_blind_seat:
                blinds[i] = opts.small_blind
            elif posting and seat in plan.entering:
                # A live big blind to come in out of turn; a missed small blind is dead money.
                if occupant.owes_bb:
                    blinds[i] = opts.big_blind
                if occupant.owes_sb:
                    dead[i] = opts.small_blind
            per_player = opts.ante_kind is AnteKind.PER_PLAYER
            if per_player or (opts.ante_kind is AnteKind.BIG_BLIND and seat == plan.big_blind_seat):
                antes[i] = opts.ante
        straddle_index = None
        if not bomb_pot and straddlers:
            straddle_index = self._straddle_index(plan, stacks)
            if straddle_index is not None:
                if self._seats[plan.seats[straddle_index]].player_id in straddlers:
                    # Never a player posting to come in: under the gun he would be next
                    # hand's big blind, and nobody enters on the button.
                    blinds[straddle_index] = 2 * opts.big_blind
                else:
                    straddle_index = None
        if bomb_pot:
            config = HandConfig(
                stacks=stacks,
                blinds=(bomb_pot,) * n,
                antes=(0,) * n,
                big_blind=opts.big_blind,
                big_blind_index=plan.big_blind_index,
                chip_unit=opts.chip_unit,
                reopen=opts.reopen,
                bomb_pot=True,
                run_it_twice=opts.run_it_twice,
                game=opts.game,
            )
        else:
            config = HandConfig(
                stacks=stacks,
                blinds=tuple(blinds),
                antes=tuple(antes),
                big_blind=opts.big_blind,
                big_blind_index=plan.big_blind_index,
                ante_kind=opts.ante_kind,
                dead_blinds=tuple(dead) if any(dead) else (),
                chip_unit=opts.chip_unit,
                reopen=opts.reopen,
                straddle_index=straddle_index,
                run_it_twice=opts.run_it_twice,
                game=opts.game,
            )
        hand = Hand(config, deck)  # raises on a bad deck before anything here has changed
        self._hand = hand
        self._plan = plan
        self._hand_players = tuple(self._seats[s].player_id for s in plan.seats)
        # Blinds missed belong to whoever sat there when the hand began.
        self._marks = tuple(
            (blind, self._seats[seat].player_id, seat)
            for blind, seats in (
                ("small_blind", plan.missed_small_blind),
                ("big_blind", plan.missed_big_blind),
            )
            for seat in seats
        )
        self._hand_number += 1
        return [
            HandStarted(
                hand_number=self._hand_number,
                kind=plan.kind,
                button_seat=plan.button_seat,
                small_blind_seat=plan.small_blind_seat,
                big_blind_seat=plan.big_blind_seat,
                seats=plan.seats,
                players=self._hand_players,
                stacks=stacks,
                small_blind=opts.small_blind,
                big_blind=opts.big_blind,
                ante=opts.ante,
                ante_kind=opts.ante_kind,
                entering=plan.entering,
                straddle_seat=None if straddle_index is None else plan.seats[straddle_index],
                bomb_pot=bomb_pot,
            )
        ]

    def finish_hand(self) -> list[TableEvent]:
        """Settle the hand that just ended: stacks, blinds owed, deferred leaves, busts."""
        hand, plan = self._hand, self._plan
        if hand is None or plan is None:
            raise EngineError("no_hand")
        result = hand.result
        if result is None:
            raise EngineError("hand_not_over", hand_number=self._hand_number)
        players = self._hand_players
        number = self._hand_number
        events: list[TableEvent] = []
        starting = hand.config.stacks
        # A voided hand never happened as far as the button and the blinds are concerned.
        if not result.voided:
            self._rotation = plan.rotation
            for pid in players:
                _, occupant = self._find(pid)
                occupant.owes_sb = occupant.owes_bb = False
            for blind, pid, seat in self._marks:
                found = self.seat_of(pid)
                if found is None:
                    continue  # he left during the hand: nothing to owe
                occupant = self._seats[found]
                if blind == "small_blind":
                    occupant.owes_sb = True
                else:
                    occupant.owes_bb = True
                events.append(BlindMissed(pid, seat, blind, number))
        for i, pid in enumerate(players):
            _, occupant = self._find(pid)
            occupant.stack = result.stacks[i]
        high = self._options.buy_in_range[1]
        for seat in sorted(self._seats):
            occupant = self._seats[seat]
            if not occupant.pending:
                continue
            landed = min(occupant.pending, max(0, high - occupant.stack))
            back = occupant.pending - landed
            occupant.stack += landed
            occupant.pending = 0
            if back:
                self._chips_out += back
                events.append(ChipsReturned(occupant.player_id, back, "above_max_buy_in"))
        events.insert(0, HandFinished(number, result.voided, players, result.stacks))
        for i, pid in enumerate(players):
            seat, occupant = self._find(pid)
            if occupant.leaving:
                events.append(self._unseat(seat, occupant.leaving))
            elif occupant.stack == 0:
                events.append(PlayerBusted(pid, seat, number, starting[i]))
                if self._tournament:
                    events.append(self._unseat(seat, "eliminated"))
                else:
                    occupant.sitting_out = True
        self._hand = None
        return events

    # -- internals -------------------------------------------------------------------------

    def _find(self, player_id: PlayerId) -> tuple[int, _Seat]:
        seat = self.seat_of(player_id)
        if seat is None:
            raise EngineError("not_seated", player=player_id)
        return seat, self._seats[seat]

    def _in_hand(self, player_id: PlayerId) -> bool:
        return self._hand is not None and player_id in self._hand_players

    def _check_room(self, amount: int) -> None:
        # Chips are limited where they come to a table, so that no stack and no pot can ever
        # outgrow MAX_CHIPS: a hand whose winner held more could be neither dealt nor stored.
        room = max(0, MAX_CHIPS - self.chips_on_table)
        if amount > room:
            raise EngineError("table_chips_full", amount=amount, maximum=MAX_CHIPS, room=room)

    def _check_chips(self, amount: object) -> None:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise EngineError("bad_amount", amount=repr(amount))
        if amount % self._options.chip_unit:
            raise EngineError(
                "amount_not_multiple", amount=amount, chip_unit=self._options.chip_unit
            )

    def _straddle_index(self, plan: HandPlan, stacks: Sequence[int]) -> int | None:
        n = len(plan.seats)
        mode = self._options.straddle
        if mode is StraddleMode.OFF or n < 3:
            return None
        if mode is StraddleMode.UTG:
            index = (plan.big_blind_index + 1) % n
        elif plan.seats[-1] == plan.button_seat:
            index = n - 1
        else:
            return None  # a dead button: nobody is on it to straddle
        if stacks[index] < 2 * self._options.big_blind:
            return None
        return index

    def _is_sitting_in(self, occupant: _Seat) -> bool:
        return occupant.stack > 0 and not occupant.sitting_out and not occupant.leaving

    def _plan_next(self, button: int | None, choose: Callable[[Sequence[int]], int]) -> HandPlan:
        if button is not None:
            if self._rotation is not None:
                raise EngineError("button_already_placed", button=button)
            choose = lambda seats: button  # noqa: E731
        return plan_hand(
            self._options.seats, self._statuses(), self._rotation, self._options.new_player, choose
        )

    def _statuses(self) -> list[SeatStatus]:
        return [
            SeatStatus(seat, s.player_id, self._is_sitting_in(s), s.owes_sb, s.owes_bb)
            for seat, s in sorted(self._seats.items())
        ]

    def _state(self, seat: int) -> PlayerState:
        occupant = self._seats[seat]
        if occupant.leaving:
            return PlayerState.LEAVING
        if occupant.sitting_out or (occupant.stack == 0 and not self._in_hand(occupant.player_id)):
            return PlayerState.SITTING_OUT
        if self._in_hand(occupant.player_id):
            return PlayerState.PLAYING
        owes = occupant.owes_sb or occupant.owes_bb
        if owes and self._options.new_player is NewPlayerPolicy.WAIT_FOR_BB:
            return PlayerState.WAITING_FOR_BB
        return PlayerState.PLAYING

    def _view(self, seat: int) -> SeatView:
        s = self._seats[seat]
        return SeatView(
            seat=seat,
            player_id=s.player_id,
            stack=s.stack,
            state=self._state(seat),
            owes_small_blind=s.owes_sb,
            owes_big_blind=s.owes_bb,
            pending_chips=s.pending,
            in_hand=self._in_hand(s.player_id),
            leaving=s.leaving,
        )

    def _unseat(self, seat: int, reason: str) -> PlayerLeft:
        occupant = self._seats.pop(seat)
        chips = occupant.stack + occupant.pending
        self._chips_out += chips
        return PlayerLeft(occupant.player_id, seat, chips, reason)

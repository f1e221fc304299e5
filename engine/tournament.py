"""Tournaments on the table layer: freeze-out and time-limited (RULES.md section 7).

Everybody buys in for the same starting stack; blinds rise on a published schedule of levels
driven by the clock the caller passes in (a new level applies from the next hand); players are
ranked in reverse order of elimination, players busted in the same hand by their stacks at its
start (equal stacks share places and prizes); a time-limited tournament plays out the hand in
progress when time is up and ranks the survivors by chips. Prizes come from a payout table chosen
by the number of entrants, odd chips going to the higher place.

One table of up to ten for now. Entries are kept here, apart from the table, so that several
tables of one tournament (balancing, breaking tables) can be added without changing how places
and prizes are worked out.

>>> from engine.cards import FULL_DECK
>>> config = TournamentConfig(buy_in=100, starting_stack=1000,
...                           levels=(BlindLevel(10, 20, 20, minutes=10),))
>>> t = Tournament(config, rng=3)
>>> for name in ("ann", "bob", "cy"):
...     _ = t.register(name, now=0)
>>> _ = t.start(now=0)
>>> _ = t.start_hand(FULL_DECK, now=5)
>>> t.hand is not None and t.prize_pool == 300
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from engine.cards import Card
from engine.errors import EngineError
from engine.hand import AnteKind, Event, Hand, ReopenMode
from engine.seating import NewPlayerPolicy, PlayerId, clockwise
from engine.table import PlayerBusted, Table, TableEvent, TableOptions

__all__ = [
    "DEFAULT_PAYOUTS",
    "BlindLevel",
    "LevelStarted",
    "PayoutTable",
    "PlayerAbsent",
    "PlayerEliminated",
    "PlayerRegistered",
    "PlayerUnregistered",
    "RegistrationClosed",
    "Standing",
    "TimeUp",
    "Tournament",
    "TournamentConfig",
    "TournamentFinished",
    "TournamentPaused",
    "TournamentResumed",
    "TournamentStarted",
    "TournamentState",
]


def _int(name: str, value: object, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EngineError("bad_tournament", field=name, value=repr(value))
    return value


@dataclass(frozen=True, slots=True)
class BlindLevel:
    small_blind: int
    big_blind: int
    ante: int = 0
    minutes: float = 15.0

    def __post_init__(self) -> None:
        sb = _int("small_blind", self.small_blind, 1)
        bb = _int("big_blind", self.big_blind, 1)
        _int("ante", self.ante)
        if sb > bb:
            raise EngineError("bad_tournament", field="small_blind", value=sb, big_blind=bb)
        minutes = self.minutes
        if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not minutes > 0:
            raise EngineError("bad_tournament", field="minutes", value=repr(minutes))

    def to_json(self) -> list[float]:
        return [self.small_blind, self.big_blind, self.ante, self.minutes]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> BlindLevel:
        return cls(*data)


@dataclass(frozen=True, slots=True)
class PayoutTable:
    """``tiers``: (largest number of entrants the tier covers, or None for any; the share of the
    prize pool of each paid place, best first, in any unit — usually percent)."""

    tiers: tuple[tuple[int | None, tuple[int, ...]], ...]

    def __post_init__(self) -> None:
        if not self.tiers:
            raise EngineError("bad_tournament", field="payouts", value="no tiers")
        previous = 0
        for k, (bound, shares) in enumerate(self.tiers):
            if bound is None:
                if k != len(self.tiers) - 1:
                    raise EngineError("bad_tournament", field="payouts", value="open tier first")
            else:
                previous = _int("payouts", bound, previous + 1)  # growing field sizes
            if not isinstance(shares, tuple) or not shares:
                raise EngineError("bad_tournament", field="payouts", value=repr(shares))
            for share in shares:
                _int("payouts", share, 1)
            if list(shares) != sorted(shares, reverse=True):
                raise EngineError(
                    "bad_tournament", field="payouts", value="a lower place pays more"
                )

    def to_json(self) -> list[list[Any]]:
        return [[bound, list(shares)] for bound, shares in self.tiers]

    @classmethod
    def from_json(cls, data: Sequence[Sequence[Any]]) -> PayoutTable:
        return cls(tuple((bound, tuple(shares)) for bound, shares in data))

    def shares(self, entrants: int) -> tuple[int, ...]:
        """The shares for a field of ``entrants`` (never more paid places than entrants)."""
        chosen = self.tiers[-1][1]
        for bound, shares in self.tiers:
            if bound is None or entrants <= bound:
                chosen = shares
                break
        return chosen[: max(1, entrants)]

    def prizes(self, pool: int, entrants: int, unit: int = 1) -> tuple[int, ...]:
        """Prize of each paid place, best first; they add up to ``pool`` exactly. What does not
        divide goes to the higher places one ``unit`` each, then any remainder to the winner.

        >>> DEFAULT_PAYOUTS.prizes(1001, 8)
        (501, 300, 200)
        >>> DEFAULT_PAYOUTS.prizes(7, 5)
        (5, 2)
        """
        shares = self.shares(entrants)
        total = sum(shares)
        units, loose = divmod(pool, unit)
        prizes = [units * s // total for s in shares]
        for k in range(units - sum(prizes)):
            prizes[k % len(prizes)] += 1
        out = [p * unit for p in prizes]
        out[0] += loose
        return tuple(out)


DEFAULT_PAYOUTS = PayoutTable(((4, (100,)), (7, (65, 35)), (None, (50, 30, 20))))


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    buy_in: int
    starting_stack: int
    levels: tuple[BlindLevel, ...]
    ante_kind: AnteKind = AnteKind.BIG_BLIND
    time_limit: float | None = None  # seconds of play (pauses excluded): a time-limited tournament
    payouts: PayoutTable = DEFAULT_PAYOUTS
    late_registration_level: int = 0  # registration stays open through this level (0: off)
    max_players: int = 10
    seats: int = 10
    chip_unit: int = 1
    prize_unit: int = 1
    reopen: ReopenMode = ReopenMode.TDA

    def __post_init__(self) -> None:
        _int("buy_in", self.buy_in)
        unit = _int("chip_unit", self.chip_unit, 1)
        _int("prize_unit", self.prize_unit, 1)
        stack = _int("starting_stack", self.starting_stack, 1)
        if stack % unit:
            raise EngineError("bad_tournament", field="starting_stack", value=stack)
        if not self.levels or not all(isinstance(lv, BlindLevel) for lv in self.levels):
            raise EngineError("bad_tournament", field="levels", value=repr(self.levels))
        for lv in self.levels:
            if lv.small_blind % unit or lv.big_blind % unit or lv.ante % unit:
                raise EngineError("bad_tournament", field="levels", value=repr(lv), chip_unit=unit)
        antes = [lv.ante for lv in self.levels]
        if antes != sorted(antes):
            raise EngineError("bad_tournament", field="levels", value="antes are never reduced")
        if not isinstance(self.ante_kind, AnteKind):
            raise EngineError("bad_tournament", field="ante_kind", value=repr(self.ante_kind))
        if self.ante_kind is AnteKind.NONE and any(antes):
            raise EngineError("bad_tournament", field="ante_kind", value="none")
        if self.time_limit is not None and (
            isinstance(self.time_limit, bool)
            or not isinstance(self.time_limit, int | float)
            or not self.time_limit > 0
        ):
            raise EngineError("bad_tournament", field="time_limit", value=repr(self.time_limit))
        if not isinstance(self.payouts, PayoutTable):
            raise EngineError("bad_tournament", field="payouts", value=repr(self.payouts))
        _int("late_registration_level", self.late_registration_level)
        seats = _int("seats", self.seats, 2)
        players = _int("max_players", self.max_players, 2)
        if players > seats or seats > 10:
            # One table for now; more players need table balancing, which is not built yet.
            raise EngineError("bad_tournament", field="max_players", value=players, seats=seats)

    def to_json(self) -> dict[str, Any]:
        return {
            "buy_in": self.buy_in,
            "starting_stack": self.starting_stack,
            "levels": [lv.to_json() for lv in self.levels],
            "ante_kind": self.ante_kind.value,
            "time_limit": self.time_limit,
            "payouts": self.payouts.to_json(),
            "late_registration_level": self.late_registration_level,
            "max_players": self.max_players,
            "seats": self.seats,
            "chip_unit": self.chip_unit,
            "prize_unit": self.prize_unit,
            "reopen": self.reopen.value,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentConfig:
        try:
            return cls(
                buy_in=data["buy_in"],
                starting_stack=data["starting_stack"],
                levels=tuple(BlindLevel.from_json(lv) for lv in data["levels"]),
                ante_kind=AnteKind(data.get("ante_kind", "big_blind")),
                time_limit=data.get("time_limit"),
                payouts=PayoutTable.from_json(data["payouts"])
                if "payouts" in data
                else DEFAULT_PAYOUTS,
                late_registration_level=data.get("late_registration_level", 0),
                max_players=data.get("max_players", 10),
                seats=data.get("seats", 10),
                chip_unit=data.get("chip_unit", 1),
                prize_unit=data.get("prize_unit", 1),
                reopen=ReopenMode(data.get("reopen", "tda")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_tournament", field="json", value=str(exc)) from None

    def level_options(self, level: int) -> tuple[int, int, int, AnteKind]:
        """(small blind, big blind, ante, ante kind) of ``level`` (1-based; the last one stays)."""
        lv = self.levels[min(level, len(self.levels)) - 1]
        return lv.small_blind, lv.big_blind, lv.ante, self.ante_kind if lv.ante else AnteKind.NONE


class TournamentState(StrEnum):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Standing:
    player_id: PlayerId
    place: int  # 1 is the winner; players sharing places all have the best of them
    tied: int  # how many share these places (1: nobody)
    prize: int
    chips: int  # at the end (0 once eliminated)
    eliminated_in_hand: int | None

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# --- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerRegistered(TableEvent):
    type: ClassVar[str] = "player_registered"
    player_id: PlayerId
    entrants: int
    prize_pool: int
    late: bool
    seat: int | None  # late registration: his seat at once


@dataclass(frozen=True, slots=True)
class PlayerUnregistered(TableEvent):
    type: ClassVar[str] = "player_unregistered"
    player_id: PlayerId
    entrants: int
    prize_pool: int


@dataclass(frozen=True, slots=True)
class TournamentStarted(TableEvent):
    type: ClassVar[str] = "tournament_started"
    seats: tuple[tuple[int, PlayerId], ...]  # the seat draw
    entrants: int
    prize_pool: int


@dataclass(frozen=True, slots=True)
class LevelStarted(TableEvent):
    type: ClassVar[str] = "level_started"
    level: int
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    from_hand: int


@dataclass(frozen=True, slots=True)
class RegistrationClosed(TableEvent):
    type: ClassVar[str] = "registration_closed"
    entrants: int
    prize_pool: int


@dataclass(frozen=True, slots=True)
class PlayerEliminated(TableEvent):
    type: ClassVar[str] = "player_eliminated"
    player_id: PlayerId
    place: int | None  # None while late registration may still add players below him
    tied: int
    hand_number: int
    starting_stack: int


@dataclass(frozen=True, slots=True)
class PlayerAbsent(TableEvent):
    type: ClassVar[str] = "player_absent"
    player_id: PlayerId
    absent: bool


@dataclass(frozen=True, slots=True)
class TournamentPaused(TableEvent):
    type: ClassVar[str] = "tournament_paused"
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class TournamentResumed(TableEvent):
    type: ClassVar[str] = "tournament_resumed"
    by: PlayerId | None


@dataclass(frozen=True, slots=True)
class TimeUp(TableEvent):
    """A time-limited tournament's time is over: the hand in progress is the last."""

    type: ClassVar[str] = "time_up"
    hand_in_progress: int | None


@dataclass(frozen=True, slots=True)
class TournamentFinished(TableEvent):
    type: ClassVar[str] = "tournament_finished"
    reason: str  # "last_player" or "time"
    standings: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "reason": self.reason,
            "standings": [s.to_json() for s in self.standings],
        }


# --- the tournament -----------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    player_id: PlayerId
    late: bool
    eliminated_hand: int | None = None
    starting_stack: int = 0  # at the start of the hand he was eliminated in
    order: int = 0  # clockwise from that hand's button: who gets odd chips of a shared prize


@dataclass(slots=True)
class _Clock:
    started: float | None = None
    paused_at: float | None = None
    paused_total: float = 0.0

    def elapsed(self, now: float) -> float:
        if self.started is None:
            return 0.0
        stop = self.paused_at if self.paused_at is not None else now
        return max(0.0, stop - self.started - self.paused_total)


class Tournament:
    """A tournament from registration to prizes. Time is passed in as seconds (any epoch)."""

    def __init__(self, config: TournamentConfig, rng: random.Random | int | None = None) -> None:
        if not isinstance(config, TournamentConfig):
            raise EngineError("bad_tournament", field="config", value=repr(config))
        self._config = config
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        sb, bb, ante, kind = config.level_options(1)
        self._table = Table(
            TableOptions(
                small_blind=sb,
                big_blind=bb,
                ante=ante,
                ante_kind=kind,
                chip_unit=config.chip_unit,
                reopen=config.reopen,
                seats=config.seats,
                new_player=NewPlayerPolicy.DEAL_IN,
            ),
            rng=self._rng,
            tournament=True,
        )
        self._entries: dict[PlayerId, _Entry] = {}
        # Each hand's eliminations, in the order the hands ended.
        self._eliminations: list[list[_Entry]] = []
        self._state = TournamentState.REGISTERING
        self._clock = _Clock()
        self._level = 1
        self._registration_open = True
        self._time_up = False
        self._absent: set[PlayerId] = set()
        self._standings: tuple[Standing, ...] = ()
        self._finish_reason: str | None = None

    # -- queries ---------------------------------------------------------------------------

    @property
    def config(self) -> TournamentConfig:
        return self._config

    @property
    def state(self) -> TournamentState:
        return self._state

    @property
    def is_over(self) -> bool:
        return self._state is TournamentState.FINISHED

    @property
    def table(self) -> Table:
        """The table (read it; change it only through the tournament)."""
        return self._table

    @property
    def hand(self) -> Hand | None:
        return self._table.hand

    @property
    def entrants(self) -> int:
        return len(self._entries)

    @property
    def prize_pool(self) -> int:
        return self._config.buy_in * len(self._entries)

    @property
    def level(self) -> int:
        """The level in force for the next hand (1-based)."""
        return self._level

    @property
    def registration_open(self) -> bool:
        return self._registration_open and not self.is_over

    @property
    def time_up(self) -> bool:
        return self._time_up

    @property
    def paused(self) -> bool:
        return self._clock.paused_at is not None

    @property
    def finish_reason(self) -> str | None:
        """ "last_player" or "time" once over."""
        return self._finish_reason

    @property
    def standings(self) -> tuple[Standing, ...]:
        """Final places and prizes, best first (empty until the tournament is over)."""
        return self._standings

    def players_left(self) -> tuple[PlayerId, ...]:
        return tuple(p for p, e in self._entries.items() if e.eliminated_hand is None)

    def is_absent(self, player_id: PlayerId) -> bool:
        return player_id in self._absent

    def elapsed(self, now: float) -> float:
        """Seconds of play so far (pauses excluded)."""
        return self._clock.elapsed(now)

    def level_at(self, now: float) -> int:
        """The level the clock shows at ``now`` (1-based; the last level lasts forever)."""
        elapsed = self._clock.elapsed(now)
        end = 0.0
        for k, lv in enumerate(self._config.levels, start=1):
            end += lv.minutes * 60
            if elapsed < end:
                return k
        return len(self._config.levels)

    def seconds_to_next_level(self, now: float) -> float | None:
        elapsed = self._clock.elapsed(now)
        end = 0.0
        for lv in self._config.levels:
            end += lv.minutes * 60
            if elapsed < end:
                return end - elapsed
        return None

    # -- persistence -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole tournament, JSON-safe; like :meth:`Table.to_json`, without the hand in
        progress (store its config, deck and actions)."""
        clock = self._clock
        return {
            "config": self._config.to_json(),
            "state": self._state.value,
            "clock": [clock.started, clock.paused_at, clock.paused_total],
            "level": self._level,
            "registration_open": self._registration_open,
            "time_up": self._time_up,
            "absent": sorted(self._absent, key=str),
            "entries": [
                [e.player_id, e.late, e.eliminated_hand, e.starting_stack, e.order]
                for e in self._entries.values()
            ],
            "eliminations": [[e.player_id for e in group] for group in self._eliminations],
            "finish_reason": self._finish_reason,
            "standings": [s.to_json() for s in self._standings],
            "table": self._table.to_json(),
        }

    @classmethod
    def from_json(
        cls,
        data: dict[str, Any],
        rng: random.Random | int | None = None,
        hand: Hand | None = None,
    ) -> Tournament:
        t = cls(TournamentConfig.from_json(data["config"]), rng)
        try:
            t._state = TournamentState(data["state"])
            started, paused_at, paused_total = data["clock"]
            t._clock = _Clock(started, paused_at, float(paused_total))
            t._level = int(data["level"])
            t._registration_open = bool(data["registration_open"])
            t._time_up = bool(data["time_up"])
            t._absent = set(data["absent"])
            for pid, late, out, stack, order in data["entries"]:
                t._entries[pid] = _Entry(pid, bool(late), out, int(stack), int(order))
            t._eliminations = [[t._entries[p] for p in group] for group in data["eliminations"]]
            t._finish_reason = data["finish_reason"]
            t._standings = tuple(Standing(**s) for s in data["standings"])
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_tournament_state", value=str(exc)) from None
        t._table = Table.from_json(data["table"], t._rng, hand)
        return t

    # -- registration ----------------------------------------------------------------------

    def register(self, player_id: PlayerId, now: float) -> list[TableEvent]:
        """Enter the tournament: before the start, or late while registration is open."""
        if isinstance(player_id, bool) or not isinstance(player_id, str | int):
            raise EngineError("bad_player", player=repr(player_id))
        # Judged at ``now`` without ticking, so a refusal loses no level or time-up event.
        open_now = self.registration_open and (
            self._state is TournamentState.REGISTERING
            or (
                self.level_at(now) <= self._config.late_registration_level
                and (
                    self._config.time_limit is None
                    or self._clock.elapsed(now) < self._config.time_limit
                )
            )
        )
        if not open_now:
            raise EngineError("registration_closed")
        events: list[TableEvent] = []
        if player_id in self._entries:
            raise EngineError("already_registered", player=player_id)
        if len(self._entries) >= self._config.max_players:
            raise EngineError("tournament_full", max_players=self._config.max_players)
        late = self._state is TournamentState.RUNNING
        seat: int | None = None
        if late:
            # A random free seat; the table deals him in at once unless that seat is on the
            # button or in the small blind.
            events.extend(self._table.join(player_id, self._config.starting_stack))
            seat = self._table.seat_of(player_id)
        self._entries[player_id] = _Entry(player_id, late)
        events.append(PlayerRegistered(player_id, self.entrants, self.prize_pool, late, seat))
        return events

    def unregister(self, player_id: PlayerId) -> list[TableEvent]:
        if self._state is not TournamentState.REGISTERING:
            raise EngineError("registration_closed")
        if player_id not in self._entries:
            raise EngineError("not_registered", player=player_id)
        del self._entries[player_id]
        return [PlayerUnregistered(player_id, self.entrants, self.prize_pool)]

    def start(self, now: float) -> list[TableEvent]:
        """Draw seats and start the clock at level 1."""
        if self._state is not TournamentState.REGISTERING:
            raise EngineError("already_started")
        if len(self._entries) < 2:
            raise EngineError("not_enough_players", registered=len(self._entries))
        players = list(self._entries)
        seats = self._rng.sample(range(1, self._config.seats + 1), len(players))
        for pid, seat in zip(players, seats, strict=True):
            self._table.join(pid, self._config.starting_stack, seat=seat)
        self._state = TournamentState.RUNNING
        self._clock.started = now
        drawn = tuple(sorted(((s, p) for p, s in zip(players, seats, strict=True))))
        sb, bb, ante, kind = self._config.level_options(1)
        events: list[TableEvent] = [
            TournamentStarted(drawn, self.entrants, self.prize_pool),
            LevelStarted(1, sb, bb, ante, kind, 1),
        ]
        if self._config.late_registration_level < 1:
            events.append(self._close_registration())
        events.extend(self.tick(now))
        return events

    # -- the clock -------------------------------------------------------------------------

    def tick(self, now: float) -> list[TableEvent]:
        """Bring the tournament up to ``now``: new levels (for the next hand), late registration
        closing, time running out. Call it whenever convenient; it is idempotent."""
        if self._state is not TournamentState.RUNNING:
            return []
        events: list[TableEvent] = []
        level = self.level_at(now)
        if level > self._level:
            self._level = level
            sb, bb, ante, kind = self._config.level_options(level)
            self._table.change_blinds(sb, bb, ante, kind)
            events.append(LevelStarted(level, sb, bb, ante, kind, self._next_hand_number()))
        if self._registration_open and level > self._config.late_registration_level:
            events.append(self._close_registration())
        limit = self._config.time_limit
        if limit is not None and not self._time_up and self._clock.elapsed(now) >= limit:
            self._time_up = True
            hand = self._table.hand
            events.append(TimeUp(self._table.hand_number if hand is not None else None))
            if self._registration_open:
                events.append(self._close_registration())
            if hand is None:
                events.extend(self._finish("time"))
        return events

    def pause(self, now: float, by: PlayerId | None = None) -> list[TableEvent]:
        """Stop the clock (levels, time limit) and dealing; a hand in progress may be finished."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        if self.paused:
            raise EngineError("already_paused")
        events = self.tick(now)
        if self.is_over:
            return events
        self._clock.paused_at = now
        self._table.pause(by)
        events.append(TournamentPaused(by))
        return events

    def resume(self, now: float, by: PlayerId | None = None) -> list[TableEvent]:
        if self._clock.paused_at is None:
            raise EngineError("not_paused")
        self._clock.paused_total += max(0.0, now - self._clock.paused_at)
        self._clock.paused_at = None
        self._table.resume(by)
        return [TournamentResumed(by)]

    # -- hands -----------------------------------------------------------------------------

    def start_hand(
        self, deck: Sequence[Card], now: float, button: int | None = None
    ) -> list[TableEvent]:
        """Deal the next hand at the level in force at ``now``. ``button`` places the first
        hand's button (a high-card draw done elsewhere); it is drawn at random otherwise.

        When time has run out no hand is dealt: the events end the tournament (``is_over``).
        """
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        if self.paused:
            raise EngineError("tournament_paused")
        if self._table.hand is not None:
            raise EngineError("hand_in_progress", hand_number=self._table.hand_number)
        events = self.tick(now)
        if self.is_over:
            return events
        events.extend(self._table.start_hand(deck, button=button))
        return events

    def finish_hand(self, now: float) -> list[TableEvent]:
        """Settle the hand that just ended: eliminations and places; the end of the tournament
        when one player is left or time is up."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        players = self._table.hand_players
        return self._settle(self._table.finish_hand(), players, now)

    def void_hand(self, now: float, by: PlayerId | None = None) -> list[TableEvent]:
        """The floor calls the hand in progress off: chips go back, the button stays."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        players = self._table.hand_players
        return self._settle(self._table.void_hand(by), players, now)

    def _settle(
        self, events: list[TableEvent], players: tuple[PlayerId, ...], now: float
    ) -> list[TableEvent]:
        number = self._table.hand_number
        busted = [e for e in events if isinstance(e, PlayerBusted)]
        if busted:
            group: list[_Entry] = []
            for e in busted:
                entry = self._entries[e.player_id]
                entry.eliminated_hand = number
                entry.starting_stack = e.starting_stack
                entry.order = players.index(e.player_id)
                self._absent.discard(e.player_id)
                group.append(entry)
            self._eliminations.append(group)
            events.extend(self._eliminated_events(group, number))
        if len(self.players_left()) <= 1:
            events.extend(self._finish("last_player"))
            return events
        events.extend(self.tick(now))
        if self._time_up and not self.is_over:
            events.extend(self._finish("time"))
        return events

    def set_absent(self, player_id: PlayerId, absent: bool = True) -> list[TableEvent]:
        """Mark a player away: he stays dealt in and the clock checks or folds for him."""
        entry = self._entries.get(player_id)
        if entry is None or entry.eliminated_hand is not None:
            raise EngineError("not_playing", player=player_id)
        if absent:
            self._absent.add(player_id)
        else:
            self._absent.discard(player_id)
        return [PlayerAbsent(player_id, absent)]

    def act_for_absent(self) -> list[Event]:
        """While the player to act is absent, time him out (check if free, else fold)."""
        hand = self._table.hand
        events: list[Event] = []
        while hand is not None and hand.to_act is not None:
            if self._table.hand_players[hand.to_act] not in self._absent:
                break
            events.extend(hand.timeout(hand.to_act))
        return events

    # -- internals -------------------------------------------------------------------------

    def _next_hand_number(self) -> int:
        return self._table.hand_number + 1

    def _close_registration(self) -> RegistrationClosed:
        self._registration_open = False
        return RegistrationClosed(self.entrants, self.prize_pool)

    def _eliminated_events(self, group: list[_Entry], number: int) -> list[TableEvent]:
        left = len(self.players_left())
        out: list[TableEvent] = []
        for places, tied_group in _rank_by(group, lambda e: e.starting_stack, left + 1):
            for entry in tied_group:
                out.append(
                    PlayerEliminated(
                        entry.player_id,
                        None if self._registration_open else places,
                        len(tied_group),
                        number,
                        entry.starting_stack,
                    )
                )
        return out

    def _finish(self, reason: str) -> list[TableEvent]:
        self._state = TournamentState.FINISHED
        self._finish_reason = reason
        self._registration_open = False
        self._standings = self._rank()
        return [TournamentFinished(reason, self._standings)]

    def _rank(self) -> tuple[Standing, ...]:
        """Survivors by chips, then each hand's eliminations from the last one back."""
        table = self._table
        survivors = [e for e in self._entries.values() if e.eliminated_hand is None]
        chips = {e.player_id: self._chips(e.player_id) for e in survivors}
        button = table.button_seat or 1
        seat_rank = {s: k for k, s in enumerate(clockwise(button, table.options.seats))}
        for e in survivors:
            e.order = seat_rank.get(table.seat_of(e.player_id) or 0, 0)
        ranked: list[tuple[int, list[_Entry]]] = list(
            _rank_by(survivors, lambda e: chips[e.player_id], 1)
        )
        place = len(survivors) + 1
        for group in reversed(self._eliminations):
            ranked.extend(_rank_by(group, lambda e: e.starting_stack, place))
            place += len(group)
        prizes = self._config.payouts.prizes(
            self.prize_pool, self.entrants, self._config.prize_unit
        )
        standings: list[Standing] = []
        for first, group in ranked:
            pot = sum(
                prizes[first - 1 + k] for k in range(len(group)) if first - 1 + k < len(prizes)
            )
            shares = _split(pot, len(group), self._config.prize_unit)
            for entry, prize in zip(sorted(group, key=lambda e: e.order), shares, strict=True):
                standings.append(
                    Standing(
                        entry.player_id,
                        first,
                        len(group),
                        prize,
                        chips.get(entry.player_id, 0),
                        entry.eliminated_hand,
                    )
                )
        return tuple(standings)

    def _chips(self, player_id: PlayerId) -> int:
        view = self._table.player(player_id)
        return view.stack if view is not None else 0


def _rank_by(
    entries: list[_Entry], key: Callable[[_Entry], int], first_place: int
) -> list[tuple[int, list[_Entry]]]:
    """Groups of equal ``key`` (bigger is better) with the first place each group takes."""
    ordered = sorted(entries, key=lambda e: (-key(e), e.order))
    out: list[tuple[int, list[_Entry]]] = []
    place = first_place
    for entry in ordered:
        if out and key(out[-1][1][0]) == key(entry):
            out[-1][1].append(entry)
        else:
            out.append((place, [entry]))
        place += 1
    return out


def _split(amount: int, ways: int, unit: int) -> list[int]:
    """``amount`` in ``ways`` equal parts; the odd units go one each to the first parts."""
    units, loose = divmod(amount, unit)
    each, odd = divmod(units, ways)
    parts = [(each + (1 if k < odd else 0)) * unit for k in range(ways)]
    parts[0] += loose
    return parts

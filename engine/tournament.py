"""Tournaments on the table layer: freeze-out and time-limited, one table or many (RULES.md 7).

Everybody buys in for the same starting stack; blinds rise on a published schedule of levels
(with breaks between some of them, if the structure has any) driven by one clock for every
table, read from the time the caller passes in; a new level applies from each table's next hand.
Players are ranked in reverse order of elimination, players busted in the same hand by their
stacks at its start (equal stacks share places and prizes); a time-limited tournament lets every
table play out the hand in progress when time is up and ranks the survivors by chips. Prizes come
from a payout table chosen by the number of entrants, odd chips going to the higher place.

Seats are drawn at random; more players than ``seats`` are split over several tables of sizes
differing by at most one. As players bust, tables are balanced and broken the way a tournament
director does it (TDA): when the players left fit at one table fewer, the shortest table is
broken and its players are drawn into the free seats of the others, shortest tables first; when
one table has two players more than another, the player who would be big blind next at the long
table moves to the seat of the short one that gets the big blind soonest (the same position
relative to the blinds), a player already moved being passed over while someone who was not can
go. A table only gives up players between hands; a table in a hand gets them at once (they are
dealt in from its next hand). When everyone fits at one table, that is the final table.

Between hands nothing happens on its own: the caller deals (``start_hand``), settles
(``finish_hand``) and calls ``tick`` when convenient; every change returns the events it caused.

The formats home games play are options of the same tournament (RULES.md 7): rebuys and an
add-on (``rebuy``, ``decline_rebuy``, ``expire_rebuy``, ``add_on``, ``close_add_on``), re-entry
(``register`` again after being knocked out: a new *entry*, numbered per player, each with its own
place), knockout and progressive bounties (paid as ``BountyWon`` events the moment they are won,
from the bounty part of the buy-ins), a sit-and-go that starts itself when its last seat is taken
(``start_when_full``), and a deal that ends the tournament with agreed prizes (``deal``). Every
amount of money that moves is in an event, so a caller's ledger can follow it to the chip:
whatever is paid in (buy-ins, rebuys, add-ons) always equals the prize pool, plus the bounties
paid, plus the bounties still on heads.

>>> from engine.cards import FULL_DECK
>>> config = TournamentConfig(buy_in=100, starting_stack=1000, seats=6,
...                           levels=(BlindLevel(10, 20, 20, minutes=10),))
>>> t = Tournament(config, rng=3)
>>> for n in range(8):
...     _ = t.register(f"p{n}", now=0)
>>> _ = t.start(now=0)
>>> sorted(len(table.seats()) for table in t.tables.values()), t.prize_pool
([4, 4], 800)
>>> _ = t.start_hand(FULL_DECK, now=5, table=1)
>>> t.hand_at(1) is not None and t.hand_at(2) is None
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, ClassVar

from engine.bounty import BountyKind, bounty_shares, progressive_halves
from engine.cards import Card
from engine.errors import EngineError
from engine.games import GAMES, NLHE, Game, game_by_code
from engine.hand import AnteKind, Event, Hand, HandResult, ReopenMode
from engine.limits import MAX_CHIPS, MAX_LEVELS, MAX_TABLE_SEATS, MAX_TOURNAMENT_PLAYERS
from engine.seating import NewPlayerPolicy, PlayerId, clockwise
from engine.table import PlayerBusted, PlayerLeft, Table, TableEvent, TableOptions

__all__ = [
    "DEFAULT_PAYOUTS",
    "MAX_LEVELS",
    "MAX_REBUYS",
    "MAX_REENTRIES",
    "MAX_TABLE_SEATS",
    "MAX_TOURNAMENT_PLAYERS",
    "AddOnClosed",
    "AddOnOpened",
    "BlindLevel",
    "BountyKind",
    "BountyWon",
    "BreakStarted",
    "FinalTable",
    "LevelStarted",
    "PayoutTable",
    "PlayerAbsent",
    "PlayerAddedOn",
    "PlayerEliminated",
    "PlayerMoved",
    "PlayerRebought",
    "PlayerRegistered",
    "PlayerUnregistered",
    "RebuyDeclined",
    "RebuyOffered",
    "RebuysClosed",
    "RegistrationClosed",
    "Standing",
    "TableBroken",
    "TableOpened",
    "TableStatus",
    "TimeUp",
    "Tournament",
    "TournamentConfig",
    "TournamentFinished",
    "TournamentPaused",
    "TournamentResumed",
    "TournamentStarted",
    "TournamentState",
    "TournamentStatus",
    "check_levels",
    "level_table_options",
]

MAX_REBUYS = 100
"""Rebuys one entry may make at most (the chip and pool limits usually bind far sooner)."""

MAX_REENTRIES = 100
"""Times one player may enter again at most."""


def _int(name: str, value: object, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise EngineError("bad_tournament", field=name, value=repr(value))
    return value


def _minutes(name: str, value: object, minimum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= minimum:
        raise EngineError("bad_tournament", field=name, value=repr(value))
    if not math.isfinite(value):
        raise EngineError("bad_tournament", field=name, value=repr(value))
    return float(value)


@dataclass(frozen=True, slots=True)
class BlindLevel:
    """One level of the schedule; ``break_minutes`` is a break after it (0: none)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    minutes: float = 15.0
    break_minutes: float = 0.0

    def __post_init__(self) -> None:
        sb = _int("small_blind", self.small_blind, 1)
        bb = _int("big_blind", self.big_blind, 1)
        _int("ante", self.ante)
        if sb > bb:
            raise EngineError("bad_tournament", field="small_blind", value=sb, big_blind=bb)
        if not _minutes("minutes", self.minutes, 0) > 0:
            raise EngineError("bad_tournament", field="minutes", value=repr(self.minutes))
        _minutes("break_minutes", self.break_minutes, 0)

    def to_json(self) -> list[float]:
        out: list[float] = [self.small_blind, self.big_blind, self.ante, self.minutes]
        if self.break_minutes:
            out.append(self.break_minutes)
        return out

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> BlindLevel:
        return cls(*data)


def level_table_options(
    level: BlindLevel,
    ante_kind: AnteKind,
    *,
    chip_unit: int = 1,
    reopen: ReopenMode = ReopenMode.TDA,
    seats: int = MAX_TABLE_SEATS,
    game: Game = NLHE,
) -> TableOptions:
    """The options a tournament table plays ``level`` with: its blinds and ante (the ante format
    only when the level has an ante), no seat ever waiting for the big blind, and the buy-in
    range left to the table's defaults (20 and 100 big blinds), which tournament chips never
    use but which must fit under the chip limit all the same. Every table a tournament opens,
    and every level change on its clock, builds exactly these options."""
    return TableOptions(
        small_blind=level.small_blind,
        big_blind=level.big_blind,
        ante=level.ante,
        ante_kind=ante_kind if level.ante else AnteKind.NONE,
        chip_unit=chip_unit,
        reopen=reopen,
        seats=seats,
        new_player=NewPlayerPolicy.DEAL_IN,
        game=game,
    )


def _check_playable(number: int, level: BlindLevel, ante_kind: AnteKind, **options: Any) -> None:
    """Refuse a level whose table options could not be built (the clock would fail on it),
    naming the level and the amount."""
    try:
        level_table_options(level, ante_kind, **options)
    except EngineError as exc:
        option = str(exc.params.get("option", "big_blind"))
        if exc.code == "amount_too_large" and option == "big_blind":
            raise EngineError("structure_big_blind_too_large", level=number,
                              amount=level.big_blind, maximum=exc.params["maximum"]) from None
        raise EngineError("structure_level_unplayable", level=number, option=option,
                          amount=exc.params.get("value", level.big_blind),
                          maximum=exc.params.get("maximum", MAX_CHIPS)) from None


def check_levels(levels: Sequence[BlindLevel], chip_unit: int, ante_kind: AnteKind) -> None:
    """The rules a whole schedule keeps, each refused with its own code naming the level.

    Big blinds never go down and neither do antes (RULES.md 7); every amount is a whole number
    of chip units; antes need an ante format; a break needs a level after it; and every level
    must be one a table can play (:func:`level_table_options`: a big blind of at most 1% of
    the chip limit, since a table's buy-ins go up to 100 big blinds), so the clock can never
    meet a level it cannot apply.
    """
    if not levels:
        raise EngineError("structure_empty")
    if len(levels) > MAX_LEVELS:
        raise EngineError("structure_too_many_levels", levels=len(levels), maximum=MAX_LEVELS)
    previous: BlindLevel | None = None
    for number, lv in enumerate(levels, start=1):
        if not isinstance(lv, BlindLevel):
            raise EngineError("bad_tournament", field="levels", value=repr(lv))
        if max(lv.small_blind, lv.big_blind, lv.ante) > MAX_CHIPS:
            raise EngineError("structure_amount_too_large", level=number, maximum=MAX_CHIPS)
        if lv.small_blind % chip_unit or lv.big_blind % chip_unit or lv.ante % chip_unit:
            raise EngineError("structure_not_multiple", level=number, chip_unit=chip_unit)
        if lv.ante and ante_kind is AnteKind.NONE:
            raise EngineError("ante_without_kind", level=number)
        _check_playable(number, lv, ante_kind, chip_unit=chip_unit)
        if previous is not None:
            if lv.big_blind < previous.big_blind:
                raise EngineError(
                    "structure_big_blind_lower",
                    level=number,
                    big_blind=lv.big_blind,
                    previous=previous.big_blind,
                )
            if lv.ante < previous.ante:
                raise EngineError(
                    "structure_ante_lower", level=number, ante=lv.ante, previous=previous.ante
                )
        previous = lv
    if levels[-1].break_minutes:
        raise EngineError("structure_break_position", level=len(levels))


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

    @property
    def most_places(self) -> int:
        """The most places any tier pays."""
        return max(len(shares) for _, shares in self.tiers)

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
    seats: int = 10  # per table; more players play at several tables
    chip_unit: int = 1
    prize_unit: int = 1
    reopen: ReopenMode = ReopenMode.TDA
    game: Game = NLHE  # every table of the tournament deals it, from the first hand to the last
    # Rebuys and the add-on (RULES.md 7): each entry may rebuy ``rebuys`` times while the clock
    # shows a level up to ``rebuy_levels`` (the break after it included); the add-on opens when
    # that level's play ends. None: the starting stack's chips, the buy-in's price.
    rebuys: int = 0
    rebuy_levels: int = 0
    rebuy_chips: int | None = None
    rebuy_price: int | None = None
    add_on: int = 0  # chips (0: no add-on)
    add_on_price: int | None = None
    reentries: int = 0  # times a knocked-out player may enter again, during late registration
    bounty: int = 0  # of each buy-in (and each rebuy's price), put on the player's head
    bounty_kind: BountyKind = BountyKind.KNOCKOUT
    start_when_full: bool = False  # a sit-and-go: starts the moment ``max_players`` register

    def __post_init__(self) -> None:
        _int("buy_in", self.buy_in)
        unit = _int("chip_unit", self.chip_unit, 1)
        _int("prize_unit", self.prize_unit, 1)
        stack = _int("starting_stack", self.starting_stack, 1)
        if stack % unit or stack > MAX_CHIPS:
            raise EngineError("bad_tournament", field="starting_stack", value=stack)
        if not isinstance(self.ante_kind, AnteKind):
            raise EngineError("bad_tournament", field="ante_kind", value=repr(self.ante_kind))
        if not isinstance(self.levels, tuple):
            raise EngineError("bad_tournament", field="levels", value=repr(self.levels))
        check_levels(self.levels, unit, self.ante_kind)
        if self.time_limit is not None:
            _minutes("time_limit", self.time_limit, 0)
            if not self.time_limit > 0:
                raise EngineError("bad_tournament", field="time_limit", value=self.time_limit)
        if not isinstance(self.payouts, PayoutTable):
            raise EngineError("bad_tournament", field="payouts", value=repr(self.payouts))
        late = _int("late_registration_level", self.late_registration_level)
        if late > len(self.levels):
            raise EngineError("late_levels_too_many", late_levels=late, levels=len(self.levels))
        seats = _int("seats", self.seats, 2)
        if seats > MAX_TABLE_SEATS:
            raise EngineError("bad_tournament", field="seats", value=seats)
        if not isinstance(self.game, Game) or GAMES.get(self.game.code) != self.game:
            raise EngineError("bad_tournament", field="game", value=repr(self.game))
        if seats > self.game.max_players:
            raise EngineError("seats_for_game", seats=seats, maximum=self.game.max_players,
                              game=self.game.code)
        players = _int("max_players", self.max_players, 2)
        if players > MAX_TOURNAMENT_PLAYERS:
            raise EngineError("bad_tournament", field="max_players", value=players)
        # Every chip in play (a full field's stacks) and the prize pool (a full field's buy-ins)
        # must fit under the chip limit: name the product, since each option fits on its own.
        if stack * players > MAX_CHIPS:
            raise EngineError("tournament_chips_too_large", stack=stack, players=players,
                              maximum=MAX_CHIPS)
        if self.buy_in * players > MAX_CHIPS:
            raise EngineError("tournament_pool_too_large", amount=self.buy_in, players=players,
                              maximum=MAX_CHIPS)
        if not isinstance(self.reopen, ReopenMode):
            raise EngineError("bad_tournament", field="reopen", value=repr(self.reopen))
        # The tables as they will really be built, level by level (seats and reopen included).
        for number, lv in enumerate(self.levels, start=1):
            _check_playable(number, lv, self.ante_kind, chip_unit=unit, reopen=self.reopen,
                            seats=seats, game=self.game)
        self._check_formats(players)

    def _check_formats(self, players: int) -> None:
        """Rebuys, the add-on, re-entries, bounties, a sit-and-go: each option on its own, then
        against the others (an option that would do nothing is refused, naming what it needs),
        then the most chips and money a full field could put in against the chip limit."""
        unit = self.chip_unit
        rebuys = _int("rebuys", self.rebuys)
        reentries = _int("reentries", self.reentries)
        for name, count, most in (("rebuys", rebuys, MAX_REBUYS),
                                  ("reentries", reentries, MAX_REENTRIES)):
            if count > most:
                raise EngineError("format_limit", option=name, value=count, maximum=most)
        period = _int("rebuy_levels", self.rebuy_levels)
        add_on = _int("add_on", self.add_on)
        rebuy_chips = None if self.rebuy_chips is None else _int("rebuy_chips", self.rebuy_chips, 1)
        for name, chips in (("rebuy_chips", rebuy_chips or 0), ("add_on", add_on)):
            if chips % unit:
                raise EngineError("format_not_multiple", option=name, value=chips, chip_unit=unit)
        for name, price in (("rebuy_price", self.rebuy_price),
                            ("add_on_price", self.add_on_price)):
            if price is not None:
                _int(name, price)
        if not isinstance(self.bounty_kind, BountyKind):
            raise EngineError("bad_tournament", field="bounty_kind", value=repr(self.bounty_kind))
        if not isinstance(self.start_when_full, bool):
            raise EngineError("bad_tournament", field="start_when_full",
                              value=repr(self.start_when_full))
        unused = [
            ("rebuy_levels", bool(period), "rebuys", bool(rebuys or add_on)),
            ("rebuy_chips", self.rebuy_chips is not None, "rebuys", bool(rebuys)),
            ("rebuy_price", self.rebuy_price is not None, "rebuys", bool(rebuys)),
            ("add_on_price", self.add_on_price is not None, "add_on", bool(add_on)),
            ("reentries", bool(reentries), "late_registration_level",
             bool(self.late_registration_level)),
            ("bounty_kind", self.bounty_kind is not BountyKind.KNOCKOUT, "bounty",
             bool(self.bounty)),
        ]
        for option, given, needs, present in unused:
            if given and not present:
                raise EngineError("format_option_unused", option=option, needs=needs)
        if (rebuys or add_on) and not period:
            raise EngineError("rebuy_levels_missing")
        if period >= len(self.levels):
            # The last level lasts for ever: rebuys open through it would never close.
            raise EngineError("rebuy_levels_too_many", rebuy_levels=period,
                              maximum=len(self.levels) - 1)
        bounty = _int("bounty", self.bounty)
        if bounty:
            if not self.buy_in:
                raise EngineError("bounty_without_buy_in", bounty=bounty)
            prices = [("buy_in", self.buy_in)] + ([("rebuy_price", self.rebuy_cost)] if rebuys
                                                  else [])
            for option, price in prices:
                if bounty > price:
                    raise EngineError("bounty_too_large", bounty=bounty, option=option,
                                      price=price)
        if rebuys or add_on:
            chips = self.starting_stack + rebuys * self.rebuy_stack + add_on
            if chips * players > MAX_CHIPS:
                raise EngineError("tournament_rebuy_chips_too_large", amount=chips,
                                  players=players, maximum=MAX_CHIPS)
            paid = self.buy_in + rebuys * self.rebuy_cost + (self.add_on_cost if add_on else 0)
            if paid * players > MAX_CHIPS:
                raise EngineError("tournament_rebuy_pool_too_large", amount=paid,
                                  players=players, maximum=MAX_CHIPS)

    @property
    def rebuy_stack(self) -> int:
        """The chips a rebuy buys."""
        return self.starting_stack if self.rebuy_chips is None else self.rebuy_chips

    @property
    def rebuy_cost(self) -> int:
        """What a rebuy costs (``bounty`` of it goes on the player's head)."""
        return self.buy_in if self.rebuy_price is None else self.rebuy_price

    @property
    def add_on_cost(self) -> int:
        """What the add-on costs (all of it goes to the prize pool)."""
        return self.buy_in if self.add_on_price is None else self.add_on_price

    @property
    def formats(self) -> dict[str, Any]:
        """The format options that differ from a freeze-out's, JSON-safe (what ``to_json``
        adds, so a freeze-out's stored config is unchanged)."""
        out: dict[str, Any] = {}
        for name in _FORMAT_OPTIONS:
            value = getattr(self, name)
            if value != _FORMAT_DEFAULTS[name]:
                out[name] = value.value if isinstance(value, BountyKind) else value
        return out

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
            # Written only for another game: a Hold'em tournament's stored config is unchanged.
            **({"game": self.game.code} if self.game != NLHE else {}),
            **self.formats,
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
                game=game_by_code(data.get("game", NLHE.code)),
                **_formats_from_json(data),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_tournament", field="json", value=str(exc)) from None

    def level_options(self, level: int) -> tuple[int, int, int, AnteKind]:
        """(small blind, big blind, ante, ante kind) of ``level`` (1-based; the last one stays)."""
        lv = self.levels[min(level, len(self.levels)) - 1]
        return lv.small_blind, lv.big_blind, lv.ante, self.ante_kind if lv.ante else AnteKind.NONE

    def table_options(self, level: int) -> TableOptions:
        """The options every table plays ``level`` with (1-based; the last level stays)."""
        lv = self.levels[min(level, len(self.levels)) - 1]
        return level_table_options(lv, self.ante_kind, chip_unit=self.chip_unit,
                                   reopen=self.reopen, seats=self.seats, game=self.game)

    def tables_for(self, players: int) -> int:
        """How many tables ``players`` need (at least one)."""
        return max(1, -(-players // self.seats))


_FORMAT_OPTIONS = ("rebuys", "rebuy_levels", "rebuy_chips", "rebuy_price", "add_on",
                   "add_on_price", "reentries", "bounty", "bounty_kind", "start_when_full")
_FORMAT_DEFAULTS: dict[str, object] = {
    f.name: f.default for f in fields(TournamentConfig) if f.name in _FORMAT_OPTIONS
}


def _formats_from_json(data: dict[str, Any]) -> dict[str, Any]:
    formats = {name: data[name] for name in _FORMAT_OPTIONS if name in data}
    if "bounty_kind" in formats:
        formats["bounty_kind"] = BountyKind(formats["bounty_kind"])
    return formats


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
    eliminated_in_hand: int | None  # that table's hand number
    eliminated_at_table: int | None = None
    entry: int = 1  # which of the player's entries this is (2: his first re-entry)
    bounties: int = 0  # bounty money he won with this entry, his own head's at the end included
    deal: bool = False  # his prize was agreed in a deal

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
    table: int | None = None  # ... at this table
    entry: int = 1  # 2 and up: he entered again after being knocked out (a re-entry)


@dataclass(frozen=True, slots=True)
class PlayerUnregistered(TableEvent):
    type: ClassVar[str] = "player_unregistered"
    player_id: PlayerId
    entrants: int
    prize_pool: int


@dataclass(frozen=True, slots=True)
class TournamentStarted(TableEvent):
    type: ClassVar[str] = "tournament_started"
    seats: tuple[tuple[int, int, PlayerId], ...]  # the seat draw: (table, seat, player)
    entrants: int
    prize_pool: int
    tables: int


@dataclass(frozen=True, slots=True)
class TableOpened(TableEvent):
    """A table added after the start, for late registrants when every seat is taken."""

    type: ClassVar[str] = "table_opened"
    table: int


@dataclass(frozen=True, slots=True)
class LevelStarted(TableEvent):
    type: ClassVar[str] = "level_started"
    level: int
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    from_hands: tuple[tuple[int, int], ...]  # (table, number of its first hand at this level)


@dataclass(frozen=True, slots=True)
class BreakStarted(TableEvent):
    """No new hand until the next level; hands in progress are played out."""

    type: ClassVar[str] = "break_started"
    after_level: int
    seconds: float  # until the next level


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
    hand_number: int  # the hand he busted in (at ``table``), even when he was out later
    starting_stack: int
    table: int = 1
    entry: int = 1


@dataclass(frozen=True, slots=True)
class RebuyOffered(TableEvent):
    """He busted while rebuys are open and has rebuys left: he is out only once he declines, his
    time to answer runs out (the caller's clock: ``decline_rebuy`` / ``expire_rebuy``) or rebuys
    close; until then ``rebuy`` seats him again."""

    type: ClassVar[str] = "rebuy_offered"
    player_id: PlayerId
    entry: int
    price: int
    chips: int
    rebuys_left: int
    table: int
    hand_number: int


@dataclass(frozen=True, slots=True)
class PlayerRebought(TableEvent):
    """``price`` moves from his wallet: ``to_prize_pool`` to the prize pool, ``to_bounty`` onto
    his own head; ``chips`` land on his stack (``stack`` after), at ``table`` and ``seat``."""

    type: ClassVar[str] = "player_rebought"
    player_id: PlayerId
    entry: int
    price: int
    to_prize_pool: int
    to_bounty: int
    chips: int
    stack: int
    rebuys: int  # this entry's rebuys so far, this one included
    prize_pool: int
    table: int
    seat: int


@dataclass(frozen=True, slots=True)
class RebuyDeclined(TableEvent):
    """The rebuy offered to him is over: he is eliminated (a ``PlayerEliminated`` follows)."""

    type: ClassVar[str] = "rebuy_declined"
    player_id: PlayerId
    entry: int
    reason: str  # "declined", "expired" or "closed" (rebuys closed first)


@dataclass(frozen=True, slots=True)
class RebuysClosed(TableEvent):
    type: ClassVar[str] = "rebuys_closed"
    eliminated: tuple[PlayerId, ...]  # busted players yet to answer an offer, as they busted
    prize_pool: int


@dataclass(frozen=True, slots=True)
class AddOnOpened(TableEvent):
    """Every player still in may take the add-on once, until ``close_add_on``."""

    type: ClassVar[str] = "add_on_opened"
    players: tuple[PlayerId, ...]
    chips: int
    price: int


@dataclass(frozen=True, slots=True)
class PlayerAddedOn(TableEvent):
    """``price`` moves from his wallet to the prize pool; ``chips`` land on his stack."""

    type: ClassVar[str] = "player_added_on"
    player_id: PlayerId
    entry: int
    price: int
    chips: int
    stack: int
    prize_pool: int
    table: int
    seat: int


@dataclass(frozen=True, slots=True)
class AddOnClosed(TableEvent):
    type: ClassVar[str] = "add_on_closed"
    taken: int  # add-ons taken in all
    prize_pool: int


@dataclass(frozen=True, slots=True)
class BountyWon(TableEvent):
    """``amount`` is paid now from the bounties to his wallet; ``onto_head`` (a progressive
    knockout) goes onto his own head, which is ``head`` afterwards."""

    type: ClassVar[str] = "bounty_won"
    player_id: PlayerId
    entry: int
    from_player: PlayerId  # whose head it was (himself: his own, at the end)
    from_entry: int
    amount: int
    onto_head: int
    head: int
    reason: str  # "knockout", or "own": the bounty still on his head when the tournament ended


@dataclass(frozen=True, slots=True)
class PlayerMoved(TableEvent):
    """A player changes tables, with his stack (his old table was between hands)."""

    type: ClassVar[str] = "player_moved"
    player_id: PlayerId
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    stack: int
    reason: str  # "balance" or "table_broken"


@dataclass(frozen=True, slots=True)
class TableBroken(TableEvent):
    type: ClassVar[str] = "table_broken"
    table: int
    tables_left: int


@dataclass(frozen=True, slots=True)
class FinalTable(TableEvent):
    type: ClassVar[str] = "final_table"
    table: int
    players: tuple[PlayerId, ...]


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
    """A time-limited tournament's time is over: the hands in progress are the last."""

    type: ClassVar[str] = "time_up"
    hands_in_progress: tuple[tuple[int, int], ...]  # (table, hand number)


@dataclass(frozen=True, slots=True)
class TournamentFinished(TableEvent):
    type: ClassVar[str] = "tournament_finished"
    reason: str  # "last_player", "time" or "deal"
    standings: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "reason": self.reason,
            "standings": [s.to_json() for s in self.standings],
        }


# --- status (what a status board shows) -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableStatus:
    number: int
    seats: tuple[tuple[int, PlayerId, int], ...]  # (seat, player, stack) in seat order
    hand_number: int  # the hand in progress or last dealt (0: none yet)
    in_hand: bool


@dataclass(frozen=True, slots=True)
class TournamentStatus:
    """Everything a status board shows, at one instant; plain data."""

    state: TournamentState
    level: int
    small_blind: int
    big_blind: int
    ante: int
    ante_kind: AnteKind
    next_level: BlindLevel | None  # None on the last level
    on_break: bool
    paused: bool
    seconds_to_next_level: float | None  # through any break; None on the last level
    seconds_left: float | None  # a time-limited tournament's remaining time
    time_up: bool
    entrants: int
    players_left: int
    chips_in_play: int
    average_stack: int
    largest_stack: int
    chip_leader: PlayerId | None
    prize_pool: int
    prizes: tuple[int, ...]  # by place, best first, for the field as it stands
    registration_open: bool
    late_registration_level: int
    players: tuple[PlayerId, ...]  # still in (everyone registered, before the start)
    tables: tuple[TableStatus, ...]
    standings: tuple[Standing, ...]  # once finished
    rebuys_open: bool = False
    add_on_open: bool = False
    pending: tuple[PlayerId, ...] = ()  # busted, offered a rebuy, not answered yet
    rebuys: int = 0  # taken in all
    add_ons: int = 0
    bounties: tuple[tuple[PlayerId, int], ...] = ()  # on the heads of the players still in
    bounties_paid: int = 0


# --- the tournament -----------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    player_id: PlayerId
    late: bool
    eliminated_hand: int | None = None
    starting_stack: int = 0  # at the start of the hand he busted in
    order: int = 0  # clockwise from that hand's button: who gets odd chips of a shared prize
    table: int | None = None  # where he busted
    moves: int = 0  # times he changed tables
    number: int = 1  # the player's first entry, second (his first re-entry), ...
    rebuys: int = 0
    add_on: bool = False
    head: int = 0  # the bounty on his head
    bounties: int = 0  # bounty money he has won
    pending: bool = False  # busted, offered a rebuy he has not answered
    busted_hand: int | None = None  # the hand he last busted in (at ``table``)
    bust: int = 0  # which settled hand that was (of the whole tournament): ranks late answers
    seat: int | None = None  # his seat then (a rebuy sits him there again if it is free)

    def to_json(self) -> list[Any]:
        return [self.player_id, self.late, self.eliminated_hand, self.starting_stack, self.order,
                self.table, self.moves, self.number, self.rebuys, self.add_on, self.head,
                self.bounties, self.pending, self.busted_hand, self.bust, self.seat]

    @classmethod
    def from_json(cls, row: Sequence[Any]) -> _Entry:
        pid, late, out, stack, order, table, moves, *rest = row
        entry = cls(pid, bool(late), out, int(stack), int(order), table, int(moves))
        if rest:
            (number, rebuys, add_on, head, bounties, pending, busted, bust, seat) = rest
            entry.number, entry.rebuys, entry.add_on = int(number), int(rebuys), bool(add_on)
            entry.head, entry.bounties, entry.pending = int(head), int(bounties), bool(pending)
            entry.busted_hand, entry.bust, entry.seat = busted, int(bust), seat
        else:  # stored before the formats: a freeze-out's, where a bust was an elimination
            entry.busted_hand = out
        return entry


@dataclass(slots=True)
class _Clock:
    started: float | None = None
    paused_at: float | None = None
    paused_total: float = 0.0
    seen: float | None = None  # the latest time the tournament was told of (see ``recover``)

    def elapsed(self, now: float) -> float:
        if self.started is None:
            return 0.0
        stop = self.paused_at if self.paused_at is not None else now
        return max(0.0, stop - self.started - self.paused_total)


class _TournamentTable(Table):
    """A tournament's table, which can also let a player go to another table of it."""

    @property
    def size(self) -> int:
        """Players seated (balancing asks after every hand: no views built for it)."""
        return self.options.seats - len(self.free_seats())

    def release(self, player_id: PlayerId) -> PlayerLeft:
        seat = self.seat_of(player_id)
        if seat is None:
            raise EngineError("not_seated", player=player_id)
        if self.hand is not None and player_id in self.hand_players:
            raise EngineError("hand_in_progress", hand_number=self.hand_number)
        return self._unseat(seat, "moved")

    def readmit(self, player_id: PlayerId) -> None:
        """He left in the hand just played and is back before the next: he owes nothing, as if
        he had never left (the blinds have not moved past his seat since)."""
        _, occupant = self._find(player_id)
        occupant.owes_sb = occupant.owes_bb = False

    def add_chips(self, player_id: PlayerId, amount: int) -> int:
        """A rebuy or an add-on lands on his stack, which he is not playing in a hand; his
        stack afterwards."""
        _, occupant = self._find(player_id)
        if self._in_hand(player_id):
            raise EngineError("hand_in_progress", hand_number=self.hand_number)
        self._check_room(amount)
        occupant.stack += amount
        self._chips_in += amount
        return occupant.stack


class Tournament:
    """A tournament from registration to prizes. Time is passed in as seconds (any epoch).

    Tables are numbered from 1; methods that concern one table take ``table`` (which may be
    left out while there is only one).
    """

    def __init__(self, config: TournamentConfig, rng: random.Random | int | None = None) -> None:
        if not isinstance(config, TournamentConfig):
            raise EngineError("bad_tournament", field="config", value=repr(config))
        self._config = config
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._tables: dict[int, _TournamentTable] = {}
        self._next_table = 1
        # Every entry in the order they were made; each player's latest one.
        self._entries: list[_Entry] = []
        self._current: dict[PlayerId, _Entry] = {}
        # Each hand's eliminations (and each group of late answers to a rebuy offer), in order.
        self._eliminations: list[list[_Entry]] = []
        self._in = 0  # entries not eliminated (counted: asked after every hand)
        self._pending: dict[PlayerId, _Entry] = {}  # offered a rebuy, by when they busted
        self._rebuys_open = config.rebuys > 0
        self._add_on_state = ""  # "", then "open" once rebuys' last level ends, then "closed"
        self._rebuys_taken = 0
        self._add_ons_taken = 0
        self._bounties_paid = 0
        self._busts = 0  # hands settled with a bust in them
        self._state = TournamentState.REGISTERING
        self._clock = _Clock()
        self._level = 1
        self._on_break = False
        self._registration_open = True
        self._time_up = False
        self._final_table = False
        self._absent: set[PlayerId] = set()
        self._standings: tuple[Standing, ...] = ()
        self._finish_reason: str | None = None
        # Where each segment of the schedule ends, in seconds of play: (end, level, is break).
        self._segments: list[tuple[float, int, bool]] = []
        end = 0.0
        for k, lv in enumerate(config.levels, start=1):
            end += lv.minutes * 60
            self._segments.append((end, k, False))
            if lv.break_minutes:
                end += lv.break_minutes * 60
                self._segments.append((end, k, True))

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
    def tables(self) -> Mapping[int, Table]:
        """The tables in play by number (read them; change them only through the tournament)."""
        return dict(self._tables)

    @property
    def table(self) -> Table:
        """The table, while there is exactly one (a one-table tournament, or the final table)."""
        return self._tables[self._table_number(None)]

    @property
    def hand(self) -> Hand | None:
        """The hand in progress at the only table (see ``hand_at`` for several)."""
        return self._tables[self._table_number(None)].hand

    def hand_at(self, table: int) -> Hand | None:
        return self._tables[self._table_number(table)].hand

    def table_of(self, player_id: PlayerId) -> int | None:
        """The number of the table where he sits (None: not seated)."""
        for number, t in self._tables.items():
            if t.seat_of(player_id) is not None:
                return number
        return None

    @property
    def entrants(self) -> int:
        """Entries made (a re-entry counts again): the field the payout table is chosen by."""
        return len(self._entries)

    @property
    def prize_pool(self) -> int:
        """Every buy-in, rebuy and add-on paid in, less the bounty part of each."""
        c = self._config
        return ((c.buy_in - c.bounty) * len(self._entries)
                + (c.rebuy_cost - c.bounty) * self._rebuys_taken
                + c.add_on_cost * self._add_ons_taken)

    @property
    def paid_in(self) -> int:
        """Money paid in so far: buy-ins (re-entries too), rebuys and add-ons. It always equals
        ``prize_pool + bounties_paid + bounties_on_heads``."""
        c = self._config
        return (c.buy_in * len(self._entries) + c.rebuy_cost * self._rebuys_taken
                + c.add_on_cost * self._add_ons_taken)

    @property
    def chips_issued(self) -> int:
        """Tournament chips handed out so far: the stacks at every table add up to this."""
        c = self._config
        return (c.starting_stack * len(self._entries) + c.rebuy_stack * self._rebuys_taken
                + c.add_on * self._add_ons_taken)

    @property
    def bounties_paid(self) -> int:
        return self._bounties_paid

    @property
    def bounties_on_heads(self) -> int:
        return sum(e.head for e in self._entries)

    def bounty_on(self, player_id: PlayerId) -> int:
        """The bounty on his head now (0: none, or he is out)."""
        entry = self._current.get(player_id)
        return entry.head if entry is not None else 0

    def entries_of(self, player_id: PlayerId) -> int:
        """How many times he has entered (0: never)."""
        entry = self._current.get(player_id)
        return entry.number if entry is not None else 0

    def rebuys_of(self, player_id: PlayerId) -> int:
        """The rebuys his current entry has made."""
        entry = self._current.get(player_id)
        return entry.rebuys if entry is not None else 0

    def took_add_on(self, player_id: PlayerId) -> bool:
        entry = self._current.get(player_id)
        return entry is not None and entry.add_on

    @property
    def rebuys_open(self) -> bool:
        """Rebuys are open (as of the last ``tick``)."""
        return self._rebuys_open and self._state is TournamentState.RUNNING

    @property
    def add_on_open(self) -> bool:
        return self._add_on_state == "open" and self._state is TournamentState.RUNNING

    @property
    def is_full(self) -> bool:
        return len(self._entries) >= self._config.max_players

    def pending(self) -> tuple[PlayerId, ...]:
        """Busted players offered a rebuy who have not answered (seated nowhere meanwhile), in
        the order they busted."""
        return tuple(self._pending)

    def can_rebuy(self, player_id: PlayerId, now: float) -> bool:
        """Whether ``rebuy`` would take his rebuy at ``now``."""
        try:
            self._check_rebuy(player_id, now, None)
        except EngineError:
            return False
        return True

    def can_add_on(self, player_id: PlayerId) -> bool:
        """Whether ``add_on`` would take his add-on now."""
        try:
            self._check_add_on(player_id)
        except EngineError:
            return False
        return True

    def unpaid_prizes(self) -> tuple[int, ...]:
        """The prizes of the places the players still in will take, best first: what a deal
        shares out (``engine.icm``)."""
        prizes = self._config.payouts.prizes(self.prize_pool, self.entrants,
                                             self._config.prize_unit)
        return prizes[: self._in]

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
    def on_break(self) -> bool:
        """The clock is in a break (as of the last ``tick``)."""
        return self._on_break

    @property
    def finish_reason(self) -> str | None:
        """ "last_player" or "time" once over."""
        return self._finish_reason

    @property
    def standings(self) -> tuple[Standing, ...]:
        """Final places and prizes, best first (empty until the tournament is over)."""
        return self._standings

    def players_left(self) -> tuple[PlayerId, ...]:
        """Players still in: with chips, or busted and offered a rebuy they have not answered."""
        return tuple(e.player_id for e in self._entries if e.eliminated_hand is None)

    def knocked_out(self) -> tuple[PlayerId, ...]:
        """Players who entered and are out (every entry of theirs eliminated): those who may
        enter again, where re-entry is allowed."""
        return tuple(p for p, e in self._current.items() if e.eliminated_hand is not None)

    def moves_of(self, player_id: PlayerId) -> int:
        """How many times he has changed tables (this entry)."""
        entry = self._current.get(player_id)
        return entry.moves if entry is not None else 0

    def is_absent(self, player_id: PlayerId) -> bool:
        return player_id in self._absent

    def elapsed(self, now: float) -> float:
        """Seconds of play so far (pauses excluded)."""
        return self._clock.elapsed(now)

    def _position(self, now: float) -> tuple[int, bool, float | None]:
        """(level, in a break after it, seconds until the next level) on the clock at ``now``."""
        elapsed = self._clock.elapsed(now)
        for end, level, is_break in self._segments:
            if elapsed < end:
                return level, is_break, end - elapsed
        return len(self._config.levels), False, None

    def level_at(self, now: float) -> int:
        """The level the clock shows at ``now`` (1-based; the last level lasts forever). In a
        break it is the level before the break."""
        return self._position(now)[0]

    def on_break_at(self, now: float) -> bool:
        return self._position(now)[1]

    def seconds_to_next_level(self, now: float) -> float | None:
        return self._position(now)[2]

    def _time_over(self, now: float) -> bool:
        """A time-limited tournament's time has run out at ``now``."""
        limit = self._config.time_limit
        return limit is not None and self._clock.elapsed(now) >= limit

    def seconds_left(self, now: float) -> float | None:
        """A time-limited tournament's remaining seconds of play (None: no time limit)."""
        limit = self._config.time_limit
        return None if limit is None else max(0.0, limit - self._clock.elapsed(now))

    def can_start(self, table: int | None = None) -> bool:
        """Whether ``start_hand`` would deal at this table now (the clock as of the last
        ``tick``): running, not paused, not on a break, time not up, no hand in progress there,
        two players with chips."""
        if self._state is not TournamentState.RUNNING or self.paused or self._on_break:
            return False
        if self._time_up:
            return False
        return self._tables[self._table_number(table)].can_start()

    def status(self, now: float) -> TournamentStatus:
        """What a status board shows at ``now`` (changes nothing)."""
        level, on_break, to_next = self._position(now)
        level = max(level, self._level)
        sb, bb, ante, kind = self._config.level_options(level)
        levels = self._config.levels
        stacks = {
            v.player_id: v.stack for t in self._tables.values() for v in t.seats() if v.stack
        }
        left = self.players_left()
        chips = sum(stacks.values()) if stacks else self._config.starting_stack * len(left)
        leader = max(stacks, key=lambda p: stacks[p]) if stacks else None
        running = self._state is TournamentState.RUNNING
        holding = len(stacks) if stacks else len(left)  # a busted player waiting holds none
        return TournamentStatus(
            state=self._state,
            level=level,
            small_blind=sb,
            big_blind=bb,
            ante=ante,
            ante_kind=kind,
            next_level=levels[level] if level < len(levels) else None,
            on_break=on_break and running,
            paused=self.paused,
            seconds_to_next_level=to_next if running else None,
            seconds_left=self.seconds_left(now) if not self.is_over else None,
            time_up=self._time_up,
            entrants=self.entrants,
            players_left=len(left),
            chips_in_play=chips,
            average_stack=chips // holding if holding else 0,
            largest_stack=stacks[leader] if leader is not None else 0,
            chip_leader=leader,
            prize_pool=self.prize_pool,
            prizes=self._config.payouts.prizes(
                self.prize_pool, self.entrants, self._config.prize_unit
            ),
            registration_open=self.registration_open,
            late_registration_level=self._config.late_registration_level,
            players=left,
            tables=tuple(
                TableStatus(
                    number,
                    tuple((v.seat, v.player_id, v.stack) for v in t.seats()),
                    t.hand_number,
                    t.hand is not None,
                )
                for number, t in sorted(self._tables.items())
            ),
            standings=self._standings,
            rebuys_open=self.rebuys_open,
            add_on_open=self.add_on_open,
            pending=self.pending(),
            rebuys=self._rebuys_taken,
            add_ons=self._add_ons_taken,
            bounties=tuple((e.player_id, e.head) for e in self._entries
                           if e.eliminated_hand is None and self._config.bounty),
            bounties_paid=self._bounties_paid,
        )

    # -- persistence -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The whole tournament, JSON-safe; like :meth:`Table.to_json`, without the hands in
        progress (store their config, deck and actions)."""
        clock = self._clock
        position = {id(e): k for k, e in enumerate(self._entries)}
        return {
            "config": self._config.to_json(),
            "state": self._state.value,
            "clock": [clock.started, clock.paused_at, clock.paused_total, clock.seen],
            "level": self._level,
            "on_break": self._on_break,
            "registration_open": self._registration_open,
            "time_up": self._time_up,
            "final_table": self._final_table,
            "absent": sorted(self._absent, key=str),
            "entries": [e.to_json() for e in self._entries],
            # By position in "entries": a player may have several.
            "eliminations": [[position[id(e)] for e in group] for group in self._eliminations],
            "formats": [self._rebuys_open, self._add_on_state, self._rebuys_taken,
                        self._add_ons_taken, self._bounties_paid, self._busts],
            "finish_reason": self._finish_reason,
            "standings": [s.to_json() for s in self._standings],
            "next_table": self._next_table,
            "tables": [[number, t.to_json()] for number, t in self._tables.items()],
        }

    @classmethod
    def from_json(
        cls,
        data: dict[str, Any],
        rng: random.Random | int | None = None,
        hand: Hand | None = None,
        hands: Mapping[int, Hand] | None = None,
    ) -> Tournament:
        """A tournament from :meth:`to_json`. ``hands`` are the hands that were in progress,
        by table, replayed (``hand`` for a tournament of one table)."""
        t = cls(TournamentConfig.from_json(data["config"]), rng)
        try:
            t._state = TournamentState(data["state"])
            started, paused_at, paused_total, seen = data["clock"]
            t._clock = _Clock(started, paused_at, float(paused_total), seen)
            t._level = int(data["level"])
            t._on_break = bool(data["on_break"])
            t._registration_open = bool(data["registration_open"])
            t._time_up = bool(data["time_up"])
            t._final_table = bool(data["final_table"])
            t._absent = set(data["absent"])
            t._entries = [_Entry.from_json(row) for row in data["entries"]]
            t._current = {e.player_id: e for e in t._entries}  # the latest entry of each
            t._in = sum(e.eliminated_hand is None for e in t._entries)
            t._pending = {e.player_id: e for e in sorted(t._entries, key=lambda e: e.bust)
                          if e.pending}
            if "formats" in data:
                t._eliminations = [[t._entries[int(k)] for k in group]
                                   for group in data["eliminations"]]
                (rebuys_open, add_on_state, t._rebuys_taken, t._add_ons_taken,
                 t._bounties_paid, t._busts) = data["formats"]
                t._rebuys_open, t._add_on_state = bool(rebuys_open), str(add_on_state)
            else:  # stored before the formats: one entry each, groups by player
                t._eliminations = [[t._current[p] for p in group]
                                   for group in data["eliminations"]]
            t._finish_reason = data["finish_reason"]
            t._standings = tuple(Standing(**s) for s in data["standings"])
            t._next_table = int(data["next_table"])
            numbers = [int(number) for number, _ in data["tables"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise EngineError("bad_tournament_state", value=str(exc)) from None
        given = dict(hands or {})
        if hand is not None:
            if len(numbers) != 1:
                raise EngineError("bad_tournament_state", value="several tables, one hand")
            given[numbers[0]] = hand
        if not set(given) <= set(numbers):
            raise EngineError("bad_tournament_state", value="a hand for a table not in play")
        for number, table_data in data["tables"]:
            table = _TournamentTable.from_json(table_data, t._rng, given.get(int(number)))
            assert isinstance(table, _TournamentTable)
            t._tables[int(number)] = table
        return t

    def checkpoint(self, now: float) -> None:
        """Note that the tournament was alive at ``now`` (store ``to_json`` after it): after a
        crash, :meth:`recover` charges the players nothing from this moment on."""
        self._see(now)

    def recover(self, now: float) -> list[TableEvent]:
        """After a restart: the clock goes on from where it was when the tournament was last
        seen (its last call with a time), so the downtime is not charged to the players."""
        clock = self._clock
        if (
            self._state is TournamentState.RUNNING
            and clock.paused_at is None
            and clock.seen is not None
            and now > clock.seen
        ):
            clock.paused_total += now - clock.seen
        clock.seen = now
        return self.tick(now)

    # -- registration ----------------------------------------------------------------------

    def register(self, player_id: PlayerId, now: float) -> list[TableEvent]:
        """Enter the tournament: before the start, or late while registration is open; again,
        as a new entry with a fresh stack and a place of its own, once knocked out, while
        registration is open and ``reentries`` allow. A sit-and-go (``start_when_full``) starts
        the moment its last seat is taken: the events then go on with the start's."""
        if isinstance(player_id, bool) or not isinstance(player_id, str | int):
            raise EngineError("bad_player", player=repr(player_id))
        # Judged at ``now`` without ticking, so a refusal loses no level or time-up event.
        open_now = self.registration_open and (
            self._state is TournamentState.REGISTERING
            or (
                self.level_at(now) <= self._config.late_registration_level
                and not self._time_over(now)
            )
        )
        if not open_now:
            raise EngineError("registration_closed")
        before = self._current.get(player_id)
        if before is not None:
            if before.eliminated_hand is None or not self._config.reentries:
                raise EngineError("already_registered", player=player_id)
            if before.number > self._config.reentries:
                raise EngineError("reentry_limit", reentries=self._config.reentries)
        if len(self._entries) >= self._config.max_players:
            raise EngineError("tournament_full", max_players=self._config.max_players)
        self._see(now)
        events: list[TableEvent] = []
        late = self._state is TournamentState.RUNNING
        seat: int | None = None
        number: int | None = None
        entry = _Entry(player_id, late, number=before.number + 1 if before else 1,
                       head=self._config.bounty)
        self._entries.append(entry)
        self._current[player_id] = entry
        self._in += 1
        if late:
            number, opened = self._table_for_newcomer()
            events.extend(opened)
            # A random free seat; the table deals him in at once unless that seat is on the
            # button or between it and the big blind.
            table = self._tables[number]
            table.join(player_id, self._config.starting_stack)
            seat = table.seat_of(player_id)
        events.append(PlayerRegistered(player_id, self.entrants, self.prize_pool, late, seat,
                                       number, entry.number))
        if late:
            events.extend(self._balance())
        elif self._config.start_when_full and self.is_full:
            events.extend(self.start(now))
        return events

    def unregister(self, player_id: PlayerId) -> list[TableEvent]:
        if self._state is not TournamentState.REGISTERING:
            raise EngineError("registration_closed")
        entry = self._current.pop(player_id, None)
        if entry is None:
            raise EngineError("not_registered", player=player_id)
        self._entries.remove(entry)
        self._in -= 1
        return [PlayerUnregistered(player_id, self.entrants, self.prize_pool)]

    def start(self, now: float) -> list[TableEvent]:
        """Draw tables and seats and start the clock at level 1."""
        if self._state is not TournamentState.REGISTERING:
            raise EngineError("already_started")
        if len(self._entries) < 2:
            raise EngineError("not_enough_players", registered=len(self._entries))
        players = [e.player_id for e in self._entries]
        self._rng.shuffle(players)
        count = self._config.tables_for(len(players))
        drawn: list[tuple[int, int, PlayerId]] = []
        for k in range(count):
            number = self._open_table()
            group = players[k::count]  # dealt round the tables: sizes differ by one at most
            seats = self._rng.sample(range(1, self._config.seats + 1), len(group))
            for pid, seat in zip(group, seats, strict=True):
                self._tables[number].join(pid, self._config.starting_stack, seat=seat)
                drawn.append((number, seat, pid))
        self._state = TournamentState.RUNNING
        self._clock.started = now
        self._clock.seen = now
        sb, bb, ante, kind = self._config.level_options(1)
        events: list[TableEvent] = [
            TournamentStarted(tuple(sorted(drawn, key=lambda d: (d[0], d[1]))), self.entrants,
                              self.prize_pool, count),
            LevelStarted(1, sb, bb, ante, kind, tuple((n, 1) for n in sorted(self._tables))),
        ]
        if self._config.late_registration_level < 1:
            events.append(self._close_registration())
        # A tournament that starts at one table plays its final table from the first hand:
        # nothing to announce.
        self._final_table = count == 1
        events.extend(self.tick(now))
        return events

    # -- the clock -------------------------------------------------------------------------

    def tick(self, now: float) -> list[TableEvent]:
        """Bring the tournament up to ``now``: new levels (for each table's next hand), breaks,
        late registration closing, time running out. Call it whenever convenient; it is
        idempotent."""
        if self._state is not TournamentState.RUNNING:
            return []
        self._see(now)
        events: list[TableEvent] = []
        level, on_break, to_next = self._position(now)
        if level > self._level:
            self._level = level
            sb, bb, ante, kind = self._config.level_options(level)
            for table in self._tables.values():
                table.change_blinds(sb, bb, ante, kind)
            starts = tuple((n, t.hand_number + 1) for n, t in sorted(self._tables.items()))
            events.append(LevelStarted(level, sb, bb, ante, kind, starts))
        if on_break != self._on_break:
            self._on_break = on_break
            if on_break:
                events.append(BreakStarted(level, to_next or 0.0))
        if self._registration_open and level > self._config.late_registration_level:
            events.append(self._close_registration())
        time_over = self._time_over(now)
        period = self._config.rebuy_levels
        if self._rebuys_open and (level > period or time_over):
            events.extend(self._close_rebuys())
            if self.is_over:
                return events
        if (self._config.add_on and not self._add_on_state and not time_over
                and (level > period or (level == period and on_break))):
            self._add_on_state = "open"
            c = self._config
            holding = tuple(e.player_id for e in self._entries
                            if e.eliminated_hand is None and not e.pending)
            events.append(AddOnOpened(holding, c.add_on, c.add_on_cost))
        if time_over and not self._time_up:
            self._time_up = True
            playing = tuple(
                (n, t.hand_number) for n, t in sorted(self._tables.items()) if t.hand is not None
            )
            events.append(TimeUp(playing))
            if self._registration_open:
                events.append(self._close_registration())
            if self._add_on_state == "open":
                events.append(self._close_add_on())
            if not playing:
                events.extend(self._finish("time"))
        return events

    def pause(self, now: float, by: PlayerId | None = None) -> list[TableEvent]:
        """Stop the clock (levels, breaks, time limit) and dealing at every table; hands in
        progress may be finished."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        if self.paused:
            raise EngineError("already_paused")
        events = self.tick(now)
        if self.is_over:
            return events
        self._clock.paused_at = now
        for table in self._tables.values():
            table.pause(by)
        events.append(TournamentPaused(by))
        return events

    def resume(self, now: float, by: PlayerId | None = None) -> list[TableEvent]:
        if self._clock.paused_at is None:
            raise EngineError("not_paused")
        self._clock.paused_total += max(0.0, now - self._clock.paused_at)
        self._clock.paused_at = None
        self._see(now)
        for table in self._tables.values():
            table.resume(by)
        return [TournamentResumed(by)]

    # -- hands -----------------------------------------------------------------------------

    def start_hand(
        self,
        deck: Sequence[Card],
        now: float,
        button: int | None = None,
        table: int | None = None,
    ) -> list[TableEvent]:
        """Deal the next hand at ``table`` at the level in force at ``now``. ``button`` places
        the table's first button (a high-card draw done elsewhere); it is drawn at random
        otherwise.

        When time has run out no hand is dealt: the events end the tournament once no table
        is still in a hand (``is_over``).
        """
        number = self._table_number(table)
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        if self.paused:
            raise EngineError("tournament_paused")
        current = self._tables[number]
        if current.hand is not None:
            raise EngineError("hand_in_progress", hand_number=current.hand_number)
        # Refusals come before ``tick`` so that they lose no event.
        _, on_break, to_next = self._position(now)
        if on_break and not self._time_up:
            raise EngineError("tournament_on_break", seconds=round(to_next or 0))
        if len(current.sitting_in()) < 2 and not self._time_up:
            raise EngineError("table_waiting", table=number, players=len(current.seats()))
        events = self.tick(now)
        if self.is_over or self._time_up:
            return events
        events.extend(current.start_hand(deck, button=button))
        return events

    def finish_hand(self, now: float, table: int | None = None) -> list[TableEvent]:
        """Settle the hand that just ended at ``table``: eliminations and places, balancing,
        the end of the tournament when one player is left or time is up."""
        number = self._table_number(table)
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        current = self._tables[number]
        players = current.hand_players
        hand = current.hand
        events = current.finish_hand()
        assert hand is not None and hand.result is not None
        return self._settle(number, events, players, now, hand.result)

    def void_hand(
        self, now: float, by: PlayerId | None = None, table: int | None = None
    ) -> list[TableEvent]:
        """The floor calls the hand in progress off: chips go back, the button stays."""
        number = self._table_number(table)
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        current = self._tables[number]
        players = current.hand_players
        return self._settle(number, current.void_hand(by), players, now, None)

    def balance(self) -> list[TableEvent]:
        """Break and balance tables as far as tables between hands allow (settling a hand and
        late registration do it already; this is for a caller that wants to be sure)."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        return self._balance()

    def _settle(
        self,
        number: int,
        events: list[TableEvent],
        players: tuple[PlayerId, ...],
        now: float,
        result: HandResult | None,
    ) -> list[TableEvent]:
        table = self._tables[number]
        hand_number = table.hand_number
        busted = [e for e in events if isinstance(e, PlayerBusted)]
        if busted:
            assert result is not None  # a voided hand gives every chip back: nobody busts
            self._busts += 1
            group: list[_Entry] = []
            for e in busted:
                entry = self._current[e.player_id]
                entry.busted_hand = hand_number
                entry.bust = self._busts
                entry.starting_stack = e.starting_stack
                entry.order = players.index(e.player_id)
                entry.table = number
                entry.seat = e.seat
                self._absent.discard(e.player_id)
                events.extend(self._pay_bounty(entry, result, players))
                if self._rebuys_open and entry.rebuys < self._config.rebuys:
                    self._wait(entry, True)
                    c = self._config
                    events.append(RebuyOffered(e.player_id, entry.number, c.rebuy_cost,
                                               c.rebuy_stack, c.rebuys - entry.rebuys, number,
                                               hand_number))
                else:
                    group.append(entry)
            if group:
                events.extend(self._eliminate(group))
        if self._in <= 1:
            events.extend(self._finish("last_player"))
            return events
        events.extend(self._balance())
        events.extend(self.tick(now))
        if self._time_up and not self.is_over and self._no_hand_in_progress():
            events.extend(self._finish("time"))
        return events

    def set_absent(self, player_id: PlayerId, absent: bool = True) -> list[TableEvent]:
        """Mark a player away: he stays dealt in and the clock checks or folds for him."""
        entry = self._current.get(player_id)
        if entry is None or entry.eliminated_hand is not None:
            raise EngineError("not_playing", player=player_id)
        if absent:
            self._absent.add(player_id)
        else:
            self._absent.discard(player_id)
        return [PlayerAbsent(player_id, absent)]

    def act_for_absent(self, table: int | None = None) -> list[Event]:
        """While the player to act at ``table`` is absent, time him out (check if free, else
        fold)."""
        current = self._tables[self._table_number(table)]
        hand = current.hand
        events: list[Event] = []
        while hand is not None and hand.to_act is not None:
            if current.hand_players[hand.to_act] not in self._absent:
                break
            events.extend(hand.timeout(hand.to_act))
        return events

    # -- rebuys, the add-on, the deal ------------------------------------------------------

    def rebuy(self, player_id: PlayerId, now: float, count: int | None = None) -> list[TableEvent]:
        """Buy ``rebuy_chips`` for ``rebuy_price`` while rebuys are open at ``now``: a player
        offered a rebuy after busting is seated again (his own seat if it is still free, else
        as a late registrant is); a player with chips, at or below the starting stack and not
        in a hand, gets them on his stack at once. ``count``, when given, is how many rebuys
        he had made when he was offered this one: a second press of the same offer is refused
        instead of buying twice."""
        entry = self._check_rebuy(player_id, now, count)
        self._see(now)
        c = self._config
        entry.rebuys += 1
        self._rebuys_taken += 1
        entry.head += c.bounty
        events: list[TableEvent] = []
        came_back = entry.pending
        if came_back:
            self._wait(entry, False)
            events.extend(self._seat(entry, c.rebuy_stack))
            number = self.table_of(player_id)
            assert number is not None
        else:
            number = self.table_of(player_id)
            assert number is not None
            self._tables[number].add_chips(player_id, c.rebuy_stack)
        table = self._tables[number]
        view = table.player(player_id)
        assert view is not None
        events.append(PlayerRebought(player_id, entry.number, c.rebuy_cost,
                                     c.rebuy_cost - c.bounty, c.bounty, c.rebuy_stack, view.stack,
                                     entry.rebuys, self.prize_pool, number, view.seat))
        if came_back:
            events.extend(self._balance())
        return events

    def decline_rebuy(self, player_id: PlayerId, now: float) -> list[TableEvent]:
        """He turns the rebuy offered after his bust down: he is eliminated."""
        return self._end_offer(player_id, now, "declined")

    def expire_rebuy(self, player_id: PlayerId, now: float) -> list[TableEvent]:
        """His time to answer the rebuy offered (the caller's deadline) ran out: he is
        eliminated."""
        return self._end_offer(player_id, now, "expired")

    def add_on(self, player_id: PlayerId, now: float) -> list[TableEvent]:
        """Take the add-on (once, while it is open, not during a hand he plays)."""
        entry = self._check_add_on(player_id)
        self._see(now)
        c = self._config
        entry.add_on = True
        self._add_ons_taken += 1
        number = self.table_of(player_id)
        assert number is not None
        stack = self._tables[number].add_chips(player_id, c.add_on)
        seat = self._tables[number].seat_of(player_id)
        assert seat is not None
        return [PlayerAddedOn(player_id, entry.number, c.add_on_cost, c.add_on, stack,
                              self.prize_pool, number, seat)]

    def close_add_on(self, now: float) -> list[TableEvent]:
        """The add-on's deadline (the caller's) has come: nobody may take it any more."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        self._check_add_on_window()
        self._see(now)
        return [self._close_add_on()]

    def deal(self, prizes: Mapping[PlayerId, int], now: float) -> list[TableEvent]:
        """End the tournament with the prizes the players still in agreed on (between hands at
        every table, once the prize pool can no longer change). ``prizes`` gives each of them
        his prize; together they are exactly the prizes still unpaid (``unpaid_prizes``). The
        players still in are placed by chips as at the end of a time-limited tournament, each
        keeps the bounty on his own head, and the standings mark the deal."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        if not isinstance(prizes, Mapping):
            raise EngineError("bad_amount", amount=repr(prizes))
        for table in self._tables.values():
            if table.hand is not None:
                raise EngineError("hand_in_progress", hand_number=table.hand_number)
        if self.registration_open or self._rebuys_open or self.add_on_open or self._pending:
            raise EngineError("deal_pool_open")
        for pid, prize in prizes.items():
            entry = self._current.get(pid)
            if entry is None:
                raise EngineError("not_registered", player=pid)
            if entry.eliminated_hand is not None:
                raise EngineError("not_playing", player=pid)
            if isinstance(prize, bool) or not isinstance(prize, int) or prize < 0:
                raise EngineError("bad_amount", amount=repr(prize))
        for pid in self.players_left():
            if pid not in prizes:
                raise EngineError("deal_player_missing", player=pid)
        expected = sum(self.unpaid_prizes())
        total = sum(prizes.values())
        if total != expected:
            raise EngineError("deal_prizes_total", total=total, expected=expected)
        self._see(now)
        return self._finish("deal", dict(prizes))

    def _check_rebuy(self, player_id: PlayerId, now: float, count: int | None) -> _Entry:
        """The entry that may rebuy at ``now``; refusals in the order a player asks why."""
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        entry = self._in_play(player_id)
        c = self._config
        if not c.rebuys:
            raise EngineError("no_rebuys")
        if count is not None and count != entry.rebuys:
            raise EngineError("rebuy_stale", rebuys=entry.rebuys)
        if (not self._rebuys_open or self.level_at(now) > c.rebuy_levels
                or self._time_over(now)):
            raise EngineError("rebuy_closed")
        if entry.rebuys >= c.rebuys:
            raise EngineError("rebuy_limit", rebuys=c.rebuys)
        if not entry.pending:
            number = self.table_of(player_id)
            assert number is not None
            table = self._tables[number]
            if table.hand is not None and player_id in table.hand_players:
                raise EngineError("hand_in_progress", hand_number=table.hand_number)
            view = table.player(player_id)
            assert view is not None
            if view.stack > c.starting_stack:
                raise EngineError("rebuy_stack_too_large", stack=view.stack,
                                  maximum=c.starting_stack)
        return entry

    def _check_add_on(self, player_id: PlayerId) -> _Entry:
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        entry = self._in_play(player_id)
        if not self._config.add_on:
            raise EngineError("no_add_on")
        self._check_add_on_window()
        if entry.add_on:
            raise EngineError("add_on_taken")
        if entry.pending:
            raise EngineError("add_on_needs_chips")
        number = self.table_of(player_id)
        assert number is not None
        table = self._tables[number]
        if table.hand is not None and player_id in table.hand_players:
            raise EngineError("hand_in_progress", hand_number=table.hand_number)
        return entry

    def _check_add_on_window(self) -> None:
        if not self._add_on_state:
            raise EngineError("add_on_not_open")
        if self._add_on_state == "closed":
            raise EngineError("add_on_closed")

    def _in_play(self, player_id: PlayerId) -> _Entry:
        entry = self._current.get(player_id)
        if entry is None:
            raise EngineError("not_registered", player=player_id)
        if entry.eliminated_hand is not None:
            raise EngineError("not_playing", player=player_id)
        return entry

    def _end_offer(self, player_id: PlayerId, now: float, reason: str) -> list[TableEvent]:
        if self._state is not TournamentState.RUNNING:
            raise EngineError("not_running")
        entry = self._in_play(player_id)
        if not entry.pending:
            raise EngineError("rebuy_not_pending", player=player_id)
        self._see(now)
        self._wait(entry, False)
        events: list[TableEvent] = [RebuyDeclined(player_id, entry.number, reason)]
        events.extend(self._eliminate([entry]))
        if self._in <= 1:
            events.extend(self._finish("last_player"))
            return events
        events.extend(self._balance())
        return events

    def _close_rebuys(self) -> list[TableEvent]:
        """Rebuys close: every player still waiting to answer an offer is out, ranked among
        themselves by when they busted (later is better), then by stacks as in one hand."""
        self._rebuys_open = False
        waiting = list(self._pending.values())
        events: list[TableEvent] = [
            RebuysClosed(tuple(e.player_id for e in waiting), self.prize_pool)
        ]
        for entry in waiting:
            self._wait(entry, False)
            events.append(RebuyDeclined(entry.player_id, entry.number, "closed"))
        if waiting:
            # Balancing waits for the next hand settled: a tick may come in the middle of
            # dealing one.
            events.extend(self._eliminate(waiting))
            if self._in <= 1:
                events.extend(self._finish("last_player"))
        return events

    def _close_add_on(self) -> AddOnClosed:
        self._add_on_state = "closed"
        return AddOnClosed(self._add_ons_taken, self.prize_pool)

    def _wait(self, entry: _Entry, waiting: bool) -> None:
        """He busted and is offered a rebuy (``waiting``), or that offer is over."""
        entry.pending = waiting
        if waiting:
            self._pending[entry.player_id] = entry
        else:
            del self._pending[entry.player_id]

    def _eliminate(self, group: list[_Entry]) -> list[TableEvent]:
        self._in -= len(group)
        for entry in group:
            entry.eliminated_hand = entry.busted_hand
            self._absent.discard(entry.player_id)
        self._eliminations.append(group)
        return self._eliminated_events(group)

    def _pay_bounty(
        self, entry: _Entry, result: HandResult, players: tuple[PlayerId, ...]
    ) -> list[TableEvent]:
        """The bounty on a busted player's head goes to whoever won his last chips, at once
        (a rebuy buys him a new one)."""
        head, entry.head = entry.head, 0
        if not head:
            return []
        c = self._config
        unit = c.prize_unit
        events: list[TableEvent] = []
        for index, share in bounty_shares(head, result, players.index(entry.player_id), unit):
            winner = self._current[players[index]]
            if c.bounty_kind is BountyKind.PROGRESSIVE:
                paid, onto = progressive_halves(share, unit)
            else:
                paid, onto = share, 0
            winner.bounties += paid
            winner.head += onto
            self._bounties_paid += paid
            events.append(BountyWon(winner.player_id, winner.number, entry.player_id,
                                    entry.number, paid, onto, winner.head, "knockout"))
        return events

    # -- balancing -------------------------------------------------------------------------

    def _balance(self) -> list[TableEvent]:
        """Break the shortest table while the players fit at one table fewer, then move players
        from long tables to short ones until no two tables differ by more than one; only tables
        between hands give players up."""
        events: list[TableEvent] = []
        if self._state is not TournamentState.RUNNING or self._time_up:
            return events
        seats = self._config.seats
        # A busted player who may still rebuy keeps room for himself: a table is broken only
        # when he would fit too.
        waiting = len(self._pending)
        while len(self._tables) > 1:
            sizes = {n: t.size for n, t in self._tables.items()}
            if sum(sizes.values()) + waiting <= (len(sizes) - 1) * seats:
                victim = self._table_to_break(sizes)
                if victim is None:
                    break
                events.extend(self._break_table(victim))
                continue
            low, high = min(sizes.values()), max(sizes.values())
            if high < low + 2:
                break
            # Players leave the longest tables only (the highest number first among equals),
            # and only between hands: while all of them are in a hand, the move waits.
            sources = [n for n, size in sizes.items() if size == high and not self._busy(n)]
            if not sources:
                break
            source = max(sources)
            target = min(n for n, size in sizes.items() if size == low)
            events.append(self._move_for_balance(source, target))
        events.extend(self._final_table_event())
        return events

    def _busy(self, number: int) -> bool:
        return self._tables[number].hand is not None

    def _table_to_break(self, sizes: dict[int, int]) -> int | None:
        """The shortest table (the highest number among equals) if it is between hands; None
        while it is in a hand (it is broken when that hand is settled)."""
        low = min(sizes.values())
        shortest = sorted((n for n, size in sizes.items() if size == low), reverse=True)
        idle = [n for n in shortest if not self._busy(n)]
        return idle[0] if idle else None

    def _break_table(self, victim: int) -> list[TableEvent]:
        broken = self._tables[victim]
        players = [v.player_id for v in broken.seats()]
        self._rng.shuffle(players)  # the draw for the seats they take
        events: list[TableEvent] = []
        for pid in players:
            others = {n: t for n, t in self._tables.items() if n != victim and t.free_seats()}
            low = min(t.size for t in others.values())
            target = self._rng.choice(sorted(n for n, t in others.items() if t.size == low))
            seat = self._rng.choice(others[target].free_seats())
            events.append(self._move(pid, victim, target, seat, "table_broken"))
        del self._tables[victim]
        events.append(TableBroken(victim, len(self._tables)))
        return events

    def _move_for_balance(self, source: int, target: int) -> PlayerMoved:
        order = self._big_blind_order(self._tables[source])
        fewest = min(self._current[p].moves for p in order)
        # The next big blind goes, unless he has been moved more often than someone else there.
        player = next(p for p in order if self._current[p].moves == fewest)
        return self._move(player, source, target, self._worst_seat(self._tables[target]),
                          "balance")

    def _move(self, pid: PlayerId, source: int, target: int, seat: int, why: str) -> PlayerMoved:
        old = self._tables[source]
        from_seat = old.seat_of(pid)
        assert from_seat is not None
        left = old.release(pid)
        self._tables[target].join(pid, left.chips, seat=seat)
        self._current[pid].moves += 1
        return PlayerMoved(pid, source, from_seat, target, seat, left.chips, why)

    @staticmethod
    def _big_blind_order(table: Table) -> list[PlayerId]:
        """The table's players in the order the big blind will reach them (the next big blind
        first); before any hand, by seat."""
        rotation = table.rotation
        views = {v.seat: v.player_id for v in table.seats()}
        if rotation is None:
            return [views[s] for s in sorted(views)]
        ring = clockwise(rotation.big_blind_seat, table.options.seats)
        return [views[s] for s in ring if s in views]

    def _worst_seat(self, table: Table) -> int:
        """The free seat that gets the big blind soonest: the first one clockwise from the big
        blind of the hand in progress or last played (a random one before any hand)."""
        free = table.free_seats()
        plan = table.plan
        if table.hand is not None and plan is not None:
            reference: int | None = plan.rotation.big_blind_seat
        else:
            reference = table.rotation.big_blind_seat if table.rotation else None
        if reference is None:
            return self._rng.choice(free)
        return next(s for s in clockwise(reference, table.options.seats) if s in free)

    def _table_for_newcomer(self) -> tuple[int, list[TableEvent]]:
        """A late registrant's table: the shortest with a free seat, else a new one."""
        with_room = [n for n, t in self._tables.items() if t.free_seats()]
        if not with_room:
            number = self._open_table()
            if self.paused:
                self._tables[number].pause()
            return number, [TableOpened(number)]
        low = min(self._tables[n].size for n in with_room)
        shortest = sorted(n for n in with_room if self._tables[n].size == low)
        return self._rng.choice(shortest), []

    def _open_table(self) -> int:
        number = self._next_table
        self._next_table += 1
        self._tables[number] = _TournamentTable(
            self._config.table_options(self._level), rng=self._rng, tournament=True
        )
        return number

    def _seat(self, entry: _Entry, chips: int) -> list[TableEvent]:
        """Sit a player coming back after a rebuy: in his seat if it is still free (back
        before his table deals again, he plays on as if he had never busted; later, he is dealt
        in as a late registrant is), else where a late registrant would sit."""
        pid, number = entry.player_id, entry.table
        if number in self._tables and entry.seat in self._tables[number].free_seats():
            table = self._tables[number]
            table.join(pid, chips, seat=entry.seat)
            if table.hand_number == entry.busted_hand:
                table.readmit(pid)
            return []
        number, opened = self._table_for_newcomer()
        self._tables[number].join(entry.player_id, chips)
        return opened

    def _final_table_event(self) -> list[TableEvent]:
        if self._final_table or len(self._tables) != 1 or self._pending:
            return []
        self._final_table = True
        ((number, table),) = self._tables.items()
        return [FinalTable(number, tuple(v.player_id for v in table.seats()))]

    # -- internals -------------------------------------------------------------------------

    def _table_number(self, table: int | None) -> int:
        if table is None:
            if len(self._tables) == 1:
                return next(iter(self._tables))
            if not self._tables:
                raise EngineError("not_running")
            raise EngineError("which_table", tables=sorted(self._tables))
        if isinstance(table, bool) or not isinstance(table, int) or table not in self._tables:
            raise EngineError("no_such_table", table=repr(table))
        return table

    def _see(self, now: float) -> None:
        seen = self._clock.seen
        self._clock.seen = now if seen is None else max(seen, now)

    def _no_hand_in_progress(self) -> bool:
        return all(t.hand is None for t in self._tables.values())

    def _close_registration(self) -> RegistrationClosed:
        self._registration_open = False
        return RegistrationClosed(self.entrants, self.prize_pool)

    def _eliminated_events(self, group: list[_Entry]) -> list[TableEvent]:
        left = self._in
        out: list[TableEvent] = []
        for places, tied_group in _rank_by(group, _bust_key, left + 1):
            for entry in tied_group:
                assert entry.busted_hand is not None and entry.table is not None
                out.append(
                    PlayerEliminated(
                        entry.player_id,
                        None if self._registration_open else places,
                        len(tied_group),
                        entry.busted_hand,
                        entry.starting_stack,
                        entry.table,
                        entry.number,
                    )
                )
        return out

    def _finish(self, reason: str, deal: dict[PlayerId, int] | None = None) -> list[TableEvent]:
        """The end: the add-on closes if open, each player still in takes the bounty left on
        his own head, and the standings are drawn up (a deal's prizes for those in it)."""
        events: list[TableEvent] = []
        if self._add_on_state == "open":
            events.append(self._close_add_on())
        self._rebuys_open = False
        for entry in self._entries:
            if entry.eliminated_hand is None and entry.head:
                paid, entry.head = entry.head, 0
                entry.bounties += paid
                self._bounties_paid += paid
                events.append(BountyWon(entry.player_id, entry.number, entry.player_id,
                                        entry.number, paid, 0, 0, "own"))
        self._state = TournamentState.FINISHED
        self._finish_reason = reason
        self._registration_open = False
        self._standings = self._rank(deal)
        events.append(TournamentFinished(reason, self._standings))
        return events

    def _rank(self, deal: dict[PlayerId, int] | None) -> tuple[Standing, ...]:
        """Survivors by chips, then each hand's eliminations from the last one back."""
        survivors = [e for e in self._entries if e.eliminated_hand is None]
        chips: dict[PlayerId, int] = {}
        for number, table in sorted(self._tables.items()):
            button = table.button_seat or 1
            seat_rank = {s: k for k, s in enumerate(clockwise(button, table.options.seats))}
            for v in table.seats():
                chips[v.player_id] = v.stack
                # Odd chips of a shared prize: by table, then clockwise from its button.
                self._current[v.player_id].order = number * 100 + seat_rank.get(v.seat, 0)
        ranked: list[tuple[int, list[_Entry]]] = list(
            _rank_by(survivors, lambda e: (chips.get(e.player_id, 0),), 1)
        )
        place = len(survivors) + 1
        for group in reversed(self._eliminations):
            ranked.extend(_rank_by(group, _bust_key, place))
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
                agreed = deal is not None and entry.eliminated_hand is None
                standings.append(
                    Standing(
                        entry.player_id,
                        first,
                        len(group),
                        deal[entry.player_id] if agreed and deal is not None else prize,
                        chips.get(entry.player_id, 0) if entry.eliminated_hand is None else 0,
                        entry.eliminated_hand,
                        entry.table if entry.eliminated_hand is not None else None,
                        entry.number,
                        entry.bounties,
                        agreed,
                    )
                )
        return tuple(standings)


def _bust_key(entry: _Entry) -> tuple[int, int]:
    """Eliminations rank by when the player busted (later is better), then by his stack at the
    start of that hand (bigger is better)."""
    return entry.bust, entry.starting_stack


def _rank_by(
    entries: list[_Entry], key: Callable[[_Entry], tuple[int, ...]], first_place: int
) -> list[tuple[int, list[_Entry]]]:
    """Groups of equal ``key`` (bigger is better) with the first place each group takes."""
    ordered = sorted(entries, key=lambda e: (tuple(-k for k in key(e)), e.order))
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

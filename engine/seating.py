"""Where the button and the blinds go next hand, and who is dealt in (dead-button rule).

The big blind drives everything (TDA 32): it moves to the first seat clockwise from last hand's big
blind whose player is *sitting in* (seated, with chips, not sitting out). So nobody sitting in can
be skipped, and nobody pays it twice in a row. The small blind is due from last hand's big blind
seat and is dead when that player is not in the game any more; the button goes where last hand's
small blind was due, and may be dead too.

Players who are sitting in but owe blinds (new arrivals, players back from sitting out) are dealt
in when the big blind reaches them, or at once by posting (policy ``post_bb``), or at once for free
(``deal_in``, tournaments) — but never on the button or between it and the big blind, where they
would play a round without paying for it, and a poster never on the seat that gets the big blind
next hand (he would pay it twice running; he waits one hand instead).

Heads-up the button posts the small blind and the player who did not have the big blind last hand
gets it, which is what TDA 34-B asks of a table going from three players to two.

Seats are numbered from 1 clockwise. Everything here is a pure function of frozen inputs, so the
table and the tests can ask "what would happen" without changing anything.

>>> seats = [SeatStatus(1, "a", True), SeatStatus(2, "b", True), SeatStatus(3, "c", True)]
>>> plan = plan_hand(6, seats, Rotation(1, "a", 6, 5), NewPlayerPolicy.WAIT_FOR_BB)
>>> plan.button_seat, plan.small_blind_seat, plan.big_blind_seat, plan.seats
(6, 1, 2, (1, 2, 3))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import EngineError

PlayerId = str | int
"""Whatever the caller identifies players by (the bot uses Discord user ids)."""


class NewPlayerPolicy(StrEnum):
    """How a player who owes blinds (new, or back from sitting out) gets dealt in."""

    WAIT_FOR_BB = "wait_for_bb"  # when the big blind reaches him
    POST_BB = "post_bb"  # at once, posting a live big blind (and a missed small blind dead)
    DEAL_IN = "deal_in"  # at once without posting: tournaments, where blinds are never missed


class PlanKind(StrEnum):
    FIRST = "first"  # no previous hand: random button, everyone sitting in is dealt in
    NORMAL = "normal"  # dead-button rule
    HEADS_UP = "heads_up"  # two players: the button posts the small blind
    RESTART = "restart"  # fewer than two could be dealt in by the rules: the game starts again


@dataclass(frozen=True, slots=True)
class SeatStatus:
    """One occupied seat as the planner needs it."""

    seat: int
    player_id: PlayerId
    sitting_in: bool  # seated with chips and not sitting out
    owes_small_blind: bool = False
    owes_big_blind: bool = False

    @property
    def owes(self) -> bool:
        return self.owes_small_blind or self.owes_big_blind

    @property
    def active(self) -> bool:
        """In the rotation: dealt in every hand wherever the button is."""
        return self.sitting_in and not self.owes


@dataclass(frozen=True, slots=True)
class Rotation:
    """What the next hand is placed from: last big blind, and where the small blind was due."""

    big_blind_seat: int
    big_blind_player: PlayerId
    small_blind_seat: int  # where the small blind was due, posted or dead: the next button
    button_seat: int

    def to_json(self) -> dict[str, Any]:
        return {
            "big_blind_seat": self.big_blind_seat,
            "big_blind_player": self.big_blind_player,
            "small_blind_seat": self.small_blind_seat,
            "button_seat": self.button_seat,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rotation:
        return cls(
            data["big_blind_seat"],
            data["big_blind_player"],
            data["small_blind_seat"],
            data["button_seat"],
        )


@dataclass(frozen=True, slots=True)
class HandPlan:
    kind: PlanKind
    seats: tuple[int, ...]  # dealt in, clockwise from the first seat left of the button
    button_seat: int  # may be empty or hold someone not dealt in (dead button)
    small_blind_seat: int | None  # None: dead small blind
    big_blind_seat: int
    entering: tuple[int, ...]  # dealt in out of turn although owing blinds (post per policy)
    missed_small_blind: tuple[int, ...]  # seats whose player missed the small blind this hand
    missed_big_blind: tuple[int, ...]  # seats the big blind passed over while not sitting in
    rotation: Rotation  # to place the hand after this one, once this one is played

    @property
    def heads_up(self) -> bool:
        return len(self.seats) == 2

    @property
    def big_blind_index(self) -> int:
        return self.seats.index(self.big_blind_seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "seats": list(self.seats),
            "button_seat": self.button_seat,
            "small_blind_seat": self.small_blind_seat,
            "big_blind_seat": self.big_blind_seat,
            "entering": list(self.entering),
            "missed_small_blind": list(self.missed_small_blind),
            "missed_big_blind": list(self.missed_big_blind),
            "rotation": self.rotation.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HandPlan:
        return cls(
            kind=PlanKind(data["kind"]),
            seats=tuple(data["seats"]),
            button_seat=data["button_seat"],
            small_blind_seat=data["small_blind_seat"],
            big_blind_seat=data["big_blind_seat"],
            entering=tuple(data["entering"]),
            missed_small_blind=tuple(data["missed_small_blind"]),
            missed_big_blind=tuple(data["missed_big_blind"]),
            rotation=Rotation.from_json(data["rotation"]),
        )


def clockwise(after: int, seat_count: int) -> Iterator[int]:
    """Every seat once, starting with the one left of ``after`` and ending with ``after``."""
    for step in range(1, seat_count + 1):
        yield (after - 1 + step) % seat_count + 1


def _between(start: int, end: int, seat_count: int) -> list[int]:
    """Seats strictly between ``start`` and ``end`` going clockwise."""
    out: list[int] = []
    for seat in clockwise(start, seat_count):
        if seat == end:
            return out
        out.append(seat)
    return out


def _order(seats: set[int], button: int, seat_count: int) -> tuple[int, ...]:
    return tuple(s for s in clockwise(button, seat_count) if s in seats)


def _place_live(dealt: set[int], big_blind: int, seat_count: int) -> tuple[int, int]:
    """Button and small blind for a hand with no dead blinds, given its big blind."""
    ring = _order(dealt, big_blind, seat_count)  # big blind last
    small_blind = ring[-2]
    button = small_blind if len(ring) == 2 else ring[-3]
    return button, small_blind


def plan_hand(
    seat_count: int,
    seats: Sequence[SeatStatus],
    rotation: Rotation | None,
    policy: NewPlayerPolicy,
    choose: Callable[[Sequence[int]], int] | None = None,
) -> HandPlan:
    """Place the next hand. ``choose`` picks the first button among the seats dealt in.

    Raises ``EngineError("not_enough_players")`` when fewer than two players are sitting in.
    """
    by_seat = {s.seat: s for s in seats}
    sitting_in = sorted(s.seat for s in seats if s.sitting_in)
    if len(sitting_in) < 2:
        raise EngineError("not_enough_players", sitting_in=len(sitting_in))

    if rotation is None:
        dealt = set(sitting_in)
        button = choose(sitting_in) if choose is not None else sitting_in[0]
        if button not in dealt:
            raise EngineError("bad_button", seat=button)
        ring = _order(dealt, button, seat_count)  # button last
        first_sb = button if len(ring) == 2 else ring[0]
        first_bb = ring[0] if len(ring) == 2 else ring[1]
        return HandPlan(
            kind=PlanKind.FIRST,
            seats=ring,
            button_seat=button,
            small_blind_seat=first_sb,
            big_blind_seat=first_bb,
            entering=(),
            missed_small_blind=(),
            missed_big_blind=(),
            rotation=Rotation(first_bb, by_seat[first_bb].player_id, first_sb, button),
        )

    last_bb = rotation.big_blind_seat
    # The same player never gets the big blind twice running, even if he left and sat down again
    # further round; the seat of last hand's big blind is looked at last, for a newcomer there.
    big_blind = next(
        (
            seat
            for seat in clockwise(last_bb, seat_count)
            if seat in by_seat
            and by_seat[seat].sitting_in
            and by_seat[seat].player_id != rotation.big_blind_player
        ),
        None,
    )
    if big_blind is None:  # pragma: no cover - two distinct players are sitting in
        raise EngineError("not_enough_players", sitting_in=len(sitting_in))

    missed_bb = tuple(
        seat
        for seat in _between(last_bb, big_blind, seat_count)
        if seat in by_seat and not by_seat[seat].sitting_in
    )
    sb_status = by_seat.get(last_bb)
    missed_sb: tuple[int, ...] = ()
    if sb_status is not None and not sb_status.sitting_in and big_blind != last_bb:
        missed_sb = (last_bb,)
    small_blind_live = sb_status is not None and sb_status.active and big_blind != last_bb
    button = rotation.small_blind_seat
    # After a heads-up hand the small blind was on the button, so "button = last small blind" can
    # land on the big blind; then the hand is placed like a restart and nobody enters out of turn.
    collision = button == big_blind or big_blind == last_bb

    # Seats that would play this hand without having paid for it: strictly between the button and
    # the big blind nobody is dealt in but the small blind himself, and nobody owing blinds enters
    # on the button either.
    inside: set[int] = set()
    may_enter = policy is not NewPlayerPolicy.WAIT_FOR_BB and not collision
    if not collision:
        inside.update(_between(button, big_blind, seat_count))
        if small_blind_live:
            inside.discard(last_bb)
    # Posting to come in on the seat that gets the big blind next hand would pay it twice running;
    # he waits one hand instead.
    next_big_blind = next(
        (
            seat
            for seat in clockwise(big_blind, seat_count)
            if seat in by_seat
            and by_seat[seat].sitting_in
            and by_seat[seat].player_id != by_seat[big_blind].player_id
        ),
        None,
    )
    dealt = {big_blind}
    entering: list[int] = []
    for seat in sitting_in:
        status = by_seat[seat]
        if seat == big_blind or seat in inside:
            continue
        if status.active:
            dealt.add(seat)
        elif may_enter and seat != button:
            if policy is NewPlayerPolicy.POST_BB and seat == next_big_blind:
                continue
            dealt.add(seat)
            entering.append(seat)

    if len(dealt) < 2:
        dealt = set(sitting_in)
        kind = PlanKind.RESTART
        entering = []
    elif len(dealt) == 2:
        kind = PlanKind.HEADS_UP
        entering = []  # heads-up the blinds alternate every hand: nothing to make up
    elif collision:
        kind = PlanKind.RESTART
    else:
        kind = PlanKind.NORMAL

    if kind is PlanKind.NORMAL:
        ordered = _order(dealt, button, seat_count)
        return HandPlan(
            kind=kind,
            seats=ordered,
            button_seat=button,
            small_blind_seat=last_bb if small_blind_live else None,
            big_blind_seat=big_blind,
            entering=tuple(s for s in ordered if s in entering),
            missed_small_blind=missed_sb,
            missed_big_blind=missed_bb,
            rotation=Rotation(big_blind, by_seat[big_blind].player_id, last_bb, button),
        )

    button, small_blind_seat = _place_live(dealt, big_blind, seat_count)
    ordered = _order(dealt, button, seat_count)
    return HandPlan(
        kind=kind,
        seats=ordered,
        button_seat=button,
        small_blind_seat=small_blind_seat,
        big_blind_seat=big_blind,
        entering=tuple(s for s in ordered if s in entering),
        missed_small_blind=missed_sb,
        missed_big_blind=missed_bb,
        rotation=Rotation(big_blind, by_seat[big_blind].player_id, small_blind_seat, button),
    )

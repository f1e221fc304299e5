"""How the table runtime behaves (clock, pacing, deck) and what each table stores about itself.

``RuntimeOptions`` are process-wide knobs read from the environment (``POKER_*``, see
``.env.example``); tests pass their own. ``TableConfig`` is the JSON a table keeps in storage
(``poker_tables.config``): its options, its clock, who is dealing, the players' names and time
banks, and the engine's table state (``Table.to_json()``) so a restart puts the button, the
blinds owed and the sitting-out players back exactly where they were.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.settings import read_environment
from engine.cards import Card, shuffled_deck
from engine.table import TableOptions

DeckFactory = Callable[[], Sequence[Card]]


class RuntimeOptionsError(ValueError):
    """A ``POKER_*`` setting is malformed; the message names the variable."""


@dataclass(frozen=True, slots=True)
class RuntimeOptions:
    """Process-wide behaviour of every table.

    The time bank is a reserve of seconds a player draws on once the table's timer has run
    out; every hand he is dealt adds ``time_bank_refill`` up to ``time_bank_cap``.
    """

    next_hand_delay: float = 5.0  # pause after a hand, so players can read the result
    time_bank: float = 30.0  # a new player's reserve
    time_bank_refill: float = 5.0
    time_bank_cap: float = 60.0
    timeouts_before_sit_out: int = 2  # consecutive timeouts that sit a player out
    min_timer: int = 10  # the range /poker create and /poker settings accept for the timer
    max_timer: int = 300
    default_timer: int = 30
    # Discord allows about 5 messages per 5 s per channel; stay inside it ourselves.
    channel_sends: int = 5
    channel_window: float = 5.0
    # Edits that change nothing about whose turn it is wait this long after the last send.
    calm_edit_interval: float = 1.0
    # A player's time starts when the message naming him goes out; if it cannot go out at all,
    # his time starts anyway after this long, so an unreachable channel cannot stall a table.
    prompt_grace: float = 15.0
    # One member may ask for the table to be posted again this often.
    repost_cooldown: float = 30.0
    # How often open tables are checked for having nobody seated (closed after the server's
    # idle time, ``/chips settings idle_minutes``).
    idle_check_interval: float = 60.0
    # On a graceful stop, how long queued messages may take to go out.
    drain_timeout: float = 10.0
    # How long a process's hold on a server's tables lasts unless renewed (renewed every third
    # of it): after a crash, another process given that server's shard takes over this late.
    lease_seconds: float = 30.0
    # How long the players of an all-in hand have to agree to run it twice (table option "ask").
    run_twice_vote: float = 15.0
    # An all-in run-out is dealt street by street, each shown this long with every hand's
    # chances, before the result.
    runout_pause: float = 2.0
    # REST requests a second the whole bot may make (Discord's global limit is 50); a process
    # running some of the shards spends its share.
    requests_per_second: float = 40.0
    # How often a running tournament notes that its clock is alive (one small write): after a
    # crash its level resumes with the time it had left at most this long before the crash.
    tournament_heartbeat: float = 2.0
    # How long before a tournament's start the members who marked its calendar event
    # "Interested" get a reminder with a Register button.
    event_reminder: float = 600.0
    # A computer player answers after a pause drawn from this range (seconds), as a person
    # would: an instant answer reads as a machine and gives the others no time to follow.
    bot_pause: tuple[float, float] = (1.0, 3.0)
    # How often the chips are checked against each server's count in circulation, for the
    # operator's metrics (only while they are on; the full check runs at every start).
    invariant_interval: float = 300.0
    deck_factory: DeckFactory = field(default=shuffled_deck, compare=False)
    # The wall clock (Unix seconds) the house's daily loss cap is counted back from; a test
    # gives its own to put a loss exactly 23 or 25 hours in the past.
    wall: Callable[[], float] = field(default=time.time, compare=False)

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        dotenv_path: str | os.PathLike[str] | None = ".env",
    ) -> RuntimeOptions:
        """``POKER_NEXT_HAND_DELAY``, ``POKER_TIME_BANK``, ``POKER_TIME_BANK_REFILL``,
        ``POKER_TIME_BANK_CAP``, ``POKER_MIN_TIMER``, ``POKER_LEASE_SECONDS``,
        ``POKER_REQUESTS_PER_SECOND``, ``POKER_EVENT_REMINDER``, ``POKER_BOT_PAUSE`` (the
        longest pause of a computer player, in seconds; the shortest is a third of it): the
        environment wins over ``.env``."""
        values = read_environment(environ, dotenv_path)
        defaults = cls()
        changes: dict[str, Any] = {}
        for name, attribute in (
            ("POKER_NEXT_HAND_DELAY", "next_hand_delay"),
            ("POKER_TIME_BANK", "time_bank"),
            ("POKER_TIME_BANK_REFILL", "time_bank_refill"),
            ("POKER_TIME_BANK_CAP", "time_bank_cap"),
            ("POKER_LEASE_SECONDS", "lease_seconds"),
            ("POKER_EVENT_REMINDER", "event_reminder"),
        ):
            raw = values.get(name)
            if raw is not None:
                changes[attribute] = _seconds(name, raw)
        raw_pause = values.get("POKER_BOT_PAUSE")
        if raw_pause is not None:
            longest = _seconds("POKER_BOT_PAUSE", raw_pause)
            if longest > 30:
                raise RuntimeOptionsError(
                    f"POKER_BOT_PAUSE must be at most 30 seconds (a bot never holds a table"
                    f" up), got {raw_pause!r}"
                )
            changes["bot_pause"] = (longest / 3, longest)
        raw_timer = values.get("POKER_MIN_TIMER")
        if raw_timer is not None:
            if not raw_timer.isdigit() or not 1 <= int(raw_timer) <= defaults.max_timer:
                raise RuntimeOptionsError(
                    f"POKER_MIN_TIMER must be whole seconds from 1 to {defaults.max_timer},"
                    f" got {raw_timer!r}"
                )
            changes["min_timer"] = int(raw_timer)
            changes["default_timer"] = max(defaults.default_timer, int(raw_timer))
        raw_rate = values.get("POKER_REQUESTS_PER_SECOND")
        if raw_rate is not None:
            try:
                rate = float(raw_rate)
            except ValueError:
                rate = 0.0
            # With its burst (a tenth of a second's worth), 40 a second stays under the 50
            # Discord allows in any one second, with room for the network's jitter.
            if not 1 <= rate <= 40:
                raise RuntimeOptionsError(
                    "POKER_REQUESTS_PER_SECOND must be a number from 1 to 40 (Discord allows 50"
                    f" a second, bursts included), got {raw_rate!r}"
                )
            changes["requests_per_second"] = rate
        if changes.get("lease_seconds", defaults.lease_seconds) < 3:
            raise RuntimeOptionsError("POKER_LEASE_SECONDS must be at least 3 seconds")
        return dataclasses.replace(defaults, **changes)


def _seconds(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise RuntimeOptionsError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 <= value <= 3600:
        raise RuntimeOptionsError(f"{name} must be between 0 and 3600 seconds, got {raw!r}")
    return value


@dataclass(slots=True)
class TableConfig:
    """What a table stores about itself besides seats and hands (``poker_tables.config``).

    ``state`` is ``Table.to_json()`` as last saved (None before the first save); ``pending``
    holds options changed during a hand, applied before the next one is dealt.

    The home-game extras live here too, since the engine decides each hand only from what it
    is told at the deal: who asked to straddle (the next hand only, or every hand), the bomb
    pot the host ordered for the next hand, every how many hands a bomb pot comes by itself
    and for how much, and who asked to sit out when his big blind comes.
    """

    options: TableOptions
    timer: int
    dealing: bool = False
    locale: str | None = None
    names: dict[int, str] = field(default_factory=dict)
    banks: dict[int, float] = field(default_factory=dict)
    pending: TableOptions | None = None
    state: dict[str, Any] | None = None
    straddle_once: set[int] = field(default_factory=set)
    straddle_always: set[int] = field(default_factory=set)
    bomb_next: int = 0
    bomb_every: int = 0
    bomb_amount: int = 0
    skip_big_blind: set[int] = field(default_factory=set)
    recap: bool = True  # post the recap of a session when it ends (the host may turn it off)

    def copy(self) -> TableConfig:
        """A copy to change as a draft (its dicts and sets are its own)."""
        return dataclasses.replace(
            self,
            names=dict(self.names),
            banks=dict(self.banks),
            straddle_once=set(self.straddle_once),
            straddle_always=set(self.straddle_always),
            skip_big_blind=set(self.skip_big_blind),
        )

    def bomb_for(self, hand_number: int) -> int:
        """The bomb pot of hand ``hand_number`` (0: an ordinary hand): the host's order first,
        else every ``bomb_every``-th hand."""
        if self.bomb_next:
            return self.bomb_next
        if self.bomb_every and self.bomb_amount and hand_number % self.bomb_every == 0:
            return self.bomb_amount
        return 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "options": self.options.to_json(),
            "timer": self.timer,
            "dealing": self.dealing,
            "locale": self.locale,
            # JSON object keys are strings; user ids go back to ints in from_json.
            "names": {str(k): v for k, v in self.names.items()},
            "banks": {str(k): round(v, 3) for k, v in self.banks.items()},
            "pending": self.pending.to_json() if self.pending is not None else None,
            "state": self.state,
            "straddle_once": sorted(self.straddle_once),
            "straddle_always": sorted(self.straddle_always),
            "bomb_next": self.bomb_next,
            "bomb_every": self.bomb_every,
            "bomb_amount": self.bomb_amount,
            "skip_big_blind": sorted(self.skip_big_blind),
            "recap": self.recap,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableConfig:
        pending = data.get("pending")
        return cls(
            options=TableOptions.from_json(dict(data["options"])),
            timer=int(data["timer"]),
            dealing=bool(data.get("dealing", False)),
            locale=data.get("locale"),
            names={int(k): str(v) for k, v in (data.get("names") or {}).items()},
            banks={int(k): float(v) for k, v in (data.get("banks") or {}).items()},
            pending=TableOptions.from_json(dict(pending)) if pending else None,
            state=data.get("state"),
            straddle_once={int(u) for u in data.get("straddle_once") or ()},
            straddle_always={int(u) for u in data.get("straddle_always") or ()},
            bomb_next=int(data.get("bomb_next", 0)),
            bomb_every=int(data.get("bomb_every", 0)),
            bomb_amount=int(data.get("bomb_amount", 0)),
            skip_big_blind={int(u) for u in data.get("skip_big_blind") or ()},
            recap=bool(data.get("recap", True)),
        )

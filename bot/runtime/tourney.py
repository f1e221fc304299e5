"""A live tournament: registration, the seat draw, one clock for every table, each table's hands,
balancing, eliminations and prizes.

One :class:`LiveTournament` per open tournament, one :class:`TournamentTable` per table in
play. A tournament is one state (the engine's :class:`~engine.tournament.Tournament`): a hand
settled at one table can move players out of another, break it, or end everything. So every
input for any of its tables runs under the tournament's one lock, and each is a transition made
as a cash table makes its own:

1. **draft**: a copy of the engine's tournament is changed by the engine, which refuses bad
   input before anything changes;
2. **store**: the hand's step and the tournament's new state go to storage in one transaction
   (``bot.storage.hands``' tournament path, with a ``TournamentSave``: the tables opened and
   broken, and the places and prizes when it ends);
3. **adopt**: only then does the draft become the tournament, and only then is anybody told.

A tournament's table plays its hands with the one hand loop every table shares
(:class:`~bot.runtime.table.LiveTable`); it only fills the loop's hooks with the tournament's
state as its draft, and its differences from a cash table are declared in
:data:`~bot.runtime.table.TOURNAMENT`. Its messenger is its channel's (the tournament's channel,
or a thread under it per table when there are several), shared with the tournament's
announcements, which the presenter words (``bot.presenter.tournament_news``).

The clock is the engine's, read from the wall clock: a ticker wakes the tournament when a level
or a break ends, when time is up, or at ``starts_at``, and every ``tournament_heartbeat``
seconds notes in storage that the clock is alive. After a crash the tournament resumes from the
last such moment (``Tournament.recover``): the time the bot was down is not charged to anybody.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import discord

from bot.errors import BotError, coded_message, is_discord_fault
from bot.i18n import resolve_locale, t
from bot.presenter import (
    EVERYWHERE,
    LOBBY,
    ButtonSpec,
    TableMessage,
    TournamentScene,
    deal_buttons,
    deal_proposed_text,
    eliminated_text,
    labels_for,
    mention,
    moved_dm_text,
    thread_name,
    tournament_called_off_text,
    tournament_header,
    tournament_news,
)
from bot.runtime.budget import Priority, requests_at
from bot.runtime.dealvote import DealOffer, DealVoting, figures
from bot.runtime.direct import DirectMessages, send_dm
from bot.runtime.faults import log_failure
from bot.runtime.formats import (
    ADD_ON_OPEN,
    REBUY_ANSWER,
    add_on_offer_text,
    format_news,
    is_reentry,
    payments_of,
    rebuy_offer_text,
)
from bot.runtime.kinds import TOURNAMENT
from bot.runtime.messenger import TableMessenger
from bot.runtime.play import Clicks
from bot.runtime.recaps import RecapPoster
from bot.runtime.results import settled_hand
from bot.runtime.table import SOON, LiveTable, TableServices
from bot.storage import StorageError, hands, tournaments
from bot.storage.errors import StorageUnavailable
from bot.storage.tournaments import (
    MAX_NAME,
    Placing,
    TableOpening,
    TournamentInfo,
    TournamentSave,
)
from bot.storage.tournaments import (
    TournamentTable as StoredTable,
)
from engine.bots.ids import is_bot
from engine.cards import Card
from engine.commitment import DeckCommitment
from engine.errors import EngineError
from engine.hand import Hand
from engine.seating import PlayerId
from engine.structures import time_limit_until
from engine.table import Table, TableEvent
from engine.tournament import (
    AddOnClosed,
    AddOnOpened,
    PlayerEliminated,
    PlayerMoved,
    PlayerRegistered,
    RebuyDeclined,
    RebuyOffered,
    RebuysClosed,
    TableBroken,
    TableOpened,
    Tournament,
    TournamentConfig,
    TournamentFinished,
    TournamentStarted,
    TournamentState,
)

log = logging.getLogger(__name__)

KINDS = ("freeze_out", "time_limited", "sit_and_go")
# Storage knows a sit-and-go as a freeze-out: what differs (starting when full, repeating) is
# the engine's and the runtime's.
STORED_KIND = {"sit_and_go": "freeze_out"}
# A thread archives itself after this many minutes without a message (one of Discord's four).
THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440


# A host clock this far from the tournament clock has jumped (a correction, a time set by hand).
JUMP = 2.0


class SteadyClock:
    """Unix seconds that never jump: the host's clock read once, then carried on by the
    monotonic clock.

    A tournament's levels, breaks and time limit run on Unix seconds, so that another process
    (after a crash, or a lease taken over) reads the same clock. Read straight from the host,
    a clock that jumps an hour ahead would end six levels at once, and one set back would
    hold a level for an hour; carried on by the monotonic clock, a level lasts its minutes
    whatever the host's clock does. A jump is logged once, as a WARNING (the operator should
    fix the host's time; a restart then reads it afresh).
    """

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._wall = wall
        self._monotonic = monotonic
        self._start_wall = wall()
        self._start = monotonic()
        self._told = 0.0  # the jump last reported

    def __call__(self) -> float:
        moment = self._start_wall + (self._monotonic() - self._start)
        jump = self._wall() - moment
        if abs(jump) >= JUMP and abs(jump - self._told) >= JUMP:
            self._told = jump
            log.warning("the host's clock is %+.0f s from the tournaments' clock (it jumped);"
                        " levels keep their own pace", jump)
        return moment


now = SteadyClock()


@dataclass(slots=True)
class TournamentSettings:
    """What a tournament keeps about itself besides the engine's state (``tournaments.config``):
    how it was asked for, its decision timer, the language its channels speak, the players'
    names and time banks, and how it ended."""

    kind: str
    timer: int
    locale: str | None = None
    structure: str = ""
    payouts: str = ""
    ends_at: float | None = None  # a time-limited tournament's end (Unix seconds)
    starts_at: float | None = None  # the automatic start, if any
    names: dict[int, str] = field(default_factory=dict)
    banks: dict[int, float] = field(default_factory=dict)
    winning_hand: tuple[str, tuple[str, ...]] | None = None
    repeat: bool = False  # a sit-and-go: the next opens in its channel the moment it starts
    series: int = 1  # which of a repeating sit-and-go's games this is
    deal: str | None = None  # how the players still in shared the prizes, if they made a deal

    @property
    def stored_kind(self) -> str:
        return STORED_KIND.get(self.kind, self.kind)

    def copy(self) -> TournamentSettings:
        return dataclasses.replace(self, names=dict(self.names), banks=dict(self.banks))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "kind": self.kind,
            "timer": self.timer,
            "locale": self.locale,
            "structure": self.structure,
            "payouts": self.payouts,
            "ends_at": self.ends_at,
            "starts_at": self.starts_at,
            # JSON object keys are strings; user ids go back to ints in from_json.
            "names": {str(k): v for k, v in self.names.items()},
            "banks": {str(k): round(v, 3) for k, v in self.banks.items()},
            "winning_hand": None if self.winning_hand is None
            else [self.winning_hand[0], list(self.winning_hand[1])],
            **({"repeat": True, "series": self.series} if self.repeat else {}),
            "deal": self.deal,
        }

    @classmethod
    def from_json(cls, data: Any) -> TournamentSettings:
        won = data.get("winning_hand")
        return cls(
            kind=str(data["kind"]),
            timer=int(data["timer"]),
            locale=data.get("locale"),
            structure=str(data.get("structure") or ""),
            payouts=str(data.get("payouts") or ""),
            ends_at=data.get("ends_at"),
            starts_at=data.get("starts_at"),
            names={int(k): str(v) for k, v in (data.get("names") or {}).items()},
            banks={int(k): float(v) for k, v in (data.get("banks") or {}).items()},
            winning_hand=None if not won else (str(won[0]), tuple(str(r) for r in won[1])),
            repeat=bool(data.get("repeat", False)),
            series=int(data.get("series", 1)),
            deal=None if data.get("deal") is None else str(data["deal"]),
        )


@dataclass(frozen=True, slots=True)
class Registered:
    """A registration as stored: the wallet afterwards, and a late entrant's table and seat."""

    balance: int
    entrants: int
    table: int | None = None
    seat: int | None = None
    started: bool = False  # his entry filled a sit-and-go, which started


def copy_of(engine: Tournament, rng: random.Random, **changes: Any) -> Tournament:
    """A draft of ``engine`` sharing its hands in progress (they change in place, and only
    through stored actions). ``changes`` replace fields of its configuration."""
    data = engine.to_json()
    if changes:
        data = {**data, "config": {**data["config"], **changes}}
    running = {n: table.hand for n, table in engine.tables.items() if table.hand is not None}
    return Tournament.from_json(data, rng, hands=running)


def placings_of(engine: Tournament) -> tuple[Placing, ...]:
    """One placing per player: a player who re-entered keeps his best entry's place and is
    paid every entry's prize."""
    best: dict[int, Placing] = {}
    for s in engine.standings:
        user = int(s.player_id)
        seen = best.get(user)
        if seen is None:
            best[user] = Placing(user, s.place, s.tied, s.prize)
        else:
            best[user] = dataclasses.replace(seen, prize=seen.prize + s.prize)
    return tuple(best.values())


class LiveTournament:
    """One open tournament (opened and restored by :class:`~bot.runtime.manager.GameRuntime`).

    Its tables reach it through its public transitions only: :meth:`save` (what a transition
    stores), :meth:`adopt`, :meth:`commit` (a transition with no hand in it: stored, adopted,
    told), :meth:`replace_hand` and :meth:`deal_soon`."""

    def __init__(
        self,
        info: TournamentInfo,
        settings: TournamentSettings,
        state: Tournament,
        services: TableServices,
    ) -> None:
        self.services = services
        self.db = services.db
        self.options = services.options
        self.rng = services.rng
        self.tournament_id = info.tournament_id
        self.guild_id = info.guild_id
        self.channel_id = info.channel_id
        self.host_id = info.host_id
        self.name = info.name
        self.settings = settings
        self.state = state
        self.lock = asyncio.Lock()
        self.closed = False
        self.tables: dict[int, TournamentTable] = {}  # by the engine's table number
        # Shared by its tables, since players move between them.
        self.timeouts: dict[int, int] = {}
        self.clicks = Clicks()
        self._voices: dict[int, TableMessenger] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._beat_at = 0.0
        self.direct = DirectMessages(
            services.client, 0, lambda user_id: None, channels=services.dm_channels,
        )
        # The answers the engine waits on, by the runtime's clock (see bot.runtime.formats):
        # each busted player's rebuy offer, and the add-on's end.
        self.offers: dict[int, float] = {}
        self.add_on_until: float | None = None
        self.deals = DealVoting(self.options.deal_vote, self.lock, self._make_deal,
                                self._deal_off, name=str(self.tournament_id))

    @classmethod
    async def restore(cls, info: TournamentInfo, services: TableServices) -> LiveTournament:
        """The tournament as storage holds it, with its tables and their hands in progress."""
        db = services.db
        settings = TournamentSettings.from_json(info.config)
        rows = {row.table_id: row for row in await tournaments.tournament_tables(
            db, info.tournament_id)}
        running: dict[int, Hand] = {}
        hand_of: dict[int, tuple[int, DeckCommitment | None]] = {}
        for stored in await hands.tournament_hands_running(db, info.tournament_id):
            row = rows.get(stored.table_id)
            if row is None:
                raise BotError("bad_tournament_state", value="a hand at a closed table")
            running[row.table_no] = hands.rebuild_hand(stored)
            hand_of[row.table_no] = (stored.hand_id, stored.commitment)
        state = dict(info.state)
        if info.alive_at is not None and state.get("clock"):
            # The clock was seen alive later than the state was saved: resume from there.
            clock = list(state["clock"])
            seen = clock[3] if clock[3] is not None else 0.0
            clock[3] = max(float(seen), info.alive_at / 1000)
            state["clock"] = clock
        live = cls(info, settings, Tournament.from_json(state, services.rng, hands=running),
                   services)
        for row in sorted(rows.values(), key=lambda r: r.table_no):
            if row.table_no in live.state.tables:
                hand_id, commitment = hand_of.get(row.table_no, (None, None))
                live._open_table(row, hand_id=hand_id, commitment=commitment)
        return live

    # -- queries -----------------------------------------------------------------------------

    @property
    def venue_key(self) -> tuple[str, int]:
        return ("tournament", self.tournament_id)

    @property
    def awaits_player(self) -> bool:
        """Someone is to act at one of its tables."""
        return any(table.awaits_player for table in self.tables.values())

    @property
    def locale(self) -> str | None:
        return self.settings.locale

    @property
    def running(self) -> bool:
        return self.state.state is TournamentState.RUNNING

    def is_host(self, user_id: int, *, admin: bool) -> bool:
        return admin or user_id == self.host_id

    def remember(self, user_id: int, name: str) -> None:
        if name and self.settings.names.get(user_id) != name[:64]:
            self.settings.names[user_id] = name[:64]

    def channels(self) -> list[int]:
        """Every channel the tournament speaks in now: its own, and each table's."""
        found = [self.channel_id]
        for table in self.tables.values():
            if table.channel_id not in found:
                found.append(table.channel_id)
        return found

    # -- start-up and shutdown -----------------------------------------------------------------

    async def start(self, *, anew: bool = True) -> None:
        """Pick the tournament up (after ``restore``): the clock from where it was, each table
        shown again (``anew``: on a new message) and playing on; then keep the clock."""
        async with self.lock:
            if self.running and not self.state.paused:
                draft = copy_of(self.state, self.rng)
                events = draft.recover(now())
                await self.commit(draft, self.settings, events)
            self._renew_deadlines()
            for table in list(self.tables.values()):
                await table.pick_up(anew=anew)
        self._run_ticker()
        self._follow_calendar()

    def _renew_deadlines(self, *, resumed: bool = False) -> None:
        """Deadlines are kept in memory: after a restart each open offer, and an open add-on,
        gets its whole time again (more time to answer, never a chip lost); so does each after
        a pause (nobody is out for not answering while the clock stood still)."""
        moment = now()
        config = self.state.config
        for player in self.state.pending():
            if not resumed and int(player) not in self.offers:
                # A DM sent by the process that died may never have gone out: sent again.
                used = self.state.rebuys_of(player)
                self.direct.spawn(self._dm_offer(
                    int(player), "rebuy", config.rebuy_cost, config.rebuy_stack,
                    config.rebuys - used, moment + REBUY_ANSWER, used))
            if resumed:
                self.offers[int(player)] = max(self.offers.get(int(player), 0.0),
                                               moment + REBUY_ANSWER)
            else:
                self.offers.setdefault(int(player), moment + REBUY_ANSWER)
        if self.state.add_on_open and (self.add_on_until is None or resumed):
            fresh = self.add_on_until is None
            self.add_on_until = max(self.add_on_until or 0.0, self._add_on_deadline(moment))
            waiting = set(self.state.pending())
            for player in self.state.players_left() if fresh else ():
                if player not in waiting and not self.state.took_add_on(player):
                    self.direct.spawn(self._dm_offer(int(player), "add_on",
                                                     config.add_on_cost, config.add_on, 0,
                                                     self.add_on_until, 0))

    async def shutdown(self, drain: float = 0.0) -> None:
        """Stop (the bot is closing, or another process runs the server now): storage has
        everything already."""
        self.closed = True
        self.deals.close()
        ticker, self._ticker = self._ticker, None
        if ticker is not None and ticker is not asyncio.current_task():
            ticker.cancel()
        for table in list(self.tables.values()):
            await table.shutdown(drain)
        for voice in list(self._voices.values()):
            await voice.drain(drain)
        await self.direct.close(drain)

    async def flush(self, timeout: float) -> None:
        """Wait until what every channel of the tournament was asked to say went out."""
        for voice in list(self._voices.values()):
            await voice.flush(timeout)

    async def set_locale(self, locale: str) -> None:
        """Speak ``locale`` in its channels from the next message on (the server changed its
        language); stored, so a restart keeps it."""
        async with self.lock:
            if self.closed or self.settings.locale == locale:
                return
            settings = self.settings.copy()
            settings.locale = locale
            await self.commit(copy_of(self.state, self.rng), settings, ())
            for table in self.tables.values():
                table.refresh(urgent=False)

    # -- registration ----------------------------------------------------------------------

    async def register(self, user_id: int, name: str) -> Registered:
        """Enter the tournament, the buy-in taken from the wallet: before the start, or late
        (seated at once) while late registration is open."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.register(user_id, now())
            settings = self.settings.copy()
            settings.names[user_id] = name[:64]
            late = self.running
            # A sit-and-go's last seat starts it in the same stored step.
            started = any(isinstance(e, TournamentStarted) for e in events)
            if started:
                await tournaments.check_room_to_start(self.db, self.tournament_id,
                                                      len(draft.tables))
            openings = await self._open_threads(draft, events, start=started)
            home = openings[0].channel_id if started and settings.repeat else None
            stored = await tournaments.register(
                self.db, self.tournament_id, user_id, late=late, state=draft.to_json(),
                tables=openings, config=settings.to_json(), reentry=is_reentry(events),
                start=started, home=home,
            )
            self.adopt(draft, settings)
            if home is not None:
                lobby, self.channel_id = self.channel_id, home
                self.services.registry.venue_moved(self, lobby)
                self.direct.spawn(self._open_next(lobby))
            await self._sync_tables()
            joined = next(e for e in events if isinstance(e, PlayerRegistered))
            self.announce(events)
            self.deal_soon()
            if started:
                self._run_ticker()
            return Registered(stored.balance, stored.entrants, joined.table, joined.seat,
                              started)

    async def unregister(self, user_id: int) -> int:
        """Leave before the start, the buy-in back in the wallet; the wallet afterwards."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            draft.unregister(user_id)
            balance = await tournaments.unregister(
                self.db, self.tournament_id, user_id, state=draft.to_json()
            )
            self.adopt(draft, self.settings)
            self._say([self.channel_id], t("tournament.unregistered", self.locale,
                                            player=mention(user_id),
                                            entrants=self.state.entrants))
            return balance

    # -- the format -----------------------------------------------------------------------------

    async def set_format(self, changes: dict[str, Any]) -> None:
        """The host sets rebuys, the add-on, re-entries and bounties before anyone but the
        practice bots registered (nobody pays for a tournament that changes under him); the
        engine judges the whole configuration, and refuses it with its reason."""
        async with self.lock:
            self._check_open()
            if self.state.state is not TournamentState.REGISTERING:
                raise EngineError("already_started")
            if any(not is_bot(p) for p in self.state.players_left()):
                raise BotError("format_after_registration")
            # Made anew (the bots entered again), so it is exactly what creating it with
            # these options would have made.
            config = TournamentConfig.from_json({**self.state.config.to_json(), **changes})
            draft = Tournament(config, self.rng)
            moment = now()
            for player in self.state.players_left():
                draft.register(player, moment)
            await tournaments.save_state(self.db, self.tournament_id, draft.to_json())
            self.adopt(draft, self.settings)

    # -- rebuys and the add-on ----------------------------------------------------------------

    async def rebuy(self, user_id: int, count: int | None = None) -> None:
        """Buy chips again (between his hands, at or below the starting stack, or after busting
        while offered): the price from his wallet into the pool in the stored step. ``count``:
        the rebuys he had when offered this one (a second press of one offer buys nothing)."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.rebuy(user_id, now(), count)
            await self.commit(draft, self.settings, events)
            self.offers.pop(user_id, None)

    async def decline_rebuy(self, user_id: int) -> None:
        """He turns down the rebuy offered after his bust: he is out."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.decline_rebuy(user_id, now())
            await self.commit(draft, self.settings, events)
            self.offers.pop(user_id, None)

    async def add_on(self, user_id: int) -> None:
        """Take the add-on (once, while it is open): its price from his wallet into the pool."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.add_on(user_id, now())
            await self.commit(draft, self.settings, events)

    async def _open_next(self, lobby: int) -> None:
        """A repeating sit-and-go started: the next, with the same settings, opens in the
        channel it left (within the server's limits, which count every one of them)."""
        opener = self.services.open_tournament
        if opener is None or self.services.client.is_closed():
            return
        settings = dataclasses.replace(
            self.settings.copy(), names={}, banks={}, winning_hand=None,
            series=self.settings.series + 1)
        base = self.name.rsplit(" #", 1)[0] if self.settings.series > 1 else self.name
        name = f"{base[:MAX_NAME - 8]} #{settings.series}"
        try:
            await opener(guild_id=self.guild_id, channel_id=lobby, host_id=self.host_id,
                         name=name, config=self.state.config, settings=settings)
        except (BotError, StorageError, EngineError) as exc:
            text, _ = coded_message(exc, self.locale)
            self._say([lobby], t("tournament.repeat_failed", self.locale, reason=text))

    def _add_on_deadline(self, moment: float) -> float:
        """The add-on stays open to the end of the break it opened at, else ADD_ON_OPEN."""
        if self.state.on_break_at(moment):
            to_next = self.state.seconds_to_next_level(moment)
            if to_next is not None and to_next > 0:
                return moment + to_next
        return moment + ADD_ON_OPEN

    async def _expire_answers(self, moment: float) -> None:
        """Offers not answered in time end (he is out); an add-on past its end closes."""
        for user_id, deadline in sorted(self.offers.items(), key=lambda item: item[1]):
            if deadline > moment or self.closed:
                continue
            self.offers.pop(user_id, None)
            if user_id not in {int(p) for p in self.state.pending()}:
                continue
            draft = copy_of(self.state, self.rng)
            events = draft.expire_rebuy(user_id, moment)
            await self.commit(draft, self.settings, events)
        if (self.add_on_until is not None and self.add_on_until <= moment and not self.closed
                and self.state.add_on_open):
            draft = copy_of(self.state, self.rng)
            events = draft.close_add_on(moment)
            await self.commit(draft, self.settings, events)

    def _offer(self, event: RebuyOffered | AddOnOpened) -> None:
        """DM the buttons of a rebuy offer (to the busted player) or of the add-on (to each
        player still in); the channel is told too, so a closed DM costs nobody his answer."""
        moment = now()
        if isinstance(event, RebuyOffered):
            user = int(event.player_id)
            # A practice bot never answers: its offer ends at the next tick.
            deadline = moment if is_bot(user) else moment + REBUY_ANSWER
            self.offers[user] = deadline
            used = self.state.config.rebuys - event.rebuys_left
            self.direct.spawn(self._dm_offer(user, "rebuy", event.price, event.chips,
                                             event.rebuys_left, deadline, used))
            return
        self.add_on_until = self._add_on_deadline(moment)
        for player in event.players:
            self.direct.spawn(self._dm_offer(int(player), "add_on", event.price, event.chips,
                                             0, self.add_on_until, 0))

    async def _dm_offer(self, user_id: int, what: str, price: int, stack: int, left: int,
                        deadline: float, used: int) -> None:
        if is_bot(user_id) or self.direct.channels.is_closed(user_id):
            return
        spoken = await self.services.locales([user_id])
        locale = resolve_locale(spoken.get(user_id, self.locale))
        if what == "rebuy":
            text = rebuy_offer_text(self.name, price, stack, left, deadline, locale)
            buttons = [ButtonSpec("t_rebuy", t("button.tournament_rebuy", locale), "success",
                                  used),
                       ButtonSpec("t_decline", t("button.tournament_decline", locale), "danger")]
        else:
            text = add_on_offer_text(self.name, price, stack, deadline, locale)
            buttons = [ButtonSpec("t_add_on", t("button.tournament_add_on", locale), "success")]
        view = self.services.view_factory(self.tournament_id, buttons)
        try:
            with requests_at(Priority.TABLE):
                await send_dm(self.services.client, user_id, self.direct.channels, text,
                              lambda: {"view": view} if view is not None else {})
        except Exception as exc:
            if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                raise
            log.info("tournament %d: offer to user %d not delivered (%s)",
                     self.tournament_id, user_id, exc)

    # -- the host ----------------------------------------------------------------------------

    async def begin(self, by: int | None) -> None:
        """Draw the seats and start the clock (the host, or ``starts_at``)."""
        async with self.lock:
            self._check_open()
            await self._begin(by)

    async def _begin(self, by: int | None) -> None:
        if self.state.state is not TournamentState.REGISTERING:
            raise EngineError("already_started")
        moment = now()
        changes: dict[str, Any] = {}
        if self.settings.kind == "time_limited" and self.settings.ends_at is not None:
            # Its time is counted from the start, to the end the host gave.
            changes["time_limit"] = time_limit_until(self.settings.ends_at, moment)
        draft = copy_of(self.state, self.rng, **changes)
        events = draft.start(moment)
        # Refused for want of tables before a thread is made for any of them.
        await tournaments.check_room_to_start(self.db, self.tournament_id, len(draft.tables))
        openings = await self._open_threads(draft, events, start=True)
        await tournaments.start_tournament(
            self.db, self.tournament_id, state=draft.to_json(), tables=openings,
            config=self.settings.to_json(),
        )
        self.adopt(draft, self.settings)
        await self._sync_tables()
        self.announce(events)
        self.deal_soon()
        self._run_ticker()
        self._follow_calendar()

    async def pause(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.pause(now(), by)
            await self.commit(draft, self.settings, events)

    async def resume(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            draft = copy_of(self.state, self.rng)
            events = draft.resume(now(), by)
            await self.commit(draft, self.settings, events)
            self._renew_deadlines(resumed=True)
            for table in self.tables.values():
                table.messenger.unblock()

    async def cancel(self, by: int) -> dict[int, int]:
        """Every buy-in back, whatever the stage: hands in play are called off, the tables
        close, tournament chips are worth nothing. {user id: refund}."""
        async with self.lock:
            self._check_open()
            refunds = await tournaments.cancel_tournament(self.db, self.tournament_id,
                                                          actor_id=by)
            self.closed = True
            text = tournament_called_off_text(self.name, len(refunds), self.locale, host=by,
                                              amount=sum(refunds.values()))
            self._say(self.channels(), text)
            self._retire_tables()
            self._wind_up()
            self._follow_calendar(cancelled=True)
            return refunds

    # -- a deal at the final table (the vote is bot.runtime.dealvote's) -------------------------

    async def propose_deal(self, user_id: int, kind: str) -> DealOffer | None:
        """A player still in proposes a deal of ``kind``: put to the players now if every table
        is between hands (the offer), else held until the hands in play end (None). No hand is
        dealt meanwhile."""
        async with self.lock:
            self._check_open()
            if not self.running:
                raise EngineError("not_running")
            self._check_proposal(user_id, kind)
            if any(table.hand is not None for table in self.state.tables.values()):
                self.deals.hold(user_id, kind)
                self._say(self.channels(), t("tournament.deal_held", self.locale,
                                             player=mention(user_id),
                                             kind=t(f"choice.deal.{kind}", self.locale)))
                return None
            return self._open_deal(user_id, kind)

    def hands_over(self) -> None:
        """A hand ended (under the lock): a held proposal is put once no table plays one."""
        if self.closed or any(tb.hand is not None for tb in self.state.tables.values()):
            return
        held = self.deals.release()
        if held is None:
            return
        try:
            self._check_proposal(*held)
            self._open_deal(*held)
        except (BotError, EngineError) as exc:
            # The tournament moved on while the hand was played (someone busted, more
            # players than a deal allows): the proposal lapses, and says why.
            self._say(self.channels(), t("tournament.deal_lapsed", self.locale,
                                         player=mention(held[0]),
                                         reason=coded_message(exc, self.locale)[0]))

    def deal_stacks(self) -> dict[int, int]:
        """The players still in and their stacks, table by table and seat by seat."""
        left = set(self.state.players_left())
        return {int(v.player_id): v.stack for _, table in sorted(self.state.tables.items())
                for v in table.seats() if v.player_id in left}

    def _check_proposal(self, user_id: int, kind: str) -> None:
        state = self.state
        self.deals.check_proposal(user_id, [int(p) for p in state.players_left()], state.level,
                                  self.options.deal_players, kind)

    def _open_deal(self, proposer: int, kind: str) -> DealOffer:
        state = self.state
        stacks = self.deal_stacks()
        offer = DealOffer(self.deals.next_number(), kind, proposer, stacks,
                          figures(kind, stacks, state.unpaid_prizes()), state.level,
                          time.time() + self.options.deal_vote)
        # The engine refuses a deal it could not make (rebuys or registration still open)
        # before anybody is asked.
        copy_of(state, self.rng).deal(_agreed(offer), now())
        self.deals.open(offer, agreed=[p for p in stacks if is_bot(p)])
        for table in self.tables.values():
            table.say(deal_proposed_text(kind, proposer, offer.deadline, self.locale),
                      buttons=deal_buttons(offer.number, self.locale, show=True))
        away = next((p for p in stacks if state.is_absent(p)), None)
        if away is not None:
            self.deals.withdraw(away)  # he cannot be asked: as good as a no
        return offer

    async def answer_deal(self, user_id: int, number: int, accept: bool) -> bool:
        """A player's answer to the offer ``number``; True once the deal is made."""
        self._check_open()
        return await self.deals.answer(user_id, number, accept)

    async def _make_deal(self, offer: DealOffer) -> None:
        """Everybody accepted (under the lock): the tournament ends with the offer's prizes,
        the places, prizes and bounties paid in the one stored step that ends it."""
        try:
            self._check_open()
            if self.deal_stacks() != dict(offer.stacks):
                raise BotError("no_deal_vote")  # not the tournament the figures were for
            draft = copy_of(self.state, self.rng)
            events = draft.deal(_agreed(offer), now())
            settings = self.settings.copy()
            settings.deal = offer.kind
            await self.commit(draft, settings, events)
        except Exception as exc:
            if isinstance(exc, StorageUnavailable) and exc.maybe_stored:
                self.services.registry.venue_stale(self)  # storage may hold the deal
            else:
                self.deal_soon()
            raise

    def _deal_off(self, offer: DealOffer, by: int | None) -> None:
        key = "tournament.deal_expired" if by is None else "tournament.deal_rejected"
        self._say(self.channels(), t(key, self.locale, player=mention(by or 0)))
        self.deal_soon()

    # -- the clock -----------------------------------------------------------------------------

    def _run_ticker(self) -> None:
        if self.closed or (self._ticker is not None and not self._ticker.done()):
            return
        self._ticker = asyncio.create_task(self._tick_loop(),
                                           name=f"tournament-{self.tournament_id}-clock")

    def _next_wake(self) -> float:
        """Seconds until something may change on its own (at most one heartbeat)."""
        beat = max(0.05, self.options.tournament_heartbeat)
        moment = now()
        waits = [beat]
        if self.state.state is TournamentState.REGISTERING:
            if self.settings.starts_at is None:
                return beat
            waits.append(self.settings.starts_at - moment)
        elif self.running and not self.state.paused:
            for wait in (self.state.seconds_to_next_level(moment),
                         self.state.seconds_left(moment)):
                if wait is not None:
                    waits.append(wait)
        if self.running and not self.state.paused:  # answers wait out a pause
            waits.extend(deadline - moment for deadline in self.offers.values())
            if self.add_on_until is not None:
                waits.append(self.add_on_until - moment)
        return max(0.02, min(waits))

    async def _tick_loop(self) -> None:
        while not self.closed:
            await asyncio.sleep(self._next_wake())
            try:
                async with self.lock:
                    if self.closed:
                        return
                    await self._tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log_failure(log, exc, "tournament %d: its clock failed; trying again",
                            self.tournament_id)
                if isinstance(exc, StorageUnavailable) and exc.maybe_stored:
                    # Storage may hold a transition this tournament did not adopt.
                    self.services.registry.venue_stale(self)
                    return

    async def _tick(self) -> None:
        moment = now()
        if self.state.state is TournamentState.REGISTERING:
            starts = self.settings.starts_at
            if starts is not None and moment >= starts:
                try:
                    await self._begin(None)
                except (EngineError, StorageError, BotError) as exc:
                    # Too few players (or the channel refused the threads): it is called off,
                    # every buy-in back, rather than left waiting for nobody.
                    log.info("tournament %d: automatic start refused (%s)",
                             self.tournament_id, exc)
                    await self._cancel_unstarted()
            return
        if not self.running:
            return
        if not self.state.paused:
            draft = copy_of(self.state, self.rng)
            events = draft.tick(moment)
            if events:
                await self.commit(draft, self.settings, events)
        if self.running and not self.state.paused:
            await self._expire_answers(moment)
        if moment - self._beat_at >= self.options.tournament_heartbeat and not self.closed:
            self._beat_at = moment
            await tournaments.heartbeat(self.db, self.tournament_id, int(moment * 1000))

    async def close_if_idle(self, older_than: int) -> bool:
        """Close a registration nobody has touched since ``older_than`` (Unix seconds), every
        buy-in back; whether it closed (storage decides, in the transaction, that it is still
        idle)."""
        async with self.lock:
            if self.closed:
                return False
            refunds = await tournaments.close_stale_registration(
                self.db, self.tournament_id, older_than)
            if refunds is None:
                return False
            self.closed = True
            self._say([self.channel_id], tournament_called_off_text(
                self.name, len(refunds), self.locale, idle=True))
            self._wind_up()
            self._follow_calendar(cancelled=True)
            return True

    async def _cancel_unstarted(self) -> None:
        refunds = await tournaments.cancel_tournament(self.db, self.tournament_id,
                                                      actor_id=self.host_id)
        self.closed = True
        self._say([self.channel_id], tournament_called_off_text(self.name, len(refunds),
                                                                 self.locale))
        self._wind_up()
        self._follow_calendar(cancelled=True)

    # -- transitions (its tables use these) ----------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise BotError("tournament_over")

    def save(
        self,
        draft: Tournament,
        settings: TournamentSettings,
        *,
        closed: Sequence[int] = (),
        opened: Sequence[TableOpening] = (),
        events: Sequence[TableEvent] = (),
    ) -> TournamentSave:
        """What a transition stores: the money its ``events`` move (rebuys, add-ons, bounties)
        and the places and prizes too once it ended the tournament."""
        ended = draft.is_over and not self.state.is_over
        return TournamentSave(
            draft.to_json(), settings.to_json(), tuple(opened), tuple(closed),
            placings_of(draft) if ended else None, payments_of(events),
            deal=ended and settings.deal is not None,
        )

    async def commit(
        self, draft: Tournament, settings: TournamentSettings, events: Sequence[TableEvent]
    ) -> None:
        """A transition with no hand in it (the clock, a pause, a player back): stored, adopted,
        told. A table it opens (a rebuy seating a busted player again) gets its thread first."""
        openings = await self._open_threads(draft, events)
        await tournaments.store(self.db, self.tournament_id,
                                self.save(draft, settings, opened=openings, events=events))
        self.adopt(draft, settings)
        if openings:
            await self._sync_tables()
        self.announce(events)
        self.deal_soon()

    def adopt(self, draft: Tournament, settings: TournamentSettings) -> None:
        self.state = draft
        self.settings = settings
        for table in self.tables.values():
            table.clock.banks = settings.banks

    def replace_hand(self, number: int, hand: Hand) -> None:
        """Table ``number``'s hand as storage holds it (after a store that failed)."""
        running = {n: tb.hand for n, tb in self.state.tables.items() if tb.hand is not None}
        running[number] = hand
        self.state = Tournament.from_json(self.state.to_json(), self.rng, hands=running)

    def deal_soon(self, *, but: TournamentTable | None = None) -> None:
        """Every table that can deal does, shortly (``but`` the table whose result is being
        shown: it deals once players could read it, as every table does)."""
        for table in self.tables.values():
            if table is not but:
                table.schedule_deal(min(SOON, self.options.next_hand_delay))

    async def _open_threads(
        self, draft: Tournament, events: Sequence[TableEvent], *, start: bool = False
    ) -> list[TableOpening]:
        """Where the tables a transition opens will play: the tournament's channel for a single
        table, else a new thread under it for each (made before anything is stored; a thread
        left over by a refused transition is harmless)."""
        numbers: list[int] = []
        if start:
            numbers = sorted(draft.tables)
        else:
            numbers = [e.table for e in events if isinstance(e, TableOpened)]
        if not numbers:
            return []
        config = {"locale": self.locale}
        seats = draft.config.seats
        # A repeating sit-and-go leaves its channel to the next one: it plays in a thread.
        if start and len(numbers) == 1 and not self.settings.repeat:
            return [TableOpening(numbers[0], self.channel_id, seats, config)]
        return [TableOpening(n, await self._start_thread(n), seats, config) for n in numbers]

    async def _start_thread(self, number: int) -> int:
        client = self.services.client
        channel = client.get_channel(self.channel_id)
        if channel is None:
            with requests_at(Priority.TABLE):
                channel = await client.fetch_channel(self.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise BotError("tournament_in_thread")
        name = thread_name(self.name, number, self.locale)
        try:
            with requests_at(Priority.TABLE):
                thread = await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread,
                    auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                )
        except discord.Forbidden:
            raise BotError("bot_missing_permissions",
                           permissions=("create_public_threads",)) from None
        return thread.id

    async def _sync_tables(self) -> None:
        """Make a live table for each table stored open that has none yet."""
        stored = await tournaments.tournament_tables(self.db, self.tournament_id)
        for row in stored:
            if row.table_no not in self.tables and row.table_no in self.state.tables:
                self._open_table(row)

    def _open_table(self, row: StoredTable, *, hand_id: int | None = None,
                    commitment: DeckCommitment | None = None) -> TournamentTable:
        table = TournamentTable(self, row, hand_id=hand_id, commitment=commitment)
        self.tables[row.table_no] = table
        self.services.registry.add_table(table)
        return table

    def voice(self, channel_id: int, table: TournamentTable | None = None) -> TableMessenger:
        """The one messenger of a channel (the channel's budget is one, whoever speaks)."""
        voice = self._voices.get(channel_id)
        if voice is None:
            services = self.services

            async def nothing(message_id: int) -> None:
                return None

            voice = TableMessenger(
                services.client, table.table_id if table is not None else 0, channel_id,
                self.options, services.view_factory,
                table.remember_message if table is not None else nothing,
                message_id=table.stored_message_id if table is not None else None,
                on_prompt=table.clock.shown if table is not None else None,
                on_forbidden=table.channel_lost if table is not None else None,
                budget=services.budget,
            )
            self._voices[channel_id] = voice
            return voice
        if table is not None:
            # The table's message lives here: its buttons name the table, its prompts start
            # the table's clock, its message id is the table's. (A channel's voice that spoke
            # before its table existed never showed a table message.)
            voice.table_id = table.table_id
            voice.on_posted = table.remember_message
            voice.on_prompt = table.clock.shown
            voice.on_forbidden = table.channel_lost
            if voice.message_id is None:
                voice.message_id = table.stored_message_id
        return voice

    def _say(self, channel_ids: Sequence[int], text: str) -> None:
        labels = labels_for(self.locale)
        for channel_id in channel_ids:
            self.voice(channel_id).post(text, labels)

    # -- telling -----------------------------------------------------------------------------

    def scene(self) -> TournamentScene:
        return TournamentScene(
            self.name, self.locale, self.channel_id,
            {n: tb.channel_id for n, tb in self.tables.items()}, now(),
            self.settings.winning_hand,
        )

    def announce(self, events: Sequence[TableEvent]) -> None:
        """Say what a stored transition did, each thing where the players concerned look (the
        words are the presenter's), and retire what it closed."""
        everywhere = self.channels()
        for event in events:
            scene = self.scene()
            for news in [*tournament_news(event, scene), *format_news(event, scene)]:
                if news.to == EVERYWHERE:
                    where = everywhere
                elif news.to == LOBBY:
                    where = [self.channel_id]
                else:
                    where = [scene.channels[news.to]]
                self._say(where, news.text)
            if isinstance(event, RebuyOffered | AddOnOpened):
                self._offer(event)
            elif isinstance(event, RebuyDeclined):
                self.offers.pop(int(event.player_id), None)
            elif isinstance(event, AddOnClosed):
                self.add_on_until = None
            elif isinstance(event, RebuysClosed):
                self.offers.clear()
            if isinstance(event, PlayerMoved) and event.to_table in self.tables:
                target = self.tables[event.to_table].channel_id
                link = f"https://discord.com/channels/{self.guild_id}/{target}"
                self.direct.spawn(self._dm_move(int(event.player_id), event, link))
            elif isinstance(event, TableBroken):
                broken = self.tables.pop(event.table, None)
                if broken is not None:
                    broken.retire()
            elif isinstance(event, TournamentFinished):
                self._retire_tables()
                self.closed = True
                self._recap_after()
                self._wind_up()
                self._follow_calendar()

    async def _dm_move(self, user_id: int, event: PlayerMoved, link: str) -> None:
        spoken = await self.services.locales([user_id])
        locale = resolve_locale(spoken.get(user_id, self.locale))
        self.direct.notify(user_id, moved_dm_text(event, self.name, link, locale))

    def _follow_calendar(self, *, cancelled: bool = False) -> None:
        """The server's calendar follows the tournament (``bot.runtime.calendar``)."""
        if self.services.calendar is not None:
            self.services.calendar.follow(self, cancelled=cancelled)

    def _retire_tables(self) -> None:
        for table in list(self.tables.values()):
            table.retire()

    def _recap_after(self) -> None:
        """Once the results went out in the lobby, post the recap that finishing stored."""
        services = self.services
        poster = RecapPoster(services.db, services.client, services.dm_channels,
                             services.locales)
        locale = self.locale
        self.voice(self.channel_id).then(lambda: poster.post_soon(self.guild_id, locale))

    def _wind_up(self) -> None:
        """Over or cancelled: the clock stops, the last messages go out, it is forgotten."""
        self.closed = True
        self.deals.close()
        ticker, self._ticker = self._ticker, None
        if ticker is not None and ticker is not asyncio.current_task():
            ticker.cancel()
        self.services.registry.venue_over(self)


class TournamentTable(LiveTable[Tournament]):
    """One table of a tournament: the shared hand loop, with the tournament's state as its
    draft. Its lock, its players' timeouts and double clicks are the tournament's."""

    kind = TOURNAMENT
    owns_messenger = False  # its channel's voice is the tournament's, which stops it

    def __init__(
        self,
        tournament: LiveTournament,
        row: StoredTable,
        *,
        hand_id: int | None = None,
        commitment: DeckCommitment | None = None,
    ) -> None:
        self.tournament = tournament
        self.number = row.table_no
        self._last_table = tournament.state.tables[self.number]
        super().__init__(
            tournament.services,
            table_id=row.table_id,
            guild_id=tournament.guild_id,
            channel_id=row.channel_id,
            lock=tournament.lock,
            banks=tournament.settings.banks,
            timer=tournament.settings.timer,
            hand_id=hand_id,
            commitment=commitment,
            message_id=row.message_id,
            timeouts=tournament.timeouts,
            clicks=tournament.clicks,
            clock_name=f"clock-t{tournament.tournament_id}-{self.number}",
        )

    # -- the loop's hooks ------------------------------------------------------------------

    @property
    def table(self) -> Table:
        """The engine's table; once broken, the table as it was last seen (its last message
        shows it closed)."""
        found = self.tournament.state.tables.get(self.number)
        if found is not None:
            self._last_table = found
            return found
        return self._last_table

    @property
    def names(self) -> dict[int, str]:
        return self.tournament.settings.names

    @property
    def locale(self) -> str | None:
        return self.tournament.locale

    @property
    def banks(self) -> dict[int, float]:
        return self.tournament.settings.banks

    @property
    def venue(self) -> LiveTournament:
        return self.tournament

    @property
    def event_name(self) -> str | None:
        return self.tournament.name

    def small_blind_at(self, level: int | None) -> int:
        """A hand's level sets its stakes: the blinds have risen since."""
        if level is None:
            return self.table.options.small_blind
        return self.tournament.state.config.level_options(level)[0]

    def _make_messenger(self) -> TableMessenger:
        return self.tournament.voice(self.channel_id, self)

    def _is_away(self, player_id: int) -> bool:
        return self.tournament.state.is_absent(player_id)

    def _away_players(self) -> frozenset[int]:
        state = self.tournament.state
        return frozenset(int(p) for p in state.players_left() if state.is_absent(p))

    def _presence(self, player_id: int, *, away: bool) -> Tournament:
        draft = copy_of(self.tournament.state, self.rng)
        draft.set_absent(player_id, away)
        return draft

    async def _store_actions(
        self, before: int, logged: Sequence[Any], draft: Tournament | None
    ) -> None:
        assert self.hand_id is not None
        tournament = self.tournament
        if draft is None:
            await hands.append_actions(self.db, self.hand_id, before, logged)
            return
        await hands.append_tournament_actions(
            self.db, self.hand_id, before, logged,
            save=tournament.save(draft, tournament.settings),
        )
        tournament.adopt(draft, tournament.settings)

    def _put_hand(self, hand: Hand) -> None:
        self.tournament.replace_hand(self.number, hand)

    def _venue_closed(self) -> bool:
        return self.tournament.closed

    def _may_deal(self) -> bool:
        tournament = self.tournament
        return (not tournament.closed and not tournament.deals.holds
                and self.number in tournament.state.tables)

    async def _deal_hand(self, deck: tuple[Card, ...], commitment: DeckCommitment) -> int | None:
        tournament = self.tournament
        state = tournament.state
        moment = now()
        if (state.paused or state.time_up or state.on_break_at(moment)
                or not self.table.can_start()):
            self.refresh(urgent=False)  # on a break, paused, or waiting for players
            return None
        draft = copy_of(state, self.rng)
        events = draft.start_hand(deck, moment, table=self.number)
        table = draft.tables.get(self.number)
        hand = table.hand if table is not None else None
        if table is None or hand is None:
            # Time is up: no hand is dealt (the tournament may have ended with it).
            await tournament.commit(draft, tournament.settings, events)
            return None
        plan = table.plan
        assert plan is not None
        settings = tournament.settings.copy()
        hand_id = await hands.start_tournament_hand(
            self.db, self.table_id, level=draft.level, config=hand.config, deck=deck,
            commitment=commitment, players=self.dealt_seats(table, settings.banks),
            button_seat=plan.button_seat, save=tournament.save(draft, settings, events=events),
        )
        tournament.adopt(draft, settings)
        tournament.announce(events)
        return hand_id

    async def _record(self, hand: Hand) -> Sequence[TableEvent]:
        tournament = self.tournament
        assert self.hand_id is not None
        draft = copy_of(tournament.state, self.rng)
        events = draft.finish_hand(now(), table=self.number)
        settings = tournament.settings.copy()
        if draft.is_over and draft.standings:
            settings.winning_hand = _winning_hand(hand, self.table, draft.standings[0].player_id)
        closed = [e.table for e in events if isinstance(e, TableBroken)]
        settled = await settled_hand(hand)
        await hands.record_tournament_hand(
            self.db, self.hand_id, settled.summary, settled.players,
            save=tournament.save(draft, settings, closed=closed, events=events),
            all_in=settled.all_in,
        )
        tournament.adopt(draft, settings)
        return events

    def _result_notes(self, events: Sequence[TableEvent]) -> list[str]:
        out = [e for e in events if isinstance(e, PlayerEliminated) and e.table == self.number]
        for event in out:
            self.timeouts.pop(int(event.player_id), None)
        return [eliminated_text(event, self.locale) for event in out]

    def _settled(self, events: Sequence[TableEvent]) -> None:
        self.tournament.announce(events)
        self.tournament.hands_over()
        self.tournament.deal_soon(but=self)

    def _dress(self, message: TableMessage) -> TableMessage:
        """The table message, headed by the tournament, the table and the level."""
        state = self.tournament.state
        moment = now()
        on_break = state.on_break_at(moment) and not state.paused and not self.closed
        head = tournament_header(
            self.tournament.name, self.number, state.level, self.locale,
            final=len(state.tables) == 1 and state.entrants > state.config.seats,
            break_until=moment + (state.seconds_to_next_level(moment) or 0) if on_break
            else None,
        )
        return dataclasses.replace(message, head="\n".join([head, message.head]))

    # -- its own ---------------------------------------------------------------------------

    def retire(self) -> None:
        """The table is gone (broken, or the tournament over): its message loses its buttons,
        and its thread is archived once its last messages went out."""
        super().retire()
        self.services.registry.drop_table(self)
        if self.channel_id != self.tournament.channel_id:
            self.messenger.then(lambda: self.tournament.direct.spawn(self._archive()))

    async def _archive(self) -> None:
        client = self.services.client
        try:
            with requests_at(Priority.TIDY):
                thread = client.get_channel(self.channel_id) or await client.fetch_channel(
                    self.channel_id)
                if isinstance(thread, discord.Thread):
                    await thread.edit(archived=True)
        except Exception as exc:
            if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                raise
            log.info("tournament %d: table %d's thread not archived (%s)",
                     self.tournament.tournament_id, self.number, exc)

    async def sit_in(self, user_id: int) -> None:
        """Back from away ("Back", ``/poker sitin``): the clock stops acting for him."""
        async with self.lock:
            self.check_open()
            if not self.tournament.state.is_absent(user_id):
                raise EngineError("not_sitting_out")
            draft = self._presence(user_id, away=False)
            await self.tournament.commit(draft, self.tournament.settings, ())
            self.timeouts.pop(user_id, None)
            self.refresh(urgent=False)


def _agreed(offer: DealOffer) -> dict[PlayerId, int]:
    """A deal's prizes as the engine takes them."""
    return {player: prize for player, prize in offer.prizes.items()}


def _winning_hand(hand: Hand, table: Table, champion: object) -> tuple[str, tuple[str, ...]] | None:
    """The champion's hand in the last hand, when it was shown at a showdown."""
    result = hand.result
    if result is None or not result.showdown or len(hand.board) != 5:
        return None
    players = list(table.hand_players)
    if champion not in players:
        return None
    index = players.index(champion)
    if index not in result.shown:
        return None
    rank = hand.rank(index)
    if rank is None:
        return None
    code, ranks = rank.describe_parts()
    return code, tuple(ranks)


__all__ = [
    "KINDS",
    "LiveTournament",
    "Registered",
    "TournamentSettings",
    "TournamentTable",
    "copy_of",
    "now",
]

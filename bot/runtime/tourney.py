"""A live tournament: registration, the seat draw, one clock for every table, each table's hands,
balancing, eliminations and prizes.

One :class:`TournamentRunner` per open tournament, one :class:`TournamentTable` per table in
play. A tournament is one state (the engine's :class:`~engine.tournament.Tournament`): a hand
settled at one table can move players out of another, break it, or end everything. So every
input for any of its tables runs under the tournament's one lock, and each is a transition made
as a cash table makes its own (``bot.runtime.runner``):

1. **draft**: a copy of the engine's tournament is changed by the engine, which refuses bad
   input before anything changes;
2. **store**: the hand's step and the tournament's new state go to storage in one transaction
   (``bot.storage.hands``' tournament path, with a ``TournamentSave``: the tables opened and
   broken, and the places and prizes when it ends);
3. **adopt**: only then does the draft become the tournament, and only then is anybody told.

Betting decisions change the hand in place and are stored alone (the hand's actions are its
state); if storing one fails the hand is reloaded from storage.

Tables speak through the cash tables' machinery: a ``TableMessenger`` per channel (the
tournament's channel, and a thread under it per table when there are several), the decision
clock, hole cards by DM, the presenter's table message and the same buttons (a tournament's
table is a row of ``poker_tables``, so ``poker:<table>:...`` finds it).

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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import discord

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.presenter import (
    ButtonSpec,
    Scene,
    TableMessage,
    ack_for,
    cards_text,
    chips,
    decision_number,
    hole_cards_text,
    labels_for,
    mention,
    result_content,
    results_text,
    safe_text,
    stakes_text,
    table_message,
)
from bot.runtime.budget import RequestBudget
from bot.runtime.clock import Decision, DecisionClock
from bot.runtime.config import RuntimeOptions
from bot.runtime.direct import DirectMessages, DmChannels, HoleCardsLetter
from bot.runtime.messenger import TableMessenger, ViewFactory
from bot.runtime.play import (
    Clicks,
    all_in_meaning,
    check_decision,
    hole_card_letters,
    preselected,
    preselection,
    seat_in_hand,
)
from bot.runtime.recovery import live_hand
from bot.runtime.results import player_results, result_summary
from bot.runtime.runner import CardsView
from bot.storage import Database, StorageError, hands, tables, tournaments
from bot.storage.hands import HandSeat
from bot.storage.tournaments import (
    Placing,
    TableOpening,
    TournamentInfo,
    TournamentSave,
)
from bot.storage.tournaments import (
    TournamentTable as StoredTable,
)
from engine.commitment import DeckCommitment
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Event, Hand, PreAction
from engine.structures import time_limit_until
from engine.table import Table, TableEvent
from engine.tournament import (
    BreakStarted,
    FinalTable,
    LevelStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerRegistered,
    RegistrationClosed,
    TableBroken,
    TableOpened,
    TimeUp,
    Tournament,
    TournamentFinished,
    TournamentPaused,
    TournamentResumed,
    TournamentStarted,
    TournamentState,
)

log = logging.getLogger(__name__)

KINDS = ("freeze_out", "time_limited")
# A table that can deal again soon should not wait the whole pause between hands.
SOON = 1.0
# A thread archives itself after this many minutes without a message (one of Discord's four).
THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440


def now() -> float:
    """The tournament clock's time: Unix seconds, so that another process (after a crash, or
    a lease taken over) reads the same clock."""
    return time.time()


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
        )


@dataclass(frozen=True, slots=True)
class TournamentServices:
    """What a tournament needs from the bot around it."""

    db: Database
    options: RuntimeOptions
    client: discord.Client
    view_factory: ViewFactory
    rng: random.Random
    locales: Callable[[Sequence[int]], Awaitable[dict[int, str]]]
    on_closed: Callable[[TournamentRunner], None]  # over or cancelled: forget it
    budget: RequestBudget
    dm_channels: DmChannels


@dataclass(frozen=True, slots=True)
class Registered:
    """A registration as stored: the wallet afterwards, and a late entrant's table and seat."""

    balance: int
    entrants: int
    table: int | None = None
    seat: int | None = None


def copy_of(engine: Tournament, rng: random.Random, **changes: Any) -> Tournament:
    """A draft of ``engine`` sharing its hands in progress (they change in place, and only
    through stored actions). ``changes`` replace fields of its configuration."""
    data = engine.to_json()
    if changes:
        data = {**data, "config": {**data["config"], **changes}}
    running = {n: table.hand for n, table in engine.tables.items() if table.hand is not None}
    return Tournament.from_json(data, rng, hands=running)


def placings_of(engine: Tournament) -> tuple[Placing, ...]:
    return tuple(Placing(int(s.player_id), s.place, s.tied, s.prize) for s in engine.standings)


class TournamentRunner:
    """One open tournament (made by :class:`~bot.runtime.hall.TournamentHall`)."""

    def __init__(
        self,
        info: TournamentInfo,
        settings: TournamentSettings,
        engine: Tournament,
        services: TournamentServices,
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
        self.engine = engine
        self.lock = asyncio.Lock()
        self.closed = False
        self.tables: dict[int, TournamentTable] = {}  # by the engine's table number
        self.timeouts: dict[int, int] = {}  # consecutive timeouts by player (as cash tables)
        self.clicks = Clicks()  # toggles pressed to effect (a double click acts once)
        self._voices: dict[int, TableMessenger] = {}
        self._ticker: asyncio.Task[None] | None = None
        self._beat_at = 0.0
        self.direct = DirectMessages(
            services.client, 0, lambda user_id: None, budget=services.budget,
            channels=services.dm_channels,
        )

    # -- queries -----------------------------------------------------------------------------

    @property
    def locale(self) -> str | None:
        return self.settings.locale

    @property
    def running(self) -> bool:
        return self.engine.state is TournamentState.RUNNING

    def is_host(self, user_id: int, *, admin: bool) -> bool:
        return admin or user_id == self.host_id

    def remember(self, user_id: int, name: str) -> None:
        if name and self.settings.names.get(user_id) != name[:64]:
            self.settings.names[user_id] = name[:64]

    def table_in_channel(self, channel_id: int) -> TournamentTable | None:
        return next((tb for tb in self.tables.values() if tb.channel_id == channel_id), None)

    def channels(self) -> list[int]:
        """Every channel the tournament speaks in now: its own, and each table's."""
        found = [self.channel_id]
        for table in self.tables.values():
            if table.channel_id not in found:
                found.append(table.channel_id)
        return found

    # -- start-up and shutdown -----------------------------------------------------------------

    async def start(self) -> None:
        """Pick the tournament up (after ``restore``): the clock from where it was, each table
        shown again and playing on; then keep the clock."""
        async with self.lock:
            if self.running and not self.engine.paused:
                draft = copy_of(self.engine, self.rng)
                events = draft.recover(now())
                await self._store(draft, self.settings, events)
            for table in list(self.tables.values()):
                await table.resume_after_restart()
        self._run_ticker()

    async def shutdown(self, drain: float = 0.0) -> None:
        """Stop (the bot is closing, or another process runs the server now): storage has
        everything already."""
        self.closed = True
        ticker, self._ticker = self._ticker, None
        if ticker is not None and ticker is not asyncio.current_task():
            ticker.cancel()
        for table in list(self.tables.values()):
            await table.stop()
        for voice in list(self._voices.values()):
            await voice.drain(drain)
        await self.direct.close(drain)

    # -- registration ----------------------------------------------------------------------

    async def register(self, user_id: int, name: str) -> Registered:
        """Enter the tournament, the buy-in taken from the wallet: before the start, or late
        (seated at once) while late registration is open."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.engine, self.rng)
            events = draft.register(user_id, now())
            settings = self.settings.copy()
            settings.names[user_id] = name[:64]
            late = self.running
            openings = await self._open_threads(draft, events)
            stored = await tournaments.register(
                self.db, self.tournament_id, user_id, late=late, state=draft.to_json(),
                tables=openings, config=settings.to_json(),
            )
            self._adopt(draft, settings)
            await self._sync_tables()
            joined = next(e for e in events if isinstance(e, PlayerRegistered))
            self._announce(events)
            self._kick_tables()
            return Registered(stored.balance, stored.entrants, joined.table, joined.seat)

    async def unregister(self, user_id: int) -> int:
        """Leave before the start, the buy-in back in the wallet; the wallet afterwards."""
        async with self.lock:
            self._check_open()
            draft = copy_of(self.engine, self.rng)
            draft.unregister(user_id)
            balance = await tournaments.unregister(
                self.db, self.tournament_id, user_id, state=draft.to_json()
            )
            self._adopt(draft, self.settings)
            self._say([self.channel_id], t("tournament.unregistered", self.locale,
                                            player=mention(user_id),
                                            entrants=self.engine.entrants))
            return balance

    # -- the host ----------------------------------------------------------------------------

    async def begin(self, by: int | None) -> None:
        """Draw the seats and start the clock (the host, or ``starts_at``)."""
        async with self.lock:
            self._check_open()
            await self._begin(by)

    async def _begin(self, by: int | None) -> None:
        if self.engine.state is not TournamentState.REGISTERING:
            raise EngineError("already_started")
        moment = now()
        changes: dict[str, Any] = {}
        if self.settings.kind == "time_limited" and self.settings.ends_at is not None:
            # Its time is counted from the start, to the end the host gave.
            changes["time_limit"] = time_limit_until(self.settings.ends_at, moment)
        draft = copy_of(self.engine, self.rng, **changes)
        events = draft.start(moment)
        openings = await self._open_threads(draft, events, start=True)
        await tournaments.start_tournament(
            self.db, self.tournament_id, state=draft.to_json(), tables=openings,
            config=self.settings.to_json(),
        )
        self._adopt(draft, self.settings)
        await self._sync_tables()
        self._announce(events)
        self._kick_tables()
        self._run_ticker()

    async def pause(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            draft = copy_of(self.engine, self.rng)
            events = draft.pause(now(), by)
            await self._store(draft, self.settings, events)

    async def resume(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            draft = copy_of(self.engine, self.rng)
            events = draft.resume(now(), by)
            await self._store(draft, self.settings, events)
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
            total = sum(refunds.values())
            text = t("tournament.cancelled", self.locale, name=safe_text(self.name),
                     host=mention(by), players=len(refunds), amount=chips(total, self.locale))
            self._say(self.channels(), text)
            for table in list(self.tables.values()):
                table.retire(archive=table.channel_id != self.channel_id)
            self._wind_up()
            return refunds

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
        if self.engine.state is TournamentState.REGISTERING:
            if self.settings.starts_at is None:
                return beat
            waits.append(self.settings.starts_at - moment)
        elif self.running and not self.engine.paused:
            for wait in (self.engine.seconds_to_next_level(moment),
                         self.engine.seconds_left(moment)):
                if wait is not None:
                    waits.append(wait)
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
            except Exception:
                log.exception("tournament %d: its clock failed; trying again",
                              self.tournament_id)

    async def _tick(self) -> None:
        moment = now()
        if self.engine.state is TournamentState.REGISTERING:
            starts = self.settings.starts_at
            if starts is not None and moment >= starts:
                try:
                    await self._begin(None)
                except (EngineError, StorageError, BotError) as exc:
                    # Too few players (or the channel refused the threads): it is called off,
                    # every buy-in back, rather than left waiting for nobody.
                    log.info("tournament %d: automatic start refused (%s)",
                             self.tournament_id, exc)
                    await self._cancel_unstarted(exc)
            return
        if not self.running:
            return
        if not self.engine.paused:
            draft = copy_of(self.engine, self.rng)
            events = draft.tick(moment)
            if events:
                await self._store(draft, self.settings, events)
        if moment - self._beat_at >= self.options.tournament_heartbeat and not self.closed:
            self._beat_at = moment
            await tournaments.heartbeat(self.db, self.tournament_id, int(moment * 1000))

    async def _cancel_unstarted(self, reason: Exception) -> None:
        refunds = await tournaments.cancel_tournament(self.db, self.tournament_id,
                                                      actor_id=self.host_id)
        self.closed = True
        self._say([self.channel_id], t("tournament.start_failed", self.locale,
                                        name=safe_text(self.name), players=len(refunds)))
        self._wind_up()

    # -- transitions -------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise BotError("tournament_over")

    def _save(
        self,
        draft: Tournament,
        settings: TournamentSettings,
        *,
        closed: Sequence[int] = (),
        opened: Sequence[TableOpening] = (),
    ) -> TournamentSave:
        """What a transition stores: the places and prizes too once it ended the tournament."""
        ended = draft.is_over and not self.engine.is_over
        return TournamentSave(
            draft.to_json(), settings.to_json(), tuple(opened), tuple(closed),
            placings_of(draft) if ended else None,
        )

    async def _store(
        self, draft: Tournament, settings: TournamentSettings, events: Sequence[TableEvent]
    ) -> None:
        """A transition with no hand in it (the clock, a pause, a player back): stored, adopted,
        told."""
        await tournaments.store(self.db, self.tournament_id, self._save(draft, settings))
        self._adopt(draft, settings)
        self._announce(events)
        self._kick_tables()

    def _adopt(self, draft: Tournament, settings: TournamentSettings) -> None:
        self.engine = draft
        self.settings = settings
        for table in self.tables.values():
            table.clock.banks = settings.banks

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
        if start and len(numbers) == 1:
            return [TableOpening(numbers[0], self.channel_id, seats, config)]
        return [TableOpening(n, await self._start_thread(n), seats, config) for n in numbers]

    async def _start_thread(self, number: int) -> int:
        client = self.services.client
        channel = client.get_channel(self.channel_id)
        if channel is None:
            await self.services.budget.spend()
            channel = await client.fetch_channel(self.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise BotError("tournament_in_thread")
        name = t("tournament.thread_name", self.locale, name=self.name, table=number)[:100]
        await self.services.budget.spend()
        try:
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
            if row.table_no not in self.tables and row.table_no in self.engine.tables:
                self._add_table(row)

    def _add_table(self, row: StoredTable, *, hand_id: int | None = None,
                   commitment: DeckCommitment | None = None) -> TournamentTable:
        table = TournamentTable(self, row, hand_id=hand_id, commitment=commitment)
        self.tables[row.table_no] = table
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

    def _kick_tables(self) -> None:
        for table in self.tables.values():
            table.schedule_deal(min(SOON, self.options.next_hand_delay))

    # -- telling -----------------------------------------------------------------------------

    def _announce(self, events: Sequence[TableEvent]) -> None:
        """Say what a stored transition did, each thing where the players concerned look."""
        loc = self.locale
        everywhere = self.channels()
        for event in events:
            if isinstance(event, TournamentStarted):
                self._say([self.channel_id], self._start_text(event))
            elif isinstance(event, PlayerRegistered):
                key = "tournament.registered_late" if event.late else "tournament.registered"
                channel = self.tables[event.table].channel_id if (
                    event.late and event.table in self.tables) else self.channel_id
                self._say([self.channel_id], t(
                    key, loc, player=mention(int(event.player_id)), entrants=event.entrants,
                    pool=chips(event.prize_pool, loc), table=event.table or 0,
                    seat=event.seat or 0, channel=f"<#{channel}>"))
            elif isinstance(event, RegistrationClosed):
                self._say([self.channel_id], t("tournament.registration_closed", loc,
                                                entrants=event.entrants,
                                                pool=chips(event.prize_pool, loc)))
            elif isinstance(event, LevelStarted) and event.level > 1:
                stakes = stakes_text(event.small_blind, event.big_blind, event.ante,
                                     event.ante_kind, loc)
                self._say(everywhere, t("tournament.level", loc, level=event.level,
                                        stakes=stakes))
            elif isinstance(event, BreakStarted):
                self._say(everywhere, t("tournament.break", loc,
                                        until=f"<t:{int(now() + event.seconds)}:R>"))
            elif isinstance(event, TimeUp):
                self._say(everywhere, t("tournament.time_up", loc))
            elif isinstance(event, TournamentPaused):
                self._say(everywhere, t("tournament.paused", loc))
            elif isinstance(event, TournamentResumed):
                self._say(everywhere, t("tournament.resumed", loc))
            elif isinstance(event, PlayerMoved):
                self._tell_move(event)
            elif isinstance(event, TableOpened):
                table = self.tables.get(event.table)
                if table is not None:
                    self._say([self.channel_id], t("tournament.table_opened", loc,
                                                    table=event.table,
                                                    channel=f"<#{table.channel_id}>"))
            elif isinstance(event, TableBroken):
                broken = self.tables.pop(event.table, None)
                if broken is not None:
                    self._say([broken.channel_id], t("tournament.table_broken", loc,
                                                      table=event.table))
                    broken.retire(archive=broken.channel_id != self.channel_id)
            elif isinstance(event, FinalTable):
                final = self.tables.get(event.table)
                where = final.channel_id if final is not None else self.channel_id
                players = ", ".join(mention(int(p)) for p in event.players)
                self._say(sorted({self.channel_id, where}),
                          t("tournament.final_table", loc, players=players,
                            channel=f"<#{where}>"))
            elif isinstance(event, TournamentFinished):
                text = results_text(self.name, event.standings, loc,
                                    winning_hand=self.settings.winning_hand,
                                    reason=event.reason)
                self._say(everywhere, text)
                for table in list(self.tables.values()):
                    table.retire(archive=table.channel_id != self.channel_id)
                self.closed = True
                self._wind_up()

    def _start_text(self, event: TournamentStarted) -> str:
        loc = self.locale
        lines = [t("tournament.started", loc, name=safe_text(self.name),
                   entrants=event.entrants, pool=chips(event.prize_pool, loc))]
        for number in sorted({n for n, _, _ in event.seats}):
            table = self.tables.get(number)
            seated = ", ".join(f"{seat}: {mention(int(p))}" for n, seat, p in event.seats
                               if n == number)
            where = f"<#{table.channel_id}>" if table is not None else ""
            lines.append(t("tournament.started_table", loc, table=number, channel=where,
                           players=seated))
        return "\n".join(lines)

    def _tell_move(self, event: PlayerMoved) -> None:
        loc = self.locale
        user_id = int(event.player_id)
        source = self.tables.get(event.from_table)
        target = self.tables.get(event.to_table)
        if target is None:
            return
        where = f"<#{target.channel_id}>"
        if source is not None:
            self._say([source.channel_id], t("tournament.moved_out", loc, player=mention(user_id),
                                              table=event.to_table, channel=where))
        self._say([target.channel_id], t("tournament.moved_in", loc, player=mention(user_id),
                                          table=event.from_table, seat=event.to_seat,
                                          stack=chips(event.stack, loc)))
        link = f"https://discord.com/channels/{self.guild_id}/{target.channel_id}"
        self.direct.spawn(self._dm_move(user_id, event, link))

    async def _dm_move(self, user_id: int, event: PlayerMoved, link: str) -> None:
        spoken = await self.services.locales([user_id])
        locale = resolve_locale(spoken.get(user_id, self.locale))
        self.direct.notify(user_id, t("tournament.moved_dm", locale, name=self.name,
                                      table=event.to_table, seat=event.to_seat,
                                      stack=chips(event.stack, locale), link=link))

    def _wind_up(self) -> None:
        """Over or cancelled: the clock stops, the last messages go out, the hall forgets it."""
        self.closed = True
        ticker, self._ticker = self._ticker, None
        if ticker is not None and ticker is not asyncio.current_task():
            ticker.cancel()
        self.services.on_closed(self)


class TournamentTable:
    """One table of a tournament: its hands, its clock, its voice in its channel."""

    def __init__(
        self,
        runner: TournamentRunner,
        row: StoredTable,
        *,
        hand_id: int | None = None,
        commitment: DeckCommitment | None = None,
    ) -> None:
        services = runner.services
        self.runner = runner
        self.number = row.table_no
        self.table_id = row.table_id
        self.channel_id = row.channel_id
        self.guild_id = runner.guild_id
        self.db = runner.db
        self.options = runner.options
        self.stored_message_id = row.message_id
        self.hand_id = hand_id
        self.commitment = commitment
        self.closed = False
        self._uncontested: tuple[Hand, int, tuple[int, ...]] | None = None
        self._dealer_task: asyncio.Task[None] | None = None
        self._reposts: dict[int, float] = {}
        self.clock = DecisionClock(
            services.options, runner.settings.banks, self._on_clock_expired,
            self._on_bank_started, name=f"clock-t{runner.tournament_id}-{self.number}",
        )
        self.clock.timer = float(runner.settings.timer)
        self._last_table = runner.engine.tables[self.number]
        self.messenger = runner.voice(self.channel_id, self)
        self.direct = DirectMessages(
            services.client, self.table_id, self._on_dms_closed, budget=services.budget,
            channels=services.dm_channels,
        )

    # -- queries -----------------------------------------------------------------------------

    @property
    def table(self) -> Table:
        """The engine's table; once broken, the table as it was last seen (its last
        message shows it closed)."""
        found = self.runner.engine.tables.get(self.number)
        if found is not None:
            self._last_table = found
            return found
        return self._last_table

    @property
    def hand(self) -> Hand | None:
        return live_hand(self.table) if not self.closed else None

    @property
    def config(self) -> TournamentSettings:
        return self.runner.settings

    @property
    def locale(self) -> str | None:
        return self.runner.locale

    @property
    def lock(self) -> asyncio.Lock:
        return self.runner.lock

    def player_of(self, index: int) -> int:
        return int(self.table.hand_players[index])

    def remember(self, user_id: int, name: str) -> None:
        self.runner.remember(user_id, name)

    def scene(self) -> Scene:
        engine = self.runner.engine
        return Scene(
            table=self.table,
            names=self.runner.settings.names,
            hand_number=self.table.hand_number,
            locale=self.locale,
            away=frozenset(int(p) for p in engine.players_left() if engine.is_absent(p)),
            commitment=self.commitment.root_hex if self.commitment is not None else None,
            dealing=True,
            closed=self.closed,
        )

    def message(self) -> TableMessage:
        """The table message, headed by the tournament, the table and the level."""
        engine = self.runner.engine
        message = table_message(self.scene())
        key = "tournament.header_final" if len(engine.tables) == 1 and (
            engine.entrants > engine.config.seats) else "tournament.header"
        head = [t(key, self.locale, name=safe_text(self.runner.name), table=self.number,
                  level=engine.level)]
        moment = now()
        if engine.on_break_at(moment) and not engine.paused and not self.closed:
            wait = engine.seconds_to_next_level(moment) or 0
            head.append(t("tournament.on_break", self.locale,
                          until=f"<t:{int(moment + wait)}:R>"))
        return dataclasses.replace(message, head="\n".join([*head, message.head]))

    def my_cards(self, user_id: int, locale: object) -> CardsView:
        hand = self.table.hand
        index = self.table.hand_index(user_id)
        if self.closed or hand is None or index is None:
            raise BotError("no_cards")
        caption = t("cards.caption", locale, hand=self.table.hand_number)
        return CardsView(hole_cards_text(hand, index, locale), hand, index, caption)

    # -- start and stop ----------------------------------------------------------------------

    async def resume_after_restart(self) -> None:
        """Under the lock: show the table again and play on."""
        hand = self.table.hand
        self._refresh(new=True)
        if hand is None:
            self.schedule_deal(self.options.next_hand_delay)
        elif hand.is_over:
            await self._settle_or_retry()
        else:
            await self._after_change()

    async def stop(self) -> None:
        self.closed = True
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        await self.clock.close()
        await self.direct.close()

    def retire(self, *, archive: bool = False) -> None:
        """The table is gone (broken, or the tournament over): its message loses its buttons,
        and its thread is archived once its last messages went out."""
        self.closed = True
        self.clock.cancel()
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        self._refresh()
        if archive:
            self.messenger.then(lambda: self.runner.direct.spawn(self._archive()))

    async def _archive(self) -> None:
        client = self.runner.services.client
        try:
            await self.runner.services.budget.spend()
            thread = client.get_channel(self.channel_id) or await client.fetch_channel(
                self.channel_id)
            if isinstance(thread, discord.Thread):
                await self.runner.services.budget.spend()
                await thread.edit(archived=True)
        except discord.HTTPException as exc:
            log.info("tournament %d: table %d's thread not archived (%s)",
                     self.runner.tournament_id, self.number, exc)

    # -- players -----------------------------------------------------------------------------

    async def act(
        self,
        user_id: int,
        kind: ActionKind,
        amount: int | None = None,
        *,
        ref: tuple[int, int] | None = None,
    ) -> ActionTaken:
        async with self.lock:
            hand, index = self._seat_in_hand(user_id, ref)
            check_decision(hand, ref)
            kind = all_in_meaning(hand, index, kind)
            # A player marked away who acts himself is back, stored with his action.
            back = self.runner.engine.is_absent(user_id)
            events = await self._apply(hand, Action(kind, index, amount), back=user_id
                                       if back else None)
            self.clock.spend(user_id)
            self.runner.timeouts.pop(user_id, None)
            taken = ack_for(events, index)
            await self._after_change()
            if taken is None:  # pragma: no cover - every accepted decision emits its action
                raise BotError("illegal_action")
            return taken

    async def preselect(
        self, user_id: int, pre: PreAction, *, hand_number: int | None = None
    ) -> PreAction:
        async with self.lock:
            ref = None if hand_number is None else (hand_number, 0)
            hand, index = self._seat_in_hand(user_id, ref)
            chosen = preselection(hand, index, pre, self.runner.clicks, user_id)
            if chosen is None:
                return preselected(hand, index)
            await self._apply(hand, Action(ActionKind.PRESELECT, index, pre=chosen))
            return chosen

    async def show_cards(self, user_id: int, *, hand_number: int | None = None) -> None:
        async with self.lock:
            shown = self._uncontested
            if shown is None or (hand_number is not None and hand_number != shown[1]):
                raise BotError("nothing_to_show")
            hand, _, players = shown
            if user_id not in players:
                raise BotError("nothing_to_show")
            index = players.index(user_id)
            hand.show(index)
            self._post(t("result.shows", self.locale, player=mention(user_id),
                         cards=cards_text(hand.hole_cards(index))))

    async def sit_in(self, user_id: int) -> None:
        """Back from away ("Back", ``/poker sitin``): the clock stops acting for him."""
        async with self.lock:
            self._check_open()
            engine = self.runner.engine
            if not engine.is_absent(user_id):
                raise EngineError("not_sitting_out")
            draft = copy_of(engine, self.runner.rng)
            events = draft.set_absent(user_id, False)
            await self.runner._store(draft, self.runner.settings, events)
            self.runner.timeouts.pop(user_id, None)
            self._refresh(urgent=False)

    async def repost(self, user_id: int) -> bool:
        async with self.lock:
            self._check_open()
            if self.messenger.repost_pending:
                return False
            moment = time.monotonic()
            last = self._reposts.get(user_id)
            if last is not None and moment - last < self.options.repost_cooldown:
                wait = int(self.options.repost_cooldown - (moment - last)) + 1
                raise BotError("repost_cooldown", seconds=wait)
            self._reposts[user_id] = moment
            self._refresh(new=True)
            return True

    # -- internals: input ----------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed or self.runner.closed:
            raise BotError("table_closed")

    def _seat_in_hand(self, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
        self._check_open()
        return seat_in_hand(self.table, user_id, ref)

    async def _apply(self, hand: Hand, action: Action, *, back: int | None = None,
                     away: int | None = None) -> list[Event]:
        """Apply one input and store what the hand logged, with the tournament's state when a
        player's absence changes with it, before anyone is told."""
        before = len(hand.actions)
        events = hand.apply(action)  # an EngineError here changed nothing
        logged = hand.actions[before:]
        assert self.hand_id is not None
        runner = self.runner
        try:
            if back is None and away is None:
                if logged:
                    await hands.append_actions(self.db, self.hand_id, before, logged)
            else:
                player, absent = (back, False) if back is not None else (away, True)
                assert player is not None
                draft = copy_of(runner.engine, runner.rng)
                draft.set_absent(player, absent)
                await hands.append_tournament_actions(
                    self.db, self.hand_id, before, logged,
                    save=runner._save(draft, runner.settings),
                )
                runner._adopt(draft, runner.settings)
        except BaseException:
            log.exception("tournament %d table %d: action not stored; reloading the hand",
                          runner.tournament_id, self.number)
            await self._reload_hand()
            raise
        return events

    async def _reload_hand(self) -> None:
        assert self.hand_id is not None
        stored = await hands.load_hand(self.db, self.hand_id)
        hand = hands.rebuild_hand(stored)
        runner = self.runner
        running = {n: tb.hand for n, tb in runner.engine.tables.items() if tb.hand is not None}
        running[self.number] = hand
        runner.engine = Tournament.from_json(runner.engine.to_json(), runner.rng, hands=running)

    async def _after_change(self) -> None:
        hand = self.table.hand
        if hand is None or self.closed:
            return
        if hand.is_over:
            await self._settle_or_retry()
            return
        self._arm_clock()
        self._refresh()

    async def _settle_or_retry(self) -> None:
        try:
            await self._finish_hand()
        except Exception:
            log.exception("tournament %d table %d: could not settle hand #%d; trying again",
                          self.runner.tournament_id, self.number, self.table.hand_number)
            self.direct.spawn(self._retry_settle(self.table.hand_number))

    async def _retry_settle(self, number: int) -> None:
        delay = 1.0
        while not self.closed:
            await asyncio.sleep(delay)
            async with self.lock:
                if self.closed or self.number not in self.runner.engine.tables:
                    return
                hand = self.table.hand
                if hand is None or not hand.is_over or self.table.hand_number != number:
                    return
                try:
                    await self._finish_hand()
                    return
                except Exception:
                    log.exception("tournament %d table %d: settling failed again",
                                  self.runner.tournament_id, self.number)
            delay = min(delay * 2, 60.0)

    # -- internals: hands ----------------------------------------------------------------------

    def schedule_deal(self, delay: float) -> None:
        if self.closed or self.runner.closed or self.table.hand is not None:
            return
        if self._dealer_task is not None and not self._dealer_task.done():
            return
        self._dealer_task = asyncio.create_task(
            self._deal_later(delay), name=f"deal-t{self.runner.tournament_id}-{self.number}")

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            try:
                await self._deal()
            except Exception:
                log.exception("tournament %d table %d: dealing failed",
                              self.runner.tournament_id, self.number)

    async def _deal(self) -> None:
        """Deal the next hand here if the tournament lets this table play (under the lock)."""
        runner = self.runner
        if self.closed or runner.closed or self.number not in runner.engine.tables:
            return
        if self.table.hand is not None or self.messenger.blocked:
            return
        engine = runner.engine
        moment = now()
        if (engine.paused or engine.time_up or engine.on_break_at(moment)
                or not self.table.can_start()):
            self._refresh(urgent=False)  # on a break, paused, or waiting for players
            return
        deck = tuple(self.options.deck_factory())
        commitment = DeckCommitment.commit(deck)
        draft = copy_of(engine, runner.rng)
        events = draft.start_hand(deck, moment, table=self.number)
        table = draft.tables.get(self.number)
        hand = table.hand if table is not None else None
        if table is None or hand is None:
            # Time is up: no hand is dealt (the tournament may have ended with it).
            await runner._store(draft, runner.settings, events)
            return
        plan = table.plan
        assert plan is not None
        players = [
            HandSeat(i, seat, int(pid), hand.config.stacks[i])
            for i, (seat, pid) in enumerate(zip(table.hand_seats, table.hand_players, strict=True))
        ]
        settings = runner.settings.copy()
        self.clock.banks = settings.banks
        self.clock.refill([int(pid) for pid in table.hand_players])
        try:
            hand_id = await hands.start_tournament_hand(
                self.db, self.table_id, level=draft.level, config=hand.config, deck=deck,
                commitment=commitment, players=players, button_seat=plan.button_seat,
                save=runner._save(draft, settings),
            )
        except StorageError:
            self.clock.banks = runner.settings.banks
            log.exception("tournament %d table %d: storage refused the deal",
                          runner.tournament_id, self.number)
            self._post(t("notice.deal_failed", self.locale))
            return
        runner._adopt(draft, settings)
        self.hand_id = hand_id
        self.commitment = commitment
        self._uncontested = None
        self.clock.cancel()
        runner._announce(events)
        self._refresh(new=True)
        letters = await self._letters(hand)
        self.messenger.then(lambda: self.direct.deal(letters))
        await self._after_change()

    async def _finish_hand(self) -> None:
        """Record the hand that just ended with everything it did to the tournament, in one
        step; tell everyone."""
        runner = self.runner
        hand = self.table.hand
        assert hand is not None and hand.result is not None and self.hand_id is not None
        final = self.message()
        text = result_content(self.scene())
        players = tuple(int(p) for p in self.table.hand_players)
        draft = copy_of(runner.engine, runner.rng)
        events = draft.finish_hand(now(), table=self.number)
        settings = runner.settings.copy()
        if draft.is_over and draft.standings:
            settings.winning_hand = _winning_hand(hand, self.table, draft.standings[0].player_id)
        closed = [e.table for e in events if isinstance(e, TableBroken)]
        await hands.record_tournament_hand(
            self.db, self.hand_id, result_summary(hand), player_results(hand),
            save=runner._save(draft, settings, closed=closed),
        )
        runner._adopt(draft, settings)
        self.hand_id = None
        self.clock.cancel()
        self._after_settle(events, text, final, hand, players)
        runner._announce(events)
        runner._kick_tables()

    def _after_settle(self, events: Sequence[TableEvent], result_text: str,
                      final: TableMessage, ended: Hand, players: tuple[int, ...]) -> None:
        buttons: tuple[ButtonSpec, ...] = ()
        self._uncontested = None
        result = ended.result
        if result is not None and not (result.showdown or result.voided):
            number = self.table.hand_number
            self._uncontested = (ended, number, players)
            buttons = (ButtonSpec("show", t("button.show", self.locale), ref=(number, 0)),)
        lines = [result_text, *self._eliminations(events)]
        labels = labels_for(self.locale)
        self.messenger.show(final, labels)
        self.messenger.post("\n".join(lines), labels, view=final.view, buttons=buttons)
        self.messenger.then(lambda: self.schedule_deal(self.options.next_hand_delay))

    def _eliminations(self, events: Sequence[TableEvent]) -> list[str]:
        notes = []
        for event in events:
            if isinstance(event, PlayerEliminated) and event.table == self.number:
                player = mention(int(event.player_id))
                if event.place is None:
                    notes.append(t("tournament.eliminated", self.locale, player=player))
                else:
                    key = ("tournament.eliminated_tied" if event.tied > 1
                           else "tournament.eliminated_place")
                    notes.append(t(key, self.locale, player=player, place=event.place))
                self.runner.timeouts.pop(int(event.player_id), None)
        return notes

    async def _letters(self, hand: Hand) -> list[HoleCardsLetter]:
        players = [int(pid) for pid in self.table.hand_players]
        spoken = await self.runner.services.locales(players)
        link = f"https://discord.com/channels/{self.guild_id}/{self.channel_id}"
        return hole_card_letters(hand, players, self.table.hand_number, spoken, self.locale,
                                 link)

    # -- internals: the clock ------------------------------------------------------------------

    def _arm_clock(self) -> None:
        hand = self.hand
        if hand is None or hand.to_act is None:
            self.clock.cancel()
            return
        pid = self.player_of(hand.to_act)
        marker = (self.table.hand_number, decision_number(hand))
        # An absent player is dealt in and blinded: the clock acts for him at once (RULES 7).
        self.clock.arm(marker, pid, hand.to_act, away=self.runner.engine.is_absent(pid))

    def _on_bank_started(self, decision: Decision) -> None:
        if self.clock.decision is decision and not self.closed:
            self._refresh()

    async def _on_clock_expired(self, decision: Decision) -> None:
        async with self.lock:
            if self.clock.decision is not decision or self.closed:
                return
            await self._time_out(decision)

    async def _time_out(self, decision: Decision) -> None:
        """Check if free, else fold; twice in a row marks him away: he stays in, dealt in and
        blinded, and the clock acts for him until he is back."""
        hand = self.hand
        if hand is None:
            return
        pid = decision.player_id
        runner = self.runner
        count = runner.timeouts.get(pid, 0) + 1
        marks_away = (count >= self.options.timeouts_before_sit_out
                      and not runner.engine.is_absent(pid))
        try:
            await self._apply(hand, Action(ActionKind.TIMEOUT, decision.index),
                              away=pid if marks_away else None)
        except EngineError:
            log.exception("tournament %d table %d: timeout refused", runner.tournament_id,
                          self.number)
            return
        runner.timeouts[pid] = count
        if marks_away:
            self._post(t("tournament.away", self.locale, player=mention(pid)),
                       buttons=(ButtonSpec("back", t("button.back", self.locale), "success"),))
        await self._after_change()

    # -- internals: output ---------------------------------------------------------------------

    async def remember_message(self, message_id: int) -> None:
        self.stored_message_id = message_id
        try:
            await tables.set_table_message(self.db, self.table_id, message_id)
        except StorageError:
            log.exception("tournament table %d: could not store its message id", self.table_id)

    def _refresh(self, *, new: bool = False, urgent: bool = True) -> None:
        self.messenger.show(self.message(), labels_for(self.locale), new=new, urgent=urgent)

    def _post(self, text: str, *, buttons: Sequence[ButtonSpec] = ()) -> None:
        self.messenger.post(text, labels_for(self.locale), buttons=buttons)

    def _on_dms_closed(self, user_id: int) -> None:
        if not self.closed:
            self._post(t("error.dm_closed_notice", self.locale, user=mention(user_id)))

    def channel_lost(self) -> None:
        """The bot may no longer post here: the clock still moves the table on (a player's
        time starts anyway), and its players are told by DM once."""
        self.direct.spawn(self._tell_channel_lost())

    async def _tell_channel_lost(self) -> None:
        players = [int(v.player_id) for v in self.table.seats()] if not self.closed else []
        spoken = await self.runner.services.locales(players)
        for pid in players:
            locale = resolve_locale(spoken.get(pid, self.locale))
            self.direct.notify(pid, t("notice.channel_lost", locale,
                                      channel=f"<#{self.channel_id}>"))


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
    "Registered",
    "TournamentRunner",
    "TournamentServices",
    "TournamentSettings",
    "TournamentTable",
    "copy_of",
    "now",
]

"""One live table's hand loop, whoever owns the table: written once, for every kind of table.

A :class:`LiveTable` owns the hand being played at one table: the deal, every decision and
pre-selection, the decision clock and time bank, time-outs, the all-in run-out street by street
with each hand's chances, the result and its retry, the table message, the hole cards by DM and
reposts. Machines ride beside it, each with one job, callbacks in and its own tests, as the
decision clock (:mod:`bot.runtime.clock`) does: the computer players' turns
(:mod:`bot.runtime.turns`), the vote on running it twice (:mod:`bot.runtime.runvote`), the hand
that just ended (:mod:`bot.runtime.lasthand`) and the wait for storage when the database is away
(:mod:`bot.runtime.waiting`). Every input runs under the table's lock
(a tournament's tables share the tournament's), so no two ever interleave, and each goes
**draft → store → adopt**: the engine changes a draft (refusing bad input before anything
changes), storage takes the change in one transaction, and only then does the draft become the
table and is anybody told.

Its owners are the kinds of table (:class:`~bot.runtime.cash.CashTable`,
:class:`~bot.runtime.tourney.TournamentTable`). The seam between the loop and its owners is
declared in :mod:`bot.runtime.contract`: the hooks an owner fills, in their tiers, and the
owner API, public names only, that owners call (``OWNER_API``): ``apply`` a decision,
``play_on`` after a change, ``show_result`` of a hand settled (one :class:`Settled`),
``deal_now``, ``take_back`` a change storage refused, ``reload_hand``, ``pick_up`` after a
restart, ``retire``, ``refresh``, ``say``, ``check_open``, ``forget``, ``dealt_seats`` and
``schedule_deal``. No owner touches an underscore name of the loop (a test checks it).

Each input has one refusal path: a ``check_…`` method answers "may this member do this now,
and if not, why" (:meth:`LiveTable.check_act`, ``check_raise_form``, ``check_preselect``,
``check_repost``; ``last_hand.check_show`` and ``check_rabbit``; ``run_vote.check``), and the
button, the slash command, the form and the action all call it, as PokerKit's ``verify_…``
methods serve both its ``can_…`` and the operation.

What differs between the kinds beyond the hooks is declared once, in each kind's
:class:`~bot.runtime.kinds.TableKind`. A computer player sits and acts through the same path as
a person; a new game brings its rules in the engine's hand and reuses this loop unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import discord

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.logs import TaggedLock
from bot.metrics import NO_METRICS, Metrics
from bot.presenter import (
    ButtonSpec,
    Scene,
    TableMessage,
    ack_for,
    decision_number,
    hole_cards_text,
    labels_for,
    live_equity,
    mention,
    result_content,
    run_out_message,
    table_message,
)
from bot.runtime.budget import RequestBudget
from bot.runtime.clock import Decision, DecisionClock
from bot.runtime.config import RuntimeOptions
from bot.runtime.contract import TableContract
from bot.runtime.direct import DirectMessages, DmChannels, HoleCardsLetter
from bot.runtime.faults import log_failure
from bot.runtime.lasthand import Ended, LastHand
from bot.runtime.messenger import ViewFactory
from bot.runtime.play import (
    Clicks,
    all_in_meaning,
    check_decision,
    hole_card_letters,
    preselected,
    preselection,
    seat_in_hand,
)
from bot.runtime.runvote import RunVoting
from bot.runtime.turns import BotSeat, BotTurns
from bot.runtime.waiting import StorageWait
from bot.settings import shard_of
from bot.storage import Database, StorageError, hands, tables
from bot.storage.errors import StorageUnavailable
from bot.storage.hands import HandSeat
from engine.bots.ids import is_bot
from engine.commitment import DeckCommitment
from engine.equity import run_out_equities
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Event, Hand, Legal, PreAction
from engine.table import PlayerLeft, Table, TableEvent

log = logging.getLogger(__name__)
_T = TypeVar("_T")
D = TypeVar("D")

# A new arrival or a returning player should not wait the whole pause between hands.
SOON = 1.0
# What the kinds of table may call of the loop (see the module's docstring).
OWNER_API = (
    "apply", "play_on", "show_result", "deal_now", "take_back", "reload_hand", "pick_up",
    "retire", "refresh", "say", "check_open", "forget", "dealt_seats", "schedule_deal",
)


@dataclass(frozen=True, slots=True)
class TableServices:
    """What a table (and a tournament) needs from the bot around it, and nothing more."""

    db: Database
    options: RuntimeOptions
    client: discord.Client
    view_factory: ViewFactory
    rng: random.Random
    # The locale each player's client was last seen with: his DMs are written in it.
    locales: Callable[[Sequence[int]], Awaitable[dict[int, str]]]
    # The one registry of live tables: a table joins it when it opens, leaves it when it
    # closes, and its owner is forgotten (its last messages going out) once it is over.
    registry: TableRegistry
    budget: RequestBudget = field(default_factory=lambda: RequestBudget(40))
    dm_channels: DmChannels = field(default_factory=DmChannels)
    metrics: Metrics = NO_METRICS
    # The server's calendar, which follows each tournament with a start time
    # (``bot.runtime.calendar``); None: no calendar.
    calendar: TournamentFollower | None = None
    # Opens a tournament as ``/tournament create`` does (a repeating sit-and-go's next one).
    open_tournament: Callable[..., Awaitable[Any]] | None = None


class TournamentFollower(Protocol):
    """What follows a tournament's state from outside it (the server's calendar)."""

    def follow(self, live: Any, *, cancelled: bool = False) -> None: ...


class TableRegistry(Protocol):
    """Where live tables are found (``bot.runtime.registry.Registry``)."""

    def add_table(self, table: LiveTable[Any]) -> None: ...

    def drop_table(self, table: LiveTable[Any]) -> None: ...

    def venue_over(self, venue: Any) -> None: ...

    def venue_stale(self, venue: Any) -> None: ...

    def venue_moved(self, venue: Any, old_channel: int) -> None: ...


@dataclass(frozen=True, slots=True)
class CardsView:
    """A player's own cards, for the private "My cards" reply."""

    text: str
    hand: Hand
    index: int
    caption: str


@dataclass(frozen=True, slots=True)
class Settled:
    """A hand stored as ended, as the channel is to see it (:meth:`LiveTable.show_result`):
    what settling it did, the result in words, the table as the hand ended, the hand and its
    players; ``image``: the result carries the final image; ``run_out``: the streets of an
    all-in run-out, shown one by one first; ``new``: on a new table message."""

    events: Sequence[TableEvent]
    text: str
    final: TableMessage
    hand: Hand
    players: tuple[int, ...]
    image: bool = True
    run_out: Sequence[TableMessage] = ()
    new: bool = False


class LiveTable(TableContract[D]):
    """The hand loop of one live table; ``D`` is its owner's draft (what a change is made on
    before storage agrees)."""

    def __init__(
        self,
        services: TableServices,
        *,
        table_id: int,
        guild_id: int,
        channel_id: int,
        lock: asyncio.Lock,
        banks: dict[int, float],
        timer: float,
        hand_id: int | None = None,
        commitment: DeckCommitment | None = None,
        message_id: int | None = None,
        timeouts: dict[int, int] | None = None,
        clicks: Clicks | None = None,
        clock_name: str = "clock",
    ) -> None:
        self.services = services
        self.db = services.db
        self.options = services.options
        self.rng = services.rng
        self.table_id = table_id
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.metrics = services.metrics
        # Every log line written while the table's lock is held names the table and hand; a
        # transition that failed for the database's fault makes the table wait for it.
        self.lock = TaggedLock(lock, self._log_fields, on_error=self._failed)
        self.hand_id = hand_id
        self.commitment = commitment
        self.stored_message_id = message_id
        self.closed = False
        # Consecutive timeouts and double-click windows by player: a tournament shares them
        # between its tables, since its players move.
        self.timeouts: dict[int, int] = timeouts if timeouts is not None else {}
        self.clicks = clicks if clicks is not None else Clicks()
        self.last_hand = LastHand(self.kind, self.lock, self.say, lambda: self.locale,
                                  lambda hand_id: hands.note_rabbit(self.db, hand_id))
        self._reposts: dict[int, float] = {}
        self._dealer_task: asyncio.Task[None] | None = None
        self.clock = DecisionClock(
            services.options, banks, self._on_clock_expired, self._on_bank_started,
            name=clock_name,
        )
        self.clock.timer = float(timer)
        self.bot_turns = BotTurns(services.options, services.rng, self.lock, self._bot_due,
                                  self._bot_answer, name=str(table_id),
                                  guild_id=guild_id, metrics=self.metrics)
        self.run_vote = RunVoting(services.options, self.kind, self.lock, lambda: self.hand,
                                  self._seat, self._decide_runs, self.refresh, self._failed,
                                  name=str(table_id))
        self.storage_wait = StorageWait(
            self.db.health, self.lock, self._take_up_again, self._reload_venue,
            self._tell_storage_wait, self._stop_timers, lambda: self.hand is not None,
            name=str(table_id),
        )
        self.messenger = self._make_messenger()
        self.clock.queued = self.messenger.prompt_queued
        self.direct = DirectMessages(
            services.client, table_id, self._on_dms_closed, channels=services.dm_channels,
        )

    # -- queries (no lock: read synchronously, so always consistent) -------------------------

    def _log_fields(self) -> dict[str, int | None]:
        number = self.table.hand_number
        shard = shard_of(self.guild_id, self.services.client.shard_count)
        return {"table": self.table_id, "hand": number or None, "shard": shard}

    @property
    def message_id(self) -> int | None:
        return self.messenger.message_id

    @property
    def hand(self) -> Hand | None:
        """The hand being played (None between hands and once the table is closed)."""
        return self.table.live_hand if not self.closed else None

    @property
    def awaits_player(self) -> bool:
        """Someone is to act in the hand being played: after a restart this table is shown
        again before the tables where nobody waits."""
        hand = self.hand
        return hand is not None and hand.to_act is not None

    @property
    def decision(self) -> Decision | None:
        return self.clock.decision

    @property
    def soon(self) -> float:
        """How soon a table deals for a new arrival or a player back."""
        return min(SOON, self.options.next_hand_delay)

    def player_of(self, index: int) -> int:
        return int(self.table.hand_players[index])

    def remember(self, user_id: int, name: str) -> None:
        """Keep the display name seen last (names are drawn on the table image)."""
        if name and self.names.get(user_id) != name[:64]:
            self.names[user_id] = name[:64]

    def scene(self) -> Scene:
        return Scene(
            table=self.table,
            names=self.names,
            hand_number=self.table.hand_number,
            locale=self.locale,
            away=self._away_players(),
            commitment=self.commitment.root_hex if self.commitment is not None else None,
            dealing=self.dealing,
            closed=self.closed,
            run_vote=self.run_vote.view(),
        )

    def message(self) -> TableMessage:
        return self._dress(table_message(self.scene()))

    def my_cards(self, user_id: int, locale: object) -> CardsView:
        """The player's cards in the hand being played (only ever shown to him)."""
        hand = self.table.hand
        index = self.table.hand_index(user_id)
        if self.closed or hand is None or index is None:
            raise BotError("no_cards")
        caption = t("cards.caption", locale, hand=self.table.hand_number)
        return CardsView(hole_cards_text(hand, index, locale), hand, index, caption)

    # -- refusals: one per input, asked by the button, the command, the form and the action ----

    def check_open(self) -> None:
        if self.closed or self._venue_closed():
            raise BotError("table_closed")

    def _seat(self, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
        self.check_open()
        return seat_in_hand(self.table, user_id, ref)

    def check_act(
        self, user_id: int, kind: ActionKind, ref: tuple[int, int] | None = None
    ) -> tuple[Hand, int, ActionKind]:
        """May ``user_id`` take ``kind`` now (``ref``: the (hand, decision) a button was drawn
        for; a press for another one is refused)? His hand, his index and what his action
        means there; refused with the reason otherwise (the engine refuses the rest)."""
        hand, index = self._seat(user_id, ref)
        check_decision(hand, ref)
        if kind is not ActionKind.FOLD and self._must_fold(user_id):
            raise BotError("left_the_table")
        return hand, index, all_in_meaning(hand, index, kind)

    def check_raise_form(self, user_id: int, ref: tuple[int, int] | None) -> Legal:
        """May ``user_id`` open the raise form now? The limits it offers."""
        hand = self.hand
        legal = hand.legal() if hand is not None else None
        if legal is None or self.player_of(legal.player) != user_id:
            raise BotError("not_your_turn")
        self.check_act(user_id, ActionKind.RAISE, ref)
        return legal

    def check_preselect(self, user_id: int, hand_number: int | None) -> tuple[Hand, int]:
        ref = None if hand_number is None else (hand_number, 0)
        hand, index = self._seat(user_id, ref)
        if self._must_fold(user_id):
            raise BotError("left_the_table")
        return hand, index

    def check_repost(self, user_id: int) -> None:
        """May ``user_id`` have the table posted again (once per ``repost_cooldown``)?"""
        self.check_open()
        last = self._reposts.get(user_id)
        moment = time.monotonic()
        if last is not None and moment - last < self.options.repost_cooldown:
            wait = int(self.options.repost_cooldown - (moment - last)) + 1
            raise BotError("repost_cooldown", seconds=wait)

    # -- a player's input --------------------------------------------------------------------

    async def act(
        self,
        user_id: int,
        kind: ActionKind,
        amount: int | None = None,
        *,
        ref: tuple[int, int] | None = None,
    ) -> ActionTaken:
        """Play for ``user_id``; the action taken (stored before this returns)."""
        async with self.lock:
            hand, index, kind = self.check_act(user_id, kind, ref)
            # A player marked away who acts himself is back, stored with his action.
            draft = self._presence(user_id, away=False) if self._is_away(user_id) else None
            events = await self.apply(hand, Action(kind, index, amount), draft=draft)
            # Stored: charge the reserve he used; his timeouts in a row are over.
            self.clock.spend(user_id)
            self.forget(user_id)
            taken = ack_for(events, index)
            await self.play_on()
            if taken is None:  # pragma: no cover - every accepted decision emits its action
                raise BotError("illegal_action")
            return taken

    async def preselect(
        self, user_id: int, pre: PreAction, *, hand_number: int | None = None
    ) -> PreAction:
        """Choose (or, chosen again, cancel) an action for when his turn comes; the choice."""
        async with self.lock:
            hand, index = self.check_preselect(user_id, hand_number)
            chosen = preselection(hand, index, pre, self.clicks, user_id)
            if chosen is None:
                return preselected(hand, index)
            await self.apply(hand, Action(ActionKind.PRESELECT, index, pre=chosen))
            return chosen

    async def repost(self, user_id: int) -> bool:
        """Post the table message again (it may have scrolled away); False when one is on its
        way already. A member may ask once per ``repost_cooldown``."""
        async with self.lock:
            self.check_open()
            if self.messenger.repost_pending:
                return False
            self.check_repost(user_id)
            self._reposts[user_id] = time.monotonic()
            self.refresh(new=True)
            return True

    # -- the owner API: what the kinds of table use of the loop --------------------------------

    def forget(self, user_id: int) -> None:
        """His timeouts in a row and double-click windows are over (he acted, left, came back)."""
        self.timeouts.pop(user_id, None)
        self.clicks.forget(user_id)
        self._forgotten(user_id)

    async def apply(self, hand: Hand, action: Action, *, draft: D | None = None) -> list[Event]:
        """Apply one input and store what the hand logged (with ``draft``, the owner's new
        state too, in the same transaction), before anyone is told. If storing fails, the hand
        goes back to where it was before the input: it never holds what storage does not."""
        self.db.health.require()  # the database away: refused before anything changes
        before = len(hand.actions)
        events = hand.apply(action)  # an EngineError here changed nothing
        logged = hand.actions[before:]
        if logged or draft is not None:
            try:
                await self._store_actions(before, logged, draft)
            except BaseException as exc:
                if not isinstance(exc, StorageUnavailable):  # the storage's health says that
                    log_failure(log, exc, "table %d: action not stored", self.table_id)
                await self.take_back(hand, before)
                raise
        self.metrics.action(self.guild_id, action.kind.value)
        return events

    async def take_back(self, hand: Hand, before: int) -> None:
        """Storage refused what followed action ``before`` of ``hand``: the hand goes back to
        where it was (replayed, so nothing can fail), then to storage's word on it when storage
        can give it (a commit whose answer was lost may hold the change after all)."""
        self._put_hand(Hand.replay(hand.config, hand.deck, hand.actions[:before]))
        try:
            await self.reload_hand()
        except StorageError as exc:
            log.warning("table %d: hand not reloaded (%s)", self.table_id, exc)

    async def reload_hand(self) -> None:
        """Put the hand as storage holds it back on the table."""
        assert self.hand_id is not None
        stored = await hands.load_hand(self.db, self.hand_id)
        self._put_hand(hands.rebuild_hand(stored))

    async def play_on(self) -> None:
        """After the hand changed: finish it, or time the next decision and show it. A player
        who may only fold (``_must_fold``) folds as soon as his turn comes, on any street."""
        hand = self.table.hand
        if hand is None or self.closed:
            return
        while not hand.is_over and hand.to_act is not None:
            if not self._must_fold(self.player_of(hand.to_act)):
                break
            await self.apply(hand, Action(ActionKind.FOLD, hand.to_act))
        if hand.is_over:
            await self._settle_or_retry()
            return
        if hand.run_choice_pending:
            await self._ask_runs(hand)
            return
        self._arm_clock()
        self.refresh()

    def show_result(self, settled: Settled) -> None:
        """The hand is stored as ended and the draft adopted: show the result, move on. An
        all-in run-out is shown street by street first, each held for ``runout_pause``."""
        number = self.table.hand_number
        self.last_hand.ended(Ended(settled.hand, number, settled.players, self.hand_id))
        buttons = self.last_hand.buttons()
        lines = [settled.text, *self._result_notes(settled.events)]
        self.run_vote.close()
        self.hand_id = None
        self.clock.cancel()
        labels = labels_for(self.locale)
        new = settled.new
        for street in settled.run_out:
            self.messenger.show(street, labels, new=new)
            self.messenger.pause(self.options.runout_pause)
            new = False
        self.messenger.show(settled.final, labels, new=new)
        self.messenger.post(
            "\n".join(lines), labels, view=settled.final.view if settled.image else None,
            buttons=buttons,
        )
        for event in settled.events:
            if isinstance(event, PlayerLeft):
                self.forget(int(event.player_id))
        # The pause between hands starts once players can read the result: a channel that is
        # slow (or the bot's request budget, under load) delays the next deal rather than
        # piling hands up ahead of what the channel shows.
        self.messenger.then(lambda: self.schedule_deal(self.options.next_hand_delay))
        self._settled(settled.events)

    async def pick_up(self, *, anew: bool = True) -> None:
        """Under the lock: show the table again and play on; ``anew``: on a new message, at the
        bottom of the channel where players look after a restart (the old one loses its
        buttons), else on the message they have (taken up from storage while running)."""
        hand = self.table.hand
        self.refresh(new=anew)
        if hand is None:
            self.schedule_deal(self.options.next_hand_delay)
        elif hand.is_over:
            await self._settle_or_retry()  # its last action was stored, not its result
        else:
            await self.play_on()  # re-arms the clock (or folds a player who left)

    def retire(self) -> None:
        """The table is gone: nothing more is dealt or timed, and its message says so."""
        self.closed = True
        self.clock.cancel()
        self.bot_turns.cancel()
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        self.run_vote.close()
        self.storage_wait.close()
        self.refresh()

    def refresh(self, *, new: bool = False, urgent: bool = True) -> None:
        """Show the table as it is now (on a new message with ``new``; ``urgent``: whose turn
        it is may have changed)."""
        self.messenger.show(self.message(), labels_for(self.locale), new=new, urgent=urgent)

    def say(self, text: str, *, buttons: Sequence[ButtonSpec] = ()) -> None:
        """A notice in the table's channel."""
        self.messenger.post(text, labels_for(self.locale), buttons=buttons)

    def dealt_seats(self, table: Table, banks: dict[int, float]) -> list[HandSeat]:
        """The seats a hand just drafted at ``table`` deals in, as storage records them; each
        player's time bank grows in ``banks`` (the draft's), stored with the deal."""
        hand = table.hand
        assert hand is not None
        players = [int(pid) for pid in table.hand_players]
        self.clock.banks = banks
        self.clock.refill(players)
        return [
            HandSeat(i, seat, pid, hand.config.stacks[i])
            for i, (seat, pid) in enumerate(zip(table.hand_seats, players, strict=True))
        ]

    def schedule_deal(self, delay: float) -> None:
        """Deal in ``delay`` seconds if the table can then (one deal is ever on its way)."""
        if self.closed or not self._may_deal() or self.table.hand is not None:
            return
        if self._dealer_task is not None and not self._dealer_task.done():
            return  # one is coming already
        self._dealer_task = asyncio.create_task(self._deal_later(delay),
                                                name=f"deal-{self.table_id}")

    async def deal_now(self) -> None:
        """Deal the next hand if the table can (under the lock)."""
        if self.closed or not self._may_deal() or self.table.hand is not None:
            return
        if self.messenger.blocked and self.kind.pauses_without_channel:
            return  # nobody could see it; the table is being paused
        deck = tuple(self.options.deck_factory())
        commitment = DeckCommitment.commit(deck)
        try:
            hand_id = await self._deal_hand(deck, commitment)
        except StorageUnavailable as exc:
            self.clock.banks = self.banks
            self.storage_wait.failed(exc)  # dealt when the database takes writes again
            return
        except StorageError as exc:
            self.clock.banks = self.banks
            log.warning("table %d: storage refused hand #%d (%s)", self.table_id,
                        self.table.hand_number + 1, exc)
            # The table stays exactly as it was.
            self._deal_refused()
            self.say(t("notice.deal_failed", self.locale))
            self.refresh(urgent=False)
            return
        if hand_id is None:
            return
        self.metrics.hand_dealt(self.guild_id, self.kind.name)
        hand = self.table.hand
        assert hand is not None
        log.debug("table %d: hand #%d dealt to %d players", self.table_id,
                  self.table.hand_number, len(self.table.hand_players))
        self.hand_id = hand_id
        self.commitment = commitment
        self.last_hand.clear()
        self.clock.cancel()
        letters = await self._letters(hand)
        if hand.is_over:
            # Everyone was all in at the deal (a bomb pot of whole stacks): the hand's first
            # message is its run-out's first street, never the final board and the winner.
            await self._settle_or_retry(new=True)
            self.messenger.then(lambda: self.direct.deal(letters))
            return
        self.refresh(new=True)
        # The cards go out after the table message (and the last hand's result) did.
        self.messenger.then(lambda: self.direct.deal(letters))
        await self.play_on()

    async def remember_message(self, message_id: int) -> None:
        self.stored_message_id = message_id
        try:
            await tables.set_table_message(self.db, self.table_id, message_id)
        except StorageError as exc:
            log.warning("table %d: could not store its message id (%s)", self.table_id, exc)

    def channel_lost(self) -> None:
        """The bot may no longer post in the channel: the players are told by DM where they
        stand, and a kind that pauses without its channel pauses (RULES 8: the hand in
        progress plays out)."""
        self.direct.spawn(self._without_channel())

    async def shutdown(self, drain: float = 0.0) -> None:
        """Stop (the bot is closing, or another process runs the table now; storage has
        everything). Messages already queued get ``drain`` seconds to go out."""
        self.closed = True
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        self.run_vote.close()
        self.bot_turns.cancel()
        self.storage_wait.close()
        await self.clock.close()
        if self.owns_messenger:
            await self.messenger.drain(drain)
        await self.direct.close(drain)

    async def flush(self, timeout: float) -> None:
        """Wait until what the table was asked to say went out."""
        await self.messenger.flush(timeout)

    # -- internals: dealing and settling -----------------------------------------------------

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            try:
                await self.deal_now()
            except Exception as exc:
                log_failure(log, exc, "table %d: dealing failed", self.table_id)

    async def _finish_hand(self, *, new: bool = False) -> None:
        """Record the hand that just ended and settle the table, in one step; tell everyone,
        an all-in run-out street by street first (on a new table message with ``new``)."""
        hand = self.table.hand
        assert hand is not None and hand.result is not None
        # Drawn from the table as the hand ended (settling takes the hand off it).
        scene = self.scene()
        final = self._dress(table_message(scene))
        text = result_content(scene)
        players = tuple(int(p) for p in self.table.hand_players)
        self.bot_turns.hand_over(hand, players, self.table.hand_number)
        stages = await _counted(run_out_equities, hand, self.table_id)
        run_out = tuple(self._dress(run_out_message(scene, stage)) for stage in stages or ())
        events = await self._record(hand)
        log.debug("table %d: hand #%d settled", self.table_id, self.table.hand_number)
        self.show_result(Settled(events, text, final, hand, players, run_out=run_out, new=new))

    async def _settle_or_retry(self, *, new: bool = False) -> None:
        """Settle the hand that just ended. The input that ended it is stored already (and is
        acknowledged); if storing the result fails, the table waits and settles it again (once
        the database takes writes, for its fault), so a passing failure cannot leave it stuck
        on a finished hand."""
        try:
            await self._finish_hand(new=new)
        except Exception as exc:
            log_failure(log, exc, "table %d: could not settle hand #%d", self.table_id,
                        self.table.hand_number)
            self.storage_wait.failed(exc)

    async def _letters(self, hand: Hand) -> list[HoleCardsLetter]:
        """Each player's hole cards, written in his own language (the one his client spoke
        last; the table's for a player never seen)."""
        players = [int(pid) for pid in self.table.hand_players]
        spoken = await self.services.locales([p for p in players if not is_bot(p)])
        link = f"https://discord.com/channels/{self.guild_id}/{self.channel_id}"
        return hole_card_letters(hand, players, self.table.hand_number, spoken, self.locale,
                                 link)

    # -- internals: running it twice -------------------------------------------------------

    async def _ask_runs(self, hand: Hand) -> None:
        """Ask the all-in players whether to run it twice, seeing every live hand's chances
        (once per decision); only bots asked agree at once."""
        marker = (self.table.hand_number, decision_number(hand))
        if not self.run_vote.asked(marker):
            chances = await _counted(live_equity, hand, self.table_id)
            bots = {i for i in hand.run_choice_players if is_bot(self.player_of(i))}
            self.run_vote.open(marker, bots, chances)
        if self.run_vote.everybody_agreed(hand):
            await self._decide_runs(hand, 2)
            return
        self.clock.cancel()
        self.refresh()

    async def _decide_runs(self, hand: Hand, runs: int) -> None:
        self.run_vote.close()
        await self.apply(hand, Action(ActionKind.RUN_COUNT, amount=runs))
        await self.play_on()

    # -- internals: the clock and the computer players ---------------------------------------

    def _arm_clock(self) -> None:
        """Time the decision now due (the clock starts it when the message naming the player
        goes out). A player away is acted for at once, unless every person dealt in is away:
        then the table goes at a live table's pace, not as fast as the channel takes it (a
        tournament's heads-up table of two absent players traded blinds hand after hand)."""
        hand = self.hand
        if hand is None or hand.to_act is None:
            self.clock.cancel()
            return
        pid = self.player_of(hand.to_act)
        marker = (self.table.hand_number, decision_number(hand))
        if is_bot(pid):
            self.clock.cancel()
            self.bot_turns.arm(marker)
            return
        people = {p for p in map(int, self.table.hand_players) if not is_bot(p)}
        self.clock.arm(marker, pid, hand.to_act,
                       away=self._is_away(pid) and not people <= self._away_players())

    def _bot_due(self, marker: tuple[int, int]) -> BotSeat | None:
        """The bot's seat while ``marker`` is still the decision due at an open table."""
        hand = self.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        if (self.table.hand_number, decision_number(hand)) != marker:
            return None
        pid = self.player_of(hand.to_act)
        if not is_bot(pid):
            return None
        who = tuple(int(p) for p in self.table.hand_players)
        return BotSeat(hand, hand.to_act, pid, who, self.table.hand_number)

    async def _bot_answer(self, hand: Hand, action: Action) -> None:
        try:
            await self.apply(hand, action)
        except StorageUnavailable as exc:
            self.storage_wait.failed(exc)  # the bot answers once the database takes writes
            return
        await self.play_on()

    def _on_bank_started(self, decision: Decision) -> None:
        if self.clock.decision is decision and not self.closed:
            self.refresh()

    async def _on_clock_expired(self, decision: Decision) -> None:
        # A time-out storage could not take made the table wait (its lock's ``_failed``).
        with contextlib.suppress(StorageUnavailable):
            async with self.lock:
                if self.clock.decision is not decision or self.closed:
                    return
                await self._time_out(decision)

    async def _time_out(self, decision: Decision) -> None:
        """TDA 29: check if free, else fold; twice in a row marks the player away (what that
        means is the kind's: ``TableKind.away``)."""
        hand = self.hand
        if hand is None:
            return
        pid = decision.player_id
        count = self.timeouts.get(pid, 0) + 1
        marks_away = count >= self.options.timeouts_before_sit_out and not self._is_away(pid)
        draft = self._presence(pid, away=True) if marks_away else None
        try:
            await self.apply(hand, Action(ActionKind.TIMEOUT, decision.index), draft=draft)
        except EngineError:
            log.exception("table %d: timeout refused", self.table_id)
            return
        self.timeouts[pid] = count
        if marks_away:
            self.say(t(self.kind.away_notice, self.locale, player=mention(pid)),
                     buttons=(ButtonSpec("back", t("button.back", self.locale), "success"),))
        await self.play_on()

    # -- internals: waiting for the storage ---------------------------------------------------

    def _failed(self, error: BaseException) -> None:
        """A transition of this table failed (``error`` left its lock): if the database could
        not store it, the table waits for its storage."""
        if isinstance(error, StorageUnavailable) and not self.closed:
            self.storage_wait.failed(error)

    def _stop_timers(self) -> None:
        self.clock.cancel()
        self.bot_turns.cancel()

    async def _take_up_again(self) -> None:
        """Storage takes writes again: play on from where it says the table stands (the player
        to act gets his time afresh)."""
        if self.closed:
            return
        # Nothing the table holds was stored half-way (``take_back``; a commit whose answer
        # was lost has the whole table taken up from storage instead): play on from it.
        hand = self.table.hand
        if hand is None:
            self.refresh(urgent=False)
            self.schedule_deal(self.soon)
        elif hand.is_over:
            await self._finish_hand()
        else:
            await self.play_on()

    def _reload_venue(self) -> None:
        self.services.registry.venue_stale(self.venue)

    def _tell_storage_wait(self) -> None:
        if not self.closed:
            self.say(t("notice.storage_waiting", self.locale))

    # -- internals: the channel --------------------------------------------------------------

    def _on_dms_closed(self, user_id: int) -> None:
        if not self.closed:
            self.say(t("error.dm_closed_notice", self.locale, user=mention(user_id)))

    async def _without_channel(self) -> None:
        async with self.lock:
            if self.closed:
                return
            if self.kind.pauses_without_channel:
                await self._hold_play()
            players = [int(seat.player_id) for seat in self.table.seats()]
        spoken = await self.services.locales(players)
        for pid in players:
            locale = resolve_locale(spoken.get(pid, self.locale))
            self.direct.notify(pid, t(self.kind.channel_lost_notice, locale,
                                      channel=f"<#{self.channel_id}>"))


async def _counted(count: Callable[[Hand], _T], hand: Hand, table_id: int) -> _T | None:
    """All-in chances, counted off the event loop (the table's lock keeps the hand still
    meanwhile); None when counting fails, which costs the players the figures, not the hand."""
    try:
        return await asyncio.to_thread(count, hand)
    except Exception:
        log.exception("table %d: could not count the all-in chances", table_id)
        return None


__all__ = [
    "OWNER_API",
    "SOON",
    "CardsView",
    "LiveTable",
    "Settled",
    "TableServices",
]

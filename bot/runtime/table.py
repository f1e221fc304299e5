"""One live table's hand loop, whoever owns the table: written once, for every kind of table.

A :class:`LiveTable` owns the hand being played at one table: the deal, every decision and
pre-selection, the decision clock and time bank, time-outs, the all-in run-out street by street
with each hand's chances, the result and its retry, the table message, the hole cards by DM and
reposts. Every input runs under the table's lock (a tournament's tables share the tournament's),
so no two ever interleave, and each goes **draft → store → adopt**: the engine changes a draft
(refusing bad input before anything changes), storage takes the change in one transaction, and
only then does the draft become the table and is anybody told.

Its owners are the kinds of table (:class:`~bot.runtime.cash.CashTable`,
:class:`~bot.runtime.tourney.TournamentTable`). As python-chess's board writes ``push`` once and
its variants override a few hooks, an owner fills in the hooks below and never copies the loop:

===========================  =========================================================
hook                         what the owner says
===========================  =========================================================
``table``, ``names``,        its engine table, the names, language and time banks as
``locale``, ``banks``        stored
``_voice()``                 the messenger of its channel
``_is_away`` / ``_presence`` who is away, and the draft that marks a player away or back
``_store_actions``           how a decision is stored (with a draft, in one transaction)
``_put_hand``                the hand as storage holds it, after a failed store
``_may_deal``/``_deal_hand`` whether it deals, and the deal itself (draft, store, adopt)
``_record``                  the result of a hand that ended (draft, store, adopt)
``_result_notes``            what it adds under a result (busts, eliminations)
``_settled``                 what happens once a result is shown (a tournament moves on)
``_dress``                   what heads its table message (a tournament's level)
===========================  =========================================================

What differs between the kinds is declared once, in each kind's :class:`TableKind`, as PokerKit
declares its ``Mode``: the home-game extras it allows, what "away" means there, and what happens
when the bot loses its channel. The buttons, the commands and ``docs/architecture.md`` read it.
A computer player (an id from :mod:`engine.bots.ids`) sits and acts through the same path as a
person: when its turn comes the loop asks its decision function (:mod:`engine.bots`) for an
answer, from what that seat may see alone (:func:`engine.bots.view.view_of`), off the event loop
and after a short, human-like pause; the answer is applied and stored like a click. A bot has
no clock (it never times out and never holds the table up), gets no DM, and agrees to run it
twice. A new game brings its rules in the engine's hand and reuses this loop unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import discord

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.logs import TaggedLock
from bot.metrics import NO_METRICS, Metrics
from bot.presenter import (
    ButtonSpec,
    RunVote,
    Scene,
    TableMessage,
    ack_for,
    cards_text,
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
from bot.settings import shard_of
from bot.storage import Database, StorageError, hands, tables
from bot.storage.hands import HandSeat
from engine.bots.ids import bot_level, is_bot
from engine.bots.view import FOLD, Bot, to_action, view_of
from engine.cards import Card
from engine.commitment import DeckCommitment
from engine.equity import RunOutStage, run_out_equities
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Event, Hand, PreAction
from engine.rabbit import rabbit_hunt
from engine.table import PlayerLeft, Table, TableEvent

log = logging.getLogger(__name__)
_T = TypeVar("_T")
D = TypeVar("D")

# A new arrival or a returning player should not wait the whole pause between hands.
SOON = 1.0


class Extra(StrEnum):
    """The home game's extras: what a kind of table may allow beyond the hand itself."""

    RUN_TWICE = "run_twice"
    RABBIT = "rabbit"
    STRADDLE = "straddle"
    BOMB = "bomb"
    SIT_OUT = "sit_out"
    LEDGER = "ledger"
    BOTS = "bots"  # a host seats computer players (a tournament seats them at its creation)


@dataclass(frozen=True, slots=True)
class TableKind:
    """What differs between two kinds of table, declared where code and docs can read it.

    - ``extras``: the home-game extras played there (the rest are refused, each with its own
      reason from ``refusals``, or ``refused`` by default);
    - ``away``: what a player who timed out twice becomes: ``sat out`` (no longer dealt in
      until he comes back) or ``blinded off`` (dealt in, the clock acting for him at once);
    - ``pauses_without_channel``: whether losing the channel pauses the table (a cash table
      waits for its host), or play goes on and the players are told by DM (a tournament's
      clock waits for nobody);
    - ``away_notice``: the catalog key that tells the channel a player is away;
    - ``channel_lost_notice``: the catalog key that tells each player by DM the bot lost the
      table's channel (and what happens now).

    Everything else — the hand, the clock, the run-out, the buttons, the DMs — is the same.
    """

    name: str
    extras: frozenset[Extra]
    away: str
    pauses_without_channel: bool
    away_notice: str
    channel_lost_notice: str
    refused: str = "tournament_rules"
    refusals: Mapping[Extra, str] = field(default_factory=dict)

    def allows(self, extra: Extra) -> bool:
        return extra in self.extras

    def require(self, extra: Extra) -> None:
        """Refuse ``extra`` here with its reason, unless this kind plays it."""
        if extra not in self.extras:
            raise BotError(self.refusals.get(extra, self.refused))


CASH = TableKind(
    name="cash",
    extras=frozenset(Extra),
    away="sat out",
    pauses_without_channel=True,
    away_notice="notice.timed_out",
    channel_lost_notice="notice.channel_lost",
)
TOURNAMENT = TableKind(
    name="tournament",
    extras=frozenset(),
    away="blinded off",
    pauses_without_channel=False,
    away_notice="tournament.away",
    channel_lost_notice="notice.channel_lost_playing",
    refusals={
        Extra.SIT_OUT: "tournament_no_sitout",
        Extra.LEDGER: "tournament_no_ledger",
        Extra.BOTS: "tournament_no_bots",
    },
)
PRACTICE = TableKind(
    name="practice",
    extras=frozenset(Extra) - {Extra.LEDGER},
    away="sat out",
    pauses_without_channel=True,
    away_notice="notice.timed_out",
    channel_lost_notice="notice.channel_lost",
    refusals={Extra.LEDGER: "practice_no_ledger"},
)
TABLE_KINDS = (CASH, PRACTICE, TOURNAMENT)


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


class TableRegistry(Protocol):
    """Where live tables are found (``bot.runtime.registry.Registry``)."""

    def add_table(self, table: LiveTable[Any]) -> None: ...

    def drop_table(self, table: LiveTable[Any]) -> None: ...

    def venue_over(self, venue: Any) -> None: ...


@dataclass(frozen=True, slots=True)
class CardsView:
    """A player's own cards, for the private "My cards" reply."""

    text: str
    hand: Hand
    index: int
    caption: str


@dataclass(frozen=True, slots=True)
class _Ended:
    """The hand that just ended, until the next deal: its winner may show (if nobody called),
    and its players may hunt the rabbit (if it ended before the river, once)."""

    hand: Hand
    number: int
    players: tuple[int, ...]
    hand_id: int | None


@dataclass(slots=True)
class _RunVoting:
    """The all-in players deciding how many times to run the board."""

    marker: tuple[int, int]  # (hand, decision) the question was asked at
    deadline: int  # Unix seconds
    agreed: set[int]  # player indices who said twice
    task: asyncio.Task[None]
    chances: RunOutStage | None = None

    def view(self) -> RunVote:
        return RunVote(frozenset(self.agreed), self.deadline, self.chances)

    def cancel(self) -> None:
        self.task.cancel()


class LiveTable(Generic[D]):
    """The hand loop of one live table; ``D`` is its owner's draft (what a change is made on
    before storage agrees)."""

    kind: ClassVar[TableKind]

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
        # Every log line written while the table's lock is held names the table and hand.
        self.lock = TaggedLock(lock, self._log_fields)
        self.hand_id = hand_id
        self.commitment = commitment
        self.stored_message_id = message_id
        self.closed = False
        # Consecutive timeouts and double-click windows by player: a tournament shares them
        # between its tables, since its players move.
        self.timeouts: dict[int, int] = timeouts if timeouts is not None else {}
        self.clicks = clicks if clicks is not None else Clicks()
        self._ended: _Ended | None = None
        self._rabbit_shown = False
        self._vote: _RunVoting | None = None
        self._reposts: dict[int, float] = {}
        self._dealer_task: asyncio.Task[None] | None = None
        self._bot_turn: tuple[tuple[int, int], asyncio.Task[None]] | None = None
        self._bots: dict[int, Bot] = {}
        self.clock = DecisionClock(
            services.options, banks, self._on_clock_expired, self._on_bank_started,
            name=clock_name,
        )
        self.clock.timer = float(timer)
        self.messenger = self._voice()
        self.clock.queued = self.messenger.prompt_queued
        self.direct = DirectMessages(
            services.client, table_id, self._on_dms_closed, channels=services.dm_channels,
        )

    # -- hooks: what each kind of table fills in ----------------------------------------------

    @property
    def table(self) -> Table:
        raise NotImplementedError

    @property
    def names(self) -> dict[int, str]:
        """Display names by user id, as last seen (kept in what the owner stores)."""
        raise NotImplementedError

    @property
    def locale(self) -> str | None:
        raise NotImplementedError

    @property
    def banks(self) -> dict[int, float]:
        """The time banks as stored."""
        raise NotImplementedError

    @property
    def venue(self) -> Any:
        """What owns the table and is restored with its server's lease: the cash table
        itself, or its tournament."""
        raise NotImplementedError

    @property
    def dealing(self) -> bool:
        return True

    @property
    def event_name(self) -> str | None:
        """The event its hand histories name (a tournament's)."""
        return None

    def _voice(self) -> TableMessenger:
        raise NotImplementedError

    def _is_away(self, player_id: int) -> bool:
        raise NotImplementedError

    def _away_players(self) -> frozenset[int]:
        raise NotImplementedError

    def _presence(self, player_id: int, *, away: bool) -> D | None:
        """A draft in which the player is away (or back), stored with the decision that
        changes it; None when nothing needs storing."""
        raise NotImplementedError

    async def _store_actions(self, before: int, logged: Sequence[Any], draft: D | None) -> None:
        """Store what the hand logged from action ``before`` on (with ``draft``, in the same
        transaction, then adopt it)."""
        raise NotImplementedError

    def _put_hand(self, hand: Hand) -> None:
        """Put the hand as storage holds it back on the table."""
        raise NotImplementedError

    def _may_deal(self) -> bool:
        raise NotImplementedError

    async def _deal_hand(self, deck: tuple[Card, ...], commitment: DeckCommitment) -> int | None:
        """Deal the next hand on a draft, store it, adopt it: the stored hand's id, or None when
        no hand is dealt now (the owner says why). A ``StorageError`` changes nothing."""
        raise NotImplementedError

    async def _record(self, hand: Hand) -> Sequence[TableEvent]:
        """Store the result of ``hand`` with the table's new state, adopt it: what it did."""
        raise NotImplementedError

    def _result_notes(self, events: Sequence[TableEvent]) -> list[str]:
        return []

    def _settled(self, events: Sequence[TableEvent]) -> None:
        """The result is stored and shown."""

    def _dress(self, message: TableMessage) -> TableMessage:
        return message

    def _check_may_act(self, user_id: int, *, folding: bool) -> None:
        """Refuse a player's input the owner forbids (a cash table's player who left)."""

    def _deal_refused(self) -> None:
        """Storage refused the deal (the table is as it was)."""

    async def sit_in(self, user_id: int) -> None:
        """A player who is away comes back ("Back", ``/poker sitin``)."""
        raise NotImplementedError

    async def _hold_play(self) -> None:
        """Stop dealing until the host resumes (kinds that pause without their channel)."""

    def _log_fields(self) -> dict[str, int | None]:
        number = self.table.hand_number
        shard = shard_of(self.guild_id, self.services.client.shard_count)
        return {"table": self.table_id, "hand": number or None, "shard": shard}

    # -- queries (no lock: read synchronously, so always consistent) -------------------------

    @property
    def message_id(self) -> int | None:
        return self.messenger.message_id

    @property
    def hand(self) -> Hand | None:
        """The hand being played (None between hands and once the table is closed)."""
        return live_hand(self.table) if not self.closed else None

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
    def _soon(self) -> float:
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
            run_vote=self._vote.view() if self._vote is not None else None,
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

    # -- start and stop ----------------------------------------------------------------------

    async def _resume(self) -> None:
        """Under the lock: show the table again (at the bottom of the channel, where players
        look after a restart; the old message loses its buttons) and play on."""
        hand = self.table.hand
        self._refresh(new=True)
        if hand is None:
            self.schedule_deal(self.options.next_hand_delay)
        elif hand.is_over:
            await self._settle_or_retry()  # its last action was stored, not its result
        else:
            await self._after_change()  # re-arms the clock (or folds a player who left)

    async def shutdown(self, drain: float = 0.0) -> None:
        """Stop (the bot is closing, or another process runs the table now; storage has
        everything). Messages already queued get ``drain`` seconds to go out."""
        self.closed = True
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        if self._vote is not None:
            self._vote.cancel()
        self._stop_bot()
        await self.clock.close()
        await self._quiet(drain)
        await self.direct.close(drain)

    async def flush(self, timeout: float) -> None:
        """Wait until what the table was asked to say went out."""
        await self.messenger.flush(timeout)

    async def _quiet(self, drain: float) -> None:
        await self.messenger.drain(drain)

    def _retire(self) -> None:
        """The table is gone: nothing more is dealt or timed, and its message says so."""
        self.closed = True
        self.clock.cancel()
        self._stop_bot()
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        if self._vote is not None:
            self._vote.cancel()
            self._vote = None
        self._refresh()

    # -- a player's input --------------------------------------------------------------------

    async def act(
        self,
        user_id: int,
        kind: ActionKind,
        amount: int | None = None,
        *,
        ref: tuple[int, int] | None = None,
    ) -> ActionTaken:
        """Play for ``user_id``; the action taken (stored before this returns). ``ref`` is the
        (hand, decision) a button was drawn for: a press for another one is refused."""
        async with self.lock:
            hand, index = self._seat_in_hand(user_id, ref)
            check_decision(hand, ref)
            self._check_may_act(user_id, folding=kind is ActionKind.FOLD)
            kind = all_in_meaning(hand, index, kind)
            # A player marked away who acts himself is back, stored with his action.
            draft = self._presence(user_id, away=False) if self._is_away(user_id) else None
            events = await self._apply(hand, Action(kind, index, amount), draft=draft)
            # Stored: charge the reserve he used; his timeouts in a row are over.
            self.clock.spend(user_id)
            self._forget(user_id)
            taken = ack_for(events, index)
            await self._after_change()
            if taken is None:  # pragma: no cover - every accepted decision emits its action
                raise BotError("illegal_action")
            return taken

    async def preselect(
        self, user_id: int, pre: PreAction, *, hand_number: int | None = None
    ) -> PreAction:
        """Choose (or, chosen again, cancel) an action for when his turn comes; the choice."""
        async with self.lock:
            ref = None if hand_number is None else (hand_number, 0)
            hand, index = self._seat_in_hand(user_id, ref)
            self._check_may_act(user_id, folding=False)
            chosen = preselection(hand, index, pre, self.clicks, user_id)
            if chosen is None:
                return preselected(hand, index)
            await self._apply(hand, Action(ActionKind.PRESELECT, index, pre=chosen))
            return chosen

    async def show_cards(self, user_id: int, *, hand_number: int | None = None) -> None:
        """The winner of a hand nobody contested turns his cards up (RULES 6), until the next
        deal. Cosmetic: the chips are settled and stored already."""
        async with self.lock:
            ended = self._ended
            result = ended.hand.result if ended is not None else None
            if (
                ended is None
                or result is None
                or result.showdown
                or result.voided
                or (hand_number is not None and hand_number != ended.number)
                or user_id not in ended.players
            ):
                raise BotError("nothing_to_show")
            index = ended.players.index(user_id)
            ended.hand.show(index)  # EngineError unless he won it without a showdown
            self._post(t("result.shows", self.locale, player=mention(user_id),
                         cards=cards_text(ended.hand.hole_cards(index))))

    async def hunt_rabbit(self, user_id: int, hand_number: int | None) -> None:
        """Show the board that would have come in the hand that just ended before the river:
        to the channel, once, at the request of a player who was dealt in."""
        async with self.lock:
            self.kind.require(Extra.RABBIT)
            ended = self._ended
            result = ended.hand.result if ended is not None else None
            if (
                ended is None
                or result is None
                or result.voided
                or ended.hand_id is None
                or len(ended.hand.board) >= 5
                or (hand_number is not None and hand_number != ended.number)
            ):
                raise BotError("nothing_to_hunt")
            if user_id not in ended.players:
                raise BotError("not_in_that_hand")
            if self._rabbit_shown:
                raise BotError("rabbit_shown")
            hunt = rabbit_hunt(ended.hand)
            # Verifying the hand opens these positions too from now on.
            await hands.note_rabbit(self.db, ended.hand_id)
            self._rabbit_shown = True
            self._post(t("result.rabbit", self.locale, player=mention(user_id),
                         hand=ended.number, cards=cards_text(hunt.cards)))

    async def vote_runs(self, user_id: int, twice: bool, ref: tuple[int, int] | None) -> bool:
        """An all-in player's answer to "run it twice?"; True once the board's runs are
        decided (anybody saying once decides at once; twice needs everybody)."""
        async with self.lock:
            self.kind.require(Extra.RUN_TWICE)
            hand, index = self._seat_in_hand(user_id, ref)
            vote = self._vote
            if not hand.run_choice_pending or vote is None:
                raise BotError("no_run_vote")
            if ref is not None and ref[1] != decision_number(hand):
                raise BotError("already_acted")
            if index not in hand.run_choice_players:
                raise BotError("not_in_run_vote")
            if index in vote.agreed:
                raise BotError("already_voted")
            if not twice:
                await self._decide_runs(hand, 1)
                return True
            vote.agreed.add(index)
            if set(hand.run_choice_players) <= vote.agreed:
                await self._decide_runs(hand, 2)
                return True
            self._refresh()
            return False

    async def repost(self, user_id: int) -> bool:
        """Post the table message again (it may have scrolled away); False when one is on its
        way already. A member may ask once per ``repost_cooldown``."""
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

    # -- internals: applying input -----------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise BotError("table_closed")

    def _seat_in_hand(self, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
        self._check_open()
        return seat_in_hand(self.table, user_id, ref)

    def _forget(self, user_id: int) -> None:
        self.timeouts.pop(user_id, None)
        self.clicks.forget(user_id)

    async def _apply(self, hand: Hand, action: Action, *, draft: D | None = None) -> list[Event]:
        """Apply one input and store what the hand logged (with ``draft``, the owner's new
        state too, in the same transaction), before anyone is told."""
        before = len(hand.actions)
        events = hand.apply(action)  # an EngineError here changed nothing
        logged = hand.actions[before:]
        if logged or draft is not None:
            try:
                await self._store_actions(before, logged, draft)
            except BaseException:
                # The engine moved on but storage did not: go back to what storage holds.
                log.exception("table %d: action not stored; reloading the hand", self.table_id)
                await self._reload_hand()
                raise
        self.metrics.action(self.guild_id, action.kind.value)
        return events

    async def _reload_hand(self) -> None:
        assert self.hand_id is not None
        stored = await hands.load_hand(self.db, self.hand_id)
        self._put_hand(hands.rebuild_hand(stored))

    async def _after_change(self) -> None:
        """After the hand changed: finish it, or time the next decision and show it. A player
        who left the table folds as soon as his turn comes, on whatever street."""
        hand = self.table.hand
        if hand is None or self.closed:
            return
        while not hand.is_over and hand.to_act is not None:
            seat = self.table.player(self.player_of(hand.to_act))
            if seat is None or seat.leaving != "left":
                break
            await self._apply(hand, Action(ActionKind.FOLD, hand.to_act))
        if hand.is_over:
            await self._settle_or_retry()
            return
        if hand.run_choice_pending:
            await self._open_run_vote(hand)
            vote = self._vote
            if vote is not None and set(hand.run_choice_players) <= vote.agreed:
                await self._decide_runs(hand, 2)  # only bots were asked
                return
            self.clock.cancel()
            self._refresh()
            return
        self._arm_clock()
        self._refresh()

    # -- internals: running it twice -------------------------------------------------------

    async def _open_run_vote(self, hand: Hand) -> None:
        """Ask the all-in players whether to run it twice; nobody answering means once. They
        decide seeing every live hand's chances."""
        marker = (self.table.hand_number, decision_number(hand))
        if self._vote is not None and self._vote.marker == marker:
            return
        if self._vote is not None:
            self._vote.cancel()
        chances = await _counted(live_equity, hand, self.table_id)
        seconds = self.options.run_twice_vote
        deadline = int(time.time() + seconds)
        task = asyncio.create_task(self._run_vote_expires(marker, seconds),
                                   name=f"run-vote-{self.table_id}")
        # A bot agrees at once: two runs change nobody's expectation, only the swings.
        bots = {i for i in hand.run_choice_players if is_bot(self.player_of(i))}
        self._vote = _RunVoting(marker, deadline, bots, task, chances)

    async def _run_vote_expires(self, marker: tuple[int, int], seconds: float) -> None:
        await asyncio.sleep(seconds)
        async with self.lock:
            hand = self.hand
            vote = self._vote
            if hand is None or vote is None or vote.marker != marker or self.closed:
                return
            if not hand.run_choice_pending:
                return
            try:
                await self._decide_runs(hand, 1, expired=True)
            except Exception:
                log.exception("table %d: could not run the board once", self.table_id)

    async def _decide_runs(self, hand: Hand, runs: int, *, expired: bool = False) -> None:
        vote, self._vote = self._vote, None
        if vote is not None and not expired:
            vote.cancel()
        await self._apply(hand, Action(ActionKind.RUN_COUNT, amount=runs))
        await self._after_change()

    # -- internals: dealing and settling -----------------------------------------------------

    def schedule_deal(self, delay: float) -> None:
        if self.closed or not self._may_deal() or self.table.hand is not None:
            return
        if self._dealer_task is not None and not self._dealer_task.done():
            return  # one is coming already
        self._dealer_task = asyncio.create_task(self._deal_later(delay),
                                                name=f"deal-{self.table_id}")

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            try:
                await self._deal()
            except Exception:
                log.exception("table %d: dealing failed", self.table_id)

    def _dealt_seats(self, table: Table, banks: dict[int, float]) -> list[HandSeat]:
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

    async def _deal(self) -> None:
        """Deal the next hand if the table can (under the lock)."""
        if self.closed or not self._may_deal() or self.table.hand is not None:
            return
        if self.messenger.blocked and self.kind.pauses_without_channel:
            return  # nobody could see it; the table is being paused
        deck = tuple(self.options.deck_factory())
        commitment = DeckCommitment.commit(deck)
        try:
            hand_id = await self._deal_hand(deck, commitment)
        except StorageError:
            self.clock.banks = self.banks
            log.exception("table %d: storage refused hand #%d", self.table_id,
                          self.table.hand_number + 1)
            # The table stays exactly as it was.
            self._deal_refused()
            self._post(t("notice.deal_failed", self.locale))
            self._refresh(urgent=False)
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
        self._ended = None
        self.clock.cancel()
        letters = await self._letters(hand)
        if hand.is_over:
            # Everyone was all in at the deal (a bomb pot of whole stacks): the hand's first
            # message is its run-out's first street, never the final board and the winner.
            await self._settle_or_retry(new=True)
            self.messenger.then(lambda: self.direct.deal(letters))
            return
        self._refresh(new=True)
        # The cards go out after the table message (and the last hand's result) did.
        self.messenger.then(lambda: self.direct.deal(letters))
        await self._after_change()

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
        stages = await _counted(run_out_equities, hand, self.table_id)
        run_out = tuple(self._dress(run_out_message(scene, stage)) for stage in stages or ())
        events = await self._record(hand)
        log.debug("table %d: hand #%d settled", self.table_id, self.table.hand_number)
        self._after_settle(events, text, final, hand, players, run_out=run_out, new=new)

    def _after_settle(
        self,
        events: Sequence[TableEvent],
        result_text: str,
        final: TableMessage,
        ended: Hand,
        players: tuple[int, ...],
        *,
        image: bool = True,
        run_out: Sequence[TableMessage] = (),
        new: bool = False,
    ) -> None:
        """The hand is stored as ended and the draft adopted: show the result, move on. An
        all-in run-out is shown street by street first, each held for ``runout_pause``."""
        buttons: tuple[ButtonSpec, ...] = ()
        number = self.table.hand_number
        self._ended = _Ended(ended, number, players, self.hand_id)
        self._rabbit_shown = False
        result = ended.result
        if result is not None and not (result.showdown or result.voided):
            buttons = (ButtonSpec("show", t("button.show", self.locale), ref=(number, 0)),)
        if (
            self.kind.allows(Extra.RABBIT)
            and result is not None
            and not result.voided
            and len(ended.board) < 5
            and self.hand_id is not None
        ):
            buttons += (ButtonSpec("rabbit", t("button.rabbit", self.locale), ref=(number, 0)),)
        lines = [result_text, *self._result_notes(events)]
        if self._vote is not None:
            self._vote.cancel()
            self._vote = None
        self.hand_id = None
        self.clock.cancel()
        labels = labels_for(self.locale)
        for street in run_out:
            self.messenger.show(street, labels, new=new)
            self.messenger.pause(self.options.runout_pause)
            new = False
        self.messenger.show(final, labels, new=new)
        self.messenger.post(
            "\n".join(lines), labels, view=final.view if image else None, buttons=buttons
        )
        for event in events:
            if isinstance(event, PlayerLeft):
                self._forget(int(event.player_id))
        # The pause between hands starts once players can read the result: a channel that is
        # slow (or the bot's request budget, under load) delays the next deal rather than
        # piling hands up ahead of what the channel shows.
        self.messenger.then(lambda: self.schedule_deal(self.options.next_hand_delay))
        self._settled(events)

    async def _settle_or_retry(self, *, new: bool = False) -> None:
        """Settle the hand that just ended. The input that ended it is stored already (and is
        acknowledged); if storing the result fails, it is tried again until it succeeds, so a
        passing storage failure cannot leave the table stuck on a finished hand."""
        try:
            await self._finish_hand(new=new)
        except Exception:
            log.exception("table %d: could not settle hand #%d; trying again", self.table_id,
                          self.table.hand_number)
            self.direct.spawn(self._retry_settle(self.table.hand_number))

    async def _retry_settle(self, number: int) -> None:
        delay = 1.0
        while not self.closed:
            await asyncio.sleep(delay)
            async with self.lock:
                hand = self.table.hand
                if self.closed or hand is None or not hand.is_over or (
                    self.table.hand_number != number
                ):
                    return
                try:
                    await self._finish_hand()
                    return
                except Exception:
                    log.exception("table %d: settling hand #%d failed again", self.table_id,
                                  number)
            delay = min(delay * 2, 60.0)

    async def _letters(self, hand: Hand) -> list[HoleCardsLetter]:
        """Each player's hole cards, written in his own language (the one his client spoke
        last; the table's for a player never seen)."""
        players = [int(pid) for pid in self.table.hand_players]
        spoken = await self.services.locales([p for p in players if not is_bot(p)])
        link = f"https://discord.com/channels/{self.guild_id}/{self.channel_id}"
        return hole_card_letters(hand, players, self.table.hand_number, spoken, self.locale,
                                 link)

    # -- internals: the clock ----------------------------------------------------------------

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
            self._start_bot(marker)
            return
        people = {p for p in map(int, self.table.hand_players) if not is_bot(p)}
        self.clock.arm(marker, pid, hand.to_act,
                       away=self._is_away(pid) and not people <= self._away_players())

    # -- internals: computer players ----------------------------------------------------------

    def _start_bot(self, marker: tuple[int, int]) -> None:
        """Let the bot whose turn it is answer, once, after a human-like pause."""
        if self._bot_turn is not None:
            old = self._bot_turn[1]
            if self._bot_turn[0] == marker and not old.done():
                return
            if old is not asyncio.current_task():  # a bot's answer may set up the next turn
                old.cancel()
        low, high = self.options.bot_pause
        task = asyncio.create_task(self._play_bot(marker, self.rng.uniform(low, high)),
                                   name=f"bot-{self.table_id}")
        self._bot_turn = (marker, task)

    def _stop_bot(self) -> None:
        if self._bot_turn is not None:
            self._bot_turn[1].cancel()
            self._bot_turn = None

    def _bot(self, player_id: int) -> Bot:
        bot = self._bots.get(player_id)
        if bot is None:
            from engine import bots  # the levels load their tables on first use

            bot = self._bots[player_id] = bots.make(bot_level(player_id))
        return bot

    def _bot_spot(self, marker: tuple[int, int]) -> tuple[Hand, int] | None:
        """The hand and the bot's index while ``marker`` is still the decision due."""
        hand = self.hand
        if hand is None or hand.is_over or hand.to_act is None:
            return None
        if (self.table.hand_number, decision_number(hand)) != marker:
            return None
        if not is_bot(self.player_of(hand.to_act)):
            return None
        return hand, hand.to_act

    async def _play_bot(self, marker: tuple[int, int], pause: float) -> None:
        await asyncio.sleep(pause)
        async with self.lock:
            spot = self._bot_spot(marker)
            if spot is None or self.closed:
                return
            index = spot[1]
            view = view_of(spot[0], index)
            bot = self._bot(self.player_of(index))
            seed = self.rng.getrandbits(64)
        # Deciding reads the view alone, so it runs off the loop without the lock.
        try:
            decision = await asyncio.to_thread(bot.decide, view, random.Random(seed))
            action = to_action(decision, view)
        except Exception:
            log.exception("table %d: a bot could not decide; it folds", self.table_id)
            action = to_action(FOLD, view)
        async with self.lock:
            spot = self._bot_spot(marker)
            if self.closed or spot is None:
                return
            hand = spot[0]
            try:
                try:
                    await self._apply(hand, action)
                except EngineError:
                    log.exception("table %d: a bot's answer was refused; it folds",
                                  self.table_id)
                    await self._apply(hand, to_action(FOLD, view))
            except Exception:
                # Storage holds the hand as it was: the bot answers again a little later.
                log.exception("table %d: a bot's answer was not stored", self.table_id)
                self._bot_turn = None
                self.direct.spawn(self._bot_again(marker))
                return
            await self._after_change()

    async def _bot_again(self, marker: tuple[int, int]) -> None:
        await asyncio.sleep(1.0)
        async with self.lock:
            if not self.closed and self._bot_spot(marker) is not None:
                self._start_bot(marker)

    def _on_bank_started(self, decision: Decision) -> None:
        if self.clock.decision is decision and not self.closed:
            self._refresh()

    async def _on_clock_expired(self, decision: Decision) -> None:
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
            await self._apply(hand, Action(ActionKind.TIMEOUT, decision.index), draft=draft)
        except EngineError:
            log.exception("table %d: timeout refused", self.table_id)
            return
        self.timeouts[pid] = count
        if marks_away:
            self._post(t(self.kind.away_notice, self.locale, player=mention(pid)),
                       buttons=(ButtonSpec("back", t("button.back", self.locale), "success"),))
        await self._after_change()

    # -- internals: output -------------------------------------------------------------------

    async def remember_message(self, message_id: int) -> None:
        self.stored_message_id = message_id
        try:
            await tables.set_table_message(self.db, self.table_id, message_id)
        except StorageError:
            log.exception("table %d: could not store its message id", self.table_id)

    def _refresh(self, *, new: bool = False, urgent: bool = True) -> None:
        self.messenger.show(self.message(), labels_for(self.locale), new=new, urgent=urgent)

    def _post(self, text: str, *, buttons: Sequence[ButtonSpec] = ()) -> None:
        self.messenger.post(text, labels_for(self.locale), buttons=buttons)

    def _on_dms_closed(self, user_id: int) -> None:
        if not self.closed:
            self._post(t("error.dm_closed_notice", self.locale, user=mention(user_id)))

    def channel_lost(self) -> None:
        """The bot may no longer post in the channel: the players are told by DM where they
        stand, and a kind that pauses without its channel pauses (RULES 8: the hand in
        progress plays out)."""
        self.direct.spawn(self._without_channel())

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
    "CASH",
    "PRACTICE",
    "SOON",
    "TABLE_KINDS",
    "TOURNAMENT",
    "CardsView",
    "Extra",
    "LiveTable",
    "TableKind",
    "TableServices",
]

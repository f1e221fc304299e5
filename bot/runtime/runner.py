"""One live table: the sequencer every input for it goes through.

Every input — a command, a button, a modal, the clock, a host's order — runs under the table's
one ``asyncio.Lock``, so no two of them ever interleave: a double click meets the state the
first click left. Each is a transition in three steps:

1. **validate on a draft**: a copy of the engine's table and of the table's own settings is
   changed by the engine, which refuses bad input before anything changes;
2. **store in one step**: the chip move and the table's new state go to storage in a single
   transaction (``TableSave`` rides with the buy-in, the deal, the result, the void, the leave);
3. **adopt**: only once storage accepted it does the draft become the table, and only then is
   anybody told (the caller replies after the method returns).

A failure at step 1 or 2 leaves the table exactly as it was. Betting decisions change the hand
in place (copying a hand per click would be waste); if storing one fails, the hand is reloaded
from storage, which is the authority.

The runner only sequences. Around it: :class:`~bot.runtime.clock.DecisionClock` times decisions,
:class:`~bot.runtime.messenger.TableMessenger` speaks in the channel (in order, within rate
limits), :class:`~bot.runtime.direct.DirectMessages` sends hole cards and notices by DM, and
:mod:`bot.runtime.recovery` rebuilds a table after a restart. Discord I/O never happens under the
lock.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import discord

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.presenter import (
    ButtonSpec,
    RunVote,
    Scene,
    TableMessage,
    ack_for,
    cards_text,
    chips,
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
from bot.runtime.config import RuntimeOptions, TableConfig
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
from bot.runtime.recovery import RestoredTable, live_hand, settle_departures
from bot.runtime.results import player_results, result_summary
from bot.storage import Database, StorageError, hands, sessions, tables
from bot.storage.hands import HandSeat
from bot.storage.sessions import Session, SessionStart
from bot.storage.tables import TableInfo, TableSave
from engine.commitment import DeckCommitment
from engine.equity import RunOutStage, run_out_equities
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Event, Hand, PreAction, StraddleMode
from engine.rabbit import rabbit_hunt
from engine.table import (
    PlayerBusted,
    PlayerJoined,
    PlayerLeft,
    PlayerState,
    Table,
    TableEvent,
    TableOptions,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# A new arrival or a returning player should not wait the whole pause between hands.
SOON = 1.0


@dataclass(frozen=True, slots=True)
class TableServices:
    """What a table needs from the bot around it, and nothing more."""

    db: Database
    options: RuntimeOptions
    client: discord.Client
    view_factory: ViewFactory
    rng: random.Random
    on_closed: Callable[[TableRunner], None]  # the table is gone: forget it (and let its
    # last messages go out)
    # The locale each player's client was last seen with: his DMs are written in it.
    locales: Callable[[Sequence[int]], Awaitable[dict[int, str]]]
    budget: RequestBudget = field(default_factory=lambda: RequestBudget(40))
    dm_channels: DmChannels = field(default_factory=DmChannels)


@dataclass(frozen=True, slots=True)
class CardsView:
    """A player's own cards, for the private "My cards" reply."""

    text: str
    hand: Hand
    index: int
    caption: str


@dataclass(slots=True)
class _Draft:
    """The table and its settings as a transition would leave them, until storage agrees."""

    table: Table
    config: TableConfig


class TableRunner:
    """The runtime of one open table (made by :class:`~bot.runtime.manager.GameRuntime`)."""

    def __init__(
        self,
        info: TableInfo,
        config: TableConfig,
        restored: RestoredTable,
        services: TableServices,
    ) -> None:
        self.services = services
        self.db = services.db
        self.options = services.options
        self.rng = services.rng
        self.table_id = info.table_id
        self.guild_id = info.guild_id
        self.channel_id = info.channel_id
        self.host_id = info.host_id
        self.config = config
        self.table: Table = restored.table
        self.hand_id: int | None = restored.hand_id
        self.commitment: DeckCommitment | None = restored.commitment
        self.lock = asyncio.Lock()
        self.away: set[int] = set()
        self.timeouts: dict[int, int] = {}
        self.closed = False
        self.empty_since: float | None = None  # monotonic time the last player stood up
        # The hand just won without a showdown, until the next deal: its winner may show.
        self._uncontested: tuple[Hand, int, tuple[int, ...]] | None = None
        # The hand just ended before the river, until the next deal: its players may hunt
        # the rabbit (once).
        self._rabbit: _Rabbit | None = None
        # The all-in players of the running hand deciding whether to run it twice.
        self._vote: _RunVoting | None = None
        self.clicks = Clicks()  # toggles pressed to effect (a double click acts once)
        self._reposts: dict[int, float] = {}
        self._dealer_task: asyncio.Task[None] | None = None
        self._restored = restored
        self.clock = DecisionClock(
            services.options,
            config.banks,
            self._on_clock_expired,
            self._on_bank_started,
            name=f"clock-{self.table_id}",
        )
        self.clock.timer = float(config.timer)
        self.messenger = TableMessenger(
            services.client,
            self.table_id,
            self.channel_id,
            services.options,
            services.view_factory,
            self._remember_message,
            message_id=info.message_id,
            on_prompt=self.clock.shown,
            on_forbidden=self._on_channel_lost,
            budget=services.budget,
        )
        self.direct = DirectMessages(
            services.client,
            self.table_id,
            self._on_dms_closed,
            budget=services.budget,
            channels=services.dm_channels,
        )
        self._note_occupancy()

    # -- queries (no lock: read synchronously, so always consistent) -------------------------

    @property
    def locale(self) -> str | None:
        return self.config.locale

    @property
    def message_id(self) -> int | None:
        return self.messenger.message_id

    @property
    def hand(self) -> Hand | None:
        return live_hand(self.table)

    @property
    def decision(self) -> Decision | None:
        return self.clock.decision

    @property
    def _soon(self) -> float:
        return min(SOON, self.options.next_hand_delay)

    def player_of(self, index: int) -> int:
        return int(self.table.hand_players[index])

    def scene(self) -> Scene:
        return Scene(
            table=self.table,
            names=self.config.names,
            hand_number=self.table.hand_number,
            locale=self.locale,
            away=frozenset(self.away),
            commitment=self.commitment.root_hex if self.commitment is not None else None,
            dealing=self.config.dealing,
            closed=self.closed,
            run_vote=self._vote.view() if self._vote is not None else None,
        )

    def is_host(self, user_id: int, *, admin: bool) -> bool:
        return admin or user_id == self.host_id

    def my_cards(self, user_id: int, locale: object) -> CardsView:
        """The player's cards in the hand being played (only ever shown to him)."""
        hand = self.table.hand
        index = self.table.hand_index(user_id)
        if hand is None or index is None:
            raise BotError("no_cards")
        caption = t("cards.caption", locale, hand=self.table.hand_number)
        return CardsView(hole_cards_text(hand, index, locale), hand, index, caption)

    # -- start-up and shutdown -------------------------------------------------------------

    async def start(self) -> None:
        """Show the table (again) and pick the game up where it was."""
        async with self.lock:
            restored = self._restored
            await settle_departures(self.db, self.table_id, restored.settled)
            if restored.voided_hand is not None:
                self._post(t("notice.hand_voided_restart", self.locale, hand=restored.voided_hand))
            hand = self.table.hand
            # Posted again at the bottom of the channel, where players look after a restart;
            # the message from before loses its buttons, so nobody plays from it.
            if hand is not None and hand.is_over:
                # Its last action was stored but not its result: settle it now.
                self._refresh(new=True)
                await self._settle_or_retry()
                return
            self._refresh(new=True)
            if hand is None:
                self._schedule_deal(self.options.next_hand_delay)
            else:
                await self._after_change()  # re-arms the clock (or folds a player who left)

    async def shutdown(self, drain: float = 0.0) -> None:
        """Stop (the bot is closing; storage already has everything). Messages already queued
        get ``drain`` seconds to go out."""
        self.closed = True
        if self._dealer_task is not None:
            self._dealer_task.cancel()
        if self._vote is not None:
            self._vote.cancel()
        await self.clock.close()
        await self.messenger.drain(drain)
        await self.direct.close(drain)

    # -- players ---------------------------------------------------------------------------

    def remember(self, user_id: int, name: str) -> None:
        """Keep the display name seen last (names are drawn on the table image)."""
        if name and self.config.names.get(user_id) != name[:64]:
            self.config.names[user_id] = name[:64]

    async def join(self, user_id: int, name: str, buy_in: int, seat: int | None) -> int:
        """Sit down with ``buy_in`` chips from the wallet; the seat taken."""
        async with self.lock:
            self._check_open()
            draft = self._draft()
            if seat is None:
                free = draft.table.free_seats()
                seat = free[0] if free else None
            events = draft.table.join(user_id, buy_in, seat=seat)  # the engine's join rules
            joined = next(e for e in events if isinstance(e, PlayerJoined))
            draft.config.names[user_id] = name[:64]
            draft.config.banks.setdefault(user_id, self.options.time_bank)
            await tables.buy_in(
                self.db, self.table_id, user_id, buy_in, seat_no=joined.seat,
                save=self._save_of(draft),
            )
            self._adopt(draft)
            self._refresh(urgent=False)
            self._schedule_deal(self._soon)
            return joined.seat

    async def leave(self, user_id: int) -> int | None:
        """Stand up: the chips returned now, or None when he is in the hand being played (his
        hand is folded — now, or when his turn comes — and he leaves when it ends)."""
        async with self.lock:
            self._check_open()
            draft = self._draft()
            events = draft.table.leave(user_id)
            left = next((e for e in events if isinstance(e, PlayerLeft)), None)
            if left is not None:
                returned = await tables.leave_table(
                    self.db, self.table_id, user_id, save=self._save_of(draft)
                )
                self._adopt(draft)
                self._forget(user_id)
                self._refresh(urgent=False)
                return returned
            hand = live_hand(self.table)
            index = self.table.hand_index(user_id)
            if hand is not None and index is not None and hand.to_act == index:
                # His turn: the fold is stored with the leave, in one step.
                await self._apply(hand, Action(ActionKind.FOLD, index), draft=draft)
            else:
                # He folds when his turn comes (``_after_change``); nothing he presses before
                # can change that (``_check_not_leaving``).
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
            self._refresh(urgent=False)
            await self._after_change()
            return None

    async def kick(self, user_id: int, by: int) -> int | None:
        """A host removes a player (RULES 8: between hands). The chips returned now, or None:
        a player in the hand being played plays it out (or the clock acts for him) and is
        removed when it ends."""
        async with self.lock:
            self._check_open()
            draft = self._draft()
            events = draft.table.remove(user_id, by=by)
            left = next((e for e in events if isinstance(e, PlayerLeft)), None)
            if left is None:
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
                self._refresh(urgent=False)
                return None
            returned = await tables.leave_table(
                self.db, self.table_id, user_id, actor_id=by, save=self._save_of(draft)
            )
            self._adopt(draft)
            self._forget(user_id)
            self._refresh(urgent=False)
            return returned

    async def sit_out(self, user_id: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.sit_out(user_id))

    async def sit_in(self, user_id: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.sit_in(user_id))
            self._forget(user_id)
            self._schedule_deal(self._soon)

    async def rebuy(self, user_id: int, amount: int) -> int:
        """Add chips from the wallet between hands; the stack afterwards."""
        async with self.lock:
            self._check_open()
            seat = self.table.player(user_id)
            if seat is None:
                raise EngineError("not_seated", player=user_id)
            if seat.in_hand:
                raise BotError("rebuy_in_hand")
            draft = self._draft()
            busted = seat.stack == 0
            draft.table.top_up(user_id, amount)
            if busted and seat.state is PlayerState.SITTING_OUT:
                # Busting sat him out; the chips he brings are to play with.
                draft.table.sit_in(user_id)
            info = await tables.top_up(
                self.db, self.table_id, user_id, amount, save=self._save_of(draft)
            )
            self._adopt(draft)
            if busted:
                self._forget(user_id)
            self._refresh(urgent=False)
            self._schedule_deal(self._soon)
            return info.stack

    async def start_dealing(self, user_id: int) -> None:
        async with self.lock:
            self._check_open()
            if self.table.seat_of(user_id) is None and user_id != self.host_id:
                raise EngineError("not_seated", player=user_id)
            if self.config.dealing and self.table.hand is not None:
                raise EngineError("hand_in_progress", hand_number=self.table.hand_number)
            if not self.config.dealing:
                draft = self._draft()
                draft.config.dealing = True
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
            if not self.table.can_start():
                self._refresh(urgent=False)
                raise BotError("waiting_for_players")
            await self._deal()

    # -- decisions -------------------------------------------------------------------------

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
            self._check_not_leaving(user_id, kind is ActionKind.FOLD)
            kind = all_in_meaning(hand, index, kind)
            draft = self._back_in_draft(user_id)
            events = await self._apply(hand, Action(kind, index, amount), draft=draft)
            # Stored: charge the reserve he used, and he is no longer away (if he was).
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
            self._check_not_leaving(user_id, False)
            chosen = preselection(hand, index, pre, self.clicks, user_id)
            if chosen is None:
                return preselected(hand, index)
            await self._apply(hand, Action(ActionKind.PRESELECT, index, pre=chosen))
            return chosen

    async def show_cards(self, user_id: int, *, hand_number: int | None = None) -> None:
        """The winner of a hand nobody contested turns his cards up (RULES 6), until the next
        deal. Cosmetic: the chips are settled and stored already."""
        async with self.lock:
            shown = self._uncontested
            if shown is None or (hand_number is not None and hand_number != shown[1]):
                raise BotError("nothing_to_show")
            hand, _, players = shown
            if user_id not in players:
                raise BotError("nothing_to_show")
            index = players.index(user_id)
            hand.show(index)  # EngineError unless he won it without a showdown
            self._post(
                t(
                    "result.shows",
                    self.locale,
                    player=mention(user_id),
                    cards=cards_text(hand.hole_cards(index)),
                )
            )

    async def vote_runs(self, user_id: int, twice: bool, ref: tuple[int, int] | None) -> bool:
        """An all-in player's answer to "run it twice?"; True once the board's runs are
        decided (anybody saying once decides at once; twice needs everybody)."""
        async with self.lock:
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

    async def straddle(self, user_id: int, *, always: bool) -> bool:
        """Ask (or stop asking) to straddle the next hand, or every hand; whether he now
        asks. The straddle is posted only from the straddle seat, by a player who can."""
        async with self.lock:
            self._check_open()
            if self.table.options.straddle is StraddleMode.OFF:
                raise BotError("straddle_off")
            if self.table.player(user_id) is None:
                raise BotError("not_seated")
            draft = self._draft()
            wanted = draft.config.straddle_always if always else draft.config.straddle_once
            if self.clicks.second(user_id, "straddle_always" if always else "straddle_next"):
                return user_id in wanted
            now_asking = user_id not in wanted
            if now_asking:
                wanted.add(user_id)
            else:
                wanted.discard(user_id)
                if always:
                    draft.config.straddle_once.discard(user_id)
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
            return now_asking

    async def order_bomb(self, amount: int) -> None:
        """The host makes the next hand a bomb pot of ``amount`` (checked as the deal would)."""
        async with self.lock:
            self._check_open()
            self._check_bomb(amount)
            draft = self._draft()
            draft.config.bomb_next = amount
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)

    def _check_bomb(self, amount: int, options: TableOptions | None = None) -> None:
        check_bomb(amount, options or self.table.options)

    async def skip_next_big_blind(self, user_id: int) -> bool:
        """Sit out when the big blind comes to him (a toggle); whether he now will."""
        async with self.lock:
            self._check_open()
            if self.table.player(user_id) is None:
                raise BotError("not_seated")
            draft = self._draft()
            skip = draft.config.skip_big_blind
            will = user_id not in skip
            if will:
                skip.add(user_id)
            else:
                skip.discard(user_id)
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
            return will

    async def hunt_rabbit(self, user_id: int, hand_number: int | None) -> None:
        """Show the board that would have come in the hand that just ended before the river:
        to the channel, once, at the request of a player who was dealt in."""
        async with self.lock:
            rabbit = self._rabbit
            if rabbit is None or (hand_number is not None and hand_number != rabbit.number):
                raise BotError("nothing_to_hunt")
            if user_id not in rabbit.players:
                raise BotError("not_in_that_hand")
            if rabbit.shown:
                raise BotError("rabbit_shown")
            hunt = rabbit_hunt(rabbit.hand)
            # Verifying the hand opens these positions too from now on.
            await hands.note_rabbit(self.db, rabbit.hand_id)
            rabbit.shown = True
            self._post(
                t(
                    "result.rabbit",
                    self.locale,
                    player=mention(user_id),
                    hand=rabbit.number,
                    cards=cards_text(hunt.cards),
                )
            )

    # -- the host --------------------------------------------------------------------------

    async def pause(self, by: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.pause(by))

    async def resume(self, by: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.resume(by))
            self.messenger.unblock()
            self._schedule_deal(self._soon)

    async def change_settings(
        self,
        options: TableOptions | None,
        timer: int | None,
        bombs: tuple[int, int] | None = None,
    ) -> bool:
        """New options from the next hand (now if none is running); True if they wait.

        ``options`` were validated by the engine when they were made; storage's own limits are
        checked by saving the draft. Nothing changes unless that save succeeds. ``bombs`` is
        (every how many hands, amount) of the bomb pots that come by themselves (0: none).
        """
        async with self.lock:
            self._check_open()
            draft = self._draft()
            if timer is not None:
                draft.config.timer = timer
            if bombs is not None:
                every, amount = bombs
                if every:
                    self._check_bomb(amount, options or draft.table.options)
                draft.config.bomb_every, draft.config.bomb_amount = every, amount
            waiting = False
            if options is not None:
                draft.config.pending = options
                waiting = draft.table.hand is not None
                if not waiting:
                    self._apply_pending(draft)
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
            self.clock.timer = float(self.config.timer)
            self._refresh(urgent=False)
            return waiting

    async def set_locale(self, locale: str) -> None:
        """Speak ``locale`` in the channel from the next message on (the server changed its
        language). Stored with the table, so a restart keeps it."""
        async with self.lock:
            if self.closed or self.config.locale == locale:
                return
            draft = self._draft()
            draft.config.locale = locale
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
            self._refresh(urgent=False)

    async def void(self, by: int) -> None:
        """Call the hand off: every chip goes back to where it was when the hand began."""
        async with self.lock:
            self._check_open()
            hand = self.table.hand
            if hand is None or self.hand_id is None or hand.is_over:
                raise EngineError("no_hand")
            draft = self._draft()
            before = len(hand.actions)
            events = draft.table.void_hand(by)  # voids the hand itself, then settles the table
            final = table_message(self.scene())
            text = result_content(self.scene())
            text += "\n" + t("notice.voided_by_host", self.locale, host=mention(by))
            try:
                await hands.void_hand(
                    self.db,
                    self.hand_id,
                    reason="voided by the host",
                    actor_id=by,
                    first_seq=before,
                    actions=hand.actions[before:],
                    departures=_departures(events),
                    save=self._save_of(draft),
                )
            except BaseException:
                await self._reload_hand()
                raise
            self._adopt(draft)
            self._after_settle(events, text, final, hand, image=False)

    async def reset_ledger(self, by: int) -> tuple[Session, SessionStart]:
        """Begin a new session of the table's ledger; the session that ended and where the new
        one begins. Under the lock, so no hand ends and no chip moves between reading the old
        session and starting the new one; the channel is told, since the ledger is everyone's
        at the table."""
        async with self.lock:
            self._check_open()
            ended = await sessions.session_ledger(self.db, self.table_id)
            start = await sessions.reset_session(self.db, self.table_id, actor_id=by)
            self._post(t("notice.ledger_reset", self.locale, host=mention(by),
                         hand=start.first_hand))
            return ended, start

    async def close(self, by: int | None, *, idle: bool = False) -> dict[int, int]:
        """Close the table: a running hand is voided and every stack goes back to its wallet,
        all in one step. ``by`` None: it closed itself, nobody having sat at it for a while."""
        async with self.lock:
            self._check_open()
            hand = self.table.hand
            running = hand is not None and self.hand_id is not None and not hand.is_over
            before = len(hand.actions) if hand is not None else 0
            draft = self._draft()
            if running:
                draft.table.void_hand(by)
            assert hand is not None or not running
            try:
                returned = await hands.close_table(
                    self.db,
                    self.table_id,
                    actor_id=by,
                    hand_id=self.hand_id if running else None,
                    first_seq=before if running else None,
                    actions=hand.actions[before:] if running and hand is not None else (),
                )
            except BaseException:
                if running:
                    await self._reload_hand()
                raise
            self._adopt(draft)
            self.hand_id = None
            if idle:
                lines = [t("notice.closed_idle", self.locale)]
            else:
                lines = [t("notice.closed", self.locale, host=mention(by or self.host_id))]
            lines += [
                t(
                    "notice.closed_returned",
                    self.locale,
                    player=mention(uid),
                    amount=chips(amount, self.locale),
                )
                for uid, amount in returned.items()
            ]
            self.closed = True
            self.clock.cancel()
            if self._dealer_task is not None:
                self._dealer_task.cancel()
            self._refresh()
            self._post("\n".join(lines))
            self.messenger.then(lambda: self.direct.spawn(self._clear_message_record()))
            self.services.on_closed(self)
            return returned

    async def repost(self, user_id: int) -> bool:
        """Post the table message again (it may have scrolled away); False when one is on its
        way already. A member may ask once per ``repost_cooldown``."""
        async with self.lock:
            self._check_open()
            if self.messenger.repost_pending:
                return False
            now = time.monotonic()
            last = self._reposts.get(user_id)
            if last is not None and now - last < self.options.repost_cooldown:
                wait = int(self.options.repost_cooldown - (now - last)) + 1
                raise BotError("repost_cooldown", seconds=wait)
            self._reposts[user_id] = now
            self._refresh(new=True)
            return True

    # -- internals: applying input ---------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise BotError("table_closed")

    def _seat_in_hand(self, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
        self._check_open()
        return seat_in_hand(self.table, user_id, ref)

    def _check_not_leaving(self, user_id: int, folding: bool) -> None:
        """What a leave decided stands: the player who left may fold, nothing else."""
        seat = self.table.player(user_id)
        if seat is not None and seat.leaving == "left" and not folding:
            raise BotError("left_the_table")

    def _draft(self) -> _Draft:
        table = Table.from_json(self.table.to_json(), self.rng, hand=self.table.hand)
        return _Draft(table, self.config.copy())

    def _save_of(self, draft: _Draft) -> TableSave:
        draft.config.state = draft.table.to_json()
        low, high = draft.table.options.buy_in_range
        return TableSave(draft.config.to_json(), low, high)

    def _adopt(self, draft: _Draft) -> None:
        self.table = draft.table
        self.config = draft.config
        self.clock.banks = self.config.banks
        self._note_occupancy()

    def _note_occupancy(self) -> None:
        if self.table.seats():
            self.empty_since = None
        elif self.empty_since is None:
            self.empty_since = time.monotonic()

    async def _table_change(self, change: Callable[[_Draft], object]) -> None:
        """A change of the table alone (no chips move), under the lock: drafted, stored,
        adopted."""
        self._check_open()
        draft = self._draft()
        change(draft)
        await tables.update_table(self.db, self.table_id, self._save_of(draft))
        self._adopt(draft)
        self._refresh(urgent=False)

    async def _apply(
        self, hand: Hand, action: Action, *, draft: _Draft | None = None
    ) -> list[Event]:
        """Apply one input and store what the hand logged (with ``draft``, the table's new
        state too, in the same transaction), before anyone is told."""
        before = len(hand.actions)
        events = hand.apply(action)  # an EngineError here changed nothing
        logged = hand.actions[before:]
        save = self._save_of(draft) if draft is not None else None
        if logged or save is not None:
            assert self.hand_id is not None
            try:
                await hands.append_actions(self.db, self.hand_id, before, logged, save=save)
            except BaseException:
                # The engine moved on but storage did not: go back to what storage holds.
                log.exception("table %d: action not stored; reloading the hand", self.table_id)
                await self._reload_hand()
                raise
        if draft is not None:
            self._adopt(draft)
        return events

    async def _reload_hand(self) -> None:
        assert self.hand_id is not None
        stored = await hands.load_hand(self.db, self.hand_id)
        hand = hands.rebuild_hand(stored)
        self.table = Table.from_json(self.table.to_json(), self.rng, hand=hand)

    def _back_in_draft(self, user_id: int) -> _Draft | None:
        """A player who was sat out for timing out and acts himself is back: a draft that
        sits him in, stored with his action (None when he was not away)."""
        if user_id not in self.away:
            return None
        draft = self._draft()
        seat = draft.table.player(user_id)
        if seat is not None and seat.state is PlayerState.SITTING_OUT:
            draft.table.sit_in(user_id)
        return draft

    async def _after_change(self) -> None:
        """After the hand changed: finish it, or time the next decision and show it. A player
        who left the table folds as soon as his turn comes, on whatever street."""
        hand = self.table.hand
        if hand is None:
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
            self.clock.cancel()
            self._refresh()
            return
        self._arm_clock()
        self._refresh()

    def _sit_out_big_blinds(self, draft: _Draft) -> None:
        """Players who asked to sit out their next big blind are sat out when it comes to
        them (the blinds they miss are owed as the rules say when they come back). The first
        hand's button is drawn at the deal, so there nobody's big blind is known before."""
        skip = draft.config.skip_big_blind
        if not skip or draft.table.hand_number == 0:
            return
        for _ in range(len(skip)):
            try:
                plan = draft.table.next_plan()
            except EngineError:
                return
            seat = draft.table.seat(plan.big_blind_seat)
            if seat is None or int(seat.player_id) not in skip:
                return
            skip.discard(int(seat.player_id))
            draft.table.sit_out(seat.player_id)

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
        self._vote = _RunVoting(marker, deadline, set(), task, chances)

    async def _run_vote_expires(self, marker: tuple[int, int], seconds: float) -> None:
        await asyncio.sleep(seconds)
        async with self.lock:
            hand = live_hand(self.table)
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

    async def _settle_or_retry(self) -> None:
        """Settle the hand that just ended. The input that ended it is stored already (and is
        acknowledged); if storing the result fails, it is tried again until it succeeds, so a
        passing storage failure cannot leave the table stuck on a finished hand."""
        try:
            await self._finish_hand()
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

    # -- internals: hands ------------------------------------------------------------------

    def _apply_pending(self, draft: _Draft) -> None:
        pending = draft.config.pending
        if pending is None or draft.table.hand is not None:
            return
        data = draft.table.to_json()
        data["options"] = pending.to_json()
        draft.table = Table.from_json(data, self.rng)
        draft.config.options = pending
        draft.config.pending = None

    async def _deal(self) -> None:
        """Deal the next hand if the table can (under the lock)."""
        if self.closed or not self.config.dealing or self.table.hand is not None:
            return
        if self.messenger.blocked:
            return  # nobody could see it; the table is being paused (``_on_channel_lost``)
        draft = self._draft()
        self._apply_pending(draft)  # settings changed during the last hand start now
        self._sit_out_big_blinds(draft)
        if not draft.table.can_start():
            if self.config.pending is not None:
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
            self._refresh(urgent=False)
            return
        deck = tuple(self.options.deck_factory())
        commitment = DeckCommitment.commit(deck)
        bomb = draft.config.bomb_for(draft.table.hand_number + 1)
        straddlers = draft.config.straddle_once | draft.config.straddle_always
        try:
            draft.table.start_hand(deck, straddlers=straddlers, bomb_pot=bomb)
        except EngineError:
            if not bomb:
                raise
            # The bomb no longer fits this table (its settings changed since): deal an
            # ordinary hand, and say why.
            log.info("table %d: bomb pot of %d refused; dealing without it", self.table_id, bomb)
            draft = self._draft()
            self._apply_pending(draft)
            self._sit_out_big_blinds(draft)
            draft.config.bomb_next = 0
            self._post(t("notice.bomb_skipped", self.locale, amount=chips(bomb, self.locale)))
            draft.table.start_hand(deck, straddlers=straddlers)
        draft.config.straddle_once.clear()
        draft.config.bomb_next = 0
        hand = draft.table.hand
        plan = draft.table.plan
        assert hand is not None and plan is not None
        players = [
            HandSeat(i, seat, int(pid), hand.config.stacks[i])
            for i, (seat, pid) in enumerate(
                zip(draft.table.hand_seats, draft.table.hand_players, strict=True)
            )
        ]
        self.clock.banks = draft.config.banks
        self.clock.refill([int(pid) for pid in draft.table.hand_players])
        try:
            hand_id = await hands.start_hand(
                self.db,
                self.table_id,
                config=hand.config,
                deck=deck,
                commitment=commitment,
                players=players,
                button_seat=plan.button_seat,
                save=self._save_of(draft),
            )
        except StorageError:
            self.clock.banks = self.config.banks
            log.exception("table %d: storage refused hand #%d", self.table_id,
                          draft.table.hand_number)
            # The table stays exactly as it was; nobody is dealt again until a player asks.
            self.config.dealing = False
            self._post(t("notice.deal_failed", self.locale))
            self._refresh(urgent=False)
            return
        self._adopt(draft)
        self.hand_id = hand_id
        self.commitment = commitment
        self._uncontested = None
        self._rabbit = None
        self.clock.cancel()
        self._refresh(new=True)
        letters = await self._letters(hand)
        # The cards go out after the table message (and the last hand's result) did.
        self.messenger.then(lambda: self.direct.deal(letters))
        await self._after_change()

    async def _finish_hand(self) -> None:
        """Record the hand that just ended and settle the table, in one step; tell everyone."""
        hand = self.table.hand
        assert hand is not None and hand.result is not None
        # Drawn from the table as the hand ended (settling takes the hand off it).
        scene = self.scene()
        final = table_message(scene)
        text = result_content(scene)
        stages = await _counted(run_out_equities, hand, self.table_id)
        run_out = tuple(run_out_message(scene, stage) for stage in stages or ())
        draft = self._draft()
        events = draft.table.finish_hand()
        if self.hand_id is not None:
            await hands.record_hand_result(
                self.db,
                self.hand_id,
                result_summary(hand),
                player_results(hand),
                departures=_departures(events),
                save=self._save_of(draft),
            )
        else:  # pragma: no cover - a live hand always has its stored id
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
        self._adopt(draft)
        self._after_settle(events, text, final, hand, image=True, run_out=run_out)

    def _after_settle(
        self,
        events: Sequence[TableEvent],
        result_text: str,
        final: TableMessage,
        ended: Hand,
        *,
        image: bool,
        run_out: Sequence[TableMessage] = (),
    ) -> None:
        """The hand is stored as ended and the draft adopted: show the result, move on. An
        all-in run-out is shown street by street first, each held for ``runout_pause``."""
        players = tuple(int(p) for p in self.table.hand_players)
        buttons: tuple[ButtonSpec, ...] = ()
        self._uncontested = None
        result = ended.result
        number = self.table.hand_number
        if result is not None and not (result.showdown or result.voided):
            self._uncontested = (ended, number, players)
            buttons = (ButtonSpec("show", t("button.show", self.locale), ref=(number, 0)),)
        self._rabbit = None
        if (
            result is not None
            and not result.voided
            and len(ended.board) < 5
            and self.hand_id is not None
        ):
            self._rabbit = _Rabbit(ended, number, players, self.hand_id)
            buttons += (ButtonSpec("rabbit", t("button.rabbit", self.locale), ref=(number, 0)),)
        lines = [result_text, *self._bust_notes(events)]
        if self._vote is not None:
            self._vote.cancel()
            self._vote = None
        self.hand_id = None
        self.clock.cancel()
        labels = labels_for(self.locale)
        for street in run_out:
            self.messenger.show(street, labels)
            self.messenger.pause(self.options.runout_pause)
        self.messenger.show(final, labels)
        self.messenger.post(
            "\n".join(lines), labels, view=final.view if image else None, buttons=buttons
        )
        for event in events:
            if isinstance(event, PlayerLeft):
                self._forget(int(event.player_id))
        # The pause between hands starts once players can read the result: a channel that is
        # slow (or the bot's request budget, under load) delays the next deal rather than
        # piling hands up ahead of what the channel shows.
        self.messenger.then(lambda: self._schedule_deal(self.options.next_hand_delay))

    def _bust_notes(self, events: Sequence[TableEvent]) -> list[str]:
        notes = []
        seated = {int(v.player_id) for v in self.table.seats()}
        for event in events:
            if isinstance(event, PlayerBusted) and int(event.player_id) in seated:
                notes.append(t("notice.busted", self.locale, player=mention(int(event.player_id))))
        for user_id in list(self.away) + list(self.timeouts):
            if user_id not in seated:
                self._forget(user_id)
        return notes

    def _forget(self, user_id: int) -> None:
        self.away.discard(user_id)
        self.timeouts.pop(user_id, None)
        self.clicks.forget(user_id)

    def _schedule_deal(self, delay: float) -> None:
        if self.closed or not self.config.dealing or self.table.hand is not None:
            return
        if self._dealer_task is not None and not self._dealer_task.done():
            return  # one is coming already
        self._dealer_task = asyncio.create_task(
            self._deal_later(delay), name=f"deal-{self.table_id}"
        )

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            try:
                await self._deal()
            except Exception:
                log.exception("table %d: dealing failed", self.table_id)

    async def _letters(self, hand: Hand) -> list[HoleCardsLetter]:
        """Each player's hole cards, written in his own language (the one his client spoke
        last; the table's for a player never seen)."""
        players = [int(pid) for pid in self.table.hand_players]
        spoken = await self.services.locales(players)
        link = f"https://discord.com/channels/{self.guild_id}/{self.channel_id}"
        return hole_card_letters(hand, players, self.table.hand_number, spoken, self.locale, link)

    # -- internals: the clock --------------------------------------------------------------

    def _arm_clock(self) -> None:
        """Time the decision now due (the clock starts it when the message naming the player
        goes out)."""
        hand = live_hand(self.table)
        if hand is None or hand.to_act is None or self.closed:
            self.clock.cancel()
            return
        pid = self.player_of(hand.to_act)
        marker = (self.table.hand_number, decision_number(hand))
        self.clock.arm(marker, pid, hand.to_act, away=pid in self.away)

    def _on_bank_started(self, decision: Decision) -> None:
        if self.clock.decision is decision and not self.closed:
            self._refresh()

    async def _on_clock_expired(self, decision: Decision) -> None:
        async with self.lock:
            if self.clock.decision is not decision or self.closed:
                return
            await self._time_out(decision)

    async def _time_out(self, decision: Decision) -> None:
        """TDA 29: check if free, else fold; twice in a row sits the player out."""
        hand = live_hand(self.table)
        if hand is None:
            return
        pid = decision.player_id
        count = self.timeouts.get(pid, 0) + 1
        sits_out = count >= self.options.timeouts_before_sit_out and pid not in self.away
        draft: _Draft | None = None
        if sits_out:
            draft = self._draft()
            seat = draft.table.player(pid)
            if seat is not None and seat.state not in (
                PlayerState.SITTING_OUT,
                PlayerState.LEAVING,
            ):
                draft.table.sit_out(pid)
        try:
            await self._apply(hand, Action(ActionKind.TIMEOUT, decision.index), draft=draft)
        except EngineError:
            log.exception("table %d: timeout refused", self.table_id)
            return
        self.timeouts[pid] = count
        if sits_out:
            self.away.add(pid)
            self._post(
                t("notice.timed_out", self.locale, player=mention(pid)),
                buttons=(ButtonSpec("back", t("button.back", self.locale), "success"),),
            )
        await self._after_change()

    # -- internals: output ----------------------------------------------------------------

    async def _remember_message(self, message_id: int) -> None:
        try:
            await tables.set_table_message(self.db, self.table_id, message_id)
        except StorageError:
            log.exception("table %d: could not store its message id", self.table_id)

    async def _clear_message_record(self) -> None:
        try:
            await tables.set_table_message(self.db, self.table_id, None)
        except StorageError:
            log.exception("table %d: could not clear its message id", self.table_id)

    def _refresh(self, *, new: bool = False, urgent: bool = True) -> None:
        self.messenger.show(
            table_message(self.scene()), labels_for(self.locale), new=new, urgent=urgent
        )

    def _post(self, text: str, *, buttons: Sequence[ButtonSpec] = ()) -> None:
        self.messenger.post(text, labels_for(self.locale), buttons=buttons)

    def _on_dms_closed(self, user_id: int) -> None:
        if not self.closed:
            self._post(t("error.dm_closed_notice", self.locale, user=mention(user_id)))

    def _on_channel_lost(self) -> None:
        """The bot may no longer post in the channel: pause the table (RULES 8: the hand in
        progress plays out) and tell the players by DM where they stand."""
        self.direct.spawn(self._pause_for_access())

    async def _pause_for_access(self) -> None:
        async with self.lock:
            if self.closed:
                return
            if not self.table.paused:
                try:
                    await self._table_change(lambda d: d.table.pause(None))
                except (EngineError, StorageError):
                    log.exception("table %d: could not pause after losing access", self.table_id)
            players = [int(seat.player_id) for seat in self.table.seats()]
            spoken = await self.services.locales(players)
            for pid in players:
                locale = resolve_locale(spoken.get(pid, self.locale))
                notice = t("notice.channel_lost", locale, channel=f"<#{self.channel_id}>")
                self.direct.notify(pid, notice)


def check_bomb(amount: int, options: TableOptions) -> None:
    """A bomb pot every player can meet with a full buy-in, in the table's chip unit."""
    unit = options.chip_unit
    if amount % unit:
        raise BotError("bomb_not_multiple", amount=amount, chip_unit=unit)
    high = options.buy_in_range[1]
    if amount > high:
        raise BotError("bomb_too_large", amount=amount, maximum=high)


@dataclass(slots=True)
class _Rabbit:
    """A hand that ended before the river, whose players may see the rest of its board."""

    hand: Hand
    number: int
    players: tuple[int, ...]
    hand_id: int
    shown: bool = False


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


async def _counted(count: Callable[[Hand], _T], hand: Hand, table_id: int) -> _T | None:
    """All-in chances, counted off the event loop (the table's lock keeps the hand still
    meanwhile); None when counting fails, which costs the players the figures, not the hand."""
    try:
        return await asyncio.to_thread(count, hand)
    except Exception:
        log.exception("table %d: could not count the all-in chances", table_id)
        return None


def _departures(events: Sequence[TableEvent]) -> list[int]:
    """The players a settled hand sent home (their chips leave with them in the same step)."""
    return [int(e.player_id) for e in events if isinstance(e, PlayerLeft)]

"""One live table: the engine's table and hand, its clock, and everything that changes them.

Every input for a table — a command, a button, a modal, the clock, a host's order — goes
through :class:`TableRunner` under one ``asyncio.Lock``, so no two of them ever interleave: a
double click meets the state the first click left. Inside the lock an input is checked by the
engine (which changes nothing when it refuses), stored, and only then acknowledged: the caller
replies after the method returns, so an acknowledged action survives a crash.

Chips follow storage's model: a buy-in moves chips from the wallet to the seat, a hand holds
the stacks of the players dealt in from its start to its result, and leaving or closing sends
a seat's stack back to the wallet. The engine mirrors the same numbers; its table state is saved
after every change so a restart resumes it (see ``bot.runtime.recovery``).

Discord I/O never happens under the lock: table messages go through the table's
:class:`~bot.runtime.messenger.TableMessenger` queue and hole cards through background DMs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import (
    ButtonSpec,
    Scene,
    ack_for,
    cards_text,
    chips,
    hole_cards_text,
    hole_cards_view,
    labels_for,
    mention,
    result_content,
    table_message,
)
from bot.runtime.config import TableConfig
from bot.runtime.dealer import Delivery, send_hole_cards
from bot.runtime.messenger import TableMessenger
from bot.runtime.recovery import RestoredTable, live_hand, settle_departures
from bot.runtime.results import player_results, result_summary
from bot.storage import StorageError, hands, tables
from bot.storage.hands import HandSeat
from bot.storage.tables import TableInfo
from engine.cards import DeckCommitment
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Event, Hand, PreAction
from engine.table import PlayerBusted, PlayerState, Table, TableEvent, TableOptions

if TYPE_CHECKING:
    from bot.runtime.manager import GameRuntime

log = logging.getLogger(__name__)

# A new arrival or a returning player should not wait the whole pause between hands.
SOON = 1.0


@dataclass(eq=False, slots=True)
class Decision:
    """The decision the clock is timing: who, since when, and until when (shown to players)."""

    player_id: int
    index: int
    marker: tuple[int | None, int]  # (hand id, event count): any new event is a new decision
    deadline: int  # Unix seconds, shown as a Discord timestamp
    bank_started: float | None = None  # monotonic time the time bank began to run


@dataclass(frozen=True, slots=True)
class CardsView:
    """A player's own cards, for the private "My cards" reply."""

    text: str
    hand: Hand
    index: int
    caption: str


class TableRunner:
    """The runtime of one open table (create through :class:`GameRuntime`)."""

    def __init__(
        self,
        runtime: GameRuntime,
        info: TableInfo,
        config: TableConfig,
        restored: RestoredTable,
        rng: random.Random,
    ) -> None:
        self.runtime = runtime
        self.db = runtime.db
        self.options = runtime.options
        self.table_id = info.table_id
        self.guild_id = info.guild_id
        self.channel_id = info.channel_id
        self.host_id = info.host_id
        self.config = config
        self.table: Table = restored.table
        self.hand_id: int | None = restored.hand_id
        self.commitment: DeckCommitment | None = restored.commitment
        self.rng = rng
        self.lock = asyncio.Lock()
        self.away: set[int] = set()
        self.timeouts: dict[int, int] = {}
        self.dm_closed_told: set[int] = set()
        # The hand just won without a showdown, until the next deal: its winner may show.
        self._uncontested: tuple[Hand, tuple[int, ...]] | None = None
        self.decision: Decision | None = None
        self.closed = False
        self._clock: asyncio.Task[None] | None = None
        self._dealer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._restored = restored
        self.messenger = TableMessenger(
            runtime.client,
            self.table_id,
            self.channel_id,
            self.options,
            runtime.view_factory,
            self._remember_message,
            message_id=info.message_id,
        )

    # -- queries (no lock: read synchronously, so always consistent) -------------------------

    @property
    def locale(self) -> str | None:
        return self.config.locale

    @property
    def _soon(self) -> float:
        return min(SOON, self.options.next_hand_delay)

    @property
    def message_id(self) -> int | None:
        return self.messenger.message_id

    @property
    def hand(self) -> Hand | None:
        return live_hand(self.table)

    def is_current_message(self, message_id: int) -> bool:
        """Whether buttons on this message belong to the hand being played: an older message,
        or the last hand's while the new one is being posted, must not act on this hand."""
        messenger = self.messenger
        return (
            message_id == messenger.message_id
            and messenger.message_hand == self.table.hand_number
        )

    def player_of(self, index: int) -> int:
        return int(self.table.hand_players[index])

    def scene(self) -> Scene:
        decision = self.decision
        return Scene(
            table=self.table,
            names=self.config.names,
            hand_number=self.table.hand_number,
            locale=self.locale,
            away=frozenset(self.away),
            commitment=self.commitment.digest_hex if self.commitment is not None else None,
            deadline=decision.deadline if decision is not None else None,
            dealing=self.config.dealing,
            closed=self.closed,
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
            if hand is not None and hand.is_over:
                # Its last action was stored but not its result: settle it now.
                self._refresh(new=True)
                await self._finish_hand()
                return
            await self._save()
            self._arm_clock()
            self._refresh(new=True)
            if hand is None:
                self._schedule_deal(self.options.next_hand_delay)

    async def shutdown(self) -> None:
        """Stop the clock and the queue (the bot is closing; storage already has everything)."""
        self.closed = True
        for task in (self._clock, self._dealer, *self._tasks):
            if task is not None:
                task.cancel()
        await self.messenger.close()

    # -- players ---------------------------------------------------------------------------

    def remember(self, user_id: int, name: str) -> None:
        """Keep the display name seen last (names are drawn on the table image)."""
        if name and self.config.names.get(user_id) != name:
            self.config.names[user_id] = name[:64]

    async def join(self, user_id: int, name: str, buy_in: int, seat: int | None) -> int:
        """Sit down with ``buy_in`` chips from the wallet; the seat taken."""
        async with self.lock:
            self._check_open()
            table = self.table
            if table.seat_of(user_id) is not None:
                raise EngineError("already_seated", player=user_id)
            free = table.free_seats()
            if not free:
                raise EngineError("table_full")
            if seat is None:
                seat = free[0]
            elif not 1 <= seat <= table.options.seats:
                raise EngineError("bad_seat", seat=seat, seats=table.options.seats)
            elif seat not in free:
                raise EngineError("seat_taken", seat=seat)
            low, high = table.options.buy_in_range
            if not low <= buy_in <= high:
                raise EngineError("buy_in_out_of_range", amount=buy_in, minimum=low, maximum=high)
            await tables.buy_in(self.db, self.table_id, user_id, buy_in, seat_no=seat)
            try:
                table.join(user_id, buy_in, seat=seat)
            except EngineError:
                await tables.leave_table(self.db, self.table_id, user_id)
                raise
            self.remember(user_id, name)
            self.config.banks.setdefault(user_id, self.options.time_bank)
            await self._save()
            self._refresh(urgent=False)
            self._schedule_deal(self._soon)
            return seat

    async def leave(self, user_id: int, *, by: int | None = None) -> int | None:
        """Stand up (``by`` a host: removed). The chips returned now, or None: after the hand."""
        async with self.lock:
            self._check_open()
            table = self.table
            if table.seat_of(user_id) is None:
                raise EngineError("not_seated", player=user_id)
            index = table.hand_index(user_id)
            if index is not None and table.hand is not None and not table.hand.is_over:
                if by is None:
                    table.leave(user_id)
                else:
                    table.remove(user_id, by=by)
                await self._save()
                await self._give_up_hand(index)
                return None
            returned = await tables.leave_table(self.db, self.table_id, user_id)
            if by is None:
                table.leave(user_id)
            else:
                table.remove(user_id, by=by)
            self._forget(user_id)
            await self._save()
            self._refresh(urgent=False)
            return returned

    async def sit_out(self, user_id: int) -> None:
        async with self.lock:
            self._check_open()
            self.table.sit_out(user_id)
            await self._save()
            self._refresh(urgent=False)

    async def sit_in(self, user_id: int) -> None:
        async with self.lock:
            self._check_open()
            self.table.sit_in(user_id)
            self.away.discard(user_id)
            self.timeouts.pop(user_id, None)
            await self._save()
            self._refresh(urgent=False)
            self._schedule_deal(self._soon)

    async def rebuy(self, user_id: int, amount: int) -> int:
        """Add chips from the wallet between hands; the stack afterwards."""
        async with self.lock:
            self._check_open()
            seat = self.table.player(user_id)
            if seat is None:
                raise EngineError("not_seated", player=user_id)
            if seat.state is PlayerState.LEAVING:
                raise EngineError("leaving", player=user_id)
            if seat.in_hand:
                raise BotError("rebuy_in_hand")
            busted = seat.stack == 0
            info = await tables.top_up(self.db, self.table_id, user_id, amount)
            self.table.top_up(user_id, amount)
            if busted and self.table.player(user_id) is not None:
                with contextlib.suppress(EngineError):
                    self.table.sit_in(user_id)
                self.away.discard(user_id)
            await self._save()
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
            self.config.dealing = True
            await self._save()
            if not self.table.can_start():
                self._refresh(urgent=False)
                raise BotError("waiting_for_players")
            await self._deal()

    # -- decisions -------------------------------------------------------------------------

    async def act(self, user_id: int, kind: ActionKind, amount: int | None = None) -> ActionTaken:
        """Play for ``user_id``; the action taken (stored before this returns)."""
        async with self.lock:
            hand, index = self._seat_in_hand(user_id)
            legal = hand.legal()
            if (
                kind is ActionKind.ALL_IN
                and legal is not None
                and legal.player == index
                and legal.to_call
                and not legal.can_raise
                and not legal.raise_closed
            ):
                # Nobody left could answer a raise: going all-in can only mean calling.
                kind = ActionKind.CALL
            events = await self._apply(hand, Action(kind, index, amount))
            if self._acted_himself(user_id):
                await self._save()
            taken = ack_for(events, index)
            await self._after_change()
            if taken is None:  # pragma: no cover - every accepted decision emits its action
                raise BotError("illegal_action")
            return taken

    async def show_cards(self, user_id: int) -> None:
        """The winner of a hand nobody contested turns his cards up (RULES 6), until the next
        deal. Cosmetic: the chips are settled and stored already."""
        async with self.lock:
            if self._uncontested is None:
                raise BotError("nothing_to_show")
            hand, players = self._uncontested
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

    async def preselect(self, user_id: int, pre: PreAction) -> PreAction:
        """Choose (or, chosen again, cancel) an action for when his turn comes; the choice."""
        async with self.lock:
            hand, index = self._seat_in_hand(user_id)
            current = hand.preselected.get(index)
            if current is not None and current[0] is pre:
                pre = PreAction.NONE
            await self._apply(hand, Action(ActionKind.PRESELECT, index, pre=pre))
            return pre

    # -- the host --------------------------------------------------------------------------

    async def pause(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            self.table.pause(by)
            await self._save()
            self._refresh(urgent=False)

    async def resume(self, by: int) -> None:
        async with self.lock:
            self._check_open()
            self.table.resume(by)
            await self._save()
            self._refresh(urgent=False)
            self._schedule_deal(self._soon)

    async def change_settings(self, options: TableOptions | None, timer: int | None) -> bool:
        """New options from the next hand (now if none is running); True if they wait."""
        async with self.lock:
            self._check_open()
            if timer is not None:
                self.config.timer = timer
            waiting = False
            if options is not None:
                self.config.pending = options
                waiting = self.table.hand is not None
                if not waiting:
                    self._apply_pending()
            await self._save()
            self._refresh(urgent=False)
            return waiting

    async def void(self, by: int) -> None:
        """Call the hand off: every chip goes back to where it was when the hand began."""
        async with self.lock:
            self._check_open()
            await self._void(by, t("notice.voided_by_host", self.locale, host=mention(by)))

    async def close(self, by: int) -> dict[int, int]:
        """Close the table: a running hand is voided, every stack goes back to its wallet."""
        async with self.lock:
            self._check_open()
            if self.table.hand is not None:
                await self._void(by, None)
            returned = await tables.close_table(self.db, self.table_id, actor_id=by)
            lines = [t("notice.closed", self.locale, host=mention(by))]
            lines += [
                t(
                    "notice.closed_returned",
                    self.locale,
                    player=mention(uid),
                    amount=chips(amount, self.locale),
                )
                for uid, amount in returned.items()
            ]
            self._post("\n".join(lines))
            self.closed = True
            self._cancel_clock()
            if self._dealer is not None:
                self._dealer.cancel()
            self._refresh()
            self.runtime.forget(self)
            self.runtime.keep(asyncio.create_task(self._say_goodbye()))
            return returned

    async def _say_goodbye(self) -> None:
        """Let the last messages of a closed table go out, then stop its queue."""
        await self.messenger.flush()
        await self.messenger.close()

    async def repost(self) -> None:
        """Post the table message again (it may have scrolled away)."""
        async with self.lock:
            self._check_open()
            self._refresh(new=True)

    # -- internals: applying input ---------------------------------------------------------

    def _check_open(self) -> None:
        if self.closed:
            raise BotError("table_closed")

    def _seat_in_hand(self, user_id: int) -> tuple[Hand, int]:
        self._check_open()
        hand = live_hand(self.table)
        if hand is None:
            raise BotError("no_hand")
        index = self.table.hand_index(user_id)
        if index is None:
            raise BotError("not_in_hand")
        return hand, index

    async def _apply(self, hand: Hand, action: Action) -> list[Event]:
        """Apply one input and store what the hand logged, before anyone is told."""
        before = len(hand.actions)
        events = hand.apply(action)  # an EngineError here changed nothing
        logged = hand.actions[before:]
        if logged:
            assert self.hand_id is not None
            try:
                await hands.append_actions(self.db, self.hand_id, before, logged)
            except BaseException:
                # The engine moved on but storage did not: go back to what storage holds.
                log.exception("table %d: action not stored; reloading the hand", self.table_id)
                await self._reload_hand()
                raise
        return events

    async def _reload_hand(self) -> None:
        assert self.hand_id is not None
        stored = await hands.load_hand(self.db, self.hand_id)
        hand = hands.rebuild_hand(stored)
        self.table = Table.from_json(self.table.to_json(), self.rng, hand=hand)

    def _acted_himself(self, user_id: int) -> bool:
        """Clock bookkeeping after a player's own decision; True if it brought him back from
        sitting out (he had been sat out for timing out)."""
        decision = self.decision
        if (
            decision is not None
            and decision.player_id == user_id
            and decision.bank_started is not None
        ):
            used = time.monotonic() - decision.bank_started
            bank = self.config.banks.get(user_id, self.options.time_bank)
            self.config.banks[user_id] = max(0.0, bank - used)
        self.timeouts.pop(user_id, None)
        if user_id not in self.away:
            return False
        self.away.discard(user_id)
        with contextlib.suppress(EngineError):  # he may have sat in already
            self.table.sit_in(user_id)
        return True

    async def _give_up_hand(self, index: int) -> None:
        """A player leaving mid-hand folds now if it is his turn, else as soon as it comes."""
        hand = live_hand(self.table)
        if hand is None or hand.folded[index] or hand.all_in[index]:
            return
        if hand.to_act == index:
            action = Action(ActionKind.FOLD, index)
        else:
            action = Action(ActionKind.PRESELECT, index, pre=PreAction.FOLD)
        await self._apply(hand, action)
        await self._after_change()

    async def _after_change(self) -> None:
        """After the hand changed: finish it, or time the next decision and show it."""
        hand = self.table.hand
        if hand is None:
            return
        if hand.is_over:
            await self._finish_hand()
            return
        self._arm_clock()
        self._refresh()

    # -- internals: hands ------------------------------------------------------------------

    def _apply_pending(self) -> None:
        pending = self.config.pending
        if pending is None or self.table.hand is not None:
            return
        data = self.table.to_json()
        data["options"] = pending.to_json()
        self.table = Table.from_json(data, self.rng)
        self.config.options = pending
        self.config.pending = None

    async def _deal(self) -> None:
        """Deal the next hand if the table can (under the lock)."""
        if self.closed or not self.config.dealing or self.table.hand is not None:
            return
        self._apply_pending()
        if not self.table.can_start():
            await self._save()
            self._refresh(urgent=False)
            return
        self._uncontested = None
        before = self.table.to_json()
        deck = tuple(self.options.deck_factory())
        commitment = DeckCommitment.commit(deck)
        self.table.start_hand(deck)
        hand = self.table.hand
        plan = self.table.plan
        assert hand is not None and plan is not None
        players = [
            HandSeat(i, seat, int(pid), hand.config.stacks[i])
            for i, (seat, pid) in enumerate(
                zip(self.table.hand_seats, self.table.hand_players, strict=True)
            )
        ]
        try:
            self.hand_id = await hands.start_hand(
                self.db,
                self.table_id,
                config=hand.config,
                deck=deck,
                deck_salt=commitment.salt_hex,
                deck_digest=commitment.digest_hex,
                players=players,
                button_seat=plan.button_seat,
            )
        except StorageError:
            log.exception("table %d: storage refused hand #%d", self.table_id,
                          self.table.hand_number)
            self.table = Table.from_json(before, self.rng)
            self.config.dealing = False
            await self._save()
            self._post(t("notice.deal_failed", self.locale))
            return
        self.commitment = commitment
        self.decision = None
        for pid in self.table.hand_players:
            bank = self.config.banks.get(int(pid), self.options.time_bank)
            refilled = min(self.options.time_bank_cap, bank + self.options.time_bank_refill)
            self.config.banks[int(pid)] = max(bank, refilled)
        await self._save()
        self._refresh(new=True)
        self._deal_hole_cards(hand)
        await self._after_change()

    async def _finish_hand(self) -> None:
        """Record the hand that just ended, settle the table, tell everyone (under the lock)."""
        hand = self.table.hand
        assert hand is not None and hand.result is not None
        if self.hand_id is not None and not hand.result.voided:
            await hands.record_hand_result(
                self.db, self.hand_id, result_summary(hand), player_results(hand)
            )
        await self._settle(result_content(self.scene()), image=True)

    async def _void(self, by: int | None, notice: str | None) -> None:
        hand = self.table.hand
        if hand is None or self.hand_id is None:
            raise EngineError("no_hand")
        before = len(hand.actions)
        hand.void()
        # Recorded in the hand's history too: the replay ends voided like the hand did.
        await hands.append_actions(self.db, self.hand_id, before, hand.actions[before:])
        await hands.void_hand(self.db, self.hand_id, reason="voided by the host", actor_id=by)
        text = result_content(self.scene())
        if notice is not None:
            text += "\n" + notice
        await self._settle(text, image=False)

    async def _settle(self, result_text: str, *, image: bool) -> None:
        """The hand is stored as ended: move the table on and show the result (with the
        showdown drawn when ``image``)."""
        final = table_message(self.scene())
        ended = self.table.hand
        buttons: tuple[ButtonSpec, ...] = ()
        self._uncontested = None
        if ended is not None and ended.result is not None and not (
            ended.result.showdown or ended.result.voided
        ):
            self._uncontested = (ended, tuple(int(p) for p in self.table.hand_players))
            buttons = (ButtonSpec("show", t("button.show", self.locale)),)
        events = self.table.finish_hand()
        await settle_departures(self.db, self.table_id, events)
        lines = [result_text, *self._after_hand(events)]
        self.hand_id = None
        self._cancel_clock()
        await self._save()
        labels = labels_for(self.locale)
        self.messenger.show(final, labels)
        self.messenger.post(
            "\n".join(lines), labels, view=final.view if image else None, buttons=buttons
        )
        self._schedule_deal(self.options.next_hand_delay)

    def _after_hand(self, events: Sequence[TableEvent]) -> list[str]:
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

    def _schedule_deal(self, delay: float) -> None:
        if self.closed or not self.config.dealing or self.table.hand is not None:
            return
        if self._dealer is not None and not self._dealer.done():
            return  # one is coming already
        self._dealer = asyncio.create_task(self._deal_later(delay), name=f"deal-{self.table_id}")

    async def _deal_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            try:
                await self._deal()
            except Exception:
                log.exception("table %d: dealing failed", self.table_id)

    # -- internals: the clock --------------------------------------------------------------

    def _cancel_clock(self) -> None:
        clock, self._clock = self._clock, None
        # The clock's own task gets here when a timeout moves the hand on: it must finish.
        if clock is not None and clock is not asyncio.current_task():
            clock.cancel()
        self.decision = None

    def _arm_clock(self) -> None:
        """Time the decision now due, unless it is already being timed."""
        hand = live_hand(self.table)
        if hand is None or hand.to_act is None or self.closed:
            self._cancel_clock()
            return
        marker = (self.hand_id, len(hand.events))
        if self.decision is not None and self.decision.marker == marker:
            return
        self._cancel_clock()
        index = hand.to_act
        pid = self.player_of(index)
        timer = 0.0 if pid in self.away else float(self.config.timer)
        decision = Decision(pid, index, marker, int(time.time() + timer))
        self.decision = decision
        self._clock = asyncio.create_task(
            self._tick(decision, timer), name=f"clock-{self.table_id}"
        )

    async def _tick(self, decision: Decision, timer: float) -> None:
        await asyncio.sleep(timer)
        async with self.lock:
            if self.decision is not decision or self.closed:
                return
            bank = 0.0 if decision.player_id in self.away else self.config.banks.get(
                decision.player_id, self.options.time_bank
            )
            if bank <= 0:
                await self._time_out(decision)
                return
            # The table's timer ran out: the player's own reserve starts now.
            decision.bank_started = time.monotonic()
            decision.deadline = int(time.time() + bank)
            self._refresh()
        await asyncio.sleep(bank)
        async with self.lock:
            if self.decision is decision and not self.closed:
                await self._time_out(decision)

    async def _time_out(self, decision: Decision) -> None:
        """TDA 29: check if free, else fold; twice in a row sits the player out."""
        hand = live_hand(self.table)
        if hand is None:
            return
        pid = decision.player_id
        if decision.bank_started is not None:
            self.config.banks[pid] = 0.0
        try:
            await self._apply(hand, Action(ActionKind.TIMEOUT, decision.index))
        except EngineError:
            log.exception("table %d: timeout refused", self.table_id)
            return
        count = self.timeouts.get(pid, 0) + 1
        self.timeouts[pid] = count
        if count >= self.options.timeouts_before_sit_out and pid not in self.away:
            self.away.add(pid)
            seat = self.table.player(pid)
            if seat is not None and seat.state not in (PlayerState.SITTING_OUT,
                                                       PlayerState.LEAVING):
                self.table.sit_out(pid)
            await self._save()
            self._post(
                t("notice.timed_out", self.locale, player=mention(pid)),
                buttons=(ButtonSpec("back", t("button.back", self.locale), "success"),),
            )
        await self._after_change()

    # -- internals: persistence and output --------------------------------------------------

    async def _save(self) -> None:
        """Store the table's own state (after every change; storage has the chips)."""
        self.config.state = self.table.to_json()
        low, high = self.table.options.buy_in_range
        await tables.update_table(
            self.db, self.table_id, config=self.config.to_json(), min_buy_in=low, max_buy_in=high
        )

    async def _remember_message(self, message_id: int) -> None:
        try:
            await tables.set_table_message(self.db, self.table_id, message_id)
        except StorageError:
            log.exception("table %d: could not store its message id", self.table_id)

    def _refresh(self, *, new: bool = False, urgent: bool = True) -> None:
        self.messenger.show(
            table_message(self.scene()), labels_for(self.locale), new=new, urgent=urgent
        )

    def _post(self, text: str, *, buttons: Sequence[ButtonSpec] = ()) -> None:
        self.messenger.post(text, labels_for(self.locale), buttons=buttons)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _deal_hole_cards(self, hand: Hand) -> None:
        """DM every player his cards; the game goes on without waiting for any DM."""
        locale = self.locale
        labels = labels_for(locale)
        number = self.table.hand_number
        link = f"https://discord.com/channels/{self.guild_id}/{self.channel_id}"
        caption = t("cards.caption", locale, hand=number)
        for index, pid in enumerate(self.table.hand_players):
            view = hole_cards_view(hand, index, caption, locale)
            text = t(
                "cards.dm",
                locale,
                hand=number,
                cards=hole_cards_text(hand, index, locale),
                link=link,
            )
            self._spawn(self._deliver(int(pid), text, view, labels))

    async def _deliver(self, user_id: int, text: str, view: Any, labels: Any) -> None:
        try:
            outcome = await send_hole_cards(self.runtime.client, user_id, text, view, labels)
        except Exception:
            if not self.runtime.client.is_closed():
                log.exception("table %d: hole-card DM failed", self.table_id)
            return
        if outcome is Delivery.CLOSED and user_id not in self.dm_closed_told and not self.closed:
            self.dm_closed_told.add(user_id)
            self._post(t("error.dm_closed_notice", self.locale, user=mention(user_id)))

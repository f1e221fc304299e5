"""A cash table: players buy in from their wallets, come and go, and the host keeps the floor.

:class:`CashTable` is one owner of the shared hand loop (:class:`~bot.runtime.table.LiveTable`):
the loop plays the hands; this class adds what only a cash table has — joining, leaving and
topping up with wallet chips, sitting out, the host's floor (pause, settings, kick, void,
close), the session ledger and the home game's extras (straddles, bomb pots, skipping a big
blind) — and fills the loop's hooks. Every input runs under the table's own lock as a
transition in three steps:

1. **draft**: a copy of the engine's table and of the table's own settings (:class:`_Draft`) is
   changed by the engine, which refuses bad input before anything changes;
2. **store**: the chip move and the table's new state go to storage in a single transaction
   (``TableSave`` rides with the buy-in, the deal, the result, the void, the leave);
3. **adopt**: only once storage accepted it does the draft become the table, and only then is
   anybody told (the caller replies after the method returns).

A failure at step 1 or 2 leaves the table exactly as it was. Betting decisions change the hand
in place (copying a hand per click would be waste); if storing one fails, the hand is reloaded
from storage, which is the authority.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import TableMessage, chips, mention, result_content
from bot.runtime.config import TableConfig
from bot.runtime.faults import log_failure
from bot.runtime.kinds import CASH, PRACTICE
from bot.runtime.messenger import TableMessenger
from bot.runtime.recaps import RecapPoster
from bot.runtime.recovery import RestoredTable, settle_departures
from bot.runtime.results import settled_hand
from bot.runtime.table import LiveTable, Settled, TableServices
from bot.storage import StorageError, economy, hands, sessions, tables
from bot.storage.sessions import Session, SessionStart
from bot.storage.tables import TableInfo, TableSave
from engine.bots.ids import LEVELS, bot_id, bot_serial, is_bot
from engine.cards import Card
from engine.commitment import DeckCommitment
from engine.errors import EngineError
from engine.hand import Action, ActionKind, Hand, StraddleMode
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
DAY = 86_400


@dataclass(slots=True)
class _Draft:
    """The table and its settings as a transition would leave them, until storage agrees;
    ``away`` are the players sat out by the clock (a runtime mark, not stored)."""

    table: Table
    config: TableConfig
    away: set[int] = field(default_factory=set)


class CashTable(LiveTable[_Draft]):
    """The runtime of one open cash table (made by :class:`~bot.runtime.manager.GameRuntime`)."""

    kind = CASH

    def __init__(
        self,
        info: TableInfo,
        config: TableConfig,
        restored: RestoredTable,
        services: TableServices,
    ) -> None:
        self.host_id = info.host_id
        self.config = config
        self._table: Table = restored.table
        self.away: set[int] = set()
        self.empty_since: float | None = None  # monotonic time the last player stood up
        self._restored = restored
        super().__init__(
            services,
            table_id=info.table_id,
            guild_id=info.guild_id,
            channel_id=info.channel_id,
            lock=asyncio.Lock(),
            banks=config.banks,
            timer=config.timer,
            hand_id=restored.hand_id,
            commitment=restored.commitment,
            message_id=info.message_id,
            clock_name=f"clock-{info.table_id}",
        )
        self._note_occupancy()
        services.registry.add_table(self)

    # -- the loop's hooks ------------------------------------------------------------------

    @property
    def table(self) -> Table:
        return self._table

    @property
    def names(self) -> dict[int, str]:
        return self.config.names

    @property
    def locale(self) -> str | None:
        return self.config.locale

    @property
    def banks(self) -> dict[int, float]:
        return self.config.banks

    @property
    def dealing(self) -> bool:
        return self.config.dealing

    @property
    def venue(self) -> CashTable:
        return self

    @property
    def venue_key(self) -> tuple[str, int]:
        return ("table", self.table_id)

    def _make_messenger(self) -> TableMessenger:
        services = self.services
        return TableMessenger(
            services.client, self.table_id, self.channel_id, services.options,
            services.view_factory, self.remember_message, message_id=self.stored_message_id,
            on_prompt=self.clock.shown, on_forbidden=self.channel_lost, budget=services.budget,
        )

    def _is_away(self, player_id: int) -> bool:
        return player_id in self.away

    def _away_players(self) -> frozenset[int]:
        return frozenset(self.away)

    def _presence(self, player_id: int, *, away: bool) -> _Draft:
        """Away: sat out from the next hand. Back (acting himself): sat in again."""
        draft = self._draft()
        seat = draft.table.player(player_id)
        if away:
            draft.away.add(player_id)
            if seat is not None and seat.state not in (
                PlayerState.SITTING_OUT, PlayerState.LEAVING
            ):
                draft.table.sit_out(player_id)
        else:
            draft.away.discard(player_id)
            if seat is not None and seat.state is PlayerState.SITTING_OUT:
                draft.table.sit_in(player_id)
        return draft

    async def _store_actions(
        self, before: int, logged: Sequence[Any], draft: _Draft | None
    ) -> None:
        assert self.hand_id is not None
        save = self._save_of(draft) if draft is not None else None
        await hands.append_actions(self.db, self.hand_id, before, logged, save=save)
        if draft is not None:
            self._adopt(draft)

    def _put_hand(self, hand: Hand) -> None:
        self._table = Table.from_json(self._table.to_json(), self.rng, hand=hand)

    def _may_deal(self) -> bool:
        # Bots never play on by themselves: a person must be dealt in.
        table = self.table
        return self.config.dealing and any(
            not is_bot(int(v.player_id)) for v in table.seats() if v.seat in table.sitting_in()
        )

    def _must_fold(self, player_id: int) -> bool:
        """What a leave decided stands: the player who left during the hand folds at his turn,
        and may do nothing else."""
        seat = self.table.player(player_id)
        return seat is not None and seat.leaving == "left"

    def _forgotten(self, user_id: int) -> None:
        self.away.discard(user_id)

    def _deal_refused(self) -> None:
        # Nobody is dealt again until a player asks.
        self.config.dealing = False

    async def _hold_play(self) -> None:
        if not self.table.paused:
            try:
                await self._table_change(lambda d: d.table.pause(None))
            except (EngineError, StorageError) as exc:
                log_failure(log, exc, "table %d: could not pause after losing access",
                            self.table_id)

    async def _deal_hand(self, deck: tuple[Card, ...], commitment: DeckCommitment) -> int | None:
        await self._bots_off_for_the_day()
        draft = self._draft()
        self._apply_pending(draft)  # settings changed during the last hand start now
        self._sit_out_big_blinds(draft)
        if not draft.table.can_start():
            if self.config.pending is not None:
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
            self.refresh(urgent=False)
            return None
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
            self.say(t("notice.bomb_skipped", self.locale, amount=chips(bomb, self.locale)))
            draft.table.start_hand(deck, straddlers=straddlers)
        draft.config.straddle_once.clear()
        draft.config.bomb_next = 0
        hand = draft.table.hand
        plan = draft.table.plan
        assert hand is not None and plan is not None
        hand_id = await hands.start_hand(
            self.db,
            self.table_id,
            config=hand.config,
            deck=deck,
            commitment=commitment,
            players=self.dealt_seats(draft.table, draft.config.banks),
            button_seat=plan.button_seat,
            save=self._save_of(draft),
        )
        self._adopt(draft)
        return hand_id

    async def _record(self, hand: Hand) -> Sequence[TableEvent]:
        draft = self._draft()
        events = draft.table.finish_hand()
        if self.hand_id is not None:
            settled = await settled_hand(hand)
            await hands.record_hand_result(
                self.db,
                self.hand_id,
                settled.summary,
                settled.players,
                departures=_departures(events),
                save=self._save_of(draft),
                all_in=settled.all_in,
            )
        else:  # pragma: no cover - a live hand always has its stored id
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
        self._adopt(draft)
        return events

    def _result_notes(self, events: Sequence[TableEvent]) -> list[str]:
        notes = []
        seated = {int(v.player_id) for v in self.table.seats()}
        for event in events:
            if isinstance(event, PlayerBusted) and int(event.player_id) in seated:
                notes.append(t("notice.busted", self.locale, player=mention(int(event.player_id))))
        for user_id in list(self.away) + list(self.timeouts):
            if user_id not in seated:
                self.forget(user_id)
        return notes

    # -- queries ---------------------------------------------------------------------------

    def is_host(self, user_id: int, *, admin: bool) -> bool:
        return admin or user_id == self.host_id

    # -- start-up --------------------------------------------------------------------------

    async def start(self, *, anew: bool = True) -> None:
        """Show the table (again; ``anew``: on a new message) and pick the game up where it
        was."""
        async with self.lock:
            restored = self._restored
            await settle_departures(self.db, self.table_id, restored.settled)
            if restored.voided_hand is not None:
                self.say(t("notice.hand_voided_restart", self.locale, hand=restored.voided_hand))
            await self.pick_up(anew=anew)

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
            self.refresh(urgent=False)

    # -- players ---------------------------------------------------------------------------

    async def join(self, user_id: int, name: str, buy_in: int, seat: int | None) -> int:
        """Sit down with ``buy_in`` chips from the wallet; the seat taken."""
        async with self.lock:
            self.check_open()
            taken = await self._sit(user_id, name, buy_in, seat)
            self.refresh(urgent=False)
            self.schedule_deal(self.soon)
            return taken

    async def _sit(self, user_id: int, name: str | None, buy_in: int, seat: int | None) -> int:
        draft = self._draft()
        if seat is None:
            free = draft.table.free_seats()
            seat = free[0] if free else None
        events = draft.table.join(user_id, buy_in, seat=seat)  # the engine's join rules
        joined = next(e for e in events if isinstance(e, PlayerJoined))
        if name is not None:
            draft.config.names[user_id] = name[:64]
            draft.config.banks.setdefault(user_id, self.options.time_bank)
        await tables.buy_in(
            self.db, self.table_id, user_id, buy_in, seat_no=joined.seat,
            save=self._save_of(draft),
        )
        self._adopt(draft)
        return joined.seat

    # -- computer players ----------------------------------------------------------------------

    def people(self) -> list[int]:
        """The persons seated (bots aside)."""
        return [int(v.player_id) for v in self.table.seats() if not is_bot(int(v.player_id))]

    def bots(self) -> dict[int, int]:
        """{seat: bot id} of the computer players seated."""
        return {v.seat: int(v.player_id) for v in self.table.seats() if is_bot(int(v.player_id))}

    async def add_bots(self, count: int, level: str, seat: int | None) -> list[int]:
        """Seat ``count`` computer players of ``level`` (the host asked; the cog checked); the
        seats they took. Everything is checked before the first one sits down."""
        async with self.lock:
            self.check_open()
            if level not in LEVELS:
                raise BotError("bad_bot_level", level=level[:20])
            free = list(self.table.free_seats())
            if seat is not None:
                if count != 1:
                    raise BotError("bots_one_seat")
                if not 1 <= seat <= self.table.options.seats:
                    raise BotError("bad_seat", seat=seat, seats=self.table.options.seats)
                if seat not in free:
                    raise BotError("seat_taken", seat=seat)
                seats = [seat]
            elif count > len(free):
                raise BotError("bots_no_room", count=count, free=len(free))
            else:
                seats = free[:count]
            await self._check_house()
            stack = self._bot_stack()
            serial = 1 + max((bot_serial(b) for b in self._bot_ids()), default=-1)
            taken = [
                await self._sit(bot_id(serial + n, level), None, stack, chair)
                for n, chair in enumerate(seats)
            ]
            self.refresh(urgent=False)
            self.schedule_deal(self.soon)
            return taken

    async def remove_bots(self, seat: int | None) -> tuple[list[int], list[int]]:
        """Stand the bots up (the one at ``seat``, or all): (seats left now, seats that leave
        after the hand being played, folding at their turn as a player who leaves does)."""
        async with self.lock:
            self.check_open()
            bots = self.bots()
            if seat is not None:
                if seat not in bots:
                    raise BotError("no_bot_there", seat=seat)
                bots = {seat: bots[seat]}
            if not bots:
                raise BotError("no_bots")
            now: list[int] = []
            later: list[int] = []
            for chair, pid in sorted(bots.items()):
                if self.table.player(pid) is None:
                    continue
                gone = await self._leave(pid)
                (now if gone is not None else later).append(chair)
            return now, later

    def _bot_ids(self) -> set[int]:
        """Every bot id this table has seen (its serials are never given twice)."""
        seen = {int(v.player_id) for v in self.table.seats()} | set(self.table.hand_players)
        return {int(p) for p in seen if is_bot(int(p))}

    def _bot_stack(self) -> int:
        """What a bot buys in for: the table's largest buy-in (a full stack, as regulars sit)."""
        return self.table.options.buy_in_range[1]

    async def _check_house(self) -> None:
        """At a table of the server's economy the house pays for its bots: only where a
        manager allows it, and not once the house has lost its daily cap."""
        settings = await economy.get_settings(self.db, self.guild_id)
        if not settings.bots_allowed:
            raise BotError("bots_not_allowed")
        if await self._house_over_cap(settings.house_loss_cap):
            raise BotError("house_cap_reached", cap=chips(settings.house_loss_cap, self.locale))

    async def _house_over_cap(self, cap: int) -> bool:
        since = int(self.options.wall()) - DAY
        lost = -await economy.house_net(self.db, self.guild_id, since=since)
        return lost >= cap

    async def _bots_off_for_the_day(self) -> None:
        """Between hands: past the house's daily loss cap, its bots stand up."""
        if not self.bots():
            return
        settings = await economy.get_settings(self.db, self.guild_id)
        if not await self._house_over_cap(settings.house_loss_cap):
            return
        for pid in self.bots().values():
            await self._leave(pid)
        self.say(t("notice.house_cap", self.locale,
                     cap=chips(settings.house_loss_cap, self.locale)))

    async def leave(self, user_id: int) -> int | None:
        """Stand up: the chips returned now, or None when he is in the hand being played (his
        hand is folded — now, or when his turn comes — and he leaves when it ends)."""
        async with self.lock:
            self.check_open()
            return await self._leave(user_id)

    async def _leave(self, user_id: int) -> int | None:
        draft = self._draft()
        events = draft.table.leave(user_id)
        left = next((e for e in events if isinstance(e, PlayerLeft)), None)
        if left is not None:
            returned = await tables.leave_table(
                self.db, self.table_id, user_id, save=self._save_of(draft)
            )
            self._adopt(draft)
            self.forget(user_id)
            self.refresh(urgent=False)
            return returned
        hand = self.table.live_hand
        index = self.table.hand_index(user_id)
        if hand is not None and index is not None and hand.to_act == index:
            # His turn: the fold is stored with the leave, in one step.
            await self.apply(hand, Action(ActionKind.FOLD, index), draft=draft)
        else:
            # He folds when his turn comes, and nothing he presses before can change that
            # (``_must_fold``).
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
        self.refresh(urgent=False)
        await self.play_on()
        return None

    async def kick(self, user_id: int, by: int) -> int | None:
        """A host removes a player (RULES 8: between hands). The chips returned now, or None:
        a player in the hand being played plays it out (or the clock acts for him) and is
        removed when it ends."""
        async with self.lock:
            self.check_open()
            draft = self._draft()
            events = draft.table.remove(user_id, by=by)
            left = next((e for e in events if isinstance(e, PlayerLeft)), None)
            if left is None:
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
                self.refresh(urgent=False)
                return None
            returned = await tables.leave_table(
                self.db, self.table_id, user_id, actor_id=by, save=self._save_of(draft)
            )
            self._adopt(draft)
            self.forget(user_id)
            self.refresh(urgent=False)
            return returned

    async def sit_out(self, user_id: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.sit_out(user_id))

    async def sit_in(self, user_id: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.sit_in(user_id))
            self.forget(user_id)
            self.schedule_deal(self.soon)

    async def rebuy(self, user_id: int, amount: int) -> int:
        """Add chips from the wallet between hands; the stack afterwards."""
        async with self.lock:
            self.check_open()
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
                self.forget(user_id)
            self.refresh(urgent=False)
            self.schedule_deal(self.soon)
            return info.stack

    async def start_dealing(self, user_id: int) -> None:
        async with self.lock:
            self.check_open()
            if self.table.seat_of(user_id) is None and user_id != self.host_id:
                raise EngineError("not_seated", player=user_id)
            if self.table.paused:
                # Only the host's resume deals again (a lost channel pauses the table too).
                raise EngineError("table_paused")
            if self.config.dealing and self.table.hand is not None:
                raise EngineError("hand_in_progress", hand_number=self.table.hand_number)
            if not self.config.dealing:
                draft = self._draft()
                draft.config.dealing = True
                await tables.update_table(self.db, self.table_id, self._save_of(draft))
                self._adopt(draft)
            if not self.table.can_start():
                self.refresh(urgent=False)
                raise BotError("waiting_for_players")
            await self.deal_now()

    async def straddle(self, user_id: int, *, always: bool) -> bool:
        """Ask (or stop asking) to straddle the next hand, or every hand; whether he now
        asks. The straddle is posted only from the straddle seat, by a player who can."""
        async with self.lock:
            self.check_open()
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
            self.check_open()
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
            self.check_open()
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

    # -- the host --------------------------------------------------------------------------

    async def pause(self, by: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.pause(by))

    async def resume(self, by: int) -> None:
        async with self.lock:
            await self._table_change(lambda d: d.table.resume(by))
            self.messenger.unblock()
            self.schedule_deal(self.soon)

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
            self.check_open()
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
                self._check_game_change(draft, options)
                draft.config.pending = options
                waiting = draft.table.hand is not None
                if not waiting:
                    self._apply_pending(draft)
            await tables.update_table(self.db, self.table_id, self._save_of(draft))
            self._adopt(draft)
            self.clock.timer = float(self.config.timer)
            self.refresh(urgent=False)
            return waiting

    def _check_game_change(self, draft: _Draft, options: TableOptions) -> None:
        """Another game only between hands (the cards of the one being played are dealt for
        its game)."""
        game = options.game
        if game == (draft.config.pending or draft.table.options).game:
            return
        hand = draft.table.hand
        if hand is not None and not hand.is_over:
            raise BotError("game_mid_hand")

    async def void(self, by: int) -> None:
        """Call the hand off: every chip goes back to where it was when the hand began."""
        async with self.lock:
            self.check_open()
            hand = self.table.hand
            if hand is None or self.hand_id is None or hand.is_over:
                raise EngineError("no_hand")
            draft = self._draft()
            before = len(hand.actions)
            players = tuple(int(p) for p in self.table.hand_players)
            events = draft.table.void_hand(by)  # voids the hand itself, then settles the table
            final = self.message()
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
                await self.take_back(hand, before)
                raise
            self._adopt(draft)
            self.show_result(Settled(events, text, final, hand, players, image=False))

    async def reset_ledger(self, by: int) -> tuple[Session, SessionStart]:
        """Begin a new session of the table's ledger; the session that ended and where the new
        one begins. Under the lock, so no hand ends and no chip moves between reading the old
        session and starting the new one; the channel is told, since the ledger is everyone's
        at the table, and then gets the recap of the session that ended (unless the host
        turned recaps off)."""
        async with self.lock:
            self.check_open()
            ended = await sessions.session_ledger(self.db, self.table_id)
            start = await sessions.reset_session(self.db, self.table_id, actor_id=by,
                                                 recap=self.config.recap)
            self.say(t("notice.ledger_reset", self.locale, host=mention(by),
                         hand=start.first_hand))
            self._recap_after()
            return ended, start

    async def set_recap(self, on: bool) -> None:
        """Post a recap when a session ends (``on``), or keep it to ``/history recap``."""
        async with self.lock:
            await self._table_change(lambda draft: setattr(draft.config, "recap", on))

    def _recap_after(self) -> None:
        """Once what the table said so far went out, post the recap its session ending just
        stored (storage knows whether one is owed: none at a practice table, none if the host
        turned them off)."""
        poster = RecapPoster(self.db, self.services.client, self.services.dm_channels,
                             self.services.locales)
        locale = self.locale
        self.messenger.then(lambda: poster.post_soon(self.guild_id, locale))

    async def close(self, by: int | None, *, idle: bool = False) -> dict[int, int]:
        """Close the table: a running hand is voided and every stack goes back to its wallet,
        all in one step. ``by`` None: it closed itself, nobody having sat at it for a while."""
        async with self.lock:
            self.check_open()
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
                    recap=self.config.recap,
                )
            except BaseException:
                if running and hand is not None:
                    await self.take_back(hand, before)
                raise
            self._adopt(draft)
            self.hand_id = None
            if idle:
                lines = [t("notice.closed_idle", self.locale)]
            else:
                lines = [t("notice.closed", self.locale, host=mention(by or self.host_id))]
            lines += [
                t(
                    self.kind.word("notice.closed_returned"),
                    self.locale,
                    player=mention(uid),
                    amount=chips(amount, self.locale),
                )
                for uid, amount in returned.items()
            ]
            self.retire()
            self.say("\n".join(lines))
            self.messenger.then(lambda: self.direct.spawn(self._clear_message_record()))
            self._recap_after()
            self.services.registry.venue_over(self)
            return returned

    # -- internals -------------------------------------------------------------------------

    def _draft(self) -> _Draft:
        table = Table.from_json(self.table.to_json(), self.rng, hand=self.table.hand)
        return _Draft(table, self.config.copy(), set(self.away))

    def _save_of(self, draft: _Draft) -> TableSave:
        draft.config.state = draft.table.to_json()
        low, high = draft.table.options.buy_in_range
        return TableSave(draft.config.to_json(), low, high)

    def _adopt(self, draft: _Draft) -> None:
        self._table = draft.table
        self.config = draft.config
        self.away = draft.away
        self.clock.banks = self.config.banks
        self._note_occupancy()

    def _note_occupancy(self) -> None:
        # Bots keep nobody company: a table of bots alone is empty (and closes when idle).
        if self.people():
            self.empty_since = None
        elif self.empty_since is None:
            self.empty_since = time.monotonic()

    async def _table_change(self, change: Callable[[_Draft], object]) -> None:
        """A change of the table alone (no chips move), under the lock: drafted, stored,
        adopted."""
        self.check_open()
        draft = self._draft()
        change(draft)
        await tables.update_table(self.db, self.table_id, self._save_of(draft))
        self._adopt(draft)
        self.refresh(urgent=False)

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

    def _apply_pending(self, draft: _Draft) -> None:
        pending = draft.config.pending
        if pending is None or draft.table.hand is not None:
            return
        data = draft.table.to_json()
        data["options"] = pending.to_json()
        draft.table = Table.from_json(data, self.rng)
        draft.config.options = pending
        draft.config.pending = None

    async def _clear_message_record(self) -> None:
        try:
            await tables.set_table_message(self.db, self.table_id, None)
        except StorageError as exc:
            log_failure(log, exc, "table %d: could not clear its message id", self.table_id)


def check_bomb(amount: int, options: TableOptions) -> None:
    """A bomb pot every player can meet with a full buy-in, in the table's chip unit."""
    unit = options.chip_unit
    if amount % unit:
        raise BotError("bomb_not_multiple", amount=amount, chip_unit=unit)
    high = options.buy_in_range[1]
    if amount > high:
        raise BotError("bomb_too_large", amount=amount, maximum=high)


def _departures(events: Sequence[TableEvent]) -> list[int]:
    """The players a settled hand sent home (their chips leave with them in the same step)."""
    return [int(e.player_id) for e in events if isinstance(e, PlayerLeft)]


class PracticeTable(CashTable):
    """A table of play chips (``/poker practice``): no wallet, ledger, stats or leaderboard is
    touched (storage knows the table as a practice table), bots need nobody's leave, and the
    table closes itself once no person is seated."""

    kind = PRACTICE

    def _dress(self, message: TableMessage) -> TableMessage:
        """Its message says, on top, that its chips are play chips."""
        return dataclasses.replace(
            message, head="\n".join([t("table.practice", self.locale), message.head]))

    async def _check_house(self) -> None:
        """Play chips: the house pays nothing, so nothing limits it."""

    async def _bots_off_for_the_day(self) -> None:
        """No house, no cap."""

    _peopled = False  # a person has sat here (the table is opened empty, then he sits)

    def _adopt(self, draft: _Draft) -> None:
        super()._adopt(draft)
        if self.people():
            self._peopled = True
        elif self._peopled and not self.closed:
            self.direct.spawn(self._close_when_alone())

    async def _close_when_alone(self) -> None:
        async with self.lock:
            if self.closed or self.people() or self.table.hand is not None:
                return
        try:
            await self.close(None, idle=True)
        except (BotError, EngineError, StorageError) as exc:
            log_failure(log, exc, "practice table %d: could not close", self.table_id)

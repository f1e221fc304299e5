"""Tournaments with a start time on the server's calendar: a Discord scheduled event each.

The event is posted when the tournament opens (external, located at its channel), set active
when play starts, completed when it ends, cancelled with it (completed, if it was already
active: Discord lets an active event only complete). Members who mark it "Interested" get a DM
``event_reminder`` seconds (ten minutes) before the start with a Register button (halfway to the
start when the tournament opened later than that); the list is
read from Discord then, so a restart loses nobody, and the reminder is claimed in storage
before it goes, so nobody gets it twice.

Everything here is on the side: it runs in background tasks, never under the tournament's lock,
and a failure is a WARNING that changes nothing in the tournament. Without Manage Events the
host is told once per server what the permission would add (``calendar_refusals``); an event a
moderator deleted is marked gone and left alone.

:meth:`TournamentCalendar.follow` is the one entry: it brings the event in line with the
tournament's state (posting it, moving it on), whatever was done before a restart.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

import discord

from bot.errors import is_discord_fault
from bot.i18n import resolve_locale, t
from bot.logs import cause_of
from bot.presenter import chips, safe_text
from bot.runtime.budget import Priority, requests_at
from bot.runtime.direct import send_dm
from bot.runtime.tourney import LiveTournament, now
from bot.storage import calendar
from bot.storage.calendar import ACTIVE, CANCELED, COMPLETED, FINAL, GONE, SCHEDULED
from bot.storage.errors import StorageError
from engine.tournament import TournamentState

log = logging.getLogger(__name__)

UNKNOWN_EVENT = 10070
# An external event needs an end: a freeze-out's is a guess, at least this long.
LEAST_LENGTH = 3600.0
LONGEST_GUESS = 12 * 3600.0
PAGE = 100  # Discord's most users per page of an event's "Interested" list


def _iso(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).isoformat()


def _failed(exc: BaseException) -> bool:
    """A failure the calendar shrugs off (Discord's, or the database's)."""
    return isinstance(exc, discord.HTTPException | StorageError) or is_discord_fault(exc)


class TournamentCalendar:
    """The calendar side of every tournament of one process."""

    def __init__(self, client: discord.Client, reminder_lead: float,
                 register_view: Callable[[int, str], discord.ui.View | None]) -> None:
        self.client = client
        self.reminder_lead = reminder_lead
        self.register_view = register_view
        self._locks: dict[int, asyncio.Lock] = {}
        self._reminders: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def follow(self, live: LiveTournament, *, cancelled: bool = False) -> None:
        """Bring the tournament's event in line with its state, in the background."""
        if live.settings.starts_at is None:
            return
        target = self._target(live, cancelled)
        task = asyncio.create_task(self._follow(live, target),
                                   name=f"tournament-{live.tournament_id}-calendar")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        for task in [*self._tasks, *self._reminders.values()]:
            task.cancel()

    @staticmethod
    def _target(live: LiveTournament, cancelled: bool) -> int:
        if cancelled:
            return CANCELED
        state = live.state.state
        if state is TournamentState.FINISHED:
            return COMPLETED
        if state is TournamentState.RUNNING:
            return ACTIVE
        return SCHEDULED

    async def _follow(self, live: LiveTournament, target: int) -> None:
        lock = self._locks.setdefault(live.tournament_id, asyncio.Lock())
        try:
            async with lock:
                await self._bring_in_line(live, target)
        except Exception as exc:
            if not _failed(exc):
                raise
            log.warning("tournament %d: its calendar event was not updated (%s)",
                        live.tournament_id, cause_of(exc))

    async def _bring_in_line(self, live: LiveTournament, target: int) -> None:
        db = live.db
        stored = await calendar.event_of(db, live.tournament_id)
        if stored is None:
            if target != SCHEDULED:
                return  # never on the calendar (no permission, or it started at once)
            event_id = await self._post(live)
            if event_id is None:
                return
            await calendar.remember_event(db, live.tournament_id, event_id)
            stored = await calendar.event_of(db, live.tournament_id)
            assert stored is not None
        if stored.status in FINAL:
            return
        if target == SCHEDULED:
            if not stored.reminded:
                self._arm_reminder(live, stored.event_id)
            return
        reminder = self._reminders.pop(live.tournament_id, None)
        if reminder is not None:
            reminder.cancel()
        if target == CANCELED and stored.status == ACTIVE:
            target = COMPLETED
        if target == COMPLETED and stored.status == SCHEDULED:
            await self._patch(live, stored.event_id, ACTIVE)
        if target != stored.status:
            await self._patch(live, stored.event_id, target)

    async def _post(self, live: LiveTournament) -> int | None:
        starts = float(live.settings.starts_at or 0)
        ends = live.settings.ends_at
        if ends is None or ends <= starts:
            levels = live.state.config.levels
            guess = sum(level.minutes for level in levels) * 60
            ends = starts + min(LONGEST_GUESS, max(LEAST_LENGTH, guess))
        locale = live.locale
        channel = live.channel_id
        description = t("event.description", locale, channel=self._channel_name(channel),
                        buy_in=chips(live.state.config.buy_in, locale))
        try:
            with requests_at(Priority.TIDY):
                data = await self.client.http.create_guild_scheduled_event(
                    live.guild_id,
                    name=live.name[:100],
                    description=description[:1000],
                    privacy_level=2,
                    entity_type=3,
                    scheduled_start_time=_iso(starts),
                    scheduled_end_time=_iso(ends),
                    entity_metadata={
                        "location": f"https://discord.com/channels/{live.guild_id}/{channel}",
                    },
                )
        except discord.Forbidden as exc:
            log.warning("tournament %d: not put on the server's calendar (%s)",
                        live.tournament_id, cause_of(exc))
            await self._tell_host_once(live)
            return None
        return int(data["id"])

    def _channel_name(self, channel_id: int) -> str:
        channel = self.client.get_channel(channel_id)
        return str(getattr(channel, "name", channel_id))

    async def _tell_host_once(self, live: LiveTournament) -> None:
        if not await calendar.claim_refusal_notice(live.db, live.guild_id,
                                                   int(dt.datetime.now(dt.UTC).timestamp())):
            return
        spoken = await live.services.locales([live.host_id])
        locale = resolve_locale(spoken.get(live.host_id, live.locale))
        live.direct.notify(live.host_id, t("event.no_permission", locale))

    async def _patch(self, live: LiveTournament, event_id: int, status: int) -> None:
        try:
            with requests_at(Priority.TIDY):
                await self.client.http.edit_scheduled_event(live.guild_id, event_id,
                                                            status=status)
        except discord.NotFound as exc:
            if exc.code != UNKNOWN_EVENT:
                raise
            log.warning("tournament %d: its calendar event was deleted; left alone",
                        live.tournament_id)
            await calendar.set_status(live.db, live.tournament_id, GONE)
            return
        await calendar.set_status(live.db, live.tournament_id, status)

    # -- the reminder ------------------------------------------------------------------------

    def _arm_reminder(self, live: LiveTournament, event_id: int) -> None:
        if live.tournament_id in self._reminders:
            return
        task = asyncio.create_task(self._remind_at(live, event_id),
                                   name=f"tournament-{live.tournament_id}-reminder")
        self._reminders[live.tournament_id] = task

    async def _remind_at(self, live: LiveTournament, event_id: int) -> None:
        starts = float(live.settings.starts_at or 0)
        # A tournament opened later than the lead before its start: halfway there, so that
        # members have time to mark the event at all.
        wait = starts - self.reminder_lead - now()
        await asyncio.sleep(wait if wait > 0 else max(0.0, (starts - now()) / 2))
        try:
            if live.closed or live.state.state is not TournamentState.REGISTERING:
                return
            if not await calendar.claim_reminder(live.db, live.tournament_id):
                return
            users = await self._interested(live, event_id)
            if users is None:
                return
            for user_id in users:
                if user_id in live.state.players_left():  # registered already
                    continue
                await self._remind(live, user_id, int(starts))
        except Exception as exc:
            if not _failed(exc):
                raise
            log.warning("tournament %d: its reminder did not go out (%s)", live.tournament_id,
                        cause_of(exc))
        finally:
            self._reminders.pop(live.tournament_id, None)

    async def _interested(self, live: LiveTournament, event_id: int) -> list[int] | None:
        """Everybody who marked the event Interested (None: it was deleted)."""
        found: list[int] = []
        after: int | None = None
        while True:
            try:
                with requests_at(Priority.TIDY):
                    page: list[Any] = await self.client.http.get_scheduled_event_users(
                        live.guild_id, event_id, limit=PAGE, with_member=False, after=after)
            except discord.NotFound as exc:
                if exc.code != UNKNOWN_EVENT:
                    raise
                log.warning("tournament %d: its calendar event was deleted; no reminder",
                            live.tournament_id)
                await calendar.set_status(live.db, live.tournament_id, GONE)
                return None
            ids = [int(entry["user_id"]) for entry in page]
            found.extend(ids)
            if len(ids) < PAGE:
                return found
            after = max(ids)

    async def _remind(self, live: LiveTournament, user_id: int, starts: int) -> None:
        spoken = await live.services.locales([user_id])
        locale = resolve_locale(spoken.get(user_id, live.locale))
        text = t("event.reminder", locale, name=safe_text(live.name), starts_at=starts,
                 channel=live.channel_id)
        view = self.register_view(live.tournament_id, locale)
        extra: dict[str, Any] = {} if view is None else {"view": view}
        try:
            with requests_at(Priority.TIDY):
                await send_dm(self.client, user_id, live.services.dm_channels, text,
                              lambda: extra)
        except Exception as exc:
            if not _failed(exc):
                raise
            log.info("tournament %d: reminder to user %d not delivered (%s)",
                     live.tournament_id, user_id, cause_of(exc))


__all__ = ["TournamentCalendar"]

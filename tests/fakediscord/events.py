"""Guild scheduled events, as Discord serves them: the routes under
``/guilds/{guild_id}/scheduled-events`` (create, read, edit, delete, and the users who marked an
event "Interested"), with Discord's checks, and the gateway events they cause.

Discord's checks the fake makes: the bot needs Manage Events (or Create Events) in the guild
(403, 50013, else); an external event needs a location and an end after its start; a start in
the past is refused (400, 50035); the status moves only forward, SCHEDULED to ACTIVE or
CANCELED, ACTIVE to COMPLETED (anything else 400, 50035, with the reason); an
event that ended (COMPLETED, CANCELED) cannot change; an unknown event is 404, 10070. Bodies are
also held to the OpenAPI spec by the door, like every request.

Gateway events (``GUILD_SCHEDULED_EVENT_CREATE``, ``_UPDATE``, ``_DELETE``, ``_USER_ADD``,
``_USER_REMOVE``) go only to sessions that asked for the GUILD_SCHEDULED_EVENTS intent (1 << 16),
as Discord sends them.

A test plays the members and the moderators: :meth:`ScheduledEvents.mark_interested`,
:meth:`unmark`, :meth:`delete_by_moderator`; ``guild_allows[guild_id] = False`` takes Manage
Events away from the bot.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .models import FakeUser, iso_timestamp, new_snowflake
from .rest import RestApi, json_response, no_content
from .state import ApiError

if TYPE_CHECKING:
    from .gateway import Gateway

GUILD_SCHEDULED_EVENTS_INTENT = 1 << 16
SCHEDULED, ACTIVE, COMPLETED, CANCELED = 1, 2, 3, 4
EXTERNAL = 3
UNKNOWN_EVENT = 10070
# Where each status may go (Discord's lifecycle of a scheduled event).
MOVES = {SCHEDULED: {ACTIVE, CANCELED}, ACTIVE: {COMPLETED}}


def _moment(text: object, name: str) -> float:
    if not isinstance(text, str):
        raise ApiError(400, 50035, f"Invalid Form Body: {name}: not a time")
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ApiError(400, 50035, f"Invalid Form Body: {name}: not ISO 8601") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.UTC)
    return parsed.timestamp()


@dataclass
class FakeScheduledEvent:
    guild_id: int
    name: str
    start: float
    end: float
    location: str
    creator_id: int
    description: str | None = None
    status: int = SCHEDULED
    id: int = field(default_factory=new_snowflake)
    users: list[int] = field(default_factory=list)
    history: list[int] = field(default_factory=lambda: [SCHEDULED])

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_id),
            "name": self.name,
            "description": self.description,
            "channel_id": None,
            "creator_id": str(self.creator_id),
            "scheduled_start_time": iso_timestamp(self.start),
            "scheduled_end_time": iso_timestamp(self.end),
            "status": self.status,
            "entity_type": EXTERNAL,
            "entity_id": None,
            "entity_metadata": {"location": self.location},
            "privacy_level": 2,
            "user_count": len(self.users),
            "image": None,
        }


class ScheduledEvents:
    """Every guild's scheduled events, and the routes that serve them."""

    def __init__(self, rest: RestApi, gateway: Gateway) -> None:
        self.rest = rest
        self.gateway = gateway
        self.events: dict[int, FakeScheduledEvent] = {}
        self.deleted: list[FakeScheduledEvent] = []
        self.guild_allows: dict[int, bool] = {}  # False: the bot lacks Manage Events there

    def routes(self) -> list[tuple[str, str, Any, bool]]:
        base = r"/guilds/(?P<guild_id>\d+)/scheduled-events"
        one = base + r"/(?P<event_id>\d+)"
        return [
            ("GET", base, self._list, True),
            ("POST", base, self._create, True),
            ("GET", one, self._get, True),
            ("PATCH", one, self._patch, True),
            ("DELETE", one, self._delete, True),
            ("GET", one + r"/users", self._users, True),
        ]

    def in_guild(self, guild_id: int) -> list[FakeScheduledEvent]:
        return [e for e in self.events.values() if e.guild_id == guild_id]

    # -- what members and moderators do -----------------------------------------------------

    async def mark_interested(self, user: FakeUser, event_id: int) -> None:
        event = self.events[event_id]
        if user.id not in event.users:
            event.users.append(user.id)
            await self._tell("GUILD_SCHEDULED_EVENT_USER_ADD", event, {"user_id": str(user.id)})

    async def unmark(self, user: FakeUser, event_id: int) -> None:
        event = self.events[event_id]
        if user.id in event.users:
            event.users.remove(user.id)
            await self._tell("GUILD_SCHEDULED_EVENT_USER_REMOVE", event,
                             {"user_id": str(user.id)})

    async def delete_by_moderator(self, event_id: int) -> None:
        event = self.events.pop(event_id)
        self.deleted.append(event)
        await self._tell("GUILD_SCHEDULED_EVENT_DELETE", event)

    # -- the routes ------------------------------------------------------------------------

    def _guild(self, guild_id: str) -> int:
        if not any(g.id == int(guild_id) for g in self.rest.state.guilds):
            raise ApiError(404, 10004, "Unknown Guild")
        return int(guild_id)

    def _event(self, guild_id: str, event_id: str) -> FakeScheduledEvent:
        event = self.events.get(int(event_id))
        if event is None or event.guild_id != self._guild(guild_id):
            raise ApiError(404, UNKNOWN_EVENT, "Unknown Guild Scheduled Event")
        return event

    def _may_manage(self, guild: int) -> None:
        if not self.guild_allows.get(guild, True):
            raise ApiError(403, 50013, "Missing Permissions")

    async def _list(self, request: web.Request, guild_id: str) -> web.Response:
        guild = self._guild(guild_id)
        return json_response([e.payload() for e in self.in_guild(guild)])

    async def _get(self, request: web.Request, guild_id: str, event_id: str) -> web.Response:
        return json_response(self._event(guild_id, event_id).payload())

    async def _create(self, request: web.Request, guild_id: str) -> web.Response:
        guild = self._guild(guild_id)
        self._may_manage(guild)
        payload, _ = await self.rest.read_body(request)
        data = payload if isinstance(payload, dict) else {}
        if data.get("entity_type") != EXTERNAL:
            raise ApiError(400, 50035, "Invalid Form Body: entity_type: the bot makes external"
                           " events only")
        start = _moment(data.get("scheduled_start_time"), "scheduled_start_time")
        end = _moment(data.get("scheduled_end_time"), "scheduled_end_time")
        location = (data.get("entity_metadata") or {}).get("location")
        if not location:
            raise ApiError(400, 50035, "Invalid Form Body: entity_metadata.location: required")
        if start < time.time() - 60:
            raise ApiError(400, 50035, "Invalid Form Body: scheduled_start_time: in the past")
        if end <= start:
            raise ApiError(400, 50035, "Invalid Form Body: scheduled_end_time: before start")
        event = FakeScheduledEvent(guild, str(data["name"]), start, end, str(location),
                                   self.rest.state.bot_user.id, data.get("description"))
        self.events[event.id] = event
        self.rest.state.notify()
        await self._tell("GUILD_SCHEDULED_EVENT_CREATE", event)
        return json_response(event.payload())

    async def _patch(self, request: web.Request, guild_id: str, event_id: str) -> web.Response:
        event = self._event(guild_id, event_id)
        self._may_manage(event.guild_id)
        payload, _ = await self.rest.read_body(request)
        data = payload if isinstance(payload, dict) else {}
        status = data.get("status")
        if status is not None and status != event.status:
            if status not in MOVES.get(event.status, set()):
                raise ApiError(400, 50035, f"Invalid Form Body: status: {event.status} cannot"
                               f" become {status}")
            event.status = int(status)
            event.history.append(event.status)
        if "name" in data:
            event.name = str(data["name"])
        self.rest.state.notify()
        await self._tell("GUILD_SCHEDULED_EVENT_UPDATE", event)
        return json_response(event.payload())

    async def _delete(self, request: web.Request, guild_id: str, event_id: str) -> web.Response:
        event = self._event(guild_id, event_id)
        self._may_manage(event.guild_id)
        await self.delete_by_moderator(event.id)
        return no_content()

    async def _users(self, request: web.Request, guild_id: str, event_id: str) -> web.Response:
        event = self._event(guild_id, event_id)
        limit = int(request.query.get("limit", "100"))
        if not 1 <= limit <= 100:
            raise ApiError(400, 50035, "Invalid Form Body: limit: 1 to 100")
        after = int(request.query.get("after", "0"))
        users = sorted(u for u in event.users if u > after)[:limit]
        state = self.rest.state
        return json_response([
            {"guild_scheduled_event_id": str(event.id), "user_id": str(u),
             "user": state.users[u].payload()}
            for u in users if u in state.users
        ])

    async def _tell(self, name: str, event: FakeScheduledEvent,
                    extra: dict[str, Any] | None = None) -> None:
        """A gateway event, to the sessions with the GUILD_SCHEDULED_EVENTS intent only."""
        if extra is None:
            data: dict[str, Any] = event.payload()
        else:
            data = {"guild_scheduled_event_id": str(event.id), "guild_id": str(event.guild_id),
                    **extra}
        for session in self.gateway.live_sessions:
            if session.hears(event.guild_id) and session.intents & GUILD_SCHEDULED_EVENTS_INTENT:
                connection = session.connection
                entry = session.frame(name, data)
                if connection is not None:
                    await connection.deliver(entry)

"""A fake Discord (REST + gateway) on 127.0.0.1 that the real discord.py client talks to.

Tests drive it from the same event loop as the bot::

    async with FakeDiscord(guilds=[guild], users=[alice]) as fake:
        ...  # start the bot with fake.api_base / fake.gateway_url / fake.token
        handle = await fake.slash(alice, guild.channel("poker"), "ping")
        reply = await handle.response()
        assert reply.ephemeral and reply.content == "pong"

Everything the bot sends is recorded (``fake.events``, ``fake.messages_in(channel)``) and can be
awaited with a timeout (``fake.wait_for_message(...)``); nothing here sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import BodyPartReader, WSMsgType, web

from .interactions import (
    InteractionCallback,
    InteractionHandle,
    build_command_data,
    build_modal_components,
)
from .models import (
    ALL_PERMISSIONS,
    ATTACH_FILES,
    CHANNEL_DM,
    EPHEMERAL,
    LOADING,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    MessageEvent,
    new_snowflake,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

API_VERSION = 10
HEARTBEAT_INTERVAL_MS = 41_250
# Flags a bot may set on a message it sends (others are Discord's own).
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL | (1 << 12) | (1 << 15)
INTERACTION_COMMAND = 2
INTERACTION_COMPONENT = 3
INTERACTION_MODAL = 5

Handler = Callable[..., Awaitable[web.StreamResponse]]


class ApiError(Exception):
    """An error response in Discord's shape: ``{"message": ..., "code": ...}``."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message


def json_response(
    data: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> web.Response:
    # discord.py only decodes JSON when the header is exactly "application/json" (no charset).
    merged = {"Content-Type": "application/json"}
    if headers:
        merged.update(headers)
    return web.Response(status=status, body=json.dumps(data).encode(), headers=merged)


def no_content() -> web.Response:
    return web.Response(status=204)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    status: int
    at: float


@dataclass(frozen=True)
class SyncCall:
    """One bulk overwrite of the command schema (``guild_id`` None for global commands)."""

    guild_id: int | None
    commands: list[dict[str, Any]]
    at: float


@dataclass
class RateLimitRule:
    method: str
    pattern: re.Pattern[str]
    retry_after: float
    remaining: int
    is_global: bool


@dataclass
class UploadedFile:
    field_name: str
    filename: str
    data: bytes
    content_type: str | None


class _Notifier:
    """Wakes every waiter after each recorded change; waiters re-check their condition."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait(self) -> None:
        await self._event.wait()


@dataclass
class GatewaySession:
    ws: web.WebSocketResponse
    session_id: str = ""
    seq: int = 0
    intents: int = 0
    identified: bool = False
    query: dict[str, str] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, frame: dict[str, Any]) -> None:
        async with self.lock:
            await self.ws.send_str(json.dumps(frame))

    async def dispatch(self, event: str, data: Any) -> None:
        async with self.lock:
            self.seq += 1
            frame = {"op": 0, "t": event, "s": self.seq, "d": data}
            await self.ws.send_str(json.dumps(frame))


class FakeDiscord:
    """Fake Discord server. Use ``async with FakeDiscord(...) as fake`` in a test.

    ``strict_commands`` (default True) refuses ``slash()`` for a command the bot never synced,
    as the Discord client would; ``interaction_deadline`` is the 3 s answer window (a later
    callback gets 404 / 10062 "Unknown interaction").
    """

    def __init__(
        self,
        guilds: Sequence[FakeGuild] = (),
        users: Sequence[FakeUser] = (),
        *,
        bot_user: FakeUser | None = None,
        owner: FakeUser | None = None,
        token: str | None = None,
        strict_commands: bool = True,
        interaction_deadline: float = 3.0,
        attachment_size_limit: int = 10 * 1024 * 1024,
        host: str = "127.0.0.1",
    ) -> None:
        self.bot_user = bot_user if bot_user is not None else FakeUser("PokerBot", bot=True)
        self.application_id = self.bot_user.id
        self.token = token if token is not None else f"fake.{secrets.token_urlsafe(24)}"
        self.guilds = list(guilds)
        self.owner = owner if owner is not None else self._default_owner()
        self.strict_commands = strict_commands
        self.interaction_deadline = interaction_deadline
        self.attachment_size_limit = attachment_size_limit
        self.host = host

        self.users: dict[int, FakeUser] = {}
        self.channels: dict[int, FakeChannel] = {}
        self._dm_by_user: dict[int, FakeChannel] = {}
        for guild in self.guilds:
            if not guild.has_member(self.bot_user):
                guild.members.append(self.bot_user)
            for member in guild.members:
                self.users[member.id] = member
            for channel in guild.channels:
                channel.guild_id = guild.id
                self.channels[channel.id] = channel
        for user in (*users, self.bot_user, self.owner):
            self.users[user.id] = user

        self.messages: dict[int, FakeMessage] = {}
        self._channel_log: dict[int, list[int]] = {}
        self.events: list[MessageEvent] = []
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self._command_ids: dict[tuple[int | None, str, int], int] = {}
        self.sync_calls: list[SyncCall] = []
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[RecordedRequest] = []
        self.rate_limited: list[RecordedRequest] = []
        self.interactions: list[InteractionHandle] = []
        self._interactions: dict[int, InteractionHandle] = {}
        self._by_token: dict[str, InteractionHandle] = {}
        self._modal_sources: dict[str, InteractionHandle] = {}
        self._attachments: dict[int, FakeAttachment] = {}
        self._rate_limits: list[RateLimitRule] = []
        self._sessions: list[GatewaySession] = []
        self._known_sessions: dict[str, GatewaySession] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self.identify_count = 0
        self._notifier: _Notifier | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._routes = self._build_routes()

    def _default_owner(self) -> FakeUser:
        for guild in self.guilds:
            if guild.owner is not None:
                return guild.owner
        return FakeUser("owner")

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self) -> None:
        self._notifier = _Notifier()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", r"/api/v{version:\d+}/{path:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        # Bind first so the port is known without reaching into the site's private server.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, 0))
        self.port = sock.getsockname()[1]
        site = web.SockSite(self._runner, sock)
        await site.start()

    async def stop(self) -> None:
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001, message=b"fake discord stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        if self._notifier is not None:
            self._notifier.notify()

    async def wait_for(
        self, check: Callable[[], T | None], *, timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``check()`` returns something other than None/False; return it."""
        assert self._notifier is not None, "FakeDiscord is not started"
        try:
            async with asyncio.timeout(timeout):
                while True:
                    result = check()
                    if result is not None and result is not False:
                        return result
                    await self._notifier.wait()
        except TimeoutError:
            raise TimeoutError(
                f"{what} did not happen within {timeout}s\n{self.describe_recent()}"
            ) from None

    def mark(self) -> int:
        """A cursor: pass it as ``after=`` to wait only for changes made from now on."""
        return len(self.events)

    async def wait_for_event(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> MessageEvent:
        wanted_kinds = frozenset(kinds)
        channel_id = None if channel is None else self._channel_id(channel)
        position = after

        def check() -> MessageEvent | None:
            nonlocal position
            while position < len(self.events):
                event = self.events[position]
                position += 1
                if event.kind not in wanted_kinds:
                    continue
                if channel_id is not None and event.message.channel_id != channel_id:
                    continue
                if predicate is None or predicate(event.message):
                    return event
            return None

        return await self.wait_for(check, timeout=timeout, what=f"a message {sorted(wanted_kinds)}")

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | FakeUser | int | None = None,
        kinds: Iterable[str] = ("create", "edit"),
        after: int = 0,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The first message version (created or edited, from ``after`` on) that matches."""
        event = await self.wait_for_event(
            predicate, channel=channel, kinds=kinds, after=after, timeout=timeout
        )
        return event.message

    def describe_recent(self, count: int = 8) -> str:
        lines = [
            f"  {e.kind} ch={e.message.channel_id} id={e.message.id} "
            f"flags={e.message.flags} content={e.message.content[:70]!r}"
            for e in self.events[-count:]
        ]
        failures = [
            f"  {r.method} {r.path} -> {r.status}" for r in self.requests if r.status >= 400
        ]
        text = "recent messages:\n" + ("\n".join(lines) or "  (none)")
        if failures:
            text += "\nfailed requests:\n" + "\n".join(failures[-count:])
        return text

    # ------------------------------------------------------------------ lookups

    def _channel_id(self, channel: FakeChannel | FakeUser | int) -> int:
        if isinstance(channel, FakeChannel):
            return channel.id
        if isinstance(channel, FakeUser):
            return self.dm_channel(channel).id
        return int(channel)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (made on first use, as Discord does)."""
        channel = self._dm_by_user.get(user.id)
        if channel is None:
            channel = FakeChannel(name=f"dm-{user.name}", type=CHANNEL_DM, recipient=user)
            self._dm_by_user[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        for guild in self.guilds:
            if guild.id == channel.guild_id:
                return guild
        return None

    def messages_in(self, channel: FakeChannel | FakeUser | int) -> list[FakeMessage]:
        """Current versions of the messages in a channel, oldest first, deleted ones left out."""
        ids = self._channel_log.get(self._channel_id(channel), [])
        return [self.messages[i] for i in ids if not self.messages[i].deleted]

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        channel = self._dm_by_user.get(user.id)
        return [] if channel is None else self.messages_in(channel)

    def message(self, message: FakeMessage | int) -> FakeMessage:
        """The current version of a message."""
        message_id = message.id if isinstance(message, FakeMessage) else int(message)
        return self.messages[message_id]

    def command(self, name: str, guild: FakeGuild | None = None) -> dict[str, Any] | None:
        """The synced command called ``name`` (guild commands first, then global)."""
        scopes: list[int | None] = [guild.id] if guild is not None else []
        scopes.append(None)
        for scope in scopes:
            for command in self.commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        return None

    def rate_limit(
        self,
        method: str,
        path_pattern: str,
        *,
        retry_after: float = 0.05,
        count: int = 1,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``count`` matching requests with 429 (``path_pattern`` is a regex
        over the path after ``/api/v10``, e.g. ``r"/channels/\\d+/messages"``)."""
        self._rate_limits.append(
            RateLimitRule(method.upper(), re.compile(path_pattern), retry_after, count, is_global)
        )

    # ------------------------------------------------------------------ gateway

    @property
    def sessions(self) -> list[GatewaySession]:
        return [s for s in self._sessions if s.identified and not s.ws.closed]

    async def wait_for_session(self, timeout: float = 5.0) -> GatewaySession:
        return await self.wait_for(
            lambda: self.sessions[-1] if self.sessions else None,
            timeout=timeout,
            what="a gateway IDENTIFY",
        )

    async def dispatch(self, event: str, data: Any) -> None:
        sessions = self.sessions
        if not sessions:
            raise RuntimeError(f"cannot dispatch {event}: no bot is connected to the gateway")
        for session in sessions:
            await session.dispatch(event, data)

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection (the client should reconnect and RESUME)."""
        for session in list(self._sessions):
            await session.ws.close(code=code)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        session = GatewaySession(ws, query=dict(request.query))
        try:
            # The client asks for zlib-stream; it decompresses only binary frames, and text
            # frames are read as plain JSON, so the fake never compresses.
            await session.send(
                {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}, "s": None, "t": None}
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                data = frame.get("d")
                if op == 1:
                    await session.send({"op": 11, "d": None, "s": None, "t": None})
                elif op == 2:
                    await self._identify(session, data)
                elif op == 6:
                    await self._resume(session, data)
                elif op == 8:
                    await self._request_members(session, data)
        finally:
            self._sockets.discard(ws)
            if session in self._sessions:
                self._sessions.remove(session)
            self._notify()
        return ws

    async def _identify(self, session: GatewaySession, data: dict[str, Any]) -> None:
        if data.get("token") != self.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        self.identify_count += 1
        session.session_id = uuid.uuid4().hex
        session.intents = int(data.get("intents", 0))
        shard = data.get("shard") or [0, 1]
        ready = {
            "v": API_VERSION,
            "user": {**self.bot_user.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self.guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "shard": shard,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": [],
            "guild_join_requests": [],
            "user_settings": {},
        }
        await session.dispatch("READY", ready)
        for guild in self.guilds:
            await session.dispatch("GUILD_CREATE", guild.payload())
        session.identified = True
        self._sessions.append(session)
        self._known_sessions[session.session_id] = session
        self._notify()

    async def _resume(self, session: GatewaySession, data: dict[str, Any]) -> None:
        previous = self._known_sessions.get(str(data.get("session_id")))
        if previous is None or data.get("token") != self.token:
            await session.send({"op": 9, "d": False, "s": None, "t": None})
            return
        session.session_id = previous.session_id
        session.seq = previous.seq
        session.intents = previous.intents
        session.identified = True
        self._known_sessions[session.session_id] = session
        self._sessions.append(session)
        await session.dispatch("RESUMED", {})
        self._notify()

    async def _request_members(self, session: GatewaySession, data: dict[str, Any]) -> None:
        guild = next((g for g in self.guilds if str(g.id) == str(data.get("guild_id"))), None)
        if guild is None:
            return
        chunk = {
            "guild_id": str(guild.id),
            "members": [guild.member_payload(m) for m in guild.members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": data.get("nonce"),
        }
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    # ------------------------------------------------------------------ interactions (test API)

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        *,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Push a slash command. ``subcommand`` may be "join" or "group join"."""
        guild = self.guild_of(channel)
        command = self.command(name, guild)
        if command is None and self.strict_commands:
            synced = {scope: [c["name"] for c in cmds] for scope, cmds in self.commands.items()}
            raise LookupError(f"/{name} is not synced, so no user could run it; synced: {synced}")
        data = build_command_data(
            self,
            name=name,
            command=command,
            subcommand=subcommand,
            options=options or {},
            guild=guild,
            strict=self.strict_commands,
        )
        return await self._push(
            INTERACTION_COMMAND,
            user,
            channel,
            data,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        *,
        values: Sequence[str] | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Press a button (or pick ``values`` in a select) on the current version of a message."""
        current = self.message(message)
        if current.deleted:
            raise ValueError(f"message {current.id} was deleted")
        if current.visible_to is not None and current.visible_to != user.id:
            raise ValueError(f"{user.name} cannot see ephemeral message {current.id}")
        component = current.component(custom_id)
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            data["values"] = list(values or [])
        channel = self.channels[current.channel_id]
        return await self._push(
            INTERACTION_COMPONENT,
            user,
            channel,
            data,
            message=current,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def submit_modal(
        self,
        user: FakeUser,
        custom_id: str,
        values: Mapping[str, str | Sequence[str]],
        *,
        source: InteractionHandle | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        """Submit the modal the bot last opened with ``custom_id`` (``values`` by input id)."""
        opener = source if source is not None else self._modal_sources.get(custom_id)
        if opener is None or opener.modal is None:
            raise LookupError(f"the bot never opened a modal {custom_id!r}")
        components = build_modal_components(opener.modal, values)
        data = {"custom_id": custom_id, "components": components}
        message = None if opener.message is None else self.message(opener.message)
        return await self._push(
            INTERACTION_MODAL,
            user,
            opener.channel,
            data,
            message=message,
            locale=locale,
            permissions=permissions,
            age=age,
        )

    async def _push(
        self,
        interaction_type: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
        locale: str | None = None,
        permissions: int | None = None,
        age: float = 0.0,
    ) -> InteractionHandle:
        created = time.time() - age
        interaction_id = new_snowflake(created)
        token = f"itok.{interaction_id}.{secrets.token_urlsafe(16)}"
        guild = self.guild_of(channel)
        if guild is not None:
            user_permissions = guild.permissions_of(user) if permissions is None else permissions
        else:
            user_permissions = ALL_PERMISSIONS if permissions is None else permissions
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": interaction_type,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": channel.payload(permissions=user_permissions),
            "locale": locale if locale is not None else user.locale,
            "app_permissions": str(channel.app_permissions),
            "entitlements": [],
            # discord.py reads this key unconditionally.
            "attachment_size_limit": self.attachment_size_limit,
        }
        if guild is not None:
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": guild.locale, "features": []}
            payload["guild_locale"] = guild.locale
            payload["member"] = guild.member_payload(user, permissions=user_permissions)
            payload["authorizing_integration_owners"] = {"0": str(guild.id)}
            payload["context"] = 0
        else:
            payload["user"] = user.payload()
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["context"] = 1
        if message is not None:
            payload["message"] = message.payload()
        handle = InteractionHandle(
            fake=self,
            id=interaction_id,
            token=token,
            type=interaction_type,
            user=user,
            channel=channel,
            guild=guild,
            data=data,
            payload=payload,
            created_at=created,
            message=None if message is None else message.id,
        )
        self._interactions[interaction_id] = handle
        self._by_token[token] = handle
        self.interactions.append(handle)
        await self.dispatch("INTERACTION_CREATE", payload)
        return handle

    # ------------------------------------------------------------------ REST plumbing

    def _build_routes(self) -> list[tuple[str, re.Pattern[str], Handler, bool]]:
        table: list[tuple[str, str, Handler, bool]] = [
            ("GET", r"/users/@me", self._get_me, True),
            ("GET", r"/users/(?P<user_id>\d+)", self._get_user, True),
            ("POST", r"/users/@me/channels", self._create_dm, True),
            ("GET", r"/oauth2/applications/@me", self._get_application, True),
            ("GET", r"/applications/@me", self._get_application, True),
            ("GET", r"/gateway", self._get_gateway, False),
            ("GET", r"/gateway/bot", self._get_gateway_bot, True),
            ("PUT", r"/applications/(?P<app_id>\d+)/commands", self._put_commands, True),
            ("GET", r"/applications/(?P<app_id>\d+)/commands", self._get_commands, True),
            (
                "PUT",
                r"/applications/(?P<app_id>\d+)/guilds/(?P<guild_id>\d+)/commands",
                self._put_commands,
                True,
            ),
            (
                "GET",
                r"/applications/(?P<app_id>\d+)/guilds/(?P<guild_id>\d+)/commands",
                self._get_commands,
                True,
            ),
            (
                "POST",
                r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback",
                self._interaction_callback,
                False,
            ),
            ("POST", r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)", self._webhook_post, False),
            (
                "GET",
                r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>@original|\d+)",
                self._webhook_get,
                False,
            ),
            (
                "PATCH",
                r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>@original|\d+)",
                self._webhook_patch,
                False,
            ),
            (
                "DELETE",
                r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)/messages/(?P<message_id>@original|\d+)",
                self._webhook_delete,
                False,
            ),
            ("GET", r"/channels/(?P<channel_id>\d+)", self._get_channel, True),
            ("POST", r"/channels/(?P<channel_id>\d+)/messages", self._channel_post, True),
            ("GET", r"/channels/(?P<channel_id>\d+)/messages", self._channel_history, True),
            (
                "GET",
                r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)",
                self._channel_get,
                True,
            ),
            (
                "PATCH",
                r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)",
                self._channel_patch,
                True,
            ),
            (
                "DELETE",
                r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)",
                self._channel_delete,
                True,
            ),
            ("POST", r"/channels/(?P<channel_id>\d+)/typing", self._typing, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)", self._get_guild, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/channels", self._get_guild_channels, True),
            ("GET", r"/guilds/(?P<guild_id>\d+)/roles", self._get_guild_roles, True),
            (
                "GET",
                r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)",
                self._get_member,
                True,
            ),
        ]
        return [
            (method, re.compile(pattern), handler, auth) for method, pattern, handler, auth in table
        ]

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        method = request.method
        limited = self._take_rate_limit(method, path)
        if limited is not None:
            self._record(method, path, 429, self.rate_limited)
            return limited
        for route_method, pattern, handler, auth in self._routes:
            if route_method != method:
                continue
            match = pattern.fullmatch(path)
            if match is None:
                continue
            if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                response: web.StreamResponse = json_response(
                    {"message": "401: Unauthorized", "code": 0}, 401
                )
            else:
                try:
                    response = await handler(request, **match.groupdict())
                except ApiError as error:
                    response = json_response(
                        {"message": error.message, "code": error.code}, error.status
                    )
            self._record(method, path, response.status)
            self._notify()
            return response
        log.warning("fake discord: unhandled %s %s", method, path)
        self._record(method, path, 404, self.unhandled)
        self._notify()
        return json_response({"message": "404: Not Found", "code": 0}, 404)

    def _record(
        self, method: str, path: str, status: int, extra: list[RecordedRequest] | None = None
    ) -> None:
        entry = RecordedRequest(method, path, status, time.time())
        self.requests.append(entry)
        if extra is not None:
            extra.append(entry)

    def _take_rate_limit(self, method: str, path: str) -> web.Response | None:
        for rule in self._rate_limits:
            if rule.remaining > 0 and rule.method == method and rule.pattern.fullmatch(path):
                rule.remaining -= 1
                body = {
                    "message": "You are being rate limited.",
                    "retry_after": rule.retry_after,
                    "global": rule.is_global,
                    "code": 0,
                }
                headers = {
                    # Without Via discord.py takes a 429 for a Cloudflare ban and gives up.
                    "Via": "1.1 google",
                    "X-RateLimit-Limit": "5",
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
                    "X-RateLimit-Scope": "global" if rule.is_global else "user",
                }
                return json_response(body, 429, headers)
        return None

    async def _read_body(self, request: web.Request) -> tuple[Any, list[UploadedFile]]:
        files: list[UploadedFile] = []
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    continue
                raw = await part.read(decode=False)
                name = part.name or ""
                if name == "payload_json":
                    payload = json.loads(raw.decode())
                elif part.filename is not None:
                    files.append(
                        UploadedFile(
                            field_name=name,
                            filename=part.filename,
                            data=bytes(raw),
                            content_type=part.headers.get("Content-Type"),
                        )
                    )
            return payload, files
        raw_body = await request.read()
        if not raw_body:
            return None, files
        return json.loads(raw_body), files

    # ------------------------------------------------------------------ REST: identity

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response({**self.bot_user.payload(), "verified": True, "mfa_enabled": False})

    async def _get_user(self, request: web.Request, user_id: str) -> web.Response:
        user = self.users.get(int(user_id))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return json_response(user.payload())

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "icon": None,
                "description": "",
                "summary": "",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.bot_user.payload(),
                "owner": self.owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    # ------------------------------------------------------------------ REST: commands

    async def _put_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> web.Response:
        if int(app_id) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")
        scope = None if guild_id is None else int(guild_id)
        if scope is not None and not any(g.id == scope for g in self.guilds):
            raise ApiError(403, 50001, "Missing Access")
        payload, _ = await self._read_body(request)
        if not isinstance(payload, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        problems = [p for command in payload for p in _command_problems(command)]
        names = [(c.get("name"), c.get("type", 1)) for c in payload]
        if len(set(names)) != len(names):
            problems.append("duplicate command names")
        if problems:
            raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
        stored = []
        for command in payload:
            kind = int(command.get("type", 1))
            key = (scope, command["name"], kind)
            command_id = self._command_ids.setdefault(key, new_snowflake())
            entry = {
                **command,
                "id": str(command_id),
                "application_id": str(self.application_id),
                "type": kind,
                "version": str(new_snowflake()),
                "default_member_permissions": command.get("default_member_permissions"),
                "nsfw": command.get("nsfw", False),
            }
            if scope is not None:
                entry["guild_id"] = str(scope)
            stored.append(entry)
        self.commands[scope] = stored
        self.sync_calls.append(SyncCall(scope, payload, time.time()))
        return json_response(stored)

    async def _get_commands(
        self, request: web.Request, app_id: str, guild_id: str | None = None
    ) -> web.Response:
        scope = None if guild_id is None else int(guild_id)
        return json_response(self.commands.get(scope, []))

    # ------------------------------------------------------------------ REST: interactions

    def _handle_for(self, app_id: str, token: str) -> InteractionHandle:
        handle = self._by_token.get(token)
        if handle is None or int(app_id) != self.application_id:
            raise ApiError(404, 10015, "Unknown Webhook")
        return handle

    async def _interaction_callback(
        self, request: web.Request, interaction_id: str, token: str
    ) -> web.Response:
        handle = self._interactions.get(int(interaction_id))
        if handle is None or handle.token != token:
            raise ApiError(404, 10062, "Unknown interaction")
        if handle.callback is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if time.time() - handle.created_at > self.interaction_deadline:
            handle.expired = True
            raise ApiError(404, 10062, "Unknown interaction")
        payload, files = await self._read_body(request)
        if not isinstance(payload, dict) or "type" not in payload:
            raise ApiError(400, 50035, "Invalid Form Body")
        kind = int(payload["type"])
        data = payload.get("data") or {}
        message: FakeMessage | None = None
        if kind == 4:
            message = self._create(
                handle.channel, data, files, interaction=handle, message_type=_reply_type(handle)
            )
            handle.original_id = message.id
        elif kind == 5:
            flags = LOADING | (int(data.get("flags", 0)) & EPHEMERAL)
            message = self._create(
                handle.channel,
                {"content": "", "flags": flags},
                [],
                interaction=handle,
                message_type=_reply_type(handle),
                allow_empty=True,
                raw_flags=flags,
            )
            handle.original_id = message.id
        elif kind in (6, 7):
            if handle.message is None:
                raise ApiError(400, 50035, "Invalid Form Body: no message to update")
            handle.original_id = handle.message
            if kind == 7:
                message = self._edit(self.messages[handle.message], data, files)
        elif kind == 9:
            problems = _modal_problems(data)
            if handle.type == INTERACTION_MODAL:
                problems.append("a modal cannot answer a modal submit")
            if problems:
                raise ApiError(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            handle.modal = data
            self._modal_sources[data["custom_id"]] = handle
        elif kind != 8:
            raise ApiError(400, 50035, f"Invalid Form Body: unknown callback type {kind}")
        new_attachments = tuple(message.attachments) if message is not None and kind == 4 else ()
        handle.callback = InteractionCallback(
            type=kind, data=data, attachments=new_attachments, message=message
        )
        self._notify()
        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return no_content()
        original = None if handle.original_id is None else self.messages.get(handle.original_id)
        interaction_info: dict[str, Any] = {"id": str(handle.id), "type": handle.type}
        if original is not None:
            interaction_info["response_message_id"] = str(original.id)
            interaction_info["response_message_loading"] = original.loading
            interaction_info["response_message_ephemeral"] = original.ephemeral
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            resource["message"] = message.payload()
        return json_response({"interaction": interaction_info, "resource": resource})

    async def _webhook_post(self, request: web.Request, app_id: str, token: str) -> web.Response:
        handle = self._handle_for(app_id, token)
        if handle.callback is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        payload, files = await self._read_body(request)
        data = payload if isinstance(payload, dict) else {}
        original = None if handle.original_id is None else self.messages.get(handle.original_id)
        if original is not None and original.loading:
            # The first followup after a "thinking" defer replaces the loading message.
            flags = original.flags & EPHEMERAL
            message = self._edit(original, {**data, "flags": flags}, files, clear_loading=True)
        else:
            message = self._create(handle.channel, data, files, interaction=handle, message_type=0)
        handle.followup_ids.append(message.id)
        self._notify()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(message.payload())
        return no_content()

    def _webhook_message(self, handle: InteractionHandle, message_id: str) -> FakeMessage:
        if message_id == "@original":
            if handle.original_id is None:
                raise ApiError(404, 10008, "Unknown Message")
            return self.messages[handle.original_id]
        message = self.messages.get(int(message_id))
        allowed = {handle.original_id, *handle.followup_ids}
        if message is None or message.id not in allowed or message.deleted:
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _webhook_get(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        return json_response(self._webhook_message(handle, message_id).payload())

    async def _webhook_patch(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        current = self._webhook_message(handle, message_id)
        payload, files = await self._read_body(request)
        data = payload if isinstance(payload, dict) else {}
        message = self._edit(current, data, files, clear_loading=True)
        return json_response(message.payload())

    async def _webhook_delete(
        self, request: web.Request, app_id: str, token: str, message_id: str
    ) -> web.Response:
        handle = self._handle_for(app_id, token)
        self._delete(self._webhook_message(handle, message_id))
        return no_content()

    # ------------------------------------------------------------------ REST: channels

    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _check_bot_can_post(self, channel: FakeChannel, files: Sequence[UploadedFile]) -> None:
        if channel.is_dm:
            return
        allowed = channel.app_permissions
        if not allowed & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        if not allowed & SEND_MESSAGES or (files and not allowed & ATTACH_FILES):
            raise ApiError(403, 50013, "Missing Permissions")

    def _channel_message(self, channel: FakeChannel, message_id: str) -> FakeMessage:
        message = self.messages.get(int(message_id))
        # Ephemeral messages do not exist for the bot-token channel routes.
        if (
            message is None
            or message.channel_id != channel.id
            or message.deleted
            or message.ephemeral
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return message

    async def _create_dm(self, request: web.Request) -> web.Response:
        payload, _ = await self._read_body(request)
        recipient = self.users.get(int((payload or {}).get("recipient_id", 0)))
        if recipient is None or recipient.bot:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return json_response(self.dm_channel(recipient).payload())

    async def _get_channel(self, request: web.Request, channel_id: str) -> web.Response:
        return json_response(self._channel(channel_id).payload())

    async def _channel_post(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        if channel.is_dm and channel.recipient is not None and not channel.recipient.dms_open:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        payload, files = await self._read_body(request)
        self._check_bot_can_post(channel, files)
        data = payload if isinstance(payload, dict) else {}
        if int(data.get("flags", 0)) & EPHEMERAL:
            raise ApiError(400, 50035, "Invalid Form Body: only interaction replies are ephemeral")
        message = self._create(channel, data, files)
        return json_response(message.payload())

    async def _channel_history(self, request: web.Request, channel_id: str) -> web.Response:
        channel = self._channel(channel_id)
        limit = int(request.query.get("limit", "50"))
        visible = [m for m in self.messages_in(channel) if not m.ephemeral]
        newest_first = list(reversed(visible))[:limit]
        return json_response([m.payload() for m in newest_first])

    async def _channel_get(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        return json_response(self._channel_message(self._channel(channel_id), message_id).payload())

    async def _channel_patch(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        current = self._channel_message(self._channel(channel_id), message_id)
        if current.author.id != self.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        payload, files = await self._read_body(request)
        data = payload if isinstance(payload, dict) else {}
        return json_response(self._edit(current, data, files).payload())

    async def _channel_delete(
        self, request: web.Request, channel_id: str, message_id: str
    ) -> web.Response:
        self._delete(self._channel_message(self._channel(channel_id), message_id))
        return no_content()

    async def _typing(self, request: web.Request, channel_id: str) -> web.Response:
        self._channel(channel_id)
        return no_content()

    # ------------------------------------------------------------------ REST: guilds

    def _guild(self, guild_id: str) -> FakeGuild:
        for guild in self.guilds:
            if guild.id == int(guild_id):
                return guild
        raise ApiError(404, 10004, "Unknown Guild")

    async def _get_guild(self, request: web.Request, guild_id: str) -> web.Response:
        payload = self._guild(guild_id).payload()
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            payload.pop(key, None)
        return json_response(payload)

    async def _get_guild_channels(self, request: web.Request, guild_id: str) -> web.Response:
        return json_response([c.payload() for c in self._guild(guild_id).channels])

    async def _get_guild_roles(self, request: web.Request, guild_id: str) -> web.Response:
        guild = self._guild(guild_id)
        return json_response([r.payload() for r in (guild.everyone_role(), *guild.roles)])

    async def _get_member(self, request: web.Request, guild_id: str, user_id: str) -> web.Response:
        guild = self._guild(guild_id)
        member = next((m for m in guild.members if m.id == int(user_id)), None)
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return json_response(guild.member_payload(member))

    async def _serve_attachment(self, request: web.Request) -> web.Response:
        attachment = self._attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        content_type = attachment.content_type or "application/octet-stream"
        return web.Response(body=attachment.data, headers={"Content-Type": content_type})

    # ------------------------------------------------------------------ message store

    def _attachments_from(
        self,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        existing: Sequence[FakeAttachment],
    ) -> tuple[FakeAttachment, ...] | None:
        """The attachment list after a create/edit, or None when the body leaves it alone."""
        uploads: dict[str, UploadedFile] = {}
        for position, upload in enumerate(files):
            match = re.fullmatch(r"files\[(\d+)\]", upload.field_name)
            uploads[match.group(1) if match else str(position)] = upload
        total = sum(len(u.data) for u in files)
        if total > self.attachment_size_limit:
            raise ApiError(413, 40005, "Request entity too large")
        entries = data.get("attachments")
        if entries is None:
            if not files:
                return None
            entries = [{"id": key} for key in uploads]
            keep: list[FakeAttachment] = list(existing)
        else:
            keep = []
        by_id = {str(a.id): a for a in existing}
        result = list(keep)
        for entry in entries:
            key = str(entry.get("id"))
            if key in by_id:
                result.append(by_id[key])
                continue
            uploaded = uploads.get(key)
            if uploaded is None:
                raise ApiError(400, 50035, f"Invalid Form Body: attachment {key} has no file")
            attachment_id = new_snowflake()
            filename = str(entry.get("filename") or uploaded.filename)
            attachment = FakeAttachment(
                id=attachment_id,
                filename=filename,
                data=uploaded.data,
                description=entry.get("description"),
                content_type=uploaded.content_type
                if uploaded.content_type not in (None, "application/octet-stream")
                else None,
                url=f"{self.base_url}/attachments/{attachment_id}/{filename}",
            )
            self._attachments[attachment_id] = attachment
            result.append(attachment)
        return tuple(result)

    def _create(
        self,
        channel: FakeChannel,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        *,
        interaction: InteractionHandle | None = None,
        message_type: int = 0,
        allow_empty: bool = False,
        raw_flags: int | None = None,
    ) -> FakeMessage:
        attachments = self._attachments_from(data, files, ()) or ()
        flags = raw_flags if raw_flags is not None else int(data.get("flags", 0)) & SETTABLE_FLAGS
        message = FakeMessage(
            id=new_snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=str(data.get("content") or ""),
            embeds=tuple(data.get("embeds") or ()),
            components=tuple(data.get("components") or ()),
            attachments=attachments,
            flags=flags,
            type=message_type,
            webhook_id=None if interaction is None else self.application_id,
            application_id=None if interaction is None else self.application_id,
            interaction_id=None if interaction is None else interaction.id,
            interaction_type=2 if interaction is None else interaction.type,
            interaction_user=None if interaction is None else interaction.user,
            visible_to=interaction.user.id
            if interaction is not None and flags & EPHEMERAL
            else None,
        )
        problems = _message_problems(message)
        if not allow_empty and not (
            message.content or message.embeds or message.components or message.attachments
        ):
            problems.append("cannot send an empty message")
        if problems:
            code = 50006 if problems == ["cannot send an empty message"] else 50035
            raise ApiError(400, code, "; ".join(problems))
        self.messages[message.id] = message
        self._channel_log.setdefault(channel.id, []).append(message.id)
        self._record_event("create", message)
        return message

    def _edit(
        self,
        current: FakeMessage,
        data: Mapping[str, Any],
        files: Sequence[UploadedFile],
        *,
        clear_loading: bool = False,
    ) -> FakeMessage:
        changes: dict[str, Any] = {"edited_at": time.time(), "version": current.version + 1}
        if "content" in data:
            changes["content"] = str(data.get("content") or "")
        if "embeds" in data:
            changes["embeds"] = tuple(data.get("embeds") or ())
        if "components" in data:
            changes["components"] = tuple(data.get("components") or ())
        attachments = self._attachments_from(data, files, current.attachments)
        if attachments is not None:
            changes["attachments"] = attachments
        flags = current.flags
        if "flags" in data:
            # Only SUPPRESS_EMBEDS can change on an existing message.
            flags = (flags & ~(1 << 2)) | (int(data.get("flags") or 0) & (1 << 2))
        if clear_loading:
            flags &= ~LOADING
        changes["flags"] = flags
        message = current.replace(**changes)
        problems = _message_problems(message)
        if problems:
            raise ApiError(400, 50035, "; ".join(problems))
        self.messages[message.id] = message
        self._record_event("edit", message)
        return message

    def _delete(self, current: FakeMessage) -> None:
        message = current.replace(deleted=True, version=current.version + 1)
        self.messages[message.id] = message
        self._record_event("delete", message)

    def _record_event(self, kind: str, message: FakeMessage) -> None:
        self.events.append(MessageEvent(index=len(self.events), kind=kind, message=message))
        self._notify()


def _reply_type(handle: InteractionHandle) -> int:
    # A reply to a slash command is a CHAT_INPUT_COMMAND message; to a component, a DEFAULT one.
    return 20 if handle.type == INTERACTION_COMMAND else 0


_NAME = re.compile(r"^[-_\w]{1,32}$")


def _command_problems(command: Mapping[str, Any], depth: int = 0) -> list[str]:
    """What Discord's validation would reject in one command or option (the common rules)."""
    problems: list[str] = []
    name = str(command.get("name", ""))
    kind = int(command.get("type", 1))
    if (depth == 0 and kind == 1) or depth > 0:
        if not _NAME.fullmatch(name) or name != name.lower():
            problems.append(f"bad name {name!r}")
        description = str(command.get("description", ""))
        if not 1 <= len(description) <= 100:
            problems.append(f"{name}: description must be 1-100 characters")
    options = list(command.get("options") or [])
    if len(options) > 25:
        problems.append(f"{name}: more than 25 options")
    seen_optional = False
    for option in options:
        if option.get("type") in (1, 2):
            problems.extend(_command_problems(option, depth + 1))
            continue
        if option.get("required"):
            if seen_optional:
                problems.append(f"{name}: required option after an optional one")
        else:
            seen_optional = True
        if len(option.get("choices") or []) > 25:
            problems.append(f"{name}.{option.get('name')}: more than 25 choices")
        problems.extend(_command_problems({**option, "options": []}, depth + 1))
    return problems


def _message_problems(message: FakeMessage) -> list[str]:
    problems: list[str] = []
    if len(message.content) > 2000:
        problems.append("content longer than 2000 characters")
    if len(message.embeds) > 10:
        problems.append("more than 10 embeds")
    if len(message.attachments) > 10:
        problems.append("more than 10 attachments")
    if not message.flags & (1 << 15):
        if len(message.components) > 5:
            problems.append("more than 5 action rows")
        for row in message.components:
            if len(row.get("components", [])) > 5:
                problems.append("more than 5 components in a row")
    for component in message.walk_components():
        custom_id = component.get("custom_id")
        if custom_id is not None and not 1 <= len(str(custom_id)) <= 100:
            problems.append(f"custom_id {custom_id!r} must be 1-100 characters")
        label = component.get("label")
        if label is not None and len(str(label)) > 80:
            problems.append(f"label {label!r} longer than 80 characters")
    return problems


def _modal_problems(data: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if not 1 <= len(str(data.get("custom_id", ""))) <= 100:
        problems.append("modal custom_id must be 1-100 characters")
    if not 1 <= len(str(data.get("title", ""))) <= 45:
        problems.append("modal title must be 1-45 characters")
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        problems.append("a modal needs 1-5 top-level components")
    return problems
